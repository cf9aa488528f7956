"""The one registry of kinds: for each kind this project knows more of than its schema, where its
schema comes from, which rules and admission defaults apply, how `local` runs it and whether a
JSON Schema of it is published. Every table that used to be keyed by (apiVersion, kind) in the
validator, the admission model, `local`'s controllers and the publisher derives from it.

A kind's code is named, not imported ("module:function" under the package of the layer that runs
it: generator.validate.rules, generator.validate.admission, generator.local.controllers), so this
module sits at the bottom of the house and a run imports a group's rules only when it meets one.

Built-in kinds (schema "kubernetes") are keyed by API group and apply to every served version, as
the apiserver converts each version to one internal type before validating it. Custom kinds are
keyed by apiVersion. A kind of a third-party project that needs no rules of ours is no entry: its
schema comes from the project's pinned CRDs alone (generator/schema/projects.py).
"""

from __future__ import annotations

import functools
import importlib
from typing import NamedTuple

OWN_SCHEMA = "paddlejob"  # schemas/paddlejob.v1.yaml, the one hand-written API of this project
BUILTIN = "kubernetes"  # the Kubernetes release's own definitions
INPUT = "input"  # `local`: read by another kind's controller, no pods of its own


class Kind(NamedTuple):
    api: str  # apiVersion of a custom kind; the API group ("" is core) of a built-in one
    kind: str
    schema: str = BUILTIN  # BUILTIN, OWN_SCHEMA, or a project of schemas/thirdparty (volcano, ...)
    rules: str | None = None  # "module:function" in generator.validate.rules
    admission: str | None = None  # function in generator.validate.admission: its mutating webhook
    local: str | None = None  # "module:function" in generator.local.controllers, or INPUT
    published: bool = False  # a JSON Schema in schemas/jsonschema (custom kinds)

    @property
    def builtin(self) -> bool:
        return self.schema == BUILTIN


def _builtin(group: str, kinds: str, rules: str, local: dict[str, str] | None = None) -> list[Kind]:
    module, _, function = rules.partition(":")
    return [Kind(group, kind, rules=f"{module}:{function}", local=(local or {}).get(kind)) for kind in kinds.split()]


KINDS: tuple[Kind, ...] = (
    # -- built-in kinds: the rules of pkg/apis/<group>/validation, one module per group --
    *_builtin("", "Service", "core:service_findings"),
    *_builtin("", "ConfigMap", "core:configmap_findings"),
    *_builtin("", "Secret", "core:secret_findings"),
    *_builtin("", "PersistentVolumeClaim", "core:pvc_findings"),
    *_builtin("", "PersistentVolume", "core:pv_findings"),
    *_builtin("", "ResourceQuota", "core:resource_quota_findings"),
    *_builtin("", "LimitRange", "core:limit_range_findings"),
    *_builtin("", "ServiceAccount", "core:serviceaccount_findings"),
    *_builtin("", "Namespace", "core:namespace_findings"),
    *_builtin("apps", "Deployment", "apps:deployment_findings"),
    *_builtin("extensions", "Deployment", "apps:deployment_findings"),
    *_builtin("apps", "StatefulSet", "apps:statefulset_findings", {"StatefulSet": "kubernetes:statefulset_pods"}),
    *_builtin("apps", "DaemonSet", "apps:daemonset_findings"),
    *_builtin("extensions", "DaemonSet", "apps:daemonset_findings"),
    *_builtin("apps", "ReplicaSet", "apps:replicaset_findings"),
    *_builtin("extensions", "ReplicaSet", "apps:replicaset_findings"),
    *_builtin("batch", "Job", "batch:job_findings", {"Job": "kubernetes:indexed_job_pods"}),
    *_builtin("batch", "CronJob", "batch:cronjob_findings"),
    *_builtin("networking.k8s.io", "Ingress", "networking:ingress_findings"),
    *_builtin("networking.k8s.io", "NetworkPolicy", "networking:network_policy_findings"),
    *_builtin("networking.k8s.io", "IngressClass", "networking:ingress_class_findings"),
    *_builtin("extensions", "NetworkPolicy", "networking:network_policy_findings"),
    *_builtin("autoscaling", "HorizontalPodAutoscaler", "autoscaling:hpa_findings"),
    *_builtin("policy", "PodDisruptionBudget", "policy:pdb_findings"),
    *_builtin("rbac.authorization.k8s.io", "Role ClusterRole", "rbac:role_findings"),
    *_builtin("rbac.authorization.k8s.io", "RoleBinding ClusterRoleBinding", "rbac:binding_findings"),
    *_builtin("storage.k8s.io", "StorageClass", "storage:storage_class_findings"),
    *_builtin("scheduling.k8s.io", "PriorityClass", "scheduling:priority_class_findings"),
    *_builtin(
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration MutatingWebhookConfiguration",
        "admissionregistration:webhook_configuration_findings",
    ),
    *_builtin(
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicy",
        "admissionregistration:admission_policy_findings",
    ),
    *_builtin(
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicyBinding",
        "admissionregistration:admission_policy_binding_findings",
    ),
    # -- this project's own API --
    Kind(
        "batch.paddlepaddle.org/v1",
        "PaddleJob",
        OWN_SCHEMA,
        rules="paddlejob:paddlejob_findings",
        local="operator:paddle_job_pods",
        published=True,
    ),
    # -- third-party projects: schema from their pinned CRDs, rules from their webhooks and controllers --
    Kind(
        "batch.volcano.sh/v1alpha1",
        "Job",
        "volcano",
        rules="volcano:volcano_job_findings",
        local="volcano:job_pods",
        published=True,
    ),
    Kind("scheduling.volcano.sh/v1beta1", "PodGroup", "volcano", published=True),
    Kind("scheduling.volcano.sh/v1beta1", "Queue", "volcano", rules="volcano:volcano_queue_findings", published=True),
    Kind(
        "kubeflow.org/v1",
        "PaddleJob",
        "kubeflow",
        rules="kubeflow:kubeflow_paddlejob_findings",
        local="kubeflow:paddle_job_pods",
        published=True,
    ),
    Kind(
        "trainer.kubeflow.org/v1alpha1",
        "TrainJob",
        "trainer",
        rules="trainer:trainjob_findings",
        local="trainer:trainjob_pods",
        published=True,
    ),
    *(
        Kind(
            "trainer.kubeflow.org/v1alpha1",
            kind,
            "trainer",
            rules="trainer:runtime_findings",
            local=INPUT,
            published=True,
        )
        for kind in ("ClusterTrainingRuntime", "TrainingRuntime")
    ),
    Kind("jobset.x-k8s.io/v1alpha2", "JobSet", "jobset", admission="jobset", local="trainer:jobset_pods"),
)


