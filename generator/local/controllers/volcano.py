"""Volcano's job controller (pkg/controllers/job: job_controller_util.go, plugins/env,
plugins/svc): pods <job>-<task>-<i>; the annotation volcano.sh/task-index from v1.9.0; the env
plugin appends VK_TASK_INDEX and VC_TASK_INDEX; the svc plugin sets hostname <pod> and
subdomain <job>, a headless Service <job>, and VC_<TASK>_HOSTS / VC_<TASK>_NUM from its
ConfigMap <job>-svc. The tasks with a TaskCompleted/CompleteJob policy (else every task)
complete the job.

Its retries (pkg/controllers/job/state: running.go, restarting.go; v1.10): a policy of the job or
of the pod's task that maps PodFailed (or AnyEvent) to RestartJob makes a failed pod restart the
whole job (KillJob, status.retryCount + 1); restartingState fails the job once retryCount reaches
spec.maxRetry (0 or unset: DefaultMaxRetry, 3). A pod whose restartPolicy is OnFailure never
fails (the kubelet restarts its container in place), so it never triggers the policy. Volcano
Jobs have no activeDeadlineSeconds of their own."""

from __future__ import annotations

from generator.core import kinds as registry
from generator.local.pods import Context, Pod, add_env, limit, name_and_namespace, new_pod, pod_count, value_env
from generator.schema import projects as thirdparty

VOLCANO_TASK_INDEX_SINCE = (1, 9)  # the volcano.sh/task-index annotation
DEFAULT_MAX_RETRY = 3  # state.DefaultMaxRetry


def _restarts_on_failure(policies) -> bool:
    """Whether these policies restart the job when a pod fails (event PodFailed, AnyEvent '*')."""
    for policy in policies or []:
        if not isinstance(policy, dict) or policy.get("action") != "RestartJob":
            continue
        events = [policy.get("event"), *(policy.get("events") or [])]
        if "PodFailed" in events or "*" in events:
            return True
    return False


def job_pods(job: dict, ctx: Context) -> list[Pod]:
    volcano_version = ctx.volcano_version or thirdparty.newest("volcano")
    name, namespace = name_and_namespace(job)
    spec = job.get("spec") or {}
    plugins = spec.get("plugins") or {}
    tasks = spec.get("tasks") or []
    completing = {
        t.get("name")
        for t in tasks
        for p in t.get("policies") or []
        if p.get("event") == "TaskCompleted" and p.get("action") == "CompleteJob"
    } or {t.get("name") for t in tasks}
    svc = "svc" in plugins
    max_retry = limit(spec.get("maxRetry"), f"Volcano Job {name} maxRetry") or DEFAULT_MAX_RETRY
    job_restarts = _restarts_on_failure(spec.get("policies"))
    restart = registry.lookup(job.get("apiVersion"), job.get("kind")).group_restart  # a failed pod restarts them all
    hosts = svc_hosts(name, tasks) if svc else {}
    min_success = limit(spec.get("minSuccess"), f"Volcano Job {name} minSuccess")
    pods = []
    for task in tasks:
        for i in range(pod_count(task.get("replicas", 0), f"{name} task {task.get('name')} replicas")):
            pod_name = f"{name}-{task['name']}-{i}"
            pod = new_pod(pod_name, namespace, task["name"], i, task["name"] in completing, task.get("template"),
                       pod_name, name if svc else None)  # fmt: skip
            if svc:  # plugins/svc: a headless Service named like the job, selecting its pods
                pod.headless.append(name)
            pod.owner = f"Volcano Job {name}"
            if job_restarts or _restarts_on_failure(task.get("policies")):
                pod.group_restart, pod.group_limit = restart, max_retry
                pod.group_note = "the RestartJob policy restarts every pod of {owner} (retry {next}, maxRetry {limit})"
                pod.group_end = (
                    "its RestartJob policy would restart {owner} a {ordinal} time, and its maxRetry is {limit}: the "
                    "job controller fails it (restartingState)"
                )
            if min_success:
                pod.success_rules = [(None, min_success)]
                pod.success_words = (
                    f"{min_success} pods of Volcano Job {name} have succeeded (minSuccess): Completed, its other pods "
                    "killed (state/running.go runningState.Execute)"
                )
            if volcano_version >= VOLCANO_TASK_INDEX_SINCE:
                pod.annotations["volcano.sh/task-index"] = str(i)
            pod.annotations["volcano.sh/job-name"] = name
            pod.annotations["volcano.sh/task-spec"] = task["name"]
            if "env" in plugins:
                add_env(pod.container, value_env("VK_TASK_INDEX", i), value_env("VC_TASK_INDEX", i))
            if svc:  # OnPodCreate: each host list and count, from the plugin's ConfigMap <job>-svc
                pod.config_maps[f"{name}-svc"] = hosts
                refs = [{"configMapKeyRef": {"name": f"{name}-svc", "key": key}} for key in hosts]
                add_env(pod.container, *({"name": key, "valueFrom": ref} for key, ref in zip(hosts, refs, strict=True)))
            pods.append(pod)
    return pods


