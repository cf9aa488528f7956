"""Verdicts across the objects of one input (a file, or the documents of one stream), which no
object shows alone (owner `across` in the rulebook):

- a Volcano PodGroup that gangs no pod of an input that holds pods: no pod template carries its
  group annotation, or those that do are not scheduled by Volcano (the default scheduler does not
  read the annotation; Volcano's gang plugin counts the pods whose annotation names the group);
- a paddle-operator PaddleJob gang (its `schedulingPolicy`, or a PodGroup named after the job,
  which the operator joins its pods to) next to a paddle-operator Deployment that runs without
  `--scheduling=volcano`: paddle-operator v0.3.5 makes the PodGroup and annotates the pods only
  with that flag (main.go; controllers/paddlejob_controller.go Reconcile and createPod);
- parameter servers (a StatefulSet labelled `paddle-job-pserver=JOB`) next to the trainers' Job
  (`paddle-job=JOB`), as the kubernetes runtime writes them: a StatefulSet's pods restart
  Always, and nothing stops them once the Job is Complete;
- a TrainJob whose runtimeRef names no training runtime of the input, of this project
  (runtimes.json, deploy/trainer/) or of Kubeflow Trainer's own manifests.

An error where the input alone decides; a warning that names the assumption where the cluster
may hold what the input lacks. `check` is pure over plain objects: `validate` runs it on each
input stream after its documents (stream.py), `job` on what it renders.
"""

from __future__ import annotations

import os
import stat

from generator.core.findings import Finding, child
from generator.validate.rules.base import as_dict, as_list, error, warning
from generator.validate.rules.pod import pod_templates as templates
from generator.validate.rules.trainer import paddle_runtimes

GROUP_ANNOTATIONS = ("scheduling.k8s.io/group-name", "scheduling.volcano.sh/group-name")
PSERVER_LABEL = "paddle-job-pserver"  # the kubernetes runtime's servers (runtimes/kubernetes.libsonnet)
TRAINER_LABEL = "paddle-job"
# The ClusterTrainingRuntimes Kubeflow Trainer's manifests install (manifests/base/runtimes,
# v2.0.0 to v2.3.0 658725bd), which a TrainJob may name without the input holding them.
TRAINER_RUNTIMES = frozenset(
    {
        "deepspeed-distributed",
        "jax-distributed",
        "mlx-distributed",
        "mpi-distributed",
        "torch-distributed",
        "torch-distributed-with-cache",
        "torchtune-llama3.2-1b",
        "torchtune-llama3.2-3b",
        "torchtune-qwen2.5-1.5b",
        "xgboost-distributed",
    }
)
# Words without which a file holds nothing a verdict here reports on: a PodGroup, a TrainJob, a
# schedulingPolicy (a PaddleJob's gang; a PaddleJob without one is reported on only through its
# PodGroup), parameter servers. parallel.py keeps a file holding one of them whole, as it keeps a
# Namespace's, so that each verdict sees every object of the file.
TRIGGERS = (b"PodGroup", b"TrainJob", b"schedulingPolicy", PSERVER_LABEL.encode())
_LONGEST_TRIGGER = max(len(word) for word in TRIGGERS)


def may_report(data: bytes) -> bool:
    """Whether UTF-8 ``data`` may hold an object a verdict here reports on: it holds one of the
    TRIGGERS, or a backslash (a double-quoted escape may spell one: `"PodGr\\x6fup"`). False
    proves it holds none; true only says it may."""
    return b"\\" in data or any(word in data for word in TRIGGERS)


def input_may_report(source) -> bool:
    """may_report for what validate reads (stream.py): text, bytes, or a binary file, which is
    scanned in blocks and put back where it was when it can seek; a stream that cannot (a pipe)
    may hold anything."""
    if isinstance(source, str):
        return may_report(source.encode("utf-8", "surrogatepass"))
    if isinstance(source, bytes | bytearray | memoryview):
        return may_report(bytes(source))
    try:
        info = os.fstat(source.fileno())
        if not stat.S_ISREG(info.st_mode) or not source.seekable():
            return True  # a pipe, a terminal, a device (/dev/zero never ends): it may hold anything
        start = source.tell()
    except (AttributeError, OSError, ValueError):
        return True
    try:
        tail, left = b"", info.st_size - start  # what the reader will read of it, at most
        while left > 0 and (block := source.read(min(1 << 20, left))):
            if may_report(tail + block):
                return True
            tail = block[-(_LONGEST_TRIGGER - 1) :]  # a word may span two blocks
            left -= len(block)
        return left > 0 or bool(source.read(1))  # a file that shrank or grew while it was scanned
    finally:
        source.seek(start)


