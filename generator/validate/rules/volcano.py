"""Owner `volcano`: Volcano's admission webhooks for batch.volcano.sh/v1alpha1 Job and
scheduling.volcano.sh/v1beta1 Queue (pkg/webhooks/admission/jobs/validate, queues/validate),
and the gang rule PaddleJobs share."""

from __future__ import annotations

import functools
from typing import Any

from generator.core.findings import Finding, child
from generator.core.grammar import parse_quantity, quantity_message
from generator.validate.rules.base import (
    as_dict,
    as_int,
    as_list,
    error,
    literal_env,
    unique_names,
    value_text,
    warning,
)
from generator.validate.rules.launcher import elastic_nodes


def gang_findings(minimum: int | None, total: int, path: str, rule: str, whose: str) -> list[Finding]:
    """A gang larger than every pod there is never gets scheduled."""
    if minimum is not None and minimum > total:
        return [
            error(path, rule, f"minAvailable {minimum} is more than the {total} pods of {whose}: it would never start")
        ]
    return []


# What Volcano's job webhook lets users write (v1.15.1, pkg/webhooks/admission/jobs/validate/util.go:
# policyEventMap and policyActionMap entries allowed for external use).
VOLCANO_EVENTS = ("*", "PodFailed", "PodEvicted", "PodPending", "Unknown", "TaskCompleted", "TaskFailed", "JobUpdated")

VOLCANO_ACTIONS = ("AbortJob", "RestartJob", "RestartTask", "RestartPod", "RestartPartition", "TerminateJob",
                   "CompleteJob", "ResumeJob")  # fmt: skip


def _policy_findings(policies: Any, path: str) -> list[Finding]:
    """Volcano's webhook rules for one list of lifecycle policies (validatePolicies)."""
    out = []
    seen_events: dict[str, int] = {}
    seen_codes: dict[int, int] = {}
    for i, policy in enumerate(as_list(policies)):
        policy = as_dict(policy)
        here = f"{path}[{i}]"
        given = [e for e in [policy.get("event"), *as_list(policy.get("events"))] if e]
        events = [e for e in given if isinstance(e, str)]  # another type is the schema's finding
        if given and policy.get("exitCode") is not None:
            out.append(error(here, "volcano-policy", "set either event(s) or exitCode in a policy, not both"))
        if not given and policy.get("exitCode") is None:
            out.append(error(here, "volcano-policy", "a policy needs an event, events or an exitCode"))
        if policy.get("exitCode") == 0:
            out.append(
                error(f"{here}.exitCode", "volcano-policy", "exitCode 0 means success; it cannot trigger an action")
            )
        code = as_int(policy.get("exitCode"))
        if code:
            if code in seen_codes:
                out.append(
                    error(f"{here}.exitCode", "volcano-policy", f"exitCode {code} is also in policy {seen_codes[code]}")
                )
            seen_codes.setdefault(code, i)
        action = policy.get("action")
        if events and isinstance(action, str) and action not in VOLCANO_ACTIONS:
            message = f"action {action!r} is not one the webhook accepts: {', '.join(VOLCANO_ACTIONS)}"
            out.append(error(f"{here}.action", "volcano-policy", message))
        for event in dict.fromkeys(events):
            if event not in VOLCANO_EVENTS:
                message = f"event {event!r} is not one the webhook accepts: {', '.join(VOLCANO_EVENTS)}"
                out.append(error(f"{here}.event", "volcano-policy", message))
            elif event in seen_events:
                message = f"event {event} is also in policy {seen_events[event]}: each event once across the policies"
                out.append(error(here, "volcano-policy", message))
            seen_events.setdefault(event, i)
    if "*" in seen_events and len(seen_events) > 1:
        out.append(error(path, "volcano-policy", "with the event * no other event may have a policy"))
    return out


# The job plugins each Volcano release registers (pkg/controllers/job/plugins/factory.go, from
# the release it first appears in); the job webhook refuses any other ("unable to find job plugin").
_PLUGINS_SINCE = {
    (1, 6): ("env", "mpi", "ssh", "svc", "tensorflow"),
    (1, 7): ("pytorch",),
    (1, 13): ("hcclrank", "ray"),
}


@functools.cache  # one release a run
def plugins_of(release: tuple[int, int]) -> tuple[str, ...]:
    """The job plugins Volcano ``release`` knows (1.6 and later)."""
    return tuple(sorted(name for since, names in _PLUGINS_SINCE.items() if since <= release for name in names))


