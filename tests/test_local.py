"""Jobs that really train: each runtime's rendered job, expanded into pods as its controller
would, run locally with the real paddlepaddle wheel (`paddlejob-manifests local`).

- collective jobs reach an all_reduce across 2 pods through `python -m paddle.distributed.launch`
  and train a tiny model, on every runtime;
- parameter-server pods' environments resolve, in Paddle's own PaddleCloudRoleMaker, to their
  role, index and the server endpoints;
- the environment the command really sees (after the controller, the kubelet and any wrapper)
  meets Paddle 2.0-2.2's launcher contract (fleet/cloud_utils.py: use_paddlecloud and
  get_cloud_cluster), the launcher of the demo images;
- an elastic job's pods pass Paddle's own enable_elastic.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.local import pods
from generator.local import run as localrun
from generator.validate.rules.launcher import unset_by_shell

from .conftest import REPO

paddle = pytest.importorskip("paddle", reason="the paddlepaddle wheel is not installed")

PROGRAMS = REPO / "tests" / "paddle"
IMAGE = "registry.baidubce.com/paddlepaddle/paddle:3.3.1"


def render(tmp_path: Path, runtime: str, *flags: str) -> Path:
    done = subprocess.run(
        [sys.executable, "-m", "generator", "job", "demo", "--image", IMAGE, "--runtime", runtime, *flags],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    path = tmp_path / f"{runtime}.yaml"
    path.write_text(done.stdout)
    return path


def local(tmp_path: Path, manifests: Path, *flags: str, env: dict | None = None) -> subprocess.CompletedProcess:
    workdir = tmp_path / "code"
    if not workdir.exists():
        shutil.copytree(PROGRAMS, workdir)
    return subprocess.run(
        [sys.executable, "-m", "generator", "local", "--workdir", str(workdir), "--timeout", "240", *flags,
         str(manifests)],
        capture_output=True, text=True, cwd=REPO, timeout=300, env=None if env is None else {**os.environ, **env},
    )  # fmt: skip


def tagged(output: str, tag: str) -> dict[str, str]:
    """pod name -> the text after `TAG ` on that pod's prefixed output lines."""
    found = {}
    for line in output.splitlines():
        pod, _, text = line.partition(" | ")
        if text.startswith(tag + " "):
            found[pod.strip()] = text[len(tag) + 1 :]
    return found


@pytest.mark.parametrize("runtime", ["paddle-operator", "volcano", "kubeflow", "kubernetes", "kubeflow-trainer"])
def test_a_collective_job_trains_on_every_runtime(tmp_path, runtime):
    job = render(tmp_path, runtime, "--workers", "2", "--command",
                 "python -m paddle.distributed.launch train_collective.py")  # fmt: skip
    done = local(tmp_path, job)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "local: Completed" in done.stderr
    results = tagged(done.stdout, "RESULT")
    assert len(results) == 2, done.stdout[-3000:]
    for text in results.values():
        fields = dict(item.split("=", 1) for item in text.split())
        assert fields["world"] == "2" and fields["all_reduce"] == "3"  # 1 + 2: both pods took part
        before, after = (float(x) for x in fields["loss"].split("->"))
        assert after < before / 2, "the model trained"
    weights = {dict(item.split("=", 1) for item in text.split())["weights"] for text in results.values()}
    assert len(weights) == 1, f"the pods ended with different weights: {weights}"


@pytest.mark.parametrize("runtime", ["paddle-operator", "volcano", "kubernetes"])
def test_parameter_server_pods_resolve_in_paddles_role_maker(tmp_path, runtime):
    """The servers listen until they are stopped: Volcano's CompleteJob policy and the Indexed
    Job complete with the trainers; paddle-operator v0.3.5 waits for every role, so the job
    stays Running (getPaddleJobPhase), and `local` says so."""
    job = render(tmp_path, runtime, "--ps", "2", "--workers", "2", "--command", "python ps_roles.py")
    done = local(tmp_path, job, "--grace", "3")
    if runtime == "paddle-operator":
        assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
        assert "local: Running: every trainer exited 0, but demo-ps-0, demo-ps-1 still ran 3 s later" in done.stderr
        assert "would never mark this one Completed" in done.stderr
    else:
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
        assert "local: Completed" in done.stderr
    roles = {pod: json.loads(text) for pod, text in tagged(done.stdout, "ROLES").items()}
    assert len(roles) == 4, done.stdout[-3000:]
    servers = sorted(r["index"] for r in roles.values() if r["server"])
    workers = sorted(r["index"] for r in roles.values() if not r["server"])
    assert servers == [0, 1] and workers == [0, 1]
    endpoints = {tuple(r["servers"]) for r in roles.values()}
    assert len(endpoints) == 1 and len(next(iter(endpoints))) == 2, "every pod sees the same two servers"
    assert {r["workers"] for r in roles.values()} == {2}
    for pod, r in roles.items():  # a server's index is its own position in the list
        assert r["server"] == any(part in pod for part in ("-ps-", "-pserver-")), pod


PS_PYTHON = Path(os.environ.get("PADDLE_PS_PYTHON", REPO / ".venv-ps" / "bin" / "python"))


@pytest.mark.skipif(not PS_PYTHON.exists(), reason="no Paddle with the PS runtime: `make test` installs .venv-ps")
@pytest.mark.parametrize("runtime", ["paddle-operator", "volcano", "kubernetes"])
def test_a_parameter_server_job_trains_on_every_ps_runtime(tmp_path, runtime):
    """Real parameter-server training (paddlepaddle 2.6.2, requirements-ps.txt): two servers hold
    the parameters, two trainers start from the servers' copy, train and end with the same
    weights. The verdict is the controller's: Volcano's CompleteJob and the Indexed Job complete
    with the trainers; paddle-operator v0.3.5 keeps the job Running, since Paddle gives trainers
    no way to stop the servers (`fleet.run_server()` returns only when killed)."""
    job = render(tmp_path, runtime, "--ps", "2", "--workers", "2", "--command", "python train_ps.py")
    done = local(tmp_path, job, "--python", str(PS_PYTHON), "--grace", "5")
    if runtime == "paddle-operator":
        assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
        assert "local: Running: every trainer exited 0, but demo-ps-0, demo-ps-1 still ran 5 s later" in done.stderr
    else:
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
        assert "local: Completed" in done.stderr
    assert len(tagged(done.stdout, "SERVING")) == 2, done.stdout[-3000:]
    results = [json.loads(text) for text in tagged(done.stdout, "RESULT").values()]
    assert len(results) == 2, done.stdout[-3000:]
    (start,) = {r["loss"][0] for r in results}  # both pulled the servers' initial parameters
    truth = [1.0, 2.0, -1.0, 0.5]
    for r in results:
        assert r["loss"][1] < start / 100, "the model trained"
        assert all(abs(w - t) < 0.05 for w, t in zip(r["weights"], truth, strict=True)), r["weights"]


