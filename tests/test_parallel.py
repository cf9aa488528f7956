"""Many files in worker processes (parallel.py): the same report as one process, byte for byte,
in every output format and where --max-errors stops reading."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from generator import validate
from generator.validate import files, parallel
from generator.validate import output as outputs

JOB = """\
apiVersion: batch.paddlepaddle.org/v1
kind: PaddleJob
metadata:
  name: job-{i}
spec:
  worker:
    replicas: {replicas}
    template:
      spec:
        containers:
          - name: paddle
            image: registry.baidubce.com/paddlepaddle/paddle:2.5.0
            volumeMounts:
              - {{name: {volume}, mountPath: /dev/shm}}
        volumes:
          - name: dshm
            emptyDir: {{medium: Memory}}
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """48 files, about 600 KiB: enough work for workers; every seventh document has an error."""
    root = tmp_path_factory.mktemp("many")
    for f in range(48):
        docs = [
            JOB.format(i=f * 100 + i, replicas=1 + i % 3, volume="shm" if (f + i) % 7 == 0 else "dshm")
            for i in range(25)
        ]
        (root / f"job-{f:02d}.yaml").write_text("---\n".join(docs))
    (root / "broken.yaml").write_text("a: [\n")
    return sorted(str(p) for p in root.iterdir())


@pytest.fixture(scope="module")
def checker():
    return validate.ObjectChecker(37)


def test_enough_work_goes_to_every_core_and_little_stays_here(folder):
    assert parallel.workers(folder, 2) == 2
    assert parallel.workers(folder, 1) == 1
    assert parallel.workers(folder[:3], 2) == 1  # too few files
    assert parallel.workers([*folder, "-"], 2) == 1  # stdin is read here
    assert parallel.workers(folder[-1:] * 8, 2) == 1  # too few bytes
    # a file costs more than its bytes: 1,000 files of one small object each are worth sharing
    small = 52  # `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n`
    assert parallel.workers(["cm.yaml"] * 1500, 2, [small] * 1500) == 2
    assert parallel.workers(["cm.yaml"] * 1000, 2, [small] * 1000) == 1  # 1.01x the wall time of one


def test_a_worker_runs_only_on_a_core_others_leave_free():
    work = parallel.MIN_BYTES
    assert parallel.processes(2, 0.0, work) == 2
    assert parallel.processes(2, 0.5, work) == 2  # half of a core idle is a core for a worker
    assert parallel.processes(2, 0.6, work) == 1
    assert parallel.processes(2, 1.1, work) == 1  # one core busy: this process has the other
    assert parallel.processes(2, 2.5, work) == 1
    assert parallel.processes(8, 0.3, work) == 8  # no more processes than cores
    assert parallel.processes(8, 3.2, work) == 5  # 4.8 cores idle: this process and 4 workers
    assert parallel.processes(1, 0.0, work) == 1
    # too little work: one process whatever the load
    assert parallel.processes(2, 0.0, work - 1) == 1
    assert parallel.processes(2, 0.0, 0) == 1  # nothing to share (stdin, too few files)
    # asked for: so many, whatever the load (at most one per core); 1: this process alone
    assert parallel.processes(2, 2.5, work, jobs=2) == 2
    assert parallel.processes(8, 7.9, work, jobs=3) == 3
    assert parallel.processes(2, 3.0, work, jobs=8) == 2
    assert parallel.processes(8, 0.0, work, jobs=1) == 1
    assert parallel.processes(2, 0.0, work - 1, jobs=2) == 1


def test_the_busy_cores_are_the_load_average_unless_fewer_processes_run_now():
    assert parallel.busy_cores(1.1, 3) == 1.1  # two others runnable now, 1.1 over the last minute
    assert parallel.busy_cores(1.0, 1) == 0.0  # only this process runs: the load was the runs before
    assert parallel.busy_cores(2.6, 2) == 1.0
    assert parallel.busy_cores(0.2, 5) == 0.2  # a moment's crowd after a quiet minute
    assert parallel.busy_cores(1.3, None) == 1.3  # no count of runnable processes: the load average


@pytest.mark.parametrize(
    ("figures", "expected"),
    [
        ((0.2, 1), 2),
        ((1.0, 1), 2),  # a loop of runs: the load is this run's predecessors
        ((1.1, 3), 1),  # other processes keep a core busy
        ((2.5, 2), 1),  # one other process runnable now, a busy minute
        ((2.5, 1), 2),  # nothing else runnable now: the minute's load is over
        ((0.3, None), 2),  # os.getloadavg alone
        ((1.2, None), 1),
        (None, 1),  # no load known: as if every core were busy
    ],
)
def test_the_default_asks_how_busy_the_cores_are(folder, monkeypatch, figures, expected):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(parallel, "_load_figures", lambda: figures)
    assert parallel.workers(folder) == expected
    assert parallel.workers(folder, 0) == expected
    assert parallel.workers(folder, 2) == 2


def test_the_load_figures_are_read_from_the_system():
    figures = parallel._load_figures()
    assert figures is not None and figures[0] >= 0
    assert figures[1] is None or figures[1] >= 1  # this process is runnable while it reads


