"""Owner `pod`: the apiserver's checks of pod spec fields behind feature gates that are off by
default in v1.31.1 (the ledger's release: the fields are dropped before validation there) and on
by default in a later release, and the checks later releases added to fields v1.31.1 already
takes, each applied from the release that has it (k8s.io/kubernetes
pkg/apis/core/validation/validation.go: ValidatePodSpec's serviceAccount alias,
validateHostUsers, validateSupplementalGroupsPolicy, validateResizePolicy (with the pod's
restartPolicy Never), validatePodResourceClaim, validateResourceClaimNames,
ValidateProcMountType, validateSELinuxChangePolicy, ValidateAppArmorProfileField,
validatePodHostName, validateContainerRestartPolicy, validatePodResources and
validatePodResourceConsistency, validateProjectionSources' clusterTrustBundle and podCertificate
sources with ValidateUserAnnotations). pod.py calls the checks of `SPEC_CHECKS` and
`CONTAINER_CHECKS` for each pod spec (pod_plan.py)."""

from __future__ import annotations

from typing import Any

from generator.core.findings import Finding, child
from generator.core.grammar import DNS1123_LABEL, DNS1123_SUBDOMAIN, label_key_problem, parse_quantity, quantity_text
from generator.validate.rules.base import as_dict, as_list, byte_length, enforced, error
from generator.validate.rules.pod_plan import GROUPS, ContainerCheck, PodContext, SpecCheck
from generator.validate.rules.pod_volumes import path_findings
from generator.validate.rules.selector import selector_findings

USER_NAMESPACES_SINCE = 33  # UserNamespacesSupport: beta, on by default from 1.33
SUPPLEMENTAL_GROUPS_POLICY_SINCE = 33  # SupplementalGroupsPolicy: beta, on by default from 1.33
IN_PLACE_RESIZE_SINCE = 33  # InPlacePodVerticalScaling: beta, on by default from 1.33
# validateInitContainers refuses RestartContainer in a non-sidecar init container's resizePolicy in
# kubernetes master from March 2026 (kubernetes#137458): applied from 1.37, the first release sure to have it
INIT_RESIZE_RESTART_SINCE = 37
RESOURCE_CLAIMS_SINCE = 34  # DynamicResourceAllocation: GA in 1.34
# validateHostUsers refuses volumeDevices in a user namespace in kubernetes master from August
# 2025, after the 1.34 code freeze: applied from 1.35
USER_NAMESPACE_DEVICES_SINCE = 35
PROC_MOUNT_SINCE = 33  # ProcMountType: beta, on by default from 1.33 (it needs UserNamespacesSupport)
TRUST_BUNDLE_SINCE = 37  # ClusterTrustBundleProjection: beta and off 1.33-1.36, GA and on from 1.37
SELINUX_CHANGE_POLICY_SINCE = 33  # SELinuxChangePolicy: alpha 1.32, beta and on from 1.33, GA 1.36
# SELinuxMount: beta and off 1.33-1.36, GA and on from 1.37: before it only Recursive is let through
# on create (useOnlyRecursiveSELinuxChangePolicy, pkg/api/pod/util.go)
SELINUX_MOUNT_SINCE = 37
HOSTNAME_OVERRIDE_SINCE = 35  # HostnameOverride: alpha 1.34, beta and on from 1.35, GA 1.37
# ValidateAppArmorProfileField caps localhostProfile at 4095 characters (PATH_MAX - 1): in v1.31.1
# (the field is in the schema from 1.30, where this check is not verified here)
APPARMOR_PROFILE_LENGTH_SINCE = 31
RESTART_RULES_SINCE = 35  # ContainerRestartRules: alpha 1.34, beta and on from 1.35
RESTART_ALL_SINCE = 36  # RestartAllContainersOnContainerExits: alpha 1.35, beta and on from 1.36
# the limits of 20 rules and 255 exit codes are in kubernetes master from March 2026: applied from
# 1.37, the first release sure to have them
RESTART_RULE_LIMITS_SINCE = 37
RESTART_RULE_OPERATORS = ("In", "NotIn")
POD_LEVEL_RESOURCES_SINCE = 34  # PodLevelResources: alpha 1.32, beta and on from 1.34
POD_LEVEL_RESOURCE_NAMES = ("cpu", "memory")  # and hugepages-<size> (resourcehelper.IsSupportedPodLevelResource)
# validatePodResourceConsistency compares pod-level hugepages limits with the containers' from
# kubernetes#131089, merged in July 2025 about the 1.34 code freeze and in master of the 1.35
# cycle: applied from 1.35, the first release sure to have it
POD_HUGEPAGES_LIMITS_SINCE = 35
# ValidatePodSpec refuses a deprecated serviceAccount other than serviceAccountName in kubernetes
# master from June 2026 (kubernetes#139856; before, serviceAccountName won in silence): applied
# from 1.37, the first release sure to have it
SERVICE_ACCOUNT_ALIAS_SINCE = 37

