"""A finding's position in a document rapidyaml read (kubeyaml/fast.py Positions) is the one
libyaml's node tree gives (kubeyaml/tree.py locate), or None (then the tree is composed): every
path of every document of the fixtures and corpora, and paths that go past what exists."""

from __future__ import annotations

from generator.kubeyaml import fast, tree
from generator.kubeyaml.load import iter_documents

from .conftest import FIXTURES


def _paths(data, prefix=(), out=None, limit=400) -> list[list]:
    out = [] if out is None else out
    if len(out) >= limit:
        return out
    if isinstance(data, dict):
        for key, value in data.items():
            out.append([*prefix, key])
            _paths(value, (*prefix, key), out, limit)
        out.append([*prefix, "no-such-key"])
    elif isinstance(data, list):
        for i, value in enumerate(data):
            out.append([*prefix, i])
            _paths(value, (*prefix, i), out, limit)
        out.append([*prefix, len(data)])
    return out


def _documents():
    for path in sorted(p for d in ("validate", "realworld", "corpus") for p in (FIXTURES / d).rglob("*.y*ml")):
        try:
            with open(path, "rb") as stream:
                yield from (doc for doc in iter_documents(stream) if doc.text is not None and doc.data is not None)
        except OSError:
            continue  # a link of the corpus that points nowhere


def test_positions_are_libyamls_or_none():
    compared = unsure = 0
    for doc in _documents():
        node, positions = tree.compose_first(doc.text), fast.Positions(doc.text)
        for path in [[], *_paths(doc.data)]:
            fast_position = positions.of(path)
            if fast_position is None:
                unsure += 1
                continue
            assert fast_position == tree.locate(node, path)[0], (doc.text[:200], path)
            compared += 1
    assert compared > 50_000
    assert unsure < compared / 20  # the tree is composed for a few paths only
