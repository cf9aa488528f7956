"""Kubeflow training-operator v1.9.0 (pkg/controller.v1/paddlepaddle/envvar.go): pods
<job>-<master|worker>-<i>, a Service each; env PYTHONUNBUFFERED, PADDLE_JOB_ID, PADDLE_NNODES,
PADDLE_MASTER (worker 0, or master 0 in PS mode), PADDLE_SERVER_NUM or PADDLE_TRAINER_NUM in PS
mode. The job succeeds when its Workers have.

Its run policy (pkg/controller.v1/common/job.go, v1.9.0, ReconcileJobs): past
runPolicy.activeDeadlineSeconds from status.startTime (pastActiveDeadline) the job fails ("Job
<name> has failed because it was active longer than specified deadline") and its pods are
deleted; with runPolicy.backoffLimit set, once the restarts of the containers of its running
pods, summed over the replicas whose restartPolicy is OnFailure or Always, reach it
(pastBackoffLimit: `result >= *runPolicy.BackoffLimit`), the job fails ("... has reached the
specified backoff limit"). Unset, neither limit applies; replicas with restartPolicy Never or
ExitCode count no restarts (their pods fail instead)."""

from __future__ import annotations

from generator.local.pods import (
    Context,
    Pod,
    add_env,
    field_env,
    limit,
    name_and_namespace,
    new_pod,
    pod_count,
    value_env,
)

KUBEFLOW_DEFAULT_PORT = 36543  # kubeflow.org/v1 PaddleJobDefaultPort


def master_port(spec: dict, rtype: str) -> int:
    for container in ((spec.get(rtype) or {}).get("template") or {}).get("spec", {}).get("containers") or []:
        if container.get("name") == "paddle":
            for port in container.get("ports") or []:
                if port.get("name") == "master":
                    return int(port.get("containerPort"))
    return KUBEFLOW_DEFAULT_PORT


def paddle_job_pods(job: dict, ctx: Context | None = None) -> list[Pod]:
    name, namespace = name_and_namespace(job)
    specs = (job.get("spec") or {}).get("paddleReplicaSpecs") or {}
    total = sum(pod_count((s or {}).get("replicas", 1), f"{name} {t} replicas") for t, s in specs.items())
    ps_mode = "Master" in specs
    rendezvous = "Master" if ps_mode else "Worker"
    master = f"{name}-{rendezvous.lower()}-0:{master_port(specs, rendezvous)}"
    policy = (job.get("spec") or {}).get("runPolicy") or {}
    deadline = limit(policy.get("activeDeadlineSeconds"), f"PaddleJob {name} runPolicy.activeDeadlineSeconds")
    backoff = limit(policy.get("backoffLimit"), f"PaddleJob {name} runPolicy.backoffLimit")
    pods = []
    for rtype in ("Master", "Worker"):
        if rtype not in specs:
            continue
        for i in range(pod_count(specs[rtype].get("replicas", 1), f"{name} {rtype} replicas")):
            pod_name = f"{name}-{rtype.lower()}-{i}"
            pod = new_pod(pod_name, namespace, rtype.lower(), i, rtype == "Worker", specs[rtype].get("template"),
                       pod_name, name)  # fmt: skip
            pod.names.append(pod_name)  # a Service per replica
            replica_policy = specs[rtype].get("restartPolicy")  # setRestartPolicy: ExitCode as Never
            if replica_policy:
                pod.restart_policy = "Never" if replica_policy == "ExitCode" else replica_policy
            pod.owner = f"PaddleJob {name}"
            if deadline is not None:
                pod.deadline = deadline
                pod.deadline_reason = (
                    f"PaddleJob {name} has failed because it was active longer than specified deadline "
                    f"(runPolicy.activeDeadlineSeconds {deadline}; the training operator's pastActiveDeadline), "
                    "and its pods are deleted"
                )
            if backoff is not None and replica_policy in ("OnFailure", "Always"):
                pod.restart_limit = backoff
            env = [
                value_env("PYTHONUNBUFFERED", 1),
                value_env("PADDLE_JOB_ID", name),
                value_env("PADDLE_NNODES", total),
            ]
            if i == 0 and rtype == rendezvous:
                env += [
                    field_env("POD_IP_DUMMY", "status.podIP"),
                    value_env("PADDLE_MASTER", f"$(POD_IP_DUMMY):{master.rsplit(':', 1)[1]}"),
                ]
            else:
                env.append(value_env("PADDLE_MASTER", master))
            if ps_mode:
                env.append(value_env("PADDLE_SERVER_NUM" if rtype == "Master" else "PADDLE_TRAINER_NUM", 1))
            add_env(pod.container, *env)
            pods.append(pod)
    return pods


