"""Owner `flowcontrol`: the apiserver's validation of API Priority and Fairness objects beyond
their schema (k8s.io/kubernetes pkg/apis/flowcontrol/validation/validation.go, ValidateFlowSchema
and ValidatePriorityLevelConfiguration, v1.31; schemas/ledger/flowcontrol-*.json). Values the
v1 and v1beta3 defaults set before validation (SetDefaults_FlowSchemaSpec: matchingPrecedence 0
is 1000; SetDefaults_QueuingConfiguration: queues 0 is 64, handSize 0 is 8, queueLengthLimit 0
is 50) are not refused as their zero."""

from __future__ import annotations

import math

from generator.core.findings import Finding
from generator.core.grammar import DNS1123_LABEL, DNS1123_SUBDOMAIN, name_problem
from generator.validate.rules.base import as_dict, as_int, as_list, enforced, error, value_text

FLOW_SCHEMA, PRIORITY_LEVEL = "flow-schema", "priority-level"

MAX_MATCHING_PRECEDENCE = 10000  # flowcontrol.FlowSchemaMaxMatchingPrecedence
DISTINGUISHERS = ("ByNamespace", "ByUser")
SUBJECT_KINDS = ("Group", "ServiceAccount", "User")
VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch")
MAX_QUEUES = 10_000_000  # priorityLevelConfigurationQueuingMaxQueues
MAX_HASH_BITS = 60  # shufflesharding.MaxHashBits

# flowcontrol/v1beta3 PriorityLevelPreserveZeroConcurrencySharesKey: v1beta3's conversion removes it,
# ValidatePriorityLevelConfiguration (from 1.29) forbids it on what is left
PRESERVE_ZERO_SHARES = "flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares"

# The mandatory objects (k8s.io/apiserver pkg/apis/flowcontrol/bootstrap, v1.31's; internalbootstrap
# converts them without defaults) in the canonical form of _flow_schema_spec and _priority_level_spec:
# ValidateFlowSchema and ValidateIfMandatoryPriorityLevelConfigurationObject refuse a spec other
# than these (apiequality.Semantic: a nil list equals an empty one) for an object of that name.
_EVERYTHING = (((("*",), ("*",), ("*",), True, ("*",)),), ((("*",), ("*",)),))
MANDATORY_FLOW_SCHEMAS = {
    "exempt": (
        ("exempt", 1, None, ((((("Group", None, ("system:masters",), None),), *_EVERYTHING),))),
        "matchingPrecedence 1, priority level 'exempt', no distinguisher, one rule: group system:masters, "
        "every verb on every resource (cluster scope and namespaces ['*']) and every non-resource URL",
    ),
    "catch-all": (
        (
            "catch-all",
            10000,
            ("ByUser",),
            (
                (
                    (
                        ("Group", None, ("system:unauthenticated",), None),
                        ("Group", None, ("system:authenticated",), None),
                    ),
                    *_EVERYTHING,
                ),
            ),
        ),
        "matchingPrecedence 10000, priority level 'catch-all', distinguisher ByUser, one rule: groups "
        "system:unauthenticated and system:authenticated, every verb on every resource (cluster scope and "
        "namespaces ['*']) and every non-resource URL",
    ),
}
MANDATORY_PRIORITY_LEVELS = {
    # 'exempt': all but spec.exempt, which an administrator may change
    "exempt": (("Exempt", None), "type Exempt and no limited"),
    "catch-all": (
        ("Limited", (5, ("Reject", None), 0, None), None),
        "type Limited; limited: nominalConcurrencyShares 5, lendablePercent 0, limitResponse type Reject",
    ),
}


