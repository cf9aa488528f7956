"""Owner `object`: the apiserver's checks of every object's metadata (names, namespace, label
and annotation keys, label values). NAME_RULES is the one table of which name grammar each
kind has."""

from __future__ import annotations

from typing import Any

from generator.core.findings import Finding, child
from generator.core.grammar import (
    DNS1035_LABEL,
    DNS1123_LABEL,
    DNS1123_SUBDOMAIN,
    label_key_problem,
    label_value_problem,
    name_problem,
    path_segment_problem,
)
from generator.validate.rules.base import as_dict, byte_length, error, value_text

# -- names ------------------------------------------------------------------------------------
# Each kind's metadata.name is checked with the name function its own
# pkg/apis/<group>/validation passes to ValidateObjectMeta (kubernetes/kubernetes); every name
# is also a URL path segment (path.IsValidPathSegmentName, applied by the storage key functions
# NamespaceKeyFunc/NoNamespaceKeyFunc), which the stricter grammars already imply.
# Custom resources: NameIsDNSSubdomain (apiextensions-apiserver customResourceValidator).


def _subdomain(name: Any, what: Any) -> Any:
    return name_problem(name, DNS1123_SUBDOMAIN, 253, f"{what} name (DNS-1123 subdomain)")


def _label(name: Any, what: Any) -> Any:
    return name_problem(name, DNS1123_LABEL, 63, f"{what} name (DNS-1123 label)")


def _dns1035(name: Any, what: Any) -> Any:
    return name_problem(name, DNS1035_LABEL, 63, f"{what} name (DNS-1035 label)")


def _path_segment(name: Any, what: Any) -> Any:
    return path_segment_problem(name, f"{what} name")


# (API group, kind) -> [(first Kubernetes minor, name check)], the newest entry at or below the
# targeted release applies; a kind not listed is a DNS-1123 subdomain (NameIsDNSSubdomain, the
# function most of pkg/apis/*/validation use: Deployment, ConfigMap, Secret, Ingress, ...).
NAME_RULES = {
    # core/validation: ValidateNamespaceName = NameIsDNSLabel, ValidateServiceName = NameIsDNS1035Label
    ("", "Namespace"): [(0, _label)],
    ("", "Service"): [(0, _dns1035)],
    # core/validation legacyValidateEvent: a core/v1 Event's name is not checked beyond the path
    ("", "Event"): [(0, _path_segment)],
    # rbac/validation: ValidateRBACName = path.IsValidPathSegmentName ("system:aggregated-metrics-reader")
    ("rbac.authorization.k8s.io", "Role"): [(0, _path_segment)],
    ("rbac.authorization.k8s.io", "ClusterRole"): [(0, _path_segment)],
    ("rbac.authorization.k8s.io", "RoleBinding"): [(0, _path_segment)],
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): [(0, _path_segment)],
    # certificates/validation: ValidateCertificateRequestName accepts any name
    ("certificates.k8s.io", "CertificateSigningRequest"): [(0, _path_segment)],
    # kube-aggregator ValidateAPIService: path.IsValidPathSegmentName, then version.group (rules/apiregistration.py)
    ("apiregistration.k8s.io", "APIService"): [(0, _path_segment)],
    # apps/validation ValidateStatefulSetName: NameIsDNSSubdomain, NameIsDNSLabel from 1.27
    # (kubernetes/kubernetes#114172: the name becomes each pod's hostname, a DNS label)
    ("apps", "StatefulSet"): [(0, _subdomain), (27, _label)],
    # networking/validation ValidateIPAddressName: the name is an IP address in its canonical form
    # (2001:db8::1 too, which no DNS name is): rules/networking.py's ip-address rule checks it
    ("networking.k8s.io", "IPAddress"): [],
}
# (A CronJob's name at most 52 characters, ValidateCronJobCreate, is rules/batch.py's.)


def _name_check(api_version: str, kind: str, releases: list[int] | None) -> Any:
    """The name check of ``kind`` (the strictest over ``releases``: a bundle must pass them all)."""
    group = api_version.rpartition("/")[0]
    table = NAME_RULES.get((group, kind))
    if table is None:
        return [_subdomain]
    if not table:  # a kind whose own rule checks its name
        return []
    checks = []
    for minor in releases or [max(first for first, _ in table)]:
        applicable = [check for first, check in table if first <= minor]
        if applicable and applicable[-1] not in checks:
            checks.append(applicable[-1])
    return checks


JOB_NAME_LABEL = "job-name"


