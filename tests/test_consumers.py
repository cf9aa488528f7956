"""The rendered YAML in the hands of real consumers: kubectl, kustomize, the official Python
client, and kubernetes-validate (an independent check of our own validator)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import kubernetes_validate
import pytest
from kubernetes import client

from generator.core.paths import DEPLOY
from generator.render import bundles
from generator.validate.builtin import KubeValidator

from .conftest import load_all

kubectl = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(kubectl is None, reason="kubectl is not installed")
BUNDLES = ["v1", "v1beta1"]


def run(*argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "KUBECONFIG": os.devnull}
    return subprocess.run(
        argv, capture_output=True, text=True, env=env, check=False, timeout=120, stdin=subprocess.DEVNULL
    )


@needs_kubectl
@pytest.mark.parametrize("bundle", BUNDLES)
def test_kubectl_kustomize_builds_the_bundle(bundle, objects):
    done = run(kubectl, "kustomize", str(DEPLOY / bundle))
    assert done.returncode == 0, done.stderr
    built = load_all(done.stdout)
    expected = [obj for name in ("crd", "jobs", "operator") for obj in objects[f"{bundle}/{name}.yaml"]]
    key = lambda d: (d["kind"], d["metadata"]["name"])  # noqa: E731
    assert sorted(built, key=key) == sorted(expected, key=key)


@needs_kubectl
@pytest.mark.parametrize("bundle", BUNDLES)
def test_kubectl_create_reads_only_the_manifests(bundle):
    """`kubectl create -f DIR` sends every *.yaml in DIR: the kustomization must not be one."""
    done = run(kubectl, "create", "--dry-run=client", "--server=http://127.0.0.1:9", "-f", str(DEPLOY / bundle))
    assert done.returncode != 0  # no cluster here; the errors name each file kubectl read
    read = set(re.findall(r'"([^"]+\.(?:ya?ml|json))"', done.stderr))
    assert {os.path.basename(p) for p in read} == {"crd.yaml", "jobs.yaml", "operator.yaml"}, done.stderr


@needs_kubectl
@pytest.mark.parametrize("name", [f"{b}/{f}.yaml" for b in ("v1", "v1beta1") for f in ("crd", "jobs", "operator")])
def test_kubectl_decodes_every_object(name, objects):
    done = run(kubectl, "label", "--local", "-f", str(DEPLOY / name), "checked=yes", "-o", "json")
    assert done.returncode == 0, done.stderr
    decoded, text, decoder = [], done.stdout.strip(), json.JSONDecoder()
    while text:  # kubectl prints one JSON document per object, back to back
        obj, end = decoder.raw_decode(text)
        decoded.append(obj)
        text = text[end:].strip()
    assert len(decoded) == len(objects[name])
    for got, want in zip(decoded, objects[name], strict=True):
        assert got["metadata"]["labels"].pop("checked") == "yes"
        if not got["metadata"]["labels"]:
            del got["metadata"]["labels"]
        assert got == want


@pytest.mark.parametrize("name", ["v1/crd.yaml", "v1/operator.yaml", "v1beta1/operator.yaml"])
def test_official_client_round_trips_every_object(name, objects):
    """The client's typed models keep every field we write (a dropped field would be a typo)."""
    api = client.ApiClient()
    for obj in objects[name]:
        model = api._ApiClient__deserialize(obj, f"V1{obj['kind']}")
        assert api.sanitize_for_serialization(model) == obj, obj["kind"]


def test_official_client_has_no_v1beta1_crd_model():
    # The client follows the newest Kubernetes, where apiextensions v1beta1 is gone (1.22):
    # the v1beta1 CRD is checked against the 1.11-1.15 schemas by our validator instead.
    assert not hasattr(client, "V1beta1CustomResourceDefinition")


@pytest.mark.parametrize("version", ["1.25.0", "1.30.0", "1.37.0"])
def test_kubernetes_validate_agrees_the_v1_bundle_is_valid(version, objects):
    for name in ("v1/crd.yaml", "v1/operator.yaml"):
        for obj in objects[name]:
            kubernetes_validate.validate(obj, version, strict=True)


def test_kubernetes_validate_and_our_validator_flag_the_same_mistake(objects):
    (deployment,) = [o for o in objects["v1/operator.yaml"] if o["kind"] == "Deployment"]
    broken = {**deployment, "spec": {**deployment["spec"], "replicas": "one", "paused2": True}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, "1.37.0", strict=True)
    findings = KubeValidator().validate(broken, [37])
    assert {(f.path, f.rule) for f in findings} == {("spec.paused2", "unknown-field"), ("spec.replicas", "type")}


def test_every_target_release_is_checked(rendered):
    v1, v1beta1 = bundles.default_bundles()
    assert v1.minors == list(range(19, 38)) and v1beta1.minors == list(range(11, 16))
    assert "validated against 19 releases" in rendered.summary[0]
    old = bundles.default_bundles("1.16")[0]  # the v1 bundle for 1.16-1.18 clusters
    assert old.minors == list(range(16, 38))
    assert "validated against 5 releases" in rendered.summary[1]


def pod_templates(node, path="") -> list[tuple[str, dict]]:
    """Every pod template inside an object (a `template` holding a pod spec), with its path."""
    found = []
    if isinstance(node, dict):
        template = node.get("template")
        pod = isinstance(template, dict) and isinstance(template.get("spec"), dict) and "containers" in template["spec"]
        if pod:
            found.append((f"{path}.template", template))
        for key, value in node.items():
            if key != "template" or not pod:  # a JobSet's template holds Job templates, those pod templates
                found += pod_templates(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += pod_templates(value, f"{path}[{i}]")
    return found


# the client follows the newest Kubernetes: it has no apiextensions v1beta1 model (see above)
RENDERED = sorted(p.relative_to(DEPLOY) for p in DEPLOY.rglob("*.yaml") if p.parts[-2:] != ("v1beta1", "crd.yaml"))


@pytest.mark.parametrize("name", [str(p) for p in RENDERED])
def test_official_client_models_accept_every_rendered_file(name):
    """What create_from_yaml deserializes: built-in kinds into their models, and the pod templates
    of custom resources into V1PodTemplateSpec (a number where a quantity goes fails there)."""
    api = client.ApiClient()
    checked = 0
    for obj in load_all((DEPLOY / name).read_text()):
        version = obj["apiVersion"].rsplit("/", 1)[-1]
        model = f"{version[0].upper()}{version[1:]}{obj['kind']}"
        group = obj["apiVersion"].rpartition("/")[0]
        builtin = "." not in group or group.endswith(".k8s.io")
        if builtin and hasattr(client, model):
            assert api.sanitize_for_serialization(api._ApiClient__deserialize(obj, model)) == obj, model
            checked += 1
            continue
        for path, template in pod_templates(obj):
            back = api.sanitize_for_serialization(api._ApiClient__deserialize(template, "V1PodTemplateSpec"))
            assert back == template, f"{obj['kind']}{path}"
            checked += 1
    assert checked, f"{name}: nothing the client has a model for"
