"""The fast reader (fast.py, rapidyaml) against libyaml's reader: on every fixture, corpus
file, example, rendered file, every scalar of kubectl's table and thousands of fuzzed inputs,
both give the same documents: data (types included), problems, positions of every field.

A document the fast reader is unsure of goes to libyaml, so a difference can only come from a
document it read itself; the tests also check that it does read most real documents.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time

import pytest

from generator.kubeyaml import fast, load
from tests import fuzz
from tests.test_kubectl_yaml import SCALARS

from .conftest import FIXTURES, REPO

pytestmark = pytest.mark.skipif(not fast.AVAILABLE, reason="rapidyaml is not installed")

FILES = sorted(
    p
    for folder in (FIXTURES, REPO / "examples", REPO / "deploy")
    for p in folder.rglob("*")
    if p.suffix in (".yaml", ".yml", ".json")
)


def read(data, use_fast: bool) -> list[tuple]:
    """What the reader gives, comparable: data by repr (1 is not 1.0 nor True), problems, the
    position of every field, and whether the fast reader read the document."""
    saved, saved_after = load.fast_reader, load.FAST_AFTER
    load.fast_reader, load.FAST_AFTER = (fast.read if use_fast else None), 0
    try:
        out = []
        for doc in load.iter_documents(data):
            fast_read = doc.text is not None
            problems = [(p.line, p.column, p.rule, p.message, p.severity) for p in doc.problems]
            positions = [doc.position(path)[0] for path in _paths(doc.data)]
            out.append((doc.index, repr(doc.data), problems, doc.nulls, doc.line_offset, positions, fast_read))
        return out
    finally:
        load.fast_reader, load.FAST_AFTER = saved, saved_after


def _paths(data, prefix=(), limit=400) -> list[list]:
    """Field paths of ``data`` (the first ``limit``), as validate turns findings into positions."""
    out, stack = [], [(data, prefix)]
    while stack and len(out) < limit:
        value, path = stack.pop()
        if isinstance(value, dict):
            items = value.items()
        elif isinstance(value, list):
            items = enumerate(value)
        else:
            continue
        for key, item in items:
            out.append([*path, key])
            stack.append((item, (*path, key)))
    return out


def differences(data) -> list[tuple]:
    """Documents that the two readers give differently (the fast flag aside)."""
    quick, slow = read(data, True), read(data, False)
    if len(quick) != len(slow):
        return [("documents", len(quick), len(slow))]
    return [(a, b) for a, b in zip(quick, slow, strict=True) if a[:-1] != b[:-1]]


def test_both_readers_agree_on_every_file_and_the_fast_one_reads_most():
    """The share the fast reader takes: 80% of the written fixtures; of the real-world corpus
    (Helm output, CRDs full of escapes and quoted strings) less: 70% (78% measured; 84% of the written)."""
    counts = {"written": [0, 0], "realworld": [0, 0]}
    for path in FILES:
        assert differences(path.read_bytes()) == [], path
        docs = read(path.read_bytes(), True)
        kind = "realworld" if "realworld" in path.parts else "written"
        counts[kind][0] += sum(doc[-1] for doc in docs)
        counts[kind][1] += len(docs)
    assert len(FILES) > 100
    assert counts["written"][0] > 0.8 * counts["written"][1], counts
    assert counts["realworld"][0] > 0.7 * counts["realworld"][1], counts


@pytest.mark.parametrize("where", ["value", "key", "item", "flow", "quoted"])
def test_both_readers_agree_on_every_scalar_of_kubectls_table(where):
    forms = {
        "value": "a: {s}\n",
        "key": "{s}: a\n",
        "item": "a:\n  - {s}\n",
        "flow": "a: [x, {s}, {{k: {s}}}]\n",
        "quoted": "a: '{s}'\nb: \"{s}\"\n",
    }
    wrong = []
    for scalar in [*SCALARS, *(t.decode("utf-8", "replace") for t in fuzz.TOKENS)]:
        text = "kind: Probe\n" + forms[where].format(s=scalar)
        if differences(text):
            wrong.append((scalar, differences(text)))
    assert wrong == []


def test_both_readers_agree_on_fuzzed_inputs():
    """Mutations of the fuzzer's corpus (tests/fuzz.py): PADDLEJOB_FUZZ_SECONDS runs it longer."""
    rng = random.Random(int(os.environ.get("PADDLEJOB_FUZZ_SEED", "16")))
    corpus = [p.read_bytes() for p in fuzz.CORPUS]
    deadline = time.monotonic() + float(os.environ.get("PADDLEJOB_FUZZ_SECONDS", "20"))
    count, wrong = 0, []
    while count < 300 or time.monotonic() < deadline:
        data = fuzz.mutate(rng.choice(corpus), rng)
        if differences(data):
            wrong.append(data[:3000])
        count += 1
    assert wrong == [], f"{len(wrong)} of {count} inputs read differently; the first: {wrong[0]!r}"


