"""Owner `pod`: the apiserver's checks of each volume source's fields and of the downward API's
resource references, for every pod spec a workload or job holds (k8s.io/kubernetes v1.31.1
pkg/apis/core/validation/validation.go: validateVolumeSource and its per-source functions,
validateKeyToPath, ValidateLocalNonReservedPath, validateDownwardAPIVolumeFile,
validateProjectionSources, validateContainerResourceFieldSelector,
validateContainerResourceDivisor, ValidateCSIDriverName). pod_containers.py calls
`volume_field_findings` for each volume and `resource_field_findings` for each resourceFieldRef."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from generator.core.findings import Finding, child
from generator.core.grammar import DNS1123_SUBDOMAIN, parse_quantity
from generator.validate.rules.base import as_dict, as_int, as_list, error

FILE_MODE_MAX = 0o777
# validContainerResourceFieldPathExpressions, and the hugepages prefixes
RESOURCE_FIELDS = (
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
)
HUGEPAGES_FIELD_PREFIXES = ("requests.hugepages-", "limits.hugepages-")
_DECIMAL = [Decimal(10) ** (3 * k) for k in range(7)]  # 1, 1k ... 1E
_BINARY = [Decimal(1024) ** k for k in range(1, 7)]  # 1Ki ... 1Ei
CPU_DIVISORS = (Decimal("0.001"), Decimal(1))
BYTE_DIVISORS = tuple(_DECIMAL + _BINARY)

_IQN = re.compile(r"iqn\.\d{4}-\d{2}\.([A-Za-z0-9\-.]+)(:[^,;*&$|\s]+)$")  # iscsiInitiatorIqnRegex (unanchored)
_EUI = re.compile(r"^eui.[A-Za-z0-9]{16}$")
_NAA = re.compile(r"^naa.[A-Za-z0-9]{32}$")
AZURE_CACHING_MODES = ("None", "ReadOnly", "ReadWrite")
AZURE_DISK_KINDS = ("Dedicated", "Managed", "Shared")


def volume_field_findings(volume: dict[Any, Any], here: str) -> list[Finding]:
    """The per-source checks of one volume at ``here`` (volumes[i]): those of the sources it has
    (a volume has one, or two where the other check says so), looked up by their field."""
    out = []
    for source, value in volume.items():
        check = _SOURCE_CHECKS.get(source)
        if check is not None and isinstance(value, dict):
            out += check(value, f"{here}.{source}", volume)
    return out


def _empty_dir(source: dict[Any, Any], here: str, volume: dict[Any, Any]) -> list[Finding]:
    size = source.get("sizeLimit")
    value = parse_quantity(size) if size is not None else None
    if value is not None and value < 0:
        return [error(f"{here}.sizeLimit", "volume-source", f"emptyDir sizeLimit {size!r} must not be negative")]
    return []


def _items(source: dict[Any, Any], here: str, volume: dict[Any, Any], downward: bool = False) -> list[Finding]:
    """A secret's, configMap's, downwardAPI's or projected volume's defaultMode and items."""
    out = _mode_findings(source.get("defaultMode"), f"{here}.defaultMode")
    for k, item in enumerate(as_list(source.get("items"))):
        if isinstance(item, dict):
            out += _item_findings(item, f"{here}.items[{k}]", downward=downward)
    return out


def _downward(source: dict[Any, Any], here: str, volume: dict[Any, Any]) -> list[Finding]:
    return _items(source, here, volume, downward=True)


def _projected(source: dict[Any, Any], here: str, volume: dict[Any, Any]) -> list[Finding]:
    return _items(source, here, volume) + _projected_findings(source, here)


def _partition(source: dict[Any, Any], here: str, volume: dict[Any, Any]) -> list[Finding]:
    partition = as_int(source.get("partition"))
    if partition is not None and not 0 <= partition <= 255:
        message = f"partition {partition} must be between 1 and 255 (0: the whole disk)"
        return [error(f"{here}.partition", "volume-source", message)]
    return []


def _nfs(source: dict[Any, Any], here: str, volume: dict[Any, Any]) -> list[Finding]:
    nfs_path = source.get("path")
    if isinstance(nfs_path, str) and nfs_path and not nfs_path.startswith("/"):
        message = f"nfs path {nfs_path!r} must be an absolute path on the server"
        return [error(f"{here}.path", "volume-source", message)]
    return []


def _iscsi(source: dict[Any, Any], here: str, volume: dict[Any, Any]) -> list[Finding]:
    out = _iscsi_findings(source, here)
    joined = f"{volume.get('name')}:{source.get('targetPortal') or ''}"
    if source.get("initiatorName") is not None and len(joined) > 64:
        message = f"with initiatorName, NAME:targetPortal ({joined!r}) must be at most 64 characters; shorten the name"
        out.append(error(f"{here.rpartition('.')[0]}.name", "volume-source", message))
    return out


def _flex(source: dict[Any, Any], here: str, volume: dict[Any, Any]) -> list[Finding]:
    out = []
    for key in as_dict(source.get("options")):
        namespace = str(key).split("/", 1)[0] if "/" in str(key) else str(key)
        if ("." + namespace.lower()).endswith((".kubernetes.io", ".k8s.io")):
            message = f"flexVolume option {key!r}: the kubernetes.io and k8s.io prefixes are reserved"
            out.append(error(child(f"{here}.options", str(key)), "volume-source", message))
    return out


def _cinder(source: dict[Any, Any], here: str, volume: dict[Any, Any]) -> list[Finding]:
    secret = source.get("secretRef")
    if isinstance(secret, dict) and not secret.get("name"):  # validateCinderVolumeSource
        return [error(f"{here}.secretRef.name", "required", "cinder's secretRef needs a name")]
    return []


def _ephemeral(source: dict[Any, Any], here: str, volume: dict[Any, Any]) -> list[Finding]:
    if source.get("volumeClaimTemplate") is None:  # validateEphemeralVolumeSource
        message = "an ephemeral volume needs volumeClaimTemplate: the claim it creates"
        return [error(f"{here}.volumeClaimTemplate", "required", message)]
    return []


def _mode_findings(mode: Any, where: str) -> list[Finding]:
    number = as_int(mode)
    if number is not None and not 0 <= number <= FILE_MODE_MAX:
        message = f"file mode {number} must be between 0 and 0777 (511): write it in octal as 0644 or in decimal as 420"
        return [error(where, "volume-source", message)]
    return []


def path_findings(path: Any, where: str) -> list[Finding]:
    """ValidateLocalNonReservedPath: relative, no '..' segment, not starting with '..'."""
    if not isinstance(path, str) or not path:
        return []
    if path.startswith("/"):
        return [error(where, "volume-source", f"path {path!r} must be relative to the volume: drop the leading '/'")]
    if ".." in path.replace("\\", "/").split("/"):
        return [error(where, "volume-source", f"path {path!r} must not contain '..'")]
    if path.startswith(".."):
        return [error(where, "volume-source", f"path {path!r} must not start with '..' (reserved for the kubelet)")]
    return []


def _item_findings(item: dict[Any, Any], where: str, downward: bool) -> list[Finding]:
    """validateKeyToPath and validateDownwardAPIVolumeFile."""
    out = path_findings(item.get("path"), f"{where}.path") + _mode_findings(item.get("mode"), f"{where}.mode")
    if downward:
        field_ref, resource_ref = item.get("fieldRef"), item.get("resourceFieldRef")
        if field_ref is not None and resource_ref is not None:
            message = "a downward API item has fieldRef or resourceFieldRef, not both"
            out.append(error(f"{where}.resourceFieldRef", "field-path", message))
        elif field_ref is None and resource_ref is None:
            out.append(error(where, "field-path", "a downward API item needs fieldRef or resourceFieldRef"))
        elif isinstance(resource_ref, dict):
            out += resource_field_findings(resource_ref, f"{where}.resourceFieldRef", volume=True)
    return out


def resource_field_findings(ref: dict[Any, Any], where: str, volume: bool) -> list[Finding]:
    """validateContainerResourceFieldSelector and validateContainerResourceDivisor; ``volume``:
    a downward API volume's item, which names its container."""
    resource = ref.get("resource")
    if volume and not ref.get("containerName"):
        return [
            error(
                f"{where}.containerName", "field-path", "a downward API volume's resourceFieldRef needs containerName"
            )
        ]
    if not isinstance(resource, str):
        return []
    if not resource:
        return [error(f"{where}.resource", "field-path", "resourceFieldRef needs a resource (limits.cpu, ...)")]
    out = []
    if resource not in RESOURCE_FIELDS and not resource.startswith(HUGEPAGES_FIELD_PREFIXES):
        message = (
            f"resource {resource!r} is not one of {', '.join(RESOURCE_FIELDS)} or requests/limits.hugepages-<size>"
        )
        out.append(error(f"{where}.resource", "field-path", message))
    divisor = ref.get("divisor")
    value = parse_quantity(divisor) if divisor is not None else None
    if value is None or value == 0:
        return out
    allowed = CPU_DIVISORS if resource.endswith(".cpu") else BYTE_DIVISORS
    kind = resource.partition(".")[2]
    known = resource in RESOURCE_FIELDS or resource.startswith(HUGEPAGES_FIELD_PREFIXES)
    if known and value not in allowed:
        shown = "1m and 1" if allowed is CPU_DIVISORS else "1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei"
        message = f"divisor {divisor!r} is not supported for {kind}: use {shown}"
        out.append(error(f"{where}.divisor", "field-path", message))
    return out


