"""Issue 33, cases 4, 8, 10 and 11: what a pull request plants is never run, and input never
costs the tool more than its limits or tells it what lies outside the folders it may read.

- `local --explain` runs nothing (no `python -c "import etcd3"`, no `nvidia-smi`, no port tried):
  the notes say what a run checks instead; a run's probes are an isolated Python (`-I`) in an
  empty folder and executables from PATH's absolute entries only (case 4);
- an etcd port out of range is a usage error naming file, pod, container and field (case 8);
- the jsonnet sandbox's parent reads the child's answers bounded: a huge result, error or trace
  costs it no more than the limits (case 10);
- an import outside the allowed folders gets one message whatever is there (case 11).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from generator.jsonnet import sandbox
from generator.local import etcd, resources

from .conftest import REPO

PLANT = "import pathlib; pathlib.Path({marker!r}).write_text('ran')\n"

ETCD_JOB = """\
apiVersion: v1
kind: Service
metadata: {name: el-etcd, labels: {paddle-etcd: el}}
spec:
  selector: {paddle-etcd: el}
  ports: [{name: client, port: 2379, targetPort: 2379}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: el-etcd, labels: {paddle-etcd: el}}
spec:
  serviceName: el-etcd
  replicas: 1
  selector: {matchLabels: {paddle-etcd: el}}
  template:
    metadata: {labels: {paddle-etcd: el}}
    spec:
      containers:
      - name: etcd
        image: quay.io/coreos/etcd:v3.5.17
        command: [etcd, --name=etcd, --data-dir=/var/run/etcd/data, LISTEN]
        ARGS
        ports: [{name: client, containerPort: 2379}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: el-worker}
spec:
  completionMode: Indexed
  completions: 2
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: paddle
        image: registry.baidubce.com/paddlepaddle/paddle:3.3.1
        command: [python, -m, paddle.distributed.launch, train.py]
        env:
        - {name: PADDLE_MASTER, value: "etcd://el-etcd:2379"}
        - {name: PADDLE_NNODES, value: "1:2"}
"""

GPU_JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: gpu}
spec:
  completionMode: Indexed
  completions: 2
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        command: [sh, -c, "echo $CUDA_VISIBLE_DEVICES"]
        resources: {limits: {nvidia.com/gpu: 2}}
"""


def etcd_job(listen: str = '"--listen-client-urls=http://0.0.0.0:2379"', args: str = "") -> str:
    return ETCD_JOB.replace("LISTEN", listen).replace("ARGS", args)


