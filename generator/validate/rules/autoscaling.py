"""Owner `autoscaling`: the apiserver's validation of HorizontalPodAutoscalers beyond their
schemas (k8s.io/kubernetes pkg/apis/autoscaling/validation/validation.go; each rule names the
function it ports). Every served version is converted to one internal type before these run."""

from __future__ import annotations

from generator.core.findings import Finding
from generator.core.grammar import DNS1123_LABEL, name_problem, parse_quantity, path_segment_problem
from generator.validate.rules.base import as_dict, as_int, as_list, enforced, error
from generator.validate.rules.core import resource_name_problem

# validateMetricSpec: each metric type and the field that holds its source
METRIC_SOURCES = {
    "Object": "object",
    "Pods": "pods",
    "Resource": "resource",
    "ContainerResource": "containerResource",
    "External": "external",
}

TARGET_TYPES = ("Utilization", "Value", "AverageValue")


def hpa_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """validateHorizontalPodAutoscalerSpec: minReplicas >= 1, maxReplicas >= minReplicas, the
    scale target, and (autoscaling/v2, v2beta2) metrics and behavior."""
    spec = as_dict(obj.get("spec"))
    out = []
    low, high = as_int(spec.get("minReplicas")), as_int(spec.get("maxReplicas"))
    if low is not None and low < 1:
        message = f"minReplicas must be at least 1, got {low} (scaling to zero is an alpha feature, off by default)"
        out.append(error("spec.minReplicas", "hpa", message))
    if high is not None and high < 1:
        out.append(error("spec.maxReplicas", "hpa", f"maxReplicas must be greater than 0, got {high}"))
    elif high is not None and high < (low if low is not None else 1):
        message = f"maxReplicas {high} must be greater than or equal to minReplicas {low if low is not None else 1}"
        out.append(error("spec.maxReplicas", "hpa", message))
    if isinstance(spec.get("scaleTargetRef"), dict):
        out += _reference_findings(spec["scaleTargetRef"], "spec.scaleTargetRef")
    utilization = as_int(spec.get("targetCPUUtilizationPercentage"))  # autoscaling/v1
    if utilization is not None and utilization < 1:
        message = f"targetCPUUtilizationPercentage must be greater than 0, got {utilization}"
        out.append(error("spec.targetCPUUtilizationPercentage", "hpa", message))
    if obj.get("apiVersion") in ("autoscaling/v2", "autoscaling/v2beta2"):
        for i, metric in enumerate(as_list(spec.get("metrics"))):
            out += _metric_findings(as_dict(metric), f"spec.metrics[{i}]", releases)
        behavior = as_dict(spec.get("behavior"))
        for direction in ("scaleUp", "scaleDown"):
            if isinstance(behavior.get(direction), dict):
                out += _rules_findings(behavior[direction], f"spec.behavior.{direction}")
    return out


def _reference_findings(ref: dict, here: str) -> list[Finding]:
    """ValidateCrossVersionObjectReference: a kind and a name, each a path segment name."""
    out = []
    for field in ("kind", "name"):
        value = ref.get(field)
        if value == "":  # an absent one is the schema's (required)
            out.append(error(f"{here}.{field}", "hpa", f"{here.rpartition('.')[2]} needs a {field}"))
        elif isinstance(value, str) and (problem := path_segment_problem(value, field)):
            out.append(error(f"{here}.{field}", "hpa", problem))
    return out


CONTAINER_METRICS_SINCE = 27  # HPAContainerMetrics: alpha 1.20, beta (on) 1.27, GA 1.30


def _metric_findings(metric: dict, here: str, releases: tuple[int, ...]) -> list[Finding]:
    """validateMetricSpec: the source of the metric's type, and only that one; its target."""
    kind = metric.get("type")
    if not isinstance(kind, str):
        return []
    if kind not in METRIC_SOURCES:
        return [error(f"{here}.type", "hpa", f"metric type {kind!r} is not one of {', '.join(METRIC_SOURCES)}")]
    out = []
    source = METRIC_SOURCES[kind]
    if metric.get(source) is None:
        out.append(error(here, "hpa", f"a {kind} metric needs its source in {source}"))
    others = [f for f in METRIC_SOURCES.values() if f != source and metric.get(f) is not None]
    if others:
        message = f"a {kind} metric may only set {source}, found {', '.join(others)}"
        out.append(error(f"{here}.{others[0]}", "hpa", message))
    body = as_dict(metric.get(source))
    if kind in ("Resource", "ContainerResource") and isinstance(metric.get(source), dict) and not body.get("name"):
        out.append(error(f"{here}.{source}.name", "hpa", "a resource metric needs the resource name (cpu, memory)"))
    container_source = kind == "ContainerResource" and isinstance(metric.get(source), dict)
    if container_source and enforced(releases, CONTAINER_METRICS_SINCE):
        # validateContainerResourceSource: the container's name, a DNS-1123 label (the schema
        # requires it)
        container = body.get("container")
        problem = name_problem(container, DNS1123_LABEL, 63, "container name (DNS-1123 label)")
        if isinstance(container, str) and problem:
            out.append(error(f"{here}.{source}.container", "hpa", problem))
    if container_source and isinstance(body.get("name"), str) and body["name"]:
        # validateContainerResourceSource: corevalidation.ValidateContainerResourceName
        problem = resource_name_problem(body["name"], container=True)
        if problem:
            out.append(error(f"{here}.{source}.name", "hpa", problem))
    if kind in ("Object", "Pods", "External") and isinstance(body.get("metric"), dict):
        # validateMetricIdentifier: a metric name, required, a path segment name
        name = body["metric"].get("name")
        problem = path_segment_problem(name, "metric name") if name is None or isinstance(name, str) else None
        if problem:
            out.append(error(f"{here}.{source}.metric.name", "hpa", problem))
    if kind == "Object" and isinstance(body.get("describedObject"), dict):
        out += _reference_findings(body["describedObject"], f"{here}.{source}.describedObject")
    if isinstance(body.get("target"), dict):
        out += _target_findings(body["target"], f"{here}.{source}.target", kind)
    return out


