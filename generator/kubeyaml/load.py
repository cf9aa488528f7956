"""Read manifests as kubectl does, fast, within fixed limits, and say where each problem is.

kubectl (apimachinery's YAMLOrJSONDecoder) reads a stream in two ways: input whose first
non-blank character is `{` is a stream of JSON objects (`jq -c` output); anything else is
split into documents at lines that start with `---`, and each document is decoded by
sigs.k8s.io/yaml (scalars as in scalars.py). This module does the same:

- split: kubectl's separator rule (a `---` line may carry only a comment), UTF-8 checked;
- limits, each named in its finding: a document over 3 MiB (the apiserver's request limit),
  nesting over MAX_DEPTH levels, go-yaml's "excessive aliasing" rule (billion laughs);
- parse: rapidyaml when installed, for every document it cannot get wrong (fast.py: no
  anchor, tag, duplicate key or scalar that kubectl resolves otherwise); else libyaml's parser
  and composer, then a small builder of plain data that notes duplicate keys, keys kubectl
  renames (`y:` is "true"), tags, and values JSON cannot carry (compose.py, imported
  when a run first needs it: a big file rapidyaml reads whole never loads PyYAML).

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
import io
import itertools
import json
import math
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from generator.kubeyaml import fast, scalars
from generator.kubeyaml.document import (  # noqa: F401  (the reader's public names)
    MAX_DEPTH,
    MAX_NODES,
    Document,
    Problem,
    duplicate_key_message,
    too_many_message,
)

MAX_DOCUMENT_BYTES = 3 * 1024 * 1024  # the apiserver refuses larger request bodies
_COMPOSE_SAFE = 5_000  # below this many brackets or indentation, libyaml cannot nest too deep
_BLOCK_SIZE = 1 << 20
_MAX_JSON_BYTES = 64 * 1024 * 1024  # JSON is read whole: bounded
_DEEP_BLOCK = re.compile(rf"^[ \t?:-]{{{_COMPOSE_SAFE}}}", re.M)


# -- splitting the stream ------------------------------------------------------------------------


class _Chunk(NamedTuple):
    text: str
    first_line: int  # lines of the file before the chunk
    problem: Problem | None = None  # a problem of the chunk itself (size, encoding, separator)
    screened: bool = False  # fast.screen found nothing in it: the fast reader need not scan it


def _decoded_blocks(source: Any) -> Iterator[tuple[str, Problem | None, bool]]:
    """(text, problem, final) blocks of ``source`` (str, bytes or a binary file); the last one is
    final, and carries a problem if the input is not UTF-8."""
    if isinstance(source, str):
        yield source.removeprefix("\ufeff"), None, True
        return
    decoder = codecs.getincrementaldecoder("utf-8-sig")("strict")  # a byte-order mark is allowed
    if not hasattr(source, "read"):
        source = io.BytesIO(source)  # bytes are read as a file is (the buffer is shared, not copied)
    # A buffered stream (a file, stdin, bytes) gives less than it is asked for only at its end: a
    # small file is one block, not one and an empty one screened again.
    short_is_last = isinstance(source, io.BufferedReader | io.BytesIO)
    want = _first_read(source)
    bound = _stream_bound(source)
    lines, total = 0, 0
    while True:
        asked = want if bound is None else min(want, bound + 1 - total)
        block = source.read(asked)
        total += len(block)
        if bound is not None and total > bound:  # standard input, a pipe, a device: no size ends it
            message = (
                f"more than {bound:,} bytes came from this input and it did not end: it is not "
                "read further; save what writes it to a file and check the file"
            )
            yield "", Problem(lines + 1, 1, "yaml-size", message), True
            return
        final = not block or (short_is_last and len(block) < asked)
        want = _BLOCK_SIZE
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


def _stream_bound(source: Any) -> int | None:
    """How much may be read from ``source``: None for text in memory and regular files (their
    size bounds them), _MAX_JSON_BYTES for what has no size (standard input, a pipe, a device:
    `validate - < /dev/zero` would read for ever), as a named pipe is bounded (validate/stream.py)."""
    if isinstance(source, io.BytesIO):
        return None
    try:
        return None if stat.S_ISREG(os.fstat(source.fileno()).st_mode) else _MAX_JSON_BYTES
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None  # not a file of the system: in memory


def _first_read(source: Any) -> int:
    """How much to ask a stream for first: all that is left of a regular file smaller than a
    block, and a byte more to see its end. Asking a small file for a whole block costs more
    than reading it (the allocator makes and trims 1 MiB each time: 45 against 12 us a file)."""
    try:
        status = os.fstat(source.fileno())
        if not stat.S_ISREG(status.st_mode):
            return _BLOCK_SIZE
        left: int = status.st_size - source.tell()
        return min(_BLOCK_SIZE, max(left, 0) + 1)
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return _BLOCK_SIZE  # not a file (BytesIO, a pipe): blocks


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


def _chunks(
    blocks: Iterable[tuple[str, Problem | None, bool]], screen: Callable[[str], list[int] | None] | None = None
) -> Iterator[_Chunk]:
    """Documents as kubectl's YAMLReader splits them: at lines that start with `---`. With
    ``screen`` (fast.screen), each block is screened once, and a chunk it found nothing in
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


