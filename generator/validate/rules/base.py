"""What every rule module uses: the finding constructors, defensive access to input of any
shape (bad shapes are the schema's business, a rule must never crash on them), and the check
that the items of a list have unique, well-formed names."""

from __future__ import annotations

import json
from typing import Any

from generator.core.findings import Finding
from generator.core.grammar import DNS1123_LABEL, name_problem


def error(path: str, rule: str, message: str) -> Finding:
    return Finding("error", path, rule, message)


def warning(path: str, rule: str, message: str) -> Finding:
    return Finding("warning", path, rule, message)


def as_dict(value: Any) -> dict[Any, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def dig(value: Any, *keys: Any) -> Any:
    """value[k1][k2]... or None, whatever the shapes on the way."""
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def as_int(value: Any) -> int | None:
    return value if isinstance(value, int) and type(value) is not bool else None  # bool has no subclasses


def json_text(value: Any) -> str:
    return "none" if value is None else repr(value)


def literal_env(container: Any) -> dict[Any, Any]:
    """A container's env by name: the literal value, or None for one taken from elsewhere
    (valueFrom); entries whose name is not a string are the schema's to report."""
    env = container.get("env") if isinstance(container, dict) else None
    if not isinstance(env, list):
        return {}
    return {e["name"]: e.get("value") for e in env if isinstance(e, dict) and isinstance(e.get("name"), str)}


def byte_length(text: str) -> int:
    """Go's len() of a string: its UTF-8 bytes (a lone surrogate, which the readers turn into
    U+FFFD as Go's decoder does, counts the 3 bytes of one here too, rather than failing)."""
    return len(text.encode("utf-8", "surrogatepass"))


def value_text(value: Any) -> str:
    """A value as a message shows it: a string quoted, anything else as YAML writes it (true, null, 3)."""
    if isinstance(value, str):
        return repr(value)
    try:
        return json.dumps(value, ensure_ascii=False)[:80]
    except (TypeError, ValueError):
        return type(value).__name__


def unique_names(items: list[Any], path_of: Any, what: str, bad_rule: str, twice_rule: str) -> list[Finding]:
    """Each item's name is a DNS-1123 label, and no two items share one."""
    out, seen = [], set()
    spelled = f"{what} name (DNS-1123 label)"
    for i, item in enumerate(items):
        name = item.get("name") if isinstance(item, dict) else None
        problem = name_problem(name, DNS1123_LABEL, 63, spelled)
        if problem:
            out.append(error(path_of(i), bad_rule, problem))
        elif name in seen:
            out.append(error(path_of(i), twice_rule, f"{what} name {name!r} is used twice"))
        if isinstance(name, str):
            seen.add(name)
    return out


def enforced(releases: tuple[int, ...], since: int = 0, until: int = 10**6) -> bool:
    """Whether a rule the apiserver enforces from 1.``since`` up to 1.``until`` (both included)
    applies to one of the targeted releases: a bundle checked against several releases must
    pass on each, so one release that refuses is enough."""
    for minor in releases:  # noqa: SIM110 (a loop, not any() over a generator: called for every pod, a third of the cost)
        if since <= minor <= until:
            return True
    return False


def nonnegative(value: Any, path: str, rule: str, what: str | None = None) -> list[Finding]:
    """ValidateNonnegativeField (core/validation): an integer field that must be >= 0."""
    number = as_int(value)
    if number is not None and number < 0:
        return [
            error(path, rule, f"{what or path.rpartition('.')[2]} must be greater than or equal to 0, got {number}")
        ]
    return []


def nonnegative_fields(obj: dict[Any, Any], fields: tuple[str, ...], parent: str, rule: str) -> list[Finding]:
    """``nonnegative`` for each of ``fields`` of ``obj`` at ``parent``: a path is built only for
    a finding (most fields are absent or fine)."""
    out = []
    for field in fields:
        number = as_int(obj.get(field))
        if number is not None and number < 0:
            out += nonnegative(number, f"{parent}.{field}", rule)
    return out
