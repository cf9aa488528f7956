"""Read manifests as kubectl does, fast, within fixed limits, and say where each problem is.

kubectl (apimachinery's YAMLOrJSONDecoder) reads a stream in two ways: input whose first
non-blank character is `{` is a stream of JSON objects (`jq -c` output); anything else is
split into documents at lines that start with `---`, and each document is decoded by
sigs.k8s.io/yaml (scalars as in kubeyaml.py). This module does the same:

- split: kubectl's separator rule (a `---` line may carry only a comment), UTF-8 checked;
- limits, each named in its finding: a document over 3 MiB (the apiserver's request limit),
  nesting over MAX_DEPTH levels, go-yaml's "excessive aliasing" rule (billion laughs);
- parse: rapidyaml when installed, for every document it cannot get wrong (yamlfast.py: no
  anchor, tag, duplicate key or scalar that kubectl resolves otherwise); else libyaml's parser
  and composer, then a small builder of plain data that notes duplicate keys, keys kubectl
  renames (`y:` is "true"), tags, and values JSON cannot carry.

libyaml's composer recurses in C and overflows the stack beyond some 30,000 levels, so a
document that *could* nest that deep (many brackets, a very long indentation run) has its
depth measured from the parser's events first; ordinary manifests never take that path.

A Document keeps its node tree (composed on first use for a document rapidyaml read), so a
finding's field path becomes a line and column without reading the file again; lines count
from the start of the file.
"""

from __future__ import annotations

import bisect
import codecs
import functools
import itertools
import json
import math
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from yaml.events import CollectionEndEvent, CollectionStartEvent
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from . import kubeyaml, yamlfast
from .kubeyaml import DecodeError

MAX_DOCUMENT_BYTES = 3 * 1024 * 1024  # the apiserver refuses larger request bodies
MAX_DEPTH = 200  # kubectl allows 10,000; schemas stop at about 60, and validators recurse
_COMPOSE_SAFE = 5_000  # below this many brackets or indentation, libyaml cannot nest too deep
_BLOCK_SIZE = 1 << 20
_INT64 = 1 << 63
_MAX_JSON_BYTES = 64 * 1024 * 1024  # JSON is read whole: bounded
_DEEP_BLOCK = re.compile(rf"^[ \t?:-]{{{_COMPOSE_SAFE}}}", re.M)


@dataclass
class Problem:
    line: int  # 1-based, in the file
    column: int  # 1-based
    rule: str
    message: str
    severity: str = "error"


@dataclass
class Document:
    index: int  # 1-based position in the file
    data: object
    problems: list[Problem] = field(default_factory=list)
    node: object = None  # the composed tree (YAML), for turning field paths into positions
    line_offset: int = 0  # lines of the file before this document
    nulls: bool = True  # whether the data may hold a null (False: the reader saw none)
    text: str | None = None  # read by rapidyaml: the tree is composed from this when needed

    def tree(self):
        """The document's node tree; composed by libyaml on first use if rapidyaml read it."""
        if self.node is None and self.text is not None:
            self.node, self.text = _compose_first(self.text), None
        return self.node

    def position(self, path: list) -> tuple[tuple[int, int], object]:
        """((line, column), node) of a field path; the document's start when it has no tree."""
        if self.tree() is None:
            return (self.line_offset + 1, 1), None
        (line, column), target = locate(self.node, path)
        return (line + self.line_offset, column), target

    def path_of(self, problem: Problem) -> list:
        if self.tree() is None:
            return []
        return path_at(self.node, problem.line - self.line_offset, problem.column) or []


# The tag of a node, for libyaml's composer, which calls this C-level cache directly (no Python
# frame on a hit; manifests repeat their scalars). Its memory is bounded by entries times their
# length: documents over _CACHE_CLEARING_SIZE clear it after they are read, so at most
# 2,048 scalars of a 16 KiB document stay (fuzzing found megabyte scalars piling up).
@functools.lru_cache(maxsize=2048)
def _resolve(kind, value, implicit):
    if kind is ScalarNode:
        return kubeyaml.resolve_plain(value)[0] if implicit[0] else kubeyaml.STR
    return kubeyaml.MAP if kind is MappingNode else kubeyaml.SEQ


_CACHE_CLEARING_SIZE = 16 * 1024


