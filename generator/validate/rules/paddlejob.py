"""Owner `paddlejob`: what the paddle-operator (v0.3.5, controllers/ and api/v1) needs of a
batch.paddlepaddle.org/v1 PaddleJob beyond its schema."""

from __future__ import annotations

from typing import Any

from generator.core.findings import Finding
from generator.core.grammar import DNS1035_LABEL, name_problem
from generator.validate.rules.base import as_dict, as_int, as_list, error, warning
from generator.validate.rules.volcano import gang_findings

PADDLE_ROLES = ("ps", "worker", "heter")


def _containers_of(spec: dict[Any, Any], role: str) -> list[dict[Any, Any]]:
    pod = as_dict(as_dict(as_dict(spec.get(role)).get("template")).get("spec"))
    return [c for c in as_list(pod.get("containers")) if isinstance(c, dict)]


def paddlejob_findings(obj: dict[Any, Any]) -> list[Finding]:
    spec = as_dict(obj.get("spec"))
    roles = [r for r in PADDLE_ROLES if isinstance(spec.get(r), dict)]
    out = []
    if not roles:
        out.append(
            error("spec", "paddlejob-roles", "set at least one of ps, worker, heter (worker alone is collective mode)")
        )
    if "ps" in roles and "worker" not in roles:
        out.append(error("spec.ps", "paddlejob-roles", "ps needs worker: PS mode runs parameter servers and trainers"))
    if "heter" in roles and not {"ps", "worker"} <= set(roles):
        out.append(error("spec.heter", "paddlejob-roles", "heter needs ps and worker"))
    elastic = spec.get("elastic")
    if elastic not in (None, 0) and "worker" not in roles:
        out.append(error("spec.elastic", "paddlejob-elastic", "elastic training needs worker"))
    if elastic not in (None, 0):
        env = [
            e.get("name")
            for r in roles
            for c in _containers_of(spec, r)
            for e in as_list(c.get("env"))
            if isinstance(e, dict)
        ]
        if "PADDLE_ELASTIC_SERVER" not in env:
            out.append(
                warning(
                    "spec.elastic",
                    "paddlejob-elastic",
                    "elastic is set but no container sets PADDLE_ELASTIC_SERVER, the etcd endpoint the "
                    "pods register with (unless the operator runs with --etcd-server)",
                )
            )
    name = as_dict(obj.get("metadata")).get("name")
    problem = name_problem(name, DNS1035_LABEL, 63, "PaddleJob name (DNS-1035 label)")
    if problem and name is not None:
        out.append(error("metadata.name", "paddlejob-name", problem))
    total = 0
    for role in roles:
        out += _role_findings(spec, role, name if not problem else None)
        total += as_int(spec[role].get("replicas")) or 0
    policy = spec.get("schedulingPolicy")
    if isinstance(policy, dict):
        minimum = as_int(policy.get("minAvailable"))
        out += gang_findings(minimum, total, "spec.schedulingPolicy.minAvailable", "paddlejob-min-available", "the job")
        for role in roles:
            pod = as_dict(as_dict(spec[role].get("template")).get("spec"))
            scheduler = pod.get("schedulerName")
            if isinstance(scheduler, str) and scheduler not in ("", "volcano"):
                out.append(
                    error(
                        f"spec.{role}.template.spec.schedulerName",
                        "paddlejob-scheduler",
                        f"schedulerName {scheduler!r} ignores the schedulingPolicy; leave it empty or use volcano",
                    )
                )
    if "sampleSetRef" in spec:  # in the API from the sampleset branch, never in a release
        out.append(
            warning(
                "spec.sampleSetRef",
                "paddlejob-sampleset",
                "the released paddle-operator (v0.3.5, what this project installs) ignores sampleSetRef: "
                "SampleSet is only on its unreleased sampleset branch, so no data would be mounted; "
                "mount the data as a volume (job --pvc CLAIM:PATH)",
            )
        )
    gloo = spec.get("withGloo")
    if gloo in (1, 2) and "ps" not in roles:
        out.append(
            warning(
                "spec.withGloo",
                "paddlejob-gloo",
                "withGloo only acts in PS mode (with ps); the operator ignores it here",
            )
        )
    out += _runtime_findings(spec, roles)
    if spec.get("cleanPodPolicy") == "OnCompletion" and "ps" in roles:
        out.append(
            warning(
                "spec.cleanPodPolicy",
                "paddlejob-clean-pod-policy",
                "OnCompletion cleans the pods when the job is Completed, and paddle-operator v0.3.5 marks it "
                "Completed only when every replica of every role has succeeded, parameter servers included "
                "(controllers/paddlejob_helper.go getPaddleJobPhase: checkAll(isCompleted)); Paddle's parameter "
                "servers serve on after the trainers exit (PaddlePaddle/Paddle#31053), so unless the training code "
                "stops them the job stays "
                "Running and the policy never fires: use Never and delete the job when the trainers are done",
            )
        )
    if spec.get("intranet") == "Service":
        out.append(
            warning(
                "spec.intranet",
                "paddlejob-intranet-service",
                "intranet Service: the operator sets POD_IP to the pod's name (v0.3.5 constructPod), and "
                "Paddle 2.3 and newer take POD_IP as the node's address only when it has a dot (launcher plugin "
                "rewrite_host_ip): no pod starts the rendezvous master and every pod waits for ever; use intranet "
                "PodIP (the default) unless the image's launcher is Paddle 2.2 or older",
            )
        )
    if spec.get("intranet") == "Host":
        for role in roles:
            pod = as_dict(as_dict(spec[role].get("template")).get("spec"))
            if pod.get("dnsPolicy") != "ClusterFirstWithHostNet":
                out.append(
                    warning(
                        f"spec.{role}.template.spec.dnsPolicy",
                        "paddlejob-host-network",
                        "intranet Host runs the pods on the host network; set dnsPolicy: ClusterFirstWithHostNet "
                        "or they cannot resolve cluster names",
                    )
                )
    return out


