"""Owner `admissionregistration`: the apiserver's validation of webhook configurations beyond
their schemas (k8s.io/kubernetes v1.31.1 pkg/apis/admissionregistration/validation/validation.go,
ValidateValidatingWebhookConfiguration and ValidateMutatingWebhookConfiguration: validateValidatingWebhook,
validateMutatingWebhook, validateRuleWithOperations, validateRule, validateResources,
validateAdmissionReviewVersions, validateMatchConditions; and k8s.io/apiserver
pkg/util/webhook/validation.go for the client config). The create path passes
requireNoSideEffects, requireRecognizedAdmissionReviewVersion and requireUniqueWebhookNames: the
checks they enable apply to admissionregistration.k8s.io/v1 (v1beta1, served up to 1.21, had them
off). The same file's ValidateValidatingAdmissionPolicy and ValidateValidatingAdmissionPolicyBinding
(validateValidatingAdmissionPolicySpec, validateParamKind, validateMatchResources,
validateNamedRuleWithOperations, validateVariable, validateValidation, validateAuditAnnotation,
validateParamRef, validateValidationActions) are the admission-policy rule; of their CEL
expressions only the parser's syntax errors are reported (kubecel), not the type checking.
schemas/ledger/admissionregistration-*.json map each error of those functions to its rule."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from generator.core.findings import Finding
from generator.core.grammar import (
    CEL_RESERVED_WORDS,
    DNS1035_LABEL,
    DNS1123_SUBDOMAIN,
    QUALIFIED_NAME,
    label_key_problem,
    path_segment_problem,
)
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

# What Go's strings.TrimSpace trims (unicode.IsSpace): str.strip() would also trim \x1c-\x1f.
GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"


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
            minor = min(r for r in releases if r >= MATCH_CONDITIONS_SINCE)
            out += _match_condition_findings(hook["matchConditions"], f"{here}.matchConditions", minor)
    return out


def _qualified_name_problem(name: str) -> str | None:
    """IsFullyQualifiedName: a DNS-1123 subdomain of at least three segments."""
    if not name or len(name) > 253 or not DNS1123_SUBDOMAIN.match(name):
        return f"webhook name {name!r} must be a DNS-1123 subdomain (e.g. validate.example.com)"
    if len(name.split(".")) < 3:
        return f"webhook name {name!r} must be a domain with at least three segments (e.g. validate.example.com)"
    return None


def _one_of(hook: dict, field: str, allowed: tuple[str, ...], here: str, rid: str = "webhook") -> list[Finding]:
    """A field.NotSupported check of an optional string field (the schema has no enum for it)."""
    value = hook.get(field)
    if isinstance(value, str) and value not in allowed:
        return [error(f"{here}.{field}", rid, f"{field} {value!r} is not one of {', '.join(allowed)}")]
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


def _rule_findings(rule: dict, here: str, rid: str = "webhook") -> list[Finding]:
    """validateRuleWithOperations and validateRule (with subresources allowed): operations, API
    groups, versions, resources and scope; an absent list is refused like an empty one. ``rid``:
    the rule id of the findings (webhook, or admission-policy for a policy's resource rules)."""
    out = []
    operations = rule.get("operations")
    if not operations:  # len(Operations) == 0
        out.append(error(f"{here}.operations", rid, "operations must list at least one operation ('*' for all)"))
    elif isinstance(operations, list):
        if "*" in operations and len(operations) > 1:
            out.append(error(f"{here}.operations", rid, "'*' covers every operation: list nothing else"))
        for j, operation in enumerate(operations):
            if isinstance(operation, str) and operation not in OPERATIONS:
                message = f"operation {operation!r} is not one of {', '.join(OPERATIONS)}"
                out.append(error(f"{here}.operations[{j}]", rid, message))
    for field, what in (("apiGroups", "API groups"), ("apiVersions", "API versions")):
        values = rule.get(field)
        if not values:
            out.append(error(f"{here}.{field}", rid, f"{field} must list at least one value ('*' for all)"))
        elif isinstance(values, list) and len(values) > 1 and "*" in values:
            out.append(error(f"{here}.{field}", rid, f"'*' covers all {what}: list nothing else"))
    versions = rule.get("apiVersions")
    if isinstance(versions, list):
        for j, version in enumerate(versions):
            if version == "":
                out.append(error(f"{here}.apiVersions[{j}]", rid, "an API version must not be empty"))
    resources = rule.get("resources")
    if not resources:
        out.append(error(f"{here}.resources", rid, "resources must list at least one value ('*' for all)"))
    elif isinstance(resources, list):
        out += _resources_findings(resources, f"{here}.resources", rid)
    scope = rule.get("scope")
    if isinstance(scope, str) and scope not in SCOPES:
        out.append(error(f"{here}.scope", rid, f"scope {scope!r} is not one of {', '.join(SCOPES)}"))
    return out


def _resources_findings(resources: list, here: str, rid: str = "webhook") -> list[Finding]:
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
            out.append(error(f"{here}[{j}]", rid, "a resource must not be empty"))
            continue
        double = double or entry == "*/*"
        single = single or entry == "*"
        resource, slash, sub = entry.partition("/")
        if not slash:
            plain = entry != "*"  # as upstream: the last entry without a subresource decides
            continue
        if resource in wildcard_sub:
            message = f"if '{resource}/*' is present, must not specify {entry}"
            out.append(error(f"{here}[{j}]", rid, message))
        if sub in wildcard_res:
            out.append(error(f"{here}[{j}]", rid, f"if '*/{sub}' is present, must not specify {entry}"))
        if sub == "*":
            wildcard_sub.add(resource)
        if resource == "*":
            wildcard_res.add(sub)
    if double and len(resources) > 1:
        out.append(error(here, rid, "if '*/*' is present, must not specify other resources"))
    if single and plain:
        message = "if '*' is present, must not specify other resources without subresources"
        out.append(error(here, rid, message))
    return out


def _match_condition_findings(conditions, here: str, minor: int, rid: str = "webhook") -> list[Finding]:
    """validateMatchConditions: at most 64, each a name (a qualified name, once) and a CEL
    expression that parses; the expression is compiled as the apiserver compiles it only as far
    as its syntax (the environment's variables and the authorizer library are not modelled).
    ``minor``: the release whose CEL parser reads the expressions; ``rid``: the findings' rule."""
    if not isinstance(conditions, list):
        return []
    out = []
    if len(conditions) > MAX_MATCH_CONDITIONS:
        message = f"{len(conditions)} matchConditions: at most {MAX_MATCH_CONDITIONS}"
        out.append(error(here, rid, message))
    names: set[str] = set()
    for i, condition in enumerate(conditions):
        condition = as_dict(condition)
        expression = condition.get("expression")  # absent: the schema's `required` reports it
        if isinstance(expression, str) and not expression.strip(GO_SPACE):
            out.append(error(f"{here}[{i}].expression", rid, "a match condition needs an expression"))
        elif isinstance(expression, str):
            problem = _cel_syntax_problem(expression.strip(GO_SPACE), minor)
            if problem:
                out.append(error(f"{here}[{i}].expression", rid, problem))
        name = condition.get("name")
        if not isinstance(name, str):
            continue
        if not name:
            out.append(error(f"{here}[{i}].name", rid, "a match condition needs a name"))
            continue
        problem = label_key_problem(name, "match condition")
        if problem:  # ValidateQualifiedName
            out.append(error(f"{here}[{i}].name", rid, problem.replace(" key", "", 1)))
        if name in names:
            out.append(error(f"{here}[{i}].name", rid, f"match condition name {name!r} is used twice"))
        names.add(name)
    return out


def _cel_syntax_problem(expression: str, minor: int) -> str | None:
    """The CEL parser's refusal of ``expression`` ("compilation failed: ... Syntax error"), as
    the environment of release 1.``minor`` parses it; type-checking errors are not reported here."""
    from generator.validate.crd import kubecel  # here: CEL only for an object with expressions

    try:
        kubecel.environment(minor).compile(expression)
    except kubecel.CelProblem as problem:
        text = str(problem)
        if "Syntax error" in text:
            detail = text.split("Syntax error:", 1)[1].strip()
            return f"the expression does not compile: Syntax error: {detail[:300]}"
    return None


# -- ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding --------------------------
# validateValidatingAdmissionPolicySpec and validateValidatingAdmissionPolicyBindingSpec of the
# same file (v1.31.1). Served as admissionregistration.k8s.io/v1 from 1.30 (v1beta1 from 1.28 and
# v1alpha1 before, both off by default: schemas/kubernetes/served.json says which release serves
# which). SetDefaults_ValidatingAdmissionPolicySpec (failurePolicy Fail) and
# SetDefaults_MatchResources (matchPolicy Equivalent, empty namespace and object selectors) fill
# their fields before validation, so their Required checks never fire from a manifest.

POLICY_RULE = "admission-policy"
VALIDATION_ACTIONS = ("Audit", "Deny", "Warn")  # validValidationActions
POLICY_REASONS = ("Forbidden", "Invalid", "RequestEntityTooLarge")  # supportedValidationPolicyReason
NOT_FOUND_ACTIONS = ("Deny", "Allow")  # ParameterNotFoundAction
MAX_AUDIT_ANNOTATIONS = 20  # maxAuditAnnotations
MAX_VALUE_EXPRESSION_BYTES = 5 * 1024  # maxAuditAnnotationValueExpressionLength
CEL_IDENTIFIER = re.compile(r"^[_a-zA-Z][_a-zA-Z0-9]*$")  # celIdentRegex
SCHEMA_REQUIRES_BINDING_FIELDS_SINCE = 36  # the v1 binding's OpenAPI schema lists them required
# The oldest release whose CEL parser reads a policy's expressions: the kinds came in 1.26.
POLICY_CEL_SINCE = 26


def _policy_cel_minor(releases: tuple[int, ...]) -> int:
    return max(min(releases), POLICY_CEL_SINCE) if releases else POLICY_CEL_SINCE


def admission_policy_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidateValidatingAdmissionPolicy (validateValidatingAdmissionPolicySpec): failurePolicy,
    paramKind, matchConstraints (its resource rules required), matchConditions, variables,
    validations and auditAnnotations (one of them required), the CEL expressions' syntax."""
    spec = as_dict(obj.get("spec"))
    out = []
    rid = POLICY_RULE
    if "failurePolicy" in spec:  # absent: defaulted to Fail
        out += _one_of(spec, "failurePolicy", FAILURE_POLICIES, "spec", rid)
    if isinstance(spec.get("paramKind"), dict):
        out += _param_kind_findings(spec["paramKind"], "spec.paramKind")
    constraints = spec.get("matchConstraints")
    if constraints is None:
        out.append(error("spec.matchConstraints", rid, "a policy needs matchConstraints with resourceRules"))
    elif isinstance(constraints, dict):
        out += _match_resources_findings(constraints, "spec.matchConstraints")
        if not constraints.get("resourceRules"):  # at least one, to give the expressions a type
            message = "matchConstraints.resourceRules must list at least one rule"
            out.append(error("spec.matchConstraints.resourceRules", rid, message))
    minor = 0
    if spec.get("matchConditions"):
        minor = _policy_cel_minor(releases)
        out += _match_condition_findings(spec["matchConditions"], "spec.matchConditions", minor, rid)
    variables = spec.get("variables")
    if variables and isinstance(variables, list):
        minor = minor or _policy_cel_minor(releases)
        for i, variable in enumerate(variables):
            out += _variable_findings(as_dict(variable), f"spec.variables[{i}]", minor)
    validations, annotations = spec.get("validations"), spec.get("auditAnnotations")
    if not validations and not annotations:
        message = "validations or auditAnnotations must contain at least one item"
        out.append(error("spec.validations", rid, message))
        out.append(error("spec.auditAnnotations", rid, message))
        return out
    minor = minor or _policy_cel_minor(releases)
    if isinstance(validations, list):
        for i, validation in enumerate(validations):
            out += _validation_findings(as_dict(validation), f"spec.validations[{i}]", minor)
    if isinstance(annotations, list):
        out += _audit_annotation_findings(obj, annotations, minor)
    return out


def _param_kind_findings(kind: dict, here: str) -> list[Finding]:
    """validateParamKind: apiVersion a group/version (the group a DNS-1123 subdomain, the
    version a DNS-1035 label) and kind a DNS-1035 label in any case."""
    rid = POLICY_RULE
    out = []
    api_version = kind.get("apiVersion")
    if not api_version:
        out.append(error(f"{here}.apiVersion", rid, "paramKind needs an apiVersion (group/version)"))
    elif isinstance(api_version, str):
        if api_version.count("/") > 1:  # parseGroupVersion
            message = f"unexpected GroupVersion string: {api_version}"
            out.append(error(f"{here}.apiVersion", rid, message))
        else:
            group, _, version = api_version.rpartition("/") if api_version != "/" else ("", "", "")
            if group and (len(group) > 253 or not DNS1123_SUBDOMAIN.match(group)):
                message = f"the group {group!r} of apiVersion must be a DNS-1123 subdomain"
                out.append(error(f"{here}.apiVersion", rid, message))
            if not version:
                out.append(error(f"{here}.apiVersion", rid, f"apiVersion {api_version!r}: version must be specified"))
            elif len(version) > 63 or not DNS1035_LABEL.match(version):
                message = f"the version {version!r} of apiVersion must be a DNS-1035 label (e.g. v1)"
                out.append(error(f"{here}.apiVersion", rid, message))
    name = kind.get("kind")
    if not name:
        out.append(error(f"{here}.kind", rid, "paramKind needs a kind"))
    elif isinstance(name, str) and (len(name) > 63 or not DNS1035_LABEL.match(name.lower())):
        message = f"kind {name!r} may have mixed case, but should otherwise be a DNS-1035 label"
        out.append(error(f"{here}.kind", rid, message))
    return out


def _match_resources_findings(match: dict, here: str) -> list[Finding]:
    """validateMatchResources on a defaulted MatchResources: matchPolicy, the selectors
    (strictly), each resource rule and exclude rule."""
    out = []
    if "matchPolicy" in match:
        out += _one_of(match, "matchPolicy", MATCH_POLICIES, here, POLICY_RULE)
    for key in ("namespaceSelector", "objectSelector"):
        if isinstance(match.get(key), dict):
            out += selector_findings(match[key], f"{here}.{key}")
    for field in ("resourceRules", "excludeResourceRules"):
        rules = match.get(field)
        if rules and isinstance(rules, list):
            for i, rule in enumerate(rules):
                out += _named_rule_findings(as_dict(rule), f"{here}.{field}[{i}]")
    return out


def _named_rule_findings(rule: dict, here: str) -> list[Finding]:
    """validateNamedRuleWithOperations: resourceNames are path segment names, each once; then
    the rule as a webhook's (validateRuleWithOperations)."""
    out = []
    names = rule.get("resourceNames")
    if names and isinstance(names, list):
        seen: set[str] = set()
        for i, name in enumerate(names):
            if not isinstance(name, str):
                continue
            if name:  # ValidatePathSegmentName: "" passes
                problem = path_segment_problem(name, "resource name")
                if problem:
                    out.append(error(f"{here}.resourceNames[{i}]", POLICY_RULE, problem))
            if name in seen:
                message = f"resource name {name!r} is listed twice"
                out.append(error(f"{here}.resourceNames[{i}]", POLICY_RULE, message))
            seen.add(name)
    return out + _rule_findings(rule, here, POLICY_RULE)


def _variable_findings(variable: dict, here: str, minor: int) -> list[Finding]:
    """validateVariable: a name that is a CEL identifier, an expression that parses."""
    out = []
    name = variable.get("name")  # absent: the schema's `required` reports it
    if isinstance(name, str):
        if not name.strip(GO_SPACE):
            out.append(error(f"{here}.name", POLICY_RULE, "a variable needs a name"))
        elif not CEL_IDENTIFIER.fullmatch(name) or name in CEL_RESERVED_WORDS:
            out.append(error(f"{here}.name", POLICY_RULE, f"variable name {name!r} is not a valid CEL identifier"))
    out += _expression_findings(variable, "expression", here, minor, "a variable needs an expression")
    return out


def _expression_findings(item: dict, field: str, here: str, minor: int, missing: str) -> list[Finding]:
    """A required CEL expression: blank is refused, else its syntax is checked."""
    expression = item.get(field)
    if not isinstance(expression, str):
        return []
    if not expression.strip(GO_SPACE):
        return [error(f"{here}.{field}", POLICY_RULE, missing)]
    problem = _cel_syntax_problem(expression, minor)
    return [error(f"{here}.{field}", POLICY_RULE, problem)] if problem else []


def _validation_findings(validation: dict, here: str, minor: int) -> list[Finding]:
    """validateValidation: expression, messageExpression, message (not blank, one line) and
    reason."""
    out = _expression_findings(validation, "expression", here, minor, "a validation needs an expression")
    message_expression = validation.get("messageExpression")
    if isinstance(message_expression, str) and message_expression:
        if not message_expression.strip(GO_SPACE):
            message = "messageExpression must be non-empty if specified"
            out.append(error(f"{here}.messageExpression", POLICY_RULE, message))
        else:
            problem = _cel_syntax_problem(message_expression, minor)
            if problem:
                out.append(error(f"{here}.messageExpression", POLICY_RULE, problem))
    message = validation.get("message")
    if isinstance(message, str) and message:
        trimmed = message.strip(GO_SPACE)
        if not trimmed:
            out.append(error(f"{here}.message", POLICY_RULE, "message must be non-empty if specified"))
        elif "\n" in trimmed or "\r" in trimmed:  # hasNewlines
            out.append(error(f"{here}.message", POLICY_RULE, "message must not contain line breaks"))
    reason = validation.get("reason")
    if isinstance(reason, str) and reason not in POLICY_REASONS:
        message = f"reason {reason!r} is not one of {', '.join(POLICY_REASONS)}"
        out.append(error(f"{here}.reason", POLICY_RULE, message))
    return out


def _audit_annotation_findings(obj: dict, annotations: list, minor: int) -> list[Finding]:
    """The auditAnnotations of validateValidatingAdmissionPolicySpec and validateAuditAnnotation:
    at most 20; each key, once, makes "<metadata.name>/<key>" a qualified name; each
    valueExpression is at most 5 KiB and parses."""
    rid = POLICY_RULE
    out = []
    if len(annotations) > MAX_AUDIT_ANNOTATIONS:
        message = f"{len(annotations)} auditAnnotations: at most {MAX_AUDIT_ANNOTATIONS}"
        out.append(error("spec.auditAnnotations", rid, message))
    meta = as_dict(obj.get("metadata"))
    named = bool(meta.get("name") or meta.get("generateName"))  # a generated name is set before
    keys: set[str] = set()
    for i, annotation in enumerate(annotations):
        annotation = as_dict(annotation)
        here = f"spec.auditAnnotations[{i}]"
        key = annotation.get("key")
        if not named:
            out.append(error(f"{here}.key", rid, "an audit annotation key requires metadata.name be non-empty"))
        elif isinstance(key, str):
            problem = _audit_key_problem(key)
            if problem:
                out.append(error(f"{here}.key", rid, problem))
        if isinstance(key, str):
            if key in keys:
                out.append(error(f"{here}.key", rid, f"audit annotation key {key!r} is used twice"))
            keys.add(key)
        value = annotation.get("valueExpression")  # absent: the schema's `required` reports it
        if not isinstance(value, str):
            continue
        trimmed = value.strip(GO_SPACE)
        if not trimmed:
            out.append(error(f"{here}.valueExpression", rid, "an audit annotation needs a valueExpression"))
        elif len(trimmed.encode()) > MAX_VALUE_EXPRESSION_BYTES:
            message = f"valueExpression must not exceed {MAX_VALUE_EXPRESSION_BYTES} bytes in length"
            out.append(error(f"{here}.valueExpression", rid, message))
        else:
            problem = _cel_syntax_problem(trimmed, minor)
            if problem:
                out.append(error(f"{here}.valueExpression", rid, problem))
    return out


def _audit_key_problem(key: str) -> str | None:
    """ValidateQualifiedName("<name>/<key>"), as far as the key goes (the prefix is
    metadata.name, whose own grammar the name rule reports): one more '/' makes three parts,
    and the key is the name part."""
    if "/" in key:
        return f"audit annotation key {key!r} must not contain '/': <policy name>/<key> must be a qualified name"
    if not key:
        return "audit annotation key must not be empty: <policy name>/<key> must be a qualified name"
    if len(key) > 63 or not QUALIFIED_NAME.fullmatch(key):
        return (
            f"audit annotation key {key!r} must be at most 63 characters of letters, digits, '-', '_' or '.', "
            "starting and ending with a letter or digit"
        )
    return None


def admission_policy_binding_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidateValidatingAdmissionPolicyBinding (validateValidatingAdmissionPolicyBindingSpec):
    policyName, paramRef, matchResources and validationActions."""
    spec = as_dict(obj.get("spec"))
    rid = POLICY_RULE
    out = []
    # From 1.36 the v1 schema requires spec, policyName and validationActions: its `required`
    # rule reports them absent, this rule what is given empty.
    schema_requires = obj.get("apiVersion") == "admissionregistration.k8s.io/v1" and enforced(
        releases, SCHEMA_REQUIRES_BINDING_FIELDS_SINCE
    )
    policy = spec.get("policyName")
    if not policy and not (schema_requires and policy is None):
        out.append(error("spec.policyName", rid, "a binding needs the policyName of a ValidatingAdmissionPolicy"))
    elif isinstance(policy, str) and policy and (len(policy) > 253 or not DNS1123_SUBDOMAIN.match(policy)):
        message = f"policyName {policy!r} must be a DNS-1123 subdomain (lower case, digits, '-', '.')"
        out.append(error("spec.policyName", rid, message))
    if isinstance(spec.get("paramRef"), dict):
        alpha = str(obj.get("apiVersion", "")).endswith("/v1alpha1")
        out += _param_ref_findings(spec["paramRef"], "spec.paramRef", alpha)
    if isinstance(spec.get("matchResources"), dict):
        out += _match_resources_findings(spec["matchResources"], "spec.matchResources")
    actions = spec.get("validationActions")
    if actions is not None or not schema_requires:
        out += _validation_actions_findings(actions, "spec.validationActions")
    return out


def _param_ref_findings(ref: dict, here: str, alpha: bool) -> list[Finding]:
    """validateParamRef: name (a path segment name) or selector, not both; parameterNotFoundAction
    Deny or Allow, required (v1alpha1's SetDefaults_ParamRef fills an absent one with Deny)."""
    rid = POLICY_RULE
    out = []
    name, selector = ref.get("name"), ref.get("selector")
    if name and isinstance(name, str):
        problem = path_segment_problem(name, "paramRef name")
        if problem:
            out.append(error(f"{here}.name", rid, problem))
        if selector is not None:
            out.append(error(f"{here}.name", rid, "name and selector are mutually exclusive"))
    if selector is not None:
        if isinstance(selector, dict):
            out += selector_findings(selector, f"{here}.selector")
        if name:
            out.append(error(f"{here}.selector", rid, "name and selector are mutually exclusive"))
    if not name and selector is None:
        out.append(error(here, rid, "one of name or selector must be specified"))
    action = ref.get("parameterNotFoundAction")
    if action == "" or (action is None and not alpha):
        out.append(error(f"{here}.parameterNotFoundAction", rid, "parameterNotFoundAction (Deny or Allow) is required"))
    elif isinstance(action, str) and action not in NOT_FOUND_ACTIONS:
        message = f"parameterNotFoundAction {action!r} is not one of {', '.join(NOT_FOUND_ACTIONS)}"
        out.append(error(f"{here}.parameterNotFoundAction", rid, message))
    return out


def _validation_actions_findings(actions, here: str) -> list[Finding]:
    """validateValidationActions: Deny, Warn or Audit, each once, not Deny with Warn, at least one."""
    rid = POLICY_RULE
    if not actions:
        return [error(here, rid, "at least one validation action (Deny, Warn, Audit) is required")]
    if not isinstance(actions, list):  # the schema's type rule
        return []
    out = []
    seen: set[str] = set()
    for i, action in enumerate(actions):
        if not isinstance(action, str):
            continue
        if action not in VALIDATION_ACTIONS:
            message = f"validation action {action!r} is not one of {', '.join(VALIDATION_ACTIONS)}"
            out.append(error(f"{here}[{i}]", rid, message))
        if action in seen:
            out.append(error(f"{here}[{i}]", rid, f"validation action {action!r} is listed twice"))
        seen.add(action)
    if "Deny" in seen and "Warn" in seen:
        message = "must not contain both Deny and Warn (the same failure would be both an error and a warning)"
        out.append(error(here, rid, message))
    return out
