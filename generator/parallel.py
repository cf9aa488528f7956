"""Many files on every core: `validate` of a folder (a pre-commit run over 200 files, a GitOps
repository) is checked by this process and forked copies of it, one process per core, and the
report is the one a single process gives.

- The files are cut into runs of consecutive files. The runs' numbers wait in a pipe, in order:
  each process takes the next one when it is free, so a process slowed by big files takes fewer
  and all finish together. This process checks runs too, instead of waiting for the others.
- Each file is checked whole (no error limit) into a report of its own. A worker sends its
  reports through a pipe when no run is left, and ends without the interpreter's teardown.
- This process merges the reports in file order, as one process reads the files: a file that
  would reach the --max-errors limit is checked again here, and stops where one process stops.
  Once the files checked so far hold --max-errors errors, no process takes another run: those
  left come after the place where the report stops, as runs are taken in order.

Workers are forked once this process has checked the first run: they share the modules and the
checker as they are (nothing is pickled on the way out), with what the first run loaded and
compiled; each compiles the schemas of the other kinds it meets. Where fork is not available,
and for stdin or too little work, one process does it all.
"""

from __future__ import annotations

import contextlib
import os
import signal
import struct

MIN_BYTES = 256 * 1024  # less work than this: starting workers costs more than it saves
MIN_FILES = 4
# At most this many runs: a run's number is 4 bytes in a pipe, and all of them must fit in the
# smallest pipe Linux makes (one page) so that writing them never waits for a reader.
_MAX_RUNS = 1024


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
    """``names`` cut into at most ``count`` consecutive runs of about equal size (bytes), in order:
    a file bigger than the mean run is a run alone."""
    sizes = _sizes(names)
    target = sum(sizes) / count
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


def validate_files(names: list[str], checker, report, count: int) -> None:
    """Check ``names`` in ``count`` processes (this one and ``count - 1`` forked workers) into
    ``report``, as one process would."""
    import gc
    import mmap

    runs = _runs(names, min(len(names), _MAX_RUNS))
    queue, queue_end = os.pipe()
    os.write(queue_end, b"".join(_RUN.pack(index) for index in range(1, len(runs))))
    os.close(queue_end)  # at the end of the queue, a read returns nothing
    # Each process's count of the errors it found, in a slot of its own, read by all.
    errors = mmap.mmap(-1, count * _ERRORS.size)
    shared = _Shared(runs, queue, errors, checker, report.skip_rules, report.max_errors)
    workers: list[int] = []  # their pids
    pipes: dict[int, int] = {}  # worker's pid -> the pipe its reports come through, until read
    try:
        # The first run here, before forking: the workers share what it loaded and compiled (the
        # Kubernetes definitions, the schemas of its kinds) instead of each making them again.
        checked = {0: _check_run(shared, 0, slot=0)}
        # What the workers inherit stays untouched by their collections: a collection in a worker
        # would write to every object it walks, copying this process's pages (gc.freeze's purpose).
        gc.freeze()
        forks = 0 if shared.full() else count - 1  # a first run that fills the report is all
        for slot in range(1, forks + 1):
            reports_in, reports_out = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(reports_in)
                _work(shared, slot, reports_out)  # never returns
            os.close(reports_out)
            workers.append(pid)
            pipes[pid] = reports_in
        if workers:
            import pickle  # noqa: F401 - for _unpickle: imported while the workers check, not after

        checked.update(_check_runs(shared, slot=0))
        for pid in workers:
            data = _read(pipes[pid])
            os.close(pipes.pop(pid))
            checked.update(_unpickle(data, pid))
        _merge(runs, checked, checker, report)
    finally:
        # Waited for last: a worker that sent its reports is still freeing its memory.
        for pid in workers:
            if pid in pipes:  # not read: this process failed or was interrupted
                os.close(pipes.pop(pid))
                os.kill(pid, signal.SIGTERM)
            with contextlib.suppress(ChildProcessError):  # waited for already (_unpickle)
                os.waitpid(pid, 0)
        os.close(queue)
        errors.close()


_RUN = struct.Struct("=I")  # a run's number in the queue
_ERRORS = struct.Struct("=Q")  # a process's slot in the error counts


