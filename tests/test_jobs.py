"""Training jobs: the five runtimes, the three ways in (jsonnet, CLI, Python), conversion,
and the errors a user gets."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from generator import cli, validate
from generator.core.paths import DEPLOY, LIBSONNET
from generator.jobs import compat
from generator.jobs import model as jobs
from generator.jobs.model import CephFS, Elastic, JobError, Role, TrainingJob, Volcano, Volume
from generator.jsonnet import engine
from generator.kubeyaml.dump import dump_documents

from .conftest import FIXTURES, REPO, load_all

EXAMPLES = REPO / "examples"
GOLDEN = REPO / "tests" / "golden"


def ps_job() -> TrainingJob:
    return TrainingJob(
        "ctr",
        "volcanosh/edlctr:v1",
        ps=Role(2, cpu="1", memory="2Gi"),
        worker=Role(3, cpu="2", memory="4Gi"),
        command=["paddle_k8s", "start_fluid"],
        env={"GLOG_v": "0"},
        volumes=[Volume("data", "/data", pvc="ctr-data")],
        node_selector={"pool": "cpu"},
        port=30236,
    )


def collective_job() -> TrainingJob:
    return TrainingJob(
        "resnet",
        "registry.baidubce.com/paddle-operator/demo-resnet:v1",
        worker=Role(4, gpu=2),
        shm="8Gi",
        command=["python", "-m", "paddle.distributed.launch", "train_fleet.py"],
        volcano=Volcano(queue="gpu"),
        tolerations=[{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
    )


CASES = [("ps", ps_job, r) for r in ("paddle-operator", "volcano", "kubernetes")] + [
    ("collective", collective_job, r) for r in ("paddle-operator", "volcano", "kubeflow", "kubeflow-trainer")
]


@pytest.mark.parametrize(("shape", "make", "runtime"), CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_golden_manifests_per_runtime(shape, make, runtime):
    job = make()
    if runtime not in jobs.runtimes_with("port"):  # the operator picks its port itself
        job.port = None
    text = dump_documents(job.render(runtime))
    golden = GOLDEN / f"{shape}-{runtime}.yaml"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_text(text)
    assert text == golden.read_text(), f"set UPDATE_GOLDEN=1 to accept a deliberate change to {golden.name}"


def test_volcano_runtime_shape():
    *reader, job = ps_job().render("volcano")
    assert [m["kind"] for m in reader] == ["ServiceAccount", "Role", "RoleBinding"]  # the pods may list pods
    spec = job["spec"]
    assert [t["name"] for t in spec["tasks"]] == ["pserver", "trainer"]
    assert spec["minAvailable"] == 5 and spec["schedulerName"] == "volcano"
    assert spec["policies"] == [
        {"event": "PodEvicted", "action": "RestartJob"},
        {"event": "PodFailed", "action": "RestartJob"},
    ]
    assert spec["tasks"][1]["policies"] == [{"event": "TaskCompleted", "action": "CompleteJob"}]
    assert set(spec["plugins"]) == {"svc", "env"}
    env = {e["name"]: e.get("value") for e in spec["tasks"][0]["template"]["spec"]["containers"][0]["env"]}
    assert env["TRAINING_ROLE"] == "PSERVER" and env["PADDLE_TRAINERS_NUM"] == "3"
    assert env["PADDLE_PSERVERS_IP_PORT_LIST"] == "ctr-pserver-0.ctr:30236,ctr-pserver-1.ctr:30236"
    assert env["POD_IP"] == "$(POD_NAME).ctr" and env["GLOG_v"] == "0"


def test_kubernetes_runtime_shape():
    objs = {(o["kind"], o["metadata"]["name"]): o for o in ps_job().render("kubernetes")}
    assert set(objs) == {
        ("ServiceAccount", "ctr"),
        ("Role", "ctr"),
        ("RoleBinding", "ctr"),
        ("Service", "ctr-ps"),
        ("StatefulSet", "ctr-ps"),
        ("Service", "ctr-worker"),
        ("Job", "ctr-worker"),
    }
    assert objs[("Role", "ctr")]["rules"] == [
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]}
    ]
    sts, job = objs[("StatefulSet", "ctr-ps")], objs[("Job", "ctr-worker")]
    assert sts["spec"]["serviceName"] == "ctr-ps" and objs[("Service", "ctr-ps")]["spec"]["clusterIP"] == "None"
    assert job["spec"]["completionMode"] == "Indexed" and job["spec"]["completions"] == 3
    pod = job["spec"]["template"]["spec"]
    assert pod["subdomain"] == "ctr-worker" and pod["serviceAccountName"] == "ctr"
    env = {e["name"]: e for e in pod["containers"][0]["env"]}
    assert env["PADDLE_TRAINER_ID"]["valueFrom"]["fieldRef"]["fieldPath"].endswith("job-completion-index']")
    assert env["PADDLE_TRAINER_ENDPOINTS"]["value"].split(",")[2] == "ctr-worker-2.ctr-worker:30236"


def test_kubeflow_runtime_maps_policies():
    job = collective_job()
    job.clean_pod_policy = "Always"
    (out,) = job.render("kubeflow")
    assert out["spec"]["runPolicy"] == {
        "cleanPodPolicy": "All",
        "schedulingPolicy": {"minAvailable": 4, "queue": "gpu"},
    }
    assert out["spec"]["paddleReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["name"] == "paddle"
    job.clean_pod_policy = "OnCompletion"
    with pytest.raises(JobError, match="cleanPodPolicy OnCompletion cannot be expressed on the kubeflow runtime"):
        job.render("kubeflow")


def test_operator_runtime_features():
    job = collective_job()
    job.elastic = Elastic("etcd:2379", 2, 4)
    # v0.3.5 never trains with fewer than every worker (issue 34, cases 3 and 4): refused
    with pytest.raises(JobError, match="cannot be expressed on the paddle-operator runtime"):
        job.render("paddle-operator")
    job.elastic = Elastic("etcd:2379", 4, 4)
    job.volcano = Volcano(queue="gpu", pod_group=True, min_available=4)  # the fewest workers
    pdj, podgroup = job.render("paddle-operator")
    # Paddle's launcher with an etcd master, not the operator's spec.elastic (launchers before 2.3)
    assert "elastic" not in pdj["spec"] and "requests" not in pdj["spec"]["worker"]
    assert pdj["spec"]["schedulingPolicy"] == {"minAvailable": 4, "queue": "gpu"}
    template = pdj["spec"]["worker"]["template"]["spec"]
    assert template["schedulerName"] == "volcano" and template["restartPolicy"] == "OnFailure"
    env = {e["name"]: e.get("value") for e in template["containers"][0]["env"]}
    assert env["PADDLE_MASTER"] == "etcd://etcd:2379" and env["PADDLE_NNODES"] == "4:4"
    assert env["PADDLE_ELASTIC_LEVEL"] == "1" and env["PADDLE_JOB_ID"] == "resnet"
    assert podgroup["kind"] == "PodGroup" and podgroup["spec"]["minMember"] == 4


@pytest.mark.parametrize(
    ("job", "runtime", "message"),
    [
        (
            TrainingJob("r", "i", worker=Role(1), heter=Role(1), ps=Role(1)),
            "volcano",
            "heter mode (heter) cannot be expressed on the volcano runtime",
        ),
        (
            TrainingJob("r", "i", worker=Role(1), intranet="Host"),
            "volcano",
            "intranet cannot be expressed on the volcano runtime (the `svc` plugin gives DNS names); "
            "runtimes that have it: paddle-operator",
        ),
        (
            TrainingJob("r", "i", worker=Role(1), volcano=Volcano()),
            "kubernetes",
            "Volcano gang scheduling (volcano) cannot be expressed on the kubernetes runtime",
        ),
        (
            TrainingJob(
                "r",
                "i",
                worker=Role(2),
                elastic=Elastic(max_replicas=3),
                command=["python", "-m", "paddle.distributed.launch", "t.py"],
            ),
            "paddle-operator",
            "elastic.maxReplicas (3) must equal roles.worker.replicas (2)",
        ),
        (
            TrainingJob(
                "r",
                "i",
                worker=Role(2),
                elastic=Elastic(min_replicas=3),
                command=["python", "-m", "paddle.distributed.launch", "t.py"],
            ),
            "volcano",
            "elastic.minReplicas (3) must not exceed elastic.maxReplicas (2)",
        ),
        (
            TrainingJob(
                "r",
                "i",
                worker=Role(2),
                ps=Role(1),
                elastic=Elastic(),
                command=["python", "-m", "paddle.distributed.launch", "t.py"],
            ),
            "kubernetes",
            "elastic training is collective",
        ),
        (
            TrainingJob(
                "r",
                "i",
                worker=Role(2),
                elastic=Elastic(etcd="etcd://e:2379"),
                command=["python", "-m", "paddle.distributed.launch", "t.py"],
            ),
            "kubernetes",
            "elastic.etcd must be host:port",
        ),
        (
            TrainingJob("r", "i", worker=Role(1), volcano=Volcano(min_resources={"cpu": "4"})),
            "volcano",
            "minResources (volcano.minResources) cannot be expressed on the volcano runtime (a Volcano Job has no "
            "field for it",
        ),
        (TrainingJob("r", "i", worker=Role("2")), "kubernetes", "got the string '2'"),
        (
            TrainingJob("r", "i", worker=Role(2), elastic=Elastic()),
            "kubernetes",
            "elastic training needs the workers' command: Paddle's launcher",
        ),
        (
            TrainingJob("r", "i", worker=Role(1), ttl=-1),
            "kubernetes",
            "ttl must be a whole number of seconds >= 0, got -1",
        ),
        (
            TrainingJob("r", "i", worker=Role(1), ttl=60),
            "paddle-operator",
            "ttl after finishing (ttl) cannot be expressed on the paddle-operator runtime (paddle-operator v0.3.5's "
            "PaddleJobSpec has no such field",
        ),
        (
            TrainingJob("r", "i", worker=Role(1), ps=Role(1), suspend=True),
            "kubernetes",
            "suspend cannot be expressed on the kubernetes runtime in parameter-server mode",
        ),
        (
            TrainingJob("r", "i", worker=Role(1), backoff_limit=2),
            "kubeflow-trainer",
            "the JobSet's `failurePolicy.maxRestarts` is the ClusterTrainingRuntime's",
        ),
        (TrainingJob("r", "i", ps=Role(1)), "paddle-operator", "roles.ps needs roles.worker"),
        (
            TrainingJob("r", "i", worker=Role(0)),
            "paddle-operator",
            "roles.worker.replicas must be a whole number >= 1, got 0",
        ),
        (
            TrainingJob("r", "i", worker=Role(1, gpu=1.5)),
            "paddle-operator",
            "roles.worker.gpu must be a whole number >= 0, got 1.5",
        ),
        (TrainingJob("r" * 60, "i", worker=Role(12)), "paddle-operator", "would exceed 63 characters"),
        (TrainingJob("r", "", worker=Role(1)), "paddle-operator", "must provide image"),
        (
            TrainingJob("r", "i", worker=Role(1)),
            "slurm",
            "runtime must be one of paddle-operator, volcano, kubeflow, kubernetes",
        ),
    ],
)
def test_bad_jobs_get_one_line_errors(job, runtime, message):
    with pytest.raises(JobError) as caught:
        job.render(runtime)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def run_cli(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "generator", *argv], cwd=REPO, capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--queue", "q"],
            "--queue: only with --volcano "
            "(runtimes that have it: paddle-operator, volcano, kubeflow, kubeflow-trainer)",
        ),
        (["--podgroup"], "--podgroup: only with --volcano"),
        (["--min-available", "1"], "--min-available: only with --volcano"),
        (
            ["--min-workers", "1"],
            "--min-workers: only with --elastic (runtimes that have it: paddle-operator, volcano, kubernetes, jobset)",
        ),
        (["--etcd", "e:2379"], "--etcd: only with --elastic"),
        (["--deadline", "0"], "--deadline: must be 1 or more, got 0"),
        (["--max-workers", "4"], "--max-workers: only with --elastic"),
        (["--cephfs-path", "/data"], "--cephfs-path: only with --cephfs"),
        (
            ["--port", "40000"],
            "--port: port cannot be expressed on the paddle-operator runtime (v0.3.5 picks the port itself",
        ),  # fmt: skip
        (["--env", "PADDLE_PORT=1", "--runtime", "volcano"], "--env: env PADDLE_PORT: this runtime sets it itself"),
        (["--env", "TRAINING_ROLE=X", "--runtime", "kubernetes"], "--env: env TRAINING_ROLE: this runtime sets it"),
        (["--ttl", "60"], "--ttl: ttl after finishing (ttl) cannot be expressed on the paddle-operator runtime"),
        (["--suspend", "--runtime", "volcano"], "--suspend: suspend cannot be expressed on the volcano runtime"),
        (
            ["--elastic", "--runtime", "kubeflow", "--command", "fleetrun t.py"],
            "--elastic: elastic cannot be expressed on the kubeflow runtime",
        ),
        # issue 27 case 3: a collective gang smaller than the peers it waits for
        (
            ["--volcano", "--min-available", "1", "--runtime", "volcano"],
            "--min-available: volcano.minAvailable (1) is below the 2 pods the job needs together",
        ),
        (
            ["--volcano", "--min-available", "1", "--elastic", "--min-workers", "2", "--command", "fleetrun t.py"],
            "--min-available: volcano.minAvailable (1) is below the 2 pods the job needs together: an elastic job's",
        ),
    ],
)
def test_flags_the_runtime_cannot_honour_are_usage_errors(argv, message):
    """Nothing given on the command line is dropped without a word."""
    done = run_cli("job", "resnet", "--image", "img", "--workers", "2", *argv)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr.strip().splitlines()[-1]
    assert done.stdout == ""


@pytest.mark.parametrize(
    "argv",
    [
        ["--volcano", "--queue", "gpu", "--priority-class", "high", "--min-available", "2"],
        [
            "--elastic",
            "--etcd",
            "etcd:2379",
            "--min-workers",
            "1",
            "--max-workers",
            "2",
            "--command",
            "fleetrun t.py",
            "--runtime",
            "volcano",
        ],
        [
            "--elastic",
            "--min-workers",
            "1",
            "--max-restart",
            "5",
            "--runtime",
            "kubernetes",
            "--command",
            "fleetrun t.py",
        ],
        ["--elastic", "--runtime", "volcano", "--command", "python -m paddle.distributed.launch t.py"],
        ["--ttl", "60", "--deadline", "600", "--backoff-limit", "1", "--suspend", "--runtime", "kubeflow"],
        ["--ttl", "60", "--backoff-limit", "1", "--priority-class", "high", "--runtime", "volcano"],
        [
            "--deadline",
            "600",
            "--suspend",
            "--managed-by",
            "kueue.x-k8s.io/multikueue",
            "--kueue-queue",
            "q",
            "--runtime",
            "kubeflow-trainer",
        ],
        ["--ttl", "0", "--deadline", "1", "--backoff-limit", "0", "--suspend", "--runtime", "kubernetes"],
        ["--cephfs", "mon:6789", "--cephfs-path", "/data", "--kube-version", "1.30"],  # cephfs: gone from 1.31
        ["--port", "40000", "--runtime", "volcano"],
        ["--port", "40000", "--runtime", "kubeflow"],
        ["--env", "PADDLE_PORT=1"],
        ["--env", "GLOG_v=1", "--runtime", "kubernetes"],
        ["--runtime", "kubeflow-trainer", "--volcano", "--queue", "gpu", "--kueue-queue", "team-a", "--shm"],
        ["--runtime", "kubeflow", "--kueue-queue", "team-a"],
        ["--runtime", "kubeflow-trainer", "--coscheduling", "--kueue-queue", "team-a"],
    ],
)
def test_flags_with_their_companion_render(argv):
    done = run_cli("job", "resnet", "--image", "img", "--workers", "2", *argv)
    assert done.returncode == 0, done.stderr


def test_a_cephfs_volume_fails_where_no_kubelet_can_mount_it():
    argv = ["job", "resnet", "--image", "img", "--workers", "2", "--cephfs", "mon:6789", "--cephfs-path", "/data"]
    done = run_cli(*argv)  # the newest release: the in-tree plugin is non-functional from 1.31
    assert done.returncode == 1 and "[volume-plugin]" in done.stderr
    assert run_cli(*argv, "--kube-version", "1.30").returncode == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--mode", "hetero"], "argument --mode: invalid choice: 'hetero'"),
        (["--heter", "1"], "--heter: roles.heter needs roles.ps and roles.worker"),
        (["--workers", "0"], "--workers: roles.worker.replicas must be a whole number >= 1, got 0"),
        (["--gpus", "1.5"], "argument --gpus: invalid int value: '1.5'"),
        (["--runtime", "slurm"], "argument --runtime: invalid choice: 'slurm'"),
        (["--cpu", "lots"], "--cpu: 'lots' is not a Kubernetes quantity"),
        (["--pvc", "data"], "--pvc: expected SOURCE:/MOUNT/PATH"),
        (
            ["--elastic", "--max-workers", "3"],
            "--max-workers: elastic.maxReplicas (3) must equal roles.worker.replicas (2)",
        ),
        (["--label", "tier=a b"], "--label: label value 'a b' of 'tier' must be"),
        (["--node-selector", "bad key!=v"], "--node-selector: label key name 'bad key!' must be"),
        (
            ["--ps", "1", "--runtime", "kubeflow"],
            "--ps: parameter-server mode (ps) cannot be expressed on the kubeflow runtime",
        ),
        (
            ["--ps", "1", "--runtime", "kubeflow-trainer"],
            "--ps: parameter-server mode (ps) cannot be expressed on the kubeflow-trainer runtime",
        ),
        (
            ["--runtime", "kubeflow-trainer", "--volcano", "--min-available", "2"],
            "--min-available: volcano.minAvailable cannot be expressed on the kubeflow-trainer runtime",
        ),
        (
            ["--runtime", "kubeflow-trainer", "--working-dir", "/code"],
            "--working-dir: workingDir cannot be expressed on the kubeflow-trainer runtime",
        ),
        (["--kueue-queue", "team-a"], "--kueue-queue: Kueue queue (kueueQueue) cannot be expressed on the paddle-"),
        (["--coscheduling", "--runtime", "volcano"], "--coscheduling: scheduler-plugins gang scheduling"),
        (
            ["--coscheduling", "--volcano", "--runtime", "kubeflow-trainer"],
            "--coscheduling: volcano and coscheduling: a job has one gang scheduler",
        ),
    ],
)
def test_cli_errors_name_the_option(argv, message):
    done = run_cli("job", "resnet", "--image", "img", "--workers", "2", *argv)
    assert done.returncode == 2
    assert message in done.stderr.strip().splitlines()[-1]
    assert done.stdout == ""


def test_cli_rejects_names_that_cannot_become_pod_names():
    done = run_cli("job", "ResNet_50", "--image", "img", "--workers", "2")
    assert done.returncode == 2 and done.stderr.startswith("paddlejob-manifests job: error: NAME: name 'ResNet_50'")


def example_command(name: str) -> list[str]:
    for line in (EXAMPLES / f"{name}.jsonnet").read_text().splitlines():
        if "paddlejob-manifests job" in line:
            return shlex.split(line.split("paddlejob-manifests ", 1)[1])
    raise AssertionError(f"{name}.jsonnet names no equivalent command")


@pytest.mark.parametrize(
    "name", ["wide-and-deep", "resnet", "wide-and-deep-volcano", "resnet-elastic", "resnet-trainer"]
)
def test_jsonnet_cli_and_python_give_identical_manifests(name, capsys):
    from_jsonnet = engine.evaluate(EXAMPLES / f"{name}.jsonnet", {})
    assert cli.main(example_command(name)) == 0
    from_cli = load_all(capsys.readouterr().out)
    args = cli.build_parser().parse_args(example_command(name))
    from generator.cli.job import job_from_args

    from_python = job_from_args(args).render(args.runtime)
    assert from_jsonnet == from_cli == from_python


def test_rendered_examples_are_the_committed_ones():
    from generator.render import pipeline as render

    files = render.render_examples(EXAMPLES)
    for rel, text in files.items():
        assert (DEPLOY / rel).read_text() == text, rel
    assert len(files) == len(list(EXAMPLES.glob("*.jsonnet"))) == 10


def test_every_example_passes_validate_and_kubectl(capsys):
    """Clean, but for the warnings an example names in a `// validate warns: RULE` line."""
    assert cli.main(["validate", "--strict-kinds", "--output", "json", str(DEPLOY / "examples")]) == 0
    found = {(Path(f["file"]).stem, f["rule"]) for f in json.loads(capsys.readouterr().out)["findings"]}
    named = {
        (path.stem, line.split("validate warns:", 1)[1].split()[0])
        for path in EXAMPLES.glob("*.jsonnet")
        for line in path.read_text().splitlines()
        if "validate warns:" in line
    }
    assert found == named
    import shutil

    if shutil.which("kubectl"):
        for path in sorted((DEPLOY / "examples").glob("*.yaml")):
            done = subprocess.run(
                ["kubectl", "label", "--local", "-f", str(path), "x=y", "-o", "name"],
                capture_output=True,
                text=True,
                env={**os.environ, "KUBECONFIG": os.devnull},
                check=False,
            )
            assert done.returncode == 0, (path.name, done.stderr)
            assert len(done.stdout.split()) == len(load_all(path.read_text()))


def test_builtin_kinds_of_the_kubernetes_runtime_pass_kubernetes_validate():
    import kubernetes_validate

    for obj in ps_job().render("kubernetes") + load_all((DEPLOY / "examples" / "data-nfs.yaml").read_text())[:2]:
        kubernetes_validate.validate(obj, "1.37.0", strict=True)


def test_convert_maps_the_seeds_legacy_job_and_round_trips(tmp_path):
    original = FIXTURES / "seeds" / "004-line0017.yaml"
    placeholder = run_cli("convert", str(original))  # the seed's image is '<Your-docker-repo>/...'
    assert placeholder.returncode == 1 and "is not an image reference" in placeholder.stderr
    seed = tmp_path / "seed.yaml"
    seed.write_text(original.read_text().replace("<Your-docker-repo>", "registry.example.com/team"))
    done = run_cli("convert", str(seed))
    assert done.returncode == 0, done.stderr
    first = load_all(done.stdout)
    assert [d["apiVersion"] for d in first] == ["batch.paddlepaddle.org/v1"]
    notes = done.stderr
    for field in ("image", "pserver.min-instance", "trainer.entrypoint", "trainer.workspace", "trainer.passes"):
        assert f"mapped spec.{field}" in notes
    for field in ("ports_num", "ports_num_for_sparse", "mountPath", "trainer.max-instance"):
        assert f"not mapped: spec.{field}:" in notes
    worker = first[0]["spec"]["worker"]["template"]["spec"]["containers"][0]
    assert (
        worker["resources"]["requests"] == {"cpu": "200m", "memory": "200Mi"} and worker["workingDir"] == "/home/job-1/"
    )
    (tmp_path / "new.yaml").write_text(done.stdout)
    again = run_cli("convert", str(tmp_path / "new.yaml"))
    assert again.returncode == 0 and load_all(again.stdout) == first
    for runtime in ("volcano", "kubernetes"):
        moved = run_cli("convert", str(tmp_path / "new.yaml"), "--to", runtime)
        assert moved.returncode == 0, moved.stderr
        report = validate.Report()
        validate.validate_text("moved.yaml", moved.stdout, validate.ObjectChecker(37), report)
        assert report.valid


def test_convert_explains_what_it_cannot_read():
    done = run_cli("convert", str(FIXTURES / "validate" / "good" / "kubeflow.yaml"))
    assert done.returncode == 1 and "converts paddlepaddle.org/v1 and batch.paddlepaddle.org/v1" in done.stderr


def test_python_compatibility_api_of_paddle_job():
    job = compat.PaddleJob(
        job_name="paddle-job",
        entry_point="python train.py",
        runtime_image="yancey1989/paddle-job",
        cpu_nums=3,
        memory="4G",
        gpu_nums=1,
        trainers=2,
        cephfs_volume=compat.CephFSVolume(monitors_addr="172.19.32.166:6789"),
    )
    # the in-tree cephfs plugin is non-functional from Kubernetes 1.31: rendering for it fails
    with pytest.raises(jobs.JobError, match=r"volume-plugin"):
        job.manifests()
    (pdj,) = job.manifests(kube_version=30)
    assert pdj["spec"]["ps"]["replicas"] == 2 and pdj["spec"]["worker"]["replicas"] == 2
    pod = pdj["spec"]["worker"]["template"]["spec"]
    assert pod["containers"][0]["resources"]["limits"] == {"cpu": "3", "memory": "4G", "nvidia.com/gpu": "1"}
    assert pod["volumes"][0]["cephfs"] == {
        "monitors": ["172.19.32.166:6789"],
        "path": "/",
        "user": "admin",
        "secretRef": {"name": "cephfs-secret"},
    }
    assert pod["containers"][0]["volumeMounts"] == [{"name": "cephfs", "mountPath": "/mnt/cephfs"}]
    # the seeds' own example spells cpu_num, use_gpu and trainer_package_path
    old = compat.PaddleJob(
        pservers=3,
        runtime_image="yancey1989/paddle-job",
        job_name="paddle-job",
        namespace="yanxu",
        use_gpu=False,
        cpu_num=3,
        trainer_package_path="/example/word2vec",
        entry_point="python train.py",
        cephfs_volume=compat.CephFSVolume(monitors_addr="172.19.32.166:6789"),
    )
    assert "workingDir: /example/word2vec" in old.to_yaml(kube_version=30)
    assert yaml.safe_load_all(old.to_yaml("volcano", kube_version=30))


def test_jsonnet_library_works_without_python():
    # _jsonnet is libjsonnet, the C++ implementation behind the `jsonnet` command
    import _jsonnet

    text = _jsonnet.evaluate_file(str(EXAMPLES / "resnet.jsonnet"), jpathdir=[str(LIBSONNET)])
    assert json.loads(text) == engine.evaluate(EXAMPLES / "resnet.jsonnet", {})


def test_description_round_trips_through_json():
    job = ps_job()
    job.volumes.append(Volume("ceph", "/mnt/ceph", cephfs=CephFS(["10.0.0.1:6789"])))
    description = job.to_description()
    assert json.loads(json.dumps(description)) == description
    assert description["roles"]["ps"] == {"replicas": 2, "cpu": "1", "memory": "2Gi"}
    assert description["volumes"][1]["cephfs"]["secretName"] == "cephfs-secret"
    assert jobs.render_description(description, "volcano", 30) == job.render("volcano", 30)


def test_converting_a_rendered_job_gives_it_back():
    """Every example PaddleJob survives convert -> render unchanged (no doubled environment)."""
    from generator.jobs import convert

    for path in sorted((DEPLOY / "examples").glob("*.yaml")):
        for doc in load_all(path.read_text()):
            if doc["apiVersion"] != "batch.paddlepaddle.org/v1":
                continue
            job, _ = convert.to_job(doc)
            assert job.render("paddle-operator")[0] == doc, path.name


def test_the_runtimes_are_listed_once():
    """features.libsonnet is the list: jsonnet's checks, the Python API and the CLI read it."""
    from generator import cli

    assert jobs.runtimes() == ("paddle-operator", "volcano", "kubeflow", "kubernetes", "kubeflow-trainer", "jobset")
    assert engine.evaluate_snippet("std.objectFields((import 'paddlejob/checks.libsonnet').roleNames)") == sorted(
        jobs.runtimes()
    )
    parser = cli.build_parser()
    job_parser = parser._subparsers._group_actions[0].choices["job"]
    (runtime,) = [a for a in job_parser._actions if a.dest == "runtime"]
    assert tuple(runtime.choices) == jobs.runtimes()
    for feature in jobs.features():
        assert set(feature["how"]) <= set(jobs.runtimes()) and feature["how"], feature["name"]


