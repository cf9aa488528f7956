"""Owner `object`: the apiserver's checks of every object's metadata (names, namespace, label
and annotation keys, label values)."""

from __future__ import annotations

from ..findings import Finding, child
from .base import as_dict, error
from .grammar import (
    DNS1035_LABEL,
    DNS1123_LABEL,
    DNS1123_SUBDOMAIN,
    label_key_problem,
    label_value_problem,
    name_problem,
)

_NAME_RULES = {
    "Namespace": (DNS1123_LABEL, 63, "DNS-1123 label"),
    "Service": (DNS1035_LABEL, 63, "DNS-1035 label"),
}


def metadata_findings(obj: dict, check_name: bool = True) -> list[Finding]:
    """Names, namespace, label and annotation keys; ``check_name=False`` where a kind has its own name rule."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return [error("metadata", "required", "metadata with a name is required")]
    out = []
    name = meta.get("name")
    if check_name and not (name is None and meta.get("generateName")):
        pattern, limit, what = _NAME_RULES.get(obj.get("kind"), (DNS1123_SUBDOMAIN, 253, "DNS-1123 subdomain"))
        problem = name_problem(name, pattern, limit, f"{obj.get('kind', 'object')} name ({what})")
        if problem:
            out.append(error("metadata.name", "name", problem))
    namespace = meta.get("namespace")
    if namespace is not None:
        problem = name_problem(namespace, DNS1123_LABEL, 63, "namespace (DNS-1123 label)")
        if problem:
            out.append(error("metadata.namespace", "name", problem))
    out += label_findings(meta.get("labels"), "metadata.labels")
    for key in as_dict(meta.get("annotations")):
        out += _key_findings(child("metadata.annotations", key), key, "annotation")
    return out


def _key_findings(path: str, key: str, what: str) -> list[Finding]:
    problem = label_key_problem(key, what)
    return [error(path, f"{what}-key", problem)] if problem else []


def label_findings(labels, path: str) -> list[Finding]:
    """Label keys and values of a labels mapping at ``path``."""
    out = []
    for key, value in as_dict(labels).items():
        out += _key_findings(child(path, key), key, "label")
        if isinstance(value, str) and label_value_problem(value, key):
            out.append(error(child(path, key), "label-value", label_value_problem(value, key)))
    return out
