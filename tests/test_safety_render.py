"""Issue 24: a render's journal, lock and output paths, attacked as a pull request would.

`render --check` runs in CI on files anyone can commit, so a `.paddlejob-render.journal` in
the output folder is hostile input: whatever it says, the tool may only finish a swap it
could have committed itself (every path under --out, the staging names it makes), and must
otherwise refuse (exit 2, naming the journal) with nothing touched. Two renders into one
folder take turns (a lock naming its holder) and lose no file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from generator import cli
from generator.render import atomic
from generator.render import pipeline as render

from .conftest import REPO, tree

TOKEN = "abcd1234"


@pytest.fixture
def site(tmp_path, rendered):
    """tmp/deploy (a rendered output) and tmp/victim (a folder outside it that must survive)."""
    out = tmp_path / "deploy"
    atomic.replace(out, render.targets(out, rendered.files))
    victim = tmp_path / "victim"
    (victim / "keep").mkdir(parents=True)
    (victim / "keep" / "data.txt").write_text("precious\n")
    return out, victim


def check(out: Path, capsys, *flags: str) -> tuple[int, str]:
    code = cli.main(["render", "--check", "--out", str(out), *flags])
    return code, capsys.readouterr().err


def refused(out: Path, victim: Path, capsys, *flags: str) -> str:
    """Run `render --check` (as the paddlejob-drift hook does): exit 2, nothing touched."""
    before_out, before_victim = tree(out), tree(victim)
    code, err = check(out, capsys, *flags)
    assert code == 2, err
    assert "Traceback" not in err and "internal error" not in err
    assert atomic.JOURNAL in err and "delete it" in err
    assert tree(out) == before_out, "the output folder was touched"
    assert tree(victim) == before_victim, "a folder outside --out was touched"
    return err


def journal(out: Path, rows) -> None:
    (out / atomic.JOURNAL).write_text(json.dumps(rows))


def test_a_journal_cannot_delete_a_folder_outside_out(site, capsys):
    out, victim = site
    # the reproduction: old points two levels up, at the victim
    journal(out, [{"target": "v1", "staged": "x", "old": "../victim"}])
    err = refused(out, victim, capsys)
    assert "entry 1" in err and "siblings" in err


def test_a_journal_cannot_swap_a_folder_outside_out_by_an_absolute_target(site, capsys):
    out, victim = site
    (out / f".paddlejob-new-victim-{TOKEN}").mkdir()
    (out / f".paddlejob-new-victim-{TOKEN}" / "evil.txt").write_text("planted\n")
    journal(
        out,
        [{"target": str(victim), "staged": f".paddlejob-new-victim-{TOKEN}", "old": f".paddlejob-old-victim-{TOKEN}"}],
    )
    refused(out, victim, capsys)
    staged = os.path.join(os.path.dirname(str(victim)), f".paddlejob-new-victim-{TOKEN}")
    journal(out, [{"target": str(victim), "staged": staged, "old": staged.replace("-new-", "-old-")}])
    refused(out, victim, capsys)


def test_a_journal_cannot_reach_outside_through_dotdot_or_a_symlinked_folder(site, capsys):
    out, victim = site
    (victim / f".paddlejob-new-keep-{TOKEN}").mkdir()
    rows = [{"target": "../victim/keep", "staged": f"../victim/.paddlejob-new-keep-{TOKEN}",
             "old": f"../victim/.paddlejob-old-keep-{TOKEN}"}]  # fmt: skip
    journal(out, rows)
    refused(out, victim, capsys)
    os.symlink(victim, out / "link")
    rows = [{"target": "link/keep", "staged": f"link/.paddlejob-new-keep-{TOKEN}",
             "old": f"link/.paddlejob-old-keep-{TOKEN}"}]  # fmt: skip
    journal(out, rows)
    refused(out, victim, capsys)


def test_a_journal_whose_staged_folder_is_a_symlink_is_refused(site, capsys):
    out, victim = site
    os.symlink(victim, out / f".paddlejob-new-v1-{TOKEN}")
    journal(out, [{"target": "v1", "staged": f".paddlejob-new-v1-{TOKEN}", "old": f".paddlejob-old-v1-{TOKEN}"}])
    assert "symbolic link" in refused(out, victim, capsys)


def test_a_journal_naming_an_output_this_command_was_not_asked_for_is_refused(site, tmp_path, capsys):
    out, victim = site
    doc = tmp_path / "docs" / "api.md"
    doc.parent.mkdir()
    doc.write_text("# the API\n")
    (doc.parent / f".paddlejob-new-api.md-{TOKEN}").write_text("replaced\n")
    rows = [{"target": "../docs/api.md", "staged": f"../docs/.paddlejob-new-api.md-{TOKEN}",
             "old": f"../docs/.paddlejob-old-api.md-{TOKEN}"}]  # fmt: skip
    journal(out, rows)
    err = refused(out, tmp_path / "docs", capsys)
    assert "nor an output this command was asked to write" in err
    # the render that wrote it, run again with its --api-doc, finishes the swap (and then
    # finds the planted text differs from a fresh render: drift, exit 1)
    code, err = check(out, capsys, "--api-doc", str(doc))
    assert code == 1, err
    assert not (out / atomic.JOURNAL).exists()
    assert doc.read_text() == "replaced\n"
    assert sorted(p.name for p in doc.parent.iterdir()) == ["api.md"]


def test_a_journal_no_interrupted_render_could_leave_is_refused(site, capsys):
    out, victim = site
    for kind in ("new", "old"):  # a swap moves v1 aside before the staged one comes in
        shutil.copytree(out / "v1", out / f".paddlejob-{kind}-v1-{TOKEN}")
    journal(out, [{"target": "v1", "staged": f".paddlejob-new-v1-{TOKEN}", "old": f".paddlejob-old-v1-{TOKEN}"}])
    assert "all exist" in refused(out, victim, capsys)


def test_check_does_not_show_what_a_committed_link_points_at(site, tmp_path, capsys):
    out, victim = site
    secret = victim / "keep" / "data.txt"
    (out / "v1" / "crd.yaml").unlink()
    os.symlink(secret, out / "v1" / "crd.yaml")  # a file link, and a folder link
    shutil.rmtree(out / "v1beta1")
    os.symlink(victim / "keep", out / "v1beta1")
    code = cli.main(["render", "--check", "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 1, captured.err
    assert "precious" not in captured.out + captured.err
    assert "a symbolic link, not followed" in captured.out


@pytest.mark.parametrize("kind", ["not json", "huge", "symlink", "fifo", "folder", "deep", "not a list", "bad utf-8"])
def test_a_journal_that_is_not_one_of_ours_is_refused_cleanly(site, tmp_path, capsys, kind):
    out, victim = site
    path = out / atomic.JOURNAL
    if kind == "not json":
        path.write_text("{ torn")
    elif kind == "huge":
        with open(path, "wb") as f:
            f.truncate(atomic.MAX_JOURNAL_BYTES + 1)
    elif kind == "symlink":
        os.symlink("/etc/passwd", path)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "deep":
        path.write_text("[" * 100_000)
    elif kind == "not a list":
        path.write_text('{"target": "v1"}')
    else:
        path.write_bytes(b'[{"target": "\xff"}]')
    started = time.monotonic()
    refused(out, victim, capsys)
    assert time.monotonic() - started < 5
    assert os.path.lexists(path)


def test_check_without_flags_finishes_a_swap_its_own_render_committed(site, tmp_path, capsys):
    out, _ = site
    new = tmp_path / "new"
    assert cli.main(["render", "--out", str(new), "--namespace", "training"]) == 0
    want = tree(new)
    # killed mid-swap: v1 is new already (the old one beside it), v1beta1 still staged
    os.rename(out / "v1", out / f".paddlejob-old-v1-{TOKEN}")
    os.rename(new / "v1", out / "v1")
    os.rename(new / "v1beta1", out / f".paddlejob-new-v1beta1-{TOKEN}")
    journal(out, [{"target": top, "staged": f".paddlejob-new-{top}-{TOKEN}", "old": f".paddlejob-old-{top}-{TOKEN}"}
                  for top in ("v1", "v1beta1")])  # fmt: skip
    capsys.readouterr()
    code, err = check(out, capsys)  # the flags are read as the folder stands once recovered
    assert code == 0, err
    assert "up to date" in err
    new.rename(tmp_path / "emptied")
    out.rename(new)
    assert tree(new) == want


def test_out_under_a_file_says_so(tmp_path, capsys):
    (tmp_path / "afile").write_text("x\n")
    for flags in ([], ["--check", "--namespace", "x"]):
        code = cli.main(["render", "--out", str(tmp_path / "afile" / "sub"), *flags])
        err = capsys.readouterr().err
        assert code == 2, err
        assert f"is under {tmp_path / 'afile'}, which is a file, not a folder" in err
        assert "interrupted" not in err
    assert (tmp_path / "afile").read_text() == "x\n"


HOLD = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(60)
"""