@pytest.mark.parametrize(
    ("argv", "rule"),
    [
        (["--ps", "1", "--heter", "1"], "paddlejob-heter"),
        (["--ps", "1", "--with-gloo", "1"], "paddlejob-gloo-endpoint"),
        (["--volcano"], "paddlejob-scheduling"),
        (["--intranet", "Service"], "paddlejob-intranet-service"),
    ],
)
def test_job_warns_of_what_the_operator_would_not_run_as_meant(argv, rule):
    done = run_cli("job", "demo", "--image", "img", "--workers", "2", *argv)
    assert done.returncode == 0, done.stderr
    assert "paddlejob-manifests job: warning: PaddleJob demo: " in done.stderr and f"[{rule}]" in done.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["--volcano", "--podgroup"],
        ["--elastic", "--etcd", "etcd:2379", "--command", "fleetrun t.py"],
        ["--elastic", "--command", "python -m paddle.distributed.launch t.py"],
        ["--ps", "1"],
    ],
)
def test_job_is_quiet_about_what_runs_as_meant(argv):
    done = run_cli("job", "demo", "--image", "img", "--workers", "2", *argv)
    assert done.returncode == 0 and "warning" not in done.stderr, done.stderr


def test_a_trainjob_carries_what_its_runtime_cannot_know():
    """kubeflow-trainer: PADDLE_NNODES is numNodes (the runtime says 1); placement, volumes and
    labels go into one runtime patch with a domain-prefixed manager; the queue annotation is the
    JobSet template's, where Trainer's Volcano plugin reads it."""
    (trainjob,) = collective_job().render("kubeflow-trainer")
    spec = trainjob["spec"]
    assert spec["runtimeRef"] == {"name": "paddle-distributed-volcano"}
    assert spec["trainer"]["numNodes"] == 4
    assert spec["trainer"]["env"][0] == {"name": "PADDLE_NNODES", "value": "4"}
    assert spec["trainer"]["resourcesPerNode"]["limits"] == {"nvidia.com/gpu": "2"}
    (patch,) = spec["runtimePatches"]
    assert patch["manager"] == "paddlepaddle.org/paddlejob-manifests"
    template = patch["trainingRuntimeSpec"]["template"]
    assert template["metadata"]["annotations"] == {"scheduling.volcano.sh/queue-name": "gpu"}
    pod = template["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    assert pod["containers"] == [{"name": "node", "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}]}]
    assert pod["tolerations"] == collective_job().tolerations


