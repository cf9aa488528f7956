"""Owner `apps`: the apiserver's validation of Deployments, StatefulSets, DaemonSets, ReplicaSets and
ControllerRevisions beyond their schemas (k8s.io/kubernetes pkg/apis/apps/validation/validation.go;
each rule names the function it ports). The pod template itself, its restart policy and the
selector matching its labels are pod.py's, shared with every kind that holds a template."""

from __future__ import annotations

import re
from typing import Any

from generator.core.findings import Finding
from generator.validate.rules.base import as_dict, as_int, enforced, error, nonnegative, nonnegative_fields
from generator.validate.rules.selector import expression_value_findings, is_empty, selector_findings

_PERCENT = re.compile(r"^[0-9]+%$")  # validation.IsValidPercent


def int_or_percent(value: Any, path: str, rule: str, capped: bool = True) -> tuple[int | None, list[Finding]]:
    """ValidatePositiveIntOrPercent and (``capped``) IsNotMoreThan100Percent: a count >= 0 or "N%"
    up to 100%. Returns the number (percent or count; None if malformed) for the both-zero rules."""
    if isinstance(value, str):
        if not _PERCENT.match(value):
            return None, [error(path, rule, f"{value!r} must be an integer or a percentage (e.g. '25%')")]
        percent = int(value[:-1])
        if percent > 100 and capped:
            return percent, [error(path, rule, f"{value!r} must not be greater than 100%")]
        return percent, []
    number = as_int(value)
    if number is not None and number < 0:
        return number, [error(path, rule, f"{number} must be greater than or equal to 0")]
    return number, []


def _common(spec: dict[Any, Any], rule: str, kind: str, fields: tuple[str, ...]) -> list[Finding]:
    """The bounds every controller shares, and a selector that must be set and not empty."""
    out = nonnegative_fields(spec, fields, "spec", rule)
    selector = spec.get("selector")
    if isinstance(selector, dict):
        out += selector_findings(selector, "spec.selector")
        if "matchExpressions" in selector:
            out += expression_value_findings(selector["matchExpressions"], "spec.selector")
        if is_empty(selector):
            message = f"an empty selector is not valid for a {kind}: give matchLabels of the pod template"
            out.append(error("spec.selector", rule, message))
    template = as_dict(as_dict(spec.get("template")).get("spec"))
    if template.get("activeDeadlineSeconds") is not None:  # ValidatePodTemplateSpecForReplicaSet and others
        message = f"activeDeadlineSeconds is not supported in a {kind}'s pod template: its pods run until replaced"
        out.append(error("spec.template.spec.activeDeadlineSeconds", rule, message))
    return out


DEPLOYMENT_STRATEGIES = ("Recreate", "RollingUpdate")


def deployment_findings(obj: dict[Any, Any], releases: tuple[int, ...]) -> list[Finding]:
    """ValidateDeploymentSpec, ValidateDeploymentStrategy, ValidateRollingUpdateDeployment."""
    spec = as_dict(obj.get("spec"))
    fields = ("replicas", "minReadySeconds", "revisionHistoryLimit", "progressDeadlineSeconds")
    out = _common(spec, "deployment", "Deployment", fields)
    strategy = as_dict(spec.get("strategy"))
    kind = strategy.get("type") or "RollingUpdate"  # SetDefaults_Deployment
    rolling = strategy.get("rollingUpdate")
    if isinstance(kind, str) and kind not in DEPLOYMENT_STRATEGIES:  # ValidateDeploymentStrategy
        message = f"strategy type {kind!r} must be Recreate or RollingUpdate"
        out.append(error("spec.strategy", "deployment", message))
    elif kind == "Recreate" and rolling is not None:
        message = "rollingUpdate may not be set when the strategy type is Recreate"
        out.append(error("spec.strategy.rollingUpdate", "deployment", message))
    elif kind == "RollingUpdate" and isinstance(rolling, dict):
        here = "spec.strategy.rollingUpdate"
        # ValidateRollingUpdateDeployment caps maxUnavailable at 100%, not maxSurge
        surge, found = int_or_percent(rolling.get("maxSurge", "25%"), f"{here}.maxSurge", "deployment", capped=False)
        out += found if "maxSurge" in rolling else []
        unavailable, found = int_or_percent(
            rolling.get("maxUnavailable", "25%"), f"{here}.maxUnavailable", "deployment"
        )
        out += found if "maxUnavailable" in rolling else []
        if surge == 0 and unavailable == 0:
            message = "maxUnavailable may not be 0 when maxSurge is 0: the rollout could never progress"
            out.append(error(f"{here}.maxUnavailable", "deployment", message))
    deadline = as_int(spec.get("progressDeadlineSeconds", 600 if obj.get("apiVersion") == "apps/v1" else None))
    ready = as_int(spec.get("minReadySeconds")) or 0  # apps/v1 defaults the deadline to 600 (SetDefaults_Deployment)
    if deadline is not None and deadline >= 0 and deadline <= ready:
        message = f"progressDeadlineSeconds {deadline} must be greater than minReadySeconds {ready}"
        out.append(error("spec.progressDeadlineSeconds", "deployment", message))
    return out