class _Loader(yaml.CSafeLoader):
    """libyaml's parser and composer; plain scalars resolved as kubectl resolves them."""

    resolve = staticmethod(_resolve)
    # PyYAML's path resolvers are unused; the composer still calls these two hooks for every
    # collection node. C builtins that accept the same arguments stand in for the no-op Python
    # methods (400,000 calls for 3,000 Deployments, about 7% of the time).
    descend_resolver = staticmethod(slice)
    ascend_resolver = staticmethod(tuple)


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
        self._seen: set[int] | None = set() if aliases else None
        self._decoded = self._aliased = self._alias_depth = 0
        self.nulls = False  # a null value was read

    def problem(self, node, rule: str, message: str, severity: str = "error") -> None:
        mark = node.start_mark
        self.problems.append(Problem(mark.line + 1 + self.offset, mark.column + 1, rule, message, severity))

    def build(self, node):
        if self._seen is not None:
            return self._counted(node)
        if node.__class__ is ScalarNode:
            return self.scalar(node)
        return self.collection(node)

    def _counted(self, node):
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

    def collection(self, node):
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
        if node.tag not in (kubeyaml.MAP, kubeyaml.SEQ):
            self.tag_ignored(node)
        self._open.add(id(node))
        try:
            if node.__class__ is MappingNode:
                return self.mapping(node)
            return [self.build(item) for item in node.value]
        finally:
            self._open.discard(id(node))
            self.depth -= 1

    def scalar(self, node, as_key: bool = False):
        tag, value = node.tag, node.value
        if tag == kubeyaml.STR:
            return value
        if tag not in kubeyaml.RESOLVABLE and tag != kubeyaml.BINARY:
            self.tag_ignored(node)
            return value
        result = None
        if tag == kubeyaml.NULL:
            self.nulls = True
        if node.style in (None, "") and tag != kubeyaml.BINARY:
            resolved_tag, result = kubeyaml.resolve_plain(value)
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
                result = kubeyaml.json_number(result)
        return result

    def tagged(self, node):
        try:
            return kubeyaml.tagged(node.tag, node.value)
        except DecodeError as err:
            self.problem(node, "yaml-tag", f"{err}; kubectl fails on this: remove the tag or fix the value")
            return node.value

    def mapping(self, node) -> dict:
        out: dict = {}
        merged: set = set()  # keys a `<<: *anchor` brought in may be overridden: that is merging
        for key_node, value_node in node.value:
            key = key_node.value
            if key_node.tag != kubeyaml.STR or key == "<<":  # the common case, a string key, skips both
                if _is_merge(key_node):
                    merged |= self.merge(out, value_node)
                    continue
                key = self.key(key_node)
                if key is None:
                    continue
            if key in out and key not in merged:
                self.problem(key_node, "duplicate-key", duplicate_key_message(key), "warning")
            merged.discard(key)
            out[key] = self.build(value_node)
        return out

    def key(self, key_node) -> str | None:
        if key_node.__class__ is not ScalarNode:
            self.problem(key_node, "yaml-key", "a mapping key must be a string, not a mapping or a list")
            return None
        value = self.scalar(key_node, as_key=True)
        try:
            key = kubeyaml.key_string(value)
        except DecodeError as err:
            self.problem(key_node, "yaml-key", f"{err}; quote the key")
            return None
        if key != key_node.value and key_node.style in (None, ""):
            self.problem(
                key_node,
                "yaml-implicit-type",
                f"kubectl reads the key {key_node.value} as {key!r}; quote it if you mean {_quoted(key_node.value)}",
                severity="warning",
            )
        return key

    def merge(self, out: dict, value_node) -> set:
        brought = set()
        sources = value_node.value if value_node.__class__ is SequenceNode else [value_node]
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

    def tag_ignored(self, node) -> None:
        self.problem(
            node,
            "yaml-tag",
            f"kubectl ignores the tag {node.tag!r} and reads the value as plain data; other YAML tools "
            "may construct objects from it: remove the tag",
            severity="warning",
        )


def _is_merge(node) -> bool:
    """go-yaml's isMerge: a plain `<<` key, or one tagged !!merge."""
    return (
        node.__class__ is ScalarNode and node.value == "<<" and (node.style in (None, "") or node.tag == kubeyaml.MERGE)
    )


def _quoted(raw: str) -> str:
    return '"' + raw.replace("\\", "\\\\").replace('"', '\\"') + '"'


# -- splitting the stream ------------------------------------------------------------------------


@dataclass
class _Chunk:
    text: str
    first_line: int  # lines of the file before the chunk
    problem: Problem | None = None  # a problem of the chunk itself (size, encoding, separator)
    screened: bool = False  # yamlfast.screen found nothing in it: the fast reader need not scan it


