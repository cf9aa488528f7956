"""Owner `lifecycle`: what a job's controller does with its lifecycle fields, where that differs
from what the fields promise (issue 34). The same verdicts `job` refuses on the flags
(libsonnet/paddlejob/lifecycle.libsonnet), said of a hand-written file. Each wraps the kind's
own rules (core/kinds.py names these functions), so one registry entry stays one line.

Sources, at the releases the project targets:
- Volcano v1.15.0: pkg/webhooks/admission/jobs/mutate/mutate_job.go patchDefaultMaxRetry
  (l. 161-164: maxRetry 0 becomes 3); pkg/controllers/job/job_controller_handler.go updatePod
  (l. 273-275: PodFailedEvent only when the pod's phase turns Failed); state/restarting.go
  (l. 33: maxRetry read on a restart); state/running.go (l. 70-74: minSuccess completes the job).
- Kubernetes' job controller (pkg/controller/job/job_controller.go syncJob: BackoffLimitExceeded
  once failed pods exceed backoffLimit; an Indexed Job completes when every index has succeeded,
  or its successPolicy, success_policy.go); feature gates pkg/features/kube_features.go
  (JobManagedBy alpha 1.30, beta and on 1.32; SuspendJob alpha 1.21, beta 1.22).
- Kueue: pkg/controller/jobframework/reconciler.go (a job without the queue label is not Kueue's
  unless manageJobsWithoutQueueName); pkg/controller/jobs/job/job_multikueue_adapter.go SyncJob
  (copies the Job alone to the worker cluster).
- Kubeflow Trainer: managedBy honoured from v2.3.0 (kubeflow/trainer#3632).
- training-operator v1.9.0: pkg/controller.v1/common/job.go ReconcileJobs (schedulingPolicy
  minAvailable is the PodGroup's minMember).
"""

from __future__ import annotations

from typing import Any

from generator.core.findings import Finding
from generator.validate.rules import kubeflow, paddlejob, trainer, volcano
from generator.validate.rules.base import as_dict, as_int, as_list, error, value_text, warning
from generator.validate.rules.kueue import MULTIKUEUE, QUEUE_LABEL
from generator.validate.rules.pod import pod_templates

# Volcano's actions that count a retry (state/running.go: RestartJob, RestartTask, RestartPod, RestartPartition)
RESTARTS = ("RestartJob", "RestartTask", "RestartPod", "RestartPartition")
DEFAULT_MAX_RESTART = 3  # Paddle's launcher's --max_restart (launch/context/args_envs.py)


def _env(template: dict[Any, Any]) -> dict[str, str]:
    containers = as_list(as_dict(as_dict(template).get("spec")).get("containers"))
    out: dict[str, str] = {}
    for container in containers:
        for item in as_list(as_dict(container).get("env")):
            item = as_dict(item)
            if isinstance(item.get("name"), str) and isinstance(item.get("value"), str):
                out.setdefault(item["name"], item["value"])
    return out


def _elastic(template: dict[Any, Any]) -> dict[str, str] | None:
    """The launcher's elastic settings of a pod template (PADDLE_MASTER etcd://...), or None."""
    env = _env(template)
    return env if env.get("PADDLE_MASTER", "").startswith("etcd://") else None


def _nodes(env: dict[str, str]) -> tuple[int, int] | None:
    fewest, sep, most = env.get("PADDLE_NNODES", "").partition(":")
    if sep and fewest.isdigit() and most.isdigit():
        return int(fewest), int(most)
    return None


def _queue_findings(obj: dict[Any, Any], managed_by: Any, path: str) -> list[Finding]:
    labels = as_dict(as_dict(obj.get("metadata")).get("labels"))
    if managed_by == MULTIKUEUE and QUEUE_LABEL not in labels:
        message = (
            f"managedBy {MULTIKUEUE} without the label {QUEUE_LABEL}: the built-in controller leaves the job to "
            "MultiKueue, and Kueue acts only on a job with a queue (pkg/controller/jobframework/reconciler.go; "
            "unless the cluster sets manageJobsWithoutQueueName): nothing runs it"
        )
        return [warning(path, "lifecycle-multikueue-queue", message)]
    return []


