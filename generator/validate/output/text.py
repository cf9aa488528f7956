"""The text format: FILE:LINE:COLUMN: severity: KIND/NAME: PATH: message [rule], then a summary line."""

from __future__ import annotations

from generator.core.text import visible
from generator.validate.output.common import breakdown, finding_line, summary, suppressed_line
from generator.validate.report import Report


def write(report: Report, colour: bool = False) -> str:
    """The findings (--quiet: the errors alone), the breakdown (not with --quiet) and the totals;
    --verbose adds each finding an annotation ignored and each file skipped."""
    quiet, verbose = report.verbosity <= 0, report.verbosity >= 2
    lines = [finding_line(item, colour) for item in report.findings if not quiet or item.finding.is_error]
    if verbose:
        lines += [suppressed_line(entry) for entry in report.suppressed]
        lines += [visible(f"{file}: skipped: {why}") for file, why in report.skipped_files]
    if report.truncated:
        lines.append(f"stopped after {report.errors} errors (--max-errors); the rest was not read")
    if not quiet and (report.files or report.skipped_files):  # a run over files, not objects a command made
        lines.append(breakdown(report))
    lines.append(summary(report))
    return "\n".join(lines) + "\n"
