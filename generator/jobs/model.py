"""Training jobs from Python: a small typed model of the job description the jsonnet library
renders (libsonnet/paddlejob/), so the Python API, the CLI and jsonnet share one model.

    from generator.jobs.model import TrainingJob, Role, Volume
    job = TrainingJob("resnet", "registry.baidubce.com/paddle-operator/demo-resnet:v1",
                      worker=Role(2, gpu=1), shm=True, command=["python", "train.py"])
    manifests = job.render("volcano")          # validated dicts
    print(job.to_yaml("paddle-operator"))

Every rendered manifest passes `validate` before it is returned; a bad description raises
JobError with a one-line message that names the field.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from generator.core.errors import Error
from generator.core.paths import LIBSONNET, RUNTIMES_FILE
from generator.core.versions import KubeVersion
from generator.jsonnet import engine
from generator.schema.kubernetes import apply_order, newest, require_known

if TYPE_CHECKING:
    from generator.validate import ObjectChecker

RENDER_ENTRY = LIBSONNET / "paddlejob" / "render.jsonnet"


SPEC_ENUMS_FILE = LIBSONNET / "paddlejob" / "generated" / "spec-enums.json"


@functools.cache
def runtime_facts() -> tuple[dict, ...]:
    """Each runtime's entry in libsonnet/paddlejob/runtimes.json, the one list the jsonnet library
    reads too: name, builder, kinds, roleNames, controller. Plain JSON: `job --help` needs no
    jsonnet."""
    return tuple(json.loads(RUNTIMES_FILE.read_text(encoding="utf-8"))["runtimes"])


def runtimes() -> tuple[str, ...]:
    """The runtimes' names, in the order of runtimes.json (the CLI's choices, the docs' columns)."""
    return tuple(r["name"] for r in runtime_facts())


def runtime_projects() -> tuple[str, ...]:
    """The third-party projects whose kinds a runtime writes (runtimes.json's kinds, each kind's
    schema in the registry, core/kinds.py), in the order of runtimes.json: the releases a job is
    rendered for and checked against (`job --NAME-version`)."""
    from generator.core import kinds as registry

    validated = {p.name for p in registry.PROJECTS if p.validated}
    found: list[str] = []
    for runtime in runtime_facts():
        for api_version, kind in runtime["kinds"]:
            entry = registry.lookup(api_version, kind)
            if entry is not None and entry.schema in validated and entry.schema not in found:
                found.append(entry.schema)
    return tuple(found)


@functools.cache
def spec_enums() -> dict[str, list]:
    """spec's enums (cleanPodPolicy, intranet, withGloo), generated from the PaddleJob schema by
    `make manifests` into the job library, which checks against the same file."""
    return json.loads(SPEC_ENUMS_FILE.read_text(encoding="utf-8"))


@functools.cache
def features() -> list[dict]:
    """Each feature with how every runtime that has it expresses it (features.libsonnet)."""
    return engine.evaluate_snippet("(import 'paddlejob/features.libsonnet').features")


def runtimes_with(feature: str) -> list[str]:
    """The runtimes that can express ``feature`` (a name in features.libsonnet)."""
    (found,) = [f for f in features() if f["name"] == feature]
    return [r for r in runtimes() if r in found["how"]]


@functools.cache
def trainer_runtimes() -> list[dict]:
    """The job library's Paddle ClusterTrainingRuntimes (runtimes/trainer.libsonnet), which a
    bundle rendered with trainerRuntimes holds and deploy/trainer/ holds alone."""
    return engine.evaluate_snippet("(import 'paddlejob/main.libsonnet').trainerRuntimes()")


class JobError(Error, ValueError):
    """A job description that cannot be rendered; the message is one line."""


def known_fields(cls):
    """``cls``'s constructor raises JobError, not TypeError, for a keyword it does not know (with
    the nearest known name) and for a missing argument: the Python API's every mistake is a
    JobError, as the library's (lifecycle.libsonnet) and the CLI's are."""
    import difflib
    import inspect

    init = cls.__init__
    signature = inspect.signature(init)
    names = [n for n in signature.parameters if n != "self"]

    @functools.wraps(init)
    def checked(self, *args, **kwargs):
        for given in kwargs:
            if given not in names:
                lower = {n.lower().replace("_", ""): n for n in names}
                close = lower.get(given.lower().replace("_", "")) or next(
                    iter(difflib.get_close_matches(given, names, n=1, cutoff=0.6)), None
                )
                hint = f"; did you mean {close!r}?" if close else ""
                raise JobError(f"{given} is not a field of {cls.__name__}{hint}; the fields are {', '.join(names)}")
        try:
            signature.bind(self, *args, **kwargs)
        except TypeError as err:
            raise JobError(f"{cls.__name__}: {err}") from None
        init(self, *args, **kwargs)

    cls.__init__ = checked
    return cls


