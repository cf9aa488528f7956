"""Issue 34, case 16: `job` takes the project release flags `validate` takes, and both take
--kueue-version (one parse, rules/kueue.py release): the queue label judged by validate's rule for
that Kueue release, not the newest, and MultiKueue where that release has no adapter for the job's
kind (core/kinds.py KUEUE_MULTIKUEUE, read at the release tags): refused by `job`, a warning of
`validate` (rule kueue-multikueue) on the same file, with the same words."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from generator.jobs.model import JobError, Role, TrainingJob
from generator.validate.rules import kueue as kueue_rules

from .conftest import REPO


def job(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "generator", "job", "bert", "--image", "r.example/paddle:3", "--workers", "2", *argv],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip


def help_of(command: str) -> str:
    return subprocess.run(
        [sys.executable, "-m", "generator", command, "--help"], capture_output=True, text=True, cwd=REPO, timeout=60
    ).stdout


def test_job_takes_every_release_flag_validate_takes_for_the_projects_it_writes():
    from generator.jobs.model import runtime_projects

    of_job = set(re.findall(r"--[a-z-]+-version", help_of("job")))
    of_validate = set(re.findall(r"--[a-z-]+-version", help_of("validate")))
    # the projects whose kinds a runtime writes; Gateway API's kinds none does
    assert {f"--{p}-version" for p in runtime_projects()} | {"--kube-version"} <= of_validate & of_job
    assert of_validate - of_job <= {"--gateway-api-version"}
    assert "--kueue-version" in of_job & of_validate


def validate(path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "generator", "validate", "--no-config", *argv, str(path)],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip


def test_validate_judges_multikueue_for_the_kueue_release_given_as_job_does(tmp_path):
    multikueue = ["--runtime", "kubeflow-trainer", "--kueue-queue", "team", "--managed-by", "kueue.x-k8s.io/multikueue"]
    rendered = job(*multikueue, "--kueue-version", "0.14")
    assert rendered.returncode == 0, rendered.stderr
    path = tmp_path / "trainjob.yaml"
    path.write_text(rendered.stdout)
    refused = job(*multikueue, "--kueue-version", "0.13")
    said = refused.stderr.split("--managed-by: ", 1)[1].split("; use a newer", 1)[0]
    early = validate(path, "--kueue-version", "0.13")
    assert early.returncode == 0, early.stderr  # a warning: the cluster's Kueue decides
    assert f"spec.managedBy: {said}; run a Kueue that has it" in early.stdout and "[kueue-multikueue]" in early.stdout
    for release in ("0.14", "v0.19.2", None):
        later = validate(path, *(("--kueue-version", release) if release else ()))
        assert later.returncode == 0 and "[kueue-multikueue]" not in later.stdout, later.stdout
    (tmp_path / ".paddlejob-manifests.yaml").write_text('kueue-version: "0.13"\n')  # the config file sets it too
    configured = subprocess.run(
        [sys.executable, "-m", "generator", "validate", str(path)], capture_output=True, text=True, cwd=tmp_path,
        timeout=120,
    )  # fmt: skip
    assert "[kueue-multikueue]" in configured.stdout, configured.stdout + configured.stderr
    unknown = validate(path, "--kueue-version", "0.5")
    assert unknown.returncode == 2 and "is not a Kueue release this tool knows: 0.6, 0.7" in unknown.stderr


def test_the_queue_label_is_judged_for_the_kueue_release_given():
    # Kueue 0.19's own manifests leave kubeflow.org/paddlejob off; 0.18's enable it
    assert not kueue_rules.enabled("kubeflow.org/paddlejob", "0.19")
    assert kueue_rules.enabled("kubeflow.org/paddlejob", "0.18")
    newest = job("--runtime", "kubeflow", "--kueue-queue", "team")
    assert newest.returncode == 0, newest.stderr
    assert "integration is off in the configuration Kueue v0.19.2 installs" in newest.stderr
    older = job("--runtime", "kubeflow", "--kueue-queue", "team", "--kueue-version", "0.18")
    assert older.returncode == 0, older.stderr
    assert "[kueue-integration]" not in older.stderr, older.stderr
    # a TrainJob before Kueue had its integration (0.14): queued by nothing
    early = job("--runtime", "kubeflow-trainer", "--kueue-queue", "team", "--kueue-version", "0.13")
    assert early.returncode == 0, early.stderr
    assert "Kueue v0.13.10 has no integration for trainer.kubeflow.org/v1alpha1 TrainJob" in early.stderr


@pytest.mark.parametrize(
    "runtime, before, since",
    [("kubeflow", "0.8", "0.9"), ("kubeflow-trainer", "0.13", "0.14"), ("jobset", None, "0.6"),
     ("kubernetes", None, "0.6")],
)  # fmt: skip
def test_multikueue_is_refused_for_a_kueue_release_without_its_adapter(runtime, before, since):
    multikueue = ["--runtime", runtime, "--kueue-queue", "team", "--managed-by", "kueue.x-k8s.io/multikueue"]
    if before is not None:
        refused = job(*multikueue, "--kueue-version", before)
        assert refused.returncode == 2, refused.stderr
        assert "so MultiKueue never dispatches" in refused.stderr and f"from Kueue {since}:" in refused.stderr
    done = job(*multikueue, "--kueue-version", since)
    if runtime == "kubernetes":  # refused whatever the release: MultiKueue copies only the Job (case 7)
        assert done.returncode == 2 and "MultiKueue copies only the Job" in done.stderr, done.stderr
    else:
        assert done.returncode == 0, done.stderr


def test_kueue_version_needs_a_queue_and_a_release_this_tool_knows():
    alone = job("--runtime", "jobset", "--kueue-version", "0.18")
    assert alone.returncode == 2 and "--kueue-version: only with --kueue-queue" in alone.stderr
    unknown = job("--runtime", "jobset", "--kueue-queue", "q", "--kueue-version", "0.5")
    assert unknown.returncode == 2 and "is not a Kueue release this tool knows: 0.6, 0.7" in unknown.stderr


def test_the_python_api_takes_the_kueue_release_and_raises_job_error():
    bert = TrainingJob(
        "bert", "r.example/paddle:3", worker=Role(2), kueue_queue="team", managed_by="kueue.x-k8s.io/multikueue"
    )
    assert bert.render("kubeflow", releases={"kueue": "0.9"})
    with pytest.raises(JobError, match="Kueue v0.8.4's MultiKueue has no adapter for kubeflow.org/paddlejob"):
        bert.render("kubeflow", releases={"kueue": "0.8"})
    with pytest.raises(JobError, match="not a Kueue release this tool knows"):
        bert.render("kubeflow", releases={"kueue": "1.0"})
