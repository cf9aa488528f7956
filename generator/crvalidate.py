"""Validate custom resources against a CRD's openAPIV3Schema, as the apiserver would.

The apiserver prunes fields a structural schema does not name, silently: a
misspelt ``cleanPolicy`` disappears instead of failing.  ``strict=True`` turns
every such field into an error (what a user wants before ``kubectl apply``);
``strict=False`` gives the apiserver's own verdict.
"""

from __future__ import annotations

import jsonschema_rs

from .findings import Finding
from .schemaerrors import describe

_MARKERS_TO_DROP = (
    "x-kubernetes-int-or-string",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
    "x-kubernetes-embedded-resource",
    "nullable",
)


def to_json_schema(schema: dict, strict: bool) -> dict:
    """An OpenAPI v3 CRD schema as a draft-4 JSON schema, closed where the apiserver prunes."""
    out = {}
    for key, value in schema.items():
        if key in _MARKERS_TO_DROP or key == "x-kubernetes-preserve-unknown-fields":
            continue
        if key == "properties":
            out[key] = {name: to_json_schema(sub, strict) for name, sub in value.items()}
        elif key in ("items", "additionalProperties", "not") and isinstance(value, dict):
            out[key] = to_json_schema(value, strict)
        elif key in ("anyOf", "allOf", "oneOf"):
            out[key] = [to_json_schema(sub, strict) for sub in value]
        else:
            out[key] = value
    if schema.get("nullable"):
        kind = out.get("type")
        if kind:
            out["type"] = [kind, "null"]
    closed = strict and not schema.get("x-kubernetes-preserve-unknown-fields")
    if closed and "properties" in schema and "additionalProperties" not in schema:
        out["additionalProperties"] = False
    return out


def prune_nulls(data, schema: dict | None):
    """``data`` as the apiserver holds it before validating (apiextensions-apiserver
    structuraldefaulting.PruneNonNullableNullsWithoutDefaults, from Kubernetes 1.20): the null
    of a field the schema declares, not nullable and without a default, is dropped. A null
    field the schema does not declare stays: pruning (schema/pruning/algorithm.go prune)
    removes an undeclared field whatever its value, and strict field validation reports it
    as unknown (`creationTimestamp: null` in a pod template's metadata)."""
    schema = schema if isinstance(schema, dict) else {}
    if isinstance(data, dict):
        properties = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        out = {}
        for key, value in data.items():
            declared = properties.get(key, extra if isinstance(extra, dict) else None)
            if value is None and declared is not None and not declared.get("nullable") and "default" not in declared:
                continue
            out[key] = prune_nulls(value, declared)
        return out
    if isinstance(data, list):
        items = schema.get("items")
        return [prune_nulls(item, items if isinstance(items, dict) else None) for item in data]
    return data


class CustomResourceValidator:
    def __init__(self, openapi_schema: dict, strict: bool = True):
        self.openapi_schema = openapi_schema
        root = to_json_schema(openapi_schema, strict)
        # The apiserver validates the object's metadata itself; the CRD only says `type: object`.
        root.setdefault("properties", {})["metadata"] = {"type": "object"}
        self._validator = jsonschema_rs.Draft4Validator(root)

    def findings(self, obj: dict) -> list[Finding]:
        found = [
            Finding("error", *problem) for error in self._validator.iter_errors(obj) for problem in describe(error)
        ]
        return sorted(found, key=lambda f: (f.path, f.message))
