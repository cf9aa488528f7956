"""`validate` over files and folders: the files to read (discover.py), shared between the cores
when that pays (parallel.py) or read one after the other (stream.py), into one Report."""

from __future__ import annotations

from collections.abc import Iterable

from generator.kubeyaml import load
from generator.validate import discover, parallel
from generator.validate.checker import ObjectChecker
from generator.validate.report import Report
from generator.validate.stream import validate_file

# -- files -------------------------------------------------------------------------------------


def expand(paths: Iterable[str]) -> list[str]:
    """Files to read: the files named, and the manifests under the folders named (discover.py)."""
    return discover.find(list(paths)).files


def validate_files(
    names: list[str],
    checker: ObjectChecker,
    max_errors: int = 0,
    skip_rules: frozenset[str] = frozenset(),
    jobs: int | None = None,
) -> Report:
    """Check files (and "-", stdin) into one report. Files are read in blocks and documents are
    checked one at a time, so the memory does not grow with the number of documents; after
    ``max_errors`` errors (0: no limit) the rest is not read. Findings of ``skip_rules`` are
    dropped (and do not count towards ``max_errors``). Many files are checked in ``jobs`` worker
    processes (None: as many as pay off; the same report: parallel.py)."""
    report = Report(max_errors=max_errors, skip_rules=skip_rules)
    sizes = parallel.file_sizes(names)
    load.plan(sum(sizes))
    workers = parallel.workers(names, jobs, sizes)
    if workers > 1:
        parallel.validate_files(names, checker, report, workers, sizes)
    else:
        for name in names:
            if report.full:
                break
            validate_file(name, checker, report)
    report.findings.sort(key=lambda x: (x.file, x.document, x.line, x.column, x.finding.path))
    return report
