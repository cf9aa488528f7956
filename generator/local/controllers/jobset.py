"""The JobSet controller (kubernetes-sigs/jobset v0.12.0), which runs the jobset runtime's JobSets and
Kubeflow Trainer's (controllers/trainer.py): the pods of a JobSet's Jobs, as its
controller makes the Jobs (pkg/controllers/jobset_controller.go constructJob) and the Job
controller their pods.

Each replicated Job is made `replicas` times, named `<jobset>-<replicatedJob>-<index>`, Indexed by
the webhook's default, labelled jobset.sigs.k8s.io/jobset-name and the rest, with the pod
template's subdomain the JobSet's network subdomain (its name by default) and a headless Service
of that name selecting the JobSet's pods (network.enableDNSHostnames, default true).

The verdict: the default success policy (operator All) completes the JobSet when every Job is
Complete; with no failure policy (the webhook defaults none) one failed Job fails it, which the
Job controller decides by its backoffLimit. With spec.failurePolicy (pkg/controllers/
failure_policy.go: executeFailurePolicy, the default action RestartJobSet's
restartJobSetActionApplier), a failed Job makes the controller recreate every Job (restarts + 1)
until status.restartsCountTowardsMax reaches failurePolicy.maxRestarts (unset: 0), then the
JobSet fails with reason ReachedMaxRestarts. The policy's rules (other actions per failure
reason) are not modelled: a note says so.
"""

from __future__ import annotations

import copy

from generator.core import kinds as registry
from generator.local.controllers.kubernetes import indexed_job_pods
from generator.local.pods import Context, ExpandError, Pod, limit, name_and_namespace, pod_count

JOBSET_API = "jobset.x-k8s.io/v1alpha2"


def jobset_pods(jobset: dict, ctx: Context | None = None) -> list[Pod]:
    """The pods of a JobSet's Jobs, as its controller makes the Jobs and the Job controller the
    pods: every replicated Job `replicas` times, Indexed, under the JobSet's headless Service."""
    name, namespace = name_and_namespace(jobset)
    spec = jobset.get("spec") or {}
    network = spec.get("network") or {}
    dns = network.get("enableDNSHostnames", True)
    subdomain = network.get("subdomain") or name
    failure = spec.get("failurePolicy")
    restart = registry.lookup(JOBSET_API, "JobSet").group_restart  # RESTART_JOBS: a failed Job restarts them all
    max_restarts = None
    if isinstance(failure, dict):
        max_restarts = limit(failure.get("maxRestarts"), f"JobSet {name} failurePolicy.maxRestarts") or 0
    # successPolicy (executeSuccessPolicy, jobset_controller.go): operator All of the targets (every
    # replicated Job when none is named) completes the JobSet; the Jobs still active are then
    # deleted (Reconcile deletes a finished JobSet's active Jobs), so the others' pods need not end.
    success = spec.get("successPolicy") or {}
    if success.get("operator") == "Any":
        raise ExpandError(f"JobSet {name}: successPolicy operator Any is not modelled here; local runs All")
    targets = set(success.get("targetReplicatedJobs") or [])
    in_order = (spec.get("startupPolicy") or {}).get("startupPolicyOrder") == "InOrder"
    pods = []
    for r in spec.get("replicatedJobs") or []:
        rname = r.get("name", "")
        for index in range(pod_count(r.get("replicas", 1), f"JobSet {name} replicatedJob {rname} replicas")):
            job = copy.deepcopy(r.get("template") or {})
            job_spec = job.setdefault("spec", {})
            job_spec.setdefault("completionMode", "Indexed")  # the JobSet webhook's default
            labels = {
                "jobset.sigs.k8s.io/jobset-name": name,
                "jobset.sigs.k8s.io/replicatedjob-name": rname,
                "jobset.sigs.k8s.io/replicatedjob-replicas": str(r.get("replicas", 1)),
                "jobset.sigs.k8s.io/job-index": str(index),
                "jobset.sigs.k8s.io/restart-attempt": "0",
            }
            pod_template = job_spec.setdefault("template", {})
            pod_template.setdefault("metadata", {}).setdefault("labels", {}).update(labels)
            pod_template.setdefault("spec", {})
            if not pod_template["spec"].get("restartPolicy"):  # the JobSet webhook's default
                pod_template["spec"]["restartPolicy"] = "OnFailure"
            if dns:
                pod_template["spec"]["subdomain"] = subdomain
            job["metadata"] = {"name": f"{name}-{rname}-{index}", "namespace": namespace}
            for pod in indexed_job_pods(job):
                if dns:  # the JobSet's headless Service, selecting jobset-name
                    pod.headless.append(subdomain)
                pod.role = rname
                if targets and rname not in targets:  # its Jobs are deleted once the targets complete
                    pod.finishes = False
                    pod.notes.append(
                        f"successPolicy: JobSet {name} completes when every Job of {', '.join(sorted(targets))} does; "
                        f"the JobSet controller then deletes {rname}'s Jobs"
                    )
                if in_order:
                    pod.notes.append(
                        "startupPolicy InOrder: the controller makes each replicated Job once the ones before it are "
                        "ready; local starts them in that order"
                    )
                if max_restarts is not None:
                    pod.group_restart, pod.group_limit = restart, max_restarts
                    pod.owner = f"JobSet {name}"
                    pod.group_note = (
                        "the JobSet controller recreates every Job of {owner} (restart {next} of "
                        "failurePolicy.maxRestarts {limit})"
                    )
                    pod.group_end = (
                        "{owner} has restarted {count} times, its failurePolicy.maxRestarts {limit}: jobset failed due "
                        "to reaching max number of restarts (ReachedMaxRestarts)"
                    )
                    if failure.get("rules"):
                        pod.notes.append(
                            "failurePolicy.rules are not modelled here: every failed Job takes the default action, "
                            "RestartJobSet"
                        )
                pods.append(pod)
    return pods


