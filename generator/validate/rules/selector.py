"""Label selectors (apimachinery pkg/apis/meta/v1/validation ValidateLabelSelector, and the
selector's meaning, labels.Selector.Matches): shared by the workload, PDB and NetworkPolicy
rules. Findings carry the rule id `selector`."""

from __future__ import annotations

from typing import Any

from generator.core.findings import Finding
from generator.core.grammar import DNS1123_SUBDOMAIN, label_key_problem, label_value_problem
from generator.validate.rules.base import as_dict, as_list, error
from generator.validate.rules.meta import label_findings

OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


def selector_findings(selector: Any, path: str) -> list[Finding]:
    """ValidateLabelSelector: matchLabels are labels; each expression has a label key, a known
    operator, values for In/NotIn and none for Exists/DoesNotExist."""
    selector = as_dict(selector)
    out = label_findings(selector.get("matchLabels"), f"{path}.matchLabels")
    for i, expression in enumerate(as_list(selector.get("matchExpressions"))):
        expression = as_dict(expression)
        here = f"{path}.matchExpressions[{i}]"
        key, operator = expression.get("key"), expression.get("operator")
        values = expression.get("values")
        problem = label_key_problem(key) if isinstance(key, str) else None
        if problem:
            out.append(error(f"{here}.key", "selector", problem))
        if isinstance(operator, str) and operator not in OPERATORS:
            message = f"operator {operator!r} is not one of {', '.join(OPERATORS)}"
            out.append(error(f"{here}.operator", "selector", message))
        elif operator in ("In", "NotIn") and not as_list(values):
            message = f"values must be given when the operator is {operator} (ValidateLabelSelectorRequirement)"
            out.append(error(f"{here}.values", "selector", message))
        elif operator in ("Exists", "DoesNotExist") and as_list(values):
            message = f"values may not be given when the operator is {operator} (ValidateLabelSelectorRequirement)"
            out.append(error(f"{here}.values", "selector", message))
    return out


def expression_value_findings(expressions: Any, path: str) -> list[Finding]:
    """ValidateLabelSelectorRequirement with AllowInvalidLabelValueInSelector false, as the apps and
    batch controllers' selectors are validated on create (ValidateDeploymentSpec, ValidateReplicaSetSpec
    and ValidateStatefulSetSpec say so, a DaemonSet's options have it false for a new object, a Job's
    selector likewise): each value of an In or NotIn expression is a label value, or
    LabelSelectorAsSelector fails too."""
    out = []
    for i, expression in enumerate(as_list(expressions)):
        expression = as_dict(expression)
        key = expression.get("key")
        if not isinstance(key, str):
            continue  # another type: the schema's finding
        for j, value in enumerate(as_list(expression.get("values"))):
            problem = label_value_problem(value, key) if isinstance(value, str) else None
            if problem:
                out.append(error(f"{path}.matchExpressions[{i}].values[{j}]", "selector", problem))
    return out


def is_empty(selector: Any) -> bool:
    selector = as_dict(selector)
    return not as_dict(selector.get("matchLabels")) and not as_list(selector.get("matchExpressions"))


def expression_matches(expression: dict[Any, Any], labels: dict[Any, Any]) -> bool | None:
    """Whether ``labels`` satisfy one matchExpressions item; None if it is malformed (its own finding)."""
    key, operator, values = expression.get("key"), expression.get("operator"), as_list(expression.get("values"))
    if not isinstance(key, str) or operator not in OPERATORS or not all(isinstance(v, str) for v in values):
        return None  # another type: the schema's finding
    if operator == "In":
        return key in labels and bool(labels[key] in values)
    if operator == "NotIn":
        return key not in labels or bool(labels[key] not in values)
    return bool((key in labels) == (operator == "Exists"))


