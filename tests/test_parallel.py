"""Many files in worker processes (parallel.py): the same report as one process, byte for byte,
in every output format and where --max-errors stops reading."""

from __future__ import annotations

import pytest

from generator import outputs, parallel, validate

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


@pytest.mark.parametrize("max_errors", [0, 1000, 30])
def test_workers_give_the_report_one_process_gives(folder, checker, max_errors):
    one = validate.validate_files(folder, checker, max_errors, jobs=1)
    many = validate.validate_files(folder, checker, max_errors, jobs=2)
    assert one.errors >= 30 and one.documents > 0
    assert (many.documents, many.truncated) == (one.documents, one.truncated)
    for name, output in outputs.FORMATS.items():
        assert output(many, colour=False) == output(one, colour=False), name


def _sigterm_action(_) -> object:
    import signal

    return signal.getsignal(signal.SIGTERM)


def test_workers_end_on_sigterm_whatever_handler_the_parent_installed():
    """Pool.terminate ends busy workers with SIGTERM once the report is full. A library loaded in
    the parent may handle SIGTERM itself: Paddle's libpaddle prints a traceback, which deadlocked
    a worker interrupted inside malloc (seen in this suite, where test_local imports paddle), and
    the parent then waited for it for ever. Workers start with the default action."""
    import multiprocessing
    import signal

    previous = signal.signal(signal.SIGTERM, lambda *_: None)
    try:
        with multiprocessing.get_context("fork").Pool(1, initializer=parallel._worker_start) as pool:
            assert pool.map(_sigterm_action, [0]) == [signal.SIG_DFL]
    finally:
        signal.signal(signal.SIGTERM, previous)
