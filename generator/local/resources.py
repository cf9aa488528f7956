"""What a node gives a pod besides its process: GPUs and volumes, and where `local` cannot.

GPUs, as NVIDIA's device plugin gives them (k8s-device-plugin: the kubelet's device manager
allocates `nvidia.com/gpu` devices to a container by its limit, each device to one container
only, and the plugin's Allocate response makes exactly those visible in it): here pod after pod,
in order, takes the next devices of this machine, by its container's nvidia.com/gpu limit, and
gets them as CUDA_VISIBLE_DEVICES; on a machine with GPUs, a pod without that limit gets
CUDA_VISIBLE_DEVICES empty (a container without the limit sees no GPU). On a machine without
GPUs such a pod's CUDA_VISIBLE_DEVICES stays unset, as in a container without devices: Paddle's
launcher takes a set CUDA_VISIBLE_DEVICES, even empty, for GPU mode (launch/context/device.py
Device.parse_device, 3.3.1) and would not choose gloo. This machine's GPUs are
CUDA_VISIBLE_DEVICES when set, else those `nvidia-smi -L` lists, else none (no driver: never an
error); `nvidia-smi` is looked for on PATH's absolute entries only (never a checkout's
`bin/nvidia-smi` through a relative entry) and run in an empty temporary folder. `--explain` runs
nothing: without CUDA_VISIBLE_DEVICES it shows each pod the devices it would get on a machine with
exactly the GPUs the job asks for, and says so (unprobed_gpus).

A job that asks for more GPUs than this machine has would not run as on a cluster: `local`
refuses it before anything starts, unless the user allows CPU (``allow_cpu``); then every pod
runs on CPU (a collective job cannot mix GPU and CPU ranks) and the verdict says so: the job is
not Completed as on a cluster.

Volumes: without a mount namespace, a pod here sees this machine's file system. So `local`
provides a hostPath volume mounted at its own path (the container sees what this machine has
there), and an emptyDir whose mountPath is a writable folder here (/dev/shm for --shm, /tmp):
nothing else. Every other volume a container mounts (persistentVolumeClaim, cephfs, nfs,
configMap, secret, ...), a hostPath mounted elsewhere, or an emptyDir at a path this machine
lacks, is named: the pod runs without it, and the verdict is not a green Completed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile

GPU = "nvidia.com/gpu"
VISIBLE = "CUDA_VISIBLE_DEVICES"
_SMI_LINE = re.compile(r"^GPU (\d+):")


def absolute_path(value: str) -> str:
    """A PATH value with only its absolute entries: a relative one ("bin", "", ".") names a folder
    under wherever a process stands, such as a checkout's own `bin/`."""
    return os.pathsep.join(p for p in value.split(os.pathsep) if os.path.isabs(p))


