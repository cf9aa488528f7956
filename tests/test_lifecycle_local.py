"""Issue 34: `local` keeps each controller's lifecycle as docs/runtimes.md's lifecycle table states it.
For every runtime, a stub trainer (no Paddle: a tiny script that exits 3, sleeps or exits 0) runs
under `local` with a crash and a retry limit, a deadline and a TTL; the verdict `local` reports is
the table's (generator/local/controllers: the model the table is written from), and where the table
says `job` refuses the flag, `job` refuses it. Small limits, so each run takes a few seconds."""

from __future__ import annotations

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
