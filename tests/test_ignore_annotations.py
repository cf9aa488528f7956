"""An object's annotation `ignore-check.paddlejob-manifests.io/RULE: "reason"` (kube-linter's
shape) silences RULE on that object alone: reported as ignored, with its reason, in the summary,
in JSON and in SARIF (a suppression of kind inSource); a rule id the rulebook lacks is itself a
warning naming the nearest one."""

from __future__ import annotations

import json
import subprocess
import sys

from .conftest import REPO

ENV = "env: [{name: A, value: '1'}, {name: A, value: '2'}]"


def pod(name: str, annotations: str = "") -> str:
    meta = f"metadata:\n  name: {name}\n" + (f"  annotations:\n{annotations}" if annotations else "")
    return f"apiVersion: v1\nkind: Pod\n{meta}spec:\n  containers: [{{name: c, image: 'nginx:1', {ENV}}}]\n"


def validate(tmp_path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "generator", "validate", "--no-config", *argv],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)},
    )  # fmt: skip


def test_the_annotation_silences_its_rule_on_its_object_only(tmp_path):
    silenced = "    ignore-check.paddlejob-manifests.io/env-duplicate: the launcher reads the last one\n"
    (tmp_path / "pods.yaml").write_text(pod("quiet", silenced) + "---\n" + pod("loud"))
    done = validate(tmp_path, "-o", "json", "pods.yaml")
    report = json.loads(done.stdout)
    assert [(f["name"], f["rule"]) for f in report["findings"]] == [("loud", "env-duplicate")]
    (ignored,) = report["ignored"]
    assert ignored["name"] == "quiet" and ignored["rule"] == "env-duplicate"
    assert ignored["reason"] == "the launcher reads the last one" and ignored["line"] >= 1
    assert report["summary"]["ignored"] == 1 and report["warnings"] == 1


def test_sarif_reports_it_as_an_in_source_suppression_with_its_justification(tmp_path):
    silenced = '    ignore-check.paddlejob-manifests.io/env-duplicate: "kept for the old image"\n'
    (tmp_path / "pods.yaml").write_text(pod("quiet", silenced))
    done = validate(tmp_path, "-o", "sarif", "pods.yaml")
    (result,) = json.loads(done.stdout)["runs"][0]["results"]
    assert result["ruleId"] == "env-duplicate"
    assert result["suppressions"] == [{"kind": "inSource", "justification": "kept for the old image"}]


def test_an_error_silenced_leaves_the_run_valid_and_the_summary_says_so(tmp_path):
    limits = "resources: {requests: {cpu: '2'}, limits: {cpu: '1'}}"
    (tmp_path / "pod.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n"
        "    ignore-check.paddlejob-manifests.io/resources: a LimitRange sets them\n"
        f"spec:\n  containers: [{{name: c, image: 'nginx:1', {limits}}}]\n"
    )
    done = validate(tmp_path, "pod.yaml")
    assert done.returncode == 0, done.stdout
    assert "1 finding ignored" in done.stdout and "0 errors" in done.stdout


def test_a_misspelt_rule_id_is_a_warning_naming_the_nearest(tmp_path):
    typo = "    ignore-check.paddlejob-manifests.io/env-duplicat: typo\n"
    (tmp_path / "pod.yaml").write_text(pod("p", typo))
    done = validate(tmp_path, "pod.yaml")
    assert done.returncode == 0
    assert "no rule 'env-duplicat'" in done.stdout and "env-duplicate? [ignore-check]" in done.stdout
    assert "pod.yaml:6:5: warning" in done.stdout  # on the annotation's line
    assert "[env-duplicate]" in done.stdout  # nothing silenced