def paddle2_launcher_problems(env: dict[str, str]) -> list[str]:
    """What Paddle 2.0-2.2's launcher (python/paddle/distributed/fleet/cloud_utils.py) needs to
    run a pod as one node of the job: without any of these it trains alone on 127.0.0.1."""
    needed = ["PADDLE_TRAINERS", "POD_IP", "PADDLE_TRAINER_ID", "TRAINER_PORTS_NUM"]  # use_paddlecloud
    missing = [name for name in needed if name not in env]
    if missing:
        return [f"{', '.join(missing)} unset: use_paddlecloud() is False, the pod trains alone"]
    nodes = env["PADDLE_TRAINERS"].split(",")
    problems = []
    if env["POD_IP"] not in nodes:  # get_cluster() looks the pod up by its IP
        problems.append(f"POD_IP {env['POD_IP']} is not in PADDLE_TRAINERS {nodes}")
    elif nodes.index(env["POD_IP"]) != int(env["PADDLE_TRAINER_ID"] or -1):  # cluster.pods[node_rank]
        problems.append(f"PADDLE_TRAINER_ID {env['PADDLE_TRAINER_ID']!r} is not POD_IP's position")
    if len(nodes) > 1 and not env.get("PADDLE_PORT", "").isdigit():
        problems.append("PADDLE_PORT is not a port")
    return problems


@pytest.mark.parametrize(
    ("runtime", "flags"),
    [("paddle-operator", []), ("volcano", []), ("volcano", ["--volcano-version", "1.8"]), ("kubernetes", [])],
)
def test_collective_pods_meet_the_paddle_2_launcher_contract(tmp_path, runtime, flags):
    job = render(tmp_path, runtime, "--workers", "3", "--gpus", "1", "--command", "python env_dump.py")
    done = local(tmp_path, job, *flags, env={"CUDA_VISIBLE_DEVICES": "0,1,2"})  # a machine with 3 GPUs
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    envs = {pod: json.loads(text) for pod, text in tagged(done.stdout, "ENV").items()}
    assert len(envs) == 3
    for pod, env in envs.items():
        assert paddle2_launcher_problems(env) == [], pod
        assert int(env["PADDLE_TRAINER_ID"]) == int(pod.rsplit("-", 1)[1])
    assert sorted(env["CUDA_VISIBLE_DEVICES"] for env in envs.values()) == ["0", "1", "2"]  # one each


@pytest.mark.parametrize("runtime", ["paddle-operator", "volcano", "kubernetes"])
def test_local_warns_exactly_where_paddles_launcher_would_not_run_a_rendered_elastic_job_elastic(
    tmp_path, runtime, monkeypatch
):
    """The oracle is Paddle 3.3.1's launcher itself: its Context reads each pod's environment (the
    env_args_mapping, then the plugins: collective_compatible resets the master and nnodes when
    PADDLE_TRAINER_ENDPOINTS is set), and CollectiveElasticController.enable says whether it
    trains elastic with the etcd master. `local` warns for the pods it would not, and only those."""
    from paddle.distributed.launch.context import Context
    from paddle.distributed.launch.controllers.collective import CollectiveElasticController

    from generator.kubeyaml.load import read_documents

    # paddle-operator v0.3.5 never trains with fewer than its replicas, so `job` refuses
    # --min-workers below --workers there (test_lifecycle.py); its elastic job is 4:4
    fewest = "4" if runtime == "paddle-operator" else "1"
    job = render(tmp_path, runtime, "--workers", "4", "--elastic", "--etcd", "etcd.example:2379",
                 "--min-workers", fewest, "--command", "python -m paddle.distributed.launch train.py")  # fmt: skip
    docs, _ = read_documents(job)
    found, services = pods.expand(docs)
    processes = localrun.plan(found, services, sys.executable, tmp_path)
    assert len(processes) == 4
    for proc in processes:
        assert proc.env["PADDLE_MASTER"] == "etcd://etcd.example:2379" and proc.env["PADDLE_NNODES"] == f"{fewest}:4"
        for key in list(os.environ):
            if key.startswith(("PADDLE_", "POD_", "DISTRIBUTED_")):
                monkeypatch.delenv(key)
        # the container's shell (`sh -c 'unset ...; exec "$0" "$@"'`) runs before the launcher
        unset = unset_by_shell(proc.argv)
        for key, value in proc.env.items():
            if key not in unset:
                monkeypatch.setenv(key, value)
        monkeypatch.setattr(sys, "argv", ["launch", "train.py"])
        elastic = CollectiveElasticController.enable(Context(enable_plugin=True))
        warned = [w for w in proc.warnings if "replaces the etcd master" in w]
        assert bool(warned) == (not elastic), (proc.pod.name, elastic, proc.warnings)


def test_explain_prints_each_pod_and_marks_what_local_mode_adds(tmp_path):
    job = render(tmp_path, "kubeflow", "--workers", "2", "--command", "python train.py")
    done = local(tmp_path, job, "--explain")
    assert done.returncode == 0, done.stderr
    assert "# pod demo-worker-0 (worker 0, finishes the job) at 127.0.0.2" in done.stdout  # a run: 127.A.B.2
    assert "PADDLE_MASTER=127.0.0.2:36543" in done.stdout  # the training operator's rendezvous
    assert "POD_IP=127.0.0.3   # local mode only" in done.stdout


def test_kubeflow_takes_the_port_from_the_container_port_named_master(tmp_path):
    """training-operator v1.9.0 puts the `paddle` container's port named `master` into
    PADDLE_MASTER (getPortFromPaddleJob): `--port` is written as that port."""
    job = render(tmp_path, "kubeflow", "--workers", "2", "--port", "29500", "--command", "python train.py")
    done = local(tmp_path, job, "--explain")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("PADDLE_MASTER=127.0.0.2:29500") == 2


def test_a_job_without_a_command_is_explained_but_not_run(tmp_path):
    """The seeds' wide-and-deep job runs its image's entrypoint: --explain still shows every
    pod's wiring; running it is refused with the reason, naming each pod."""
    job = REPO / "deploy" / "examples" / "wide-and-deep.yaml"
    explained = local(tmp_path, job, "--explain")
    assert explained.returncode == 0, explained.stderr
    assert "# pod wide-and-deep-ps-0 (ps 0, a server, which must exit 0 too for the job to complete)" in (
        explained.stdout
    )
    assert "TRAINING_ROLE=PSERVER" in explained.stdout
    assert "# no command: the image's entrypoint runs" in explained.stdout
    ran = local(tmp_path, job)
    assert ran.returncode == 1
    assert "wide-and-deep-ps-0, wide-and-deep-ps-1, " in ran.stderr
    assert "the container has no command" in ran.stderr


