"""validate's output formats, each read by a real consumer of that format: JUnit XML by
junitparser, SARIF 2.1.0 by Microsoft's SARIF Multitool (`validate`, which checks the schema and
the spec's rules), GitHub Actions annotations against the workflow-command syntax."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import FIXTURES, REPO

MULTITOOL = REPO / ".venv" / "node" / "node_modules" / "@microsoft" / "sarif-multitool-linux" / "Sarif.Multitool"
BAD = [str(FIXTURES / "validate" / "bad" / n) for n in ("volcano-job.yaml", "unknown-kind.yaml", "quantity.yaml")]


def validate(output: str, *paths: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "generator", "validate", "--output", output, *paths],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip


def test_junit_reads_back_in_junitparser(tmp_path):
    from junitparser import Failure, JUnitXml

    done = validate("junit", *BAD, str(FIXTURES / "validate" / "good" / "volcano.yaml"))
    assert done.returncode == 1
    path = tmp_path / "report.xml"
    path.write_text(done.stdout)
    (suite,) = list(JUnitXml.fromfile(str(path)))
    cases = list(suite)
    failed = [c for c in cases if any(isinstance(r, Failure) for r in c.result)]
    assert suite.tests == len(cases) and suite.failures == len(failed) >= 2
    assert any("volcano-job.yaml" in c.classname for c in failed)
    warned = [c for c in cases if "unknown-kind.yaml" in c.classname]
    assert warned and not warned[0].result, "a warning alone does not fail a test case"


@pytest.mark.skipif(not MULTITOOL.exists(), reason="the SARIF Multitool is not installed (make)")
def test_sarif_passes_microsofts_sarif_validator(tmp_path):
    done = validate("sarif", *BAD)
    assert done.returncode == 1
    log = tmp_path / "report.sarif"
    log.write_text(done.stdout)

    def problems(path: Path) -> list[tuple[str, str]]:
        out = tmp_path / "validation.sarif"
        subprocess.run([str(MULTITOOL), "validate", str(path), "-o", str(out), "--log", "ForceOverwrite"],
                       capture_output=True, check=True, timeout=300)  # fmt: skip
        results = json.loads(out.read_text())["runs"][0]["results"]
        return [(r.get("level", "warning"), r["ruleId"]) for r in results]

    assert problems(log) == []
    broken = tmp_path / "broken.sarif"
    broken.write_text('{"version": "2.1.0", "runs": [{"tool": {}}]}')
    assert ("error", "JSON1002") in problems(broken), "the validator does find schema errors"
    results = json.loads(done.stdout)["runs"][0]["results"]
    assert {r["level"] for r in results} == {"error", "warning"}
    assert all(r["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1 for r in results)


GITHUB_COMMAND = re.compile(r"^::(error|warning) file=([^,:]*),line=(\d+),col=(\d+),title=([^,:]*)::(.*)$")


def test_github_annotations_are_workflow_commands(tmp_path):
    done = validate("github", *BAD)
    lines = done.stdout.splitlines()
    commands = [GITHUB_COMMAND.match(line) for line in lines[:-1]]
    assert commands and all(commands), lines
    assert {m.group(1) for m in commands} == {"error", "warning"}
    # a value with the command syntax in it is escaped, as the runner expects
    odd = tmp_path / "a,b:c.yaml"
    odd.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {k: 1}\n")
    line = validate("github", str(odd)).stdout.splitlines()[0]
    assert "file=" + str(odd).replace(",", "%2C").replace(":", "%3A") + "," in line


def test_sarif_describes_each_rule_from_the_rulebook_with_a_link_that_resolves():
    from generator.core import rulebook

    log = json.loads(validate("sarif", *BAD).stdout)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert len(rules) >= 3
    doc = (REPO / "docs" / "validate.md").read_text()
    for rule in rules:
        entry = rulebook.RULES[rule["id"]]
        assert rule["shortDescription"]["text"] == entry.summary
        assert rule["defaultConfiguration"]["level"] == entry.severities[0]
        anchor = rule["helpUri"].rpartition("#")[2]
        assert rule["helpUri"].startswith("https://") and f'<a id="{anchor}"></a>`{entry.id}`' in doc


def test_several_outputs_in_one_run_files_written_whole(tmp_path):
    sarif, junit = tmp_path / "results.sarif", tmp_path / "out" / "report.xml"
    junit.parent.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "generator", "validate", "--no-config", "--output", f"sarif={sarif}",
         "--output", "text", "-o", f"junit={junit}", *BAD],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stdout.strip().splitlines()[-1].endswith("(invalid)")  # the text, on stdout
    assert json.loads(sarif.read_text())["runs"][0]["results"]
    assert junit.read_text().startswith("<?xml")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging file left
    two = validate("json", "--output", "text", *BAD)
    assert two.returncode == 2 and "both to standard output" in two.stderr
    unknown = validate("sarf=x.sarif", *BAD)
    assert unknown.returncode == 2 and "did you mean 'sarif'?" in unknown.stderr
