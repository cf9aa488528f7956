"""Owner `core`: the apiserver's validation of the core group's kinds beyond the pod, which the
OpenAPI schemas cannot express (k8s.io/kubernetes pkg/apis/core/validation/validation.go; the
function each rule ports is named beside it). Pods and pod templates are pod.py's."""

from __future__ import annotations

import base64
import binascii
import ipaddress
import json

from generator.core.findings import Finding, child
from generator.core.grammar import (
    DNS1123_LABEL,
    DNS1123_SUBDOMAIN,
    PROTOCOLS,
    config_key_problem,
    label_key_problem,
    name_problem,
    parse_quantity,
    port_name_problem,
)
from generator.core.versions import KubeVersion
from generator.validate.rules.base import as_dict, as_int, as_list, enforced, error

# -- Service -------------------------------------------------------------------------------------


def service_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidateService (and validateServicePort): ports, names, target ports, node ports, and
    the combinations of type, clusterIP and externalName."""
    spec = as_dict(obj.get("spec"))
    kind = spec.get("type") if isinstance(spec.get("type"), str) and spec.get("type") else "ClusterIP"
    cluster_ip = spec.get("clusterIP")
    ips = [cluster_ip, *as_list(spec.get("clusterIPs"))]
    headless = "None" in ips
    ports = as_list(spec.get("ports"))
    out = []
    if not ports and not headless and kind != "ExternalName" and isinstance(obj.get("spec"), dict | None):
        message = f"a {kind} Service needs at least one port (only headless and ExternalName Services may have none)"
        out.append(error("spec.ports", "service", message))
    names: dict[str, int] = {}
    pairs: dict[tuple, int] = {}
    node_ports: dict[tuple, int] = {}
    for i, port in enumerate(ports):
        port = as_dict(port)
        here = f"spec.ports[{i}]"
        name = port.get("name")
        if len(ports) > 1 and not name:
            message = "each port needs a name when a Service has more than one (validateServicePort)"
            out.append(error(f"{here}.name", "service", message))
        elif isinstance(name, str) and name:
            problem = name_problem(name, DNS1123_LABEL, 63, "Service port name (DNS-1123 label)")
            if problem:
                out.append(error(f"{here}.name", "service", problem))
            elif name in names:
                out.append(
                    error(f"{here}.name", "service", f"port name {name!r} is used twice (also ports[{names[name]}])")
                )
            names.setdefault(name, i)
        number = as_int(port.get("port"))
        if number is not None and not 1 <= number <= 65535:
            out.append(error(f"{here}.port", "service", f"port {number} is not in 1-65535"))
        protocol = port.get("protocol") or "TCP"  # SetDefaults_ServicePort
        if not isinstance(protocol, str):
            continue  # another type: the schema's finding
        if protocol not in PROTOCOLS:
            out.append(error(f"{here}.protocol", "service", f"protocol {protocol!r} is not one of TCP, UDP, SCTP"))
        if number is not None:
            key = (number, protocol)
            if key in pairs:
                message = f"port {number}/{protocol} is declared twice (also ports[{pairs[key]}])"
                out.append(error(here, "service", message))
            pairs.setdefault(key, i)
        out += _target_port_findings(port.get("targetPort"), f"{here}.targetPort")
        node_port = as_int(port.get("nodePort"))
        if node_port:
            if kind == "ClusterIP":
                message = "nodePort may not be used when type is ClusterIP (set type: NodePort or LoadBalancer)"
                out.append(error(f"{here}.nodePort", "service", message))
            elif not 1 <= node_port <= 65535:
                out.append(error(f"{here}.nodePort", "service", f"nodePort {node_port} is not in 1-65535"))
            else:
                key = (node_port, protocol)
                if key in node_ports:
                    message = f"nodePort {node_port}/{protocol} is used twice (also ports[{node_ports[key]}])"
                    out.append(error(f"{here}.nodePort", "service", message))
                node_ports.setdefault(key, i)
    protocols = sorted({p for _, p in pairs})
    if kind == "LoadBalancer" and len(protocols) > 1 and enforced(releases, until=MIXED_PROTOCOL_LB_SINCE - 1):
        message = (
            f"a LoadBalancer Service cannot mix protocols ({', '.join(protocols)}) before Kubernetes "
            f"{KubeVersion(MIXED_PROTOCOL_LB_SINCE)}: write one Service per protocol"
        )
        out.append(error("spec.ports", "service", message))
    out += _service_type_findings(spec, kind, cluster_ip, headless, releases)
    return out


MIXED_PROTOCOL_LB_SINCE = 24  # MixedProtocolLBService: alpha 1.20, beta (on) 1.24, GA 1.26


def _target_port_findings(target, path: str) -> list[Finding]:
    """ValidatePortNumOrName: a number in 1-65535 or an IANA service name (0 and "" are defaulted
    to the port, SetDefaults_Service)."""
    if isinstance(target, str) and target:
        problem = port_name_problem(target)
        if problem:
            return [error(path, "service", f"targetPort: {problem} (write the number without quotes)")]
    number = as_int(target)
    if number and not 1 <= number <= 65535:
        return [error(path, "service", f"targetPort {number} is not in 1-65535")]
    return []


def _service_type_findings(spec: dict, kind, cluster_ip, headless: bool, releases) -> list[Finding]:
    out = []
    if kind == "ExternalName":
        external = spec.get("externalName")
        if not external:
            out.append(error("spec.externalName", "service", "an ExternalName Service needs externalName"))
        elif isinstance(external, str):
            problem = name_problem(
                external.removesuffix("."), DNS1123_SUBDOMAIN, 253, "externalName (DNS-1123 subdomain)"
            )
            if problem:
                out.append(error("spec.externalName", "service", problem))
        if cluster_ip or as_list(spec.get("clusterIPs")):
            message = "clusterIP may not be set for an ExternalName Service"
            out.append(error("spec.clusterIP" if cluster_ip else "spec.clusterIPs", "service", message))
    elif headless and kind in ("NodePort", "LoadBalancer"):
        message = f"clusterIP may not be None for a {kind} Service (headless Services are ClusterIP)"
        out.append(error("spec.clusterIP", "service", message))
    for i, ip in enumerate([cluster_ip, *as_list(spec.get("clusterIPs"))]):
        if isinstance(ip, str) and ip not in ("", "None") and not _is_ip(ip):
            path = "spec.clusterIP" if i == 0 else f"spec.clusterIPs[{i - 1}]"
            out.append(error(path, "service", f"clusterIP {ip!r} must be an IP address, None or empty"))
    return out


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


# -- ConfigMap and Secret ------------------------------------------------------------------------

MAX_DATA_SIZE = 1024 * 1024  # core.MaxSecretSize, also the ConfigMap limit


def _key_findings(data, path: str, rule: str) -> list[Finding]:
    return [error(child(path, k), rule, p) for k in as_dict(data) if (p := config_key_problem(k))]


def configmap_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidateConfigMap: keys, a key in both data and binaryData, the 1 MiB limit."""
    data, binary = as_dict(obj.get("data")), as_dict(obj.get("binaryData"))
    out = _key_findings(data, "data", "configmap") + _key_findings(binary, "binaryData", "configmap")
    for key in binary:
        if key in data:
            message = f"key {key!r} is in both data and binaryData; keep it in one"
            out.append(error(child("binaryData", key), "configmap", message))
    for key, value in binary.items():
        if isinstance(value, str) and _base64(value) is None:
            out.append(error(child("binaryData", key), "configmap", _BASE64_MESSAGE))
    size = sum(len(str(v).encode()) for v in data.values()) + sum(len(_base64(v) or b"") for v in binary.values())
    if size > MAX_DATA_SIZE:
        out.append(error("data", "configmap", f"the data is {size} bytes; a ConfigMap holds at most 1 MiB"))
    return out


