"""schemas/kubernetes/: complete, faithful to its source, and read correctly."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import kubernetes_validate

from generator.core.paths import KUBE_SCHEMA_DIR
from generator.schema import kubernetes
from generator.tools import kube_extract


def test_every_release_from_1_11_to_1_37_is_there():
    assert kubernetes.known_versions() == tuple(range(11, 38))
    sources = json.loads((KUBE_SCHEMA_DIR / "SOURCES.json").read_text())
    assert sorted(sources, key=kubernetes.parse_version) == [f"1.{m}" for m in range(11, 38)]
    assert {s["package"] for s in sources.values()} == {"kubernetes-validate==1.24.1", "kubernetes-validate==1.37.0"}


def test_extraction_is_faithful_to_the_installed_kubernetes_validate():
    """The committed 1.37 file is exactly what the extraction makes of the installed package."""
    installed = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema" / "v1.37.0-local-strict"
    definitions, texts = kube_extract.normalise(json.loads((installed / "_definitions.json").read_text()))
    committed = json.loads(gzip.decompress((KUBE_SCHEMA_DIR / "v1.37.json.gz").read_bytes()))
    assert committed == {"kubernetesVersion": "1.37", "definitions": definitions}
    assert json.loads(gzip.decompress((KUBE_SCHEMA_DIR / "v1.37.descriptions.json.gz").read_bytes())) == texts


def test_field_names_that_look_like_keywords_survive():
    # JSONSchemaProps has fields called "description" and "$ref": they are names, not keywords.
    props = kubernetes.definitions(16)["io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps"]
    assert {"description", "$ref", "x-kubernetes-int-or-string"} <= set(props["properties"])


def test_kinds_and_api_removals():
    assert kubernetes.kinds(11)[("apiextensions.k8s.io/v1beta1", "CustomResourceDefinition")]
    assert ("apiextensions.k8s.io/v1", "CustomResourceDefinition") not in kubernetes.kinds(15)
    assert ("apiextensions.k8s.io/v1beta1", "CustomResourceDefinition") not in kubernetes.kinds(22)
    assert kubernetes.kinds(37)[("apps/v1", "Deployment")] == "io.k8s.api.apps.v1.Deployment"


def refs_by_walking(node):
    """Every $ref under a schema, found the slow, obvious way (the closure uses a regex)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            elif key == "properties":
                for sub in value.values():
                    yield from refs_by_walking(sub)
            else:
                yield from refs_by_walking(value)
    elif isinstance(node, list):
        for item in node:
            yield from refs_by_walking(item)


def test_closure_holds_everything_a_kind_refers_to():
    closure = kubernetes.closure(20, "io.k8s.api.apps.v1.Deployment")
    assert "io.k8s.api.core.v1.PodSpec" in closure and "io.k8s.api.core.v1.Service" not in closure
    for schema in closure.values():
        for ref in refs_by_walking(schema):
            assert kubernetes.ref_name(ref) in closure
    for minor in (11, 16, 37):
        for name, schema in list(kubernetes.definitions(minor).items())[::5]:
            assert kubernetes._direct_refs(minor, name) == {kubernetes.ref_name(r) for r in refs_by_walking(schema)}


def test_version_parsing():
    assert kubernetes.parse_version("1.16") == 16 and kubernetes.parse_version("v1.22.3") == 22
    for bad in ("2.0", "1", "1.x", ""):
        try:
            kubernetes.parse_version(bad)
        except kubernetes.UnknownVersionError as err:
            assert "1.MINOR" in str(err)
        else:
            raise AssertionError(bad)


def test_a_run_over_built_in_kinds_reads_only_their_index_and_closures(tmp_path):
    """With the schema cache warm, checking a Deployment reads the release's kind index and the
    Deployment's closure from the cache, not the release's whole document, and the verdict (a
    finding deep in the pod template) is the one derived from the document."""
    import os
    import subprocess
    import sys

    manifest = tmp_path / "deploy.yaml"
    manifest.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec:\n  selector: {matchLabels: {a: b}}\n"
        "  template:\n    metadata: {labels: {a: b}}\n    spec:\n      containers:\n"
        "        - {name: c, image: i, ports: [{containerPort: web}]}\n"
    )
    code = (
        "import sys; from generator.schema import kubernetes; from generator import validate; "
        "report = validate.validate_files([sys.argv[1]], validate.ObjectChecker(37)); "
        "found = [(f.line, f.finding.path, f.finding.message) for f in report.findings]; "
        "print(kubernetes._definitions.cache_info().currsize, found)"
    )
    repo = Path(__file__).resolve().parent.parent
    outputs = []
    for cache in ("off", str(tmp_path / "cache"), str(tmp_path / "cache")):
        env = {**os.environ, "PADDLEJOB_MANIFESTS_CACHE": cache, "PYTHONPATH": str(repo)}
        done = subprocess.run(
            [sys.executable, "-c", code, str(manifest)], capture_output=True, text=True, env=env, cwd=repo, timeout=120
        )
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    derived, _, warm = outputs
    read = [output.partition(" ")[0] for output in outputs]
    assert read == ["1", "1", "0"], "releases whose whole document each run read"
    assert "containerPort" in warm and derived.partition(" ")[2] == warm.partition(" ")[2]