def test_a_failing_pod_fails_the_job_and_stops_the_others(tmp_path):
    job = render(tmp_path, "kubernetes", "--ps", "1", "--workers", "2", "--command",
                 "python -c 'import os,sys,time; sys.exit(3) if os.environ.get(\"PADDLE_TRAINER_ID\") == \"1\" "
                 "else time.sleep(60)'")  # fmt: skip
    done = local(tmp_path, job)
    assert done.returncode == 1
    # the rendered Job's backoffLimit is 3: three replacements, then the fourth failure fails it
    assert done.stdout.count("the Job controller replaces the pod") == 3, done.stdout[-3000:]
    assert (
        "local: Failed: pod demo-worker-1 exited with exit code 3: Job demo-worker has 4 failed pods, more than "
        "its backoffLimit 3 (BackoffLimitExceeded)"
    ) in done.stderr


def test_a_server_failing_after_the_trainers_fails_an_operator_job(tmp_path):
    """paddle-operator v0.3.5 marks a job Failed when any pod of any role fails, also after
    every trainer succeeded (getPaddleJobPhase): not Completed as soon as the workers exit."""
    job = render(tmp_path, "paddle-operator", "--ps", "1", "--workers", "2", "--command",
                 "python -c 'import os,sys,time; server = os.environ[\"TRAINING_ROLE\"] == \"PSERVER\"; "
                 "time.sleep(3 if server else 0); sys.exit(4 if server else 0)'")  # fmt: skip
    done = local(tmp_path, job)
    assert done.returncode == 1, done.stderr
    assert "local: Failed: pod demo-ps-0 exited with exit code 4" in done.stderr


def start_fluid_problems(pod_env: dict[str, str], everyone: list[pods.Pod], manifests: list[dict]) -> list[str]:
    """What `paddle_k8s start_fluid` (the CTR image's entry point; its trace is in the Volcano
    article, tests/fixtures/seeds) needs: it waits for and numbers the pods by the labels
    paddle-job-pserver=$PADDLE_JOB_NAME and paddle-job=$PADDLE_JOB_NAME, counting
    PADDLE_PSERVERS_NUM and PADDLE_TRAINERS_NUM, through the API (k8s_tools.py lists pods)."""
    job = pod_env.get("PADDLE_JOB_NAME")
    if not job:
        return ["PADDLE_JOB_NAME is unset: the label selectors are empty and start_fluid waits forever"]
    servers = [p for p in everyone if p.labels.get("paddle-job-pserver") == job]
    trainers = [p for p in everyone if p.labels.get("paddle-job") == job]
    problems = []
    if len(servers) != int(pod_env.get("PADDLE_PSERVERS_NUM", "-1")):
        problems.append(f"{len(servers)} pods labelled paddle-job-pserver={job}, PADDLE_PSERVERS_NUM says otherwise")
    if len(trainers) != int(pod_env.get("PADDLE_TRAINERS_NUM", "-1")):
        problems.append(f"{len(trainers)} pods labelled paddle-job={job}, PADDLE_TRAINERS_NUM says otherwise")
    readers = {
        s["name"]
        for b in manifests
        if b.get("kind") == "RoleBinding"
        for s in b.get("subjects", [])
        if any(
            r.get("kind") == "Role"
            and r["metadata"]["name"] == b["roleRef"]["name"]
            and any("pods" in rule["resources"] and "list" in rule["verbs"] for rule in r["rules"])
            for r in manifests
        )
    }
    if not servers + trainers or any(p.service_account not in readers for p in servers + trainers):
        problems.append("the pods' ServiceAccount may not list pods")
    return problems


@pytest.mark.parametrize("example", ["ctr-volcano.yaml", "ctr-kubernetes.yaml"])
def test_the_ctr_examples_meet_start_fluids_contract(example):
    from generator.core.paths import DEPLOY
    from generator.kubeyaml.load import read_documents

    manifests, _ = read_documents(DEPLOY / "examples" / example)
    found, services = pods.expand(manifests)
    assert len(found) == 4
    for proc in localrun.plan(found, services, sys.executable, REPO):
        assert start_fluid_problems(proc.env, found, manifests) == [], proc.pod.name


def test_a_hand_written_podgroup_is_joined_by_the_operators_pods(tmp_path):
    """Volcano gangs a pod only through the annotation scheduling.k8s.io/group-name, which the
    paddle-operator adds only with --scheduling=volcano: --podgroup jobs name it themselves."""
    from generator.kubeyaml.load import read_documents

    job = render(tmp_path, "paddle-operator", "--ps", "1", "--workers", "2", "--volcano", "--podgroup",
                 "--command", "python train.py")  # fmt: skip
    manifests, _ = read_documents(job)
    (group,) = [m for m in manifests if m["kind"] == "PodGroup"]
    (paddlejob,) = [m for m in manifests if m["kind"] == "PaddleJob"]
    for role in ("ps", "worker"):
        template = paddlejob["spec"][role]["template"]
        assert template["metadata"]["annotations"]["scheduling.k8s.io/group-name"] == group["metadata"]["name"]
        assert template["spec"]["schedulerName"] == "volcano"
    for pod in pods.expand(manifests)[0]:  # the operator copies the template's metadata to its pods
        assert pod.annotations["scheduling.k8s.io/group-name"] == "demo"


def test_a_command_not_on_path_fails_the_pod_as_the_kubelet_reports_it(tmp_path):
    """The project's CTR example runs `paddle_k8s`, which only its image has: the container
    cannot start (StartError), the job fails; not a crash of the tool (exit 3)."""
    done = local(tmp_path, REPO / "deploy" / "examples" / "ctr-kubernetes.yaml")
    assert done.returncode == 1, done.stderr
    assert "container paddle cannot run (StartError, exit code 128)" in done.stderr
    assert 'exec: "paddle_k8s": executable file not found in $PATH' in done.stderr
    assert "this is a bug" not in done.stderr


def test_paddles_launcher_takes_pod_ip_only_with_a_dot():
    """The oracle of the intranet Service hang: Paddle's own launcher plugin (rewrite_host_ip,
    paddle/distributed/launch/plugins) keeps its own host address for a POD_IP without a dot."""
    import types

    from paddle.distributed.launch import plugins

    for pod_ip, taken in (("demo-worker-0", False), ("10.0.0.7", True)):
        ctx = types.SimpleNamespace(
            args=types.SimpleNamespace(host=pod_ip),
            node=types.SimpleNamespace(ip="192.0.2.1"),
            logger=types.SimpleNamespace(warning=lambda *_: None),
        )
        plugins.rewrite_host_ip(ctx)
        assert (ctx.node.ip == pod_ip) is taken, pod_ip