# The fast reader, chosen at import: None where rapidyaml is not installed, or with
# PADDLEJOB_MANIFESTS_YAML=libyaml in the environment (tests run both ways).
fast_reader = fast.read if fast.AVAILABLE and os.environ.get("PADDLEJOB_MANIFESTS_YAML") != "libyaml" else None
# The first bytes a run reads are libyaml's, so a run over one small file never loads
# rapidyaml, whose import costs more than reading it with libyaml; past them (a big file, a
# folder of small ones) rapidyaml reads. Counted per process (tests that compare the two set 0).
FAST_AFTER = 32 * 1024
_read_so_far = 0


def plan(size: int) -> None:
    """Says that the run will read about ``size`` bytes (its files' sizes). More than FAST_AFTER,
    and rapidyaml reads from the first byte: the run loads it anyway, and it need not load PyYAML
    at all (compose.py) unless a document is libyaml's to read."""
    global _read_so_far
    if size > FAST_AFTER:
        _read_so_far = max(_read_so_far, FAST_AFTER + 1)


def _yaml_document(chunk: _Chunk, index: int, fast: bool = True) -> Document | None:
    text, offset = chunk.text, chunk.first_line
    if not text.strip(" \n"):  # nothing before a file's first `---`, or between two: no document
        return None
    # a text of at most _COMPOSE_SAFE characters holds neither that many brackets nor such a run
    deep = len(text) > _COMPOSE_SAFE and (
        text.count("[") + text.count("{") > _COMPOSE_SAFE or _DEEP_BLOCK.search(text) is not None
    )
    # A big text that may hold too many values is counted by libyaml's parser (rapidyaml's tree of
    # 1.5 million values is 300 MB); a text of fewer than MAX_NODES / 2 characters cannot.
    crowded = len(text) * 2 > MAX_NODES and _node_bound(text) > MAX_NODES
    if not deep and not crowded and fast and fast_reader is not None:  # rapidyaml's emitter recurses
        read = fast_reader(text, MAX_DEPTH, chunk.screened, MAX_NODES)
        if read is not None:
            return Document(index, read[0], [], None, offset, read[1], text)
    from generator.kubeyaml import compose  # libyaml's: imported when first needed

    if crowded or deep:
        problem = compose.over_limits(text, offset, MAX_NODES if crowded else None)
        if problem:
            return Document(index, None, [problem], line_offset=offset)
    return compose.read(text, index, offset)


def _node_bound(text: str, start: int = 0, end: int | None = None) -> int:
    """More than the values a YAML (or JSON) text can hold, from its indicators: every value but
    the first is a key or value of a `:` or `?`, an item after a `-`, `,` or `[`, or a `{}`."""
    end = len(text) if end is None else end
    colons = text.count(":", start, end) + text.count("?", start, end)
    items = sum(text.count(c, start, end) for c in "-,[{")
    return 3 * colons + 2 * items + 1