GROUP_ANNOTATION = "scheduling.k8s.io/group-name"  # what Volcano gangs a pod by


def _runs_fleetrun(spec: dict[Any, Any]) -> bool:
    """Whether the workers start with fleetrun, which still reads the operator's elastic env."""
    containers = _containers_of(spec, "worker")
    command = [*as_list(containers[0].get("command")), *as_list(containers[0].get("args"))] if containers else []
    return bool(command) and isinstance(command[0], str) and command[0].rsplit("/", 1)[-1] == "fleetrun"


def _runtime_findings(spec: dict[Any, Any], roles: list[str]) -> list[Finding]:
    """What the operator accepts but a cluster does not run as meant (the operator's v0.3.5
    source, and Paddle's own launcher and role maker, are the oracles)."""
    out = []
    if "heter" in roles:
        out.append(
            warning(
                "spec.heter",
                "paddlejob-heter",
                "the operator sets TRAINING_ROLE=HETER on heter pods (v0.3.5 api/v1 TrainingRole), which Paddle's "
                "PaddleCloudRoleMaker refuses (it takes PSERVER, TRAINER, HETER_TRAINER or COORDINATOR): the heter "
                "pods fail as they start",
            )
        )
    if spec.get("withGloo") in (1, 2) and "ps" in roles and spec.get("intranet") != "Service":
        out.append(
            warning(
                "spec.withGloo",
                "paddlejob-gloo-endpoint",
                "with intranet PodIP or Host the operator gives PADDLE_GLOO_HTTP_ENDPOINT server 0's own endpoint "
                "(v0.3.5 constructConfigMap swaps only port 36000, and these endpoints use 36000 plus a random "
                "offset): server 0 starts the gloo HTTP store and its parameter server on one port, 'Address "
                "already in use'; use intranet Service, or leave withGloo unset",
            )
        )
    if spec.get("elastic") not in (None, 0) and "worker" in roles and not _runs_fleetrun(spec):
        out.append(
            warning(
                "spec.elastic",
                "paddlejob-elastic-launcher",
                "elastic pods get PADDLE_ELASTIC_JOB_ID, _NP and the job's PADDLE_ELASTIC_SERVER and no endpoint "
                "list; Paddle 2.3 and newer's launcher (paddle.distributed.launch) reads none of them (it takes "
                "the etcd rendezvous from PADDLE_MASTER), so each pod trains alone: only a launcher of Paddle 2.2 "
                "or older, or fleetrun, runs the job elastic",
            )
        )
    policy = spec.get("schedulingPolicy")
    if isinstance(policy, dict):
        ungrouped = [
            r
            for r in roles
            if GROUP_ANNOTATION
            not in as_dict(as_dict(as_dict(spec[r].get("template")).get("metadata")).get("annotations"))
        ]
        if ungrouped:
            out.append(
                warning(
                    "spec.schedulingPolicy",
                    "paddlejob-scheduling",
                    "the operator acts on schedulingPolicy (a PodGroup, the pods' group annotation) only when it "
                    "runs with --scheduling=volcano (v0.3.5 main.go), which the bundle in deploy/ does not set: "
                    "add it to the operator's args, or write the PodGroup yourself and annotate the pods with "
                    f"{GROUP_ANNOTATION} (job --volcano --podgroup); without either, {', '.join(ungrouped)} pods "
                    "are not gang-scheduled",
                )
            )
    return out


