"""How a JSON Schema error reads to a user: its rule id, its path and a message that names the
value found and what is wanted. One translation for built-in kinds (kubevalidate.py) and custom
resources (crvalidate.py), so the same mistake reads the same in a Deployment and a PaddleJob.
"""

from __future__ import annotations

import json
from decimal import Decimal

import jsonschema_rs

from generator.core.findings import child, dotted
from generator.core.grammar import quantity_message
from generator.schema.crd import QUANTITY_PATTERN

_KIND = jsonschema_rs.ValidationErrorKind


def describe(error) -> list[tuple[str, str, str]]:
    """(path, rule, message) for one error of a jsonschema-rs validator."""
    path = dotted(error.instance_path)
    kind = error.kind
    if isinstance(kind, _KIND.AdditionalProperties):
        return [
            (
                child(path, name),
                "unknown-field",
                f"unknown field {name!r}: not in the schema; the apiserver refuses it (strict field "
                "validation) or drops it without a word",
            )
            for name in kind.unexpected
        ]
    if isinstance(kind, _KIND.Required):
        # at the missing field itself (its line is its parent's): the apiserver's own path
        return [(child(path, kind.property), "required", f"the required field {kind.property!r} is missing")]
    if isinstance(kind, _KIND.Enum):
        allowed = ", ".join(option if isinstance(option, str) else _shown(option) for option in kind.options)
        return [(path, "enum", f"{_shown(error.instance)} is not allowed; use one of {allowed}")]
    if isinstance(kind, _KIND.Pattern) and kind.pattern == QUANTITY_PATTERN:
        return [(path, "quantity", quantity_message(error.instance))]
    if isinstance(kind, _KIND.AnyOf | _KIND.OneOfNotValid) and _neither_int_nor_string(error.instance):
        return [(path, "type", int_or_string_message(error.instance))]
    if isinstance(kind, _KIND.OneOfNotValid) and isinstance(error.instance, int):
        # IntOrString's integer branch, bounded as the int32 its IntVal is (validate/builtin.py)
        low, high = INTEGER_BOUNDS["int32"]
        message = _integer_range_message(error.instance, high if error.instance > high else low)
        if message is not None:
            return [(path, "type", message)]
    if isinstance(kind, _KIND.Maximum | _KIND.Minimum):
        message = _integer_range_message(error.instance, kind.limit)
        if message is not None:
            return [(path, "type", message)]
    if isinstance(kind, _KIND.Type):
        rule, message = type_problem(error.instance, kind.types)
        if error.instance is None and path.endswith("]"):  # a null list item (a stray `-`)
            message = message.replace("remove the field", "remove the item")
        return [(path, rule, message)]
    return [(path, "schema", error.message)]


# The integer formats of the OpenAPI documents and CRDs, and the range of the Go type each names:
# Go's encoding/json refuses a number outside it ("json: cannot unmarshal number 3000000000 into Go
# struct field DeploymentSpec.spec.replicas of type int32"), so the apiserver cannot decode such a
# built-in object; a custom resource's integers are decoded as int64 (a larger number becomes a
# float64, which `type: integer` refuses), and its operator's Go types hold what the format says.
INTEGER_BOUNDS = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}
_FORMAT_OF_LIMIT = {limit: fmt for fmt, bounds in INTEGER_BOUNDS.items() for limit in bounds}


def integer_bounds(node: dict, default: str | None = None) -> dict | None:
    """``node`` with the range of its integer `format` (``default`` without one) as minimum and
    maximum (where its own are absent or looser), or None when it has no such format or already
    holds the range. A draft-4 exclusiveMaximum/-Minimum of a looser bound goes with it."""
    fmt = node.get("format", default)
    bounds = INTEGER_BOUNDS.get(fmt) if isinstance(fmt, str) else None
    kind = node.get("type")
    if bounds is None or not (kind == "integer" or (isinstance(kind, list) and "integer" in kind)):
        return None
    low, high = bounds
    out = None
    minimum, maximum = node.get("minimum"), node.get("maximum")
    if not isinstance(minimum, int | float) or minimum < low:
        out = {**node, "minimum": low}
        out.pop("exclusiveMinimum", None)
    if not isinstance(maximum, int | float) or maximum > high:
        out = {**(out or node), "maximum": high}
        out.pop("exclusiveMaximum", None)
    return out


def _integer_range_message(instance, limit) -> str | None:
    """A number outside the range of its field's integer format (INTEGER_BOUNDS), else None."""
    fmt = _FORMAT_OF_LIMIT.get(limit) if isinstance(limit, int) and not isinstance(limit, bool) else None
    if isinstance(instance, float) and instance.is_integer():
        instance = int(instance)  # 99999999999999999999 reads as a float (kubeyaml), 1e+20 in kubectl's JSON
    if fmt is None or not isinstance(instance, int) or isinstance(instance, bool):
        return None
    low, high = INTEGER_BOUNDS[fmt]
    return (
        f"{instance} is outside {fmt} ({low} to {high}), the field's Go type: it cannot be decoded "
        f"(json: cannot unmarshal number {instance} into a field of type {fmt})"
    )


def _neither_int_nor_string(value) -> bool:
    return isinstance(value, bool) or not isinstance(value, int | str)


def int_or_string_message(instance) -> str:
    """An int-or-string field (quantities, ports, maxSurge) given another type. `cpu: 0.5` is the
    one users meet: a Deployment takes it as a quantity, a custom resource's schema does not."""
    if isinstance(instance, float):
        milli = Decimal(str(instance)) * 1000
        hint = f'"{milli.normalize():f}m" or ' if milli == milli.to_integral_value() else ""
        return (
            f"{instance} is a number with a fraction, but an integer or a string is required here "
            f'(the apiserver refuses it); as a quantity write {hint}"{instance}"'
        )
    return type_problem(instance, ["integer", "string"])[1]


def type_problem(instance, expected) -> tuple[str, str]:
    """(rule, message) for a value of the wrong type; "type-string" when a string was wanted,
    so the report can explain YAML 1.1 surprises (`yes`, `0777`) once it sees the source."""
    wanted = sorted(
        {str(t).lower().rsplit(".", 1)[-1] for t in (expected if isinstance(expected, list) else [expected])} - {"null"}
    )
    found = {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        dict: "an object",
        list: "a list",
        type(None): "null",
    }.get(type(instance), type(instance).__name__)
    rule = "type-string" if wanted == ["string"] else "type"
    if instance is None:
        return rule, f"null is not allowed here: give {' or '.join(wanted)} or remove the field"
    return rule, f"{_shown(instance)} is {found}, but {' or '.join(wanted)} is required here"


def _shown(value) -> str:
    """A value as the user wrote it in YAML/JSON terms (null, true), cut short."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
