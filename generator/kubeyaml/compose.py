"""libyaml's side of reading manifests: its parser and composer, scalars resolved as kubectl
resolves them (scalars.py), and a small builder of plain data that notes duplicate keys, keys
kubectl renames (`y:` is "true"), tags, aliases past go-yaml's limit and values JSON cannot
carry. load.py sends here every document rapidyaml may get wrong (fast.py), every
document when rapidyaml is not installed, and the first bytes of a small run.

A node tree also turns a finding's field path into a line and column (locate), and a
problem's position back into a path (path_at).

PyYAML is imported with this module, when a run first needs libyaml: a run that rapidyaml
reads whole, and that finds nothing, never loads it.
"""

from __future__ import annotations

import contextlib
import gc
import json
import math
import re
import types
from collections.abc import Iterator
from typing import Any

import yaml
from yaml.composer import Composer, ComposerError
from yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)
from yaml.nodes import MappingNode, ScalarNode, SequenceNode
from yaml.reader import Reader

from generator.kubeyaml import scalars
from generator.kubeyaml.document import MAX_DEPTH, Document, Problem, duplicate_key_message, too_many_message
from generator.kubeyaml.scalars import DecodeError
from generator.kubeyaml.tree import CACHE_CLEARING_SIZE, Loader, quoted, resolve_tag

_INT64 = 1 << 63


def _allowed_alias_ratio(decoded: int) -> float:
    """go-yaml v2's allowedAliasRatio (decode.go): generous for small documents, 10% for huge ones."""
    if decoded <= 400_000:
        return 0.99
    if decoded >= 4_000_000:
        return 0.10
    return 0.99 - 0.89 * (decoded - 400_000) / 3_600_000


class _Stop(Exception):
    """The document cannot be read further (too deep, too many aliases); the problem is recorded."""


