"""The jobset runtime (kubernetes-sigs/jobset): rendered, validated against each pinned JobSet
release, trained under `local` as the JobSet controller runs it, and added in the files
docs/architecture.md names for a runtime (the commit that added it is the proof)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from generator.kubeyaml.load import read_documents

from .conftest import REPO

IMAGE = "registry.baidubce.com/paddlepaddle/paddle:3.3.1"


def job(*flags: str, ok: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "generator", "job", "demo", "--image", IMAGE, "--runtime", "jobset", *flags],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip
    assert (done.returncode == 0) == ok, done.stderr
    return done


def jobset_of(text: str) -> dict:
    docs, _ = read_documents(text)
    (found,) = [d for d in docs if d.get("kind") == "JobSet"]
    return found


def test_ps_mode_stops_the_servers_when_the_trainers_finish():
    spec = jobset_of(job("--ps", "2", "--workers", "3", "--backoff-limit", "2", "--ttl", "60").stdout)["spec"]
    assert [r["name"] for r in spec["replicatedJobs"]] == ["ps", "trainer"]
    assert spec["successPolicy"] == {"operator": "All", "targetReplicatedJobs": ["trainer"]}
    assert spec["startupPolicy"] == {"startupPolicyOrder": "InOrder"}  # servers first
    assert spec["failurePolicy"] == {"maxRestarts": 2}  # --backoff-limit: restarts of the whole JobSet
    assert spec["network"]["enableDNSHostnames"] is True
    assert spec["ttlSecondsAfterFinished"] == 60
    for r in spec["replicatedJobs"]:
        job_spec = r["template"]["spec"]
        assert job_spec["completionMode"] == "Indexed" and job_spec["backoffLimit"] == 0
    trainer = spec["replicatedJobs"][1]["template"]["spec"]
    env = {e["name"]: e.get("value") for e in trainer["template"]["spec"]["containers"][0]["env"]}
    assert env["PADDLE_PSERVERS_IP_PORT_LIST"] == "demo-ps-0-0.demo:36543,demo-ps-0-1.demo:36543"
    assert env["PADDLE_TRAINERS"] == "demo-trainer-0-0.demo,demo-trainer-0-1.demo,demo-trainer-0-2.demo"


def test_kueue_and_multikueue():
    done = job("--workers", "2", "--kueue-queue", "team-a", "--suspend", "--managed-by", "kueue.x-k8s.io/multikueue")
    found = jobset_of(done.stdout)
    assert found["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team-a"
    assert found["spec"]["managedBy"] == "kueue.x-k8s.io/multikueue" and found["spec"]["suspend"] is True


def test_modes_refused_with_the_reason():
    heter = job("--ps", "1", "--workers", "1", "--heter", "1", ok=False)
    assert "heter" in heter.stderr and "jobset" in heter.stderr
    volcano = job("--workers", "1", "--volcano", ok=False)
    assert "a JobSet has no gang of its own" in volcano.stderr


def test_elastic_restarts_a_failed_worker_alone():
    spec = jobset_of(job("--workers", "3", "--elastic", "--min-workers", "2", "--command",
                         "python -m paddle.distributed.launch train.py").stdout)["spec"]  # fmt: skip
    assert "failurePolicy" not in spec
    (trainer,) = spec["replicatedJobs"]
    assert trainer["template"]["spec"]["backoffLimit"] == 3


@pytest.mark.parametrize("release", ["0.8", "0.10", "0.12"])
def test_validated_against_each_jobset_release(tmp_path, release):
    text = job("--ps", "1", "--workers", "2", "--backoff-limit", "1", "--jobset-version", release).stdout
    path = tmp_path / "job.yaml"
    path.write_text(text)
    done = subprocess.run(
        [sys.executable, "-m", "generator", "validate", "--jobset-version", release, str(path)],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_jobset_version_older_than_pinned_is_refused():
    done = job("--workers", "1", "--jobset-version", "0.2", ok=False)
    assert "--jobset-version" in done.stderr


# -- trained under `local`, as the JobSet controller runs it ---------------------------------------


def test_a_collective_jobset_trains(tmp_path):
    pytest.importorskip("paddle", reason="the paddlepaddle wheel is not installed")
    from .test_local import local, render, tagged

    manifests = render(tmp_path, "jobset", "--workers", "2", "--command",
                       "python -m paddle.distributed.launch train_collective.py")  # fmt: skip
    done = local(tmp_path, manifests)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "local: Completed" in done.stderr
    results = tagged(done.stdout, "RESULT")
    assert sorted(results) == ["demo-trainer-0-0", "demo-trainer-0-1"], done.stdout[-3000:]
    for text in results.values():
        fields = dict(item.split("=", 1) for item in text.split())
        assert fields["world"] == "2" and fields["all_reduce"] == "3"
        before, after = (float(x) for x in fields["loss"].split("->"))
        assert after < before / 2, "the model trained"


def test_a_parameter_server_jobset_trains_and_its_servers_stop(tmp_path):
    """Real PS training: two servers, two trainers; the JobSet completes with the trainers
    (successPolicy targetReplicatedJobs [trainer]) and its controller deletes the servers, where
    paddle-operator v0.3.5 keeps the job Running for ever."""
    pytest.importorskip("paddle", reason="the paddlepaddle wheel is not installed")
    from .test_local import PS_PYTHON, local, render, tagged

    if not PS_PYTHON.exists():
        pytest.skip("no Paddle with the PS runtime: `make test` installs .venv-ps")
    manifests = render(tmp_path, "jobset", "--ps", "2", "--workers", "2", "--command", "python train_ps.py")
    done = local(tmp_path, manifests, "--python", str(PS_PYTHON), "--grace", "5")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "local: Completed" in done.stderr
    assert sorted(tagged(done.stdout, "SERVING")) == ["demo-ps-0-0", "demo-ps-0-1"], done.stdout[-3000:]
    results = [json.loads(text) for text in tagged(done.stdout, "RESULT").values()]
    assert len(results) == 2, done.stdout[-3000:]
    (start,) = {r["loss"][0] for r in results}  # both pulled the servers' initial parameters
    truth = [1.0, 2.0, -1.0, 0.5]
    for r in results:
        assert r["loss"][1] < start / 100, "the model trained"
        assert all(abs(w - t) < 0.05 for w, t in zip(r["weights"], truth, strict=True)), r["weights"]


# -- the footprint of a runtime ---------------------------------------------------------------------


def _runtime_row() -> list[str]:
    """The files docs/architecture.md's "a runtime" row of "Where things go" names."""
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    (row,) = [line for line in text.splitlines() if line.startswith("| a runtime |")]
    return re.findall(r"`((?:generator|libsonnet)/[^`]+)`", row)


