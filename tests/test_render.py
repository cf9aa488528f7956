"""The render pipeline: drift, determinism, engines, atomic failure, sizes, CLI."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import pytest

from generator import cli
from generator.core.paths import DEPLOY, GENERATED_LIB
from generator.jsonnet import engine
from generator.render import atomic, bundles
from generator.render import pipeline as render

from .conftest import REPO


def tree_digest(root) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_committed_deploy_matches_a_fresh_render(rendered):
    assert render.diff_against_disk(DEPLOY, rendered.files, exact=True) == render.Drift()


def test_committed_library_api_data_matches_a_fresh_render():
    files = {f"generated/{k}": v for k, v in render.generated_api_files(bundles.default_bundles()).items()}
    assert render.diff_against_disk(GENERATED_LIB.parent, files, exact=True) == render.Drift()


def test_two_renders_are_byte_identical(rendered):
    again = render.render(bundles.default_bundles(), {})
    assert again.files == rendered.files


@pytest.mark.parametrize("other", ["cpp", "go"])
def test_every_jsonnet_engine_gives_identical_data(other):
    """rjsonnet renders; the C++ and Go engines, the reference implementations, agree with it."""
    import json

    from generator.schema import crd as crdschema

    bundle = bundles.default_bundles()[0]
    params = {"apiextensions": "v1", "scheduling": "volcano", "networkPolicy": True}
    api = {"apiJson": json.dumps(crdschema.api_data(bundle.target))}
    fast = engine.evaluate(bundles.BUNDLE_ENTRY, {"params": params}, engine="rjsonnet", tla_strings=api)
    assert engine.evaluate(bundles.BUNDLE_ENTRY, {"params": params}, engine=other, tla_strings=api) == fast
    example = REPO / "examples" / "ctr-kubernetes.jsonnet"
    assert engine.evaluate(example, {}, engine=other) == engine.evaluate(example, {}, engine="rjsonnet")


def write(out, files):
    atomic.replace(out, render.targets(out, files))


def test_drift_check_reports_a_hand_edit(tmp_path, rendered):
    write(tmp_path, rendered.files)
    assert render.diff_against_disk(tmp_path, rendered.files, exact=True) == render.Drift()
    target = tmp_path / "v1" / "operator.yaml"
    target.write_text(target.read_text().replace("replicas: 1", "replicas: 3"))
    (tmp_path / "v1" / "stray.yaml").write_text("kind: Stray\n")
    (tmp_path / "v1" / "empty.yaml").write_text("")
    diff = render.diff_against_disk(tmp_path, rendered.files).diff
    assert "-  replicas: 3" in diff and "+  replicas: 1" in diff
    assert "stray.yaml" in diff
    assert "only on disk: " in diff and "v1/empty.yaml" in diff


def test_check_flag_exits_1_with_the_diff(tmp_path, rendered, capsys):
    write(tmp_path, rendered.files)
    assert cli.main(["render", "--check", "--out", str(tmp_path)]) == 0
    (tmp_path / "v1beta1" / "Kustomization").write_text("edited\n")
    assert cli.main(["render", "--check", "--out", str(tmp_path)]) == 1
    out = capsys.readouterr()
    assert "Kustomization" in out.out and "make manifests" in out.err


def test_check_tells_formatting_from_objects(tmp_path, rendered, capsys):
    """A GitOps repository's own YAML formatter rewrites the files: the objects are the same."""
    import yaml

    write(tmp_path, rendered.files)
    target = tmp_path / "v1" / "operator.yaml"
    objects = [d for d in yaml.safe_load_all(target.read_text()) if d]
    target.write_text(yaml.safe_dump_all(objects, indent=4, sort_keys=False, default_flow_style=None, width=60))
    assert cli.main(["render", "--check", "--out", str(tmp_path)]) == 0
    assert "same objects, formatting differs in 1 files" in capsys.readouterr().err
    assert cli.main(["render", "--check", "--exact", "--out", str(tmp_path)]) == 1
    assert "same objects, formatting differs: " in capsys.readouterr().out
    objects[0]["metadata"]["name"] = "renamed"
    target.write_text(yaml.safe_dump_all(objects, indent=4, sort_keys=False))
    assert cli.main(["render", "--check", "--out", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "+  name: paddle-system" in out and len(out.splitlines()) < 40, "a diff of the objects, not of the layout"


def test_failed_jsonnet_leaves_output_untouched(tmp_path, rendered):
    write(tmp_path, rendered.files)
    before = tree_digest(tmp_path)
    with pytest.raises(render.RenderError, match="scheduling must be '' or 'volcano'"):
        render.render(bundles.default_bundles(), {"scheduling": "slurm"})
    assert tree_digest(tmp_path) == before


def test_invalid_object_is_never_written(tmp_path, rendered, capsys):
    out = tmp_path / "deploy"
    write(out, rendered.files)
    before = tree_digest(out)
    params = tmp_path / "params.yaml"
    # Each value is well formed (--params checks that), but a request above its limit is for the
    # apiserver's validation of the object to refuse.
    params.write_text("resources: {limits: {cpu: 100m, memory: 300Mi}, requests: {cpu: 200m, memory: 20Mi}}\n")
    code = cli.main(["render", "--out", str(out), "--params", str(params)])
    err = capsys.readouterr().err
    assert code == 1
    assert "nothing was written" in err
    assert "Deployment/paddle-controller-manager: spec.template.spec.containers[0].resources.requests" in err
    assert "above the limit" in err
    # file:line:column of the offending object in the would-be output
    assert "v1/operator.yaml:" in err
    assert tree_digest(out) == before
    assert not [p for p in out.iterdir() if p.name.startswith(".")], "no staging directories left behind"


def test_error_points_at_the_line_of_the_field(tmp_path, capsys):
    params = tmp_path / "params.yaml"
    params.write_text("resources: {limits: {cpu: 100m, memory: 300Mi}, requests: {cpu: 200m, memory: 20Mi}}\n")
    assert cli.main(["render", "--out", str(tmp_path / "out"), "--params", str(params)]) == 1
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if "resources.requests" in x)
    location = line.split(": error:")[0].strip()  # e.g. v1/operator.yaml:153:9
    file_part, line_no, _ = location.rsplit(":", 2)
    good = {"resources": {"limits": {"cpu": "100m", "memory": "300Mi"}, "requests": {"cpu": "50m", "memory": "20Mi"}}}
    text = render.render(bundles.default_bundles(), good).files[file_part]
    assert text.splitlines()[int(line_no) - 1].strip().startswith("cpu:")
    assert not (tmp_path / "out").exists()


def test_render_writes_and_replaces(tmp_path, rendered):
    out = tmp_path / "deploy"
    (out / "v1").mkdir(parents=True)
    (out / "v1" / "old.yaml").write_text("stale\n")
    (out / "examples").mkdir()
    (out / "examples" / "keep.yaml").write_text("kept\n")
    write(out, rendered.files)
    assert not (out / "v1" / "old.yaml").exists()
    assert (out / "examples" / "keep.yaml").read_text() == "kept\n", "directories render does not own stay"
    assert render.diff_against_disk(out, rendered.files, exact=True) == render.Drift()


def test_default_crds_fit_client_side_apply_with_margin(rendered):
    for line in rendered.summary:
        share = int(line.rsplit("(", 1)[1].split("%")[0])
        assert share < 80, line
    assert rendered.warnings == []


def test_keep_descriptions_warns_about_the_apply_limit():
    result = render.render(bundles.default_bundles(), {}, keep_descriptions=True)
    assert any("kubectl apply --server-side" in w for w in result.warnings)
    assert "description:" in result.files["v1/crd.yaml"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--kube-version", "1.9"], "--kube-version: Kubernetes 1.9 is not known"),
        (["--kube-version", "one.two"], "is not a Kubernetes version"),
        (["--node-selector", "gpu"], "--node-selector: expected KEY=VALUE"),
        (["--requests", "cpu=lots"], "is not a Kubernetes quantity"),
        (["--toleration", "gpu:Sometimes"], "--toleration: expected KEY[=VALUE]:EFFECT"),
        (["--namespace", "Paddle_System"], "is not a namespace name"),
        (["--label", "team=a b"], "label value 'a b'"),
        (["--replicas", "-1"], "--replicas (replicas): expected a whole number from 0"),
    ],
)
def test_bad_flags_exit_2_naming_the_option(tmp_path, capsys, argv, message):
    try:
        code = cli.main(["render", "--out", str(tmp_path / "o"), *argv])
    except SystemExit as exit:  # argparse's own: --kube-version is parsed by its type
        code = exit.code
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_console_entry_point_runs_as_a_module(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "generator", "render", "--out", str(tmp_path), "--scheduling", "volcano"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "validated against 19 releases" in done.stderr
    assert "scheduling.volcano.sh" in (tmp_path / "v1" / "operator.yaml").read_text()
