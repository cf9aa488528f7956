"""The three bugs tests/fuzz.py found (issue 24), each as the fuzzer reached it:

- journal-chain: a render journal whose first entry swaps in a staged folder holding a symbolic
  link, and whose second entry then writes through that link, outside --out;
- bundle-file-folder: `render --check` with a folder (or a FIFO) where a bundle file goes
  crashed (exit 3) reading the recorded flags;
- chart-int64-max: the chart refused tolerationSeconds that `render --params` took (Helm reads
  values as float64, so int64's ends fail its JSON Schema).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from generator import cli
from generator.render import atomic, params
from generator.render import pipeline as render
from tests.conftest import REPO, tree
from tests.test_chart import CHART, HELM, run_helm

TOKEN = "deadbeef"


def row(target: str) -> dict[str, str]:
    """The journal entry this tool writes for ``target``."""
    parent, name = os.path.split(target)
    return {
        "target": target,
        "staged": os.path.join(parent, f".paddlejob-new-{name}-{TOKEN}"),
        "old": os.path.join(parent, f".paddlejob-old-{name}-{TOKEN}"),
    }


# -- journal-chain -------------------------------------------------------------------------------


@pytest.fixture
def chain(tmp_path) -> Path:
    """The fuzzer's case: D/.paddlejob-new-a-TOKEN/c -> ../../S, then an entry for a/c/victim."""
    out, outside = tmp_path / "D", tmp_path / "S"
    (out / "a" / "c" / f".paddlejob-new-victim-{TOKEN}").mkdir(parents=True)
    (out / f".paddlejob-new-a-{TOKEN}").mkdir()
    (outside / f".paddlejob-new-victim-{TOKEN}").mkdir(parents=True)
    (outside / "victim").write_text("precious\n")
    os.symlink("../../S", out / f".paddlejob-new-a-{TOKEN}" / "c")
    (out / atomic.JOURNAL).write_text(json.dumps([row("a"), row("a/c/victim")]))
    return tmp_path