def flow_schema_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidateFlowSchemaSpec: matchingPrecedence in 1..10000 (1 for 'exempt' alone), the
    distinguisher, the priority level's name, each rule's subjects and resource or non-resource
    rules (ValidateFlowSchemaPolicyRulesWithSubjects)."""
    spec = as_dict(obj.get("spec"))
    name = as_dict(obj.get("metadata")).get("name")
    out = []
    precedence = as_int(spec.get("matchingPrecedence"))
    if precedence is not None:
        if precedence < 0:
            out.append(
                error("spec.matchingPrecedence", FLOW_SCHEMA, f"matchingPrecedence {precedence} must be positive")
            )
        elif precedence > MAX_MATCHING_PRECEDENCE:
            message = f"matchingPrecedence {precedence} must not be greater than {MAX_MATCHING_PRECEDENCE}"
            out.append(error("spec.matchingPrecedence", FLOW_SCHEMA, message))
        elif precedence == 1 and name != "exempt":
            message = "only the FlowSchema named 'exempt' may have matchingPrecedence 1"
            out.append(error("spec.matchingPrecedence", FLOW_SCHEMA, message))
    method = spec.get("distinguisherMethod")
    if isinstance(method, dict) and method.get("type") not in DISTINGUISHERS:
        message = f"distinguisherMethod type {value_text(method.get('type'))} is not supported: ByNamespace or ByUser"
        out.append(error("spec.distinguisherMethod.type", FLOW_SCHEMA, message))
    level = as_dict(spec.get("priorityLevelConfiguration")).get("name")
    if not level:
        message = "priorityLevelConfiguration.name must reference a priority level"
        out.append(error("spec.priorityLevelConfiguration.name", FLOW_SCHEMA, message))
    elif isinstance(level, str):
        problem = name_problem(level, DNS1123_SUBDOMAIN, 253, "priority level name (DNS-1123 subdomain)")
        if problem:
            out.append(error("spec.priorityLevelConfiguration.name", FLOW_SCHEMA, problem))
    for i, rule in enumerate(as_list(spec.get("rules"))):
        out += _rule_findings(as_dict(rule), f"spec.rules[{i}]")
    mandatory = MANDATORY_FLOW_SCHEMAS.get(name) if isinstance(name, str) else None
    if mandatory and _flow_schema_spec(spec) != mandatory[0]:
        message = f"spec of the mandatory FlowSchema {name!r} must equal the apiserver's fixed value ({mandatory[1]})"
        out.append(error("spec", FLOW_SCHEMA, message))
    return out


def _text(value):
    """A Go string field: absent is the empty string."""
    return "" if value is None else value


def _strings(value) -> tuple:
    """A Go list: absent, null and empty are alike to apiequality.Semantic."""
    return () if value is None else tuple(value) if isinstance(value, list) else (value,)


def _member(value, *fields: str) -> tuple | None:
    """A Go pointer to a struct of string fields: nil, or its fields."""
    return None if value is None else tuple(_text(as_dict(value).get(field)) for field in fields)


def _defaulted(value, default: int):
    """An int32 that the defaults set when it is 0 (SetDefaults_*: absent is 0 in Go)."""
    return default if value is None or (type(value) is int and value == 0) else value


def _flow_schema_spec(spec: dict) -> tuple:
    """The FlowSchema spec as the internal type holds it after the v1 and v1beta3 defaults
    (SetDefaults_FlowSchemaSpec: matchingPrecedence 0 is 1000)."""
    method = spec.get("distinguisherMethod")
    rules = []
    for rule in as_list(spec.get("rules")):
        rule = as_dict(rule)
        subjects = tuple(
            (
                _text(as_dict(subject).get("kind")),
                _member(as_dict(subject).get("user"), "name"),
                _member(as_dict(subject).get("group"), "name"),
                _member(as_dict(subject).get("serviceAccount"), "namespace", "name"),
            )
            for subject in as_list(rule.get("subjects"))
        )
        resource_rules = tuple(
            (
                _strings(as_dict(item).get("verbs")),
                _strings(as_dict(item).get("apiGroups")),
                _strings(as_dict(item).get("resources")),
                False if as_dict(item).get("clusterScope") is None else as_dict(item).get("clusterScope"),
                _strings(as_dict(item).get("namespaces")),
            )
            for item in as_list(rule.get("resourceRules"))
        )
        non_resource_rules = tuple(
            (_strings(as_dict(item).get("verbs")), _strings(as_dict(item).get("nonResourceURLs")))
            for item in as_list(rule.get("nonResourceRules"))
        )
        rules.append((subjects, resource_rules, non_resource_rules))
    return (
        _text(as_dict(spec.get("priorityLevelConfiguration")).get("name")),
        _defaulted(spec.get("matchingPrecedence"), 1000),
        _member(method, "type"),
        tuple(rules),
    )


def _rule_findings(rule: dict, here: str) -> list[Finding]:
    out = []
    subjects = as_list(rule.get("subjects"))
    if not subjects:
        out.append(error(f"{here}.subjects", FLOW_SCHEMA, "subjects must contain at least one value"))
    for j, subject in enumerate(subjects):
        out += _subject_findings(as_dict(subject), f"{here}.subjects[{j}]")
    resource_rules, non_resource_rules = as_list(rule.get("resourceRules")), as_list(rule.get("nonResourceRules"))
    if not resource_rules and not non_resource_rules:
        message = "at least one of resourceRules and nonResourceRules has to be non-empty"
        out.append(error(here, FLOW_SCHEMA, message))
    for j, item in enumerate(resource_rules):
        out += _resource_rule_findings(as_dict(item), f"{here}.resourceRules[{j}]")
    for j, item in enumerate(non_resource_rules):
        out += _non_resource_rule_findings(as_dict(item), f"{here}.nonResourceRules[{j}]")
    return out


_SUBJECT_FIELDS = {"ServiceAccount": "serviceAccount", "User": "user", "Group": "group"}


def _subject_findings(subject: dict, here: str) -> list[Finding]:
    """ValidateFlowSchemaSubject: the member its kind names, and no other."""
    kind = subject.get("kind")
    if kind not in SUBJECT_KINDS:
        message = f"subject kind {value_text(kind)} is not supported: {', '.join(SUBJECT_KINDS)}"
        return [error(f"{here}.kind", FLOW_SCHEMA, message)]
    out = []
    own = _SUBJECT_FIELDS[kind]
    member = subject.get(own)
    if not isinstance(member, dict):
        out.append(error(f"{here}.{own}", FLOW_SCHEMA, f"{own} is required when subject kind is {value_text(kind)}"))
    else:
        member_name = member.get("name")
        if not member_name:
            out.append(error(f"{here}.{own}.name", FLOW_SCHEMA, f"the {own}'s name is required"))
        elif kind == "ServiceAccount" and member_name != "*" and isinstance(member_name, str):
            problem = name_problem(member_name, DNS1123_SUBDOMAIN, 253, "service account name (DNS-1123 subdomain)")
            if problem:
                out.append(error(f"{here}.{own}.name", FLOW_SCHEMA, problem))
        if kind == "ServiceAccount":
            namespace = member.get("namespace")
            if not namespace:
                message = "must specify namespace for service account"
                out.append(error(f"{here}.{own}.namespace", FLOW_SCHEMA, message))
            elif isinstance(namespace, str):
                problem = name_problem(namespace, DNS1123_LABEL, 63, "namespace (DNS-1123 label)")
                if problem:
                    out.append(error(f"{here}.{own}.namespace", FLOW_SCHEMA, problem))
    for other_kind, field in _SUBJECT_FIELDS.items():
        if other_kind != kind and subject.get(field) is not None:
            message = f"{field} is forbidden when subject kind is not {value_text(other_kind)}"
            out.append(error(f"{here}.{field}", FLOW_SCHEMA, message))
    return out


def _verb_findings(verbs: list, here: str) -> list[Finding]:
    if not verbs:
        return [error(f"{here}.verbs", FLOW_SCHEMA, "verbs must contain at least one value")]
    if "*" in verbs:
        if len(verbs) > 1:
            return [error(f"{here}.verbs", FLOW_SCHEMA, "if '*' is present, must not specify other verbs")]
        return []
    unknown = [v for v in verbs if v not in VERBS]
    if unknown:
        message = f"verbs {value_text(unknown)} are not supported: {', '.join(VERBS)} or '*'"
        return [error(f"{here}.verbs", FLOW_SCHEMA, message)]
    return []


def _resource_rule_findings(rule: dict, here: str) -> list[Finding]:
    """ValidateFlowSchemaResourcePolicyRule."""
    out = _verb_findings(as_list(rule.get("verbs")), here)
    for field, what in (("apiGroups", "api group"), ("resources", "resource")):
        values = as_list(rule.get(field))
        if not values:
            out.append(error(f"{here}.{field}", FLOW_SCHEMA, f"resource rules must supply at least one {what}"))
        elif len(values) > 1 and "*" in values:
            out.append(error(f"{here}.{field}", FLOW_SCHEMA, f"if '*' is present, must not specify other {what}s"))
    namespaces = as_list(rule.get("namespaces"))
    if not namespaces and rule.get("clusterScope") is not True:
        message = "resource rules that are not cluster scoped must supply at least one namespace"
        out.append(error(f"{here}.namespaces", FLOW_SCHEMA, message))
    elif "*" in namespaces:
        if len(namespaces) > 1:
            message = "if '*' is present, must not specify other namespaces"
            out.append(error(f"{here}.namespaces", FLOW_SCHEMA, message))
    else:
        for k, namespace in enumerate(namespaces):
            problem = name_problem(namespace, DNS1123_LABEL, 63, "namespace (DNS-1123 label)")
            if problem:
                message = "each member of this list must be '*' or a DNS-1123 label; " + problem
                out.append(error(f"{here}.namespaces[{k}]", FLOW_SCHEMA, message))
    return out


def _non_resource_rule_findings(rule: dict, here: str) -> list[Finding]:
    """ValidateFlowSchemaNonResourcePolicyRule and ValidateNonResourceURLPath."""
    out = _verb_findings(as_list(rule.get("verbs")), here)
    urls = as_list(rule.get("nonResourceURLs"))
    if not urls:
        message = "nonResourceURLs must contain at least one value"
        out.append(error(f"{here}.nonResourceURLs", FLOW_SCHEMA, message))
    elif "*" in urls:
        if len(urls) > 1:
            message = "if '*' is present, must not specify other non-resource URLs"
            out.append(error(f"{here}.nonResourceURLs", FLOW_SCHEMA, message))
    else:
        for k, url in enumerate(urls):
            problem = url_path_problem(url) if isinstance(url, str) else None
            if problem:
                out.append(error(f"{here}.nonResourceURLs[{k}]", FLOW_SCHEMA, f"{value_text(url)} {problem}"))
    return out


def url_path_problem(path: str) -> str | None:
    if not path:
        return "must not be empty"
    if path == "/":
        return None
    if not path.startswith("/"):
        return "must start with slash"
    if " " in path:
        return "must not contain white-space"
    if "//" in path:
        return "must not contain double slash"
    stars = path.count("*")
    if stars > 1 or (stars == 1 and not path.endswith("/*")):
        return "wildcard can only do suffix matching"
    return None


def priority_level_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidatePriorityLevelConfigurationSpec: type Exempt if and only if the name is 'exempt';
    an Exempt level has no limited, a Limited one no exempt; the limits
    (ValidateLimitedPriorityLevelConfiguration, ValidateExemptPriorityLevelConfiguration,
    ValidateLimitResponse, ValidatePriorityLevelQueuingConfiguration)."""
    spec = as_dict(obj.get("spec"))
    metadata = as_dict(obj.get("metadata"))
    name = metadata.get("name")
    kind = spec.get("type")
    out = []
    v1beta3 = str(obj.get("apiVersion", "")).endswith("/v1beta3")
    if PRESERVE_ZERO_SHARES in as_dict(metadata.get("annotations")) and not v1beta3 and enforced(releases, since=29):
        message = (
            f"annotation {PRESERVE_ZERO_SHARES!r} is forbidden: only the v1beta3 conversion removes it "
            f"(it keeps a zero nominalConcurrencyShares there), {obj.get('apiVersion')} keeps it"
        )
        out.append(error("metadata.annotations", PRIORITY_LEVEL, message))
    if (name == "exempt") != (kind == "Exempt") and isinstance(name, str):
        message = (
            f"type must be 'Exempt' if and only if the name is 'exempt' (name {value_text(name)}, "
            f"type {value_text(kind)})"
        )
        out.append(error("spec.type", PRIORITY_LEVEL, message))
    if kind == "Exempt":
        if spec.get("limited") is not None:
            out.append(error("spec.limited", PRIORITY_LEVEL, "limited must be absent when the type is Exempt"))
        exempt = spec.get("exempt")
        if isinstance(exempt, dict):
            out += _shares_findings(exempt, "spec.exempt")
    elif kind == "Limited":
        if spec.get("exempt") is not None:
            out.append(error("spec.exempt", PRIORITY_LEVEL, "exempt must be absent when the type is Limited"))
        limited = spec.get("limited")
        if not isinstance(limited, dict):
            out.append(error("spec.limited", PRIORITY_LEVEL, "limited is required when the type is Limited"))
        else:
            out += _shares_findings(limited, "spec.limited")
            borrowing = as_int(limited.get("borrowingLimitPercent"))
            if borrowing is not None and borrowing < 0:
                message = f"borrowingLimitPercent {borrowing}: if given, must be a non-negative integer"
                out.append(error("spec.limited.borrowingLimitPercent", PRIORITY_LEVEL, message))
            out += _limit_response_findings(as_dict(limited.get("limitResponse")), "spec.limited.limitResponse")
    elif isinstance(kind, str):
        out.append(error("spec.type", PRIORITY_LEVEL, f"type {value_text(kind)} is not supported: Exempt or Limited"))
    mandatory = MANDATORY_PRIORITY_LEVELS.get(name) if isinstance(name, str) else None
    if mandatory:
        have = _priority_level_spec(spec, v1beta3 and PRESERVE_ZERO_SHARES in as_dict(metadata.get("annotations")))
        if (have[:2] if name == "exempt" else have) != mandatory[0]:
            but = " except spec.exempt" if name == "exempt" else ""
            message = (
                f"spec of the mandatory level {name!r}{but} must equal the apiserver's fixed value ({mandatory[1]})"
            )
            out.append(error("spec", PRIORITY_LEVEL, message))
    return out


