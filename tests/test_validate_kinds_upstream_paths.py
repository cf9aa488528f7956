"""Paths as upstream names them: a bad fixture's `# upstream-path: FINDING = UPSTREAM` lines say,
for a finding of the fixture (by its path), the path the apiserver's own error carries
(field.Path of the call site the ledger names). The two must be equal; where this tool places a
finding elsewhere on purpose (upstream names a field the file does not have, or a map where the
finding points at its key), the line says why in parentheses and the two must then differ, so a
reason that no longer holds fails too. Every finding of a rule these fixtures cover has a line.
Upstream paths are written as field.Path prints them; a CRD schema's property is a Key there
(`properties[spec]`), which this tool spells as a name (`properties.spec`, findings.child): the two
spellings of one path compare equal. Another map's key (field.Path's `limits[nvidia.com/gpu]`) is
mostly written as this tool spells it (`limits["nvidia.com/gpu"]`). A path has no spaces but inside
a quoted key (`limits["a b"]`); `-` stands for an error that names no field path (a value's own
decoder's, a quantity's or a time's; an admission plugin's). A decoding error that names its
field in its text is held to that path: strict decoding's `unknown field "spec.a[0].b"` (pruning's,
for a custom resource), and JSON's `cannot unmarshal string into Go struct field
DeploymentSpec.spec.replicas of type int32`, whose Go field stack has neither list indices nor map
keys (a reason says so where the file has them).
A custom resource's schema errors (kube-openapi's required, type, minimum, pattern, ...) carry the
path of the node they fail at; an x-kubernetes-validations rule's, the node the rule is on, or the
rule's fieldPath under it."""

from __future__ import annotations

import re

import pytest

from generator.core.findings import child

from .test_validate_fixtures import BAD, findings, header

_PATH = r"((?:[^\s\"]|\"[^\"]*\")+)"  # a path without spaces but in a quoted key (limits["a b"])
LINE = re.compile(rf"^# upstream-path: {_PATH} = {_PATH}(?: \((.+)\))?$")
_SCHEMA_KEY = re.compile(r"\.properties\[([^\]\"]+)\]")


def spelt(upstream: str) -> str:
    """field.Path's `properties[NAME]` (Key) as this tool spells a schema property."""
    return _SCHEMA_KEY.sub(lambda m: "." + child("properties", m[1]), upstream)


FIXTURES = [p for p in BAD if any(line.startswith("# upstream-path:") for line in header(p))]

# The rules whose fixtures carry upstream paths: each must have at least one such fixture.
COVERED = {
    "node-runtime-class",
    "lease",
    "access-review",
    "access-review-metadata",
    "local-access-review",
    "access-review-selector",
    "rules-review",
    "token-review",
    "token-request",
    "binding",
    "scale",
    "endpoint-slice",
    "csi-driver",
    "csi-node",
    "volume-attachment",
    "csi-storage-capacity",
    "volume-attributes-class",
    "ip-address",
    "service-cidr",
    "certificate-signing-request",
    "endpoints",
    "node",
    "event",
    "controller-revision",
    "resource-claim",
    "device-class",
    "resource-slice",
    "flow-schema",
    "priority-level",
    "api-service",
    "annotation-key",
    "name",
    "label-value",
    "metadata",
    "finalizer",
    "selector",
    "crd-structural",
    "crd-list-map",
    "container-name",
    "env-duplicate",
    "port",
    "volume-name",
    "port-name",
    "host-port",
    "mount-path",
    "volume-mount",
    "image",
    "pod-template",
    "restart-policy",
    "extended-resource",
    "resources",
    "toleration",
    "affinity",
    "topology-spread",
    "probe",
    "env-value",
    "pod-bounds",
    "containers",
    "sub-path",
    "volume-device",
    "dns-config",
    "readiness-gate",
    "scheduling-gate",
    "sidecar",
    "ephemeral-container",
    "field-path",
    "security-context",
    "volume-source",
    "resource-name",
    "volume-plugin",
    "deployment",
    "statefulset",
    "daemonset",
    "replicaset",
    "job",
    "cronjob",
    "hpa",
    "ingress",
    "network-policy",
    "pdb",
    "rbac-rule",
    "role-ref",
    "subject",
    "priority-class",
    "storage-class",
    "configmap",
    "persistent-volume-claim",
    "resource-quota",
    "limit-range",
    "secret",
    "service",
    "webhook",
    "admission-policy",
    "persistent-volume",
    "runtime-class",
    "enum",
    "quantity",
    "required",
    "type",
    "unknown-field",
    "schema",
    "cel-rule",
}


def declared(path) -> dict[str, tuple[str, str | None]]:
    out = {}
    for line in header(path):
        if line.startswith("# upstream-path:"):
            match = LINE.match(line)
            assert match, f"{path.name}: malformed line {line!r}"
            assert match[1] not in out, f"{path.name}: {match[1]} declared twice"
            out[match[1]] = (spelt(match[2]), match[3])
    return out


def test_every_covered_rule_has_a_fixture_with_upstream_paths():
    rules = set()
    for path in FIXTURES:
        rules |= {item.finding.rule for item in findings(path).findings}
    assert COVERED - rules == set()


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_finding_paths_are_upstream_paths(path):
    want = declared(path)
    got = {item.finding.path: item.finding.rule for item in findings(path).findings}
    problems = []
    for finding_path, rule in got.items():
        if rule in COVERED and finding_path not in want:
            problems.append(f"{finding_path} ({rule}): no upstream-path line")
    for finding_path, (upstream, reason) in want.items():
        if finding_path not in got:
            problems.append(f"{finding_path}: declared, but no finding has this path")
        elif reason is None and finding_path != upstream:
            problems.append(f"{finding_path}: upstream names {upstream}")
        elif reason is not None and finding_path == upstream:
            problems.append(f"{finding_path}: equal to upstream's, but a reason says it differs")
    assert problems == []
