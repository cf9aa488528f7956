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
dropped on create (the strategy's PrepareForCreate), so its checks never run from a manifest.

A ResourceSlice's nodeSelector (and a device's, where kept) is judged by core/validation's
ValidateNodeSelector through selector.py's requirement checks, the ones a pod's node affinity and
a PersistentVolume's use: at least one term, each matchExpressions requirement's operator, values
and key, each value a label value from 1.33 (ValidateNodeSelectorRequirement's check since then;
resource validation passes allowInvalidLabelValueInRequiredNodeAffinity false), each matchFields
requirement on metadata.name with In or NotIn and one node name.

What of v1.34.1 (openshift/microshift f84ceaf6's vendored copy; the features of
pkg/features/kube_features.go at 1.34 and, for 1.36, 8e16b12f's) is modelled, with the release it
applies from:
- the exactly-one-of check of exactly and firstAvailable (v1beta2, v1), at most 8 subrequests
  (DRAPrioritizedList, beta on by default in 1.34), REQUEST/SUBREQUEST references;
- a request's tolerations (validateDeviceToleration, 1.34 on: no strategy drops them; an empty
  operator defaults to Equal);
- a CEL selector over 10 KiB is TooLong (1.34 on); opaque parameters over 10 KiB of JSON on create
  (validateRawExtension, 1.32 on; measured as compact JSON, as kubectl sends it);
- v1beta2's and v1's spec.nodeName "" and allNodes false are Invalid (pointers there; v1beta1's
  conversion makes them nil), 1.34 on;
- perDeviceNodeSelection and a device's nodeName, nodeSelector and allNodes: dropped on create
  before 1.36 (DRAPartitionableDevices off by default; the slice then selects no nodes, which is
  reported at spec), validated as validateDevice does from 1.36;
- a DeviceClass's extendedResourceName: dropped before 1.36 (DRAExtendedResource), from 1.36 an
  extended resource name (IsExtendedResourceName).
Not modelled: adminAccess's namespace authorization (AuthorizedForAdmin: the namespace must carry
resource.kubernetes.io/admin-access "true", which a manifest of the claim does not show; the field
itself is accepted, DRAAdminAccess being beta on in 1.34); the fields dropped on create in 1.34
and 1.35 and kept from 1.36, whose checks are not ported for 1.36 either: a device's taints
(DRADeviceTaints), sharedCounters and consumesCounters with their limits
(DRAPartitionableDevices), bindingConditions and bindingFailureConditions
(DRADeviceBindingConditions), allowMultipleAllocations, capacity requestPolicy, a constraint's
distinctAttribute and a request's capacity (DRAConsumableCapacity); the CEL cost limit and the selectors' type checking;
1.34's map-key paths (attributes[KEY] for a key's own check, where v1.31.1 names the map);
DeviceTaintRule (v1alpha3, off by default)."""

from __future__ import annotations

import json
import re
from typing import Any

from generator.core.findings import Finding, child
from generator.core.grammar import (
    DNS1123_LABEL,
    DNS1123_SUBDOMAIN,
    label_key_problem,
    label_value_problem,
    name_problem,
)
from generator.validate.rules.base import as_dict, as_int, as_list, enforced, error
from generator.validate.rules.pod_scheduling import NODE_AFFINITY_VALUES_SINCE
from generator.validate.rules.selector import node_field_findings, node_requirement_findings

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
# pkg/apis/resource/types.go (v1.34.1)
MAX_SUBREQUESTS = 8  # FirstAvailableDeviceRequestMaxSize
MAX_CEL_EXPRESSION = 10 * 1024  # CELSelectorExpressionMaxLength
MAX_OPAQUE_PARAMETERS = 10 * 1024  # OpaqueParametersMaxLength ("the limit was introduced in 1.32")
TOLERATION_OPERATORS = ("Equal", "Exists")  # validDeviceTolerationOperators
TAINT_EFFECTS = ("NoExecute", "NoSchedule")  # validDeviceTaintEffects
# v1.34.1 validation.go, judged from this release on: a request's tolerations
# (validateDeviceToleration; no strategy drops them), a v1beta2 and v1 slice's nodeName "" and
# allNodes false (pointers there: v1beta1's conversion makes them nil), a selector's length
TOLERATIONS_SINCE = 34
POINTER_NODE_FIELDS_SINCE = 34
CEL_LENGTH_SINCE = 34
OPAQUE_LENGTH_SINCE = 32
# DRAPartitionableDevices (alpha 1.33, beta on by default 1.36): before, the resourceslice
# strategy's dropDisabledDRAPartitionableDevicesFields drops perDeviceNodeSelection, sharedCounters
# and each device's consumesCounters, nodeName, nodeSelector and allNodes on create
PARTITIONABLE_SINCE = 36
# DRAExtendedResource (alpha 1.34, beta on by default 1.36): before, the deviceclass strategy's
# dropDisabledDRAExtendedResourceFields drops spec.extendedResourceName
EXTENDED_RESOURCE_SINCE = 36

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
        if (
            isinstance(expression, str)
            and len(expression.encode()) > MAX_CEL_EXPRESSION
            and enforced(releases, CEL_LENGTH_SINCE)
        ):
            # validateCELSelector (v1.34.1): TooLong, and the expression is not compiled
            message = f"the expression is {len(expression.encode())} bytes: at most {MAX_CEL_EXPRESSION}"
            out.append(error(f"{here}.cel.expression", rule, message))
        elif isinstance(expression, str) and (problem := _cel_problem(expression, releases)):
            out.append(error(f"{here}.cel.expression", rule, problem))
    return out + _too_many(items, MAX_SELECTORS, path, rule, "selectors")


def _configuration(config: dict[Any, Any], here: str, rule: str, releases: tuple[int, ...]) -> list[Finding]:
    """validateDeviceConfiguration: opaque required; validateOpaqueConfiguration: the driver a
    driver name; from 1.32 validateRawExtension's size limit on create (10 KiB of JSON, measured
    here as the compact JSON kubectl sends). The parameters (absent, null or no JSON object) are
    the schema's: it requires them and types them as an object."""
    if "opaque" not in config or config["opaque"] is None:
        return [error(f"{here}.opaque", rule, "opaque is required (the driver and its parameters)")]
    opaque = as_dict(config["opaque"])
    out = []
    driver = opaque.get("driver")
    if isinstance(driver, str) and (problem := _driver_name_problem(driver, "driver")):
        out.append(error(f"{here}.opaque.driver", rule, problem))
    parameters = opaque.get("parameters")
    if isinstance(parameters, dict) and enforced(releases, OPAQUE_LENGTH_SINCE):
        size = len(json.dumps(parameters, separators=(",", ":"), ensure_ascii=False, default=str).encode())
        if size > MAX_OPAQUE_PARAMETERS:
            message = f"the parameters are {size} bytes of JSON: at most {MAX_OPAQUE_PARAMETERS}"
            out.append(error(f"{here}.opaque.parameters", rule, message))
    return out


