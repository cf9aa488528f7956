"""Owner `trainer`: Kubeflow Trainer v2's webhooks for TrainJobs and training runtimes
(kubeflow/trainer v2.3.0 pkg/webhooks, pkg/runtime/framework/plugins/jobset), the JobSet
webhook's limit on the names of the pods Trainer's JobSet will have (jobset v0.12.0
pkg/webhooks/jobset_webhook.go), and the contract of this project's Paddle runtimes
(libsonnet/paddlejob/runtimes/trainer.libsonnet), whose pods learn the number of nodes only
from PADDLE_NNODES."""

from __future__ import annotations

import functools
import json

from generator.core.findings import Finding
from generator.core.grammar import is_domain_prefixed_path
from generator.core.paths import RUNTIMES_FILE
from generator.core.versions import KubeVersion
from generator.validate.rules.base import as_dict, as_int, as_list, dig, error, warning
from generator.validate.rules.volumes import IN_TREE, in_tree_volume_findings
from generator.validate.rules.volumes import _source_findings as in_tree_findings

ANCESTOR = "trainer.kubeflow.org/trainjob-ancestor-step"
# validateReplicatedJobs: each ancestor step's Job must hold the container of its name
ANCESTOR_CONTAINERS = {"trainer": "node", "model-initializer": "model-initializer",
                       "dataset-initializer": "dataset-initializer"}  # fmt: skip
# plugins/jobset Validate: runtime patches may not give these containers env (Trainer sets theirs)
NO_PATCHED_ENV = ("node", "dataset-initializer", "model-initializer")
POD_SUFFIX = 6  # GenPodName + "-abcde": the random suffix the JobSet webhook counts in


@functools.cache
def paddle_runtimes() -> frozenset[str]:
    """This project's ClusterTrainingRuntimes (deploy/trainer/, named in runtimes.json): their
    trainer step is the Job `node`, and PADDLE_NNODES is 1 there unless the TrainJob's env says
    otherwise."""
    runtimes = json.loads(RUNTIMES_FILE.read_text(encoding="utf-8"))["runtimes"]
    return frozenset(name for r in runtimes for name in r.get("trainingRuntimes", {}).values())


def trainjob_findings(obj: dict, release: tuple[int, int] | None = None) -> list[Finding]:
    spec = as_dict(obj.get("spec"))
    return _patch_findings(spec) + _paddle_findings(obj, spec)


def _patch_findings(spec: dict) -> list[Finding]:
    """plugins/jobset Validate: a patch's manager is a domain-prefixed path, and it gives no env
    to the containers Trainer fills itself."""
    out = []
    for i, patch in enumerate(as_list(spec.get("runtimePatches"))):
        here = f"spec.runtimePatches[{i}]"
        manager = as_dict(patch).get("manager")
        if isinstance(manager, str) and manager and not is_domain_prefixed_path(manager):
            message = (
                f"manager {manager!r} must be a domain-prefixed path (such as acme.io/foo): "
                "Trainer's webhook refuses the TrainJob"
            )
            out.append(error(f"{here}.manager", "trainjob-runtime-patch", message))
        jobs = as_list(
            as_dict(as_dict(as_dict(as_dict(patch).get("trainingRuntimeSpec")).get("template")).get("spec")).get(
                "replicatedJobs"
            )
        )
        for j, job in enumerate(jobs):
            pod = as_dict(
                as_dict(as_dict(as_dict(as_dict(job).get("template")).get("spec")).get("template")).get("spec")
            )
            for field in ("containers",):  # Trainer looks at containers only, not initContainers
                for k, container in enumerate(as_list(pod.get(field))):
                    container = as_dict(container)
                    if container.get("name") in NO_PATCHED_ENV and container.get("env"):
                        path = (
                            f"{here}.trainingRuntimeSpec.template.spec.replicatedJobs[{j}]"
                            f".template.spec.template.spec.{field}[{k}].env"
                        )
                        message = (
                            f"a runtime patch may not give container {container['name']!r} env: Trainer's webhook "
                            "refuses the TrainJob; set it in spec.trainer.env"
                        )
                        out.append(error(path, "trainjob-runtime-patch", message))
    return out


