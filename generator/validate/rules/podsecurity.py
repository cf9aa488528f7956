"""Pod Security admission: would a namespace's level refuse the pods an object makes?

A port of the checks of k8s.io/pod-security-admission (policy/check_*.go, as of the release
that ships with Kubernetes 1.37), each with the release from which it applies (MinimumVersion
of its VersionedCheck). `violations` says why a pod spec fails a level; `pods_of` gives the pods
an object makes, the way its controller makes them (the paddle-operator adds its init
container). The namespace's labels are read where the Namespace is in the same input:
validate.py joins the two (rule `pod-security`).

Not modelled: exemptions in the admission configuration (usernames, runtime classes,
namespaces), which a cluster may set and no manifest shows; the verdict is the one for a cluster
without exemptions.
"""

from __future__ import annotations

from typing import Any

from generator.core import kinds as registry
from generator.core.findings import Finding
from generator.validate.rules.base import as_dict, as_list, warning
from generator.validate.rules.pod import pod_templates as templates

LEVELS = ("privileged", "baseline", "restricted")
ENFORCE = "pod-security.kubernetes.io/enforce"
ENFORCE_VERSION = "pod-security.kubernetes.io/enforce-version"
SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_CONTAINER = "container.seccomp.security.alpha.kubernetes.io/"

# check_capabilities_baseline.go: capabilities_allowed_1_0
BASELINE_CAPABILITIES = frozenset(
    {"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD", "NET_BIND_SERVICE"}
    | {"SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"}
)
# check_sysctls.go: the safe sysctls, by the release that allows them
SAFE_SYSCTLS = {
    0: {
        "kernel.shm_rmid_forced",
        "net.ipv4.ip_local_port_range",
        "net.ipv4.tcp_syncookies",
        "net.ipv4.ping_group_range",
        "net.ipv4.ip_unprivileged_port_start",
    },
    27: {"net.ipv4.ip_local_reserved_ports"},
    29: {
        "net.ipv4.tcp_keepalive_time",
        "net.ipv4.tcp_fin_timeout",
        "net.ipv4.tcp_keepalive_intvl",
        "net.ipv4.tcp_keepalive_probes",
    },
    32: {"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"},
    37: {"net.ipv4.tcp_slow_start_after_idle", "net.ipv4.tcp_notsent_lowat"},
}
# check_seLinuxOptions.go: selinuxAllowedTypes1_0, and container_engine_t from 1.31
SELINUX_TYPES = {"", "container_t", "container_init_t", "container_kvm_t"}
# check_restrictedVolumes.go: the volume sources "restricted" allows
RESTRICTED_VOLUMES = {
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "image",
    "persistentVolumeClaim",
    "projected",
    "secret",
}

# paddle-operator v0.3.5 controllers/paddlejob_helper.go genCoordinateInitContainer: the init
# container added to every pod when the operator runs with --initImage (the bundle sets it).
PADDLE_INIT_CONTAINER = {"name": "coord-paddle", "image": "(the operator's --initImage)"}


def pods_of(obj: dict[Any, Any]) -> list[tuple[str, dict[Any, Any], dict[Any, Any]]]:
    """(path of the pod template, pod metadata, pod spec) for each kind of pod ``obj`` makes."""
    kind = obj.get("kind")
    entry = registry.lookup(str(obj.get("apiVersion", "")), kind if isinstance(kind, str) else None)
    added = globals()[entry.pod_security] if entry is not None and entry.pod_security else None
    out: list[tuple[str, dict[Any, Any], dict[Any, Any]]] = []
    for path, template in templates(obj):
        meta, spec = as_dict(template.get("metadata")), as_dict(template.get("spec"))
        out.append((path, meta, added(obj, spec) if added else spec))
    return out


