"""Gateway API: the pinned CRDs of each release and channel (schemas/thirdparty/gateway-api/,
generator/tools/gateway_extract.py), `--gateway-api-version` (1.N: the standard channel,
1.N-experimental or experimental: the experimental one), and Gateway API objects judged by the
CRDs' schemas and CEL rules with the CRDs' own messages."""

from __future__ import annotations

import gzip
import json
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest

from generator import validate
from generator.core.kinds import PROJECTS
from generator.core.versions import Release
from generator.schema import kubernetes, projects
from generator.validate.crd import kubecel

from .conftest import FIXTURES

ROOT = Path(__file__).resolve().parent.parent
GATEWAY = projects.THIRDPARTY / "gateway-api"
SOURCES = [s for s in json.loads((projects.THIRDPARTY / "SOURCES.json").read_text()) if s["project"] == "gateway-api"]
GOOD = FIXTURES / "validate" / "good" / "gateway-api.yaml"
EXPERIMENTAL = projects.ChannelRelease
# GATEWAY_API_GIT: a clone of https://github.com/kubernetes-sigs/gateway-api with its tags (bare
# is fine), to extract the CRDs again and to check each release's examples; without it those
# tests are skipped
GIT_DIR = os.environ.get("GATEWAY_API_GIT", "")
HAVE_GIT_DIR = bool(GIT_DIR) and Path(GIT_DIR, "HEAD").exists()


def findings(text: str, release=None, tmp_path: Path | None = None):
    path = tmp_path / "objects.yaml"
    path.write_text(text)
    checker = validate.ObjectChecker(kubernetes.newest(), projects={"gateway-api": release})
    return validate.validate_files([str(path)], checker).findings


def rules_of(schema, out=None) -> list[dict]:
    out = [] if out is None else out
    if isinstance(schema, dict):
        out += [r for r in schema.get("x-kubernetes-validations") or [] if isinstance(r, dict)]
        for value in schema.values():
            rules_of(value, out)
    elif isinstance(schema, list):
        for value in schema:
            rules_of(value, out)
    return out


# -- the pinned data -------------------------------------------------------------------------


def test_the_releases_are_1_0_to_the_newest_in_both_channels():
    releases = projects.releases("gateway-api")
    standard = [r for r in releases if not isinstance(r, EXPERIMENTAL)]
    experimental = [r for r in releases if isinstance(r, EXPERIMENTAL)]
    assert standard[0] == Release(1, 0) and len(standard) >= 4  # 1.0 ... 1.3 at least
    assert [tuple(r) for r in experimental] == [tuple(r) for r in standard]
    assert projects.newest("gateway-api") == standard[-1]
    assert not isinstance(projects.newest("gateway-api"), EXPERIMENTAL)


def test_sources_json_names_every_file_once_with_its_commit_and_sha256():
    named = {}
    for s in SOURCES:
        folder = projects.folder_name(projects.parse_release("gateway-api", s["release"]))
        assert folder == s["release"]
        channel = "experimental" if s["release"].endswith("-experimental") else "standard"
        assert s["channel"] == channel and s["path"].startswith(f"config/crd/{channel}/")
        assert re.fullmatch(r"v\d+\.\d+\.\d+", s["tag"]) and s["tag"].startswith(f"v{s['release'].split('-')[0]}.")
        assert re.fullmatch(r"[0-9a-f]{40}", s["commit"]) and re.fullmatch(r"[0-9a-f]{64}", s["sha256"])
        assert s["repository"] == "https://github.com/kubernetes-sigs/gateway-api"
        name = f"{s['release']}/{s['kind'].lower()}_{s['apiVersion'].rsplit('/', 1)[1]}.json.gz"
        assert name not in named
        named[name] = s
    on_disk = {f"{p.parent.name}/{p.name}" for p in GATEWAY.glob("*/*.json.gz")}
    assert on_disk == set(named)
    groups = {s["apiVersion"].rsplit("/", 1)[0] for s in SOURCES}
    assert groups == {"gateway.networking.k8s.io", "gateway.networking.x-k8s.io"}
    assert all(s["channel"] == "experimental" for s in SOURCES if "x-k8s.io" in s["apiVersion"])


