"""The fast path of kubeyaml.load: rapidyaml (the C++ ryml library, PyPI `rapidyaml`) reads a
document and emits it as JSON, which orjson turns into Python data. It is some ten times
faster than libyaml's composer, but it resolves scalars as YAML 1.2 does, keeps the last of
duplicate keys, and knows nothing of kubectl's limits. So it reads only documents it cannot
get wrong, and answers "unsure" (None) for every other one; kubeyaml.load then reads that document
with libyaml, as it reads every document when rapidyaml is not installed.

A document is read here only if:
- its text has none of the constructs whose meaning is kubectl's business (anchors, aliases,
  tags, merge keys, directives, explicit keys, document ends, escapes, tabs, CR, control or
  line-separator characters) nor a few libyaml refuses and rapidyaml does not (_slow_path),
  where a false alarm only costs speed;
- rapidyaml parses it and orjson reads the JSON (orjson refuses what JSON cannot carry: 1e400);
- it is a mapping of at most MAX_DEPTH levels, its integers fit in int64 (go-yaml turns larger
  ones into floats: libyaml's path does that);
- the emitted data has as many nodes as rapidyaml's tree (a duplicate key loses one);
- no key, and no plain value, is a scalar go-yaml v2 resolves to something else than YAML 1.2
  (`y`, `on`, `0777`, `~`, `12:30`, `True`) or one that YAML 1.1 does not allow unquoted
  (`a: b: c`, `]x`): such a string value is looked up in the tree, and the document is read by
  libyaml unless it was quoted there. Numbers, `true`, `false` and `null` that rapidyaml
  writes unquoted mean the same under both resolutions; and as it writes them unquoted
  whenever they were plain, such a string (`"80"`) was quoted, with no look at the tree.

tests/test_yaml_fast.py holds this to the libyaml reader on every fixture, corpus file and
thousands of fuzzed inputs: same data, problems and positions.

Such a document has no problem for the reader to report, so it needs no positions; kubeyaml.load
composes its libyaml tree only when a check finds something (Document.position).
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import re
from collections.abc import Iterator, Sequence
from typing import Any

from generator.kubeyaml import scalars

# Where rapidyaml has no wheels, libyaml reads every document. The modules are imported when the
# first document comes here (kubeyaml.load sends none from a small file): importing them costs more
# than reading a pre-commit hook's file.
AVAILABLE = all(importlib.util.find_spec(name) is not None for name in ("ryml", "orjson"))
ryml: Any = None
orjson: Any = None


def _load() -> None:
    global ryml, orjson, _VAL_STYLE, _VAL_NOT_PLAIN, _c
    import orjson as loaded_orjson
    import ryml as loaded_ryml

    ryml, orjson = loaded_ryml, loaded_orjson
    _VAL_STYLE, _VAL_NOT_PLAIN = ryml.VAL | ryml.VAL_PLAIN, ryml.VAL
    _c = _Entries(ryml)


class _Entries:
    """rapidyaml's C functions, called directly. Each method of its Python module (`Tree.is_map`,
    `parse_in_arena`) is a Python function that only passes the call on to one of them
    (`_ryml.Tree_is_map(tree, node)`), and that extra call cost as much as the C one: a document
    makes seven, a finding's position twenty or more. Where a release has no such function, the
    Python method it wraps (called with the tree first) stands in."""

    def __init__(self, module: Any) -> None:
        def entry(name: str) -> Any:
            found = getattr(getattr(module, "_ryml", None), name, None)
            if found is None:
                found = getattr(module.Tree, name[5:]) if name.startswith("Tree_") else getattr(module, name)
            return found

        # the reader's: a parse and its JSON
        self.clear = entry("Tree_clear")
        self.clear_arena = entry("Tree_clear_arena")
        self.parse_in_arena = entry("parse_csubstr")  # what ryml.parse_in_arena(buf, tree) calls
        self.parse_in_place = entry("parse_substr")  # ryml.parse_in_place's
        self.emit_json = entry("emit_json_to_substr")
        self.root_id = entry("Tree_root_id")
        self.size = entry("Tree_size")
        self.type = entry("Tree_type")
        self.val = entry("Tree_val")
        self.key = entry("Tree_key")
        self.parent = entry("Tree_parent")
        self.is_flow = entry("Tree_is_flow")
        # the positions': a walk down a path
        self.is_map = entry("Tree_is_map")
        self.is_seq = entry("Tree_is_seq")
        self.find_child = entry("Tree_find_child")
        self.is_key_quoted = entry("Tree_is_key_quoted")
        self.num_children = entry("Tree_num_children")
        self.child = entry("Tree_child")
        self.is_block = entry("Tree_is_block")
        self.has_children = entry("Tree_has_children")
        self.first_child = entry("Tree_first_child")
        self.is_val = entry("Tree_is_val")
        self.has_val = entry("Tree_has_val")
        self.is_container = entry("Tree_is_container")
        self.is_val_literal = entry("Tree_is_val_literal")
        self.is_val_folded = entry("Tree_is_val_folded")
        self.val_is_null = entry("Tree_val_is_null")
        self.is_val_quoted = entry("Tree_is_val_quoted")


_c: Any = None  # _Entries, set by _load


_INT64 = 1 << 63
# A false alarm here only sends a document to libyaml. `&*!` anchors, aliases, tags; `%`
# directives; backslashes (escapes rapidyaml and libyaml may read differently); tabs, CR, C0
# and C1 controls, NEL, BOM and the line and paragraph separators, which YAML 1.1 treats as
# line breaks and rapidyaml does not.
_SLOW_CHARS = re.compile(r"[&*!%\\\t\r\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")
# `...` document ends; a line that starts with a flow end (libyaml fails, rapidyaml reads a scalar)
_SLOW_LINES = re.compile(r"\n(?:[ ]*[\]}]|\.\.\.)")
# a block scalar's `|` or `>` followed by more than indentation and chomping indicators and a
# comment (`>  - name: x`): libyaml fails, rapidyaml reads on. The indicator starts a line's
# text or follows `: ` or `- `; what may follow it is the lookahead (_block_headers).
# (`(?:#|$)`, not `(?:#[^\n]*)?$`, which means the same: a lookahead that ran to the line's end
# at every indicator made a long line of them quadratic.)
_BAD_HEADER_TAIL = r"(?![0-9+-]*[ ]*(?:#|$))"
_PIPE_THEN = re.compile(r"\|" + _BAD_HEADER_TAIL, re.M)
_FOLD_THEN = re.compile(r">" + _BAD_HEADER_TAIL, re.M)
# a quoted scalar with more than a comment, `:` or a flow indicator after it on its line
# (`- "a"   - "b"`): libyaml fails, rapidyaml reads on. The scalar starts a line or follows one
# of ` [{,`: the lookbehind after the opening quote says so.
_THEN = r"(?:[ ]+[^ \n#]|[^ \n#:,\]}])"
_DOUBLE_QUOTED_THEN = re.compile(r"\"(?<![^ \[{,\n].)[^\"\n]*\"" + _THEN)
_SINGLE_QUOTED_THEN = re.compile(r"'(?<![^ \[{,\n].)[^'\n]*'" + _THEN)
# Each pattern above starts with one fixed character, which the regex engine skips to with a
# fast scan; a pattern that starts with a choice of characters (`["']`) is tried at every
# position instead, five to ten times slower.
# a flow end followed on its line by spaces and more than a comment or another flow indicator
# (`- {b: c}  - {d: e}` in a block sequence: libyaml fails, "block sequence entries are not
# allowed in this context"; rapidyaml reads two items). A plain scalar's `}` (`echo ${A} ${B}`)
# is a false alarm, which only sends its document to libyaml.
_FLOW_END_THEN = {end: re.compile(rf"\{end}(?=[ ]+[^ \n#,\]}}])") for end in "]}"}
# a flow end after a newline, a colon or a space (screen: _flow_ends); a comma after a colon
_COLON_COMMA = re.compile(r",(?<=:,)")
_FLOW_END_AFTER = {end: re.compile(rf"\{end}(?<=[\n: ]\{end})") for end in "]}"}
# libyaml and go-yaml refuse a key longer than 1,024 characters (yaml_parser_save_simple_key),
# rapidyaml does not: a longer key is libyaml's to read
_LONGEST_KEY = 1000
# The ASCII characters _SLOW_CHARS does not match: deleting them from a text leaves the ones it
# does; screen keeps the ones it counts too (_COUNTED), and counts them in what is left.
_COUNTED = frozenset(b"]}|>")
_CLEAN_UNCOUNTED = bytes(c for c in range(128) if not _SLOW_CHARS.match(chr(c)) and c not in _COUNTED)


def _slow_path(text: str) -> bool:
    """Whether the text has something only libyaml's path reads as kubectl does: besides the
    above, `<<` merge keys, `? ` explicit keys, a `:` before a flow end or comma (`{a:}`:
    libyaml fails, rapidyaml reads a key), text after a flow end (_FLOW_END_THEN)."""
    return bool(
        _SLOW_CHARS.search(text)
        or "<<" in text
        or "? " in text
        or "?\n" in text
        or text.endswith("?")
        or ":]" in text
        or ":}" in text
        or ":," in text
        or _SLOW_LINES.search("\n" + text)
        or _many_indicators(text)
        or next(_block_headers(text), None) is not None
        or _after_quoted(text)
        or _after_flow_end(text)
    )


def _hit_limit(text: str) -> int:
    """How many finds a scan keeps, or looks at, before it gives up: one in 256 characters, at
    least 1,024 (a text of nothing but `|x` or `&` would otherwise cost a Python object each)."""
    return max(1024, len(text) >> 8)


def _many_indicators(text: str) -> bool:
    """Too many `|` and `>` for _block_headers to look at each: libyaml reads the text. (Neither is
    in most manifests, and `in` finds that many times faster than count counts them.)"""
    return ("|" in text or ">" in text) and text.count("|") + text.count(">") > _hit_limit(text)


def _after_quoted(text: str) -> bool:
    return ('"' in text and _DOUBLE_QUOTED_THEN.search(text) is not None) or (
        "'" in text and _SINGLE_QUOTED_THEN.search(text) is not None
    )


def _after_flow_end(text: str) -> bool:
    return any(end in text and _FLOW_END_THEN[end].search(text) is not None for end in "]}")


def _block_headers(text: str) -> Iterator[int]:
    """Where a bad block scalar header's indicator is: what `(?:^[ ]*|[:-][ ]+)[|>]` followed by
    the tail would match (multiline), found from the indicators, which are rarer than the
    line starts, colons and dashes it would be tried at. Linear: each indicator looks back only
    as far as the previous one or its line's start (a 3 MB line of `|x` took minutes)."""
    for indicator, pattern in (("|", _PIPE_THEN), (">", _FOLD_THEN)):
        if indicator not in text:
            continue
        line_start = previous = 0
        for match in pattern.finditer(text):
            at = match.start()
            newline = text.rfind("\n", previous, at)
            if newline >= 0:
                line_start = newline + 1
            lead = text[max(line_start, previous) : at]  # the indicator before, if on this line, is in it
            previous = at
            bare = lead.rstrip(" ")
            if not bare or (bare[-1] in ":-" and len(bare) < len(lead)):
                yield at


