"""The Test Anything Protocol, version 13 (prove, tap-spec, most TAP consumers)."""

from __future__ import annotations

import json

from generator.core.text import visible
from generator.validate.output.common import count, in_document, summary
from generator.validate.report import Located, Report


def write(report: Report, colour: bool = False) -> str:
    """TAP 13: a test point per document with findings (not ok when it fails), its findings in
    the YAML diagnostic block, and one test point for the documents without findings, if any."""
    by_document: dict[tuple[str, int], list[Located]] = {}
    for item in report.findings:
        by_document.setdefault((item.file, item.document), []).append(item)
    clean = max(report.documents - len(by_document), 0)
    lines = ["TAP version 13", f"1..{len(by_document) + bool(clean)}"]
    for number, ((file, _document), items) in enumerate(by_document.items(), 1):
        failed = any(i.finding.is_error for i in items) or (report.strict and items)
        description = _tap_description(f"{visible(file)} {in_document(items[0])}")
        lines.append(f"{'not ok' if failed else 'ok'} {number} - {description}")
        lines += ["  ---", "  findings:"]
        for i in items:
            entry = {"severity": i.finding.severity, "line": i.line, "column": i.column, "rule": i.finding.rule}
            entry |= {"path": visible(i.finding.path or "(document)"), "message": visible(i.finding.message)}
            lines.append("    - " + json.dumps(entry, ensure_ascii=False))  # JSON is YAML: one line per finding
        lines.append("  ...")
    if clean:  # not when every document has findings: no test that stands for nothing
        lines.append(f"ok {len(by_document) + 1} - {count(clean, 'document')} without findings")
    lines.append(f"# {summary(report)}")
    return "\n".join(lines) + "\n"


def _tap_description(text: str) -> str:
    """A test point's description: a `#` would start a directive (`# SKIP` in a file name would
    skip the test in tap.py, which knows no escape for it), so it is written as visible writes a
    character it escapes."""
    return text.replace("#", "\\x23")