@pytest.mark.skipif(not HAVE_GIT_DIR, reason="GATEWAY_API_GIT names no clone of kubernetes-sigs/gateway-api")
def test_extracting_again_from_the_tags_gives_the_committed_files(tmp_path, monkeypatch):
    from generator.tools import gateway_extract

    monkeypatch.setattr(gateway_extract, "THIRDPARTY", tmp_path)
    again = gateway_extract.extract(Path(GIT_DIR))
    mine = [s for s in again if s["release"] in {x["release"] for x in SOURCES}]
    assert mine == SOURCES
    for s in SOURCES:
        name = f"{s['release']}/{s['kind'].lower()}_{s['apiVersion'].rsplit('/', 1)[1]}.json.gz"
        assert (tmp_path / "gateway-api" / name).read_bytes() == (GATEWAY / name).read_bytes()


# -- releases and channels -------------------------------------------------------------------


def test_a_release_names_its_channel():
    newest = projects.newest("gateway-api")
    assert projects.parse_release("gateway-api", "1.3") == Release(1, 3)
    assert not isinstance(projects.parse_release("gateway-api", "v1.3.0"), EXPERIMENTAL)
    exp = projects.parse_release("gateway-api", "1.3-experimental")
    assert isinstance(exp, EXPERIMENTAL) and str(exp) == "1.3-experimental" and tuple(exp) == (1, 3)
    assert projects.parse_release("gateway-api", "v1.3.1-experimental") == exp
    assert projects.parse_release("gateway-api", "1.3-standard") == Release(1, 3)
    latest = projects.parse_release("gateway-api", "experimental")
    assert isinstance(latest, EXPERIMENTAL) and tuple(latest) == tuple(newest)
    # the two channels of one release are two keys: caches and lookups keep them apart
    assert exp != Release(1, 3) and Release(1, 3) != exp and hash(exp) != hash(Release(1, 3))
    assert len({exp, Release(1, 3)}) == 2
    assert sorted([exp, Release(1, 4), Release(1, 3)]) == [Release(1, 3), exp, Release(1, 4)]
    assert pickle.loads(pickle.dumps(exp)) == exp and isinstance(pickle.loads(pickle.dumps(exp)), EXPERIMENTAL)
    assert projects.release_name("gateway-api", exp) == "Gateway API 1.3 (experimental channel)"
    assert projects.release_name("gateway-api", Release(1, 3)) == "Gateway API 1.3 (standard channel)"
    assert projects.kinds("gateway-api", exp) != projects.kinds("gateway-api", Release(1, 3))
    with pytest.raises(projects.UnknownReleaseError, match="1.9-experimental is not one"):
        projects.parse_release("gateway-api", "1.9-experimental")
    with pytest.raises(projects.UnknownReleaseError):  # only a project with channels has them
        projects.parse_release("volcano", "1.9-experimental")


def test_the_project_is_registered_with_its_flag():
    assert "gateway-api" in {p.name for p in PROJECTS} and "gateway-api" in projects.VALIDATED
    assert projects.all_kinds()[("gateway.networking.k8s.io/v1", "HTTPRoute")] == "gateway-api"
    assert projects.all_kinds()[("gateway.networking.k8s.io/v1alpha2", "TCPRoute")] == "gateway-api"


def test_the_cli_takes_the_channel(tmp_path):
    path = tmp_path / "tcp.yaml"
    path.write_text(TCP_ROUTE)

    def run(*flags):
        return subprocess.run(
            [sys.executable, "-m", "generator", "validate", *flags, str(path)],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )

    standard = run("--gateway-api-version", "1.3")
    assert standard.returncode == 1 and "not served by Gateway API 1.3 (standard channel)" in standard.stdout
    assert "--gateway-api-version" in standard.stdout
    assert run("--gateway-api-version", "1.3-experimental").returncode == 0
    assert run("--gateway-api-version", "experimental").returncode == 0
    assert run().returncode == 1  # the default: the newest release's standard channel
    unknown = run("--gateway-api-version", "0.8")
    assert unknown.returncode == 2 and "1.0-experimental" in unknown.stderr


# -- objects -----------------------------------------------------------------------------------