def local(cwd: Path, *argv: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """`local` as a CI job starts it in the pull request's checkout: the installed tool, isolated."""
    return subprocess.run(
        [sys.executable, "-I", "-m", "generator", "local", *argv],
        capture_output=True, text=True, cwd=cwd, timeout=120, env=env,
    )  # fmt: skip


def plant_script(path: Path, marker: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho ran > {marker}\necho 'GPU 0: planted'\n")
    path.chmod(0o755)


# -- case 4: `local --explain` runs nothing; a run's probes are isolated ----------------------------


def test_explain_imports_no_etcd3_module_from_the_checkout(tmp_path):
    """`--explain` of a job whose launcher meets in etcd once ran `python -c "import etcd3"` in the
    caller's folder: the checkout's etcd3.py ran. It runs no probe now and says what a run checks."""
    marker = tmp_path / "planted-ran"
    (tmp_path / "etcd3.py").write_text(PLANT.format(marker=str(marker)))
    (tmp_path / "job.yaml").write_text(etcd_job())
    env = {**os.environ, "PYTHONPATH": "."}  # what a careless CI sets: the probe's Python must not take it
    done = local(tmp_path, "--explain", "--workdir", str(tmp_path), "job.yaml", env=env)
    assert done.returncode == 0, done.stderr
    assert not marker.exists(), "the checkout's etcd3.py ran"
    assert done.stdout.count("a run first checks that") == 2  # each pod whose launcher needs the client
    assert "--explain runs nothing, so this is not checked" in done.stdout
    assert "(--explain tries no port)" in done.stdout
    assert f"{etcd.PURE_PROTOBUF[0]}=" not in done.stdout.replace(f"with {etcd.PURE_PROTOBUF[0]}=", "")


def test_explain_runs_no_nvidia_smi_from_any_path_entry(tmp_path):
    """`PATH=bin:...` once ran the checkout's bin/nvidia-smi; `--explain` runs none at all now (an
    absolute entry's neither) and shows each pod the devices it would get, saying so."""
    markers = [tmp_path / "relative-ran", tmp_path / "absolute-ran"]
    plant_script(tmp_path / "bin" / "nvidia-smi", markers[0])
    plant_script(tmp_path / "abs" / "nvidia-smi", markers[1])
    (tmp_path / "job.yaml").write_text(GPU_JOB)
    env = {k: v for k, v in os.environ.items() if k != "CUDA_VISIBLE_DEVICES"}
    env["PATH"] = f"bin:{tmp_path / 'abs'}:{os.environ['PATH']}"
    done = local(tmp_path, "--explain", "--workdir", str(tmp_path), "job.yaml", env=env)
    assert done.returncode == 0, done.stderr
    assert [m.name for m in markers if m.exists()] == []
    assert "CUDA_VISIBLE_DEVICES=0,1" in done.stdout and "CUDA_VISIBLE_DEVICES=2,3" in done.stdout
    assert done.stdout.count("as on a machine with exactly the 4 GPUs the job asks for") == 2
    assert "not as on a cluster" not in done.stdout  # not refused for GPUs --explain did not look for


def test_a_runs_etcd3_probe_is_isolated_in_an_empty_folder(tmp_path, monkeypatch):
    """The probe `local` runs before a job that needs etcd3: the caller's folder, a relative
    PYTHONPATH entry and a relative PATH entry are never reached; absolute PYTHONPATH entries are,
    as in the pods."""
    marker = tmp_path / "planted-ran"
    (tmp_path / "etcd3.py").write_text(PLANT.format(marker=str(marker)))  # the caller's folder
    (tmp_path / "rel").mkdir()
    (tmp_path / "rel" / "etcd3.py").write_text(PLANT.format(marker=str(marker)))  # a relative PYTHONPATH entry
    fine = tmp_path / "abs"
    fine.mkdir()
    (fine / "etcd3.py").write_text("")  # an absolute entry: the pods import it, so does the probe
    monkeypatch.chdir(tmp_path)
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": f"rel:{fine}"}
    assert etcd.client_env(sys.executable, env) == ({}, "")
    assert not marker.exists(), "a planted etcd3.py ran"
    plant_script(tmp_path / "bin" / "planted-python", marker)
    extra, why = etcd.client_env("planted-python", {"PATH": f"bin:{fine}"})
    assert extra is None and "is not on PATH" in why
    assert not marker.exists(), "a Python found through a relative PATH entry ran"


def test_a_runs_nvidia_smi_comes_from_absolute_path_entries_only(tmp_path, monkeypatch):
    marker = tmp_path / "planted-ran"
    plant_script(tmp_path / "bin" / "nvidia-smi", marker)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", f"bin::.:{tmp_path / 'none'}")
    assert resources.machine_gpus({}) == ([], "no nvidia-smi and no CUDA_VISIBLE_DEVICES")
    assert not marker.exists(), "the checkout's bin/nvidia-smi ran"
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))  # an absolute entry: the machine's own
    assert resources.machine_gpus({}) == (["0"], "nvidia-smi -L")


# -- case 8: an etcd port out of range is the input's error ------------------------------------------


