"""Issue 34: `local` keeps each controller's lifecycle as docs/runtimes.md's lifecycle table states it.
For every runtime, a stub trainer (no Paddle: a tiny script that exits 3, sleeps or exits 0) runs
under `local` with a crash and a retry limit, a deadline and a TTL; the verdict `local` reports is
the table's (generator/local/controllers: the model the table is written from), and where the table
says `job` refuses the flag, `job` refuses it. Small limits, so each run takes a few seconds."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from generator.jobs.model import runtimes
from generator.local import controllers

from .conftest import REPO

STUB = "import sys, time\nif sys.argv[1] == 'crash': sys.exit(3)\nif sys.argv[1] == 'sleep': time.sleep(60)\n"
CASES = {  # scenario of the table -> the flags with small values, the stub's behaviour
    "crash": (("--backoff-limit", "1"), "crash"),
    "deadline": (("--deadline", "2"), "sleep"),
    "finished": (("--ttl", "1"), "ok"),
}


def job(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "generator", "job", "demo", "--image", "img", "--workers", "1", *argv],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip


@pytest.mark.parametrize("scenario", list(CASES))
@pytest.mark.parametrize("runtime", runtimes())
def test_local_keeps_the_lifecycle_table(tmp_path: Path, runtime: str, scenario: str):
    table_objects, table = controllers.scenario_answer(runtime, scenario)  # the cell docs/runtimes.md shows
    assert f"| `{runtime}` | {scenario}: " in (REPO / "docs" / "runtimes.md").read_text()
    flags, behaviour = CASES[scenario]
    rendered = job("--runtime", runtime, "--command", f"python stub.py {behaviour}", *flags)
    if table_objects is None:  # the table says `job` refuses the flag: it does, with that message
        assert rendered.returncode == 2, rendered.stderr
        assert table.outcome.removeprefix("refused by `job`: ").split(":")[0] in rendered.stderr
        return
    assert rendered.returncode == 0, rendered.stderr
    assert scenario == "finished" or table.phase in ("Completed", "Failed"), table
    manifests = tmp_path / "job.yaml"
    manifests.write_text(rendered.stdout)
    (tmp_path / "stub.py").write_text(STUB)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "generator", "local", "--workdir", str(tmp_path), "--timeout", "40", str(manifests)],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip
    elapsed = time.monotonic() - started
    want = "Completed" if scenario == "finished" else table.phase
    assert f"paddlejob-manifests local: {want}: " in done.stderr, done.stderr[-3000:]
    if scenario == "finished":
        objects = [d for d in yaml.safe_load_all(rendered.stdout) if d]
        answer = controllers.answers(objects)["finished"]
        assert answer.ttl == 1 and answer.deleted == table.deleted
        assert f"deleted 1 s after it finished: {', '.join(answer.deleted)}" in done.stderr
        assert elapsed >= 1  # the controller deletes it at its TTL, not before
        for left in answer.left:  # what the job does not own stays (the kubernetes runtime's RBAC, Service)
            assert left in done.stderr


def test_the_lifecycle_table_in_the_docs_is_the_models():
    """docs/runtimes.md's table is what `render --runtimes-doc` writes from the models: no drift."""
    from generator.render import publish

    text = (REPO / "docs" / "runtimes.md").read_text()
    assert publish.with_runtimes_table(text) == text
    assert controllers.table() in text


# -- shrink: a worker's node lost for good, the job goes on with --min-workers ----------------------

FAKE_LAUNCHER = (  # stands in for `python -m paddle.distributed.launch`: each rank trains 3 s and exits 0
    "import sys, time\ntime.sleep(3)\nprint('trained', sys.argv[1:])\n"
)


def fake_paddle(workdir: Path) -> None:
    """A `paddle` package in the work folder (the pods' working directory: what they import)."""
    launch = workdir / "paddle" / "distributed" / "launch"
    launch.mkdir(parents=True)
    for folder in (launch, launch.parent, launch.parent.parent):
        (folder / "__init__.py").write_text("")
    (launch / "__main__.py").write_text(FAKE_LAUNCHER)


