"""What people type from habit (kubeconform's and kubectl's flags, jsonnet's variables, process
substitution, pre-commit naming every changed file) gets an answer, never a traceback."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from tap.parser import Parser

from .conftest import FIXTURES, REPO, load_all

GOOD = FIXTURES / "validate" / "good"
BAD = FIXTURES / "validate" / "bad"


def cli(*argv: str, stdin: str | None = None, cwd=REPO) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "generator", *argv], cwd=cwd, input=stdin, capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize(
    "argv, hint",
    [
        (["validate", "-summary", "x.yaml"], "-summary: use --summary"),
        (["validate", "-skip", "Secret", "x.yaml"], "-skip: use --skip-kinds"),
        (["validate", "-schema-location", "default", "x.yaml"], "use --crd FILE for your CRDs"),
        (["validate", "-f", "x.yaml"], "give the files and folders as arguments"),
        (["validate", "--dry-run=server", "x.yaml"], "never contacts a cluster"),
        (["render", "--nmespace", "x"], "did you mean --namespace?"),
    ],
)
def test_flags_from_other_tools_are_answered_under_the_subcommands_usage(argv, hint):
    done = cli(*argv)
    assert done.returncode == 2
    assert f"usage: paddlejob-manifests {argv[0]}" in done.stderr
    assert "unrecognized arguments" in done.stderr and hint in done.stderr


def test_strict_fails_on_warnings_and_summary_goes_to_stderr():
    warned = str(BAD / "paddlejob-sampleset.yaml")  # a warning only
    assert cli("validate", warned).returncode == 0
    strict = cli("validate", "--strict", "--summary", "-o", "json", warned)
    assert strict.returncode == 1
    assert strict.stderr.strip().endswith("(invalid)") and '"valid": false' in strict.stdout


def test_stdin_and_process_substitution_read_like_files():
    good, validate = GOOD / "kubeflow.yaml", f"{sys.executable} -m generator validate"
    for command in (
        f"{validate} /dev/stdin < {good}",
        f"{validate} <(cat {good})",
        f"cat {good} | {validate} /dev/stdin",
    ):
        done = subprocess.run(["bash", "-c", command], cwd=REPO, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, (command, done.stderr)
        assert "(valid)" in done.stdout


def test_tap_output_is_read_by_a_tap_parser():
    done = cli("validate", "-o", "tap", str(BAD / "label-value.yaml"), str(GOOD / "kubeflow.yaml"))
    assert done.returncode == 1
    lines = list(Parser().parse_text(done.stdout))
    plan = [line for line in lines if line.category == "plan"]
    tests = [line for line in lines if line.category == "test"]
    assert plan[0].expected_tests == len(tests) == 2
    assert [t.ok for t in tests] == [False, True]
    assert any(line.category == "version" and line.version == 13 for line in lines)
    assert "label-value" in done.stdout


def test_files_named_that_are_no_manifests_are_skipped_by_name(tmp_path):
    (tmp_path / "chart" / "templates").mkdir(parents=True)
    (tmp_path / "chart" / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (tmp_path / "chart" / "templates" / "cm.yaml").write_text("metadata:\n  name: {{ .Release.Name }}\n")
    (tmp_path / "values.yaml").write_text("replicas: 3\nimage: {tag: v1}\n")
    (tmp_path / "kustomization.yaml").write_text("resources: [cm.yaml]\npatches: [{path: patch.yaml}]\n")
    (tmp_path / "patch.yaml").write_text("metadata: {name: cm}\ndata: {a: b}\n")
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n")
    (tmp_path / "jsonnetfile.json").write_text('{"version": 1, "dependencies": []}\n')
    (tmp_path / "docker-compose.yml").write_text("services: {web: {image: nginx}}\n")
    named = [
        "jsonnetfile.json",
        "docker-compose.yml",
        "values.yaml",
        "kustomization.yaml",
        "patch.yaml",
        "chart/Chart.yaml",
        "chart/templates/cm.yaml",
        "cm.yaml",
    ]
    done = cli("validate", *named, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == "1 document: 0 errors, 0 warnings (valid)"
    assert len(re.findall(r": skipped: ", done.stderr)) == 7
    walked = cli("validate", ".", cwd=tmp_path)  # the folder walk skips the same files
    assert walked.returncode == 0 and walked.stdout.strip() == "1 document: 0 errors, 0 warnings (valid)"
    assert "jsonnetfile.json: skipped: jsonnet-bundler's configuration" in walked.stderr


def test_an_unbalanced_quote_is_a_usage_error():
    done = cli("job", "x", "--image", "registry.example.com/a:1", "--workers", "1", "--command", "python 'train.py")
    assert done.returncode == 2 and "--command: No closing quotation" in done.stderr


def test_the_readme_jsonnet_example_renders_with_jsonnet_variables(tmp_path):
    readme = (REPO / "README.md").read_text()
    (block,) = re.findall(r"```jsonnet\n(.*?)```", readme, re.S)
    (tmp_path / "operator.jsonnet").write_text(block)
    done = cli("render", str(tmp_path / "operator.jsonnet"), "--ext-str", "namespace=training")
    assert done.returncode == 0, done.stderr
    docs = load_all(done.stdout)
    assert docs[0]["kind"] == "Namespace" and {d["kind"] for d in docs} >= {"CustomResourceDefinition", "Deployment"}
    (deployment,) = [d for d in docs if d["kind"] == "Deployment"]
    assert deployment["metadata"]["namespace"] == "training"
    missing = cli("render", str(tmp_path / "operator.jsonnet"))
    assert missing.returncode == 1 and "namespace" in missing.stderr


def test_top_level_arguments_and_code(tmp_path):
    source = tmp_path / "cm.jsonnet"
    source.write_text(
        "function(name, replicas=1) { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: name },"
        " data: { n: std.toString(replicas), e: std.extVar('e') } }"
    )
    done = cli("render", str(source), "--tla-str", "name=cm", "--tla-code", "replicas=1+2", "--ext-code", "e='x'")
    assert done.returncode == 0, done.stderr
    assert load_all(done.stdout) == [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"n": "3", "e": "x"}}
    ]
    assert cli("render", str(source), "--tla-str", "bad-name=x").returncode == 2
