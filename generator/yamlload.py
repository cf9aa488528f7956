"""Read manifests fast, and notice what kubectl's strict decoding would refuse.

The fast path is libyaml's parser and composer and a small builder of plain
data that notes, as it goes, duplicate keys (kubectl rejects them) and keys
that YAML 1.1 turns into booleans or numbers (`on:`, `1:`).  Timestamps stay
strings, as they do for kubectl.  Tags that construct objects (`!!python/...`,
`!!set`, `!Custom`) are refused but the document is still read, as plain data.
The builder replaces PyYAML's generic constructor: it is about 1.6x faster
than CSafeLoader's construction (bench/validate_bench.py).

Problems carry the position of the node; the path of the field is worked out
later, and only for documents that have a finding (see ``locate``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, ScalarNode, SequenceNode
from yaml.resolver import Resolver


@dataclass
class Problem:
    line: int  # 1-based
    column: int  # 1-based
    rule: str
    message: str
    severity: str = "error"


@dataclass
class Document:
    index: int  # 1-based position in the file
    data: object
    problems: list[Problem] = field(default_factory=list)


_STR, _INT, _FLOAT = "tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
_BOOL, _NULL, _TIMESTAMP = "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null", "tag:yaml.org,2002:timestamp"
_MAP, _SEQ, _MERGE = "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:merge"
_PLAIN_TAGS = {_STR, _INT, _FLOAT, _BOOL, _NULL, _TIMESTAMP, _MAP, _SEQ}
_SCALARS = SafeConstructor()  # only for YAML 1.1's spellings of numbers (0777, 1_000, 0x1F, .inf)
_RESOLVER = Resolver()  # the implicit types CSafeLoader uses


@functools.lru_cache(maxsize=4096)  # bounded: memory stays flat however many documents stream by
def _resolve(kind, value, implicit):
    return _RESOLVER.resolve(kind, value, implicit)


class _Loader(yaml.CSafeLoader):
    """libyaml's parser and composer; scalars resolved through a cache (manifests repeat them).

    The cache is a C-level lru_cache called directly by libyaml's composer: no Python frame
    per scalar on a hit.
    """

    resolve = staticmethod(_resolve)


class _Builder:
    """Plain data from one document's node tree, with the problems found on the way."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self._open: set[int] = set()  # collections being built: an alias back to one is a cycle

    def problem(self, node, rule: str, message: str) -> None:
        self.problems.append(Problem(node.start_mark.line + 1, node.start_mark.column + 1, rule, message))

    def build(self, node):
        cls = node.__class__
        if cls is ScalarNode:
            return self.scalar(node)
        if id(node) in self._open:
            self.problem(node, "yaml-alias", "an alias refers to a node that contains it; manifests cannot be cyclic")
            return None
        if node.tag not in _PLAIN_TAGS:
            self.refused(node)
        self._open.add(id(node))
        try:
            if cls is MappingNode:
                return self.mapping(node)
            return [self.build(item) for item in node.value]
        finally:
            self._open.discard(id(node))

    def scalar(self, node):
        tag, value = node.tag, node.value
        if tag in (_STR, _TIMESTAMP):  # kubectl keeps timestamps as strings too
            return value
        if tag == _INT:
            if value.isdigit() and (value[0] != "0" or value == "0"):
                return int(value)
            return _SCALARS.construct_yaml_int(node)
        if tag == _BOOL:
            return SafeConstructor.bool_values[value.lower()]
        if tag == _NULL:
            return None
        if tag == _FLOAT:
            return _SCALARS.construct_yaml_float(node)
        self.refused(node)
        return value

    def mapping(self, node) -> dict:
        out: dict = {}
        merged: set = set()  # keys a `<<: *anchor` brought in may be overridden: that is merging
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE:
                merged |= self.merge(out, value_node)
                continue
            key = self.build(key_node)
            if key.__class__ is not str:
                key = self.string_key(key_node, key)
            if key in out and key not in merged:
                self.problem(
                    key_node,
                    "duplicate-key",
                    f"duplicate key {key!r}: kubectl rejects it (strict decoding) and "
                    "other tools keep only the last one; remove one of them",
                )
            merged.discard(key)
            out[key] = self.build(value_node)
        return out

    def merge(self, out: dict, value_node) -> set:
        brought = set()
        sources = value_node.value if isinstance(value_node, SequenceNode) else [value_node]
        for source in sources:
            values = self.build(source)
            if not isinstance(values, dict):
                self.problem(source, "yaml-merge", "a merge key (<<) takes a mapping or a list of mappings")
                continue
            for key, value in values.items():
                if key not in out:
                    out[key] = value
                    brought.add(key)
        return brought

    def string_key(self, key_node, key) -> str:
        if isinstance(key_node, ScalarNode):
            raw = key_node.value
            self.problem(
                key_node,
                "yaml-implicit-type",
                f"key {raw!r} is read as {type(key).__name__} {key!r} by YAML 1.1, not as a string; "
                f"quote it: {_quoted(raw)}",
            )
            return raw
        self.problem(key_node, "yaml-key", "a mapping key must be a string, not a mapping or a list")
        return str(key)

    def refused(self, node) -> None:
        self.problem(node, "yaml-tag", f"tag {node.tag!r} constructs an object; manifests hold plain data only")