def finishing_pods(manifests: Path, workdir: Path) -> list[str]:
    explained = subprocess.run(
        [sys.executable, "-m", "generator", "local", "--explain", "--workdir", str(workdir), str(manifests)],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip
    assert explained.returncode == 0, explained.stderr
    return re.findall(r"^# pod (\S+) \(.*finishes the job\)", explained.stdout, re.M)


def lose_for_good(tmp_path: Path, text: str, victim_index: int = -1) -> subprocess.CompletedProcess:
    manifests = tmp_path / "job.yaml"
    manifests.write_text(text)
    workdir = tmp_path / "code"
    if not workdir.exists():
        workdir.mkdir()
        fake_paddle(workdir)
    victim = finishing_pods(manifests, workdir)[victim_index]
    return subprocess.run(
        [sys.executable, "-m", "generator", "local", "--workdir", str(workdir), "--timeout", "40",
         "--kill", victim, "--after", "1", "--for-good", str(manifests)],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip


@pytest.mark.parametrize("runtime", runtimes())
def test_local_keeps_the_shrink_row_with_a_node_lost_for_good(tmp_path: Path, runtime: str):
    """The table's shrink cell, run: the last worker's node is lost one second in and never comes
    back (its replacement stays Pending); the job completes only where the table says it does."""
    table_objects, table = controllers.scenario_answer(runtime, "shrink")
    rendered = job("--runtime", runtime, "--workers", "2", "--elastic", "--etcd", "etcd.example:2379",
                   "--min-workers", "1", "--command", "python -m paddle.distributed.launch train.py")  # fmt: skip
    if table_objects is None:
        assert rendered.returncode == 2, rendered.stderr
        assert table.outcome.removeprefix("refused by `job`: ").split(":")[0] in rendered.stderr
        return
    assert rendered.returncode == 0, rendered.stderr
    done = lose_for_good(tmp_path, rendered.stdout)
    assert "[local] its node is lost for good (--for-good)" in done.stdout, done.stdout + done.stderr
    assert f"paddlejob-manifests local: {table.phase}: " in done.stderr, done.stdout + done.stderr
    assert table.phase == "Completed" and done.returncode == 0


@pytest.mark.parametrize("runtime", ["kubernetes", "volcano", "jobset"])
def test_without_success_rules_a_job_that_lost_a_node_for_good_never_completes(tmp_path: Path, runtime: str):
    """The same jobs with successPolicy or minSuccess taken out: the lost index stays Pending, so
    the Job (every index), the Volcano Job (every replica) never completes: Running, exit 1."""
    rendered = job("--runtime", runtime, "--workers", "2", "--elastic", "--etcd", "etcd.example:2379",
                   "--min-workers", "1", "--command", "python -m paddle.distributed.launch train.py")  # fmt: skip
    assert rendered.returncode == 0, rendered.stderr
    objects = [d for d in yaml.safe_load_all(rendered.stdout) if d]
    for obj in objects:
        spec = obj.get("spec") or {}
        spec.pop("minSuccess", None)
        if obj["kind"] == "Job":
            spec.pop("successPolicy", None)
        for replicated in spec.get("replicatedJobs") or []:
            replicated["template"]["spec"].pop("successPolicy", None)
    done = lose_for_good(tmp_path, yaml.safe_dump_all(objects))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "paddlejob-manifests local: Running: " in done.stderr and "Pending for good" in done.stderr, done.stderr


def test_for_good_is_refused_where_a_failure_restarts_the_whole_job(tmp_path: Path):
    rendered = job("--runtime", "volcano", "--command", "python stub.py ok")  # RestartJob on PodFailed
    assert rendered.returncode == 0 and "action: RestartJob" in rendered.stdout, rendered.stderr
    done = lose_for_good(tmp_path, rendered.stdout)
    assert done.returncode == 2, done.stderr
    assert "--for-good: a failure of pod" in done.stderr and "not modelled here" in done.stderr