def _indexed_findings(spec: dict[Any, Any], path: str) -> list[Finding]:
    """An Indexed Job's elastic workers: room for the launchers' restarts, a way to finish shrunk."""
    template = as_dict(spec.get("template"))
    env = _elastic(template)
    if env is None:
        return []
    out = []
    restarts = int(env["PADDLE_MAX_RESTART"]) if env.get("PADDLE_MAX_RESTART", "").isdigit() else DEFAULT_MAX_RESTART
    backoff = as_int(spec.get("backoffLimit"))
    backoff = 6 if backoff is None else backoff  # SetDefaults_Job
    if backoff < restarts:
        message = (
            f"backoffLimit {backoff} is below the launchers' PADDLE_MAX_RESTART {restarts}: each failed worker or "
            "lost node is a failed pod, and the Job fails (BackoffLimitExceeded, pkg/controller/job/job_controller.go "
            "syncJob) before the launchers have met again that often"
        )
        out.append(warning(f"{path}.backoffLimit", "lifecycle-elastic-backoff", message))
    nodes = _nodes(env)
    if nodes and nodes[0] < nodes[1] and spec.get("completionMode") == "Indexed" and "successPolicy" not in spec:
        message = (
            f"an elastic job that has shrunk to {nodes[0]} of {nodes[1]} workers never completes: an Indexed Job "
            "needs every index to succeed (pkg/controller/job/job_controller.go); add successPolicy "
            f"{{rules: [{{succeededCount: {nodes[0]}}}]}} (Kubernetes 1.31+)"
        )
        out.append(warning(f"{path}.completions", "lifecycle-elastic-shrink", message))
    return out


def job_findings(obj: dict[Any, Any], releases: tuple[int, ...]) -> list[Finding]:
    """batch/v1 Job: the apiserver's rules (rules/batch.py), then the lifecycle's."""
    from generator.validate.rules import batch  # here: a group's rules load with its first object

    out = batch.job_findings(obj, releases)
    spec = as_dict(obj.get("spec"))
    out += _indexed_findings(spec, "spec")
    managed_by = spec.get("managedBy")
    out += _queue_findings(obj, managed_by, "spec.managedBy")
    if isinstance(managed_by, str) and releases and min(releases) < 32:
        message = (
            f"Kubernetes 1.{int(min(releases))} drops spec.managedBy: the JobManagedBy gate is off by default "
            "before 1.32 "
            "(alpha in 1.30 and 1.31, pkg/features/kube_features.go), so the Job controller runs the Job itself"
        )
        out.append(warning("spec.managedBy", "lifecycle-release-gate", message))
    if spec.get("suspend") is True and releases and min(releases) < 22:
        message = (
            f"Kubernetes 1.{int(min(releases))} drops spec.suspend: the SuspendJob gate is off by default before 1.22, "
            "so the Job runs at once"
        )
        out.append(warning("spec.suspend", "lifecycle-release-gate", message))
    if managed_by == MULTIKUEUE:
        pod = as_dict(as_dict(spec.get("template")).get("spec"))
        left = [f for f in ("serviceAccountName", "subdomain") if pod.get(f) not in (None, "", "default")]
        if left:
            message = (
                "MultiKueue copies only the Job to the worker cluster (pkg/controller/jobs/job/"
                f"job_multikueue_adapter.go SyncJob): the {' and '.join(left)} its pods name must be there already"
            )
            out.append(warning(f"spec.template.spec.{left[0]}", "lifecycle-multikueue-copies", message))
    return out