def _priority_level_spec(spec: dict, keep_zero_shares: bool) -> tuple:
    """The PriorityLevelConfiguration spec as the internal type holds it after the v1 and v1beta3
    defaults: a limited level's nominalConcurrencyShares 30 when absent (and when 0 in v1beta3
    without the preserve-zero annotation), lendablePercent 0; the queuing defaults; an exempt
    level's shares and percent 0."""
    limited, exempt = spec.get("limited"), spec.get("exempt")
    if limited is not None:
        limited = as_dict(limited)
        shares = limited.get("nominalConcurrencyShares")
        shares = 30 if shares is None or (type(shares) is int and shares == 0 and not keep_zero_shares) else shares
        response = as_dict(limited.get("limitResponse"))
        queuing = response.get("queuing")
        if queuing is not None:
            queuing = as_dict(queuing)
            queuing = (
                _defaulted(queuing.get("queues"), 64),
                _defaulted(queuing.get("handSize"), 8),
                _defaulted(queuing.get("queueLengthLimit"), 50),
            )
        lendable = limited.get("lendablePercent")
        limited = (
            shares,
            (_text(response.get("type")), queuing),
            0 if lendable is None else lendable,
            limited.get("borrowingLimitPercent"),
        )
    if exempt is not None:
        exempt = as_dict(exempt)
        exempt = tuple(
            0 if exempt.get(f) is None else exempt.get(f) for f in ("nominalConcurrencyShares", "lendablePercent")
        )
    return (_text(spec.get("type")), limited, exempt)