@pytest.mark.parametrize(
    "listen, args, field, shown",
    [
        ('"--listen-client-urls=http://0.0.0.0:65536"', "", "command[3]", "port 65536"),
        ('"--listen-client-urls=http://0.0.0.0:0"', "", "command[3]", "port 0"),
        ('"--listen-client-urls=http://0.0.0.0:' + "9" * 5000 + '"', "", "command[3]", "(5000 digits)"),
        ("--listen-peer-urls=http://0.0.0.0:2380", 'args: [--listen-client-urls, "http://[::]:70000"]', "args[1]",
         "port 70000"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("explain", [True, False])
def test_an_etcd_port_out_of_range_is_a_usage_error(tmp_path, listen, args, field, shown, explain):
    (tmp_path / "job.yaml").write_text(etcd_job(listen, args))
    flags = ["--explain"] if explain else ["--timeout", "30"]
    done = local(REPO, *flags, "--workdir", str(tmp_path), str(tmp_path / "job.yaml"))
    assert done.returncode == 2, done.stderr
    assert f"{tmp_path / 'job.yaml'}: pod el-etcd-0: container 'etcd': {field}: --listen-client-urls " in done.stderr
    assert f"{shown} is not a port (1-65535)" in done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr) < 1000 and done.stdout == ""


# -- case 10: the sandbox's parent reads bounded ----------------------------------------------------

_PARENT_PEAK = """\
import sys
from pathlib import Path
from generator.jsonnet import sandbox
try:
    sandbox.evaluate_files([Path(sys.argv[1])])
    print("evaluated")
except sandbox.SandboxError as err:
    print(len(str(err)), str(err)[-200:].replace("\\n", " "))
# /proc's VmHWM (kB): this program's own peak. getrusage's ru_maxrss survives exec, so it would
# count the pages of the forked pytest this program was started from (hundreds of MB in a long run)
print(next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:")))
"""


@pytest.mark.parametrize(
    "program, said",
    [
        ("std.repeat('x', 100000000)", "the output is larger than 16,777,216 bytes"),
        ("error std.repeat('x', 60000000)", "characters more)"),
    ],
)
def test_the_parent_holds_no_more_than_the_limits_of_a_huge_result(tmp_path, program, said):
    """The parent once read the child's whole answer (and error output) before checking the 16 MiB
    limit: about 0.9 GB for `std.repeat('x', 300000000)`, beside the child's own. Its peak (its own,
    not the child's) stays far below that now."""
    (tmp_path / "job.jsonnet").write_text(program)
    done = subprocess.run(
        [sys.executable, "-c", _PARENT_PEAK, str(tmp_path / "job.jsonnet")],
        capture_output=True, text=True, cwd=REPO, timeout=180,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    message, peak = done.stdout.rsplit("\n", 2)[-3:-1]
    assert said in message and int(message.split()[0]) < 20_000, message  # the message's length first
    assert int(peak) < 120 * 1024, f"the parent peaked at {int(peak) // 1024} MB"


def test_a_huge_trace_costs_the_parent_nothing_and_results_still_arrive_whole(tmp_path):
    """std.trace writes to the child's error output, which the parent once read whole; it keeps its
    last 16 KiB now. Within the limits nothing changes: several files, non-ASCII text (a
    surrogate pair too), and the first error."""
    (tmp_path / "job.jsonnet").write_text("std.trace(std.repeat('x', 60000000), {})")
    done = subprocess.run(
        [sys.executable, "-c", _PARENT_PEAK, str(tmp_path / "job.jsonnet")],
        capture_output=True, text=True, cwd=REPO, timeout=180,
    )  # fmt: skip
    message, peak = done.stdout.rsplit("\n", 2)[-3:-1]
    assert message == "evaluated" and int(peak) < 120 * 1024, (message, int(peak) // 1024)
    (tmp_path / "a.jsonnet").write_text("{ a: 'é\\u2028\\ud83d\\ude00', n: [1, 2.5, null] }")
    (tmp_path / "b.jsonnet").write_text("std.repeat('y', 1000000)")
    (tmp_path / "c.jsonnet").write_text("error 'no'")
    paths = [tmp_path / "a.jsonnet", tmp_path / "b.jsonnet"]
    assert sandbox.evaluate_files(paths) == [
        {"a": "é\u2028\U0001f600", "n": [1, 2.5, None]},
        "y" * 1000000,
    ]
    with pytest.raises(sandbox.SandboxError, match=r"c\.jsonnet: jsonnet failed:\n.*no"):
        sandbox.evaluate_files([*paths, tmp_path / "c.jsonnet"])


# -- case 11: one message for every import outside -------------------------------------------------


def _import_error(job: Path, target: str) -> str:
    (job / "job.jsonnet").write_text(f"importstr '{target}'")
    with pytest.raises(sandbox.SandboxError) as raised:
        sandbox.evaluate_files([job / "job.jsonnet"])
    return str(raised.value).replace(repr(target), "TARGET")


def test_an_import_outside_says_the_same_whatever_is_there(tmp_path):
    """`/etc/shadow` said "outside ..." and a missing file "not found", and a link's message named
    where it points: a pull request could map the CI machine. Every path outside the allowed
    folders now gets one message, naming only the import as written."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.libsonnet").write_text("'s'")
    job = tmp_path / "job"
    job.mkdir()
    (job / "to-file").symlink_to(outside / "secret.libsonnet")
    (job / "to-nothing").symlink_to(outside / "missing.libsonnet")
    (job / "to-folder").symlink_to(outside)
    (job / "loop").symlink_to(job / "loop")
    targets = [
        str(outside / "secret.libsonnet"),  # a file
        str(outside / "missing.libsonnet"),  # nothing
        str(outside),  # a folder
        "/etc/shadow",
        "/nonexistent/x",
        "../outside/secret.libsonnet",
        "../outside/missing.libsonnet",
        "to-file",
        "to-nothing",
        "to-folder/secret.libsonnet",
        "to-folder/missing.libsonnet",
        "loop",
    ]
    messages = {target: _import_error(job, target) for target in targets}
    assert len(set(messages.values())) == 1, messages
    (message,) = set(messages.values())
    assert "outside the file's folder, the library and -J folders" in message
    assert "secret" not in message and str(outside) not in message
    # inside the allowed folders, a missing file is still said to be missing
    assert "TARGET: file not found" in _import_error(job, "missing.libsonnet")


def test_a_job_file_linked_out_says_the_same_wherever_it_points(tmp_path):
    """An examples/ entry that links out of its folder: refused with one message, whether its
    target exists or not, naming neither."""
    (tmp_path / "secret.jsonnet").write_text("{}")
    job = tmp_path / "job"
    job.mkdir()
    (job / "a.jsonnet").symlink_to(tmp_path / "secret.jsonnet")
    (job / "b.jsonnet").symlink_to(tmp_path / "missing.jsonnet")
    messages = []
    for name in ("a.jsonnet", "b.jsonnet"):
        with pytest.raises(sandbox.SourceRefused) as raised:
            sandbox.evaluate_files([job / name])
        messages.append(str(raised.value).replace(name, "NAME"))
    assert messages[0] == messages[1] and "a symbolic link out of its own folder" in messages[0]
    assert "secret" not in messages[0] and "missing" not in messages[0]