def replicaset_findings(obj: dict[Any, Any], releases: tuple[int, ...]) -> list[Finding]:
    """ValidateReplicaSetSpec: replicas and minReadySeconds >= 0, a selector."""
    return _common(as_dict(obj.get("spec")), "replicaset", "ReplicaSet", ("replicas", "minReadySeconds"))


DAEMONSET_SURGE_SINCE = 22  # DaemonSetUpdateSurge: alpha 1.21, beta (on) 1.22, GA 1.25


def daemonset_findings(obj: dict[Any, Any], releases: tuple[int, ...]) -> list[Finding]:
    """ValidateDaemonSetSpec, ValidateDaemonSetUpdateStrategy, ValidateRollingUpdateDaemonSet:
    exactly one of maxUnavailable and maxSurge non-zero (maxSurge from 1.22)."""
    spec = as_dict(obj.get("spec"))
    out = _common(spec, "daemonset", "DaemonSet", ("minReadySeconds", "revisionHistoryLimit"))
    strategy = as_dict(spec.get("updateStrategy"))
    rolling = strategy.get("rollingUpdate")
    default = "OnDelete" if str(obj.get("apiVersion")).startswith("extensions/") else "RollingUpdate"
    kind = strategy.get("type") or default  # SetDefaults_DaemonSet
    if isinstance(kind, str) and kind not in ("RollingUpdate", "OnDelete"):  # ValidateDaemonSetUpdateStrategy
        message = f"updateStrategy type {kind!r} must be RollingUpdate or OnDelete"
        out.append(error("spec.updateStrategy", "daemonset", message))
    if kind != "RollingUpdate" or not isinstance(rolling, dict):
        return out
    here = "spec.updateStrategy.rollingUpdate"
    unavailable, found = int_or_percent(rolling.get("maxUnavailable", 1), f"{here}.maxUnavailable", "daemonset")
    out += found
    surge: int | None = 0
    if enforced(releases, DAEMONSET_SURGE_SINCE) and "maxSurge" in rolling:
        surge, found = int_or_percent(rolling.get("maxSurge"), f"{here}.maxSurge", "daemonset")
        out += found
    if unavailable and surge:
        message = "maxSurge may not be set when maxUnavailable is non-zero: set maxUnavailable: 0 to surge"
        out.append(error(f"{here}.maxSurge", "daemonset", message))
    elif unavailable == 0 and surge == 0:
        message = "maxUnavailable cannot be 0 when maxSurge is 0: the rollout could never progress"
        out.append(error(f"{here}.maxUnavailable", "daemonset", message))
    return out


POD_MANAGEMENT = ("OrderedReady", "Parallel")

PVC_RETENTION_SINCE = 27  # StatefulSetAutoDeletePVC: alpha 1.23, beta (on) 1.27, GA 1.32

