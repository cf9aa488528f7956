"""The summary: files, documents valid, invalid and skipped (by kind), findings ignored; the
totals in JSON; no test case standing for nothing in JUnit and TAP."""

from __future__ import annotations

import json
import subprocess
import sys

from .conftest import REPO

GOOD = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: good}\n"
BAD = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Bad_Name}\n"
SECRET = "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n"


def validate(tmp_path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "generator", "validate", "--no-config", *argv],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)},
    )  # fmt: skip


def test_text_summary_counts_files_valid_invalid_and_skipped_kinds(tmp_path):
    (tmp_path / "a.yaml").write_text(GOOD + "---\n" + BAD)
    (tmp_path / "b.yaml").write_text(SECRET + "---\n" + SECRET)
    (tmp_path / "values.yaml").write_text("replicas: 1\n")
    done = validate(tmp_path, "--skip-kinds", "Secret", ".")
    *_, detail, total = done.stdout.strip().splitlines()
    assert detail == (
        "2 files: 1 document valid, 1 invalid, 2 skipped (Secret: 2; --skip-kinds); 1 file skipped (not manifests)"
    )
    assert total == "4 documents: 1 error, 0 warnings (invalid)"


def test_json_has_the_totals_and_the_breakdown(tmp_path):
    (tmp_path / "a.yaml").write_text(GOOD + "---\n" + BAD + "---\n" + SECRET)
    report = json.loads(validate(tmp_path, "-o", "json", "--skip-kinds", "Secret", "a.yaml").stdout)
    assert report["errors"] == 1 and report["warnings"] == 0
    summary = report["summary"]
    assert (summary["files"], summary["documents"], summary["valid"], summary["invalid"]) == (1, 3, 1, 1)
    assert summary["skipped"]["kinds"] == {"Secret": 1} and summary["ignored"] == 0


def test_junit_has_no_test_case_for_no_documents(tmp_path):
    (tmp_path / "a.yaml").write_text(BAD)
    text = validate(tmp_path, "-o", "junit", "a.yaml").stdout
    assert "without findings" not in text and 'tests="1"' in text
    (tmp_path / "b.yaml").write_text(GOOD)
    both = validate(tmp_path, "-o", "junit", "a.yaml", "b.yaml").stdout
    assert "1 document without findings" in both and 'tests="2"' in both