def _tolerations(tolerations: Any, path: str, rule: str) -> list[Finding]:
    """validateDeviceToleration (v1.34.1): a key, when given, a label key; Exists without a
    value, Equal (the default of an empty operator, zz_generated.defaults) with a label value;
    an effect, when given, NoSchedule or NoExecute."""
    out: list[Finding] = []
    for i, toleration in enumerate(as_list(tolerations)):
        if not isinstance(toleration, dict):
            continue
        here = f"{path}[{i}]"
        key, operator, value = toleration.get("key"), toleration.get("operator"), toleration.get("value")
        if isinstance(key, str) and key and (problem := label_key_problem(key, "toleration")):
            out.append(error(f"{here}.key", rule, problem))
        value = value if isinstance(value, str) else ""
        if operator == "Exists":
            if value:
                message = f"value {value!r} must be empty for operator 'Exists'"
                out.append(error(f"{here}.value", rule, message))
        elif operator is None or operator in ("", "Equal"):
            if problem := label_value_problem(value, key):
                out.append(error(f"{here}.value", rule, problem))
        elif isinstance(operator, str):
            message = f"operator {operator!r} is not supported: {' or '.join(TOLERATION_OPERATORS)}"
            out.append(error(f"{here}.operator", rule, message))
        effect = toleration.get("effect")
        if isinstance(effect, str) and effect and effect not in TAINT_EFFECTS:
            message = f"effect {effect!r} is not supported: {' or '.join(TAINT_EFFECTS)}"
            out.append(error(f"{here}.effect", rule, message))
    return out


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
    if enforced(releases, TOLERATIONS_SINCE):
        out += _tolerations(request.get("tolerations"), f"{here}.tolerations", rule)
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
    return out + _too_many(subs, MAX_SUBREQUESTS, f"{here}.firstAvailable", rule, "subrequests")


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
        out += _configuration(item, here, rule, releases)
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
    config (at most 32, each opaque with a driver and object parameters); from 1.36 (kept there)
    extendedResourceName an extended resource name."""
    spec = obj.get("spec")
    if _version(obj) in _OLD or not isinstance(spec, dict):
        return []
    out = _selectors(spec.get("selectors"), "spec.selectors", CLASS_RULE, releases)
    config = as_list(spec.get("config"))
    for i, item in enumerate(config):
        if isinstance(item, dict):
            out += _configuration(item, f"spec.config[{i}]", CLASS_RULE, releases)
    out += _too_many(config, MAX_CONFIG, "spec.config", CLASS_RULE, "config entries")
    name = spec.get("extendedResourceName")
    if isinstance(name, str) and enforced(releases, EXTENDED_RESOURCE_SINCE) and not _is_extended_resource_name(name):
        message = (
            f"extendedResourceName {name!r} must be an extended resource name: DOMAIN/NAME outside kubernetes.io "
            "(e.g. example.com/gpu)"
        )
        out.append(error("spec.extendedResourceName", CLASS_RULE, message))
    return out


def _is_extended_resource_name(name: str) -> bool:
    """core/v1/helper IsExtendedResourceName: not native (a name with a '/' and no
    kubernetes.io/ in it), not requests.*, and requests.NAME a qualified name."""
    if "/" not in name or "kubernetes.io/" in name or name.startswith("requests."):
        return False
    return label_key_problem(f"requests.{name}") is None


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


def _node_selector(selector: dict[Any, Any], path: str, releases: tuple[int, ...]) -> list[Finding]:
    """core/validation ValidateNodeSelector (called with allowInvalidLabelValueInRequiredNodeAffinity
    false in v1.34.1): at least one term (an absent nodeSelectorTerms is the schema's required);
    each term's matchExpressions (ValidateNodeSelectorRequirement: the operator and its values,
    the key a label key, from 1.33 each value a label value) and matchFields
    (ValidateNodeFieldSelectorRequirement: metadata.name only, In or NotIn, one node name). The
    checks are selector.py's, as for a pod's node affinity and a PersistentVolume's."""
    here = f"{path}.nodeSelectorTerms"
    terms = selector.get("nodeSelectorTerms")
    if isinstance(terms, list) and not terms:
        return [error(here, SLICE_RULE, "a node selector needs at least one node selector term")]
    values = enforced(releases, NODE_AFFINITY_VALUES_SINCE)
    out = []
    for i, term in enumerate(as_list(terms)):
        term = as_dict(term)
        for j, req in enumerate(as_list(term.get("matchExpressions"))):
            if not isinstance(req, dict):
                continue
            at = f"{here}[{i}].matchExpressions[{j}]"
            out += node_requirement_findings(req, at, SLICE_RULE)
            if values:
                for k, value in enumerate(as_list(req.get("values"))):
                    if isinstance(value, str) and (problem := label_value_problem(value, req.get("key"))):
                        out.append(error(f"{at}.values[{k}]", SLICE_RULE, problem))
        for j, req in enumerate(as_list(term.get("matchFields"))):
            if isinstance(req, dict):
                out += node_field_findings(req, f"{here}[{i}].matchFields[{j}]", SLICE_RULE)
    return out


