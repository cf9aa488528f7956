"""Owner `discovery`: the apiserver's validation of EndpointSlices beyond their schema
(k8s.io/kubernetes pkg/apis/discovery/validation/validation.go, ValidateEndpointSliceCreate,
v1.31; schemas/ledger/discovery-endpointslice.json)."""

from __future__ import annotations

import ipaddress

from generator.core.findings import Finding
from generator.core.grammar import DNS1123_LABEL, DNS1123_SUBDOMAIN, PROTOCOLS, label_key_problem, name_problem
from generator.validate.rules.base import as_dict, as_list, error, value_text
from generator.validate.rules.core import _ip as sloppy_ip
from generator.validate.rules.meta import label_findings

RULE = "endpoint-slice"

ADDRESS_TYPES = ("IPv4", "IPv6", "FQDN")  # supportedAddressTypes (the deprecated "IP" only on update)
MAX_TOPOLOGY_LABELS, MAX_ADDRESSES, MAX_PORTS, MAX_ENDPOINTS, MAX_ZONE_HINTS = 16, 100, 100, 1000, 8


def endpoint_slice_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """validateAddressType, validateEndpoints, validatePorts."""
    out = []
    address_type = obj.get("addressType")
    if address_type in (None, ""):
        out.append(error("addressType", RULE, "addressType is required: IPv4, IPv6 or FQDN"))
    elif isinstance(address_type, str) and address_type not in ADDRESS_TYPES:
        message = f"addressType {value_text(address_type)} is not supported: IPv4, IPv6 or FQDN"
        out.append(error("addressType", RULE, message))
    endpoints = as_list(obj.get("endpoints"))
    if len(endpoints) > MAX_ENDPOINTS:
        out.append(error("endpoints", RULE, f"{len(endpoints)} endpoints; at most {MAX_ENDPOINTS}"))
    else:
        for i, endpoint in enumerate(endpoints):
            if isinstance(endpoint, dict):
                out += _endpoint_findings(endpoint, f"endpoints[{i}]", address_type)
    ports = as_list(obj.get("ports"))
    if len(ports) > MAX_PORTS:
        out.append(error("ports", RULE, f"{len(ports)} ports; at most {MAX_PORTS}"))
    else:
        out += _port_findings(ports)
    return out


def _endpoint_findings(endpoint: dict, here: str, address_type) -> list[Finding]:
    out = []
    addresses = as_list(endpoint.get("addresses"))
    if not addresses:
        out.append(error(f"{here}.addresses", RULE, "an endpoint must contain at least 1 address"))
    elif len(addresses) > MAX_ADDRESSES:
        out.append(error(f"{here}.addresses", RULE, f"{len(addresses)} addresses; at most {MAX_ADDRESSES}"))
    for j, address in enumerate(addresses):
        if isinstance(address, str):
            problem = _address_problem(address, address_type)
            if problem:
                out.append(error(f"{here}.addresses[{j}]", RULE, problem))
    for field in ("deprecatedTopology", "topology"):  # v1's deprecatedTopology, v1beta1's topology
        topology = endpoint.get(field)
        if isinstance(topology, dict):
            if len(topology) > MAX_TOPOLOGY_LABELS:
                message = f"{len(topology)} topology labels; at most {MAX_TOPOLOGY_LABELS}"
                out.append(error(f"{here}.{field}", RULE, message))
            out += label_findings(topology, f"{here}.{field}")
    hostname = endpoint.get("hostname")
    if isinstance(hostname, str):
        problem = name_problem(hostname, DNS1123_LABEL, 63, "hostname (DNS-1123 label)")
        if problem:
            out.append(error(f"{here}.hostname", RULE, problem))
    node_name = endpoint.get("nodeName")
    if isinstance(node_name, str):  # ValidateNodeName: a DNS-1123 subdomain
        problem = name_problem(node_name, DNS1123_SUBDOMAIN, 253, "nodeName (DNS-1123 subdomain)")
        if problem:
            out.append(error(f"{here}.nodeName", RULE, problem))
    zones = as_list(as_dict(endpoint.get("hints")).get("forZones"))
    if len(zones) > MAX_ZONE_HINTS:  # validateHints
        out.append(error(f"{here}.hints.forZones", RULE, f"{len(zones)} zone hints; at most {MAX_ZONE_HINTS}"))
    else:
        seen = set()
        for k, zone in enumerate(zones):
            name = as_dict(zone).get("name")
            if name is not None and not isinstance(name, str):
                continue  # the schema's finding
            if not name:
                out.append(error(f"{here}.hints.forZones[{k}].name", RULE, "a zone hint needs a name"))
            elif name in seen:
                out.append(error(f"{here}.hints.forZones[{k}].name", RULE, f"zone {value_text(name)} is hinted twice"))
            seen.add(name)
    return out