def _found(text: str, needle: str) -> list[int]:
    """Where ``needle`` is in ``text``, by substring search."""
    found, at = [], text.find(needle)
    while at >= 0:
        found.append(at)
        at = text.find(needle, at + 1)
    return found


def _flow_ends(text: str, flow_end: str) -> Iterator[int]:
    """Where ``flow_end`` follows a colon (`{a:}`) or starts its line's text (after nothing but
    spaces, if any). Most flow ends follow a value (`{a: b}`): the pattern passes them over in
    its scan, and yields only those after a newline, a colon or a space. A space's line start
    is looked for back to the previous of those only (linear): one on the same line puts the
    flow end after text."""
    if text.startswith(flow_end):
        yield 0
    previous = -1
    for match in _FLOW_END_AFTER[flow_end].finditer(text):
        at = match.start()
        if text[at - 1] != " ":
            yield at
        else:
            newline = text.rfind("\n", max(previous, 0), at)
            if (newline >= 0 or previous < 0) and not text[newline + 1 : at].strip(" "):
                yield at
        previous = at


class _TooMany(Exception):
    """The screen found more than it may keep: every document scans itself."""


def _starts(matches: Iterator[re.Match[str]]) -> Iterator[int]:
    """Where each match starts, one at a time (a generator function, not a generator expression,
    which mypyc would make a list of every match before _bounded could stop at its limit)."""
    for match in matches:
        yield match.start()