def _json_documents(text: str) -> Iterator[Document]:
    """A stream of JSON objects, as kubectl reads input that starts with `{`."""
    duplicates: list[str] = []

    # kubectl's JSON decoding keeps the last of duplicate keys
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
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
        if (end - position) * 2 > MAX_NODES and _node_bound(text, position, end) > MAX_NODES and _too_many(data):
            problems.append(Problem(line + 1, 1, "yaml-size", too_many_message(MAX_NODES)))
            yield Document(index, None, problems, None, line)
        elif nesting_depth(data) > MAX_DEPTH:
            problems.append(Problem(line + 1, 1, "yaml-depth", f"the document nests deeper than {MAX_DEPTH} levels"))
            yield Document(index, None, problems, None, line)
        else:
            from generator.kubeyaml.tree import compose_first

            # Go's JSON decoding reads a lone surrogate escape ("\ud800") as U+FFFD; Python keeps it
            lone = text.find("\\ud", position, end) >= 0 or text.find("\\uD", position, end) >= 0
            try:
                data = _json_numbers(data, lone)
            except _NumberError as err:
                problems.append(Problem(line + 1, 1, "yaml-json", str(err)))
                yield Document(index, None, problems, None, line)
            else:
                yield Document(index, data, problems, compose_first(text[position:end]), line)
        position = end


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON; kubectl cannot read it")


class _NumberError(ValueError):
    """A JSON number kubectl cannot decode (beyond a float64)."""


_SURROGATE = re.compile("[\\ud800-\\udfff]")  # the pattern's escapes: no surrogate in the source's text


def _json_numbers(data: Any, lone: bool = False) -> Any:
    """Numbers as kubectl's JSON decoding gives them: integral floats (1e3, 2.0) as integers,
    integers beyond int64 as floats, and a number beyond a float64 (1e400) an error (_NumberError).
    ``lone``: strings may hold lone surrogates, which Go reads as U+FFFD."""
    if isinstance(data, dict):
        if lone:
            return {_SURROGATE.sub("\ufffd", key): _json_numbers(value, lone) for key, value in data.items()}
        return {key: _json_numbers(value) for key, value in data.items()}
    if isinstance(data, list):
        return [_json_numbers(value, lone) for value in data]
    if isinstance(data, float):
        if not math.isfinite(data):
            raise _NumberError(
                "a number beyond a float64 (1.8e308), such as 1e400: kubectl cannot read it "
                "(json: cannot unmarshal number into Go value of type float64); write a smaller number"
            )
        return scalars.json_number(data)
    if data.__class__ is int and not -_INT64 <= data < _INT64:
        try:
            return float(data)  # Go decodes a JSON number into a float64
        except OverflowError:
            digits = str(data)
            raise _NumberError(
                f"the number {digits[:20]}... ({len(digits)} digits) is beyond a float64: kubectl cannot read it "
                "(json: cannot unmarshal number into Go value of type float64); write a smaller number"
            ) from None
    if lone and isinstance(data, str):
        return _SURROGATE.sub("\ufffd", data)
    return data


_INT64 = 1 << 63


def _too_many(data: Any) -> bool:
    """Whether plain data holds more than MAX_NODES values (counted up to one more)."""
    count, stack = 0, [data]
    while stack:
        value = stack.pop()
        count += 1
        if count > MAX_NODES:
            return True
        if isinstance(value, dict):
            stack += value.keys()
            stack += value.values()
        elif isinstance(value, list):
            stack += value
    return False


def nesting_depth(data: Any) -> int:
    """Nesting depth of plain data (counted up to MAX_DEPTH + 1), without recursion."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, dict | list):
            deepest = max(deepest, level)
            if level <= MAX_DEPTH:  # deep enough to know it is too deep
                stack.extend((item, level + 1) for item in (value.values() if isinstance(value, dict) else value))
    return deepest


def iter_documents(source: Any) -> Iterator[Document]:
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
    screen = fast.screen if fast_reader is not None and fast_ahead else None
    for chunk in _chunks(itertools.chain(head, blocks), screen):
        if chunk.problem is not None:
            yield Document(index + 1, None, [chunk.problem], line_offset=chunk.first_line)
            continue
        _read_so_far += len(chunk.text)
        doc = _yaml_document(chunk, index + 1, _read_so_far > FAST_AFTER)
        if doc is not None:
            index += 1
            yield doc


def _json_stream(blocks: Iterable[tuple[str, Problem | None, bool]]) -> Iterator[Document]:
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


def read_documents(source: Any) -> tuple[list[Any], list[Problem]]:
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