def svc_hosts(name: str, tasks: list[dict]) -> dict[str, str]:
    """The svc plugin's ConfigMap data (GenerateHosts, pkg/controllers/job/plugins/svc/svc.go):
    per task, VC_<TASK>_HOSTS (its pods' <hostname>.<subdomain>, comma-separated; a single
    entry when the template sets a hostname) and VC_<TASK>_NUM; '-' in the name becomes '_'."""
    data = {}
    for task in tasks:
        spec = (task.get("template") or {}).get("spec") or {}
        replicas = pod_count(task.get("replicas", 0), f"{name} task {task.get('name')} replicas")
        count = min(replicas, 1) if spec.get("hostname") else replicas
        subdomain = spec.get("subdomain") or name
        task_name = task.get("name", "")
        hosts = [f"{spec.get('hostname') or f'{name}-{task_name}-{i}'}.{subdomain}" for i in range(count)]
        key = str(task.get("name", "")).replace("-", "_").upper()
        data[f"VC_{key}_HOSTS"] = ",".join(hosts)
        data[f"VC_{key}_NUM"] = str(len(hosts))
    return data


# -- the lifecycle (controllers/__init__.py): Volcano v1.15.0 --------------------------------------------

STATE = "volcano pkg/controllers/job/state"
GC = "volcano pkg/controllers/garbagecollector/garbagecollector.go processJob"


def lifecycle(objects: list[dict]) -> dict:
    from generator.local.controllers import Answer, named, of_kind

    job = next(iter(of_kind(objects, "Job", "batch.volcano.sh")), {})
    spec = job.get("spec") or {}
    tasks = spec.get("tasks") or []
    policies = list(spec.get("policies") or []) + [p for t in tasks for p in t.get("policies") or []]
    completing = [
        t.get("name")
        for t in tasks
        for p in t.get("policies") or []
        if p.get("event") == "TaskCompleted" and p.get("action") == "CompleteJob"
    ]
    in_place = all(
        ((t.get("template") or {}).get("spec") or {}).get("restartPolicy", "Always") != "Never" for t in tasks
    )
    max_retry = spec.get("maxRetry") or DEFAULT_MAX_RETRY
    out = {}
    out["success"] = Answer(
        f"task {', '.join(completing)} completed: CompleteJob, Completed, the pods still running killed"
        if completing
        else "Completed once every replica has finished (minSuccess: once that many have)",
        f"{STATE}/running.go runningState.Execute (CompleteJobAction, SyncJob)",
        "Completed",
    )
    if in_place:
        crash = (
            "the kubelet restarts the container in place (restartPolicy OnFailure): the pod never fails, PodFailed "
            f"never fires, maxRetry {max_retry} is never reached: Running for ever (CrashLoopBackOff)"
        )
        source, phase = "volcano pkg/controllers/job/job_controller_handler.go updatePod", "Running"
    elif _restarts_on_failure(policies):
        crash = f"the pod fails: PodFailed restarts the whole job (RestartJob), at most maxRetry {max_retry} times, then Failed"  # noqa: E501
        source, phase = f"{STATE}/running.go (RestartJobAction), restarting.go restartingUpdateStatus", "Failed"
    else:
        crash = "the pod fails and stays Failed; the job fails once every pod has ended with fewer successes than minAvailable"  # noqa: E501
        source, phase = f"{STATE}/running.go runningState.Execute (SyncJob)", "Failed"
    out["crash"] = Answer(crash, source, phase)
    evicted = any(
        p.get("action") == "RestartJob" and "PodEvicted" in [p.get("event"), *(p.get("events") or [])] for p in policies
    )  # noqa: E501
    out["lost node"] = Answer(
        "PodEvicted restarts the whole job (RestartJob), counted against maxRetry"
        if evicted
        else "the controller creates the missing pod again; an elastic launcher lets it join, a fixed one does not",
        f"{STATE}/running.go (RestartJobAction)"
        if evicted
        else "volcano pkg/controllers/job/job_controller_actions.go syncJob",  # noqa: E501
    )
    out["deadline"] = Answer(
        "a Volcano Job has no deadline: `job --deadline` is refused", "volcano pkg/apis/batch/v1alpha1 JobSpec"
    )  # noqa: E501
    out["suspend"] = Answer(
        "a Volcano Job has no suspend: `job --suspend` is refused", "volcano pkg/apis/batch/v1alpha1 JobSpec"
    )  # noqa: E501
    ttl = spec.get("ttlSecondsAfterFinished")
    owned = [f"Service {named(job).split()[1]} (svc plugin)"] if "svc" in (spec.get("plugins") or {}) else []
    out["finished"] = (
        Answer(
            f"{named(job)} deleted {ttl} s after it finished, with what it owns (pods, the svc plugin's Service and ConfigMap)",  # noqa: E501
            GC,
            ttl=ttl,
            deleted=(named(job), "its pods", *owned),
            left=tuple(named(o) for o in objects if o is not job),
        )
        if ttl is not None
        else Answer(f"{named(job)} and its pods stay until deleted", GC)
    )
    from generator.local.controllers.kubernetes import _nnodes

    shrunk = [_nnodes((t.get("template") or {}).get("spec") or {}) for t in tasks]
    if any(n and n[0] < n[1] for n in shrunk):
        fewest = spec.get("minSuccess")
        out["shrink"] = Answer(
            f"Completed once minSuccess {fewest} pods have succeeded"
            if fewest
            else "never Completed: every replica must finish",  # noqa: E501
            f"{STATE}/running.go runningState.Execute (minSuccess)",
            "Completed" if fewest else "Running",
        )
    out["kueue"] = Answer(
        "Volcano queues its Jobs itself (spec.queue): `job --kueue-queue` is refused", "volcano pkg/scheduler (queue)"
    )  # noqa: E501
    return out