TCP_ROUTE = """\
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TCPRoute
metadata: {name: tcp, namespace: default}
spec:
  parentRefs: [{name: eg, sectionName: db}]
  rules:
  - backendRefs: [{name: db, port: 5432}]
"""
TLS_ROUTE = """\
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TLSRoute
metadata: {name: tls, namespace: default}
spec:
  parentRefs: [{name: eg}]
  hostnames: [secure.example.com]
  rules:
  - backendRefs: [{name: secure, port: 443}]
"""


def _core_objects() -> str:
    """GatewayClass, Gateway and HTTPRoute of the good fixture: v1 in every release from 1.0."""
    documents = GOOD.read_text().split("\n---\n")
    return "\n---\n".join(d for d in documents if re.search(r"^kind: (GatewayClass|Gateway|HTTPRoute)$", d, re.M))


@pytest.mark.parametrize("release", projects.releases("gateway-api"), ids=str)
def test_gateway_class_gateway_and_httproute_pass_in_every_release_and_channel(release, tmp_path):
    assert findings(_core_objects(), release, tmp_path) == []


def test_the_good_fixture_passes_the_newest_standard_and_experimental_channels(tmp_path):
    text = GOOD.read_text()
    assert findings(text, None, tmp_path) == []
    assert findings(text, projects.parse_release("gateway-api", "experimental"), tmp_path) == []


@pytest.mark.parametrize("text", [TCP_ROUTE, TLS_ROUTE], ids=["TCPRoute", "TLSRoute"])
@pytest.mark.parametrize("version", ["1.0-experimental", "1.3-experimental", "experimental"])
def test_tcproute_and_tlsroute_pass_in_the_experimental_channel(text, version, tmp_path):
    assert findings(text, projects.parse_release("gateway-api", version), tmp_path) == []


@pytest.mark.parametrize("text", [TCP_ROUTE, TLS_ROUTE], ids=["TCPRoute", "TLSRoute"])
def test_v1alpha2_routes_are_not_served_by_the_standard_channel(text, tmp_path):
    found = findings(text, Release(1, 3), tmp_path)
    assert [(f.finding.rule, f.finding.path) for f in found] == [("api-not-served", "apiVersion")]
    assert "--gateway-api-version" in found[0].finding.message


def test_an_experimental_field_is_unknown_to_the_standard_channel(tmp_path):
    text = (FIXTURES / "validate" / "bad" / "gateway-channel.yaml").read_text().split("\n---\n")[1]
    standard = findings(text, None, tmp_path)
    assert [(f.finding.rule, f.finding.path) for f in standard] == [
        ("unknown-field", "spec.rules[0].sessionPersistence")
    ]
    assert findings(text, projects.parse_release("gateway-api", "experimental"), tmp_path) == []


def _rule_message(schema_file: str, rule_start: str) -> str:
    schema = json.loads(gzip.decompress((GATEWAY / schema_file).read_bytes()))
    messages = [r["message"] for r in rules_of(schema) if r["rule"].startswith(rule_start)]
    assert messages, f"no rule starting {rule_start!r} in {schema_file}"
    return messages[0]


@pytest.mark.parametrize(
    ("fixture", "name", "schema_file", "rule_start"),
    [
        ("gateway-httproute.yaml", "redirect-and-rewrite", "1.6/httproute_v1.json.gz", "!(self.exists(f, f.type =="),
        ("gateway-httproute.yaml", "service-without-port", "1.6/httproute_v1.json.gz", "(size(self.group) == 0 &&"),
        ("gateway-httproute.yaml", "relative-path", "1.6/httproute_v1.json.gz", "(self.type in ['Exact',"),
        ("gateway-gateway.yaml", "listeners", "1.6/gateway_v1.json.gz", "self.all(l1, self.exists_one(l2, l1.name"),
        ("gateway-grpcroute.yaml", "empty-method-match", "1.6/grpcroute_v1.json.gz", "has(self.type) ? has("),
    ],
)
def test_a_cel_rule_refuses_with_the_crds_own_message(fixture, name, schema_file, rule_start, tmp_path):
    if projects.newest("gateway-api") != Release(1, 6):
        pytest.skip("the fixtures are written against Gateway API 1.6")
    text = (FIXTURES / "validate" / "bad" / fixture).read_text()
    document = next(d for d in text.split("\n---\n") if f"name: {name}\n" in d)
    messages = [f.finding.message for f in findings(document, None, tmp_path) if f.finding.rule == "cel-rule"]
    expected = _rule_message(schema_file, rule_start)
    assert any(m.startswith(expected) for m in messages), messages


