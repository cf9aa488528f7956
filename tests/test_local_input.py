"""`local` on input it must refuse: manifests the apiserver would reject never start, a huge
replica count is an error before any pod is built, and no valid manifest, however odd, crashes
the expansion into pods. (No Paddle needed: nothing here runs a pod.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from generator import validate
from generator.kubeyaml.load import read_documents
from generator.local import pods
from generator.local import run as localrun

from .conftest import FIXTURES, REPO
from .sweep import mutations

RUNTIME_JOBS = [
    ("paddle-operator", "--ps", "1", "--workers", "2"),
    # paddle-operator trains elastic jobs with every replica only (job refuses fewer)
    ("paddle-operator", "--workers", "4", "--elastic", "--etcd", "etcd:2379", "--min-workers", "4"),
    ("kubernetes", "--workers", "3", "--elastic", "--min-workers", "2"),  # with its own etcd
    ("volcano", "--ps", "1", "--workers", "2"),
    ("volcano", "--workers", "2"),
    ("kubeflow", "--workers", "2"),
    ("kubernetes", "--ps", "1", "--workers", "2"),
    ("kubernetes", "--workers", "2"),
]


def job_text(runtime: str, *flags: str) -> str:
    # an elastic job runs Paddle's launcher, the one that reads PADDLE_MASTER (job refuses another command)
    command = "python -m paddle.distributed.launch train.py" if "--elastic" in flags else "python train.py"
    argv = ["job", "demo", "--image", "paddle:3", "--runtime", runtime, "--command", command, *flags]
    done = subprocess.run([sys.executable, "-m", "generator", *argv], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stderr
    return done.stdout


def local(*argv: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "generator", "local", *argv], input=stdin, capture_output=True, text=True, cwd=REPO
    )


def test_manifests_that_do_not_validate_never_start():
    done = local("-", stdin=(FIXTURES / "validate" / "bad" / "quantity.yaml").read_text())
    assert done.returncode == 1
    assert "'2 cores' is not a Kubernetes quantity" in done.stderr and "nothing was run" in done.stderr


def test_a_huge_replica_count_is_an_error_before_any_pod_is_built():
    text = job_text("paddle-operator", "--workers", "2").replace("replicas: 2", "replicas: 100000000")
    done = local("--explain", "-", stdin=text)
    assert done.returncode == 1
    assert "demo worker replicas: 100000000 pods; local mode runs at most 250" in done.stderr


def test_a_file_larger_than_any_job_is_refused(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_bytes(b"# padding\n" * (2 << 20))
    done = local("--explain", str(big))
    assert done.returncode == 1 and "more than 16 MiB" in done.stderr


@pytest.mark.parametrize("case", RUNTIME_JOBS + [("examples",)], ids=lambda c: "-".join(c))
def test_every_field_of_a_job_replaced_by_each_odd_value_expands_or_says_why(case):
    """A sweep: each field of a rendered job (and of every example) in turn becomes null, a
    list, a mapping...; what still validates must expand into pods or stop with the reason."""
    if case == ("examples",):
        sources = [read_documents(p)[0] for p in sorted((REPO / "deploy" / "examples").glob("*.yaml"))]
    else:
        sources = [read_documents(job_text(*case).encode())[0]]
    checker = validate.ObjectChecker(37)
    expanded = 0
    for docs in sources:
        for mutated in mutations(docs):
            if any(f.is_error for d in mutated for f in checker.check(d)):
                continue  # `local` stops at the checker
            try:
                found, services = pods.expand([validate.without_nulls(d) for d in mutated])
                localrun.plan(found, services, sys.executable, Path("/nonexistent"))
                expanded += 1
            except (pods.ExpandError, localrun.LocalError):
                pass
    assert expanded >= 10  # the sweep reached the expansion, not only the checker