@known_fields
@dataclass
class Role:
    replicas: int
    cpu: str | None = None
    memory: str | None = None
    gpu: int = 0
    env: dict[str, str] = field(default_factory=dict)
    template: dict = field(default_factory=dict)  # a pod template to start from
    image: str | None = None
    command: list[str] | None = None
    args: list[str] | None = None


@known_fields
@dataclass
class Volume:
    """One data volume mounted into every Paddle container: set one of pvc, host_path, cephfs."""

    name: str
    mount_path: str
    pvc: str | None = None
    host_path: str | None = None
    cephfs: CephFS | None = None


@known_fields
@dataclass
class CephFS:
    monitors: list[str]
    path: str = "/"
    user: str = "admin"
    secret_name: str = "cephfs-secret"


@known_fields
@dataclass
class Elastic:
    """Elastic collective training through Paddle's launcher (libsonnet/paddlejob/elastic.libsonnet):
    the etcd the launchers meet at (host:port; None: the job's own), the fewest and most workers
    (the most is the worker replicas), the launcher's restarts, level and wait for peers."""

    etcd: str | None = None
    min_replicas: int | None = None
    max_replicas: int | None = None
    level: int | None = None  # Paddle's --elastic_level; the library's default is 1
    max_restart: int | None = None
    timeout: int | None = None


@known_fields
@dataclass
class Volcano:
    queue: str | None = None
    priority_class: str | None = None
    min_available: int | None = None
    min_resources: dict[str, str] | None = None
    pod_group: bool = False


@known_fields
@dataclass
class TrainingJob:
    name: str
    image: str
    worker: Role | None = None
    ps: Role | None = None
    heter: Role | None = None
    namespace: str | None = None
    command: list[str] | None = None
    args: list[str] | None = None
    working_dir: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    clean_pod_policy: str | None = None
    intranet: str | None = None
    with_gloo: int | None = None
    elastic: Elastic | None = None
    volcano: Volcano | None = None
    kueue_queue: str | None = None  # the Kueue LocalQueue (kubeflow, kubeflow-trainer)
    coscheduling: bool = False  # gang-schedule with scheduler-plugins (kubeflow-trainer)
    node_selector: dict[str, str] = field(default_factory=dict)
    tolerations: list[dict] = field(default_factory=list)
    shm: bool | str = False  # True, or a size limit such as "8Gi"
    volumes: list[Volume] = field(default_factory=list)
    port: int | None = None
    # The lifecycle, one vocabulary mapped by each runtime (docs/runtimes.md's feature table)
    ttl: int | None = None  # seconds after the job finishes until it is deleted
    deadline: int | None = None  # seconds the job may be active
    backoff_limit: int | None = None  # retries before the job fails
    suspend: bool = False
    managed_by: str | None = None
    priority_class: str | None = None

    def to_description(self) -> dict:
        """The JSON the jsonnet library takes (docs/jobs.md): camelCase, no empty fields."""
        out = _camel({k: v for k, v in self.__dict__.items() if k not in ("worker", "ps", "heter", "volumes")})
        out["roles"] = {
            name: _camel(role.__dict__) for name in ("ps", "worker", "heter") if (role := getattr(self, name))
        }
        if self.volumes:
            out["volumes"] = [_volume(v) for v in self.volumes]
        return out

    def render(
        self,
        runtime: str = "paddle-operator",
        kube_version: str | KubeVersion | None = None,
        warned: list | None = None,
        releases: dict | None = None,
    ) -> list[dict]:
        """The job's manifests for ``runtime``, validated on ``kube_version`` ("1.30"; default the
        newest release) and ``releases`` of the third-party projects ({"jobset": "0.10"}; default
        the newest of each; "kueue": the Kueue release that queues it); JobError names what is
        wrong. Warnings go to ``warned`` when given."""
        return render_description(self.to_description(), runtime, kube_version, warned, releases)

    def to_yaml(self, runtime: str = "paddle-operator", kube_version: str | KubeVersion | None = None) -> str:
        from generator.kubeyaml.dump import dump_documents

        return dump_documents(self.render(runtime, kube_version))


