"""The formats `validate --output` writes: one module each in this package, named as the format
(kubeconform's pkg/output has the same shape), each with `write(report, colour=False) -> str`.
A new format is one file here and its test; FORMATS finds it by its name and imports it when it
is first used. What the formats share, the one place that turns a finding into text, is
common.py; `--list-rules` is rules.py.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable, Iterator, Mapping

from generator.validate.output.common import (  # noqa: F401  (the package's API)
    DOCS,
    finding_line,
    finding_text,
    summary,
    use_colour,
)
from generator.validate.output.rules import RULE_LISTS  # noqa: F401

_NOT_FORMATS = frozenset({"common", "rules"})


@functools.cache
def _names() -> tuple[str, ...]:
    """The formats, text (the default) first, then by name."""
    found = [m.name for m in pkgutil.iter_modules(__path__) if m.name not in _NOT_FORMATS]
    return tuple(sorted(found, key=lambda name: (name != "text", name)))


class _Formats(Mapping):
    """name -> write; a format's module is imported when it is first asked for."""

    def __getitem__(self, name: str) -> Callable[..., str]:
        if name not in _names():
            raise KeyError(name)
        return importlib.import_module(f"{__name__}.{name}").write

    def __iter__(self) -> Iterator[str]:
        return iter(_names())

    def __len__(self) -> int:
        return len(_names())


FORMATS: Mapping[str, Callable[..., str]] = _Formats()
