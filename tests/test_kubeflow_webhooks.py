"""The training operator's validating webhooks for its kubeflow.org/v1 jobs (rules/kubeflow.py):
one implementation for every kind with a webhook in v1.9.0, the checks later releases added
judged by the release a run names (--kubeflow-version)."""

from __future__ import annotations

import pytest

from generator.core import kinds
from generator.validate.rules import kubeflow


def _job(kind: str, specs: str, replicas: dict, **spec) -> dict:
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": kind,
        "metadata": {"name": "job"},
        "spec": {specs: replicas, **spec},
    }


def _replica(container: str, **fields) -> dict:
    return {**fields, "template": {"spec": {"containers": [{"name": container, "image": "img"}]}}}


def _rules(findings) -> list[tuple[str, str, str]]:
    return [(f.severity, f.rule, f.path) for f in findings]


@pytest.mark.parametrize(
    "job", [kubeflow.PADDLE, kubeflow.PYTORCH, kubeflow.TENSORFLOW, kubeflow.XGBOOST, kubeflow.JAX]
)
def test_every_kind_with_a_webhook_is_registered_with_its_rules_and_name_rule(job):
    entry = kinds.lookup("kubeflow.org/v1", job.kind)
    assert entry is not None and entry.schema == "kubeflow" and entry.own_name_rule
    rules = kinds.resolve("generator.validate.rules", entry.rules)
    assert rules.__module__ in ("generator.validate.rules.kubeflow", "generator.validate.rules.lifecycle")
    # the pod rules find its replica templates (the group's finder)
    assert kinds.pod_templates_ref("kubeflow.org/v1", job.kind) == "replica_spec_templates"


def test_mpijob_v1_has_no_webhook_to_port():
    # pkg/webhooks/webhooks.go:37 (v1.9.0): MPIJobKind -> scaffold, which installs nothing
    assert kinds.lookup("kubeflow.org/v1", "MPIJob") is None


def test_pytorchjob_master_must_be_one_replica_unset_refused_from_the_webhooks_on():
    unset = _job("PyTorchJob", "pytorchReplicaSpecs", {"Master": _replica("pytorch")})
    found = [("error", "kubeflow-replicas", "spec.pytorchReplicaSpecs.Master.replicas")]
    assert _rules(kubeflow.pytorchjob_findings(unset, (1, 9))) == found
    assert _rules(kubeflow.pytorchjob_findings(unset, (1, 8))) == found
    assert _rules(kubeflow.pytorchjob_findings(unset, (1, 7))) == []  # the controller's check: nil passes
    two = _job("PyTorchJob", "pytorchReplicaSpecs", {"Master": _replica("pytorch", replicas=2)})
    assert _rules(kubeflow.pytorchjob_findings(two, (1, 7))) == found
    one = _job("PyTorchJob", "pytorchReplicaSpecs", {"Master": _replica("pytorch", replicas=1)})
    assert kubeflow.pytorchjob_findings(one, (1, 9)) == []


def test_pytorchjob_checks_added_in_v1_9():
    no_worker = _job("PyTorchJob", "pytorchReplicaSpecs", {"Master": _replica("pytorch", replicas=1)}, elasticPolicy={})
    assert _rules(kubeflow.pytorchjob_findings(no_worker, (1, 9))) == [
        ("error", "kubeflow-elastic-worker", "spec.pytorchReplicaSpecs")
    ]
    assert kubeflow.pytorchjob_findings(no_worker, (1, 8)) == []
    zero = _job("PyTorchJob", "pytorchReplicaSpecs", {"Worker": _replica("pytorch", replicas=0)})
    assert _rules(kubeflow.pytorchjob_findings(zero, (1, 9))) == [
        ("error", "kubeflow-replicas", "spec.pytorchReplicaSpecs.Worker.replicas")
    ]
    assert kubeflow.pytorchjob_findings(zero, (1, 8)) == []


def test_pytorchjob_nproc_per_node():
    workers = {"Worker": _replica("pytorch", replicas=2)}
    deprecated = _job("PyTorchJob", "pytorchReplicaSpecs", workers, elasticPolicy={"nProcPerNode": 2})
    path = "spec.elasticPolicy.nProcPerNode"
    assert _rules(kubeflow.pytorchjob_findings(deprecated)) == [("warning", "kubeflow-nproc-per-node", path)]
    assert kubeflow.pytorchjob_findings(deprecated, (1, 7)) == []  # no warning before the webhooks
    both = _job("PyTorchJob", "pytorchReplicaSpecs", workers, elasticPolicy={"nProcPerNode": 2}, nprocPerNode="2")
    assert _rules(kubeflow.pytorchjob_findings(both)) == [("error", "kubeflow-nproc-per-node", path)]
    assert _rules(kubeflow.pytorchjob_findings(both, (1, 7))) == [("error", "kubeflow-nproc-per-node", path)]


def test_elastic_bounds_ignored_by_paddle_refused_by_torchrun():
    bounds = {"minReplicas": 3, "maxReplicas": 1}
    torch = _job("PyTorchJob", "pytorchReplicaSpecs", {"Worker": _replica("pytorch")}, elasticPolicy=bounds)
    assert _rules(kubeflow.pytorchjob_findings(torch)) == [
        ("error", "kubeflow-elastic", "spec.elasticPolicy.minReplicas")
    ]
    paddle = _job("PaddleJob", "paddleReplicaSpecs", {"Worker": _replica("paddle")}, elasticPolicy=bounds)
    assert _rules(kubeflow.kubeflow_paddlejob_findings(paddle)) == [
        ("warning", "kubeflow-elastic", "spec.elasticPolicy.minReplicas")
    ]


def test_tfjob_takes_any_replica_type_but_one_chief_or_master():
    tf = _job("TFJob", "tfReplicaSpecs", {"Evaluator": _replica("tensorflow"), "Chief": _replica("tensorflow")})
    assert kubeflow.tfjob_findings(tf) == []
    tf["spec"]["tfReplicaSpecs"]["Master"] = _replica("tensorflow")
    assert _rules(kubeflow.tfjob_findings(tf)) == [("error", "kubeflow-replicas", "spec.tfReplicaSpecs")]


def test_xgboostjob_needs_its_master():
    xgb = _job("XGBoostJob", "xgbReplicaSpecs", {"Worker": _replica("xgboost")})
    assert _rules(kubeflow.xgboostjob_findings(xgb)) == [("error", "kubeflow-replicas", "spec.xgbReplicaSpecs")]
    xgb["spec"]["xgbReplicaSpecs"]["Master"] = _replica("xgboost", replicas=1)
    assert kubeflow.xgboostjob_findings(xgb) == []


def test_jaxjob_workers_only_and_no_run_policy_check():
    jax = _job("JAXJob", "jaxReplicaSpecs", {"Worker": _replica("jax")}, runPolicy={"managedBy": "example.com/other"})
    assert kubeflow.jaxjob_findings(jax) == []  # validateJAXJob calls no ValidateRunPolicy (v1.9.0)
    jax["spec"]["jaxReplicaSpecs"]["Master"] = _replica("jax")
    assert _rules(kubeflow.jaxjob_findings(jax)) == [("error", "kubeflow-replica-type", "spec.jaxReplicaSpecs.Master")]