def _node_selection(spec: dict[Any, Any], version: str, releases: tuple[int, ...]) -> list[Finding]:
    """validateResourceSliceSpec: exactly one of nodeName, nodeSelector (of exactly one term,
    ValidateNodeSelector) and allNodes, and (v1beta1 on, kept from 1.36) perDeviceNodeSelection;
    nodeName a node name (a DNS-1123 subdomain). From 1.34 v1beta2's and v1's nodeName "",
    allNodes false and perDeviceNodeSelection false are Invalid (v1beta1's conversion makes the
    first two nil)."""
    out = []
    per_device = version != "v1alpha3"
    # kept in every targeted release (a selection in each), or in one at least (judged there)
    kept = per_device and not enforced(releases, 0, PARTITIONABLE_SINCE - 1)
    kept_once = per_device and enforced(releases, PARTITIONABLE_SINCE)
    pointers = version in ("v1beta2", "v1") and enforced(releases, POINTER_NODE_FIELDS_SINCE)
    fields = ("nodeName", "nodeSelector", "allNodes") + (("perDeviceNodeSelection",) if per_device else ())
    chosen = []
    name = spec.get("nodeName")
    if isinstance(name, str) and name:
        chosen.append("nodeName")
        problem = name_problem(name, DNS1123_SUBDOMAIN, 253, "node name (DNS-1123 subdomain)")
        if problem:
            out.append(error("spec.nodeName", SLICE_RULE, problem))
    elif name == "" and pointers:
        out.append(error("spec.nodeName", SLICE_RULE, "nodeName must be either unset or a node name, not empty"))
    selector = spec.get("nodeSelector")
    if isinstance(selector, dict):
        chosen.append("nodeSelector")
        out += _node_selector(selector, "spec.nodeSelector", releases)
        terms = selector.get("nodeSelectorTerms")
        if isinstance(terms, list) and len(terms) > 1:  # none: _node_selector's finding at this path
            message = f"nodeSelector has {len(terms)} selector terms: it must have exactly one"
            out.append(error("spec.nodeSelector.nodeSelectorTerms", SLICE_RULE, message))
    if spec.get("allNodes") is True:
        chosen.append("allNodes")
    elif spec.get("allNodes") is False and pointers:
        out.append(error("spec.allNodes", SLICE_RULE, "allNodes must be either unset or true"))
    dropped = ""
    if per_device and spec.get("perDeviceNodeSelection") is True:
        if kept:
            chosen.append("perDeviceNodeSelection")
        else:
            dropped = (
                " (perDeviceNodeSelection is dropped before 1.36: the DRAPartitionableDevices feature gate is off "
                "by default)"
            )
    elif kept_once and spec.get("perDeviceNodeSelection") is False:
        message = "perDeviceNodeSelection must be either unset or true"
        out.append(error("spec.perDeviceNodeSelection", SLICE_RULE, message))
    names = ", ".join(f"`{f}`" for f in fields)
    if not chosen:
        out.append(error("spec", SLICE_RULE, f"exactly one of {names} is required{dropped}"))
    elif len(chosen) > 1:
        given = ", ".join(f"`{f}`" for f in chosen)
        out.append(error("spec", SLICE_RULE, f"exactly one of {names} is required, not {given}"))
    return out