def _paddle_findings(obj: dict, spec: dict) -> list[Finding]:
    """A TrainJob whose pods would not train together: PADDLE_NNODES other than the number of
    nodes Trainer starts, and, on this project's runtimes, pod names past the JobSet's limit."""
    out = []
    ref = as_dict(spec.get("runtimeRef"))
    runtime, kind = ref.get("name"), ref.get("kind", "ClusterTrainingRuntime")
    ours = isinstance(runtime, str) and runtime in paddle_runtimes() and kind == "ClusterTrainingRuntime"
    trainer = as_dict(spec.get("trainer"))
    given = as_int(trainer.get("numNodes"))
    if given is not None and given < 1:
        message = (
            f"numNodes {given}: the trainer step's Job gets {given} completions, so no node trains (0 completes at "
            "once, a negative count is refused when the JobSet is made); give 1 or more"
        )
        out.append(error("spec.trainer.numNodes", "trainjob-num-nodes", message))
        return out
    nodes = given if given is not None else (1 if ours else None)  # the runtime's mlPolicy.numNodes
    env = [(i, as_dict(e)) for i, e in enumerate(as_list(trainer.get("env")))]
    declared = [(i, e.get("value")) for i, e in env if e.get("name") == "PADDLE_NNODES"]
    if declared and nodes is not None:
        i, value = declared[-1]
        if isinstance(value, str) and value.strip() != str(nodes):
            message = (
                f"PADDLE_NNODES is {value!r} and Trainer starts {nodes} node{'s' if nodes != 1 else ''} (numNodes): "
                "Paddle's launcher waits for PADDLE_NNODES nodes, so the job never starts or its pods train apart; "
                "give both the same number"
            )
            out.append(error(f"spec.trainer.env[{i}].value", "trainjob-paddle-nnodes", message))
    elif ours and not declared and nodes is not None and nodes > 1:
        message = (
            f"numNodes {nodes}, but runtime {ref['name']} tells every pod PADDLE_NNODES=1: each of the {nodes} pods "
            f"trains alone; add env PADDLE_NNODES={nodes} (`job --runtime kubeflow-trainer` writes it)"
        )
        out.append(error("spec.trainer.numNodes", "trainjob-paddle-nnodes", message))
    name = as_dict(obj.get("metadata")).get("name")
    if ours and isinstance(name, str) and nodes is not None and nodes >= 1:
        pod = f"{name}-node-0-{nodes - 1}"
        if len(pod) + POD_SUFFIX > 63:
            message = (
                f"TrainJob name {name!r} is too long: its last pod {pod}-xxxxx would exceed 63 characters, and the "
                "JobSet webhook refuses the JobSet Trainer makes (the TrainJob is accepted and never runs); "
                f"use at most {63 - POD_SUFFIX - len(pod) + len(name)} characters"
            )
            out.append(error("metadata.name", "trainjob-name-length", message))
    return out


def runtime_findings(obj: dict, release: tuple[int, int] | None = None) -> list[Finding]:
    """validateReplicatedJobs (pkg/webhooks/trainingruntime_webhook.go): each step Trainer fills
    (trainer, dataset-initializer, model-initializer) is one Job holding the container of its
    name."""
    out = []
    template_spec = as_dict(as_dict(as_dict(obj.get("spec")).get("template")).get("spec"))
    for i, job in enumerate(as_list(template_spec.get("replicatedJobs"))):
        job = as_dict(job)
        ancestor = as_dict(dig(job, "template", "metadata", "labels")).get(ANCESTOR)
        if not isinstance(ancestor, str) or ancestor not in ANCESTOR_CONTAINERS:
            continue
        here = f"spec.template.spec.replicatedJobs[{i}]"
        replicas = as_int(job.get("replicas"))
        if replicas is not None and replicas != 1:
            message = (
                f"replicas {replicas}: the {ancestor} step always must be 1 (Trainer's webhook refuses the runtime)"
            )
            out.append(error(f"{here}.replicas", "trainer-runtime", message))
        pod = as_dict(dig(job, "template", "spec", "template", "spec"))
        names = [as_dict(c).get("name") for c in as_list(pod.get("containers"))]
        if isinstance(pod.get("containers"), list) and ANCESTOR_CONTAINERS[ancestor] not in names:
            message = (
                f"the {ancestor} step must contain the container {ANCESTOR_CONTAINERS[ancestor]!r}: Trainer fills "
                "that one from a TrainJob, and its webhook refuses the runtime without it"
            )
            out.append(error(f"{here}.template.spec.template.spec.containers", "trainer-runtime", message))
    return out


