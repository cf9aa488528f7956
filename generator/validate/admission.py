"""What the projects' mutating admission webhooks set before the apiserver validates an object:
mutating webhooks run first, so a field such a webhook fills is no missing field. Only what can
change a verdict is modelled; each entry cites the webhook's source.
"""

from __future__ import annotations

import copy
from typing import Any

from generator.core import kinds as registry


def jobset(obj: dict[Any, Any]) -> dict[Any, Any]:
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


# -- the apiserver's own defaults (SetDefaults_*), which run on decode, before validation ---------
# Only the defaults that change a verdict are modelled: a field the OpenAPI document lists as
# required (a Go field without omitempty) that SetDefaults_* fills before the Go validation looks.


def _job_pod_failure_policy(spec: Any) -> dict[Any, Any] | None:
    """SetDefaults_Job (pkg/apis/batch/v1/defaults.go, from 1.25, when podFailurePolicy came):
    an onPodConditions pattern without status (or with "") gets status True. A copy of
    ``spec`` where it changes one, else None. Not a CronJob's jobTemplate: SetDefaults_Job takes
    a Job, and validatePodFailurePolicyRuleOnPodConditions refuses the empty status there."""
    policy = spec.get("podFailurePolicy") if isinstance(spec, dict) else None
    if not isinstance(policy, dict):
        return None
    rules = policy.get("rules")
    if not isinstance(rules, list):
        return None
    changed = False
    new_rules = []
    for rule in rules:
        patterns = rule.get("onPodConditions") if isinstance(rule, dict) else None
        if isinstance(patterns, list) and any(_unset_status(p) for p in patterns):
            patterns = [{**p, "status": "True"} if _unset_status(p) else p for p in patterns]
            rule = {**rule, "onPodConditions": patterns}
            changed = True
        new_rules.append(rule)
    return {**spec, "podFailurePolicy": {**policy, "rules": new_rules}} if changed else None


def _unset_status(pattern: Any) -> bool:
    return isinstance(pattern, dict) and pattern.get("status", "") == ""


def builtin_defaults(obj: dict[Any, Any]) -> dict[Any, Any]:
    """``obj`` as the apiserver's SetDefaults_* leave it where that changes a verdict (a copy where
    one changes it): the order of a create is decode, default, validate."""
    if obj.get("kind") == "Job" and str(obj.get("apiVersion", "")).startswith("batch/"):
        spec = _job_pod_failure_policy(obj.get("spec"))
        if spec is not None:
            return {**obj, "spec": spec}
    return obj


def mutated(obj: dict[Any, Any], api_version: str, kind: str) -> dict[Any, Any]:
    """``obj`` as the mutating webhooks of its kind leave it (a copy where one changes it): the
    registry (core/kinds.py) names the function of this module that models its webhook."""
    entry = registry.lookup(api_version, kind)
    return globals()[entry.admission](obj) if entry is not None and entry.admission else obj
