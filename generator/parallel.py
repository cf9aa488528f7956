"""Many files on every core: `validate` of a folder (a pre-commit run over 200 files, a GitOps
repository) checks runs of files in worker processes and merges what they found.

The report is the one a single process gives: workers check their files whole (no error
limit), and the parent takes their findings in file order. A file that would reach the
--max-errors limit is checked again in the parent, which stops reading where one process
stops; validate_files then sorts the findings as always.

Workers are forked, so they share the parent's checker as it is (no pickling), with the
schemas it compiled for the first file, which the parent checks itself; where fork is not
available, and for stdin or too little work, one process does it all.
"""

from __future__ import annotations

import os

MIN_BYTES = 256 * 1024  # less work than this: starting workers costs more than it saves
MIN_FILES = 4
_CHUNKS_PER_WORKER = 4  # runs of files per worker: a big file does not leave one worker busy alone

_checker = None  # the parent's ObjectChecker, inherited by the forked workers
_skip_rules: frozenset[str] = frozenset()


def workers(names: list[str], jobs: int | None = None) -> int:
    """How many processes to use for ``names``: 1 unless it pays off (``jobs``: at most this many)."""
    if "-" in names or len(names) < MIN_FILES or not hasattr(os, "fork"):
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    count = min(cores, jobs or cores, len(names))
    if count < 2 or sum(_sizes(names)) < MIN_BYTES:
        return 1
    return count


def _sizes(names: list[str]) -> list[int]:
    """Bytes of each file (1 for one that cannot be read: the worker reports it as validate does)."""
    sizes = []
    for name in names:
        try:
            sizes.append(max(os.path.getsize(name), 1))
        except OSError:
            sizes.append(1)
    return sizes


def _runs(names: list[str], count: int) -> list[list[str]]:
    """``names`` cut into consecutive runs of about equal size (bytes), in order."""
    sizes = _sizes(names)
    target = sum(sizes) / (count * _CHUNKS_PER_WORKER)
    runs, current, size = [], [], 0
    for name, bytes_ in zip(names, sizes, strict=True):
        current.append(name)
        size += bytes_
        if size >= target:
            runs.append(current)
            current, size = [], 0
    if current:
        runs.append(current)
    return runs


def _worker_start() -> None:
    """A worker ends on SIGTERM (Pool.terminate), whatever handler the parent had: a library
    loaded there (Paddle's libpaddle) may have installed one that prints a traceback, which
    deadlocks a worker interrupted inside malloc, and the parent then waits for ever."""
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _check_run(names: list[str]) -> list:
    """In a worker: the Report of each file of the run, read whole."""
    from .validate import Report, validate_file

    reports = []
    for name in names:
        report = Report(skip_rules=_skip_rules)
        validate_file(name, _checker, report)
        reports.append(report)
    return reports


def validate_files(names: list[str], checker, report, count: int) -> None:
    """Check ``names`` in ``count`` worker processes into ``report``, as one process would."""
    import multiprocessing  # here: a run of a few files does not import it

    from .validate import validate_file

    # The first file here: it compiles the schemas of its kinds, which the forked workers share.
    validate_file(names[0], checker, report)
    global _checker, _skip_rules
    _checker, _skip_rules = checker, report.skip_rules
    runs = _runs(names[1:], count)
    import gc

    # What the workers inherit stays untouched by their collections: a collection in a worker
    # would write to every object it walks, copying the parent's pages (gc.freeze's purpose).
    gc.freeze()
    try:
        with multiprocessing.get_context("fork").Pool(count, initializer=_worker_start) as pool:
            for run, reports in zip(runs, pool.imap(_check_run, runs), strict=True):
                for name, found in zip(run, reports, strict=True):
                    if report.full:
                        return
                    if report.max_errors and report.errors + found.errors >= report.max_errors:
                        validate_file(name, checker, report)  # stops where one process stops
                        continue
                    report.documents += found.documents
                    report.findings += found.findings
    finally:
        _checker = None