def paddle_operator_pod(obj: dict[Any, Any], spec: dict[Any, Any]) -> dict[Any, Any]:
    """What paddle-operator v0.3.5 adds to a PaddleJob's pods (constructPod): its init container,
    and the host's network with intranet Host."""
    spec = {**spec, "initContainers": [*as_list(spec.get("initContainers")), PADDLE_INIT_CONTAINER]}
    if as_dict(obj.get("spec")).get("intranet") == "Host":  # constructPod: HostNetwork
        spec["hostNetwork"] = True
    return spec


def _containers(spec: dict[Any, Any]) -> list[dict[Any, Any]]:
    """visitContainers: containers, init containers and ephemeral containers."""
    return [
        as_dict(c) for key in ("containers", "initContainers", "ephemeralContainers") for c in as_list(spec.get(key))
    ]


def _sc(container: dict[Any, Any]) -> dict[Any, Any]:
    return as_dict(container.get("securityContext"))


def _names(containers: list[dict[Any, Any]]) -> str:
    names = [str(c.get("name")) for c in containers]
    return ("container " if len(names) == 1 else "containers ") + ", ".join(f'"{n}"' for n in names)


def violations(meta: dict[Any, Any], spec: dict[Any, Any], level: str, minor: int) -> list[str]:
    """Why Pod Security ``level`` (of Kubernetes 1.``minor``) refuses this pod; empty: admitted."""
    if level == "privileged":
        return []
    out = _baseline(meta, spec, minor, restricted=level == "restricted")
    if level == "restricted":
        out += _restricted(spec, minor)
    return out


