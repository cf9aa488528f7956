"""From an existing job to the job model: the legacy paddlepaddle.org/v1 PaddleJob, or a
batch.paddlepaddle.org/v1 PaddleJob (to move it to another runtime).

Each conversion returns notes: one line for every field mapped and every field that could
not be, with why, so nothing is dropped silently.
"""

from __future__ import annotations

import copy

from generator.core import kinds as registry
from generator.core.errors import Error
from generator.jobs.model import Elastic, Role, TrainingJob, Volcano, runtimes_with
from generator.schema import kubernetes
from generator.validate.checker import ObjectChecker
from generator.validate.output import finding_text


class ConvertError(Error, ValueError):
    pass


def to_job(doc) -> tuple[TrainingJob, list[str]]:
    if not isinstance(doc, dict):
        raise ConvertError("the document is not a Kubernetes object")
    key = (doc.get("apiVersion"), doc.get("kind"))
    function = registry.CONVERTS.get(key)  # the jobs convert reads: the registry's (core/kinds.py)
    if function is None:
        kinds = {kind for _, kind in registry.CONVERTS}
        apis = " and ".join(api for api, _ in registry.CONVERTS)
        known = f"{apis} {kinds.pop()}s" if len(kinds) == 1 else " and ".join(f"{a} {k}s" for a, k in registry.CONVERTS)
        raise ConvertError(f"{key[0]} {key[1]} is not a job this command reads; it converts {known}")
    if key not in registry.LEGACY:
        _require_valid(doc)
    return globals()[function](doc)


def _require_valid(doc: dict) -> None:
    """Only a PaddleJob that validates is converted: its shapes are then the schema's."""
    errors = [f for f in ObjectChecker(kubernetes.newest()).check(doc) if f.is_error]
    if errors:
        shown = "; ".join(finding_text(f) for f in errors[:3])
        more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
        raise ConvertError(
            f"the PaddleJob does not validate, so it cannot be converted: {shown}{more}; "
            "run `paddlejob-manifests validate` on it"
        )


def _meta(doc: dict) -> tuple[str, str | None]:
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        raise ConvertError("metadata.name is required")
    return name, meta.get("namespace")


def _container(resources) -> dict:
    return {"spec": {"containers": [{"name": "paddle", "resources": resources}]}} if resources else {}


