"""Owner `core`: the apiserver's validation of the core group's kinds beyond the pod, which the
OpenAPI schemas cannot express (k8s.io/kubernetes pkg/apis/core/validation/validation.go; the
function each rule ports is named beside it). Pods and pod templates are pod.py's."""

from __future__ import annotations

import base64
import binascii
import functools
import ipaddress
import json
import math
import posixpath
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from generator.core.findings import Finding, child
from generator.core.grammar import (
    DNS1123_LABEL,
    DNS1123_SUBDOMAIN,
    PROTOCOLS,
    config_key_problem,
    label_key_problem,
    label_value_problem,
    name_problem,
    parse_quantity,
    port_name_problem,
)
from generator.core.versions import KubeVersion
from generator.validate.rules.base import as_dict, as_int, as_list, enforced, error
from generator.validate.rules.meta import finalizer_findings
from generator.validate.rules.pod_volumes import azure_disk_findings
from generator.validate.rules.selector import node_field_findings, node_requirement_findings

# -- every core kind ------------------------------------------------------------------------------


def _finalizer_findings(obj: Any, path: str = "metadata.finalizers") -> list[Finding]:
    """ValidateObjectMeta (core/validation, v1.31.1) on the finalizers of a core kind (meta.py's
    finalizer_findings, which every object's metadata meets: the same findings, kept once)."""
    finalizers = as_dict(obj.get("metadata")).get("finalizers") if path == "metadata.finalizers" else obj
    return finalizer_findings(finalizers, path, core=True)


def serviceaccount_findings(obj: dict[Any, Any], releases: tuple[int, ...]) -> list[Finding]:
    """ValidateServiceAccount: the object's metadata (its name is rules/meta.py's)."""
    return _finalizer_findings(obj)


def namespace_findings(obj: dict[Any, Any], releases: tuple[int, ...]) -> list[Finding]:
    """ValidateNamespace: the metadata, and spec.finalizers (validateFinalizerName)."""
    out = _finalizer_findings(obj)
    finalizers = as_dict(obj.get("spec")).get("finalizers")
    if finalizers:
        out += _finalizer_findings(finalizers, "spec.finalizers")
    return out


# -- Service -------------------------------------------------------------------------------------


def service_findings(obj: dict[Any, Any], releases: tuple[int, ...]) -> list[Finding]:
    """ValidateService (v1.31.1) and validateServicePort: ports, names, target ports, node
    ports, and the combinations of type, clusterIP(s), externalName and the traffic fields, as
    SetDefaults_Service leaves the object (type ClusterIP, sessionAffinity None, protocol TCP)."""
    spec = as_dict(obj.get("spec"))
    given = spec.get("type")
    kind = given if isinstance(given, str) and given else "ClusterIP"
    cluster_ip = spec.get("clusterIP")
    ips = [cluster_ip, *as_list(spec.get("clusterIPs"))]
    headless = "None" in ips
    ports = as_list(spec.get("ports"))
    out = _finalizer_findings(obj)
    if kind not in SERVICE_TYPES:
        message = f"type {kind!r} is not one of {', '.join(SERVICE_TYPES)}"
        out.append(error("spec.type", "service", message))
    if not ports and not headless and kind != "ExternalName" and isinstance(obj.get("spec"), dict | None):
        message = f"a {kind} Service needs at least one port (only headless and ExternalName Services may have none)"
        out.append(error("spec.ports", "service", message))
    names: dict[str, int] = {}
    pairs: dict[tuple[int, str], int] = {}
    node_ports: dict[tuple[int, str], int] = {}
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
        if number == KUBELET_PORT and kind == "LoadBalancer":
            message = f"a LoadBalancer Service may not expose port {KUBELET_PORT} externally: the kubelet uses it"
            out.append(error(here, "service", message))
        app_protocol = port.get("appProtocol")
        if isinstance(app_protocol, str) and (problem := label_key_problem(app_protocol, "appProtocol")):
            out.append(error(f"{here}.appProtocol", "service", problem.replace(" key", "", 1)))
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
    if spec.get("externalIPs"):
        out += _external_ip_findings(as_list(spec["externalIPs"]))
    return out + _service_field_findings(obj, spec, kind, releases)


SERVICE_TYPES = ("ClusterIP", "NodePort", "LoadBalancer", "ExternalName")
KUBELET_PORT = 10250  # ports.KubeletPort
MAX_AFFINITY_SECONDS = 86400  # core.MaxClientIPServiceAffinitySeconds
TOPOLOGY_MODE, TOPOLOGY_HINTS = "service.kubernetes.io/topology-mode", "service.kubernetes.io/topology-aware-hints"
SOURCE_RANGES_ANNOTATION = "service.beta.kubernetes.io/load-balancer-source-ranges"
TRAFFIC_POLICIES = ("Cluster", "Local")
TRAFFIC_DISTRIBUTION_SINCE = 31  # ServiceTrafficDistribution: alpha 1.30 (the field dropped), beta (on) 1.31
PREFER_SAME_SINCE = 34  # PreferSameTrafficDistribution: PreferSameZone, PreferSameNode; beta (on) 1.34


def _service_field_findings(
    obj: dict[Any, Any], spec: dict[Any, Any], kind: str, releases: tuple[int, ...]
) -> list[Finding]:
    """The rest of ValidateService: the topology annotations, sessionAffinity, the fields only a
    LoadBalancer may have, the traffic policies and distribution."""
    out = []
    annotations = as_dict(as_dict(obj.get("metadata")).get("annotations"))
    mode = annotations.get(TOPOLOGY_MODE) if annotations else None
    if mode is not None and TOPOLOGY_HINTS in annotations and mode != annotations[TOPOLOGY_HINTS]:
        message = f"must match annotations[{TOPOLOGY_HINTS}] when both are set"
        out.append(error(child("metadata.annotations", TOPOLOGY_MODE), "service", message))
    affinity = spec.get("sessionAffinity")
    if isinstance(affinity, str) and affinity and affinity not in ("ClientIP", "None"):
        message = f"sessionAffinity {affinity!r} is not one of ClientIP, None"
        out.append(error("spec.sessionAffinity", "service", message))
    if affinity == "ClientIP":  # SetDefaults_Service fills a missing timeout (10800); None drops the config
        timeout = as_int(as_dict(as_dict(spec.get("sessionAffinityConfig")).get("clientIP")).get("timeoutSeconds"))
        if timeout is not None and not 0 < timeout <= MAX_AFFINITY_SECONDS:
            message = f"timeoutSeconds {timeout} must be greater than 0 and at most {MAX_AFFINITY_SECONDS}"
            out.append(error("spec.sessionAffinityConfig.clientIP.timeoutSeconds", "service", message))
    balancer = kind == "LoadBalancer"
    ranges = spec.get("loadBalancerSourceRanges")
    if isinstance(ranges, list) and ranges:
        if not balancer:
            out.append(error("spec.loadBalancerSourceRanges", "service", _ONLY_LB.format("loadBalancerSourceRanges")))
        for i, value in enumerate(ranges):
            if isinstance(value, str) and not _cidr_ok(value.strip()):
                message = f"{value!r} is not a CIDR (e.g. 192.168.0.0/16)"
                out.append(error(f"spec.loadBalancerSourceRanges[{i}]", "service", message))
    elif annotations and isinstance(annotations.get(SOURCE_RANGES_ANNOTATION), str):
        where = child("metadata.annotations", SOURCE_RANGES_ANNOTATION)
        if not balancer:
            out.append(error(where, "service", _ONLY_LB.format(f"the annotation {SOURCE_RANGES_ANNOTATION}")))
        value = annotations[SOURCE_RANGES_ANNOTATION].strip()
        bad = [v.strip() for v in value.split(",") if not _cidr_ok(v.strip())] if value else []
        if bad:
            out.append(error(where, "service", f"{bad[0]!r} is not a CIDR (e.g. 192.168.0.0/16)"))
    for field in ("allocateLoadBalancerNodePorts", "loadBalancerClass"):
        if spec.get(field) is not None and not balancer:
            out.append(error(f"spec.{field}", "service", _ONLY_LB.format(field)))
    lb_class = spec.get("loadBalancerClass")
    if balancer and isinstance(lb_class, str) and (problem := label_key_problem(lb_class, "loadBalancerClass")):
        out.append(error("spec.loadBalancerClass", "service", problem.replace(" key", "", 1)))
    out += _traffic_findings(spec, kind, releases)
    return out