# The oldest Kubernetes release each Trainer release states it runs on: "Prerequisites" of
# charts/kubeflow-trainer/README.md (v2.0.0 117ad23a, v2.1.0 73c9bece, v2.2.0 dc7656ad: Kubernetes
# >= 1.29; v2.3.0 658725bd: >= 1.31, as docs/operator-guides/installation.md says too).
KUBE_MINIMUM = {(2, 0): 29, (2, 1): 29, (2, 2): 29, (2, 3): 31}


def kube_minimum(release: tuple[int, int] | None) -> int:
    """The oldest Kubernetes minor Trainer ``release`` runs on (the newest release's when unknown)."""
    return KUBE_MINIMUM.get(tuple(release) if release else None, KUBE_MINIMUM[max(KUBE_MINIMUM)])


def kube_release_findings(obj: dict, releases: list[int], release: tuple[int, int] | None) -> list[Finding]:
    """What depends on the targeted Kubernetes releases: a release older than Trainer ``release``
    states it needs, and in-tree volumes of a TrainJob's pod overrides and runtime patches (the
    pod rules walk whole pod templates only), judged on the targeted releases and on the oldest
    release Trainer runs on, whichever is newer."""
    out = []
    minimum = kube_minimum(release)
    name = f"{release[0]}.{release[1]}" if release else "v2.3"
    if releases and min(releases) < minimum:
        message = (
            f"Kubernetes {KubeVersion(min(releases))} is targeted, and Kubeflow Trainer {name} states it needs "
            f"Kubernetes {KubeVersion(minimum)} or newer (charts/kubeflow-trainer/README.md, Prerequisites): "
            f"target {KubeVersion(minimum)}+ (--kube-version), or run a Trainer release made for this one"
        )
        out.append(warning("apiVersion", "trainer-kube-version", message))
    runs_on = f"Kubeflow Trainer {name} runs on Kubernetes {KubeVersion(minimum)}+"
    if obj.get("kind") != "TrainJob":  # a runtime: the pod rules judged its JobSet template on the targeted releases
        if releases and max(releases) < minimum:  # and where Trainer runs, a plugin may be gone
            out += [
                f._replace(message=f"{f.message} ({runs_on})")
                for f in in_tree_volume_findings(obj, [minimum])
                if f.is_error
            ]
        return out
    judged = [*releases, minimum]
    spec = as_dict(obj.get("spec"))
    volume_lists = [
        (f"spec.podSpecOverrides[{i}].volumes", as_dict(o).get("volumes"))  # Trainer v2.0
        for i, o in enumerate(as_list(spec.get("podSpecOverrides")))
    ]
    volume_lists += [
        (f"spec.podTemplateOverrides[{i}].spec.volumes", dig(o, "spec", "volumes"))  # Trainer v2.1
        for i, o in enumerate(as_list(spec.get("podTemplateOverrides")))
    ]
    for i, patch in enumerate(as_list(spec.get("runtimePatches"))):  # Trainer v2.2 and v2.3
        jobs = as_list(dig(patch, "trainingRuntimeSpec", "template", "spec", "replicatedJobs"))
        for j, job in enumerate(jobs):
            path = f"spec.runtimePatches[{i}].trainingRuntimeSpec.template.spec.replicatedJobs[{j}]"
            volume_lists.append(
                (
                    f"{path}.template.spec.template.spec.volumes",
                    dig(job, "template", "spec", "template", "spec", "volumes"),
                )
            )
    for path, volumes in volume_lists:
        for k, volume in enumerate(as_list(volumes)):
            if not isinstance(volume, dict) or IN_TREE.keys().isdisjoint(volume):
                continue
            for finding in in_tree_findings(volume, f"{path}[{k}]", judged):
                if max(releases or [0]) < minimum:  # the verdict comes from Trainer's minimum: say so
                    finding = finding._replace(message=f"{finding.message} ({runs_on})")
                out.append(finding)
    return out
