"""Kueue's integrations per release (schemas/kueue/integrations.json, extracted by
generator/tools/kueue_extract.py from kubernetes-sigs/kueue's tags) and the rule on the queue
label that reads them (generator/validate/rules/kueue.py)."""

from __future__ import annotations

import json
import re

import pytest

from generator.validate.rules import kueue


def paddlejob(api: str = "kubeflow.org/v1", kind: str = "PaddleJob", **labels) -> dict:
    labels = {"kueue.x-k8s.io/queue-name": "lq", **labels}
    return {"apiVersion": api, "kind": kind, "metadata": {"name": "k", "labels": labels}}


def test_every_release_since_0_6_is_pinned_to_its_tag_and_commit():
    data = json.loads(kueue.DATA.read_text())
    releases = data["releases"]
    assert list(releases)[:2] == ["0.6", "0.7"] and kueue.newest() == max(releases, key=lambda r: int(r.split(".")[1]))
    for name, entry in releases.items():
        assert re.fullmatch(rf"v{re.escape(name)}\.\d+", entry["tag"]) and re.fullmatch(
            r"[0-9a-f]{40}", entry["commit"]
        )
        assert entry["apiDefault"] == ["batch/job"]  # SetDefaults_Configuration in every release read
        assert set(entry["shipped"]) <= set(entry["registered"]) <= set(data["frameworks"])


def test_kueue_0_19_turned_the_kubeflow_paddlejob_integration_off():
    assert kueue.enabled("kubeflow.org/paddlejob", "0.18") and not kueue.enabled("kubeflow.org/paddlejob", "0.19")
    assert kueue.queue_findings(paddlejob(), "0.18") == []
    (finding,) = kueue.queue_findings(paddlejob(), "0.19")
    assert finding.rule == "kueue-integration" and finding.severity == "warning"
    assert "'kubeflow.org/paddlejob' to integrations.frameworks" in finding.message


@pytest.mark.parametrize("release", ["0.6", "0.12", "0.19"])
def test_an_indexed_job_is_queued_by_every_release(release):
    assert kueue.queue_findings(paddlejob("batch/v1", "Job"), release) == []


def test_plain_pods_are_queued_from_0_16_and_need_a_whole_pod_group():
    assert kueue.queue_findings(paddlejob("v1", "Pod"), "0.15")[0].rule == "kueue-integration"
    assert kueue.queue_findings(paddlejob("v1", "Pod"), "0.16") == []
    grouped = paddlejob("v1", "Pod", **{"kueue.x-k8s.io/pod-group-name": "g"})
    assert [f.rule for f in kueue.queue_findings(grouped)] == ["kueue-pod-group"]
    grouped["metadata"]["annotations"] = {"kueue.x-k8s.io/pod-group-total-count": "2"}
    assert kueue.queue_findings(grouped) == []


def test_kinds_without_an_integration_and_objects_without_the_label():
    for api, kind in (("batch.paddlepaddle.org/v1", "PaddleJob"), ("batch.volcano.sh/v1alpha1", "Job")):
        (finding,) = kueue.queue_findings(paddlejob(api, kind))
        assert "has no integration" in finding.message
    assert kueue.queue_findings({"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {}}) == []
    assert kueue.queue_findings({"kind": "Job", "metadata": {"labels": []}}) == []
