"""How fast is `validate`? Whole processes (start-up included), each against its baseline
measured in the same run, as the medians of paired runs:

1. 10,000 PaddleJobs: `validate` against rapidyaml's load of the same file into Python objects
   (its JSON emitter and orjson, per document): the parser floor (target: <= 2x). The default
   cuts a file this big into parts checked on every core; `--jobs 1` (one process) is shown too.
2. 2,000 Deployments: documents per second against `kubernetes-validate --strict` (>= 150x),
   by default and with `--jobs 1`; kubernetes-validate runs before and after ours (its mean).
3. 20,000 and 100,000 mixed documents: time linear (5x the documents, ~5x the time) and peak
   memory flat (documents are read as a stream and not kept).
4. 200 files in a folder: the default (worker processes, one per core) against --jobs 1 (>= 1.7x
   on 2 cores).
5. One small file: against `python -c 'import yaml'` (<= 3x).

Processes run as an installed tool runs: bytecode cached, and the schema cache warm (a run
before the measured ones fills both).

    make bench   (or: .venv/bin/python bench/validate_bench.py [--kv-sample N] [--runs N] [--code CHECKOUT])
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: trainer-{i}
  labels: {{app: trainer-{i}, team: ml}}
spec:
  replicas: {replicas}
  selector:
    matchLabels: {{app: trainer-{i}}}
  template:
    metadata:
      labels: {{app: trainer-{i}}}
    spec:
      containers:
        - name: paddle
          image: registry.baidubce.com/paddlepaddle/paddle:2.5.{i}
          args: ["--epochs", "{i}"]
          env:
            - {{name: PADDLE_TRAINERS_NUM, value: "{replicas}"}}
          resources:
            requests: {{cpu: 500m, memory: 1Gi}}
            limits: {{cpu: "2", memory: 4Gi}}
"""

PADDLEJOB = """\
apiVersion: batch.paddlepaddle.org/v1
kind: PaddleJob
metadata:
  name: wide-and-deep-{i}
  namespace: paddlecloud
spec:
  cleanPodPolicy: OnCompletion
  intranet: PodIP
  ps:
    replicas: 2
    template:
      spec:
        containers:
          - name: paddle
            image: registry.baidubce.com/paddle-operator/demo-wide-and-deep:v1
            resources:
              limits: {{cpu: "2", memory: 4Gi}}
  worker:
    replicas: {replicas}
    template:
      spec:
        containers:
          - name: paddle
            image: registry.baidubce.com/paddle-operator/demo-wide-and-deep:v1
            env:
              - {{name: EPOCHS, value: "{i}"}}
            volumeMounts:
              - {{name: dshm, mountPath: /dev/shm}}
        volumes:
          - name: dshm
            emptyDir: {{medium: Memory}}
"""


VOLCANO_JOB = """\
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: mnist-{i}
spec:
  minAvailable: {replicas}
  schedulerName: volcano
  tasks:
    - name: worker
      replicas: {replicas}
      template:
        spec:
          restartPolicy: OnFailure
          containers:
            - name: paddle
              image: registry.baidubce.com/paddlepaddle/paddle:2.5.{i}
              command: ["python", "-m", "paddle.distributed.launch", "train.py"]
"""

SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: trainer-{i}
  labels:
    app: trainer-{i}
spec:
  selector:
    app: trainer-{i}
  ports:
    - {{name: http, port: 80, targetPort: 8080}}
"""

# rapidyaml's load of a file into Python objects: the parser floor
RYML_LOAD = """
import sys, orjson, ryml
tree = ryml.parse_in_arena(open(sys.argv[1], "rb").read())
root, docs = tree.root_id(), []
child = tree.first_child(root) if tree.is_stream(root) else root
while child != ryml.NONE:
    docs.append(orjson.loads(ryml.emit_json_malloc(tree, child)))
    child = tree.next_sibling(child) if tree.is_stream(root) else ryml.NONE
