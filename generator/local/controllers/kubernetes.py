"""Kubernetes' own controllers: StatefulSet pods <set>-<ordinal> (hostname the pod name,
subdomain serviceName; no verdict: a StatefulSet never finishes); Indexed Job pods with the
annotation batch.kubernetes.io/job-completion-index and, from 1.22, env JOB_COMPLETION_INDEX,
hostname <job>-<index> under the Job's subdomain, at most `parallelism` at once, replaced until
backoffLimit (pkg/controller/job).

The Job controller's limits (pkg/controller/job/job_controller.go, release-1.32): syncJob fails
the Job with reason DeadlineExceeded ("Job was active longer than specified deadline") once
pastActiveDeadline: activeDeadlineSeconds counted from status.startTime, the first sync of the
Job; and with reason BackoffLimitExceeded once exceedsBackoffLimit: more failed pods than
spec.backoffLimit (default 6, SetDefaults_Job), or with restartPolicy OnFailure, the containers'
restarts reaching it (pastBackoffLimitOnFailure). Either way its active pods are deleted."""

from __future__ import annotations

from generator.local.pods import (
    Context,
    ExpandError,
    Pod,
    add_env,
    field_env,
    limit,
    name_and_namespace,
    new_pod,
    pod_count,
)


def statefulset_pods(obj: dict, ctx: Context | None = None) -> list[Pod]:
    name, namespace = name_and_namespace(obj)
    spec = obj.get("spec") or {}
    pods = []
    for i in range(pod_count(spec.get("replicas", 1), f"StatefulSet {name} replicas")):
        pod = new_pod(
            f"{name}-{i}", namespace, name, i, False, spec.get("template"), f"{name}-{i}", spec.get("serviceName")
        )
        pod.labels["apps.kubernetes.io/pod-index"] = str(i)
        pods.append(pod)
    return pods


def indexed_job_pods(obj: dict, ctx: Context | None = None) -> list[Pod]:
    name, namespace = name_and_namespace(obj)
    spec = obj.get("spec") or {}
    if spec.get("completionMode") != "Indexed":
        raise ExpandError(f"Job {name}: only Indexed Jobs have a stable identity per pod; set completionMode: Indexed")
    template = spec.get("template") or {}
    subdomain = (template.get("spec") or {}).get("subdomain")
    completions = pod_count(spec.get("completions", 1), f"Job {name} completions")
    # SetDefaults_Job (pkg/apis/batch/v1/defaults.go): an unset parallelism is 1, not completions.
    parallelism = pod_count(spec.get("parallelism", 1), f"Job {name} parallelism")
    backoff_limit = spec.get("backoffLimit", 6)  # SetDefaults_Job
    if not isinstance(backoff_limit, int) or isinstance(backoff_limit, bool) or backoff_limit < 0:
        raise ExpandError(f"Job {name} backoffLimit: {backoff_limit!r} is not a count of failures")
    deadline = limit(spec.get("activeDeadlineSeconds"), f"Job {name} activeDeadlineSeconds")
    pods = []
    for i in range(completions):
        pod = new_pod(f"{name}-{i}", namespace, name, i, True, template, f"{name}-{i}", subdomain)
        pod.batch, pod.parallelism, pod.backoff_limit = name, parallelism, backoff_limit
        pod.owner = f"Job {name}"
        if deadline is not None:
            pod.deadline = deadline
            pod.deadline_reason = (
                f"Job {name} was active longer than its activeDeadlineSeconds {deadline} (DeadlineExceeded): the Job "
                "controller fails it and deletes its active pods (syncJob, pastActiveDeadline)"
            )
        if i >= parallelism:
            pod.notes.append(
                f"starts only when an earlier pod of Job {name} has succeeded: the Job runs at most {parallelism} of "
                f"its {completions} pods at once (parallelism), so pods that wait for all their peers (a collective "
                "rendezvous) wait for ever; set parallelism to completions"
            )
        pod.hostname = f"{name}-{i}"  # Indexed Job pods: <job>-<index> (1.22+)
        pod.annotations["batch.kubernetes.io/job-completion-index"] = str(i)
        add_env(
            pod.container,
            field_env("JOB_COMPLETION_INDEX", "metadata.annotations['batch.kubernetes.io/job-completion-index']"),
        )
        pods.append(pod)
    return pods
