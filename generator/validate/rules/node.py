"""Owner `node`: the apiserver's validation of RuntimeClasses beyond their schema
(k8s.io/kubernetes pkg/apis/node/validation/validation.go, ValidateRuntimeClass, v1.31;
schemas/ledger/node-runtimeclass.json)."""

from __future__ import annotations

from generator.core.findings import Finding, child
from generator.core.grammar import DNS1123_LABEL, name_problem, parse_quantity
from generator.validate.rules.base import as_dict, as_list, error, value_text
from generator.validate.rules.core import resource_name_problem
from generator.validate.rules.meta import label_findings
from generator.validate.rules.pod_scheduling import _toleration_findings

RULE = "node-runtime-class"


def runtime_class_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidateRuntimeClass: the handler a DNS-1123 label (NameIsDNSLabel), the overhead's
    podFixed as a container's limits (validateOverhead), the scheduling's node selector as labels
    and its tolerations as a pod's, each (key, operator, value, effect) once (validateScheduling)."""
    out = []
    handler = obj.get("handler")
    if isinstance(handler, str):
        problem = name_problem(handler, DNS1123_LABEL, 63, "handler (DNS-1123 label)")
        if problem:
            out.append(error("handler", RULE, problem))
    overhead = obj.get("overhead")
    if isinstance(overhead, dict):
        out += _pod_fixed_findings(as_dict(overhead.get("podFixed")))
    scheduling = obj.get("scheduling")
    if isinstance(scheduling, dict):
        out += _scheduling_findings(scheduling)
    return out


def _pod_fixed_findings(pod_fixed: dict) -> list[Finding]:
    """validateOverhead: corevalidation.ValidateContainerResourceRequirements of
    ``{Limits: podFixed}``: each name a container resource, each quantity not negative. (Upstream
    names the field overhead.limits[NAME], the path of the requirements it borrows; the finding is
    placed on overhead.podFixed[NAME], the field the file has.)"""
    out = []
    for name, quantity in pod_fixed.items():
        if not isinstance(name, str):
            continue
        here = child("overhead.podFixed", name)
        problem = resource_name_problem(name, True)
        if problem:
            out.append(error(here, RULE, problem))
        value = parse_quantity(quantity)
        if value is not None and value < 0:
            out.append(error(here, RULE, f"overhead {name} {value_text(quantity)} must not be negative"))
    return out


def _scheduling_findings(scheduling: dict) -> list[Finding]:
    """validateScheduling: the node selector's keys and values as labels (the label-key and
    label-value rules), the tolerations as ValidateTolerations reads a pod's (the toleration rule),
    and validateTolerations' uniqueness."""
    out = label_findings(scheduling.get("nodeSelector"), "scheduling.nodeSelector")
    tolerations = as_list(scheduling.get("tolerations"))
    out += _toleration_findings(tolerations, "scheduling.tolerations")
    seen = set()
    for i, toleration in enumerate(tolerations):
        if not isinstance(toleration, dict):
            continue
        # validateTolerations: the list keys (key, operator, value, effect) once each
        key = tuple(str(toleration.get(k) or "") for k in ("key", "operator", "value", "effect"))
        if key in seen:
            message = (
                f"toleration {value_text(toleration)} repeats an earlier one (the same key, operator, value and effect)"
            )
            out.append(error(f"scheduling.tolerations[{i}]", RULE, message))
        seen.add(key)
    return out
