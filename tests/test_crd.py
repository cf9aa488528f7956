"""The PaddleJob CRDs: structure per apiextensions version, version gating, structural rules,
and the API itself against the seeds' examples."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from generator.render import bundles
from generator.schema import crd as crdschema
from generator.schema import projects as thirdparty
from generator.schema.crd import Target
from generator.validate.builtin import KubeValidator
from generator.validate.crd import structural
from generator.validate.crd.validator import CustomResourceValidator

from .conftest import FIXTURES, load_all

SEEDS = sorted((FIXTURES / "seeds").glob("*.yaml"))


def walk(node, path=()):
    yield path, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from walk(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from walk(value, (*path, i))


def keys_in(schema) -> set[str]:
    return {path[-1] for path, _ in walk(schema) if path and isinstance(path[-1], str)}


def schema_of(crd: dict) -> dict:
    if crd["apiVersion"].endswith("/v1"):
        return crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    return crd["spec"]["validation"]["openAPIV3Schema"]


def template_spec(schema: dict) -> dict:
    return schema["properties"]["spec"]["properties"]["worker"]["properties"]["template"]


@pytest.fixture(scope="module")
def crd_v1(objects):
    return objects["v1/crd.yaml"][0]


@pytest.fixture(scope="module")
def crd_v1beta1(objects):
    return objects["v1beta1/crd.yaml"][0]


def test_v1_layout(crd_v1):
    assert crd_v1["apiVersion"] == "apiextensions.k8s.io/v1"
    spec = crd_v1["spec"]
    assert spec["names"] == {
        "kind": "PaddleJob",
        "listKind": "PaddleJobList",
        "plural": "paddlejobs",
        "singular": "paddlejob",
        "shortNames": ["pdj"],
    }
    assert spec["scope"] == "Namespaced" and spec["group"] == "batch.paddlepaddle.org"
    (version,) = spec["versions"]
    assert version["name"] == "v1" and version["served"] and version["storage"]
    assert version["subresources"] == {"status": {}}
    assert [c["jsonPath"] for c in version["additionalPrinterColumns"]] == [
        ".status.phase",
        ".status.mode",
        ".metadata.creationTimestamp",
    ]
    assert [c["name"] for c in version["additionalPrinterColumns"]] == ["Status", "Mode", "Age"]
    assert "validation" not in spec and "version" not in spec


def test_v1beta1_layout(crd_v1beta1):
    assert crd_v1beta1["apiVersion"] == "apiextensions.k8s.io/v1beta1"
    spec = crd_v1beta1["spec"]
    assert spec["version"] == "v1"
    assert spec["versions"] == [{"name": "v1", "served": True, "storage": True}]
    assert "openAPIV3Schema" in spec["validation"]
    assert [c["JSONPath"] for c in spec["additionalPrinterColumns"]] == [
        ".status.phase",
        ".status.mode",
        ".metadata.creationTimestamp",
    ]
    # The default v1beta1 bundle serves 1.11, which has no preserveUnknownFields field.
    assert "preserveUnknownFields" not in spec


def test_no_generator_noise(rendered):
    for name, text in rendered.files.items():
        assert "creationTimestamp: null" not in text, name
        assert "controller-gen" not in text, name
        assert "status: {}\n" not in text.replace("    status: {}\n", ""), name


def test_descriptions_are_stripped_by_default(crd_v1, crd_v1beta1):
    for crd in (crd_v1, crd_v1beta1):
        assert "description" not in keys_in(schema_of(crd)) - {"properties"}


def test_api_validation_beyond_upstream(crd_v1):
    spec = schema_of(crd_v1)["properties"]["spec"]["properties"]
    assert spec["cleanPodPolicy"]["enum"] == ["Always", "Never", "OnFailure", "OnCompletion"]
    assert spec["intranet"]["enum"] == ["PodIP", "Service", "Host"]
    assert spec["withGloo"]["enum"] == [0, 1, 2]
    assert spec["elastic"]["type"] == "integer"
    policy = spec["schedulingPolicy"]["properties"]
    assert policy["minAvailable"]["minimum"] == 0
    assert policy["minResources"]["additionalProperties"]["x-kubernetes-int-or-string"] is True
    for role in ("ps", "worker", "heter"):
        assert spec[role]["required"] == ["replicas"]
        assert spec[role]["properties"]["replicas"]["minimum"] == 1


def _field_paths(schema: dict, prefix: str = "") -> set[str]:
    """Every field path a schema names: spec.worker.replicas, spec.worker.template.spec...."""
    found = set()
    for name, sub in (schema.get("properties") or {}).items():
        path = f"{prefix}.{name}" if prefix else name
        found |= {path} | _field_paths(sub, path)
    for key, mark in (("items", "[]"), ("additionalProperties", ".*")):
        if isinstance(schema.get(key), dict):
            found |= _field_paths(schema[key], prefix + mark)
    return found


def test_our_api_serves_every_field_of_the_released_operators_crd(crd_v1):
    """The paddle-operator's own CRD (v0.3.5, extracted with its SHA-256 into
    schemas/thirdparty/): a field it has and ours lacked would be a false 'unknown field'. Outside
    the pod templates (ours follow newer Kubernetes releases) ours adds only sampleSetRef, which
    the released controller ignores: validate warns about it (paddlejob-sampleset)."""
    upstream = _field_paths(
        thirdparty.project_schema("paddle-operator", "batch.paddlepaddle.org/v1", "PaddleJob", (0, 3))
    )
    ours = _field_paths(schema_of(crd_v1))
    assert len(upstream) > 2000
    assert upstream - ours == set()
    beyond = {p for p in ours - upstream if ".template." not in p}
    assert beyond == {f"spec.sampleSetRef{f}" for f in ("", ".name", ".namespace", ".mountPath")}


def test_pod_template_is_structural_and_derived(crd_v1):
    template = template_spec(schema_of(crd_v1))
    meta = template["properties"]["metadata"]["properties"]
    assert set(meta) == {"annotations", "finalizers", "labels", "name", "namespace"}, "embedded ObjectMeta kept"
    pod = template["properties"]["spec"]["properties"]
    container = pod["containers"]["items"]
    assert pod["containers"]["x-kubernetes-list-type"] == "map"
    assert pod["containers"]["x-kubernetes-list-map-keys"] == ["name"]
    assert container["required"] == ["name"]
    port = container["properties"]["ports"]
    assert port["x-kubernetes-list-map-keys"] == ["containerPort", "protocol"]
    assert port["items"]["properties"]["protocol"]["default"] == "TCP", "non-required list-map key needs a default"
    limits = container["properties"]["resources"]["properties"]["limits"]["additionalProperties"]
    assert limits["x-kubernetes-int-or-string"] is True and limits["pattern"] == crdschema.QUANTITY_PATTERN
    probe_port = container["properties"]["livenessProbe"]["properties"]["httpGet"]["properties"]["port"]
    assert probe_port == {"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": True}
    assert "x-kubernetes-preserve-unknown-fields" not in json.dumps(template)
    # a field that only newer Kubernetes has is there: the template comes from the newest release
    assert "resourceClaims" in pod


def markers(schema) -> set[str]:
    return {key for key in keys_in(schema) if key.startswith("x-kubernetes-")}


@pytest.mark.parametrize(
    ("apiextensions", "minor", "expected"),
    [
        ("v1beta1", 11, set()),
        ("v1beta1", 14, set()),
        ("v1beta1", 15, {"x-kubernetes-int-or-string"}),
        ("v1", 16, {"x-kubernetes-int-or-string", "x-kubernetes-list-type", "x-kubernetes-list-map-keys"}),
        (
            "v1",
            17,
            {
                "x-kubernetes-int-or-string",
                "x-kubernetes-list-type",
                "x-kubernetes-list-map-keys",
                "x-kubernetes-map-type",
            },
        ),
    ],
)
def test_schema_features_follow_the_oldest_release(apiextensions, minor, expected):
    bundle = bundles.for_releases(apiextensions, minor)
    assert markers(crdschema.openapi_schema(bundle.target)) == expected


def test_v1beta1_for_1_15_prunes_and_is_structural():
    bundle = bundles.default_bundles("1.15")[0]
    api = crdschema.api_data(bundle.target)
    assert api["capabilities"]["preserveUnknownFields"] is True
    schema = api["openAPIV3Schema"]
    assert structural.check(schema, "v1beta1", True, "s") == []
    assert "default" not in keys_in(schema) - {"properties"}, "v1beta1 forbids defaults"
    # list-maps whose keys are not all required lose their markers in v1beta1
    ports = template_spec(schema)["properties"]["spec"]["properties"]["containers"]["items"]["properties"]["ports"]
    assert "x-kubernetes-list-type" not in ports


@pytest.mark.parametrize(
    ("minor", "apiextensions"), [(11, "v1beta1"), (13, "v1beta1"), (14, "v1beta1"), (15, "v1beta1"), (16, "v1")]
)
def test_kubernetes_rejects_markers_newer_than_the_release(minor, apiextensions):
    """The apiextensions schema of the release itself catches what the generator must not emit."""
    too_new = Target(apiextensions, 37 if apiextensions == "v1" else 15, 37 if apiextensions == "v1" else 15)
    bundle = bundles.for_releases(apiextensions, minor)
    api = {**crdschema.api_data(bundle.target), "openAPIV3Schema": crdschema.openapi_schema(too_new)}
    crd = {
        "apiVersion": f"apiextensions.k8s.io/{apiextensions}",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "paddlejobs.batch.paddlepaddle.org"},
        "spec": {"group": api["group"], "names": api["names"], "scope": "Namespaced", "version": "v1"}
        if apiextensions == "v1beta1"
        else {
            "group": api["group"],
            "names": api["names"],
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": True, "storage": True, "schema": {}}],
        },
    }
    if apiextensions == "v1beta1":
        crd["spec"]["validation"] = {"openAPIV3Schema": api["openAPIV3Schema"]}
    else:
        crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = api["openAPIV3Schema"]
    findings = KubeValidator().validate(crd, [minor])
    unknown = {f.message for f in findings if f.rule == "unknown-field"}
    newer = markers(api["openAPIV3Schema"]) - markers(crdschema.openapi_schema(bundle.target))
    if newer:
        assert any(any(marker in message for marker in newer) for message in unknown), unknown
    else:
        assert findings == []


def test_structural_checker_catches_what_the_apiserver_rejects(crd_v1):
    schema = copy.deepcopy(schema_of(crd_v1))
    assert structural.check(schema, "v1", True, "s") == []
    pod = template_spec(schema)["properties"]["spec"]["properties"]
    del pod["containers"]["items"]["properties"]["ports"]["items"]["properties"]["protocol"]["default"]
    del pod["hostname"]["type"]
    pod["nodeSelector"]["properties"] = {"x": {"type": "string"}}
    schema["properties"]["metadata"]["properties"] = {"labels": {"type": "object"}}
    rules = sorted(f.rule for f in structural.check(schema, "v1", True, "s"))
    assert rules == ["crd-list-map", "crd-metadata", "crd-structural", "crd-structural"]
    assert structural.check({"type": "string", "default": "x"}, "v1beta1", False, "s")[0].rule == "crd-default"


# -- the API against the seeds' examples -----------------------------------------------------


def seed_paddlejobs() -> list[tuple[str, dict]]:
    found = []
    for path in SEEDS:
        try:
            docs = load_all(path.read_text())
        except yaml.YAMLError:
            continue  # broken YAML is the validator's business (issue: validate)
        found += [(path.name, d) for d in docs if d.get("apiVersion") == "batch.paddlepaddle.org/v1"]
    return found


def test_the_seeds_hold_paddlejob_examples():
    assert len(seed_paddlejobs()) == 10


@pytest.fixture(scope="module", params=["v1", "v1beta1"])
def api_schema(request, objects):
    return schema_of(objects[f"{request.param}/crd.yaml"][0])


def test_every_seed_paddlejob_is_accepted_by_the_apiserver_schema(api_schema):
    lenient = CustomResourceValidator(api_schema, strict=False)
    for name, job in seed_paddlejobs():
        assert lenient.findings(job) == [], name


def test_strict_mode_catches_the_seeds_misspelt_clean_policy(api_schema):
    strict = CustomResourceValidator(api_schema, strict=True)
    verdicts = {(name, tuple((f.path, f.rule) for f in strict.findings(job))) for name, job in seed_paddlejobs()}
    flagged = {name: findings for name, findings in verdicts if findings}
    assert flagged == {
        "000-line0357.yaml": (("spec.cleanPolicy", "unknown-field"),),
        "002-line0405.yaml": (("spec.cleanPolicy", "unknown-field"),),
    }


@pytest.mark.parametrize(
    ("patch", "path", "rule"),
    [
        ({"cleanPodPolicy": "OnFailed"}, "spec.cleanPodPolicy", "enum"),
        ({"intranet": "HostNetwork"}, "spec.intranet", "enum"),
        ({"withGloo": 3}, "spec.withGloo", "enum"),
        ({"worker": {"replicas": 0}}, "spec.worker.replicas", "schema"),
        ({"worker": {"template": {}}}, "spec.worker.replicas", "required"),
        ({"schedulingPolicy": {"minResources": {"cpu": "lots"}}}, "spec.schedulingPolicy.minResources.cpu", "quantity"),
    ],
)
def test_invalid_specs_are_rejected(api_schema, patch, path, rule):
    job = {"apiVersion": "batch.paddlepaddle.org/v1", "kind": "PaddleJob", "metadata": {"name": "j"}, "spec": patch}
    findings = CustomResourceValidator(api_schema, strict=False).findings(job)
    assert [(f.path, f.rule) for f in findings][:1] == [(path, rule)]
    if rule == "enum":
        assert "use one of" in findings[0].message


def test_seed_fixtures_are_fresh():
    from . import seed_examples

    if not seed_examples.SEEDS.is_dir():
        pytest.skip("shared/seeds is not beside this checkout")
    fresh = seed_examples.examples()
    committed = {p.name: p.read_text() for p in SEEDS}
    assert fresh == committed


def test_api_source_is_the_only_hand_written_schema():
    source = Path(crdschema.PADDLEJOB_SCHEMA).read_text()
    assert "kubernetes#/definitions/io.k8s.api.core.v1.PodTemplateSpec" in source
    assert "containers:" not in source, "the pod template is derived, never copied by hand"


def test_an_independent_validator_gives_the_same_verdicts(api_schema):
    """python-jsonschema on the same converted schema agrees with jsonschema-rs on every seed job."""
    import jsonschema

    from generator.validate.crd.validator import to_json_schema

    reference = jsonschema.Draft4Validator(to_json_schema(api_schema, strict=True))
    ours = CustomResourceValidator(api_schema, strict=True)
    mutated = {"apiVersion": "batch.paddlepaddle.org/v1", "kind": "PaddleJob", "spec": {"cleanPodPolicy": "OnFailed"}}
    for name, job in [*seed_paddlejobs(), ("OnFailed", mutated)]:
        assert reference.is_valid(job) == (ours.findings(job) == []), name
