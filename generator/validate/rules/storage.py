"""Owner `storage`: the apiserver's validation of StorageClasses, CSIDrivers, CSINodes,
VolumeAttachments, CSIStorageCapacities and VolumeAttributesClasses beyond their schema
(k8s.io/kubernetes pkg/apis/storage/validation/validation.go, ValidateStorageClass,
ValidateCSIDriver, ValidateCSINode, ValidateVolumeAttachment, ValidateCSIStorageCapacity,
ValidateVolumeAttributesClass; schemas/ledger/storage-*.json)."""

from __future__ import annotations

from generator.core.findings import Finding, child
from generator.core.grammar import DNS1123_SUBDOMAIN, label_key_problem, name_problem, parse_quantity
from generator.validate.rules.base import as_dict, as_list, byte_length, dig, error, nonnegative, value_text
from generator.validate.rules.selector import selector_findings

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


def _csi_driver_name_problem(name: str, what: str) -> str | None:
    """core/validation ValidateCSIDriverName: required, at most 63 characters, a DNS-1123
    subdomain once lower-cased."""
    if not name:
        return f"{what} is required"
    if len(name) > 63:
        return f"{what} {name!r} is {len(name)} characters: at most 63"
    if not (len(name) <= 253 and DNS1123_SUBDOMAIN.match(name.lower())):
        return f"{what} {name!r} must be a DNS-1123 subdomain (e.g. ebs.csi.aws.com)"
    return None


# -- CSINode (ValidateCSINode; schemas/ledger/storage-csinode.json) ----------------------------

MAX_NODE_ID = 256  # csiNodeIDLongerMaxLength: the strategy creates with AllowLongNodeID true


def csi_node_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """validateCSINodeDriver: each driver's name a CSI driver name and once in the list, its
    nodeID given and at most 256 characters, allocatable.count not negative, each topology key a
    qualified name, not empty and once (upstream reports the keys at the driver, not the key)."""
    out: list[Finding] = []
    names = set()
    for i, driver in enumerate(as_list(as_dict(obj.get("spec")).get("drivers"))):
        driver = as_dict(driver)
        here = f"spec.drivers[{i}]"
        name = driver.get("name")
        if isinstance(name, str):
            problem = _csi_driver_name_problem(name, "driver name")
            if problem:
                out.append(error(f"{here}.name", "csi-node", problem))
            if name in names:
                out.append(error(f"{here}.name", "csi-node", f"driver {name!r} is listed twice"))
            names.add(name)
        node_id = driver.get("nodeID")
        if node_id == "":
            out.append(error(f"{here}.nodeID", "csi-node", "nodeID is required"))
        elif isinstance(node_id, str) and len(node_id) > MAX_NODE_ID:
            message = f"nodeID is {len(node_id)} characters; it must be {MAX_NODE_ID} characters or less"
            out.append(error(f"{here}.nodeID", "csi-node", message))
        out += nonnegative(dig(driver, "allocatable", "count"), f"{here}.allocatable.count", "csi-node", "count")
        keys = set()
        for key in as_list(driver.get("topologyKeys")):
            if not isinstance(key, str):
                continue  # another type: the schema's finding
            if key in keys:
                out.append(error(here, "csi-node", f"topology key {key!r} is listed twice"))
            elif not key:
                out.append(error(here, "csi-node", "a topology key may not be empty"))
            elif problem := label_key_problem(key, "topology"):
                out.append(error(here, "csi-node", problem))
            keys.add(key)
    return out


# -- VolumeAttachment (ValidateVolumeAttachment and ValidateVolumeAttachmentV1, both called on
# create by the strategy; schemas/ledger/storage-volumeattachment.json) ------------------------


