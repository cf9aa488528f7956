"""The fixture corpus: every bad fixture names the findings it must produce (line, rule, path),
every good one must produce none. One file per rule; the seeds' examples are in it too."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from generator import validate
from generator.core import rulebook
from generator.schema import kubernetes, projects
from generator.validate import sources as schemasource

from .conftest import FIXTURES, KUBECTL, kubectl_decode_error, needs_kubectl

BAD = sorted(p for p in (FIXTURES / "validate" / "bad").iterdir() if p.suffix in validate.EXTENSIONS)
GOOD = sorted(p for p in (FIXTURES / "validate" / "good").iterdir() if p.suffix in validate.EXTENSIONS)


def header(path: Path) -> list[str]:
    source = path.with_name(path.name + ".expect") if path.suffix == ".json" else path
    if not source.exists():
        return []
    text = source.read_bytes().decode("utf-8", "replace")  # some fixtures are not UTF-8 on purpose
    return [line for line in text.splitlines() if line.startswith("#")]


def expectations(path: Path) -> set[tuple[int, str, str]]:
    found = set()
    for line in header(path):
        if line.startswith("# expect:"):
            number, rule, field = line.split(":", 1)[1].split(None, 2)
            found.add((int(number), rule, "" if field == "-" else field))
    return found


def kube_version(path: Path) -> int:
    for line in header(path):
        if line.startswith("# kube-version:"):
            return kubernetes.parse_version(line.split(":", 1)[1])
    return kubernetes.known_versions()[-1]


def project_release(path: Path, project: str):
    for line in header(path):
        if line.startswith(f"# {project}-version:"):
            return projects.parse_release(project, line.split(":", 1)[1].strip())
    return None


def kueue_release(path: Path) -> str | None:
    """The Kueue release a fixture is judged by (`# kueue-version: 0.N`), as --kueue-version."""
    from generator.validate.rules import kueue

    for line in header(path):
        if line.startswith("# kueue-version:"):
            return kueue.release(line.split(":", 1)[1].strip())
    return None


def crds(path: Path) -> schemasource.CrdSource | None:
    """The CRDs a fixture is checked with (`# crd: PATH` lines, under tests/fixtures), as --crd."""
    named = [str(FIXTURES / line.split(":", 1)[1].strip()) for line in header(path) if line.startswith("# crd:")]
    return schemasource.CrdSource(named) if named else None


def findings(path: Path):
    checker = validate.ObjectChecker(
        kube_version(path),
        projects={name: project_release(path, name) for name in projects.VALIDATED},
        crds=crds(path),
        kueue=kueue_release(path),
    )
    return validate.validate_files([str(path)], checker)


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_bad_fixture_gives_exactly_its_findings(path):
    expected = expectations(path)
    assert expected, f"{path.name} names no expected finding"
    report = findings(path)
    got = {(item.line, item.finding.rule, item.finding.path) for item in report.findings}
    assert got == expected
    for item in report.findings:
        assert item.file == str(path) and item.column >= 1 and item.finding.message


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_good_fixture_is_clean(path):
    report = findings(path)
    assert [f"{i.line} {i.finding.rule} {i.finding.path}: {i.finding.message}" for i in report.findings] == []
    assert report.documents >= 1


def good_for(path: Path) -> set[str]:
    """The rules a good fixture shows the valid side of (`# good-for: RULE ...` lines)."""
    return {rule for line in header(path) if line.startswith("# good-for:") for rule in line.split(":", 1)[1].split()}


def test_every_rule_of_the_rulebook_has_a_bad_and_a_good_fixture():
    """Read from the rulebook, so a new rule cannot go without its fixtures."""
    bad = {rule for path in BAD for _, rule, _ in expectations(path)}
    good = {rule for path in GOOD for rule in good_for(path)}
    assert bad | good <= set(rulebook.RULES), "a fixture names a rule the rulebook does not have"
    without_bad = {r.id for r in rulebook.RULES.values() if r.id not in bad and not r.bad_case_elsewhere}
    assert without_bad == set(), "rules without a bad fixture (or a named test elsewhere)"
    # a rule whose bad case needs other input than a file (a 60 MB document, several releases)
    # is tested on both sides where its bad case is
    without_good = {r.id for r in rulebook.RULES.values() if r.id not in good and not r.bad_case_elsewhere}
    assert without_good == set(), "rules without a good fixture (`# good-for:`)"


def test_a_finding_refuses_a_rule_or_severity_the_rulebook_does_not_have():
    from generator.core.findings import Finding

    finding = Finding("error", "spec.replicas", "schema", "must be an integer")
    assert finding.is_error and finding._replace(path="spec").path == "spec"
    with pytest.raises(ValueError, match="'schema-typo' .* not in the rulebook"):
        Finding("error", "spec", "schema-typo", "x")
    warning_only = next(rule.id for rule in rulebook.RULES.values() if rule.severities == rulebook.WARNING)
    with pytest.raises(ValueError, match="not in the rulebook"):
        Finding("error", "spec", warning_only, "x")


def test_every_rule_id_in_the_code_is_in_the_rulebook():
    """Rule ids are string literals in the checkers: each one written there is in the rulebook
    (findings.Finding refuses others at run time; this finds them before a user does)."""
    import re

    package = Path(validate.__file__).parent
    sources = {p: p.read_text() for p in [*package.glob("*.py"), *package.glob("rules/*.py")]}
    first_argument = r'(?:f?"[^"\n]*"|[\w.]+)'
    calls = (
        r"(?:error|warning)\(\s*" + first_argument + r',\s*"([a-z0-9-]+)"',
        r'Finding\(\s*(?:"error"|"warning"|\w+),\s*[^,()]+,\s*"([a-z0-9-]+)"',
        r'Problem\([^()]*?,\s*"([a-z0-9-]+)"',
    )
    used = {rule for text in sources.values() for pattern in calls for rule in re.findall(pattern, text)}
    assert len(used) > 50
    assert used - set(rulebook.RULES) - rulebook.INTERNAL == set()


@needs_kubectl
@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_kubectl_reads_every_good_fixture(path):
    """A good fixture is good for kubectl too: it decodes every document (offline)."""
    assert kubectl_decode_error(path) is None


# Reader rules for which kubectl itself refuses the file (go-yaml v2 and sigs.k8s.io/yaml fail).
KUBECTL_REFUSES = {"yaml-syntax", "json-syntax", "yaml-json", "yaml-key", "yaml-merge", "yaml-alias", "not-an-object"}


@needs_kubectl
@pytest.mark.parametrize(
    "path",
    [p for p in BAD if {rule for _, rule, _ in expectations(p)} & KUBECTL_REFUSES],
    ids=lambda p: p.name,
)
def test_kubectl_refuses_what_the_reader_says_kubectl_refuses(path):
    assert kubectl_decode_error(path) is not None


@needs_kubectl
def test_kubectl_turns_a_byte_that_is_not_utf8_into_u_fffd(tmp_path):
    """yaml-encoding's message: kubectl reads the file, but the text is no longer the user's."""
    import json

    fixture = FIXTURES / "validate" / "bad" / "yaml-encoding.yaml"
    done = subprocess.run(
        [KUBECTL, "label", "--local", "-f", str(fixture), "probe=yes", "-o", "json"],
        capture_output=True, text=True, env={"KUBECONFIG": "/dev/null"}, check=True,
    )  # fmt: skip
    assert "\ufffd" in json.loads(done.stdout)["data"]["greeting"]