def _bounded(found: Iterator[int], hits: list[int], limit: int) -> None:
    """Appends ``found`` to ``hits``, raising _TooMany past ``limit`` hits in all."""
    for at in found:
        if len(hits) >= limit:
            raise _TooMany
        hits.append(at)


def screen(text: str) -> list[int] | None:
    """Where in ``text``, a stretch of many documents, _slow_path may find something: sorted
    positions, each on the line of what a document's own scan would find (a flow end or `...`
    that starts a line: on that line or its newline). A document whose span holds none needs
    no scan of its own (read's ``screened``). Each thing is found by the cheapest scan: a
    substring search for fixed text and rare characters (the characters a text holds at all
    come from one byte translation), a pattern that starts with a fixed character otherwise;
    what only looks like a find (a `}` after text, a `?` not before a space) is a false alarm,
    which only sends a document to its own scan.

    None when there are more hits than one in 256 characters (at least 1,024): then most
    documents are libyaml's anyway, and a text of nothing but such characters (a 3 MB comment
    of `&`, a flood of NUL bytes) would cost a Python object per character."""
    limit = _hit_limit(text)
    hits: list[int] = []
    # what is left of the UTF-8 bytes: the slow ASCII characters, the counted ones and the bytes
    # of other characters, none of which is an ASCII byte (a str given whole may hold surrogates)
    kept = text.encode("utf-8", "surrogatepass").translate(None, _CLEAN_UNCOUNTED)
    try:
        if not text.isascii():
            _bounded(_starts(_SLOW_CHARS.finditer(text)), hits, limit)
        else:
            for char in set(kept) - _COUNTED:
                if len(hits) + text.count(chr(char)) > limit:
                    raise _TooMany
                hits += _found(text, chr(char))
        # `:,` is looked for from its comma, far rarer than colons (a pattern that looks behind)
        needles = ["?", "\n..."] + (["<<"] if "<" in text else []) + ([":,"] if _COLON_COMMA.search(text) else [])
        for needle in needles:
            if needle in text:
                if len(hits) + text.count(needle) > limit:
                    raise _TooMany
                hits += _found(text, needle)
        if text.startswith("..."):
            hits.append(0)
        for flow_end in "]}":
            count = kept.count(ord(flow_end))
            if count:
                if count > 4 * limit:
                    raise _TooMany  # mostly after a value (`{a: b}`), so a few times the limit are looked at
                _bounded(_flow_ends(text, flow_end), hits, limit)
                _bounded(_starts(_FLOW_END_THEN[flow_end].finditer(text)), hits, limit)
        if kept.count(ord("|")) + kept.count(ord(">")) > limit:
            raise _TooMany  # what _many_indicators says, from the counts
        _bounded(_block_headers(text), hits, limit)
        if '"' in text:
            _bounded(_starts(_DOUBLE_QUOTED_THEN.finditer(text)), hits, limit)
        if "'" in text:
            _bounded(_starts(_SINGLE_QUOTED_THEN.finditer(text)), hits, limit)
    except _TooMany:
        return None
    hits.sort()
    return hits