def _camel(fields: dict) -> dict:
    out = {}
    for key, value in fields.items():
        if value is None or value == {} or value == [] or value is False or (key == "gpu" and value == 0):
            continue
        head, *rest = key.split("_")
        name = head + "".join(part.title() for part in rest)
        if hasattr(value, "__dataclass_fields__"):
            value = _camel(value.__dict__)
        out[name] = value
    return out


def _volume(volume: Volume) -> dict:
    out = {"name": volume.name, "mountPath": volume.mount_path}
    if volume.pvc:
        out["pvc"] = volume.pvc
    if volume.host_path:
        out["hostPath"] = volume.host_path
    if volume.cephfs:
        out["cephfs"] = _camel(volume.cephfs.__dict__)
    return out


def render_description(
    description: dict,
    runtime: str,
    kube_version: str | KubeVersion | None = None,
    warned: list | None = None,
    releases: dict | None = None,
) -> list[dict]:
    """Manifests for a job description, validated like `paddlejob-manifests validate` would on
    ``kube_version`` ("1.30"; default: the newest release this tool knows) and ``releases`` of
    the third-party projects (runtime_projects; the builders map a field per release), once: its
    warnings are added to ``warned`` when given."""
    from generator.schema import projects as thirdparty

    try:
        release = require_known(kube_version) if kube_version is not None else newest()
    except Error as err:  # the Python API raises JobError for every mistake in what it is given
        raise JobError(f"kube_version: {err}") from None
    if runtime not in runtimes():
        raise JobError(f"runtime must be one of {', '.join(runtimes())}, got {runtime!r}")
    projects = runtime_projects()
    chosen = {}
    releases = dict(releases or {})
    kueue = kueue_release(releases.pop("kueue")) if releases.get("kueue") is not None else None
    releases.pop("kueue", None)
    for project, value in releases.items():
        if project not in projects:
            raise JobError(f"releases: no runtime writes kinds of {project!r}; the projects are {', '.join(projects)}")
        try:
            chosen[project] = thirdparty.parse_release(
                project, value if isinstance(value, str) else "{}.{}".format(*value)
            )
        except Error as err:
            raise JobError(f"releases: {project}: {err}") from None
    shown = {p: "{}.{}".format(*(chosen.get(p) or thirdparty.newest(p))) for p in projects}
    # the Kubernetes release too: the library judges feature gates by it (lifecycle.libsonnet)
    shown["kubernetes"] = f"1.{int(release)}"
    try:
        manifests = engine.evaluate(RENDER_ENTRY, {"job": description, "runtime": runtime, "releases": shown})
    except engine.JsonnetError as err:
        raise JobError(jsonnet_message(str(err))) from None
    if kueue is not None:
        _refuse_multikueue_without_adapter(manifests, kueue)
    found = check_manifests(manifests, release, projects=chosen, kueue=kueue) + _job_only_warnings(manifests)
    if warned is not None:
        warned += found
    return manifests


def kueue_releases() -> tuple[str, ...]:
    """The Kueue releases whose integrations this tool has read (schemas/kueue/integrations.json),
    oldest first: what `job --kueue-version` takes."""
    from generator.validate.rules import kueue as kueue_rules

    return kueue_rules.releases()


def kueue_release(value) -> str:
    """A Kueue release ("0.18", or (0, 18)) this tool knows; JobError otherwise."""
    from generator.validate.rules import kueue as kueue_rules

    try:
        return kueue_rules.release(value)
    except ValueError as err:
        raise JobError(f"releases: kueue: {err}") from None


def _refuse_multikueue_without_adapter(manifests: list[dict], release: str) -> None:
    """managedBy kueue.x-k8s.io/multikueue on a kind whose integration Kueue ``release`` does not
    have, or has no MultiKueue adapter for: `job` refuses what `validate` warns of (the same
    verdict, rules/kueue.py multikueue_problem), since it knows the release it renders for."""
    from generator.validate.rules import kueue as kueue_rules

    for obj in manifests:
        if isinstance(obj, dict) and (problem := kueue_rules.multikueue_problem(obj, release)):
            raise JobError(f"{problem}; use a newer --kueue-version, or drop --managed-by")


def _job_only_warnings(manifests: list[dict]) -> list[str]:
    """What `job` warns of in the pods it renders and `validate` does not say of hand-written ones:
    GPUs without a memory-backed /dev/shm (lifecycle.gpu_shm_findings says why)."""
    from generator.validate.output import finding_text
    from generator.validate.rules import lifecycle

    return [
        f"{obj.get('kind')} {(obj.get('metadata') or {}).get('name')}: {finding_text(f)}"
        for obj in manifests
        if isinstance(obj, dict)
        for f in lifecycle.gpu_shm_findings(obj)
    ]


