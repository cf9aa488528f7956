"""The ledgers under schemas/ledger/: every place where the apiserver's validation reports an
error, each mapped to the rule that ports it or marked not modelled with the reason. The ids come
from generator/tools/extractors.py run on the pinned upstream source; what people wrote (summary,
status, reason) is kept by id."""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

import pytest

from generator.core import rulebook
from generator.core.paths import SCHEMA_DIR
from generator.tools import extractors

LEDGERS = sorted((SCHEMA_DIR / "ledger").glob("*.json"))


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def pinned_copy(ledger: dict) -> Path | None:
    """The upstream file a ledger was extracted from, where a copy is here: K8S_SOURCE names a
    folder holding kubernetes/kubernetes files at their repository paths (at the ledger's tag);
    K8S_VALIDATION_GO names a copy of pkg/apis/core/validation/validation.go alone."""
    path = ledger["source"]["path"]
    if os.environ.get("K8S_SOURCE"):
        copy = Path(os.environ["K8S_SOURCE"]) / path
        return copy if copy.is_file() else None
    if os.environ.get("K8S_VALIDATION_GO") and path == "pkg/apis/core/validation/validation.go":
        return Path(os.environ["K8S_VALIDATION_GO"])
    return None


def test_there_is_a_pod_spec_ledger():
    assert "core-pod.json" in {p.name for p in LEDGERS}


@pytest.mark.parametrize("path", LEDGERS, ids=lambda p: p.name)
def test_every_entry_has_a_rule_or_a_reason(path):
    """A rule id the rulebook has, or not-modelled with the reason: an open entry fails."""
    problems = []
    for entry in load(path)["entries"]:
        status, reason = entry.get("status"), entry.get("reason", "").strip()
        if status == "not-modelled":
            if len(reason) < 20:
                problems.append(f"{entry['id']}: not-modelled needs the reason")
        elif status not in rulebook.RULES:
            problems.append(f"{entry['id']}: status {status!r} is no rule of the rulebook (nor not-modelled)")
        if not entry.get("summary"):
            problems.append(f"{entry['id']}: no summary")
    assert problems == []


@pytest.mark.parametrize("path", LEDGERS, ids=lambda p: p.name)
def test_the_source_is_pinned(path):
    source = load(path)["source"]
    assert re.fullmatch(r"v\d+\.\d+\.\d+", source["tag"])
    assert re.fullmatch(r"[0-9a-f]{40}", source["commit"])
    assert re.fullmatch(r"[0-9a-f]{64}", source["sha256"])
    assert source["url"].endswith(f"/blob/{source['tag']}/{source['path']}")
    # verified: the SHA-256 is of the file at the tag; else the text says what copy was read and how
    # it was judged to be the tag's, and the coverage table says so
    assert isinstance(source["verified"], bool)
    assert source["verified"] or len(source["text"]) > 200
    # sha256_of "copy": the SHA-256 and lines are of another text than the tag's (no copy of the
    # tag's could be read); never verified, and the text names the copy
    assert source.get("sha256_of", "tag") in ("tag", "copy")
    assert source.get("sha256_of") != "copy" or (not source["verified"] and "copy" in source["text"])


@pytest.mark.parametrize("path", LEDGERS, ids=lambda p: p.name)
def test_ids_are_the_extractors_ids_of_their_fields(path):
    """Each id is what the extractor names the call (function, path, type, and its place among
    such calls of its function), and none repeats: the data is the extraction, not edited ids."""
    ledger = load(path)
    seen: dict[str, int] = {}
    ids = []
    for entry in ledger["entries"]:
        assert set(extractors.MECHANICAL) <= set(entry), entry["id"]
        base = extractors.site_id(ledger["prefix"], entry["function"], entry["path"], entry["type"])
        seen[base] = seen.get(base, 0) + 1
        expected = extractors.site_id(ledger["prefix"], entry["function"], entry["path"], entry["type"], seen[base])
        assert entry["id"] == expected
        ids.append(entry["id"])
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("path", LEDGERS, ids=lambda p: p.name)
def test_the_extraction_of_the_pinned_source_gives_the_ledgers_ids(path):
    """Needs the pinned upstream file (not kept here; pinned_copy says where a copy is found),
    which must have the ledger's SHA-256; then the extractor must give exactly the ledger's entries."""
    ledger = load(path)
    if ledger["source"].get("sha256_of") == "copy":
        pytest.skip(f"{path.name}: extracted from a copy that is not the tag's file (its source text says which)")
    copy = pinned_copy(ledger)
    if copy is None:
        pytest.skip(f"no copy of {ledger['source']['url']} (set K8S_SOURCE or K8S_VALIDATION_GO)")
    data = copy.read_bytes()
    assert hashlib.sha256(data).hexdigest() == ledger["source"]["sha256"], "not the pinned release's file"
    sites = list(extractors.validation_call_sites(data.decode(), ledger["root"], ledger["prefix"]))
    got = [(s.id, s.function, s.line, s.error_type, s.path) for s in sites]
    want = [(e["id"], e["function"], e["line"], e["type"], e["path"]) for e in ledger["entries"]]
    assert got == want
    _, changes = extractors.merge_ledger(ledger, sites)
    assert changes == {"added": [], "removed": [], "moved": []}