def test_intranet_service_fails_where_the_cluster_would_hang(tmp_path):
    """paddle-operator's intranet Service sets POD_IP to the pod's name: `job` and `validate`
    warn, `local` refuses to run it (it used to map the name to 127.0.0.x and train)."""
    job = render(tmp_path, "paddle-operator", "--workers", "2", "--intranet", "Service", "--command",
                 "python -m paddle.distributed.launch train_collective.py")  # fmt: skip
    explained = local(tmp_path, job, "--explain")
    assert explained.returncode == 0, explained.stderr  # --explain still shows the wiring
    done = local(tmp_path, job)
    assert done.returncode == 1, done.stdout[-2000:]
    assert "demo-worker-0, demo-worker-1: POD_IP is 'demo-worker-0', a name without a dot" in done.stderr
    assert "every pod waits for ever" in done.stderr
    rendered = subprocess.run(
        [sys.executable, "-m", "generator", "job", "demo", "--image", IMAGE, "--workers", "2", "--intranet",
         "Service"], capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip
    assert rendered.returncode == 0
    assert "job: warning: PaddleJob demo: spec.intranet: intranet Service: the operator sets POD_IP" in rendered.stderr
    assert "[paddlejob-intranet-service]" in rendered.stderr


def test_hostname_dot_subdomain_resolves_only_through_a_headless_service(tmp_path):
    """The cluster's DNS has <hostname>.<subdomain> only when a headless Service named like the
    subdomain selects the pod: renamed, the trainers' names stay names (nothing answers them)."""
    from generator.kubeyaml.load import read_documents

    manifests, _ = read_documents(render(tmp_path, "kubernetes", "--workers", "2", "--command", "python x.py"))
    for renamed in (False, True):
        docs = [dict(m) for m in manifests]
        if renamed:
            (service,) = [m for m in docs if m["kind"] == "Service" and m["metadata"]["name"] == "demo-worker"]
            service["metadata"] = {**service["metadata"], "name": "demo-workers"}
        found, services = pods.expand(docs)
        (first, _) = localrun.plan(found, services, sys.executable, tmp_path)
        endpoints = first.env["PADDLE_TRAINER_ENDPOINTS"]
        assert ("demo-worker-0.demo-worker:36543" in endpoints) is renamed, endpoints
        assert any("has no DNS record" in note for note in first.notes) is renamed


def test_volcano_pods_get_the_svc_plugins_host_lists(tmp_path):
    """Volcano's svc plugin (GenerateHosts, OnPodCreate) gives every container of the job each
    task's hosts and their count, from its ConfigMap <job>-svc."""
    from generator.kubeyaml.load import read_documents

    manifests, _ = read_documents(render(tmp_path, "volcano", "--ps", "2", "--workers", "3", "--command", "python x"))
    found, services = pods.expand(manifests)
    processes = localrun.plan(found, services, sys.executable, tmp_path)
    address = {proc.pod.name: proc.ip for proc in processes}
    for proc in processes:
        assert proc.env["VC_PSERVER_NUM"] == "2" and proc.env["VC_TRAINER_NUM"] == "3"
        assert proc.env["VC_TRAINER_HOSTS"] == ",".join(address[f"demo-trainer-{i}"] for i in range(3))
        assert proc.env["VC_PSERVER_HOSTS"] == ",".join(address[f"demo-pserver-{i}"] for i in range(2))
    (pod,) = [p for p in found if p.name == "demo-trainer-0"]
    hosts = pod.config_maps["demo-svc"]["VC_TRAINER_HOSTS"]
    assert hosts == "demo-trainer-0.demo,demo-trainer-1.demo,demo-trainer-2.demo"


def test_two_runs_side_by_side_do_not_collide(tmp_path):
    """Each run takes a loopback block of its own: two copies of one job (the same fixed ports)
    train at once on one machine."""
    job = render(tmp_path, "volcano", "--workers", "2", "--command",
                 "python -m paddle.distributed.launch train_collective.py")  # fmt: skip
    workdirs = [tmp_path / "a", tmp_path / "b"]
    for workdir in workdirs:
        shutil.copytree(PROGRAMS, workdir)
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "generator", "local", "--workdir", str(workdir), "--timeout", "240", str(job)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )  # fmt: skip
        for workdir in workdirs
    ]
    for run in runs:
        out, err = run.communicate(timeout=300)
        assert run.returncode == 0, out[-2000:] + err[-2000:]
        assert len(tagged(out, "RESULT")) == 2


def test_without_a_namespace_a_run_takes_a_loopback_block_nothing_listens_on():
    import socket

    with socket.create_server(("127.9.8.7", 0)):
        assert "127.9.8" in localrun._loopback_blocks_in_use()
    block = localrun.free_block()
    assert block.startswith("127.") and block != localrun.EXPLAIN_BLOCK
    assert block not in localrun._loopback_blocks_in_use()


def plan_of(tmp_path: Path, runtime: str, *flags: str) -> list[localrun.Process]:
    from generator.kubeyaml.load import read_documents

    manifests, _ = read_documents(render(tmp_path, runtime, *flags))
    found, services = pods.expand(manifests)
    return localrun.plan(found, services, sys.executable, tmp_path)


def role_maker_with(env: dict[str, str], monkeypatch):
    import paddle.distributed.fleet as fleet

    for key, value in env.items():
        monkeypatch.setenv(key, value)
    role = fleet.PaddleCloudRoleMaker(is_collective=False)
    role._generate_role()
    return role


def test_operator_heter_pods_are_refused_by_paddles_role_maker(tmp_path, monkeypatch):
    """v0.3.5 sets TRAINING_ROLE=HETER; PaddleCloudRoleMaker takes HETER_TRAINER, not HETER."""
    processes = plan_of(tmp_path, "paddle-operator", "--ps", "1", "--workers", "1", "--heter", "1",
                        "--command", "python x.py")  # fmt: skip
    (heter,) = [p for p in processes if p.pod.role == "heter"]
    assert heter.env["TRAINING_ROLE"] == "HETER"
    with pytest.raises(ValueError, match="TRAINING_ROLE must be PSERVER or TRAINER or HETER_TRAINER"):
        role_maker_with(heter.env, monkeypatch)


def test_operator_gloo_endpoint_is_server_0s_own_with_intranet_podip(tmp_path, monkeypatch):
    """Server 0 starts the gloo HTTP store at PADDLE_GLOO_HTTP_ENDPOINT (role maker _gloo_init),
    which the operator makes its own parameter-server endpoint: one port for both."""
    processes = plan_of(tmp_path, "paddle-operator", "--ps", "2", "--workers", "1", "--with-gloo", "1",
                        "--command", "python x.py")  # fmt: skip
    server = next(p for p in processes if p.pod.name == "demo-ps-0")
    role = role_maker_with(server.env, monkeypatch)
    assert role._is_server() and role._server_index() == 0
    assert role._get_pserver_endpoints()[0] == server.env["PADDLE_GLOO_HTTP_ENDPOINT"]