def _baseline(meta: dict[Any, Any], spec: dict[Any, Any], minor: int, restricted: bool) -> list[str]:
    out: list[str] = []
    containers = _containers(spec)
    pod_sc = as_dict(spec.get("securityContext"))
    userns = spec.get("hostUsers") is False
    # check_hostNamespaces.go
    for field in ("hostNetwork", "hostPID", "hostIPC"):
        if spec.get(field) is True:
            out.append(f"host namespaces: {field}=true")
    # check_privileged.go
    bad = [c for c in containers if _sc(c).get("privileged") is True]
    if bad:
        out.append(f"privileged: {_names(bad)} must not set securityContext.privileged=true")
    # check_capabilities_baseline.go (overridden by capabilities_restricted)
    if not restricted:
        added = {
            str(cap)
            for c in containers
            for cap in as_list(as_dict(_sc(c).get("capabilities")).get("add"))
            if str(cap) not in BASELINE_CAPABILITIES
        }
        if added:
            out.append(f"non-default capabilities: securityContext.capabilities.add must not include {sorted(added)}")
    # check_hostPathVolumes.go (overridden by restrictedVolumes)
    if not restricted:
        host = [str(as_dict(v).get("name")) for v in as_list(spec.get("volumes")) if "hostPath" in as_dict(v)]
        if host:
            out.append(f"hostPath volumes: {', '.join(host)}")
    # check_hostPorts.go
    ports = [p for c in containers for p in as_list(c.get("ports")) if as_dict(p).get("hostPort") not in (None, 0)]
    if ports:
        out.append("hostPort: containers must not set hostPort")
    # check_appArmorProfile.go
    for key, value in as_dict(meta.get("annotations")).items():
        apparmor = str(key).startswith("container.apparmor.security.beta.kubernetes.io/")
        if apparmor and value and value != "runtime/default" and not str(value).startswith("localhost/"):
            out.append(f"AppArmor profile: annotation {key}={value}")
    profiles = [as_dict(pod_sc.get("appArmorProfile"))] + [as_dict(_sc(c).get("appArmorProfile")) for c in containers]
    if any(p.get("type") == "Unconfined" for p in profiles):
        out.append("AppArmor profile: appArmorProfile.type must not be Unconfined")
    # check_seLinuxOptions.go
    allowed_types = SELINUX_TYPES | ({"container_engine_t"} if minor >= 31 else set())
    for opts in [as_dict(pod_sc.get("seLinuxOptions"))] + [as_dict(_sc(c).get("seLinuxOptions")) for c in containers]:
        if opts and (opts.get("type", "") not in allowed_types or opts.get("user") or opts.get("role")):
            out.append("seLinuxOptions: type must be container_t (or unset), user and role unset")
            break
    # check_procMount_baseline.go: from 1.35 a pod in a user namespace may unmask /proc
    # (check_procMount_restricted.go takes that back for "restricted")
    if not (userns and minor >= 35 and not restricted):
        unmasked = [c for c in containers if _sc(c).get("procMount") not in (None, "Default")]
        if unmasked:
            out.append(f"procMount: {_names(unmasked)} must not set securityContext.procMount")
    # check_seccompProfile_baseline.go (overridden by seccompProfile_restricted from 1.19)
    if not restricted or minor < 19:
        for key, value in as_dict(meta.get("annotations")).items():
            seccomp = key == SECCOMP_POD or str(key).startswith(SECCOMP_CONTAINER)
            if (
                seccomp
                and value not in ("runtime/default", "docker/default")
                and not str(value).startswith("localhost/")
            ):
                out.append(f"seccomp profile: annotation {key}={value}")
        types = [as_dict(pod_sc.get("seccompProfile")).get("type")]
        types += [as_dict(_sc(c).get("seccompProfile")).get("type") for c in containers]
        if "Unconfined" in types:
            out.append("seccomp profile: seccompProfile.type must not be Unconfined")
    # check_sysctls.go
    safe = set().union(*(names for since, names in SAFE_SYSCTLS.items() if minor >= since))
    unsafe = sorted({str(as_dict(s).get("name")) for s in as_list(pod_sc.get("sysctls"))} - safe)
    if unsafe:
        out.append(f"forbidden sysctls: {', '.join(unsafe)}")
    # check_windowsHostProcess.go
    windows = [as_dict(pod_sc.get("windowsOptions"))] + [as_dict(_sc(c).get("windowsOptions")) for c in containers]
    if any(w.get("hostProcess") is True for w in windows):
        out.append("hostProcess: windowsOptions.hostProcess must not be true")
    # check_hostProbesAndhostLifecycle.go (from 1.34)
    if minor >= 34:
        hosts: list[Any] = []
        for c in containers:
            for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
                p = as_dict(c.get(probe))
                hosts += [as_dict(p.get(h)).get("host") for h in ("httpGet", "tcpSocket")]
            for hook in ("postStart", "preStop"):
                h = as_dict(as_dict(c.get("lifecycle")).get(hook))
                hosts += [as_dict(h.get(x)).get("host") for x in ("httpGet", "tcpSocket")]
        if any(hosts):
            out.append("probe or lifecycle host: probes and lifecycle handlers must not set host")
    return out


