"""JSON: {"valid", "documents", "errors", "warnings", "truncated", "summary": {...}, "findings": [...],
"ignored": [...]}."""

from __future__ import annotations

from generator.validate.output.common import json_text
from generator.validate.report import Report


def write(report: Report, colour: bool = False) -> str:
    body = {
        "valid": report.valid,
        "documents": report.documents,
        "errors": report.errors,
        "warnings": report.warnings,
        "truncated": report.truncated,
        "summary": report.counts(),
        "findings": [item.as_dict() for item in report.findings],
        "ignored": [entry.as_dict() for entry in report.suppressed],
    }
    return json_text(body)