# What a plain scalar cannot hold (YAML 1.1, libyaml's scanner): an indicator first, `: ` or
# ` #` inside, a `:` last, spaces at either end (a `?` or `:` first even without a space: in a
# flow collection libyaml reads `?mage` as an explicit key). rapidyaml reads some such text as
# a scalar where libyaml and go-yaml fail (`restartPolicy: ]OnFailure`, `a: b: c`), so a string like
# this stays on the fast path only if it was quoted. Flow indicators (`,[]{}`) are fine in a
# plain scalar of a block collection, not of a flow one; a `:` before one (or `?`) is read three
# ways (`[a:?b]`: rapidyaml a string, libyaml an error, go-yaml an error; `[a::]`: go-yaml "a::").
# The first and last characters are tested in _classify (`-` first: followed by a space or
# nothing); _ODD_INSIDE is what is left, and a string with none of _MAYBE_ODD needs neither it
# nor _FLOW_INDICATOR (most do not: one scan of a character class answers for them).
_ODD_FIRST = frozenset(",[]{}#&*!|>'\"%@`?:")
_ODD_INSIDE = re.compile(r": |:\Z|:[,?\[\]{}]| #")
_FLOW_INDICATOR = re.compile(r"[,\[\]{}]")
_MAYBE_ODD = re.compile(r"[:#,\[\]{}]")
# The first characters of a plain scalar go-yaml v2 may resolve to something else than a
# string (its resolve table: digits, signs and dot for numbers and timestamps, the letters of
# y/yes/n/no/true/false/on/off/null, and ~); any other string is a string under both readings.
_HINTS = frozenset("0123456789+-.yYnNtTfFoO~")


