"""Many files on every core: `validate` of a folder (a pre-commit run over 200 files, a GitOps
repository) is checked by this process and forked copies of it, one process per core that
other processes leave free (processes()), and the report is the one a single process gives.

- The files are cut into runs of consecutive files. The runs' numbers wait in a pipe, in order:
  each process takes the next one when it is free, so a process slowed by big files takes fewer
  and all finish together. This process checks runs too, instead of waiting for the others.
- Each file is checked whole (no error limit) into a report of its own. A worker sends its
  reports through a pipe when no run is left, and ends without the interpreter's teardown.
- This process merges the reports in file order, as one process reads the files: a file that
  would reach the --max-errors limit is checked again here, and stops where one process stops.
  Once the files checked so far hold --max-errors errors, no process takes another run: those
  left come after the place where the report stops, as runs are taken in order.

A big file is cut into parts at its document separators (`---` lines), and a part is checked
like a file: its findings' lines and document numbers are moved by what comes before it in the
file. Only a file whose parts read exactly as they do in the whole file is cut (_parts): UTF-8
throughout, YAML (not a JSON stream), no separator line kubectl refuses (reading stops there),
no document over the size limit, and no Namespace, whose Pod Security level applies to the
objects after it (rules/podsecurity.py: state that crosses documents).

Workers are forked once this process has checked the first run: they share the modules and the
checker as they are (nothing is pickled on the way out), with what the first run loaded and
compiled; each compiles the schemas of the other kinds it meets. Where fork is not available,
and for stdin, too little work or no free core, one process does it all.
"""

from __future__ import annotations

import codecs
import contextlib
import math
import os
import re
import signal
import struct
from typing import NamedTuple

from generator.validate.report import Report
from generator.validate.stream import validate_file, validate_part

# Less work than this (bytes, and FILE_COST a file): starting workers costs more than it saves.
# Measured on 2 cores (bench/validate_bench.py, paired rounds, load average 1.1): 1,000 files of
# one object (332 KiB of work) took as long with a worker as without (1.01x wall, 1.09x CPU);
# 40 files of 25 documents (500 KiB) took 0.74x the wall time.
MIN_BYTES = 384 * 1024
MIN_FILES = 4
# The work of a file, besides its bytes, in bytes: opening, reading and starting a report cost
# about 100 us, what some 250 bytes of manifests take to check. A repository of 5,000 files of
# one small object each is 1.6 MB of work, and half a second.
FILE_COST = 256
# A core counts as free for a worker when others leave at least this share of it idle
IDLE_SHARE = 0.5
# At most this many runs: a run's number is 4 bytes in a pipe, and all of them must fit in the
# smallest pipe Linux makes (one page) so that writing them never waits for a reader.
_MAX_RUNS = 1024


# A file this big is cut into parts (when _parts can): the first one small, as this process
# checks it alone before forking, the others of about _PART_BYTES
SPLIT_BYTES = 512 * 1024
_FIRST_PART = 16 * 1024
_PART_BYTES = 128 * 1024


def workers(names: list[str], jobs: int | None = None, sizes: list[int] | None = None) -> int:
    """How many processes to use for ``names`` (of ``sizes``: file_sizes): processes() for the
    work they hold (none that can be shared: stdin, or fewer than MIN_FILES files none of which
    is big enough to cut), this machine's cores and how many of them others keep busy."""
    if "-" in names or not hasattr(os, "fork"):
        return 1
    sizes = sizes or file_sizes(names)
    shared = len(names) >= MIN_FILES or max(sizes, default=0) >= SPLIT_BYTES
    work = sum(sizes) + FILE_COST * len(sizes) if shared else 0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    figures = _load_figures()
    busy = float(cores) if figures is None else busy_cores(*figures)  # unknown: as if all were busy
    return processes(cores, busy, work, jobs)


def _load_figures() -> tuple[float, int | None] | None:
    """(the load average of the last minute, the processes runnable now, this one included, or
    None where the system does not say) from Linux's /proc/loadavg, else os.getloadavg; None
    where neither is known."""
    try:
        with open("/proc/loadavg", "rb") as stream:
            fields = stream.read().split()
        return float(fields[0]), int(fields[3].split(b"/")[0])
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.getloadavg()[0], None
    except OSError:
        return None


def busy_cores(load: float, runnable: int | None = None) -> float:
    """How many cores other processes keep busy: the load average of the last minute (``load``),
    or fewer when fewer others are runnable right now (``runnable``, this process included). The
    load average lags: it counts for a minute the runs just before this one (a loop of runs,
    the hooks of a pre-commit, a bench), which compete with nothing now; a process that keeps a
    core busy is runnable at any moment, and counts in both."""
    if runnable is None:
        return max(load, 0.0)
    return max(min(load, runnable - 1), 0.0)


