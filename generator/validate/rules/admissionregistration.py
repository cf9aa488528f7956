"""Owner `admissionregistration`: the apiserver's validation of webhook configurations beyond
their schemas (k8s.io/kubernetes v1.31.1 pkg/apis/admissionregistration/validation/validation.go,
ValidateValidatingWebhookConfiguration and ValidateMutatingWebhookConfiguration: validateValidatingWebhook,
validateMutatingWebhook, validateRuleWithOperations, validateRule, validateResources,
validateAdmissionReviewVersions, validateMatchConditions; and k8s.io/apiserver
pkg/util/webhook/validation.go for the client config). The create path passes
requireNoSideEffects, requireRecognizedAdmissionReviewVersion and requireUniqueWebhookNames: the
checks they enable apply to admissionregistration.k8s.io/v1 (v1beta1, served up to 1.21, had them
off). schemas/ledger/admissionregistration-*.json map each error of those functions to its rule."""

from __future__ import annotations

from urllib.parse import urlsplit

from generator.core.findings import Finding
from generator.core.grammar import DNS1035_LABEL, DNS1123_SUBDOMAIN, label_key_problem
from generator.validate.rules.base import as_dict, as_int, as_list, enforced, error
from generator.validate.rules.selector import selector_findings

NO_SIDE_EFFECTS = ("None", "NoneOnDryRun")  # noSideEffectClasses, required by v1

REVIEW_VERSIONS = ("v1", "v1beta1")  # AcceptedAdmissionReviewVersions

OPERATIONS = ("*", "CREATE", "UPDATE", "DELETE", "CONNECT")  # supportedOperations

FAILURE_POLICIES = ("Fail", "Ignore")  # supportedFailurePolicies
MATCH_POLICIES = ("Equivalent", "Exact")  # supportedMatchPolicies
REINVOCATION_POLICIES = ("IfNeeded", "Never")  # supportedReinvocationPolicies
SCOPES = ("*", "Cluster", "Namespaced")  # validScopes

# AdmissionWebhookMatchConditions: beta (on by default) from 1.28; before, the field is dropped.
MATCH_CONDITIONS_SINCE = 28
MAX_MATCH_CONDITIONS = 64


