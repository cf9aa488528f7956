"""Owner `apiregistration`: kube-aggregator's validation of APIServices beyond their schema
(k8s.io/kube-aggregator pkg/apis/apiregistration/validation/validation.go, ValidateAPIService,
v1.31.1; schemas/ledger/apiregistration-apiservice.json)."""

from __future__ import annotations

from generator.core.findings import Finding
from generator.core.grammar import DNS1035_LABEL, DNS1123_SUBDOMAIN, name_problem, path_segment_problem
from generator.validate.rules.base import as_dict, as_int, error, value_text

RULE = "api-service"


def api_service_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """The name is spec.version + "." + spec.group (after path.IsValidPathSegmentName, the name
    rule's); only v1 may have an empty group; the group a DNS-1123 subdomain, the version a
    DNS-1035 label; groupPriorityMinimum in 1..20000, versionPriority in 1..1000; a local
    APIService (no service) has no caBundle and no insecureSkipTLSVerify; a service has a
    namespace, a name and a port in 1..65535; insecureSkipTLSVerify not with a caBundle."""
    spec = as_dict(obj.get("spec"))
    out = []
    group = spec.get("group") if isinstance(spec.get("group"), str) else ""
    version = spec.get("version") if isinstance(spec.get("version"), str) else ""
    name = as_dict(obj.get("metadata")).get("name")
    required = f"{version}.{group}"
    if isinstance(name, str) and name and not path_segment_problem(name, "APIService name") and name != required:
        message = f'the name must be `spec.version+"."+spec.group`: {value_text(required)}'
        out.append(error("metadata.name", RULE, message))
    if not group and version != "v1":
        message = "spec.group is required: only v1 may have an empty group (the legacy core API)"
        out.append(error("spec.group", RULE, message))
    elif group:
        problem = name_problem(group, DNS1123_SUBDOMAIN, 253, "group (DNS-1123 subdomain)")
        if problem:
            out.append(error("spec.group", RULE, problem))
    problem = name_problem(version, DNS1035_LABEL, 63, "version (DNS-1035 label)")
    if problem:
        out.append(error("spec.version", RULE, problem))
    for field, highest in (("groupPriorityMinimum", 20000), ("versionPriority", 1000)):
        value = as_int(spec.get(field))  # absent: the schema's required
        if value is not None and not 0 < value <= highest:
            message = f"{field} must be positive and at most {highest}, got {value}"
            out.append(error(f"spec.{field}", RULE, message))
    service = spec.get("service")
    ca_bundle, insecure = spec.get("caBundle"), spec.get("insecureSkipTLSVerify") is True
    if service is None:
        if ca_bundle:
            out.append(error("spec.caBundle", RULE, "a local APIService (no service) may not have a caBundle"))
        if insecure:
            message = "a local APIService (no service) may not have insecureSkipTLSVerify"
            out.append(error("spec.insecureSkipTLSVerify", RULE, message))
        return out
    service = as_dict(service)
    for field in ("namespace", "name"):
        if not service.get(field):
            out.append(error(f"spec.service.{field}", RULE, f"the service's {field} is required"))
    port = as_int(service.get("port", 443))  # SetDefaults_ServiceReference: 443
    if port is not None and not 1 <= port <= 65535:  # IsValidPortNum
        message = f"the service's port {port} is not valid: it must be between 1 and 65535, inclusive"
        out.append(error("spec.service.port", RULE, message))
    if insecure and ca_bundle:
        out.append(error("spec.insecureSkipTLSVerify", RULE, "insecureSkipTLSVerify may not be true with a caBundle"))
    return out