def test_a_trainjob_without_patches_validates_on_every_trainer_release():
    """runtimePatches came with Trainer 2.2; a TrainJob that needs none is valid from 2.0, one
    with them is refused by the older CRDs."""
    plain = TrainingJob("demo", "img", worker=Role(2), command=["python", "train.py"]).render("kubeflow-trainer")
    patched = collective_job().render("kubeflow-trainer")
    for release in [(2, 0), (2, 1), (2, 2), (2, 3)]:
        checker = validate.ObjectChecker(35, projects={"trainer": release})
        assert [f for f in checker.check(plain[0]) if f.is_error] == [], release
        refused = [f for f in checker.check(patched[0]) if f.is_error]
        assert bool(refused) == (release < (2, 2)), (release, refused)


def test_the_trainer_runtimes_are_those_deploy_trainer_holds():
    """deploy/trainer/runtimes.yaml is the jsonnet library's trainerRuntimes, and every TrainJob
    `job` writes names one of them."""
    shipped = load_all((DEPLOY / "trainer" / "runtimes.yaml").read_text())
    assert shipped == engine.evaluate_snippet("(import 'paddlejob/main.libsonnet').trainerRuntimes()")
    names = {r["metadata"]["name"] for r in shipped}
    from generator.validate.rules import trainer as trainer_rules

    assert trainer_rules.paddle_runtimes() == names  # validate's rules know every one of them
    for job in (collective_job(), TrainingJob("demo", "img", worker=Role(2))):
        assert job.render("kubeflow-trainer")[0]["spec"]["runtimeRef"]["name"] in names
    # the operator's library reads them from its generated data, kept current by `make manifests`
    generated = json.loads((LIBSONNET / "paddle-operator" / "generated" / "trainer-runtimes.json").read_text())
    assert generated == shipped