def volcano_job_findings(obj: dict[Any, Any], release: tuple[int, int]) -> list[Finding]:
    """batch.volcano.sh Job: Volcano's webhook (rules/volcano.py), then the lifecycle's."""
    out = volcano.volcano_job_findings(obj, release)
    spec = as_dict(obj.get("spec"))
    tasks = [as_dict(t) for t in as_list(spec.get("tasks"))]
    if spec.get("maxRetry") == 0:
        message = "maxRetry 0 becomes 3: Volcano's webhook sets it when it is 0 (mutate_job.go patchDefaultMaxRetry)"
        out.append(warning("spec.maxRetry", "lifecycle-volcano-retry", message))
    elif "maxRetry" in spec and tasks:
        # Every restart action counts a retry (state/running.go RetryCount++) and state/restarting.go
        # fails the job at maxRetry; PodFailed is the one event a task restarting in place never sends.
        policies = [as_dict(p) for p in as_list(spec.get("policies"))]
        policies += [as_dict(p) for t in tasks for p in as_list(t.get("policies"))]
        in_place = all(
            as_dict(as_dict(t.get("template")).get("spec")).get("restartPolicy", "Always") in ("OnFailure", "Always")
            for t in tasks
        )
        counted = set()
        for policy in policies:
            if policy.get("action") in RESTARTS:
                counted |= {e for e in (policy.get("event"), *as_list(policy.get("events"))) if isinstance(e, str)}
        if in_place:
            counted -= {"PodFailed"}
        if not counted:
            why = (
                "no policy restarts the job"
                if not any(as_dict(p).get("action") in RESTARTS for p in policies)
                else "its only restart is on PodFailed and every task restarts its containers in place (restartPolicy "
                "OnFailure or Always): a crashed pod never reaches phase Failed, so PodFailed never fires "
                "(job_controller_handler.go updatePod)"
            )
            message = f"maxRetry {value_text(spec.get('maxRetry'))} is never reached: {why}; Volcano counts a retry only when a policy restarts the job (state/running.go, state/restarting.go)"  # noqa: E501
            out.append(warning("spec.maxRetry", "lifecycle-volcano-retry", message))
    for i, task in enumerate(tasks):
        env = _elastic(as_dict(task.get("template")))
        nodes = _nodes(env) if env else None
        if nodes and nodes[0] < nodes[1] and "minSuccess" not in spec:
            message = (
                f"an elastic job that has shrunk to {nodes[0]} of {nodes[1]} workers never completes: without "
                "minSuccess Volcano completes it only when every replica has finished (state/running.go); set "
                f"spec.minSuccess: {nodes[0]}"
            )
            out.append(warning(f"spec.tasks[{i}].replicas", "lifecycle-elastic-shrink", message))
    return out


def paddlejob_findings(obj: dict[Any, Any], release: Any = None) -> list[Finding]:
    """batch.paddlepaddle.org PaddleJob: the operator's rules (rules/paddlejob.py), then an elastic
    worker set that cannot shrink."""
    out = paddlejob.paddlejob_findings(obj)
    worker = as_dict(as_dict(obj.get("spec")).get("worker"))
    env = _elastic(as_dict(worker.get("template")))
    nodes = _nodes(env) if env else None
    replicas = as_int(worker.get("replicas"))
    replicas = 1 if replicas is None else replicas
    if nodes and nodes[0] < replicas:
        message = (
            f"an elastic PaddleJob never trains with {nodes[0]} of its {replicas} workers: paddle-operator v0.3.5 "
            "writes the ConfigMap every container reads through envFrom only once every pod has an IP "
            "(controllers/paddlejob_controller.go Reconcile), marks the job Failed when a pod fails or is evicted and "
            "Completed only when every replica has succeeded (controllers/paddlejob_helper.go getPaddleJobPhase); "
            f"give PADDLE_NNODES {replicas}:{replicas}, or run it on Volcano, an Indexed Job or a JobSet"
        )
        out.append(warning("spec.worker.replicas", "lifecycle-elastic-shrink", message))
    return out


def kubeflow_paddlejob_findings(obj: dict[Any, Any], release: tuple[int, int] = (1, 9)) -> list[Finding]:
    """kubeflow.org PaddleJob: training-operator's webhook (rules/kubeflow.py), then the lifecycle's."""
    out = kubeflow.kubeflow_paddlejob_findings(obj, release)
    spec = as_dict(obj.get("spec"))
    run = as_dict(spec.get("runPolicy"))
    out += _queue_findings(obj, run.get("managedBy"), "spec.runPolicy.managedBy")
    gang = as_int(as_dict(run.get("schedulingPolicy")).get("minAvailable"))
    total = sum(as_int(as_dict(r).get("replicas")) or 1 for r in as_dict(spec.get("paddleReplicaSpecs")).values())
    if gang is not None and gang > total:
        message = (
            f"minAvailable {gang} is more than the {total} pods of the job: training-operator makes it the PodGroup's "
            "minMember (pkg/controller.v1/common/job.go ReconcileJobs), a gang that is never met"
        )
        out.append(error("spec.runPolicy.schedulingPolicy.minAvailable", "lifecycle-gang-size", message))
    return out