def _quoted(raw: str) -> str:
    return '"' + raw.replace("\\", "\\\\").replace('"', '\\"') + '"'


def iter_yaml(source):
    """Yield the Documents of ``source`` (a string or a file object, read in chunks); a syntax
    error ends the stream with a document that holds only the problem."""
    loader = _Loader(source)
    index = 0
    try:
        while loader.check_node():
            index += 1
            node = loader.get_node()
            builder = _Builder()
            try:
                data = builder.build(node)
            except RecursionError:
                data = None
                builder.problem(node, "yaml-depth", "the document nests too deeply to be a manifest")
            yield Document(index, data, builder.problems)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        what = err.problem or "invalid YAML"
        context = f" ({err.context})" if err.context else ""
        yield Document(index or 1, None, [Problem(line, column, "yaml-syntax", f"YAML syntax error: {what}{context}")])
    except yaml.YAMLError as err:
        yield Document(index or 1, None, [Problem(1, 1, "yaml-syntax", f"YAML error: {err}")])
    finally:
        loader.dispose()


def compose(text: str) -> list:
    """Node trees of the documents, with positions; as many as the text holds before an error."""
    nodes = []
    loader = _Loader(text)
    try:
        while loader.check_node():
            nodes.append(loader.get_node())
    except yaml.YAMLError:
        pass
    finally:
        loader.dispose()
    return nodes


def locate(node, path: list) -> tuple[tuple[int, int], object]:
    """((line, column), node) of ``path`` under ``node``: the key of a mapping entry, the item of a
    sequence. A path that goes deeper than the document points at the deepest part that exists."""
    mark = node.start_mark
    for part in path:
        found = None
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.value == part:
                    found, mark = value, key.start_mark
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
            found = node.value[part]
            mark = found.start_mark
        if found is None:
            return (mark.line + 1, mark.column + 1), None
        node = found
    return (mark.line + 1, mark.column + 1), node


def path_at(node, line: int, column: int, prefix: tuple = ()) -> list | None:
    """The path of the mapping entry (key or value) or item that starts at (line, column), 1-based."""
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            here = (*prefix, key.value)
            if key.start_mark.line + 1 == line and key.start_mark.column + 1 == column:
                return list(here)
            found = path_at(value, line, column, here)
            if found is not None:
                return found
            if value.start_mark.line + 1 == line and value.start_mark.column + 1 == column:
                return list(here)  # a tagged or otherwise odd value
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            if item.start_mark.line + 1 == line and item.start_mark.column + 1 == column:
                return [*prefix, i]
            found = path_at(item, line, column, (*prefix, i))
            if found is not None:
                return found
    return None


def implicit_type_note(node) -> str | None:
    """Why a plain scalar is not a string: YAML 1.1 reads `yes` as true and `0777` as 511."""
    if not isinstance(node, yaml.ScalarNode) or node.style not in (None, ""):  # libyaml says "" for plain
        return None
    raw = node.value
    resolved = _RESOLVER.resolve(yaml.ScalarNode, raw, (True, False))
    kinds = {
        "tag:yaml.org,2002:bool": "a boolean",
        "tag:yaml.org,2002:int": "an integer",
        "tag:yaml.org,2002:float": "a number",
        "tag:yaml.org,2002:null": "null",
    }
    if resolved not in kinds:
        return None
    value = yaml.safe_load(raw)
    shown = f" ({value!r})" if str(value) != raw else ""
    return f"YAML 1.1 reads {raw} as {kinds[resolved]}{shown}, but a string is required here; quote it: {_quoted(raw)}"
