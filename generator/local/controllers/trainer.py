"""The pods of a TrainJob and of a JobSet, as Kubeflow Trainer and the JobSet controller make them.

Trainer (v2.3.0) turns a TrainJob and the (Cluster)TrainingRuntime it names into a JobSet named
like the TrainJob (pkg/runtime/core/trainingruntime.go: the runtime's JobSet template, the
TrainJob's runtimePatches merged in, keyed by replicated Job and container name; then the
plugins): plainml makes `trainer.numNodes` the trainer step's pod count and upserts
`trainer.env` into its container named `node`; the jobset plugin sets that container's image,
command, args and resources from `trainer` (plugins/jobset/builder.go). The JobSet controller
makes each replicated Job `replicas` times, named `<jobset>-<replicatedJob>-<index>`
(pkg/controllers/jobset_controller.go constructJob), Indexed by the webhook's default, labelled
jobset.sigs.k8s.io/jobset-name and the rest, with the pod template's subdomain the JobSet's
network subdomain (its name by default) and a headless Service of that name selecting the
JobSet's pods. The Job controller then gives each pod the host name `<job>-<index>`: the pods of
node Job 0 are `<trainjob>-node-0-<i>.<trainjob>`.

The JobSet's pods and its verdict are the JobSet controller's (controllers/jobset.py). This
project's trainer runtimes carry no failurePolicy; a hand-written JobSet or runtime may.
"""

from __future__ import annotations

import copy

from generator.local.controllers.jobset import JOBSET_API, jobset_pods
from generator.local.pods import Context, ExpandError, Pod, limit, name_and_namespace, pod_count
from generator.validate.rules.trainer import ANCESTOR

TRAINER_API = "trainer.kubeflow.org/v1alpha1"
TRAINER = "Kubeflow Trainer v2.3.0 (JobSet)"
NODE = "node"  # the container of the trainer step Trainer fills from a TrainJob's `trainer`
RUNTIME_KINDS = ("ClusterTrainingRuntime", "TrainingRuntime")
# mlPolicy's framework plugins (torch, mpi, jax, xgboost, flux), which local mode does not model
FRAMEWORK_PLUGINS = {"torch", "mpi", "jax", "xgboost", "flux"}


def runtimes_of(manifests: list[dict]) -> dict[tuple[str, str, str | None], dict]:
    """The training runtimes among ``manifests`` by (kind, name, namespace); a cluster-scoped
    runtime has no namespace."""
    found = {}
    for obj in manifests:
        if obj.get("apiVersion") == TRAINER_API and obj.get("kind") in RUNTIME_KINDS:
            name, namespace = name_and_namespace(obj)
            found[(obj["kind"], name, namespace if obj["kind"] == "TrainingRuntime" else None)] = obj
    return found


def shipped_runtimes() -> dict[str, dict]:
    """The ClusterTrainingRuntimes this project writes to deploy/trainer/, by name."""
    from generator.jobs.model import trainer_runtimes

    return {obj["metadata"]["name"]: obj for obj in trainer_runtimes()}


def trainjob_pods(trainjob: dict, ctx: Context) -> list[Pod]:
    """The pods of ``trainjob``, made with its runtime from the input or, when it names one this
    project ships and the input does not hold it, with that one (a note says so: on a cluster it
    must be installed)."""
    jobset, note = trainjob_jobset(trainjob, runtimes_of(ctx.manifests))
    pods = jobset_pods(jobset)
    name = (trainjob.get("metadata") or {}).get("name")
    # spec.activeDeadlineSeconds (Trainer 2.2+): past it from the TrainJob's start, Failed with reason
    # DeadlineExceeded and its pods ended (pkg/controller/trainjob_controller.go reconcileDeadline)
    deadline = limit(
        (trainjob.get("spec") or {}).get("activeDeadlineSeconds"), f"TrainJob {name} activeDeadlineSeconds"
    )
    for pod in pods:
        pod.controller = TRAINER
        if note:
            pod.notes.append(note)
        if deadline is not None:
            pod.deadline = deadline
            pod.deadline_reason = (
                f"TrainJob {name} was active longer than its activeDeadlineSeconds {deadline} (DeadlineExceeded): "
                "Trainer fails it and its pods are ended (trainjob_controller.go reconcileDeadline)"
            )
    return pods


