"""Owner `kubeflow`: the training operator's validating webhooks for its kubeflow.org/v1 jobs
(kubeflow/training-operator v1.9.0, commit 6f74c7f6: pkg/webhooks/<framework>/<kind>_webhook.go,
pkg/common/util/webhooks.go): PaddleJob, PyTorchJob, TFJob, XGBoostJob and JAXJob. One
implementation serves them all; each kind's facts (its replica-spec field, replica types, default
container, the checks of its own) are one JobKind. MPIJob v1 has no webhook in v1.9.0
(pkg/webhooks/webhooks.go:37, `scaffold`), so it has no entry here.

Releases 1.6 and 1.7 ran the same checks in the controller (pkg/apis/kubeflow.org/v1/
*_validation.go), which then never runs the job instead of refusing it; the checks later
releases added are gated by release."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

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

LATEST = (1, 9)  # the newest training-operator release whose webhooks this module ports
WEBHOOKS = (1, 8)  # the first with validating webhooks (before: the controller's ValidateV1*Job)

Release = tuple[int, int]
Check = Callable[[dict[Any, Any], Release], list[Finding]]


class JobKind(NamedTuple):
    """One kubeflow.org/v1 job kind as its webhook sees it."""

    kind: str
    specs: str  # the field of spec holding its replica specs (map of replica type to ReplicaSpec)
    container: str  # the container every replica must have (<Kind>DefaultContainerName)
    # The replica types the webhook accepts; None: it checks none (TFJob).
    replica_types: tuple[str, ...] | None
    # The replica type that must have exactly one replica (PyTorchJob's and XGBoostJob's Master);
    # from WEBHOOKS an unset replicas is refused too (no defaulting webhook: the defaulter runs in
    # the controller, after admission), before it only an explicit other number.
    single: str | None = None
    single_required: bool = False  # the single replica type must be present (XGBoostJob)
    # Other replica types' replicas must be at least 1 (PyTorchJob, since v1.9).
    at_least_one_since: Release | None = None
    at_most_one_of: tuple[str, ...] = ()  # at most one of these replica types (TFJob: Chief, Master)
    run_policy: bool = True  # the webhook checks runPolicy.managedBy (JAXJob's, v1.9.0, does not)
    checks: tuple[Check, ...] = ()  # the kind's own checks, after the replica specs'
    # elasticPolicy minReplicas above maxReplicas: (severity function, what then happens)
    elastic_bounds: tuple[Callable[[str, str, str], Finding], str] | None = None


def _job_findings(job: JobKind, obj: dict[Any, Any], given: Release | None) -> list[Finding]:
    """What every webhook checks, as pytorchjob_webhook.go (v1.9.0) does: the name (:80-82,
    NameIsDNS1035Label), runPolicy.managedBy (:86, pkg/common/util/webhooks.go:15-25), each replica
    type (:126-132), its containers (:134-136) and the default container among them (:138-151);
    then the kind's own checks. The spec map absent is the CRD's `required` finding."""
    release: Release = (given[0], given[1]) if given else LATEST
    out = []
    name = as_dict(obj.get("metadata")).get("name")
    problem = name_problem(name, DNS1035_LABEL, 63, f"{job.kind} name (DNS-1035 label)")
    if problem and name is not None:
        out.append(error("metadata.name", "kubeflow-name", problem))
    spec = as_dict(obj.get("spec"))
    where = f"spec.{job.specs}"
    specs = as_dict(spec.get(job.specs))
    for rtype, rspec in specs.items():
        here = child(where, rtype)
        if job.replica_types is not None and rtype not in job.replica_types:
            types = " or ".join(job.replica_types)
            out.append(error(here, "kubeflow-replica-type", f"replica type {rtype!r} must be {types}"))
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
        elif containers and not any(c.get("name") == job.container for c in containers):
            out.append(
                error(
                    f"{here}.template.spec.containers",
                    "kubeflow-container-name",
                    f"{rtype} has no container named {job.container!r}; the training operator requires one",
                )
            )
        out += _replica_count_findings(job, rtype, as_dict(rspec), here, release)
    if spec.get(job.specs) is None or isinstance(spec.get(job.specs), dict):  # another type: the schema's
        out += _set_findings(job, specs, where, release)
    for check in job.checks:
        out += check(obj, release)
    manager = as_dict(spec.get("runPolicy")).get("managedBy")
    if job.run_policy and isinstance(manager, str) and manager not in MANAGERS:
        # a release without the field: the schema says so
        message = f"managedBy {manager!r} is no controller the training operator hands jobs to: {', '.join(MANAGERS)}"
        out.append(error("spec.runPolicy.managedBy", "kubeflow-managed-by", message))
    elastic = as_dict(spec.get("elasticPolicy"))
    low, high = as_int(elastic.get("minReplicas")), as_int(elastic.get("maxReplicas"))
    if job.elastic_bounds and low is not None and high is not None and low > high:
        severity, consequence = job.elastic_bounds
        message = f"minReplicas {low} is above maxReplicas {high}: {consequence}"
        out.append(severity("spec.elasticPolicy.minReplicas", "kubeflow-elastic", message))
    return out


def _refused(release: Release) -> str:
    """What the training operator of ``release`` does with a job its validation refuses."""
    if release >= WEBHOOKS:
        return f"training-operator {release[0]}.{release[1]}'s webhook refuses the job"
    # e.g. v1.7.0 pkg/controller.v1/pytorch/pytorchjob_controller.go:135-140: an event, no pods
    return f"training-operator {release[0]}.{release[1]}'s controller fails its validation and never runs it"


def _replica_count_findings(
    job: JobKind, rtype: str, rspec: dict[Any, Any], here: str, release: Release
) -> list[Finding]:
    """pytorchjob_webhook.go:152-158, xgboostjob_webhook.go:129-134 (v1.9.0)."""
    replicas = rspec.get("replicas")
    count = as_int(replicas)
    if rtype == job.single:
        if (count is not None and count != 1) or (replicas is None and release >= WEBHOOKS):
            said = "unset" if replicas is None else f"{count}"
            message = f"{job.kind} {rtype} replicas must be 1 (it is {said}): {_refused(release)}"
            if replicas is None:
                message += "; its defaulter runs only in the controller, after admission: write replicas: 1"
            return [error(f"{here}.replicas", "kubeflow-replicas", message)]
    elif job.at_least_one_since and release >= job.at_least_one_since and count is not None and count < 1:
        message = f"{job.kind} {rtype} replicas must be at least 1 (it is {count}): {_refused(release)}"
        return [error(f"{here}.replicas", "kubeflow-replicas", message)]
    return []


def _set_findings(job: JobKind, specs: dict[Any, Any], where: str, release: Release) -> list[Finding]:
    """The replica types a job must or must not have together: xgboostjob_webhook.go:136-138,
    tfjob_webhook.go:105-107,123-125 (v1.9.0)."""
    out = []
    if job.single_required and job.single not in specs:
        message = f"an {job.kind} needs a {job.single} replica spec: {_refused(release)} without one"
        out.append(error(where, "kubeflow-replicas", message))
    both = [t for t in job.at_most_one_of if t in specs]
    if len(both) > 1:
        message = f"{' and '.join(both)}: a {job.kind} may have only one of them; {_refused(release)}"
        out.append(error(where, "kubeflow-replicas", message))
    return out


def _paddle_ps_mode(obj: dict[Any, Any], release: Release) -> list[Finding]:
    specs = as_dict(as_dict(obj.get("spec")).get("paddleReplicaSpecs"))
    master_pod = as_dict(as_dict(as_dict(specs.get("Master")).get("template")).get("spec"))
    if not isinstance(master_pod.get("containers"), list):  # without: kubeflow-containers says it
        return []
    message = (
        "Master replicas put the job in PS mode, where training-operator v1.9.0 gives each pod one server or "
        "one trainer (pkg/controller.v1/paddlepaddle/envvar.go setPodEnv: PADDLE_SERVER_NUM=1 on Master pods, "
        "PADDLE_TRAINER_NUM=1 on Worker pods) and every pod's launcher then starts a server of its own (Paddle "
        "3: 4 servers for 2 + 2), not the job described; `job --ps --runtime kubeflow` refuses this: run "
        "parameter-server jobs on the paddle-operator, volcano or kubernetes runtime"
    )
    return [warning("spec.paddleReplicaSpecs.Master", "kubeflow-ps-mode", message)]


def _pytorch_elastic(obj: dict[Any, Any], release: Release) -> list[Finding]:
    """pytorchjob_webhook.go:96-110 (v1.9.0); v1.7's controller: pytorch_validation.go
    validateNprocPerNode (both fields only)."""
    spec = as_dict(obj.get("spec"))
    elastic = spec.get("elasticPolicy")
    if not isinstance(elastic, dict):
        return []
    out = []
    if release >= (1, 9) and "Worker" not in as_dict(spec.get("pytorchReplicaSpecs")):
        message = f"an elastic PyTorchJob needs a Worker replica spec: {_refused(release)} without one"
        out.append(error("spec.pytorchReplicaSpecs", "kubeflow-elastic-worker", message))
    if elastic.get("nProcPerNode") is not None:
        if spec.get("nprocPerNode") is not None:
            message = (
                f"elasticPolicy.nProcPerNode must not be used with spec.nprocPerNode: {_refused(release)}; "
                "keep spec.nprocPerNode"
            )
            out.append(error("spec.elasticPolicy.nProcPerNode", "kubeflow-nproc-per-node", message))
        elif release >= WEBHOOKS:
            message = "elasticPolicy.nProcPerNode is deprecated, use spec.nprocPerNode instead (the webhook's warning)"
            out.append(warning("spec.elasticPolicy.nProcPerNode", "kubeflow-nproc-per-node", message))
    return out


PADDLE = JobKind(
    "PaddleJob",
    "paddleReplicaSpecs",
    "paddle",  # paddlepaddle_webhook.go:98-123
    ("Master", "Worker"),
    checks=(_paddle_ps_mode,),
    # Not refused: the webhook (validatePaddleJob, v1.6-v1.9) does not look at elasticPolicy,
    # the defaulter (setPaddleElasticPolicy) keeps both bounds when both are set, and the
    # PaddleJob controller (pkg/controller.v1/paddlepaddle) never reads them.
    elastic_bounds=(
        warning,
        "the training operator accepts the job, but its PaddleJob controller ignores elasticPolicy, so these "
        "bounds do nothing; fix or remove them",
    ),
)
PYTORCH = JobKind(
    "PyTorchJob",
    "pytorchReplicaSpecs",
    "pytorch",  # pytorchjob_webhook.go:126-151
    ("Master", "Worker"),
    single="Master",  # pytorchjob_webhook.go:152-155
    at_least_one_since=(1, 9),  # pytorchjob_webhook.go:156-158
    checks=(_pytorch_elastic,),
    # Not refused by the webhook, but the controller hands both to torchrun as PET_NNODES=MIN:MAX
    # (pkg/controller.v1/pytorch/elastic.go:139-143), which refuses min above max (torch/distributed/
    # run.py config_from_args: assert 0 < min_nodes <= max_nodes), and with
    # elasticPolicy.metrics makes them an HPA's bounds (hpa.go:93-94), which the apiserver refuses.
    elastic_bounds=(
        error,
        "the training operator passes them to every pod as PET_NNODES=MIN:MAX (training-operator v1.9.0 "
        "pkg/controller.v1/pytorch/elastic.go), and torchrun refuses a minimum above the maximum; with "
        "elasticPolicy.metrics the apiserver refuses the HPA the operator makes of them too",
    ),
)
TENSORFLOW = JobKind(
    "TFJob",
    "tfReplicaSpecs",
    "tensorflow",  # tfjob_webhook.go:108-121
    None,  # tfjob_webhook.go checks no replica type: PS, Worker, Chief, Master, Evaluator, any other
    at_most_one_of=("Chief", "Master"),  # tfjob_webhook.go:105-107,123-125 (IsChiefOrMaster)
)
XGBOOST = JobKind(
    "XGBoostJob",
    "xgbReplicaSpecs",
    "xgboost",  # xgboostjob_webhook.go:103-128
    ("Master", "Worker"),
    single="Master",  # xgboostjob_webhook.go:129-134
    single_required=True,  # xgboostjob_webhook.go:136-138
)
JAX = JobKind(
    "JAXJob",
    "jaxReplicaSpecs",
    "jax",  # jaxjob_webhook.go:97-121
    ("Worker",),
    run_policy=False,  # validateJAXJob (jaxjob_webhook.go:72-80) calls no ValidateRunPolicy
)


def kubeflow_paddlejob_findings(obj: dict[Any, Any], release: Release | None = LATEST) -> list[Finding]:
    """kubeflow.org/v1 PaddleJob: paddlepaddle_webhook.go validatePaddleJob (v1.9.0:74-126)."""
    return _job_findings(PADDLE, obj, release)


def pytorchjob_findings(obj: dict[Any, Any], release: Release | None = LATEST) -> list[Finding]:
    """kubeflow.org/v1 PyTorchJob: pytorchjob_webhook.go validatePyTorchJob (v1.9.0:76-161)."""
    return _job_findings(PYTORCH, obj, release)


def tfjob_findings(obj: dict[Any, Any], release: Release | None = LATEST) -> list[Finding]:
    """kubeflow.org/v1 TFJob: tfjob_webhook.go validateTFJob (v1.9.0:73-127)."""
    return _job_findings(TENSORFLOW, obj, release)


def xgboostjob_findings(obj: dict[Any, Any], release: Release | None = LATEST) -> list[Finding]:
    """kubeflow.org/v1 XGBoostJob: xgboostjob_webhook.go validateXGBoostJob (v1.9.0:74-140)."""
    return _job_findings(XGBOOST, obj, release)


def jaxjob_findings(obj: dict[Any, Any], release: Release | None = LATEST) -> list[Finding]:
    """kubeflow.org/v1 JAXJob: jaxjob_webhook.go validateJAXJob (v1.9.0:72-124)."""
    return _job_findings(JAX, obj, release)
