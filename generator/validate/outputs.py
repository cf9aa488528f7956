"""The formats `validate --output` writes: one function each, one registry (kubeconform's
pkg/output has the same shape).

- text: FILE:LINE:COLUMN: severity: KIND/NAME: PATH: message [rule], then a summary line;
- json: {"valid", "documents", "truncated", "findings": [...]};
- junit: JUnit XML (Jenkins, GitLab, most CI dashboards), a test case per document with findings;
- sarif: SARIF 2.1.0, for GitHub code scanning and other static-analysis viewers;
- github: GitHub Actions workflow commands (::error file=...,line=...::...), annotations on the diff;
- tap: the Test Anything Protocol, version 13 (prove, tap-spec, most TAP consumers).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable

from generator import __version__
from generator.core import rulebook
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


def _what(item: Located) -> str:
    return printable(f"{item.kind or '?'}/{item.name or '?'}")


def finding_text(f: Finding) -> str:
    """A finding as every message of this tool shows it: PATH: message [rule]."""
    return printable(f"{f.path or '(document)'}: {f.message} [{f.rule}]")


def finding_line(item: Located, colour: bool = False) -> str:
    """FILE:LINE:COLUMN: severity: KIND/NAME: PATH: message [rule] (the text format's line; the
    render's and the job library's errors use it too)."""
    f = item.finding
    severity = f"{_COLOURS[f.severity]}{f.severity}\033[0m" if colour else f.severity
    return f"{printable(item.file)}:{item.line}:{item.column}: {severity}: {_what(item)}: {finding_text(f)}"


def text(report: Report, colour: bool = False) -> str:
    lines = [finding_line(item, colour) for item in report.findings]
    if report.truncated:
        lines.append(f"stopped after {report.errors} errors (--max-errors); the rest was not read")
    lines.append(summary(report))
    return "\n".join(lines) + "\n"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def summary(report: Report) -> str:
    """17 documents: 4 errors, 1 warning (invalid)."""
    verdict = "valid" if report.valid else "invalid"
    counts = f"{_count(report.errors, 'error')}, {_count(report.warnings, 'warning')}"
    return f"{_count(report.documents, 'document')}: {counts} ({verdict})"


def json_report(report: Report, colour: bool = False) -> str:
    body = {
        "valid": report.valid,
        "documents": report.documents,
        "truncated": report.truncated,
        "findings": [item.as_dict() for item in report.findings],
    }
    return json.dumps(body, indent=2) + "\n"


def junit(report: Report, colour: bool = False) -> str:
    """A test case per document with findings (failed when it has an error), and one for the rest."""
    cases: dict[tuple[str, int], list[Located]] = {}
    for item in report.findings:
        cases.setdefault((item.file, item.document), []).append(item)
    failed = sum(1 for items in cases.values() if any(i.finding.is_error for i in items))
    clean = max(report.documents - len(cases), 0)
    from xml.etree import ElementTree  # here: only JUnit output needs it

    suites = ElementTree.Element("testsuites", name="paddlejob-manifests validate")
    suite = ElementTree.SubElement(
        suites, "testsuite", name="validate", tests=str(len(cases) + 1), failures=str(failed), errors="0", skipped="0"
    )
    for (file, document), items in sorted(cases.items()):
        file = printable(file)  # noqa: PLW2901 - XML 1.0 holds no control character nor surrogate
        case = ElementTree.SubElement(
            suite, "testcase", classname=file, name=f"document {document}: {_what(items[0])}", file=file
        )
        errors = [i for i in items if i.finding.is_error]
        body = "\n".join(f"{i.line}:{i.column}: {i.finding.severity}: {finding_text(i.finding)}" for i in items)
        if errors:
            first = errors[0].finding
            message = printable(f"{first.path}: {first.message}")
            failure = ElementTree.SubElement(case, "failure", message=message, type=printable(first.rule))
            failure.text = body
        else:
            ElementTree.SubElement(case, "system-out").text = body
    ElementTree.SubElement(
        suite, "testcase", classname="paddlejob-manifests", name=f"{clean} documents without findings"
    )
    ElementTree.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(suites, encoding="unicode") + "\n"


def sarif(report: Report, colour: bool = False) -> str:
    """SARIF 2.1.0: one run, a rule per rule id that occurs, a result per finding."""
    rules = sorted({item.finding.rule for item in report.findings})
    results = []
    for item in report.findings:
        f = item.finding
        results.append(
            {
                "ruleId": f.rule,
                "ruleIndex": rules.index(f.rule),
                "level": "error" if f.is_error else "warning",
                "message": {"text": f"{_what(item)}: {f.path or '(document)'}: {f.message}"},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": _uri(item.file)},
                            "region": {"startLine": item.line, "startColumn": item.column},
                        }
                    }
                ],
            }
        )
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "paddlejob-manifests",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": "https://github.com/paddleflow/paddlejob-manifests",
                        "rules": [_sarif_rule(rule) for rule in rules],
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2) + "\n"


def _uri(file: str) -> str:
    """A file's artifactLocation.uri: its path relative to the folder the run started in (no
    leading ./), percent-encoded as a URI reference is (its bytes: a name that is not UTF-8 too);
    a file outside that folder as a file: URI."""
    if file == "<stdin>":
        return "stdin"
    from urllib.parse import quote  # here: only SARIF needs it

    if os.path.isabs(file):  # relative to the folder the run started in when below it, else a file: URI
        relative = os.path.relpath(file)
        if relative == ".." or relative.startswith("../"):
            from pathlib import Path

            return Path(file).as_uri()
        file = relative
    while file.startswith("./"):
        file = file[2:].lstrip("/")
    return quote(os.fsencode(file), safe="/")


def _sarif_rule(rule_id: str) -> dict:
    """A rule's reportingDescriptor, from the rulebook: what it checks, who enforces it, where
    it is documented, and its usual level."""
    rule = rulebook.RULES[rule_id]
    return {
        "id": rule.id,
        "name": _sarif_name(rule),
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": f"{rule.summary} (enforced by: {rulebook.OWNERS[rule.owner]})"},
        "helpUri": f"{DOCS}#{rule.anchor}",
        "defaultConfiguration": {"level": rule.severities[0]},
        "properties": {"tags": [rule.owner]},
    }


def _sarif_name(rule: rulebook.Rule) -> str:
    """A PascalCase name that is not the id (SARIF1001): owner first, PodImage, YamlSyntax."""
    parts = rule.id.split("-")
    if parts[0] != rule.owner:
        parts.insert(0, rule.owner)
    return "".join(part.capitalize() for part in parts)


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def github(report: Report, colour: bool = False) -> str:
    """GitHub Actions workflow commands: each finding an annotation on its file and line."""
    lines = []
    for item in report.findings:
        f = item.finding
        command = "error" if f.is_error else "warning"
        properties = ",".join(
            f"{key}={_escape_property(printable(str(value)))}"
            for key, value in (("file", item.file), ("line", item.line), ("col", item.column), ("title", f.rule))
        )
        message = printable(f"{_what(item)}: {f.path or '(document)'}: {f.message}")
        lines.append(f"::{command} {properties}::{_escape_data(message)}")
    lines.append(summary(report))
    return "\n".join(lines) + "\n"


def tap(report: Report, colour: bool = False) -> str:
    """TAP 13: a test point per document with findings (not ok when it fails), its findings in
    the YAML diagnostic block, and one test point for the documents without findings."""
    by_document: dict[tuple[str, int], list[Located]] = {}
    for item in report.findings:
        by_document.setdefault((item.file, item.document), []).append(item)
    clean = max(report.documents - len(by_document), 0)
    lines = ["TAP version 13", f"1..{len(by_document) + 1}"]
    for number, ((file, document), items) in enumerate(by_document.items(), 1):
        failed = any(i.finding.is_error for i in items) or (report.strict and items)
        description = _tap_description(f"{printable(file)} document {document} {_what(items[0])}")
        lines.append(f"{'not ok' if failed else 'ok'} {number} - {description}")
        lines += ["  ---", "  findings:"]
        for i in items:
            entry = {"severity": i.finding.severity, "line": i.line, "column": i.column, "rule": i.finding.rule}
            entry |= {"path": printable(i.finding.path or "(document)"), "message": printable(i.finding.message)}
            lines.append("    - " + json.dumps(entry, ensure_ascii=False))  # JSON is YAML: one line per finding
        lines.append("  ...")
    lines.append(f"ok {len(by_document) + 1} - {_count(clean, 'document')} without findings")
    lines.append(f"# {summary(report)}")
    return "\n".join(lines) + "\n"


def _tap_description(text: str) -> str:
    """A test point's description: a `#` would start a directive (`# SKIP` in a file name would
    skip the test in tap.py, which knows no escape for it), so it is written as printable writes
    a character it escapes."""
    return text.replace("#", "\\x23")


FORMATS: dict[str, Callable[..., str]] = {
    "text": text,
    "json": json_report,
    "junit": junit,
    "sarif": sarif,
    "github": github,
    "tap": tap,
}


# -- the rulebook, for `validate --list-rules` -------------------------------------------------


def rules_text() -> str:
    width = max(len(rule_id) for rule_id in rulebook.RULES)
    lines = [f"{'RULE':<{width}}  {'OWNER':<9}  {'SEVERITY':<16}  SUMMARY"]
    for rule in rulebook.RULES.values():
        lines.append(f"{rule.id:<{width}}  {rule.owner:<9}  {' or '.join(rule.severities):<16}  {rule.summary}")
    return "\n".join(lines) + "\n"


def rules_json() -> str:
    body = [
        {
            "id": r.id,
            "owner": r.owner,
            "severities": list(r.severities),
            "summary": r.summary,
            "help": f"{DOCS}#{r.anchor}",
        }
        for r in rulebook.RULES.values()
    ]
    return json.dumps(body, indent=2) + "\n"


RULE_LISTS: dict[str, Callable[[], str]] = {"text": rules_text, "json": rules_json}