def test_a_document_rapidyaml_refuses_leaves_nothing_on_stderr():
    """rapidyaml's C++ error handler prints every parse error: the reader silences it."""
    code = "from generator.kubeyaml import load; print(len(list(load.iter_documents('a: -\\nb: [\\n'))))"
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "1"
    assert done.stderr == ""


def test_the_environment_chooses_libyaml_alone():
    code = "from generator.kubeyaml import load; print(load.fast_reader is None)"
    env = {**os.environ, "PADDLEJOB_MANIFESTS_YAML": "libyaml", "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, env=env, timeout=60)
    assert done.stdout.strip() == "True"
    env.pop("PADDLEJOB_MANIFESTS_YAML")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, env=env, timeout=60)
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\na: 2\n",  # a duplicate key: only libyaml's builder sees it
        "a: y\n",  # kubectl: true
        "a: 0777\n",  # kubectl: 511
        "a: b: c\n",  # libyaml and go-yaml fail; rapidyaml reads a string
        "a: ]x\n",
        "a: {b: c, ?d: e}\n",  # `?` starts an explicit key in a flow collection
        "a: {b:}\n",
        "a:\n  >  - b: c\n",  # text after a block scalar's header
        "a:\n  - {b: c}  - {d: e}\n",  # text after a flow collection: libyaml fails, rapidyaml reads two items
        "a: [b, {c: d}  x]\n",
        "a: " + "x" * 1100 + ": 1\n",  # a key over 1,024 characters
        "a: &x 1\nb: *x\n",
        "a: !!str 1\n",
    ],
)
def test_what_the_fast_reader_leaves_to_libyaml(text):
    assert fast.read(text, load.MAX_DEPTH) is None
    assert differences(text) == []


def test_the_fast_reader_reads_plain_manifests_as_kubectl_does():
    text = 'a: "1"\nb: 1e3\nc: 1.5\nd:\ne: [1, "y", {f: true}]\ng: null\nh: >-\n  y\n'
    data, nulls = fast.read(text, load.MAX_DEPTH)
    expected = {"a": "1", "b": 1000, "c": 1.5, "d": None, "e": [1, "y", {"f": True}], "g": None, "h": "y"}
    assert repr(data) == repr(expected)
    assert nulls
    assert differences(text) == []


