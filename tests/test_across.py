"""Verdicts across the objects of one input (generator/validate/across.py): the pure function `job`
calls on what it renders, its place in `validate` (per input stream, at each object's line), and
the big-file cutter that must keep such an input whole. The rules' fixtures are
tests/fixtures/validate/{bad,good}/across-*.yaml and job-*.yaml."""

from __future__ import annotations

import copy

import pytest

from generator import validate
from generator.kubeyaml.dump import dump_documents
from generator.validate import across, parallel
from generator.validate.report import Report
from generator.validate.stream import locate_objects, validate_text

from .conftest import FIXTURES

IMAGE = "registry.baidubce.com/paddlepaddle/paddle:3.3.1"


def _template(annotations=None, scheduler=None) -> dict:
    spec = {"containers": [{"name": "paddle", "image": IMAGE}]}
    if scheduler:
        spec["schedulerName"] = scheduler
    return {"metadata": {"annotations": annotations or {}}, "spec": spec}


def podgroup(name: str) -> dict:
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": {"name": name},
            "spec": {"minMember": 2}}  # fmt: skip


def paddlejob(name: str, policy: bool = False, annotated: bool = False) -> dict:
    annotations = {"scheduling.k8s.io/group-name": name} if annotated else None
    spec = {"worker": {"replicas": 2, "template": _template(annotations, "volcano" if annotated else None)}}
    if policy:
        spec["schedulingPolicy"] = {"minAvailable": 2}
    return {"apiVersion": "batch.paddlepaddle.org/v1", "kind": "PaddleJob", "metadata": {"name": name}, "spec": spec}


def operator(*args: str) -> dict:
    pod = {"containers": [{"name": "manager", "image": "registry.baidubce.com/paddlecloud/controller:v0.3.5",
                           "command": ["/manager"], "args": list(args)}]}  # fmt: skip
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "paddle-controller-manager"},
            "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}},
                                                                          "spec": pod}}}  # fmt: skip


def rules(objects: list[dict]) -> list[tuple[int, str, str, str]]:
    return [(i, f.rule, f.severity, f.path) for i, f in across.check(objects)]


def test_the_seeds_podgroup_gangs_nothing_and_says_which_flag_it_needs():
    """Issue 27, case 2 (tests/fixtures/seeds/000-line0251.yaml): a warning without the operator in
    the input, an error with an operator that lacks --scheduling=volcano, none with the flag."""
    objects = [paddlejob("wide-ande-deep"), podgroup("wide-ande-deep")]
    assert rules(objects) == [(1, "across-podgroup", "warning", "metadata.name")]
    (_, finding), *_ = across.check(objects)
    assert "--scheduling=volcano" in finding.message and "scheduling.k8s.io/group-name" in finding.message
    assert rules([*objects, operator("--leader-elect")]) == [
        (1, "across-operator-scheduling", "error", "metadata.name")
    ]
    for flag in (["--scheduling=volcano"], ["-scheduling", "volcano"], ["--scheduling", "volcano"]):
        assert rules([*objects, operator("--leader-elect", *flag)]) == []
    assert rules([*objects, operator("--scheduling=kube-batch")])[0][1] == "across-operator-scheduling"


def test_a_scheduling_policy_next_to_an_operator_without_the_flag():
    job = paddlejob("resnet", policy=True)
    assert rules([job, operator()]) == [(0, "across-operator-scheduling", "error", "spec.schedulingPolicy")]
    assert rules([job]) == []  # no operator in the input: the single-object rule paddlejob-scheduling warns
    assert rules([job, operator("--scheduling=volcano")]) == []
    # the user's own PodGroup gangs the annotated, Volcano-scheduled pods: the ignored policy costs nothing
    assert rules([paddlejob("resnet", policy=True, annotated=True), podgroup("resnet"), operator()]) == []


def test_a_podgroup_whose_pods_are_not_scheduled_by_volcano_is_an_error():
    deployment = copy.deepcopy(operator())
    deployment["metadata"]["name"] = "web"
    deployment["spec"]["template"] = _template({"scheduling.volcano.sh/group-name": "web"})
    assert rules([podgroup("web"), deployment]) == [(0, "across-podgroup", "error", "metadata.name")]
    deployment["spec"]["template"]["spec"]["schedulerName"] = "volcano"
    assert rules([podgroup("web"), deployment]) == []
    deployment["metadata"]["namespace"], group = "a", podgroup("web")
    group["metadata"]["namespace"] = "b"  # another namespace's pods do not join it
    assert rules([group, deployment]) == [(0, "across-podgroup", "warning", "metadata.name")]