_ONLY_LB = "{} may only be used when type is LoadBalancer"


def _traffic_findings(spec: dict[Any, Any], kind: str, releases: tuple[int, ...]) -> list[Finding]:
    """validateServiceExternalTrafficPolicy, validateServiceInternalTrafficFieldsValue,
    validateServiceTrafficDistribution (a missing policy is defaulted; a missing
    healthCheckNodePort is allocated before validation)."""
    out = []
    external = spec.get("externalTrafficPolicy")
    accessible = kind in ("LoadBalancer", "NodePort") or (kind == "ClusterIP" and bool(spec.get("externalIPs")))
    if isinstance(external, str) and external:
        if not accessible:
            message = (
                f"externalTrafficPolicy may only be set for externally-accessible Services "
                f"(NodePort, LoadBalancer, or with externalIPs), not this {kind} one"
            )
            out.append(error("spec.externalTrafficPolicy", "service", message))
        elif external not in TRAFFIC_POLICIES:
            message = f"externalTrafficPolicy {external!r} is not one of Cluster, Local"
            out.append(error("spec.externalTrafficPolicy", "service", message))
    health = as_int(spec.get("healthCheckNodePort"))
    if health:
        if kind != "LoadBalancer" or external != "Local":
            message = "healthCheckNodePort may only be set when type is LoadBalancer and externalTrafficPolicy is Local"
            out.append(error("spec.healthCheckNodePort", "service", message))
        elif not 1 <= health <= 65535:
            out.append(error("spec.healthCheckNodePort", "service", f"healthCheckNodePort {health} is not in 1-65535"))
    internal = spec.get("internalTrafficPolicy")
    if isinstance(internal, str) and internal not in TRAFFIC_POLICIES:
        message = f"internalTrafficPolicy {internal!r} is not one of Cluster, Local"
        out.append(error("spec.internalTrafficPolicy", "service", message))
    distribution = spec.get("trafficDistribution")
    if isinstance(distribution, str) and distribution != "PreferClose":
        later = distribution in ("PreferSameZone", "PreferSameNode")
        if enforced(releases, TRAFFIC_DISTRIBUTION_SINCE, PREFER_SAME_SINCE - 1) or (
            not later and enforced(releases, PREFER_SAME_SINCE)
        ):
            allowed = "PreferClose" + ("" if later else " (PreferSameZone, PreferSameNode from Kubernetes 1.34)")
            message = f"trafficDistribution {distribution!r} is not supported: use {allowed}"
            out.append(error("spec.trafficDistribution", "service", message))
    return out


MIXED_PROTOCOL_LB_SINCE = 24  # MixedProtocolLBService: alpha 1.20, beta (on) 1.24, GA 1.26


def _target_port_findings(target: Any, path: str) -> list[Finding]:
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


def _service_type_findings(
    spec: dict[Any, Any], kind: str, cluster_ip: Any, headless: bool, releases: tuple[int, ...]
) -> list[Finding]:
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
        for field in ("ipFamilies", "ipFamilyPolicy"):
            if spec.get(field) is not None and spec.get(field) != []:
                out.append(error(f"spec.{field}", "service", f"{field} may not be set for an ExternalName Service"))
        return out  # ValidateServiceClusterIPsRelatedFields returns at once for ExternalName
    if headless and kind in ("NodePort", "LoadBalancer"):
        message = f"clusterIP may not be None for a {kind} Service (headless Services are ClusterIP)"
        out.append(error("spec.clusterIP", "service", message))
    related = _cluster_ip_findings(spec, cluster_ip)  # initIPFamilyFields stops at these
    return out + (related or _single_stack_findings(spec, cluster_ip, releases))


IP_FAMILIES = ("IPv4", "IPv6")

DUAL_STACK_SINCE = 20  # ipFamilies, ipFamilyPolicy and clusterIPs: IPv6DualStack's API from 1.20


def _single_stack_findings(spec: dict[Any, Any], cluster_ip: Any, releases: tuple[int, ...]) -> list[Finding]:
    """The Service registry's initIPFamilyFields (pkg/registry/core/service/storage/alloc.go,
    v1.31.1) on create, once ValidateServiceClusterIPsRelatedFields passed: an unset
    ipFamilyPolicy becomes SingleStack (RequireDualStack for a headless Service without selector),
    and a SingleStack Service may have neither two clusterIPs nor two ipFamilies (field.Invalid at
    spec.ipFamilyPolicy)."""
    if not enforced(releases, DUAL_STACK_SINCE):
        return []
    policy = spec.get("ipFamilyPolicy")
    if policy is None:
        if cluster_ip == "None" and not as_dict(spec.get("selector")):
            return []  # defaulted to RequireDualStack
        policy = "SingleStack"
    if policy != "SingleStack":
        return []
    out = []
    named = "ipFamilyPolicy SingleStack" if spec.get("ipFamilyPolicy") else "ipFamilyPolicy (unset: SingleStack)"
    for field, what in (("clusterIPs", "cluster IPs"), ("ipFamilies", "IP families")):
        if len(as_list(spec.get(field))) == 2:
            message = (
                f"{named} must be RequireDualStack or PreferDualStack when multiple {what} are specified ({field})"
            )
            out.append(error("spec.ipFamilyPolicy", "service", message))
    return out


IP_FAMILY_POLICIES = ("SingleStack", "PreferDualStack", "RequireDualStack")


def _cluster_ip_findings(spec: dict[Any, Any], cluster_ip: Any) -> list[Finding]:
    """ValidateServiceClusterIPsRelatedFields (v1.31.1), after normalizeClusterIPs copied clusterIP
    into an empty clusterIPs (and back): the two agree, ipFamilies and ipFamilyPolicy are known
    values, clusterIPs are IPs ('None' first and alone), at most one of each family, each of the
    family ipFamilies names at its index."""
    out = []
    ips = spec.get("clusterIPs")
    ips = ips if isinstance(ips, list) else []
    if isinstance(cluster_ip, str) and cluster_ip and ips and ips[0] != cluster_ip:
        out.append(error("spec.clusterIPs", "service", f"clusterIPs[0] {ips[0]!r} must be clusterIP {cluster_ip!r}"))
    if not ips and isinstance(cluster_ip, str) and cluster_ip:
        ips = [cluster_ip]
    families = as_list(spec.get("ipFamilies"))
    seen = set()
    for i, family in enumerate(families):
        if not isinstance(family, str):
            continue  # the schema's finding
        if family not in IP_FAMILIES:
            out.append(error(f"spec.ipFamilies[{i}]", "service", f"ipFamily {family!r} is not one of IPv4, IPv6"))
        elif family in seen:
            out.append(error(f"spec.ipFamilies[{i}]", "service", f"ipFamily {family!r} is listed twice"))
        seen.add(family)
    policy = spec.get("ipFamilyPolicy")
    if isinstance(policy, str) and policy not in IP_FAMILY_POLICIES:
        message = f"ipFamilyPolicy {policy!r} is not one of {', '.join(IP_FAMILY_POLICIES)}"
        out.append(error("spec.ipFamilyPolicy", "service", message))
    if not ips:
        return out
    parsed: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = []  # the valid addresses, in order
    invalid = False
    for i, ip in enumerate(ips):
        if i == 0 and ip == "None":
            if len(ips) > 1:
                invalid = True
                out.append(error("spec.clusterIPs", "service", "'None' must be the first and only clusterIP"))
            continue
        address = _ip(ip)
        if address is None:
            invalid = True
            path = "spec.clusterIP" if i == 0 and spec.get("clusterIPs") in (None, []) else f"spec.clusterIPs[{i}]"
            out.append(error(path, "service", f"clusterIP {ip!r} must be an IP address, None or empty"))
        else:
            parsed.append(address)
    if len(ips) > 2:
        out.append(error("spec.clusterIPs", "service", f"clusterIPs holds {len(ips)} addresses: at most 2"))
    if invalid:
        return out
    if len(ips) > 1 and len({address.version for address in parsed}) < 2:  # netutils.IsDualStackIPStrings
        message = "clusterIPs may hold no more than one address of each IP family (one IPv4, one IPv6)"
        out.append(error("spec.clusterIPs", "service", message))
    if ips[0] != "None":
        for i, (address, family) in enumerate(zip(parsed, families, strict=False)):
            if family in IP_FAMILIES and address.version != (4 if family == "IPv4" else 6):
                message = f"clusterIPs[{i}] {ips[i]!r} is not an {family} address as ipFamilies[{i}] says"
                out.append(error(f"spec.clusterIPs[{i}]", "service", message))
    return out


