"""What users install, run the way they run it: the wheel `pip install .` builds, in a fresh
virtualenv, every subcommand from a folder outside the checkout (so nothing of the checkout can be
imported by accident); and `make install`, which is what the README tells people to run.

Every other test runs the editable checkout; this is the one that would have seen a package left
out of the wheel (as `generator.controllers` once was: `local` crashed after `pip install .`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from .conftest import REPO

pytestmark = pytest.mark.slow

EXE = "paddlejob-manifests"
IMAGE = "registry.baidubce.com/paddlepaddle/paddle:3.3.1"
# every runtime of libsonnet/paddlejob/runtimes.json: a new one is run here without a change
RUNTIMES = tuple(
    r["name"] for r in json.loads((REPO / "libsonnet" / "paddlejob" / "runtimes.json").read_text())["runtimes"]
)


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A virtualenv with the wheel built from this checkout and its pinned dependencies."""
    root = tmp_path_factory.mktemp("wheel")
    dist = root / "dist"
    env_dir = root / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    # built by the fresh environment's pip, before any dependency is there, as `pip install .`
    # into a new virtualenv builds it (mypy, compiling, sees that environment's packages)
    built = subprocess.run(
        [str(env_dir / "bin" / "python"), "-m", "pip", "wheel", "-q", "--no-deps", "--wheel-dir", str(dist), str(REPO)],
        capture_output=True, text=True, timeout=600, env=_clean_env(),
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    assert "absent from the `packages` configuration" not in built.stderr  # packaging discovers every folder
    (wheel,) = dist.glob("*.whl")
    pip = subprocess.run(
        [str(env_dir / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)],
        capture_output=True, text=True, timeout=900, env=_clean_env(),
    )  # fmt: skip
    assert pip.returncode == 0, pip.stderr
    return env_dir


@pytest.fixture()
def run(installed, tmp_path):
    """Runs the installed command in an empty folder outside the checkout."""
    outside = tmp_path / "user"
    outside.mkdir()

    def go(*args: str, stdin: str | None = None, timeout: int = 300) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(installed / "bin" / EXE), *args], cwd=outside, input=stdin, capture_output=True, text=True,
            timeout=timeout, env=_clean_env(PATH=f"{installed / 'bin'}:{os.environ['PATH']}"),
        )  # fmt: skip

    go.cwd = outside
    return go


def ok(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-4000:])
    assert "Traceback" not in done.stderr
    return done.stdout


def test_the_installed_package_is_not_the_checkout(installed):
    code = "import generator, sys; print(generator.__file__)"
    done = subprocess.run([str(installed / "bin" / "python"), "-I", "-c", code], capture_output=True, text=True)
    location = Path(ok(done).strip())
    assert REPO not in location.parents
    assert "site-packages" in location.parts


def test_the_wheel_a_fresh_environment_builds_is_compiled(installed):
    """`pip install .` into a new virtualenv compiles the per-document modules where a C compiler
    and Python's headers are found (README): mypy's type check must pass without the runtime
    dependencies installed (it once failed on jsonschema-rs and fell back to pure Python)."""
    from tests.test_compiled import _no_compiler

    if (why := _no_compiler()) is not None:
        pytest.skip(why)
    done = subprocess.run([str(installed / "bin" / EXE), "--version"], capture_output=True, text=True, check=True)
    assert done.stdout.strip().endswith("(compiled)"), f"{done.stdout}: `pip install -v .` in a new virtualenv says why"


def test_render_writes_both_bundles_and_validate_passes_them(run):
    ok(run("render", "--out", "deploy"))
    out = run.cwd / "deploy"
    assert {p.name for p in (out / "v1").iterdir()} >= {"crd.yaml", "operator.yaml", "jobs.yaml", "Kustomization"}
    assert (out / "v1beta1" / "crd.yaml").is_file()
    ok(run("render", "--check", "--out", "deploy"))
    ok(run("validate", "deploy"))


def test_render_to_standard_output_and_a_jsonnet_file(run):
    text = ok(run("render", "--out", "-", "--kube-version", "1.30"))
    assert "kind: CustomResourceDefinition" in text
    (run.cwd / "job.jsonnet").write_text(
        "{apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'from-jsonnet'}, data: {a: 'b'}}\n"
    )
    assert "name: from-jsonnet" in ok(run("render", "job.jsonnet"))


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_job_for_every_runtime_then_validate_and_explain(run, runtime):
    job = ok(
        run("job", "demo", "--image", IMAGE, "--workers", "2", "--runtime", runtime, "--command", "python train.py")
    )
    (run.cwd / "job.yaml").write_text(job)
    ok(run("validate", "job.yaml"))
    explained = ok(run("local", "--explain", "job.yaml"))
    assert "demo" in explained


def test_convert_a_legacy_job(run):
    legacy = {
        "apiVersion": "paddlepaddle.org/v1",
        "kind": "PaddleJob",
        "metadata": {"name": "old"},
        "spec": {
            "image": "paddlepaddle/paddle:2.6.2",
            "port": 7164,
            "ports_num": 1,
            "ports_num_for_sparse": 1,
            "fault_tolerant": False,
            "pserver": {"min-instance": 2, "max-instance": 2, "resources": {}},
            "trainer": {"entrypoint": "python train.py", "workspace": "/", "min-instance": 2, "max-instance": 2,
                        "resources": {}},
        },
    }  # fmt: skip
    (run.cwd / "legacy.json").write_text(json.dumps(legacy))
    out = ok(run("convert", "legacy.json"))
    assert "apiVersion: batch.paddlepaddle.org/v1" in out and "replicas: 2" in out
    (run.cwd / "converted.yaml").write_text(out)
    ok(run("validate", "converted.yaml"))


def test_a_short_local_run(run):
    job = ok(run("job", "tiny", "--image", IMAGE, "--workers", "2", "--runtime", "kubernetes", "--command",
                 "python -c 'import os; print(\"rank\", os.environ[\"PADDLE_TRAINER_ID\"])'"))  # fmt: skip
    (run.cwd / "job.yaml").write_text(job)
    (run.cwd / "code").mkdir()
    done = run("local", "--workdir", "code", "--timeout", "120", "job.yaml")
    out = ok(done)
    assert "rank 0" in out and "rank 1" in out


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion(run, shell):
    assert EXE in ok(run("completion", shell))


def test_make_install_puts_a_working_command_on_the_path(tmp_path):
    prefix = tmp_path / "prefix"
    done = subprocess.run(
        ["make", "-C", str(REPO), "install", f"PREFIX={prefix}", f"PYTHON={sys.executable}"],
        capture_output=True, text=True, timeout=900, env=_clean_env(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    exe = prefix / "bin" / EXE
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    job = subprocess.run(
        [str(exe), "job", "demo", "--image", IMAGE, "--workers", "2"], cwd=outside, capture_output=True, text=True
    )
    (outside / "job.yaml").write_text(ok(job))
    ok(subprocess.run([str(exe), "local", "--explain", "job.yaml"], cwd=outside, capture_output=True, text=True))
    ok(subprocess.run([str(exe), "validate", "job.yaml"], cwd=outside, capture_output=True, text=True))