def _api(obj: dict) -> str:
    return str(obj.get("apiVersion", ""))


def _is(obj: dict, group: str, kind: str) -> bool:
    return obj.get("kind") == kind and _api(obj).rpartition("/")[0] == group


def _name(obj: dict) -> str | None:
    name = as_dict(obj.get("metadata")).get("name")
    return name if isinstance(name, str) else None  # another type: the schema's finding


def _namespace(obj: dict) -> str | None:
    namespace = as_dict(obj.get("metadata")).get("namespace")
    return namespace if isinstance(namespace, str) else None


def _same_namespace(a: dict, b: dict) -> bool:
    """Unset is the namespace kubectl applies to (its current one): it may be the other's."""
    first, second = _namespace(a), _namespace(b)
    return not isinstance(first, str) or not isinstance(second, str) or first == second


def _labels(obj: dict) -> dict:
    return as_dict(as_dict(obj.get("metadata")).get("labels"))


def _operator_scheduling(obj: dict) -> bool | None:
    """For a paddle-operator Deployment, whether it runs with --scheduling=volcano (Go's flag
    package: -scheduling or --scheduling, =volcano or the next argument); None for anything else."""
    if not _is(obj, "apps", "Deployment"):
        return None
    pod = as_dict(as_dict(as_dict(obj.get("spec")).get("template")).get("spec"))
    found = None
    for container in as_list(pod.get("containers")):
        container = as_dict(container)
        image = container.get("image")
        words = [w for w in [*as_list(container.get("command")), *as_list(container.get("args"))] if isinstance(w, str)]
        # the operator's image (registry.baidubce.com/paddlecloud/controller, or one named paddle-operator;
        # not the demo images under a paddle-operator/ folder) or its chart's label
        last = image.rpartition("/")[2] if isinstance(image, str) else ""
        operator = last.startswith("paddle-operator") or (isinstance(image, str) and "paddlecloud/controller" in image)
        if not operator and _labels(obj).get("app.kubernetes.io/name") != "paddle-operator":
            continue
        found = False
        for i, word in enumerate(words):
            flag, _, value = word.lstrip("-").partition("=")
            if word.startswith("-") and flag == "scheduling":
                value = value if "=" in word else (words[i + 1] if i + 1 < len(words) else "")
                if value == "volcano":
                    return True
    return found


def _group_of(template: dict) -> str | None:
    annotations = as_dict(as_dict(template.get("metadata")).get("annotations"))
    for key in GROUP_ANNOTATIONS:
        if isinstance(annotations.get(key), str):
            return annotations[key]
    return None


def _with_volcano(job: dict) -> bool:
    """paddle-operator v0.3.5 withVolcano: no role names a scheduler other than volcano."""
    for _, template in _templates_of(job):  # a PaddleJob's: each role's (ps, worker, heter)
        name = as_dict(template.get("spec")).get("schedulerName")
        if isinstance(name, str) and name not in ("", "volcano"):
            return False
    return True


# What keep() stores in a slim object: its pod templates, slimmed, and its operator flag, under
# keys no manifest has (a NUL byte), so that the verdicts need not find them again.
_TEMPLATES, _OPERATOR = "\0templates", "\0operator"
_KEPT_METADATA = ("name", "namespace", "labels", "ownerReferences")
_KEPT_SPEC = ("runtimeRef", "schedulingPolicy")
_PLAIN = (None, {"metadata": {}, "spec": {}})  # a kept pod template naming no group and no scheduler (read only)


