"""The real-world corpus: tests/fixtures/realworld/ holds manifests of public repositories (plain
manifests and charts rendered with `helm template`), each pinned in SOURCES.json by repository,
commit and path (tests/realworld_gather.py gathers them again). `validate` must find nothing
in it but unknown kinds (the projects' own CRDs, a warning as kubeconform's
-ignore-missing-schemas), except the findings SOURCES.json records, each judged there: a true
finding (the apiserver refuses the document as stored) or a known false positive of this tool."""

from __future__ import annotations

import collections
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.kubeyaml import load

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "fixtures" / "realworld"
SOURCES = json.loads((CORPUS / "SOURCES.json").read_text())["files"]
BY_FILE = {record["file"]: record for record in SOURCES}


def _validate() -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "generator", "validate", "-o", "json", "--max-errors", "0"]
        + ["--ignore", r"SOURCES\.json$", str(CORPUS)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=600,
    )
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def report() -> dict:
    return _validate()


def test_sources_pin_every_stored_file_with_its_sha256():
    stored = {str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*") if p.suffix in (".yaml", ".yml")}
    assert stored == set(BY_FILE)
    for record in SOURCES:
        assert len(record["commit"]) == 40 and record["repository"].startswith("https://github.com/")
        assert "path" in record or "command" in record
        data = (CORPUS / record["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == record["sha256"], record["file"]


def test_the_corpus_is_large_and_from_many_projects(report):
    assert report["documents"] >= 3000
    assert len({record["repository"] for record in SOURCES}) >= 10


def test_validate_finds_nothing_but_the_findings_sources_records(report):
    found: dict[str, set[str]] = collections.defaultdict(set)
    for finding in report["findings"]:
        if finding["rule"] == "unknown-kind":
            assert finding["severity"] == "warning", finding
            continue
        found[str(Path(finding["file"]).resolve().relative_to(CORPUS))].add(finding["rule"])
    expected = {}
    for record in SOURCES:
        rules = set(record.get("true_findings", {}))
        if "known_false_positive" in record:
            rules.add(record["known_false_positive"].split(":")[0])
        if rules:
            expected[record["file"]] = rules
    assert dict(found) == expected


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
def test_kubectl_decodes_every_document_to_the_data_we_read(report):
    """kubectl (go-yaml v2) decodes each document to exactly the data our reader gives: it found
    that a block scalar on a file's unterminated last line keeps its line break there."""
    files = sorted(CORPUS / record["file"] for record in SOURCES)
    args = [arg for f in files for arg in ("-f", str(f))]
    done = subprocess.run(
        ["kubectl", "label", "--local", *args, "corpus=checked", "-o", "json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[:2000]
    decoder, text, at, decoded = json.JSONDecoder(), done.stdout, 0, []
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            break
        obj, at = decoder.raw_decode(text, at)
        decoded += obj["items"] if obj.get("kind") == "List" else [obj]
    for obj in decoded:
        labels = obj["metadata"]["labels"]
        assert labels.pop("corpus") == "checked"
        if not labels:
            del obj["metadata"]["labels"]
        if not obj["metadata"]:  # the label made it: an object without metadata (istio's IstioOperator)
            del obj["metadata"]
    ours = [doc for f in files for doc in load.read_documents(f)[0] if doc]
    for doc in ours:  # kubectl's builder, not its decoding: cli-runtime's FilterNamespace visitor
        meta = doc.get("metadata")  # sets an object's empty namespace with Unstructured.SetNamespace(""),
        if isinstance(meta, dict) and meta.get("namespace", 0) in (None, ""):  # which removes the key
            del meta["namespace"]
        if meta == {}:
            del doc["metadata"]
    assert len(decoded) == report["documents"]
    assert json.loads(json.dumps(ours)) == decoded