class _Shared:
    """What every process of a run works from."""

    def __init__(self, runs, queue, errors, checker, skip_rules, max_errors):
        self.runs = runs
        self.queue = queue  # the read end of the pipe of run numbers
        self.errors = errors  # the shared error counts
        self.checker = checker
        self.skip_rules = skip_rules
        self.max_errors = max_errors

    def add_errors(self, slot: int, count: int) -> None:
        """``count`` more errors found by the process of ``slot``."""
        (before,) = _ERRORS.unpack_from(self.errors, slot * _ERRORS.size)
        _ERRORS.pack_into(self.errors, slot * _ERRORS.size, before + count)

    def full(self) -> bool:
        """The files checked so far, by all processes, hold --max-errors errors."""
        if not self.max_errors:
            return False
        total = sum(count for (count,) in _ERRORS.iter_unpack(self.errors))
        return total >= self.max_errors


def _check_run(shared: _Shared, index: int, slot: int) -> list[tuple[int, list, int]]:
    """The documents, findings and errors of each file of run ``index``, each file read whole."""
    from .validate import Report, validate_file

    files = []
    for name in shared.runs[index]:
        one = Report(skip_rules=shared.skip_rules)
        validate_file(name, shared.checker, one)
        files.append((one.documents, one.findings, one.errors))
        shared.add_errors(slot, one.errors)
    return files


def _check_runs(shared: _Shared, slot: int) -> dict[int, list[tuple[int, list, int]]]:
    """Take runs from the queue until none is left (or the report is full) and check them:
    run number -> what _check_run found."""
    checked = {}
    while not shared.full():
        taken = os.read(shared.queue, _RUN.size)
        if not taken:
            break
        (index,) = _RUN.unpack(taken)
        checked[index] = _check_run(shared, index, slot)
    return checked


def _work(shared: _Shared, slot: int, out: int) -> None:
    """A forked worker: check runs, send what was found (or the exception that stopped it)
    through ``out`` and end. It ends with os._exit: the interpreter's teardown would only free
    memory, and the output buffered in this process when it forked is the parent's to write."""
    import pickle

    status = 1
    try:
        # The parent ends a worker with SIGTERM, whatever handler the parent had: a library loaded
        # there (Paddle's libpaddle) may have installed one that prints a traceback, which deadlocks
        # a worker interrupted inside malloc, and the parent then waits for ever. Ctrl-C reaches
        # every process of the terminal's group: the parent stops, and it ends the workers.
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            result = pickle.dumps((True, _check_runs(shared, slot)), pickle.HIGHEST_PROTOCOL)
        except BaseException as err:  # noqa: BLE001 - the parent raises it
            try:
                result = pickle.dumps((False, err), pickle.HIGHEST_PROTOCOL)
            except Exception:  # noqa: BLE001 - an exception that cannot be pickled: say what it was
                result = pickle.dumps((False, RuntimeError(f"{type(err).__name__}: {err}")))
        with os.fdopen(out, "wb") as stream:
            stream.write(result)
        status = 0
    finally:
        os._exit(status)


def _read(fd: int) -> bytes:
    """Everything that comes through the pipe ``fd``, up to its end."""
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _unpickle(data: bytes, pid: int) -> dict[int, list[tuple[int, list, int]]]:
    """What the worker ``pid`` checked, from what it sent; the exception it sent is raised here."""
    import pickle

    if not data:
        _, status = os.waitpid(pid, 0)
        raise RuntimeError(f"a worker process ended without its report ({_status(status)})")
    ok, value = pickle.loads(data)
    if not ok:
        raise value
    return value


def _status(status: int) -> str:
    code = os.waitstatus_to_exitcode(status)
    return f"killed by signal {-code}" if code < 0 else f"exit status {code}"


def _merge(runs: list[list[str]], checked: dict, checker, report) -> None:
    """The reports of the files, in file order, into ``report``, stopping where one process stops."""
    from .validate import validate_file

    for index, run in enumerate(runs):
        # None: a run no process took, the files checked holding --max-errors errors; it comes
        # after the place where the report stops, and if it does not, it is checked here.
        found = checked.get(index)
        for position, name in enumerate(run):
            if report.full:
                return
            if found is None:
                validate_file(name, checker, report)
                continue
            documents, findings, errors = found[position]
            if report.max_errors and report.errors + errors >= report.max_errors:
                validate_file(name, checker, report)  # stops where one process stops
                continue
            report.documents += documents
            report.findings += findings
