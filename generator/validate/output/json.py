"""JSON: {"valid", "documents", "truncated", "findings": [...]}."""

from __future__ import annotations

import json

from generator.validate.report import Report


def write(report: Report, colour: bool = False) -> str:
    body = {
        "valid": report.valid,
        "documents": report.documents,
        "truncated": report.truncated,
        "findings": [item.as_dict() for item in report.findings],
    }
    return json.dumps(body, indent=2) + "\n"