def jsonnet_message(text: str) -> str:
    """The user's part of a jsonnet error: its first line, without the engine's prefix."""
    first = text.strip().splitlines()[0] if text.strip() else "jsonnet failed"
    for prefix in ("runtime error: ", "RUNTIME ERROR: ", "assert failed: ", "Assertion failed. "):
        first = first.removeprefix(prefix)
    return first


def manifests_of(data) -> list:
    """The manifests a jsonnet program gives, as Tanka finds them: a list is kept in its order;
    an object with apiVersion and kind is one manifest; any other object is searched, and what
    it holds is put in the order `kubectl apply -f` needs (namespaces and CRDs first), so the
    library's `paddle.new(...)` ({crd: ..., operator: {...}}) renders as it is."""
    if isinstance(data, list):
        return data
    found: list = []

    def walk(node) -> None:
        if isinstance(node, dict) and ("apiVersion" in node or "kind" in node):
            found.append(node)
        elif isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
        else:
            found.append(node)  # not a manifest: validation says so

    walk(data)
    return sorted(found, key=lambda o: apply_order(o) if isinstance(o, dict) else ())


def check_not_empty(data, manifests: list, name: str) -> None:
    """Raise JobError if a jsonnet program's result (``data``, whose manifests_of is
    ``manifests``) holds no Kubernetes object: null, {}, [], a List without items, or objects
    and arrays holding nothing but those. Rendering nothing is a mistake (a wrong import, a
    forgotten field), not a job; kubectl refuses it too ("no objects passed to apply")."""
    if isinstance(data, dict) and data.get("kind") == "List" and data.get("items") in ([], None):
        what = "a List with no items"
    elif any(manifest is not None for manifest in manifests):
        return
    elif data is None:
        what = "null"
    elif data == {} or data == []:
        what = f"an empty {'object {}' if data == {} else 'array []'}"
    else:
        what = f"{'an object' if isinstance(data, dict) else 'an array'} holding no Kubernetes object"
    raise JobError(
        f"{name}: evaluated to {what}: there is nothing to render; give a Kubernetes object (with apiVersion "
        "and kind), an array of them, a List with items, or an object holding objects (as paddle.new(...) returns)"
    )


def warnings(manifests: list[dict], kube_version: str | KubeVersion | None = None) -> list[str]:
    """What `validate` warns of in ``manifests`` (a job the target may not run as meant), one
    line each: kind, name, field, message and rule id (JobError if one is an error)."""
    return check_manifests(manifests, kube_version)


def check_manifests(
    manifests: list[dict],
    kube_version: str | KubeVersion | None = None,
    name: str = "rendered",
    checker: ObjectChecker | None = None,
    projects: dict | None = None,
    kueue: str | None = None,
) -> list[str]:
    """Check ``manifests`` once, as `validate` would: raise JobError listing every finding at its
    line of the YAML they are written as if one is an error; else return the warnings, one line
    each (kind, name, field, message and rule id). ``kueue``: the Kueue release the queue label and
    MultiKueue are judged by (validate's rules/kueue.py; `validate --kueue-version`)."""
    # The validator is imported here, when a job is checked: `job --help` and the runtime list
    # need none of it.
    from generator.kubeyaml.dump import dump_documents
    from generator.validate import ObjectChecker, Report, across, locate_objects
    from generator.validate.output import FORMATS, finding_text

    checker = checker or ObjectChecker(kube_version or newest(), projects=projects or None, kueue=kueue)
    problems = [(i, obj, f) for i, obj in enumerate(manifests) for f in checker.check(obj)]
    # and the verdicts across them (a gang no pod joins, servers that outlive their trainers)
    problems += [(i, manifests[i], f) for i, f in across.check(manifests, checker.minor)]
    problems.sort(key=lambda item: item[0])
    if any(f.is_error for _, _, f in problems):
        report = Report()  # lines and columns only when there is something to report
        report.documents = len(manifests)
        for item in locate_objects(name, dump_documents(manifests), problems):
            report.add(item)
        raise JobError("the rendered manifests do not validate:\n" + FORMATS["text"](report))
    return [f"{obj.get('kind')} {(obj.get('metadata') or {}).get('name')}: {finding_text(f)}" for _, obj, f in problems]
