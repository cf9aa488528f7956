"""Owner `pod`: the apiserver's validation of where a pod may run, for every pod spec a workload
or job holds: tolerations, node and pod affinity, topology spread constraints and scheduling
gates (k8s.io/kubernetes v1.31.1 pkg/apis/core/validation/validation.go: ValidateTolerations,
validateAffinity, validateTopologySpreadConstraints, validateSchedulingGates). pod.py calls
the checks of `SPEC_CHECKS` for each pod spec (pod_plan.py)."""

from __future__ import annotations

import ipaddress
import re
from typing import Any

from generator.core.findings import Finding
from generator.core.grammar import DNS1123_LABEL, DNS1123_SUBDOMAIN, label_key_problem, label_value_problem
from generator.validate.rules.base import as_dict, as_int, as_list, enforced, error, value_text
from generator.validate.rules.pod_plan import PodContext, SpecCheck
from generator.validate.rules.selector import node_field_findings, node_requirement_findings, selector_findings

TOLERATION_OPERATORS = ("Equal", "Exists")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
SCHEDULE_ACTIONS = ("DoNotSchedule", "ScheduleAnyway")
NODE_INCLUSION_POLICIES = ("Honor", "Ignore")
# feature gates on by default from these releases (fields dropped before: no error there)
MIN_DOMAINS_SINCE = 27  # MinDomainsInPodTopologySpread: beta on 1.27, GA 1.30
NODE_INCLUSION_SINCE = 26  # NodeInclusionPolicyInPodTopologySpread: beta on 1.26
MATCH_LABEL_KEYS_SINCE = 27  # MatchLabelKeysInPodTopologySpread: beta on 1.27
POD_AFFINITY_LABEL_KEYS_SINCE = 31  # MatchLabelKeysInPodAffinity: alpha 1.29, beta on 1.31
# MatchLabelKeysInPodTopologySpreadSelectorMerge: beta on 1.34; from then a new spread constraint's
# keys are judged by ValidateMatchLabelKeysAndMismatchLabelKeys, not ValidateMatchLabelKeysInTopologySpread
SPREAD_SELECTOR_MERGE_SINCE = 34
# ValidateNodeSelectorRequirement checks a required node affinity's values as label values from
# 1.33 (kubernetes#128212, milestone v1.33; AllowInvalidLabelValueInRequiredNodeAffinity is false
# on create)
NODE_AFFINITY_VALUES_SINCE = 33