def _shares_findings(config: dict, here: str) -> list[Finding]:
    """nominalConcurrencyShares not negative (zero is allowed in v1 and v1beta3, the versions
    1.31 serves), lendablePercent from 0 to 100."""
    out = []
    shares = as_int(config.get("nominalConcurrencyShares"))
    if shares is not None and shares < 0:
        message = f"nominalConcurrencyShares {shares} must be a non-negative integer"
        out.append(error(f"{here}.nominalConcurrencyShares", PRIORITY_LEVEL, message))
    lendable = as_int(config.get("lendablePercent"))
    if lendable is not None and not 0 <= lendable <= 100:
        message = f"lendablePercent {lendable} must be between 0 and 100, inclusive"
        out.append(error(f"{here}.lendablePercent", PRIORITY_LEVEL, message))
    return out


def _limit_response_findings(response: dict, here: str) -> list[Finding]:
    kind = response.get("type")
    queuing = response.get("queuing")
    if kind == "Reject":
        if queuing is not None:
            return [
                error(f"{here}.queuing", PRIORITY_LEVEL, "queuing must be absent when limitResponse.type is Reject")
            ]
        return []
    if kind == "Queue":
        if not isinstance(queuing, dict):
            return [error(f"{here}.queuing", PRIORITY_LEVEL, "queuing is required when limitResponse.type is Queue")]
        return _queuing_findings(queuing, f"{here}.queuing")
    if isinstance(kind, str):
        message = f"limitResponse type {value_text(kind)} is not supported: Queue or Reject"
        return [error(f"{here}.type", PRIORITY_LEVEL, message)]
    return []


