"""Owner `resource`: the apiserver's validation of Dynamic Resource Allocation's kinds beyond
their schema (k8s.io/kubernetes pkg/apis/resource/validation/validation.go, v1.31.1:
ValidateResourceClaim, ValidateResourceClaimTemplate, ValidateDeviceClass, ValidateResourceSlice;
schemas/ledger/resource-*.json).

resource.k8s.io is served by default from 1.34 (v1); 1.31 has v1alpha3 only, 1.32 and 1.33 add
v1beta1 and v1beta2, all off by default (schemas/kubernetes/served.json, the api-not-served rule).
The checks are v1.31.1's, applied where each version keeps the field: v1alpha3 and v1beta1 write a
request's class, selectors and count on the request, v1beta2 and v1 under `exactly` (or each of
`firstAvailable`'s subrequests); v1alpha3 and v1beta1 write a slice's device attributes under
`basic`, v1beta2 and v1 on the device. The v1alpha1 and v1alpha2 APIs (ResourceClass, claims with
resourceClassName, before 1.31) are another API and are not judged here. A claim's status is
dropped on create (the strategy's PrepareForCreate), so its checks never run from a manifest."""

from __future__ import annotations

import re
from typing import Any

from generator.core.findings import Finding, child
from generator.core.grammar import DNS1123_LABEL, DNS1123_SUBDOMAIN, name_problem
from generator.validate.rules.base import as_dict, as_int, as_list, error

CLAIM_RULE = "resource-claim"
CLASS_RULE = "device-class"
SLICE_RULE = "resource-slice"

# pkg/apis/resource/types.go (v1.31.1)
MAX_REQUESTS = 32  # DeviceRequestsMaxSize (= AllocationResultsMaxSize)
MAX_CONSTRAINTS = 32  # DeviceConstraintsMaxSize
MAX_CONFIG = 32  # DeviceConfigMaxSize
MAX_SELECTORS = 32  # DeviceSelectorsMaxSize
MAX_DEVICES = 128  # ResourceSliceMaxDevices
MAX_POOL_NAME = 253  # PoolNameMaxLength
MAX_ATTRIBUTES_AND_CAPACITIES = 32  # ResourceSliceMaxAttributesAndCapacitiesPerDevice
MAX_ID = 32  # DeviceMaxIDLength
MAX_ATTRIBUTE_VALUE = 64  # DeviceAttributeMaxValueLength
ALLOCATION_MODES = ("All", "ExactCount")

_FLAT = ("v1alpha3", "v1beta1")  # a request's fields on the request; a device's under basic
_OLD = ("v1alpha1", "v1alpha2")  # the classic DRA API: other kinds and fields

_C_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")  # validation.IsCIdentifier
_NUMERIC = r"(0|[1-9]\d*)"
_PRE_RELEASE = r"(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)"
_BUILD = r"[0-9a-zA-Z-]+"
# semverRe of validation.go (semver.org 2.0.0)
_SEMVER = re.compile(
    rf"^{_NUMERIC}\.{_NUMERIC}\.{_NUMERIC}"
    rf"(-{_PRE_RELEASE}(\.{_PRE_RELEASE})*)?"
    rf"(\+{_BUILD}(\.{_BUILD})*)?$"
)


def _version(obj: dict[Any, Any]) -> str:
    api_version = obj.get("apiVersion")
    return api_version.rpartition("/")[2] if isinstance(api_version, str) else ""


def _driver_name_problem(name: str, what: str) -> str | None:
    """core/validation ValidateCSIDriverName (validateDriverName): required, at most 63
    characters, a DNS-1123 subdomain once lower-cased."""
    if not name:
        return f"{what} is required"
    if len(name) > 63:
        return f"{what} {name!r} is {len(name)} characters: at most 63"
    if not DNS1123_SUBDOMAIN.match(name.lower()):
        return f"{what} {name!r} must be a DNS-1123 subdomain (e.g. gpu.example.com)"
    return None


def _label_problem(name: str, what: str) -> str | None:
    return name_problem(name, DNS1123_LABEL, 63, f"{what} (DNS-1123 label)")