def volume_attachment_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """validateVolumeAttachmentSpec: attacher a CSI driver name (ValidateVolumeAttachmentV1),
    exactly one source, persistentVolumeName a DNS-1123 subdomain, nodeName a node name. The
    status is dropped on create (PrepareForCreate)."""
    spec = as_dict(obj.get("spec"))
    out = []
    attacher = spec.get("attacher")
    if isinstance(attacher, str):
        problem = _csi_driver_name_problem(attacher, "attacher")
        if problem:
            out.append(error("spec.attacher", "volume-attachment", problem))
    if "source" in spec:
        source = as_dict(spec.get("source"))
        inline, claim = source.get("inlineVolumeSpec"), source.get("persistentVolumeName")
        if inline is None and claim is None:
            message = "must specify exactly one of inlineVolumeSpec and persistentVolumeName: neither is given"
            out.append(error("spec.source", "volume-attachment", message))
        elif inline is not None and claim is not None:
            message = "must specify exactly one of inlineVolumeSpec and persistentVolumeName: both are given"
            out.append(error("spec.source", "volume-attachment", message))
        elif claim == "":
            message = "persistentVolumeName must not be empty"
            out.append(error("spec.source.persistentVolumeName", "volume-attachment", message))
        elif isinstance(claim, str) and (problem := name_problem(claim, DNS1123_SUBDOMAIN, 253, "volume name")):
            out.append(error("spec.source.persistentVolumeName", "volume-attachment", problem))
    node = spec.get("nodeName")
    if isinstance(node, str):
        problem = name_problem(node, DNS1123_SUBDOMAIN, 253, "node name (DNS-1123 subdomain)")
        if problem:
            out.append(error("spec.nodeName", "volume-attachment", problem))
    return out


# -- CSIStorageCapacity (ValidateCSIStorageCapacity; schemas/ledger/storage-csistoragecapacity.json)


def csi_storage_capacity_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """storageClassName a class name (ValidateClassName: a DNS-1123 subdomain), nodeTopology a
    label selector (the selector rule), capacity not negative (ValidateNonnegativeQuantity).
    Upstream's paths are the object's own: storageClassName, not spec.storageClassName."""
    out = []
    name = obj.get("storageClassName")
    if isinstance(name, str):
        problem = name_problem(name, DNS1123_SUBDOMAIN, 253, "storage class name (DNS-1123 subdomain)")
        if problem:
            out.append(error("storageClassName", "csi-storage-capacity", problem))
    if isinstance(obj.get("nodeTopology"), dict):
        out += selector_findings(obj["nodeTopology"], "nodeTopology")
    capacity = parse_quantity(obj.get("capacity"))
    if capacity is not None and capacity < 0:
        message = f"capacity {value_text(obj['capacity'])} must be greater than or equal to 0"
        out.append(error("capacity", "csi-storage-capacity", message))
    return out


# -- VolumeAttributesClass (ValidateVolumeAttributesClass; schemas/ledger/storage-volumeattributesclass.json)


def volume_attributes_class_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """validateProvisioner of driverName (required, a qualified name once lower-cased) and
    validateParameters with allowEmpty false: at least one parameter, at most 512, no empty
    name, 256 KiB of names and values (upstream reports each at parameters)."""
    rule = "volume-attributes-class"
    out = []
    driver = obj.get("driverName")
    if driver == "":
        out.append(error("driverName", rule, "driverName is required (e.g. ebs.csi.aws.com)"))
    elif isinstance(driver, str) and (problem := label_key_problem(driver.lower(), "driverName")):
        out.append(error("driverName", rule, problem))
    parameters = obj.get("parameters")
    if parameters is not None and not isinstance(parameters, dict):
        return out  # another type: the schema's finding
    parameters = parameters or {}
    if len(parameters) > MAX_PARAMETERS:
        message = f"{len(parameters)} parameters; a VolumeAttributesClass has at most {MAX_PARAMETERS}"
        return [*out, error("parameters", rule, message)]
    if "" in parameters:
        out.append(error("parameters", rule, "a parameter name must not be empty"))
    size = sum(byte_length(str(k)) + byte_length(v) for k, v in parameters.items() if isinstance(v, str))
    if size > MAX_PARAMETERS_SIZE:
        message = f"the parameters' names and values take {size} bytes; at most {MAX_PARAMETERS_SIZE}"
        out.append(error("parameters", rule, message))
    if not parameters:
        message = "parameters must hold at least one key/value pair (the driver's mutable attributes)"
        out.append(error("parameters", rule, message))
    return out
