"""The text format: FILE:LINE:COLUMN: severity: KIND/NAME: PATH: message [rule], then a summary line."""

from __future__ import annotations

from generator.validate.output.common import finding_line, summary
from generator.validate.report import Report


def write(report: Report, colour: bool = False) -> str:
    lines = [finding_line(item, colour) for item in report.findings]
    if report.truncated:
        lines.append(f"stopped after {report.errors} errors (--max-errors); the rest was not read")
    lines.append(summary(report))
    return "\n".join(lines) + "\n"
