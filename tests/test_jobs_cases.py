"""Issue 27's cases, one test each: jobs that `job` wrote and `validate` passed while a cluster
would run them wrongly, without a word. Each is now an error or a warning from `job` and from
`validate` (or fixed where the generator produced it). Case 9 (`local` and GPUs) is in
test_local.py, the elastic recovery in test_elastic.py."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml

from generator.jobs import compat
from generator.jobs.model import JobError, Role, TrainingJob

from .conftest import FIXTURES, REPO, load_all


def run(*argv: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "generator", *argv], cwd=REPO, capture_output=True, text=True, input=stdin, check=False
    )


def job(*argv: str) -> subprocess.CompletedProcess:
    return run("job", *argv, "--image", "registry.example.com/paddle:3")


def validate_text(text: str) -> subprocess.CompletedProcess:
    return run("validate", "-", stdin=text)


def test_case_1_an_in_tree_cephfs_volume_fails_on_every_runtime():
    """Kubeflow Trainer needs 1.31+, where no kubelet mounts in-tree CephFS: the TrainJob's runtime
    patch carries the volume, and it is an error there as on the other four runtimes."""
    for runtime in ("kubeflow-trainer", "paddle-operator", "volcano", "kubernetes"):
        done = job("j", "--workers", "2", "--cephfs", "1.2.3.4:6789", "--runtime", runtime)
        assert done.returncode == 1 and "[volume-plugin]" in done.stderr, (runtime, done.stderr)


def test_case_2_the_seeds_volcano_example_gangs_nothing():
    done = run("validate", str(FIXTURES / "seeds" / "000-line0251.yaml"))
    assert "PodGroup/wide-ande-deep" in done.stderr + done.stdout
    assert "gangs no pod" in done.stdout and "--scheduling=volcano" in done.stdout


def test_case_3_a_collective_gang_smaller_than_its_peers():
    argv = ["q", "--workers", "4", "--volcano", "--runtime", "volcano"]
    command = ["--command", "python -m paddle.distributed.launch t.py"]
    refused = job(*argv, "--min-available", "1", *command)
    assert refused.returncode == 2 and "volcano.minAvailable (1) is below the 4 pods" in refused.stderr
    # and a hand-written one: the rendered job with its gang cut down
    rendered = job(*argv, *command)
    assert rendered.returncode == 0, rendered.stderr
    docs = load_all(rendered.stdout)
    (volcano_job,) = [d for d in docs if d["kind"] == "Job"]
    volcano_job["spec"]["minAvailable"] = 1
    found = validate_text(yaml.safe_dump_all(docs))
    assert "[volcano-collective-gang]" in found.stdout, found.stdout


def test_case_4_a_clean_pod_policy_that_never_fires_and_servers_that_never_stop():
    done = job("wd", "--ps", "2", "--workers", "2", "--clean-pod-policy", "OnCompletion")
    assert done.returncode == 0 and "warning: PaddleJob wd: spec.cleanPodPolicy" in done.stderr
    done = job("wd", "--ps", "2", "--workers", "2", "--runtime", "kubernetes")
    assert done.returncode == 0 and "warning: StatefulSet wd-ps" in done.stderr and "run for ever" in done.stderr
    assert "run for ever" in validate_text(done.stdout).stdout


def test_case_5_kueue_where_it_admits_the_kind():
    done = job("k", "--workers", "2", "--kueue-queue", "lq", "--runtime", "kubeflow")
    assert done.returncode == 0 and "[kueue-integration]" in done.stderr  # off by default in Kueue
    assert "[kueue-integration]" in validate_text(done.stdout).stdout
    done = job("k", "--workers", "2", "--kueue-queue", "lq", "--runtime", "kubernetes")
    assert done.returncode == 0, done.stderr
    (indexed,) = [d for d in load_all(done.stdout) if d["kind"] == "Job"]
    assert indexed["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "lq"
    assert "warning" not in done.stderr  # batch/job is on by default
    done = job("k", "--workers", "2", "--ps", "1", "--kueue-queue", "lq", "--runtime", "kubernetes")
    assert done.returncode == 2 and "one by one, no gang" in done.stderr


def test_case_6_a_hand_written_kubeflow_ps_job_is_judged_as_the_generator_judges_it():
    refused = job("k", "--workers", "2", "--ps", "1", "--runtime", "kubeflow")
    assert refused.returncode == 2 and "parameter-server mode (ps) cannot be expressed" in refused.stderr
    found = run("validate", str(FIXTURES / "validate" / "bad" / "job-kubeflow-ps-kueue.yaml"))
    assert "spec.paddleReplicaSpecs.Master" in found.stdout and "[kueue-integration]" in found.stdout


def test_case_7_trainer_on_a_release_older_than_it_needs():
    done = job("t", "--workers", "2", "--runtime", "kubeflow-trainer", "--kube-version", "1.29")
    assert "1.31" in done.stderr and "TrainJob t" in done.stderr
    assert "TrainJob t" not in job("t", "--workers", "2", "--runtime", "kubeflow-trainer").stderr


def test_case_8_intranet_host_sets_the_dns_policy_it_needs():
    done = job("h", "--workers", "2", "--intranet", "Host")
    assert done.returncode == 0 and "paddlejob-host-network" not in done.stderr, done.stderr
    (pdj,) = load_all(done.stdout)
    assert pdj["spec"]["worker"]["template"]["spec"]["dnsPolicy"] == "ClusterFirstWithHostNet"


def test_case_10_the_python_api_names_what_is_wrong():
    with pytest.raises(JobError, match="roles.worker.replicas must be a whole number >= 1, got the string '2'"):
        TrainingJob("r", "i", worker=Role("2")).render()
    with pytest.raises(JobError, match="kube_version: Kubernetes 1.99 is not known here"):
        TrainingJob("r", "i", worker=Role(1)).render(kube_version="1.99")
    assert TrainingJob("r", "i", worker=Role(1)).render("volcano", kube_version="1.30")
    # the legacy API's trainers read TRAINER_ID and TRAINERS (seed 001)
    legacy = compat.PaddleJob(job_name="pj", entry_point="python train.py", runtime_image="i", cpu_nums=1)
    pdj = legacy.manifests(kube_version="1.30")[0]
    worker = pdj["spec"]["worker"]["template"]["spec"]["containers"][0]
    assert {"name": "TRAINERS", "value": "3"} in worker["env"]
    assert worker["command"][:2] == ["sh", "-c"] and "TRAINER_ID=" in worker["command"][2]
    assert worker["command"][3:] == ["python", "train.py"]
    server = pdj["spec"]["ps"]["template"]["spec"]["containers"][0]
    assert server["command"] == ["python", "train.py"]


def test_case_10_trainer_id_is_each_trainers_index_as_the_old_api_gave_it(tmp_path):
    """The shell the old API's trainers start through exports the runtime's index as TRAINER_ID."""
    legacy = compat.PaddleJob(job_name="pj", entry_point="python train.py", runtime_image="i", cpu_nums=1)
    command = legacy.manifests(kube_version="1.30")[0]["spec"]["worker"]["template"]["spec"]["containers"][0]
    shell = command["command"][:3] + ["sh", "-c", 'echo "$TRAINER_ID/$TRAINERS"']
    for env, expected in (({"PADDLE_TRAINER_ID": "2"}, "2/3"), ({"PADDLE_RANK": "1"}, "1/3")):
        done = subprocess.run(
            shell, env={"PATH": "/usr/bin:/bin", "TRAINERS": "3", **env}, capture_output=True, text=True
        )
        assert done.stdout.strip() == expected