def _c_identifier_problems(ident: str, what: str) -> list[str]:
    """validateCIdentifier: at most 32 characters, a C identifier."""
    out = []
    if len(ident) > MAX_ID:
        out.append(f"{what} {ident!r} is {len(ident)} characters: at most {MAX_ID}")
    if not _C_IDENTIFIER.match(ident):
        out.append(f"{what} {ident!r} must be a C identifier: letters, digits and '_', not starting with a digit")
    return out


def _qualified_name(name: str, path: str, rule: str, what: str) -> list[Finding]:
    """validateQualifiedName: a C identifier, or DOMAIN/IDENTIFIER with the domain a driver
    name; more than one '/' is not checked upstream (v1.31.1)."""
    if name == "":
        return [error(path, rule, f"{what} must not be empty")]
    parts = name.split("/")
    problems: list[str] = []
    if len(parts) == 1:
        problems += _c_identifier_problems(parts[0], what)
    elif len(parts) == 2:
        domain, ident = parts
        if not domain:
            problems.append(f"{what} {name!r}: the prefix before '/' must not be empty")
        elif problem := _driver_name_problem(domain, f"the domain of {what}"):
            problems.append(problem)
        if not ident:
            problems.append(f"{what} {name!r}: the name after '/' must not be empty")
        else:
            problems += _c_identifier_problems(ident, what)
    return [error(path, rule, problem) for problem in problems]


def _too_many(items: list[Any], limit: int, path: str, rule: str, what: str) -> list[Finding]:
    if len(items) > limit:
        return [error(path, rule, f"{len(items)} {what}: at most {limit}")]
    return []


def _cel_problem(expression: str, releases: tuple[int, ...]) -> str | None:
    """The CEL parser's refusal of a selector (dracel CompileCELExpression's "compilation failed"
    for a syntax error), in the newest targeted release's environment; the type checking against
    the device's declarations (device.driver, attributes, capacity) and the bool result is not
    modelled."""
    from generator.validate.crd import kubecel  # here: CEL only for an object with selectors

    try:
        kubecel.environment(max(releases, default=31)).compile(expression)
    except kubecel.CelProblem as problem:
        text = str(problem)
        if "Syntax error" in text:
            detail = text.split("Syntax error:", 1)[1].strip()
            return f"the selector does not compile: Syntax error: {detail[:300]}"
    return None


def _selectors(selectors: Any, path: str, rule: str, releases: tuple[int, ...]) -> list[Finding]:
    """validateSlice of validateSelector: at most 32, each with cel, its expression compiling."""
    out: list[Finding] = []
    items = as_list(selectors)
    for k, selector in enumerate(items):
        if not isinstance(selector, dict):
            continue  # another type: the schema's finding
        here = f"{path}[{k}]"
        cel = selector.get("cel")
        if cel is None:
            out.append(error(f"{here}.cel", rule, "a selector needs cel (its CEL expression)"))
            continue
        expression = as_dict(cel).get("expression")
        if isinstance(expression, str) and (problem := _cel_problem(expression, releases)):
            out.append(error(f"{here}.cel.expression", rule, problem))
    return out + _too_many(items, MAX_SELECTORS, path, rule, "selectors")


def _configuration(config: dict[Any, Any], here: str, rule: str) -> list[Finding]:
    """validateDeviceConfiguration: opaque required; validateOpaqueConfiguration: the driver a
    driver name. The parameters (absent, null or no JSON object) are the schema's: it requires
    them and types them as an object."""
    if "opaque" not in config or config["opaque"] is None:
        return [error(f"{here}.opaque", rule, "opaque is required (the driver and its parameters)")]
    driver = as_dict(config["opaque"]).get("driver")
    if isinstance(driver, str) and (problem := _driver_name_problem(driver, "driver")):
        return [error(f"{here}.opaque.driver", rule, problem)]
    return []


