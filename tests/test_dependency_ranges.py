"""pyproject.toml's dependency ranges, tested at both ends: a user's `pip install .` into an
environment that already pins these packages gets any release of each range, so the lowest and
the newest each range allows must give the same bytes as the releases constraints.txt pins.

For each end, a fresh virtualenv gets the eight packages (the lowest: each range's lower bound,
exactly; the newest: the ranges as they are, which pip fills with the newest it finds), then runs
this checkout's `validate -o json` over every fixture and `render --check` of deploy/; both
must equal the same commands run with the pinned releases (this interpreter).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

from .conftest import REPO

pytestmark = pytest.mark.slow

RANGE = re.compile(r"^([A-Za-z0-9_.-]+)>=([0-9][0-9.]*),<([0-9][0-9.]*)$")
FIXTURES = ["tests/fixtures/validate/bad", "tests/fixtures/validate/good"]
# The checkout's package, run by an interpreter that has only the packages under test: -I keeps
# the current folder and PYTHON* variables out, the path to this checkout goes first.
RUN = "import sys; sys.path.insert(0, {repo!r}); from generator.cli import main; sys.exit(main(sys.argv[1:]))"


def ranges() -> dict[str, tuple[str, str]]:
    found = {}
    for spec in tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]:
        match = RANGE.match(spec)
        assert match, f"{spec}: a dependency is a range >=LOW,<HIGH (constraints.txt pins it)"
        found[match.group(1)] = (match.group(2), match.group(3))
    return found


def test_every_dependency_is_a_range_and_constraints_pin_one_release_inside_it():
    pins = {}
    for line in (REPO / "constraints.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[name] = version
    spans = ranges()
    assert set(pins) == set(spans)
    for name, (low, high) in spans.items():
        as_tuple = lambda text: tuple(int(p) for p in text.split("."))  # noqa: E731
        assert as_tuple(low) <= as_tuple(pins[name]) < as_tuple(high), (name, low, pins[name], high)


def _run(python: str, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [python, "-I", "-c", RUN.format(repo=str(REPO)), *argv],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


@pytest.fixture(scope="module")
def pinned() -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess]:
    return (
        _run(sys.executable, "validate", "-o", "json", "--jobs", "1", *FIXTURES),
        _run(sys.executable, "render", "--check", "--out", "deploy"),
    )


@pytest.mark.parametrize("end", ["lowest", "newest"])
def test_both_ends_of_the_ranges_give_the_same_bytes(tmp_path, end, pinned):
    spans = ranges()
    if end == "lowest":
        wanted = [f"{name}=={low}" for name, (low, _) in spans.items()]
    else:
        wanted = [f"{name}>={low},<{high}" for name, (low, high) in spans.items()]
    env_dir = tmp_path / end
    venv.create(env_dir, with_pip=True)
    python = str(Path(env_dir, "bin", "python"))
    install = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *wanted],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    listed = subprocess.run([python, "-m", "pip", "freeze"], capture_output=True, text=True, check=True).stdout
    validate, render = (
        _run(python, "validate", "-o", "json", "--jobs", "1", *FIXTURES),
        _run(python, "render", "--check", "--out", "deploy"),
    )
    assert validate.returncode == pinned[0].returncode, validate.stderr[-2000:]
    assert validate.stdout == pinned[0].stdout, f"validate differs with {listed}"
    assert render.returncode == pinned[1].returncode == 0, render.stdout[-2000:] + render.stderr[-2000:]
