"""Owner `authorization`: the apiserver's validation of the access reviews, the requests of
authorization.k8s.io/v1 (k8s.io/kubernetes pkg/apis/authorization/validation/validation.go,
v1.31; schemas/ledger/authorization-*.json), and the checks of their REST creates
(pkg/registry/authorization/*/rest.go). A review is no stored object: its REST create runs no
ValidateObjectMeta (no name is needed; rules/meta.py REQUESTS) but its own validation, which
wants the metadata empty."""

from __future__ import annotations

from typing import Any

from generator.core.findings import Finding
from generator.core.grammar import label_key_problem, label_value_problem
from generator.validate.rules.base import as_dict, as_list, enforced, error, value_text

REVIEW_RULE = "access-review"
METADATA_RULE = "access-review-metadata"
LOCAL_RULE = "local-access-review"
SELECTOR_RULE = "access-review-selector"
RULES_REVIEW_RULE = "rules-review"

# AuthorizeWithSelectors (k8s.io/apiserver pkg/features): alpha and off in 1.31, so the REST
# creates set spec.resourceAttributes.fieldSelector and labelSelector to nil before validation;
# beta and on by default from 1.32 (GA in 1.34, read from openshift/microshift f84ceaf6's vendored
# kube_features.go), where validateResourceAttributes sees them.
SELECTORS_SINCE = 32


def _empty(key: str, value: Any) -> bool:
    """Whether metadata's ``key`` decodes to its zero value, as apiequality.Semantic.DeepEqual
    compares it with metav1.ObjectMeta{} (nil and empty maps and lists are equal there). The
    pointers (deletionTimestamp, deletionGracePeriodSeconds) are zero only when null: a 0 is set."""
    if value is None:
        return True
    if key in ("deletionTimestamp", "deletionGracePeriodSeconds"):
        return False
    return value in ("", 0, {}, []) and not isinstance(value, bool)


# the fields of metav1.ObjectMeta: a key the decoder does not know is dropped before validation
OBJECT_META_FIELDS = (
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
)


def _metadata(obj: dict, local: bool) -> list[Finding]:
    """ValidateSubjectAccessReview, ValidateSelfSubjectAccessReview: metadata must be empty but
    for managedFields (the create handler's field manager writes them); a LocalSubjectAccessReview's
    but for its namespace too. A cluster-scoped review's namespace is cleared by the create
    handler (rest.EnsureObjectNamespaceMatchesRequestNamespace) before validation."""
    meta = as_dict(obj.get("metadata"))
    ignored = {"managedFields", "namespace"}
    set_fields = [key for key in OBJECT_META_FIELDS if key not in ignored and not _empty(key, meta.get(key))]
    if not set_fields:
        return []
    kind = obj.get("kind")
    but = "except for namespace" if local else "(managedFields aside)"
    message = (
        f"a {kind}'s metadata must be empty {but}: it is a request, not a stored object; remove {', '.join(set_fields)}"
    )
    return [error("metadata", METADATA_RULE, message)]


def _spec(spec: Any, with_subject: bool) -> list[Finding]:
    """ValidateSubjectAccessReviewSpec (with_subject) and ValidateSelfSubjectAccessReviewSpec:
    exactly one of resourceAttributes and nonResourceAttributes; a user or a group. No spec (or
    not a mapping) is the schema's required (or type) finding alone."""
    if not isinstance(spec, dict):
        return []
    out = []
    resource, non_resource = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
    if resource is not None and non_resource is not None:
        message = "nonResourceAttributes cannot be specified in combination with resourceAttributes"
        out.append(error("spec.nonResourceAttributes", REVIEW_RULE, message))
    if resource is None and non_resource is None:
        message = "exactly one of nonResourceAttributes or resourceAttributes must be specified"
        out.append(error("spec.resourceAttributes", REVIEW_RULE, message))
    if with_subject and not spec.get("user") and not as_list(spec.get("groups")):
        out.append(error("spec.user", REVIEW_RULE, "at least one of user or group must be specified"))
    return out