def _request_refs(refs: Any, path: str, names: set[str], rule: str, subrequests: bool) -> list[Finding]:
    """validateSet of validateRequestNameRef: each a DNS-1123 label naming a request of the
    claim, once."""
    out: list[Finding] = []
    items = as_list(refs)
    seen: set[str] = set()
    for j, name in enumerate(items):
        if not isinstance(name, str):
            continue
        here = f"{path}[{j}]"
        parts = name.split("/", 1) if subrequests else [name]  # REQUEST/SUBREQUEST from 1.33
        for part in parts:
            if problem := _label_problem(part, "request name"):
                out.append(error(here, rule, problem))
        if name not in names:
            out.append(error(here, rule, f"{name!r} must be the name of a request in the claim"))
        if name in seen:
            out.append(error(here, rule, f"request {name!r} is listed twice"))
        seen.add(name)
    return out + _too_many(items, MAX_REQUESTS, path, rule, "requests")


def _exact_request(
    request: dict[Any, Any], here: str, rule: str, releases: tuple[int, ...], class_optional: bool = False
) -> list[Finding]:
    """validateDeviceRequest's class, selectors and allocation mode (on the request in v1alpha3
    and v1beta1, in exactly or a subrequest after). SetDefaults_DeviceRequest makes an absent
    allocationMode ExactCount and its count 0 (absent) 1 first. An absent deviceClassName is
    the schema's required, but where the schema leaves it optional (v1beta1 from 1.33)."""
    out: list[Finding] = []
    klass = request.get("deviceClassName")
    if klass == "" or (klass is None and class_optional):
        out.append(error(f"{here}.deviceClassName", rule, "deviceClassName is required"))
    elif isinstance(klass, str) and (
        problem := name_problem(klass, DNS1123_SUBDOMAIN, 253, "device class name (DNS-1123 subdomain)")
    ):
        out.append(error(f"{here}.deviceClassName", rule, problem))
    out += _selectors(request.get("selectors"), f"{here}.selectors", rule, releases)
    mode = request.get("allocationMode")
    count = as_int(request.get("count"))
    if mode is None or mode == "":
        mode = "ExactCount"
    if not isinstance(mode, str):
        return out  # another type: the schema's finding
    if mode == "All":
        if count:
            message = f"count {count} must not be specified when allocationMode is 'All'"
            out.append(error(f"{here}.count", rule, message))
    elif mode == "ExactCount":
        if count is not None and count < 0:
            out.append(error(f"{here}.count", rule, f"count {count} must be greater than zero"))
    else:
        message = f"allocationMode {mode!r} is not supported: All or ExactCount"
        out.append(error(f"{here}.allocationMode", rule, message))
    return out


def _request(
    request: dict[Any, Any], here: str, rule: str, flat: bool, releases: tuple[int, ...], class_optional: bool
) -> list[Finding]:
    """validateDeviceRequest: the name a DNS-1123 label; v1alpha3 and v1beta1 the class,
    selectors and count on the request (v1beta1 from 1.33: or firstAvailable's subrequests);
    v1beta2 and v1 exactly one of exactly and firstAvailable (1.34's check), each subrequest
    named once."""
    out: list[Finding] = []
    name = request.get("name")
    if isinstance(name, str) and (problem := _label_problem(name, "request name")):
        out.append(error(f"{here}.name", rule, problem))
    exactly, first = request.get("exactly"), request.get("firstAvailable")
    if flat and not first:
        return out + _exact_request(request, here, rule, releases, class_optional)
    if not flat and exactly is None and not first:
        out.append(error(here, rule, "exactly one of `exactly` or `firstAvailable` is required"))
    elif exactly is not None and first:
        message = "exactly one of `exactly` or `firstAvailable` is required, but both are set"
        out.append(error(here, rule, message))
    if isinstance(exactly, dict):
        out += _exact_request(exactly, f"{here}.exactly", rule, releases)
    subs = as_list(first)
    seen: set[str] = set()
    for k, sub in enumerate(subs):
        if not isinstance(sub, dict):
            continue
        at = f"{here}.firstAvailable[{k}]"
        sub_name = sub.get("name")
        if isinstance(sub_name, str):
            if problem := _label_problem(sub_name, "subrequest name"):
                out.append(error(f"{at}.name", rule, problem))
            if sub_name in seen:
                out.append(error(f"{at}.name", rule, f"subrequest name {sub_name!r} is used twice"))
            seen.add(sub_name)
        out += _exact_request(sub, at, rule, releases)
    return out