# -- the lifecycle (controllers/__init__.py): training-operator v1.9.0 ---------------------------------------

COMMON = "training-operator pkg/controller.v1/common/job.go"


def lifecycle(objects: list[dict]) -> dict:
    from generator.local.controllers import Answer, named, of_kind

    job = next(iter(of_kind(objects, "PaddleJob", "kubeflow.org")), {})
    spec = job.get("spec") or {}
    run = spec.get("runPolicy") or {}
    replicas = spec.get("paddleReplicaSpecs") or {}
    restart = {(r or {}).get("restartPolicy", "Never") for r in replicas.values()}
    backoff = run.get("backoffLimit")
    clean = run.get("cleanPodPolicy", "None")
    out = {}
    out["success"] = Answer(
        f"Succeeded when its Workers have; pods deleted by cleanPodPolicy {clean}",
        "training-operator pkg/controller.v1/paddlepaddle/paddlepaddle_controller.go UpdateJobStatus; "
        f"{COMMON} DeletePodsAndServices",
        "Completed",
    )
    if restart & {"OnFailure", "Always"} and backoff is not None:
        crash = f"the kubelet restarts the container in place; Failed once the restarts reach runPolicy.backoffLimit {backoff}, pods deleted"  # noqa: E501
        source, phase = f"{COMMON} ReconcileJobs, PastBackoffLimit", "Failed"
    elif restart & {"OnFailure", "Always"}:
        crash = "the kubelet restarts the container in place, with no limit: Running for ever (CrashLoopBackOff)"
        source, phase = f"{COMMON} ReconcileJobs", "Running"
    else:
        crash = "the pod fails and the job is Failed"
        source, phase = (
            "training-operator pkg/controller.v1/paddlepaddle/paddlepaddle_controller.go UpdateJobStatus",
            "Failed",
        )  # noqa: E501
    out["crash"] = Answer(crash, source, phase)
    out["lost node"] = Answer(
        "the operator creates the missing pod again; the other ranks' collective is broken (no elastic here)",
        "training-operator pkg/controller.v1/common/pod.go ReconcilePods",
    )
    deadline = run.get("activeDeadlineSeconds")
    out["deadline"] = (
        Answer(
            f"past runPolicy.activeDeadlineSeconds {deadline}: Failed, pods deleted",
            f"{COMMON} ReconcileJobs, PastActiveDeadline",
            "Failed",
        )
        if deadline is not None
        else Answer("no deadline: it runs until it ends", f"{COMMON} ReconcileJobs")
    )
    out["suspend"] = Answer(
        "suspended: pods and Services deleted, condition Suspended; resumed: created again"
        if run.get("suspend")
        else "not suspended: pods are created at once",
        f"{COMMON} ReconcileJobs (IsJobSuspended)",
    )
    ttl = run.get("ttlSecondsAfterFinished")
    out["finished"] = (
        Answer(
            f"{named(job)} deleted {ttl} s after it finished, its pods and Services with it",
            f"{COMMON} CleanupJob",
            ttl=ttl,
            deleted=(named(job), "its pods", "its Services"),
            left=tuple(named(o) for o in objects if o is not job),
        )
        if ttl is not None
        else Answer(f"{named(job)} stays; its pods by cleanPodPolicy {clean}", f"{COMMON} CleanupJob")
    )
    queue = ((job.get("metadata") or {}).get("labels") or {}).get("kueue.x-k8s.io/queue-name")
    managed = run.get("managedBy")
    out["kueue"] = Answer(
        (
            f"queue {queue}: Kueue's kubeflow.org/paddlejob integration (off by default from Kueue 0.19) admits it"
            + (
                f"; managedBy {managed}: the operator leaves it to MultiKueue, which copies the PaddleJob"
                if managed and managed != "kubeflow.org/training-operator"
                else ""
            )
        )  # noqa: E501
        if queue
        else "not queued: it runs at once",
        f"{COMMON} ManagedByExternalController; kueue pkg/controller/jobs/kubeflow/jobs/paddlejob",
    )
    return out
