"""The jsonnet sandbox holds against a hostile repository (issue 24): modules planted in the
current folder, beside the job or on PYTHONPATH never run; jsonnet flags with bytes that are
not UTF-8 are usage errors; a job file that evaluates to no object is an error."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import generator
from generator.cli import main

JOB = "{apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'planted'}, data: {v: std.extVar('v')}}\n"
# every module a sandbox child imports or might (the engines, JSON, YAML, this package)
PLANTED = ("rjsonnet", "_jsonnet", "_gojsonnet", "orjson", "json", "yaml", "re", "threading")
CHILD_ONLY = ("rjsonnet", "_jsonnet", "_gojsonnet")  # the parent of `render FILE` never imports these
# the parent as the console script starts it: its own folder first on sys.path, not the current one
CONSOLE = "import sys; sys.path.pop(0); from generator.cli import entry_point; sys.exit(entry_point())"


def plant(folder: Path, markers: Path, names=PLANTED, package: str = "package") -> None:
    """Modules in ``folder`` that leave a file in ``markers`` when imported."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / f"{name}.py").write_text(f"open({str(markers / name)!r}, 'w').write('ran')\n")
    if package == "package":
        (folder / "generator").mkdir()
        (folder / "generator" / "__init__.py").write_text(f"open({str(markers / 'generator')!r}, 'w').write('ran')\n")
    elif package == "module":
        (folder / "generator.py").write_text(f"open({str(markers / 'generator-py')!r}, 'w').write('ran')\n")


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    return {**env, **extra}


def check_run(done: subprocess.CompletedProcess, markers: Path) -> None:
    assert sorted(p.name for p in markers.iterdir()) == [], done.stderr  # no planted module ran
    assert done.returncode == 0, done.stderr
    (doc,) = [d for d in yaml.safe_load_all(done.stdout) if d is not None]
    assert doc == {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "planted"}, "data": {"v": "ok"}}


@pytest.fixture
def markers(tmp_path: Path) -> Path:
    folder = tmp_path / "markers"
    folder.mkdir()
    return folder


def test_modules_beside_the_job_in_the_current_folder_never_run(tmp_path, markers):
    """The issue's attack: `rjsonnet.py` (and the rest) committed beside job.jsonnet, the
    render run from that folder, as CI does."""
    repo = tmp_path / "repo"
    plant(repo, markers)
    (repo / "job.jsonnet").write_text(JOB)
    argv = [sys.executable, "-c", CONSOLE, "render", "job.jsonnet", "--ext-str", "v=ok"]
    done = subprocess.run(argv, cwd=repo, capture_output=True, text=True, timeout=60, env=clean_env())
    check_run(done, markers)


def test_modules_in_the_current_folder_and_beside_the_job_never_run(tmp_path, markers):
    work, repo = tmp_path / "work", tmp_path / "repo"
    plant(work, markers, package="module")
    plant(repo, markers, package="package")
    (repo / "job.jsonnet").write_text(JOB)
    argv = [sys.executable, "-c", CONSOLE, "render", str(repo / "job.jsonnet"), "--ext-str", "v=ok"]
    done = subprocess.run(argv, cwd=work, capture_output=True, text=True, timeout=60, env=clean_env())
    check_run(done, markers)


def test_python_m_generator_from_a_hostile_folder(tmp_path, markers):
    """`python -m generator` puts the current folder first for the parent (Python's rule, so the
    parent's own imports come from there too); the child must not inherit that."""
    plant(tmp_path / "work", markers, names=CHILD_ONLY, package="none")
    (tmp_path / "work" / "job.jsonnet").write_text(JOB)
    argv = [sys.executable, "-m", "generator", "render", "job.jsonnet", "--ext-str", "v=ok"]
    env = clean_env(PYTHONPATH=str(Path(generator.__file__).resolve().parent.parent))
    done = subprocess.run(argv, cwd=tmp_path / "work", capture_output=True, text=True, timeout=60, env=env)
    check_run(done, markers)


def test_pythonpath_and_pythonstartup_do_not_reach_the_child(tmp_path, markers):
    hostile = tmp_path / "hostile"
    plant(hostile, markers, names=CHILD_ONLY, package="none")
    (hostile / "startup.py").write_text(f"open({str(markers / 'startup')!r}, 'w').write('ran')\n")
    (tmp_path / "job.jsonnet").write_text(JOB)
    env = clean_env(PYTHONPATH=str(hostile), PYTHONSTARTUP=str(hostile / "startup.py"))
    argv = [sys.executable, "-c", CONSOLE, "render", str(tmp_path / "job.jsonnet"), "--ext-str", "v=ok"]
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=60, env=env)
    check_run(done, markers)