def volcano_job_findings(obj: dict[Any, Any], release: tuple[int, int]) -> list[Finding]:
    """Volcano's job webhook (admit_job.go validateJobCreate) for ``release``."""
    spec = as_dict(obj.get("spec"))
    tasks = as_list(spec.get("tasks"))
    out = []
    if not tasks:
        out.append(error("spec.tasks", "volcano-tasks", "a Volcano Job needs at least one task"))
    out += unique_names(tasks, lambda i: f"spec.tasks[{i}].name", "task", "volcano-task-name", "volcano-task-name")
    out += _plugin_findings(as_dict(spec.get("plugins")), tasks, release)
    out += _volume_findings(as_list(spec.get("volumes")))
    job_name = as_dict(obj.get("metadata")).get("name")
    total = 0
    for i, task in enumerate(tasks):
        task = as_dict(task)
        replicas = as_int(task.get("replicas")) or 0
        total += replicas
        task_name = task.get("name")
        if isinstance(job_name, str) and isinstance(task_name, str) and replicas >= 1:
            pod = f"{job_name}-{task_name}-{replicas - 1}"  # jobhelpers.MakePodName: JOB-TASK-INDEX
            if len(pod) > 63:
                message = (
                    f"pod name {pod!r} is {len(pod)} characters, more than 63: shorten the job or task name "
                    f"by {len(pod) - 63}"
                )
                out.append(error(f"spec.tasks[{i}].name", "volcano-pod-name", message))
        task_min = as_int(task.get("minAvailable"))
        if task_min is not None and task_min > replicas:
            out.append(
                error(
                    f"spec.tasks[{i}].minAvailable",
                    "volcano-min-available",
                    f"minAvailable {task_min} is more than the task's {replicas} replicas",
                )
            )
        out += _policy_findings(task.get("policies"), f"spec.tasks[{i}].policies")
    out += gang_findings(
        as_int(spec.get("minAvailable")), total, "spec.minAvailable", "volcano-min-available", "all tasks"
    )
    out += _policy_findings(spec.get("policies"), "spec.policies")
    if any(isinstance(task, dict) and task.get("dependsOn") is not None for task in tasks):
        out += _depends_on_findings(tasks)
    elastic = _elastic_fewest([as_dict(t) for t in tasks])
    out += collective_gang_findings(spec, elastic)
    if elastic is not None:
        out += elastic_restart_findings(spec)
    return out


def elastic_restart_findings(spec: dict[Any, Any]) -> list[Finding]:
    """For an elastic Paddle job (one _elastic_fewest finds a fewest for): policies that restart
    the whole job when a pod fails or is evicted: Volcano's job controller then kills every pod
    (state/running.go RestartJob), the survivors' launchers with them, where the launcher alone
    would have gone on without the failed pod."""
    tasks = [as_dict(t) for t in as_list(spec.get("tasks"))]
    out = []
    places = [("spec.policies", spec.get("policies"))] + [
        (f"spec.tasks[{i}].policies", t.get("policies")) for i, t in enumerate(tasks)
    ]
    for where, policies in places:
        for j, policy in enumerate(as_list(policies)):
            policy = as_dict(policy)
            events = [policy.get("event"), *as_list(policy.get("events"))]
            if policy.get("action") == "RestartJob" and any(e in ("PodFailed", "PodEvicted", "*") for e in events):
                message = (
                    f"event {value_text(next(e for e in events if e))} restarts the whole job: Volcano kills every "
                    "pod, the survivors' launchers too, where Paddle's elastic launcher would go on without the failed "
                    "pod; drop the policy (the pod's restartPolicy brings it back)"
                )
                out.append(warning(f"{where}[{j}].action", "volcano-elastic-restart", message))
    return out


# What makes a pod a peer of a collective Paddle job: its launcher, or the trainer endpoints it is told
LAUNCHERS = ("paddle.distributed.launch", "fleetrun")
PEER_ENV = ("PADDLE_TRAINER_ENDPOINTS", "PADDLE_NNODES")
# ... and a parameter server (PS mode), which is no collective job
SERVER_ENV = ("PADDLE_PSERVERS_IP_PORT_LIST", "PADDLE_PSERVER_ENDPOINTS")
SERVER_ROLES = ("PSERVER",)