def _target_findings(target: dict, here: str, kind: str) -> list[Finding]:
    """validateMetricTarget (a type, positive values) and the source's own rule of which target
    value it reads (validateObjectSource, validatePodsSource, validateResourceSource, ...)."""
    out = []
    kind_of_target = target.get("type")
    if isinstance(kind_of_target, str) and kind_of_target not in TARGET_TYPES:
        message = f"target type {kind_of_target!r} is not one of {', '.join(TARGET_TYPES)}"
        out.append(error(f"{here}.type", "hpa", message))
    present = {f for f in ("value", "averageValue", "averageUtilization") if target.get(f) is not None}
    if kind in ("Object", "External") and not present & {"value", "averageValue"}:
        # validateObjectSource / validateExternalSource: field.Required at target.averageValue
        out.append(error(f"{here}.averageValue", "hpa", f"a {kind} metric's target needs value or averageValue"))
    elif kind == "External" and {"value", "averageValue"} <= present:  # validateExternalSource
        message = "an External metric's target may not set both value and averageValue"
        out.append(error(f"{here}.value", "hpa", message))
    elif kind == "Pods" and "averageValue" not in present:
        out.append(error(f"{here}.averageValue", "hpa", "a Pods metric's target needs averageValue"))
    elif kind in ("Resource", "ContainerResource"):
        if not present & {"averageUtilization", "averageValue"}:
            message = f"a {kind} metric's target needs averageUtilization or averageValue"
            # validate(Container)ResourceSource: field.Required at target.averageUtilization
            out.append(error(f"{here}.averageUtilization", "hpa", message))
        elif {"averageUtilization", "averageValue"} <= present:
            message = f"a {kind} metric's target may not set both averageUtilization and averageValue"
            out.append(error(f"{here}.averageValue", "hpa", message))
    utilization = as_int(target.get("averageUtilization"))
    if utilization is not None and utilization < 1:
        message = f"averageUtilization must be greater than 0, got {utilization}"
        out.append(error(f"{here}.averageUtilization", "hpa", message))
    for field in ("value", "averageValue"):
        number = parse_quantity(target.get(field))
        if number is not None and number <= 0:
            out.append(error(f"{here}.{field}", "hpa", f"{field} must be positive, got {target[field]!r}"))
    return out


MAX_PERIOD = 1800  # MaxPeriodSeconds

MAX_STABILIZATION = 3600  # MaxStabilizationWindowSeconds


def _rules_findings(rules: dict, here: str) -> list[Finding]:
    """validateScalingRules: a stabilization window in 0-3600, policies of type Pods or Percent
    with a value > 0 and a period in 1-1800, selectPolicy Max, Min or Disabled."""
    out = []
    window = as_int(rules.get("stabilizationWindowSeconds"))
    if window is not None and not 0 <= window <= MAX_STABILIZATION:
        message = f"stabilizationWindowSeconds {window} must be in 0-{MAX_STABILIZATION}"
        out.append(error(f"{here}.stabilizationWindowSeconds", "hpa", message))
    select = rules.get("selectPolicy")
    if isinstance(select, str) and select not in ("Max", "Min", "Disabled"):
        out.append(error(f"{here}.selectPolicy", "hpa", f"selectPolicy {select!r} is not one of Max, Min, Disabled"))
    if rules.get("policies") == []:
        # an explicit empty list stays one: SetDefaults' copyHPAScalingRules replaces only nil
        message = "policies must hold at least one policy (leave it out for the default policies)"
        out.append(error(f"{here}.policies", "hpa", message))
    for i, policy in enumerate(as_list(rules.get("policies"))):
        policy = as_dict(policy)
        path = f"{here}.policies[{i}]"
        kind = policy.get("type")
        if isinstance(kind, str) and kind not in ("Pods", "Percent"):
            out.append(error(f"{path}.type", "hpa", f"policy type {kind!r} must be Pods or Percent"))
        value, period = as_int(policy.get("value")), as_int(policy.get("periodSeconds"))
        if value is not None and value <= 0:
            out.append(error(f"{path}.value", "hpa", f"value must be greater than 0, got {value}"))
        if period is not None and not 1 <= period <= MAX_PERIOD:
            out.append(error(f"{path}.periodSeconds", "hpa", f"periodSeconds {period} must be in 1-{MAX_PERIOD}"))
    return out
