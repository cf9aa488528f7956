"""paddle-operator v0.3.5 (controllers/paddlejob_helper.go): pods <job>-<ps|worker|heter>-<i>,
hostname and subdomain the pod name, a Service per pod; env POD_IP (status.podIP, or the pod name
with intranet Service), PADDLE_TRAINER_ID, TRAINING_ROLE, PADDLE_TRAINING_ROLE, and envFrom the
job's ConfigMap (constructConfigMap: PADDLE_TRAINER_ENDPOINTS, PADDLE_TRAINERS,
PADDLE_TRAINERS_NUM, PADDLE_PSERVERS_IP_PORT_LIST, PADDLE_PORT, TRAINER_PORTS_NUM, gloo); with
elastic: PADDLE_ELASTIC_JOB_ID (<namespace>-<job>), PADDLE_ELASTIC_NP, PADDLE_ELASTIC_TIMEOUT.
The job's verdict (getPaddleJobPhase): Completed only when every replica of every role
succeeded, servers included."""

from __future__ import annotations

from generator.local.pods import Context, Pod, add_env, field_env, name_and_namespace, new_pod, pod_count, value_env

OPERATOR_PORT = 36000  # v0.3.5 PADDLE_PORT; with intranet PodIP the config map adds rand(20000)
OPERATOR_PORTS_NUM = 20  # v0.3.5 HOST_PORT_NUM, the config map's TRAINER_PORTS_NUM
LOCAL_PORT_OFFSET = 1000  # the operator's random offset, fixed locally so runs repeat
OPERATOR = "paddle-operator v0.3.5"

_OPERATOR_ROLES = {"ps": "PSERVER", "worker": "TRAINER", "heter": "HETER"}


def paddle_job_pods(job: dict, ctx: Context | None = None) -> list[Pod]:
    name, namespace = name_and_namespace(job)
    spec = job.get("spec") or {}
    intranet = spec.get("intranet", "PodIP")
    elastic = spec.get("elastic") is not None
    roles = [r for r in ("ps", "worker", "heter") if isinstance(spec.get(r), dict)]
    replicas = {r: pod_count(spec[r].get("replicas", 0), f"{name} {r} replicas") for r in roles}
    names = {r: [f"{name}-{r}-{i}" for i in range(replicas[r])] for r in roles}
    port = OPERATOR_PORT + LOCAL_PORT_OFFSET
    config = {"TRAINER_PORTS_NUM": str(OPERATOR_PORTS_NUM), "PADDLE_PORT": str(port)}

    def endpoints(role: str) -> list[str]:  # pod IPs at the random port, or (Service) names at 36000
        if intranet == "Service":
            return [f"{n}:{OPERATOR_PORT}" for n in names[role]]
        return [f"{n}:{port}" for n in names[role]]  # names: `local` puts each pod's IP in their place

    if "ps" in roles:
        config["PADDLE_PSERVERS_IP_PORT_LIST"] = ",".join(endpoints("ps"))
    if "worker" in roles:
        config["PADDLE_TRAINER_ENDPOINTS"] = ",".join(endpoints("worker"))
        config["PADDLE_TRAINERS"] = ",".join(names["worker"])
        config["PADDLE_TRAINERS_NUM"] = str(replicas["worker"])
    if "heter" in roles:
        config["PADDLE_HETER_ENDPOINTS"] = ",".join(endpoints("heter"))
    gloo = spec.get("withGloo")
    if gloo and "ps" in roles:
        config |= {"PADDLE_WITH_GLOO": str(gloo), "PADDLE_GLOO_RENDEZVOUS": "3"}
        first = endpoints("ps")[0]  # the operator swaps :36000 for :36018; a random port stays
        config["PADDLE_GLOO_HTTP_ENDPOINT"] = first.replace(
            f":{OPERATOR_PORT}", f":{OPERATOR_PORT + OPERATOR_PORTS_NUM - 2}"
        )
    pods = []
    for role in roles:
        for i, pod_name in enumerate(names[role]):
            # getPaddleJobPhase (v0.3.5): Completed only when every role's replicas all succeeded
            pod = new_pod(pod_name, namespace, role, i, True, spec[role].get("template"), pod_name, pod_name)
            pod.serves, pod.controller = role == "ps", OPERATOR
            if not ((spec[role].get("template") or {}).get("spec") or {}).get("restartPolicy") or elastic:
                # constructPod: OnFailure for elastic jobs and Service workers, else Never
                service_worker = role == "worker" and intranet == "Service"
                pod.restart_policy = "OnFailure" if elastic or service_worker else "Never"
            pod.names.append(pod_name)  # constructService4Pod: a Service named like the pod
            pod.headless.append(pod_name)  # ClusterIP None, selecting the pod by its name label
            ip = value_env("POD_IP", pod_name) if intranet == "Service" else field_env("POD_IP", "status.podIP")
            add_env(
                pod.container,
                ip,
                value_env("PADDLE_TRAINER_ID", i),
                value_env("TRAINING_ROLE", _OPERATOR_ROLES[role]),
                value_env("PADDLE_TRAINING_ROLE", _OPERATOR_ROLES[role]),
            )
            if elastic:
                add_env(
                    pod.container,
                    value_env("PADDLE_ELASTIC_JOB_ID", f"{namespace}-{name}"),
                    value_env("PADDLE_ELASTIC_NP", replicas.get("worker", 0)),
                    value_env("PADDLE_ELASTIC_TIMEOUT", 60),
                )
            else:
                pod.container.setdefault("envFrom", []).append({"configMapRef": {"name": name}})
                pod.config_maps[name] = config
            pods.append(pod)
    return pods


