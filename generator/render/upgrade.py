"""Is a new CRD safe to apply over the one a cluster has? What `render --check` says about it.

Two changes lose data, and the apiserver does not stop either when the CRD is applied:
- a version removed from spec.versions while objects are stored in it (the apiserver refuses
  the update only while the version is in status.storedVersions, which a file does not show;
  clients of a version no longer served break at once);
- a field removed from a version's schema: structural pruning drops it from every object the
  next time the object is written (apiextensions-apiserver pkg/apiserver/schema/pruning), unless
  x-kubernetes-preserve-unknown-fields keeps what is under it.
A type that changes makes stored objects fail validation on their next update.
"""

from __future__ import annotations

from generator.validate.rules.base import as_dict, as_list


def schemas(crd: dict) -> dict[str, dict]:
    """{version name: its openAPIV3Schema}, for v1 CRDs and v1beta1's top-level validation."""
    spec = as_dict(crd.get("spec"))
    shared = as_dict(as_dict(spec.get("validation")).get("openAPIV3Schema"))
    versions = as_list(spec.get("versions")) or [{"name": spec.get("version"), "served": True}]
    out = {}
    for version in versions:
        version = as_dict(version)
        if isinstance(version.get("name"), str) and version.get("served", True):
            out[version["name"]] = as_dict(as_dict(version.get("schema")).get("openAPIV3Schema")) or shared
    return out


def _fields(schema: dict, path: str = "", out: dict | None = None) -> dict[str, str | None]:
    """{field path: its type} for every field the schema declares (what pruning keeps)."""
    out = {} if out is None else out
    for name, child in as_dict(schema.get("properties")).items():
        here = f"{path}.{name}" if path else name
        out[here] = as_dict(child).get("type")
        _fields(as_dict(child), here, out)
    if isinstance(schema.get("items"), dict):
        _fields(schema["items"], f"{path}[]", out)
    if isinstance(schema.get("additionalProperties"), dict):
        _fields(schema["additionalProperties"], f"{path}.*", out)
    return out


def _kept(schema: dict, path: str) -> bool:
    """Whether x-kubernetes-preserve-unknown-fields on ``path`` or above keeps what pruning would drop."""
    node, parts = schema, path.replace("[]", ".[]").split(".")
    for part in parts:
        if node.get("x-kubernetes-preserve-unknown-fields"):
            return True
        node = as_dict(node.get("items")) if part == "[]" else as_dict(as_dict(node.get("properties")).get(part))
        if not node:
            return False
    return bool(node.get("x-kubernetes-preserve-unknown-fields"))


def problems(old: dict, new: dict) -> list[str]:
    """What applying ``new`` over ``old`` would lose or break; empty: the upgrade is safe."""
    before, after = schemas(old), schemas(new)
    out = []
    for version, schema in before.items():
        if version not in after:
            out.append(
                f"version {version} is no longer served: its clients break, and objects stored as {version} "
                "cannot be read until they are migrated (kubectl get ... -o yaml | kubectl replace -f -)"
            )
            continue
        old_fields, new_fields = _fields(schema), _fields(after[version])
        removed = [f for f in old_fields if f not in new_fields and not _kept(after[version], f)]
        # a removed parent says it for its children
        removed = [f for f in removed if not any(f.startswith(r + ".") or f.startswith(r + "[") for r in removed)]
        for field in removed[:20]:
            out.append(f"{version}: field {field} is gone from the schema: the apiserver prunes it from every "
                       "object on its next write")  # fmt: skip
        if len(removed) > 20:
            out.append(f"{version}: ... and {len(removed) - 20} more removed fields")
        for field, kind in old_fields.items():
            if field in new_fields and kind and new_fields[field] and kind != new_fields[field]:
                out.append(f"{version}: field {field} changes type from {kind} to {new_fields[field]}")
    return out
