"""What every format shares: the one place that turns a finding into text (finding_text,
finding_line) and the summary line. File names, kinds, names and messages come from the input:
each is written through core.text.visible (one line, nothing that drives a terminal, forges a
line or runs a GitHub workflow command, writable in any encoding and in XML 1.0)."""

from __future__ import annotations

import os

from generator.core.findings import Finding
from generator.core.text import visible
from generator.validate.report import Located, Report

DOCS = "https://github.com/paddleflow/paddlejob-manifests/blob/main/docs/validate.md"
_COLOURS = {"error": "\033[31m", "warning": "\033[33m"}


def use_colour(stream) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    return stream.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def json_text(body) -> str:
    """``body`` as the JSON formats write it: ASCII, indented, and with `##[` (the older form of a
    GitHub workflow command, which the runner finds anywhere on a line of a log) written
    `#\\u0023[`, the same string to a JSON reader."""
    import json  # here: only the JSON formats need it

    return json.dumps(body, indent=2).replace("##[", "#\\u0023[") + "\n"


def what(item: Located) -> str:
    """KIND/NAME of the finding's object; its document (1-based) where the object has no kind (a
    document kubectl cannot read: a YAML syntax error) or no name (a List)."""
    if not item.kind:
        return f"document {item.document}"
    if not item.name:
        return visible(f"{item.kind} (document {item.document})")
    return visible(f"{item.kind}/{item.name}")


def in_document(item: Located, between: str = " ") -> str:
    """The document and its object: `document N KIND/NAME` (``between`` joins the two), or
    `document N` alone where the object has no kind (what() would name the document twice)."""
    return f"document {item.document}{between}{what(item)}" if item.kind else f"document {item.document}"


def finding_text(f: Finding) -> str:
    """A finding as every message of this tool shows it: PATH: message [rule]."""
    return visible(f"{f.path or '(document)'}: {f.message} [{f.rule}]")


def finding_line(item: Located, colour: bool = False) -> str:
    """FILE:LINE:COLUMN: severity: KIND/NAME: PATH: message [rule] (the text format's line; the
    render's and the job library's errors use it too)."""
    f = item.finding
    severity = f"{_COLOURS[f.severity]}{f.severity}\033[0m" if colour else f.severity
    if not item.line:  # a path named, not a place in a file: nothing was read there
        return f"{visible(item.file)}: {severity}: {visible(f.message)} [{f.rule}]"
    return f"{visible(item.file)}:{item.line}:{item.column}: {severity}: {what(item)}: {finding_text(f)}"


def count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def breakdown(report: Report) -> str:
    """3 files: 13 documents valid, 4 invalid, 2 skipped (ConfigMap: 2, --skip-kinds); 1 finding
    ignored (annotations); 2 files skipped (not manifests): the line before summary's."""
    documents = [f"{count(report.valid_documents, 'document')} valid", f"{report.invalid} invalid"]
    if report.skipped:
        kinds = ", ".join(f"{visible(kind)}: {n}" for kind, n in sorted(report.skipped.items()))
        documents.append(f"{sum(report.skipped.values())} skipped ({kinds}; --skip-kinds)")
    parts = [f"{count(report.files, 'file')}: {', '.join(documents)}"]
    if report.suppressed:
        parts.append(f"{count(len(report.suppressed), 'finding')} ignored (ignore-check annotations)")
    if report.skipped_files:
        parts.append(f"{count(len(report.skipped_files), 'file')} skipped (not manifests)")
    return "; ".join(parts)


def suppressed_line(entry, colour: bool = False) -> str:
    """FILE:LINE:COLUMN: ignored: KIND/NAME: PATH: message [rule] (reason)."""
    item = entry.item
    reason = visible(entry.reason) if entry.reason else "no reason given"
    where = f"{visible(item.file)}:{item.line}:{item.column}"
    return f"{where}: ignored: {what(item)}: {finding_text(item.finding)} ({reason})"


def summary(report: Report) -> str:
    """17 documents: 4 errors, 1 warning (invalid)."""
    verdict = "valid" if report.valid else "invalid"
    counts = f"{count(report.errors, 'error')}, {count(report.warnings, 'warning')}"
    return f"{count(report.documents, 'document')}: {counts} ({verdict})"
