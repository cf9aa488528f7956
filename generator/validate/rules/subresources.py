"""The requests of subresources a manifest can hold: a Binding (core/v1, created through the
namespaced `bindings` resource, which posts it to pods/binding: pkg/registry/core/pod/storage
BindingREST) and a Scale (autoscaling/v1, replaced through a workload's scale subresource, e.g.
`kubectl replace --subresource=scale`). Owners `core` (ValidatePodBinding,
pkg/apis/core/validation/validation.go; schemas/ledger/core-binding.json) and `autoscaling`
(ValidateScale, pkg/apis/autoscaling/validation/validation.go; schemas/ledger/autoscaling-scale.json),
v1.31. A Scale's metadata is ValidateObjectMeta's, as every object's here. A Binding's create runs
no ValidateObjectMeta (no generic registry), but its name is the pod's, which must exist, and its
annotations are copied onto the pod, whose update validates them: the metadata rules judge it."""

from __future__ import annotations

from generator.core.findings import Finding
from generator.validate.rules.base import as_dict, as_int, error, value_text

BINDING_RULE = "binding"
SCALE_RULE = "scale"


def binding_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidatePodBinding: target.kind empty or Node, target.name set."""
    target = obj.get("target")
    if not isinstance(target, dict):
        return []  # absent or not a mapping: the schema's required and type
    out = []
    kind = target.get("kind")
    if isinstance(kind, str) and kind not in ("", "Node"):
        message = f"target.kind {value_text(kind)} is not supported: a pod is bound to a Node (Node or empty)"
        out.append(error("target.kind", BINDING_RULE, message))
    if not target.get("name"):
        out.append(
            error("target.name", BINDING_RULE, "target.name is required: the name of the node to bind the pod to")
        )
    return out


def scale_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidateScale: spec.replicas not negative (its metadata is ValidateObjectMeta's, namespaced,
    a DNS subdomain name: the metadata rules')."""
    replicas = as_int(as_dict(obj.get("spec")).get("replicas"))
    if replicas is not None and replicas < 0:
        message = f"spec.replicas must be greater than or equal to 0, got {replicas}"
        return [error("spec.replicas", SCALE_RULE, message)]
    return []