def keep(obj) -> tuple[dict | None, bool]:
    """What stream.py keeps of ``obj`` until the input ends, and whether it holds pods. Kept (as
    a slim object: apiVersion, kind, the metadata's name, namespace and labels, a spec's
    runtimeRef and schedulingPolicy, and of each pod template its group annotation and scheduler,
    a few hundred bytes, not the whole tree): what names a gang, a runtime or parameter servers, a
    paddle-operator Deployment, a Volcano Job (its PodGroup is named after it), and what holds
    pods that name a PodGroup. Of the other pods the verdicts need only that there are some."""
    if not isinstance(obj, dict):
        return None, False
    found = templates(obj)
    operator = _operator_scheduling(obj)
    slim_templates = []
    named_group = False
    for _, template in found:
        group = _group_of(template)
        named_group = named_group or group is not None
        pod = as_dict(template.get("spec"))
        if group is None and "schedulerName" not in pod:
            slim_templates.append(_PLAIN)  # most templates: one shared object
            continue
        slim_templates.append(
            (
                None,
                {
                    "metadata": {"annotations": {GROUP_ANNOTATIONS[0]: group}} if group is not None else {},
                    "spec": {"schedulerName": pod["schedulerName"]} if "schedulerName" in pod else {},
                },
            )
        )
    labels = _labels(obj)
    wanted = (
        obj.get("kind") in ("PodGroup", "PaddleJob", "TrainJob", "ClusterTrainingRuntime", "TrainingRuntime")
        or _is(obj, "batch.volcano.sh", "Job")
        or operator is not None
        or PSERVER_LABEL in labels
        or TRAINER_LABEL in labels
        or named_group
    )
    if not wanted:
        return None, bool(found)
    meta = as_dict(obj.get("metadata"))
    spec = as_dict(obj.get("spec"))
    slim = {
        "apiVersion": obj.get("apiVersion"),
        "kind": obj.get("kind"),
        "metadata": {k: meta[k] for k in _KEPT_METADATA if k in meta},
        "spec": {k: spec[k] for k in _KEPT_SPEC if k in spec},
        _TEMPLATES: tuple(slim_templates),
        _OPERATOR: operator,
    }
    return slim, bool(found)


def reports_on(obj) -> bool:
    """Whether a finding here may be on ``obj`` (stream.py keeps its position in the input)."""
    if not isinstance(obj, dict):
        return False
    if obj.get("kind") == "PaddleJob":  # a PaddleJob's one verdict is on its schedulingPolicy
        return isinstance(as_dict(obj.get("spec")).get("schedulingPolicy"), dict)
    return obj.get("kind") in ("PodGroup", "TrainJob") or PSERVER_LABEL in _labels(obj)


def _templates_of(obj: dict) -> list[tuple[str | None, dict]]:
    return obj[_TEMPLATES] if _TEMPLATES in obj else templates(obj)


def _operator_of(obj: dict) -> bool | None:
    return obj[_OPERATOR] if _OPERATOR in obj else _operator_scheduling(obj)


def check(objects: list[dict], release=None, pods: bool | None = None) -> list[tuple[int, Finding]]:
    """The verdicts across ``objects`` (one input): (index of the object a finding is on, the
    finding, its path relative to that object). ``release``: the targeted Kubernetes release
    (no verdict here depends on it yet). ``pods``: whether the input holds pod templates (by
    default, whether ``objects`` do; stream.py passes it, as it keeps only what keep() names)."""
    objects = [o if isinstance(o, dict) else {} for o in objects]
    operators = [(i, s) for i, o in enumerate(objects) if (s := _operator_of(o)) is not None]
    pods = any(_templates_of(o) for o in objects) if pods is None else pods
    out = _podgroup_findings(objects, operators, pods)
    out += _scheduling_policy_findings(objects, operators)
    out += _pserver_findings(objects)
    out += _runtime_ref_findings(objects)
    return sorted(out, key=lambda item: item[0])


def _operator_note(operators: list[tuple[int, bool]]) -> str:
    return "the paddle-operator Deployment of this input runs without --scheduling=volcano" if operators else ""


