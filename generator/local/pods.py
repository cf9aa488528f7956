"""The pods each runtime's controller creates from a job's manifests, with what it adds to them.

`paddlejob-manifests local` runs these pods as processes; `--explain` prints them. This module
holds what every controller model shares (the Pod, the helpers) and `expand`, which hands each
manifest to the model of the controller that acts on its kind. The models live in
generator/local/controllers/, one module per runtime of libsonnet/paddlejob/runtimes.json (named like
its jsonnet builder), each following its controller's source, pinned by release: operator
(paddle-operator v0.3.5), volcano (Volcano's job controller), kubeflow (training-operator
v1.9.0), kubernetes (the StatefulSet and Job controllers), trainer (Kubeflow Trainer v2.3.0 and
JobSet v0.12.0). Which function of them expands which kind into pods, and which kinds a model only
reads, is the registry's (core/kinds.py).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from generator.core import kinds as registry
from generator.core.errors import Error


class ExpandError(Error, ValueError):
    pass


# Loopback addresses 127.0.0.2-251, one per pod; also what keeps a huge `replicas` from
# building millions of pods in memory before anything runs.
MAX_PODS = 250


def pod_count(value, what: str) -> int:
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
    volumes: list = field(default_factory=list)  # the pod spec's volumes (what its container mounts)
    # The lifecycle limits of the object that owns the pod (``owner``: "Job x", "PaddleJob x"), as
    # its controller keeps them. ``deadline``: seconds from the job's start (activeDeadlineSeconds),
    # past which the controller fails the job with ``deadline_reason``. ``restart_limit``: the
    # training operator's runPolicy.backoffLimit, container restarts summed over the job's pods.
    # ``group_restart``: the owner kind's Kind.group_restart (core/kinds.py): RESTART_PODS, a failed
    # pod restarts every pod of ``owner`` (Volcano's RestartJob policy), or RESTART_JOBS, a failed
    # Job does (JobSet's failurePolicy); at most ``group_limit`` times (maxRetry, maxRestarts).
    # ``group_note`` and ``group_end`` say a restart and the failure past the limit, in the
    # controller's words: str.format templates of owner, limit, count, next and ordinal.
    owner: str | None = None
    deadline: int | None = None
    deadline_reason: str = ""
    restart_limit: int | None = None
    group_restart: str | None = None
    group_limit: int | None = None
    group_note: str = ""
    group_end: str = ""
    # What completes the pod's Job (``batch``) or owner before every pod that finishes has
    # succeeded: an Indexed Job's successPolicy rules, Volcano's minSuccess. Each rule: the
    # indexes it counts (None: any) and how many of them must have succeeded (None: all of those
    # indexes). Any rule met: the owner completes and its pods still running or pending are
    # deleted; ``success_words`` says so in the controller's words (met_success).
    success_rules: list[tuple[frozenset[int] | None, int | None]] = field(default_factory=list)
    success_words: str = ""


def met_success(rules: list[tuple[frozenset[int] | None, int | None]], succeeded: list[int]) -> bool:
    """Whether any rule is met by the pods that succeeded (their indexes; a count of them where a
    rule counts any): success_policy.go matchSuccessPolicy for a Job, runningState's minSuccess
    for Volcano."""
    for indexes, count in rules:
        counted = len(succeeded) if indexes is None else len(indexes.intersection(succeeded))
        if counted >= (len(indexes or ()) if count is None else count):
            return True
    return False


def index_set(text, what: str) -> frozenset[int]:
    """An Indexed Job's index list ("0,2-4"), as successPolicy's succeededIndexes writes it."""
    found: set[int] = set()
    for part in str(text).split(","):
        low, sep, high = part.strip().partition("-")
        if not low.isdigit() or (sep and not high.isdigit()):
            raise ExpandError(f"{what}: {text!r} is not a list of indexes such as 0,2-4")
        first, last = int(low), int(high) if sep else int(low)
        if last - first > MAX_PODS:
            last = first + MAX_PODS  # past any pod local runs
        found.update(range(first, last + 1))
    return frozenset(found)


def limit(value, what: str) -> int | None:
    """A lifecycle count or number of seconds (activeDeadlineSeconds, backoffLimit, maxRetry,
    maxRestarts): None when unset; ExpandError when it is not a whole number >= 0 (the
    apiserver refuses those; validate says so first)."""
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ExpandError(f"{what}: {value!r} is not a whole number >= 0")
    return value


def name_and_namespace(obj: dict) -> tuple[str, str]:
    meta = obj.get("metadata") or {}
    return meta.get("name", ""), meta.get("namespace") or "default"


def new_pod(name, namespace, role, index, finishes, template, hostname, subdomain, **extra) -> Pod:
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
        volumes=list(spec.get("volumes") or []),
        notes=notes,
        **extra,
    )


def add_env(container: dict, *entries: dict) -> None:
    container.setdefault("env", []).extend(entries)


def value_env(name: str, value) -> dict:
    return {"name": name, "value": str(value)}


def field_env(name: str, path: str) -> dict:
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": path}}}


# -- every controller -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Context:
    """What a controller model may need beyond the object: the whole input (a TrainJob's runtime
    may be in it) and the Volcano release (its pods' annotations changed in 1.9; None: the newest
    this tool has, which the Volcano model looks up)."""

    manifests: list[dict]
    volcano_version: tuple[int, int] | None = None


CONTROLLERS = "generator.local.controllers"


def _model(api_version, kind):
    """The controller model that expands an object of this kind into pods (the registry's,
    core/kinds.py: a function of local/controllers/<builder>.py), registry.INPUT for a kind that a
    controller only reads, or None for a kind no controller here runs."""
    entry = registry.lookup(api_version, kind) if isinstance(api_version, str) else None
    if entry is None or entry.local is None:
        return None
    return registry.INPUT if entry.local == registry.INPUT else registry.resolve(CONTROLLERS, entry.local)


def expand(manifests: list[dict], volcano_version: tuple[int, int] | None = None) -> tuple[list[Pod], list[dict]]:
    """(the pods, the Services) of a job's manifests; ExpandError for what no runtime here runs."""
    if not all(isinstance(obj, dict) for obj in manifests):
        raise ExpandError("a manifest is not a mapping")
    ctx = Context(manifests, volcano_version)
    pods, services, config_maps = [], [], {}
    for obj in manifests:
        key = (obj.get("apiVersion"), obj.get("kind"))
        model = _model(*key)
        if callable(model):
            pods += model(obj, ctx)
        elif key == ("v1", "Service"):
            services.append(obj)
        elif key == ("v1", "ConfigMap"):
            config_maps[name_and_namespace(obj)[0]] = dict(obj.get("data") or {})
        elif model is None and obj.get("kind") not in registry.LOCAL_PASSES:
            raise ExpandError(f"{key[0]} {key[1]}: not a kind `local` knows how to run")
    if len(pods) > MAX_PODS:
        raise ExpandError(f"{len(pods)} pods: local mode runs at most {MAX_PODS}")
    for pod in pods:
        for name, data in config_maps.items():
            pod.config_maps.setdefault(name, data)
    if not pods:
        raise ExpandError("the manifests hold no job: nothing to run")
    return pods, services