# A small Go file written for these tests: the shapes the extractor must read (calls split over
# lines, a call in a comment or a string, a function value, an unreached function, methods).
GO = """package validation

// ValidateThing is the root; field.Required( in a comment is no call.
func ValidateThing(spec *Spec, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if spec.Name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), "field.Invalid( in a string"))
	}
	for i, t := range spec.Items {
		allErrs = append(allErrs, validateItem(t, fldPath.Child("items").Index(i))...)
	}
	check := validateByValue
	allErrs = append(allErrs, check(spec, fldPath)...)
	return allErrs
}

func validateItem(t Item, fldPath *field.Path) field.ErrorList {
	if t.Op != "Exists" {
		return field.ErrorList{field.NotSupported(fldPath.Child("operator"),
			t.Op, []string{"Exists", "Equal"})}
	}
	if t.Value != "" {
		return field.ErrorList{field.Invalid(fldPath.Child("operator"), t, "value must be empty")}
	}
	return field.ErrorList{field.Invalid(fldPath.Child("operator"), t, `a (raw) string`)}
}

func validateByValue(spec *Spec, fldPath *field.Path) field.ErrorList {
	return field.ErrorList{field.Duplicate(fldPath.Child("spec", "key").Key(spec.Key), spec.Key)}
}

func unreached(fldPath *field.Path) field.ErrorList {
	return field.ErrorList{field.Forbidden(fldPath, "never")}
}
"""


def test_the_extractor_reads_call_sites_of_reached_functions_only():
    sites = list(extractors.validation_call_sites(GO, "ValidateThing", "t"))
    assert [(s.id, s.function, s.error_type, s.path) for s in sites] == [
        ("t.ValidateThing.name.required", "ValidateThing", "Required", "fldPath.name"),
        ("t.validateItem.operator.not-supported", "validateItem", "NotSupported", "fldPath.operator"),
        ("t.validateItem.operator.invalid", "validateItem", "Invalid", "fldPath.operator"),
        ("t.validateItem.operator.invalid-2", "validateItem", "Invalid", "fldPath.operator"),
        ("t.validateByValue.spec.key.duplicate", "validateByValue", "Duplicate", "fldPath.spec.key[*]"),
    ]
    assert sites[0].line == 7 and sites[0].detail == '"field.Invalid( in a string"'
    assert sites[2].detail == '"value must be empty"'
    assert extractors.reachable(GO, "ValidateThing") == ["ValidateThing", "validateItem", "validateByValue"]


def test_a_new_release_shows_as_added_removed_and_moved_ids():
    sites = list(extractors.validation_call_sites(GO, "ValidateThing", "t"))
    ledger = {
        "prefix": "t",
        "entries": [
            {**extractors.CallSite(*s)._asdict(), "type": s.error_type, "summary": "x", "status": "probe"}
            for s in sites[1:]
        ]
        + [{"id": "t.gone.self.forbidden", "summary": "x", "status": "not-modelled", "reason": "r"}],
    }
    newer = GO.replace("\tallErrs := field.ErrorList{}\n", "\tallErrs := field.ErrorList{}\n\n", 1)
    merged, changes = extractors.merge_ledger(
        ledger, list(extractors.validation_call_sites(newer, "ValidateThing", "t"))
    )
    assert changes["added"] == ["t.ValidateThing.name.required"]
    assert changes["removed"] == ["t.gone.self.forbidden"]
    assert len(changes["moved"]) == 4
    assert merged["entries"][0]["status"] == "open" and merged["entries"][1]["status"] == "probe"


def test_path_patterns():
    assert extractors.path_pattern('fldPath.Child("a", "b").Index(i).Key(k)') == "fldPath.a.b[*][*]"
    assert extractors.path_pattern('idxPath.Child("x").Key("storage")') == "idxPath.x[storage]"
    assert extractors.path_pattern("fldPath") == "fldPath"


def test_docs_validate_md_holds_the_coverage_of_the_ledgers_as_they_are():
    """docs/validate.md's ledger coverage is publish.ledger_coverage() of the data (`make manifests`
    rewrites it); the counts add up to the entries."""
    from generator.render import publish

    doc = (Path(__file__).resolve().parent.parent / "docs" / "validate.md").read_text()
    assert publish.with_rule_index(doc) == doc, "docs/validate.md is stale: run make manifests"
    table = publish.ledger_coverage()
    for path in LEDGERS:
        ledger = load(path)
        row = next(line for line in table.splitlines() if line.startswith(f"| `{ledger['ledger']}` |"))
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        total, ported, reasoned, still = int(cells[3]), cells[4], cells[5], int(cells[6])
        assert total == len(ledger["entries"])
        assert int(ported.split()[0]) + int(reasoned.split()[0]) + still == total
        assert still == sum(
            entry["status"] not in rulebook.RULES and entry["status"] != "not-modelled" for entry in ledger["entries"]
        )


def test_the_external_calls_are_the_extractors_when_the_pinned_source_is_here():
    ledger = load(SCHEMA_DIR / "ledger" / "core-pod.json")
    assert "unversionedvalidation.ValidateLabelSelector" in ledger["external_calls"]["calls"]
    copy = pinned_copy(ledger)
    if copy is None:
        pytest.skip("no copy of the pinned source (set K8S_SOURCE or K8S_VALIDATION_GO)")
    text = copy.read_text()
    assert extractors.external_calls(text, ledger["root"]) == ledger["external_calls"]["calls"]


def test_external_calls_are_imported_packages_only():
    go = GO.replace("package validation\n", 'package validation\n\nimport (\n\tv "k8s.io/x/validation"\n)\n')
    go = go.replace(
        "check := validateByValue",
        "_ = v.IsQualifiedName(spec.Name)\n\t_ = spec.Items.Len()\n\tcheck := validateByValue",
    )
    assert extractors.external_calls(go, "ValidateThing") == ["v.IsQualifiedName"]
