"""How fast is `validate`? Ratios against baselines measured in the same run.

1. Against kubernetes-validate --strict, on the same 2,000 Deployments (documents per second).
   kubernetes-validate reloads its schema for every document; we compile once and reuse.
2. Against PyYAML's CSafeLoader alone, on 10,000 PaddleJobs: the whole validation (parse,
   CRD schema, operator rules, pod rules) should cost at most 1.5x the bare parse.
3. Memory: the peak while validating files of 5,000 and 25,000 PaddleJobs; the file is parsed
   as a stream and documents are checked one at a time and not kept, so the peak should not grow
   (the scalar-resolution cache is bounded at 4,096 entries).

    make bench-validate   (or: .venv/bin/python bench/validate_bench.py [--kv-sample N])
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from generator import validate  # noqa: E402

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
  withGloo: 1
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


def stream(template: str, count: int) -> str:
    return "---\n".join(template.format(i=i, replicas=1 + i % 8) for i in range(count))


def timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def ours(path: str) -> validate.Report:
    return validate.validate_files([path], validate.ObjectChecker(37))


def write(folder: str, name: str, text: str) -> str:
    path = Path(folder) / name
    path.write_text(text)
    return str(path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kv-sample", type=int, default=2000, help="Deployments given to kubernetes-validate")
    args = parser.parse_args()

    import kubernetes_validate

    tmp = tempfile.mkdtemp()
    deployments = write(tmp, "deployments.yaml", stream(DEPLOYMENT, 2000))
    report = ours(deployments)
    assert report.documents == 2000 and report.valid, validate.format_text(report)[:2000]
    t_ours = min(timed(lambda: ours(deployments)) for _ in range(3))
    # kubernetes-validate's CLI path: its own YAML loading, then a schema load and check per document
    sample = write(tmp, "sample.yaml", stream(DEPLOYMENT, args.kv_sample))
    t_kv = timed(lambda: kubernetes_validate.utils.validate_file(sample, "1.37.0", True, True, True))
    ours_rate, kv_rate = 2000 / t_ours, args.kv_sample / t_kv
    print(f"2,000 Deployments, Kubernetes 1.37, strict (kubernetes-validate on the first {args.kv_sample})")
    print(f"  kubernetes-validate --strict  {kv_rate:10.0f} docs/s")
    print(f"  paddlejob-manifests validate  {ours_rate:10.0f} docs/s   {ours_rate / kv_rate:6.0f}x   (target: >= 100x)")

    text = stream(PADDLEJOB, 10_000)
    jobs = write(tmp, "jobs.yaml", text)
    assert ours(jobs).valid

    def load_only() -> None:
        with open(jobs) as stream:
            list(yaml.load_all(stream, Loader=yaml.CSafeLoader))

    t_load = min(timed(load_only) for _ in range(3))
    t_check = min(timed(lambda: ours(jobs)) for _ in range(3))
    lines = text.count("\n")
    print(f"10,000 PaddleJobs ({lines:,} lines)")
    print(f"  CSafeLoader alone             {t_load:8.2f} s   1.00x   ({lines / t_load:,.0f} lines/s)")
    print(f"  validate (parse + all checks) {t_check:8.2f} s   {t_check / t_load:5.2f}x   (target: <= 1.5x)")

    peaks = {}
    ours(write(tmp, "warm.yaml", stream(PADDLEJOB, 10)))  # compile the schemas outside the measurement
    small, large = 5_000, 25_000
    for count in (small, large):
        path = write(tmp, f"jobs-{count}.yaml", stream(PADDLEJOB, count))
        tracemalloc.start()
        ours(path)
        peaks[count] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    print("memory peak while validating a file")
    for count, peak in peaks.items():
        print(f"  {count:>6,} PaddleJobs             {peak / 1e6:8.2f} MB")
    print(f"  5x the documents              {peaks[large] / peaks[small]:8.2f}x the memory   (target: flat, ~1x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