def _selector(selector: Any, path: str, label: bool) -> list[Finding]:
    """validateFieldSelectorAttributes and validateLabelSelectorAttributes: rawSelector or
    requirements, not both; each requirement as metav1validation.ValidateFieldSelectorRequirement or
    ValidateLabelSelectorRequirement with AllowUnknownOperatorInRequirement (an operator this
    release does not know passes)."""
    if selector is None:
        return []
    selector = as_dict(selector)
    out = []
    raw, requirements = selector.get("rawSelector"), as_list(selector.get("requirements"))
    if raw and requirements:
        message = "rawSelector may not be specified at the same time as requirements"
        out.append(error(f"{path}.rawSelector", SELECTOR_RULE, message))
    if not raw and not requirements:
        message = f"when {path} is specified, requirements or rawSelector is required"
        out.append(error(f"{path}.requirements", SELECTOR_RULE, message))
    for i, requirement in enumerate(requirements):
        requirement = as_dict(requirement)
        here = f"{path}.requirements[{i}]"
        key, operator, values = requirement.get("key"), requirement.get("operator"), as_list(requirement.get("values"))
        if not label and key == "":  # absent: the schema's required
            out.append(error(f"{here}.key", SELECTOR_RULE, "the key of a field selector requirement must be specified"))
        if operator in ("In", "NotIn") and not values:
            message = f"values must be specified when the operator is {operator}"
            out.append(error(f"{here}.values", SELECTOR_RULE, message))
        elif operator in ("Exists", "DoesNotExist") and values:
            message = f"values may not be specified when the operator is {operator}"
            out.append(error(f"{here}.values", SELECTOR_RULE, message))
        if label:  # ValidateLabelName and IsValidLabelValue (AllowInvalidLabelValueInSelector is false)
            problem = label_key_problem(key) if isinstance(key, str) else None  # absent: the schema's required
            if problem:
                out.append(error(f"{here}.key", SELECTOR_RULE, problem))
            for j, value in enumerate(values):
                problem = label_value_problem(value, key) if isinstance(value, str) else None
                if problem:
                    out.append(error(f"{here}.values[{j}]", SELECTOR_RULE, problem))
    return out


def _resource_attributes(spec: dict, releases: tuple[int, ...]) -> list[Finding]:
    """validateResourceAttributes, where the targeted release keeps the selectors."""
    attributes = spec.get("resourceAttributes")
    if not isinstance(attributes, dict) or not enforced(releases, SELECTORS_SINCE):
        return []
    path = "spec.resourceAttributes"
    out = _selector(attributes.get("fieldSelector"), f"{path}.fieldSelector", label=False)
    out += _selector(attributes.get("labelSelector"), f"{path}.labelSelector", label=True)
    return out


def subject_access_review_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidateSubjectAccessReview."""
    spec = as_dict(obj.get("spec"))
    return (
        _spec(obj.get("spec"), with_subject=True) + _resource_attributes(spec, releases) + _metadata(obj, local=False)
    )


def self_subject_access_review_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidateSelfSubjectAccessReview: the subject is the requester, so no user or group."""
    spec = as_dict(obj.get("spec"))
    return (
        _spec(obj.get("spec"), with_subject=False) + _resource_attributes(spec, releases) + _metadata(obj, local=False)
    )


def local_subject_access_review_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """ValidateLocalSubjectAccessReview: the spec as a SubjectAccessReview's, metadata empty but
    for the namespace, spec.resourceAttributes.namespace equal to metadata.namespace, and no
    nonResourceAttributes. The create handler sets an absent metadata.namespace to the request's
    (kubectl's namespace, never empty): an empty resourceAttributes.namespace cannot match it."""
    spec = as_dict(obj.get("spec"))
    out = _spec(obj.get("spec"), with_subject=True) + _resource_attributes(spec, releases) + _metadata(obj, local=True)
    attributes = spec.get("resourceAttributes")
    if isinstance(attributes, dict):
        namespace = as_dict(obj.get("metadata")).get("namespace") or None
        wanted = attributes.get("namespace") or ""
        if (namespace is not None and wanted != namespace) or (namespace is None and not wanted):
            said = (
                f"metadata.namespace {value_text(namespace)}"
                if namespace
                else "the request's namespace (kubectl's, as metadata.namespace is not set)"
            )
            message = f"spec.resourceAttributes.namespace {value_text(wanted)} must match {said}"
            out.append(error("spec.resourceAttributes.namespace", LOCAL_RULE, message))
    if spec.get("nonResourceAttributes") is not None:
        message = "nonResourceAttributes are disallowed on a LocalSubjectAccessReview: use a SubjectAccessReview"
        out.append(error("spec.nonResourceAttributes", LOCAL_RULE, message))
    return out


def self_subject_rules_review_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """The SelfSubjectRulesReview REST create (pkg/registry/authorization/selfsubjectrulesreview,
    no validation function): a request without spec.namespace is refused ("no namespace on
    request")."""
    spec = obj.get("spec")
    if isinstance(spec, dict) and not spec.get("namespace"):
        message = "spec.namespace is required: the rules are listed for one namespace (no namespace on request)"
        return [error("spec.namespace", RULES_REVIEW_RULE, message)]
    return []
