"""The rules the apiextensions apiserver applies to a CRD schema beyond its JSON schema.

The JSONSchemaProps definition of a release says which fields a schema node
may carry; these are the rules it does not say, which the apiserver checks
when the CRD is created (validation.go in apiextensions-apiserver):

- structural: every node states its type, except int-or-string and
  preserve-unknown-fields nodes; nodes inside anyOf/allOf/oneOf/not carry no
  type, default, description, nullable or additionalProperties;
- properties and additionalProperties exclude each other;
- int-or-string nodes have no type, and anyOf/allOf only of integer and string;
- a list-map's keys are scalar properties of its items, each required or, in
  apiextensions v1, defaulted (a v1beta1 CRD may not use `default` at all);
- a list-set's items are scalars;
- the root `metadata` may only restrict `name` and `generateName`.
"""

from __future__ import annotations

import json

from generator.core.findings import Finding, child
from generator.validate.rules.base import dig

# `kubectl apply` (client-side) stores the object in an annotation of at most this many bytes.
APPLY_ANNOTATION_LIMIT = 262_144

_JUNCTORS = ("allOf", "anyOf", "oneOf", "not")
_FORBIDDEN_IN_JUNCTORS = ("type", "default", "description", "nullable", "additionalProperties")
_SCALARS = ("string", "integer", "number", "boolean")  # a tuple: `type` may be any value here


def compact_size(obj: dict) -> int:
    return len(json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode())


LIST_MAP_ENFORCED_SINCE = 18  # the apiserver accepts list-maps without keys before 1.18


def crd_findings(crd: dict, minor: int | None = None) -> list[Finding]:
    """The structural rules for every schema of a CRD (any CRD, of any shape), and its size;
    ``minor``: the release it goes to (None: the newest rules)."""
    spec = crd.get("spec")
    if not isinstance(spec, dict):
        return []
    out = []
    if crd.get("apiVersion") == "apiextensions.k8s.io/v1":
        versions = spec.get("versions") if isinstance(spec.get("versions"), list) else []
        for i, version in enumerate(versions):
            schema = dig(version, "schema", "openAPIV3Schema")
            if isinstance(schema, dict):
                out += check(schema, "v1", True, f"spec.versions[{i}].schema.openAPIV3Schema")
    else:
        schema = dig(spec, "validation", "openAPIV3Schema")
        if isinstance(schema, dict):
            needs_structural = spec.get("preserveUnknownFields") is False
            out += check(schema, "v1beta1", needs_structural, "spec.validation.openAPIV3Schema")
    if minor is not None and minor < LIST_MAP_ENFORCED_SINCE:
        out = [f for f in out if f.rule != "crd-list-map"]
    size = compact_size(crd)
    if size > APPLY_ANNOTATION_LIMIT:
        message = (
            f"the CRD is {size:,} bytes of JSON, above the {APPLY_ANNOTATION_LIMIT:,} bytes client-side "
            "`kubectl apply` can store; use `kubectl create` or `kubectl apply --server-side`"
        )
        out.append(Finding("warning", "metadata.name", "crd-size", message))
    return out


def check(schema: dict, apiextensions: str, structural: bool, prefix: str) -> list[Finding]:
    """Findings for one openAPIV3Schema; ``structural`` is whether the target requires it."""
    out: list[Finding] = []
    _Checker(apiextensions, structural, out).node(schema, prefix, root=True, in_junctor=False)
    return out


