"""Owner `object`: the apiserver's checks of every object's metadata (names, namespace, label
and annotation keys, label values). NAME_RULES is the one table of which name grammar each
kind has."""

from __future__ import annotations

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
from generator.validate.rules.base import as_dict, error

# -- names ------------------------------------------------------------------------------------
# Each kind's metadata.name is checked with the name function its own
# pkg/apis/<group>/validation passes to ValidateObjectMeta (kubernetes/kubernetes); every name
# is also a URL path segment (path.IsValidPathSegmentName, applied by the storage key functions
# NamespaceKeyFunc/NoNamespaceKeyFunc), which the stricter grammars already imply.
# Custom resources: NameIsDNSSubdomain (apiextensions-apiserver customResourceValidator).


def _subdomain(name, what):
    return name_problem(name, DNS1123_SUBDOMAIN, 253, f"{what} name (DNS-1123 subdomain)")


def _label(name, what):
    return name_problem(name, DNS1123_LABEL, 63, f"{what} name (DNS-1123 label)")


def _dns1035(name, what):
    return name_problem(name, DNS1035_LABEL, 63, f"{what} name (DNS-1035 label)")


def _path_segment(name, what):
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
    # apps/validation ValidateStatefulSetName: NameIsDNSSubdomain, NameIsDNSLabel from 1.27
    # (kubernetes/kubernetes#114172: the name becomes each pod's hostname, a DNS label)
    ("apps", "StatefulSet"): [(0, _subdomain), (27, _label)],
}
# (A CronJob's name at most 52 characters, ValidateCronJobCreate, is rules/batch.py's.)


def _name_check(api_version: str, kind: str, releases: list[int] | None):
    """The name check of ``kind`` (the strictest over ``releases``: a bundle must pass them all)."""
    group = api_version.rpartition("/")[0]
    table = NAME_RULES.get((group, kind))
    if table is None:
        return [_subdomain]
    checks = []
    for minor in releases or [max(first for first, _ in table)]:
        applicable = [check for first, check in table if first <= minor]
        if applicable and applicable[-1] not in checks:
            checks.append(applicable[-1])
    return checks


JOB_NAME_LABEL = "job-name"


def _job_name_findings(obj: dict, name) -> list[Finding]:
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


def name_findings(obj: dict, releases: list[int] | None = None) -> list[Finding]:
    """metadata.name checked as its kind's own validation does, on ``releases`` (default: the newest rule)."""
    meta = as_dict(obj.get("metadata"))
    name = meta.get("name")
    if name is None and meta.get("generateName"):
        return []
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    what = kind if isinstance(kind, str) and kind else "object"
    out = []
    for check in _name_check(api_version if isinstance(api_version, str) else "", what, releases):
        problem = check(name, what)
        if problem:
            out.append(error("metadata.name", "name", problem))
            break
    if not out and kind == "Job" and isinstance(api_version, str) and api_version.startswith("batch/"):
        out += _job_name_findings(obj, name)
    return out


def metadata_findings(obj: dict, check_name: bool = True, releases: list[int] | None = None) -> list[Finding]:
    """Names, namespace, label and annotation keys; ``check_name=False`` where a kind has its own name rule."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return [error("metadata", "required", "metadata with a name is required")]
    out = name_findings(obj, releases) if check_name else []
    namespace = meta.get("namespace")
    if namespace is not None:
        problem = name_problem(namespace, DNS1123_LABEL, 63, "namespace (DNS-1123 label)")
        if problem:
            out.append(error("metadata.namespace", "name", problem))
    out += label_findings(meta.get("labels"), "metadata.labels")
    for key in as_dict(meta.get("annotations")):
        # ValidateAnnotations: IsQualifiedName(strings.ToLower(k)), the case of a key does not matter
        problem = label_key_problem(key.lower() if isinstance(key, str) else key, "annotation")
        if problem:  # the path is built only for a finding: most keys have none
            out.append(error(child("metadata.annotations", key), "annotation-key", problem))
    return out


def label_findings(labels, path: str) -> list[Finding]:
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