_BASE64_MESSAGE = "the value is not base64 (kubectl cannot decode it); put plain text in stringData instead"


def _base64(value) -> bytes | None:
    """The bytes of a []byte field as Go's encoding/json reads them (base64.StdEncoding, which
    skips newlines), or None."""
    if not isinstance(value, str):
        return None
    try:
        return base64.b64decode(value.replace("\n", "").replace("\r", ""), validate=True)
    except (binascii.Error, ValueError):
        return None


# Secret types with keys they need (ValidateSecret's switch on secret.Type).
_SECRET_KEYS = {
    "kubernetes.io/dockercfg": (".dockercfg",),
    "kubernetes.io/dockerconfigjson": (".dockerconfigjson",),
    "kubernetes.io/ssh-auth": ("ssh-privatekey",),
    "kubernetes.io/tls": ("tls.crt", "tls.key"),
}


def secret_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidateSecret: keys (of data and stringData, which is merged into data), data in base64,
    what each type needs, the 1 MiB limit."""
    data, strings = as_dict(obj.get("data")), as_dict(obj.get("stringData"))
    out = _key_findings(data, "data", "secret") + _key_findings(strings, "stringData", "secret")
    decoded: dict[str, bytes] = {}
    for key, value in data.items():
        raw = _base64(value)
        if raw is None and isinstance(value, str):
            out.append(error(child("data", key), "secret", _BASE64_MESSAGE))
        decoded[key] = raw or b""
    decoded.update({k: str(v).encode() for k, v in strings.items() if v is not None})
    kind = obj.get("type") if isinstance(obj.get("type"), str) else None
    for key in _SECRET_KEYS.get(kind, ()):
        if key not in decoded:
            out.append(error("type", "secret", f"a {kind} Secret needs the key {key!r} in data or stringData"))
        elif key.startswith(".docker"):
            try:
                json.loads(decoded[key])
            except ValueError:
                where = child("stringData" if key in strings else "data", key)
                out.append(error(where, "secret", f"{key} must be JSON (a Docker config file)"))
    if kind == "kubernetes.io/basic-auth" and "username" not in decoded and "password" not in decoded:
        out.append(error("type", "secret", "a kubernetes.io/basic-auth Secret needs username or password"))
    if kind == "kubernetes.io/service-account-token":
        annotations = as_dict(as_dict(obj.get("metadata")).get("annotations"))
        if not annotations.get("kubernetes.io/service-account.name"):
            message = "a service-account-token Secret needs the annotation kubernetes.io/service-account.name"
            out.append(error("metadata.annotations", "secret", message))
    size = sum(len(v) for v in decoded.values())
    if size > MAX_DATA_SIZE:
        out.append(error("data", "secret", f"the data is {size} bytes; a Secret holds at most 1 MiB"))
    return out


# -- Volumes and claims --------------------------------------------------------------------------

ACCESS_MODES = ("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany")

RWOP_SINCE = 27  # ReadWriteOncePod: alpha 1.22 (off, so refused), beta on by default 1.27, GA 1.29


def _access_mode_findings(modes, path: str, rule: str, releases) -> list[Finding]:
    """ValidatePersistentVolumeClaimSpec / ValidatePersistentVolumeSpec: at least one access
    mode, each supported, ReadWriteOncePod alone."""
    if modes is None or modes == []:
        return [error(path, rule, "at least one access mode is required (e.g. ReadWriteOnce)")]
    out = []
    supported = ACCESS_MODES + (("ReadWriteOncePod",) if enforced(releases, RWOP_SINCE) else ())
    for i, mode in enumerate(as_list(modes)):
        if isinstance(mode, str) and mode not in supported:
            message = f"access mode {mode!r} is not one of {', '.join(supported)}"
            if mode == "ReadWriteOncePod":
                message += " (ReadWriteOncePod is on by default from Kubernetes 1.27)"
            out.append(error(f"{path}[{i}]", rule, message))
    if "ReadWriteOncePod" in as_list(modes) and len(as_list(modes)) > 1:
        out.append(error(path, rule, "ReadWriteOncePod may not be combined with other access modes"))
    return out


def pvc_spec_findings(spec, path: str, releases) -> list[Finding]:
    spec = as_dict(spec)
    out = _access_mode_findings(spec.get("accessModes"), f"{path}.accessModes", "persistent-volume-claim", releases)
    requests = as_dict(as_dict(spec.get("resources")).get("requests"))
    if "storage" not in requests:
        message = "resources.requests.storage is required: the size of the claim (e.g. 10Gi)"
        out.append(error(f"{path}.resources.requests", "persistent-volume-claim", message))
    else:
        value = parse_quantity(requests["storage"])
        if value is not None and value <= 0:
            message = f"storage request {requests['storage']!r} must be greater than zero"
            out.append(error(f"{path}.resources.requests.storage", "persistent-volume-claim", message))
    return out + _pvc_source_findings(spec, path)


VOLUME_MODES = ("Block", "Filesystem")


def _pvc_source_findings(spec: dict, path: str) -> list[Finding]:
    """ValidatePersistentVolumeClaimSpec (v1.31.1): storageClassName a class name, volumeMode,
    dataSource and dataSourceRef (validateDataSource, validateDataSourceRef; dataSourceRef's
    namespace is behind CrossNamespaceVolumeDataSource, alpha: not here), and the two the same."""
    out = []
    rule = "persistent-volume-claim"
    name = spec.get("storageClassName")
    if isinstance(name, str) and name and not (len(name) <= 253 and DNS1123_SUBDOMAIN.match(name)):
        message = f"storageClassName {name!r} is not a StorageClass name (DNS-1123 subdomain)"
        out.append(error(f"{path}.storageClassName", rule, message))
    mode = spec.get("volumeMode")
    if isinstance(mode, str) and mode not in VOLUME_MODES:
        out.append(error(f"{path}.volumeMode", "enum", f"volumeMode {mode!r} is not one of Block, Filesystem"))
    for field in ("dataSource", "dataSourceRef"):
        ref = spec.get(field)
        if not isinstance(ref, dict):
            continue
        for key in ("name", "kind"):
            if ref.get(key) == "":
                out.append(error(f"{path}.{field}.{key}", "required", f"{field} needs a {key}"))
        group, kind = ref.get("apiGroup") or "", ref.get("kind")
        if not group and isinstance(kind, str) and kind and kind != "PersistentVolumeClaim":
            message = f"{field} kind {kind!r} needs its apiGroup (e.g. snapshot.storage.k8s.io for VolumeSnapshot)"
            out.append(error(f"{path}.{field}", rule, message))
        if isinstance(group, str) and group and not (len(group) <= 253 and DNS1123_SUBDOMAIN.match(group)):
            out.append(error(f"{path}.{field}.apiGroup", rule, f"apiGroup {group!r} is not a DNS-1123 subdomain"))
    source, ref = spec.get("dataSource"), spec.get("dataSourceRef")
    if isinstance(source, dict) and isinstance(ref, dict) and not ref.get("namespace"):
        same = all((source.get(k) or "") == (ref.get(k) or "") for k in ("apiGroup", "kind", "name"))
        if not same:
            message = "dataSource and dataSourceRef name different objects: set one, or make them the same"
            out.append(error(f"{path}.dataSource", rule, message))
    return out


def pvc_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidatePersistentVolumeClaim (ValidatePersistentVolumeClaimSpec)."""
    return pvc_spec_findings(obj.get("spec"), "spec", releases)


