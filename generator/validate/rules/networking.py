"""Owner `networking`: the apiserver's validation of Ingresses, IngressClasses, NetworkPolicies,
IPAddresses and ServiceCIDRs beyond their schemas (k8s.io/kubernetes
pkg/apis/networking/validation/validation.go; each rule names the function it ports)."""

from __future__ import annotations

import ipaddress
import re

from generator.core.findings import Finding, child
from generator.core.grammar import (
    DNS1035_LABEL,
    DNS1123_LABEL,
    DNS1123_SUBDOMAIN,
    PROTOCOLS,
    is_domain_prefixed_path,
    name_problem,
    path_segment_problem,
    port_name_problem,
)
from generator.validate.rules.base import as_dict, as_int, as_list, enforced, error, value_text
from generator.validate.rules.selector import selector_findings

PATH_TYPES = ("Exact", "Prefix", "ImplementationSpecific")

# validateIngressHTTPIngressPath: what an Exact or Prefix path may not contain or end with
_INVALID_SEQUENCES = ("//", "/./", "/../", "%2f", "%2F")
_INVALID_SUFFIXES = ("/..", "/.")

_WILDCARD = re.compile(r"^\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def ingress_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidateIngressSpec for networking.k8s.io/v1 (its backend shape): rules or a default
    backend, hosts, paths and pathTypes, backends with one target and one port."""
    if obj.get("apiVersion") != "networking.k8s.io/v1":
        return []  # the v1beta1 backend (serviceName/servicePort) is a different shape: not modelled
    spec = as_dict(obj.get("spec"))
    out = []
    rules = as_list(spec.get("rules"))
    if not rules and spec.get("defaultBackend") is None:
        out.append(error("spec", "ingress", "an Ingress needs rules or a defaultBackend"))
    if isinstance(spec.get("defaultBackend"), dict):
        out += _backend_findings(spec["defaultBackend"], "spec.defaultBackend")
    for i, rule in enumerate(rules):
        rule = as_dict(rule)
        here = f"spec.rules[{i}]"
        host = rule.get("host")
        if isinstance(host, str) and host:
            problem = host_problem(host)
            if problem:
                out.append(error(f"{here}.host", "ingress", problem))
        http = rule.get("http")
        if isinstance(http, dict) and not as_list(http.get("paths")):
            out.append(error(f"{here}.http.paths", "ingress", "http needs at least one path"))
        for j, item in enumerate(as_list(as_dict(http).get("paths"))):
            out += _path_findings(as_dict(item), f"{here}.http.paths[{j}]")
    for i, tls in enumerate(as_list(spec.get("tls"))):
        tls = as_dict(tls)
        for j, host in enumerate(as_list(tls.get("hosts"))):
            # validateIngressTLS: a wildcard or a DNS-1123 subdomain, with no IP address check
            # (10.0.0.1 is a subdomain's spelling, so the apiserver takes it here)
            problem = _dns_host_problem(host) if isinstance(host, str) else None
            if problem:
                out.append(error(f"spec.tls[{i}].hosts[{j}]", "ingress", problem))
        secret = tls.get("secretName")
        if isinstance(secret, str) and secret:  # validateTLSSecretName (create: AllowInvalidSecretName false)
            problem = name_problem(secret, DNS1123_SUBDOMAIN, 253, "Secret name (DNS-1123 subdomain)")
            if problem:
                out.append(error(f"spec.tls[{i}].secretName", "ingress", problem))
    class_name = spec.get("ingressClassName")
    if isinstance(class_name, str):
        problem = name_problem(class_name, DNS1123_SUBDOMAIN, 253, "ingressClassName (DNS-1123 subdomain)")
        if problem:
            out.append(error("spec.ingressClassName", "ingress", problem))
        # ValidateIngressCreate: the legacy class annotation must name the same class (from
        # 1.18 it could not be set at all beside the field; this is the part every release refuses)
        annotations = as_dict(as_dict(obj.get("metadata")).get("annotations"))
        legacy = annotations.get(CLASS_ANNOTATION)
        if isinstance(legacy, str) and legacy != class_name:
            message = f"the {CLASS_ANNOTATION} annotation {legacy!r} must match ingressClassName {class_name!r}"
            out.append(error(child("metadata.annotations", CLASS_ANNOTATION), "ingress", message))
    return out


CLASS_ANNOTATION = "kubernetes.io/ingress.class"

_SLOPPY_IPV4 = re.compile(r"^[0-9]{1,3}(\.[0-9]{1,3}){3}$")


def _is_ip(text: str) -> bool:
    """netutils.ParseIPSloppy: an IPv4 or IPv6 address, IPv4 octets with leading zeros too."""
    if _SLOPPY_IPV4.match(text):
        return all(int(octet) <= 255 for octet in text.split("."))
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _dns_host_problem(host: str) -> str | None:
    """A wildcard (IsWildcardDNS1123Subdomain) when the host has a '*', else IsDNS1123Subdomain."""
    if "*" in host:
        if len(host) <= 253 and _WILDCARD.match(host):
            return None
        return f"host {host!r}: a wildcard host is '*.' followed by a DNS-1123 subdomain (e.g. *.example.com)"
    return name_problem(host, DNS1123_SUBDOMAIN, 253, "host (DNS-1123 subdomain, lower case)")


def host_problem(host: str) -> str | None:
    """validateIngressRules: a DNS name, or "*." and one; never an IP address."""
    if _is_ip(host):
        return f"host {host!r} must be a DNS name, not an IP address"
    return _dns_host_problem(host)


def _path_findings(item: dict, here: str) -> list[Finding]:
    """validateHTTPIngressPath: pathType, a path that is absolute and clean for Exact and Prefix."""
    out = []
    path, kind = item.get("path"), item.get("pathType")
    if isinstance(kind, str) and kind not in PATH_TYPES:
        out.append(error(f"{here}.pathType", "ingress", f"pathType {kind!r} is not one of {', '.join(PATH_TYPES)}"))
    if isinstance(path, str):
        if kind in ("Exact", "Prefix"):
            if not path.startswith("/"):
                out.append(error(f"{here}.path", "ingress", f"path {path!r} must be absolute (start with '/')"))
            elif any(seq in path for seq in _INVALID_SEQUENCES) or path.endswith(_INVALID_SUFFIXES):
                message = f"path {path!r} must not contain '//', '/./', '/../' or '%2f', nor end with '/.' or '/..'"
                out.append(error(f"{here}.path", "ingress", message))
        elif path and not path.startswith("/"):
            out.append(error(f"{here}.path", "ingress", f"path {path!r} must be absolute (start with '/')"))
    if isinstance(item.get("backend"), dict):
        out += _backend_findings(item["backend"], f"{here}.backend")
    return out


def _backend_findings(backend: dict, here: str) -> list[Finding]:
    """validateIngressBackend: a service or a resource, not both; a service port by name or
    number, not both."""
    service, resource = backend.get("service"), backend.get("resource")
    if service is not None and resource is not None:
        return [error(here, "ingress", "a backend is a service or a resource, not both")]
    if service is None and resource is None:
        return [error(here, "ingress", "a backend needs a service (or a resource)")]
    if isinstance(resource, dict):
        return _typed_reference_findings(resource, f"{here}.resource")
    if not isinstance(service, dict):
        return []
    out = []
    name = service.get("name")
    if isinstance(name, str):
        problem = name_problem(name, DNS1035_LABEL, 63, "service name (DNS-1035 label)")
        if problem:
            out.append(error(f"{here}.service.name", "ingress", problem))
    port = as_dict(service.get("port"))
    port_name, number = port.get("name"), port.get("number")
    if port_name and number is not None:
        out.append(error(f"{here}.service.port", "ingress", "a service port is a name or a number, not both"))
    elif not port_name and number is None:
        out.append(error(f"{here}.service.port", "ingress", "a service port needs a name or a number"))
    elif isinstance(port_name, str) and (problem := port_name_problem(port_name)):
        out.append(error(f"{here}.service.port.name", "ingress", problem))
    elif as_int(number) is not None and not 1 <= number <= 65535:
        out.append(error(f"{here}.service.port.number", "ingress", f"port {number} is not in 1-65535"))
    return out


def _typed_reference_findings(ref: dict, here: str) -> list[Finding]:
    """validateIngressTypedLocalObjectReference: an apiGroup that is a DNS-1123 subdomain, a kind
    and a name that are path segment names (path.IsValidPathSegmentName), both required."""
    out = []
    group = ref.get("apiGroup")
    if isinstance(group, str):
        problem = name_problem(group, DNS1123_SUBDOMAIN, 253, "apiGroup (DNS-1123 subdomain)")
        if problem:
            out.append(error(f"{here}.apiGroup", "ingress", problem))
    for field in ("kind", "name"):
        value = ref.get(field)
        if isinstance(value, str):  # an absent one is the schema's (required)
            problem = path_segment_problem(value, field)
            if problem:
                out.append(error(f"{here}.{field}", "ingress", problem))
    return out


MAX_CONTROLLER = 250  # maxLenIngressClassController

CLASS_NAMESPACED_PARAMS_SINCE = 21  # IngressClassNamespacedParams: alpha 1.20, beta (on) 1.21, GA 1.23


def ingress_class_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """validateIngressClassSpec: a controller that is a domain-prefixed path of at most 250
    characters (IsDomainPrefixedPath); parameters scoped to a namespace name one, cluster-scoped
    ones do not (validateIngressClassParametersReference)."""
    spec = as_dict(obj.get("spec"))
    out = []
    controller = spec.get("controller")
    if not controller:  # IsDomainPrefixedPath: an empty path is a Required error
        message = "an IngressClass needs spec.controller (e.g. k8s.io/ingress-nginx)"
        out.append(error("spec.controller", "ingress", message))
    elif isinstance(controller, str):
        if len(controller) > MAX_CONTROLLER:
            message = f"controller is {len(controller)} characters; at most {MAX_CONTROLLER}"
            out.append(error("spec.controller", "ingress", message))
        elif not is_domain_prefixed_path(controller):
            message = f"controller {controller!r} must be a domain-prefixed path (e.g. k8s.io/ingress-nginx)"
            out.append(error("spec.controller", "ingress", message))
    parameters = spec.get("parameters")
    if isinstance(parameters, dict):
        out += _typed_reference_findings(parameters, "spec.parameters")
    if isinstance(parameters, dict) and enforced(releases, CLASS_NAMESPACED_PARAMS_SINCE):
        # an absent scope is Cluster: networking/v1 SetDefaults_IngressClass fills it in
        scope, namespace = parameters.get("scope"), parameters.get("namespace")
        if scope == "Namespace" and not namespace:
            message = "parameters with scope Namespace need a namespace"
            out.append(error("spec.parameters.namespace", "ingress", message))
        elif scope == "Namespace" and isinstance(namespace, str):
            problem = name_problem(namespace, DNS1123_LABEL, 63, "namespace name (DNS-1123 label)")
            if problem:
                out.append(error("spec.parameters.namespace", "ingress", problem))
        elif scope in (None, "Cluster") and namespace is not None:
            message = "parameters.namespace may only be set when scope is Namespace"
            out.append(error("spec.parameters.namespace", "ingress", message))
        elif isinstance(scope, str) and scope not in ("Namespace", "Cluster"):
            out.append(error("spec.parameters.scope", "ingress", f"scope {scope!r} must be Cluster or Namespace"))
    return out


POLICY_TYPES = ("Ingress", "Egress")


def network_policy_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidateNetworkPolicySpec: the pod selector, ports, peers and ipBlocks, policyTypes."""
    spec = as_dict(obj.get("spec"))
    out = selector_findings(spec.get("podSelector"), "spec.podSelector")
    for direction, peers_key in (("ingress", "from"), ("egress", "to")):
        for i, rule in enumerate(as_list(spec.get(direction))):
            rule = as_dict(rule)
            here = f"spec.{direction}[{i}]"
            for j, port in enumerate(as_list(rule.get("ports"))):
                out += _policy_port_findings(as_dict(port), f"{here}.ports[{j}]")
            for j, peer in enumerate(as_list(rule.get(peers_key))):
                out += _peer_findings(as_dict(peer), f"{here}.{peers_key}[{j}]")
    types = as_list(spec.get("policyTypes"))
    for i, kind in enumerate(types):
        if isinstance(kind, str) and kind not in POLICY_TYPES:
            out.append(
                error(f"spec.policyTypes[{i}]", "network-policy", f"policyType {kind!r} must be Ingress or Egress")
            )
    if len(types) > 2:
        out.append(error("spec.policyTypes", "network-policy", "policyTypes has at most two items, Ingress and Egress"))
    return out


def _policy_port_findings(port: dict, here: str) -> list[Finding]:
    """validateNetworkPolicyPort: protocol, a port number or name, endPort after a numeric port."""
    out = []
    protocol = port.get("protocol")
    if isinstance(protocol, str) and protocol not in PROTOCOLS:
        out.append(error(f"{here}.protocol", "network-policy", f"protocol {protocol!r} is not one of TCP, UDP, SCTP"))
    value, end = port.get("port"), as_int(port.get("endPort"))
    if isinstance(value, str):
        problem = port_name_problem(value)
        if problem:
            out.append(error(f"{here}.port", "network-policy", f"{problem}; write a number without quotes"))
        if end is not None:
            out.append(error(f"{here}.endPort", "network-policy", "endPort may not be set when port is a name"))
    elif as_int(value) is not None:
        if not 1 <= value <= 65535:
            out.append(error(f"{here}.port", "network-policy", f"port {value} is not in 1-65535"))
        elif end is not None and end < value:
            message = f"endPort {end} must be greater than or equal to port {value}"
            out.append(error(f"{here}.endPort", "network-policy", message))
        if end is not None and not 1 <= end <= 65535:
            out.append(error(f"{here}.endPort", "network-policy", f"endPort {end} is not in 1-65535"))
    elif end is not None:
        out.append(error(f"{here}.endPort", "network-policy", "endPort may not be set without port"))
    return out


def _peer_findings(peer: dict, here: str) -> list[Finding]:
    """ValidateNetworkPolicyPeer: podSelector and/or namespaceSelector, or an ipBlock alone."""
    selectors = [k for k in ("podSelector", "namespaceSelector") if peer.get(k) is not None]
    block = peer.get("ipBlock")
    if not selectors and block is None:
        return [error(here, "network-policy", "a peer needs podSelector, namespaceSelector or ipBlock")]
    if selectors and block is not None:
        message = "ipBlock may not be combined with podSelector or namespaceSelector: write two peers"
        return [error(f"{here}.ipBlock", "network-policy", message)]
    out = []
    for key in selectors:
        out += selector_findings(peer[key], f"{here}.{key}")
    if isinstance(block, dict):
        out += _ip_block_findings(block, f"{here}.ipBlock")
    return out


def _ip_block_findings(block: dict, here: str) -> list[Finding]:
    """ValidateIPBlock: a CIDR, and each except a strict subset of it in the same family."""
    cidr = block.get("cidr")
    if not isinstance(cidr, str):
        return []
    network = _network(cidr)
    if network is None:
        return [error(f"{here}.cidr", "network-policy", f"cidr {cidr!r} is not a CIDR (e.g. 10.0.0.0/8)")]
    out = []
    for i, text in enumerate(as_list(block.get("except"))):
        inner = _network(text) if isinstance(text, str) else None
        if inner is None:
            if isinstance(text, str):
                out.append(error(f"{here}.except[{i}]", "network-policy", f"{text!r} is not a CIDR"))
            continue
        if inner.version != network.version or not network.supernet_of(inner) or inner.prefixlen <= network.prefixlen:
            message = f"except {text!r} must be a strict subset of cidr {cidr!r}"
            out.append(error(f"{here}.except[{i}]", "network-policy", message))
    return out


def _network(text: str):
    """netutils.ParseCIDRSloppy: an address with host bits allowed, and a prefix length; IPv4
    octets may have leading zeros (read as decimal)."""
    address, slash, bits = text.partition("/")
    if not slash:
        return None
    if _SLOPPY_IPV4.match(address) and bits.isdigit():
        address = ".".join(str(int(octet)) for octet in address.split("."))
    try:
        return ipaddress.ip_network(f"{address}/{bits}", strict=False)
    except ValueError:
        return None


# -- IPAddress and ServiceCIDR (networking.k8s.io/v1 from 1.33; v1beta1 in 1.31 and 1.32, v1alpha1
# before, off by default until v1; schemas/ledger/networking-ipaddress.json, networking-servicecidr.json)


def _go_address(text: str, zone: bool = True):
    """netip.ParseAddr: an IPv4 address (no leading zeros) or an IPv6 one (with a zone if ``zone``);
    None if it is none."""
    if not isinstance(text, str) or (not zone and "%" in text):
        return None
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _go_address_text(address) -> str:
    """netip.Addr.String: as Python writes it, but an IPv4-mapped IPv6 address with its IPv4 part
    dotted (::ffff:10.0.0.1), as Go writes it."""
    mapped = getattr(address, "ipv4_mapped", None)
    if mapped is None:
        return str(address)
    scope = getattr(address, "scope_id", None)
    return f"::ffff:{mapped}" + (f"%{scope}" if scope else "")


def ip_address_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidateIPAddressName (the name is an IP address in its canonical form: 10.0.0.1,
    2001:db8::1) and validateIPAddressParentReference: its group a DNS-1123 subdomain when set,
    resource and name not empty, and they and namespace path segment names (parentRef, resource
    and name absent are the schema's required findings)."""
    rule = "ip-address"
    out = []
    name = as_dict(obj.get("metadata")).get("name")
    if isinstance(name, str) and name:
        address = _go_address(name)
        if address is None:
            out.append(error("metadata.name", rule, f"an IPAddress is named after its address: {name!r} is none"))
        elif _go_address_text(address) != name:
            message = f"{name!r} must be a canonical format IP address: {_go_address_text(address)}"
            out.append(error("metadata.name", rule, message))
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return out  # no spec: the schema's finding (a spec of another type too)
    ref = as_dict(spec.get("parentRef"))  # absent: the schema's required finding
    group = ref.get("group")
    if isinstance(group, str) and group:
        problem = name_problem(group, DNS1123_SUBDOMAIN, 253, "group (DNS-1123 subdomain)")
        if problem:
            out.append(error("spec.parentRef.group", rule, problem))
    for field in ("resource", "name", "namespace"):
        value = ref.get(field)
        if value == "" and field != "namespace":  # absent: the schema's required finding
            out.append(error(f"spec.parentRef.{field}", rule, f"parentRef.{field} may not be empty"))
        elif isinstance(value, str) and value and (problem := path_segment_problem(value, field)):
            out.append(error(f"spec.parentRef.{field}", rule, problem))
    return out


def _go_prefix_problems(text: str) -> list[str]:
    """validateCIDR: netip.ParsePrefix (an address without zone, '/', the prefix length in
    decimal), then the address the network's own and the text in RFC 5952 canonical form."""
    address_text, slash, bits = text.rpartition("/")
    address = _go_address(address_text, zone=False) if slash else None
    if address is None or not re.fullmatch(r"0|[1-9][0-9]{0,2}", bits) or int(bits) > address.max_prefixlen:
        return [f"{text!r} is not a CIDR (an address, '/', a prefix length: 10.96.0.0/12, fd00:10:96::/112)"]
    out = []
    network = ipaddress.ip_network(f"{address}/{bits}", strict=False)
    if network.network_address != address:
        out.append(f"wrong CIDR format, IP doesn't match network IP address: {text!r} has host bits set")
    canonical = f"{_go_address_text(address)}/{int(bits)}"
    if canonical != text:
        out.append(f"CIDR {text!r} not in RFC 5952 canonical format: {canonical}")
    return out


def service_cidr_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidateServiceCIDR: one or two CIDRs, two of different families (each read as
    ParseCIDRSloppy reads it), each a canonical network prefix; reported at spec.cidrs, as
    upstream does, until the list itself passes."""
    rule = "service-cidr"
    cidrs = as_dict(obj.get("spec")).get("cidrs")
    if cidrs is not None and not isinstance(cidrs, list):
        return []  # another type: the schema's finding
    cidrs = cidrs or []
    if not cidrs:
        return [error("spec.cidrs", rule, "at least one CIDR required (e.g. 10.96.0.0/12)")]
    if len(cidrs) > 2:
        return [error("spec.cidrs", rule, f"{len(cidrs)} CIDRs: a ServiceCIDR may only hold up to 2 values")]
    if len(cidrs) == 2:
        networks = [_network(cidr) if isinstance(cidr, str) else None for cidr in cidrs]
        if any(network is None for network in networks) or networks[0].version == networks[1].version:
            message = (
                "may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64: "
                f"{value_text(cidrs[0])} and {value_text(cidrs[1])} are not one of each"
            )
            return [error("spec.cidrs", rule, message)]
    out = []
    for i, cidr in enumerate(cidrs):
        if isinstance(cidr, str):
            out += [error(f"spec.cidrs[{i}]", rule, problem) for problem in _go_prefix_problems(cidr)]
    return out
