"""The fixture corpus: every bad fixture names the findings it must produce (line, rule, path),
every good one must produce none. One file per rule; the seeds' examples are in it too."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator import kube, validate

from .conftest import FIXTURES

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
            return kube.parse_version(line.split(":", 1)[1])
    return kube.known_versions()[-1]


def project_release(path: Path, project: str):
    for line in header(path):
        if line.startswith(f"# {project}-version:"):
            major, minor = line.split(":", 1)[1].strip().split(".")
            return int(major), int(minor)
    return None


def findings(path: Path):
    checker = validate.ObjectChecker(
        kube_version(path), volcano=project_release(path, "volcano"), kubeflow=project_release(path, "kubeflow")
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


def test_the_corpus_covers_every_rule_the_validator_has():
    import re

    sources = "".join(
        Path(validate.__file__).with_name(n).read_text() for n in ("rules.py", "validate.py", "yamlload.py")
    )
    first_argument = r'(?:f?"[^"\n]*"|[\w.]+)'
    declared = set(re.findall(r"(?:error|warning)\(\s*" + first_argument + r',\s*(?:f?)"([a-z0-9-]+)"', sources))
    declared |= set(re.findall(r'Finding\(\s*\w+,\s*"kind",\s*"([a-z0-9-]+)"', sources))
    declared |= set(re.findall(r'self\._?problem\(\s*\w+,\s*"([a-z0-9-]+)"', sources))
    declared |= set(re.findall(r'Problem\([^()]*?,\s*"([a-z0-9-]+)"', sources))
    covered = {rule for path in BAD for _, rule, _ in expectations(path)}
    # rules whose trigger needs another kind of input than a fixture file, tested elsewhere
    elsewhere = {
        "crd-size",  # test_validate_cli: a CRD rendered with --keep-descriptions
        "yaml-size",  # test_hostile_input: a 60 MB document is no fixture
        "file",  # a file that cannot be read: test_validate_cli
        "empty",  # no document at all: test_validate_cli
    }
    assert len(declared) > 30
    assert declared - covered - elsewhere == set()