def _task_kind(task: dict[Any, Any]) -> str | None:
    """ "server", "peer" (a collective trainer) or None, from the task's containers."""
    pod = as_dict(as_dict(task.get("template")).get("spec"))
    peer = False
    for container in as_list(pod.get("containers")):
        container = as_dict(container)
        env = literal_env(container)
        if any(name in env for name in SERVER_ENV) or any(
            env.get(name) in SERVER_ROLES for name in ("TRAINING_ROLE", "PADDLE_TRAINING_ROLE")
        ):
            return "server"
        words = [w for w in [*as_list(container.get("command")), *as_list(container.get("args"))] if isinstance(w, str)]
        if any(name in env for name in PEER_ENV) or any(launcher in w for w in words for launcher in LAUNCHERS):
            peer = True
    return "peer" if peer else None


def _elastic_fewest(tasks: list[dict[Any, Any]]) -> int | None:
    """The fewest nodes an elastic job's launchers train with: PADDLE_NNODES MIN:MAX next to an
    etcd:// PADDLE_MASTER (CollectiveElasticController, Paddle 3.3.1: it waits for MIN to MAX
    peers and trains with those present); None for a job of a fixed size."""
    found = []
    for task in tasks:
        for container in as_list(as_dict(as_dict(task.get("template")).get("spec")).get("containers")):
            fewest = (elastic_nodes(literal_env(container)) or "").partition(":")[0]
            if fewest.isdigit():
                found.append(int(fewest))
    return min(found) if found else None


def _default_share(task: dict[Any, Any]) -> int:
    """A task's part of the webhook's default minAvailable: its minAvailable, or else its replicas."""
    task_min = as_int(task.get("minAvailable"))
    return task_min if task_min is not None else as_int(task.get("replicas")) or 0


def collective_gang_findings(spec: dict[Any, Any], elastic: int | None) -> list[Finding]:
    """A collective Paddle job (trainer tasks only) whose gang is smaller than its peers: Paddle's
    launcher waits until every peer has joined (PADDLE_NNODES, or the PADDLE_TRAINER_ENDPOINTS list),
    and a gang of fewer pods lets Volcano start some of them without the others (the gang plugin
    admits a job once minAvailable pods can run: mutate_job.go patchDefaultMinAvailable makes the sum
    of the tasks' replicas the default): they hold their resources and wait, or time out.
    ``elastic``: the fewest nodes its elastic launchers train with (_elastic_fewest), or None."""
    tasks = [as_dict(t) for t in as_list(spec.get("tasks"))]
    kinds = [_task_kind(t) for t in tasks]
    if not tasks or "server" in kinds or "peer" not in kinds:
        return []
    peers = sum(as_int(t.get("replicas")) or 0 for t, k in zip(tasks, kinds, strict=True) if k == "peer")
    if elastic is not None:  # an elastic job trains with its fewest: a gang of those is enough
        peers = min(peers, elastic)
    given = as_int(spec.get("minAvailable"))
    minimum = given
    if not given:  # unset or 0: the webhook's default, the tasks' minAvailable or replicas
        minimum = sum(_default_share(t) for t in tasks)
    if minimum is None or minimum >= peers or minimum < 1:
        return []
    path = (
        "spec.minAvailable"
        if given
        else next(
            f"spec.tasks[{i}].minAvailable" for i, t in enumerate(tasks) if as_int(t.get("minAvailable")) is not None
        )
    )
    fewest = " (the fewest its elastic launchers train with)" if elastic is not None else ""
    message = (
        f"a gang of {minimum} for a collective Paddle job of {peers} peers{fewest}: Volcano may start {minimum} pod"
        f"{'s' if minimum != 1 else ''} without the others, and Paddle's launcher waits for every peer, so they "
        f"hold their resources and wait or time out; set minAvailable to {peers}"
    )
    return [warning(path, "volcano-collective-gang", message)]


def _plugin_findings(plugins: dict[Any, Any], tasks: list[Any], release: tuple[int, int]) -> list[Finding]:
    out = []
    known = plugins_of(release)
    for name in plugins:
        if name not in known:
            release_text = f"{release[0]}.{release[1]}"
            message = f"Volcano {release_text} has no job plugin {name!r}; it has {', '.join(known)}"
            out.append(error(child("spec.plugins", name), "volcano-plugin", message))
    mpi = plugins.get("mpi")
    if "mpi" in plugins:  # the mpi plugin's master task (--master=NAME, default "master") must exist
        master = "master"
        for argument in as_list(mpi):
            if isinstance(argument, str) and argument.startswith("--master="):
                master = argument.partition("=")[2]
        if master not in [as_dict(t).get("name") for t in tasks]:
            message = f"the mpi plugin's master task {master!r} is not a task of the job (--master=NAME names it)"
            out.append(error("spec.plugins.mpi", "volcano-plugin", message))
    return out


