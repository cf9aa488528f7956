"""The pods each runtime's controller creates from a job's manifests, with what it adds to them.

`paddlejob-manifests local` runs these pods as processes; `--explain` prints them. Each
expansion follows the controller's source, pinned by release:

- paddle-operator v0.3.5 (controllers/paddlejob_helper.go): pods <job>-<ps|worker|heter>-<i>,
  hostname and subdomain the pod name, a Service per pod; env POD_IP (status.podIP, or the pod
  name with intranet Service), PADDLE_TRAINER_ID, TRAINING_ROLE, PADDLE_TRAINING_ROLE, and
  envFrom the job's ConfigMap (constructConfigMap: PADDLE_TRAINER_ENDPOINTS, PADDLE_TRAINERS,
  PADDLE_TRAINERS_NUM, PADDLE_PSERVERS_IP_PORT_LIST, PADDLE_PORT, TRAINER_PORTS_NUM, gloo); with
  elastic: PADDLE_ELASTIC_JOB_ID (<namespace>-<job>), PADDLE_ELASTIC_NP, PADDLE_ELASTIC_TIMEOUT.
- Volcano (pkg/controllers/job: job_controller_util.go, plugins/env, plugins/svc): pods
  <job>-<task>-<i>; the annotation volcano.sh/task-index from v1.9.0; the env plugin appends
  VK_TASK_INDEX and VC_TASK_INDEX; the svc plugin sets hostname <pod> and subdomain <job>, a
  headless Service <job>, and VC_<TASK>_HOSTS / VC_<TASK>_NUM from its ConfigMap <job>-svc.
- Kubeflow training-operator v1.9.0 (pkg/controller.v1/paddlepaddle/envvar.go): pods
  <job>-<master|worker>-<i>, a Service each; env PYTHONUNBUFFERED, PADDLE_JOB_ID,
  PADDLE_NNODES, PADDLE_MASTER (worker 0, or master 0 in PS mode), PADDLE_SERVER_NUM or
  PADDLE_TRAINER_NUM in PS mode.
- Kubeflow Trainer v2 and JobSet: generator/jobsets.py.
- Kubernetes: StatefulSet pods <set>-<ordinal> (hostname the pod name, subdomain serviceName);
  Indexed Job pods with the annotation batch.kubernetes.io/job-completion-index and, from 1.22,
  env JOB_COMPLETION_INDEX, hostname <job>-<index> under the Job's subdomain.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

VOLCANO_TASK_INDEX_SINCE = (1, 9)  # the volcano.sh/task-index annotation
OPERATOR_PORT = 36000  # v0.3.5 PADDLE_PORT; with intranet PodIP the config map adds rand(20000)
OPERATOR_PORTS_NUM = 20  # v0.3.5 HOST_PORT_NUM, the config map's TRAINER_PORTS_NUM
LOCAL_PORT_OFFSET = 1000  # the operator's random offset, fixed locally so runs repeat
KUBEFLOW_DEFAULT_PORT = 36543  # kubeflow.org/v1 PaddleJobDefaultPort
OPERATOR = "paddle-operator v0.3.5"


class ExpandError(ValueError):
    pass


# Loopback addresses 127.0.0.2-251, one per pod; also what keeps a huge `replicas` from
# building millions of pods in memory before anything runs.
MAX_PODS = 250


def _count(value, what: str) -> int:
    """A replicas or completions count, checked before any pod is built."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ExpandError(f"{what}: {value!r} is not a count of pods")
    if value > MAX_PODS:
        raise ExpandError(f"{what}: {value} pods; local mode runs at most {MAX_PODS}")
    return value


@dataclass
class Pod:
    name: str
    namespace: str
    role: str  # what the runtime calls it: ps, worker, trainer, pserver, master, ...
    index: int
    finishes: bool  # the job completes when every pod that finishes has succeeded
    hostname: str
    subdomain: str | None
    container: dict  # containers[0], the Paddle container, with what the controller added
    labels: dict = field(default_factory=dict)
    annotations: dict = field(default_factory=dict)
    service_account: str | None = None
    config_maps: dict = field(default_factory=dict)  # name -> data, for envFrom
    names: list[str] = field(default_factory=list)  # extra DNS names (a Service per pod)
    notes: list[str] = field(default_factory=list)
    # A parameter server: Paddle's servers do not exit on their own. With ``finishes`` too (the
    # paddle-operator needs every replica of every role to succeed), the job never completes.
    serves: bool = False
    # Headless Services the controller itself creates that select this pod (their names): with
    # those of the manifests, they decide whether <hostname>.<subdomain> has a DNS record.
    headless: list[str] = field(default_factory=list)
    controller: str = ""  # who gives the job's verdict, for messages
    # The pod's restartPolicy: with OnFailure (or Always) the kubelet restarts a failed container
    # in place, with back-off (CrashLoopBackOff), and the pod does not fail.
    restart_policy: str = "Always"
    # An Indexed Job's pods: the Job's name and spec.parallelism. The Job controller keeps at most
    # that many of them active, lowest pending index first, and starts the next one only when one
    # has succeeded (pkg/controller/job: manageJob, firstPendingIndexes).
    batch: str | None = None
    parallelism: int | None = None
    # The Job's spec.backoffLimit (unset: 6): the Job fails once more pods have failed than it
    # allows, or, with restartPolicy OnFailure, once its containers' restarts reach it.
    backoff_limit: int | None = None