def from_legacy(doc: dict) -> tuple[TrainingJob, list[str]]:
    """The fluid-era API: image, port, ports_num, mountPath, pserver and trainer min/max-instance."""
    name, namespace = _meta(doc)
    spec = doc.get("spec") if isinstance(doc.get("spec"), dict) else {}
    notes = []
    done = set()

    def mapped(field: str, target: str) -> None:
        done.add(field)
        notes.append(f"mapped spec.{field} -> {target}")

    def unmapped(field: str, why: str) -> None:
        done.add(field)
        notes.append(f"not mapped: spec.{field}: {why}")

    image = spec.get("image")
    if not isinstance(image, str) or not image:
        raise ConvertError("spec.image is required")
    mapped("image", "the image of every role")
    pserver = spec.get("pserver") if isinstance(spec.get("pserver"), dict) else {}
    trainer = spec.get("trainer") if isinstance(spec.get("trainer"), dict) else {}
    ps_count = pserver.get("min-instance", pserver.get("max-instance"))
    workers = trainer.get("min-instance", trainer.get("max-instance"))
    if not isinstance(workers, int) or workers < 1:
        raise ConvertError("spec.trainer.min-instance must be a whole number >= 1")
    ps = None
    if isinstance(ps_count, int) and ps_count >= 1:
        ps = Role(ps_count, template=_container(pserver.get("resources")))
        mapped("pserver.min-instance", f"ps.replicas ({ps_count})")
        if pserver.get("resources"):
            mapped("pserver.resources", "ps template containers[0].resources")
        if pserver.get("max-instance", ps_count) != ps_count:
            unmapped("pserver.max-instance", "parameter servers do not scale in batch.paddlepaddle.org/v1")
    done.add("pserver")
    worker = Role(workers, template=_container(trainer.get("resources")))
    mapped("trainer.min-instance", f"worker.replicas ({workers})")
    if trainer.get("resources"):
        mapped("trainer.resources", "worker template containers[0].resources")
    most = trainer.get("max-instance", workers)
    if most != workers:
        unmapped(
            "trainer.max-instance",
            f"{most} trainers at most needs elastic training with an etcd endpoint: write the job with "
            f"`paddlejob-manifests job ... --elastic --etcd HOST:PORT --max-workers {most}`",
        )
    command = None
    if trainer.get("entrypoint"):
        command = ["sh", "-c", str(trainer["entrypoint"])]
        mapped("trainer.entrypoint", "command: sh -c ENTRYPOINT (every role runs it, as before)")
    env = {}
    if trainer.get("passes") is not None:
        env["PASSES"] = str(trainer["passes"])
        mapped("trainer.passes", "env PASSES")
    working_dir = trainer.get("workspace")
    if working_dir:
        mapped("trainer.workspace", "workingDir")
    done.add("trainer")
    port = spec.get("port")
    if port is not None:
        mapped("port", "port (the endpoints on volcano and kubernetes, the master port on kubeflow)")
    for field in ("ports_num", "ports_num_for_sparse"):
        if field in spec:
            unmapped(field, "the operator gives each pod its port; several ports per server were a fluid-era setting")
    if "mountPath" in spec:
        unmapped(
            "mountPath",
            "the legacy spec names no volume source; add the data with --pvc CLAIM:PATH or --host-path HOST:PATH",
        )
    for field in sorted(set(spec) - done - {"port"}):
        unmapped(field, "unknown to the legacy API as documented")
    job = TrainingJob(
        name=name,
        image=image,
        namespace=namespace,
        ps=ps,
        worker=worker,
        command=command,
        env=env,
        working_dir=working_dir,
        port=port if isinstance(port, int) else None,
    )
    return job, notes


def from_paddlejob(doc: dict) -> tuple[TrainingJob, list[str]]:
    """A batch.paddlepaddle.org/v1 PaddleJob, its pod templates kept as the roles' starting point."""
    name, namespace = _meta(doc)
    spec = doc.get("spec") if isinstance(doc.get("spec"), dict) else {}
    roles, notes, image = {}, [], None
    for role in ("ps", "worker", "heter"):
        rs = spec.get(role)
        if not isinstance(rs, dict):
            continue
        template = copy.deepcopy(rs.get("template") or {})
        containers = (template.get("spec") or {}).get("containers") or [{}]
        image = image or containers[0].get("image")
        roles[role] = Role(rs.get("replicas", 1), template=template, image=containers[0].get("image"))
        notes.append(f"mapped spec.{role} -> {role} (its pod template as it is)")
    if not image:
        raise ConvertError("no role has a container image")
    elastic = _launcher_elastic(roles.get("worker"), name)
    if elastic is not None:
        notes.append("mapped the workers' PADDLE_MASTER=etcd://..., PADDLE_NNODES, ... -> elastic")
    elif spec.get("elastic"):
        env = _paddle_env(roles["worker"]) if "worker" in roles else {}
        worker = spec.get("worker") or {}
        most = worker.get("limits") if isinstance(worker.get("limits"), int) else None
        if most is not None and "worker" in roles:
            roles["worker"].replicas = most  # every runtime creates the most workers
        elastic = Elastic(env.get("PADDLE_ELASTIC_SERVER"), worker.get("requests"), most)
        notes.append(
            "mapped spec.elastic, worker.requests/limits -> elastic through Paddle's launcher with an etcd master "
            "(the operator's own elastic mode needs a launcher older than 2.3); worker replicas = limits"
        )
    policy = spec.get("schedulingPolicy")
    volcano = None
    if isinstance(policy, dict):
        volcano = Volcano(
            policy.get("queue"), policy.get("priorityClass"), policy.get("minAvailable"), policy.get("minResources")
        )
        notes.append("mapped spec.schedulingPolicy -> Volcano gang scheduling")
    for field in ("cleanPodPolicy", "intranet", "withGloo"):
        if field in spec:
            notes.append(f"mapped spec.{field} -> {field}")
    for field in sorted(
        set(spec) - {"ps", "worker", "heter", "elastic", "schedulingPolicy", "cleanPodPolicy", "intranet", "withGloo"}
    ):
        notes.append(f"not mapped: spec.{field}: no counterpart on the other runtimes")
    job = TrainingJob(
        name=name,
        image=image,
        namespace=namespace,
        clean_pod_policy=spec.get("cleanPodPolicy"),
        intranet=spec.get("intranet"),
        with_gloo=spec.get("withGloo"),
        elastic=elastic,
        volcano=volcano,
        **roles,
    )
    return job, notes