def _decoded_blocks(source) -> Iterator[tuple[str, Problem | None, bool]]:
    """(text, problem, final) blocks of ``source`` (str, bytes or a binary file); the last one is
    final, and carries a problem if the input is not UTF-8."""
    if isinstance(source, str):
        yield source.removeprefix("\ufeff"), None, True
        return
    decoder = codecs.getincrementaldecoder("utf-8-sig")("strict")  # a byte-order mark is allowed
    read = (lambda: source.read(_BLOCK_SIZE)) if hasattr(source, "read") else iter([source, b""]).__next__
    lines = 0
    while True:
        block = read()
        final = not block
        try:
            text = decoder.decode(block, final)
        except UnicodeDecodeError as err:
            good = block[: max(err.start, 0)].decode("utf-8", "replace")
            line = lines + good.count("\n") + 1
            column = len(good) - good.rfind("\n")
            bad = block[err.start] if err.start < len(block) else 0
            message = (
                f"byte 0x{bad:02x} is not UTF-8: kubectl would read it as U+FFFD, changing the text; "
                "save the file as UTF-8"
            )
            yield good, Problem(line, column, "yaml-encoding", message), True
            return
        lines += text.count("\n")
        yield text, None, final
        if final:
            return


def _separator_problem(line: int, separator: str) -> Problem:
    return Problem(
        line,
        4,
        "yaml-syntax",
        f"invalid document separator {separator[:40]!r}: kubectl allows only a comment after ---; "
        "put the content on the next line",
    )


