"""The rules of built-in kinds, one module per API group as the apiserver's own
pkg/apis/<group>/validation packages: which function checks which kind. validate.py calls
`builtin_findings` for every built-in object; the pod rules (pod.py) run on every pod
template, built-in or not, and are called beside it."""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable

from generator.core.findings import Finding

Check = Callable[[dict, tuple[int, ...]], list[Finding]]

# (API group, kind) -> the kind's rules, as (module of this package, function); every served
# version of the group shares them, as the apiserver converts each version to one internal type
# before validating it. Named, not imported: a group's module is imported when a kind of it is
# first checked, so a run that sees no Ingress does not pay for networking.py at start-up.
REGISTRY: dict[tuple[str, str], tuple[str, str]] = {
    ("", "Service"): ("core", "service_findings"),
    ("", "ConfigMap"): ("core", "configmap_findings"),
    ("", "Secret"): ("core", "secret_findings"),
    ("", "PersistentVolumeClaim"): ("core", "pvc_findings"),
    ("", "PersistentVolume"): ("core", "pv_findings"),
    ("", "ResourceQuota"): ("core", "resource_quota_findings"),
    ("", "LimitRange"): ("core", "limit_range_findings"),
    ("apps", "Deployment"): ("apps", "deployment_findings"),
    ("extensions", "Deployment"): ("apps", "deployment_findings"),
    ("apps", "StatefulSet"): ("apps", "statefulset_findings"),
    ("apps", "DaemonSet"): ("apps", "daemonset_findings"),
    ("extensions", "DaemonSet"): ("apps", "daemonset_findings"),
    ("apps", "ReplicaSet"): ("apps", "replicaset_findings"),
    ("extensions", "ReplicaSet"): ("apps", "replicaset_findings"),
    ("batch", "Job"): ("batch", "job_findings"),
    ("batch", "CronJob"): ("batch", "cronjob_findings"),
    ("networking.k8s.io", "Ingress"): ("networking", "ingress_findings"),
    ("networking.k8s.io", "NetworkPolicy"): ("networking", "network_policy_findings"),
    ("networking.k8s.io", "IngressClass"): ("networking", "ingress_class_findings"),
    ("extensions", "NetworkPolicy"): ("networking", "network_policy_findings"),
    ("autoscaling", "HorizontalPodAutoscaler"): ("autoscaling", "hpa_findings"),
    ("policy", "PodDisruptionBudget"): ("policy", "pdb_findings"),
    ("rbac.authorization.k8s.io", "Role"): ("rbac", "role_findings"),
    ("rbac.authorization.k8s.io", "ClusterRole"): ("rbac", "role_findings"),
    ("rbac.authorization.k8s.io", "RoleBinding"): ("rbac", "binding_findings"),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): ("rbac", "binding_findings"),
    ("storage.k8s.io", "StorageClass"): ("storage", "storage_class_findings"),
    ("scheduling.k8s.io", "PriorityClass"): ("scheduling", "priority_class_findings"),
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"): (
        "admissionregistration",
        "webhook_configuration_findings",
    ),
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): (
        "admissionregistration",
        "webhook_configuration_findings",
    ),
}


def builtin_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """The group's rules for a built-in object, on the targeted ``releases``."""
    group = str(obj.get("apiVersion", "")).rpartition("/")[0]
    entry = REGISTRY.get((group, obj.get("kind")))
    return _check(*entry)(obj, releases) if entry else []


@functools.cache  # a few dozen entries; the import and lookup once each
def _check(module: str, function: str) -> Check:
    return getattr(importlib.import_module(f".{module}", __package__), function)