def _queuing_findings(queuing: dict, here: str) -> list[Finding]:
    """ValidatePriorityLevelQueuingConfiguration, after the defaults of zeros (64 queues, hand 8,
    queue length 50): positive, at most 10^7 queues, a hand no larger than the deck and of at most
    60 bits of entropy (shufflesharding.RequiredEntropyBits)."""
    out = []
    length = as_int(queuing.get("queueLengthLimit"))
    if length is not None and length < 0:
        out.append(error(f"{here}.queueLengthLimit", PRIORITY_LEVEL, f"queueLengthLimit {length} must be positive"))
    queues = as_int(queuing.get("queues"))
    queues = 64 if queues == 0 or queues is None else queues
    if queues < 0:
        out.append(error(f"{here}.queues", PRIORITY_LEVEL, f"queues {queues} must be positive"))
    elif queues > MAX_QUEUES:
        out.append(error(f"{here}.queues", PRIORITY_LEVEL, f"queues {queues} must not be greater than {MAX_QUEUES}"))
    hand = as_int(queuing.get("handSize"))
    hand = 8 if hand == 0 or hand is None else hand
    if hand < 0:
        out.append(error(f"{here}.handSize", PRIORITY_LEVEL, f"handSize {hand} must be positive"))
    elif hand > queues:  # compared with queues even when queues itself is refused, as upstream does
        message = f"handSize {hand} should not be greater than queues ({queues})"
        out.append(error(f"{here}.handSize", PRIORITY_LEVEL, message))
    elif queues > 0 and math.ceil(math.log2(queues) * hand) > MAX_HASH_BITS:
        message = (
            f"required entropy bits of deckSize {queues} and handSize {hand} should not be greater than {MAX_HASH_BITS}"
        )
        out.append(error(f"{here}.handSize", PRIORITY_LEVEL, message))
    return out