def _ip(text: Any) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address netutils.ParseIPSloppy reads in ``text`` (an IPv4 part may have leading
    zeros, read as decimal), or None."""
    if not isinstance(text, str):
        return None
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    parts = text.split(".")
    if len(parts) == 4 and all(p.isdigit() and p.isascii() for p in parts):
        try:
            return ipaddress.ip_address(".".join(str(int(p)) for p in parts))
        except ValueError:
            return None
    return None


def _cidr_ok(text: str) -> bool:
    """netutils.ParseCIDRSloppy: ADDRESS/BITS, host bits allowed."""
    address, slash, bits = text.partition("/")
    ip = _ip(address)
    if not slash or ip is None or not bits.isdigit() or not bits.isascii():
        return False
    return int(bits) <= ip.max_prefixlen and (len(bits) == 1 or not bits.startswith("0"))


def _external_ip_findings(ips: list[Any]) -> list[Finding]:
    """ValidateService's externalIPs: IsValidIP, then ValidateNonSpecialIP (Go's net.IP
    predicates; an IPv4-mapped IPv6 address is its IPv4 address)."""
    out = []
    for i, text in enumerate(ips):
        if isinstance(text, str) and (problem := special_ip_problem(text)):
            out.append(error(f"spec.externalIPs[{i}]", "service", f"externalIP {text!r} {problem}"))
    return out


def special_ip_problem(text: str) -> str | None:
    """IsValidIP, then ValidateNonSpecialIP (validation.go): why ``text`` is no address an
    Endpoints or a Service's externalIPs may name, or None."""
    ip = _ip(text)
    if ip is not None and ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip is None:
        return "must be a valid IP address"
    if ip.is_unspecified:
        return "may not be unspecified"
    if ip.is_loopback:
        return "may not be in the loopback range (127.0.0.0/8, ::1/128)"
    if ip.is_link_local:
        return "may not be in the link-local range (169.254.0.0/16, fe80::/10)"
    if ip in _LINK_LOCAL_MULTICAST_V4 or (ip.version == 6 and ip.packed[0] == 0xFF and ip.packed[1] & 0x0F == 2):
        return "may not be in the link-local multicast range (224.0.0.0/24, ff02::/16)"
    return None


_LINK_LOCAL_MULTICAST_V4 = ipaddress.ip_network("224.0.0.0/24")


# -- ConfigMap and Secret ------------------------------------------------------------------------

MAX_DATA_SIZE = 1024 * 1024  # core.MaxSecretSize, also the ConfigMap limit


def _key_findings(data: Any, path: str, rule: str) -> list[Finding]:
    return [error(child(path, k), rule, p) for k in as_dict(data) if (p := config_key_problem(k))]


def configmap_findings(obj: dict[Any, Any], releases: tuple[int, ...]) -> list[Finding]:
    """ValidateConfigMap: keys, a key in both data and binaryData, the 1 MiB limit."""
    data, binary = as_dict(obj.get("data")), as_dict(obj.get("binaryData"))
    out = _finalizer_findings(obj)
    out += _key_findings(data, "data", "configmap") + _key_findings(binary, "binaryData", "configmap")
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


def _base64(value: Any) -> bytes | None:
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


def secret_findings(obj: dict[Any, Any], releases: tuple[int, ...]) -> list[Finding]:
    """ValidateSecret: keys (of data and stringData, which is merged into data), data in base64,
    what each type needs, the 1 MiB limit."""
    data, strings = as_dict(obj.get("data")), as_dict(obj.get("stringData"))
    out = _finalizer_findings(obj)
    out += _key_findings(data, "data", "secret") + _key_findings(strings, "stringData", "secret")
    decoded: dict[Any, bytes] = {}  # keyed as the document has them: a key may be no string
    for key, value in data.items():
        raw = _base64(value)
        if raw is None and isinstance(value, str):
            out.append(error(child("data", key), "secret", _BASE64_MESSAGE))
        decoded[key] = raw or b""
    decoded.update({k: str(v).encode() for k, v in strings.items() if v is not None})
    declared = obj.get("type")
    kind = declared if isinstance(declared, str) else None
    for key in _SECRET_KEYS.get(kind, ()) if kind is not None else ():
        if key not in decoded or (kind == "kubernetes.io/ssh-auth" and not decoded[key]):
            message = f"a {kind} Secret needs the key {key!r} in data or stringData"
            # ValidateSecret: field.Required(dataPath.Key(key)), where upstream's error names it
            out.append(error(child("data", key), "secret", message + (" (not empty)" if key in decoded else "")))
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


def _access_mode_findings(modes: Any, path: str, rule: str, releases: tuple[int, ...]) -> list[Finding]:
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
    others = [m for m in as_list(modes) if m in ACCESS_MODES]  # supported modes besides ReadWriteOncePod
    if "ReadWriteOncePod" in as_list(modes) and others:
        out.append(error(path, rule, "ReadWriteOncePod may not be combined with other access modes"))
    return out


def pvc_spec_findings(spec: Any, path: str, releases: tuple[int, ...]) -> list[Finding]:
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
    attributes = spec.get("volumeAttributesClassName")
    vac = isinstance(attributes, str) and attributes and enforced(releases, VOLUME_ATTRIBUTES_CLASS_SINCE)
    if vac and (problem := name_problem(attributes, DNS1123_SUBDOMAIN, 253, "volumeAttributesClassName")):
        out.append(error(f"{path}.volumeAttributesClassName", "persistent-volume-claim", problem))
    return out + _pvc_source_findings(spec, path)


VOLUME_MODES = ("Block", "Filesystem")


def _pvc_source_findings(spec: dict[Any, Any], path: str) -> list[Finding]:
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


def pvc_findings(obj: dict[Any, Any], releases: tuple[int, ...]) -> list[Finding]:
    """ValidatePersistentVolumeClaim (ValidatePersistentVolumeClaimSpec)."""
    return _finalizer_findings(obj) + pvc_spec_findings(obj.get("spec"), "spec", releases)


# The volume sources of a PersistentVolumeSpec (core/types.go PersistentVolumeSource), in the
# order ValidatePersistentVolumeSpec takes them: the first is validated, each later one refused
# ("may not specify more than 1 volume type"), except flexVolume, which is always validated and
# never refused.
PV_SOURCES = (
    "hostPath", "gcePersistentDisk", "awsElasticBlockStore", "glusterfs", "flocker", "nfs", "rbd", "quobyte",
    "cephfs", "iscsi", "cinder", "fc", "flexVolume", "azureFile", "vsphereVolume", "photonPersistentDisk",
    "portworxVolume", "azureDisk", "scaleIO", "local", "storageos", "csi",
)  # fmt: skip

RECLAIM_POLICIES = ("Retain", "Delete", "Recycle")
VOLUME_ATTRIBUTES_CLASS_SINCE = 34  # VolumeAttributesClass: beta (off) 1.29-1.33, the field dropped; GA 1.34