def _meta(obj: dict) -> tuple[str, str]:
    meta = obj.get("metadata") or {}
    return meta.get("name", ""), meta.get("namespace") or "default"


def _pod(name, namespace, role, index, finishes, template, hostname, subdomain, **extra) -> Pod:
    template = copy.deepcopy(template or {})
    meta = template.get("metadata") or {}
    spec = template.get("spec") or {}
    containers = spec.get("containers") or []
    if not containers or not isinstance(containers[0], dict):
        raise ExpandError(f"{name}: the pod template has no container")
    notes = []
    if len(containers) > 1:
        notes.append(f"only the first container ({containers[0].get('name')}) runs locally")
    if spec.get("initContainers"):
        notes.append("init containers do not run locally (they wait for DNS, which local mode provides)")
    return Pod(
        name=name,
        namespace=namespace,
        role=role,
        index=index,
        finishes=finishes,
        hostname=spec.get("hostname") or hostname,
        subdomain=spec.get("subdomain") or subdomain,
        container=containers[0],
        labels=dict(meta.get("labels") or {}),
        annotations=dict(meta.get("annotations") or {}),
        service_account=spec.get("serviceAccountName"),
        restart_policy=spec.get("restartPolicy") or "Always",  # the pod API's default
        notes=notes,
        **extra,
    )


def _env(container: dict, *entries: dict) -> None:
    container.setdefault("env", []).extend(entries)


def _value(name: str, value) -> dict:
    return {"name": name, "value": str(value)}


def _field(name: str, path: str) -> dict:
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": path}}}


# -- paddle-operator -----------------------------------------------------------------------------

_OPERATOR_ROLES = {"ps": "PSERVER", "worker": "TRAINER", "heter": "HETER"}


def _paddle_operator(job: dict) -> list[Pod]:
    name, namespace = _meta(job)
    spec = job.get("spec") or {}
    intranet = spec.get("intranet", "PodIP")
    elastic = spec.get("elastic") is not None
    roles = [r for r in ("ps", "worker", "heter") if isinstance(spec.get(r), dict)]
    replicas = {r: _count(spec[r].get("replicas", 0), f"{name} {r} replicas") for r in roles}
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
            pod = _pod(pod_name, namespace, role, i, True, spec[role].get("template"), pod_name, pod_name)
            pod.serves, pod.controller = role == "ps", OPERATOR
            if not ((spec[role].get("template") or {}).get("spec") or {}).get("restartPolicy") or elastic:
                # constructPod: OnFailure for elastic jobs and Service workers, else Never
                service_worker = role == "worker" and intranet == "Service"
                pod.restart_policy = "OnFailure" if elastic or service_worker else "Never"
            pod.names.append(pod_name)  # constructService4Pod: a Service named like the pod
            pod.headless.append(pod_name)  # ClusterIP None, selecting the pod by its name label
            ip = _value("POD_IP", pod_name) if intranet == "Service" else _field("POD_IP", "status.podIP")
            _env(
                pod.container,
                ip,
                _value("PADDLE_TRAINER_ID", i),
                _value("TRAINING_ROLE", _OPERATOR_ROLES[role]),
                _value("PADDLE_TRAINING_ROLE", _OPERATOR_ROLES[role]),
            )
            if elastic:
                _env(
                    pod.container,
                    _value("PADDLE_ELASTIC_JOB_ID", f"{namespace}-{name}"),
                    _value("PADDLE_ELASTIC_NP", replicas.get("worker", 0)),
                    _value("PADDLE_ELASTIC_TIMEOUT", 60),
                )
            else:
                pod.container.setdefault("envFrom", []).append({"configMapRef": {"name": name}})
                pod.config_maps[name] = config
            pods.append(pod)
    return pods


# -- volcano -------------------------------------------------------------------------------------


