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
    if isinstance(kind, _KIND.Type):
        rule, message = type_problem(error.instance, kind.types)
        if error.instance is None and path.endswith("]"):  # a null list item (a stray `-`)
            message = message.replace("remove the field", "remove the item")
        return [(path, rule, message)]
    return [(path, "schema", error.message)]


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