def _job_name_findings(obj: dict[Any, Any], name: Any) -> list[Finding]:
    """A Job's name becomes the value of its pod template's `job-name` label (registry/batch/job
    strategy generateSelector, on every release, unless spec.manualSelector is true or the
    template sets that label itself), and a label value has at most 63 characters."""
    spec = as_dict(obj.get("spec"))
    labels = as_dict(as_dict(as_dict(spec.get("template")).get("metadata")).get("labels"))
    if spec.get("manualSelector") is True or JOB_NAME_LABEL in labels:
        return []
    if isinstance(name, str) and len(name) > 63:
        return [
            error(
                "metadata.name",
                "name",
                f"{name!r} is {len(name)} characters; a Job name has at most 63: the apiserver copies it "
                f"into the pod template's {JOB_NAME_LABEL!r} label, and a label value has at most 63",
            )
        ]
    return []


def _mask_trailing_dash(name: str) -> str:
    """apimachinery maskTrailingDash (pkg/api/validation/generic.go, v1.31.1): a generateName may
    end in '-' (the random suffix follows); as upstream writes it, `name[:len(name)-2] + "a"`, the
    character before the dash goes too ("aB-" is checked as "aa")."""
    return name[:-2] + "a" if len(name) > 1 and name.endswith("-") else name


# apiserver/pkg/storage/names SimpleNameGenerator: the first 58 characters of the generateName
# (MaxGeneratedNameLength, 63 - 5) and 5 random ones of utilrand's "bcdfghjklmnpqrstvwxz2456789"
GENERATED_BASE_LENGTH = 58
GENERATED_SUFFIX = "bcdfg"


def generated_name(generate: str) -> str:
    """A name the apiserver generates from ``generate`` before validation (rest.BeforeCreate);
    which 5 characters it draws does not change whether the name is valid."""
    return generate[:GENERATED_BASE_LENGTH] + GENERATED_SUFFIX


def name_findings(obj: dict[Any, Any], releases: list[int] | None = None) -> list[Finding]:
    """metadata.name checked as its kind's own validation does, on ``releases`` (default: the newest rule);
    a generateName as ValidateObjectMetaAccessor checks it: the kind's name function with prefix
    true (maskTrailingDash)."""
    meta = as_dict(obj.get("metadata"))
    name = meta.get("name")
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    what = kind if isinstance(kind, str) and kind else "object"
    generate = meta.get("generateName")
    if isinstance(generate, str) and generate:
        group_version = api_version if isinstance(api_version, str) else ""
        for check in _name_check(group_version, what, releases):
            problem = check(_mask_trailing_dash(generate), what)
            if problem:
                message = f"generateName {generate!r} does not give a valid name: {problem}"
                return [error("metadata.generateName", "name", message)]
        if name is None or name == "":
            # the name the apiserver generates is validated as a name (at metadata.name): a
            # generateName that passes its own check may still give none ("a.-", "aB-")
            for check in _name_check(group_version, what, releases):
                problem = check(generated_name(generate), what)
                if problem:
                    message = f"generateName {generate!r} gives names like {generated_name(generate)!r}: {problem}"
                    return [error("metadata.name", "name", message)]
            return []
    out = []
    for check in _name_check(api_version if isinstance(api_version, str) else "", what, releases):
        problem = check(name, what)
        if problem:
            out.append(error("metadata.name", "name", problem))
            break
    if not out and kind == "Job" and isinstance(api_version, str) and api_version.startswith("batch/"):
        out += _job_name_findings(obj, name)
    return out


# Built-in kinds that are not namespaced: rest.BeforeCreate (EnsureObjectNamespaceMatchesRequestNamespace)
# clears a namespace such an object carries before validation, so ValidateObjectMeta never sees it.
CLUSTER_SCOPED = frozenset(
    {
        ("", "Namespace"),
        ("", "Node"),
        ("", "PersistentVolume"),
        ("", "ComponentStatus"),
        ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"),
        ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"),
        ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"),
        ("apiextensions.k8s.io", "CustomResourceDefinition"),
        ("apiregistration.k8s.io", "APIService"),
        ("authentication.k8s.io", "TokenReview"),
        ("authentication.k8s.io", "SelfSubjectReview"),
        ("authorization.k8s.io", "SubjectAccessReview"),
        ("authorization.k8s.io", "SelfSubjectAccessReview"),
        ("authorization.k8s.io", "SelfSubjectRulesReview"),
        ("certificates.k8s.io", "CertificateSigningRequest"),
        ("certificates.k8s.io", "ClusterTrustBundle"),
        ("flowcontrol.apiserver.k8s.io", "FlowSchema"),
        ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"),
        ("internal.apiserver.k8s.io", "StorageVersion"),
        ("networking.k8s.io", "IngressClass"),
        ("networking.k8s.io", "IPAddress"),
        ("networking.k8s.io", "ServiceCIDR"),
        ("node.k8s.io", "RuntimeClass"),
        ("rbac.authorization.k8s.io", "ClusterRole"),
        ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
        ("resource.k8s.io", "DeviceClass"),
        ("resource.k8s.io", "ResourceSlice"),
        ("resource.k8s.io", "DeviceTaintRule"),
        ("scheduling.k8s.io", "PriorityClass"),
        ("storage.k8s.io", "CSIDriver"),
        ("storage.k8s.io", "CSINode"),
        ("storage.k8s.io", "StorageClass"),
        ("storage.k8s.io", "VolumeAttachment"),
        ("storage.k8s.io", "VolumeAttributesClass"),
        ("storagemigration.k8s.io", "StorageVersionMigration"),
    }
)