def _separator_lines(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each line of ``text`` that starts with `---`, kubectl's document separator
    (end: where the line's newline is, or the text's end): what `^---(.*)$` in multiline mode
    finds, found by substring search, many times faster than a pattern tried at every line."""
    start = 0 if text.startswith("---") else text.find("\n---") + 1 or -1
    while start >= 0:
        end = text.find("\n", start + 3)
        end = len(text) if end < 0 else end
        yield start, end
        start = text.find("\n---", end) + 1 or -1


def _chunks(blocks, screen=None) -> Iterator[_Chunk]:
    """Documents as kubectl's YAMLReader splits them: at lines that start with `---`. With
    ``screen`` (yamlfast.screen), each block is screened once, and a chunk it found nothing in
    says so."""
    pending, first_line, skipping = "", 0, False
    for text, problem, final in blocks:
        pending += text
        start = 0
        hits = screen(pending) if screen is not None and not skipping else None
        for begin, end in _separator_lines(pending):
            if end == len(pending) and not final:
                break  # the line may go on in the next block
            body = pending[start:begin]
            if not skipping and len(body) > MAX_DOCUMENT_BYTES:  # came whole within a block
                yield _Chunk("", first_line, _size_problem(first_line))
            elif not skipping:
                yield _Chunk(body, first_line, screened=_clean(hits, start, begin))
            first_line += body.count("\n") + 1
            skipping = False
            rest = pending[begin + 3 : end].strip()
            if rest and not rest.startswith("#"):
                yield _Chunk("", first_line, _separator_problem(first_line, pending[begin:end]))
                return
            start = end + 1
        pending = pending[start:]
        if len(pending) > MAX_DOCUMENT_BYTES and not skipping:
            yield _Chunk("", first_line, _size_problem(first_line))
            skipping = True
        if skipping:
            # Keep only the last, possibly unfinished, line; of a line that started in an earlier
            # block, a space: what comes next is no line's start (a `---` there is no separator).
            cut = pending.rfind("\n") + 1
            first_line += pending.count("\n", 0, cut)
            pending = pending[cut:] if cut or not pending else " "
        if final:
            if not skipping and problem is None:  # a document cut by a bad byte is not parsed
                screened = _clean(hits, start, start + len(pending))
                # apimachinery's LineReader.Read ends every line with '\n', the last one too:
                # a block scalar on the file's unterminated last line keeps its line break.
                if pending and not pending.endswith("\n"):
                    pending += "\n"
                yield _Chunk(pending, first_line, screened=screened)
            if problem is not None:
                yield _Chunk("", problem.line - 1, problem)
            return


def _size_problem(first_line: int) -> Problem:
    message = f"a document is larger than {MAX_DOCUMENT_BYTES:,} bytes, the apiserver's request limit; split it"
    return Problem(first_line + 1, 1, "yaml-size", message)


def _clean(hits: list[int] | None, start: int, end: int) -> bool:
    """Whether no screen hit lies in text[start:end] or on the newline just before it."""
    if hits is None:
        return False
    at = bisect.bisect_left(hits, start - 1)
    return at == len(hits) or hits[at] >= end


def _too_deep(text: str, line_offset: int) -> Problem | None:
    """Depth from the parser's events, for the rare text that could crash libyaml's composer."""
    loader = _Loader(text)
    depth = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    mark = event.start_mark
                    return Problem(
                        mark.line + 1 + line_offset,
                        mark.column + 1,
                        "yaml-depth",
                        f"the document nests deeper than {MAX_DEPTH} levels, the limit of this tool",
                    )
            elif isinstance(event, CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        return None  # the composer reports the syntax error
    finally:
        loader.dispose()
    return None


# The fast reader, chosen at import: None where rapidyaml is not installed, or with
# PADDLEJOB_MANIFESTS_YAML=libyaml in the environment (tests run both ways).
fast_reader = yamlfast.read if yamlfast.AVAILABLE and os.environ.get("PADDLEJOB_MANIFESTS_YAML") != "libyaml" else None
# The first bytes a run reads are libyaml's, so a run over one small file never loads
# rapidyaml, whose import costs more than reading it with libyaml; past them (a big file, a
# folder of small ones) rapidyaml reads. Counted per process (tests that compare the two set 0).
FAST_AFTER = 32 * 1024
_read_so_far = 0


def _yaml_document(chunk: _Chunk, index: int, fast: bool = True) -> Document | None:
    text, offset = chunk.text, chunk.first_line
    if text.count("[") + text.count("{") > _COMPOSE_SAFE or _DEEP_BLOCK.search(text):
        deep = _too_deep(text, offset)
        if deep:
            return Document(index, None, [deep], line_offset=offset)
    elif fast and fast_reader is not None:  # no deep nesting either: rapidyaml's emitter recurses
        fast = fast_reader(text, MAX_DEPTH, chunk.screened)
        if fast is not None:
            return Document(index, fast[0], [], None, offset, fast[1], text)
    loader = _Loader(text)
    try:
        node = loader.get_node() if loader.check_node() else None  # kubectl decodes the first document
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
        return Document(index, None, [Problem(offset + 1, 1, "yaml-syntax", f"YAML error: {err}")])
    finally:
        loader.dispose()
        if len(text) > _CACHE_CLEARING_SIZE:
            _resolve.cache_clear()  # no long scalar of this document stays cached
    if node is None:
        return None
    builder = _Builder(offset, aliases="*" in text)
    try:
        data = builder.build(node)
    except _Stop:
        data = None
    return Document(index, data, builder.problems, node, offset, builder.nulls)


def duplicate_key_message(key) -> str:
    """A key twice in one mapping: the verdict depends on the tool that reads the file."""
    return (
        f"duplicate key {key!r}: kubectl (create, apply, apply --server-side) keeps the last value, so the "
        "apiserver never sees the first; kustomize refuses the file (mapping key already defined); remove one"
    )


def _json_documents(text: str) -> Iterator[Document]:
    """A stream of JSON objects, as kubectl reads input that starts with `{`."""
    duplicates: list[str] = []

    def pairs(items):  # kubectl's JSON decoding keeps the last of duplicate keys
        out = {}
        for key, value in items:
            if key in out:
                duplicates.append(key)
            out[key] = value
        return out

    decoder = json.JSONDecoder(object_pairs_hook=pairs, parse_constant=_no_constant)
    position, index, length = 0, 0, len(text)
    while True:
        while position < length and text[position] in " \t\r\n":
            position += 1
        if position >= length:
            return
        index += 1
        line = text.count("\n", 0, position)
        try:
            data, end = decoder.raw_decode(text, position)
        except json.JSONDecodeError as err:
            yield Document(
                index, None, [Problem(err.lineno, err.colno, "json-syntax", f"JSON syntax error: {err.msg}")]
            )
            return
        except (RecursionError, ValueError) as err:
            problem = Problem(line + 1, 1, "yaml-depth", f"the JSON document cannot be read: {err}")
            yield Document(index, None, [problem])
            return
        problems = [Problem(line + 1, 1, "duplicate-key", duplicate_key_message(key), "warning") for key in duplicates]
        duplicates.clear()
        if nesting_depth(data) > MAX_DEPTH:
            problems.append(Problem(line + 1, 1, "yaml-depth", f"the document nests deeper than {MAX_DEPTH} levels"))
            yield Document(index, None, problems, None, line)
        else:
            yield Document(index, _json_numbers(data), problems, _compose_first(text[position:end]), line)
        position = end


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON; kubectl cannot read it")


def _json_numbers(data):
    """Integral floats (1e3, 2.0) as integers, as kubectl's JSON decoding gives them."""
    if isinstance(data, dict):
        return {key: _json_numbers(value) for key, value in data.items()}
    if isinstance(data, list):
        return [_json_numbers(value) for value in data]
    if isinstance(data, float):
        return kubeyaml.json_number(data)
    return data


def _compose_first(text: str):
    """The node tree of the first document of ``text``, for positions; None if there is none."""
    loader = _Loader(text)
    try:
        return loader.get_node() if loader.check_node() else None
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()


def nesting_depth(data) -> int:
    """Nesting depth of plain data (counted up to MAX_DEPTH + 1), without recursion."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, dict | list):
            deepest = max(deepest, level)
            if level <= MAX_DEPTH:  # deep enough to know it is too deep
                stack.extend((item, level + 1) for item in (value.values() if isinstance(value, dict) else value))
    return deepest


def iter_documents(source) -> Iterator[Document]:
    """The Documents of ``source``: a str, bytes, or a binary file read in blocks (memory stays
    flat however many documents it holds). Problems of the stream itself (encoding, size,
    separators) come as a Document of their own with no data."""
    blocks = _decoded_blocks(source)
    head = []
    for block in blocks:
        head.append(block)
        if block[0].strip() or block[2]:
            break
    if "".join(text for text, _, _ in head).lstrip(" \t\r\n").startswith("{"):
        yield from _json_stream(itertools.chain(head, blocks))
        return
    global _read_so_far
    index = 0
    # Screening pays off only where the fast reader reads: not a small stream in a run's first bytes
    fast_ahead = _read_so_far + sum(len(text) for text, _, _ in head) > FAST_AFTER
    screen = yamlfast.screen if fast_reader is not None and fast_ahead else None
    for chunk in _chunks(itertools.chain(head, blocks), screen):
        if chunk.problem is not None:
            yield Document(index + 1, None, [chunk.problem], line_offset=chunk.first_line)
            continue
        _read_so_far += len(chunk.text)
        doc = _yaml_document(chunk, index + 1, _read_so_far > FAST_AFTER)
        if doc is not None:
            index += 1
            yield doc


def _json_stream(blocks) -> Iterator[Document]:
    parts, size, problem = [], 0, None
    for text, block_problem, _ in blocks:
        problem = problem or block_problem
        size += len(text)
        if size > _MAX_JSON_BYTES:
            message = f"a JSON stream larger than {_MAX_JSON_BYTES:,} bytes; split it"
            yield Document(1, None, [Problem(1, 1, "yaml-size", message)])
            return
        parts.append(text)
    documents = 0
    for doc in _json_documents("".join(parts)):
        documents = doc.index
        yield doc
    if problem is not None:
        yield Document(documents + 1, None, [problem])


def read_documents(source) -> tuple[list, list[Problem]]:
    """Every document's data and all problems (encoding, limits, tags, duplicates) of a file
    (a Path), a binary stream, bytes or text: for convert, local and --params."""
    if isinstance(source, Path):
        with source.open("rb") as stream:
            return read_documents(stream)
    docs, problems = [], []
    for doc in iter_documents(source):
        problems += doc.problems
        if doc.data is not None:
            docs.append(doc.data)
    return docs, problems


def compose(text: str) -> list:
    """Node trees of the documents of our own output, with positions."""
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


def _key_matches(key: ScalarNode, part) -> bool:
    if key.value == part:
        return True
    if key.style not in (None, ""):
        return False
    try:
        return kubeyaml.key_string(kubeyaml.resolve_plain(key.value)[1]) == part
    except DecodeError:
        return False


def path_at(node, line: int, column: int) -> list | None:
    """The path of the mapping entry (key or value) or item that starts at (line, column), 1-based;
    the deepest one, as a mapping starts where its first key does. Iterative, and each node is
    visited once: aliases may make the tree a graph, even a cycle."""
    best: tuple | None = None
    stack, seen = [(node, ())], set()
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


def implicit_type_note(node) -> str | None:
    """Why a plain scalar is not a string: kubectl reads `y` as true and `0777` as 511."""
    if not isinstance(node, ScalarNode) or node.style not in (None, ""):  # libyaml says "" for plain
        return None
    raw = node.value
    tag, value = kubeyaml.resolve_plain(raw)
    kinds = {kubeyaml.BOOL: "a boolean", kubeyaml.INT: "an integer", kubeyaml.FLOAT: "a number", kubeyaml.NULL: "null"}
    if tag not in kinds or (tag == kubeyaml.NULL and raw in ("null", "Null", "NULL", "~", "")):
        return None  # a null written as null was meant as one: the type error says enough
    shown = json.dumps(value) if isinstance(value, bool | None) or str(value) != raw else ""
    shown = f" ({shown})" if shown else ""
    return f"kubectl reads {raw} as {kinds[tag]}{shown}, but a string is required here; quote it: {_quoted(raw)}"