def processes(cores: int, busy: float, work: int, jobs: int | None = None) -> int:
    """How many processes check ``work`` (bytes of manifests, and FILE_COST a file; 0: work that
    cannot be shared) on ``cores`` cores of which others keep ``busy`` busy (busy_cores);
    ``jobs``: 1 for this process alone, N for at most N, 0 or None to choose.

    One process below MIN_BYTES of work, where starting a worker costs more than it saves. Past
    it, asked for N: N (at most one per core), whatever the load. Left to choose, a worker only
    runs on a core that is free: this process takes one of the cores others leave idle
    (cores - busy), and a worker each of the others, a core at least IDLE_SHARE idle counting
    (on 2 cores: a worker when others keep at most half a core busy). A worker on a busy core
    only takes a share of it from the processes there, and for small files costs more than
    that share brings: with a process spinning on the other core, 5,000 files of one object
    each took 1.06x the wall time of one process, and 1,000 of them 1.14x (bench/RESULTS.md)."""
    if jobs == 1 or cores < 2 or work < MIN_BYTES:
        return 1
    if jobs:
        return min(jobs, cores)
    idle = max(cores - busy, 0.0)
    return max(1, min(cores, math.floor(idle + IDLE_SHARE)))


def file_sizes(names: list[str]) -> list[int]:
    """Bytes of each file (1 for one that cannot be read: the worker reports it as validate does)."""
    sizes = []
    for name in names:
        try:
            sizes.append(max(os.path.getsize(name), 1))
        except OSError:
            sizes.append(1)
    return sizes


class _Unit(NamedTuple):
    """What a process checks at once: a file, or a part of a big one (bytes start to end)."""

    name: str
    size: int
    start: int = 0
    end: int | None = None  # None: the whole file


def _units(names: list[str], sizes: list[int]) -> list[_Unit]:
    """The files (of ``sizes``), each big one cut into parts where it can be (_parts)."""
    units = []
    for name, size in zip(names, sizes, strict=True):
        parts = _parts(name) if size >= SPLIT_BYTES else None
        units += parts or [_Unit(name, size)]
    return units


# A separator line with more than a comment after `---` (what _chunks stops reading at), or
# something it might be (whitespace str.strip removes that these do not: a false alarm only
# keeps the file whole): at the start of a text, or after a newline (a pattern that starts with
# one is found by a substring search, not tried at every position as `^` in multiline mode is)
_BAD_SEPARATOR_LINE = rb"---[ \t\r\x0b\x0c]*[^ \t\r\x0b\x0c#\n]"
_BAD_SEPARATOR_AT_START = re.compile(_BAD_SEPARATOR_LINE)
_BAD_SEPARATOR = re.compile(b"\n" + _BAD_SEPARATOR_LINE)


def _parts(name: str) -> list[_Unit] | None:
    """``name`` cut at separator lines into parts (each starts with its `---` line), or None
    when a part might read otherwise than in the whole file (the module's docstring) or the
    file is too small to cut. Read in blocks: the memory does not grow with the file. A file that
    holds what a verdict across its objects reports on (across.TRIGGERS: a PodGroup, a TrainJob,
    a schedulingPolicy, parameter servers) is not cut either: the verdict needs all its objects."""
    from generator.kubeyaml.load import MAX_DOCUMENT_BYTES
    from generator.validate.across import may_report

    cuts = [0]  # the byte offset of each part
    decoder = codecs.getincrementaldecoder("utf-8-sig")("strict")
    ascii_so_far = True  # an ASCII block needs no decoding unless one before it was not ASCII
    data, offset = b"", 0  # the file from the last cut on (so far), and where that is
    want = _FIRST_PART
    try:
        with open(name, "rb") as stream:
            while True:
                block = stream.read(1 << 20)
                if not (ascii_so_far and block.isascii()):
                    ascii_so_far = False
                    decoder.decode(block, final=not block)  # UnicodeDecodeError: not UTF-8
                if offset == 0 and not data:
                    head = block.removeprefix(codecs.BOM_UTF8).lstrip(b" \t\r\n")
                    if not head or head.startswith(b"{"):  # blank, or a JSON stream (kubeyaml.load)
                        return None
                # what is new, with the last line of what came before (a pattern may span them)
                fresh = data[data.rfind(b"\n") + 1 :] + block
                if (
                    b"Namespace" in fresh
                    or may_report(fresh)  # a backslash too
                    or _BAD_SEPARATOR_AT_START.match(fresh)  # fresh starts a line
                    or _BAD_SEPARATOR.search(fresh)
                ):
                    return None  # a Namespace, or an escape that might spell one (`"\x4eamespace"`)
                data += block
                complete = len(data) if not block else data.rfind(b"\n") + 1  # whole lines only
                part = 0  # where in data the part being cut starts
                while (at := data.find(b"\n---", max(want - offset - 1, part), complete)) >= 0:
                    cut = at + 1
                    if cut - part >= MAX_DOCUMENT_BYTES:
                        return None  # a part this big may hold a document over the limit
                    cuts.append(offset + cut)
                    part, want = cut, offset + cut + _PART_BYTES
                offset, data = offset + part, data[part:]
                if len(data) >= MAX_DOCUMENT_BYTES:
                    return None
                if not block:
                    break
    except (OSError, UnicodeDecodeError):
        return None  # read whole, where the reader reports it
    if len(cuts) < 2:
        return None
    ends = [*cuts[1:], offset + len(data)]
    return [_Unit(name, end - start, start, end) for start, end in zip(cuts, ends, strict=True)]


