"""Owner `pod`: the apiserver's security context and operating system rules of a pod spec, and
the small enumerations of its containers (k8s.io/kubernetes v1.31.1
pkg/apis/core/validation/validation.go: validatePodSpecSecurityContext, ValidateSecurityContext,
validateSeccompProfileField, ValidateAppArmorProfileField, validateSysctls, ValidateHostSysctl,
validateOS, validateLinux, validateWindows, validateContainerCommon, validateHTTPGetAction,
validateMountPropagation, validateHostPathType, ValidatePreemptionPolicy). pod.py calls
the checks of `SPEC_CHECKS` and `CONTAINER_CHECKS` for each pod spec (pod_plan.py)."""

from __future__ import annotations

import re
from typing import Any

from generator.core.findings import Finding
from generator.core.grammar import DNS1123_SUBDOMAIN
from generator.validate.rules.base import as_dict, as_int, as_list, enforced, error
from generator.validate.rules.pod_plan import ContainerCheck, PodContext, SpecCheck

PROFILE_TYPES = ("Localhost", "RuntimeDefault", "Unconfined")
FS_GROUP_CHANGE_POLICIES = ("OnRootMismatch", "Always")
TERMINATION_MESSAGE_POLICIES = ("File", "FallbackToLogsOnError")
PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")
OS_NAMES = ("linux", "windows")
HTTP_SCHEMES = ("HTTP", "HTTPS")
MOUNT_PROPAGATIONS = ("None", "HostToContainer", "Bidirectional")
HOST_PATH_TYPES = ("", "DirectoryOrCreate", "Directory", "FileOrCreate", "File", "Socket", "CharDevice", "BlockDevice")
_HEADER = re.compile(r"^[-A-Za-z0-9]+$")  # IsHTTPHeaderName
MAX_ID = 2**31 - 1  # IsValidUserID / IsValidGroupID: 0 ... 2147483647

# IsValidSysctlName: segments of [a-z0-9]([-_a-z0-9]*[a-z0-9])?, '.' or '/' between, up to 253
_SYSCTL = re.compile(
    r"^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?(/[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*$"
)
# utilsysctl.GetNamespace: the sysctls of the network and IPC namespaces
_NET_SYSCTL = ("net.",)
_IPC_SYSCTL = ("fs.mqueue.",)
_IPC_SYSCTL_NAMES = (
    "kernel.sem",
    "kernel.shmall",
    "kernel.shmmax",
    "kernel.shmmni",
    "kernel.shm_rmid_forced",
    "kernel.msgmax",
    "kernel.msgmnb",
    "kernel.msgmni",
)

# validateWindows: what a pod with os.name windows may not set (pod level, then container level)
WINDOWS_POD_FORBIDDEN = ("hostUsers", "hostPID", "hostIPC", "shareProcessNamespace")
WINDOWS_POD_SC_FORBIDDEN = (
    "appArmorProfile",
    "seLinuxOptions",
    "seccompProfile",
    "fsGroup",
    "fsGroupChangePolicy",
    "sysctls",
    "runAsUser",
    "runAsGroup",
    "supplementalGroups",
    "supplementalGroupsPolicy",
)
WINDOWS_CONTAINER_SC_FORBIDDEN = (
    "appArmorProfile",
    "seLinuxOptions",
    "seccompProfile",
    "capabilities",
    "readOnlyRootFilesystem",
    "privileged",
    "allowPrivilegeEscalation",
    "procMount",
    "runAsUser",
    "runAsGroup",
)

CONTAINER_GROUPS = ("initContainers", "containers", "ephemeralContainers")


