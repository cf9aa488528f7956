"""docs/validate.md's table of every kind a 1.31 cluster serves: each served kind has a row with
the apiVersions a default apiserver serves, and the row says "not ported" exactly where no
validation of the kind's group is ported (the registry gives it no rules, and no other module
judges it)."""

from __future__ import annotations

import re

from generator.core import kinds as registry
from generator.core.paths import REPO
from generator.schema import kubernetes

RELEASE = "1.31"
# meta types every group serves, not objects a manifest holds
META = {"DeleteOptions", "WatchEvent", "Status", "APIGroup", "APIGroupList", "APIResourceList", "APIVersions"}
# kinds whose validation is ported outside the registry's rules: the pod rules (every pod
# template and a Pod, rules/pod.py) and the CRD rules (crd/structural.py, called by the checker)
ELSEWHERE = {"Pod", "PodTemplate", "ReplicationController", "CustomResourceDefinition"}
ROW = re.compile(r"^\| (\w+) \| ([^|]+) \| ([^|]+) \|$")


def served() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for api_version, kind in kubernetes.served_kinds(kubernetes.parse_version(RELEASE)):
        if not kind.endswith("List") and kind not in META:
            out.setdefault(kind, set()).add(api_version)
    return out


def table() -> dict[str, tuple[set[str], str]]:
    text = (REPO / "docs" / "validate.md").read_text()
    start = text.index("<!-- served kinds 1.31 -->")
    rows = {}
    for line in text[start:].splitlines()[3:]:
        match = ROW.match(line)
        if match is None:
            break
        versions = set(re.findall(r"`([^`]+)`", match[2]))
        rows[match[1]] = (versions, match[3].strip())
    return rows


def ported(kind: str, versions: set[str]) -> bool:
    if kind in ELSEWHERE:
        return True
    entries = [registry.builtin_entry(v.rpartition("/")[0], kind) for v in versions]
    return any(entry is not None and entry.rules for entry in entries)


def test_every_served_kind_has_a_row_with_its_versions():
    rows = table()
    want = served()
    assert sorted(set(want) - set(rows)) == [], "served kinds missing from docs/validate.md's table"
    assert sorted(set(rows) - set(want)) == [], "rows of kinds 1.31 does not serve"
    assert {kind: rows[kind][0] for kind in want} == want


def test_not_ported_exactly_where_no_validation_is_ported():
    rows = table()
    wrong = [
        kind
        for kind, versions in served().items()
        if kind in rows and rows[kind][1].startswith("not ported") == ported(kind, versions)
    ]
    assert wrong == []