# -- CEL: every rule runs, or says it was not checked ------------------------------------------

# Rules of the pinned CRDs that the CEL environment of the newest Kubernetes release does not
# compile, by file: each gives a cel-unsupported warning, never a silent pass.
NOT_COMPILED = {
    # Format.validate's result (optional list in k8s.io/apiserver pkg/cel/library/format.go)
    # compared with null: kubecel models the result as a map
    ("1.6-experimental/xbackend_v1alpha1.json.gz", "size(self) == 0 || format.dns1123Label().validate(self) == null"),
}


def test_every_cel_rule_of_the_pinned_crds_compiles_or_is_listed():
    env = kubecel.environment(kubernetes.newest())
    failed = set()
    total = 0
    for path in sorted(GATEWAY.glob("*/*.json.gz")):
        for rule in rules_of(json.loads(gzip.decompress(path.read_bytes()))):
            if re.search(r"\boldSelf\b", rule["rule"]):
                continue  # a transition rule: the apiserver runs it on update only
            total += 1
            try:
                env.compile(rule["rule"])
            except kubecel.CelProblem:
                failed.add((f"{path.parent.name}/{path.name}", rule["rule"]))
    assert total > 3000
    assert failed == NOT_COMPILED


def test_a_rule_that_does_not_compile_is_reported_not_passed(tmp_path):
    text = """\
apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XBackend
metadata: {name: external, namespace: default}
spec:
  type: ExternalHostname
  externalHostname: {hostname: api.example.com}
  port: {name: https, port: 443}
"""
    release = projects.parse_release("gateway-api", "1.6-experimental")
    found = findings(text, release, tmp_path)
    assert [(f.finding.severity, f.finding.rule, f.finding.path) for f in found] == [
        ("warning", "cel-unsupported", "spec.port.name")
    ]


# -- the project's own examples, against the CRDs of their release -----------------------------

ADDRESSES = ROOT / "tests/fixtures/realworld/gateway-api/examples/standard/gateway-addresses.yaml"


def test_a_hostname_address_passes_the_gateways_oneof(tmp_path):
    """The apiserver prunes and closes by the structural schema only, never inside
    allOf/anyOf/oneOf/not: the Hostname address passes the CRD's `type not IPAddress` branch."""
    assert findings(ADDRESSES.read_text(), None, tmp_path) == []


def _examples(tag: str, folder: str, tmp_path: Path) -> list[str]:
    listed = subprocess.run(
        ["git", "--git-dir", GIT_DIR, "ls-tree", "-r", "--name-only", tag, folder], capture_output=True, text=True
    ).stdout.split()
    written = []
    for name in listed:
        if name.endswith((".yaml", ".yml")):
            data = subprocess.run(["git", "--git-dir", GIT_DIR, "show", f"{tag}:{name}"], capture_output=True).stdout
            path = tmp_path / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            written.append(str(path))
    return written


@pytest.mark.skipif(not HAVE_GIT_DIR, reason="GATEWAY_API_GIT names no clone of kubernetes-sigs/gateway-api")
@pytest.mark.parametrize("release", projects.releases("gateway-api"), ids=str)
def test_each_releases_examples_pass_its_own_crds(release, tmp_path):
    """examples/standard at the release's tag against its standard channel; all of examples/
    against its experimental channel. The one finding is the oneOf false positive above."""
    tag = next(s["tag"] for s in SOURCES if s["release"] == projects.folder_name(release))
    folder = "examples/" if isinstance(release, EXPERIMENTAL) else "examples/standard/"
    files = _examples(tag, folder, tmp_path)
    assert len(files) > 40
    checker = validate.ObjectChecker(kubernetes.newest(), projects={"gateway-api": release})
    found = validate.validate_files(files, checker).findings
    wrong = [
        (item.file, item.finding.rule, item.finding.path)
        for item in found
        if item.finding.rule != "unknown-kind"
        and not (item.file.endswith("gateway-addresses.yaml") and item.finding.path == "spec.addresses[10]")
    ]
    assert wrong == []
