"""Owner `policy`: the apiserver's validation of PodDisruptionBudgets beyond their schemas
(k8s.io/kubernetes pkg/apis/policy/validation/validation.go, ValidatePodDisruptionBudgetSpec)."""

from __future__ import annotations

from generator.core.findings import Finding
from generator.validate.rules.apps import int_or_percent
from generator.validate.rules.base import as_dict, enforced, error
from generator.validate.rules.selector import selector_findings

EVICTION_POLICIES = ("IfHealthyBudget", "AlwaysAllow")

EVICTION_POLICY_SINCE = 27  # PDBUnhealthyPodEvictionPolicy: alpha 1.26, beta (on) 1.27, GA 1.31


def pdb_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """minAvailable xor maxUnavailable, each a count >= 0 or a percentage up to 100%, a valid
    selector, and unhealthyPodEvictionPolicy."""
    spec = as_dict(obj.get("spec"))
    out = []
    if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        message = "minAvailable and maxUnavailable cannot both be set: keep one"
        out.append(error("spec.maxUnavailable", "pdb", message))
    for field in ("minAvailable", "maxUnavailable"):
        if spec.get(field) is not None:
            out += int_or_percent(spec[field], f"spec.{field}", "pdb")[1]
    if isinstance(spec.get("selector"), dict):
        out += selector_findings(spec["selector"], "spec.selector")
    policy = spec.get("unhealthyPodEvictionPolicy")
    if isinstance(policy, str) and enforced(releases, EVICTION_POLICY_SINCE) and policy not in EVICTION_POLICIES:
        message = f"unhealthyPodEvictionPolicy {policy!r} is not one of {', '.join(EVICTION_POLICIES)}"
        out.append(error("spec.unhealthyPodEvictionPolicy", "pdb", message))
    return out
