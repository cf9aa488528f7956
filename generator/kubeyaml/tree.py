"""Node trees of YAML text, with positions: libyaml's composer with plain scalars resolved as
kubectl resolves them, a field path turned into a line and column (locate) and a position back
into a path (path_at). The reader (compose.py) builds on the same loader; a Document (document.py)
asks here for its positions.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any

import yaml
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from generator.kubeyaml import scalars
from generator.kubeyaml.scalars import DecodeError


# The tag of a node, for libyaml's composer, which calls this C-level cache directly (no Python
# frame on a hit; manifests repeat their scalars). Its memory is bounded by entries times their
# length: documents over CACHE_CLEARING_SIZE clear it after they are read, so at most
# 2,048 scalars of a 16 KiB document stay (fuzzing found megabyte scalars piling up).
@functools.lru_cache(maxsize=2048)
def resolve_tag(kind: object, value: str | None, implicit: tuple[bool, bool] | bool) -> str:
    # a scalar's value and (plain, quoted) implicitness; a collection's None and one bool
    if kind is ScalarNode and isinstance(value, str) and isinstance(implicit, tuple):
        return scalars.resolve_plain(value)[0] if implicit[0] else scalars.STR
    return scalars.MAP if kind is MappingNode else scalars.SEQ


CACHE_CLEARING_SIZE = 16 * 1024

# libyaml's parser and composer; plain scalars resolved as kubectl resolves them. PyYAML's path
# resolvers are unused, but the composer still calls two hooks for every node it composes
# (``self.descend_resolver(parent, index)``, ``self.ascend_resolver()``): C builtins that accept
# the same arguments stand in for PyYAML's no-op Python methods (400,000 calls for 3,000
# Deployments, about 7% of the time; tests/test_resolver_hooks.py counts them).
# The class is made by a call, not a class statement: it subclasses a C extension type and puts
# functions in its namespace, which a module compiled by mypyc cannot do in a class body.
LOADER_NAMESPACE: dict[str, Any] = {
    "__module__": __name__,
    "__doc__": "libyaml's parser and composer; plain scalars resolved as kubectl resolves them.",
    "resolve": staticmethod(resolve_tag),
    "descend_resolver": staticmethod(slice),
    "ascend_resolver": staticmethod(tuple),
}
Loader: Any = type("Loader", (yaml.CSafeLoader,), LOADER_NAMESPACE)


def compose_first(text: str) -> Any:
    """The node tree of the first document of ``text``, for positions; None if there is none."""
    loader = Loader(text)
    try:
        return loader.get_node() if loader.check_node() else None
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()


def compose(text: str) -> list[Any]:
    """Node trees of the documents of our own output, with positions."""
    nodes: list[Any] = []
    loader = Loader(text)
    try:
        while loader.check_node():
            nodes.append(loader.get_node())
    except yaml.YAMLError:
        pass
    finally:
        loader.dispose()
    return nodes


def locate(node: Any, path: Sequence[object]) -> tuple[tuple[int, int], Any]:
    """((line, column), node) of ``path`` under ``node``: the key of a mapping entry, the item of a
    sequence. A path that goes deeper than the document points at the deepest part that exists."""
    mark = node.start_mark
    for part in path:
        found = None
        if isinstance(node, MappingNode):
            for key, value in node.value:
                if isinstance(key, ScalarNode) and _key_matches(key, part):
                    found, mark = value, key.start_mark
                    break
        elif isinstance(node, SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
            found = node.value[part]
            mark = found.start_mark
        if found is None:
            return (mark.line + 1, mark.column + 1), None
        node = found
    return (mark.line + 1, mark.column + 1), node


def _key_matches(key: Any, part: object) -> bool:
    if key.value == part:
        return True
    if key.style not in (None, ""):
        return False
    try:
        return scalars.key_string(scalars.resolve_plain(key.value)[1]) == part
    except DecodeError:
        return False


def path_at(node: Any, line: int, column: int) -> list[object] | None:
    """The path of the mapping entry (key or value) or item that starts at (line, column), 1-based;
    the deepest one, as a mapping starts where its first key does. Iterative, and each node is
    visited once: aliases may make the tree a graph, even a cycle."""
    best: tuple[object, ...] | None = None
    stack: list[tuple[Any, tuple[object, ...]]] = [(node, ())]
    seen: set[int] = set()
    while stack:
        current, prefix = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, MappingNode):
            entries = [(key, value, (*prefix, key.value)) for key, value in current.value]
        elif isinstance(current, SequenceNode):
            entries = [(item, item, (*prefix, i)) for i, item in enumerate(current.value)]
        else:
            continue
        for start, value, here in entries:
            for candidate in (start, value):  # the key, or a tagged or otherwise odd value
                mark = candidate.start_mark
                if (mark.line + 1, mark.column + 1) == (line, column) and (best is None or len(here) > len(best)):
                    best = here
            stack.append((value, here))
    return list(best) if best is not None else None


def implicit_type_note(node: Any) -> str | None:
    """Why a plain scalar is not a string: kubectl reads `y` as true and `0777` as 511."""
    if not isinstance(node, ScalarNode) or node.style not in (None, ""):  # libyaml says "" for plain
        return None
    raw = node.value
    tag, value = scalars.resolve_plain(raw)
    kinds = {scalars.BOOL: "a boolean", scalars.INT: "an integer", scalars.FLOAT: "a number", scalars.NULL: "null"}
    if tag not in kinds or (tag == scalars.NULL and raw in ("null", "Null", "NULL", "~", "")):
        return None  # a null written as null was meant as one: the type error says enough
    shown = json.dumps(value) if isinstance(value, bool | None) or str(value) != raw else ""
    shown = f" ({shown})" if shown else ""
    return f"kubectl reads {raw} as {kinds[tag]}{shown}, but a string is required here; quote it: {quoted(raw)}"


def quoted(raw: str) -> str:
    """``raw`` as a double-quoted YAML scalar."""
    return '"' + raw.replace("\\", "\\\\").replace('"', '\\"') + '"'