def _volcano(job: dict, volcano_version: tuple[int, int]) -> list[Pod]:
    name, namespace = _meta(job)
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
    hosts = _volcano_hosts(name, tasks) if svc else {}
    pods = []
    for task in tasks:
        for i in range(_count(task.get("replicas", 0), f"{name} task {task.get('name')} replicas")):
            pod_name = f"{name}-{task['name']}-{i}"
            pod = _pod(pod_name, namespace, task["name"], i, task["name"] in completing, task.get("template"),
                       pod_name, name if svc else None)  # fmt: skip
            if svc:  # plugins/svc: a headless Service named like the job, selecting its pods
                pod.headless.append(name)
            if volcano_version >= VOLCANO_TASK_INDEX_SINCE:
                pod.annotations["volcano.sh/task-index"] = str(i)
            pod.annotations["volcano.sh/job-name"] = name
            pod.annotations["volcano.sh/task-spec"] = task["name"]
            if "env" in plugins:
                _env(pod.container, _value("VK_TASK_INDEX", i), _value("VC_TASK_INDEX", i))
            if svc:  # OnPodCreate: each host list and count, from the plugin's ConfigMap <job>-svc
                pod.config_maps[f"{name}-svc"] = hosts
                refs = [{"configMapKeyRef": {"name": f"{name}-svc", "key": key}} for key in hosts]
                _env(pod.container, *({"name": key, "valueFrom": ref} for key, ref in zip(hosts, refs, strict=True)))
            pods.append(pod)
    return pods


def _volcano_hosts(name: str, tasks: list[dict]) -> dict[str, str]:
    """The svc plugin's ConfigMap data (GenerateHosts, pkg/controllers/job/plugins/svc/svc.go):
    per task, VC_<TASK>_HOSTS (its pods' <hostname>.<subdomain>, comma-separated; a single
    entry when the template sets a hostname) and VC_<TASK>_NUM; '-' in the name becomes '_'."""
    data = {}
    for task in tasks:
        spec = (task.get("template") or {}).get("spec") or {}
        replicas = _count(task.get("replicas", 0), f"{name} task {task.get('name')} replicas")
        count = min(replicas, 1) if spec.get("hostname") else replicas
        subdomain = spec.get("subdomain") or name
        task_name = task.get("name", "")
        hosts = [f"{spec.get('hostname') or f'{name}-{task_name}-{i}'}.{subdomain}" for i in range(count)]
        key = str(task.get("name", "")).replace("-", "_").upper()
        data[f"VC_{key}_HOSTS"] = ",".join(hosts)
        data[f"VC_{key}_NUM"] = str(len(hosts))
    return data


# -- kubeflow ------------------------------------------------------------------------------------


def _kubeflow_port(spec: dict, rtype: str) -> int:
    for container in ((spec.get(rtype) or {}).get("template") or {}).get("spec", {}).get("containers") or []:
        if container.get("name") == "paddle":
            for port in container.get("ports") or []:
                if port.get("name") == "master":
                    return int(port.get("containerPort"))
    return KUBEFLOW_DEFAULT_PORT


def _kubeflow(job: dict) -> list[Pod]:
    name, namespace = _meta(job)
    specs = (job.get("spec") or {}).get("paddleReplicaSpecs") or {}
    total = sum(_count((s or {}).get("replicas", 1), f"{name} {t} replicas") for t, s in specs.items())
    ps_mode = "Master" in specs
    rendezvous = "Master" if ps_mode else "Worker"
    master = f"{name}-{rendezvous.lower()}-0:{_kubeflow_port(specs, rendezvous)}"
    pods = []
    for rtype in ("Master", "Worker"):
        if rtype not in specs:
            continue
        for i in range(_count(specs[rtype].get("replicas", 1), f"{name} {rtype} replicas")):
            pod_name = f"{name}-{rtype.lower()}-{i}"
            pod = _pod(pod_name, namespace, rtype.lower(), i, rtype == "Worker", specs[rtype].get("template"),
                       pod_name, name)  # fmt: skip
            pod.names.append(pod_name)  # a Service per replica
            policy = specs[rtype].get("restartPolicy")  # setRestartPolicy: the replica's, ExitCode as Never
            if policy:
                pod.restart_policy = "Never" if policy == "ExitCode" else policy
            env = [_value("PYTHONUNBUFFERED", 1), _value("PADDLE_JOB_ID", name), _value("PADDLE_NNODES", total)]
            if i == 0 and rtype == rendezvous:
                env += [
                    _field("POD_IP_DUMMY", "status.podIP"),
                    _value("PADDLE_MASTER", f"$(POD_IP_DUMMY):{master.rsplit(':', 1)[1]}"),
                ]
            else:
                env.append(_value("PADDLE_MASTER", master))
            if ps_mode:
                env.append(_value("PADDLE_SERVER_NUM" if rtype == "Master" else "PADDLE_TRAINER_NUM", 1))
            _env(pod.container, *env)
            pods.append(pod)
    return pods


# -- kubernetes ----------------------------------------------------------------------------------


