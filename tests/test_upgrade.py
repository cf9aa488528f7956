"""Upgrade (a new bundle over an old one) and uninstall (that keeps the jobs unless asked)."""

from __future__ import annotations

import copy
import io
import subprocess
import sys
import tarfile

import pytest

from generator.render import upgrade

from .conftest import REPO, by_kind, load_all

RELEASED = "cbc5ef4e293a481fe3328689e624e2927b48220d"  # 0.2.0, the README's pin


def released_deploy(tmp_path):
    """deploy/v1 as release 0.2.0 wrote it: what a cluster upgraded today runs."""
    archive = subprocess.run(["git", "archive", RELEASED, "deploy/v1"], cwd=REPO, capture_output=True, check=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(tmp_path, filter="data")
    return tmp_path / "deploy"


def test_check_over_the_released_bundle_shows_the_changes_and_that_the_crd_is_safe(tmp_path):
    out = released_deploy(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "generator", "render", "--check", "--out", str(out), "--kube-version", "1.19"],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 1  # it differs: the diff is what the upgrade changes
    assert "+++ deploy/jobs.yaml (fresh render)" in done.stdout.replace("v1/jobs", "jobs")
    assert "crd.yaml: the new CRD is safe to apply over this one" in done.stderr


def crd(objects) -> dict:
    return copy.deepcopy(objects["v1/crd.yaml"][0])


def spec_properties(c: dict) -> dict:
    return c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]


def test_a_removed_field_a_removed_version_and_a_new_type_are_unsafe(objects):
    new = crd(objects)
    assert upgrade.problems(new, new) == []
    old = crd(objects)
    spec_properties(old)["legacyPolicy"] = {"type": "string"}
    assert upgrade.problems(old, new) == [
        "v1: field spec.legacyPolicy is gone from the schema: the apiserver prunes it from every object on its next "
        "write"
    ]
    old = crd(objects)
    old["spec"]["versions"].append({**old["spec"]["versions"][0], "name": "v1alpha1", "storage": False})
    assert [p.split(":")[0] for p in upgrade.problems(old, new)] == ["version v1alpha1 is no longer served"]
    old = crd(objects)
    spec_properties(old)["cleanPodPolicy"] = {"type": "integer"}
    assert upgrade.problems(old, new) == ["v1: field spec.cleanPodPolicy changes type from integer to string"]


def test_preserved_unknown_fields_are_not_pruned(objects):
    old, new = crd(objects), crd(objects)
    spec_properties(old)["extra"] = {"type": "object", "properties": {"a": {"type": "string"}}}
    spec_properties(new)["extra"] = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    assert upgrade.problems(old, new) == []


@pytest.mark.parametrize("bundle", ["v1", "v1beta1"])
def test_deleting_the_operator_keeps_the_crd_and_the_jobs_namespace(objects, bundle):
    """`kubectl delete -f deploy/v1/operator.yaml` removes the operator only; the CRD (deleting
    it deletes every PaddleJob) and the jobs' namespace are files of their own, kept by Argo CD
    and Flux when they prune."""
    operator = objects[f"{bundle}/operator.yaml"]
    assert not by_kind(operator, "CustomResourceDefinition")
    assert [ns["metadata"]["name"] for ns in by_kind(operator, "Namespace")] == ["paddle-system"]
    (jobs,) = objects[f"{bundle}/jobs.yaml"]
    kept = [objects[f"{bundle}/crd.yaml"][0], jobs]
    for obj in kept:
        annotations = obj["metadata"]["annotations"]
        assert annotations["argocd.argoproj.io/sync-options"] == "Delete=false"
        assert annotations["kustomize.toolkit.fluxcd.io/prune"] == "disabled"


def test_the_readme_uninstall_commands_name_files_that_exist():
    readme = (REPO / "README.md").read_text()
    for path in ("deploy/v1/operator.yaml", "deploy/v1/jobs.yaml", "deploy/v1/crd.yaml"):
        assert f"kubectl delete -f {path}" in readme
        assert load_all((REPO / path).read_text())