def _podgroup_findings(objects: list[dict], operators: list[tuple[int, bool]], pods: bool) -> list[tuple[int, Finding]]:
    out = []
    members: list[tuple[dict, str, dict]] = []  # (object, group name, pod template)
    for obj in objects:
        for _, template in _templates_of(obj):
            group = _group_of(template)
            if group is not None:
                members.append((obj, group, template))
    for i, group_obj in enumerate(objects):
        if not _is(group_obj, "scheduling.volcano.sh", "PodGroup"):
            continue
        name = _name(group_obj)
        if not isinstance(name, str) or as_dict(group_obj.get("metadata")).get("ownerReferences"):
            continue  # a controller's PodGroup (exported from a cluster): its pods are the controller's
        joined = [(o, t) for o, g, t in members if g == name and _same_namespace(o, group_obj)]
        if joined:
            volcano = [
                o
                for o, t in joined
                if as_dict(t.get("spec")).get("schedulerName") == "volcano"
                or (_api(o).startswith("batch.paddlepaddle.org/") and not as_dict(t.get("spec")).get("schedulerName"))
            ]
            if not volcano:
                message = (
                    f"the pods that name PodGroup {name} in their group annotation are not scheduled by volcano "
                    "(schedulerName): the default scheduler ignores the annotation, so this PodGroup gangs no pod "
                    "and they start one by one; set schedulerName: volcano in their templates"
                )
                out.append((i, error("metadata.name", "across-podgroup", message)))
            continue
        job = next(
            (
                o
                for o in objects
                if _is(o, "batch.paddlepaddle.org", "PaddleJob") and _name(o) == name and _same_namespace(o, group_obj)
            ),
            None,
        )
        if job is not None and _with_volcano(job):
            how = (
                f"no pod template of this input carries its group annotation, and paddle-operator v0.3.5 joins "
                f"PaddleJob {name}'s pods to it (annotation scheduling.k8s.io/group-name, schedulerName volcano) only "
                "when it runs with --scheduling=volcano (main.go; paddlejob_controller.go createPod)"
            )
            if any(not flag for _, flag in operators):
                message = (
                    f"PodGroup {name} gangs no pod: {how}, and {_operator_note(operators)}; add the flag to its "
                    f"args, or annotate the job's pod templates with scheduling.k8s.io/group-name: {name} and "
                    "schedulerName: volcano"
                )
                out.append((i, error("metadata.name", "across-operator-scheduling", message)))
            elif not operators:
                message = (
                    f"PodGroup {name} gangs no pod unless the cluster's paddle-operator runs with "
                    "--scheduling=volcano: "
                    f"{how}; the operator bundle in deploy/ does not set it. Annotate the job's pod templates with "
                    f"scheduling.k8s.io/group-name: {name} and schedulerName: volcano (job --volcano --podgroup "
                    "writes them), or run the operator with the flag"
                )
                out.append((i, warning("metadata.name", "across-podgroup", message)))
            continue
        if not pods:
            continue  # an input of no pods (a GitOps repository's scheduling.yaml): they come from elsewhere
        if any(_is(o, "batch.volcano.sh", "Job") and _name(o) == name for o in objects):
            continue  # a Volcano Job's controller names its PodGroup after the job (newer: and its UID)
        message = (
            f"no pod template of this input carries PodGroup {name}'s group annotation ({GROUP_ANNOTATIONS[0]}), "
            "so it gangs no pod of this input; it is useful only if pods from elsewhere name it: annotate the pods "
            "it should gang, or drop it"
        )
        out.append((i, warning("metadata.name", "across-podgroup", message)))
    return out