class _Checker:
    def __init__(self, apiextensions: str, structural: bool, out: list[Finding]):
        self.v1 = apiextensions == "v1"
        self.structural = structural
        self.out = out

    def error(self, path: str, rule: str, message: str) -> None:
        self.out.append(Finding("error", path, rule, message))

    def node(self, node: dict, path: str, root: bool = False, in_junctor: bool = False) -> None:
        if not isinstance(node, dict):  # the JSONSchemaProps schema reports it (a `type` finding)
            return
        if in_junctor and self.structural:
            for key in _FORBIDDEN_IN_JUNCTORS:
                if key in node:
                    self.error(
                        f"{path}.{key}", "crd-structural", f"`{key}` is not allowed inside anyOf/allOf/oneOf/not"
                    )
        if "default" in node and not self.v1:
            self.error(f"{path}.default", "crd-default", "a v1beta1 CRD may not set `default`; use apiextensions v1")
        int_or_string = node.get("x-kubernetes-int-or-string") is True
        preserve = node.get("x-kubernetes-preserve-unknown-fields") is True
        if self.structural and not in_junctor and "type" not in node and not (int_or_string or preserve):
            self.error(path, "crd-structural", "a structural schema states `type` here")
        if int_or_string:
            self._int_or_string(node, path)
        props = node.get("properties") if isinstance(node.get("properties"), dict) else {}
        items = node.get("items") if isinstance(node.get("items"), dict) else {}
        if props and isinstance(node.get("additionalProperties"), dict):
            self.error(path, "crd-structural", "`properties` and `additionalProperties` exclude each other")
        if node.get("x-kubernetes-list-type") == "map":
            self._list_map(node, path)
        is_set = node.get("x-kubernetes-list-type") == "set"
        if is_set and items.get("type") not in _SCALARS and items.get("x-kubernetes-map-type") != "atomic":
            self.error(path, "crd-list-set", "the items of a list-set must be scalars or atomic maps")
        for name, sub in props.items():
            sub_path = child(f"{path}.properties", name)
            if root and name == "metadata":
                self._root_metadata(sub, sub_path)
            self.node(sub, sub_path, in_junctor=in_junctor)
        # Below a junctor the properties and items are value validations too (apiextensions'
        # validateNestedValueValidation, pkg/apiserver/schema/validation.go): no `type` there.
        if isinstance(node.get("additionalProperties"), dict):
            self.node(node["additionalProperties"], f"{path}.additionalProperties", in_junctor=in_junctor)
        if items:
            self.node(items, f"{path}.items", in_junctor=in_junctor)
        for junctor in _JUNCTORS:
            if int_or_string and junctor in ("anyOf", "allOf"):
                continue  # its one allowed form was checked above
            subs = node.get(junctor)
            if isinstance(subs, dict):
                subs = [subs]
            for i, sub in enumerate(subs if isinstance(subs, list) else []):
                self.node(sub, f"{path}.{junctor}[{i}]", in_junctor=True)

    def _int_or_string(self, node: dict, path: str) -> None:
        if "type" in node:
            self.error(f"{path}.type", "crd-int-or-string", "an int-or-string node has no `type`")
        for junctor in ("anyOf", "allOf"):
            if junctor in node and node[junctor] != [{"type": "integer"}, {"type": "string"}]:
                self.error(f"{path}.{junctor}", "crd-int-or-string", "must be [{type: integer}, {type: string}]")

    def _list_map(self, node: dict, path: str) -> None:
        keys = node.get("x-kubernetes-list-map-keys")
        keys = [k for k in keys if isinstance(k, str)] if isinstance(keys, list) else []
        items = node.get("items") if isinstance(node.get("items"), dict) else {}
        if not keys:
            self.error(path, "crd-list-map", "a list-map needs x-kubernetes-list-map-keys")
        if items.get("type") != "object":
            self.error(f"{path}.items", "crd-list-map", "the items of a list-map must be objects")
            return
        required = (
            {r for r in items.get("required") or [] if isinstance(r, str)}
            if isinstance(items.get("required"), list)
            else set()
        )
        item_props = items.get("properties") if isinstance(items.get("properties"), dict) else {}
        for key in keys:
            prop = item_props.get(key)
            prop = prop if isinstance(prop, dict) else None
            where = f"{path}.items.properties[{key}]"
            if prop is None:
                self.error(where, "crd-list-map", f"list-map key {key!r} is not a property of the items")
                continue
            if prop.get("type") not in _SCALARS:
                self.error(where, "crd-list-map", f"list-map key {key!r} must be a scalar")
            if key not in required and ("default" not in prop or not self.v1):
                needs = "required or defaulted" if self.v1 else "required (v1beta1 has no defaults)"
                self.error(where, "crd-list-map", f"list-map key {key!r} must be {needs}")

    def _root_metadata(self, node: dict, path: str) -> None:
        # Only `type: object` and restrictions of name and generateName are allowed there.
        if not isinstance(node, dict):
            return
        extra = set(node) - {"type", "description", "properties"}
        named = set(node.get("properties") if isinstance(node.get("properties"), dict) else {}) - {
            "name",
            "generateName",
        }
        if node.get("type") != "object" or extra or named:
            self.error(path, "crd-metadata", "the root metadata schema may only restrict name and generateName")