class Project(NamedTuple):
    """A third-party project whose pinned CRDs (schemas/thirdparty/NAME/) check its kinds."""

    name: str  # its folder under schemas/thirdparty, and --NAME-version
    title: str  # the name people know it by
    checks: str  # what its CRDs check, for --NAME-version's help
    validated: bool = True  # False: its CRD is only held against ours (the released paddle-operator's)


PROJECTS: tuple[Project, ...] = (
    Project("volcano", "Volcano", "Volcano release whose CRDs check Volcano objects"),
    Project("kubeflow", "Kubeflow training-operator", "Kubeflow training-operator release whose CRDs check its jobs"),
    Project("trainer", "Kubeflow Trainer", "Kubeflow Trainer release whose CRDs check TrainJobs and runtimes"),
    Project("jobset", "JobSet", "JobSet release whose CRD checks JobSets"),
    Project(
        "gateway-api",
        "Gateway API",
        "Gateway API release whose CRDs check Gateway API objects (1.N: its standard channel; "
        "1.N-experimental or experimental: its experimental channel)",
    ),
    Project("paddle-operator", "paddle-operator", "", validated=False),
)


# Kinds no cluster serves any more, with what replaces them.
LEGACY = {
    ("paddlepaddle.org/v1", "PaddleJob"): (
        "the legacy paddlepaddle.org/v1 PaddleJob API is gone: no operator serves it any more; "
        "write a batch.paddlepaddle.org/v1 PaddleJob (`paddlejob-manifests convert FILE` translates it)"
    ),
}


@functools.cache
def _index() -> tuple[dict, dict]:
    builtin, custom = {}, {}
    for entry in KINDS:
        table = builtin if entry.builtin else custom
        key = (entry.api, entry.kind)
        if key in table:
            raise AssertionError(f"the registry names {key} twice")
        table[key] = entry
    return builtin, custom


def lookup(api_version: str | None, kind: str | None) -> Kind | None:
    """The entry of an object's kind: its apiVersion for a custom kind, its group for a built-in one."""
    builtin, custom = _index()
    entry = custom.get((api_version, kind))
    if entry is None and isinstance(api_version, str):
        entry = builtin.get((api_version.rpartition("/")[0], kind))
    return entry


def builtin_entry(group: str, kind: str | None) -> Kind | None:
    """The entry of a built-in kind of API ``group`` ("" for core), any version."""
    return _index()[0].get((group, kind))


def custom_kinds() -> tuple[Kind, ...]:
    """The custom kinds with an entry, in the registry's order."""
    return tuple(_index()[1].values())


def resolve(package: str, ref: str):
    """The function a "module:function" reference names under ``package`` (imported on first use)."""
    return _resolve(package, ref)


@functools.cache
def _resolve(package: str, ref: str):
    module, _, function = ref.partition(":")
    return getattr(importlib.import_module(f"{package}.{module}"), function)