def test_the_bundle_holds_the_trainer_runtimes_when_asked_in_v1_only():
    from generator.render import bundles

    v1, v1beta1 = bundles.default_bundles()
    shipped = load_all((DEPLOY / "trainer" / "runtimes.yaml").read_text())
    on = bundles.evaluate(v1, {"trainerRuntimes": True})["operator.yaml"]
    by_name = lambda objs: sorted(objs, key=lambda o: o["metadata"]["name"])  # noqa: E731
    assert by_name(o for o in on if o["kind"] == "ClusterTrainingRuntime") == by_name(shipped)
    assert not any(o["kind"] == "ClusterTrainingRuntime" for o in bundles.evaluate(v1, {})["operator.yaml"])
    older = bundles.evaluate(v1beta1, {"trainerRuntimes": True})["operator.yaml"]
    assert not any(o["kind"] == "ClusterTrainingRuntime" for o in older)  # Trainer needs Kubernetes 1.31


def test_a_role_template_goes_into_a_trainjob_as_far_as_a_trainjob_carries_it():
    """A worker template (convert gives one) lands in trainer and one runtime patch; a field a
    TrainJob cannot carry is named, never dropped."""
    template = {
        "metadata": {"labels": {"team": "nlp"}, "annotations": {"owner": "ml"}},
        "spec": {
            "containers": [
                {
                    "name": "paddle",
                    "image": "img",
                    "env": [{"name": "GLOG_v", "value": "1"}],
                    "securityContext": {"runAsUser": 1000},
                }
            ],
            "serviceAccountName": "trainer",
        },
    }
    (trainjob,) = TrainingJob("demo", "img", worker=Role(2, template=template)).render("kubeflow-trainer")
    assert trainjob["spec"]["trainer"]["env"] == [
        {"name": "PADDLE_NNODES", "value": "2"},
        {"name": "GLOG_v", "value": "1"},
    ]
    pod = trainjob["spec"]["runtimePatches"][0]["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"][0]
    pod = pod["template"]["spec"]["template"]
    assert pod["metadata"] == template["metadata"]
    assert pod["spec"] == {
        "serviceAccountName": "trainer",
        "containers": [{"name": "node", "securityContext": {"runAsUser": 1000}}],
    }
    with_init = {"spec": {**template["spec"], "initContainers": [{"name": "wait", "image": "busybox"}]}}
    with pytest.raises(JobError, match="roles.worker.template spec.initContainers cannot be expressed"):
        TrainingJob("demo", "img", worker=Role(2, template=with_init)).render("kubeflow-trainer")


def test_convert_moves_a_paddlejob_to_a_trainjob(tmp_path):
    job = tmp_path / "job.yaml"
    job.write_text(run_cli("job", "demo", "--image", "img", "--workers", "2", "--command", "python t.py").stdout)
    done = run_cli("convert", str(job), "--to", "kubeflow-trainer")
    assert done.returncode == 0, done.stderr
    (trainjob,) = load_all(done.stdout)
    assert trainjob["kind"] == "TrainJob" and trainjob["spec"]["trainer"]["command"] == ["python", "t.py"]


def test_every_example_of_job_help_renders():
    from generator.cli.job import JOB_EXAMPLE

    commands = " ".join(JOB_EXAMPLE.replace("\\\n", " ").splitlines()).split("paddlejob-manifests ")[1:]
    assert len(commands) >= 5
    for command in commands:
        done = run_cli(*shlex.split(command.split("#")[0]))
        assert done.returncode == 0, (command, done.stderr)