def pv_findings(obj: dict[Any, Any], releases: tuple[int, ...]) -> list[Finding]:
    """ValidatePersistentVolume / ValidatePersistentVolumeSpec (v1.31.1): access modes, a
    storage capacity and nothing else, one volume source and its fields, node affinity (a local
    volume's required), the reclaim policy, the class names, volumeMode."""
    spec = as_dict(obj.get("spec"))
    rule = "persistent-volume"
    out = _finalizer_findings(obj)
    out += _access_mode_findings(spec.get("accessModes"), "spec.accessModes", rule, releases)
    capacity = as_dict(spec.get("capacity"))
    if not capacity:
        out.append(error("spec.capacity", rule, "capacity.storage is required (e.g. 10Gi)"))
    for key, value in capacity.items():
        if key != "storage":
            message = f"capacity {key!r} is not supported: a PersistentVolume's capacity is storage only"
            out.append(error(child("spec.capacity", key), rule, message))
        if (number := parse_quantity(value)) is not None and number <= 0:
            message = f"{key} {value!r} must be greater than zero"
            out.append(error(child("spec.capacity", key), rule, message))
    affinity = spec.get("nodeAffinity")
    if isinstance(affinity, dict):
        out += _volume_node_affinity_findings(affinity, "spec.nodeAffinity")
    sources = [s for s in PV_SOURCES if spec.get(s) is not None]
    if not sources:
        message = f"a PersistentVolume needs a volume source ({', '.join(PV_SOURCES[:6])}, csi, ...)"
        out.append(error("spec", rule, message))
    counted, local = 0, False
    for source in sources:
        if counted and source != "flexVolume":
            message = f"a PersistentVolume has one volume source, found {', '.join(sources)}"
            out.append(error(f"spec.{source}", rule, message))
            continue
        counted += 1
        local = local or source == "local"
        if isinstance(spec[source], dict) and source in _PV_SOURCE_CHECKS:
            out += _PV_SOURCE_CHECKS[source](spec[source], f"spec.{source}", obj)
    if local and not isinstance(affinity, dict):
        out.append(error("spec.nodeAffinity", rule, "a local PersistentVolume needs nodeAffinity"))
    policy = spec.get("persistentVolumeReclaimPolicy")
    if isinstance(policy, str) and policy and policy not in RECLAIM_POLICIES:
        message = f"persistentVolumeReclaimPolicy {policy!r} is not one of {', '.join(RECLAIM_POLICIES)}"
        out.append(error("spec.persistentVolumeReclaimPolicy", rule, message))
    host_path = as_dict(spec.get("hostPath")).get("path")
    if policy == "Recycle" and isinstance(host_path, str) and posixpath.normpath(host_path or ".") in ("/", "//"):
        message = "persistentVolumeReclaimPolicy may not be Recycle for a hostPath volume of '/'"
        out.append(error("spec.persistentVolumeReclaimPolicy", rule, message))
    class_name = spec.get("storageClassName")
    if isinstance(class_name, str) and class_name:
        problem = name_problem(class_name, DNS1123_SUBDOMAIN, 253, "storageClassName (DNS-1123 subdomain)")
        if problem:
            out.append(error("spec.storageClassName", rule, problem))
    mode = spec.get("volumeMode")
    if isinstance(mode, str) and mode not in VOLUME_MODES:
        out.append(error("spec.volumeMode", rule, f"volumeMode {mode!r} is not one of Block, Filesystem"))
    attributes = spec.get("volumeAttributesClassName")
    if isinstance(attributes, str) and enforced(releases, VOLUME_ATTRIBUTES_CLASS_SINCE):
        if not attributes:
            out.append(error("spec.volumeAttributesClassName", "required", "volumeAttributesClassName may not be ''"))
        elif problem := name_problem(attributes, DNS1123_SUBDOMAIN, 253, "volumeAttributesClassName"):
            out.append(error("spec.volumeAttributesClassName", rule, problem))
        if spec.get("csi") is None:
            message = "volumeAttributesClassName needs a csi volume source"
            out.append(error("spec.csi", rule, message))
    return out


def _volume_node_affinity_findings(affinity: dict[Any, Any], path: str) -> list[Finding]:
    """validateVolumeNodeAffinity and ValidateNodeSelector (v1.31.1): required with at least
    one term; each requirement's operator and values (ValidateNodeSelectorRequirement) and
    each field requirement on metadata.name (ValidateNodeFieldSelectorRequirement)."""
    required = affinity.get("required")
    if not isinstance(required, dict):
        return [error(f"{path}.required", "required", "nodeAffinity needs required (the nodes that can use it)")]
    here = f"{path}.required.nodeSelectorTerms"
    terms = required.get("nodeSelectorTerms")
    if isinstance(terms, list) and not terms:  # absent: the schema's required
        return [error(here, "persistent-volume", "nodeAffinity.required needs at least one node selector term")]
    out = []
    for i, term in enumerate(as_list(terms)):
        term = as_dict(term)
        for j, req in enumerate(as_list(term.get("matchExpressions"))):
            if isinstance(req, dict):
                out += node_requirement_findings(req, f"{here}[{i}].matchExpressions[{j}]", "persistent-volume")
        for j, req in enumerate(as_list(term.get("matchFields"))):
            if isinstance(req, dict):
                out += node_field_findings(req, f"{here}[{i}].matchFields[{j}]", "persistent-volume")
    return out


# -- the PersistentVolume sources (validate<Source>[Persistent]VolumeSource, v1.31.1) --


def _empty(source: dict[Any, Any], fields: tuple[str, ...], path: str, missing_too: bool = False) -> list[Finding]:
    """Fields the apiserver requires non-empty: given as "" (a missing one is the schema's
    required, or here too with ``missing_too`` where the schema does not require it)."""
    return [
        error(f"{path}.{f}", "required", f"{f} is required and may not be empty")
        for f in fields
        if source.get(f) == "" or (missing_too and source.get(f) is None)
    ]


def _pv_path_findings(source: dict[Any, Any], path: str, obj: dict[Any, Any]) -> list[Finding]:
    """validateHostPathVolumeSource, validateLocalVolumeSource: a path without '..'
    (validatePathNoBacksteps); a hostPath type of the known ones (validateHostPathType)."""
    value = source.get("path")
    if value == "":
        return _empty(source, ("path",), path)
    out = []
    if isinstance(value, str) and ".." in value.split("/"):
        out.append(error(f"{path}.path", "persistent-volume", f"path {value!r} must not contain '..'"))
    kind = source.get("type")
    if path == "spec.hostPath" and isinstance(kind, str) and kind not in HOST_PATH_TYPES:
        message = f"hostPath type {kind!r} is not one of {', '.join(t or repr(t) for t in HOST_PATH_TYPES)}"
        out.append(error(f"{path}.type", "persistent-volume", message))
    return out


HOST_PATH_TYPES = ("", "DirectoryOrCreate", "Directory", "FileOrCreate", "File", "Socket", "CharDevice", "BlockDevice")


def _partition(source: dict[Any, Any], path: str, field: str) -> list[Finding]:
    out = _empty(source, (field,), path)
    partition = as_int(source.get("partition"))
    if partition is not None and not 0 <= partition <= 255:
        message = f"partition {partition} must be between 1 and 255 (0: the whole disk)"
        out.append(error(f"{path}.partition", "persistent-volume", message))
    return out


def _nfs(source: dict[Any, Any], path: str, obj: dict[Any, Any]) -> list[Finding]:
    out = _empty(source, ("server", "path"), path)
    value = source.get("path")
    if isinstance(value, str) and value and not value.startswith("/"):
        out.append(error(f"{path}.path", "persistent-volume", f"nfs path {value!r} must be an absolute path"))
    return out


_IQN = re.compile(r"iqn\.\d{4}-\d{2}\.([A-Za-z0-9\-.]+)(:[^,;*&$|\s]+)$")  # iscsiInitiatorIqnRegex, unanchored
_EUI = re.compile(r"^eui.[A-Za-z0-9]{16}$")
_NAA = re.compile(r"^naa.[A-Za-z0-9]{32}$")


def _iscsi_name_problem(value: str, what: str) -> str | None:
    if not value.startswith(("iqn", "eui", "naa")):
        return f"{what} {value!r} must start with iqn, eui or naa"
    if not {"iqn": _IQN, "eui": _EUI, "naa": _NAA}[value[:3]].search(value):
        return f"{what} {value!r} is not a valid {value[:3]} name (e.g. iqn.2001-04.com.example:storage)"
    return None