def _pod_context(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    pod_sc = spec.get("securityContext")
    if isinstance(pod_sc, dict) and pod_sc:
        return _pod_context_findings(pod_sc, spec, f"{path}.securityContext")
    return []


def _container_context(c: dict[Any, Any], here: str, group: str, ctx: PodContext) -> list[Finding]:
    sc = c.get("securityContext")
    if isinstance(sc, dict) and sc:
        return _container_context_findings(sc, f"{here}.securityContext")
    return []


def _share_process_namespace(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    if spec.get("shareProcessNamespace") is True and spec.get("hostPID") is True:
        message = "shareProcessNamespace and hostPID cannot both be true: keep one"
        return [error(f"{path}.shareProcessNamespace", "security-context", message)]
    return []


def _preemption_policy(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    policy = spec.get("preemptionPolicy")
    if isinstance(policy, str) and policy not in PREEMPTION_POLICIES:
        message = f"preemptionPolicy {policy!r} is not one of {', '.join(PREEMPTION_POLICIES)}"
        return [error(f"{path}.preemptionPolicy", "enum", message)]
    return []


def _host_path_types(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    out = []
    for i, volume in enumerate(as_list(spec.get("volumes"))):
        host_path = volume.get("hostPath") if isinstance(volume, dict) else None
        kind = host_path.get("type") if isinstance(host_path, dict) else None
        if isinstance(kind, str) and kind not in HOST_PATH_TYPES:
            message = f"hostPath type {kind!r} is not one of {', '.join(t or repr(t) for t in HOST_PATH_TYPES)}"
            out.append(error(f"{path}.volumes[{i}].hostPath.type", "enum", message))
    return out


def _containers_of(spec: dict[Any, Any], path: str) -> list[tuple[str, dict[Any, Any]]]:
    """(path, container) of every container of the pod, in every group."""
    return [
        (f"{path}.{group}[{i}]", c)
        for group in CONTAINER_GROUPS
        for i, c in enumerate(as_list(spec.get(group)))
        if isinstance(c, dict)
    ]


def _os(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    return _os_findings(spec, path, _containers_of(spec, path), ctx.releases)


def _host_process(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    return _host_process_findings(spec, path, _containers_of(spec, path))


def _host_process_findings(spec: dict[Any, Any], path: str, containers: list[Any]) -> list[Finding]:
    """validateWindowsHostProcessPod: hostProcess the same for the pod and every container, and
    hostNetwork with it (whether the cluster allows privileged pods: not here)."""
    pod_value = as_dict(as_dict(spec.get("securityContext")).get("windowsOptions")).get("hostProcess")
    out, count = [], 0
    for here, c in containers:
        value = as_dict(as_dict(c.get("securityContext")).get("windowsOptions")).get("hostProcess")
        if isinstance(pod_value, bool) and isinstance(value, bool) and value != pod_value:
            shown, pod_shown = str(value).lower(), str(pod_value).lower()
            message = f"hostProcess {shown} differs from the pod's {pod_shown}: set it the same, or only on the pod"
            out.append(error(f"{here}.securityContext.windowsOptions.hostProcess", "security-context", message))
        count += value is True or (value is None and pod_value is True)
    if count:
        if count != len(containers):
            message = "a pod with a hostProcess container has only hostProcess containers"
            out.append(error(path, "security-context", message))
        if spec.get("hostNetwork") is not True:
            message = "hostProcess containers need hostNetwork: true"
            out.append(error(f"{path}.hostNetwork", "security-context", message))
    return out


def _id_findings(sc: dict[Any, Any], fields: tuple[str, ...], here: str) -> list[Finding]:
    out = []
    for field in fields:
        number = as_int(sc.get(field))
        if number is not None and not 0 <= number <= MAX_ID:
            message = f"{field} {number} must be between 0 and {MAX_ID} (a Linux user or group id)"
            out.append(error(f"{here}.{field}", "security-context", message))
    return out


def _pod_context_findings(sc: dict[Any, Any], spec: dict[Any, Any], here: str) -> list[Finding]:
    """validatePodSpecSecurityContext."""
    out = _id_findings(sc, ("fsGroup", "runAsUser", "runAsGroup"), here)
    for g, gid in enumerate(as_list(sc.get("supplementalGroups"))):
        number = as_int(gid)
        if number is not None and not 0 <= number <= MAX_ID:
            message = f"supplemental group {number} must be between 0 and {MAX_ID}"
            out.append(error(f"{here}.supplementalGroups[{g}]", "security-context", message))
    names: set[Any] = set()
    for i, sysctl in enumerate(as_list(sc.get("sysctls"))):
        name = as_dict(sysctl).get("name")
        if not isinstance(name, str):
            continue
        where = f"{here}.sysctls[{i}].name"
        if not name:
            out.append(error(where, "security-context", "a sysctl needs a name"))
        elif len(name) > 253 or not _SYSCTL.match(name):
            message = f"sysctl name {name!r} must be at most 253 characters of dot- or slash-separated lower-case parts"
            out.append(error(where, "security-context", message))
        elif name in names:
            out.append(error(where, "security-context", f"sysctl {name!r} is set twice; remove one"))
        names.add(name)
        dotted = name.replace("/", ".")
        if spec.get("hostNetwork") is True and dotted.startswith(_NET_SYSCTL):
            message = f"sysctl {name!r} belongs to the network namespace: not with hostNetwork: true"
            out.append(error(where, "security-context", message))
        elif spec.get("hostIPC") is True and (dotted.startswith(_IPC_SYSCTL) or dotted in _IPC_SYSCTL_NAMES):
            message = f"sysctl {name!r} belongs to the IPC namespace: not with hostIPC: true"
            out.append(error(where, "security-context", message))
    policy = sc.get("fsGroupChangePolicy")
    if isinstance(policy, str) and policy not in FS_GROUP_CHANGE_POLICIES:
        message = f"fsGroupChangePolicy {policy!r} is not one of {', '.join(FS_GROUP_CHANGE_POLICIES)}"
        out.append(error(f"{here}.fsGroupChangePolicy", "enum", message))
    out += _profile_findings(sc, here)
    if isinstance(sc.get("windowsOptions"), dict):
        out += _windows_options_findings(sc["windowsOptions"], f"{here}.windowsOptions")
    return out


def _container_context_findings(sc: dict[Any, Any], here: str) -> list[Finding]:
    """ValidateSecurityContext (privileged against the cluster's --allow-privileged, procMount
    behind ProcMountType: not here)."""
    out = _id_findings(sc, ("runAsUser", "runAsGroup"), here)
    if isinstance(sc.get("windowsOptions"), dict):
        out += _windows_options_findings(sc["windowsOptions"], f"{here}.windowsOptions")
    if sc.get("allowPrivilegeEscalation") is False:
        if sc.get("privileged") is True:
            message = "privileged: true always allows privilege escalation: drop allowPrivilegeEscalation: false"
            out.append(error(f"{here}.allowPrivilegeEscalation", "security-context", message))
        if "CAP_SYS_ADMIN" in as_list(as_dict(sc.get("capabilities")).get("add")):
            message = "capabilities.add CAP_SYS_ADMIN allows privilege escalation: drop allowPrivilegeEscalation: false"
            out.append(error(f"{here}.allowPrivilegeEscalation", "security-context", message))
    out += _profile_findings(sc, here)
    return out


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_NETBIOS = re.compile(r'^[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}$')
_DNS_LABEL = r"[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
_WINDOWS_DOMAIN = re.compile(rf"^{_DNS_LABEL}(?:\.{_DNS_LABEL})*$")
_USER_CHARS = re.compile(r'["/\\:;|=,+*?<>@\[\]]')
_DOTS_SPACES = re.compile(r"^[. ]+$")


def _windows_options_findings(options: dict[Any, Any], here: str) -> list[Finding]:
    """validateWindowsSecurityContextOptions: the GMSA credential spec's name and size, and
    runAsUserName as [DOMAIN\\]USER in Windows' grammar."""
    out = []
    name = options.get("gmsaCredentialSpecName")
    if isinstance(name, str) and not (len(name) <= 253 and DNS1123_SUBDOMAIN.match(name)):
        message = f"gmsaCredentialSpecName {name!r} is not an object name (DNS-1123 subdomain)"
        out.append(error(f"{here}.gmsaCredentialSpecName", "security-context", message))
    spec = options.get("gmsaCredentialSpec")
    if isinstance(spec, str) and not 0 < len(spec) <= 64 * 1024:
        message = "gmsaCredentialSpec must not be empty" if not spec else "gmsaCredentialSpec must be under 64 KiB"
        out.append(error(f"{here}.gmsaCredentialSpec", "security-context", message))
    user = options.get("runAsUserName")
    if isinstance(user, str):
        problem = _windows_user_problem(user)
        if problem:
            out.append(error(f"{here}.runAsUserName", "security-context", f"runAsUserName {user!r}: {problem}"))
    return out


def _windows_user_problem(value: str) -> str | None:
    if not value:
        return "must not be empty"
    if _CONTROL.search(value):
        return "must not contain control characters"
    parts = value.split("\\")
    if len(parts) > 2:
        return "must not contain more than one backslash"
    domain, user = (parts[0], parts[1]) if len(parts) == 2 else ("", parts[0])
    if len(domain) >= 256:
        return "the domain must be under 256 characters"
    if len(parts) == 2 and not (_NETBIOS.match(domain) or _WINDOWS_DOMAIN.match(domain)):
        return "the domain is neither a NetBIOS nor a DNS name"
    if not user:
        return "the user must not be empty"
    if len(user) > 104:
        return "the user must be at most 104 characters"
    if _DOTS_SPACES.match(user):
        return "the user must not be only periods or spaces"
    if _USER_CHARS.search(user):
        return 'the user must not contain any of "/\\:;|=,+*?<>@[]'
    return None


def _profile_findings(sc: dict[Any, Any], here: str) -> list[Finding]:
    """validateSeccompProfileField and ValidateAppArmorProfileField."""
    out = []
    for field, what in (("seccompProfile", "seccomp"), ("appArmorProfile", "AppArmor")):
        profile = sc.get(field)
        if not isinstance(profile, dict):
            continue
        where = f"{here}.{field}"
        kind, local = profile.get("type"), profile.get("localhostProfile")
        if kind is None or kind == "":
            out.append(error(f"{where}.type", "security-context", f"{field} needs a type: {', '.join(PROFILE_TYPES)}"))
        elif isinstance(kind, str) and kind not in PROFILE_TYPES:
            message = f"{what} profile type {kind!r} is not one of {', '.join(PROFILE_TYPES)}"
            out.append(error(f"{where}.type", "enum", message))
        if kind == "Localhost":
            if not isinstance(local, str) or (what == "AppArmor" and not local.strip()):
                message = f"a Localhost {what} profile needs localhostProfile: the profile's name on the node"
                out.append(error(f"{where}.localhostProfile", "security-context", message))
            elif what == "AppArmor" and local != local.strip():
                message = f"localhostProfile {local!r} must not start or end with white space"
                out.append(error(f"{where}.localhostProfile", "security-context", message))
            elif what == "seccomp" and (local.startswith("/") or ".." in local.split("/")):
                message = f"localhostProfile {local!r} must be a relative path without '..' (under the kubelet's root)"
                out.append(error(f"{where}.localhostProfile", "security-context", message))
        elif local is not None and isinstance(kind, str) and kind in PROFILE_TYPES:
            message = f"localhostProfile applies only to type Localhost, got {kind!r}: drop it"
            out.append(error(f"{where}.localhostProfile", "security-context", message))
    return out


SLEEP_ZERO_SINCE = 33  # PodLifecycleSleepActionAllowZero: alpha 1.32, beta on 1.33


def _handler_field_findings(
    handler: dict[Any, Any], where: str, grace: int, releases: tuple[int, ...]
) -> list[Finding]:
    """validateHTTPGetAction's scheme and header names (IsHTTPHeaderName), validateSleepAction."""
    out = []
    http = as_dict(handler.get("httpGet"))
    scheme = http.get("scheme")
    if isinstance(scheme, str) and scheme not in HTTP_SCHEMES:
        out.append(
            error(f"{where}.httpGet.scheme", "enum", f"scheme {scheme!r} is not one of {', '.join(HTTP_SCHEMES)}")
        )
    for k, header in enumerate(as_list(http.get("httpHeaders"))):
        name = as_dict(header).get("name")
        if isinstance(name, str) and not _HEADER.match(name):
            message = f"HTTP header name {name!r} must be letters, digits and '-'"
            out.append(error(f"{where}.httpGet.httpHeaders[{k}].name", "probe", message))
    seconds = as_int(as_dict(handler.get("sleep")).get("seconds"))
    if seconds is not None:
        low = 0 if not enforced(releases, until=SLEEP_ZERO_SINCE - 1) else 1
        if seconds < low or seconds > grace:
            message = f"sleep seconds {seconds} must be between {low} and terminationGracePeriodSeconds ({grace})"
            out.append(error(f"{where}.sleep.seconds", "probe", message))
    return out


def _container_enum_findings(c: dict[Any, Any], here: str, group: str, ctx: PodContext) -> list[Finding]:
    """validateContainerCommon's terminationMessagePolicy, the handlers' fields, a probe's
    terminationGracePeriodSeconds (validateProbe, validateReadinessProbe)."""
    spec, releases = ctx.spec, ctx.releases
    out = []
    policy = c.get("terminationMessagePolicy")
    if isinstance(policy, str) and policy not in TERMINATION_MESSAGE_POLICIES:
        message = f"terminationMessagePolicy {policy!r} is not one of {', '.join(TERMINATION_MESSAGE_POLICIES)}"
        out.append(error(f"{here}.terminationMessagePolicy", "enum", message))
    grace = as_int(spec.get("terminationGracePeriodSeconds"))
    grace = 30 if grace is None else grace  # the default (SetDefaults_PodSpec)
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        handler = c.get(probe)
        if not isinstance(handler, dict):
            continue
        out += _handler_field_findings(handler, f"{here}.{probe}", grace, releases)
        seconds = handler.get("terminationGracePeriodSeconds")
        if seconds is not None and probe == "readinessProbe":
            message = "terminationGracePeriodSeconds may not be set on a readinessProbe (it never kills the container)"
            out.append(error(f"{here}.{probe}.terminationGracePeriodSeconds", "probe", message))
        elif (number := as_int(seconds)) is not None and number <= 0:
            message = f"terminationGracePeriodSeconds {seconds} must be greater than 0"
            out.append(error(f"{here}.{probe}.terminationGracePeriodSeconds", "probe", message))
    for hook in ("postStart", "preStop"):
        handler = as_dict(c.get("lifecycle")).get(hook)
        if isinstance(handler, dict):
            out += _handler_field_findings(handler, f"{here}.lifecycle.{hook}", grace, releases)
    return out


def _mount_propagation_findings(c: dict[Any, Any], here: str, group: str, ctx: PodContext) -> list[Finding]:
    """validateMountPropagation: Bidirectional only for a privileged container."""
    out = []
    privileged = as_dict(c.get("securityContext")).get("privileged") is True
    for j, mount in enumerate(as_list(c.get("volumeMounts"))):
        propagation = as_dict(mount).get("mountPropagation")
        if not isinstance(propagation, str):
            continue
        if propagation not in MOUNT_PROPAGATIONS:
            message = f"mountPropagation {propagation!r} is not one of {', '.join(MOUNT_PROPAGATIONS)}"
            out.append(error(f"{here}.volumeMounts[{j}].mountPropagation", "enum", message))
        elif propagation == "Bidirectional" and not privileged:
            message = "mountPropagation Bidirectional is for privileged containers only: set privileged: true"
            out.append(error(f"{here}.volumeMounts[{j}].mountPropagation", "security-context", message))
    return out


# fields dropped before validation where their feature gate is off, so a windows pod is refused
# them only from the release it is on by default: UserNamespacesSupport, SupplementalGroupsPolicy
WINDOWS_FORBIDDEN_SINCE = {"hostUsers": 33, "supplementalGroupsPolicy": 33}


def _os_findings(
    spec: dict[Any, Any], path: str, containers: list[Any], releases: tuple[int, ...] = (10**6,)
) -> list[Finding]:
    """validateOS, then validateLinux or validateWindows."""
    os_spec = spec.get("os")
    if not isinstance(os_spec, dict):
        return []
    name = os_spec.get("name")
    if name == "":
        return [error(f"{path}.os.name", "security-context", "os.name must not be empty: linux or windows")]
    if isinstance(name, str) and name not in OS_NAMES:
        return [error(f"{path}.os.name", "enum", f"os.name {name!r} is not one of {', '.join(OS_NAMES)}")]
    out = []
    pod_sc = as_dict(spec.get("securityContext"))
    if name == "linux":
        for where, sc in [(f"{path}.securityContext", pod_sc)] + [
            (f"{here}.securityContext", as_dict(c.get("securityContext"))) for here, c in containers
        ]:
            if sc.get("windowsOptions") is not None:
                message = "windowsOptions cannot be set for a pod with os.name linux"
                out.append(error(f"{where}.windowsOptions", "security-context", message))
    elif name == "windows":
        checks = [(path, spec, WINDOWS_POD_FORBIDDEN), (f"{path}.securityContext", pod_sc, WINDOWS_POD_SC_FORBIDDEN)]
        checks += [
            (f"{here}.securityContext", as_dict(c.get("securityContext")), WINDOWS_CONTAINER_SC_FORBIDDEN)
            for here, c in containers
        ]
        for where, obj, fields in checks:
            for field in fields:
                value = obj.get(field)
                # hostPID and hostIPC are no pointers in the internal type (false is "not set"); sysctls
                # is checked by its length
                if (
                    value is None
                    or (value is False and field in ("hostPID", "hostIPC"))
                    or value == []
                    and field == "sysctls"
                ):
                    continue
                if field in WINDOWS_FORBIDDEN_SINCE and not enforced(releases, since=WINDOWS_FORBIDDEN_SINCE[field]):
                    continue
                message = f"{field} cannot be set for a pod with os.name windows"
                out.append(error(f"{where}.{field}", "security-context", message))
    return out


_PROBES_AND_HOOKS = ("livenessProbe", "readinessProbe", "startupProbe", "lifecycle")

# the checks of this module, each with the fields it reads (pod_plan.py)
SPEC_CHECKS = (
    SpecCheck(("securityContext",), _pod_context),
    SpecCheck(("shareProcessNamespace",), _share_process_namespace),
    SpecCheck(("preemptionPolicy",), _preemption_policy),
    SpecCheck(("volumes",), _host_path_types),
    SpecCheck(("os",), _os),
    SpecCheck(("securityContext",), _host_process, container_fields=("securityContext",)),
)
CONTAINER_CHECKS = (
    ContainerCheck(CONTAINER_GROUPS, ("securityContext",), _container_context),
    ContainerCheck(CONTAINER_GROUPS, ("terminationMessagePolicy", *_PROBES_AND_HOOKS), _container_enum_findings),
    ContainerCheck(CONTAINER_GROUPS, ("volumeMounts",), _mount_propagation_findings),
)
