"""Validate custom resources against a CRD's openAPIV3Schema, as the apiserver would.

The apiserver prunes fields a structural schema does not name, silently: a
misspelt ``cleanPolicy`` disappears instead of failing.  ``strict=True`` turns
every such field into an error (what a user wants before ``kubectl apply``);
``strict=False`` gives the apiserver's own verdict.
"""

from __future__ import annotations

import json
from decimal import Decimal

import jsonschema_rs

from .crdschema import QUANTITY_PATTERN
from .findings import Finding, child, dotted
from .kubevalidate import type_problem
from .rules.grammar import quantity_message

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


class CustomResourceValidator:
    def __init__(self, openapi_schema: dict, strict: bool = True):
        root = to_json_schema(openapi_schema, strict)
        # The apiserver validates the object's metadata itself; the CRD only says `type: object`.
        root.setdefault("properties", {})["metadata"] = {"type": "object"}
        self._validator = jsonschema_rs.Draft4Validator(root)

    def findings(self, obj: dict) -> list[Finding]:
        out = []
        for error in self._validator.iter_errors(obj):
            kind = error.kind
            path = dotted(error.instance_path)
            if isinstance(kind, jsonschema_rs.ValidationErrorKind.AdditionalProperties):
                for name in kind.unexpected:
                    field = child(path, name)
                    out.append(
                        Finding(
                            "error",
                            field,
                            "unknown-field",
                            f"unknown field {name!r}: the apiserver would drop it without a word",
                        )
                    )
            elif isinstance(kind, jsonschema_rs.ValidationErrorKind.Enum):
                allowed = ", ".join(str(option) for option in kind.options)
                out.append(
                    Finding("error", path, "enum", f"{json.dumps(error.instance)} is not allowed; use one of {allowed}")
                )
            elif isinstance(kind, jsonschema_rs.ValidationErrorKind.Pattern) and kind.pattern == QUANTITY_PATTERN:
                out.append(Finding("error", path, "quantity", quantity_message(error.instance)))
            elif isinstance(kind, jsonschema_rs.ValidationErrorKind.AnyOf) and _neither_int_nor_string(error.instance):
                out.append(Finding("error", path, "type", int_or_string_message(error.instance)))
            elif isinstance(kind, jsonschema_rs.ValidationErrorKind.Type):
                out.append(Finding("error", path, *type_problem(error.instance, kind.types)))
            else:
                out.append(Finding("error", path, "schema", error.message))
        return sorted(out, key=lambda f: (f.path, f.message))


def _neither_int_nor_string(value) -> bool:
    return isinstance(value, bool) or not isinstance(value, int | str)


def int_or_string_message(instance) -> str:
    """An int-or-string field (quantities, ports) given another type. `cpu: 0.5` is the one users
    meet: a Deployment takes it, a custom resource's schema does not (integer or string only)."""
    if isinstance(instance, float):
        milli = Decimal(str(instance)) * 1000
        hint = f'"{milli.normalize():f}m" or ' if milli == milli.to_integral_value() else ""
        return (
            f"{instance} is a number with a fraction: a custom resource takes an integer or a string here "
            f'(the apiserver refuses it); write {hint}"{instance}"'
        )
    return type_problem(instance, ["integer", "string"])[1]