def _tolerations(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    tolerations = spec.get("tolerations")
    if isinstance(tolerations, list) and tolerations:
        return _toleration_findings(tolerations, f"{path}.tolerations")
    return []


def _affinity(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    affinity = spec.get("affinity")
    if isinstance(affinity, dict) and affinity:
        label_keys = enforced(ctx.releases, since=POD_AFFINITY_LABEL_KEYS_SINCE)
        values = enforced(ctx.releases, since=NODE_AFFINITY_VALUES_SINCE)
        return _affinity_findings(affinity, f"{path}.affinity", label_keys, values)
    return []


def _spread(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    constraints = spec.get("topologySpreadConstraints")
    if isinstance(constraints, list) and constraints:
        return _spread_findings(constraints, f"{path}.topologySpreadConstraints", ctx.releases)
    return []


def _gates(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    gates = spec.get("schedulingGates")
    if isinstance(gates, list) and gates:
        return _gate_findings(gates, f"{path}.schedulingGates")
    return []


def _host_aliases(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    aliases = spec.get("hostAliases")
    if isinstance(aliases, list) and aliases:
        return _host_alias_findings(aliases, f"{path}.hostAliases", ctx.releases)
    return []


def _readiness_gates(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    """validateReadinessGates"""
    out = []
    for i, gate in enumerate(as_list(spec.get("readinessGates"))):
        condition = as_dict(gate).get("conditionType")
        problem = label_key_problem(condition, "conditionType") if isinstance(condition, str) else None
        if problem:
            out.append(error(f"{path}.readinessGates[{i}].conditionType", "readiness-gate", problem))
    return out


def _dns(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    if spec.get("dnsConfig") is not None or spec.get("dnsPolicy") == "None":
        return _dns_findings(spec, f"{path}.dnsConfig", ctx.releases)
    return []


# the checks of this module, each with the pod spec fields it reads (pod_plan.py)
POD_OVERHEAD_SINCE = 18  # PodOverhead: alpha 1.16 (off: the field dropped), beta on 1.18, GA 1.24


def _overhead(spec: dict[Any, Any], path: str, ctx: PodContext) -> list[Finding]:
    """The RuntimeClass admission plugin (plugin/pkg/admission/runtimeclass/admission.go,
    setOverhead, v1.31.1): a pod's overhead comes from its RuntimeClass; a pod that sets overhead
    without a runtimeClassName is refused on create ("Pod Overhead set without corresponding
    RuntimeClass defined Overhead"). A template's pods are refused when the controller makes them."""
    if spec.get("overhead") is None or spec.get("runtimeClassName") or not enforced(ctx.releases, POD_OVERHEAD_SINCE):
        return []
    whose = "its pods are refused when the controller creates them" if ctx.template else "the pod is refused"
    message = (
        f"overhead without runtimeClassName: {whose} (the RuntimeClass admission plugin sets overhead from the "
        "pod's RuntimeClass); remove overhead, or name a RuntimeClass that defines it"
    )
    return [error(f"{path}.overhead", "runtime-class", message)]


SPEC_CHECKS = (
    SpecCheck(("overhead",), _overhead),
    SpecCheck(("tolerations",), _tolerations),
    SpecCheck(("affinity",), _affinity),
    SpecCheck(("topologySpreadConstraints",), _spread),
    SpecCheck(("schedulingGates",), _gates),
    SpecCheck(("hostAliases",), _host_aliases),
    SpecCheck(("readinessGates",), _readiness_gates),
    SpecCheck(("dnsConfig", "dnsPolicy"), _dns),
)


MAX_DNS_NAMESERVERS, MAX_DNS_SEARCHES, MAX_DNS_SEARCH_CHARS = 3, 32, 2048


RELAXED_DNS_SEARCH_SINCE = 33  # RelaxedDNSSearchValidation: alpha 1.32, beta on 1.33 ('_' and '.')
STRICT_IP_SINCE = 36  # StrictIPCIDRValidation: alpha 1.33, beta on 1.36 (no leading zeros, no IPv4-mapped IPv6)
_SUBDOMAIN_WITH_UNDERSCORE = re.compile(
    r"^[a-z0-9_]([-a-z0-9_]*[a-z0-9])?(\.[a-z0-9_]([-a-z0-9_]*[a-z0-9])?)*$"
)  # IsDNS1123SubdomainWithUnderscore


def _dns_findings(spec: dict[Any, Any], path: str, releases: tuple[int, ...]) -> list[Finding]:
    """validatePodDNSConfig: dnsPolicy None needs nameservers; at most 3 nameservers (IP
    addresses), 32 search domains of 2048 characters in all (DNS-1123 subdomains); options named."""
    config = spec.get("dnsConfig")
    nameservers = as_list(as_dict(config).get("nameservers"))
    if spec.get("dnsPolicy") == "None":
        if not isinstance(config, dict):
            return [
                error(path, "dns-config", "dnsPolicy None needs a dnsConfig with nameservers: the pod has no DNS else")
            ]
        if not nameservers:
            message = "dnsPolicy None needs at least one nameserver in dnsConfig.nameservers"
            return [error(f"{path}.nameservers", "dns-config", message)]
    if not isinstance(config, dict):
        return []
    out = []
    if len(nameservers) > MAX_DNS_NAMESERVERS:
        message = f"{len(nameservers)} nameservers: at most {MAX_DNS_NAMESERVERS} (the resolver reads no more)"
        out.append(error(f"{path}.nameservers", "dns-config", message))
    for i, server in enumerate(nameservers):
        if isinstance(server, str) and not _is_ip(server, strict=enforced(releases, since=STRICT_IP_SINCE)):
            message = f"nameserver {server!r} is not an IP address"
            if _is_ip(server, strict=False):
                message += " as Kubernetes 1.36 reads one: no leading zeros, no IPv4-mapped IPv6; write it plainly"
            out.append(error(f"{path}.nameservers[{i}]", "dns-config", message))
    searches = [s for s in as_list(config.get("searches")) if isinstance(s, str)]
    if len(searches) > MAX_DNS_SEARCHES:
        message = f"{len(searches)} search domains: at most {MAX_DNS_SEARCHES}"
        out.append(error(f"{path}.searches", "dns-config", message))
    if len(" ".join(searches)) > MAX_DNS_SEARCH_CHARS:
        message = (
            f"the search domains are {len(' '.join(searches))} characters with spaces: at most {MAX_DNS_SEARCH_CHARS}"
        )
        out.append(error(f"{path}.searches", "dns-config", message))
    strict_search = enforced(releases, until=RELAXED_DNS_SEARCH_SINCE - 1)
    for i, search in enumerate(as_list(config.get("searches"))):
        if not isinstance(search, str):
            continue
        domain = search.removesuffix(".")
        if strict_search:
            valid = len(domain) <= 253 and DNS1123_SUBDOMAIN.match(domain) is not None
            allowed = "lower-case letters, digits, '-', '.' (and '_' or '.' alone from Kubernetes 1.33)"
        else:  # ValidateDNS1123SubdomainWithUnderScore; "." alone is allowed
            valid = search == "." or (len(domain) <= 253 and _SUBDOMAIN_WITH_UNDERSCORE.match(domain) is not None)
            allowed = "lower-case letters, digits, '-', '_', '.'"
        if not valid:
            message = f"search domain {search!r} is not a DNS subdomain ({allowed})"
            out.append(error(f"{path}.searches[{i}]", "dns-config", message))
    for i, option in enumerate(as_list(config.get("options"))):
        if isinstance(option, dict) and not option.get("name"):
            out.append(error(f"{path}.options[{i}]", "dns-config", "a DNS option needs a name (ndots, timeout, ...)"))
    return out


def _host_alias_findings(aliases: list[Any], path: str, releases: tuple[int, ...]) -> list[Finding]:
    """ValidateHostAliases: an IP address (IsValidIPForLegacyField) and hostnames that are
    DNS-1123 subdomains."""
    out = []
    strict = enforced(releases, since=STRICT_IP_SINCE)
    for i, alias in enumerate(aliases):
        alias = as_dict(alias)
        ip = alias.get("ip")
        if isinstance(ip, str) and not _is_ip(ip, strict):
            message = f"hostAliases ip {ip!r} is not an IP address"
            if _is_ip(ip, strict=False):
                message += " as Kubernetes 1.36 reads one: no leading zeros, no IPv4-mapped IPv6"
            out.append(error(f"{path}[{i}].ip", "dns-config", message))
        for j, hostname in enumerate(as_list(alias.get("hostnames"))):
            if isinstance(hostname, str) and not (len(hostname) <= 253 and DNS1123_SUBDOMAIN.match(hostname)):
                message = f"hostname {hostname!r} is not a DNS-1123 subdomain (lower-case letters, digits, '-', '.')"
                out.append(error(f"{path}[{i}].hostnames[{j}]", "dns-config", message))
    return out


def _is_ip(text: str, strict: bool) -> bool:
    """validation.IsValidIPForLegacyField: netutils.ParseIPSloppy (IPv4 with leading zeros), or
    with ``strict`` (StrictIPCIDRValidation) neither leading zeros nor an IPv4-mapped IPv6 address."""
    try:
        address = ipaddress.ip_address(text)  # refuses leading zeros
    except ValueError:
        if strict:
            return False
        parts = text.split(".")
        return len(parts) == 4 and all(p.isascii() and p.isdigit() and int(p) <= 255 for p in parts)
    return not (strict and isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped)


def _toleration_findings(tolerations: list[Any], path: str) -> list[Finding]:
    """ValidateTolerations and validateTaintEffect."""
    out = []
    for i, t in enumerate(tolerations):
        if not isinstance(t, dict):
            continue
        here = f"{path}[{i}]"
        key, operator, value, effect = t.get("key"), t.get("operator"), t.get("value"), t.get("effect")
        key = key if isinstance(key, str) else ""
        operator = operator if isinstance(operator, str) else ""
        value = value if isinstance(value, str) else ""
        if key:
            problem = label_key_problem(key, "toleration")
            if problem:
                out.append(error(f"{here}.key", "toleration", problem))
        elif operator != "Exists":
            message = (
                f"a toleration without a key matches every taint only with operator 'Exists', got "
                f"{operator or 'Equal (the default)'!r}; set operator: Exists, or name the taint's key"
            )
            out.append(error(f"{here}.operator", "toleration", message))
        if t.get("tolerationSeconds") is not None and effect != "NoExecute":
            message = (
                f"tolerationSeconds applies only to effect 'NoExecute', got effect {value_text(effect or 'empty')}; "
                "set effect: NoExecute or drop tolerationSeconds"
            )
            out.append(error(f"{here}.effect", "toleration", message))
        if operator in ("Equal", ""):
            if value and label_value_problem(value, key):
                message = (
                    f"toleration value {value!r} must be a label value: at most 63 letters, digits, '-', '_' or "
                    "'.', starting and ending with a letter or digit"
                )
                out.append(error(f"{here}.operator", "toleration", message))
        elif operator == "Exists":
            if value:
                message = f"operator 'Exists' matches any value: drop value {value!r}, or use operator 'Equal'"
                out.append(error(f"{here}.operator", "toleration", message))
        else:
            message = f"toleration operator {operator!r} is not one of {', '.join(TOLERATION_OPERATORS)}"
            out.append(error(f"{here}.operator", "toleration", message))
        if isinstance(effect, str) and effect and effect not in TAINT_EFFECTS:
            message = (
                f"toleration effect {effect!r} is not one of {', '.join(TAINT_EFFECTS)} (empty matches every effect)"
            )
            out.append(error(f"{here}.effect", "toleration", message))
    return out


# -- affinity (validateAffinity, validateNodeAffinity, validatePodAffinity) ----------------------


def _affinity_findings(affinity: dict[Any, Any], path: str, label_keys: bool, values: bool = False) -> list[Finding]:
    out = []
    node = as_dict(affinity.get("nodeAffinity"))
    required = node.get("requiredDuringSchedulingIgnoredDuringExecution")
    if isinstance(required, dict):
        here = f"{path}.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
        terms = required.get("nodeSelectorTerms")
        if isinstance(terms, list) and not terms:  # absent: the schema's required
            out.append(error(here, "affinity", "a required node affinity needs at least one node selector term"))
        for i, term in enumerate(as_list(terms)):
            out += _node_term_findings(as_dict(term), f"{here}[{i}]", values)
    preferred = f"{path}.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution"
    for i, term in enumerate(as_list(node.get("preferredDuringSchedulingIgnoredDuringExecution"))):
        term = as_dict(term)
        out += _weight_findings(term, f"{preferred}[{i}]")
        out += _node_term_findings(as_dict(term.get("preference")), f"{preferred}[{i}].preference")
    for kind in ("podAffinity", "podAntiAffinity"):
        pod = as_dict(affinity.get(kind))
        here = f"{path}.{kind}.requiredDuringSchedulingIgnoredDuringExecution"
        for i, term in enumerate(as_list(pod.get("requiredDuringSchedulingIgnoredDuringExecution"))):
            out += _pod_term_findings(as_dict(term), f"{here}[{i}]", label_keys)
        here = f"{path}.{kind}.preferredDuringSchedulingIgnoredDuringExecution"
        for i, term in enumerate(as_list(pod.get("preferredDuringSchedulingIgnoredDuringExecution"))):
            term = as_dict(term)
            out += _weight_findings(term, f"{here}[{i}]")
            out += _pod_term_findings(as_dict(term.get("podAffinityTerm")), f"{here}[{i}].podAffinityTerm", label_keys)
    return out


def _weight_findings(term: dict[Any, Any], here: str) -> list[Finding]:
    weight = as_int(term.get("weight"))
    if weight is not None and not 1 <= weight <= 100:
        return [error(f"{here}.weight", "affinity", f"weight {weight} must be in the range 1-100")]
    return []


def _node_term_findings(term: dict[Any, Any], here: str, values: bool = False) -> list[Finding]:
    """ValidateNodeSelectorTerm: each requirement of matchExpressions and matchFields; ``values``:
    a required term's, whose values are label values."""
    out = []
    for j, req in enumerate(as_list(term.get("matchExpressions"))):
        if isinstance(req, dict):
            out += _node_requirement_findings(req, f"{here}.matchExpressions[{j}]")
            if values and isinstance(req.get("values"), list):
                key = req.get("key")
                for k, value in enumerate(req["values"]):
                    if isinstance(value, str) and (problem := label_value_problem(value, key)):
                        out.append(error(f"{here}.matchExpressions[{j}].values[{k}]", "affinity", problem))
    for j, req in enumerate(as_list(term.get("matchFields"))):
        if isinstance(req, dict):
            out += node_field_findings(req, f"{here}.matchFields[{j}]", "affinity")
    return out


def _node_requirement_findings(req: dict[Any, Any], here: str) -> list[Finding]:
    """ValidateNodeSelectorRequirement (selector.py); and Gt/Lt's value an integer, which the
    scheduler's selector needs (labels.NewRequirement: otherwise the term matches no node)."""
    out = node_requirement_findings(req, here, "affinity")
    operator, values = req.get("operator"), as_list(req.get("values"))
    if operator in ("Gt", "Lt") and len(values) == 1 and not (isinstance(values[0], str) and _is_int64(values[0])):
        message = (
            f"operator {operator!r} compares with an integer, got {value_text(values[0])}: the scheduler cannot "
            "parse it and the pod matches no node"
        )
        out.append(error(f"{here}.values[0]", "affinity", message))
    return out


def _is_int64(text: str) -> bool:
    """strconv.ParseInt(text, 10, 64)."""
    digits = text[1:] if text[:1] in "+-" else text
    return digits.isascii() and digits.isdigit() and -(2**63) <= int(text) < 2**63


def _pod_term_findings(term: dict[Any, Any], here: str, label_keys: bool) -> list[Finding]:
    """validatePodAffinityTerm: namespaces are namespace names, topologyKey a label key, and
    (``label_keys``: where the fields are kept) matchLabelKeys and mismatchLabelKeys."""
    out = _pod_label_keys_findings(term, here) if label_keys else []
    for field in ("labelSelector", "namespaceSelector"):  # ValidatePodAffinityTermSelector
        if isinstance(term.get(field), dict):
            out += selector_findings(term[field], f"{here}.{field}")
    for k, name in enumerate(as_list(term.get("namespaces"))):
        if isinstance(name, str) and not (len(name) <= 63 and DNS1123_LABEL.match(name)):
            out.append(
                error(f"{here}.namespaces[{k}]", "affinity", f"{name!r} is not a namespace name (DNS-1123 label)")
            )
    key = term.get("topologyKey")
    if key == "":
        message = "topologyKey must not be empty: name the node label that groups nodes (kubernetes.io/hostname)"
        out.append(error(f"{here}.topologyKey", "affinity", message))
    elif isinstance(key, str):
        problem = label_key_problem(key, "topologyKey")
        if problem:
            out.append(error(f"{here}.topologyKey", "affinity", problem))
    return out


# -- topology spread constraints and scheduling gates --------------------------------------------


def _spread_findings(constraints: list[Any], path: str, releases: tuple[int, ...]) -> list[Finding]:
    """validateTopologySpreadConstraints (matchLabelKeys and the label selector: not here)."""
    out = []
    seen: dict[tuple[Any, ...], int] = {}
    for i, c in enumerate(constraints):
        if not isinstance(c, dict):
            continue
        here = f"{path}[{i}]"
        skew = as_int(c.get("maxSkew"))
        if skew is not None and skew <= 0:
            out.append(error(f"{here}.maxSkew", "topology-spread", f"maxSkew must be at least 1, got {skew}"))
        key, when = c.get("topologyKey"), c.get("whenUnsatisfiable")
        if key == "":
            message = "topologyKey must not be empty: name the node label to spread over (topology.kubernetes.io/zone)"
            out.append(error(f"{here}.topologyKey", "topology-spread", message))
        if isinstance(when, str) and when not in SCHEDULE_ACTIONS:
            message = f"whenUnsatisfiable {when!r} is not one of {', '.join(SCHEDULE_ACTIONS)}"
            out.append(error(f"{here}.whenUnsatisfiable", "topology-spread", message))
        if isinstance(key, str) and isinstance(when, str):
            if (key, when) in seen:  # upstream reports the first of the two; the second is where it shows
                message = (
                    f"a second constraint for topologyKey {key!r} with whenUnsatisfiable {when!r} "
                    f"(also [{seen[(key, when)]}]); merge them"
                )
                out.append(error(here, "topology-spread", message))
            seen.setdefault((key, when), i)
        min_domains = as_int(c.get("minDomains"))
        if min_domains is not None and enforced(releases, since=MIN_DOMAINS_SINCE):
            if min_domains <= 0:
                message = f"minDomains must be at least 1, got {min_domains}"
                out.append(error(f"{here}.minDomains", "topology-spread", message))
            if when != "DoNotSchedule":
                message = f"minDomains applies only with whenUnsatisfiable: DoNotSchedule, got {value_text(when)}"
                out.append(error(f"{here}.minDomains", "topology-spread", message))
        if isinstance(c.get("labelSelector"), dict):  # unversionedvalidation.ValidateLabelSelector
            out += selector_findings(c["labelSelector"], f"{here}.labelSelector")
        keys = c.get("matchLabelKeys")
        if isinstance(keys, list) and keys and enforced(releases, since=MATCH_LABEL_KEYS_SINCE):
            legacy = enforced(releases, since=MATCH_LABEL_KEYS_SINCE, until=SPREAD_SELECTOR_MERGE_SINCE - 1)
            out += _label_keys_findings(c, keys, f"{here}.matchLabelKeys", "topology-spread", spread=legacy)
            if not legacy:
                out += _merged_key_findings(c, keys, f"{here}.matchLabelKeys", "topology-spread")
        if enforced(releases, since=NODE_INCLUSION_SINCE):
            for field in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
                policy = c.get(field)
                if isinstance(policy, str) and policy not in NODE_INCLUSION_POLICIES:
                    message = f"{field} {policy!r} is not one of {', '.join(NODE_INCLUSION_POLICIES)}"
                    out.append(error(f"{here}.{field}", "topology-spread", message))
    return out


def _label_keys_findings(term: dict[Any, Any], keys: list[Any], where: str, rule: str, spread: bool) -> list[Finding]:
    """validateMatchLabelKeysInTopologySpread, validateLabelKeys: keys only with a labelSelector,
    each a label key; a spread constraint's key not also in its labelSelector."""
    selector = term.get("labelSelector")
    if not isinstance(selector, dict):
        field = where.rpartition(".")[2]
        return [error(where, rule, f"{field} needs a labelSelector: the keys narrow the pods it selects")]
    out = []
    in_selector = {k for k in as_dict(selector.get("matchLabels")) if isinstance(k, str)}
    in_selector |= {k for e in as_list(selector.get("matchExpressions")) if isinstance(k := as_dict(e).get("key"), str)}
    for i, key in enumerate(keys):
        if not isinstance(key, str):
            continue
        problem = label_key_problem(key, "label")
        if problem:
            out.append(error(f"{where}[{i}]", rule, problem))
        elif spread and key in in_selector:
            message = f"label key {key!r} is in both matchLabelKeys and the labelSelector: keep it in one"
            out.append(error(f"{where}[{i}]", rule, message))
    return out


def _merged_key_findings(term: dict[Any, Any], match: list[Any], where: str, rule: str) -> list[Finding]:
    """ValidateMatchLabelKeysAndMismatchLabelKeys' second step: a matchLabelKeys key that a
    labelSelector expression names when matchLabels or an earlier expression already has it (the
    apiserver merges the keys into a Pod's selector as expressions before it validates)."""
    selector = term.get("labelSelector")
    if not isinstance(selector, dict):
        return []
    out = []
    seen = {k for k in as_dict(selector.get("matchLabels")) if isinstance(k, str)}
    for expression in as_list(selector.get("matchExpressions")):
        key = as_dict(expression).get("key")
        if not isinstance(key, str):
            continue
        if key in match and key in seen:
            message = f"label key {key!r} is in both matchLabelKeys and the labelSelector: keep it in one"
            out.append(error(f"{where}[{match.index(key)}]", rule, message))
        seen.add(key)
    return out


def _pod_label_keys_findings(term: dict[Any, Any], here: str) -> list[Finding]:
    """validateMatchLabelKeysAndMismatchLabelKeys of a pod affinity term."""
    out = []
    match, mismatch = as_list(term.get("matchLabelKeys")), as_list(term.get("mismatchLabelKeys"))
    for field, keys in (("matchLabelKeys", match), ("mismatchLabelKeys", mismatch)):
        if keys:
            out += _label_keys_findings(term, keys, f"{here}.{field}", "affinity", spread=False)
    if match:
        out += _merged_key_findings(term, match, f"{here}.matchLabelKeys", "affinity")
    for i, key in enumerate(match):
        if key in mismatch:
            message = f"label key {key!r} is in both matchLabelKeys and mismatchLabelKeys: keep it in one"
            out.append(error(f"{here}.matchLabelKeys[{i}]", "affinity", message))
    return out


def _gate_findings(gates: list[Any], path: str) -> list[Finding]:
    """validateSchedulingGates: qualified names, none twice."""
    out, seen = [], set()
    for i, gate in enumerate(gates):
        name = as_dict(gate).get("name")
        if not isinstance(name, str):
            continue  # absent: the schema's required
        problem = label_key_problem(name, "scheduling gate")
        if problem:
            out.append(error(f"{path}[{i}].name", "scheduling-gate", problem))
        if name in seen:
            message = f"scheduling gate {name!r} is listed twice; remove one"
            out.append(error(f"{path}[{i}].name", "scheduling-gate", message))
        seen.add(name)
    return out