assert len(docs) > 1
"""
CSAFE_LOAD = "import sys, yaml; list(yaml.load_all(open(sys.argv[1], 'rb'), Loader=yaml.CSafeLoader))"


def stream(template: str, count: int, start: int = 0) -> str:
    return "---\n".join(template.format(i=i, replicas=1 + i % 8) for i in range(start, start + count))


def mixed(count: int) -> str:
    templates = [PADDLEJOB, DEPLOYMENT, VOLCANO_JOB, SERVICE]
    return "---\n".join(templates[i % 4].format(i=i, replicas=1 + i % 8) for i in range(count))


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path)


class Runner:
    def __init__(self, code: Path, cache: Path):
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        self.env.update(PYTHONPATH=str(code), PADDLEJOB_MANIFESTS_CACHE=str(cache))

    def run(self, argv: list[str], ok=(0,)) -> tuple[float, int]:
        """(seconds, peak resident KiB) of one process."""
        started = time.perf_counter()
        process = subprocess.Popen(argv, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode not in ok:
            said = process.stderr.read().decode()[-2000:]
            raise SystemExit(f"{' '.join(argv)} failed ({process.returncode}): {said}")
        process.stderr.close()
        return seconds, usage.ru_maxrss

    def validate(self, *args: str) -> list[str]:
        return [PYTHON, "-m", "generator", "validate", *args]

    def paired(self, runs: int, *commands: list[str]) -> list[float]:
        """The median seconds of each command, the commands run in turn ``runs`` times."""
        for command in commands:
            self.run(command)  # warm: bytecode, schema cache, page cache
        times: list[list[float]] = [[] for _ in commands]
        for _ in range(runs):
            for i, command in enumerate(commands):
                times[i].append(self.run(command)[0])
        return [statistics.median(t) for t in times]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kv-sample", type=int, default=2000, help="Deployments given to kubernetes-validate")
    parser.add_argument("--runs", type=int, default=3, help="paired runs of each measurement (medians)")
    parser.add_argument("--code", type=Path, default=REPO, help="checkout whose generator/ is measured")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp())
    runner = Runner(args.code, tmp / "cache")
    runs = args.runs
    results = {}

    help_text = subprocess.run(runner.validate("--help"), env=runner.env, capture_output=True, text=True).stdout
    one_process = ["--jobs", "1"] if "--jobs" in help_text else []  # a checkout from before --jobs: one process

    jobs = write(tmp, "jobs.yaml", stream(PADDLEJOB, 10_000))
    t_ours, t_alone, t_ryml, t_csafe = runner.paired(
        runs,
        runner.validate(jobs),
        runner.validate(*one_process, jobs),
        [PYTHON, "-c", RYML_LOAD, jobs],
        [PYTHON, "-c", CSAFE_LOAD, jobs],
    )
    results["jobs"] = t_ours / t_ryml
    print("10,000 PaddleJobs, one file")
    print(f"  rapidyaml load into Python     {t_ryml:7.2f} s   1.00x")
    print(f"  PyYAML CSafeLoader load        {t_csafe:7.2f} s   {t_csafe / t_ryml:5.2f}x")
    print(f"  validate --jobs 1              {t_alone:7.2f} s   {t_alone / t_ryml:5.2f}x   (one process)")
    print(f"  validate                       {t_ours:7.2f} s   {t_ours / t_ryml:5.2f}x   (target: <= 2x)")

    deployments = write(tmp, "deployments.yaml", stream(DEPLOYMENT, 2000))
    sample = write(tmp, "sample.yaml", stream(DEPLOYMENT, args.kv_sample))
    # kubernetes-validate runs for about a minute: once before our runs and once after, so that
    # a drift of the machine's speed meanwhile weighs on both sides of the ratio alike
    kv = [str(Path(PYTHON).parent / "kubernetes-validate"), "--strict", "--quiet", "-k", "1.37.0", sample]
    t_kv_before, _ = runner.run(kv)
    t_deploy, t_deploy_alone = runner.paired(
        runs, runner.validate(deployments), runner.validate(*one_process, deployments)
    )
    t_kv_after, _ = runner.run(kv)
    t_kv = (t_kv_before + t_kv_after) / 2
    ours_rate, alone_rate, kv_rate = 2000 / t_deploy, 2000 / t_deploy_alone, args.kv_sample / t_kv
    results["kv"] = ours_rate / kv_rate
    print(f"2,000 Deployments, Kubernetes 1.37, strict (kubernetes-validate on the first {args.kv_sample})")
    rates = f"(before: {args.kv_sample / t_kv_before:.0f}, after: {args.kv_sample / t_kv_after:.0f})"
    print(f"  kubernetes-validate --strict   {kv_rate:7.0f} docs/s   {rates}")
    print(f"  validate --jobs 1              {alone_rate:7.0f} docs/s   {alone_rate / kv_rate:5.0f}x   (one process)")
    print(f"  validate                       {ours_rate:7.0f} docs/s   {results['kv']:5.0f}x   (target: >= 150x)")

    small_count, large_count = 20_000, 100_000
    small = write(tmp, "mixed-20k.yaml", mixed(small_count))
    large = write(tmp, "mixed-100k.yaml", mixed(large_count))
    runner.run(runner.validate(small))
    t_small, m_small = runner.run(runner.validate(small))
    t_large, m_large = runner.run(runner.validate(large))
    print("mixed documents (PaddleJob, Deployment, Volcano Job, Service), one file")
    print(f"  {small_count:>7,}                       {t_small:7.2f} s   {m_small / 1024:6.1f} MB peak")
    print(f"  {large_count:>7,}                       {t_large:7.2f} s   {m_large / 1024:6.1f} MB peak")
    print(
        f"  5x the documents               {t_large / t_small:5.2f}x the time (linear: ~5x)   "
        f"{m_large / m_small:5.2f}x the memory (flat: ~1x)"
    )

    folder = tmp / "repo"
    templates = [PADDLEJOB, DEPLOYMENT, VOLCANO_JOB, SERVICE]
    for f in range(200):
        write(folder / f"app-{f // 20:02d}", f"manifests-{f:03d}.yaml", stream(templates[f % 4], 25, start=f * 25))
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    t_one, t_all = runner.paired(runs, runner.validate(*one_process, str(folder)), runner.validate(str(folder)))
    results["folder"] = t_one / t_all
    print(f"200 files in a folder (5,000 documents), {cores} cores")
    print(f"  --jobs 1                       {t_one:7.2f} s   1.00x")
    print(f"  default (one process per core) {t_all:7.2f} s   {t_one / t_all:5.2f}x faster   (target: >= 1.7x)")

    one = write(tmp, "one.yaml", stream(PADDLEJOB, 1))
    t_import, t_one_file = runner.paired(runs, [PYTHON, "-c", "import yaml"], runner.validate(one))
    results["startup"] = t_one_file / t_import
    print("one small file (one PaddleJob)")
    print(f"  python -c 'import yaml'        {t_import:7.3f} s   1.00x")
    print(f"  validate                       {t_one_file:7.3f} s   {t_one_file / t_import:5.2f}x   (target: <= 3x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