# What a string needs (cached: manifests repeat their strings): nothing, to have been quoted,
# or to have been quoted if it is in a flow collection. The plain ones, most of them, are a set
# of their own: the walk asks `in` of each string and the keys of a mapping all at once.
# _QUOTED: a string that must have been quoted and that rapidyaml's JSON holds as a string
# only if it was: nothing to look up for a value (a key must be plain all the same).
_PLAIN, _MUST_QUOTE, _FLOW_PLAIN, _QUOTED = "plain", "must quote", "flow plain", "quoted"
_NULL = "null"  # not a string's kind: what _mapping notes of a null
# What rapidyaml 0.15's JSON emitter writes unquoted when it was a plain scalar (Emitter::
# _json_writev: unless the node is quoted, scalar_style_choose_json's plain numbers, leading
# zeros aside, and true, false, null): as a JSON string, it was quoted or a block scalar.
_JSON_PLAIN = re.compile(r"(?:0|[1-9][0-9]*|true|false|null)\Z")
_PLAIN_STRINGS: set[str] = set()
_OTHER_KINDS: dict[str, str] = {}
_CACHED_STRINGS = 8192  # of each


def _string_kind(value: str) -> str:
    """The kind of a string not in _PLAIN_STRINGS; cached if short."""
    kind = _OTHER_KINDS.get(value)
    if kind is None:
        kind = _classify(value)
        if len(value) <= scalars.CACHED_LENGTH:
            cache = _PLAIN_STRINGS if kind is _PLAIN else _OTHER_KINDS
            if len(cache) >= _CACHED_STRINGS:
                cache.clear()
            if kind is _PLAIN:
                _PLAIN_STRINGS.add(value)
            else:
                _OTHER_KINDS[value] = kind
    return kind


def _classify(value: str) -> str:
    if not value:
        return _MUST_QUOTE  # a null
    first = value[0]
    if first in _HINTS and not scalars.plain_is_string(value):
        return _QUOTED if _JSON_PLAIN.match(value) else _MUST_QUOTE
    if (
        first in _ODD_FIRST
        or (first == "-" and value[1:2] in ("", " "))
        or first.isspace()  # what `\s` matches: str.isspace's characters
        or value[-1].isspace()
    ):
        return _MUST_QUOTE
    if _MAYBE_ODD.search(value) is None:
        return _PLAIN
    if _ODD_INSIDE.search(value):
        return _MUST_QUOTE
    return _FLOW_PLAIN if _FLOW_INDICATOR.search(value) else _PLAIN


class _Unsure(Exception):
    """This document is libyaml's to read."""


def read(
    text: str, max_depth: int, screened: bool = False, max_nodes: int = 1 << 62
) -> tuple[dict[str, Any], bool] | None:
    """(data, whether it holds a null) of one document, or None when libyaml must read it.
    ``screened``: screen() found nothing in the document's span, so _slow_path would not.
    A document of more than ``max_nodes`` values is libyaml's too (kubeyaml.load says it is too big)."""
    if not screened and _slow_path(text):
        return None
    if ryml is None:
        _load()
    parsed = _parse(text.encode())
    if parsed is None:
        return None
    tree, emitted = parsed
    c = _c
    size = c.size(tree)
    if size > max_nodes:
        return None
    found: list[tuple[str, int, str]] = []
    try:
        data = orjson.loads(emitted)
        nodes = _mapping(data, max_depth - 1, 1, found)
    except (orjson.JSONDecodeError, ValueError, RecursionError, _Unsure):
        return None
    if nodes != size:  # a duplicate key lost a node: libyaml's builder reports it
        return None
    nulls = False
    for kind, node, value in found:
        if kind is _NULL:
            nulls = True
        elif _quoted(tree, node, value):
            continue
        elif kind is _MUST_QUOTE or c.is_flow(tree, c.parent(tree, node)):
            return None
    return data, nulls


