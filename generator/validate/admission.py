"""What the projects' mutating admission webhooks set before the apiserver validates an object:
mutating webhooks run first, so a field such a webhook fills is no missing field. Only what can
change a verdict is modelled; each entry cites the webhook's source.
"""

from __future__ import annotations

import copy

from generator.core import kinds as registry


def jobset(obj: dict) -> dict:
    """JobSet's mutating webhook (jobset v0.6.0 to v0.12.0, pkg/webhooks/jobset_webhook.go
    Default): a failure-policy rule without a name is named failurePolicyRule<i>, which the
    CRD then requires."""
    spec = obj.get("spec")
    policy = spec.get("failurePolicy") if isinstance(spec, dict) else None
    rules = policy.get("rules") if isinstance(policy, dict) else None
    if not isinstance(rules, list) or all(not isinstance(r, dict) or r.get("name") for r in rules):
        return obj  # any other shape is the schema's to report
    obj = copy.deepcopy(obj)
    for i, rule in enumerate(obj["spec"]["failurePolicy"]["rules"]):
        if isinstance(rule, dict) and not rule.get("name"):
            rule["name"] = f"failurePolicyRule{i}"
    return obj


def mutated(obj: dict, api_version: str, kind: str) -> dict:
    """``obj`` as the mutating webhooks of its kind leave it (a copy where one changes it): the
    registry (core/kinds.py) names the function of this module that models its webhook."""
    entry = registry.lookup(api_version, kind)
    return globals()[entry.admission](obj) if entry is not None and entry.admission else obj