@pytest.mark.parametrize("max_errors", [0, 1000, 30, 5])
def test_workers_give_the_report_one_process_gives(folder, checker, max_errors):
    one = validate.validate_files(folder, checker, max_errors, jobs=1)
    many = validate.validate_files(folder, checker, max_errors, jobs=2)
    assert one.errors >= min(max_errors or 30, 30) and one.documents > 0
    assert len({item.file for item in one.findings}) > 1  # findings in several files
    assert (many.documents, many.truncated) == (one.documents, one.truncated)
    for name, output in outputs.FORMATS.items():
        assert output(many, colour=False) == output(one, colour=False), name


@pytest.mark.parametrize("max_errors", [0, 7])
def test_three_processes_and_silenced_rules_give_the_same_report(folder, checker, max_errors):
    skip = frozenset({"yaml-syntax"})
    one = validate.validate_files(folder, checker, max_errors, skip)
    report = validate.Report(max_errors=max_errors, skip_rules=skip)
    parallel.validate_files(folder, checker, report, 3)
    report.findings.sort(key=lambda x: (x.file, x.document, x.line, x.column, x.finding.path))
    assert (report.documents, report.truncated) == (one.documents, one.truncated)
    assert outputs.FORMATS["text"](report) == outputs.FORMATS["text"](one)


def test_a_run_no_process_took_is_checked_here_if_the_report_needs_it(folder, checker):
    """Processes stop taking runs once the files checked hold --max-errors errors; the merge
    does not rely on it: a run without a report is checked where the merge needs it."""
    one = validate.validate_files(folder, checker, 30, jobs=1)
    report = validate.Report(max_errors=30)
    parallel._merge([[parallel._Unit(name, 0)] for name in folder], {}, checker, report)
    report.findings.sort(key=lambda x: (x.file, x.document, x.line, x.column, x.finding.path))
    assert outputs.FORMATS["text"](report) == outputs.FORMATS["text"](one)


def _log_checks(monkeypatch, tmp_path, then=None):
    """validate_file, in every process, appends the file's name to a log (then calls ``then``)."""
    log = tmp_path / "checked"
    check = validate.validate_file

    def logged(name, checker, report):
        with open(log, "a") as out:  # one write per line, in append mode: lines do not mix
            out.write(name + "\n")
        if then is not None:
            then(name)
        check(name, checker, report)

    monkeypatch.setattr(parallel, "validate_file", logged)  # what the workers and this process call
    monkeypatch.setattr(files, "validate_file", logged)
    return log


def test_no_run_is_taken_once_the_files_checked_hold_max_errors(folder, checker, monkeypatch, tmp_path):
    log = _log_checks(monkeypatch, tmp_path)
    report = validate.validate_files(folder, checker, max_errors=20, jobs=2)
    assert report.truncated and report.errors == 20
    assert len(log.read_text().splitlines()) < len(folder) / 2


def _no_child_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_an_exception_in_a_worker_is_raised_here(folder, checker, monkeypatch, tmp_path):
    parent = os.getpid()

    def fail_in_workers(name):
        if os.getpid() != parent:
            raise ValueError(f"no: {name}")

    _log_checks(monkeypatch, tmp_path, fail_in_workers)
    with pytest.raises(ValueError, match="no: "):
        validate.validate_files(folder, checker, jobs=2)
    assert _no_child_left()


def test_workers_end_on_sigterm_whatever_handler_the_parent_installed(folder, checker, monkeypatch, tmp_path):
    """When this process fails or is interrupted, it ends the busy workers with SIGTERM. A library
    loaded here may handle SIGTERM itself: Paddle's libpaddle prints a traceback, which deadlocked
    a worker interrupted inside malloc (seen in this suite, where test_local imports paddle), and
    this process then waited for it for ever. Workers start with the default action."""
    parent = os.getpid()

    def stall_workers_fail_here(name):
        if os.getpid() != parent:
            time.sleep(60)
        time.sleep(0.2)  # the workers are asleep by now
        raise ValueError("stop")

    _log_checks(monkeypatch, tmp_path, stall_workers_fail_here)
    previous = signal.signal(signal.SIGTERM, lambda *_: None)
    alarm = signal.signal(signal.SIGALRM, lambda *_: pytest.fail("a worker outlived SIGTERM"))
    signal.alarm(30)
    try:
        started = time.monotonic()
        with pytest.raises(ValueError, match="stop"):
            validate.validate_files(folder, checker, jobs=2)
        assert time.monotonic() - started < 10
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, alarm)
        signal.signal(signal.SIGTERM, previous)
    assert _no_child_left()