def test_the_runtime_commit_touched_only_the_files_the_doc_names():
    """The commit that added the jobset runtime (its entry in runtimes.json) touched, of the
    source (generator/, libsonnet/ but what `make manifests` generates), only the files the doc
    lists for a runtime, at most five; tests, docs and examples are free."""
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout: no history to read")
    log = subprocess.run(
        ["git", "log", "--format=%H", "-S", '"builder": "jobset"', "--", "libsonnet/paddlejob/runtimes.json"],
        capture_output=True, text=True, cwd=REPO, check=True,
    ).stdout.split()  # fmt: skip
    assert log, "no commit added the jobset runtime to runtimes.json"
    touched = subprocess.run(
        ["git", "show", "--name-only", "--format=", log[-1]], capture_output=True, text=True, cwd=REPO, check=True
    ).stdout.split()
    source = [path for path in touched if path.startswith(("generator/", "libsonnet/")) and "/generated/" not in path]
    allowed = [p.replace("<builder>", "jobset") for p in _runtime_row()]
    assert len(allowed) <= 5, f"the doc names {len(allowed)} files for a runtime: {allowed}"
    assert [p for p in source if p not in allowed] == [], (
        f"the runtime's commit touched {source}; the doc names {allowed}"
    )
    assert len(source) <= 5


def test_the_ctr_example_meets_start_fluids_contract():
    from generator.core.paths import DEPLOY
    from generator.local import pods
    from generator.local import run as localrun

    from .test_local import start_fluid_problems

    manifests, _ = read_documents(DEPLOY / "examples" / "ctr-jobset.yaml")
    found, services = pods.expand(manifests)
    assert len(found) == 4
    assert sorted(p.name for p in found if not p.finishes) == ["ctr-ps-0-0", "ctr-ps-0-1"]  # successPolicy
    for proc in localrun.plan(found, services, sys.executable, REPO):
        assert start_fluid_problems(proc.env, found, manifests) == [], proc.pod.name
