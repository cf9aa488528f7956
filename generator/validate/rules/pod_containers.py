"""Owner `pod`: the apiserver's container and volume rules beyond pod.py's, for every pod spec a
workload or job holds (k8s.io/kubernetes v1.31.1 pkg/apis/core/validation/validation.go):
subPath and subPathExpr (ValidateVolumeMounts, validateLocalDescendingPath), downward API field
paths (validateObjectFieldSelector), resource names and hugepages (ValidateResourceRequirements,
validateContainerResourceName), sidecars (validateInitContainers, validateContainers), host ports
(validatePodHostNetworkDeps, AccumulateUniqueHostPorts), one source per volume
(validateVolumeSource) and ephemeral containers (ValidatePodCreate, ValidatePodTemplateSpec,
validateEphemeralContainers). pod.py runs the checks of `SPEC_CHECKS` and
`CONTAINER_CHECKS` for each pod spec (pod_plan.py)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from generator.core.findings import Finding, child
from generator.core.grammar import DNS1123_SUBDOMAIN, label_key_problem, parse_quantity
from generator.validate.rules.base import as_dict, as_int, as_list, enforced, error, value_text
from generator.validate.rules.core import pvc_spec_findings, resource_name_problem
from generator.validate.rules.pod_plan import ContainerCheck, PodContext, SpecCheck
from generator.validate.rules.pod_volumes import resource_field_findings, volume_field_findings

RECURSIVE_READ_ONLY_SINCE = 31  # RecursiveReadOnlyMounts: alpha 1.30 (off: dropped), beta on 1.31
SIDECARS_SINCE = 29  # SidecarContainers: alpha 1.28 (off: restartPolicy dropped), beta on 1.29, GA 1.33
CONTAINER_RESTART_POLICY_SINCE = 28  # the field exists (the schema refuses it before)
# ContainerRestartRules: alpha 1.34, beta and on by default from 1.35 (validateContainerRestartPolicy):
# a regular container may set restartPolicy, an init container any of these
CONTAINER_RESTART_RULES_SINCE = 35
CONTAINER_RESTART_POLICIES = ("Always", "Never", "OnFailure")
HOST_IPS_SINCE = 29  # PodHostIPs: alpha 1.28 (status.hostIPs refused while off), beta on 1.29, GA 1.30

# validEnvDownwardAPIFieldPathExpressions; spec.host is converted to spec.nodeName (ConvertDownwardAPIFieldLabel)
ENV_FIELD_PATHS = (
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.serviceAccountName",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
)
# validVolumeDownwardAPIFieldPathExpressions
VOLUME_FIELD_PATHS = ("metadata.name", "metadata.namespace", "metadata.labels", "metadata.annotations", "metadata.uid")

# what an ephemeral container may not set (allowedEphemeralContainerFields: false or not listed)
EPHEMERAL_FORBIDDEN = (
    "ports",
    "resources",
    "resizePolicy",
    "restartPolicy",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "lifecycle",
)


def _volumes(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    out = _volume_source_findings(as_list(spec.get("volumes")), f"{path}.volumes", ctx.releases)
    if not ctx.template and isinstance(ctx.pod_name, str):
        out += _own_claim_findings(as_list(spec.get("volumes")), f"{path}.volumes", ctx.pod_name)
    return out


def _sub_paths(c: dict[Any, Any], here: str, group: str, ctx: PodContext) -> list[Finding]:
    mounts = c.get("volumeMounts")
    return _sub_path_findings(mounts, here, ctx.releases) if isinstance(mounts, list) else []


def _empty_required(c: dict[Any, Any], here: str, group: str, ctx: PodContext) -> list[Finding]:
    out = []
    for field, fields in CONTAINER_REQUIRED.items():
        items = c.get(field)
        if isinstance(items, list):
            for j, item in enumerate(items):
                if isinstance(item, dict) and "" in item.values():
                    out += _empty_findings(item, fields, f"{here}.{field}[{j}]", f"an item of {field}")
    return out


def _devices(c: dict[Any, Any], here: str, group: str, ctx: PodContext) -> list[Finding]:
    devices = c.get("volumeDevices")
    if isinstance(devices, list) and devices:
        return _device_findings(devices, as_list(c.get("volumeMounts")), ctx.spec, here)
    return []


def _env_from(c: dict[Any, Any], here: str, group: str, ctx: PodContext) -> list[Finding]:
    env_from = c.get("envFrom")
    return _env_from_findings(env_from, here) if isinstance(env_from, list) and env_from else []


def _port_names(c: dict[Any, Any], here: str, group: str, ctx: PodContext) -> list[Finding]:
    ports = c.get("ports")
    return _port_name_findings(ports, here) if isinstance(ports, list) and len(ports) > 1 else []


def _env_fields(c: dict[Any, Any], here: str, group: str, ctx: PodContext) -> list[Finding]:
    env = c.get("env")
    return _env_field_findings(env, here, ctx.releases) if isinstance(env, list) else []


def _resource_names(c: dict[Any, Any], here: str, group: str, ctx: PodContext) -> list[Finding]:
    resources = c.get("resources")
    return _resource_name_findings(resources, f"{here}.resources") if isinstance(resources, dict) and resources else []


def _init_sidecar(c: dict[Any, Any], here: str, group: str, ctx: PodContext) -> list[Finding]:
    return _init_sidecar_findings(c, here, ctx.releases)


def _container_restart(c: dict[Any, Any], here: str, group: str, ctx: PodContext) -> list[Finding]:
    policy = c.get("restartPolicy")
    return [] if policy is None else _container_restart_findings(policy, here, ctx.releases)


def _host_ports(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    return _host_port_findings(spec, path)


def _ephemeral(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    ephemeral = spec.get("ephemeralContainers")
    if isinstance(ephemeral, list) and ephemeral:
        return _ephemeral_findings(spec, ephemeral, f"{path}.ephemeralContainers", ctx.template)
    return []


# -- mounts and volumes ---------------------------------------------------------------------------


def _sub_path_findings(mounts: list[Any], here: str, releases: tuple[int, ...]) -> list[Finding]:
    """ValidateVolumeMounts: subPath and subPathExpr relative, without '..', not both;
    validateMountRecursiveReadOnly where the field is kept."""
    out = []
    for j, mount in enumerate(mounts):
        if not isinstance(mount, dict):
            continue
        for field in ("subPath", "subPathExpr"):
            value = mount.get(field)
            if not isinstance(value, str) or not value:
                continue
            where = f"{here}.volumeMounts[{j}].{field}"
            if value.startswith("/"):
                message = f"{field} {value!r} must be a relative path inside the volume: drop the leading '/'"
                out.append(error(where, "sub-path", message))
            if ".." in value.replace("\\", "/").split("/"):
                message = f"{field} {value!r} must not contain '..': it may not leave the volume"
                out.append(error(where, "sub-path", message))
        rro = mount.get("recursiveReadOnly")
        if isinstance(rro, str) and enforced(releases, since=RECURSIVE_READ_ONLY_SINCE):
            where = f"{here}.volumeMounts[{j}].recursiveReadOnly"
            if rro not in ("Disabled", "IfPossible", "Enabled"):
                message = f"recursiveReadOnly {rro!r} is not one of Disabled, IfPossible, Enabled"
                out.append(error(where, "enum", message))
            elif rro != "Disabled":
                if mount.get("readOnly") is not True:
                    message = f"recursiveReadOnly {rro!r} needs readOnly: true on the mount"
                    out.append(error(where, "sub-path", message))
                if mount.get("mountPropagation") not in (None, "None"):
                    message = f"recursiveReadOnly {rro!r} needs mountPropagation None (or unset)"
                    out.append(error(where, "sub-path", message))
        if mount.get("subPath") and mount.get("subPathExpr"):
            message = "subPath and subPathExpr are mutually exclusive: keep one"
            out.append(error(f"{here}.volumeMounts[{j}].subPathExpr", "sub-path", message))
    return out


# validateVolumeSource's per-source functions: the string fields each refuses empty (the schema
# requires some of them present, which "" passes), and the lists it refuses empty
VOLUME_REQUIRED = {
    "hostPath": ("path",),
    "gitRepo": ("repository",),
    "gcePersistentDisk": ("pdName",),
    "awsElasticBlockStore": ("volumeID",),
    "secret": ("secretName",),
    "nfs": ("server", "path"),
    "iscsi": ("targetPortal", "iqn"),
    "glusterfs": ("endpoints", "path"),
    "persistentVolumeClaim": ("claimName",),
    "rbd": ("image",),
    "cinder": ("volumeID",),
    "quobyte": ("volume",),
    "flexVolume": ("driver",),
    "configMap": ("name",),
    "azureFile": ("secretName", "shareName"),
    "vsphereVolume": ("volumePath",),
    "photonPersistentDisk": ("pdID",),
    "portworxVolume": ("volumeID",),
    "azureDisk": ("diskName", "diskURI"),
    "storageos": ("volumeName",),
    "scaleIO": ("gateway", "system", "volumeName"),
    "csi": ("driver",),
    "image": ("reference",),
}
VOLUME_REQUIRED_LISTS = {"rbd": "monitors", "cephfs": "monitors"}
# ValidateVolumeMounts, ValidateVolumeDevices, ValidateEnv, validateKeyToPath: fields refused empty
CONTAINER_REQUIRED = {"volumeMounts": ("name", "mountPath"), "volumeDevices": ("name", "devicePath"), "env": ("name",)}


def _empty_findings(obj: dict[Any, Any], fields: tuple[str, ...], here: str, what: str) -> list[Finding]:
    out = []
    for field in fields:
        if obj.get(field) == "":
            message = f"{what} needs a non-empty {field}"
            out.append(error(f"{here}.{field}", "required", message))
    return out


_ITEM_SOURCES = ("secret", "configMap", "downwardAPI")  # the sources whose items need a key or path


def _empty_source_findings(volume: dict[Any, Any], here: str) -> list[Finding]:
    """The Required checks of each volume source: a field given as "" (missing is the schema's)."""
    out = []
    for source, value in volume.items():  # a volume has one source or two: not every known one
        fields = VOLUME_REQUIRED.get(source)
        if fields and isinstance(value, dict):
            out += _empty_findings(value, fields, f"{here}.{source}", f"a {source} volume")
            listed = VOLUME_REQUIRED_LISTS.get(source)
            if listed and value.get(listed) == []:
                out.append(error(f"{here}.{source}.{listed}", "required", f"a {source} volume needs {listed}"))
    for source in _ITEM_SOURCES:
        value = volume.get(source)
        items = value.get("items") if isinstance(value, dict) else None
        for k, item in enumerate(items if isinstance(items, list) else ()):
            if isinstance(item, dict):
                fields = ("path",) if source == "downwardAPI" else ("key", "path")
                out += _empty_findings(item, fields, f"{here}.{source}.items[{k}]", "an item")
    return out


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _strings(values: Any) -> set[str]:
    """The strings among ``values`` (input of any shape: a list where a name belongs is the
    schema's finding, and no set can hold it)."""
    return {v for v in values if isinstance(v, str)}


def _device_findings(devices: list[Any], mounts: list[Any], spec: dict[Any, Any], here: str) -> list[Finding]:
    """ValidateVolumeDevices: a raw block device comes from a claim (persistentVolumeClaim or
    ephemeral) of the pod, once by name and path, its path without '..', neither in volumeMounts."""
    volumes = {v["name"]: v for v in as_list(spec.get("volumes")) if isinstance(v, dict) and _is_str(v.get("name"))}
    mount_names = _strings(as_dict(m).get("name") for m in mounts)
    mount_paths = _strings(as_dict(m).get("mountPath") for m in mounts)
    out, names, paths = [], set(), set()
    for j, device in enumerate(devices):
        if not isinstance(device, dict):
            continue
        where = f"{here}.volumeDevices[{j}]"
        name, device_path = device.get("name"), device.get("devicePath")
        if isinstance(name, str) and name:
            volume = volumes.get(name)
            if name in names:
                out.append(error(f"{where}.name", "volume-device", f"volumeDevice {name!r} is listed twice"))
            elif volume is None:
                message = f"volumeDevice {name!r} names no volume of the pod; add it to volumes or fix the name"
                out.append(error(f"{where}.name", "volume-device", message))
            elif volume.get("persistentVolumeClaim") is None and volume.get("ephemeral") is None:
                message = f"volume {name!r} is no claim: a block device comes from persistentVolumeClaim or ephemeral"
                out.append(error(f"{where}.name", "volume-device", message))
            if name in mount_names:
                message = f"volume {name!r} is also in volumeMounts: a claim is a device or a file system, not both"
                out.append(error(f"{where}.name", "volume-device", message))
            names.add(name)
        if isinstance(device_path, str) and device_path:
            if device_path in paths:
                out.append(error(f"{where}.devicePath", "volume-device", f"devicePath {device_path!r} is used twice"))
            if ".." in device_path.split("/"):
                message = f"devicePath {device_path!r} must not contain '..'"
                out.append(error(f"{where}.devicePath", "volume-device", message))
            else:
                paths.add(device_path)
            if device_path in mount_paths:
                message = f"devicePath {device_path!r} is also a mountPath of this container"
                out.append(error(f"{where}.devicePath", "volume-device", message))
    return out


def _env_from_findings(env_from: list[Any], here: str) -> list[Finding]:
    """ValidateEnvFrom: exactly one of configMapRef and secretRef, each naming its object
    (validateConfigMapEnvSource, validateSecretEnvSource: a DNS-1123 subdomain)."""
    out = []
    for j, source in enumerate(env_from):
        if not isinstance(source, dict):
            continue
        where = f"{here}.envFrom[{j}]"
        present = [k for k in ("configMapRef", "secretRef") if source.get(k) is not None]
        if not present:
            out.append(error(where, "env-value", "envFrom needs one of configMapRef or secretRef"))
        elif len(present) > 1:
            message = "envFrom has one source, found configMapRef and secretRef: split it into two items"
            out.append(error(f"{where}.secretRef", "env-value", message))
        for ref in present:
            name = as_dict(source[ref]).get("name")
            if name == "" or name is None:
                out.append(error(f"{where}.{ref}.name", "env-value", f"{ref} needs the name of the object"))
            elif isinstance(name, str) and not (len(name) <= 253 and DNS1123_SUBDOMAIN.match(name)):
                message = f"{ref} name {name!r} is not an object name (DNS-1123 subdomain)"
                out.append(error(f"{where}.{ref}.name", "env-value", message))
    return out


def _port_name_findings(ports: list[Any], here: str) -> list[Finding]:
    """validateContainerPorts: a port name once per container."""
    out, seen = [], set()
    for j, port in enumerate(ports):
        name = as_dict(port).get("name")
        if isinstance(name, str) and name:
            if name in seen:
                message = f"port name {name!r} is used twice in this container; rename one"
                out.append(error(f"{here}.ports[{j}].name", "port-name", message))
            seen.add(name)
    return out


def _own_claim_findings(volumes: list[Any], path: str, pod_name: Any) -> list[Finding]:
    """ValidateVolumes: a Pod's claim may not be the one its own ephemeral volume creates
    (named POD-VOLUME)."""
    if not isinstance(pod_name, str):
        return []  # the schema reports the name
    ephemeral = {
        f"{pod_name}-{v.get('name')}"
        for v in volumes
        if isinstance(v, dict) and v.get("ephemeral") and isinstance(v.get("name"), str)
    }
    out = []
    for i, volume in enumerate(volumes):
        claim = f"{pod_name}-{as_dict(volume).get('name')}"
        if claim in ephemeral and not (len(claim) <= 253 and DNS1123_SUBDOMAIN.match(claim)):
            message = f"the claim this ephemeral volume creates, {claim!r}, is no valid name (DNS-1123 subdomain, 253)"
            out.append(error(f"{path}[{i}].name", "volume-source", message))
    for i, volume in enumerate(volumes):
        claim_name = as_dict(as_dict(volume).get("persistentVolumeClaim")).get("claimName")
        if isinstance(claim_name, str) and claim_name in ephemeral:
            message = (
                f"claimName {claim_name!r} is the claim this pod's ephemeral volume creates: mount that volume instead"
            )
            out.append(error(f"{path}[{i}].persistentVolumeClaim.claimName", "volume-source", message))
    return out


# The order in which validateVolumeSource (pkg/apis/core/validation) checks a volume's sources.
_SOURCE_ORDER = (
    "emptyDir",
    "hostPath",
    "gitRepo",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "secret",
    "nfs",
    "iscsi",
    "glusterfs",
    "flocker",
    "persistentVolumeClaim",
    "rbd",
    "cinder",
    "cephfs",
    "quobyte",
    "downwardAPI",
    "fc",
    "flexVolume",
    "configMap",
    "azureFile",
    "vsphereVolume",
    "photonPersistentDisk",
    "portworxVolume",
    "azureDisk",
    "storageos",
    "projected",
    "scaleIO",
    "csi",
    "ephemeral",
    "image",
)


def _volume_source_findings(volumes: list[Any], path: str, releases: tuple[int, ...]) -> list[Finding]:
    """validateVolumeSource: at most one source per volume (none is defaulted to emptyDir), an
    ephemeral volume's claim template (ValidatePersistentVolumeClaimSpec); and the downward API
    volume's field paths (validateDownwardAPIVolumeFile)."""

    out = []
    for i, volume in enumerate(volumes):
        if not isinstance(volume, dict):
            continue
        sources = [k for k, v in volume.items() if k != "name" and v is not None]
        if sources:
            here = f"{path}[{i}]"
            out += _empty_source_findings(volume, here)
            out += volume_field_findings(volume, here)
        if len(sources) > 1:
            message = (
                f"volume {value_text(volume.get('name'))} has {len(sources)} sources ({', '.join(sources)}); a volume "
                "has exactly one: split it into volumes of one source each"
            )
            # validateVolumeSource takes the first source in its own order and refuses each later one.
            ranked = sorted(sources, key=lambda k: _SOURCE_ORDER.index(k) if k in _SOURCE_ORDER else len(_SOURCE_ORDER))
            out.append(error(f"{path}[{i}].{ranked[1]}", "volume-source", message))
        ephemeral = volume.get("ephemeral")
        if isinstance(ephemeral, dict):
            template = ephemeral.get("volumeClaimTemplate")
            if isinstance(template, dict):
                where = f"{path}[{i}].ephemeral.volumeClaimTemplate.spec"
                out += pvc_spec_findings(template.get("spec"), where, releases)
        downward = volume.get("downwardAPI")
        for k, item in enumerate(as_list(downward.get("items")) if isinstance(downward, dict) else ()):
            ref = as_dict(item).get("fieldRef")
            if isinstance(ref, dict):
                where = f"{path}[{i}].downwardAPI.items[{k}].fieldRef"
                out += _field_ref_findings(ref, where, VOLUME_FIELD_PATHS, (), "a downward API volume")
    return out


# -- environment ----------------------------------------------------------------------------------


def _env_field_findings(env_list: list[Any], here: str, releases: tuple[int, ...]) -> list[Finding]:
    out = []
    for j, env in enumerate(env_list):
        source = env.get("valueFrom") if isinstance(env, dict) else None
        if not isinstance(source, dict):
            continue  # most variables: a literal value
        ref = source.get("fieldRef")
        if isinstance(ref, dict):
            refused = () if not enforced(releases, until=HOST_IPS_SINCE - 1) else ("status.hostIPs",)
            out += _field_ref_findings(ref, f"{here}.env[{j}].valueFrom.fieldRef", ENV_FIELD_PATHS, refused, "env")
        ref = source.get("resourceFieldRef")
        if isinstance(ref, dict):
            out += resource_field_findings(ref, f"{here}.env[{j}].valueFrom.resourceFieldRef", volume=False)
    return out


def _field_ref_findings(
    ref: dict[Any, Any], where: str, allowed: tuple[Any, ...], refused: tuple[Any, ...], what: str
) -> list[Finding]:
    """validateObjectFieldSelector with ConvertDownwardAPIFieldLabel: apiVersion v1 (the default),
    a subscript only on metadata.labels and metadata.annotations (with a qualified name), else one
    of ``allowed``."""
    api, field_path = ref.get("apiVersion"), ref.get("fieldPath")
    if isinstance(api, str) and api and api != "v1":
        return [error(f"{where}.apiVersion", "field-path", f"fieldRef apiVersion must be 'v1', got {api!r}")]
    if field_path == "":
        return [error(f"{where}.fieldPath", "required", "fieldRef needs a fieldPath (metadata.name, ...)")]
    if not isinstance(field_path, str):
        return []  # absent: the schema's required
    base, subscript = _split_subscript(field_path)
    if subscript is not None:
        if base not in ("metadata.labels", "metadata.annotations"):
            message = (
                f"fieldPath {field_path!r}: only metadata.labels and metadata.annotations take a subscript "
                "(metadata.labels['app'])"
            )
            return [error(f"{where}.fieldPath", "field-path", message)]
        key = subscript.lower() if base == "metadata.annotations" else subscript
        problem = label_key_problem(key, "label" if base == "metadata.labels" else "annotation")
        return [error(f"{where}.fieldPath", "field-path", problem)] if problem else []
    if field_path == "spec.host" and "spec.nodeName" in allowed:
        return []  # ConvertDownwardAPIFieldLabel keeps it for old clients
    if field_path not in allowed or field_path in refused:
        shown = [p for p in allowed if p not in refused]
        extra = " or metadata.labels['KEY'] / metadata.annotations['KEY']" if what == "env" else ""
        message = f"fieldPath {field_path!r} is not supported for {what}: use one of {', '.join(shown)}{extra}"
        return [error(f"{where}.fieldPath", "field-path", message)]
    return []


def _split_subscript(field_path: str) -> tuple[str, str | None]:
    """fieldpath.SplitMaybeSubscriptedPath: ``a['b']`` -> (a, b)."""
    if not field_path.endswith("']"):
        return field_path, None
    base, sep, subscript = field_path[:-2].partition("['")
    if not sep or not base:
        return field_path, None
    return base, subscript


# -- resources ------------------------------------------------------------------------------------


def _resource_name_findings(resources: dict[Any, Any], here: str) -> list[Finding]:
    """validateContainerResourceName and ValidateResourceQuantityValue's sign; hugepages as
    resources that cannot overcommit (request = limit, a limit), with cpu or memory."""
    out = []
    hugepages, compute = False, False
    for kind in ("limits", "requests"):
        amounts = resources.get(kind)
        if not isinstance(amounts, dict):
            continue
        for name, quantity in amounts.items():
            if not isinstance(name, str):
                continue
            problem = resource_name_problem(name, True)  # positional: the cache's quickest key
            if problem:
                out.append(error(child(f"{here}.{kind}", name), "resource-name", problem))
            value = parse_quantity(quantity)
            if value is not None and value < 0:
                message = f"{name} {kind[:-1]} {quantity!r} must not be negative"
                out.append(error(child(f"{here}.{kind}", name), "resources", message))
            if name in _COMPUTE:
                compute = True
            elif name.startswith("hugepages-"):
                hugepages = True
                page = name.removeprefix("hugepages-")
                size = parse_quantity(page)
                # exact: Decimal's % gives up past its precision (a 64-digit quantity), a Fraction never
                if value is not None and (not size or size <= 0 or Fraction(value) % Fraction(size)):
                    message = f"{name} {kind[:-1]} {quantity!r} must be a whole number of {page} pages"
                    out.append(error(child(f"{here}.{kind}", name), "resources", message))
    if not hugepages:
        return out
    requests, limits = as_dict(resources.get("requests")), as_dict(resources.get("limits"))
    for name in requests:
        if not (isinstance(name, str) and name.startswith("hugepages-")):
            continue
        where = child(f"{here}.requests", name)
        if name not in limits:
            message = f"{name} must be set in limits too (hugepages cannot overcommit)"
            out.append(error(where, "resources", message))
        else:
            request, limit = parse_quantity(requests[name]), parse_quantity(limits[name])
            if request is not None and limit is not None and request != limit:
                message = f"{name} request {requests[name]!r} must equal its limit {limits[name]!r} (no overcommit)"
                out.append(error(where, "resources", message))
    if hugepages and not compute:
        message = "hugepages need a cpu or memory request or limit beside them; add one"
        out.append(error(here, "resources", message))
    return out


_COMPUTE = frozenset({"cpu", "memory"})


# -- sidecars and host ports -----------------------------------------------------------------------


def _container_restart_findings(policy: Any, here: str, releases: tuple[int, ...]) -> list[Finding]:
    """validateContainers: no restartPolicy on a regular container (1.28-1.34); from 1.35
    (ContainerRestartRules) one of Always, Never, OnFailure (validateContainerRestartPolicy)."""
    known = policy in CONTAINER_RESTART_POLICIES
    if known and enforced(releases, since=CONTAINER_RESTART_POLICY_SINCE, until=CONTAINER_RESTART_RULES_SINCE - 1):
        message = (
            "restartPolicy may be set only on init containers before Kubernetes 1.35 (a sidecar is an init "
            "container with restartPolicy: Always); drop it here, the pod's restartPolicy applies"
        )
        return [error(f"{here}.restartPolicy", "sidecar", message)]
    if not known and enforced(releases, since=CONTAINER_RESTART_POLICY_SINCE):
        allowed = ", ".join(CONTAINER_RESTART_POLICIES)
        message = f"a container's restartPolicy {value_text(policy)} is not one of {allowed}"
        return [error(f"{here}.restartPolicy", "sidecar", message)]
    return []


def _init_sidecar_findings(c: dict[Any, Any], here: str, releases: tuple[int, ...]) -> list[Finding]:
    """validateInitContainers, validateInitContainerRestartPolicy: restartPolicy Always (a
    sidecar) is the one value before 1.35, Never and OnFailure too from 1.35 (ContainerRestartRules);
    lifecycle and probes only on a sidecar, where every targeted release has sidecars."""
    out = []
    policy = c.get("restartPolicy")
    if isinstance(policy, str) and policy != "Always":
        if policy in CONTAINER_RESTART_POLICIES:
            refused = enforced(releases, since=SIDECARS_SINCE, until=CONTAINER_RESTART_RULES_SINCE - 1)
            allowed = "'Always' (a sidecar) before Kubernetes 1.35"
        else:
            refused = enforced(releases, since=SIDECARS_SINCE)
            allowed = "'Always' (a sidecar), or Never and OnFailure from Kubernetes 1.35"
        if refused:
            message = f"an init container's restartPolicy may only be {allowed}, got {policy!r}; or drop it"
            out.append(error(f"{here}.restartPolicy", "sidecar", message))
    restartable = policy == "Always" and not enforced(releases, until=SIDECARS_SINCE - 1)
    if restartable:
        return out
    for field in ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe"):
        if c.get(field) is not None:
            if policy == "Always":
                message = (
                    f"{field} on an init container needs sidecars (restartPolicy: Always), which Kubernetes before "
                    "1.29 does not have on by default"
                )
            else:
                message = (
                    f"{field} may not be set on an init container unless it is a sidecar (restartPolicy: Always); "
                    "drop it, or make the container a sidecar"
                )
            out.append(error(f"{here}.{field}", "sidecar", message))
    return out


def _host_port_findings(spec: dict[Any, Any], path: str) -> list[Finding]:
    """validatePodHostNetworkDeps (containers): with hostNetwork a hostPort equals its
    containerPort (0: defaulted); AccumulateUniqueHostPorts: one protocol/hostIP/hostPort once
    across containers, and within each init container."""
    out = []
    host_network = spec.get("hostNetwork") is True
    seen: dict[str, str] = {}
    for group in ("containers", "initContainers"):
        for i, c in enumerate(as_list(spec.get(group))):
            if group == "initContainers":
                seen = {}
            for j, port in enumerate(as_list(as_dict(c).get("ports"))):
                port = as_dict(port)
                host, container = as_int(port.get("hostPort")), as_int(port.get("containerPort"))
                where = f"{path}.{group}[{i}].ports[{j}].hostPort"
                if not host:
                    continue
                if host_network and group == "containers" and container is not None and host != container:
                    message = (
                        f"with hostNetwork the container listens on the node: hostPort {host} must equal "
                        f"containerPort {container} (or be left out)"
                    )
                    out.append(error(where, "host-port", message))
                protocol = port.get("protocol") or "TCP"
                key = f"{protocol}/{port.get('hostIP') or ''}/{host}"
                if key in seen:
                    message = f"hostPort {host}/{protocol} is used twice (also {seen[key]}); one node port, one user"
                    out.append(error(where, "host-port", message))
                seen.setdefault(key, where)
    return out


# -- ephemeral containers -------------------------------------------------------------------------


def _ephemeral_findings(spec: dict[Any, Any], ephemeral: list[Any], path: str, template: bool) -> list[Finding]:
    """ValidatePodCreate ("cannot be set on create") and ValidatePodTemplateSpec ("not allowed in
    pod template"): ephemeral containers are added to a running pod by `kubectl debug`, never
    written in a manifest. validateEphemeralContainers' own rules are named with it."""
    where = "a pod template" if template else "a Pod on create"
    message = (
        f"ephemeralContainers cannot be set in {where}: they are added to a running pod with `kubectl debug`; "
        "move the container to containers or initContainers"
    )
    out = [error(path, "ephemeral-container", message)]
    names = _strings(as_dict(c).get("name") for g in ("containers", "initContainers") for c in as_list(spec.get(g)))
    others = set(names)
    for i, c in enumerate(ephemeral):
        if not isinstance(c, dict):
            continue
        here = f"{path}[{i}]"
        name = c.get("name")
        if isinstance(name, str) and name in names:
            message = f"container name {name!r} is used twice: ephemeral container names are unique across all"
            out.append(error(f"{here}.name", "ephemeral-container", message))
        if isinstance(name, str):
            names.add(name)
        for field in EPHEMERAL_FORBIDDEN:
            if c.get(field) not in (None, {}, []):
                message = f"{field} cannot be set on an ephemeral container"
                out.append(error(f"{here}.{field}", "ephemeral-container", message))
        target = c.get("targetContainerName")
        if isinstance(target, str) and target and target not in others:
            message = f"targetContainerName {target!r} names no container or init container of the pod"
            out.append(error(f"{here}.targetContainerName", "ephemeral-container", message))
    return out


_ALL = ("initContainers", "containers", "ephemeralContainers")
_PROBES_AND_HOOKS = ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe")

# the checks of this module, each with the fields it reads (pod_plan.py)
SPEC_CHECKS = (
    SpecCheck(("volumes",), _volumes),
    SpecCheck((), _host_ports, container_fields=("ports",)),
    SpecCheck(("ephemeralContainers",), _ephemeral),
)
CONTAINER_CHECKS = (
    ContainerCheck(_ALL, ("volumeMounts",), _sub_paths),
    ContainerCheck(_ALL, tuple(CONTAINER_REQUIRED), _empty_required),
    ContainerCheck(_ALL, ("volumeDevices",), _devices),
    ContainerCheck(_ALL, ("envFrom",), _env_from),
    ContainerCheck(_ALL, ("ports",), _port_names),
    ContainerCheck(_ALL, ("env",), _env_fields),
    ContainerCheck(_ALL, ("resources",), _resource_names),
    ContainerCheck(("initContainers",), ("restartPolicy", *_PROBES_AND_HOOKS), _init_sidecar),
    ContainerCheck(("containers",), ("restartPolicy",), _container_restart),
)
