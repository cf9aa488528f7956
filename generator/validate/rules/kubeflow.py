"""Owner `kubeflow`: the training operator's webhook rules for kubeflow.org/v1 PaddleJob
(kubeflow/training-operator v1.9.0: pkg/webhooks/paddlepaddle, pkg/common/util/webhooks.go)."""

from __future__ import annotations

from generator.core.findings import Finding, child
from generator.core.grammar import DNS1035_LABEL, name_problem
from generator.validate.rules.base import as_dict, as_int, as_list, error, warning

# ReplicaSpec.RestartPolicy (common_types.go): the pod's restartPolicy, ExitCode read as Never
# (SetRestartPolicy, pkg/controller.v1/common/pod.go); any other value makes every pod the
# operator creates one the apiserver refuses, so the job never starts.
REPLICA_RESTART_POLICIES = ("Always", "OnFailure", "Never", "ExitCode")

# The controllers a job's runPolicy.managedBy may name (common_types.go, v1.9): the training
# operator itself, or Kueue's MultiKueue dispatching it to a worker cluster.
MANAGERS = ("kubeflow.org/training-operator", "kueue.x-k8s.io/multikueue")


def kubeflow_paddlejob_findings(obj: dict, release: tuple[int, int] = (1, 9)) -> list[Finding]:
    out = []
    name = as_dict(obj.get("metadata")).get("name")
    problem = name_problem(name, DNS1035_LABEL, 63, "PaddleJob name (DNS-1035 label)")
    if problem and name is not None:
        out.append(error("metadata.name", "kubeflow-name", problem))
    specs = as_dict(as_dict(obj.get("spec")).get("paddleReplicaSpecs"))
    for rtype, rspec in specs.items():
        here = child("spec.paddleReplicaSpecs", rtype)
        if rtype not in ("Master", "Worker"):
            out.append(error(here, "kubeflow-replica-type", f"replica type {rtype!r} must be Master or Worker"))
        policy = as_dict(rspec).get("restartPolicy")
        if isinstance(policy, str) and policy not in REPLICA_RESTART_POLICIES:
            message = (
                f"restartPolicy {policy!r} is not one of {', '.join(REPLICA_RESTART_POLICIES)}: "
                "the apiserver refuses every pod the operator creates from it"
            )
            out.append(error(f"{here}.restartPolicy", "kubeflow-restart-policy", message))
        pod = as_dict(as_dict(as_dict(rspec).get("template")).get("spec"))
        containers = [c for c in as_list(pod.get("containers")) if isinstance(c, dict)]
        if not isinstance(pod.get("containers"), list):  # an empty list is the pod rule's finding
            out.append(error(here, "kubeflow-containers", f"{rtype} needs template.spec.containers"))
        elif containers and not any(c.get("name") == "paddle" for c in containers):
            out.append(
                error(
                    f"{here}.template.spec.containers",
                    "kubeflow-container-name",
                    f"{rtype} has no container named 'paddle'; the training operator requires one",
                )
            )
    master_pod = as_dict(as_dict(as_dict(specs.get("Master")).get("template")).get("spec"))
    if isinstance(master_pod.get("containers"), list):  # without: kubeflow-containers says it
        message = (
            "Master replicas put the job in PS mode, where training-operator v1.9.0 gives each pod one server or "
            "one trainer (pkg/controller.v1/paddlepaddle/envvar.go setPodEnv: PADDLE_SERVER_NUM=1 on Master pods, "
            "PADDLE_TRAINER_NUM=1 on Worker pods) and every pod's launcher then starts a server of its own (Paddle "
            "3: 4 servers for 2 + 2), not the job described; `job --ps --runtime kubeflow` refuses this: run "
            "parameter-server jobs on the paddle-operator, volcano or kubernetes runtime"
        )
        out.append(warning("spec.paddleReplicaSpecs.Master", "kubeflow-ps-mode", message))
    manager = as_dict(as_dict(obj.get("spec")).get("runPolicy")).get("managedBy")
    if isinstance(manager, str) and manager not in MANAGERS:  # a release without the field: the schema says so
        message = f"managedBy {manager!r} is no controller the training operator hands jobs to: {', '.join(MANAGERS)}"
        out.append(error("spec.runPolicy.managedBy", "kubeflow-managed-by", message))
    elastic = as_dict(as_dict(obj.get("spec")).get("elasticPolicy"))
    low, high = as_int(elastic.get("minReplicas")), as_int(elastic.get("maxReplicas"))
    if low is not None and high is not None and low > high:
        # Not refused: the webhook (validatePaddleJob, v1.6-v1.9) does not look at elasticPolicy,
        # the defaulter (setPaddleElasticPolicy) keeps both bounds when both are set, and the
        # PaddleJob controller (pkg/controller.v1/paddlepaddle) never reads them.
        message = (
            f"minReplicas {low} is above maxReplicas {high}: the training operator accepts the job, but its "
            "PaddleJob controller ignores elasticPolicy, so these bounds do nothing; fix or remove them"
        )
        out.append(warning("spec.elasticPolicy.minReplicas", "kubeflow-elastic", message))
    return out