# The volume sources of a PersistentVolumeSpec (core/types.go PersistentVolumeSource).
PV_SOURCES = (
    "gcePersistentDisk", "awsElasticBlockStore", "hostPath", "glusterfs", "nfs", "rbd", "iscsi", "cinder",
    "cephfs", "fc", "flocker", "flexVolume", "azureFile", "vsphereVolume", "quobyte", "azureDisk",
    "photonPersistentDisk", "portworxVolume", "scaleIO", "local", "storageos", "csi",
)  # fmt: skip

RECLAIM_POLICIES = ("Retain", "Delete", "Recycle")


def pv_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidatePersistentVolume / ValidatePersistentVolumeSpec: access modes, a storage capacity
    and nothing else, exactly one volume source, a local volume's node affinity."""
    spec = as_dict(obj.get("spec"))
    out = _access_mode_findings(spec.get("accessModes"), "spec.accessModes", "persistent-volume", releases)
    capacity = as_dict(spec.get("capacity"))
    if not capacity:
        out.append(error("spec.capacity", "persistent-volume", "capacity.storage is required (e.g. 10Gi)"))
    for key, value in capacity.items():
        if key != "storage":
            message = f"capacity {key!r} is not supported: a PersistentVolume's capacity is storage only"
            out.append(error(child("spec.capacity", key), "persistent-volume", message))
        elif (number := parse_quantity(value)) is not None and number < 0:
            out.append(error("spec.capacity.storage", "persistent-volume", f"storage {value!r} must not be negative"))
    sources = [s for s in PV_SOURCES if spec.get(s) is not None]
    if not sources:
        message = f"a PersistentVolume needs a volume source ({', '.join(PV_SOURCES[:6])}, csi, ...)"
        out.append(error("spec", "persistent-volume", message))
    elif len(sources) > 1:
        message = f"a PersistentVolume has one volume source, found {', '.join(sources)}"
        out.append(error(f"spec.{sources[1]}", "persistent-volume", message))
    if "local" in sources and not isinstance(spec.get("nodeAffinity"), dict):
        out.append(error("spec.nodeAffinity", "persistent-volume", "a local PersistentVolume needs nodeAffinity"))
    policy = spec.get("persistentVolumeReclaimPolicy")
    if isinstance(policy, str) and policy not in RECLAIM_POLICIES:
        message = f"persistentVolumeReclaimPolicy {policy!r} is not one of {', '.join(RECLAIM_POLICIES)}"
        out.append(error("spec.persistentVolumeReclaimPolicy", "persistent-volume", message))
    class_name = spec.get("storageClassName")
    if isinstance(class_name, str) and class_name:
        problem = name_problem(class_name, DNS1123_SUBDOMAIN, 253, "storageClassName (DNS-1123 subdomain)")
        if problem:
            out.append(error("spec.storageClassName", "persistent-volume", problem))
    return out