# The launcher's elastic settings (libsonnet/paddlejob/elastic.libsonnet writes them)
_ELASTIC_ENV = {
    "PADDLE_MASTER",
    "PADDLE_NNODES",
    "PADDLE_JOB_ID",
    "PADDLE_ELASTIC_LEVEL",
    "PADDLE_MAX_RESTART",
    "PADDLE_ELASTIC_TIMEOUT",
    "PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION",
}
# The shell an elastic paddle-operator worker starts through (elastic.libsonnet `unsetting`)
_UNSETTING = ["sh", "-c", 'unset PADDLE_TRAINER_ENDPOINTS PADDLE_TRAINER_ID; exec "$0" "$@"']


def _launcher_elastic(worker: Role | None, name: str) -> Elastic | None:
    """The Elastic of a worker template that runs Paddle's launcher with an etcd master (as this
    library renders it), its settings taken out of the template's environment; else None."""
    if worker is None:
        return None
    env = _paddle_env(worker)
    master, nodes = env.get("PADDLE_MASTER"), env.get("PADDLE_NNODES")
    if not (isinstance(master, str) and master.startswith("etcd://") and isinstance(nodes, str)):
        return None
    fewest, _, most = nodes.partition(":")
    if not (fewest.isdigit() and (most or fewest).isdigit()):
        return None

    def number(key: str) -> int | None:
        value = env.get(key)
        return int(value) if isinstance(value, str) and value.lstrip("-").isdigit() else None

    endpoint = master.removeprefix("etcd://")
    container = worker.template["spec"]["containers"][0]
    container["env"] = [e for e in container["env"] if not (isinstance(e, dict) and e.get("name") in _ELASTIC_ENV)]
    if not container["env"]:
        del container["env"]
    command = container.get("command")
    if isinstance(command, list) and command[:3] == _UNSETTING:
        container["command"] = command[3:]  # the library starts the launcher so again
    if worker.template["spec"].get("restartPolicy") == "OnFailure":
        del worker.template["spec"]["restartPolicy"]  # the library sets it for elastic workers
    return Elastic(
        None if endpoint == f"{name}-etcd:2379" else endpoint,
        int(fewest),
        int(most or fewest),
        number("PADDLE_ELASTIC_LEVEL"),
        number("PADDLE_MAX_RESTART"),
        number("PADDLE_ELASTIC_TIMEOUT"),
    )


def _paddle_env(role: Role) -> dict:
    """The literal environment of a role's Paddle container (containers[0])."""
    containers = (role.template.get("spec") or {}).get("containers") or [{}]
    return {e.get("name"): e.get("value") for e in containers[0].get("env") or [] if isinstance(e, dict)}


def fit_runtime(job: TrainingJob, notes: list[str], runtime: str) -> None:
    """What of ``job`` the target runtime has no field for, left out with a note that says so."""
    if job.port is not None and runtime not in runtimes_with("port"):
        job.port = None
        notes.append(f"not mapped: spec.port: the {runtime} runtime picks the pods' port itself")