def _device_claim(
    devices: Any, path: str, rule: str, flat: bool, releases: tuple[int, ...], class_optional: bool
) -> list[Finding]:
    """validateDeviceClaim: requests (named once), constraints and config."""
    devices = as_dict(devices)
    out: list[Finding] = []
    requests = as_list(devices.get("requests"))
    names: set[str] = set()
    subrequests = False
    for r in requests:
        name = as_dict(r).get("name")
        if isinstance(name, str):
            names.add(name)
            for sub in as_list(as_dict(r).get("firstAvailable")):  # REQUEST/SUBREQUEST (1.33 on)
                subrequests = True
                sub_name = as_dict(sub).get("name")
                if isinstance(sub_name, str):
                    names.add(f"{name}/{sub_name}")
    seen: set[str] = set()
    for i, request in enumerate(requests):
        if not isinstance(request, dict):
            continue
        here = f"{path}.requests[{i}]"
        out += _request(request, here, rule, flat, releases, class_optional)
        name = request.get("name")
        if isinstance(name, str):
            if name in seen:
                out.append(error(f"{here}.name", rule, f"request name {name!r} is used twice"))
            seen.add(name)
    out += _too_many(requests, MAX_REQUESTS, f"{path}.requests", rule, "requests")
    constraints = as_list(devices.get("constraints"))
    for i, constraint in enumerate(constraints):
        if not isinstance(constraint, dict):
            continue
        here = f"{path}.constraints[{i}]"
        out += _request_refs(constraint.get("requests"), f"{here}.requests", names, rule, subrequests)
        attribute = constraint.get("matchAttribute")
        if attribute is None:
            out.append(error(f"{here}.matchAttribute", rule, "matchAttribute is required (DOMAIN/ATTRIBUTE)"))
        elif isinstance(attribute, str):
            out += _qualified_name(attribute, f"{here}.matchAttribute", rule, "matchAttribute")
            if "/" not in attribute and attribute:
                at = f"{here}.matchAttribute.domain" if flat else f"{here}.matchAttribute"
                message = f"matchAttribute {attribute!r} must include a domain (DOMAIN/ATTRIBUTE)"
                out.append(error(at, rule, message))
    out += _too_many(constraints, MAX_CONSTRAINTS, f"{path}.constraints", rule, "constraints")
    config = as_list(devices.get("config"))
    for i, item in enumerate(config):
        if not isinstance(item, dict):
            continue
        here = f"{path}.config[{i}]"
        out += _request_refs(item.get("requests"), f"{here}.requests", names, rule, subrequests)
        out += _configuration(item, here, rule)
    out += _too_many(config, MAX_CONFIG, f"{path}.config", rule, "config entries")
    return out


def _claim_spec(spec: Any, path: str, version: str, releases: tuple[int, ...]) -> list[Finding]:
    """validateResourceClaimSpec: the devices, and the controller (v1alpha3 only) a driver name."""
    spec = as_dict(spec)
    # v1beta1's schema requires deviceClassName until 1.32 (firstAvailable came in 1.33)
    class_optional = version == "v1beta1" and max(releases, default=31) >= 33
    devices = spec.get("devices")
    out = _device_claim(devices, f"{path}.devices", CLAIM_RULE, version in _FLAT, releases, class_optional)
    controller = spec.get("controller")
    if isinstance(controller, str) and controller and (problem := _driver_name_problem(controller, "controller")):
        out.append(error(f"{path}.controller", CLAIM_RULE, problem))
    return out


def resource_claim_findings(obj: dict[Any, Any], releases: tuple[int, ...]) -> list[Finding]:
    """ValidateResourceClaim on create: the spec's device requests, constraints and config."""
    version = _version(obj)
    if version in _OLD or not isinstance(obj.get("spec"), dict):
        return []
    return _claim_spec(obj["spec"], "spec", version, releases)


def resource_claim_template_findings(obj: dict[Any, Any], releases: tuple[int, ...]) -> list[Finding]:
    """ValidateResourceClaimTemplate: the claim's spec at spec.spec (its metadata is the
    template metadata rules')."""
    version = _version(obj)
    spec = obj.get("spec")
    if version in _OLD or not isinstance(spec, dict) or not isinstance(spec.get("spec"), dict):
        return []
    return _claim_spec(spec["spec"], "spec.spec", version, releases)


