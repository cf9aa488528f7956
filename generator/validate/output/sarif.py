"""SARIF 2.1.0, for GitHub code scanning and other static-analysis viewers."""

from __future__ import annotations

import os

from generator import __version__
from generator.core import rulebook
from generator.core.text import visible
from generator.validate.output.common import DOCS, json_text, what
from generator.validate.report import Report


def write(report: Report, colour: bool = False) -> str:
    """SARIF 2.1.0: one run, a rule per rule id that occurs, a result per finding, and one per
    finding an object's annotation silenced, with an inSource suppression and its reason (code
    scanning shows it as dismissed)."""
    items = [(item, None) for item in report.findings] + [(e.item, e.reason) for e in report.suppressed]
    rules = sorted({item.finding.rule for item, _ in items})
    results = []
    for item, reason in items:
        f = item.finding
        result = {
            "ruleId": f.rule,
            "ruleIndex": rules.index(f.rule),
            "level": "error" if f.is_error else "warning",
            "message": {"text": f"{what(item)}: {f.path or '(document)'}: {f.message}"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(item.file)},
                        "region": {"startLine": item.line, "startColumn": item.column},
                    }
                }
            ],
        }
        if not item.line:  # a folder named, not a place in a file
            del result["locations"][0]["physicalLocation"]["region"]
        if reason is not None:
            result["suppressions"] = [{"kind": "inSource", "justification": visible(reason) or "no reason given"}]
        results.append(result)
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
    return json_text(log)


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