def mismatches(selector: Any, labels: Any, labels_path: str, what: str = "pod template") -> list[Finding]:
    """One finding when ``labels`` (the pod template's, at ``labels_path``) do not satisfy
    ``selector`` (labels.Selector.Matches): the controller would own no pod of its template,
    which the apiserver refuses at the template's labels, as upstream names it for every
    workload (field.Invalid(spec.template.metadata.labels, "`selector` does not match template
    `labels`"): ValidatePodTemplateSpecForReplicaSet, ForStatefulSet, ForRC, ValidateDaemonSetSpec,
    validateJobSpec, v1.31.1). The message names each part of the selector that fails."""
    selector, labels = as_dict(selector), as_dict(labels)
    parts = []
    for key, value in as_dict(selector.get("matchLabels")).items():
        if isinstance(value, str) and labels.get(key) != value:  # another type: the schema's finding
            parts.append(f"selector {key}={value}")
    for expression in as_list(selector.get("matchExpressions")):
        if expression_matches(as_dict(expression), labels) is False:
            expression = as_dict(expression)
            parts.append(
                f"selector expression {expression['key']} {expression['operator']} "
                f"({', '.join(as_list(expression.get('values')))})"
            )
    if not parts:
        return []
    message = (
        f"{'; '.join(parts)}: not matched by the {what}'s labels (`selector` does not match template `labels`): "
        "the controller would own no pod"
    )
    return [error(labels_path, "selector", message)]


# -- node selectors (core/validation ValidateNodeSelectorRequirement, ValidateNodeFieldSelectorRequirement):
# a pod's node affinity (rule affinity) and a PersistentVolume's (rule persistent-volume)

NODE_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


def node_requirement_findings(req: dict[Any, Any], here: str, rule: str) -> list[Finding]:
    """ValidateNodeSelectorRequirement: the operator's values (some for In and NotIn, none for
    Exists and DoesNotExist, one for Gt and Lt), a known operator, a label key."""
    out = []
    operator, values, key = req.get("operator"), as_list(req.get("values")), req.get("key")
    if operator in ("In", "NotIn") and not values:
        message = f"operator {operator!r} needs values (the label values to match); add values or use 'Exists'"
        out.append(error(f"{here}.values", rule, message))
    elif operator in ("Exists", "DoesNotExist") and values:
        message = f"operator {operator!r} takes no values: drop values, or use 'In' or 'NotIn'"
        out.append(error(f"{here}.values", rule, message))
    elif operator in ("Gt", "Lt") and len(values) != 1:
        message = f"operator {operator!r} needs exactly one value (an integer), got {len(values)}"
        out.append(error(f"{here}.values", rule, message))
    elif isinstance(operator, str) and operator not in NODE_SELECTOR_OPERATORS:
        message = f"node selector operator {operator!r} is not one of {', '.join(NODE_SELECTOR_OPERATORS)}"
        out.append(error(f"{here}.operator", rule, message))
    if isinstance(key, str):
        problem = label_key_problem(key, "node selector")
        if problem:
            out.append(error(f"{here}.key", rule, problem))
    return out


def node_field_findings(req: dict[Any, Any], here: str, rule: str) -> list[Finding]:
    """ValidateNodeFieldSelectorRequirement: only metadata.name, with In or NotIn and one node name."""
    out = []
    operator, values, key = req.get("operator"), as_list(req.get("values")), req.get("key")
    if operator in ("In", "NotIn"):
        if len(values) != 1:
            message = (
                f"a node field selector with {operator!r} needs exactly one value (a node name), got {len(values)}"
            )
            out.append(error(f"{here}.values", rule, message))
    elif isinstance(operator, str):
        message = f"a node field selector's operator is 'In' or 'NotIn', got {operator!r}"
        out.append(error(f"{here}.operator", rule, message))
    if isinstance(key, str) and key != "metadata.name":
        message = f"a node field selector selects by 'metadata.name' only, got {key!r}; use matchExpressions for labels"
        out.append(error(f"{here}.key", rule, message))
    elif key == "metadata.name":
        for k, value in enumerate(values):
            if isinstance(value, str) and not (len(value) <= 253 and DNS1123_SUBDOMAIN.match(value)):
                message = f"{value!r} is not a node name (a DNS-1123 subdomain)"
                out.append(error(f"{here}.values[{k}]", rule, message))
    return out