def device_class_findings(obj: dict[Any, Any], releases: tuple[int, ...]) -> list[Finding]:
    """ValidateDeviceClass: selectors (at most 32, each with a compiling CEL expression) and
    config (at most 32, each opaque with a driver and object parameters)."""
    spec = obj.get("spec")
    if _version(obj) in _OLD or not isinstance(spec, dict):
        return []
    out = _selectors(spec.get("selectors"), "spec.selectors", CLASS_RULE, releases)
    config = as_list(spec.get("config"))
    for i, item in enumerate(config):
        if isinstance(item, dict):
            out += _configuration(item, f"spec.config[{i}]", CLASS_RULE)
    return out + _too_many(config, MAX_CONFIG, "spec.config", CLASS_RULE, "config entries")


# -- ResourceSlice ---------------------------------------------------------------------------


def _pool(pool: dict[Any, Any]) -> list[Finding]:
    """validateResourcePool: the name (each '/'-separated part a DNS-1123 subdomain, at most 253
    in all), resourceSliceCount above 0, generation not negative."""
    out = []
    name = pool.get("name")
    if name == "":
        out.append(error("spec.pool.name", SLICE_RULE, "pool name is required"))
    elif isinstance(name, str):
        if len(name) > MAX_POOL_NAME:
            message = f"pool name is {len(name)} characters: at most {MAX_POOL_NAME}"
            out.append(error("spec.pool.name", SLICE_RULE, message))
        for part in name.split("/"):
            if not part or len(part) > 253 or not DNS1123_SUBDOMAIN.match(part):
                message = f"pool name {name!r}: each part between '/' must be a DNS-1123 subdomain, not {part!r}"
                out.append(error("spec.pool.name", SLICE_RULE, message))
    count = as_int(pool.get("resourceSliceCount"))
    if count is not None and count <= 0:
        message = f"resourceSliceCount {count} must be greater than zero"
        out.append(error("spec.pool.resourceSliceCount", SLICE_RULE, message))
    generation = as_int(pool.get("generation"))
    if generation is not None and generation < 0:
        message = f"generation {generation} must be greater than or equal to zero"
        out.append(error("spec.pool.generation", SLICE_RULE, message))
    return out


def _node_selection(spec: dict[Any, Any], flat: bool) -> list[Finding]:
    """Exactly one of nodeName, nodeSelector (of exactly one term) and allNodes (and, from 1.33,
    perDeviceNodeSelection); nodeName a node name (a DNS-1123 subdomain)."""
    out = []
    fields = ("nodeName", "nodeSelector", "allNodes") + (() if flat else ("perDeviceNodeSelection",))
    chosen = []
    name = spec.get("nodeName")
    if isinstance(name, str) and name:
        chosen.append("nodeName")
        problem = name_problem(name, DNS1123_SUBDOMAIN, 253, "node name (DNS-1123 subdomain)")
        if problem:
            out.append(error("spec.nodeName", SLICE_RULE, problem))
    selector = spec.get("nodeSelector")
    if isinstance(selector, dict):
        chosen.append("nodeSelector")
        terms = selector.get("nodeSelectorTerms")
        if isinstance(terms, list) and len(terms) != 1:
            message = f"nodeSelector has {len(terms)} selector terms: it must have exactly one"
            out.append(error("spec.nodeSelector.nodeSelectorTerms", SLICE_RULE, message))
    if spec.get("allNodes") is True:
        chosen.append("allNodes")
    if not flat and spec.get("perDeviceNodeSelection") is True:
        chosen.append("perDeviceNodeSelection")
    names = ", ".join(f"`{f}`" for f in fields)
    if not chosen:
        out.append(error("spec", SLICE_RULE, f"exactly one of {names} is required"))
    elif len(chosen) > 1:
        given = ", ".join(f"`{f}`" for f in chosen)
        out.append(error("spec", SLICE_RULE, f"exactly one of {names} is required, not {given}"))
    return out