def _runs(units: list[_Unit], count: int) -> list[list[_Unit]]:
    """``units`` cut into at most ``count`` consecutive runs of about equal work (bytes, and
    FILE_COST a unit), in order: a unit bigger than the mean run is a run alone, and so is the
    first part of a file (this process checks the first run alone, before forking)."""
    target = sum(unit.size + FILE_COST for unit in units) / count
    runs, current, size = [], [], 0
    for unit in units:
        current.append(unit)
        size += unit.size + FILE_COST
        if size >= target or (unit.end is not None and unit.start == 0):
            runs.append(current)
            current, size = [], 0
    if current:
        runs.append(current)
    return runs


def validate_files(names: list[str], checker, report, count: int, sizes: list[int] | None = None) -> None:
    """Check ``names`` (of ``sizes``: file_sizes) in ``count`` processes (this one and
    ``count - 1`` forked workers) into ``report``, as one process would."""
    import gc
    import mmap

    units = _units(names, sizes or file_sizes(names))
    runs = _runs(units, min(len(units), _MAX_RUNS))
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


class _Checked(NamedTuple):
    """What checking a unit found (a worker pickles it for this process)."""

    documents: int
    findings: list  # Located, with lines and document numbers as in the unit alone
    errors: int
    read: int  # a part's documents read: the next part's are numbered after them (a file's: 0)
    lines: int  # a part's lines: the next part's start after them (a file's: 0)
    suppressed: list = []  # Suppressed: findings an object's annotation silenced, placed as findings
    skipped: dict = {}  # documents of --skip-kinds, by kind


def _check_run(shared: _Shared, index: int, slot: int) -> list[_Checked]:
    """What each unit of run ``index`` holds, each read whole."""

    found = []
    for unit in shared.runs[index]:
        one = Report(skip_rules=shared.skip_rules)
        read, lines = _check_unit(unit, shared.checker, one)
        found.append(_Checked(one.documents, one.findings, one.errors, read, lines, one.suppressed, one.skipped))
        shared.add_errors(slot, one.errors)
    return found


def _check_unit(unit: _Unit, checker, report) -> tuple[int, int]:
    """Check a file, or a part of one, into ``report``; for a part, how many documents it read
    and how many lines it has (a file's: 0, 0)."""

    if unit.end is None:
        validate_file(unit.name, checker, report)
        return 0, 0
    return validate_part(unit.name, unit.start, unit.end, checker, report)


def _check_runs(shared: _Shared, slot: int) -> dict[int, list[_Checked]]:
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


def _unpickle(data: bytes, pid: int) -> dict[int, list[_Checked]]:
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


def _merge(runs: list[list[_Unit]], checked: dict, checker, report) -> None:
    """The reports of the units, in file order, into ``report``, stopping where one process
    stops: a part's findings are moved by the lines and documents before it in its file."""

    before: dict[str, tuple[int, int]] = {}  # (documents read, lines) in the parts of a file so far
    for index, run in enumerate(runs):
        # None: a run no process took, the files checked holding --max-errors errors; it comes
        # after the place where the report stops, and if it does not, it is checked here.
        found = checked.get(index)
        for position, unit in enumerate(run):
            if report.full:
                return
            if found is None or (report.max_errors and report.errors + found[position].errors >= report.max_errors):
                # checked here, reading only as far as one process would
                budget = report.max_errors and report.max_errors - report.errors
                one = Report(max_errors=budget, skip_rules=report.skip_rules)
                read, lines = _check_unit(unit, checker, one)
                documents, findings, suppressed, skipped = one.documents, one.findings, one.suppressed, one.skipped
            else:
                documents, findings, _, read, lines, suppressed, skipped = found[position]
            documents_above, lines_above = before[unit.name] if unit.start else (0, 0)  # a file named twice: anew
            if documents_above or lines_above:
                findings = [
                    item._replace(document=item.document + documents_above, line=item.line + lines_above)
                    for item in findings
                ]
                suppressed = [
                    entry._replace(
                        item=entry.item._replace(
                            document=entry.item.document + documents_above, line=entry.item.line + lines_above
                        )
                    )
                    for entry in suppressed
                ]
            report.documents += documents
            report.findings += findings
            report.suppressed += suppressed
            for kind, number in skipped.items():
                report.skipped[kind] = report.skipped.get(kind, 0) + number
            before[unit.name] = (documents_above + read, lines_above + lines)