def _iscsi(source: dict[Any, Any], path: str, obj: dict[Any, Any]) -> list[Finding]:
    """validateISCSIPersistentVolumeSource."""
    rule = "persistent-volume"
    out = _empty(source, ("targetPortal", "iqn"), path)
    portal, initiator = source.get("targetPortal") or "", source.get("initiatorName")
    joined = f"{as_dict(obj.get('metadata')).get('name') or ''}:{portal}"
    if initiator is not None and isinstance(portal, str) and len(joined) > 64:
        message = f"with initiatorName, NAME:targetPortal ({joined!r}) must be at most 64 characters"
        out.append(error(f"{path}.targetPortal", rule, message))
    iqn = source.get("iqn")
    if isinstance(iqn, str) and iqn and (problem := _iscsi_name_problem(iqn, "iqn")):
        out.append(error(f"{path}.iqn", rule, problem))
    lun = as_int(source.get("lun"))
    if lun is not None and not 0 <= lun <= 255:
        out.append(error(f"{path}.lun", rule, f"lun {lun} must be between 0 and 255"))
    secret = source.get("secretRef")
    if (source.get("chapAuthDiscovery") is True or source.get("chapAuthSession") is True) and secret is None:
        out.append(error(f"{path}.secretRef", rule, "CHAP authentication needs secretRef"))
    if isinstance(secret, dict):
        out += _empty(secret, ("name",), f"{path}.secretRef", missing_too=True)
    if isinstance(initiator, str) and (problem := _iscsi_name_problem(initiator, "initiatorName")):
        out.append(error(f"{path}.initiatorName", rule, problem))
    return out


def _cinder(source: dict[Any, Any], path: str, obj: dict[Any, Any]) -> list[Finding]:
    out = _empty(source, ("volumeID",), path)
    secret = source.get("secretRef")
    if isinstance(secret, dict):
        out += _empty(secret, ("name", "namespace"), f"{path}.secretRef", missing_too=True)
    return out


def _fc(source: dict[Any, Any], path: str, obj: dict[Any, Any]) -> list[Finding]:
    """validateFCVolumeSource: targetWWNs (with a lun 0-255) or wwids, not both."""
    rule = "persistent-volume"
    wwns, wwids = as_list(source.get("targetWWNs")), as_list(source.get("wwids"))
    if not wwns and not wwids:
        return [error(f"{path}.targetWWNs", rule, "an fc volume needs targetWWNs (with lun) or wwids")]
    out = []
    if wwns and wwids:
        out.append(error(f"{path}.targetWWNs", rule, "targetWWNs and wwids are exclusive: keep one"))
    if wwns:
        lun = source.get("lun")
        if lun is None:
            out.append(error(f"{path}.lun", rule, "targetWWNs needs a lun"))
        elif as_int(lun) is not None and not 0 <= lun <= 255:
            out.append(error(f"{path}.lun", rule, f"lun {lun} must be between 0 and 255"))
    return out


def _flex(source: dict[Any, Any], path: str, obj: dict[Any, Any]) -> list[Finding]:
    out = _empty(source, ("driver",), path)
    for key in as_dict(source.get("options")):
        namespace = str(key).split("/", 1)[0]
        if ("." + namespace.lower()).endswith((".kubernetes.io", ".k8s.io")):
            message = f"flexVolume option {key!r}: the kubernetes.io and k8s.io prefixes are reserved"
            out.append(error(child(f"{path}.options", str(key)), "persistent-volume", message))
    return out


def _azure_file(source: dict[Any, Any], path: str, obj: dict[Any, Any]) -> list[Finding]:
    return _empty(source, ("secretName", "shareName", "secretNamespace"), path)


def _azure_disk(source: dict[Any, Any], path: str, obj: dict[Any, Any]) -> list[Finding]:
    """validateAzureDisk, as for a pod's volume (pod_volumes.py)."""
    return _empty(source, ("diskName", "diskURI"), path) + azure_disk_findings(source, path, "persistent-volume")


def _csi(source: dict[Any, Any], path: str, obj: dict[Any, Any]) -> list[Finding]:
    """validateCSIPersistentVolumeSource: ValidateCSIDriverName, volumeHandle, and each secret
    reference with a Secret name and a namespace (validatePVSecretReference)."""
    rule = "persistent-volume"
    out = _empty(source, ("driver", "volumeHandle"), path)
    driver = source.get("driver")
    if isinstance(driver, str) and driver:
        if len(driver) > 63:
            out.append(
                error(f"{path}.driver", rule, f"CSI driver name {driver!r} is {len(driver)} characters: at most 63")
            )
        elif not (len(driver) <= 253 and DNS1123_SUBDOMAIN.match(driver.lower())):
            message = f"CSI driver name {driver!r} must be a DNS-1123 subdomain (e.g. ebs.csi.aws.com)"
            out.append(error(f"{path}.driver", rule, message))
    for field in (
        "controllerPublishSecretRef",
        "controllerExpandSecretRef",
        "nodePublishSecretRef",
        "nodeExpandSecretRef",
    ):
        secret = source.get(field)
        if not isinstance(secret, dict):
            continue
        here = f"{path}.{field}"
        out += _empty(secret, ("name", "namespace"), here, missing_too=True)
        name, namespace = secret.get("name"), secret.get("namespace")
        if isinstance(name, str) and name and (problem := name_problem(name, DNS1123_SUBDOMAIN, 253, "Secret name")):
            out.append(error(f"{here}.name", rule, problem))
        if (
            isinstance(namespace, str)
            and namespace
            and (problem := name_problem(namespace, DNS1123_LABEL, 63, "namespace"))
        ):
            out.append(error(f"{here}.namespace", rule, problem))
    return out


PVSourceCheck = Callable[[dict[Any, Any], str, dict[Any, Any]], list[Finding]]

_PV_SOURCE_CHECKS: dict[str, PVSourceCheck] = {
    "hostPath": _pv_path_findings,
    "local": _pv_path_findings,
    "gcePersistentDisk": lambda source, path, obj: _partition(source, path, "pdName"),
    "awsElasticBlockStore": lambda source, path, obj: _partition(source, path, "volumeID"),
    "nfs": _nfs,
    "iscsi": _iscsi,
    "cinder": _cinder,
    "fc": _fc,
    "flexVolume": _flex,
    "azureFile": _azure_file,
    "vsphereVolume": lambda source, path, obj: _empty(source, ("volumePath",), path),
    "portworxVolume": lambda source, path, obj: _empty(source, ("volumeID",), path),
    "azureDisk": _azure_disk,
    "csi": _csi,
}  # the in-tree plugins no kubelet has (glusterfs, rbd, cephfs, ...): rules/volumes.py's volume-plugin


# -- ResourceQuota and LimitRange ----------------------------------------------------------------

# helper.IsStandardQuotaResourceName: the names a quota may use without a domain.
QUOTA_RESOURCES = frozenset({
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.storage",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods",
    "resourcequotas", "services", "replicationcontrollers", "secrets", "persistentvolumeclaims",
    "configmaps", "services.nodeports", "services.loadbalancers",
})  # fmt: skip


# helper.IsStandardResourceName: a resource name without a domain anywhere (also storage)
STANDARD_RESOURCES = QUOTA_RESOURCES | {"storage"}
CONTAINER_RESOURCES = ("cpu", "memory", "ephemeral-storage")  # helper.IsStandardContainerResourceName, + hugepages-
INTEGER_RESOURCES = frozenset({
    "pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
    "persistentvolumeclaims", "services.nodeports", "services.loadbalancers",
})  # fmt: skip


def _native(name: str) -> bool:
    """helper.IsNativeResource: no domain, or one under kubernetes.io/."""
    return "/" not in name or "kubernetes.io/" in name


def _extended(name: str) -> bool:
    """helper.IsExtendedResourceName."""
    return not _native(name) and not name.startswith("requests.") and label_key_problem("requests." + name) is None


@functools.lru_cache(maxsize=1024)  # resource names repeat across documents (cpu, memory, nvidia.com/gpu)
def resource_name_problem(name: str, container: bool = False) -> str | None:
    """validateResourceName (a qualified name; without a domain, a standard resource) and, for a
    container's resources (a pod's, a Pod or Container limit, an HPA's container metric),
    validateContainerResourceName: cpu, memory, ephemeral-storage, hugepages-<size>, or an
    extended resource (DOMAIN/NAME, the name not starting with 'requests.')."""
    if problem := label_key_problem(name, "resource"):
        return problem.replace(" key", "", 1)
    if container and "/" not in name and name not in CONTAINER_RESOURCES and not name.startswith("hugepages-"):
        return (
            f"{name!r} is not a container resource: use cpu, memory, ephemeral-storage, hugepages-<size>, "
            "or an extended resource with its domain (nvidia.com/gpu)"
        )
    hugepages = name.startswith(("hugepages-", "requests.hugepages-"))  # helper.IsQuotaHugePageResourceName
    if "/" not in name and name not in STANDARD_RESOURCES and not hugepages:
        return f"{name!r} is not a standard resource type (cpu, memory, storage, ...) nor fully qualified"
    if container and not _native(name) and not _extended(name):
        return f"{name!r} does not follow the extended resource name standard (DOMAIN/NAME)"
    return None