def webhook_configuration_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidateValidatingWebhookConfiguration / ValidateMutatingWebhookConfiguration."""
    v1 = obj.get("apiVersion") == "admissionregistration.k8s.io/v1"
    mutating = obj.get("kind") == "MutatingWebhookConfiguration"
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
            if v1 and name and name in seen:  # requireUniqueWebhookNames: field.Duplicate
                out.append(error(f"{here}.name", "webhook", f"webhook name {name!r} is used twice"))
            seen.add(name)
        out += _webhook_findings(hook, here, v1, mutating)
        if "matchConditions" in hook and enforced(releases, MATCH_CONDITIONS_SINCE):
            out += _match_condition_findings(hook["matchConditions"], f"{here}.matchConditions", releases)
    return out


def _qualified_name_problem(name: str) -> str | None:
    """IsFullyQualifiedName: a DNS-1123 subdomain of at least three segments."""
    if not name or len(name) > 253 or not DNS1123_SUBDOMAIN.match(name):
        return f"webhook name {name!r} must be a DNS-1123 subdomain (e.g. validate.example.com)"
    if len(name.split(".")) < 3:
        return f"webhook name {name!r} must be a domain with at least three segments (e.g. validate.example.com)"
    return None


def _one_of(hook: dict, field: str, allowed: tuple[str, ...], here: str) -> list[Finding]:
    """A field.NotSupported check of an optional string field (the schema has no enum for it)."""
    value = hook.get(field)
    if isinstance(value, str) and value not in allowed:
        return [error(f"{here}.{field}", "webhook", f"{field} {value!r} is not one of {', '.join(allowed)}")]
    return []


def _webhook_findings(hook: dict, here: str, v1: bool, mutating: bool) -> list[Finding]:
    out = []
    if "failurePolicy" in hook:
        out += _one_of(hook, "failurePolicy", FAILURE_POLICIES, here)
    if "matchPolicy" in hook:
        out += _one_of(hook, "matchPolicy", MATCH_POLICIES, here)
    if mutating and "reinvocationPolicy" in hook:
        out += _one_of(hook, "reinvocationPolicy", REINVOCATION_POLICIES, here)
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
        listed: set[str] = set()
        for j, version in enumerate(versions):
            if not isinstance(version, str):
                continue
            if version in listed:  # "duplicate version", and no grammar check of the repeat
                message = f"admissionReviewVersion {version!r} is listed twice"
                out.append(error(f"{here}.admissionReviewVersions[{j}]", "webhook", message))
                continue
            listed.add(version)
            if len(version) > 63 or not DNS1035_LABEL.match(version):
                message = f"admissionReviewVersion {version!r} must be a DNS-1035 label (e.g. v1)"
                out.append(error(f"{here}.admissionReviewVersions[{j}]", "webhook", message))
    timeout = as_int(hook.get("timeoutSeconds"))
    if timeout is not None and not 1 <= timeout <= 30:
        message = f"timeoutSeconds {timeout} must be between 1 and 30"
        out.append(error(f"{here}.timeoutSeconds", "webhook", message))
    if isinstance(hook.get("clientConfig"), dict):
        out += client_config_findings(hook["clientConfig"], f"{here}.clientConfig")
    for j, rule in enumerate(as_list(hook.get("rules"))):
        out += _rule_findings(as_dict(rule), f"{here}.rules[{j}]")
    for key in ("namespaceSelector", "objectSelector"):
        if isinstance(hook.get(key), dict):
            out += selector_findings(hook[key], f"{here}.{key}")
    return out


def client_config_findings(config: dict, here: str) -> list[Finding]:
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
        if isinstance(path, str) and path not in ("", "/"):
            out += _service_path_findings(path, f"{here}.service.path")
        port = as_int(service.get("port"))
        if port is not None and not 1 <= port <= 65535:
            out.append(error(f"{here}.service.port", "webhook", f"port {port} is not in 1-65535"))
    return out


def _service_path_findings(path: str, here: str) -> list[Finding]:
    """ValidateWebhookService's path: '/' then segments, each a DNS-1123 subdomain (a trailing
    '/' allowed); "//" is refused as an empty segment."""
    if path == "//":
        return [error(here, "webhook", "path '//' has an empty segment")]
    out = []
    if not path.startswith("/"):
        out.append(error(here, "webhook", f"path {path!r} must start with '/'"))
    rest = path[1:]
    rest = rest[:-1] if rest.endswith("/") else rest
    for i, step in enumerate(rest.split("/")):
        if not step:
            out.append(error(here, "webhook", f"path {path!r}: segment {i} is empty"))
        elif len(step) > 253 or not DNS1123_SUBDOMAIN.match(step):
            message = f"path {path!r}: segment {step!r} must be a DNS-1123 subdomain (lower case, digits, '-', '.')"
            out.append(error(here, "webhook", message))
    return out


def _rule_findings(rule: dict, here: str) -> list[Finding]:
    """validateRuleWithOperations and validateRule (with subresources allowed): operations, API
    groups, versions, resources and scope; an absent list is refused like an empty one."""
    out = []
    operations = rule.get("operations")
    if not operations:  # len(Operations) == 0
        out.append(error(f"{here}.operations", "webhook", "operations must list at least one operation ('*' for all)"))
    elif isinstance(operations, list):
        if "*" in operations and len(operations) > 1:
            out.append(error(f"{here}.operations", "webhook", "'*' covers every operation: list nothing else"))
        for j, operation in enumerate(operations):
            if isinstance(operation, str) and operation not in OPERATIONS:
                message = f"operation {operation!r} is not one of {', '.join(OPERATIONS)}"
                out.append(error(f"{here}.operations[{j}]", "webhook", message))
    for field, what in (("apiGroups", "API groups"), ("apiVersions", "API versions")):
        values = rule.get(field)
        if not values:
            out.append(error(f"{here}.{field}", "webhook", f"{field} must list at least one value ('*' for all)"))
        elif isinstance(values, list) and len(values) > 1 and "*" in values:
            out.append(error(f"{here}.{field}", "webhook", f"'*' covers all {what}: list nothing else"))
    versions = rule.get("apiVersions")
    if isinstance(versions, list):
        for j, version in enumerate(versions):
            if version == "":
                out.append(error(f"{here}.apiVersions[{j}]", "webhook", "an API version must not be empty"))
    resources = rule.get("resources")
    if not resources:
        out.append(error(f"{here}.resources", "webhook", "resources must list at least one value ('*' for all)"))
    elif isinstance(resources, list):
        out += _resources_findings(resources, f"{here}.resources")
    scope = rule.get("scope")
    if isinstance(scope, str) and scope not in SCOPES:
        out.append(error(f"{here}.scope", "webhook", f"scope {scope!r} is not one of {', '.join(SCOPES)}"))
    return out


def _resources_findings(resources: list, here: str) -> list[Finding]:
    """validateResources: no empty entry; 'x/*' and '*/y' exclude the entries they cover; '*/*'
    stands alone; '*' excludes other resources without a subresource."""
    out = []
    wildcard_sub: set[str] = set()  # x of x/*
    wildcard_res: set[str] = set()  # y of */y
    double = single = plain = False
    for j, entry in enumerate(resources):
        if not isinstance(entry, str):
            continue
        if entry == "":
            out.append(error(f"{here}[{j}]", "webhook", "a resource must not be empty"))
            continue
        double = double or entry == "*/*"
        single = single or entry == "*"
        resource, slash, sub = entry.partition("/")
        if not slash:
            plain = entry != "*"  # as upstream: the last entry without a subresource decides
            continue
        if resource in wildcard_sub:
            message = f"if '{resource}/*' is present, must not specify {entry}"
            out.append(error(f"{here}[{j}]", "webhook", message))
        if sub in wildcard_res:
            out.append(error(f"{here}[{j}]", "webhook", f"if '*/{sub}' is present, must not specify {entry}"))
        if sub == "*":
            wildcard_sub.add(resource)
        if resource == "*":
            wildcard_res.add(sub)
    if double and len(resources) > 1:
        out.append(error(here, "webhook", "if '*/*' is present, must not specify other resources"))
    if single and plain:
        message = "if '*' is present, must not specify other resources without subresources"
        out.append(error(here, "webhook", message))
    return out


def _match_condition_findings(conditions, here: str, releases: tuple[int, ...]) -> list[Finding]:
    """validateMatchConditions: at most 64, each a name (a qualified name, once) and a CEL
    expression that parses; the expression is compiled as the apiserver compiles it only as far
    as its syntax (the environment's variables and the authorizer library are not modelled)."""
    if not isinstance(conditions, list):
        return []
    out = []
    if len(conditions) > MAX_MATCH_CONDITIONS:
        message = f"{len(conditions)} matchConditions: at most {MAX_MATCH_CONDITIONS}"
        out.append(error(here, "webhook", message))
    names: set[str] = set()
    for i, condition in enumerate(conditions):
        condition = as_dict(condition)
        expression = condition.get("expression")  # absent: the schema's `required` reports it
        if isinstance(expression, str) and not expression.strip():
            out.append(error(f"{here}[{i}].expression", "webhook", "a match condition needs an expression"))
        elif isinstance(expression, str):
            problem = _cel_syntax_problem(expression.strip(), releases)
            if problem:
                out.append(error(f"{here}[{i}].expression", "webhook", problem))
        name = condition.get("name")
        if not isinstance(name, str):
            continue
        if not name:
            out.append(error(f"{here}[{i}].name", "webhook", "a match condition needs a name"))
            continue
        problem = label_key_problem(name, "match condition")
        if problem:  # ValidateQualifiedName
            out.append(error(f"{here}[{i}].name", "webhook", problem.replace(" key", "", 1)))
        if name in names:
            out.append(error(f"{here}[{i}].name", "webhook", f"match condition name {name!r} is used twice"))
        names.add(name)
    return out


def _cel_syntax_problem(expression: str, releases: tuple[int, ...]) -> str | None:
    """The CEL parser's refusal of ``expression`` ("compilation failed: ... Syntax error"), as
    the release's environment parses it; type-checking errors are not reported here."""
    from generator.validate.crd import kubecel  # here: CEL only for a webhook with match conditions

    minor = min(r for r in releases if r >= MATCH_CONDITIONS_SINCE)
    try:
        kubecel.environment(minor).compile(expression)
    except kubecel.CelProblem as problem:
        text = str(problem)
        if "Syntax error" in text:
            detail = text.split("Syntax error:", 1)[1].strip()
            return f"the expression does not compile: Syntax error: {detail[:300]}"
    return None