# -- the lifecycle (controllers/__init__.py): Trainer v2.3.0 over the JobSet it makes ----------------------

TRAINJOB = "trainer pkg/controller/trainjob_controller.go"


def lifecycle(objects: list[dict]) -> dict:
    """The JobSet's answers (jobset.lifecycle, of the JobSet Trainer makes) and the TrainJob's own."""
    from generator.local.controllers import Answer, named, of_kind
    from generator.local.controllers.jobset import lifecycle as jobset_lifecycle

    trainjob = next(iter(of_kind(objects, "TrainJob", "trainer.kubeflow.org")), {})
    spec = trainjob.get("spec") or {}
    try:
        jobset, _ = trainjob_jobset(trainjob, runtimes_of(objects))
    except ExpandError:
        jobset = {}
    out = dict(jobset_lifecycle(objects, jobset, named(trainjob)))
    for scenario in ("success", "crash", "lost node"):
        was = out[scenario]
        out[scenario] = Answer(
            f"the JobSet: {was.outcome}; Trainer copies its condition to the TrainJob",
            f"{was.source}; {TRAINJOB} Reconcile",
            was.phase,  # noqa: E501
        )
    deadline = spec.get("activeDeadlineSeconds")
    out["deadline"] = (
        Answer(
            f"past spec.activeDeadlineSeconds {deadline} from its start: Failed (DeadlineExceeded), its pods ended",
            f"{TRAINJOB} reconcileDeadline",
            "Failed",
        )
        if deadline is not None
        else Answer("no deadline: it runs until it ends", f"{TRAINJOB} reconcileDeadline")
    )
    out["suspend"] = Answer(
        "suspended: the JobSet is made suspended, no pods; resumed: unsuspended (and the deadline counts anew)"
        if spec.get("suspend")
        else "not suspended: the JobSet starts at once",
        f"{TRAINJOB} Reconcile; trainer pkg/runtime/framework/plugins/jobset/jobset.go Build",
    )
    if not (jobset.get("spec") or {}).get("ttlSecondsAfterFinished"):
        out["finished"] = Answer(
            f"{named(trainjob)} and its JobSet stay: a TrainJob has no TTL (the runtime's JobSet template would "
            "hold one); `job --ttl` is refused",
            "trainer pkg/apis/trainer/v1alpha1/trainjob_types.go TrainJobSpec",
        )
    out.pop("shrink", None)
    labels = (trainjob.get("metadata") or {}).get("labels") or {}
    queue = labels.get("kueue.x-k8s.io/queue-name")
    out["kueue"] = Answer(
        (
            f"queue {queue}: Kueue's TrainJob integration (0.14+) admits it whole"
            + (
                f"; managedBy {spec.get('managedBy')}: from Trainer 2.3 its controller leaves it to MultiKueue"
                if spec.get("managedBy")
                else ""
            )
        )
        if queue
        else "not queued: it runs at once",
        f"{TRAINJOB} Reconcile (managedBy, kubeflow/trainer#3632); kueue pkg/controller/jobs/trainjob",
    )
    return out