class _Builder:
    """Plain data from one document's node tree, with the problems found on the way."""

    def __init__(self, line_offset: int, aliases: bool) -> None:
        self.problems: list[Problem] = []
        self.offset = line_offset
        self.depth = 0
        self._open: set[int] = set()  # collections being built: an alias back to one is a cycle
        # go-yaml's aliasing rule, counted only when the text has an alias at all
        self._aliases = aliases
        self._seen: set[int] = set()
        self._decoded = self._aliased = self._alias_depth = 0
        self.nulls = False  # a null value was read

    def problem(self, node: Any, rule: str, message: str, severity: str = "error") -> None:
        mark = node.start_mark
        self.problems.append(Problem(mark.line + 1 + self.offset, mark.column + 1, rule, message, severity))

    def build(self, node: Any) -> Any:
        if self._aliases:
            return self._counted(node)
        if node.__class__ is ScalarNode:
            return self.scalar(node)
        return self.collection(node)

    def _counted(self, node: Any) -> Any:
        self._decoded += 1
        alias = id(node) in self._seen
        self._seen.add(id(node))
        self._alias_depth += alias
        if self._alias_depth:
            self._aliased += 1
        try:
            if (
                self._aliased > 100
                and self._decoded > 1000
                and self._aliased / self._decoded > _allowed_alias_ratio(self._decoded)
            ):
                self.problem(
                    node,
                    "yaml-alias",
                    f"aliases expand this document to over {self._decoded:,} values; kubectl stops at this "
                    "point too (go-yaml: excessive aliasing): write the values out",
                )
                raise _Stop
            return self.scalar(node) if node.__class__ is ScalarNode else self.collection(node)
        finally:
            self._alias_depth -= alias

    def collection(self, node: Any) -> Any:
        if id(node) in self._open:
            self.problem(node, "yaml-alias", "an alias refers to a node that contains it; manifests cannot be cyclic")
            return None
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.problem(
                node,
                "yaml-depth",
                f"the document nests deeper than {MAX_DEPTH} levels, the limit of this tool "
                "(no Kubernetes schema nests beyond about 60)",
            )
            raise _Stop
        if node.tag not in (scalars.MAP, scalars.SEQ):
            self.tag_ignored(node)
        self._open.add(id(node))
        try:
            if node.__class__ is MappingNode:
                return self.mapping(node)
            return [self.build(item) for item in node.value]
        finally:
            self._open.discard(id(node))
            self.depth -= 1

    def scalar(self, node: Any, as_key: bool = False) -> Any:
        tag, value = node.tag, node.value
        if tag == scalars.STR:
            return value
        if tag not in scalars.RESOLVABLE and tag != scalars.BINARY:
            self.tag_ignored(node)
            return value
        result = None
        if tag == scalars.NULL:
            self.nulls = True
        if node.style in (None, "") and tag != scalars.BINARY:
            resolved_tag, result = scalars.resolve_plain(value)
            if resolved_tag != tag:  # an explicit tag on a plain scalar (`!!int 12`)
                result = self.tagged(node)
        else:
            result = self.tagged(node)
        if result.__class__ is int and not as_key and not -_INT64 <= result < _INT64:
            result = float(result)  # a uint64: JSON decoding gives kubectl a float
        elif result.__class__ is float and not as_key:
            if not math.isfinite(result):
                self.problem(
                    node,
                    "yaml-json",
                    f"{value} is not a number JSON can carry; kubectl cannot send it: quote it or use a number",
                )
            else:
                result = scalars.json_number(result)
        return result

    def tagged(self, node: Any) -> object:
        try:
            return scalars.tagged(node.tag, node.value)
        except DecodeError as err:
            self.problem(node, "yaml-tag", f"{err}; kubectl fails on this: remove the tag or fix the value")
            return node.value

    def mapping(self, node: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        merged: set[str] = set()  # keys a `<<` brought in may be overridden: that is merging
        for key_node, value_node in node.value:
            key = key_node.value
            if key_node.tag != scalars.STR or key == "<<":  # the common case, a string key, skips both
                if _is_merge(key_node):
                    self.merge(out, value_node, key_node, merged)
                    continue
                key = self.key(key_node)
                if key is None:
                    continue
            if key in out and key not in merged:
                self.problem(key_node, "duplicate-key", duplicate_key_message(key), "warning")
            merged.discard(key)
            out[key] = self.build(value_node)
        return out

    def key(self, key_node: Any) -> str | None:
        if key_node.__class__ is not ScalarNode:
            self.problem(key_node, "yaml-key", "a mapping key must be a string, not a mapping or a list")
            return None
        value = self.scalar(key_node, as_key=True)
        try:
            key = scalars.key_string(value)
        except DecodeError as err:
            self.problem(key_node, "yaml-key", f"{err}; quote the key")
            return None
        if key != key_node.value and key_node.style in (None, ""):
            self.problem(
                key_node,
                "yaml-implicit-type",
                f"kubectl reads the key {key_node.value} as {key!r}; quote it if you mean {quoted(key_node.value)}",
                severity="warning",
            )
        return key

    def merge(self, out: dict[str, Any], value_node: Any, key_node: Any, merged: set[str]) -> None:
        """go-yaml v2's merge (decode.go): each mapping merged sets its keys, replacing what the
        mapping holds so far (a key written before the `<<` too); a list of them is merged from
        its last item to its first, so the first item wins. A key written after the `<<` wins."""
        sources = value_node.value if value_node.__class__ is SequenceNode else [value_node]
        replaced: list[str] = []
        for source in reversed(sources):
            values = self.build(source)
            if not isinstance(values, dict):
                self.problem(source, "yaml-merge", "a merge key (<<) takes a mapping or a list of mappings")
                continue
            for key, value in values.items():
                if key in out and key not in merged:
                    replaced.append(key)
                out[key] = value
                merged.add(key)
        if replaced:
            names = ", ".join(sorted({str(key) for key in replaced}))
            self.problem(  # a key written twice, once by the merge: as a duplicate key, a warning
                key_node,
                "duplicate-key",
                f"this merge (<<) replaces {names} written before it: kubectl (go-yaml) sends the merged "
                "value; put the merge first if the written value is meant",
                "warning",
            )

    def tag_ignored(self, node: Any) -> None:
        self.problem(
            node,
            "yaml-tag",
            f"kubectl ignores the tag {node.tag!r} and reads the value as plain data; other YAML tools "
            "may construct objects from it: remove the tag",
            severity="warning",
        )


def _is_merge(node: Any) -> bool:
    """go-yaml's isMerge: a plain `<<` key, or one tagged !!merge."""
    return (
        node.__class__ is ScalarNode and node.value == "<<" and (node.style in (None, "") or node.tag == scalars.MERGE)
    )


def over_limits(text: str, line_offset: int, node_limit: int | None) -> Problem | None:
    """The first limit the first document of ``text`` passes, counted from the parser's events
    in one pass (no tree is built: a tree of a million nodes is 500 MB, and a deep one could crash
    libyaml's composer): nesting deeper than MAX_DEPTH, or more than ``node_limit`` values when
    that is not None. A syntax error ends the count; the composer then reports it."""
    loader = Loader(text)
    depth = count = 0
    limit = node_limit if node_limit is not None else -1
    try:
        with collecting_later():
            while loader.check_event():
                event = loader.get_event()
                kind = event.__class__
                if kind in _START_EVENTS:
                    depth += 1
                    count += 1
                    if depth > MAX_DEPTH:
                        mark = event.start_mark
                        return Problem(
                            mark.line + 1 + line_offset,
                            mark.column + 1,
                            "yaml-depth",
                            f"the document nests deeper than {MAX_DEPTH} levels, the limit of this tool",
                        )
                elif kind in _END_EVENTS:
                    depth -= 1
                    continue
                elif kind in _VALUE_EVENTS:
                    count += 1
                elif kind is DocumentEndEvent:
                    return None
                else:
                    continue
                if count > limit >= 0:
                    mark = event.start_mark
                    return Problem(mark.line + 1 + line_offset, mark.column + 1, "yaml-size", too_many_message(limit))
    except yaml.YAMLError:
        return None  # the composer reports the syntax error
    finally:
        loader.dispose()
    return None


@contextlib.contextmanager
def collecting_later() -> Iterator[None]:
    """The cycle collector paused while libyaml builds a document's events or nodes. A big
    document is hundreds of thousands of new objects, and each few hundred would start a
    collection that walks every object the run holds (its schemas, too): a 1.5 MB document took
    1.5 s with it, 1 s without. Node trees hold no cycles; memory is bounded by the document
    limits (MAX_NODES), and the collector runs again when the block ends."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


_VALUE_EVENTS = (ScalarEvent, AliasEvent)
_START_EVENTS = (SequenceStartEvent, MappingStartEvent)
_END_EVENTS = (SequenceEndEvent, MappingEndEvent)


# go-yaml lets an anchor be defined again, an alias meaning the latest definition; libyaml's
# composer refuses that, so a document it refuses for it is composed again by PyYAML's Python
# composer (over libyaml's events) with the check left out. Only such documents pay for it. Made
# by a call, as tree.Loader is (a class statement could not put PyYAML's methods in it compiled).
_AnchorsLoader: Any = type(
    "_AnchorsLoader",
    (Loader,),
    {
        "__module__": __name__,
        "check_node": Composer.check_node,
        "get_node": Composer.get_node,
        "compose_document": Composer.compose_document,
        "compose_scalar_node": Composer.compose_scalar_node,
        "compose_sequence_node": Composer.compose_sequence_node,
        "compose_mapping_node": Composer.compose_mapping_node,
    },
)


def _compose_node(loader: Any, parent: Any, index: Any) -> Any:
    """Composer.compose_node, but an anchor defined again replaces the old definition."""
    event = loader.peek_event()
    if not isinstance(event, AliasEvent) and event.anchor is not None:
        loader.anchors.pop(event.anchor, None)  # defined again: the new definition replaces the old
    return Composer.compose_node(loader, parent, index)


def _anchors_loader(text: str) -> Any:
    loader = _AnchorsLoader(text)
    loader.anchors = {}
    loader.compose_node = types.MethodType(_compose_node, loader)  # what Composer's methods call
    return loader


def _compose(text: str) -> Any:
    """The first document's node tree, libyaml's composer first."""
    loader = Loader(text)
    try:
        return loader.get_node() if loader.check_node() else None
    except ComposerError as err:
        if "found duplicate anchor" not in str(err):
            raise
    finally:
        loader.dispose()
    loader = _anchors_loader(text)
    try:
        return loader.get_node() if loader.check_node() else None
    finally:
        loader.dispose()


# What YAML allows unprintable (libyaml's and go-yaml's is_printable): "control characters are not allowed".
# PyYAML's reader compiles the same class ([^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd
# \U00010000-\U0010ffff]): taken from it, not compiled twice (a few milliseconds of every run's start).
_NOT_PRINTABLE = Reader.NON_PRINTABLE


def _reader_problem(text: str, offset: int) -> Problem | None:
    """Where the first character YAML does not allow is, and what to do."""
    found = _NOT_PRINTABLE.search(text)
    if found is None:
        return None
    at = found.start()
    line = text.count("\n", 0, at) + 1 + offset
    column = at - text.rfind("\n", 0, at)
    message = (
        f"character U+{ord(found.group()):04X} is not allowed in YAML (kubectl: control characters are not "
        "allowed); remove it, or write it as an escape in a double-quoted string"
    )
    return Problem(line, column, "yaml-syntax", message)


# libyaml refuses a plain scalar in flow context whose `:` is followed by `,[]{}` ("found
# unexpected ':'"); go-yaml v2 (scannerc.go, yaml_parser_scan_plain_scalar) has no such check: the
# `:` belongs to the scalar, which the flow indicator then ends. kubectl reads `[2001:db8::]` as
# ["2001:db8::"]. Such a scalar ends with `:`, so it is a string whatever go-yaml's resolver says.
_FLOW_COLON = "found unexpected ':'"
# Each such scalar costs libyaml a parse of the text up to it (it reports one error at a time):
# past this many in one document, a limit of this tool (go-yaml has none), the last error stands
# and names the limit, so a hostile 3 MiB document cannot buy a thousand parses.
MAX_FLOW_COLONS = 16


def _compose_as_go_yaml(text: str) -> Any:
    """_compose, with each one-line plain scalar that go-yaml ends at `:` + a flow indicator
    quoted as go-yaml reads it (the text of that line is two characters longer after it)."""
    for rewritten in range(MAX_FLOW_COLONS + 1):
        try:
            return _compose(text)
        except yaml.MarkedYAMLError as err:
            start, at = err.context_mark, err.problem_mark
            if err.problem != _FLOW_COLON or start is None or at is None:
                raise
            scalar = text[start.index : at.index + 1]
            if not scalar.endswith(":") or "\n" in scalar or text[at.index + 1 : at.index + 2] not in tuple(",[]{}"):
                raise
            if rewritten == MAX_FLOW_COLONS:
                err.problem = (
                    f"more than {MAX_FLOW_COLONS} plain scalars ending in ':' before ',', ']' or '}}', the limit of "
                    "this tool (go-yaml reads them as strings): quote them"
                )
                raise
            text = text[: start.index] + json.dumps(scalar, ensure_ascii=False) + text[at.index + 1 :]
    raise AssertionError("unreachable: the loop returns or raises")


def read(text: str, index: int, offset: int) -> Document | None:
    """Document ``index`` from ``text``, whose first line is line ``offset + 1`` of the file;
    None when the text holds only comments or nothing."""
    with collecting_later():
        return _read(text, index, offset)


def _read(text: str, index: int, offset: int) -> Document | None:
    try:
        node = _compose_as_go_yaml(text)  # kubectl decodes the first document
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line, column = (mark.line + 1 + offset, mark.column + 1) if mark else (offset + 1, 1)
        context = f" ({err.context})" if err.context else ""
        return Document(
            index,
            None,
            [Problem(line, column, "yaml-syntax", f"YAML syntax error: {err.problem or 'invalid YAML'}{context}")],
        )
    except yaml.YAMLError as err:
        problem = _reader_problem(text, offset) or Problem(offset + 1, 1, "yaml-syntax", f"YAML error: {err}")
        return Document(index, None, [problem])
    except RecursionError:  # PyYAML's Python composer (a redefined anchor) in a very deep document
        message = f"the document nests deeper than {MAX_DEPTH} levels, the limit of this tool"
        return Document(index, None, [Problem(offset + 1, 1, "yaml-depth", message)])
    finally:
        if len(text) > CACHE_CLEARING_SIZE:
            resolve_tag.cache_clear()  # no long scalar of this document stays cached
    if node is None:
        return None
    if "\\/" in text:
        escape = _slash_escape(node, text, offset)
        if escape is not None:
            return Document(index, None, [escape], node, offset)
    builder = _Builder(offset, aliases="*" in text)
    try:
        data = builder.build(node)
    except _Stop:
        data = None
    return Document(index, data, builder.problems, node, offset, builder.nulls)


# `\/` not itself escaped: an escape libyaml reads (YAML 1.2's, for JSON) and go-yaml v2 does not
_SLASH_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*(\\/)")


def _slash_escape(root: Any, text: str, offset: int) -> Problem | None:
    """A problem at the first `\\/` inside a double-quoted scalar: kubectl fails on the document
    (go-yaml: found unknown escape character); in a plain or single-quoted one it is two characters."""
    found = [m.start(1) for m in _SLASH_ESCAPE.finditer(text)]
    if not found:
        return None
    spans: list[tuple[int, int]] = []
    stack: list[Any] = [root]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node.__class__ is ScalarNode:
            if node.style == '"':
                spans.append((node.start_mark.index, node.end_mark.index))
        elif node.__class__ is MappingNode:
            for key, value in node.value:
                stack += (key, value)
        else:
            stack += node.value
    for at in found:
        if any(start < at < end for start, end in spans):
            line = text.count("\n", 0, at) + 1 + offset
            column = at - text.rfind("\n", 0, at)
            message = (
                'found unknown escape character "\\/": kubectl (go-yaml) fails on the document; '
                'write "/" (no escape is needed)'
            )
            return Problem(line, column, "yaml-syntax", message)
    return None