@pytest.mark.parametrize("check", [True, False], ids=["render-check", "render"])
def test_a_chained_journal_writes_nothing_outside_out(chain, capsys, check):
    before = tree(chain)
    code = cli.main(["render", *(["--check"] if check else []), "--out", str(chain / "D")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert atomic.JOURNAL in err and "Traceback" not in err and "internal error" not in err
    assert (chain / "S" / "victim").read_text() == "precious\n"
    assert tree(chain) == before, "nothing may be touched"


def test_nested_targets_are_refused_even_without_a_link(tmp_path):
    """The rule itself: a render's targets lie side by side, so a journal naming one inside another
    is refused before anything moves, links or not."""
    out = tmp_path / "D"
    (out / "a" / "c" / f".paddlejob-new-victim-{TOKEN}").mkdir(parents=True)
    (out / f".paddlejob-new-a-{TOKEN}" / "c").mkdir(parents=True)
    (out / atomic.JOURNAL).write_text(json.dumps([row("a"), row("a/c/victim")]))
    before = tree(tmp_path)
    with pytest.raises(atomic.RefusedError, match=r"a/c/victim is inside target .*/a, which no render"):
        atomic.recover(out)
    assert tree(tmp_path) == before


def test_a_staged_folder_holding_a_link_anywhere_is_refused(tmp_path, capsys):
    out = tmp_path / "D"
    staged = out / f".paddlejob-new-v1-{TOKEN}" / "deep" / "er"
    staged.mkdir(parents=True)
    (staged / "crd.yaml").write_text("# planted\n")
    os.symlink("/etc", staged / "escape")
    (out / atomic.JOURNAL).write_text(json.dumps([row("v1")]))
    before = tree(tmp_path)
    assert cli.main(["render", "--check", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "holds a symbolic link" in err and "escape" in err, err
    assert tree(tmp_path) == before


def test_recovery_rechecks_each_path_right_before_its_rename(chain, monkeypatch):
    """Were the journal's checks ever to miss a chain, recovery still looks at every folder on the
    way (lstat) right before each rename, and stops short of writing through a link."""
    monkeypatch.setattr(atomic, "_nested", lambda targets: None)
    monkeypatch.setattr(atomic, "_not_plain_tree", lambda folder: "")
    with pytest.raises(atomic.RefusedError, match="stopped before swapping in .*victim"):
        atomic.recover(chain / "D")
    assert (chain / "S" / "victim").read_text() == "precious\n"
    assert sorted(os.listdir(chain / "S")) == [f".paddlejob-new-victim-{TOKEN}", "victim"]


def test_a_render_never_writes_nested_targets(tmp_path, rendered):
    out = tmp_path / "D"
    assert atomic._nested(render.all_targets([(out, rendered.files)])) is None
    assert atomic._nested([out / "v1", out / "v1beta1", out / "files", tmp_path / "docs" / "api.md"]) is None
    assert atomic._nested([out / "a", out / "a-b", out / "a" / "c"]) == (out / "a", out / "a" / "c")
    with pytest.raises(atomic.RefusedError, match="inside"):
        atomic.replace(out, {out / "a": {"x.yaml": "x\n"}, out / "a" / "b": "y\n"})
    assert sorted(os.listdir(out)) == []


# -- bundle-file-folder --------------------------------------------------------------------------


def test_a_folder_where_a_bundle_file_goes_is_drift(tmp_path, capsys):
    out = tmp_path / "D"
    (out / "v1" / "crd.yaml").mkdir(parents=True)
    code = cli.main(["render", "--check", "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 1, captured.err
    assert "internal error" not in captured.err
    assert f"a folder where the render writes a file: {out.name}/v1/crd.yaml" in captured.out + captured.err


def test_a_fifo_where_a_bundle_file_goes_is_drift(tmp_path, capsys):
    out = tmp_path / "D"
    (out / "v1").mkdir(parents=True)
    os.mkfifo(out / "v1" / "jobs.yaml")  # no writer: opened without O_NONBLOCK it would hang
    code = cli.main(["render", "--check", "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 1, captured.err
    assert f"not a regular file where the render writes a file: {out.name}/v1/jobs.yaml" in captured.out + captured.err


def test_a_journal_swapping_a_folder_in_for_a_bundle_file_is_drift(tmp_path, capsys):
    out = tmp_path / "D"
    (out / f".paddlejob-new-v1-{TOKEN}" / "jobs.yaml").mkdir(parents=True)
    (out / atomic.JOURNAL).write_text(json.dumps([row("v1")]))
    code = cli.main(["render", "--check", "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 1, captured.err
    assert "internal error" not in captured.err
    assert f"a folder where the render writes a file: {out.name}/v1/jobs.yaml" in captured.out + captured.err


def test_a_recorded_head_is_read_only_from_a_regular_file(tmp_path):
    (tmp_path / "folder.yaml").mkdir()
    os.mkfifo(tmp_path / "fifo.yaml")
    os.symlink("/dev/zero", tmp_path / "link.yaml")
    for name in ("folder.yaml", "fifo.yaml", "link.yaml"):
        assert render._head(tmp_path / name) is None, name
    assert render._head(Path(os.devnull)) is None
    (tmp_path / "file.yaml").write_text("# a file\n")
    assert render._head(tmp_path / "file.yaml") == b"# a file\n"


# -- chart-int64-max -----------------------------------------------------------------------------

LIMIT = 2**53 - 1


def _toleration(seconds: int) -> str:
    return f"tolerations: [{{key: a, operator: Exists, effect: NoExecute, tolerationSeconds: {seconds}}}]\n"


@pytest.mark.parametrize("seconds", [2**63 - 1, -(2**63), LIMIT + 1, -LIMIT - 1])
def test_params_refuses_what_float64_cannot_hold(seconds, tmp_path):
    problem = params.toleration_problem(
        {"key": "a", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": seconds}
    )
    assert problem is not None and problem[0] == ("tolerationSeconds",)
    assert "2^53-1" in problem[1] and "apiserver" in problem[1] and "this tool" in problem[1], problem[1]
    file = tmp_path / "params.yaml"
    file.write_text(_toleration(seconds))
    done = subprocess.run(
        [sys.executable, "-m", "generator", "render", "--params", str(file), "--out", str(tmp_path / "D")],
        capture_output=True, text=True, timeout=120, cwd=REPO, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "tolerations[0].tolerationSeconds" in done.stderr and not (tmp_path / "D").exists()


@pytest.mark.parametrize("seconds", [LIMIT, -LIMIT, 0, 300])
def test_params_takes_the_limit(seconds):
    toleration = {"key": "a", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": seconds}
    assert params.toleration_problem(toleration) is None


def test_the_chart_states_the_same_bound():
    schema = json.loads((CHART / "values.schema.json").read_text())
    seconds = schema["properties"]["tolerations"]["items"]["properties"]["tolerationSeconds"]
    assert (seconds["minimum"], seconds["maximum"]) == (-params.TOLERATION_SECONDS_MAX, params.TOLERATION_SECONDS_MAX)
    assert params.TOLERATION_SECONDS_MAX == LIMIT and float(LIMIT) == LIMIT


@pytest.mark.parametrize("helm", HELM)
@pytest.mark.parametrize(("seconds", "taken"), [(LIMIT, True), (-LIMIT, True), (LIMIT + 1, False), (2**63 - 1, False)])
def test_helm_and_params_agree(helm, seconds, taken, tmp_path):
    values = tmp_path / "values.yaml"
    values.write_text(_toleration(seconds))
    done = run_helm(helm, "template", "x", str(CHART), "-n", "paddle-system", "-f", str(values))
    assert (done.returncode == 0) == taken, done.stderr
    if taken:
        assert f"tolerationSeconds: {seconds}\n" in done.stdout  # exactly, not rounded
    problem = params.toleration_problem(
        {"key": "a", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": seconds}
    )
    assert (problem is None) == taken, problem


@pytest.mark.parametrize("pages", ["9" * 64, "1" + "0" * 80 + "Gi"])
def test_a_huge_hugepages_quantity_is_a_finding_not_an_internal_error(tmp_path, pages):
    """The fuzzer's values case 687567330: a 64-digit hugepages request made Decimal's % give up
    (DivisionImpossible), exit 3; whole pages are now counted exactly, in validate and --params."""
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: c\n      image: busybox:1\n"
        f"      resources:\n        requests: {{hugepages-2Mi: '{pages}', memory: 1Gi}}\n"
        f"        limits: {{hugepages-2Mi: '{pages}', memory: 1Gi}}\n"
    )
    (tmp_path / "pod.yaml").write_text(pod)
    done = subprocess.run(
        [sys.executable, "-m", "generator", "validate", str(tmp_path / "pod.yaml")],
        cwd=REPO, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode in (0, 1) and "internal error" not in done.stderr, done.stderr
    (tmp_path / "params.yaml").write_text(f'resources: {{"requests": {{"hugepages-2Mi": "{pages}"}}}}\n')
    done = subprocess.run(
        [sys.executable, "-m", "generator", "render", "--params", str(tmp_path / "params.yaml"), "--out", "D"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    assert done.returncode in (0, 1, 2) and "internal error" not in done.stderr, done.stderr