def trainjob_jobset(trainjob: dict, runtimes: dict) -> tuple[dict, str | None]:
    """The JobSet Trainer makes of ``trainjob``, and a note when its runtime came from this
    project rather than the input."""
    name, namespace = name_and_namespace(trainjob)
    spec = trainjob.get("spec") or {}
    ref = spec.get("runtimeRef") or {}
    kind, runtime_name = ref.get("kind") or "ClusterTrainingRuntime", ref.get("name")
    runtime = runtimes.get((kind, runtime_name, namespace if kind == "TrainingRuntime" else None))
    note = None
    if runtime is None and kind == "ClusterTrainingRuntime" and runtime_name in (shipped := shipped_runtimes()):
        runtime = shipped[runtime_name]
        note = (
            f"ClusterTrainingRuntime {runtime_name} is this project's (deploy/trainer/); "
            "on a cluster it must be installed first"
        )
    if runtime is None:
        raise ExpandError(
            f"TrainJob {name}: its runtime {kind} {runtime_name} is not in the input; give the runtime's "
            "manifest in the same file (on a cluster Trainer's webhook refuses a TrainJob whose runtime is missing)"
        )
    runtime_spec = runtime.get("spec") or {}
    ml_policy = runtime_spec.get("mlPolicy")
    frameworks = sorted(set(ml_policy or {}) & FRAMEWORK_PLUGINS)
    if frameworks:
        raise ExpandError(
            f"{kind} {runtime_name}: mlPolicy.{frameworks[0]} is a Trainer framework plugin, which injects its own "
            "environment (torch's PET_*, jax's JAX_*, mpi's hostfile); local mode models runtimes without one "
            "(plainml, as this project's Paddle runtimes), so it does not run this TrainJob"
        )
    if spec.get("suspend") is True:
        raise ExpandError(
            f"TrainJob {name} is suspended (spec.suspend): its JobSet makes no pod until the TrainJob is resumed "
            "(Kueue resumes the jobs it admits); nothing would run"
        )
    template = copy.deepcopy(runtime_spec.get("template") or {})
    jobset_spec = template.get("spec") or {}
    replicated = jobset_spec.get("replicatedJobs") or []
    meta = template.get("metadata") or {}
    for patch in spec.get("runtimePatches") or []:
        target = ((patch or {}).get("trainingRuntimeSpec") or {}).get("template") or {}
        _merge_patch(meta, replicated, target, f"TrainJob {name} runtimePatches {patch.get('manager')!r}")
    trainer = spec.get("trainer") or {}
    steps = [r for r in replicated if _ancestor(r) == "trainer"]
    if not steps:
        raise ExpandError(
            f"{kind} {runtime_name}: no replicated Job carries the label {ANCESTOR}: trainer, so Trainer has "
            "no step to run a TrainJob's trainer in"
        )
    for r in replicated:
        # newRuntimeInfo: a step's pod count is its Job's parallelism (unset 1), the trainer's the
        # mlPolicy's numNodes, which plainml replaces by the TrainJob's; SyncParallelCount makes
        # every Job's parallelism and completions that count; an ancestor step is one Job.
        job_spec = r.setdefault("template", {}).setdefault("spec", {})
        count = job_spec.get("parallelism", 1)
        if r is steps[0]:
            count = trainer.get("numNodes", (ml_policy or {}).get("numNodes", 1) if ml_policy is not None else count)
        if _ancestor(r) is not None:
            r["replicas"] = 1
        job_spec["parallelism"] = job_spec["completions"] = pod_count(count, f"TrainJob {name} {r.get('name')} pods")
    pod_spec = _pod_template(steps[0]).setdefault("spec", {})
    for container in pod_spec.get("containers") or []:
        if container.get("name") != NODE:
            continue
        for key in ("image", "command", "args"):
            if trainer.get(key) is not None:
                container[key] = copy.deepcopy(trainer[key])
        if trainer.get("resourcesPerNode") is not None and ml_policy is not None:
            # MergeResourceRequirements, key by key; without an mlPolicy Trainer does not apply it
            resources = container.setdefault("resources", {})
            for field, quantities in (trainer["resourcesPerNode"] or {}).items():
                if isinstance(quantities, dict):
                    resources.setdefault(field, {}).update(quantities)
        _upsert_env(container, trainer.get("env") or [])
    jobset = {
        "apiVersion": JOBSET_API,
        "kind": "JobSet",
        "metadata": {
            "name": name,
            "namespace": namespace,
            **{k: v for k, v in meta.items() if k in ("labels", "annotations")},
        },
        "spec": jobset_spec,
    }
    # EnforcePodGroupPolicy: each plugin marks every pod of the PodGroup named like the TrainJob
    policy = runtime_spec.get("podGroupPolicy") or {}
    for plugin, (field, key) in GANG_MARKS.items():
        if policy.get(plugin) is not None:
            for r in replicated:
                _pod_template(r).setdefault("metadata", {}).setdefault(field, {})[key] = name
    return jobset, note


# podGroupPolicy plugin -> how it marks the pods: scheduler-plugins' PodGroup label
# (plugins/coscheduling), Volcano's group annotation (plugins/volcano)
GANG_MARKS = {
    "coscheduling": ("labels", "scheduling.x-k8s.io/pod-group"),
    "volcano": ("annotations", "scheduling.k8s.io/group-name"),
}


