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
    index_set,
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
    rules = _success_rules(spec.get("successPolicy"), name)
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
        if rules:
            pod.success_rules = rules
            pod.success_words = (
                f"Job {name} met its successPolicy: SuccessCriteriaMet, its other pods deleted, then Complete "
                "(success_policy.go matchSuccessPolicy, syncJob)"
            )
        pod.hostname = f"{name}-{i}"  # Indexed Job pods: <job>-<index> (1.22+)
        pod.annotations["batch.kubernetes.io/job-completion-index"] = str(i)
        add_env(
            pod.container,
            field_env("JOB_COMPLETION_INDEX", "metadata.annotations['batch.kubernetes.io/job-completion-index']"),
        )
        pods.append(pod)
    return pods


def _success_rules(policy, name: str) -> list[tuple[frozenset[int] | None, int | None]]:
    """The successPolicy's rules (batch/v1 SuccessPolicyRule): succeededIndexes, succeededCount
    or both; the Job meets its policy when any rule is met. (The JobSuccessPolicy gate is on
    from 1.31: validate and job refuse the field before that.)"""
    rules: list[tuple[frozenset[int] | None, int | None]] = []
    for i, rule in enumerate((policy or {}).get("rules") or [] if isinstance(policy, dict) else []):
        if not isinstance(rule, dict):
            continue
        what = f"Job {name} successPolicy.rules[{i}]"
        indexes = rule.get("succeededIndexes")
        count = limit(rule.get("succeededCount"), f"{what}.succeededCount")
        rules.append((None if indexes is None else index_set(indexes, f"{what}.succeededIndexes"), count))
    return rules


# -- the lifecycle (controllers/__init__.py): the Job controller, release-1.32 --------------------------------

JOB_CONTROLLER = "kubernetes pkg/controller/job/job_controller.go"
TTL_CONTROLLER = "kubernetes pkg/controller/ttlafterfinished/ttlafterfinished_controller.go processJob"


def _job(objects: list[dict]) -> dict:
    from generator.local.controllers import of_kind

    jobs = of_kind(objects, "Job", "batch")
    return jobs[-1] if jobs else {}  # the trainers' Job (a PS job's servers are a StatefulSet)


def lifecycle(objects: list[dict]) -> dict:
    from generator.local.controllers import Answer, named, of_kind

    job = _job(objects)
    spec = job.get("spec") or {}
    pod = (spec.get("template") or {}).get("spec") or {}
    restart = pod.get("restartPolicy", "Always")
    backoff = spec.get("backoffLimit", 6)
    servers = of_kind(objects, "StatefulSet", "apps")
    others = [named(o) for o in objects if o is not job]
    out = {}
    success = (spec.get("successPolicy") or {}).get("rules")
    out["success"] = Answer(
        f"Complete when every index has succeeded{' or its successPolicy is met' if success else ''}; "
        + ("the servers' StatefulSet runs on, nothing ends it" if servers else "its pods stay, Succeeded"),
        f"{JOB_CONTROLLER} syncJob, success_policy.go matchSuccessPolicy",
        "Completed",
    )
    if restart == "Never":
        crash = (
            f"the pod fails and is replaced until more than backoffLimit {backoff} pods have failed, then Failed "
            "(BackoffLimitExceeded) and its active pods deleted"
        )
    else:
        crash = (
            f"the kubelet restarts the container in place; Failed once the restarts reach backoffLimit {backoff} "
            "(BackoffLimitExceeded)"
        )
    out["crash"] = Answer(crash, f"{JOB_CONTROLLER} syncJob, exceedsBackoffLimit", "Failed")
    out["lost node"] = Answer(
        f"the lost pod counts as failed and is replaced, within backoffLimit {backoff}; a collective job's other "
        "ranks lose their peer (only an elastic launcher meets again)",
        f"{JOB_CONTROLLER} trackJobStatusAndRemoveFinalizers, manageJob",
    )
    deadline = spec.get("activeDeadlineSeconds")
    out["deadline"] = (
        Answer(
            f"past activeDeadlineSeconds {deadline} from its start: Failed (DeadlineExceeded), active pods deleted",
            f"{JOB_CONTROLLER} syncJob, pastActiveDeadline",
            "Failed",
        )
        if deadline is not None
        else Answer("no deadline: it runs until it ends", f"{JOB_CONTROLLER} syncJob")
    )
    out["suspend"] = Answer(
        "suspended: no pods (active ones deleted); resumed: pods created, startTime and the deadline reset"
        if spec.get("suspend")
        else "not suspended: pods are created at once",
        f"{JOB_CONTROLLER} syncJob (suspend), manageJob",
    )
    ttl = spec.get("ttlSecondsAfterFinished")
    left = tuple(others)
    out["finished"] = (
        Answer(
            f"{named(job)} and its pods deleted {ttl} s after it finished; "
            + (f"{', '.join(left)} stay: no owner reference ties them to the Job" if left else "nothing else"),
            TTL_CONTROLLER,
            ttl=ttl,
            deleted=(named(job), "its pods"),
            left=left,
        )
        if ttl is not None
        else Answer(f"{named(job)} and its pods stay until deleted", TTL_CONTROLLER)
    )
    nodes = _nnodes(pod)
    if nodes and nodes[0] < nodes[1]:
        out["shrink"] = Answer(
            f"Complete once {success[0].get('succeededCount')} indexes have succeeded (successPolicy), the rest deleted"
            if success
            else "never Complete: every index must succeed",
            f"{JOB_CONTROLLER} syncJob, success_policy.go matchSuccessPolicy",
            "Completed" if success else "Running",
        )
    queue = ((job.get("metadata") or {}).get("labels") or {}).get("kueue.x-k8s.io/queue-name")
    out["kueue"] = Answer(
        f"Kueue admits the Job from queue {queue} (unsuspends it); the pods' Services and RBAC are not queued"
        if queue
        else "not queued: the Job runs at once",
        "kueue pkg/controller/jobs/job/job_controller.go, jobframework/reconciler.go ReconcileGenericJob",
    )
    return out


def _nnodes(pod: dict) -> tuple[int, int] | None:
    for container in pod.get("containers") or []:
        for item in container.get("env") or []:
            if item.get("name") == "PADDLE_NNODES" and isinstance(item.get("value"), str):
                fewest, sep, most = item["value"].partition(":")
                if sep and fewest.isdigit() and most.isdigit():
                    return int(fewest), int(most)
    return None