def test_a_render_while_another_holds_the_folder_names_its_pid(site):
    out, _ = site
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        before = tree(out)
        env = {**os.environ, atomic.LOCK_WAIT_ENV: "0.3"}
        for flags in ([], ["--check"]):
            done = subprocess.run(
                [sys.executable, "-m", "generator", "render", "--out", str(out), "--namespace", "x", *flags],
                cwd=REPO, env=env, capture_output=True, text=True, timeout=60,
            )  # fmt: skip
            assert done.returncode == 2, done.stderr
            assert f"another render (pid {holder.pid}) is writing {out}" in done.stderr
            assert tree(out) == before
    finally:
        holder.kill()
        holder.wait()


def render_argv(out: Path) -> list[str]:
    return [sys.executable, "-m", "generator", "render", "--out", str(out), "--trainer"]


def test_two_renders_into_one_folder_lose_no_file(tmp_path):
    clean, old = tmp_path / "clean", tmp_path / "old"
    subprocess.run(render_argv(clean), cwd=REPO, check=True, capture_output=True)
    subprocess.run([*render_argv(old), "--namespace", "old"], cwd=REPO, check=True, capture_output=True)
    want = tree(clean)
    for round_ in range(4):  # 20 trials, five at a time
        outs = [tmp_path / f"race-{round_}-{i}" for i in range(5)]
        for out in outs:  # an old tree in place, so that each render swaps folders out
            shutil.copytree(old, out)
        runs = [subprocess.Popen(render_argv(out), cwd=REPO, stderr=subprocess.PIPE, text=True)
                for out in outs for _ in range(2)]  # fmt: skip
        for run in runs:
            err = run.communicate(timeout=120)[1]
            assert run.returncode == 0 or (run.returncode == 2 and "another render (pid" in err), err
        for out in outs:
            assert tree(out) == want, f"{out}: not the tree of a clean render"
