"""A render killed at any instant leaves deploy/ all old or all new once the next command runs.

The render is SIGKILLed before each step of its swap (PADDLEJOB_RENDER_FAULT=N, a hook in
atomic.py) and at timed instants while it works; then recovery runs, as at the start of every
render, and the output must equal the old tree or the new one, file modes included, with no
staging leftovers.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

from generator.render import atomic

from .conftest import REPO

NEW_FLAGS = ["--namespace", "training", "--scheduling", "volcano"]


def render_argv(root: Path, *flags: str) -> list[str]:
    return [
        sys.executable, "-m", "generator", "render",
        "--out", str(root / "deploy"), "--api-doc", str(root / "docs" / "api.md"), *flags,
    ]  # fmt: skip


def snapshot(root: Path) -> dict[str, tuple[int, bytes]]:
    """Every file under root: (mode, content); folders by mode."""
    out = {}
    for path in sorted(root.rglob("*")):
        mode = stat.S_IMODE(path.stat().st_mode)
        out[str(path.relative_to(root))] = (mode, path.read_bytes() if path.is_file() else b"")
    return out


def rendered(tmp_path: Path, name: str, *flags: str) -> Path:
    root = tmp_path / name
    subprocess.run(render_argv(root, *flags), check=True, capture_output=True, cwd=REPO)
    return root


def recover(root: Path) -> None:
    atomic.recover(root / "deploy", [root / "deploy" / "v1", root / "docs" / "api.md"])


def test_a_kill_before_any_step_of_the_swap_leaves_old_or_new(tmp_path):
    old_root = rendered(tmp_path, "old")
    new_root = rendered(tmp_path, "new", *NEW_FLAGS)
    old, new = snapshot(old_root), snapshot(new_root)
    assert old != new
    outcomes = []
    for step in range(1, 12):
        root = tmp_path / f"kill-{step}"
        shutil.copytree(old_root, root)
        env = {**os.environ, atomic.FAULT_ENV: str(step)}
        done = subprocess.run(render_argv(root, *NEW_FLAGS), env=env, capture_output=True, cwd=REPO)
        assert done.returncode in (0, -signal.SIGKILL), done.stderr
        recover(root)
        now = snapshot(root)
        assert now in (old, new), f"kill before step {step}: a mixed tree"
        outcomes.append((done.returncode, "new" if now == new else "old"))
    # before the journal is written the render rolls back; after it, recovery rolls forward
    assert outcomes[0] == (-signal.SIGKILL, "old")
    assert (-signal.SIGKILL, "new") in outcomes and outcomes[-1] == (0, "new")


def test_timed_kills_while_rendering_leave_old_or_new(tmp_path):
    old_root = rendered(tmp_path, "old")
    new_root = rendered(tmp_path, "new", *NEW_FLAGS)
    old, new = snapshot(old_root), snapshot(new_root)
    chance = random.Random(20261122)
    for trial in range(4):
        root = tmp_path / f"timed-{trial}"
        shutil.copytree(old_root, root)
        child = subprocess.Popen(render_argv(root, *NEW_FLAGS), cwd=REPO, stderr=subprocess.DEVNULL)
        time.sleep(chance.uniform(0.2, 1.2))
        child.kill()
        child.wait()
        recover(root)
        assert snapshot(root) in (old, new), f"trial {trial}: a mixed tree"


def test_the_next_render_finishes_an_interrupted_one(tmp_path):
    old_root = rendered(tmp_path, "old")
    new = snapshot(rendered(tmp_path, "new", *NEW_FLAGS))
    root = tmp_path / "again"
    shutil.copytree(old_root, root)
    env = {**os.environ, atomic.FAULT_ENV: "3"}  # after the commit point: mid-swap
    assert subprocess.run(render_argv(root, *NEW_FLAGS), env=env, cwd=REPO, capture_output=True).returncode == -9
    leftovers = [p.name for p in (root / "deploy").iterdir() if p.name.startswith(".")]
    assert atomic.JOURNAL in leftovers
    done = subprocess.run([*render_argv(root, *NEW_FLAGS), "--check"], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert snapshot(root) == new


def test_modes_are_fixed_whatever_the_umask(tmp_path):
    root = tmp_path / "umask"
    done = subprocess.run(
        ["sh", "-c", "umask 077 && exec " + " ".join(render_argv(root))], cwd=REPO, capture_output=True
    )
    assert done.returncode == 0, done.stderr
    for path in (root / "deploy").rglob("*"):
        assert stat.S_IMODE(path.stat().st_mode) == (0o755 if path.is_dir() else 0o644), path


def test_check_without_flags_after_a_kill_at_any_step_finishes_or_rolls_back(tmp_path):
    """What the paddlejob-drift hook runs after an interrupted `make manifests`: no operator
    flags, so the recorded ones are read, as the folder stands once recovered (never from the
    staging folders, never half old and half new)."""
    old_root = rendered(tmp_path, "old")
    new_root = rendered(tmp_path, "new", *NEW_FLAGS)
    old, new = snapshot(old_root), snapshot(new_root)
    outcomes = []
    for step in range(1, 12):
        root = tmp_path / f"check-{step}"
        shutil.copytree(old_root, root)
        env = {**os.environ, atomic.FAULT_ENV: str(step)}
        done = subprocess.run(render_argv(root, *NEW_FLAGS), env=env, capture_output=True, cwd=REPO)
        assert done.returncode in (0, -signal.SIGKILL), done.stderr
        check = subprocess.run([*render_argv(root), "--check"], cwd=REPO, capture_output=True, text=True)
        assert check.returncode == 0, f"kill before step {step}: {check.stderr}"
        now = snapshot(root)
        assert now in (old, new), f"kill before step {step}: a mixed tree or leftovers"
        outcomes.append("new" if now == new else "old")
    assert outcomes[0] == "old" and outcomes[-1] == "new"