def probe(argv: list[str], timeout: float, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``argv`` run to check this machine, in an empty temporary folder (nothing of the caller's
    folder or the job's is beside it), with no input; its text output kept. OSError and
    SubprocessError are the caller's to say."""
    with tempfile.TemporaryDirectory(prefix="paddlejob-local-probe-") as empty:
        return subprocess.run(
            argv,
            env=env,
            cwd=empty,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            check=False,
        )


# A probe's code prefix: the pods' Python isolated (-I ignores PYTHONPATH), with the absolute
# entries of the PYTHONPATH the pods get put back where Python puts them (before the standard library)
PYTHONPATH_BACK = (
    "import os, sys\n"
    "sys.path[0:0] = [p for p in os.environ.get('PYTHONPATH', '').split(os.pathsep) if os.path.isabs(p)]\n"
)


def probe_python(python: str, code: str, env: dict[str, str]) -> tuple[subprocess.CompletedProcess | None, str]:
    """``code`` (after PYTHONPATH_BACK) run by the pods' Python, ``python -I`` in an empty
    temporary folder, with only PATH's absolute entries (a bare name such as `python3` is looked
    up there): no module of the caller's folder or the job's, and no relative PATH entry, is ever
    reached. (The finished process, ""), or (None, why it did not run)."""
    path = absolute_path(env.get("PATH", ""))
    if os.sep in python:
        found = os.path.abspath(python)
    else:
        found = shutil.which(python, path=path)
        if found is None:
            return None, f"{python} is not on PATH (its absolute entries)"
    try:
        return probe([found, "-I", "-c", PYTHONPATH_BACK + code], timeout=60, env={**env, "PATH": path}), ""
    except (OSError, subprocess.SubprocessError) as err:
        return None, f"{python} does not run: {err}"


def _visible(environ) -> tuple[list[str], str] | None:
    """The GPUs CUDA_VISIBLE_DEVICES names, when it is set."""
    if VISIBLE not in environ:
        return None
    value = environ[VISIBLE].strip()
    # CUDA stops at the first invalid entry; "-1" or "" hide every device
    devices = []
    for entry in value.split(","):
        entry = entry.strip()
        if not entry or entry.startswith("-"):
            break
        devices.append(entry)
    return devices, f"{VISIBLE}={value!r}"


def machine_gpus(environ=None) -> tuple[list[str], str]:
    """(this machine's GPUs as CUDA_VISIBLE_DEVICES names them, where that came from). Never
    raises: a machine without a driver has none."""
    environ = os.environ if environ is None else environ
    visible = _visible(environ)
    if visible is not None:
        return visible
    smi = shutil.which("nvidia-smi", path=absolute_path(os.environ.get("PATH", os.defpath)))
    if smi is None:
        return [], "no nvidia-smi and no CUDA_VISIBLE_DEVICES"
    try:
        done = probe([smi, "-L"], timeout=20)
    except (OSError, subprocess.SubprocessError) as err:
        return [], f"nvidia-smi -L failed: {err}"
    if done.returncode != 0:
        return [], f"nvidia-smi -L exited with {done.returncode}"
    found = [m.group(1) for line in done.stdout.splitlines() if (m := _SMI_LINE.match(line.strip()))]
    return found, "nvidia-smi -L"


def unprobed_gpus(pods: list[tuple[str, dict]], environ=None) -> tuple[list[str], dict[str, str]]:
    """--explain's stand-in for machine_gpus, which runs nothing: CUDA_VISIBLE_DEVICES when set,
    else as many devices as the pods ask for (``pods``: name and container), numbered from 0, and
    for each pod that asks for some, a note that says so and what a run checks instead."""
    environ = os.environ if environ is None else environ
    visible = _visible(environ)
    if visible is not None:
        return visible[0], {}
    asked = {}
    for name, container in pods:
        try:
            asked[name] = gpu_limit(container, name)
        except ValueError:
            asked[name] = 0  # the plan says why
    total = sum(asked.values())
    note = (
        f"{VISIBLE} as on a machine with exactly the {total} GPUs the job asks for: --explain runs nothing, "
        f"so it does not look for this machine's; a run takes {VISIBLE} when set, else runs `nvidia-smi -L` "
        "(from PATH's absolute entries), and refuses the job where there are fewer (unless --allow-cpu)"
    )
    return [str(i) for i in range(total)], {name: note for name, n in asked.items() if n}


def gpu_limit(container: dict, pod_name: str) -> int:
    """The container's nvidia.com/gpu limit (the device plugin allocates by it; a request must
    equal it, which validate checks). 0 when absent."""
    limits = (container.get("resources") or {}).get("limits") or {}
    value = limits.get(GPU)
    if value is None:
        return 0
    try:
        count = int(str(value))
    except ValueError:
        count = -1
    if count < 0:
        raise ValueError(f"pod {pod_name}: resources.limits[{GPU!r}] is {value!r}, not a whole number of devices")
    return count


def assign_gpus(
    requests: list[tuple[str, int]], devices: list[str], allow_cpu: bool
) -> tuple[dict[str, str], list[str], bool]:
    """(pod name -> CUDA_VISIBLE_DEVICES, the differences from a cluster, whether the job may not
    start). Pods take devices in order, as many as their limit."""
    wanted = sum(n for _, n in requests)
    if wanted <= len(devices):
        visible, at = {}, 0
        for name, n in requests:
            visible[name] = ",".join(devices[at : at + n])
            at += n
        return visible, [], False
    asking = ", ".join(f"{name} {n}" for name, n in requests if n)
    have = f"this machine has {len(devices)}" + (f" ({','.join(devices)})" if devices else "")
    if not allow_cpu:
        why = (
            f"the job asks for {wanted} GPUs ({GPU} limits: {asking}) and {have}: on a cluster its pods would wait "
            "(Pending) for nodes with them; run it where the GPUs are, or pass --allow-cpu to run every pod on CPU "
            "here (the verdict then says it was not as on a cluster)"
        )
        return {}, [why], True
    why = f"every pod ran on CPU: the job asks for {wanted} GPUs ({GPU} limits: {asking}) and {have}"
    return {name: "" for name, _ in requests}, [why], False


def missing_volumes(pod_name: str, spec_volumes: list, container: dict) -> list[str]:
    """What this pod's container mounts that `local` does not provide, one sentence each."""
    volumes = {v.get("name"): v for v in spec_volumes or [] if isinstance(v, dict)}
    missing = []
    for mount in container.get("volumeMounts") or []:
        if not isinstance(mount, dict):
            continue
        name, path = mount.get("name"), str(mount.get("mountPath") or "")
        volume = volumes.get(name) or {}
        kinds = [k for k in volume if k != "name"]
        kind = kinds[0] if kinds else "(no source)"
        if kind == "hostPath":
            source = os.path.normpath(str((volume.get("hostPath") or {}).get("path") or ""))
            if source == os.path.normpath(path) and os.path.exists(source):
                continue
            where = "does not exist here" if not os.path.exists(source) else f"is not at {path} here"
            missing.append(
                f"pod {pod_name}: volume {name} (hostPath {source}) mounted at {path}: this machine's {source} {where} "
                "(local mode has no mount namespace: a pod sees this machine's folders at their own paths)"
            )
        elif kind == "emptyDir":
            if os.path.isdir(path) and os.access(path, os.W_OK | os.X_OK):
                continue
            missing.append(
                f"pod {pod_name}: volume {name} (emptyDir) mounted at {path}: no writable folder {path} on this "
                "machine (local mode has no mount namespace and writes nothing outside --workdir)"
            )
        else:
            missing.append(f"pod {pod_name}: volume {name} ({kind}) mounted at {path} is not provided by local mode")
    return missing