def test_restart_policy_onfailure_restarts_the_container_as_the_kubelet_does(tmp_path):
    """Volcano's (and kubeflow's) pods have restartPolicy OnFailure: a container that fails is
    restarted in place and the job goes on; one that always fails loops (CrashLoopBackOff) and
    the job stays Running. Not Failed at the first exit."""
    once = ("python -c 'import os,sys,pathlib; m = pathlib.Path(\"failed-\" + os.environ[\"VC_TASK_INDEX\"]); "
            "sys.exit(0 if m.exists() else m.touch() or 5)'")  # fmt: skip
    done = local(tmp_path, render(tmp_path, "volcano", "--workers", "2", "--command", once))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "restarted (restartPolicy OnFailure, restart 1)" in done.stdout
    always = "python -c 'import sys; sys.exit(5)'"
    done = local(tmp_path, render(tmp_path, "volcano", "--workers", "1", "--command", always))
    assert done.returncode == 1
    assert "local: Running: pod demo-trainer-0 exited with exit code 5 4 times: with restartPolicy OnFailure" in (
        done.stderr
    )


def _with_parallelism(tmp_path: Path, job: Path, parallelism: int | None) -> Path:
    """The rendered job with its Indexed Job's parallelism changed (None: unset, as people write it)."""
    from generator.kubeyaml.load import read_documents

    docs, _ = read_documents(job)
    for doc in docs:
        if doc.get("kind") == "Job":
            doc["spec"].pop("parallelism")
            if parallelism is not None:
                doc["spec"]["parallelism"] = parallelism
    path = tmp_path / f"parallelism-{parallelism}.yaml"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}))
    return path


def test_an_indexed_job_starts_no_more_pods_than_its_parallelism(tmp_path):
    """The Job controller keeps at most `parallelism` pods active (unset: 1, SetDefaults_Job),
    lowest index first, and starts the next as one succeeds: each index here finds every lower
    index finished."""
    check = ("python -c 'import os,pathlib; i=int(os.environ[\"JOB_COMPLETION_INDEX\"]); "
             "assert all(pathlib.Path(f\"done-{j}\").exists() for j in range(i)), i; "
             "pathlib.Path(f\"done-{i}\").touch()'")  # fmt: skip
    job = _with_parallelism(tmp_path, render(tmp_path, "kubernetes", "--workers", "3", "--command", check), None)
    done = local(tmp_path, job)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "local: Completed" in done.stderr
    explained = local(tmp_path, job, "--explain")
    assert "starts only when an earlier pod of Job demo-worker has succeeded" in explained.stdout


def test_a_collective_indexed_job_below_its_parallelism_never_starts_its_peers(tmp_path):
    """Pod 0 waits for pod 1 (as a collective rendezvous does); with parallelism 1 the controller
    never creates pod 1, and the job stays Running: `local` says so instead of passing."""
    rendered = render(tmp_path, "kubernetes", "--workers", "2", "--env", "PEER=demo-worker-0.demo-worker",
                      "--command", "python rendezvous.py")  # fmt: skip
    assert local(tmp_path, _with_parallelism(tmp_path, rendered, 2)).returncode == 0
    done = local(tmp_path, _with_parallelism(tmp_path, rendered, None), "--timeout", "8")
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
    assert "demo-worker-1 never started: Job demo-worker runs at most 1 of its pods at once" in done.stderr
    stopped = local(tmp_path, _with_parallelism(tmp_path, rendered, 0))
    assert stopped.returncode == 1
    assert "Job demo-worker has parallelism 0, so its controller creates no pod" in stopped.stderr


def test_an_indexed_job_with_restart_policy_on_failure_fails_when_restarts_reach_its_backoff_limit(tmp_path):
    """With restartPolicy OnFailure the kubelet restarts the container in place, and the Job
    controller counts the restarts: reaching backoffLimit fails the Job (pastBackoffLimitOnFailure)."""
    from generator.kubeyaml.load import read_documents

    rendered = render(tmp_path, "kubernetes", "--workers", "1", "--command", "python -c 'raise SystemExit(5)'")
    docs, _ = read_documents(rendered)
    for doc in docs:
        if doc.get("kind") == "Job":
            doc["spec"]["backoffLimit"] = 2
            doc["spec"]["template"]["spec"]["restartPolicy"] = "OnFailure"
    job = tmp_path / "on-failure.json"
    job.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}))
    done = local(tmp_path, job)
    assert done.returncode == 1
    assert done.stdout.count("restarted in place by the kubelet") == 1, done.stdout
    assert (
        "Job demo-worker has 2 container restarts, as many as its backoffLimit 2 (BackoffLimitExceeded)" in done.stderr
    )


def test_a_trainjob_is_expanded_as_trainer_and_the_jobset_controller_would(tmp_path):
    """Trainer v2.3.0 and JobSet v0.12.0: the node Job <trainjob>-node-0, Indexed, its pods
    <trainjob>-node-0-<i> under the subdomain <trainjob> (the JobSet's headless Service), the
    runtime's env with the TrainJob's upserted, the rank the completion index."""
    job = render(tmp_path, "kubeflow-trainer", "--workers", "3", "--env", "FLAGS_x=1", "--command", "python t.py")
    found, _ = pods.expand([d for d in load_docs(job)])
    assert [p.name for p in found] == ["demo-node-0-0", "demo-node-0-1", "demo-node-0-2"]
    for i, pod in enumerate(found):
        assert (pod.hostname, pod.subdomain, pod.batch) == (f"demo-node-0-{i}", "demo", "demo-node-0")
        assert pod.headless == ["demo"] and pod.labels["jobset.sigs.k8s.io/jobset-name"] == "demo"
        env = {e["name"]: e.get("value") for e in pod.container["env"]}
        assert env["PADDLE_NNODES"] == "3" and env["FLAGS_x"] == "1"
        assert env["PADDLE_MASTER"] == "$(JOBSET_NAME)-node-0-0.$(JOBSET_NAME):36543"
        assert pod.container["image"] == IMAGE and pod.container["command"] == ["python", "t.py"]
        assert (pod.restart_policy, pod.backoff_limit, pod.parallelism) == ("Never", 0, 3)


def test_a_trainjob_whose_runtime_is_missing_does_not_run(tmp_path):
    job = render(tmp_path, "kubeflow-trainer", "--workers", "2", "--command", "python t.py")
    job.write_text(job.read_text().replace("name: paddle-distributed", "name: torch-distributed"))
    done = local(tmp_path, job, "--explain")
    assert done.returncode == 1
    assert "runtime ClusterTrainingRuntime torch-distributed is not in the input" in done.stderr