def test_an_installed_package_loads_in_the_isolated_child(tmp_path, markers):
    """As from a wheel: the package in a site-packages folder that is not on the child's own
    sys.path (here not the venv's), run from a hostile folder."""
    site = tmp_path / "lib" / "site-packages"
    source = Path(generator.__file__).resolve().parent
    shutil.copytree(source, site / "generator", ignore=shutil.ignore_patterns("__pycache__", "_data"))
    (site / "generator" / "_data").mkdir()
    for data in ("schemas", "libsonnet"):
        (site / "generator" / "_data" / data).symlink_to(source.parent / data)
    work = tmp_path / "work"
    plant(work, markers)
    (work / "job.jsonnet").write_text(JOB)
    start = f"import sys; sys.path.insert(0, {str(site)!r}); from generator"
    code = f"{start}.cli import entry_point; sys.exit(entry_point())"
    argv = [sys.executable, "-I", "-c", code, "render", "job.jsonnet", "--ext-str", "v=ok"]
    done = subprocess.run(argv, cwd=work, capture_output=True, text=True, timeout=60, env=clean_env())
    check_run(done, markers)
    # the child loads the copy (and its folder's dependencies), not the package this test runs
    code = f"{start}.jsonnet import sandbox; print(sandbox.child_command()[-3:])"
    shown = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60).stdout
    assert shown.strip() == str([str(site / "generator" / "__init__.py"), "generator.jsonnet.sandbox", str(site)])


@pytest.mark.parametrize("flag", ["--ext-str", "--ext-code", "--tla-str", "--tla-code"])
def test_a_jsonnet_variable_that_is_not_utf8_is_a_usage_error(tmp_path, flag):
    (tmp_path / "job.jsonnet").write_text(JOB)
    argv = [sys.executable, "-m", "generator", "render", "job.jsonnet", flag.encode(), b"v=\xff"]
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, timeout=60, env=clean_env(PYTHONPATH=_parent()))
    assert done.returncode == 2, done.stderr
    assert f"{flag} v: the value is not UTF-8".encode() in done.stderr
    assert b"0xff" in done.stderr and b"Traceback" not in done.stderr and done.stdout == b""


def test_a_jsonnet_variable_from_an_environment_variable_that_is_not_utf8(tmp_path):
    (tmp_path / "job.jsonnet").write_text(JOB)
    argv = [sys.executable, "-m", "generator", "render", "job.jsonnet", "--ext-str", "v"]
    env = {**clean_env(PYTHONPATH=_parent()), "v": "a\udcffb"}
    done = subprocess.run([os.fsencode(a) for a in argv], cwd=tmp_path, capture_output=True, timeout=60, env=env)
    assert done.returncode == 2, done.stderr
    assert b"--ext-str v: its environment variable is not UTF-8" in done.stderr


def test_a_job_file_whose_name_is_not_utf8(tmp_path):
    name = os.fsdecode(b"job\xff.jsonnet")
    (tmp_path / name).write_text(JOB)
    argv = [sys.executable, "-m", "generator", "render", name, "--ext-str", "v=ok"]
    env = clean_env(PYTHONPATH=_parent())
    done = subprocess.run([os.fsencode(a) for a in argv], cwd=tmp_path, capture_output=True, timeout=60, env=env)
    assert done.returncode == 1, done.stderr
    assert b"job\\xff.jsonnet" in done.stderr and b"not UTF-8; rename it" in done.stderr
    assert b"internal error" not in done.stderr


@pytest.mark.parametrize(
    "source, what",
    [
        ("{}", "an empty object {}"),
        ("[]", "an empty array []"),
        ("null", "null"),
        ("{apiVersion: 'v1', kind: 'List', items: []}", "a List with no items"),
        ("{crd: {}, operator: {jobs: [null]}}", "an object holding no Kubernetes object"),
        ("[null]", "an array holding no Kubernetes object"),
    ],
)
def test_a_job_file_that_evaluates_to_no_object_is_an_error(tmp_path, capsys, source, what):
    path = tmp_path / "empty.jsonnet"
    path.write_text(source + "\n")
    assert main(["render", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert f"error: {path}: evaluated to {what}: there is nothing to render" in err
    assert "a Kubernetes object (with apiVersion and kind), an array of them, a List with items" in err


def test_a_list_with_items_still_renders(tmp_path, capsys):
    path = tmp_path / "list.jsonnet"
    path.write_text(
        "local cm = {apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'a'}};\n"
        "{apiVersion: 'v1', kind: 'List', items: [cm]}\n"
    )
    assert main(["render", str(path)]) == 0
    assert "name: a" in capsys.readouterr().out


def _parent() -> str:
    """The folder holding this package, for a child run from elsewhere with `python -m`."""
    return str(Path(generator.__file__).resolve().parent.parent)