def _projected_findings(projected: dict[Any, Any], here: str) -> list[Finding]:
    """validateProjectionSources: one kind per source, their names, items and token, no path twice."""
    out, paths = [], set()
    for i, source in enumerate(as_list(projected.get("sources"))):
        if not isinstance(source, dict):
            continue
        where = f"{here}.sources[{i}]"
        kinds = [k for k, v in source.items() if v is not None]
        if len(kinds) > 1:
            message = f"a projected source has one kind, found {' and '.join(kinds)}: split it into sources"
            out.append(error(f"{where}.{kinds[1]}", "volume-source", message))
        for kind in ("secret", "configMap", "downwardAPI"):
            src = source.get(kind)
            if not isinstance(src, dict):
                continue
            if kind != "downwardAPI" and not src.get("name"):
                out.append(
                    error(f"{where}.{kind}.name", "volume-source", f"a projected {kind} needs the name of the object")
                )
            for k, item in enumerate(as_list(src.get("items"))):
                if not isinstance(item, dict):
                    continue
                item_where = f"{where}.{kind}.items[{k}]"
                for field in ("path",) if kind == "downwardAPI" else ("key", "path"):
                    if item.get(field) == "":
                        out.append(error(f"{item_where}.{field}", "required", f"an item needs a non-empty {field}"))
                out += _item_findings(item, item_where, downward=kind == "downwardAPI")
                path = item.get("path")
                if isinstance(path, str) and path:
                    if path in paths:
                        message = f"path {path!r} is written twice into this projected volume; rename one"
                        out.append(error(f"{item_where}.path", "volume-source", message))
                    paths.add(path)
        token = source.get("serviceAccountToken")
        if isinstance(token, dict):
            seconds = as_int(token.get("expirationSeconds"))
            if seconds is not None and seconds < 600:
                message = f"expirationSeconds {seconds} is under the minimum of 600 (10 minutes)"
                out.append(error(f"{where}.serviceAccountToken.expirationSeconds", "volume-source", message))
            elif seconds is not None and seconds > 2**32:
                message = f"expirationSeconds {seconds} is over the maximum of 2^32"
                out.append(error(f"{where}.serviceAccountToken.expirationSeconds", "volume-source", message))
            path = token.get("path")
            if path == "":
                message = "a serviceAccountToken source needs a path"
                out.append(error(f"{where}.serviceAccountToken.path", "volume-source", message))
            out += path_findings(path, f"{where}.serviceAccountToken.path")
    return out


