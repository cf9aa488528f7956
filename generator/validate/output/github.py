"""GitHub Actions workflow commands (::error file=...,line=...::...): annotations on the diff."""

from __future__ import annotations

from generator.core.text import visible
from generator.validate.output.common import summary, what
from generator.validate.report import Report


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def write(report: Report, colour: bool = False) -> str:
    """GitHub Actions workflow commands: each finding an annotation on its file and line."""
    lines = []
    for item in report.findings:
        f = item.finding
        command = "error" if f.is_error else "warning"
        properties = ",".join(
            f"{key}={_escape_property(visible(str(value)))}"
            for key, value in (("file", item.file), ("line", item.line), ("col", item.column), ("title", f.rule))
            if value or key not in ("line", "col")  # a folder named: no line
        )
        message = visible(f"{what(item)}: {f.path or '(document)'}: {f.message}")
        lines.append(f"::{command} {properties}::{_escape_data(message)}")
    lines.append(summary(report))
    return "\n".join(lines) + "\n"
