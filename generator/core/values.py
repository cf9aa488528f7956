"""Parsing flag values, shared by the subcommands; a bad value raises InputError naming the flag."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Collection, Iterator

from generator.core import grammar
from generator.core.errors import InputError  # noqa: F401  (what a bad value raises)

EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def pairs(option: str, values: list[str] | None) -> dict[str, str]:
    """['a=1', 'b=2'] -> {'a': '1', 'b': '2'}."""
    out = {}
    for value in values or []:
        key, sep, val = value.partition("=")
        if not sep or not key:
            raise InputError(f"{option}: expected KEY=VALUE, got {value!r}")
        out[key] = val
    return out


def labels(option: str, values: list[str] | None) -> dict[str, str]:
    """KEY=VALUE pairs that are labels (also node selectors): both spelt as the apiserver wants."""
    out = pairs(option, values)
    for key, value in out.items():
        problem = grammar.label_key_problem(key) or grammar.label_value_problem(value, key)
        if problem:
            raise InputError(f"{option}: {problem}")
    return out


def words(option: str, value: str | None) -> list[str] | None:
    """A command line split as a shell splits it: 'python "my train.py"' -> ['python', 'my train.py']."""
    if value is None:
        return None
    try:
        return shlex.split(value)
    except ValueError as err:  # an unbalanced quote
        raise InputError(f"{option}: {err} in {value!r} (quote it as a shell would)") from None


def quantity(option: str, value: str | None) -> str | None:
    if value is not None and grammar.parse_quantity(value) is None:
        raise InputError(f"{option}: {grammar.quantity_message(value)}")
    return value


def resources(option: str, value: str | None) -> dict[str, str]:
    """'cpu=100m,memory=1Gi' -> {'cpu': '100m', 'memory': '1Gi'}, each a valid quantity."""
    out = pairs(option, value.split(",")) if value else {}
    for name, amount in out.items():
        quantity(f"{option} {name}", amount)
    return out


def toleration(value: str) -> dict[str, str]:
    """KEY[=VALUE]:EFFECT, as `kubectl taint` writes taints."""
    spec, sep, effect = value.rpartition(":")
    if not sep or effect not in EFFECTS:
        raise InputError(
            f"--toleration: expected KEY[=VALUE]:EFFECT with EFFECT one of {', '.join(EFFECTS)}, got {value!r}"
        )
    key, has_value, val = spec.partition("=")
    out = {"key": key, "operator": "Equal" if has_value else "Exists", "effect": effect}
    if has_value:
        out["value"] = val
    return out


def namespace(option: str, value: str, allow_empty: bool = False) -> str:
    if (value == "" and allow_empty) or grammar.name_problem(value, grammar.DNS1123_LABEL, 63, "namespace") is None:
        return value
    raise InputError(f"{option}: {value!r} is not a namespace name (lower-case letters, digits and '-', at most 63)")


class LazyChoices:
    """Choices worked out when argparse first needs them (parsing the flag, or its help), not
    when the parser is built: the job runtimes and the PaddleJob enums come from data files
    that neither `--help` nor any other subcommand should read. Give the flag a metavar: argparse formats the
    choices of a flag without one as soon as it is added."""

    def __init__(self, compute: Callable[[], Collection[object]]) -> None:
        self._compute = compute

    def __iter__(self) -> Iterator[object]:
        return iter(self._compute())

    def __contains__(self, value: object) -> bool:
        return value in self._compute()

    def __len__(self) -> int:
        return len(self._compute())

    def __str__(self) -> str:  # for %(choices)s in a flag's help
        return ", ".join(str(value) for value in self._compute())