def _role_findings(spec: dict[Any, Any], role: str, job_name: str | None) -> list[Finding]:
    out = []
    rs = spec[role]
    replicas, low, high = as_int(rs.get("replicas")), as_int(rs.get("requests")), as_int(rs.get("limits"))
    if replicas is not None:
        if low is not None and low > replicas:
            out.append(
                error(
                    f"spec.{role}.requests",
                    "paddlejob-elastic-bounds",
                    f"requests {low} is above replicas {replicas}; need requests <= replicas <= limits",
                )
            )
        if high is not None and high < replicas:
            out.append(
                error(
                    f"spec.{role}.limits",
                    "paddlejob-elastic-bounds",
                    f"limits {high} is below replicas {replicas}; need requests <= replicas <= limits",
                )
            )
        most = max(replicas, high or 0)
        # the longest pod name, JOB-ROLE-INDEX, measured before it is written (most are short)
        if job_name and most >= 1 and len(job_name) + len(role) + len(str(most - 1)) + 2 > 63:
            pod = f"{job_name}-{role}-{most - 1}"
            if len(pod) > 63:
                out.append(
                    error(
                        "metadata.name",
                        "paddlejob-name",
                        f"pod and host name {pod!r} is {len(pod)} characters, more than 63; "
                        f"shorten the job name to at most {63 - len(pod) + len(job_name)}",
                    )
                )
    pod_spec = as_dict(rs.get("template")).get("spec")
    if not isinstance(pod_spec, dict):
        out.append(
            error(f"spec.{role}", "paddlejob-containers", f"{role} needs template.spec with the containers to run")
        )
        return out
    if len(as_list(pod_spec.get("containers"))) < 2:  # the common case: one container, first by itself
        return out
    containers = _containers_of(spec, role)
    if (
        containers
        and isinstance(containers[0].get("name"), str)
        and containers[0]["name"] != "paddle"
        and any(c.get("name") == "paddle" for c in containers[1:])
    ):
        out.append(
            warning(
                f"spec.{role}.template.spec.containers[0]",
                "paddlejob-container-order",
                f"the operator sets the PADDLE_* environment on containers[0] ({containers[0].get('name')!r}); "
                "put the 'paddle' container first",
            )
        )
    return out