def test_a_trainjob_with_its_own_runtime_in_the_file_runs_on_that_runtime(tmp_path):
    """A runtime in the input is the one used; its JobSet defaults apply (restartPolicy
    OnFailure from the JobSet webhook) where it sets nothing."""
    job = render(tmp_path, "kubeflow-trainer", "--workers", "2", "--command", "python t.py")
    (runtime,) = [
        r
        for r in load_docs(REPO / "deploy" / "trainer" / "runtimes.yaml")
        if r["metadata"]["name"] == "paddle-distributed"
    ]
    runtime["metadata"]["name"] = "paddle-mine"
    pod_spec = runtime["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    del pod_spec["restartPolicy"]
    docs = load_docs(job)
    docs[0]["spec"]["runtimeRef"]["name"] = "paddle-mine"
    found, _ = pods.expand([runtime, *docs])
    assert [p.restart_policy for p in found] == ["OnFailure", "OnFailure"]
    assert all(not any("this project's" in n for n in p.notes) for p in found)


def load_docs(path: Path) -> list[dict]:
    import yaml

    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def test_paddles_launcher_starts_the_master_only_in_the_node_whose_address_is_its_host(monkeypatch):
    """The oracle of the master check: Paddle's own HTTPMaster.lazy_init (launch/controllers/
    master.py) starts the rendezvous server only when the master's host is the node's address as
    a string. A DNS name as master and the pod's IP as the node's address: no node starts it."""
    import time
    import types

    from paddle.distributed.launch.controllers import master as paddle_master

    started = []
    monkeypatch.setattr(paddle_master, "KVServer", lambda port: started.append(port))
    monkeypatch.setattr(time, "sleep", lambda _: None)
    for node_ip, starts in (("10.0.0.7", False), ("demo-node-0-0.demo", True), ("demo-node-0-1.demo", False)):
        started.clear()
        ctx = types.SimpleNamespace(
            args=types.SimpleNamespace(master="demo-node-0-0.demo:36543"),
            node=types.SimpleNamespace(ip=node_ip, is_server_ready=lambda *_: bool(started)),
            logger=types.SimpleNamespace(warning=lambda *_: None),
        )
        node = paddle_master.HTTPMaster(ctx)
        node.lazy_init()
        assert (started == [36543]) is starts, node_ip
        assert (node.role == paddle_master.Master.MAIN) is starts, node_ip


def test_a_master_no_pod_would_start_is_refused_where_the_cluster_would_hang(tmp_path):
    """Without POD_IP, a TrainJob's pods compare the master's DNS name with their IP: none starts
    the master on a cluster. local refuses it instead of resolving the name for them."""
    job = render(tmp_path, "kubeflow-trainer", "--workers", "2", "--command",
                 "python -m paddle.distributed.launch train_collective.py")  # fmt: skip
    (runtime,) = [
        r
        for r in load_docs(REPO / "deploy" / "trainer" / "runtimes.yaml")
        if r["metadata"]["name"] == "paddle-distributed"
    ]
    container = runtime["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"][
        "containers"
    ][0]
    container["env"] = [e for e in container["env"] if e["name"] != "POD_IP"]
    runtime["metadata"]["name"] = "paddle-without-pod-ip"
    (trainjob,) = load_docs(job)
    trainjob["spec"]["runtimeRef"]["name"] = "paddle-without-pod-ip"
    import yaml

    job.write_text(yaml.safe_dump_all([runtime, trainjob]))
    done = local(tmp_path, job)
    assert done.returncode == 1
    assert "no pod starts Paddle's rendezvous master 'demo-node-0-0.demo'" in done.stderr, done.stderr


def trainer_input(tmp_path, *flags) -> tuple[dict, dict]:
    """(this project's paddle-distributed runtime, a rendered TrainJob on it), as data."""
    job = render(tmp_path, "kubeflow-trainer", "--workers", "2", "--command", "python t.py", *flags)
    (runtime,) = [
        r
        for r in load_docs(REPO / "deploy" / "trainer" / "runtimes.yaml")
        if r["metadata"]["name"] == "paddle-distributed"
    ]
    return runtime, load_docs(job)[0]


def test_runtime_patches_merge_as_a_strategic_merge_patch_does(tmp_path):
    """Trainer's mergeRuntimePatches: volumes and volume mounts by key, tolerations replaced
    whole (no merge key), the node selector key by key."""
    runtime, trainjob = trainer_input(
        tmp_path, "--toleration", "gpu:NoSchedule", "--node-selector", "pool=gpu", "--shm"
    )
    pod_spec = runtime["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    pod_spec["tolerations"] = [{"key": "spot", "operator": "Exists"}]
    pod_spec["nodeSelector"] = {"zone": "a"}
    pod_spec["volumes"] = [{"name": "dshm", "emptyDir": {}}, {"name": "data", "emptyDir": {}}]
    runtime["metadata"]["name"] = trainjob["spec"]["runtimeRef"]["name"] = "paddle-mine"
    (pod, _), _ = pods.expand([runtime, trainjob])
    from generator.local.controllers import trainer

    jobset, _ = trainer.trainjob_jobset(trainjob, trainer.runtimes_of([runtime]))
    merged = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    assert merged["tolerations"] == [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]
    assert merged["nodeSelector"] == {"zone": "a", "pool": "gpu"}
    assert [v["name"] for v in merged["volumes"]] == ["dshm", "data"]
    assert merged["volumes"][0] == {"name": "dshm", "emptyDir": {"medium": "Memory"}}
    assert pod.container["volumeMounts"] == [{"name": "dshm", "mountPath": "/dev/shm"}]


SIDECAR_POD = {"spec": {"template": {"spec": {"containers": [{"name": "sidecar"}]}}}}
SIDECAR_PATCH = {
    "manager": "x.io/y",
    "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [{"name": "node", "template": SIDECAR_POD}]}}},
}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda rt, tj: tj["spec"].update(runtimePatches=[SIDECAR_PATCH]), "has no container 'sidecar'"),
        (lambda rt, tj: rt["spec"]["mlPolicy"].update(torch={}), "mlPolicy.torch is a Trainer framework plugin"),
        (lambda rt, tj: tj["spec"].update(suspend=True), "is suspended"),
    ],
    ids=["unknown-container", "framework-plugin", "suspended"],
)  # fmt: skip
def test_what_trainer_would_not_run_as_local_would_is_refused(tmp_path, change, message):
    runtime, trainjob = trainer_input(tmp_path)
    runtime["metadata"]["name"] = trainjob["spec"]["runtimeRef"]["name"] = "paddle-mine"
    change(runtime, trainjob)
    with pytest.raises(pods.ExpandError, match=message):
        pods.expand([runtime, trainjob])


