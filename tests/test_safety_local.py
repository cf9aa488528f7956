"""`local` on hostile jobs and work folders: it writes nothing of its own into the work folder
(its state is in a temporary folder, or --state's), follows no link planted in a folder it writes
in, refuses a job's PADDLE_LOG_DIR outside the work folder, it leaves no process behind
when a CI timeout sends SIGTERM or SIGHUP, a pod's leftovers end with the pod, and input no
process can be given ends in a clean error, never a traceback. Pods here are tiny sh scripts:
no Paddle is needed."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import REPO


def job(command: str, pods: int = 1, env: list[dict] | None = None, extra: list[dict] | None = None) -> str:
    """An Indexed Job of ``pods`` pods running ``sh -c command`` (JSON: the text as given)."""
    container = {"name": "c", "image": "busybox", "command": ["sh", "-c", command], "env": env or []}
    spec = {"restartPolicy": "Never", "containers": [container]}
    obj = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "demo"},
        "spec": {"completionMode": "Indexed", "completions": pods, "parallelism": pods, "template": {"spec": spec}},
    }
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": [*(extra or []), obj]})


def local(workdir: Path, stdin: str, *flags: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "generator", "local", "--workdir", str(workdir), "--timeout", "30", *flags, "-"],
        input=stdin, capture_output=True, text=True, cwd=REPO, timeout=timeout,
    )  # fmt: skip


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def wait_until(predicate, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def kill_all(pids) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


# -- nothing written outside the work folder ------------------------------------------------------


def test_a_run_writes_nothing_into_the_work_folder_and_leaves_no_state_behind(tmp_path):
    """The README's promise: local writes into the checkout only what the job's own code writes;
    its state (python shims, Paddle's log folders) is in a temporary folder removed at the end."""
    workdir, tmp = tmp_path / "work", tmp_path / "tmp"
    workdir.mkdir()
    tmp.mkdir()
    (workdir / "train.py").write_text("print('trained')\n")
    text = job('echo "log=$PADDLE_LOG_DIR" && python train.py', pods=2)
    done = subprocess.run(
        [sys.executable, "-m", "generator", "local", "--workdir", str(workdir), "--timeout", "30", "-"],
        input=text, capture_output=True, text=True, cwd=REPO, timeout=60, env={**os.environ, "TMPDIR": str(tmp)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "demo-1 | trained" in done.stdout
    logs = [line.split("log=", 1)[1] for line in done.stdout.splitlines() if "log=" in line]
    assert len(logs) == 2 and all(log.startswith(str(tmp) + "/paddlejob-local-") for log in logs), logs
    assert sorted(p.name for p in workdir.rglob("*") if "__pycache__" not in p.parts) == ["train.py"]
    assert list(tmp.iterdir()) == [], "the state folder is removed"


def test_the_state_folder_asked_for_is_kept_with_each_pods_log_folder(tmp_path):
    workdir, state = tmp_path / "work", tmp_path / "state"
    workdir.mkdir()
    done = local(workdir, job('echo x > "$PADDLE_LOG_DIR/workerlog.0"', pods=2), "--state", str(state))
    assert done.returncode == 0, done.stderr
    assert [p.name for p in workdir.iterdir()] == []
    assert (state / "demo-0" / "log" / "workerlog.0").read_text() == "x\n"
    assert (state / "demo-1" / "log" / "workerlog.0").is_file() and (state / "bin" / "python").is_file()


@pytest.mark.parametrize("link", [".", "bin", "demo-0", "demo-0/log"])
def test_a_planted_link_in_the_state_folder_is_refused_not_written_through(tmp_path, link):
    workdir, outside, state = tmp_path / "work", tmp_path / "outside", tmp_path / "state"
    workdir.mkdir()
    outside.mkdir()
    planted = state if link == "." else state / link
    planted.parent.mkdir(parents=True, exist_ok=True)
    planted.symlink_to(outside)
    done = local(workdir, job("touch ran"), "--state", str(state))
    if link == ".":  # the folder named on the command line is the user's choice, followed as given
        assert done.returncode == 0, done.stderr
        return
    assert done.returncode == 2, done.stderr
    assert f"{planted}: a symbolic link, not a folder" in done.stderr
    assert list(outside.iterdir()) == [], "nothing is written at the link's target"
    assert not (workdir / "ran").exists(), "no pod runs"


@pytest.mark.parametrize("value", ["{outside}/logs", "../outside/logs", "logs/../../outside/logs"])
@pytest.mark.parametrize("source", ["env", "configmap"])
def test_a_log_dir_outside_the_work_folder_is_refused_and_never_made(tmp_path, value, source):
    workdir, outside = tmp_path / "work", tmp_path / "outside"
    workdir.mkdir()
    outside.mkdir()
    value = value.format(outside=outside)
    if source == "env":
        text = job("touch ran", env=[{"name": "PADDLE_LOG_DIR", "value": value}])
    else:
        config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"},
                  "data": {"PADDLE_LOG_DIR": value}}  # fmt: skip
        text = job("touch ran", extra=[config]).replace('"env": []', '"envFrom": [{"configMapRef": {"name": "cfg"}}]')
    done = local(workdir, text)
    assert done.returncode == 2, done.stderr
    assert "pod demo-0: env PADDLE_LOG_DIR (set by the job)" in done.stderr and "outside --workdir" in done.stderr
    assert list(outside.iterdir()) == [] and not (workdir / "ran").exists()
    assert list(workdir.iterdir()) == [], "refused before anything is written"
    # the same path under the work folder is made there, and the job runs
    inside = local(workdir, job("touch ran", env=[{"name": "PADDLE_LOG_DIR", "value": "logs/../mine/logs"}]))
    assert inside.returncode == 0, inside.stderr
    assert (workdir / "mine" / "logs").is_dir() and (workdir / "ran").exists()


# -- no process left behind -----------------------------------------------------------------------

# Each pod writes its pid and that of a child that ignores SIGTERM (as a launcher's worker may),
# then waits: both must be gone once local has been stopped. ($$$$: the kubelet reads $$ as $.)
STUBBORN = ("echo $$$$ > pod-$JOB_COMPLETION_INDEX.tmp && mv pod-$JOB_COMPLETION_INDEX.tmp pod-$JOB_COMPLETION_INDEX; "
            "(trap '' TERM; exec sleep 300) & echo $! > kid-$JOB_COMPLETION_INDEX.tmp && "
            "mv kid-$JOB_COMPLETION_INDEX.tmp kid-$JOB_COMPLETION_INDEX; wait")  # fmt: skip


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_to_local_stops_every_pod_and_what_it_started(tmp_path, signum):
    workdir = tmp_path / "work"
    workdir.mkdir()
    run = subprocess.Popen(
        [sys.executable, "-m", "generator", "local", "--workdir", str(workdir), "-"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
        start_new_session=True,  # a signal for local alone, as a CI runner's timeout sends it
    )  # fmt: skip
    files = [workdir / f"{what}-{i}" for what in ("pod", "kid") for i in range(2)]
    pids: list[int] = []
    try:
        run.stdin.write(job(STUBBORN, pods=2))
        run.stdin.close()
        assert wait_until(lambda: all(f.exists() for f in files), 20), "the pods started"
        pids = [int(f.read_text()) for f in files]
        assert all(alive(pid) for pid in pids)
        run.send_signal(signum)
        code = run.wait(timeout=10)  # SIGTERM at once; the kid ignores it and is killed at the grace's end
        assert code == 128 + signum, run.stderr.read()
        assert f"stopped by {signal.Signals(signum).name}" in run.stderr.read()
        assert wait_until(lambda: not any(alive(pid) for pid in pids), 5), [p for p in pids if alive(p)]
    finally:
        kill_all(pids or [int(t) for f in files if f.exists() and (t := f.read_text().strip()).isdigit()])
        with contextlib.suppress(OSError):
            os.killpg(run.pid, signal.SIGKILL)
        run.wait()


def test_a_process_a_pod_detaches_with_setsid_ends_with_the_run(tmp_path):
    """Out of the pod's process group, it is adopted by local once the pod ends, and ended."""
    workdir = tmp_path / "work"
    workdir.mkdir()
    command = ("echo $$$$ > pod; setsid sh -c 'echo $$$$ > escaped.tmp && mv escaped.tmp escaped; exec sleep 300' "
               "> /dev/null 2>&1 & sleep 300")  # fmt: skip
    run = subprocess.Popen(
        [sys.executable, "-m", "generator", "local", "--workdir", str(workdir), "-"],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=REPO,
        start_new_session=True,
    )  # fmt: skip
    escaped = workdir / "escaped"
    pids: list[int] = []
    try:
        run.stdin.write(job(command))
        run.stdin.close()
        assert wait_until(escaped.exists, 20), "the pod started"
        pids = [int(escaped.read_text())]
        assert alive(pids[0]) and os.getsid(pids[0]) == pids[0], "it left the pod's session"
        run.send_signal(signal.SIGTERM)
        assert run.wait(timeout=10) == 128 + signal.SIGTERM, run.stderr.read()
        assert wait_until(lambda: not alive(pids[0]), 5), "the detached process outlived the run"
    finally:
        kill_all(pids)
        with contextlib.suppress(OSError, ValueError):  # the pod itself, should local have left it
            os.killpg(int((workdir / "pod").read_text()), signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.killpg(run.pid, signal.SIGKILL)
        run.wait()


def test_what_a_pod_leaves_running_ends_with_it(tmp_path):
    """A container ends when its main process exits, and with it every process in it."""
    workdir = tmp_path / "work"
    workdir.mkdir()
    command = "(trap '' TERM; exec sleep 300) > /dev/null 2>&1 & echo $! > kid; exit 0"
    pids: list[int] = []
    try:
        done = local(workdir, job(command), timeout=30)
        pids = [int((workdir / "kid").read_text())]
        assert done.returncode == 0, done.stderr
        assert wait_until(lambda: not alive(pids[0]), 5), "the pod's child outlived the pod"
    finally:
        kill_all(pids)


# -- input no process can be given ---------------------------------------------------------------


def test_a_lone_surrogate_in_json_on_stdin_is_read_as_kubectl_reads_it(tmp_path):
    text = job("echo $X", env=[{"name": "X", "value": "a\ud800b"}])
    assert "\\ud800" in text  # json.dumps writes the escape, as an attacker would
    explained = local(tmp_path, text, "--explain")
    assert explained.returncode == 0, explained.stderr
    assert "X='a\ufffdb'" in explained.stdout
    ran = local(tmp_path, text)
    assert ran.returncode == 0, ran.stderr
    assert "demo-0 | a\ufffdb" in ran.stdout
    # one the checker meets first (a ConfigMap's size): a clean answer, never an internal error
    config = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"k": "\ud800"}})
    checked = local(tmp_path, config, "--explain")
    assert checked.returncode in (1, 2), checked.stderr
    assert "internal error" not in checked.stderr and "Traceback" not in checked.stderr


def test_a_nul_byte_in_a_command_is_refused_not_a_crash(tmp_path):
    done = local(tmp_path, job("echo a\0b"))
    assert done.returncode == 2, done.stderr
    assert "pod demo-0: command[2] holds a NUL byte" in done.stderr


def test_a_job_files_etcd_arguments_never_reach_the_etcd_that_local_runs():
    """etcd's flags name files and folders it writes (--wal-dir, --log-outputs, -data-dir in Go's
    one-dash spelling): from an untrusted job file none is passed on; the run's own folder only."""
    from generator.local import etcd

    argv = ["etcd", "-data-dir=/tmp/out", "--wal-dir", "/tmp/wal", "--log-outputs=/tmp/x.log", "--data-dir=/var/e"]
    server, asked, dropped = etcd.server_argv("etcd", "n", argv, "127.0.0.2", 2379, "/run/own")
    assert asked == "/var/e" and dropped == ["-data-dir=/tmp/out", "--wal-dir", "/tmp/wal", "--log-outputs=/tmp/x.log"]
    assert not any("/tmp/" in word for word in server) and "--data-dir=/run/own" in server


# -- Paddle checked before any pod starts ---------------------------------------------------------


@pytest.fixture(scope="module")
def python_without_paddle(tmp_path_factory) -> str:
    """An interpreter that has no paddle module: a bare virtual environment."""
    where = tmp_path_factory.mktemp("nopaddle") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    return str(where / "bin" / "python")


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("python -m paddle.distributed.launch train.py", "its command runs '-m paddle.distributed.launch'"),
        ("python train.py", "its script train.py imports paddle"),
        ("sh -c 'exec python -m paddle.distributed.launch train.py'", "its command runs '-m paddle.distributed"),
        ("""sh -c 'python -c "import paddle; paddle.utils.run_check()"'""", "its command imports paddle"),
    ],
)
def test_a_job_that_runs_paddle_is_refused_before_any_pod_starts_where_python_has_none(
    tmp_path, python_without_paddle, command, why
):
    workdir = tmp_path / "work"
    workdir.mkdir()
    (workdir / "train.py").write_text("import os\nfrom paddle import distributed as dist\nopen('ran', 'w')\n")
    container = {"name": "c", "image": "paddle", "command": ["sh", "-c", command] if command.startswith("sh")
                 else command.split()}  # fmt: skip
    text = job("unused").replace(json.dumps(["sh", "-c", "unused"]), json.dumps(container["command"]))
    done = local(workdir, text, "--python", python_without_paddle)
    assert done.returncode == 1, done.stderr
    assert f"pod demo-0: {why}" in done.stderr and "cannot find Paddle (no module named paddle)" in done.stderr
    assert "pip install paddlepaddle" in done.stderr and "--python" in done.stderr
    assert list(workdir.iterdir()) == [workdir / "train.py"], "no pod ran"
    explained = local(workdir, text, "--python", python_without_paddle, "--explain")
    assert explained.returncode == 0 and "is checked for Paddle; --explain does not check" in explained.stdout