PVC_RETENTION = ("Retain", "Delete")

STS_MAX_UNAVAILABLE_SINCE = 35  # MaxUnavailableStatefulSet: alpha 1.24 (the field dropped), beta (on) 1.35

START_ORDINAL_SINCE = 27  # StatefulSetStartOrdinal: alpha 1.26, beta (on) 1.27, GA 1.31


def statefulset_findings(obj: dict[Any, Any], releases: tuple[int, ...]) -> list[Finding]:
    """ValidateStatefulSetSpec: podManagementPolicy, updateStrategy and its partition, bounds, a selector."""
    spec = as_dict(obj.get("spec"))
    # ValidateStatefulSetSpec bounds replicas and minReadySeconds, not revisionHistoryLimit
    out = _common(spec, "statefulset", "StatefulSet", ("replicas", "minReadySeconds"))
    ordinals = spec.get("ordinals")
    if isinstance(ordinals, dict) and enforced(releases, START_ORDINAL_SINCE):
        out += nonnegative(ordinals.get("start"), "spec.ordinals.start", "statefulset")
    policy = spec.get("podManagementPolicy")
    # SetDefaults_StatefulSet (pkg/apis/apps/v1/defaults.go) makes an empty policy OrderedReady
    # before ValidateStatefulSetSpec runs: "" is accepted.
    if isinstance(policy, str) and policy and policy not in POD_MANAGEMENT:
        message = f"podManagementPolicy {policy!r} must be OrderedReady or Parallel"
        out.append(error("spec.podManagementPolicy", "statefulset", message))
    retention = spec.get("persistentVolumeClaimRetentionPolicy")
    if isinstance(retention, dict) and enforced(releases, PVC_RETENTION_SINCE):
        for when in ("whenDeleted", "whenScaled"):  # ValidatePersistentVolumeClaimRetentionPolicyType
            value = retention.get(when)  # unset or "": SetDefaults_StatefulSet makes it Retain
            if isinstance(value, str) and value and value not in PVC_RETENTION:
                message = f"{when} {value!r} must be Retain or Delete"
                out.append(error(f"spec.persistentVolumeClaimRetentionPolicy.{when}", "statefulset", message))
    strategy = as_dict(spec.get("updateStrategy"))
    kind = strategy.get("type") or "RollingUpdate"
    if not isinstance(kind, str):
        return out  # another type: the schema's finding
    if kind not in ("RollingUpdate", "OnDelete"):
        message = f"updateStrategy type {kind!r} must be RollingUpdate or OnDelete"
        out.append(error("spec.updateStrategy", "statefulset", message))
    elif kind == "OnDelete" and strategy.get("rollingUpdate") is not None:
        message = "rollingUpdate is only allowed for updateStrategy RollingUpdate"
        out.append(error("spec.updateStrategy.rollingUpdate", "statefulset", message))
    else:
        rolling = as_dict(strategy.get("rollingUpdate"))
        out += nonnegative(rolling.get("partition"), "spec.updateStrategy.rollingUpdate.partition", "statefulset")
        if rolling.get("maxUnavailable") is not None and enforced(releases, STS_MAX_UNAVAILABLE_SINCE):
            here = "spec.updateStrategy.rollingUpdate.maxUnavailable"  # validateRollingUpdateStatefulSet
            unavailable, found = int_or_percent(rolling["maxUnavailable"], here, "statefulset")
            out += found
            if unavailable == 0:
                out.append(error(here, "statefulset", "maxUnavailable cannot be 0: the rollout could never progress"))
    return out


def controller_revision_findings(obj: dict[Any, Any], releases: tuple[int, ...]) -> list[Finding]:
    """ValidateControllerRevisionCreate (v1.31.1): revision not negative (ValidateNonnegativeField);
    data absent, null or no object is the schema's required and type."""
    return nonnegative(obj.get("revision"), "revision", "controller-revision")
