"""JSON: {"valid", "documents", "truncated", "findings": [...]}."""

from __future__ import annotations

from generator.validate.output.common import json_text
from generator.validate.report import Report


def write(report: Report, colour: bool = False) -> str:
    body = {
        "valid": report.valid,
        "documents": report.documents,
        "truncated": report.truncated,
        "findings": [item.as_dict() for item in report.findings],
    }
    return json_text(body)