def test_a_script_without_paddle_runs_on_a_python_without_it(tmp_path, python_without_paddle):
    workdir = tmp_path / "work"
    workdir.mkdir()
    (workdir / "train.py").write_text("# import paddle is only a comment here\nimport paddlenlp_stub\n")
    (workdir / "paddlenlp_stub.py").write_text("open('ran', 'w')\n")
    done = local(workdir, job("python train.py"), "--python", python_without_paddle)
    assert done.returncode == 0, done.stderr
    assert (workdir / "ran").exists()


def test_a_paddle_package_in_the_work_folder_is_what_the_pod_imports(tmp_path, python_without_paddle):
    workdir = tmp_path / "work"
    (workdir / "paddle").mkdir(parents=True)
    (workdir / "paddle" / "__init__.py").write_text("open('ran', 'w')\n")
    done = local(workdir, job("python -c 'import paddle'"), "--python", python_without_paddle)
    assert done.returncode == 0, done.stderr
    assert (workdir / "ran").exists()


def test_a_script_that_is_a_fifo_does_not_stall_the_paddle_check(tmp_path, python_without_paddle):
    """A job's `python train.py` where the work folder's train.py is a named pipe: the check reads
    regular files only, so the run goes on (the pod itself then blocks: its own business)."""
    workdir = tmp_path / "work"
    workdir.mkdir()
    os.mkfifo(workdir / "train.py")
    done = local(workdir, job("python train.py"), "--python", python_without_paddle, "--explain")
    assert done.returncode == 0, done.stderr
    assert "is checked for Paddle" not in done.stdout
