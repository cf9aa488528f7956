"""Owner `rbac`: the apiserver's validation of Roles, ClusterRoles and their bindings beyond
their schemas (k8s.io/kubernetes pkg/apis/rbac/validation/validation.go; each rule names the
function it ports)."""

from __future__ import annotations

from generator.core.findings import Finding
from generator.core.grammar import DNS1123_SUBDOMAIN, name_problem, path_segment_problem
from generator.validate.rules.base import as_dict, as_list, error
from generator.validate.rules.selector import selector_findings

GROUP = "rbac.authorization.k8s.io"


def role_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidateRole / ValidateClusterRole: each rule (ValidatePolicyRule), a ClusterRole's
    aggregationRule selectors."""
    namespaced = obj.get("kind") == "Role"
    out = []
    for i, rule in enumerate(as_list(obj.get("rules"))):
        out += policy_rule_findings(as_dict(rule), f"rules[{i}]", namespaced)
    aggregation = obj.get("aggregationRule")
    if isinstance(aggregation, dict):
        selectors = as_list(aggregation.get("clusterRoleSelectors"))
        if not selectors:
            message = "aggregationRule needs at least one clusterRoleSelector"
            out.append(error("aggregationRule.clusterRoleSelectors", "rbac-rule", message))
        for i, selector in enumerate(selectors):
            out += selector_findings(selector, f"aggregationRule.clusterRoleSelectors[{i}]")
    return out


def policy_rule_findings(rule: dict, here: str, namespaced: bool) -> list[Finding]:
    """ValidatePolicyRule: verbs; resource rules need apiGroups and resources; non-resource URLs
    only in a ClusterRole and never with resources."""
    out = []
    if not as_list(rule.get("verbs")):
        out.append(error(f"{here}.verbs", "rbac-rule", "verbs must contain at least one value (e.g. get, list, watch)"))
    urls = as_list(rule.get("nonResourceURLs"))
    if urls:
        if namespaced:
            message = "a Role's rules cannot apply to nonResourceURLs: use a ClusterRole"
            out.append(error(f"{here}.nonResourceURLs", "rbac-rule", message))
        if as_list(rule.get("apiGroups")) or as_list(rule.get("resources")) or as_list(rule.get("resourceNames")):
            message = "a rule cannot apply to both resources (apiGroups, resources, resourceNames) and nonResourceURLs"
            out.append(error(f"{here}.nonResourceURLs", "rbac-rule", message))
        return out
    if not as_list(rule.get("apiGroups")):
        message = 'a resource rule needs at least one apiGroup ("" is the core group)'
        out.append(error(f"{here}.apiGroups", "rbac-rule", message))
    if not as_list(rule.get("resources")):
        out.append(error(f"{here}.resources", "rbac-rule", "a resource rule needs at least one resource"))
    return out


def binding_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidateRoleBinding / ValidateClusterRoleBinding: the roleRef (group, kind, name) and each
    subject (ValidateRoleBindingSubject)."""
    namespaced = obj.get("kind") == "RoleBinding"
    out = []
    ref = obj.get("roleRef")
    if isinstance(ref, dict):
        group, kind = ref.get("apiGroup"), ref.get("kind")
        # rbac/v1 defaults.go SetDefaults_(Cluster)RoleBinding fill an empty roleRef.apiGroup
        # with rbac.authorization.k8s.io before validation (1.8 to 1.34): "" is no mistake
        if isinstance(group, str) and group and group != GROUP:
            out.append(error("roleRef.apiGroup", "role-ref", f"roleRef.apiGroup must be {GROUP}, got {group!r}"))
        allowed = ("Role", "ClusterRole") if namespaced else ("ClusterRole",)
        if isinstance(kind, str) and kind not in allowed:
            message = f"a {obj.get('kind')}'s roleRef.kind must be {' or '.join(allowed)}, got {kind!r}"
            out.append(error("roleRef.kind", "role-ref", message))
        name = ref.get("name")
        if name == "":  # an absent one is the schema's (required)
            out.append(error("roleRef.name", "role-ref", "roleRef needs the name of the role"))
        elif isinstance(name, str) and (problem := path_segment_problem(name, "roleRef name")):
            out.append(error("roleRef.name", "role-ref", problem))  # ValidateRBACName
    for i, subject in enumerate(as_list(obj.get("subjects"))):
        out += _subject_findings(as_dict(subject), f"subjects[{i}]", namespaced)
    return out


def _subject_findings(subject: dict, here: str, namespaced: bool) -> list[Finding]:
    """ValidateRoleBindingSubject: a name; ServiceAccount in group "" (and with a namespace in a
    ClusterRoleBinding); User and Group in rbac.authorization.k8s.io (the v1 default)."""
    out = []
    kind, group = subject.get("kind"), subject.get("apiGroup")
    if subject.get("name") == "":  # an absent one is the schema's (required)
        out.append(error(f"{here}.name", "subject", "a subject needs a name"))
    if kind == "ServiceAccount":
        name = subject.get("name")
        if name and isinstance(name, str):  # ValidateServiceAccountName: a DNS-1123 subdomain
            problem = name_problem(name, DNS1123_SUBDOMAIN, 253, "ServiceAccount name (DNS-1123 subdomain)")
            if problem:
                out.append(error(f"{here}.name", "subject", problem))
        if isinstance(group, str) and group:
            message = f'a ServiceAccount subject\'s apiGroup is "" (the core group), got {group!r}'
            out.append(error(f"{here}.apiGroup", "subject", message))
        if not namespaced and not subject.get("namespace"):
            message = "a ServiceAccount subject of a ClusterRoleBinding needs its namespace"
            out.append(error(f"{here}.namespace", "subject", message))
    elif kind in ("User", "Group"):
        if isinstance(group, str) and group not in ("", GROUP):
            message = f"a {kind} subject's apiGroup is {GROUP}, got {group!r}"
            out.append(error(f"{here}.apiGroup", "subject", message))
    elif isinstance(kind, str):
        message = f"subject kind {kind!r} is not one of ServiceAccount, User, Group"
        out.append(error(f"{here}.kind", "subject", message))
    return out
