"""One truth, two builds: the per-document modules compiled by mypyc (generator/core/compiled.py's
MODULES, setup.py) give what the interpreted source gives, byte for byte.

The compiled build is made in a temporary folder (build_support/compile_tree.py: a copy of
generator/ compiled beside its sources; the checkout is not touched), and `validate` runs on the
fixtures, in JSON and in SARIF (another release, two processes), and on inputs the fuzzer
mutates (tests/fuzz.py), once with each build. Any difference in the output or the exit code
fails. `--version` says which build runs.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from generator.core import compiled
from tests import fuzz

from .conftest import FIXTURES, REPO

sys.path.insert(0, str(REPO / "build_support"))
import compile_tree  # noqa: E402

VERSION = re.compile(
    r"paddlejob-manifests \d+\.\d+\.\d+ \((compiled|interpreted|partly compiled \(\d+ of \d+ modules\))\)"
)


def _no_compiler() -> str | None:
    compiler = os.environ.get("CC", sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler})"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return "no Python headers"
    return None


def _run(root: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """`python -m generator ARGS` with generator/ from ``root`` (a folder of no code as the
    working folder: `-m` puts it first on sys.path)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = str(root)
    return subprocess.run(
        [sys.executable, "-m", "generator", *args], cwd=cwd, env=env, capture_output=True, timeout=900
    )  # fmt: skip


def test_version_says_which_build_runs():
    done = subprocess.run([sys.executable, "-m", "generator", "--version"], capture_output=True, text=True, check=True)
    assert VERSION.fullmatch(done.stdout.strip()), done.stdout
    assert done.stdout.strip().endswith(f"({compiled.build()})")


def test_every_compiled_module_is_typed_for_it():
    # mypy checks what pyproject.toml's [tool.mypy] names (`make lint`): each compiled module is there
    import tomllib

    checked = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["mypy"]["files"]
    for name in compiled.MODULES:
        path = str(Path(*name.split(".")).with_suffix(".py"))
        assert any(path == entry or path.startswith(entry.rstrip("/") + "/") for entry in checked), path


@pytest.fixture(scope="module")
def builds(tmp_path_factory) -> dict[str, Path]:
    """{"interpreted": the compiled build's own sources without its extension modules,
    "compiled": a folder with the compiled build}: one snapshot of the source, two builds (the
    checkout may change while the tests run)."""
    missing = _no_compiler()
    if missing:
        pytest.skip(f"the compiled build needs a C compiler: {missing}")
    folder = compile_tree.compile_tree(tmp_path_factory.mktemp("compiled"))
    interpreted = tmp_path_factory.mktemp("interpreted")
    shutil.copytree(
        folder / "generator", interpreted / "generator", symlinks=True, ignore=shutil.ignore_patterns("*.so")
    )
    return {"interpreted": interpreted, "compiled": folder}


@pytest.fixture()
def outside(tmp_path) -> Path:
    where = tmp_path / "cwd"
    where.mkdir()
    return where


@pytest.mark.slow
def test_the_folder_runs_the_compiled_build(builds, outside):
    for name, root in builds.items():
        done = _run(root, "--version", cwd=outside)
        assert done.returncode == 0, done.stderr
        assert done.stdout.decode().strip().endswith(f"({name})"), (name, done.stdout)
    probe = "from generator.core import compiled; print(compiled.compiled_modules())"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = str(builds["compiled"])
    done = subprocess.run([sys.executable, "-c", probe], cwd=outside, capture_output=True, text=True, env=env)
    assert done.stdout.strip() == repr(list(compiled.MODULES)), done.stderr
    # the checkout was not compiled in: its build is the interpreted one
    assert not list((REPO / "generator").rglob("*.so"))


def _both(builds: dict[str, Path], *args: str, cwd: Path) -> None:
    runs = {name: _run(root, *args, cwd=cwd) for name, root in builds.items()}
    one, other = runs["interpreted"], runs["compiled"]
    assert b"internal error" not in one.stderr + other.stderr, (one.stderr[-2000:], other.stderr[-2000:])
    assert one.returncode in (0, 1), one.stderr[-2000:]
    assert (other.returncode, other.stderr) == (one.returncode, one.stderr)
    assert other.stdout == one.stdout  # byte for byte
    assert len(one.stdout) > 1000


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [
        ["-o", "json"],
        ["-o", "sarif", "--kube-version", "1.24", "--jobs", "2"],
    ],
    ids=["json", "sarif-1.24-parallel"],
)
def test_both_builds_give_the_same_output_on_the_fixtures(builds, outside, args):
    _both(builds, "validate", *args, *(["--jobs", "1"] if "--jobs" not in args else []), str(FIXTURES), cwd=outside)


@pytest.mark.slow
def test_both_builds_give_the_same_output_on_fuzzed_inputs(builds, outside):
    """Mutations of the fuzzer's corpus, each a file of its own: anchors, tags, odd scalars, stray
    bytes and nesting reach every branch of the reader, compiled or not."""
    rng = random.Random(20261201)
    corpus = [path.read_bytes() for path in fuzz.CORPUS]
    folder = outside / "fuzzed"
    folder.mkdir()
    for i in range(600):
        (folder / f"case-{i:04d}.yaml").write_bytes(fuzz.mutate(rng.choice(corpus), rng))
    _both(builds, "validate", "-o", "json", "--jobs", "1", str(folder), cwd=outside)