def test_parameter_servers_next_to_their_trainers_job():
    servers = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "wd-ps",
               "labels": {"paddle-job-pserver": "wd"}}}  # fmt: skip
    trainers = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "wd-worker", "labels": {"paddle-job": "wd"}},
    }
    assert rules([trainers, servers]) == [(1, "across-pserver", "warning", "metadata.labels.paddle-job-pserver")]
    trainers["metadata"]["labels"]["paddle-job"] = "other"
    assert rules([trainers, servers]) == []


def test_a_trainjob_runtime_ref_is_looked_up_in_the_input_and_the_shipped_runtimes():
    def trainjob(name, kind=None):
        ref = {"name": name, **({"kind": kind} if kind else {})}
        return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": "t"},
                "spec": {"runtimeRef": ref}}  # fmt: skip

    runtime = {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "ClusterTrainingRuntime",
        "metadata": {"name": "x"},
    }
    assert rules([trainjob("x")]) == [(0, "across-runtime-ref", "warning", "spec.runtimeRef.name")]
    assert rules([trainjob("x"), runtime]) == []
    assert rules([trainjob("x", "TrainingRuntime"), runtime]) == [
        (0, "across-runtime-ref", "warning", "spec.runtimeRef.name")
    ]
    assert rules([trainjob("paddle-distributed")]) == []  # this project's (runtimes.json)
    assert rules([trainjob("torch-distributed")]) == []  # Kubeflow Trainer's manifests


def test_check_takes_any_shape_without_crashing():
    assert across.check([None, [], {}, {"kind": "PodGroup"}, {"kind": "PodGroup", "apiVersion": 3}]) == []
    assert across.check([{"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": []}]) == []


def test_what_job_calls_on_rendered_manifests_places_findings_at_their_lines():
    """generator/jobs/model.py check_manifests: across.check over the rendered objects, then
    locate_objects with (index, object, finding), as for the checks of each object."""
    objects = [paddlejob("wide-ande-deep"), podgroup("wide-ande-deep")]
    problems = [(i, objects[i], f) for i, f in across.check(objects, "1.33")]
    (located,) = locate_objects("rendered", dump_documents(objects), problems)
    assert (located.kind, located.name, located.finding.rule) == ("PodGroup", "wide-ande-deep", "across-podgroup")
    assert located.line == dump_documents(objects).splitlines().index("  name: wide-ande-deep", 10) + 1


def test_validate_runs_the_verdicts_per_input_stream():
    checker = validate.ObjectChecker(33)
    text = dump_documents([paddlejob("wide-ande-deep"), podgroup("wide-ande-deep")])
    report = Report()
    validate_text("<in>", text, checker, report)
    assert [(i.finding.rule, i.kind, i.document) for i in report.findings] == [("across-podgroup", "PodGroup", 2)]
    # two inputs: the job in one, the PodGroup in the other; an input of no pods is not judged (a
    # GitOps repository keeps its PodGroups in a file of their own)
    for part in text.split("---\n")[1:]:
        alone = Report()
        validate_text("<part>", part, checker, alone)
        assert [i.finding.rule for i in alone.findings] == []
    report = Report()  # the PodGroup next to pods that do not join it
    deployment = operator()
    deployment["metadata"]["name"] = "web"
    validate_text("<in>", dump_documents([podgroup("wide-ande-deep"), deployment]), checker, report)
    assert [(i.finding.rule, i.line) for i in report.findings] == [("across-podgroup", 5)]


def test_the_seeds_example_is_caught():
    report = validate.validate_files([str(FIXTURES / "seeds" / "000-line0251.yaml")], validate.ObjectChecker(33))
    assert ("across-podgroup", 32) in {(i.finding.rule, i.line) for i in report.findings}


@pytest.mark.parametrize("word", [w.decode() for w in across.TRIGGERS])
def test_a_big_file_holding_what_a_verdict_reads_is_not_cut(tmp_path, word):
    job = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\ndata: {a: b}\n"
    body = "---\n".join(job % i for i in range(12000))
    path = tmp_path / "big.yaml"
    path.write_text(body)
    assert parallel._parts(str(path)) is not None  # big enough to cut
    path.write_text(body + f"---\n# {word}\n")
    assert parallel._parts(str(path)) is None