def _attribute(attribute: Any, here: str) -> list[Finding]:
    """validateDeviceAttribute: exactly one of bool, int, string, version; a string at most 64
    characters, a version a semver.org 2.0.0 version of at most 64."""
    if not isinstance(attribute, dict):
        return []  # another type: the schema's finding
    out = []
    given = [key for key in ("bool", "int", "string", "version") if attribute.get(key) is not None]
    text = attribute.get("string")
    if isinstance(text, str) and len(text) > MAX_ATTRIBUTE_VALUE:
        message = f"the string is {len(text)} characters: at most {MAX_ATTRIBUTE_VALUE}"
        out.append(error(f"{here}.string", SLICE_RULE, message))
    version = attribute.get("version")
    if isinstance(version, str):
        if not _SEMVER.match(version):
            message = f"version {version!r} must be a version as semver.org 2.0.0 spells it (e.g. 1.2.3)"
            out.append(error(f"{here}.version", SLICE_RULE, message))
        if len(version) > MAX_ATTRIBUTE_VALUE:
            message = f"the version is {len(version)} characters: at most {MAX_ATTRIBUTE_VALUE}"
            out.append(error(f"{here}.version", SLICE_RULE, message))
    if not given:
        out.append(error(here, SLICE_RULE, "an attribute needs exactly one value: bool, int, string or version"))
    elif len(given) > 1:
        message = f"an attribute has exactly one value, not {' and '.join(given)}"
        out.append(error(here, SLICE_RULE, message))
    return out


def _device(device: dict[Any, Any], here: str, flat: bool) -> list[Finding]:
    """validateDevice (v1alpha3, v1beta1: basic required, validateBasicDevice; v1beta2, v1: the
    same checks on the device itself)."""
    out = []
    name = device.get("name")
    if isinstance(name, str) and (problem := _label_problem(name, "device name")):
        out.append(error(f"{here}.name", SLICE_RULE, problem))
    if flat:
        if device.get("basic") is None:
            return out + [
                error(f"{here}.basic", SLICE_RULE, "basic is required (the device's attributes and capacity)")
            ]
        body, here = as_dict(device.get("basic")), f"{here}.basic"
    else:
        body = device
    attributes, capacity = body.get("attributes"), body.get("capacity")
    for field, what, values in (("attributes", "attribute name", attributes), ("capacity", "capacity name", capacity)):
        for key, value in as_dict(values).items():
            if not isinstance(key, str):
                continue
            # upstream names the map (validateMap's validateKey gets its path); the finding sits on the key
            at = child(f"{here}.{field}", key)
            out += _qualified_name(key, at, SLICE_RULE, what)
            if field == "attributes":
                out += _attribute(value, at)
    total = len(as_dict(attributes)) + len(as_dict(capacity))
    if total > MAX_ATTRIBUTES_AND_CAPACITIES:
        message = f"{total} attributes and capacities: at most {MAX_ATTRIBUTES_AND_CAPACITIES} in all"
        out.append(error(here, SLICE_RULE, message))
    return out


def resource_slice_findings(obj: dict[Any, Any], releases: tuple[int, ...]) -> list[Finding]:
    """ValidateResourceSlice: the driver a driver name, the pool, one way of selecting nodes,
    the devices (at most 128, each named once, their attributes and capacity)."""
    version = _version(obj)
    spec = obj.get("spec")
    if version in _OLD or not isinstance(spec, dict):
        return []
    flat = version in _FLAT
    out = []
    driver = spec.get("driver")
    if isinstance(driver, str) and (problem := _driver_name_problem(driver, "driver")):
        out.append(error("spec.driver", SLICE_RULE, problem))
    out += _pool(as_dict(spec.get("pool")))
    out += _node_selection(spec, flat)
    devices = as_list(spec.get("devices"))
    seen: set[str] = set()
    for i, device in enumerate(devices):
        if not isinstance(device, dict):
            continue
        here = f"spec.devices[{i}]"
        out += _device(device, here, flat)
        name = device.get("name")
        if isinstance(name, str):
            if name in seen:
                out.append(error(f"{here}.name", SLICE_RULE, f"device name {name!r} is used twice"))
            seen.add(name)
    return out + _too_many(devices, MAX_DEVICES, "spec.devices", SLICE_RULE, "devices")
