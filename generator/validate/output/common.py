"""What every format shares: the one place that turns a finding into text (finding_text,
finding_line), the summary line, and `printable`, which keeps file names and messages on one line
and writable in any encoding and in XML 1.0."""

from __future__ import annotations

import os
import re

from generator.core.findings import Finding
from generator.validate.report import Located, Report

DOCS = "https://github.com/paddleflow/paddlejob-manifests/blob/main/docs/validate.md"
_COLOURS = {"error": "\033[31m", "warning": "\033[33m"}


def use_colour(stream) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    return stream.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


# What a line of output must not hold as it is: control characters (a newline in a file name
# makes a line of its own, an ESC sequence recolours or rewrites the terminal or CI log),
# surrogates (a file name's bytes that are not UTF-8, which no encoder writes) and the code
# points XML 1.0 forbids. Each is written as an escape: \x1b, \n, \xff (the byte), \ufffe.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match) -> str:
    char = match.group()
    point = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    if 0xDC80 <= point <= 0xDCFF:  # a byte that was not UTF-8 (os.fsdecode's surrogateescape)
        return f"\\x{point - 0xDC00:02x}"
    return f"\\x{point:02x}" if point < 0x100 else f"\\u{point:04x}"


def printable(text: str) -> str:
    """``text`` on one line, writable in any encoding this tool writes and in XML 1.0: control
    characters, surrogates and non-characters as backslash escapes (the rest unchanged)."""
    return _UNPRINTABLE.sub(_escape, text) if _UNPRINTABLE.search(text) else text


def what(item: Located) -> str:
    """KIND/NAME of the finding's object; its document (1-based) where the object has no kind (a
    document kubectl cannot read: a YAML syntax error) or no name (a List)."""
    if not item.kind:
        return f"document {item.document}"
    if not item.name:
        return printable(f"{item.kind} (document {item.document})")
    return printable(f"{item.kind}/{item.name}")


def in_document(item: Located, between: str = " ") -> str:
    """The document and its object: `document N KIND/NAME` (``between`` joins the two), or
    `document N` alone where the object has no kind (what() would name the document twice)."""
    return f"document {item.document}{between}{what(item)}" if item.kind else f"document {item.document}"


def finding_text(f: Finding) -> str:
    """A finding as every message of this tool shows it: PATH: message [rule]."""
    return printable(f"{f.path or '(document)'}: {f.message} [{f.rule}]")


def finding_line(item: Located, colour: bool = False) -> str:
    """FILE:LINE:COLUMN: severity: KIND/NAME: PATH: message [rule] (the text format's line; the
    render's and the job library's errors use it too)."""
    f = item.finding
    severity = f"{_COLOURS[f.severity]}{f.severity}\033[0m" if colour else f.severity
    return f"{printable(item.file)}:{item.line}:{item.column}: {severity}: {what(item)}: {finding_text(f)}"


def count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def summary(report: Report) -> str:
    """17 documents: 4 errors, 1 warning (invalid)."""
    verdict = "valid" if report.valid else "invalid"
    counts = f"{count(report.errors, 'error')}, {count(report.warnings, 'warning')}"
    return f"{count(report.documents, 'document')}: {counts} ({verdict})"
