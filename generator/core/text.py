"""`visible`: text from an input (a file name, a message that quotes a value, a diff of committed
files) as every human-readable output of this tool writes it: on a terminal or in a CI log it
shows what it holds, and does nothing else.

A hostile file name or value could otherwise
- end a line and forge one of its own (a newline, a CR: a terminal and GitHub's log both start a
  new line at a bare CR; U+2028 and U+2029, which some viewers break lines at; NEL, U+0085),
- drive the terminal or the log viewer (ESC and the other C0 and C1 controls, DEL: colours, a
  cleared screen, a window title, a hyperlink),
- show other text than it holds (the bidirectional overrides, embeddings, isolates and marks:
  U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C),
- run a GitHub Actions workflow command: the runner reads every line of a step's stdout and
  stderr, and one that starts with `::` once its leading white space is trimmed
  (`::error file=...::`, `::add-mask::`, `::stop-commands::`) or that holds `##[` anywhere (the
  older form) is a command, not text.

Each is written as a backslash escape that shows it: \\x1b, \\r, \\u202e, \\x3a for the first
colon of a command's `::` and \\x23 for the first `#` of `##[`. A byte of a file name that is not
UTF-8 (os.fsdecode's surrogate) is written as the byte, \\xff; the other surrogates and U+FFFE,
U+FFFF, which no encoder writes or XML 1.0 forbids, as \\udc00. The rest is unchanged, and text
with nothing to escape is returned as it is. The machine formats (JSON, SARIF, YAML) keep their
own encodings; JUnit XML and TAP use this one for their text.
"""

from __future__ import annotations

import re

# What is escaped: C0 controls, DEL and C1 controls, the bidirectional controls, the line and
# paragraph separators, surrogates and the two non-characters XML 1.0 forbids. Text of several
# lines keeps its newlines and tabs.
_OTHERS = r"\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff"
_ONE_LINE = re.compile(rf"[\x00-\x1f{_OTHERS}]")
_LINES = re.compile(rf"[\x00-\x08\x0b-\x1f{_OTHERS}]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# A GitHub workflow command: `::` first on a line once white space is trimmed (the runner's
# TrimStart; the zero-width characters too, which some trims take), or `##[` anywhere on it.
_COMMAND = re.compile(r"^([\s\u180e\u200b\u2060\ufeff]*):(?=:)|#(?=#\[)", re.MULTILINE)


def is_command(text: str) -> bool:
    """Whether a line of ``text`` is a GitHub workflow command as it stands (`::` first once white
    space is trimmed, or `##[` anywhere): what `visible` defuses, for writers whose format keeps
    its own escapes (YAML, kubeyaml/dump.py)."""
    return ("::" in text or "##[" in text) and _COMMAND.search(text) is not None


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    point = ord(char)
    if 0xDC80 <= point <= 0xDCFF:  # a byte that was not UTF-8 (os.fsdecode's surrogateescape)
        return f"\\x{point - 0xDC00:02x}"
    return f"\\x{point:02x}" if point < 0x100 else f"\\u{point:04x}"


def _defuse(match: re.Match[str]) -> str:
    return match.group(1) + "\\x3a" if match.group(1) is not None else "\\x23"


def visible(text: str, lines: bool = False) -> str:
    """``text`` with every character that could hide, forge or run something escaped (above):
    on one line, or with ``lines``, keeping its newlines and tabs (a diff, a listing, a message
    of several lines), each line then checked on its own."""
    pattern = _LINES if lines else _ONE_LINE
    if pattern.search(text):
        text = pattern.sub(_escape, text)
    if "::" in text or "##[" in text:  # what _COMMAND needs: `:(?=:)` or `#(?=#\[)`
        text = _COMMAND.sub(_defuse, text)
    return text