def _parse(raw: bytes) -> tuple[Any, memoryview] | None:
    """(rapidyaml's tree, its JSON) of a mapping, or None when it refuses the text or cannot
    emit it (it stops at 64 levels). The JSON is a view of a buffer reused for every document
    (emitting into it costs a third less than into fresh memory): read it before the next parse.
    Its C++ error handler writes every error to the process's stderr before raising; libyaml
    reads such a document again and says what is wrong, so stderr is pointed at the null device
    meanwhile."""
    global _null, _tree, _json
    if _null is None:
        _null, _tree, _json = os.open(os.devnull, os.O_WRONLY), ryml.Tree(), bytearray(_JSON_BYTES)
    saved = os.dup(2)  # not kept: a test runner may point fd 2 elsewhere between documents
    try:
        os.dup2(_null, 2)
        tree, c = _tree, _c  # one tree for every document: creating one costs as much as a parse
        c.clear(tree)
        c.clear_arena(tree)
        c.parse_in_arena(raw, tree)
        root, buffer = c.root_id(tree), _json
        failed, size = c.emit_json(tree, root, buffer)
        if failed:  # a big document: a buffer of its own, not kept
            buffer = bytearray(size)
            failed, size = c.emit_json(tree, root, buffer)
        if failed or not size or buffer[0] != _OPEN_BRACE:  # not a mapping
            return None
        return tree, memoryview(buffer)[:size]
    except Exception:  # ryml.ExceptionBasic and its subclasses, and SWIG's own errors
        return None
    finally:
        os.dup2(saved, 2)
        os.close(saved)


_null: int | None = None  # the null device, opened once
_tree: Any = None  # rapidyaml's tree, reused: read() keeps nothing of it once it returns
_json = bytearray()  # the JSON of a document, reused likewise (its size set with _null)
_JSON_BYTES = 256 * 1024
_OPEN_BRACE = ord("{")
# A node's type bits (Tree.type): a value (VAL), plain (VAL_PLAIN) or not; set by _load
_VAL_STYLE = _VAL_NOT_PLAIN = 0


def _quoted(tree: Any, node: int, value: str) -> bool:
    """Whether tree node ``node`` holds ``value``, written quoted or as a block scalar. The node's
    type bits say at once what Tree.has_val and not Tree.is_val_plain would (one call, not two)."""
    c = _c
    return (c.type(tree, node) & _VAL_STYLE) == _VAL_NOT_PLAIN and bytes(c.val(tree, node)) == value.encode()


def _mapping(data: dict[str, Any], levels: int, node: int, found: list[tuple[str, int, str]]) -> int:
    """Makes the JSON data kubectl's, in place: integral floats as integers (its JSON round trip).
    Returns the id of the node after ``data``'s last value (a freshly parsed rapidyaml tree
    numbers its nodes in document order, the root 0: the order of this walk; _quoted checks the
    value too) and appends to ``found`` (kind, node, value) for each string that needs a look at
    the tree, and (_NULL, node, "") for each null. ``levels``: how many more levels may nest."""
    if levels < 0:  # nested deeper than allowed
        raise _Unsure
    plain = _PLAIN_STRINGS
    if not plain.issuperset(data):  # the keys, all at once: most are known plain
        _keys(data)
    floats = False
    for value in data.values():
        cls = value.__class__
        if cls is str:
            if value not in plain:
                kind = _string_kind(value)
                if kind is _MUST_QUOTE or kind is _FLOW_PLAIN:
                    found.append((kind, node, value))
        elif cls is dict:
            node = _mapping(value, levels - 1, node + 1, found) - 1
        elif cls is list:
            node = _sequence(value, levels - 1, node + 1, found) - 1
        elif cls is float:
            floats = True
        elif value is None:
            found.append((_NULL, node, ""))
        elif cls is int and not -_INT64 <= value < _INT64:
            raise _Unsure  # go-yaml's uint64 and float readings: libyaml's path has them
        node += 1
    if floats:  # rare: a second pass, so that the common walk need not carry the keys
        for key, value in data.items():
            if value.__class__ is float:
                data[key] = scalars.json_number(value)
    return node