def _initiator_problem(value: str, what: str) -> str | None:
    if not value.startswith(("iqn", "eui", "naa")):
        return f"{what} {value!r} must start with iqn, eui or naa"
    pattern = {"iqn": _IQN, "eui": _EUI, "naa": _NAA}[value[:3]]
    if not pattern.search(value):  # Go's MatchString: the eui and naa patterns are anchored
        return f"{what} {value!r} is not a valid {value[:3]} name (e.g. iqn.2001-04.com.example:storage)"
    return None


def _iscsi_findings(iscsi: dict[Any, Any], here: str) -> list[Finding]:
    """validateISCSIVolumeSource: the iqn and initiator formats, lun 0-255, a secret for CHAP."""
    out = []
    iqn = iscsi.get("iqn")
    if isinstance(iqn, str) and iqn:
        problem = _initiator_problem(iqn, "iqn")
        if problem:
            out.append(error(f"{here}.iqn", "volume-source", problem))
    lun = as_int(iscsi.get("lun"))
    if lun is not None and not 0 <= lun <= 255:
        out.append(error(f"{here}.lun", "volume-source", f"lun {lun} must be between 0 and 255"))
    if (iscsi.get("chapAuthDiscovery") is True or iscsi.get("chapAuthSession") is True) and iscsi.get(
        "secretRef"
    ) is None:
        out.append(error(f"{here}.secretRef", "volume-source", "CHAP authentication needs secretRef"))
    initiator = iscsi.get("initiatorName")
    if isinstance(initiator, str):
        problem = _initiator_problem(initiator, "initiatorName")
        if problem:
            out.append(error(f"{here}.initiatorName", "volume-source", problem))
    return out


