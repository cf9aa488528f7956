"""Owner `scheduling`: the apiserver's validation of PriorityClasses beyond their schema
(k8s.io/kubernetes pkg/apis/scheduling/validation/validation.go, ValidatePriorityClass)."""

from __future__ import annotations

from generator.core.findings import Finding
from generator.validate.rules.base import as_dict, as_int, error

HIGHEST_USER_PRIORITY = 1_000_000_000  # scheduling.HighestUserDefinablePriority

# scheduling.SystemPriorityClasses: the only names with the system- prefix, with their values
SYSTEM_CLASSES = {"system-node-critical": 2_000_001_000, "system-cluster-critical": 2_000_000_000}

PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")


def priority_class_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """The system- prefix is reserved (IsKnownSystemPriorityClass), a user class's value is at
    most 1000000000, preemptionPolicy."""
    out = []
    name = as_dict(obj.get("metadata")).get("name")
    value = as_int(obj.get("value"))
    if isinstance(name, str) and name.startswith("system-"):
        if name not in SYSTEM_CLASSES:
            message = f"{name!r}: PriorityClass names starting with system- are reserved for the system"
            out.append(error("metadata.name", "priority-class", message))
        elif value is not None and value != SYSTEM_CLASSES[name]:
            message = f"{name} is a system class with value {SYSTEM_CLASSES[name]}, not {value}"
            out.append(error("value", "priority-class", message))
        elif obj.get("globalDefault") is True:
            out.append(error("globalDefault", "priority-class", f"{name} may not be the global default"))
    elif value is not None and value > HIGHEST_USER_PRIORITY:
        message = f"value {value} is above {HIGHEST_USER_PRIORITY}, the highest a user-defined PriorityClass may have"
        out.append(error("value", "priority-class", message))
    policy = obj.get("preemptionPolicy")
    if isinstance(policy, str) and policy not in PREEMPTION_POLICIES:
        message = f"preemptionPolicy {policy!r} must be PreemptLowerPriority or Never"
        out.append(error("preemptionPolicy", "priority-class", message))
    return out