def _scheduling_policy_findings(objects: list[dict], operators: list[tuple[int, bool]]) -> list[tuple[int, Finding]]:
    """A PaddleJob's schedulingPolicy, which only an operator with --scheduling=volcano acts on,
    next to an operator without it, unless every role joins a PodGroup of the input itself."""
    if not any(not flag for _, flag in operators):
        return []
    groups = {(_namespace(o), _name(o)) for o in objects if _is(o, "scheduling.volcano.sh", "PodGroup") and _name(o)}
    out = []
    for i, job in enumerate(objects):
        if not _is(job, "batch.paddlepaddle.org", "PaddleJob"):
            continue
        if not isinstance(as_dict(job.get("spec")).get("schedulingPolicy"), dict):
            continue
        ganged = [t for _, t in _templates_of(job)]
        if ganged and all(
            any(
                _group_of(t) == name and (ns == _namespace(job) or None in (ns, _namespace(job))) for ns, name in groups
            )
            and as_dict(t.get("spec")).get("schedulerName") == "volcano"
            for t in ganged
        ):
            continue  # the user's PodGroup gangs the pods: the policy is ignored, the gang holds
        message = (
            f"schedulingPolicy is ignored: {_operator_note(operators)}, and paddle-operator v0.3.5 makes the "
            "PodGroup and annotates the pods only with that flag (main.go; paddlejob_controller.go Reconcile), so "
            "the pods are not gang-scheduled; add --scheduling=volcano to the operator's args, or write the "
            "PodGroup and annotate the pod templates (job --volcano --podgroup)"
        )
        out.append((i, error("spec.schedulingPolicy", "across-operator-scheduling", message)))
    return out


def _pserver_findings(objects: list[dict]) -> list[tuple[int, Finding]]:
    out = []
    for i, servers in enumerate(objects):
        if not _is(servers, "apps", "StatefulSet"):
            continue
        job_name = _labels(servers).get(PSERVER_LABEL)
        if not isinstance(job_name, str):
            continue
        trainers = next(
            (
                o
                for o in objects
                if _is(o, "batch", "Job") and _labels(o).get(TRAINER_LABEL) == job_name and _same_namespace(o, servers)
            ),
            None,
        )
        if trainers is None or _name(servers) is None or _name(trainers) is None:
            continue  # a nameless object: the schema's finding
        message = (
            f"the parameter servers of job {job_name} run for ever: StatefulSet {_name(servers)}'s pods restart "
            f"Always, and nothing stops them when the trainers' Job {_name(trainers)} completes (Paddle's servers "
            "serve on after the trainers exit, PaddlePaddle/Paddle#31053); delete the StatefulSet once the Job "
            "is Complete (kubectl wait "
            f"--for=condition=complete job/{_name(trainers)}), or use a runtime whose controller ends the job"
        )
        out.append((i, warning(child("metadata.labels", PSERVER_LABEL), "across-pserver", message)))
    return out


def _runtime_ref_findings(objects: list[dict]) -> list[tuple[int, Finding]]:
    out = []
    runtimes = {
        (str(o.get("kind")), _name(o), _namespace(o) if o.get("kind") == "TrainingRuntime" else None)
        for o in objects
        if _api(o).startswith("trainer.kubeflow.org/")
        and o.get("kind") in ("ClusterTrainingRuntime", "TrainingRuntime")
    }
    for i, job in enumerate(objects):
        if not (_api(job).startswith("trainer.kubeflow.org/") and job.get("kind") == "TrainJob"):
            continue
        ref = as_dict(as_dict(job.get("spec")).get("runtimeRef"))
        name, kind = ref.get("name"), ref.get("kind", "ClusterTrainingRuntime")
        if not isinstance(name, str) or not isinstance(kind, str):
            continue  # the schema's finding
        if kind == "ClusterTrainingRuntime":
            if (kind, name, None) in runtimes or name in paddle_runtimes() or name in TRAINER_RUNTIMES:
                continue
        elif any(k == kind and n == name and (ns is None or ns == _namespace(job) or _namespace(job) is None)
                 for k, n, ns in runtimes):  # fmt: skip
            continue
        shipped = (
            " nor one of this project's (deploy/trainer/) or Kubeflow Trainer's"
            if kind == "ClusterTrainingRuntime"
            else ""
        )
        message = (
            f"runtimeRef names {kind} {name!r}, which is not in this input{shipped}: "
            "Trainer's webhook refuses the TrainJob unless the cluster holds it (v2.3.0 pkg/runtime/core "
            "ValidateObjects: the runtime must be created before the TrainJob); check the name, or apply the "
            "runtime with the job"
        )
        out.append((i, warning("spec.runtimeRef.name", "across-runtime-ref", message)))
    return out