def _integer_problem(name: str, value: Decimal) -> str | None:
    """ValidateResourceQuantityValue: an integer resource (helper.IsIntegerResourceName) takes a
    whole number, after SetDefaults_ResourceList rounds the quantity up to thousandths."""
    if (name in INTEGER_RESOURCES or _extended(name)) and math.ceil(value * 1000) % 1000:
        return f"{name} must be a whole number"
    return None


def resource_quota_findings(obj: dict[Any, Any], releases: tuple[int, ...]) -> list[Finding]:
    """ValidateResourceQuota (v1.31.1; the status is reset on create): each hard limit names a
    quota resource (ValidateResourceQuotaResourceName) and is a quantity of at least 0, whole for
    an integer resource (ValidateResourceQuantityValue); the scopes and the scope selector."""
    spec = as_dict(obj.get("spec"))
    out = _finalizer_findings(obj)
    hard = as_dict(spec.get("hard"))
    for name, value in hard.items():
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
        elif number is not None and (problem := _integer_problem(name, number)):
            out.append(error(here, "resource-quota", f"{problem}, got {value!r}"))
    scopes = spec.get("scopes")
    if isinstance(scopes, list) and scopes:
        out += _scope_findings(scopes, hard, "spec.scopes", releases)
    selector = spec.get("scopeSelector")
    if isinstance(selector, dict):
        out += _scope_selector_findings(as_list(selector.get("matchExpressions")), hard, releases)
    return out


# helper.IsStandardResourceQuotaScope (v1.31.1)
QUOTA_SCOPES = (
    "Terminating",
    "NotTerminating",
    "BestEffort",
    "NotBestEffort",
    "PriorityClass",
    "CrossNamespacePodAffinity",
)
VAC_SCOPE_SINCE = 33  # the VolumeAttributesClass scope of later releases: accepted from 1.33, not refused there
# helper.IsResourceQuotaScopeValidForResource: the standard quota resources each scope may limit
_POD_COUNT_COMPUTE = frozenset(
    {"pods", "cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"}
)
_SCOPE_RESOURCES = {
    "Terminating": _POD_COUNT_COMPUTE,
    "NotTerminating": _POD_COUNT_COMPUTE,
    "NotBestEffort": _POD_COUNT_COMPUTE,
    "PriorityClass": _POD_COUNT_COMPUTE,
    "CrossNamespacePodAffinity": _POD_COUNT_COMPUTE,
    "BestEffort": frozenset({"pods"}),
}
_CONFLICTING_SCOPES = (("BestEffort", "NotBestEffort"), ("Terminating", "NotTerminating"))


def _scope_problems(scope: Any, hard: dict[Any, Any], releases: tuple[int, ...]) -> list[str]:
    """What validateResourceQuotaScopes says of one scope: unsupported, or applied to a standard
    quota resource it cannot limit."""
    if not isinstance(scope, str):
        return []
    if scope not in QUOTA_SCOPES:
        if scope == "VolumeAttributesClass" and not enforced(releases, until=VAC_SCOPE_SINCE - 1):
            return []
        return [f"scope {scope!r} is not one of {', '.join(QUOTA_SCOPES)}"]
    allowed = _SCOPE_RESOURCES[scope]
    bad = sorted(
        k
        for k in hard
        if isinstance(k, str)
        and k not in allowed
        and (k in QUOTA_RESOURCES or k.startswith(("hugepages-", "requests.hugepages-")))
    )
    if bad:
        return [f"scope {scope!r} cannot apply to {', '.join(bad)} (it limits {', '.join(sorted(allowed))})"]
    return []


def _conflicts(names: set[str]) -> list[str]:
    return [f"scopes {a} and {b} conflict: keep one" for a, b in _CONFLICTING_SCOPES if a in names and b in names]


def _scope_findings(scopes: list[Any], hard: dict[Any, Any], path: str, releases: tuple[int, ...]) -> list[Finding]:
    out = [error(path, "resource-quota", p) for scope in scopes for p in _scope_problems(scope, hard, releases)]
    return out + [error(path, "resource-quota", p) for p in _conflicts(set(filter(_is_str, scopes)))]


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


SCOPE_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
_EXISTS_ONLY = ("BestEffort", "NotBestEffort", "Terminating", "NotTerminating", "CrossNamespacePodAffinity")


def _scope_selector_findings(expressions: list[Any], hard: dict[Any, Any], releases: tuple[int, ...]) -> list[Finding]:
    """validateScopedResourceSelectorRequirement."""
    out, names = [], set()
    base = "spec.scopeSelector.matchExpressions"
    for i, req in enumerate(expressions):
        if not isinstance(req, dict):
            continue
        here = f"{base}[{i}]"
        scope, operator, values = req.get("scopeName"), req.get("operator"), as_list(req.get("values"))
        for problem in _scope_problems(scope, hard, releases):
            out.append(error(f"{here}.scopeName", "resource-quota", problem))
        if scope in _EXISTS_ONLY and isinstance(operator, str) and operator != "Exists":
            message = f"operator must be 'Exists' when scopeName is {scope}, got {operator!r}"
            out.append(error(f"{here}.operator", "resource-quota", message))
        if operator in ("In", "NotIn") and not values:
            out.append(error(f"{here}.values", "resource-quota", f"operator {operator!r} needs at least one value"))
        elif operator in ("Exists", "DoesNotExist") and values:
            out.append(error(f"{here}.values", "resource-quota", f"operator {operator!r} takes no values"))
        elif isinstance(operator, str) and operator not in SCOPE_OPERATORS:
            message = f"operator {operator!r} is not one of {', '.join(SCOPE_OPERATORS)}"
            out.append(error(f"{here}.operator", "resource-quota", message))
        if isinstance(scope, str):
            names.add(scope)
    return out + [error(base, "resource-quota", p) for p in _conflicts(names)]


LIMIT_TYPES = ("Pod", "Container", "PersistentVolumeClaim")
_LIMIT_SECTIONS = ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio")


def limit_range_findings(obj: dict[Any, Any], releases: tuple[int, ...]) -> list[Finding]:
    """ValidateLimitRange (v1.31.1), on the limits as SetDefaults_LimitRangeItem leaves a
    Container's (default from max, defaultRequest from default, then min): the type, once
    each; the resource names; no defaults for type Pod; a storage bound for type
    PersistentVolumeClaim; min <= defaultRequest <= default <= max; ratios >= 1 and <= max/min;
    default = defaultRequest where no overcommit is allowed."""
    out = _finalizer_findings(obj)
    types: set[str] = set()
    for i, item in enumerate(as_list(as_dict(obj.get("spec")).get("limits"))):
        item = as_dict(item)
        here = f"spec.limits[{i}]"
        kind = item.get("type")
        if isinstance(kind, str):
            if problem := label_key_problem(kind, "type"):
                out.append(error(f"{here}.type", "limit-range", problem.replace(" key", "", 1)))
            elif "/" not in kind and kind not in LIMIT_TYPES:
                message = f"type {kind!r} is not one of {', '.join(LIMIT_TYPES)} (nor a qualified DOMAIN/NAME)"
                out.append(error(f"{here}.type", "limit-range", message))
            if kind in types:
                out.append(error(f"{here}.type", "limit-range", f"type {kind!r} has two limits; merge them"))
            types.add(kind)
        container = kind in ("Pod", "Container")
        values: dict[str, dict[Any, tuple[Decimal, Any]]] = {}  # section -> name -> (number, text)
        for section in _LIMIT_SECTIONS:
            given = item.get(section)
            if not isinstance(given, dict) or not given:
                continue
            if kind == "Pod" and section in ("default", "defaultRequest"):
                message = f"{section} may not be set when type is Pod (defaults apply to containers)"
                out.append(error(f"{here}.{section}", "limit-range", message))
                continue
            for name, text in given.items():
                if isinstance(name, str) and (problem := resource_name_problem(name, container)):
                    out.append(error(child(f"{here}.{section}", name), "limit-range", problem))
                number = parse_quantity(text)  # a value that is no quantity: the schema's finding
                if number is not None:
                    values.setdefault(section, {})[name] = (number, text)
        if kind == "Container":  # SetDefaults_LimitRangeItem
            for target, source in (("default", "max"), ("defaultRequest", "default"), ("defaultRequest", "min")):
                for name, pair in values.get(source, {}).items():
                    values.setdefault(target, {}).setdefault(name, (pair[0], f"{pair[1]}, defaulted from {source}"))
        if kind == "PersistentVolumeClaim" and not any("storage" in as_dict(item.get(s)) for s in ("min", "max")):
            message = "a PersistentVolumeClaim limit needs min.storage or max.storage"
            out.append(error(here, "limit-range", message))
        out += _limit_order_findings(values, here)
    return out


