"""Owner `admissionregistration`: the apiserver's validation of webhook configurations beyond
their schemas (k8s.io/kubernetes pkg/apis/admissionregistration/validation/validation.go,
validateValidatingWebhook and validateMutatingWebhook, and k8s.io/apiserver
pkg/util/webhook/validation.go for the client config). Rules that only the v1 API imposes
(unique names, side effects, admissionReviewVersions) apply to admissionregistration.k8s.io/v1."""

from __future__ import annotations

from urllib.parse import urlsplit

from generator.core.findings import Finding
from generator.core.grammar import DNS1035_LABEL, DNS1123_SUBDOMAIN
from generator.validate.rules.base import as_dict, as_int, as_list, error
from generator.validate.rules.selector import selector_findings

NO_SIDE_EFFECTS = ("None", "NoneOnDryRun")  # noSideEffectClasses, required by v1

REVIEW_VERSIONS = ("v1", "v1beta1")  # AcceptedAdmissionReviewVersions

OPERATIONS = ("*", "CREATE", "UPDATE", "DELETE", "CONNECT")


def webhook_configuration_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidateValidatingWebhookConfiguration / ValidateMutatingWebhookConfiguration."""
    v1 = obj.get("apiVersion") == "admissionregistration.k8s.io/v1"
    out = []
    seen: set[str] = set()
    for i, hook in enumerate(as_list(obj.get("webhooks"))):
        hook = as_dict(hook)
        here = f"webhooks[{i}]"
        name = hook.get("name")
        if isinstance(name, str):
            problem = _qualified_name_problem(name)
            if problem:
                out.append(error(f"{here}.name", "webhook", problem))
            elif v1 and name in seen:  # requireUniqueWebhookNames
                out.append(error(f"{here}.name", "webhook", f"webhook name {name!r} is used twice"))
            seen.add(name)
        out += _webhook_findings(hook, here, v1)
    return out


def _qualified_name_problem(name: str) -> str | None:
    """IsFullyQualifiedName: a DNS-1123 subdomain of at least three segments."""
    if not name or len(name) > 253 or not DNS1123_SUBDOMAIN.match(name):
        return f"webhook name {name!r} must be a DNS-1123 subdomain (e.g. validate.example.com)"
    if len(name.split(".")) < 3:
        return f"webhook name {name!r} must be a domain with at least three segments (e.g. validate.example.com)"
    return None


def _webhook_findings(hook: dict, here: str, v1: bool) -> list[Finding]:
    out = []
    side_effects = hook.get("sideEffects")
    if v1 and isinstance(side_effects, str) and side_effects not in NO_SIDE_EFFECTS:
        message = f"sideEffects {side_effects!r} must be None or NoneOnDryRun in admissionregistration.k8s.io/v1"
        out.append(error(f"{here}.sideEffects", "webhook", message))
    versions = hook.get("admissionReviewVersions")
    if v1 and isinstance(versions, list):  # validateAdmissionReviewVersions
        if not versions:
            message = "admissionReviewVersions must list one of v1, v1beta1"
            out.append(error(f"{here}.admissionReviewVersions", "webhook", message))
        elif all(isinstance(v, str) for v in versions) and not set(versions) & set(REVIEW_VERSIONS):
            message = f"admissionReviewVersions must include at least one of v1, v1beta1, got {', '.join(versions)}"
            out.append(error(f"{here}.admissionReviewVersions", "webhook", message))
        for j, version in enumerate(versions):
            if isinstance(version, str) and not DNS1035_LABEL.match(version):
                message = f"admissionReviewVersion {version!r} must be a DNS-1035 label (e.g. v1)"
                out.append(error(f"{here}.admissionReviewVersions[{j}]", "webhook", message))
    timeout = as_int(hook.get("timeoutSeconds"))
    if timeout is not None and not 1 <= timeout <= 30:
        message = f"timeoutSeconds {timeout} must be between 1 and 30"
        out.append(error(f"{here}.timeoutSeconds", "webhook", message))
    if isinstance(hook.get("clientConfig"), dict):
        out += _client_config_findings(hook["clientConfig"], f"{here}.clientConfig")
    for j, rule in enumerate(as_list(hook.get("rules"))):
        out += _rule_findings(as_dict(rule), f"{here}.rules[{j}]")
    for key in ("namespaceSelector", "objectSelector"):
        if isinstance(hook.get(key), dict):
            out += selector_findings(hook[key], f"{here}.{key}")
    return out


def _client_config_findings(config: dict, here: str) -> list[Finding]:
    """ValidateWebhookURL (https, a host, no user, query or fragment) and ValidateWebhookService
    (a name, a namespace, a path starting with '/', a port in 1-65535); exactly one of them."""
    url, service = config.get("url"), config.get("service")
    if (url is None) == (service is None):
        return [error(here, "webhook", "clientConfig needs exactly one of url or service")]
    out = []
    if isinstance(url, str):
        try:
            parts = urlsplit(url)
            host = parts.hostname
        except ValueError as err:  # ValidateWebhookURL: url.Parse failed ("url must be a valid URL")
            return [error(f"{here}.url", "webhook", f"url {url[:200]!r} must be a valid URL: {str(err)[:200]}")]
        if parts.scheme != "https":
            out.append(error(f"{here}.url", "webhook", f"url {url!r}: https is the only allowed scheme"))
        elif not host:
            out.append(error(f"{here}.url", "webhook", f"url {url!r} must have a host"))
        elif parts.username is not None or parts.query or parts.fragment:
            message = f"url {url!r} may not have user info, a query or a fragment"
            out.append(error(f"{here}.url", "webhook", message))
    if isinstance(service, dict):
        for field in ("name", "namespace"):
            if not service.get(field):
                out.append(error(f"{here}.service.{field}", "webhook", f"service needs a {field}"))
        path = service.get("path")
        if isinstance(path, str) and path and not path.startswith("/"):
            out.append(error(f"{here}.service.path", "webhook", f"path {path!r} must start with '/'"))
        port = as_int(service.get("port"))
        if port is not None and not 1 <= port <= 65535:
            out.append(error(f"{here}.service.port", "webhook", f"port {port} is not in 1-65535"))
    return out


def _rule_findings(rule: dict, here: str) -> list[Finding]:
    """validateRuleWithOperations and validateRule: operations, groups, versions, resources."""
    out = []
    operations = rule.get("operations")
    if isinstance(operations, list):
        if not operations:
            out.append(error(f"{here}.operations", "webhook", "operations must list at least one operation"))
        elif "*" in operations and len(operations) > 1:
            out.append(error(f"{here}.operations", "webhook", "'*' covers every operation: list nothing else"))
        for j, operation in enumerate(operations):
            if isinstance(operation, str) and operation not in OPERATIONS:
                message = f"operation {operation!r} is not one of {', '.join(OPERATIONS)}"
                out.append(error(f"{here}.operations[{j}]", "webhook", message))
    for field in ("apiGroups", "apiVersions", "resources"):
        if isinstance(rule.get(field), list) and not rule[field]:
            out.append(error(f"{here}.{field}", "webhook", f"{field} must list at least one value ('*' for all)"))
    return out
