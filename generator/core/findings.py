"""A finding: one thing wrong (error) or worth a look (warning) in one object."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable
from typing import NamedTuple

from generator.core import rulebook
from generator.core.grammar import lazy_pattern
from generator.core.versions import KubeVersion

# The records on validate's path are NamedTuples and plain classes, not dataclasses: making a
# dataclass runs generated code at import (about 1 ms each), and validate's start-up is what a
# pre-commit run over one file waits for.


class _Fields(NamedTuple):
    severity: str  # "error" or "warning"
    path: str  # dotted, with indexes: spec.template.spec.containers[0].image
    rule: str  # an id of the rulebook (rulebook.py), e.g. "unknown-field", "crd-size"
    message: str


class Finding(_Fields):
    __slots__ = ()

    def __new__(cls, severity: str, path: str, rule: str, message: str) -> Finding:
        if not rulebook.is_known(rule, severity):  # a typo in a rule id is a bug here
            raise ValueError(f"finding with rule {rule!r} ({severity}) is not in the rulebook")
        return super().__new__(cls, severity, path, rule, message)

    @property
    def is_error(self) -> bool:
        return self.severity == "error"


# A path is dotted names and [indexes]: spec.containers[0].image. A key that is not a plain
# name (dots, slashes, digits first: label keys, resource names, data keys) is quoted in
# brackets, so the path stays unambiguous: metadata.labels["app.kubernetes.io/name"].
_PLAIN_KEY = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$-]*$")
_TOKEN = lazy_pattern(r'\.?([^.\[\]"]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]')


def child(path: str, key: object) -> str:
    """The path of ``key`` under ``path``: an int is an index, a string a name."""
    if isinstance(key, int) and not isinstance(key, bool):
        return f"{path}[{key}]"
    name = str(key)
    if _PLAIN_KEY.match(name):
        return f"{path}.{name}" if path else name
    return f"{path}[{json.dumps(name, ensure_ascii=False)}]"


def joined(prefix: str, path: str) -> str:
    """``path`` (relative) under ``prefix``: items[0] + metadata.name, items[0] + ["a.b"]."""
    if not prefix or not path:
        return prefix or path
    return prefix + path if path.startswith("[") else f"{prefix}.{path}"


def dotted(parts: Iterable[object]) -> str:
    """['spec', 'containers', 0, 'image'] -> 'spec.containers[0].image'."""
    out = ""
    for part in parts:
        out = child(out, part)
    return out


def split_path(path: str) -> list[str | int]:
    """'spec.containers[0].image' -> ['spec', 'containers', 0, 'image'] (the inverse of dotted)."""
    return list(_split(path))


# The same paths come again and again (a rule finds the same field of many documents): each is
# split once while it is among the last few thousand (a copy is returned: the caller may change it).
@functools.lru_cache(maxsize=4096)
def _split(path: str) -> tuple[str | int, ...]:
    parts: list[str | int] = []
    position = 0
    while position < len(path):
        match = _TOKEN().match(path, position)
        if not match:  # not a path we wrote: keep the rest as one name rather than fail
            parts.append(path[position:].lstrip("."))
            break
        name, index, quoted = match.groups()
        parts.append(name if name is not None else int(index) if index is not None else json.loads(quoted))
        position = match.end()
    return tuple(parts)


def version_span(minors: list[int]) -> str:
    """[16, 17, 18, 22] -> 'Kubernetes 1.16-1.18, 1.22'."""
    spans, start = [], None
    ordered = sorted(minors)
    for i, minor in enumerate(ordered):
        if start is None:
            start = minor
        if i + 1 == len(ordered) or ordered[i + 1] != minor + 1:
            spans.append(f"{KubeVersion(start)}" if start == minor else f"{KubeVersion(start)}-{KubeVersion(minor)}")
            start = None
    return "Kubernetes " + ", ".join(spans)