# (lower section, upper section, the section whose path the apiserver names), as ValidateLimitRange checks them
_ORDER = (
    ("min", "max", "min"),
    ("min", "defaultRequest", "defaultRequest"),
    ("defaultRequest", "max", "defaultRequest"),
    ("defaultRequest", "default", "defaultRequest"),
    ("min", "default", "default"),
    ("default", "max", "default"),
)


def _limit_order_findings(values: dict[str, dict[Any, tuple[Decimal, Any]]], here: str) -> list[Finding]:
    out = []
    for low, high, at in _ORDER:
        for name, (number, text) in values.get(low, {}).items():
            if name in values.get(high, {}) and number > values[high][name][0]:
                message = f"{low} {name} {text!r} is greater than {high} {values[high][name][1]!r}"
                out.append(error(child(f"{here}.{at}", name), "limit-range", message))
    minimum, maximum = values.get("min", {}), values.get("max", {})
    for name, (number, text) in values.get("maxLimitRequestRatio", {}).items():
        where = child(f"{here}.maxLimitRequestRatio", name)
        if number < 1:
            out.append(error(where, "limit-range", f"maxLimitRequestRatio {name} {text!r} is less than 1"))
        if (
            name in minimum
            and name in maximum
            and minimum[name][0] > 0
            and number > maximum[name][0] / minimum[name][0]
        ):
            ratio = f"{maximum[name][1]}/{minimum[name][1]}"
            message = f"maxLimitRequestRatio {name} {text!r} is greater than max/min ({ratio})"
            out.append(error(where, "limit-range", message))
    defaults, requests = values.get("default", {}), values.get("defaultRequest", {})
    for name, (number, text) in defaults.items():
        overcommit = isinstance(name, str) and _native(name) and not name.startswith("hugepages-")
        if not overcommit and name in requests and requests[name][0] != number:
            message = (
                f"{name} may not be overcommitted: default {text!r} must equal defaultRequest {requests[name][1]!r}"
            )
            out.append(error(child(f"{here}.defaultRequest", name), "limit-range", message))
    return out


# -- Endpoints -----------------------------------------------------------------------------------


def endpoints_findings(obj: dict[Any, Any], releases: tuple[int, ...]) -> list[Finding]:
    """ValidateEndpointsCreate (v1.31.1): each subset has addresses or notReadyAddresses
    (validateEndpointSubsets); an address's ip (IsValidIP, ValidateNonSpecialIP), hostname
    (DNS-1123 label) and nodeName (ValidateNodeName); a port's name (required where the subset
    has more than one port), number, protocol (SetDefaults_EndpointPort: TCP) and appProtocol."""
    out = _finalizer_findings(obj)
    for i, subset in enumerate(as_list(obj.get("subsets"))):
        if not isinstance(subset, dict):
            continue
        here = f"subsets[{i}]"
        if not subset.get("addresses") and not subset.get("notReadyAddresses"):
            out.append(error(here, "endpoints", "a subset must specify `addresses` or `notReadyAddresses`"))
        for field in ("addresses", "notReadyAddresses"):
            for j, address in enumerate(as_list(subset.get(field))):
                if isinstance(address, dict):
                    out += _endpoint_address_findings(address, f"{here}.{field}[{j}]")
        ports = as_list(subset.get("ports"))
        for j, port in enumerate(ports):
            if isinstance(port, dict):
                out += _endpoint_port_findings(port, len(ports) > 1, f"{here}.ports[{j}]")
    return out


def _endpoint_address_findings(address: dict[Any, Any], here: str) -> list[Finding]:
    out = []
    ip = address.get("ip")
    if isinstance(ip, str) and (problem := special_ip_problem(ip)):
        out.append(error(f"{here}.ip", "endpoints", f"ip {ip!r} {problem}"))
    hostname = address.get("hostname")
    if isinstance(hostname, str) and hostname and (problem := name_problem(hostname, DNS1123_LABEL, 63, "hostname")):
        out.append(error(f"{here}.hostname", "endpoints", problem))
    node_name = address.get("nodeName")
    if isinstance(node_name, str) and (problem := name_problem(node_name, DNS1123_SUBDOMAIN, 253, "nodeName")):
        out.append(error(f"{here}.nodeName", "endpoints", problem))
    return out


def _endpoint_port_findings(port: dict[Any, Any], require_name: bool, here: str) -> list[Finding]:
    out = []
    name = port.get("name")
    if require_name and not name:
        out.append(error(f"{here}.name", "endpoints", "a port needs a name where the subset has more than one port"))
    elif isinstance(name, str) and name and (problem := name_problem(name, DNS1123_LABEL, 63, "port name")):
        out.append(error(f"{here}.name", "endpoints", problem))
    number = as_int(port.get("port"))
    if number is not None and not 1 <= number <= 65535:
        out.append(error(f"{here}.port", "endpoints", f"port {number} must be between 1 and 65535, inclusive"))
    protocol = port.get("protocol") or "TCP"  # SetDefaults_EndpointPort
    if isinstance(protocol, str) and protocol not in PROTOCOLS:
        message = f"protocol {protocol!r} is not supported: {', '.join(PROTOCOLS)}"
        out.append(error(f"{here}.protocol", "endpoints", message))
    app_protocol = port.get("appProtocol")
    if isinstance(app_protocol, str) and (problem := label_key_problem(app_protocol, "appProtocol")):
        out.append(error(f"{here}.appProtocol", "endpoints", problem.replace(" key", "", 1)))
    return out


# -- Node ----------------------------------------------------------------------------------------

TAINTS_ANNOTATION = "scheduler.alpha.kubernetes.io/taints"  # core.TaintsAnnotationKey
AVOID_PODS_ANNOTATION = "scheduler.alpha.kubernetes.io/preferAvoidPods"  # core.PreferAvoidPodsAnnotationKey
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def node_findings(obj: dict[Any, Any], releases: tuple[int, ...]) -> list[Finding]:
    """ValidateNode (v1.31.1; a Node keeps its status on create): the taints (validateNodeTaints),
    the taints and preferAvoidPods annotations (ValidateNodeSpecificAnnotations), podCIDRs (each a
    CIDR, at most one of each family, none twice) and the status's capacity and allocatable
    (ValidateNodeResources: not negative, whole for an integer resource)."""
    out = _finalizer_findings(obj)
    spec = as_dict(obj.get("spec"))
    taints = spec.get("taints")
    if isinstance(taints, list) and taints:
        out += _taint_findings(taints, "spec.taints")
    annotations = as_dict(as_dict(obj.get("metadata")).get("annotations"))
    out += _node_annotation_findings(annotations)
    out += _pod_cidr_findings(spec.get("podCIDRs"))
    status = as_dict(obj.get("status"))
    for field in ("capacity", "allocatable"):
        for name, value in as_dict(status.get(field)).items():
            number = parse_quantity(value)  # a value that is no quantity: the schema's finding
            if not isinstance(name, str) or number is None:
                continue
            here = child(f"status.{field}", name)
            if number < 0:
                out.append(error(here, "node", f"{field} {name} {value!r} must be greater than or equal to 0"))
            elif problem := _integer_problem(name, number):
                out.append(error(here, "node", f"{field} {problem}, got {value!r}"))
    return out