def _keys(data: dict[str, Any]) -> None:
    """_Unsure unless every key of ``data`` is a string kubectl keeps as it is (`y:` is "true")
    and libyaml reads (an odd one, or one longer than it allows)."""
    for key in data:
        if key not in _PLAIN_STRINGS and (len(key) > _LONGEST_KEY or _string_kind(key) is not _PLAIN):
            raise _Unsure


def _sequence(data: list[Any], levels: int, node: int, found: list[tuple[str, int, str]]) -> int:
    """_mapping for a list. Its loop is _mapping's on purpose: one walk for both kinds of
    collection (the kind tested per call, the values picked by it) ran 1% more instructions
    over the bench's documents (4 k a document) than the two."""
    if levels < 0:  # nested deeper than allowed
        raise _Unsure
    plain = _PLAIN_STRINGS
    floats = False
    for value in data:
        cls = value.__class__
        if cls is str:
            if value not in plain:
                kind = _string_kind(value)
                if kind is _MUST_QUOTE or kind is _FLOW_PLAIN:
                    found.append((kind, node, value))
        elif cls is dict:
            node = _mapping(value, levels - 1, node + 1, found) - 1
        elif cls is list:
            node = _sequence(value, levels - 1, node + 1, found) - 1
        elif cls is float:
            floats = True
        elif value is None:
            found.append((_NULL, node, ""))
        elif cls is int and not -_INT64 <= value < _INT64:
            raise _Unsure
        node += 1
    if floats:
        data[:] = [scalars.json_number(value) if value.__class__ is float else value for value in data]
    return node


# -- positions -----------------------------------------------------------------------------------
#
# A finding's line and column in a document this module read (it has none of _SLOW_CHARS: no
# anchor, tag, alias, escape, tab, CR or other line break), from rapidyaml's tree of it parsed in
# place: each key and scalar of that tree is a view of the buffer, so its address less the
# buffer's is its offset in the text. libyaml's composer would build a Python node tree of the
# whole document for one position (tree.py); this finds the same mark as tree.locate does (a
# key's start, a quote included; an item's start) or returns None where it cannot be sure.


# Python's Py_buffer (Include/pybuffer.h), for the address of a read-only memoryview. Made by a
# call, not a class statement: a module compiled by mypyc cannot subclass ctypes.Structure.
_PyBuffer: Any = type(
    "_PyBuffer",
    (ctypes.Structure,),
    {
        "__module__": __name__,
        "_fields_": [
            ("buf", ctypes.c_void_p),
            ("obj", ctypes.py_object),
            ("len", ctypes.c_ssize_t),
            ("itemsize", ctypes.c_ssize_t),
            ("readonly", ctypes.c_int),
            ("ndim", ctypes.c_int),
            ("format", ctypes.c_char_p),
            ("shape", ctypes.c_void_p),
            ("strides", ctypes.c_void_p),
            ("suboffsets", ctypes.c_void_p),
            ("internal", ctypes.c_void_p),
        ],
    },
)


# PyObject_GetBuffer and PyBuffer_Release as functions of their own (not ctypes.pythonapi's shared
# ones, whose argument types are everyone's), with one Py_buffer they fill: a third quicker a call
_GET_BUFFER = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(_PyBuffer), ctypes.c_int)(
    ("PyObject_GetBuffer", ctypes.pythonapi)
)
_RELEASE_BUFFER = ctypes.PYFUNCTYPE(None, ctypes.POINTER(_PyBuffer))(("PyBuffer_Release", ctypes.pythonapi))
_BUFFER = _PyBuffer()
_BUFFER_POINTER = ctypes.pointer(_BUFFER)


def _address(view: memoryview) -> int:
    """The address of the first byte of ``view``."""
    if _VIEW_BUF:
        address: int = _FROM_ADDRESS(id(view) + _VIEW_BUF).value or 0  # NULL reads as None
        return address
    return _asked_address(view)


def _asked_address(view: memoryview) -> int:
    """The address of the first byte of ``view``, from PyObject_GetBuffer."""
    if _GET_BUFFER(view, _BUFFER_POINTER, 0) != 0:
        raise ValueError("no buffer")
    try:
        address: int = _BUFFER.buf or 0
        return address
    finally:
        _RELEASE_BUFFER(_BUFFER_POINTER)