def _volume_findings(volumes: list[Any]) -> list[Finding]:
    """The job's volumes (util.go validateIO): a mountPath each, once; a claim or a claim name."""
    out, seen = [], set()
    for i, volume in enumerate(volumes):
        volume = as_dict(volume)
        here = f"spec.volumes[{i}]"
        mount_path = volume.get("mountPath")
        if not mount_path:
            out.append(error(f"{here}.mountPath", "volcano-volume", "a job volume needs a mountPath"))
        elif isinstance(mount_path, str):  # another type is the schema's finding
            if mount_path in seen:
                out.append(error(f"{here}.mountPath", "volcano-volume", f"mountPath {mount_path!r} is used twice"))
            seen.add(mount_path)
        claim, claim_name = volume.get("volumeClaim"), volume.get("volumeClaimName")
        if claim is None and not claim_name:
            message = "give volumeClaimName (an existing PVC) or volumeClaim (a new one)"
            out.append(error(here, "volcano-volume", message))
        elif claim is not None and claim_name:
            message = "volumeClaimName uses an existing PVC and volumeClaim makes a new one: give one of them"
            out.append(error(here, "volcano-volume", message))
    return out


def volcano_queue_findings(obj: dict[Any, Any], release: tuple[int, int]) -> list[Finding]:
    """A Queue's resource lists must be quantities (Volcano's queue webhook parses them)."""
    spec = as_dict(obj.get("spec"))
    out = []
    lists = [("capability", spec.get("capability")), ("deserved", spec.get("deserved"))]
    lists.append(("guarantee.resource", as_dict(spec.get("guarantee")).get("resource")))
    for where, amounts in lists:
        for name, amount in as_dict(amounts).items():
            if isinstance(amount, str) and parse_quantity(amount) is None:  # other types: the schema
                out.append(error(child(f"spec.{where}", name), "quantity", quantity_message(amount)))
    return out


def _depends_on_findings(tasks: list[Any]) -> list[Finding]:
    """validateJobCreate's check of tasks with dependsOn (Volcano v1.5 to v1.15.1, admit_job.go;
    util.go topoSort and makeGraph): the tasks sorted by their dependencies, Kahn's way, must be
    all of them. A task that waits for a name no task has, or names a task twice (its in-degree
    counts each name, the graph each edge once), is never sorted, nor is a cycle or what waits
    for one: the webhook says "job has dependencies between tasks, but doesn't form a directed
    acyclic graph(DAG)". The finding is on the first task left unsorted, with why."""
    names = [as_dict(task).get("name") for task in tasks]
    waits: dict[int, list[str]] = {}
    for i, task in enumerate(tasks):
        wanted = as_dict(as_dict(task).get("dependsOn")).get("name")
        if isinstance(wanted, list):
            waits[i] = [w for w in wanted if isinstance(w, str)]
    sorted_names: set[str] = set()
    progress = True
    while progress:
        progress = False
        for i, name in enumerate(names):
            wanted = waits.get(i, [])
            free = all(w in sorted_names for w in wanted) and len(set(wanted)) == len(wanted)
            if isinstance(name, str) and name not in sorted_names and free:
                sorted_names.add(name)
                progress = True
    for i, name in enumerate(names):
        if not isinstance(name, str) or name in sorted_names:
            continue
        wanted = waits.get(i, [])
        unknown = [w for w in wanted if w not in names]
        twice = sorted({w for w in wanted if wanted.count(w) > 1})
        if unknown:
            why = f"it waits for {', '.join(map(repr, unknown))}, which no task of the job is named"
        elif twice:
            why = f"it names {', '.join(map(repr, twice))} twice (the webhook counts each name and never frees it)"
        elif name in wanted:
            why = "it waits for itself"
        else:
            why = f"it waits for {', '.join(map(repr, wanted))} in a cycle of dependencies"
        message = (
            f"task {name!r} can never start: {why}; Volcano's job webhook refuses the job (dependencies between "
            "tasks must form a directed acyclic graph)"
        )
        return [error(f"spec.tasks[{i}].dependsOn.name", "volcano-depends-on", message)]
    return []
