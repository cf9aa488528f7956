"""The false-positive corpus: tests/fixtures/corpus/ is an ML platform's GitOps repository,
written for this purpose (200+ documents of every kind the tool knows). Every document is
valid on Kubernetes 1.37, Volcano 1.15 and training-operator 1.9, so `validate` must say
nothing at all about it. Independent readers agree that it is valid: kubectl decodes every
file and kubernetes-validate (strict) accepts every built-in object. (The official Python
client is no judge here: its models refuse `nvidia.com/gpu: 1`, a number the apiserver takes
as a quantity; our own rendered output is held to the client in test_consumers.)"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import kubernetes_validate
import pytest

from generator import validate

from .conftest import FIXTURES, kubectl_decode_error, load_all, needs_kubectl

CORPUS = FIXTURES / "corpus"
FILES = sorted(p for p in CORPUS.rglob("*") if p.suffix in validate.EXTENSIONS)


def documents_of(path: Path) -> list[dict]:
    """The file's documents; a .json file may hold several objects back to back (jq -c output)."""
    text = path.read_text()
    if path.suffix == ".json":
        decoder, docs, rest = json.JSONDecoder(), [], text.strip()
        while rest:
            doc, end = decoder.raw_decode(rest)
            docs.append(doc)
            rest = rest[end:].strip()
    else:
        docs = load_all(text)
    return docs


def objects_of(path: Path) -> list[dict]:
    """The file's objects, a List's items in its place."""
    docs = documents_of(path)
    return [item for doc in docs for item in (doc["items"] if doc["kind"] == "List" else [doc])]


ALL = [(path, obj) for path in FILES for obj in objects_of(path)]


def is_builtin(obj: dict) -> bool:
    group = obj["apiVersion"].rpartition("/")[0]
    return "." not in group or group.endswith(".k8s.io")


def test_the_corpus_is_large_and_holds_every_kind_the_tool_knows():
    assert len(ALL) >= 200
    kinds = Counter((obj["apiVersion"], obj["kind"]) for _, obj in ALL)
    assert set(validate.CUSTOM_KINDS) <= set(kinds)  # PaddleJob, Volcano Job/PodGroup/Queue, Kubeflow
    assert kinds[("batch.paddlepaddle.org/v1", "PaddleJob")] >= 35
    workloads = {"Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob", "Pod", "ReplicationController"}
    assert workloads <= {kind for _, kind in kinds}
    assert ("apiextensions.k8s.io/v1", "CustomResourceDefinition") in kinds


# Jobs of the corpus that a cluster would not run as meant: (file, line, rule). Each is a true
# finding, not a false positive; the rule's docs (docs/validate.md) say what the cluster does.
TRUE_FINDINGS = {
    ("serving/speech.yaml", 44, "paddlejob-scheduling"),  # no PodGroup without --scheduling=volcano
    ("training/kubeflow.yaml", 40, "kubeflow-ps-mode"),  # Master replicas: a server in every pod
    ("training/paddlejobs-experiments.yaml", 10, "paddlejob-clean-pod-policy"),  # never fires in PS mode
    ("training/paddlejobs-experiments.yaml", 39, "paddlejob-clean-pod-policy"),
    ("training/paddlejobs-experiments.yaml", 64, "paddlejob-clean-pod-policy"),
    ("training/paddlejobs-recsys.yaml", 10, "paddlejob-clean-pod-policy"),
    ("training/paddlejobs-experiments.yaml", 88, "paddlejob-gloo-endpoint"),  # gloo on server 0's port
    ("training/paddlejobs-recsys.yaml", 11, "paddlejob-gloo-endpoint"),  # gloo on server 0's port
    ("training/paddlejobs-recsys.yaml", 13, "paddlejob-scheduling"),  # no PodGroup without --scheduling=volcano
    ("training/paddlejobs-recsys.yaml", 67, "paddlejob-gloo-endpoint"),  # gloo on server 0's port
    ("training/paddlejobs-recsys.yaml", 91, "paddlejob-intranet-service"),  # POD_IP is the pod's name
    ("training/paddlejobs-recsys.yaml", 146, "paddlejob-gloo-endpoint"),  # gloo on server 0's port
    ("training/paddlejobs-recsys.yaml", 165, "paddlejob-heter"),  # TRAINING_ROLE=HETER is refused
    ("training/paddlejobs-vision-nlp.yaml", 34, "paddlejob-scheduling"),  # no PodGroup without --scheduling=volcano
    ("training/paddlejobs-vision-nlp.yaml", 87, "paddlejob-elastic-launcher"),  # each pod trains alone
    ("training/paddlejobs-vision-nlp.yaml", 156, "paddlejob-scheduling"),  # no PodGroup without --scheduling=volcano
    ("training/paddlejobs-vision-nlp.yaml", 195, "paddlejob-elastic-launcher"),  # each pod trains alone
}


def test_validate_finds_nothing_in_the_corpus():
    report = validate.validate_files([str(p) for p in FILES], validate.ObjectChecker(37))
    found = {(Path(i.file).relative_to(CORPUS).as_posix(), i.line, i.finding.rule) for i in report.findings}
    assert found == TRUE_FINDINGS, [f"{i.file}:{i.line}: {i.finding.message}" for i in report.findings]
    assert all(i.finding.severity == "warning" for i in report.findings)
    assert report.documents == sum(len(documents_of(path)) for path in FILES)


def test_kubernetes_validate_accepts_every_builtin_object():
    builtins = [(path, obj) for path, obj in ALL if is_builtin(obj)]
    assert len(builtins) >= 130
    for path, obj in builtins:
        try:
            kubernetes_validate.validate(obj, "1.37.0", strict=True)
        except kubernetes_validate.ValidationError as err:
            pytest.fail(f"{path.name}: {obj['kind']}/{obj['metadata'].get('name')}: {err}")


@needs_kubectl
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(CORPUS).as_posix())
def test_kubectl_decodes_every_file(path):
    assert kubectl_decode_error(path) is None