def _view_buf_offset() -> int:
    """Where a memoryview object holds the address of its first byte: CPython's
    PyMemoryViewObject keeps its Py_buffer (whose first field is `buf`) at a fixed offset, 56
    bytes on 64-bit CPython 3.11-3.13. Reading it there costs a tenth of asking PyObject_GetBuffer
    through ctypes (a finding's position takes some five addresses). Used only if it gives what
    PyObject_GetBuffer gives on views at several places of several buffers; 0 (ask) otherwise."""
    offset = 7 * ctypes.sizeof(ctypes.c_void_p)
    if ctypes.sizeof(ctypes.c_void_p) != 8 or memoryview(b"").__sizeof__() < offset + ctypes.sizeof(_PyBuffer):
        return 0
    kept: list[bytes | bytearray] = [bytearray(b"abcdefgh" * 4), b"0123456789", bytearray(1)]
    for data in kept:
        whole = memoryview(data)
        for view in (whole, whole[3:], whole[1:2]):
            if _FROM_ADDRESS(id(view) + offset).value != _asked_address(view):
                return 0
    return offset


_FROM_ADDRESS = ctypes.c_void_p.from_address
_VIEW_BUF = _view_buf_offset()


_QUOTES = (ord("'"), ord('"'))


class Positions:
    """The positions of one document's paths (``of``), from one parse of its text."""

    __slots__ = ("original", "raw", "tree", "base")

    def __init__(self, text: str):
        if ryml is None:
            _load()
        self.original = text.encode()
        # parsed in place: rapidyaml rewrites scalars inside it (a block's indentation), so lines
        # are counted in the original
        self.raw = bytearray(self.original)
        self.tree = ryml.Tree()
        try:
            _c.parse_in_place(self.raw, self.tree)
            self.base = _address(memoryview(self.raw))
        except Exception:  # ryml's errors: libyaml's tree decides
            self.tree = None

    def of(self, path: Sequence[object]) -> tuple[int, int] | None:
        """(line, column), 1-based in the text, of ``path`` as tree.locate gives it (the mark of
        the deepest part of the path that exists), or None when this cannot say."""
        tree, original, c = self.tree, self.original, _c
        if tree is None:
            return None
        try:
            node = c.root_id(tree)
            offset = _start(tree, node, self.base, len(original))
            for part in path:
                if c.is_map(tree, node) and isinstance(part, str):
                    found = c.find_child(tree, node, part.encode())
                    if found == _NONE:
                        break
                    quoted = c.is_key_quoted(tree, found)
                    key = _address(c.key(tree, found)) - self.base - quoted
                    if not 0 <= key < len(original) or (quoted and original[key] not in _QUOTES):
                        return None
                    node, offset = found, key
                elif c.is_seq(tree, node) and isinstance(part, int) and not isinstance(part, bool):
                    if not 0 <= part < c.num_children(tree, node):
                        break
                    node = c.child(tree, node, part)
                    offset = _start(tree, node, self.base, len(original))
                else:
                    break
                if offset is None:
                    return None
        except Exception:  # an odd tree: libyaml's tree decides
            return None
        if offset is None:
            return None
        line_start = original.rfind(b"\n", 0, offset) + 1
        return original.count(b"\n", 0, offset) + 1, len(original[line_start:offset].decode()) + 1


_NONE = (1 << 64) - 1  # rapidyaml's NONE node id


def _start(tree: Any, node: int, base: int, size: int) -> int | None:
    """Where libyaml's mark of ``node`` (a value: the document's root or an item) is: a scalar's
    first character (its quote), a block mapping's first key; None for what only libyaml can
    place (a flow or empty collection, a block sequence, a block scalar)."""
    c = _c
    if c.is_map(tree, node) and c.is_block(tree, node) and c.has_children(tree, node):
        first = c.first_child(tree, node)
        if c.is_key_quoted(tree, first):
            return None
        return _address(c.key(tree, first)) - base
    if c.is_val(tree, node) or (c.has_val(tree, node) and not c.is_container(tree, node)):
        if c.is_val_literal(tree, node) or c.is_val_folded(tree, node) or c.val_is_null(tree, node):
            return None
        where = _address(c.val(tree, node)) - base
        if c.is_val_quoted(tree, node):
            where -= 1
        return where if 0 <= where < size else None
    return None