def _taint_findings(taints: list[Any], path: str, at: str | None = None) -> list[Finding]:
    """validateNodeTaints: a key (a label key), a value (a label value), an effect (required, one
    of TAINT_EFFECTS), each key and effect once. ``at`` places every finding there (an annotation's
    taints), naming the taint."""
    out, seen = [], set()
    for i, taint in enumerate(taints):
        if not isinstance(taint, dict):
            continue
        here = f"{path}[{i}]"
        what = f"taint {i}: " if at else ""
        key, value, effect = taint.get("key", ""), taint.get("value", ""), taint.get("effect", "")
        if isinstance(key, str) and (problem := label_key_problem(key, "taint")):
            out.append(error(at or f"{here}.key", "node", what + problem))
        if isinstance(value, str) and value and (problem := label_value_problem(value, key)):
            out.append(error(at or f"{here}.value", "node", what + problem.replace("label value", "taint value", 1)))
        if effect == "" or effect is None:
            out.append(error(at or f"{here}.effect", "node", what + "a taint needs an effect"))
        elif isinstance(effect, str) and effect not in TAINT_EFFECTS:
            message = f"taint effect {effect!r} is not supported: {', '.join(TAINT_EFFECTS)}"
            out.append(error(at or f"{here}.effect", "node", what + message))
        if isinstance(key, str) and isinstance(effect, str):
            if (key, effect) in seen:
                message = f"taint {key!r} with effect {effect!r} twice: taints must be unique by key and effect"
                out.append(error(at or here, "node", what + message))
            seen.add((key, effect))
    return out


def _node_annotation_findings(annotations: dict[Any, Any]) -> list[Finding]:
    """ValidateTaintsInNodeAnnotations and ValidateAvoidPodsInNodeAnnotations: each annotation a
    JSON list of taints, or a JSON AvoidPods whose entries point at a controller; the findings are
    placed at the annotation (upstream's paths name fields under it the file does not have)."""
    out = []
    text = annotations.get(TAINTS_ANNOTATION)
    if isinstance(text, str) and text:
        here = child("metadata.annotations", TAINTS_ANNOTATION)
        taints = _json_of(text)
        if not isinstance(taints, list) or not all(isinstance(t, dict) for t in taints):
            out.append(error(here, "node", f"annotation {TAINTS_ANNOTATION} must be a JSON list of taints"))
        else:
            out += _taint_findings(taints, here, at=here)
    text = annotations.get(AVOID_PODS_ANNOTATION)
    if isinstance(text, str) and text:
        here = child("metadata.annotations", AVOID_PODS_ANNOTATION)
        avoids = _json_of(text)
        entries = as_dict(avoids).get("preferAvoidPods")
        if not isinstance(avoids, dict) or not isinstance(entries, (list, type(None))):
            out.append(error(here, "node", f"annotation {AVOID_PODS_ANNOTATION} must be a JSON AvoidPods object"))
            return out
        for i, entry in enumerate(entries or []):
            controller = as_dict(as_dict(as_dict(entry).get("podSignature")).get("podController"))
            if not controller:
                message = f"preferAvoidPods[{i}] needs podSignature.podController"
                out.append(error(here, "node", message))
            elif controller.get("controller") is not True:
                message = f"preferAvoidPods[{i}]: podSignature.podController must point to a controller"
                out.append(error(here, "node", message))
    return out


def _json_of(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _pod_cidr_findings(cidrs: Any) -> list[Finding]:
    """ValidateNode's podCIDRs: each a CIDR (IsValidCIDR); more than one: one of each family
    (IsDualStackCIDRStrings), none twice."""
    if not isinstance(cidrs, list) or not cidrs:
        return []
    out, families, seen = [], [], set()
    for i, text in enumerate(cidrs):
        if not isinstance(text, str):
            continue
        if not _cidr_ok(text):
            message = f"{text!r} must be a valid CIDR value (e.g. 10.9.8.0/24 or 2001:db8::/64)"
            out.append(error(f"spec.podCIDRs[{i}]", "node", message))
        else:
            ip = _ip(text.partition("/")[0])
            families.append(ip.version if ip is not None else 0)
    if len(cidrs) > 1 and (len(cidrs) > 2 or out or len(set(families)) < 2):  # an invalid CIDR: no dual stack
        out.append(error("spec.podCIDRs", "node", "podCIDRs may specify no more than one CIDR for each IP family"))
    if len(cidrs) > 1:
        for i, text in enumerate(cidrs):
            if isinstance(text, str) and text in seen:
                out.append(error(f"spec.podCIDRs[{i}]", "node", f"podCIDR {text!r} is listed twice"))
            elif isinstance(text, str):
                seen.add(text)
    return out


# -- Event ---------------------------------------------------------------------------------------

EVENT_LIMITS = {"reportingInstance": 128, "action": 128, "reason": 128, "message": 1024}  # events.go
EVENT_TYPES = ("Normal", "Warning")
# events.k8s.io/v1 spells some of core's fields otherwise (Convert_v1_Event_To_core_Event)
_EVENTS_V1_FIELDS = {
    "involvedObject": "regarding",
    "message": "note",
    "firstTimestamp": "deprecatedFirstTimestamp",
    "lastTimestamp": "deprecatedLastTimestamp",
    "count": "deprecatedCount",
    "source": "deprecatedSource",
}


def event_findings(obj: dict[Any, Any], releases: tuple[int, ...]) -> list[Finding]:
    """ValidateEventCreate (pkg/apis/core/validation/events.go, v1.31.1): legacyValidateEvent for
    every Event (the involved object's namespace, and with an eventTime the reporting fields, an
    action and a reason, their lengths); created as events.k8s.io/v1 also the strict checks:
    eventTime, type, a series of at least 2 with lastObservedTime, the deprecated fields unset.
    The namespace of a document without one is the request's, not known here."""
    strict = obj.get("apiVersion") == "events.k8s.io/v1"

    def spelt(name: str) -> str:
        return _EVENTS_V1_FIELDS.get(name, name) if strict else name

    out = []
    namespace = as_dict(obj.get("metadata")).get("namespace")
    involved = as_dict(obj.get(spelt("involvedObject"))).get("namespace") or ""
    here = spelt("involvedObject") + ".namespace"
    event_time = obj.get("eventTime")
    if isinstance(namespace, str) and isinstance(involved, str):
        if not event_time and involved != namespace and (involved or namespace not in ("", "default")):
            out.append(error(here, "event", f"{involved!r} does not match the event's namespace {namespace!r}"))
        elif event_time and not involved and namespace not in ("default", "kube-system"):
            message = f"an involved object without namespace needs the event in default or kube-system: {namespace!r}"
            out.append(error(here, "event", message))
    if event_time:
        controller = "reportingController" if strict else "reportingComponent"
        value = obj.get(controller)
        if not value:
            out.append(error(controller, "event", f"an event with an eventTime needs {controller}"))
        elif isinstance(value, str) and (problem := label_key_problem(value, controller)):
            out.append(error(controller, "event", problem.replace(" key", "", 1)))
        for name in ("reportingInstance", "action", "reason", "message"):
            value = obj.get(spelt(name))
            if not value and name != "message":
                out.append(error(name, "event", f"an event with an eventTime needs {name}"))
            elif isinstance(value, str) and len(value) > EVENT_LIMITS[name]:
                message = f"{spelt(name)} can have at most {EVENT_LIMITS[name]} characters, not {len(value)}"
                out.append(error(spelt(name), "event", message))
    if not strict:
        return out
    series = obj.get("series")
    if isinstance(series, dict):
        count = as_int(series.get("count"))  # an absent count or lastObservedTime: the schema's required
        if count is not None and count < 2:
            out.append(error("series.count", "event", f"series.count should be at least 2, got {count}"))
    kind = obj.get("type")
    if kind not in EVENT_TYPES:
        text = kind if isinstance(kind, str) else "" if kind is None else json.dumps(kind)
        out.append(error("type", "event", f"type {text!r} is not supported: {', '.join(EVENT_TYPES)}"))
    for name in ("firstTimestamp", "lastTimestamp", "count"):
        if obj.get(spelt(name)):
            out.append(error(spelt(name), "event", f"{spelt(name)} needs to be unset in events.k8s.io/v1"))
    source = as_dict(obj.get(spelt("source")))
    if source.get("component") or source.get("host"):
        out.append(error(spelt("source"), "event", f"{spelt('source')} needs to be unset in events.k8s.io/v1"))
    return out