def _statefulset(obj: dict) -> list[Pod]:
    name, namespace = _meta(obj)
    spec = obj.get("spec") or {}
    pods = []
    for i in range(_count(spec.get("replicas", 1), f"StatefulSet {name} replicas")):
        pod = _pod(
            f"{name}-{i}", namespace, name, i, False, spec.get("template"), f"{name}-{i}", spec.get("serviceName")
        )
        pod.labels["apps.kubernetes.io/pod-index"] = str(i)
        pods.append(pod)
    return pods


def _indexed_job(obj: dict) -> list[Pod]:
    name, namespace = _meta(obj)
    spec = obj.get("spec") or {}
    if spec.get("completionMode") != "Indexed":
        raise ExpandError(f"Job {name}: only Indexed Jobs have a stable identity per pod; set completionMode: Indexed")
    template = spec.get("template") or {}
    subdomain = (template.get("spec") or {}).get("subdomain")
    completions = _count(spec.get("completions", 1), f"Job {name} completions")
    # SetDefaults_Job (pkg/apis/batch/v1/defaults.go): an unset parallelism is 1, not completions.
    parallelism = _count(spec.get("parallelism", 1), f"Job {name} parallelism")
    backoff_limit = spec.get("backoffLimit", 6)  # SetDefaults_Job
    if not isinstance(backoff_limit, int) or isinstance(backoff_limit, bool) or backoff_limit < 0:
        raise ExpandError(f"Job {name} backoffLimit: {backoff_limit!r} is not a count of failures")
    pods = []
    for i in range(completions):
        pod = _pod(f"{name}-{i}", namespace, name, i, True, template, f"{name}-{i}", subdomain)
        pod.batch, pod.parallelism, pod.backoff_limit = name, parallelism, backoff_limit
        if i >= parallelism:
            pod.notes.append(
                f"starts only when an earlier pod of Job {name} has succeeded: the Job runs at most {parallelism} of "
                f"its {completions} pods at once (parallelism), so pods that wait for all their peers (a collective "
                "rendezvous) wait for ever; set parallelism to completions"
            )
        pod.hostname = f"{name}-{i}"  # Indexed Job pods: <job>-<index> (1.22+)
        pod.annotations["batch.kubernetes.io/job-completion-index"] = str(i)
        _env(
            pod.container,
            _field("JOB_COMPLETION_INDEX", "metadata.annotations['batch.kubernetes.io/job-completion-index']"),
        )
        pods.append(pod)
    return pods


# -- all -----------------------------------------------------------------------------------------

NOT_PODS = {"Service", "ConfigMap", "ServiceAccount", "Role", "RoleBinding", "PodGroup", "PersistentVolume",
            "PersistentVolumeClaim", "Secret", "NetworkPolicy"}  # fmt: skip


def expand(manifests: list[dict], volcano_version: tuple[int, int] | None = None) -> tuple[list[Pod], list[dict]]:
    """(the pods, the Services) of a job's manifests; ExpandError for what no runtime here runs."""
    from . import jobsets, thirdparty

    volcano_version = volcano_version or thirdparty.newest("volcano")
    pods, services, config_maps = [], [], {}
    runtimes = jobsets.runtimes_of([obj for obj in manifests if isinstance(obj, dict)])
    for obj in manifests:
        if not isinstance(obj, dict):
            raise ExpandError("a manifest is not a mapping")
        key = (obj.get("apiVersion"), obj.get("kind"))
        if key == ("batch.paddlepaddle.org/v1", "PaddleJob"):
            pods += _paddle_operator(obj)
        elif key == ("batch.volcano.sh/v1alpha1", "Job"):
            pods += _volcano(obj, volcano_version)
        elif key == ("kubeflow.org/v1", "PaddleJob"):
            pods += _kubeflow(obj)
        elif key == ("apps/v1", "StatefulSet"):
            pods += _statefulset(obj)
        elif key == ("batch/v1", "Job"):
            pods += _indexed_job(obj)
        elif key == (jobsets.TRAINER_API, "TrainJob"):
            pods += jobsets.trainjob_pods(obj, runtimes)
        elif key == (jobsets.JOBSET_API, "JobSet"):
            pods += jobsets.jobset_pods(obj)
        elif key[0] == jobsets.TRAINER_API and key[1] in jobsets.RUNTIME_KINDS:
            continue  # a TrainJob's runtime: read above
        elif key == ("v1", "Service"):
            services.append(obj)
        elif key == ("v1", "ConfigMap"):
            config_maps[_meta(obj)[0]] = dict(obj.get("data") or {})
        elif obj.get("kind") not in NOT_PODS:
            raise ExpandError(f"{key[0]} {key[1]}: not a kind `local` knows how to run")
    if len(pods) > MAX_PODS:
        raise ExpandError(f"{len(pods)} pods: local mode runs at most {MAX_PODS}")
    for pod in pods:
        for name, data in config_maps.items():
            pod.config_maps.setdefault(name, data)
    if not pods:
        raise ExpandError("the manifests hold no job: nothing to run")
    return pods, services