def _group_kind(obj: dict[Any, Any]) -> tuple[str, str] | None:
    """(API group, kind) of ``obj``, as CLUSTER_SCOPED and REQUESTS key built-in kinds; None
    when its apiVersion or kind is no string."""
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return None
    return (api_version.rpartition("/")[0], kind)


# The reviews: requests whose REST create is no generic registry's (pkg/registry/authentication and
# authorization, v1.31), so no rest.BeforeCreate and no ValidateObjectMeta judges their metadata:
# they need no name, and their own validation wants it empty (rules/authorization.py).
REQUESTS = frozenset(
    {
        ("authentication.k8s.io", "TokenReview"),
        ("authentication.k8s.io", "SelfSubjectReview"),
        ("authorization.k8s.io", "SubjectAccessReview"),
        ("authorization.k8s.io", "SelfSubjectAccessReview"),
        ("authorization.k8s.io", "LocalSubjectAccessReview"),
        ("authorization.k8s.io", "SelfSubjectRulesReview"),
    }
)


def metadata_findings(obj: dict[Any, Any], check_name: bool = True, releases: list[int] | None = None) -> list[Finding]:
    """Names, namespace, label and annotation keys; ``check_name=False`` where a kind has its own name rule.
    None of a review's (REQUESTS)."""
    group_kind = _group_kind(obj)
    if group_kind in REQUESTS:
        return []
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return [error("metadata", "required", "metadata with a name is required")]
    out = name_findings(obj, releases) if check_name else []
    namespace = meta.get("namespace")
    # the apiserver clears a cluster-scoped kind's namespace; a custom resource's scope is its CRD's (not known here)
    if namespace is not None and group_kind not in CLUSTER_SCOPED:
        problem = name_problem(namespace, DNS1123_LABEL, 63, "namespace (DNS-1123 label)")
        if problem:
            out.append(error("metadata.namespace", "name", problem))
    out += label_findings(meta.get("labels"), "metadata.labels")
    if "annotations" in meta:
        out += annotation_findings(meta["annotations"], "metadata.annotations")
    if "ownerReferences" in meta:
        out += owner_reference_findings(meta["ownerReferences"])
    if "finalizers" in meta:
        group = obj.get("apiVersion", "").rpartition("/")[0] if isinstance(obj.get("apiVersion"), str) else None
        out += finalizer_findings(meta["finalizers"], "metadata.finalizers", core=group == "")
    return out


# -- the rest of ValidateObjectMeta (apimachinery pkg/api/validation/objectmeta.go, v1.31.1) ------

ANNOTATIONS_SIZE_LIMIT = 256 * 1024  # TotalAnnotationSizeLimitB


def annotation_findings(annotations: Any, path: str) -> list[Finding]:
    """ValidateAnnotations (apimachinery pkg/api/validation/objectmeta.go): each key a qualified
    name in lower case (IsQualifiedName(strings.ToLower(k)): the case of a key does not matter),
    and ValidateAnnotationsSize. ``path``: where the annotations are (an object's metadata, a pod
    template's)."""
    annotations = as_dict(annotations)
    out = []
    size = 0
    for key, value in annotations.items():
        problem = label_key_problem(key.lower() if isinstance(key, str) else key, "annotation")
        if problem:  # the path is built only for a finding: most keys have none
            out.append(error(child(path, key), "annotation-key", problem))
        size += len(key) + (len(value) if isinstance(value, str) else 0)
    if size * 4 > ANNOTATIONS_SIZE_LIMIT:  # characters: at most 4 bytes each; most objects stop here
        out += _annotations_size(annotations, path)
    return out