def _fc_findings(fc: dict[Any, Any], here: str) -> list[Finding]:
    """validateFCVolumeSource: targetWWNs (with a lun 0-255) or wwids, not both."""
    wwns, wwids = as_list(fc.get("targetWWNs")), as_list(fc.get("wwids"))
    if not wwns and not wwids:
        return [error(f"{here}.targetWWNs", "volume-source", "an fc volume needs targetWWNs (with lun) or wwids")]
    out = []
    if wwns and wwids:
        out.append(error(f"{here}.targetWWNs", "volume-source", "targetWWNs and wwids are exclusive: keep one"))
    if wwns:
        lun = fc.get("lun")
        if lun is None:
            out.append(error(f"{here}.lun", "volume-source", "targetWWNs needs a lun"))
        elif as_int(lun) is not None and not 0 <= lun <= 255:
            out.append(error(f"{here}.lun", "volume-source", f"lun {lun} must be between 0 and 255"))
    return out


def azure_disk_findings(disk: dict[Any, Any], here: str, rule: str = "volume-source") -> list[Finding]:
    """validateAzureDisk (a pod's volume, and a PersistentVolume's source with ``rule``
    persistent-volume): cachingMode, kind, and a diskURI of the kind's form."""
    out = []
    caching, kind, uri = disk.get("cachingMode"), disk.get("kind"), disk.get("diskURI")
    if isinstance(caching, str) and caching not in AZURE_CACHING_MODES:
        message = f"cachingMode {caching!r} is not one of {', '.join(AZURE_CACHING_MODES)}"
        out.append(error(f"{here}.cachingMode", "enum", message))
    if isinstance(kind, str) and kind not in AZURE_DISK_KINDS:
        out.append(error(f"{here}.kind", "enum", f"kind {kind!r} is not one of {', '.join(AZURE_DISK_KINDS)}"))
    if isinstance(kind, str) and isinstance(uri, str):
        if kind == "Managed" and not uri.startswith("/subscriptions/"):
            message = (
                f"a Managed disk's diskURI is /subscriptions/.../providers/microsoft.compute/disks/NAME, got {uri!r}"
            )
            out.append(error(f"{here}.diskURI", rule, message))
        elif kind != "Managed" and not uri.startswith("https://"):
            message = f"a blob disk's diskURI is https://ACCOUNT.blob.core.windows.net/CONTAINER/NAME.vhd, got {uri!r}"
            out.append(error(f"{here}.diskURI", rule, message))
    return out


def _csi_findings(csi: dict[Any, Any], here: str) -> list[Finding]:
    """validateCSIVolumeSource and ValidateCSIDriverName."""
    out = []
    driver = csi.get("driver")
    if isinstance(driver, str) and driver:
        if len(driver) > 63:
            message = f"CSI driver name {driver!r} is {len(driver)} characters: at most 63"
            out.append(error(f"{here}.driver", "volume-source", message))
        elif not DNS1123_SUBDOMAIN.match(driver.lower()):
            message = f"CSI driver name {driver!r} must be a DNS-1123 subdomain (e.g. ebs.csi.aws.com)"
            out.append(error(f"{here}.driver", "volume-source", message))
    secret = csi.get("nodePublishSecretRef")
    if isinstance(secret, dict):
        name = secret.get("name")
        if not name:
            out.append(error(f"{here}.nodePublishSecretRef.name", "volume-source", "nodePublishSecretRef needs a name"))
        elif isinstance(name, str) and not (len(name) <= 253 and DNS1123_SUBDOMAIN.match(name)):
            message = f"nodePublishSecretRef name {name!r} is not a Secret name (DNS-1123 subdomain)"
            out.append(error(f"{here}.nodePublishSecretRef.name", "volume-source", message))
    return out


# a volume source's field -> its checks (source, path of the source, the volume)
_SOURCE_CHECKS = {
    "emptyDir": _empty_dir,
    "secret": _items,
    "configMap": _items,
    "downwardAPI": _downward,
    "projected": _projected,
    "gcePersistentDisk": _partition,
    "awsElasticBlockStore": _partition,
    "nfs": _nfs,
    "iscsi": _iscsi,
    "fc": lambda source, here, volume: _fc_findings(source, here),
    "flexVolume": _flex,
    "azureDisk": lambda source, here, volume: azure_disk_findings(source, here),
    "csi": lambda source, here, volume: _csi_findings(source, here),
    "cinder": _cinder,
    "ephemeral": _ephemeral,
}