# -- the lifecycle (controllers/__init__.py): paddle-operator v0.3.5 -----------------------------------------

HELPER = "paddle-operator controllers/paddlejob_helper.go"
RECONCILE = "paddle-operator controllers/paddlejob_controller.go Reconcile"
NO_FIELD = "paddle-operator api/v1/paddlejob_types.go PaddleJobSpec"


def lifecycle(objects: list[dict]) -> dict:
    from generator.local.controllers import Answer, named, of_kind

    job = next(iter(of_kind(objects, "PaddleJob", "batch.paddlepaddle.org")), {})
    spec = job.get("spec") or {}
    clean = spec.get("cleanPodPolicy") or "OnCompletion"
    roles = [r for r in ("ps", "worker", "heter") if spec.get(r)]
    restart = {
        (((spec.get(r) or {}).get("template") or {}).get("spec") or {}).get("restartPolicy", "Never") for r in roles
    }
    out = {}
    out["success"] = Answer(
        f"Completed only when every replica of {', '.join(roles)} has succeeded"
        + (" (Paddle's servers never exit: Running for ever)" if "ps" in roles else "")
        + "; "
        f"pods deleted by cleanPodPolicy {clean}",
        f"{HELPER} getPaddleJobPhase; {RECONCILE}",
        "Completed",
    )
    out["crash"] = (
        Answer(
            "the kubelet restarts the container in place: Running for ever (CrashLoopBackOff); no retry limit",
            f"{HELPER} getPaddleJobPhase",
            "Running",
        )
        if restart & {"OnFailure", "Always"}
        else Answer(
            "one failed pod: Failed, for good (no retry field)", f"{HELPER} getPaddleJobPhase (isFailed)", "Failed"
        )
    )
    out["lost node"] = Answer(
        "an evicted or failed pod marks the PaddleJob Failed for good",
        f"{HELPER} getPaddleJobPhase (isFailed)",
        "Failed",
    )  # noqa: E501
    for scenario, flag in (("deadline", "--deadline"), ("suspend", "--suspend")):
        out[scenario] = Answer(f"no such field: `job {flag}` is refused", NO_FIELD)
    out["finished"] = Answer(
        f"{named(job)} stays (no TTL field: `job --ttl` is refused); its pods deleted by cleanPodPolicy {clean}",
        f"{RECONCILE} (cleanPodPolicy); {NO_FIELD}",
    )
    out["shrink"] = Answer(
        "never trains with fewer than its replicas: the ConfigMap every container reads is written once every pod "
        "has an IP; `job --min-workers` below --workers is refused",
        f"{RECONCILE} (constructConfigMap); {HELPER} getPaddleJobPhase",
    )
    out["kueue"] = Answer(
        "Kueue has no integration for this kind: `job --kueue-queue` is refused",
        "kueue pkg/controller/jobs (no batch.paddlepaddle.org)",
    )  # noqa: E501
    return out