def _annotations_size(annotations: dict[Any, Any], path: str = "metadata.annotations") -> list[Finding]:
    """ValidateAnnotationsSize: the keys and values of all annotations, in bytes, at most 256 KiB
    (field.TooLong at metadata.annotations)."""
    size = sum(
        byte_length(k) + (byte_length(v) if isinstance(v, str) else 0)
        for k, v in annotations.items()
        if isinstance(k, str)
    )
    if size <= ANNOTATIONS_SIZE_LIMIT:
        return []
    message = (
        f"the annotations hold {size} bytes (keys and values); an object's annotations hold at most "
        f"{ANNOTATIONS_SIZE_LIMIT} (256 KiB)"
    )
    return [error(path, "metadata", message)]


BANNED_OWNERS = frozenset({("", "v1", "Event")})  # BannedOwners: (group, version, kind) of core/v1 Event


def _group_version_of(api_version: Any) -> tuple[str, str]:
    """schema.FromAPIVersionAndKind's group and version: ParseGroupVersion's ("v1" is the core
    group's, "/v1" too), both "" when it fails."""
    if not isinstance(api_version, str) or not api_version or api_version == "/":
        return "", ""
    if api_version.count("/") > 1:
        return "", ""
    group, _, version = api_version.rpartition("/")
    return group, version


def _version_of(api_version: Any) -> str:
    """schema.FromAPIVersionAndKind's version: ParseGroupVersion's, "" when it fails."""
    return _group_version_of(api_version)[1]


def owner_reference_findings(refs: Any) -> list[Finding]:
    """ValidateOwnerReferences and validateOwnerReference: apiVersion with a version, kind, name
    and uid not empty, no v1 Event as owner, one controller at most."""
    out: list[Finding] = []
    if not isinstance(refs, list):
        return out
    first_controller = None
    for i, ref in enumerate(refs):
        if not isinstance(ref, dict):
            continue  # the schema's finding
        here = f"metadata.ownerReferences[{i}]"
        api_version, kind = ref.get("apiVersion"), ref.get("kind")
        if isinstance(api_version, str) and not _version_of(api_version):
            out.append(error(f"{here}.apiVersion", "metadata", f"apiVersion {api_version!r} has no version"))
        for field in ("kind", "name", "uid"):
            if ref.get(field) == "":
                out.append(error(f"{here}.{field}", "metadata", f"an owner reference's {field} must not be empty"))
        if isinstance(kind, str) and (*_group_version_of(api_version), kind) in BANNED_OWNERS:
            out.append(error(here, "metadata", "an Event (v1) may not be an owner"))
        if ref.get("controller") is True:
            shown = [part if isinstance(part, str) else value_text(part) for part in (kind, ref.get("name"))]
            name = "/".join(shown)
            if first_controller is not None:
                message = (
                    f"only one owner reference may have controller: true; found it for {first_controller} and {name}"
                )
                out.append(error(here, "metadata", message))
            else:
                first_controller = name
    return out


STANDARD_FINALIZERS = ("kubernetes", "orphan", "foregroundDeletion")  # helper.IsStandardFinalizerName


def finalizer_problem(name: Any, core: bool) -> str | None:
    """ValidateFinalizerName (a qualified name) and, for a core kind, core/validation's
    validateKubeFinalizerName: a finalizer without a domain is one of the standard ones."""
    if not isinstance(name, str):
        return None  # the schema's finding
    if core and "/" not in name and name not in STANDARD_FINALIZERS:
        return (
            f"finalizer {name!r} is neither a standard finalizer ({', '.join(STANDARD_FINALIZERS)}) nor "
            "fully qualified (DOMAIN/NAME, e.g. example.com/cleanup)"
        )
    problem = label_key_problem(name, "finalizer")
    return problem.replace(" key", "", 1) if problem else None


def finalizer_findings(finalizers: Any, path: str, core: bool) -> list[Finding]:
    """ValidateFinalizers: each name (finalizer_problem), and not orphan with foregroundDeletion."""
    if not finalizers or not isinstance(finalizers, list):
        return []
    out = [
        error(f"{path}[{i}]", "finalizer", problem)
        for i, name in enumerate(finalizers)
        if (problem := finalizer_problem(name, core))
    ]
    if path == "metadata.finalizers" and "orphan" in finalizers and "foregroundDeletion" in finalizers:
        out.append(error(path, "finalizer", "the finalizers orphan and foregroundDeletion cannot both be set"))
    return out


def label_findings(labels: Any, path: str) -> list[Finding]:
    """Label keys and values of a labels mapping at ``path``."""
    if not isinstance(labels, dict):
        return []
    out = []
    for key, value in labels.items():
        problem = label_key_problem(key, "label")
        if problem:
            out.append(error(child(path, key), "label-key", problem))
        problem = label_value_problem(value, key) if isinstance(value, str) else None
        if problem:
            out.append(error(child(path, key), "label-value", problem))
    return out