def test_trainers_gang_plugins_mark_the_pods_as_trainer_does(tmp_path):
    """plugins/volcano annotates the pods scheduling.k8s.io/group-name, plugins/coscheduling
    labels them scheduling.x-k8s.io/pod-group, each with the TrainJob's name; the runtimes set
    the scheduler Trainer does not."""
    for flag, key, where in (
        ("--volcano", "scheduling.k8s.io/group-name", "annotations"),
        ("--coscheduling", "scheduling.x-k8s.io/pod-group", "labels"),
    ):
        found, _ = pods.expand(load_docs(render(tmp_path, "kubeflow-trainer", "--workers", "2", flag)))
        assert [getattr(p, where)[key] for p in found] == ["demo", "demo"], flag
    runtimes = {r["metadata"]["name"]: r for r in load_docs(REPO / "deploy" / "trainer" / "runtimes.yaml")}
    for name, scheduler in (
        ("paddle-distributed-volcano", "volcano"),
        ("paddle-distributed-coscheduling", "scheduler-plugins-scheduler"),
    ):
        pod_spec = runtimes[name]["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"][
            "spec"
        ]
        assert pod_spec["schedulerName"] == scheduler


# -- what a node gives a pod: GPUs, volumes (issue 27, case 9) ------------------------------------

PRINT_GPUS = 'python -c \'import os; print("CVD", "[" + os.environ.get("CUDA_VISIBLE_DEVICES", "unset") + "]")\''  # noqa: E501


def local_with(tmp_path: Path, manifests: Path, *flags: str, gpus: str | None) -> subprocess.CompletedProcess:
    """`local` on a machine whose GPUs are CUDA_VISIBLE_DEVICES=``gpus`` (None: as this one is)."""
    workdir = tmp_path / "code"
    workdir.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "CUDA_VISIBLE_DEVICES"}
    if gpus is not None:
        env["CUDA_VISIBLE_DEVICES"] = gpus
    return subprocess.run(
        [sys.executable, "-m", "generator", "local", "--workdir", str(workdir), "--timeout", "120", *flags,
         str(manifests)],
        capture_output=True, text=True, cwd=REPO, timeout=200, env=env,
    )  # fmt: skip


def test_each_pod_gets_its_own_gpus_as_the_device_plugin_allocates(tmp_path):
    """Pod i of n takes the next devices, as many as its nvidia.com/gpu limit."""
    job = render(tmp_path, "kubernetes", "--workers", "2", "--gpus", "4", "--command", PRINT_GPUS)
    done = local_with(tmp_path, job, gpus="0,1,2,3,4,5,6,7,8")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert tagged(done.stdout, "CVD") == {"demo-worker-0": "[0,1,2,3]", "demo-worker-1": "[4,5,6,7]"}
    assert "local: Completed" in done.stderr


def test_a_job_asking_for_more_gpus_than_the_machine_has_is_not_a_green_completed(tmp_path):
    """Before: Completed, exit 0, no note. Now refused before it starts; with --allow-cpu it runs on
    CPU and the verdict says what was not as on a cluster (exit 1)."""
    job = render(tmp_path, "kubernetes", "--workers", "2", "--gpus", "4", "--command", PRINT_GPUS)
    refused = local_with(tmp_path, job, gpus="0,1")
    assert refused.returncode == 1
    assert "the job asks for 8 GPUs (nvidia.com/gpu limits: demo-worker-0 4, demo-worker-1 4)" in refused.stderr
    assert "this machine has 2 (0,1)" in refused.stderr and "--allow-cpu" in refused.stderr
    assert "CVD" not in refused.stdout  # nothing ran
    on_cpu = local_with(tmp_path, job, "--allow-cpu", gpus="0,1")
    assert on_cpu.returncode == 1, on_cpu.stderr
    assert tagged(on_cpu.stdout, "CVD") == {"demo-worker-0": "[]", "demo-worker-1": "[]"}  # GPUs hidden
    assert "local: not as on a cluster (Completed here): every pod ran on CPU: the job asks for 8 GPUs" in (
        on_cpu.stderr
    )
    none = local_with(tmp_path, job, "--allow-cpu", gpus="")  # no GPU at all: nothing to hide
    assert none.returncode == 1 and "this machine has 0" in none.stderr
    assert tagged(none.stdout, "CVD") == {"demo-worker-0": "[unset]", "demo-worker-1": "[unset]"}
    assert "local: Completed" not in none.stderr


def test_machine_gpus_come_from_cuda_visible_devices_or_nvidia_smi_and_never_fail(tmp_path):
    from generator.local import resources

    assert resources.machine_gpus({"CUDA_VISIBLE_DEVICES": "2,3"})[0] == ["2", "3"]
    assert resources.machine_gpus({"CUDA_VISIBLE_DEVICES": "0,-1,2"})[0] == ["0"]  # CUDA stops at an invalid one
    assert resources.machine_gpus({"CUDA_VISIBLE_DEVICES": ""})[0] == []
    smi = tmp_path / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho 'GPU 0: A100 (UUID: GPU-a)'\necho 'GPU 1: A100 (UUID: GPU-b)'\n")
    smi.chmod(0o755)
    old = os.environ["PATH"]
    try:
        os.environ["PATH"] = f"{tmp_path}:{old}"
        assert resources.machine_gpus({}) == (["0", "1"], "nvidia-smi -L")
        smi.write_text("#!/bin/sh\necho 'NVIDIA-SMI has failed' >&2\nexit 9\n")
        assert resources.machine_gpus({})[0] == []
        os.environ["PATH"] = str(tmp_path / "none")
        assert resources.machine_gpus({})[0] == []
    finally:
        os.environ["PATH"] = old


def test_volumes_local_cannot_provide_are_named_and_the_job_is_not_a_green_completed(tmp_path):
    """A claim is not mounted here: the pods run without it and the verdict says so (exit 1). A
    hostPath at its own path, and the shared-memory emptyDir at /dev/shm, are this machine's."""
    job = render(tmp_path, "kubernetes", "--workers", "1", "--pvc", "data:/mnt/data", "--command", PRINT_GPUS)
    done = local_with(tmp_path, job, gpus=None)
    assert done.returncode == 1, done.stderr
    assert (
        "local: not as on a cluster (Completed here): pod demo-worker-0: volume data (persistentVolumeClaim) "
        "mounted at /mnt/data is not provided by local mode"
    ) in done.stderr
    explained = local_with(tmp_path, job, "--explain", gpus=None)
    assert "#   not as on a cluster: pod demo-worker-0: volume data (persistentVolumeClaim)" in explained.stdout
    fine = render(tmp_path, "kubernetes", "--workers", "1", "--host-path", f"{tmp_path}:{tmp_path}", "--shm", "1Gi",
                  "--command", PRINT_GPUS)  # fmt: skip
    done = local_with(tmp_path, fine, gpus=None)
    assert done.returncode == 0, done.stderr
    elsewhere = render(tmp_path, "kubernetes", "--workers", "1", "--host-path", f"{tmp_path}:/mnt/x",
                       "--command", PRINT_GPUS)  # fmt: skip
    done = local_with(tmp_path, elsewhere, gpus=None)
    assert done.returncode == 1 and f"this machine's {tmp_path} is not at /mnt/x here" in done.stderr


# -- the controllers' deadlines and restart limits ----------------------------------------------