def _device_node_selection(
    body: dict[Any, Any], here: str, per_device: bool, releases: tuple[int, ...]
) -> list[Finding]:
    """validateDevice's node selection (v1.34.1, its fields kept from 1.36): with the slice's
    perDeviceNodeSelection exactly one of nodeName (not empty, a node name), nodeSelector
    (ValidateNodeSelector) and allNodes (true); without it none of them."""
    if not enforced(releases, PARTITIONABLE_SINCE):
        return []  # dropped on create in each targeted release (dropDisabledDRAPartitionableDevicesFields)
    name, selector, all_nodes = body.get("nodeName"), body.get("nodeSelector"), body.get("allNodes")
    if not per_device:
        if name is not None or selector is not None or all_nodes is not None:
            message = (
                "nodeName, nodeSelector and allNodes can only be set if the slice's perDeviceNodeSelection is true"
            )
            return [error(here, SLICE_RULE, message)]
        return []
    out = []
    chosen = []
    if isinstance(name, str):
        if name:
            chosen.append("nodeName")
            if problem := name_problem(name, DNS1123_SUBDOMAIN, 253, "node name (DNS-1123 subdomain)"):
                out.append(error(f"{here}.nodeName", SLICE_RULE, problem))
        else:
            out.append(error(f"{here}.nodeName", SLICE_RULE, "nodeName must not be empty"))
    if isinstance(selector, dict):
        chosen.append("nodeSelector")
        out += _node_selector(selector, f"{here}.nodeSelector", releases)
    if all_nodes is True:
        chosen.append("allNodes")
    elif all_nodes is False:
        out.append(error(f"{here}.allNodes", SLICE_RULE, "allNodes must be either unset or true"))
    if len(chosen) != 1:
        given = f", not {', '.join(chosen)}" if chosen else ""
        message = (
            "exactly one of `nodeName`, `nodeSelector` or `allNodes` is required when the slice's "
            f"perDeviceNodeSelection is true{given}"
        )
        out.append(error(here, SLICE_RULE, message))
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


def _device(
    device: dict[Any, Any], here: str, flat: bool, per_device: bool, releases: tuple[int, ...]
) -> list[Finding]:
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
    out += _device_node_selection(body, here, per_device, releases)
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
    out += _node_selection(spec, version, releases)
    per_device = spec.get("perDeviceNodeSelection") is True
    devices = as_list(spec.get("devices"))
    seen: set[str] = set()
    for i, device in enumerate(devices):
        if not isinstance(device, dict):
            continue
        here = f"spec.devices[{i}]"
        out += _device(device, here, flat, per_device, releases)
        name = device.get("name")
        if isinstance(name, str):
            if name in seen:
                out.append(error(f"{here}.name", SLICE_RULE, f"device name {name!r} is used twice"))
            seen.add(name)
    return out + _too_many(devices, MAX_DEVICES, "spec.devices", SLICE_RULE, "devices")