# -- the lifecycle (controllers/__init__.py): JobSet v0.12.0 ---------------------------------------------

CONTROLLER = "jobset pkg/controllers/jobset_controller.go"


def lifecycle(objects: list[dict], jobset: dict | None = None, owner: str = "") -> dict:
    """The JobSet's lifecycle; ``jobset`` the one Trainer makes of a TrainJob, and ``owner`` the
    TrainJob, whose own fields (deadline, suspend, queue) trainer.lifecycle answers."""
    from generator.local.controllers import Answer, named, of_kind
    from generator.local.controllers.kubernetes import JOB_CONTROLLER, _nnodes

    jobset = jobset or next(iter(of_kind(objects, "JobSet", "jobset.x-k8s.io")), {})
    spec = jobset.get("spec") or {}
    replicated = spec.get("replicatedJobs") or []
    failure = spec.get("failurePolicy")
    max_restarts = (failure or {}).get("maxRestarts", 0) if isinstance(failure, dict) else None
    targets = (spec.get("successPolicy") or {}).get("targetReplicatedJobs") or [r.get("name") for r in replicated]
    trainers = next((r for r in replicated if r.get("name") in targets), {})
    job_spec = (trainers.get("template") or {}).get("spec") or {}
    pod = (job_spec.get("template") or {}).get("spec") or {}
    backoff = job_spec.get("backoffLimit", 6)
    out = {}
    out["success"] = Answer(
        f"Completed when every Job of {', '.join(targets)} is Complete (successPolicy All); the Jobs still active "
        "deleted",
        f"{CONTROLLER} executeSuccessPolicy, reconcile (deleteJobs)",
        "Completed",
    )
    if max_restarts is not None:
        crash = (
            f"the Job fails (backoffLimit {backoff}): the controller recreates every Job, at most "
            f"failurePolicy.maxRestarts {max_restarts} times, then Failed (ReachedMaxRestarts)"
        )
        source = "jobset pkg/controllers/failure_policy.go executeFailurePolicy"
    else:
        crash = (
            f"the pod is replaced within the Job's backoffLimit {backoff}; past it the Job fails and, with no "
            "failurePolicy, the JobSet is Failed"
        )
        source = f"{JOB_CONTROLLER} syncJob; jobset pkg/controllers/failure_policy.go executeFailurePolicy"
    out["crash"] = Answer(crash, source, "Failed")
    after = (
        f"every Job is recreated, at most failurePolicy.maxRestarts {max_restarts} times"
        if max_restarts is not None
        else "the JobSet is Failed (no failurePolicy)"
    )
    out["lost node"] = Answer(
        f"the lost pod fails its Job at once (backoffLimit 0): {after}"
        if backoff == 0
        else f"the lost pod is replaced within its Job's backoffLimit {backoff}; past it {after}",
        f"{JOB_CONTROLLER} trackJobStatusAndRemoveFinalizers; jobset pkg/controllers/failure_policy.go",
    )
    deadline = job_spec.get("activeDeadlineSeconds")
    out["deadline"] = (
        Answer(
            f"past its Jobs' activeDeadlineSeconds {deadline} a Job fails (DeadlineExceeded), and so the JobSet"
            + (" after failurePolicy's restarts" if max_restarts else ""),
            f"{JOB_CONTROLLER} syncJob, pastActiveDeadline; jobset pkg/controllers/failure_policy.go",
            "Failed",
        )
        if deadline is not None
        else Answer("no deadline: it runs until it ends", CONTROLLER)
    )
    out["suspend"] = Answer(
        "suspended: its Jobs are created suspended, no pods; resumed: the Jobs are unsuspended"
        if spec.get("suspend")
        else "not suspended: the Jobs start at once",
        f"{CONTROLLER} suspendJobs, resumeJobsIfNecessary",
    )
    ttl = spec.get("ttlSecondsAfterFinished")
    whole = owner or named(jobset)
    out["finished"] = (
        Answer(
            f"{whole} deleted {ttl} s after it finished, its Jobs, pods and headless Service with it",
            "jobset pkg/controllers/ttl_after_finished.go executeTTLAfterFinishedPolicy",
            ttl=ttl,
            deleted=(whole, "its Jobs", "its pods", "its headless Service"),
            left=tuple(named(o) for o in objects if o is not jobset and named(o) != whole),
        )
        if ttl is not None
        else Answer(f"{whole} stays; its finished Jobs and their pods too", CONTROLLER)
    )
    nodes = _nnodes(pod)
    if nodes and nodes[0] < nodes[1]:
        rules = (job_spec.get("successPolicy") or {}).get("rules")
        out["shrink"] = Answer(
            f"the trainers' Job completes once {rules[0].get('succeededCount')} indexes have succeeded "
            "(its successPolicy), and the JobSet with it"
            if rules
            else "never Completed: every index of the trainers' Job must succeed",
            f"{JOB_CONTROLLER} syncJob, success_policy.go matchSuccessPolicy; {CONTROLLER} executeSuccessPolicy",
            "Completed" if rules else "Running",
        )
    labels = (jobset.get("metadata") or {}).get("labels") or {}
    queue = labels.get("kueue.x-k8s.io/queue-name")
    managed = spec.get("managedBy")
    out["kueue"] = Answer(
        (
            f"queue {queue}: Kueue admits every pod at once (one workload) and unsuspends it"
            + (f"; managedBy {managed}: MultiKueue copies the whole JobSet to a worker cluster" if managed else "")
        )
        if queue
        else "not queued: it runs at once",
        "kueue pkg/controller/jobs/jobset/jobset_controller.go, jobset_multikueue_adapter.go SyncJob",
    )
    return out