# ValidateNonSpecialIP: what an endpoint may not be
_SPECIAL = (
    ("unspecified", lambda ip: ip.is_unspecified),
    ("loopback", lambda ip: ip.is_loopback),
    ("link-local", lambda ip: ip.is_link_local),
    (
        "link-local multicast",
        lambda ip: (
            ip in ipaddress.ip_network("224.0.0.0/24")
            if ip.version == 4
            else (ip.is_multicast and (ip.packed[1] & 0x0F) == 2)
        ),
    ),
)


def _address_problem(address: str, address_type) -> str | None:
    """An address as its slice's addressType reads it: IsValidIPv4Address or IsValidIPv6Address
    then ValidateNonSpecialIP, IsFullyQualifiedDomainName; another type is not checked."""
    if address_type in ("IPv4", "IPv6"):
        ip = sloppy_ip(address)  # netutils.ParseIPSloppy: an IPv4 part may have leading zeros
        if ip is not None and ip.version == 6 and ip.ipv4_mapped:
            ip = ip.ipv4_mapped  # To4() reads it as IPv4
        if ip is None or (address_type == "IPv4") != (ip.version == 4):
            family = "IPv4" if address_type == "IPv4" else "IPv6"
            return f"{value_text(address)} must be a valid {family} address (addressType {address_type})"
        for what, test in _SPECIAL:
            if test(ip):
                return f"{value_text(address)} may not be {what} (an endpoint's address must be one a pod or node has)"
        return None
    if address_type == "FQDN":
        return fqdn_problem(address)
    return None


def fqdn_problem(name: str) -> str | None:
    """IsFullyQualifiedDomainName: a DNS-1123 subdomain of at least two labels, at most 253
    characters, a trailing dot allowed."""
    text = name[:-1] if name.endswith(".") else name
    if not text:
        return "an FQDN is required"
    if len(text) > 253 or not DNS1123_SUBDOMAIN.match(text) or any(len(part) > 63 for part in text.split(".")):
        return (
            f"{value_text(name)} must be a DNS-1123 subdomain: lower-case labels of letters, digits and '-', "
            "joined by '.'"
        )
    if "." not in text:
        return f"{value_text(name)} should be a domain with at least two segments separated by dots"
    return None


def _port_findings(ports: list) -> list[Finding]:
    out, names = [], set()
    for i, port in enumerate(ports):
        if not isinstance(port, dict):
            continue
        here = f"ports[{i}]"
        name = port.get("name")
        name = name if isinstance(name, str) else ""  # SetDefaults_EndpointPort: an absent name is ""
        if name:
            problem = name_problem(name, DNS1123_LABEL, 63, "port name (DNS-1123 label)")
            if problem:
                out.append(error(f"{here}.name", RULE, problem))
        if name in names:
            message = f"port name {value_text(name)} is used twice" if name else "two ports without a name"
            out.append(error(f"{here}.name", RULE, message))
        names.add(name)
        protocol = port.get("protocol", "TCP")  # SetDefaults_EndpointPort: TCP
        if isinstance(protocol, str) and protocol not in PROTOCOLS:
            message = f"protocol {value_text(protocol)} is not supported: {', '.join(PROTOCOLS)}"
            out.append(error(f"{here}.protocol", RULE, message))
        app = port.get("appProtocol")
        if isinstance(app, str):
            problem = label_key_problem(app, "appProtocol")
            if problem:
                out.append(error(f"{here}.appProtocol", RULE, problem))
    return out
