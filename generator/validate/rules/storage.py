"""Owner `storage`: the apiserver's validation of StorageClasses and CSIDrivers beyond their schema
(k8s.io/kubernetes pkg/apis/storage/validation/validation.go, ValidateStorageClass, ValidateCSIDriver)."""

from __future__ import annotations

from generator.core.findings import Finding, child
from generator.core.grammar import label_key_problem
from generator.validate.rules.base import as_dict, as_list, byte_length, error

RECLAIM_POLICIES = ("Delete", "Retain")  # validateReclaimPolicy: Recycle is not for classes

BINDING_MODES = ("Immediate", "WaitForFirstConsumer")

MAX_PARAMETERS = 512  # validateParameters: maxProvisionerParameterLen (256 KiB in all) and count

MAX_PARAMETERS_SIZE = 256 * 1024  # validateParameters: maxProvisionerParameterSize, keys and values


def storage_class_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """validateProvisioner (required, a qualified name), validateReclaimPolicy,
    validateVolumeBindingMode, validateParameters."""
    out = []
    provisioner = obj.get("provisioner")
    if not provisioner:
        message = "provisioner is required (e.g. ebs.csi.aws.com, kubernetes.io/no-provisioner)"
        out.append(error("provisioner", "storage-class", message))
    elif isinstance(provisioner, str):
        problem = label_key_problem(provisioner.lower(), "provisioner")
        if problem:
            out.append(error("provisioner", "storage-class", problem))
    policy = obj.get("reclaimPolicy")
    if isinstance(policy, str) and policy not in RECLAIM_POLICIES:
        message = f"reclaimPolicy {policy!r} must be Delete or Retain (Recycle is not supported for a class)"
        out.append(error("reclaimPolicy", "storage-class", message))
    mode = obj.get("volumeBindingMode")
    if isinstance(mode, str) and mode not in BINDING_MODES:
        message = f"volumeBindingMode {mode!r} must be Immediate or WaitForFirstConsumer"
        out.append(error("volumeBindingMode", "storage-class", message))
    parameters = as_dict(obj.get("parameters"))
    for key in parameters:
        if not key:
            out.append(error(child("parameters", key), "storage-class", "a parameter name must not be empty"))
    if len(parameters) > MAX_PARAMETERS:
        message = f"{len(parameters)} parameters; a StorageClass has at most {MAX_PARAMETERS}"
        out.append(error("parameters", "storage-class", message))
    elif parameters:
        size = sum(byte_length(str(k)) + byte_length(v) for k, v in parameters.items() if isinstance(v, str))
        if size > MAX_PARAMETERS_SIZE:
            message = f"the parameters' names and values take {size} bytes; at most {MAX_PARAMETERS_SIZE}"
            out.append(error("parameters", "storage-class", message))
    if "allowedTopologies" in obj:
        out += _topology_findings(as_list(obj["allowedTopologies"]))
    return out


def _topology_findings(terms: list) -> list[Finding]:
    """validateAllowedTopologies (ValidateTopologySelectorTerm,
    validateTopologySelectorLabelRequirement): each expression's values non-empty and unique, its
    key a label name, no key twice in a term, no term twice."""
    out, seen = [], []
    for i, term in enumerate(terms):
        here = f"allowedTopologies[{i}].matchLabelExpressions"
        expressions = {}
        for j, expression in enumerate(as_list(as_dict(term).get("matchLabelExpressions"))):
            expression = as_dict(expression)
            key, values = expression.get("key"), as_list(expression.get("values"))
            if not values:
                out.append(error(f"{here}[{j}].values", "storage-class", "an expression needs at least one value"))
            if len(set(map(str, values))) < len(values):
                out.append(error(f"{here}[{j}].values", "storage-class", f"values {values} hold one value twice"))
            if isinstance(key, str):
                problem = label_key_problem(key)
                if problem:
                    out.append(error(f"{here}[{j}].key", "storage-class", problem))
                elif key in expressions:
                    out.append(error(f"{here}[{j}].key", "storage-class", f"key {key!r} is in this term twice"))
                expressions[key] = frozenset(map(str, values))
        if not as_list(as_dict(term).get("matchLabelExpressions")):
            # rawTopologies starts with a nil map per term, and helper.Semantic.DeepEqual holds an
            # empty map equal to a nil one: a term without expressions is always a Duplicate
            message = "a topology term needs at least one matchLabelExpressions entry"
            out.append(error(here, "storage-class", message))
        elif expressions and expressions in seen:
            out.append(error(here, "storage-class", "this topology term repeats an earlier one"))
        seen.append(expressions)
    return out


# -- CSIDriver (ValidateCSIDriver, validateCSIDriverSpec; schemas/ledger/storage-csidriver.json) ----

FS_GROUP_POLICIES = ("File", "None", "ReadWriteOnceWithFSType")  # supportedFSGroupPolicy
LIFECYCLE_MODES = ("Persistent", "Ephemeral")  # validateVolumeLifecycleModes
MIN_TOKEN_SECONDS, MAX_TOKEN_SECONDS = 600, 1 << 32  # validateTokenRequests: 10 minutes, 2^32 seconds


def csi_driver_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """validateFSGroupPolicy, validateTokenRequests (each audience once, expirationSeconds from 10
    minutes to 2^32 seconds), validateVolumeLifecycleModes. attachRequired, podInfoOnMount,
    storageCapacity and seLinuxMount are Required there but set by SetDefaults_CSIDriver first."""
    spec = as_dict(obj.get("spec"))
    out = []
    policy = spec.get("fsGroupPolicy")
    if isinstance(policy, str) and policy not in FS_GROUP_POLICIES:
        message = f"fsGroupPolicy {policy!r} is not supported: {', '.join(map(repr, FS_GROUP_POLICIES))}"
        out.append(error("spec.fsGroupPolicy", "csi-driver", message))
    audiences = set()
    for i, request in enumerate(as_list(spec.get("tokenRequests"))):
        request = as_dict(request)
        audience = request.get("audience", "")
        if isinstance(audience, str):
            if audience in audiences:
                message = f"audience {audience!r} is requested twice" if audience else "two requests without audience"
                out.append(error(f"spec.tokenRequests[{i}].audience", "csi-driver", message))
                continue
            audiences.add(audience)
        seconds = request.get("expirationSeconds")
        if isinstance(seconds, int) and not isinstance(seconds, bool):
            if seconds < MIN_TOKEN_SECONDS:
                message = f"expirationSeconds {seconds} is less than 10 minutes (600)"
                out.append(error(f"spec.tokenRequests[{i}].expirationSeconds", "csi-driver", message))
            if seconds > MAX_TOKEN_SECONDS:
                message = f"expirationSeconds {seconds} is larger than 2^32 seconds"
                out.append(error(f"spec.tokenRequests[{i}].expirationSeconds", "csi-driver", message))
    for mode in as_list(spec.get("volumeLifecycleModes")):
        if isinstance(mode, str) and mode not in LIFECYCLE_MODES:
            message = f"volumeLifecycleMode {mode!r} is not supported: Persistent or Ephemeral"
            out.append(error("spec.volumeLifecycleModes", "csi-driver", message))
    return out