PROC_MOUNT_TYPES = ("Default", "Unmasked")

SUPPLEMENTAL_GROUPS_POLICIES = ("Merge", "Strict")
RESIZE_RESOURCES = ("cpu", "memory")
RESIZE_POLICIES = ("NotRequired", "RestartContainer")


def _host_users(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    """validateHostUsers: no host namespace in a user namespace; from 1.35 no volumeDevices either
    (AllowUserNamespacesWithVolumeDevices is false on create)."""
    out = []
    if spec.get("hostUsers") is False and enforced(ctx.releases, since=USER_NAMESPACES_SINCE):
        for field in ("hostNetwork", "hostPID", "hostIPC"):
            if spec.get(field) is True:
                message = f"{field} cannot be true with hostUsers: false (a user namespace): drop one of them"
                out.append(error(f"{path}.{field}", "security-context", message))
        if enforced(ctx.releases, since=USER_NAMESPACE_DEVICES_SINCE):
            for group in ("initContainers", "containers", "ephemeralContainers"):
                for i, c in enumerate(as_list(spec.get(group))):
                    if as_list(as_dict(c).get("volumeDevices")):
                        message = "volumeDevices cannot be used with hostUsers: false (a user namespace)"
                        out.append(error(f"{path}.{group}[{i}].volumeDevices", "security-context", message))
    return out


def _service_account_alias(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    """ValidatePodSpec: the deprecated serviceAccount, where both it and serviceAccountName are
    set, names the same ServiceAccount (defaulting fills whichever of the two is empty)."""
    alias, name = spec.get("serviceAccount"), spec.get("serviceAccountName")
    differ = isinstance(alias, str) and isinstance(name, str) and alias and name and alias != name
    if differ and enforced(ctx.releases, since=SERVICE_ACCOUNT_ALIAS_SINCE):
        message = f"serviceAccount {alias!r} must be the same as serviceAccountName {name!r} (or left out)"
        return [error(f"{path}.serviceAccount", "service-account", message)]
    return []


def _supplemental_groups_policy(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    policy = as_dict(spec.get("securityContext")).get("supplementalGroupsPolicy")
    known = SUPPLEMENTAL_GROUPS_POLICIES
    if isinstance(policy, str) and policy not in known and enforced(ctx.releases, SUPPLEMENTAL_GROUPS_POLICY_SINCE):
        message = f"supplementalGroupsPolicy {policy!r} is not one of {', '.join(known)}"
        return [error(f"{path}.securityContext.supplementalGroupsPolicy", "enum", message)]
    return []


def _resize(c: dict[Any, Any], here: str, group: str, ctx: PodContext) -> list[Finding]:
    """validateResizePolicy, which validateContainerCommon runs for regular and init containers
    alike (an init container's resizePolicy is let through from 1.33: AllowSidecarResizePolicy
    follows InPlacePodVerticalScaling in pkg/api/pod/util.go)."""
    policies = c.get("resizePolicy")
    if not isinstance(policies, list) or not policies or not enforced(ctx.releases, since=IN_PLACE_RESIZE_SINCE):
        return []
    out = _resize_findings(policies, f"{here}.resizePolicy", ctx.spec.get("restartPolicy") == "Never")
    init = group == "initContainers" and c.get("restartPolicy") != "Always"
    if init and enforced(ctx.releases, since=INIT_RESIZE_RESTART_SINCE):
        for j, policy in enumerate(policies):
            if as_dict(policy).get("restartPolicy") == "RestartContainer":
                message = "an init container that is no sidecar is never resized: RestartContainer is refused"
                out.append(error(f"{here}.resizePolicy[{j}].restartPolicy", "resources", message))
    return out


def _claims(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    return _claim_findings(spec, path) if enforced(ctx.releases, since=RESOURCE_CLAIMS_SINCE) else []


def _proc_mount(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    return _proc_mount_findings(spec, path) if enforced(ctx.releases, since=PROC_MOUNT_SINCE) else []


def _proc_mount_findings(spec: dict[Any, Any], path: str) -> list[Finding]:
    """ValidateProcMountType, and ValidateSecurityContext: Unmasked only in a user namespace."""
    out = []
    for group in ("initContainers", "containers", "ephemeralContainers"):
        for i, c in enumerate(as_list(spec.get(group))):
            proc = as_dict(as_dict(c).get("securityContext")).get("procMount")
            if not isinstance(proc, str):
                continue
            where = f"{path}.{group}[{i}].securityContext.procMount"
            if proc not in PROC_MOUNT_TYPES:
                out.append(error(where, "enum", f"procMount {proc!r} is not one of {', '.join(PROC_MOUNT_TYPES)}"))
            elif proc == "Unmasked" and spec.get("hostUsers") is not False:
                message = "procMount Unmasked needs a user namespace: set the pod's hostUsers: false"
                out.append(error(where, "security-context", message))
    return out


def _selinux_change_policy(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    """validateSELinuxChangePolicy and validateWindows: Recursive, or MountOption too where
    SELinuxMount is on; not in a windows pod."""
    policy = as_dict(spec.get("securityContext")).get("seLinuxChangePolicy")
    if policy is None or not enforced(ctx.releases, since=SELINUX_CHANGE_POLICY_SINCE):
        return []
    where = f"{path}.securityContext.seLinuxChangePolicy"
    if as_dict(spec.get("os")).get("name") == "windows":
        return [error(where, "security-context", "seLinuxChangePolicy cannot be set for a windows pod")]
    if not isinstance(policy, str):
        return []
    mount = policy == "MountOption"
    refused = enforced(ctx.releases, SELINUX_CHANGE_POLICY_SINCE, SELINUX_MOUNT_SINCE - 1) if mount else True
    if policy == "Recursive" or not refused:
        return []
    if mount:
        message = "seLinuxChangePolicy MountOption is let through from Kubernetes 1.37 (SELinuxMount): use Recursive"
    else:
        message = f"seLinuxChangePolicy {policy!r} is not one of Recursive, MountOption"
    return [error(where, "enum", message)]


def _apparmor_length_findings(holder: dict[Any, Any], here: str, ctx: PodContext) -> list[Finding]:
    """ValidateAppArmorProfileField: a Localhost profile's name is at most 4095 characters."""
    profile = as_dict(as_dict(holder.get("securityContext")).get("appArmorProfile"))
    local = profile.get("localhostProfile")
    if not isinstance(local, str):
        return []
    too_long = len(local) > 4095 and profile.get("type") == "Localhost"
    if too_long and enforced(ctx.releases, since=APPARMOR_PROFILE_LENGTH_SINCE):
        message = f"localhostProfile is {len(local)} characters long, more than 4095"
        return [error(f"{here}.securityContext.appArmorProfile.localhostProfile", "security-context", message)]
    return []


def _pod_apparmor_length(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    return _apparmor_length_findings(spec, path, ctx)


def _container_apparmor_length(c: dict[Any, Any], here: str, group: str, ctx: PodContext) -> list[Finding]:
    return _apparmor_length_findings(c, here, ctx)


def _hostname_override(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    """validatePodHostName: hostnameOverride, a DNS-1123 subdomain of 64 characters at most, not
    with setHostnameAsFQDN nor with hostNetwork."""
    name = spec.get("hostnameOverride")
    if name is None or not enforced(ctx.releases, since=HOSTNAME_OVERRIDE_SINCE):
        return []
    out, where = [], f"{path}.hostnameOverride"
    if spec.get("setHostnameAsFQDN") is True:
        out.append(error(where, "name", "hostnameOverride may not be set with setHostnameAsFQDN: true"))
    if spec.get("hostNetwork") is True:
        out.append(error(where, "name", "hostnameOverride may not be set with hostNetwork: true"))
    if isinstance(name, str) and (len(name) > 64 or not _subdomain(name)):
        message = f"hostnameOverride {name!r} must be a DNS-1123 subdomain of at most 64 characters"
        out.append(error(where, "name", message))
    return out


def _restart_rules(c: dict[Any, Any], here: str, group: str, ctx: PodContext) -> list[Finding]:
    """validateContainerRestartPolicy and validateInitContainerRestartPolicy: restartPolicyRules
    need the container's restartPolicy; a sidecar (Always) takes none before 1.36; each rule's
    action Restart (RestartAllContainers too from 1.36) and exitCodes with operator In or NotIn."""
    rules = c.get("restartPolicyRules")
    if not isinstance(rules, list) or not rules or not enforced(ctx.releases, since=RESTART_RULES_SINCE):
        return []
    policy, out = c.get("restartPolicy"), []
    if policy is None:
        message = "restartPolicyRules need the container's restartPolicy (Always, OnFailure or Never)"
        return [error(f"{here}.restartPolicy", "sidecar", message)]
    sidecar = group == "initContainers" and policy == "Always"
    if sidecar and enforced(ctx.releases, since=RESTART_RULES_SINCE, until=RESTART_ALL_SINCE - 1):
        message = "restartPolicyRules are not allowed on a sidecar (restartPolicy Always) before Kubernetes 1.36"
        return [error(f"{here}.restartPolicyRules", "sidecar", message)]
    if len(rules) > 20 and enforced(ctx.releases, since=RESTART_RULE_LIMITS_SINCE):
        out.append(error(f"{here}.restartPolicyRules", "sidecar", f"at most 20 restartPolicyRules, got {len(rules)}"))
    all_containers = not enforced(ctx.releases, since=RESTART_RULES_SINCE, until=RESTART_ALL_SINCE - 1)
    actions = ("Restart", "RestartAllContainers") if all_containers else ("Restart",)
    for i, rule in enumerate(rules):
        rule, where = as_dict(rule), f"{here}.restartPolicyRules[{i}]"
        action = rule.get("action")
        if isinstance(action, str) and action not in actions:
            message = f"restart rule action {action!r} is not one of {', '.join(actions)}"
            out.append(error(f"{where}.action", "sidecar", message))
        codes = rule.get("exitCodes")
        if codes is None:
            out.append(error(f"{where}.exitCodes", "sidecar", "a restart rule needs exitCodes (operator and values)"))
            continue
        codes = as_dict(codes)
        operator = codes.get("operator")
        if isinstance(operator, str) and operator not in RESTART_RULE_OPERATORS:
            message = f"exitCodes operator {operator!r} is not one of {', '.join(RESTART_RULE_OPERATORS)}"
            out.append(error(f"{where}.exitCodes.operator", "sidecar", message))
        values = codes.get("values")
        if isinstance(values, list) and len(values) > 255 and enforced(ctx.releases, since=RESTART_RULE_LIMITS_SINCE):
            message = f"at most 255 exit codes, got {len(values)}"
            out.append(error(f"{where}.exitCodes.values", "sidecar", message))
    return out


def _pod_resources(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    """validatePodResources, from 1.34: not in a windows pod, no claims, only cpu, memory and
    hugepages (validatePodResourceName), a request at most its limit (validateResourceRequirements),
    and what the containers take within the pod's amounts (_pod_resource_consistency)."""
    resources = spec.get("resources")
    if not isinstance(resources, dict) or not enforced(ctx.releases, since=POD_LEVEL_RESOURCES_SINCE):
        return []
    here = f"{path}.resources"
    if as_dict(spec.get("os")).get("name") == "windows":
        return [error(here, "resources", "pod-level resources may not be set for a windows pod")]
    out = []
    if resources.get("claims") is not None:
        out.append(error(f"{here}.claims", "resources", "claims may not be set in pod-level resources"))
    requests, limits = as_dict(resources.get("requests")), as_dict(resources.get("limits"))
    for kind, amounts in (("requests", requests), ("limits", limits)):
        for name in amounts:
            if isinstance(name, str) and name not in POD_LEVEL_RESOURCE_NAMES and not name.startswith("hugepages-"):
                message = f"pod-level resource {name!r} is not supported: cpu, memory and hugepages-<size> are"
                out.append(error(child(f"{here}.{kind}", name), "resources", message))
    for name, request in requests.items():
        value, limit = parse_quantity(request), parse_quantity(limits.get(name))
        if value is not None and limit is not None and value > limit:
            message = f"pod-level {name} request {request} must be less than or equal to its limit {limits[name]}"
            out.append(error(child(f"{here}.requests", name), "resources", message))
    return out + _pod_resource_consistency(spec, path, ctx, requests, limits)


def _pod_resource_consistency(
    spec: dict[Any, Any], path: str, ctx: PodContext, requests: dict[Any, Any], limits: dict[Any, Any]
) -> list[Finding]:
    """validatePodResourceConsistency: each pod-level request at least what the containers
    request together (AggregateContainerRequests; a resource the pod does not request is not
    compared, kubernetes#132551 in 1.34), from 1.35 each pod-level hugepages limit at least what
    they may use together (AggregateContainerLimits), no regular container's limit above the
    pod's."""
    out, here = [], f"{path}.resources"
    if requests:
        for name, total in _aggregate(spec, "requests", ctx.template).items():
            value = parse_quantity(requests[name]) if name in requests else None
            if value is not None and total > value:
                message = (
                    f"pod-level {name} request {requests[name]} is below what its containers request together "
                    f"({quantity_text(total)}: the regular containers and sidecars, or an init container's peak)"
                )
                out.append(error(child(f"{here}.requests", name), "resources", message))
    hugepages = [name for name in limits if isinstance(name, str) and name.startswith("hugepages-")]
    if hugepages and enforced(ctx.releases, since=POD_HUGEPAGES_LIMITS_SINCE):
        totals = _aggregate(spec, "limits", ctx.template)
        for name in hugepages:
            value = parse_quantity(limits[name])
            if name in totals and value is not None and totals[name] > value:
                message = f"pod-level {name} limit {limits[name]} is below its containers' limits together"
                out.append(
                    error(child(f"{here}.limits", name), "resources", f"{message} ({quantity_text(totals[name])})")
                )
    for i, c in enumerate(as_list(spec.get("containers"))):
        for name, amount in as_dict(as_dict(as_dict(c).get("resources")).get("limits")).items():
            value, pod_limit = parse_quantity(amount), parse_quantity(limits.get(name))
            if value is not None and pod_limit is not None and value > pod_limit:
                message = f"container limit {name} {amount} is above the pod's limit {limits[name]}"
                out.append(error(child(f"{path}.containers[{i}].resources.limits", name), "resources", message))
    return out


def _aggregate(spec: dict[Any, Any], kind: str, template: bool) -> dict[Any, Any]:
    """AggregateContainerRequests or AggregateContainerLimits (k8s.io/component-helpers resource,
    ``kind`` requests or limits): the sum over the regular containers and the sidecars (init
    containers with restartPolicy Always), or an init container's peak where higher (its own
    amounts and those of the sidecars started before it). A Pod's container requests default to
    its limits first (SetDefaults_Pod); a template's do not."""
    total: dict[str, Any] = {}
    sidecars: dict[str, Any] = {}
    peak: dict[str, Any] = {}
    for c in as_list(spec.get("containers")):
        _add(total, _amounts(c, kind, template))
    for c in as_list(spec.get("initContainers")):
        amounts = _amounts(c, kind, template)
        if as_dict(c).get("restartPolicy") == "Always":
            _add(total, amounts)
            _add(sidecars, amounts)
            amounts = sidecars
        else:
            _add(amounts, sidecars)
        for name, value in amounts.items():
            peak[name] = max(peak.get(name, value), value)
    for name, value in peak.items():
        total[name] = max(total.get(name, value), value)
    return total


def _amounts(c: Any, kind: str, template: bool) -> dict[Any, Any]:
    """A container's ``kind`` (requests or limits) as numbers; in a Pod, a limit stands for a
    request left out."""
    resources = as_dict(as_dict(c).get("resources"))
    given = as_dict(resources.get(kind))
    amounts = {name: value for name, value in ((n, parse_quantity(a)) for n, a in given.items()) if value is not None}
    if kind == "requests" and not template:
        for name, amount in as_dict(resources.get("limits")).items():
            if name not in given and (value := parse_quantity(amount)) is not None:
                amounts[name] = value
    return amounts


def _add(totals: dict[Any, Any], amounts: dict[Any, Any]) -> None:
    for name, value in amounts.items():
        totals[name] = totals.get(name, 0) + value


def _trust_bundles(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    """A projected volume's clusterTrustBundle sources, from 1.37 (before, the field is dropped)."""
    if not enforced(ctx.releases, since=TRUST_BUNDLE_SINCE):
        return []
    out = []
    for i, volume in enumerate(as_list(spec.get("volumes"))):
        sources = as_dict(as_dict(volume).get("projected")).get("sources")
        if isinstance(sources, list) and any(_gated_source(source) for source in sources):
            out += _trust_bundle_findings(sources, f"{path}.volumes[{i}].projected")
    return out


def _gated_source(source: Any) -> bool:
    source = as_dict(source)
    return isinstance(source.get("clusterTrustBundle"), dict) or isinstance(source.get("podCertificate"), dict)


def _trust_bundle_findings(sources: list[Any], here: str) -> list[Finding]:
    """validateProjectionSources' clusterTrustBundle source: name or signerName (not both, not
    neither), the name a ClusterTrustBundle's (ValidateClusterTrustBundleName) without a
    labelSelector, the signerName a signer's (ValidateSignerName) with a label selector, a
    relative path that no other source of the volume writes ("conflicting duplicate paths",
    reported at the projected volume as the apiserver does)."""
    out, paths, bundle_paths = [], set(), set()
    for j, source in enumerate(sources):
        source = as_dict(source)
        for kind in ("secret", "configMap", "downwardAPI"):
            for item in as_list(as_dict(source.get(kind)).get("items")):
                item_path = as_dict(item).get("path")
                if isinstance(item_path, str) and item_path:
                    if item_path in bundle_paths:
                        message = f"path {item_path!r} is also a clusterTrustBundle's path in this projected volume"
                        out.append(error(here, "volume-source", message))
                    paths.add(item_path)
        certificate = source.get("podCertificate")
        if isinstance(certificate, dict):
            out += _pod_certificate_findings(certificate, f"{here}.sources[{j}].podCertificate", here, paths)
        bundle = source.get("clusterTrustBundle")
        if not isinstance(bundle, dict):
            continue
        where = f"{here}.sources[{j}].clusterTrustBundle"
        name, signer = bundle.get("name"), bundle.get("signerName")
        if name is not None and signer is not None:
            out.append(error(where, "volume-source", "a clusterTrustBundle source names name or signerName, not both"))
        elif isinstance(name, str):
            if not name:
                out.append(error(f"{where}.name", "required", "a clusterTrustBundle's name may not be empty"))
            elif problem := _bundle_name_problem(name):
                out.append(error(f"{where}.name", "volume-source", problem))
            if bundle.get("labelSelector") is not None:
                message = "labelSelector must be unset when the clusterTrustBundle is chosen by name"
                out.append(error(f"{where}.labelSelector", "volume-source", message))
        elif isinstance(signer, str):
            if not signer:
                out.append(
                    error(f"{where}.signerName", "required", "a clusterTrustBundle's signerName may not be empty")
                )
            elif problem := signer_name_problem(signer):
                out.append(error(f"{where}.signerName", "volume-source", problem))
            if isinstance(bundle.get("labelSelector"), dict):
                out += selector_findings(bundle["labelSelector"], f"{where}.labelSelector")
        elif name is None and signer is None:
            message = "a clusterTrustBundle source needs name (one bundle) or signerName (the signer's bundles)"
            out.append(error(where, "required", message))
        bundle_path = bundle.get("path")
        if bundle_path == "":
            out.append(error(f"{where}.path", "required", "a clusterTrustBundle source needs a path"))
        elif isinstance(bundle_path, str):
            out += path_findings(bundle_path, f"{where}.path")
            if bundle_path in paths:
                message = f"path {bundle_path!r} is written twice into this projected volume; rename one"
                out.append(error(here, "volume-source", message))
            paths.add(bundle_path)
            bundle_paths.add(bundle_path)
    return out


POD_CERTIFICATE_KEY_TYPES = ("RSA3072", "RSA4096", "ECDSAP256", "ECDSAP384", "ECDSAP521", "ED25519")
POD_CERTIFICATE_PATHS = ("credentialBundlePath", "keyPath", "certificateChainPath")
# certificates.MinMaxExpirationSeconds, MaxMaxExpirationSeconds (91 days) and
# KubernetesMaxMaxExpirationSeconds (a day, for a kubernetes.io signer)
POD_CERTIFICATE_MIN_EXPIRATION = 3600
POD_CERTIFICATE_MAX_EXPIRATION = 91 * 24 * 3600
POD_CERTIFICATE_KUBERNETES_MAX_EXPIRATION = 24 * 3600
USER_ANNOTATIONS_SIZE_LIMIT = 256 * 1024  # apimachinery TotalAnnotationSizeLimitB


def _pod_certificate_findings(certificate: dict[Any, Any], where: str, here: str, paths: set[Any]) -> list[Finding]:
    """validateProjectionSources' podCertificate source (PodCertificateRequest, GA and on from
    1.37): the signer's form, a key type, maxExpirationSeconds from an hour to 91 days (a day for
    a kubernetes.io signer, IsKubernetesSignerName), userAnnotations (ValidateUserAnnotations),
    one path at least, each relative and written by no other source."""
    out = []
    signer = certificate.get("signerName")
    if signer == "":
        out.append(error(f"{where}.signerName", "required", "a podCertificate source needs a signerName"))
    elif isinstance(signer, str) and (problem := signer_name_problem(signer)):
        out.append(error(f"{where}.signerName", "volume-source", problem))
    key_type = certificate.get("keyType")
    if isinstance(key_type, str) and key_type not in POD_CERTIFICATE_KEY_TYPES:
        message = f"keyType {key_type!r} is not one of {', '.join(POD_CERTIFICATE_KEY_TYPES)}"
        out.append(error(f"{where}.keyType", "enum", message))
    seconds = certificate.get("maxExpirationSeconds")
    if isinstance(seconds, int) and not isinstance(seconds, bool):
        out += _expiration_findings(seconds, signer, f"{where}.maxExpirationSeconds")
    annotations = certificate.get("userAnnotations")
    if isinstance(annotations, dict):
        out += _user_annotation_findings(annotations, f"{where}.userAnnotations")
    given = [field for field in POD_CERTIFICATE_PATHS if isinstance(certificate.get(field), str) and certificate[field]]
    if not given:
        message = "a podCertificate source needs credentialBundlePath, keyPath or certificateChainPath"
        out.append(error(where, "required", message))
    for field in given:
        value = certificate[field]
        out += path_findings(value, f"{where}.{field}")
        if value in paths:
            message = f"path {value!r} is written twice into this projected volume; rename one"
            out.append(error(here, "volume-source", message))
        paths.add(value)
    return out


def _expiration_findings(seconds: int, signer: Any, where: str) -> list[Finding]:
    """A podCertificate's maxExpirationSeconds: at least an hour, at most 91 days, or a day where
    the signer's domain is kubernetes.io or under it (IsKubernetesSignerName)."""
    if seconds < POD_CERTIFICATE_MIN_EXPIRATION:
        message = f"maxExpirationSeconds {seconds} must be at least {POD_CERTIFICATE_MIN_EXPIRATION} (an hour)"
        return [error(where, "volume-source", message)]
    domain = signer.partition("/")[0] if isinstance(signer, str) else ""
    if domain == "kubernetes.io" or domain.endswith(".kubernetes.io"):
        ceiling, what = POD_CERTIFICATE_KUBERNETES_MAX_EXPIRATION, "a day, for a kubernetes.io signer"
    else:
        ceiling, what = POD_CERTIFICATE_MAX_EXPIRATION, "91 days"
    if seconds > ceiling:
        return [error(where, "volume-source", f"maxExpirationSeconds {seconds} must be at most {ceiling} ({what})")]
    return []


def _user_annotation_findings(annotations: dict[Any, Any], where: str) -> list[Finding]:
    """ValidateUserAnnotations: each key, lowercased, a domain-prefixed key (IsDomainPrefixedKey:
    PREFIX/NAME, a label key with its prefix); keys and values 256 KiB at most together
    (ValidateAnnotationsSize). Reported at userAnnotations, as the apiserver does."""
    out, size = [], 0
    for key, value in annotations.items():
        if not isinstance(key, str):
            continue
        size += byte_length(key) + (byte_length(value) if isinstance(value, str) else 0)
        lowered = key.lower()
        problem = label_key_problem(lowered, "userAnnotations")
        if problem is None and lowered.count("/") != 1:
            problem = f"userAnnotations key {key!r} must be a domain-prefixed key (such as 'example.com/team')"
        if problem:
            out.append(error(where, "volume-source", problem))
    if size > USER_ANNOTATIONS_SIZE_LIMIT:
        message = f"userAnnotations are {size} bytes, more than {USER_ANNOTATIONS_SIZE_LIMIT} (256 KiB)"
        out.append(error(where, "volume-source", message))
    return out


def _subdomain(value: str) -> bool:
    return len(value) <= 253 and bool(DNS1123_SUBDOMAIN.match(value))


def _bundle_name_problem(name: str) -> str | None:
    """ValidateClusterTrustBundleName of the signer extractSignerNameFromClusterTrustBundleName
    reads from the name (pkg/apis/core/validation/names.go): SIGNER:REST, the signer's '/' as ':',
    or a plain object name without ':'; REST a DNS-1123 subdomain."""
    rest = name
    if ":" in name:
        signer = name[: name.rfind(":")].replace(":", "/")
        prefix = signer.replace("/", ":") + ":"
        if not name.startswith(prefix):
            return f"a ClusterTrustBundle of signer {signer} is named with the prefix {prefix}"
        rest = name[len(prefix) :]
    if not _subdomain(rest):
        return f"{rest!r} is not a ClusterTrustBundle name (a DNS-1123 subdomain after the signer's prefix)"
    return None


def signer_name_problem(signer: str) -> str | None:
    """ValidateSignerName (pkg/apis/core/validation/names.go): DOMAIN/PATH, the domain dotted
    DNS-1123 labels (two at least, 253 characters at most), the path dotted DNS-1123 subdomains,
    571 characters in all."""
    parts = signer.split("/")
    if len(parts) != 2:
        return f"signerName {signer!r} must be a fully qualified domain and path of the form 'example.com/signer-name'"
    domain, rest = parts
    labels = domain.split(".")
    if len(domain) > 253:
        return f"signerName {signer!r}: the domain is longer than 253 characters"
    if any(not (len(label) <= 63 and DNS1123_LABEL.match(label)) for label in labels):
        return f"signerName {signer!r}: the domain {domain!r} is not made of DNS-1123 labels"
    if len(labels) < 2:
        return f"signerName {signer!r}: the domain {domain!r} needs at least two segments separated by dots"
    if any(not _subdomain(label) for label in rest.split(".")):
        return f"signerName {signer!r}: the path {rest!r} is not made of DNS-1123 subdomains"
    if len(signer) > 571:
        return f"signerName {signer!r} is longer than 571 characters"
    return None


def _resize_findings(policies: list[Any], here: str, never: bool = False) -> list[Finding]:
    """validateResizePolicy: each resource once, cpu or memory, with NotRequired or RestartContainer;
    in a pod whose restartPolicy is Never (``never``) nothing but NotRequired, reported at the
    list as the apiserver does (field.Invalid(fldPath, ...): "must be 'NotRequired' when
    `restartPolicy` is 'Never'", in validation.go since 1.28 and unchanged after 1.33)."""
    out, seen = [], set()
    for j, policy in enumerate(policies):
        policy = as_dict(policy)
        name, restart = policy.get("resourceName"), policy.get("restartPolicy")
        if isinstance(name, str):
            if name in seen:
                out.append(error(f"{here}[{j}].resourceName", "resources", f"resizePolicy for {name!r} is set twice"))
            elif name not in RESIZE_RESOURCES:
                message = f"resizePolicy resourceName {name!r} is not one of {', '.join(RESIZE_RESOURCES)}"
                out.append(error(f"{here}[{j}].resourceName", "enum", message))
            seen.add(name)
        if isinstance(restart, str) and restart not in RESIZE_POLICIES:
            message = f"resizePolicy restartPolicy {restart!r} is not one of {', '.join(RESIZE_POLICIES)}"
            out.append(error(f"{here}[{j}].restartPolicy", "enum", message))
        if never and isinstance(restart, str) and restart != "NotRequired":
            message = f"resizePolicy restartPolicy {restart!r} must be NotRequired: the pod's restartPolicy is Never"
            out.append(error(here, "resources", message))
    return out


def _claim_findings(spec: dict[Any, Any], path: str) -> list[Finding]:
    """validatePodResourceClaim (a DNS-1123 label once, one of resourceClaimName and
    resourceClaimTemplateName, object names) and validateResourceClaimNames (a container's claims
    name the pod's, once)."""
    out, names = [], set()
    for i, claim in enumerate(as_list(spec.get("resourceClaims"))):
        if not isinstance(claim, dict):
            continue
        here = f"{path}.resourceClaims[{i}]"
        name = claim.get("name")
        if name == "":
            out.append(error(f"{here}.name", "required", "a resource claim needs a name"))
        elif isinstance(name, str):
            if name in names:
                out.append(error(f"{here}.name", "resources", f"resource claim {name!r} is listed twice"))
            elif not (len(name) <= 63 and DNS1123_LABEL.match(name)):
                message = f"resource claim name {name!r} is not a DNS-1123 label"
                out.append(error(f"{here}.name", "resources", message))
            names.add(name)
        sources = [k for k in ("resourceClaimName", "resourceClaimTemplateName") if claim.get(k) is not None]
        if len(sources) != 1:
            message = "a resource claim names exactly one of resourceClaimName and resourceClaimTemplateName"
            out.append(error(here, "resources", message))
        for field in sources:
            value = claim[field]
            if isinstance(value, str) and not (len(value) <= 253 and DNS1123_SUBDOMAIN.match(value)):
                message = f"{field} {value!r} is not an object name (DNS-1123 subdomain)"
                out.append(error(f"{here}.{field}", "resources", message))
    return out


def _container_claims(c: dict[Any, Any], here: str, group: str, ctx: PodContext) -> list[Finding]:
    """validateResourceClaimNames: a container's claims name the pod's resourceClaims, once."""
    claims = as_dict(c.get("resources")).get("claims")
    if not claims or not isinstance(claims, list) or not enforced(ctx.releases, since=RESOURCE_CLAIMS_SINCE):
        return []
    pod_claims = [as_dict(claim).get("name") for claim in as_list(ctx.spec.get("resourceClaims"))]
    names = {name for name in pod_claims if isinstance(name, str) and name}
    out, seen = [], set()
    for k, claim in enumerate(claims):
        name = as_dict(claim).get("name")
        where = f"{here}.resources.claims[{k}]"
        if not isinstance(name, str):
            continue
        key = f"{name}/{as_dict(claim).get('request') or ''}"
        if key in seen:
            out.append(error(where, "resources", f"resource claim {name!r} is used twice by this container"))
        seen.add(key)
        if name not in names:
            known = ", ".join(sorted(names)) or "none"
            message = f"resource claim {name!r} is not one of the pod's resourceClaims ({known})"
            out.append(error(where, "resources", message))
    return out


# the checks of this module, each with the fields it reads (pod_plan.py)
SPEC_CHECKS = (
    SpecCheck(("serviceAccount",), _service_account_alias),
    SpecCheck(("hostUsers",), _host_users),
    SpecCheck(("securityContext",), _supplemental_groups_policy),
    SpecCheck(("resourceClaims",), _claims),
    SpecCheck((), _proc_mount, container_fields=("securityContext",)),
    SpecCheck(("volumes",), _trust_bundles),
    SpecCheck(("securityContext",), _selinux_change_policy),
    SpecCheck(("hostnameOverride",), _hostname_override),
    SpecCheck(("resources",), _pod_resources),
    SpecCheck(("securityContext",), _pod_apparmor_length),
)
CONTAINER_CHECKS = (
    ContainerCheck(("initContainers", "containers"), ("resizePolicy",), _resize),
    ContainerCheck(("initContainers", "containers"), ("resources",), _container_claims),
    ContainerCheck(("initContainers", "containers"), ("restartPolicyRules",), _restart_rules),
    ContainerCheck(GROUPS, ("securityContext",), _container_apparmor_length),
)
