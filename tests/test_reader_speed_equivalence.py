"""The fast reader's cheaper forms of its checks (scalars/fast.py) against the forms they
replaced: a new string's kind from character tests and one scan, not two patterns; a flow end
found by a pattern that looks behind it, not a look at every bracket; a quoted number known
from rapidyaml's JSON, not from its tree. Each gives the same answers on every fixture and on
random texts of the characters that matter."""

from __future__ import annotations

import random
import re

import pytest

from generator.kubeyaml import fast, scalars

from .conftest import FIXTURES
from .test_kubectl_yaml import SCALARS

# The definition _classify replaced: a string resolved by go-yaml, or one of these, must be quoted
ODD_PLAIN = re.compile(r"\A(?:[,\[\]{}#&*!|>'\"%@`?:]|-(?: |\Z))|: |:\Z|:[,?\[\]{}]| #|\A\s|\s\Z")
FLOW_INDICATOR = re.compile(r"[,\[\]{}]")


def two_patterns(value: str) -> str:
    if scalars.resolve_plain(value)[0] != scalars.STR or ODD_PLAIN.search(value):
        return fast._MUST_QUOTE
    return fast._FLOW_PLAIN if FLOW_INDICATOR.search(value) else fast._PLAIN


def test_a_new_strings_kind_is_what_the_two_patterns_said():
    """_classify's kinds, _QUOTED counted as what it refines (must quote), on every word of the
    fixtures and on short random strings of indicators, spaces, signs, digits and letters."""
    rng = random.Random(19)
    alphabet = list("ab019xyYnNoOtTfF~+-._:#,[]{}&*!|>'\"%@`? \t\n\x85\xa0\u2028\u3000eExXbB")
    alphabet += ["- ", ": ", " #", "0x", "0o", "0b", "1_0", "2001-12-14", "true", "null", ".inf", "1e3"]
    words = {word for path in FIXTURES.rglob("*.yaml") for word in path.read_text(errors="replace").split()}
    words |= {"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8))) for _ in range(100_000)}
    for word in words:
        kind = fast._classify(word)
        assert (fast._MUST_QUOTE if kind is fast._QUOTED else kind) == two_patterns(word), repr(word)


@pytest.mark.skipif(not fast.AVAILABLE, reason="rapidyaml is not installed")
def test_rapidyaml_writes_plain_integers_and_words_unquoted_and_quoted_ones_quoted():
    """What _QUOTED stands on: a string of _JSON_PLAIN in rapidyaml's JSON was a quoted or block
    scalar, in every place a value can be (a plain one is written as a number or a literal)."""
    fast._load()
    rng = random.Random(23)
    words = ["0", "true", "false", "null", *map(str, range(1, 300))]
    words += [str(rng.randrange(10 ** (n - 1), 10**n)) for n in range(2, 40) for _ in range(5)]
    places = ["a: {}\n", "a:\n  - {}\n", "a: [x, {}]\n", "a: {{b: {}}}\n"]
    for word in words:
        assert fast._JSON_PLAIN.match(word) and fast._classify(word) is fast._QUOTED, word
        for place in places:
            assert f'"{word}"'.encode() not in _json(place.format(word)), (place, word)
            for quoted in (f"'{word}'", f'"{word}"'):
                assert f'"{word}"'.encode() in _json(place.format(quoted)), (place, quoted)
        for block in (f"a: |-\n  {word}\n", f"a: >-\n  {word}\n", f"a:\n  - |-\n    {word}\n"):
            assert f'"{word}"'.encode() in _json(block), block
    # and no scalar of kubectl's table that rapidyaml writes as a string though plain (`012`) is one
    for scalar in SCALARS:
        parsed = fast._parse(f"a: {scalar}\n".encode())  # None: rapidyaml refuses it (`-`)
        if parsed is not None and f'"{scalar}"'.encode() in bytes(parsed[1]):
            assert not fast._JSON_PLAIN.match(scalar), scalar


def _json(text: str) -> bytes:
    parsed = fast._parse(text.encode())
    assert parsed is not None, text
    return bytes(parsed[1])


def flow_ends_by_loop(text: str, flow_end: str) -> list[int]:
    """The form _flow_ends replaced: a look at every flow end's character before it."""
    found, previous = [], -1
    at = text.find(flow_end)
    while at >= 0:
        before = text[at - 1] if at else "\n"
        if before in "\n:":
            found.append(at)
        elif before == " ":
            newline = text.rfind("\n", max(previous, 0), at)
            if (newline >= 0 or previous < 0) and not text[newline + 1 : at].strip(" "):
                found.append(at)
        previous = at
        at = text.find(flow_end, at + 1)
    return found


def test_the_flow_end_scan_finds_what_the_loop_found():
    rng = random.Random(29)
    texts = [path.read_text(errors="replace") for path in FIXTURES.rglob("*.yaml")]
    texts += [
        "".join(rng.choice(["}", "]", " ", "\n", ":", "a", "  }", "\n ]", ": }"]) for _ in range(12))
        for _ in range(50_000)
    ]
    for text in texts:
        for flow_end in "]}":
            assert sorted(fast._flow_ends(text, flow_end)) == flow_ends_by_loop(text, flow_end), repr(text[:200])