# -- ResourceQuota and LimitRange ----------------------------------------------------------------

# helper.IsStandardQuotaResourceName: the names a quota may use without a domain.
QUOTA_RESOURCES = frozenset({
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.storage",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods",
    "resourcequotas", "services", "replicationcontrollers", "secrets", "persistentvolumeclaims",
    "configmaps", "services.nodeports", "services.loadbalancers",
})  # fmt: skip


def resource_quota_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidateResourceQuota: each hard limit names a quota resource (validateResourceQuotaResourceName)
    and is a quantity of at least 0 (ValidateResourceQuantityValue)."""
    out = []
    for name, value in as_dict(as_dict(obj.get("spec")).get("hard")).items():
        here = child("spec.hard", name)
        if not isinstance(name, str):
            continue
        if "/" not in name:
            if name not in QUOTA_RESOURCES and not name.startswith(("hugepages-", "requests.hugepages-")):
                message = (
                    f"{name!r} is not a resource a quota can limit: use cpu, memory, pods, requests.cpu, "
                    "limits.memory, count/<resource>.<group>, requests.<domain>/<name>, ..."
                )
                out.append(error(here, "resource-quota", message))
        elif problem := label_key_problem(name, "resource"):
            out.append(error(here, "resource-quota", problem))
        number = parse_quantity(value)  # a value that is no quantity: the schema's finding
        if number is not None and number < 0:
            out.append(error(here, "resource-quota", f"{name} {value!r} must be greater than or equal to 0"))
    return out


LIMIT_TYPES = ("Pod", "Container", "PersistentVolumeClaim")


def limit_range_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidateLimitRange: min <= defaultRequest <= default <= max for each resource, no
    defaults for type Pod, a storage bound for type PersistentVolumeClaim, ratios >= 1."""
    out = []
    for i, item in enumerate(as_list(as_dict(obj.get("spec")).get("limits"))):
        item = as_dict(item)
        here = f"spec.limits[{i}]"
        kind = item.get("type")
        if isinstance(kind, str) and kind not in LIMIT_TYPES:
            out.append(error(f"{here}.type", "limit-range", f"type {kind!r} is not one of {', '.join(LIMIT_TYPES)}"))
        values: dict[str, dict] = {}
        for section in ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio"):
            for name, text in as_dict(item.get(section)).items():
                number = parse_quantity(text)  # a value that is no quantity: the schema's finding
                if number is not None:
                    values.setdefault(section, {})[name] = (number, text)
        if kind == "Pod":
            for section in ("default", "defaultRequest"):
                if item.get(section):
                    message = f"{section} may not be set when type is Pod (defaults apply to containers)"
                    out.append(error(f"{here}.{section}", "limit-range", message))
        if kind == "PersistentVolumeClaim" and "storage" not in values.get("min", {}) | values.get("max", {}):
            message = "a PersistentVolumeClaim limit needs min.storage or max.storage"
            out.append(error(here, "limit-range", message))
        out += _limit_order_findings(values, here)
    return out


# (lower section, upper section): each pair LimitRange orders, as ValidateLimitRange checks them
_ORDER = (
    ("min", "max"),
    ("min", "defaultRequest"),
    ("defaultRequest", "max"),
    ("defaultRequest", "default"),
    ("min", "default"),
    ("default", "max"),
)


def _limit_order_findings(values: dict, here: str) -> list[Finding]:
    out = []
    for low, high in _ORDER:
        for name, (number, text) in values.get(low, {}).items():
            if name in values.get(high, {}) and number > values[high][name][0]:
                message = f"{low} {name} {text!r} is greater than {high} {values[high][name][1]!r}"
                out.append(error(child(f"{here}.{low}", name), "limit-range", message))
    for name, (number, text) in values.get("maxLimitRequestRatio", {}).items():
        if number < 1:
            message = f"maxLimitRequestRatio {name} {text!r} is less than 1"
            out.append(error(child(f"{here}.maxLimitRequestRatio", name), "limit-range", message))
    return out