def jobset_findings(obj: dict[Any, Any], release: Any = None) -> list[Finding]:
    """jobset.x-k8s.io JobSet: its Indexed Jobs' elastic workers, MultiKueue and int32 fields."""
    spec = as_dict(obj.get("spec"))
    out = _queue_findings(obj, spec.get("managedBy"), "spec.managedBy")
    for i, replicated in enumerate(as_list(spec.get("replicatedJobs"))):
        job_spec = as_dict(as_dict(as_dict(replicated).get("template")).get("spec"))
        job_spec = {"completionMode": "Indexed", **job_spec}  # the JobSet webhook makes them Indexed
        out += _indexed_findings(job_spec, f"spec.replicatedJobs[{i}].template.spec")
    return out


def trainjob_release_findings(obj: dict[Any, Any], releases: Any, release: Any) -> list[Finding]:
    """TrainJob: Trainer's release rules (rules/trainer.py), then managedBy per Trainer release."""
    out = trainer.kube_release_findings(obj, releases, release)
    spec = as_dict(obj.get("spec"))
    out += _queue_findings(obj, spec.get("managedBy"), "spec.managedBy")
    if isinstance(spec.get("managedBy"), str) and release is not None and tuple(release) < (2, 3):
        message = (
            f"Kubeflow Trainer {release[0]}.{release[1]} does not honour spec.managedBy (from v2.3.0, "
            "kubeflow/trainer#3632): its controller runs the TrainJob itself"
        )
        out.append(warning("spec.managedBy", "lifecycle-release-gate", message))
    return out


def gpu_shm_findings(obj: dict[Any, Any]) -> list[Finding]:
    """A pod with more than one GPU and no memory-backed /dev/shm: NCCL's shared-memory transport
    between the GPUs of one pod needs more than the container runtime's 64 MiB.

    `job` alone reports it (generator/jobs/model.py), on the pods it renders from `--gpus` without
    `--shm`: there the pod is all the job has. A hand-written pod may get its shared memory where
    `validate` cannot see it (hostIPC, a mutating webhook or policy that adds the volume, an image
    whose entrypoint remounts /dev/shm, NCCL_SHM_DISABLE), and a serving or data pod with GPUs needs
    none, so `validate` says nothing of it (docs/validate.md)."""
    out = []
    for path, template in pod_templates(obj):
        pod = as_dict(as_dict(template).get("spec"))
        memory = {
            as_dict(v).get("name")
            for v in as_list(pod.get("volumes"))
            if as_dict(as_dict(v).get("emptyDir")).get("medium") == "Memory"
        }
        for i, container in enumerate(as_list(pod.get("containers"))):
            container = as_dict(container)
            limits = as_dict(as_dict(container.get("resources")).get("limits"))
            given = limits.get("nvidia.com/gpu")  # a quantity: 8 or "8"
            gpus = int(given) if isinstance(given, str) and given.isdigit() else as_int(given)
            mounted = any(
                as_dict(m).get("mountPath") == "/dev/shm" and as_dict(m).get("name") in memory
                for m in as_list(container.get("volumeMounts"))
            )
            if gpus is not None and gpus > 1 and not mounted:
                message = (
                    f"{gpus} GPUs in one pod and no memory-backed /dev/shm: NCCL's shared-memory transport needs more "
                    "than the 64 MiB default (`job --shm`, or an emptyDir with medium Memory at /dev/shm)"
                )
                where = (
                    f"{path}.spec.containers[{i}].resources.limits"
                    if path
                    else f"spec.containers[{i}].resources.limits"
                )
                out.append(warning(where, "lifecycle-gpu-shm", message))
    return out
