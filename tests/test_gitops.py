"""The paths people take around the bundle: render to stdout, read back what we print as JSON,
and a GitOps folder that passes its own checks without repeating the flags."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from generator.core import provenance

from .conftest import KUBECTL, REPO, load_all, needs_kubectl

IMAGE = "registry.baidubce.com/paddle-operator/demo-resnet:v1"


def cli(*argv: str, stdin: str | None = None, cwd=REPO) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "generator", *argv], cwd=cwd, input=stdin, capture_output=True, text=True, timeout=300
    )


def kubectl_reads(text: str, tmp_path) -> list[dict]:
    """The objects kubectl decodes from ``text`` (offline), as it would before sending them."""
    path = tmp_path / "input"
    path.write_text(text)
    done = subprocess.run(
        [KUBECTL, "label", "--local", "-f", str(path), "seen=yes", "-o", "json"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    objects, decoder, at = [], json.JSONDecoder(), 0  # one JSON document per object, one after another
    while at < len(done.stdout.rstrip()):
        obj, at = decoder.raw_decode(done.stdout, at)
        objects += obj["items"] if obj.get("kind") == "List" else [obj]
        at = len(done.stdout) - len(done.stdout[at:].lstrip())
    return objects


@pytest.mark.parametrize("version, bundle", [("1.30", "v1"), ("1.13", "v1beta1")])
def test_render_to_stdout_prints_the_one_bundle_in_apply_order_and_validates(version, bundle):
    done = cli("render", "--out", "-", "--kube-version", version, "--namespace", "training")
    assert done.returncode == 0, done.stderr
    docs = load_all(done.stdout)
    assert [d["kind"] for d in docs[:3]] == ["Namespace", "Namespace", "CustomResourceDefinition"]
    assert docs[2]["apiVersion"] == f"apiextensions.k8s.io/{bundle}"
    assert not (REPO / "-").exists()
    # the stream records the releases it serves: validate checks a v1beta1 bundle against 1.11-1.15
    checked = cli("validate", "-", stdin=done.stdout)
    assert checked.returncode == 0, checked.stdout
    assert f"render --namespace training --kube-version {version}" in done.stdout.splitlines()[0]


def test_render_to_stdout_prints_the_v1_bundle_by_default_and_writes_no_files():
    """As `helm template` prints with its defaults: without --kube-version, what deploy/v1 holds."""
    done = cli("render", "--out", "-")
    assert done.returncode == 0, done.stderr
    crds = [d for d in load_all(done.stdout) if d["kind"] == "CustomResourceDefinition"]
    assert [d["apiVersion"] for d in crds] == ["apiextensions.k8s.io/v1"]
    on_disk = [d for f in sorted((REPO / "deploy" / "v1").glob("*.yaml")) for d in load_all(f.read_text())]
    assert sorted(d["kind"] for d in load_all(done.stdout)) == sorted(d["kind"] for d in on_disk)
    assert not (REPO / "-").exists()
    done = cli("render", "--out", "-", "--kube-version", "1.30", "--check")
    assert done.returncode == 2 and "--check" in done.stderr


@needs_kubectl
def test_json_output_is_what_kubectl_and_validate_read(tmp_path):
    job = cli("job", "demo", "--image", IMAGE, "--workers", "2", "--runtime", "volcano", "-o", "json")
    assert job.returncode == 0, job.stderr
    listed = json.loads(job.stdout)
    assert (listed["apiVersion"], listed["kind"]) == ("v1", "List") and len(listed["items"]) > 1
    assert [o["kind"] for o in kubectl_reads(job.stdout, tmp_path)] == [o["kind"] for o in listed["items"]]
    assert cli("validate", "-", stdin=job.stdout).returncode == 0
    bundle = cli("render", "--out", "-", "--kube-version", "1.30", "-o", "json")
    assert bundle.returncode == 0, bundle.stderr
    assert len(kubectl_reads(bundle.stdout, tmp_path)) == len(json.loads(bundle.stdout)["items"])
    assert cli("validate", "-", stdin=bundle.stdout).returncode == 0
    single = cli("render", str(REPO / "examples" / "resnet.jsonnet"), "-o", "json")
    assert single.returncode == 0, single.stderr
    assert cli("validate", "-", stdin=single.stdout).returncode == 0


def test_a_gitops_folder_checks_itself_without_the_flags(tmp_path):
    flags = ["--namespace", "ml-platform", "--scheduling", "volcano", "--kube-version", "1.28"]
    out = tmp_path / "clusters" / "prod" / "paddle-operator"
    done = cli("render", "--out", str(out), *flags)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["v1"]  # only the bundle asked for
    assert cli("validate", str(tmp_path / "clusters")).returncode == 0
    assert cli("render", "--check", "--out", str(out)).returncode == 0
    operator = out / "v1" / "operator.yaml"
    operator.write_text(operator.read_text().replace("replicas: 1", "replicas: 3"))
    drift = cli("render", "--check", "--out", str(out))
    assert drift.returncode == 1 and "+  replicas: 1" in drift.stdout
    assert " ".join(flags) in drift.stderr  # the command that renders it again
    # flags given on the command line win over what the files record
    assert cli("render", "--out", str(out), *flags).returncode == 0
    assert cli("render", "--check", "--out", str(out), *flags).returncode == 0
    # a flag given wins over its record, and the recorded flags not given are kept (issue 37)
    assert cli("render", "--check", "--out", str(out), "--kube-version", "1.28").returncode == 0
    assert cli("render", "--check", "--out", str(out), "--namespace", "paddle-system").returncode == 1


def test_check_of_a_missing_folder_says_what_is_missing(tmp_path):
    done = cli("render", "--check", "--out", str(tmp_path / "deploy"))
    assert done.returncode == 2
    assert "no such folder to check" in done.stderr and len(done.stdout) == 0


def test_the_repositorys_own_deploy_validates_as_documented():
    assert cli("validate", "deploy/").returncode == 0  # the validate --help example
    bundle_on_newest = cli("validate", "--kube-version", "1.37", "deploy/v1beta1/")
    assert bundle_on_newest.returncode == 1 and "api-not-served" in bundle_on_newest.stdout


def test_provenance_is_read_only_from_the_leading_comments():
    record = provenance.Provenance(("--namespace", "a b"), 19, 37)
    header = record.header("somewhere")
    assert provenance.read(header + "---\nkind: X\n") == record
    assert "render --namespace 'a b'" in header
    assert provenance.read("---\n" + header) is None
    with pytest.raises(provenance.ProvenanceError):
        provenance.read(provenance.MARKER + '{"kubernetes": [37, 19], "render": []}\n')