def _pod_template(replicated_job: dict) -> dict:
    """The pod template of a replicated Job (made where absent)."""
    return replicated_job.setdefault("template", {}).setdefault("spec", {}).setdefault("template", {})


def _ancestor(replicated_job: dict) -> str | None:
    """The Trainer step a replicated Job is (trainer, dataset-initializer, ...), by its label."""
    return (((replicated_job.get("template") or {}).get("metadata") or {}).get("labels") or {}).get(ANCESTOR)


def _upsert_env(container: dict, entries: list[dict]) -> None:
    """apply.UpsertEnvVars: an entry replaces the one of its name in place, or is appended."""
    env = container.setdefault("env", [])
    for entry in entries:
        for i, old in enumerate(env):
            if old.get("name") == entry.get("name"):
                env[i] = copy.deepcopy(entry)
                break
        else:
            env.append(copy.deepcopy(entry))


# How a strategic merge patch (Trainer's mergeRuntimePatches, over the JobSet spec) joins the
# lists of a pod spec a runtime patch may set: by these keys (k8s.io/api core/v1 patchMergeKey);
# the others, tolerations among them, are replaced whole.
MERGE_KEYS = {"volumes": "name", "containers": "name", "initContainers": "name", "imagePullSecrets": "name",
              "schedulingGates": "name", "volumeMounts": "mountPath", "env": "name"}  # fmt: skip


def _strategic(base, patch, field: str | None = None):
    """``patch`` merged into ``base`` as a strategic merge patch does for these fields: objects
    key by key, lists with a merge key item by item, anything else replaced."""
    if isinstance(base, dict) and isinstance(patch, dict):
        out = dict(base)
        for key, value in patch.items():
            out[key] = _strategic(base.get(key), value, key) if key in base else copy.deepcopy(value)
        return out
    if isinstance(base, list) and isinstance(patch, list) and field in MERGE_KEYS:
        key, out = MERGE_KEYS[field], list(base)
        for item in patch:
            match = [i for i, old in enumerate(out) if isinstance(old, dict) and isinstance(item, dict)
                     and old.get(key) == item.get(key)]  # fmt: skip
            if match:
                out[match[0]] = _strategic(out[match[0]], item)
            else:
                out.append(copy.deepcopy(item))
        return out
    return copy.deepcopy(patch)


def _merge_patch(meta: dict, replicated: list[dict], patch: dict, what: str) -> None:
    """A runtime patch's template merged into the runtime's JobSet template (in place): labels
    and annotations, and per replicated Job (by name) its Job and pod template, strategically.
    A Job or container the runtime lacks is refused, as Trainer's webhook does (plugins/jobset
    Validate)."""
    _merge_meta(meta, patch.get("metadata"))
    for rpatch in (patch.get("spec") or {}).get("replicatedJobs") or []:
        matches = [r for r in replicated if r.get("name") == rpatch.get("name")]
        if not matches:
            raise ExpandError(f"{what}: the runtime has no replicated Job {rpatch.get('name')!r} to patch")
        job_template = matches[0].setdefault("template", {})
        _merge_meta(job_template.setdefault("metadata", {}), (rpatch.get("template") or {}).get("metadata"))
        pod_patch = ((rpatch.get("template") or {}).get("spec") or {}).get("template") or {}
        pod_template = _pod_template(matches[0])
        _merge_meta(pod_template.setdefault("metadata", {}), pod_patch.get("metadata"))
        pod_spec, spec_patch = pod_template.setdefault("spec", {}), pod_patch.get("spec") or {}
        for field in ("containers", "initContainers"):
            names = {c.get("name") for c in pod_spec.get(field) or []}
            unknown = [c.get("name") for c in spec_patch.get(field) or [] if c.get("name") not in names]
            if unknown:
                raise ExpandError(f"{what}: the runtime's Job {rpatch['name']!r} has no {field[:-1]} {unknown[0]!r}")
        pod_template["spec"] = _strategic(pod_spec, spec_patch)


def _merge_meta(meta: dict, patch: dict | None) -> None:
    for key in ("labels", "annotations"):
        if (patch or {}).get(key):
            meta.setdefault(key, {}).update(patch[key])