@pytest.fixture(scope="module")
def big_file(tmp_path_factory):
    """One file of about 800 KiB: 2,000 documents, some with errors (a schema error, a duplicate
    key, a YAML syntax error, an unknown kind), comments and empty documents between them."""
    docs = []
    for i in range(2000):
        volume = "shm" if i % 37 == 0 else "dshm"
        doc = JOB.format(i=i, replicas=1 + i % 3, volume=volume)
        if i % 101 == 5:
            doc = doc.replace("  name: job-", "  name: job-\n  name: job-dup-")
        if i % 151 == 9:
            doc += "  oops: [\n"
        if i % 97 == 3:
            doc = "# only a comment\n"
        if i % 89 == 1:
            doc = doc.replace("kind: PaddleJob", "kind: PaddleJobb")
        docs.append(doc)
    path = tmp_path_factory.mktemp("big") / "big.yaml"
    path.write_text("---\n".join(docs) + "--- # the end\n")
    return str(path)


def test_a_big_file_is_cut_into_parts_at_its_separators(big_file):
    parts = parallel._parts(big_file)
    assert parts is not None and len(parts) > 3
    data = Path(big_file).read_bytes()
    assert parts[0].start == 0 and parts[-1].end == len(data)
    for before, after in zip(parts, parts[1:], strict=False):
        assert before.end == after.start and data[after.start : after.start + 4] == b"---\n"
    assert parallel.workers([big_file], 2) == 2


@pytest.mark.parametrize("max_errors", [0, 1000, 40, 3])
def test_the_parts_of_a_big_file_give_the_report_one_process_gives(big_file, checker, max_errors):
    one = validate.validate_files([big_file], checker, max_errors, jobs=1)
    many = validate.validate_files([big_file], checker, max_errors, jobs=2)
    assert one.errors >= min(max_errors or 40, 40)
    assert max(item.line for item in one.findings) > 10_000 or max_errors == 3
    assert (many.documents, many.truncated) == (one.documents, one.truncated)
    for name, output in outputs.FORMATS.items():
        assert output(many, colour=False) == output(one, colour=False), name


def test_a_big_file_named_twice_is_reported_twice_as_one_process_does(big_file, checker):
    one = validate.validate_files([big_file, big_file], checker, jobs=1)
    many = validate.validate_files([big_file, big_file], checker, jobs=2)
    assert outputs.FORMATS["text"](many) == outputs.FORMATS["text"](one)


@pytest.mark.parametrize(
    "change",
    [
        lambda text: text.replace(
            "job-1300\n", "job-1300\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n"
        ),
        lambda text: text.replace("job-1300", '"job-\\x33"'),  # an escape might spell Namespace
        lambda text: text.replace(
            "---\napiVersion: batch.paddlepaddle.org/v1\nkind: PaddleJob\nmetadata:\n  name: job-1300", "--- x\n"
        ),
        lambda text: "\n" + text.replace("job-1300", "job-\udcff"),  # not UTF-8
        lambda text: text + "# " + "x" * (1 << 20) + "\n# \udcff\n",  # not UTF-8 after an ASCII block
        lambda text: text + "# " + "x" * ((1 << 20) - len(text) - 3) + "\udcc3\n# ascii\n",  # a cut character
        lambda text: '{"apiVersion": "v1"}\n' + text,  # a JSON stream
        lambda text: '\ufeff {"apiVersion": "v1"}\n' + text,  # one after a byte-order mark
        lambda text: text.replace(
            "job-1300\n", "job-1300\nbig: " + "x" * (3 << 20) + "\n"
        ),  # a document over the limit
    ],
    ids=[
        "namespace",
        "escape",
        "bad-separator",
        "not-utf8",
        "not-utf8-later",
        "cut-character",
        "json",
        "json-after-bom",
        "huge-document",
    ],
)
def test_a_big_file_is_read_whole_where_a_part_might_read_otherwise(big_file, tmp_path, change):
    text = change(Path(big_file).read_text(encoding="utf-8"))
    path = tmp_path / "changed.yaml"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    assert parallel._parts(str(path)) is None


def test_a_big_file_of_utf8_text_is_cut_with_a_character_across_its_blocks(big_file, checker, tmp_path):
    """The reader takes 1 MiB blocks: a character split between two of them is still UTF-8.
    Non-ASCII text makes the blocks be decoded, ASCII ones are not (both ways are held here)."""
    data = Path(big_file).read_bytes()
    head = b"\xef\xbb\xbf# \xc3\xa9t\xc3\xa9\n"  # a byte-order mark, and a comment in UTF-8
    padding = b"# " + b"x" * ((1 << 20) - len(head) - len(data) - 6) + b"\n"
    text = head + data + padding + b"# \xe2\x9c\x93 checked\n" + data.replace(b"job-", b"job-b-")
    assert text[(1 << 20) - 1 : (1 << 20) + 2] == b"\xe2\x9c\x93"  # the check mark spans the blocks
    path = tmp_path / "utf8.yaml"
    path.write_bytes(text)
    assert parallel._parts(str(path)) is not None
    plain = tmp_path / "ascii.yaml"
    plain.write_bytes(data + padding + data.replace(b"job-", b"job-b-"))
    assert parallel._parts(str(plain)) is not None
    for name in (path, plain):
        one = validate.validate_files([str(name)], checker, jobs=1)
        many = validate.validate_files([str(name)], checker, jobs=2)
        assert one.errors and outputs.FORMATS["text"](many) == outputs.FORMATS["text"](one)