def _edited(tmp_path: Path, job: Path, name: str, edit) -> Path:
    from generator.kubeyaml.load import read_documents

    docs, _ = read_documents(job)
    for doc in docs:
        edit(doc)
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}))
    return path


SLEEP = "python -c 'import time; time.sleep(120)'"


def test_an_indexed_job_past_its_active_deadline_fails_as_deadline_exceeded(tmp_path):
    def edit(doc):
        if doc.get("kind") == "Job":
            doc["spec"]["activeDeadlineSeconds"] = 3

    job = _edited(tmp_path, render(tmp_path, "kubernetes", "--workers", "2", "--command", SLEEP), "deadline", edit)
    done = local_with(tmp_path, job, gpus=None)
    assert done.returncode == 1
    assert (
        "local: Failed: Job demo-worker was active longer than its activeDeadlineSeconds 3 (DeadlineExceeded)"
        in done.stderr
    )


def test_a_kubeflow_job_keeps_its_run_policy(tmp_path):
    """runPolicy.backoffLimit counts the container restarts of OnFailure replicas (pastBackoffLimit:
    reached, not passed); runPolicy.activeDeadlineSeconds fails the job (pastActiveDeadline)."""

    def backoff(doc):
        if doc.get("kind") == "PaddleJob":
            doc["spec"]["runPolicy"] = {"backoffLimit": 2}

    failing = render(tmp_path, "kubeflow", "--workers", "1", "--command", "python -c 'raise SystemExit(5)'")
    done = local_with(tmp_path, _edited(tmp_path, failing, "kf-backoff", backoff), gpus=None)
    assert done.returncode == 1
    assert done.stdout.count("restarted (restartPolicy OnFailure, restart 1)") == 1, done.stdout
    assert (
        "PaddleJob demo has failed because it has reached the specified backoff limit (2 container restarts, "
        "runPolicy.backoffLimit 2" in done.stderr
    )

    def deadline(doc):
        if doc.get("kind") == "PaddleJob":
            doc["spec"]["runPolicy"] = {"activeDeadlineSeconds": 3}

    slow = render(tmp_path, "kubeflow", "--workers", "1", "--command", SLEEP)
    done = local_with(tmp_path, _edited(tmp_path, slow, "kf-deadline", deadline), gpus=None)
    assert done.returncode == 1
    assert "PaddleJob demo has failed because it was active longer than specified deadline" in done.stderr


def test_a_volcano_job_restarts_on_pod_failure_until_its_max_retry(tmp_path):
    """PodFailed -> RestartJob restarts every pod (retryCount + 1); at maxRetry the job fails. Only a
    pod that fails does it: with restartPolicy OnFailure (as rendered) the kubelet restarts it instead."""

    def edit(doc):
        if doc.get("kind") == "Job" and doc["apiVersion"].startswith("batch.volcano.sh"):
            doc["spec"]["maxRetry"] = 2
            for task in doc["spec"]["tasks"]:
                task["template"]["spec"]["restartPolicy"] = "Never"

    exit_4 = 'python -c \'import os,sys; sys.exit(4 if os.environ["VC_TASK_INDEX"] == "1" else 0)\''
    failing = render(tmp_path, "volcano", "--workers", "2", "--command", exit_4)
    done = local_with(tmp_path, _edited(tmp_path, failing, "vc", edit), gpus=None)
    assert done.returncode == 1
    assert "the RestartJob policy restarts every pod of Volcano Job demo (retry 1, maxRetry 2)" in done.stdout
    assert (
        "local: Failed: pod demo-trainer-1 exited with exit code 4: its RestartJob policy would restart Volcano Job "
        "demo a 2nd time, and its maxRetry is 2" in done.stderr
    )


JOBSET = """
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js}
spec:
  failurePolicy: {maxRestarts: 1}
  replicatedJobs:
  - name: node
    replicas: 1
    template:
      spec:
        backoffLimit: 0
        completions: 2
        parallelism: 2
        template:
          spec:
            restartPolicy: Never
            containers:
            - name: node
              image: paddle:3
              command: [python, -c, "import os,sys; sys.exit(3 if os.environ['JOB_COMPLETION_INDEX'] == '1' else 0)"]
"""


def test_a_jobset_recreates_its_jobs_until_failure_policy_max_restarts(tmp_path):
    job = tmp_path / "jobset.yaml"
    job.write_text(JOBSET)
    done = local_with(tmp_path, job, gpus=None)
    assert done.returncode == 1, done.stderr
    assert "the JobSet controller recreates every Job of JobSet js (restart 1 of failurePolicy.maxRestarts 1)" in (
        done.stdout
    )
    assert "JobSet js has restarted 1 times, its failurePolicy.maxRestarts 1: jobset failed due to reaching max" in (
        done.stderr
    )
    assert "(ReachedMaxRestarts)" in done.stderr
    job.write_text(JOBSET.replace("  failurePolicy: {maxRestarts: 1}\n", ""))  # none: the first failed Job fails it
    done = local_with(tmp_path, job, gpus=None)
    assert done.returncode == 1 and "recreates every Job" not in done.stdout
    assert "Job js-node-0 has 1 failed pods, more than its backoffLimit 0 (BackoffLimitExceeded)" in done.stderr


def test_kill_ends_every_process_of_the_pod_as_a_node_failure_does(tmp_path):
    """--kill: SIGKILL to the pod's processes, a child in a session of its own too (Paddle's launcher
    starts its trainers so); the Job controller then counts the failure (backoffLimit 0: Failed)."""
    command = ("python -c 'import subprocess,sys,time,pathlib; c = subprocess.Popen([sys.executable, \"-c\", "
               "\"import time; time.sleep(300)\"], start_new_session=True); pathlib.Path(\"child.pid\")"
               ".write_text(str(c.pid)); print(\"STARTED\", flush=True); time.sleep(300)'")  # fmt: skip

    def edit(doc):
        if doc.get("kind") == "Job":
            doc["spec"]["backoffLimit"] = 0

    job = _edited(tmp_path, render(tmp_path, "kubernetes", "--workers", "1", "--command", command), "kill", edit)
    done = local_with(tmp_path, job, "--kill", "demo-worker-0", "--after", "3", gpus=None)
    assert done.returncode == 1, done.stderr
    assert "[local] killed: SIGKILL to its 2 processes after 3 s (--kill)" in done.stdout
    assert "local: Failed: pod demo-worker-0 exited with signal SIGKILL" in done.stderr
    child = int((tmp_path / "code" / "child.pid").read_text())
    assert not Path(f"/proc/{child}").exists() or "zombie" in Path(f"/proc/{child}/status").read_text()
    unknown = local_with(tmp_path, job, "--kill", "demo-worker-9", "--after", "1", gpus=None)
    assert unknown.returncode == 2 and "--kill: the job has no pod 'demo-worker-9'" in unknown.stderr