def _restricted(spec: dict[Any, Any], minor: int) -> list[str]:
    out: list[str] = []
    containers = _containers(spec)
    pod_sc = as_dict(spec.get("securityContext"))
    windows = as_dict(spec.get("os")).get("name") == "windows" and minor >= 25
    userns = spec.get("hostUsers") is False and minor >= 35
    # check_restrictedVolumes.go (a volume with no source is an emptyDir: SetDefaults_Volume)
    sources = [(str(as_dict(v).get("name")), set(as_dict(v)) - {"name"}) for v in as_list(spec.get("volumes"))]
    refused = [name for name, source in sources if source and not source & RESTRICTED_VOLUMES]
    if refused:
        out.append(
            f"restricted volume types: volumes {', '.join(refused)} (allowed: {', '.join(sorted(RESTRICTED_VOLUMES))})"
        )
    # check_allowPrivilegeEscalation.go
    if not windows:
        bad: list[dict[Any, Any]] = [c for c in containers if _sc(c).get("allowPrivilegeEscalation") is not False]
        if bad:
            out.append(f"allowPrivilegeEscalation != false: {_names(bad)} must set allowPrivilegeEscalation=false")
    # check_runAsNonRoot.go, check_runAsUser.go (relaxed for user namespaces from 1.35)
    if not userns:
        pod_nonroot = pod_sc.get("runAsNonRoot") is True
        bad = [
            c
            for c in containers
            if _sc(c).get("runAsNonRoot") is False or (_sc(c).get("runAsNonRoot") is None and not pod_nonroot)
        ]
        if pod_sc.get("runAsNonRoot") is False or bad:
            out.append(f"runAsNonRoot != true: pod or {_names(bad)} must set securityContext.runAsNonRoot=true")
        if minor >= 23 and (pod_sc.get("runAsUser") == 0 or any(_sc(c).get("runAsUser") == 0 for c in containers)):
            out.append("runAsUser=0: pod and containers must not set runAsUser=0")
    # check_seccompProfile_restricted.go
    if minor >= 19 and not windows:
        pod_type = as_dict(pod_sc.get("seccompProfile")).get("type")
        valid = ("RuntimeDefault", "Localhost")
        if pod_type is not None and pod_type not in valid:
            out.append(f"seccompProfile: pod must not set seccompProfile.type to {pod_type}")
        bad = []
        for c in containers:
            kind = as_dict(_sc(c).get("seccompProfile")).get("type")
            if (kind is not None and kind not in valid) or (kind is None and pod_type not in valid):
                bad.append(c)
        if bad:
            out.append(
                f"seccompProfile: pod or {_names(bad)} must set seccompProfile.type to RuntimeDefault or Localhost"
            )
    # check_capabilities_restricted.go (from 1.22)
    if minor >= 22 and not windows:
        missing = [c for c in containers if "ALL" not in as_list(as_dict(_sc(c).get("capabilities")).get("drop"))]
        if missing:
            out.append(f'unrestricted capabilities: {_names(missing)} must set capabilities.drop=["ALL"]')
        added = {
            str(cap)
            for c in containers
            for cap in as_list(as_dict(_sc(c).get("capabilities")).get("add"))
            if cap != "NET_BIND_SERVICE"
        }
        if added:
            out.append(f"unrestricted capabilities: capabilities.add must not include {sorted(added)}")
    return out


def namespace_level(obj: dict[Any, Any], minor: int) -> tuple[str, int] | None:
    """(enforced level, release of its policy) of a Namespace object; None when none is enforced."""
    labels = as_dict(as_dict(obj.get("metadata")).get("labels"))
    level = labels.get(ENFORCE)
    if level not in LEVELS:
        return None
    version = str(labels.get(ENFORCE_VERSION, "latest"))
    major, _, policy_minor = version.removeprefix("v").partition(".")
    if major == "1" and policy_minor.isdigit():
        return level, min(int(policy_minor), minor)
    return level, minor


def namespace_findings(obj: Any, levels: dict[str, tuple[str, int]], minor: int) -> list[Finding]:
    """The join of the two halves, for one document of an input read in order: a Namespace
    records its level in ``levels``; an object in a namespace recorded earlier gets a warning
    per pod template that level refuses. Earlier only, as kubectl creates them: a namespace
    that comes after the object in the input does not exist yet when the object is created."""
    if not isinstance(obj, dict):
        return []
    meta = as_dict(obj.get("metadata"))
    if obj.get("kind") == "Namespace" and obj.get("apiVersion") == "v1" and isinstance(meta.get("name"), str):
        found = namespace_level(obj, minor)
        if found:
            levels[meta["name"]] = found
        return []
    namespace = meta.get("namespace")
    if not isinstance(namespace, str) or namespace not in levels:
        return []
    level, policy = levels[namespace]
    out: list[Finding] = []
    for path, pod_meta, spec in pods_of(obj):
        reasons = violations(pod_meta, spec, level, policy)
        if reasons:
            out.append(
                warning(
                    path,
                    "pod-security",
                    f"namespace {namespace} enforces Pod Security {level!r}, which refuses these pods after the "
                    f"object is admitted: {'; '.join(reasons)}. Use a namespace whose level admits them, or "
                    "meet the level",
                )
            )
    return out