def test_every_node_of_the_across_fixtures_replaced_by_each_odd_value_never_crashes():
    """The sweep of test_validate_cli, over whole inputs: each field of each object in turn
    becomes a list, a mapping, null, a number..., the other objects of its input as they are."""
    import json

    import yaml

    from .test_validate_cli import PYTHON_WORDS, mutations

    checked = 0
    for path in sorted((FIXTURES / "validate").rglob("across-*.yaml")):
        objects = [json.loads(json.dumps(d)) for d in yaml.safe_load_all(path.read_text())]
        for i, obj in enumerate(objects):
            for (mutated,) in mutations([obj]):
                for _, finding in across.check([*objects[:i], mutated, *objects[i + 1 :]]):
                    assert not PYTHON_WORDS.search(finding.message), finding
                across.keep(mutated), across.reports_on(mutated)
                checked += 1
    assert checked > 1000


def test_a_deployment_of_a_demo_image_is_no_operator():
    demo = operator("--leader-elect")
    demo["spec"]["template"]["spec"]["containers"][0]["image"] = "registry.baidubce.com/paddle-operator/demo-ctr:v1"
    assert across._operator_scheduling(demo) is None
    named = operator("--leader-elect")
    named["spec"]["template"]["spec"]["containers"][0]["image"] = "example.com/ml/paddle-operator:v0.3.5"
    assert across._operator_scheduling(named) is False


def test_the_slim_objects_a_stream_keeps_give_the_same_verdicts():
    """stream.py keeps, of a big input, only what across.keep gives (slim objects) and whether it
    has pods: the verdicts must be those of the whole objects, on every fixture."""
    import yaml

    from generator.validate import across as verdicts

    from .conftest import FIXTURES

    compared = 0
    for path in sorted(FIXTURES.rglob("*.yaml")):
        try:
            objects = [d for d in yaml.safe_load_all(path.read_text(errors="replace")) if isinstance(d, dict)]
        except yaml.YAMLError:
            continue
        whole = verdicts.check(objects)
        kept = [(i, slim) for i, o in enumerate(objects) if (slim := verdicts.keep(o)[0]) is not None]
        pods = any(verdicts.keep(o)[1] for o in objects)
        slim = verdicts.check([o for _, o in kept], None, pods)
        assert [(i, f) for i, f in whole] == [(kept[j][0], f) for j, f in slim], path
        compared += bool(whole)
    assert compared >= 5


def test_an_input_without_a_trigger_keeps_nothing_for_the_verdicts(tmp_path, monkeypatch):
    """stream.py keeps objects for the verdicts only where the input may hold what one reports on
    (across.input_may_report): a big file of jobs without a PodGroup keeps none, so its memory does
    not grow with its jobs; a backslash (an escape may spell a trigger) or a trigger keeps them."""
    from generator.validate import stream

    kept = []
    real = across.keep
    monkeypatch.setattr(stream.across, "keep", lambda obj: kept.append(obj) or real(obj))
    job = "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: j%d}\nspec: {tasks: []}\n"
    path = tmp_path / "jobs.yaml"
    path.write_text("---\n".join(job % i for i in range(50)))
    validate.validate_files([str(path)], validate.ObjectChecker(31))
    assert kept == []
    for extra in ("# PodGroup\n", '# "a\\x20b"\n'):
        path.write_text("---\n".join(job % i for i in range(50)) + extra)
        validate.validate_files([str(path)], validate.ObjectChecker(31))
        assert len(kept) == 50
        kept.clear()


@pytest.mark.parametrize("at", [(1 << 20) - 9, (1 << 20) - 4, 1 << 20])
def test_a_trigger_across_two_blocks_is_found_and_the_file_is_put_back(tmp_path, at):
    path = tmp_path / "big.yaml"
    path.write_bytes(b"#" * at + b"PodGroup\n" + b"#" * 100)
    with open(path, "rb") as stream:
        stream.seek(7)
        assert across.input_may_report(stream)
        assert stream.tell() == 7
    path.write_bytes(b"#" * at + b"PodGrou\n" + b"#" * 100)
    with open(path, "rb") as stream:
        assert not across.input_may_report(stream)
        assert stream.tell() == 0