def test_a_document_whose_json_outgrows_the_reused_buffer_reads_whole():
    """The JSON is emitted into a buffer reused for every document; a bigger document gets one of
    its own, and the reused one stays as it was (its memory does not grow with the input)."""
    fast.read("a: 1\n", load.MAX_DEPTH)  # the reused buffer exists
    kept = len(fast._json)
    text = "".join(f"key-{i}: value-{i}\n" for i in range(kept // 10))
    data, _ = fast.read(text, load.MAX_DEPTH)
    assert data == {f"key-{i}": f"value-{i}" for i in range(kept // 10)}
    assert len(fast._json) == kept
    assert fast.read("- a\n", load.MAX_DEPTH) is None  # no mapping: libyaml says so
    assert fast.read("# only a comment\n", load.MAX_DEPTH) is None


def test_a_fast_document_composes_its_tree_only_when_a_node_is_asked(monkeypatch):
    """A position alone comes from rapidyaml's tree of the text (fast.Positions); the YAML node at
    a path (what a type finding says of the text) needs libyaml's node tree, composed then."""
    monkeypatch.setattr(load, "FAST_AFTER", 0)
    docs = list(load.iter_documents("x: 0\n---\na:\n  b: [1, 2]\n"))
    doc = docs[1]
    assert doc.text is not None and doc.node is None
    assert doc.position(["a", "b", 1]) == ((4, 10), None)
    assert doc.node is None and doc.positions is not None
    (line, column), node = doc.position(["a", "b", 1], node=True)
    assert (line, column, node.value) == (4, 10, "2")
    assert doc.node is not None and doc.text is None


def test_a_small_stream_is_libyamls_and_loads_no_rapidyaml(monkeypatch):
    """The first FAST_AFTER bytes a run reads are libyaml's: a one-document file never imports
    rapidyaml (its import costs more than the read); past them the fast reader takes over, in the
    same file or in the next ones of a folder."""
    code = (
        "import sys; from generator.kubeyaml import load; "
        "docs = list(load.iter_documents('a: 1\\n')); "
        "print('ryml' in sys.modules, docs[0].text is None)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.stdout.split() == ["False", "True"], done.stderr
    monkeypatch.setattr(load, "_read_so_far", 0)
    big = "---\n".join(f"name: job-{i}\nreplicas: {i}\n" for i in range(4000))
    docs = list(load.iter_documents(big))
    assert docs[0].text is None and docs[-1].text is not None  # libyaml first, rapidyaml later
    assert list(load.iter_documents("a: 1\n"))[0].text is not None  # the next file: rapidyaml


def test_the_quoted_scalar_scan_is_the_one_regex_it_replaces():
    """_after_quoted tries the pattern only at quotes that start a line or follow one of ` [{,`,
    which is what one regex with a lookbehind says (the form it had): the same answer on every
    fixture and on short random texts of the characters that matter."""
    import re

    one_regex = re.compile(r"(?:(?<=[ \[{,])|^)(?:\"[^\"\n]*\"|'[^'\n]*')(?:[ ]+[^ \n#]|[^ \n#:,\]}])", re.M)
    texts = [p.read_text(errors="replace") for p in FIXTURES.rglob("*.yaml")]
    rng = random.Random(7)
    texts += ["".join(rng.choice(" \"'\n#:,[]{}-ab") for _ in range(rng.randint(0, 14))) for _ in range(50_000)]
    for text in texts:
        assert fast._after_quoted(text) == bool(one_regex.search(text)), repr(text[:200])


def test_the_block_header_scan_finds_what_the_one_regex_found():
    """_block_headers finds the indicators and looks back along their line, instead of trying
    one regex at every line start, colon and dash: the same places on every fixture and on
    short random texts of the characters that matter."""
    import re

    one_regex = re.compile(r"(?:^[ ]*|[:-][ ]+)([|>])(?![0-9+-]*[ ]*(?:#[^\n]*)?$)", re.M)
    texts = [p.read_text(errors="replace") for p in FIXTURES.rglob("*.yaml")]
    rng = random.Random(3)
    texts += ["".join(rng.choice(" \n#:-|>+09ab") for _ in range(rng.randint(0, 14))) for _ in range(50_000)]
    for text in texts:
        # the regex's matches do not overlap: each indicator it found, and no other, is found
        assert set(fast._block_headers(text)) == {m.start(1) for m in one_regex.finditer(text)}, repr(text[:200])


def _screen_misses(data: bytes | str) -> list[str]:
    """Documents of ``data`` that the stream's screen marks clean though their own scan
    (_slow_path) finds something: there must be none."""
    blocks = load._decoded_blocks(data)
    return [
        chunk.text[:200]
        for chunk in load._chunks(blocks, fast.screen)
        if chunk.problem is None and chunk.screened and fast._slow_path(chunk.text)
    ]


def test_the_stream_screen_finds_whatever_a_documents_own_scan_finds():
    """A document read with ``screened`` skips its own scan for what only libyaml reads as
    kubectl does: the screen of the stream must find all of it. Every fixture, texts made of the
    characters that matter, and fuzzed streams; and the screen does mark ordinary documents clean."""
    rng = random.Random(11)
    alphabet = " \"'\n#:,[]{}|>?<&*!%.-ab\t"
    texts: list = []
    for _ in range(20_000):
        parts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(rng.randint(1, 4))]
        texts.append("---\n".join(parts))
    corpus = [p.read_bytes() for p in fuzz.CORPUS]
    texts += [fuzz.mutate(rng.choice(corpus), rng) for _ in range(2_000)]
    texts += [p.read_bytes() for p in FILES]
    misses = [miss for text in texts for miss in _screen_misses(text)]
    assert misses == []
    plain = "---\n".join(f'a: {i}\nb: "x"\nc: [1, {{d: e}}]\n' for i in range(50))
    assert all(chunk.screened for chunk in load._chunks(load._decoded_blocks(plain), fast.screen))


def test_the_separator_search_finds_what_the_pattern_did():
    """_separator_lines finds with str.find the lines `^---(.*)$` (multiline) matched."""
    import re

    pattern = re.compile(r"^---(.*)$", re.M)
    rng = random.Random(5)
    texts = [
        "".join(rng.choice(["---", "-", "\n", "a", " ", "\r", "#"]) for _ in range(rng.randint(0, 20)))
        for _ in range(20_000)
    ]
    for text in texts:
        assert list(load._separator_lines(text)) == [m.span() for m in pattern.finditer(text)], repr(text)


def _sizes_and_rules(source) -> list[tuple]:
    return [(doc.index, sorted(p.rule for p in doc.problems), doc.data) for doc in load.iter_documents(source)]


@pytest.mark.parametrize("form", ["file", "bytes", "text"])
def test_every_document_over_the_size_limit_is_refused_however_it_is_read(form, monkeypatch):
    """The apiserver refuses a body over 3 MiB: a document that big is a yaml-size error whether
    it comes whole within one block of the reader or spans several, and from a file, bytes or
    text (a document that came whole within a block was once read as if it were small)."""
    import io

    monkeypatch.setattr(load, "MAX_DOCUMENT_BYTES", 1000)
    text = "a: 1\n---\nb: " + "x" * 1500 + "\n---\nc: 2\n---\nd: " + "y" * 3000 + "\n"
    source = {"file": io.BytesIO(text.encode()), "bytes": text.encode(), "text": text}[form]
    found = _sizes_and_rules(source)
    assert [(rules, data) for _, rules, data in found] == [
        ([], {"a": 1}),
        (["yaml-size"], None),
        ([], {"c": 2}),
        (["yaml-size"], None),
    ]


def test_a_separator_inside_a_skipped_long_line_is_no_separator(monkeypatch):
    """While a document over the limit is skipped, the reader keeps only the end of a long line:
    a `---` of that line split across two blocks is not a line of its own."""
    import io

    monkeypatch.setattr(load, "_BLOCK_SIZE", 8)
    monkeypatch.setattr(load, "MAX_DOCUMENT_BYTES", 10)
    data = b"a: " + b"x" * 12 + b"---y\nb: 1\n---\nc: 2\n"
    found = _sizes_and_rules(io.BytesIO(data))
    assert [(rules, data) for _, rules, data in found] == [(["yaml-size"], None), ([], {"c": 2})]


@pytest.mark.parametrize("size", [127, 128, 129, 300, 600])
def test_a_stream_reads_the_same_from_a_file_a_pipe_bytes_or_text(size, tmp_path, monkeypatch):
    """A buffered stream is read in blocks, a file smaller than a block in one read of its size
    and a byte more (a short read is its end), a pipe until it ends; around a block's size,
    below it and above it, every way gives the same documents and problems, and the same lines."""
    import io
    import threading

    monkeypatch.setattr(load, "_BLOCK_SIZE", 128 if size < 300 else 512)
    head = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n# pad\n"
    tail = "---\nkind: Secret\nkind: Secret\ndata: {b: 2}\n"  # a duplicate key: a problem with a line
    pad = "#" * (size - len(head) - len(tail) - 1) + "\n"
    text = head + pad + tail
    assert len(text) == size
    path = tmp_path / "stream.yaml"
    path.write_text(text)

    def piped(buffering: int) -> list:
        """Through a pipe written in three pieces: unbuffered, a read returns what has come so
        far, which is not the end."""
        read, write = os.pipe()
        data = text.encode()

        def send():
            for start in range(0, len(data), len(data) // 3 + 1):
                os.write(write, data[start : start + len(data) // 3 + 1])
                time.sleep(0.02)
            os.close(write)

        writer = threading.Thread(target=send)
        writer.start()
        with os.fdopen(read, "rb", buffering=buffering) as stream:
            found = _positions(stream)
        writer.join()
        return found

    expected = _positions(text)
    assert [rule for _, problems, _ in expected for rule, _, _ in problems] == ["duplicate-key"]
    with open(path, "rb") as stream:
        assert _positions(stream) == expected
    assert _positions(io.BytesIO(text.encode())) == expected
    assert _positions(text.encode()) == expected
    assert piped(-1) == expected
    assert piped(0) == expected


def _positions(source) -> list[tuple]:
    return [
        (doc.index, [(p.rule, p.line, p.column) for p in doc.problems], doc.data) for doc in load.iter_documents(source)
    ]


def test_the_c_functions_called_directly_are_the_ones_the_python_methods_call(monkeypatch):
    """fast._Entries calls rapidyaml's C functions without its Python wrappers; a release without
    them gets the wrappers. Both ways, every fixture reads to the same documents and positions,
    and each direct entry is the very function its wrapper passes the call on to."""
    fast._load()
    import ryml

    direct = fast._c
    for name, value in vars(ryml._ryml).items():
        if name.startswith("Tree_") and hasattr(direct, name[5:]):
            assert getattr(direct, name[5:]) is value, name
    assert direct.parse_in_arena is ryml._ryml.parse_csubstr and direct.emit_json is ryml._ryml.emit_json_to_substr

    class WrappersOnly:  # the module's Python face, without its C module
        Tree = ryml.Tree
        parse_csubstr, parse_substr = staticmethod(ryml.parse_csubstr), staticmethod(ryml.parse_substr)
        emit_json_to_substr = staticmethod(ryml.emit_json_to_substr)

    wrapped = fast._Entries(WrappersOnly)
    assert wrapped.is_map is ryml.Tree.is_map and wrapped.parse_in_arena is ryml.parse_csubstr
    data = b"".join(path.read_bytes() + b"\n---\n" for path in FILES[:60])
    expected = read(data, use_fast=True)
    monkeypatch.setattr(fast, "_c", wrapped)
    assert read(data, use_fast=True) == expected
    assert sum(doc[-1] for doc in expected) > 20  # the fast reader read them


def test_an_address_read_from_the_view_is_the_one_the_buffer_protocol_gives(monkeypatch):
    """fast._address reads a memoryview's first byte's address from the object where CPython
    keeps it (checked at import); it is what PyObject_GetBuffer says on every key and value of
    a parsed tree, and positions are the same when it is not used."""
    fast._load()
    import ryml

    assert fast._VIEW_BUF == 56  # 64-bit CPython 3.11: the quick way is the one tested here
    raw = bytearray(b'a:\n  b: [1, "two"]\n  c: x\nd:\n- e: |\n    text\n')
    tree = ryml.Tree()
    ryml.parse_in_place(raw, tree)
    views = 0
    for node in range(tree.size()):
        for has, get in ((tree.has_key, tree.key), (tree.has_val, tree.val)):
            if has(node):
                view = get(node)
                assert fast._address(view) == fast._asked_address(view)
                views += 1
    assert views > 8
    data = b"".join(path.read_bytes() + b"\n---\n" for path in FILES[:60])
    expected = read(data, use_fast=True)
    monkeypatch.setattr(fast, "_VIEW_BUF", 0)
    assert read(data, use_fast=True) == expected
