"""The README's commands, run as a newcomer runs them: in a fresh clone, on a PATH where
`jsonnetfmt` fails, `make manifests`, then every `sh` block of README.md in order (with
`.venv/bin` on PATH, as `. .venv/bin/activate` does), `make test` among them, and then those of
the guides it points to (DOCUMENTS).

The commands come from the documents themselves, so they cannot drift from what works. A
command's expected exit status is 0 unless its comment says `# exit N`. Blocks marked
`console` (a cluster, tools not installed here) are shown, not run.

The clone's own `make test` installs the test tools, lints, checks for drift and collects every
test, but runs none (PYTEST_ADDOPTS=--collect-only): the suite runs once, in the checkout this
test runs in, and the clone proves a fresh machine gets there with the README's two commands.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import REPO

INNER = "PADDLEJOB_README_TEST"
BLOCK = re.compile(r"^( *)```sh\n(.*?)^\1```", re.M | re.S)  # indented inside a list item too
# The README first (its first commands set the machine up), then the guides whose commands it points to.
DOCUMENTS = ("README.md", "docs/gitops.md", "docs/jobs.md", "docs/runtimes.md")
EXPECTED_EXIT = re.compile(r"#\s*exit (\d+)\b")


def commands(readme: str, name: str = "README.md") -> list[tuple[str, str, int]]:
    """(file:line, command, expected exit) for every command of every sh block."""
    found = []
    for block in BLOCK.finditer(readme):
        first_line = readme.count("\n", 0, block.start(2)) + 1
        indent = len(block.group(1))
        pending, start = "", 0
        for offset, line in enumerate(block.group(2).splitlines()):
            line = line[indent:] if line[:indent].isspace() else line
            if not pending:
                start = first_line + offset
            pending += line.rstrip("\\") + (" " if line.endswith("\\") else "")
            if line.endswith("\\"):
                continue
            command = pending.strip()
            pending = ""
            if not command or command.startswith("#"):
                continue
            expected = EXPECTED_EXIT.search(command)
            found.append((f"{name}:{start}", command, int(expected.group(1)) if expected else 0))
    return found


def script(steps: list[tuple[str, str, int]], tmp: str | None = None) -> str:
    """The commands as one bash script stopping at the first unexpected exit; with ``tmp``, the
    README's `/tmp/` paths are that private folder (two runs on one machine share nothing)."""
    lines = ["set -u"]
    for where, command, expected in steps:
        if tmp is not None:
            command = re.sub(r"(?<![\w./-])/tmp/", tmp.rstrip("/") + "/", command)
        lines += [
            f"echo '>>> {where}: {command[:100].replace(chr(39), '')}'",
            command,
            f'code=$?; [ "$code" = {expected} ] || {{ echo "{where}: exit $code, expected {expected}" >&2; exit 1; }}',
        ]
    return "\n".join(lines) + "\n"


def test_every_sh_block_has_commands_and_the_two_set_up_commands_come_first():
    steps = commands((REPO / "README.md").read_text())
    assert [c.split()[:2] for _, c, _ in steps[:2]] == [["make", "manifests"], ["make", "test"]]
    assert len(steps) >= 15


@pytest.mark.skipif(os.environ.get(INNER) == "1", reason="inside the README test's own clone")
@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_readme_commands_run_as_written_in_a_fresh_clone(tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True, timeout=300)
    stub = tmp_path / "no-jsonnetfmt"
    stub.mkdir()
    fake = stub / "jsonnetfmt"
    fake.write_text("#!/bin/sh\necho 'jsonnetfmt is not installed on this machine' >&2\nexit 127\n")
    fake.chmod(0o755)
    env = {
        **os.environ,
        INNER: "1",
        "PYTEST_ADDOPTS": "--collect-only -q",  # the clone's `make test`: everything but running the suite twice
        "PATH": f"{clone / '.venv' / 'bin'}:{stub}:{os.environ['PATH']}",
        "HOME": str(tmp_path / "home"),  # `make install` and caches stay in the sandbox
        "PIP_CACHE_DIR": os.environ.get("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip")),
        "NPM_CONFIG_CACHE": os.environ.get("NPM_CONFIG_CACHE", str(Path.home() / ".npm")),
    }
    env.pop("VIRTUAL_ENV", None)
    private = tmp_path / "tmp"  # the README's /tmp/..., this run's own
    private.mkdir()
    env["TMPDIR"] = str(private)
    steps = [step for doc in DOCUMENTS for step in commands((clone / doc).read_text(), doc)]
    done = subprocess.run(
        ["bash", "-c", script(steps, str(private))], cwd=clone, env=env, capture_output=True, text=True, timeout=3600
    )
    tail = (done.stdout[-6000:] + "\n--- stderr ---\n" + done.stderr[-6000:]).strip()
    assert done.returncode == 0, tail
    assert done.stdout.count(">>> ") == len(steps)


def test_the_readme_commands_write_into_the_runs_own_folder_not_the_shared_tmp():
    steps = [step for doc in DOCUMENTS for step in commands((REPO / doc).read_text(), doc)]
    assert any("/tmp/" in command for _, command, _ in steps)  # the README does write there
    text = script(steps, "/run-42/tmp")
    assert "/tmp/" not in text.replace("/run-42/tmp/", "")
    assert "--out /run-42/tmp/operator" in text and "> /run-42/tmp/resnet.yaml" in text


PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)
PYTHON_DOCUMENTS = ("README.md", "docs/jobs.md")


def python_blocks() -> list:
    found = []
    for name in PYTHON_DOCUMENTS:
        text = (REPO / name).read_text()
        for block in PYTHON_BLOCK.finditer(text):
            found.append(pytest.param(block.group(1), id=f"{name}:{text.count(chr(10), 0, block.start()) + 1}"))
    return found


def test_the_readme_and_the_jobs_guide_show_python():
    assert {p.id.split(":")[0] for p in python_blocks()} == set(PYTHON_DOCUMENTS)


@pytest.mark.parametrize("code", python_blocks())
def test_python_blocks_run_as_written(code, tmp_path):
    """Each python block of the README and docs/jobs.md, run as a user pastes it (outside the checkout)."""
    import sys

    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "kind:" in done.stdout
