"""How fast is `validate`? Whole processes (start-up included), each against its baseline
measured in the same rounds: the commands of a case run in turn, in alternating order (A B, then
B A), and each round gives one ratio per command, so a drift of the machine's speed weighs on
both sides of a ratio alike. Printed: the median ratio and its spread (lowest-highest) in CPU
time (user + sys of the process and the workers it waited for, from wait4) and in wall time.

The machine a bench runs on is often shared: other processes take cores, and the wall time of
a run moves with them while its CPU time barely does. CPU-time ratios are the figures to trust;
wall time shows what a user waits, and is the one that says whether the parallel mode pays.

1. 10,000 PaddleJobs, `--jobs 1`: against the per-document floor (target: <= 3x in CPU). The
   floor is the least the reader does for each document on its fast path (kubeyaml/load.py,
   kubeyaml/fast.py): the file read in 1 MiB blocks and decoded as UTF-8, cut at `---` lines,
   and each document encoded, parsed by rapidyaml (`parse_in_arena` into one reused tree),
   emitted as JSON (into one reused buffer) and loaded by orjson. The default mode is shown too.
2. 100,000 mixed documents (PaddleJob, Deployment, Volcano Job, Service), `--jobs 1`: against
   the floor (<= 3x in CPU); 20,000 of them in the same rounds: time linear (5x the documents,
   ~5x the time) and peak memory flat (documents are read as a stream and not kept).
3. A finding on every document: 10,000 PaddleJobs with `intranet: Host` and no dnsPolicy (a
   warning on each of their two pod templates), against the same file clean and the floor, in
   the same rounds (<= 3.5x the floor, <= 1.3x the clean file).
4. 2,000 Deployments, `--jobs 1`: against `kubernetes-validate --strict` on all 2,000 (>= 150x);
   it takes some 35 s of CPU a run.
5. Folders: 5,000 files of one small object each, and 200 files of 25 documents: the default
   mode against `--jobs 1`, each tree against its own. The default forks a worker only onto a
   core other processes leave free, for enough work (validate/parallel.py's processes()), so it
   must never be slower than one process. Measured twice: as the machine is, and with a process
   of this bench spinning on a core (started 40 s before, that the load average sees it).
6. One small file: against `python -c 'import yaml'` (<= 3x).

kubeconform, where a binary is given (`KUBECONFORM=path`; the project never fetches or builds one:
it builds offline from its source, whose dependencies are vendored), runs beside case 1 with one
worker (`-n 1`), `-strict`, on the PaddleJob schema this project publishes in kubeconform's layout
(schemas/jsonschema): a JSON Schema check only, against everything `validate` checks.
`--instructions` (with valgrind) counts instructions instead of timing: per PaddleJob past
start-up ((N documents - 1 document) / (N - 1), `--jobs 1`, warm cache) for each build and the
floor; counts are the same on every run, however loaded the machine (valgrind cannot run
kubeconform, a Go binary: it is compared in CPU time).

Processes run as an installed tool runs: bytecode cached, and the schema cache warm (a run
before the measured ones fills both). Both builds are measured, in the same rounds: the checkout's
(interpreted) and, where mypy and a C compiler are there, the per-document modules compiled by mypyc
into a temporary folder (build_support/compile_tree.py, some 50 s of CPU; labelled `@compiled`;
`--interpreted` leaves it out). `--baseline REF` measures the `validate` of another
commit in the same rounds (its tree taken with `git archive` into /tmp; the checkout is only
read). `--quick` cuts the sizes and rounds (a minute or two; kubernetes-validate gets 200
Deployments there): for a change in progress, not for the figures.

    make bench   (or: .venv/bin/python bench/validate_bench.py [--quick] [--baseline REF] [--rounds N])
"""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

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

# Every template is clean (the warm-up checks it with --strict): a finding on every document
# costs the reader a libyaml parse of each (to place it), a different measure (case 3). The job
# cleans its pods Never: OnCompletion with parameter servers is a warning since 17580db.
PADDLEJOB = """\
apiVersion: batch.paddlepaddle.org/v1
kind: PaddleJob
metadata:
  name: wide-and-deep-{i}
  namespace: paddlecloud
spec:
  cleanPodPolicy: Never
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

# The same job on the host network without dnsPolicy: a warning (paddlejob-host-network) on
# each pod template, so a finding on every document; warnings do not stop a run (--max-errors)
PADDLEJOB_WARNED = PADDLEJOB.replace("intranet: PodIP", "intranet: Host")
assert PADDLEJOB_WARNED != PADDLEJOB

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

CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: settings-{i}}}\ndata: {{epochs: '{i}'}}\n"

# The per-document floor: what the reader does for each document at least (kubeyaml/load.py's
# _decoded_blocks and _chunks, kubeyaml/fast.py's _parse and read), and nothing else. It counts
# the documents and fails unless it read as many as the file holds.
FLOOR = r"""
import codecs, sys, orjson, ryml
tree, buffer = ryml.Tree(), bytearray(256 * 1024)
def load(text):
    tree.clear()
    tree.clear_arena()
    ryml.parse_in_arena(text.encode(), tree)
    failed, size = ryml.emit_json_to_substr(tree, tree.root_id(), buffer)
    assert not failed, "a document over the buffer"
    return orjson.loads(memoryview(buffer)[:size])
decoder, pending, count = codecs.getincrementaldecoder("utf-8-sig")("strict"), "", 0
with open(sys.argv[1], "rb") as stream:
    while True:
        block = stream.read(1 << 20)
        pending += decoder.decode(block, final=not block)
        start = 0
        while (at := pending.find("\n---", start)) >= 0:
            end = pending.find("\n", at + 4)
            if end < 0 and block:
                break  # the separator line goes on in the next block
            if pending[start : at + 1].strip():
                count += load(pending[start : at + 1]) is not None
            start = len(pending) if end < 0 else end + 1
        pending = pending[start:]
        if not block:
            break
if pending.strip():
    count += load(pending) is not None
if count != int(sys.argv[2]):
    sys.exit(f"read {count} documents, not {sys.argv[2]}")
"""


def stream(template: str, count: int, start: int = 0) -> Iterator[str]:
    """The documents of a file of ``count`` objects of ``template``, one at a time."""
    return mixed(count, [template], start)


def mixed(count: int, templates: list[str] | None = None, start: int = 0) -> Iterator[str]:
    templates = templates or [PADDLEJOB, DEPLOYMENT, VOLCANO_JOB, SERVICE]
    for i in range(start, start + count):
        yield ("---\n" if i > start else "") + templates[i % len(templates)].format(i=i, replicas=1 + i % 8)


def write(folder: Path, name: str, text: str | Iterable[str]) -> str:
    """Writes a file a document at a time: this process stays small, and the peak memory wait4
    gives for a child counts this process's (a child is a copy of it until it runs Python)."""
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as out:
        out.writelines([text] if isinstance(text, str) else text)
    return str(path)


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


class Command(NamedTuple):
    label: str
    argv: list[str]
    env: dict[str, str]


class Run(NamedTuple):
    wall: float  # seconds
    cpu: float  # user + sys seconds of the process and the children it waited for
    rss: int  # peak resident KiB (of the process or one of its children)


class Code:
    """A tree whose generator/ is measured, with a schema cache of its own."""

    def __init__(self, root: Path, cache: Path, name: str = ""):
        self.name = name  # "" for this checkout, else the commit's short name
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        self.env.update(PYTHONPATH=str(root), PADDLEJOB_MANIFESTS_CACHE=str(cache))
        where = subprocess.run(
            [PYTHON, "-c", "import generator; print(generator.__file__)"],
            env=self.env,
            cwd=tempfile.gettempdir(),
            capture_output=True,
            text=True,
        ).stdout.strip()
        if not where.startswith(str(root) + os.sep):
            raise SystemExit(f"the runs would import generator/ from {where or '?'}, not from {root}")

    def validate(self, *args: str) -> Command:
        shown = " ".join(a for a in args if "/" not in a)
        label = f"validate {shown}".strip() + (f"  @{self.name}" if self.name else "")
        return Command(label, [PYTHON, "-m", "generator", "validate", *args], self.env)


def tool(label: str, argv: list[str]) -> Command:
    return Command(label, argv, dict(os.environ))


def run(command: Command, ok=(0,)) -> Run:
    started = time.perf_counter()
    # run in a folder of no code: `python -m` puts the working folder first on sys.path, before
    # PYTHONPATH, so a run from a checkout would measure that checkout's generator/
    process = subprocess.Popen(
        command.argv,
        env=command.env,
        cwd=tempfile.gettempdir(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(process.pid, 0)  # Linux: the child and the children it waited for
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    said = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    if process.returncode not in ok:
        raise SystemExit(f"{command.label}: {' '.join(command.argv)} failed ({process.returncode}): {said[-2000:]}")
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)


class Case:
    """Commands measured in the same rounds, each against the first (the baseline of the case)."""

    def __init__(self, title: str, commands: list[Command], rounds: int):
        self.title, self.commands, self.rounds = title, commands, rounds
        self.runs: list[list[Run]] = [[] for _ in commands]

    def measure(self) -> Case:
        print(f"{self.title}  ({self.rounds} rounds; load average {load_average()})", flush=True)
        for r in range(self.rounds):
            order = range(len(self.commands)) if r % 2 == 0 else reversed(range(len(self.commands)))
            for i in order:
                self.runs[i].append(run(self.commands[i]))
        return self

    def ratios(self, i: int, base: int = 0, field: str = "cpu") -> list[float]:
        """Per round: command i's time over command base's."""
        pairs = zip(self.runs[i], self.runs[base], strict=True)
        return [getattr(a, field) / getattr(b, field) for a, b in pairs]

    def ratio(self, i: int, base: int = 0, field: str = "cpu") -> float:
        return statistics.median(self.ratios(i, base, field))

    def median(self, i: int, field: str = "cpu") -> float:
        return statistics.median(getattr(run, field) for run in self.runs[i])

    def rss(self, i: int) -> float:
        return max(run.rss for run in self.runs[i]) / 1024

    def show(self, notes: dict[int, str] | None = None, base: int = 0) -> None:
        print(f"  {'':44} {'CPU s':>7} {'ratio (spread)':>20} {'wall s':>8} {'ratio (spread)':>20}")
        for i, command in enumerate(self.commands):
            cells = []
            for field in ("cpu", "wall"):
                ratios = self.ratios(i, base, field)
                spread = f"({min(ratios):.2f}-{max(ratios):.2f})" if i != base else ""
                cells.append(f"{self.median(i, field):7.2f} {statistics.median(ratios):7.2f}x {spread:>12}")
            note = (notes or {}).get(i, "")
            print(f"  {command.label[:44]:44} {cells[0]} {cells[1]:>30}  {note}".rstrip(), flush=True)


def git_tree(ref: str) -> tuple[Path, str]:
    """The tree of commit ``ref`` in /tmp (git archive: the checkout is only read), and its name."""
    sha = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--verify", f"{ref}^{{commit}}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    root = Path(tempfile.gettempdir()) / f"validate-bench-{sha[:12]}"
    if not (root / "generator").is_dir():
        partial = Path(tempfile.mkdtemp(prefix=f"validate-bench-{sha[:12]}-"))
        archive = subprocess.Popen(["git", "-C", str(REPO), "archive", "--format=tar", sha], stdout=subprocess.PIPE)
        subprocess.run(["tar", "-x", "-C", str(partial)], stdin=archive.stdout, check=True)
        if archive.wait() != 0:
            raise SystemExit(f"git archive {sha} failed")
        if not (root / "generator").is_dir():
            partial.rename(root)
    return root, sha[:9]


def compiled_build(folder: Path) -> Path | None:
    """The per-document modules compiled by mypyc in ``folder`` (the checkout is only read), or
    None, said, where they cannot be (no mypy, no C compiler, a failed build)."""
    print("compiling the per-document modules with mypyc (build_support/compile_tree.py) ...", flush=True)
    done = subprocess.run(
        [PYTHON, str(REPO / "build_support" / "compile_tree.py"), str(folder)], capture_output=True, text=True
    )
    if done.returncode != 0:
        print(f"  no compiled build, the interpreted one only: {(done.stderr or done.stdout).strip()[-300:]}")
        return None
    return folder


def kubeconform_command(path: str) -> Command:
    """kubeconform (KUBECONFORM) on ``path``: strict, one worker, the published PaddleJob schema."""
    layout = str(REPO / "schemas" / "jsonschema") + "/{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json"
    argv = [os.environ["KUBECONFORM"], "-strict", "-summary", "-n", "1", "-schema-location", layout, path]
    return tool("kubeconform -strict -n 1", argv)


def count_instructions(command: Command) -> int:
    """Instructions the process runs (valgrind's callgrind, its children not followed)."""
    argv = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command.argv]
    env = {**command.env, "PYTHONHASHSEED": "0"}  # string hashes, so dict and set layouts, the same every run
    done = subprocess.run(argv, env=env, cwd=tempfile.gettempdir(), capture_output=True, text=True)
    found = [line for line in done.stderr.splitlines() if "Collected :" in line or "refs:" in line]
    if done.returncode not in (0, 1) or not found:
        raise SystemExit(f"{command.label}: valgrind failed ({done.returncode}): {done.stderr[-1000:]}")
    return int(found[-1].split(":")[-1].replace(",", "").split()[0])


def instructions(tmp: Path, codes: list[Code], floor) -> int:
    """--instructions: per PaddleJob past start-up, for each build and the floor, each printed as
    it is counted. kubeconform is left out: valgrind cannot run Go's runtime (it aborts in the
    scheduler), so kubeconform is compared in CPU time (case 1, KUBECONFORM=path)."""
    if shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind (apt install valgrind)")
    n = 1000
    one, many = write(tmp, "ij-1.yaml", stream(PADDLEJOB, 1)), write(tmp, "ij-n.yaml", stream(PADDLEJOB, n))
    print(f"instructions per PaddleJob past start-up ({n:,} documents against 1, `--jobs 1`, warm cache)", flush=True)
    base = (count_instructions(floor(many, n)) - count_instructions(floor(one, 1))) / (n - 1)
    print(f"  {floor(one, 1).label[:44]:44} {base / 1000:9.1f} k    1.00x the floor", flush=True)
    for code in codes:
        per = count_instructions(code.validate("--jobs", "1", many)) - count_instructions(
            code.validate("--jobs", "1", one)
        )
        print(
            f"  {code.validate().label[:44]:44} {per / (n - 1) / 1000:9.1f} k   {per / (n - 1) / base:5.2f}x the floor",
            flush=True,
        )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller inputs, fewer rounds: a minute or two")
    parser.add_argument("--baseline", metavar="REF", help="also measure this commit's validate, in the same rounds")
    parser.add_argument("--rounds", type=int, help="rounds of each case (default: 5, --quick 3)")
    parser.add_argument("--interpreted", action="store_true", help="measure the interpreted build only")
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions per PaddleJob with valgrind instead of timing"
    )
    args = parser.parse_args()
    rounds = args.rounds or (3 if args.quick else 5)
    scale = 5 if args.quick else 1  # --quick: a fifth of the documents
    tmp = Path(tempfile.mkdtemp(prefix="validate-bench-"))
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)  # some 100 MB of inputs
    ours = Code(REPO, tmp / "cache")
    codes = [ours]
    if not args.interpreted:
        built = compiled_build(tmp / "compiled")
        if built is not None:
            codes.append(Code(built, tmp / "cache-compiled", "compiled"))
    if args.baseline:
        root, name = git_tree(args.baseline)
        codes.append(Code(root, tmp / f"cache-{name}", name))
    head = subprocess.run(["git", "-C", str(REPO), "log", "-1", "--format=%h %cd", "--date=iso"], capture_output=True)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"validate bench{' (--quick: sizes cut, not the figures)' if args.quick else ''}")
    now = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    changed = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "generator"], capture_output=True)
    changed_files = len(changed.stdout.splitlines())
    print(f"  commit {head.stdout.decode().strip() or '?'}, {cores} cores, {now}")
    if changed_files:
        print(f"  the checkout's generator/ as it is: {changed_files} files differ from the commit")
    print(f"  load average at the start: {load_average()}")
    print("  the machine may be shared: CPU-time ratios are the figures to trust, wall time moves with its load")
    started = time.monotonic()

    # warm every tree (bytecode, the schema cache of each kind measured), and make sure that the
    # clean inputs are clean and the warned ones are not, for each tree: --strict fails on a warning
    warm = write(tmp, "warm.yaml", [*mixed(40), "---\n", *stream(CONFIGMAP, 1)])
    warned_sample = write(tmp, "warned-sample.yaml", stream(PADDLEJOB_WARNED, 2))
    for code in codes:
        run(code.validate("--jobs", "1", "--strict", warm))
        run(code.validate("--jobs", "1", "--strict", warned_sample), ok=(1,))

    def floor(path: str, count: int) -> Command:
        return tool("per-document floor (rapidyaml, orjson)", [PYTHON, "-c", FLOOR, path, str(count)])

    def every(*args: str) -> list[Command]:
        return [code.validate(*args) for code in codes]

    if args.instructions:
        return instructions(tmp, codes, floor)

    n_jobs = 10_000 // scale
    jobs = write(tmp, "jobs.yaml", stream(PADDLEJOB, n_jobs))
    kubeconform = [kubeconform_command(jobs)] if os.environ.get("KUBECONFORM") else []
    case = Case(
        f"{n_jobs:,} PaddleJobs, one file",
        [floor(jobs, n_jobs), *every("--jobs", "1", jobs), ours.validate(jobs), *kubeconform],
        rounds,
    ).measure()
    case.show({1: "(target: <= 3x in CPU)", 1 + len(codes): "(default: parallel when it pays)"})
    if kubeconform:
        k = len(case.commands) - 1
        for i in range(1, 1 + len(codes)):
            speed = case.ratios(k, i)  # kubeconform's CPU time over validate's: validate's documents per its second
            print(
                f"  {case.commands[i].label}: {statistics.median(speed):.2f}x kubeconform's documents per CPU second "
                f"({min(speed):.2f}-{max(speed):.2f}), one worker each   (target: >= 4x)"
            )

    n_large, n_small = 100_000 // scale, 20_000 // scale
    large = write(tmp, "mixed-large.yaml", mixed(n_large))
    small = write(tmp, "mixed-small.yaml", mixed(n_small))
    large_runs, small_runs = every("--jobs", "1", large), every("--jobs", "1", small)
    small_runs = [c._replace(label=f"{c.label}  ({n_small:,} docs)") for c in small_runs]
    case = Case(
        f"{n_large:,} mixed documents (PaddleJob, Deployment, Volcano Job, Service), one file",
        [floor(large, n_large), *large_runs, *small_runs],
        max(3, rounds - 2),
    ).measure()
    case.show({1: "(target: <= 3x in CPU)"})
    for k, code in enumerate(codes):
        big, little = 1 + k, 1 + len(codes) + k
        print(
            f"  {n_large // n_small}x the documents{f'  @{code.name}' if code.name else ''}: "
            f"{case.median(big) / case.median(little):.2f}x the CPU time, "
            f"{case.median(big, 'wall') / case.median(little, 'wall'):.2f}x the wall time "
            f"(linear: ~{n_large // n_small}x); "
            f"peak memory {case.rss(little):.1f} MB -> {case.rss(big):.1f} MB (flat: ~1x)"
        )

    warned = write(tmp, "jobs-warned.yaml", stream(PADDLEJOB_WARNED, n_jobs))
    commands = [floor(warned, n_jobs)]
    for code in codes:
        commands += [code.validate("--jobs", "1", jobs), code.validate("--jobs", "1", "--max-errors", "0", warned)]
    labelled = [commands[0]] + [
        c._replace(
            label=("finding on every document: " if i % 2 else "clean: ") + c.label.replace("--max-errors 0", "")
        )
        for i, c in enumerate(commands[1:])
    ]
    case = Case(f"{n_jobs:,} PaddleJobs with a finding on every document, and the same file clean", labelled, rounds)
    case.measure().show({2: "(target: <= 3.5x in CPU)"})
    for k, code in enumerate(codes):
        clean, found = 1 + 2 * k, 2 + 2 * k
        ratios = case.ratios(found, clean)
        print(
            f"  finding on every document / clean{f'  @{code.name}' if code.name else ''}: "
            f"{statistics.median(ratios):.2f}x in CPU ({min(ratios):.2f}-{max(ratios):.2f}), "
            f"{case.ratio(found, clean, 'wall'):.2f}x in wall   (target: <= 1.3x)"
        )

    n_deploy = 2000
    n_kv = n_deploy // 10 if args.quick else n_deploy
    deployments = write(tmp, "deployments.yaml", stream(DEPLOYMENT, n_deploy))
    kv_input = write(tmp, "deployments-kv.yaml", stream(DEPLOYMENT, n_kv))
    kv = tool(
        f"kubernetes-validate --strict ({n_kv:,} docs)",
        [str(Path(PYTHON).parent / "kubernetes-validate"), "--strict", "--quiet", "-k", "1.37.0", kv_input],
    )
    case = Case(
        f"{n_deploy:,} Deployments, Kubernetes 1.37, strict", [kv, *every("--jobs", "1", deployments)], min(rounds, 3)
    ).measure()
    case.show()
    for i in range(1, len(case.commands)):
        # documents per second over kubernetes-validate's, per round
        speed = [n_deploy / n_kv / ratio for ratio in case.ratios(i)]
        wall = [n_deploy / n_kv / ratio for ratio in case.ratios(i, field="wall")]
        print(
            f"  {case.commands[i].label}: {statistics.median(speed):.0f}x kubernetes-validate's documents per "
            f"CPU second ({min(speed):.0f}-{max(speed):.0f}), {statistics.median(wall):.0f}x per wall second   "
            "(target: >= 150x)"
        )

    def folders(title: str, rounds: int) -> None:
        for path, what, note in (
            (folder, f"{n_files:,} files of one small object each", "(wall: never above 1x)"),
            (repo, f"{n_repo} files of 25 documents", "(on 2 idle cores, wall: <= 0.59x)"),
        ):
            commands = []
            for code in codes:
                commands += [code.validate("--jobs", "1", str(path)), code.validate(str(path))]
            case = Case(f"{what} in a folder{title}", commands, rounds).measure()
            case.show()
            for k, code in enumerate(codes):  # each tree's default against its own --jobs 1
                cpu, wall = case.ratios(2 * k + 1, 2 * k), case.ratios(2 * k + 1, 2 * k, "wall")
                print(
                    f"  default / --jobs 1{f'  @{code.name}' if code.name else ''}: "
                    f"{statistics.median(cpu):.2f}x the CPU time ({min(cpu):.2f}-{max(cpu):.2f}), "
                    f"{statistics.median(wall):.2f}x the wall time ({min(wall):.2f}-{max(wall):.2f})   {note}"
                )

    n_files, n_repo = 5000 // scale, 200 // scale
    folder, repo = tmp / "configmaps", tmp / "repo"
    for f in range(n_files):
        write(folder / f"app-{f // 100:03d}", f"cm-{f:05d}.yaml", CONFIGMAP.format(i=f))
    templates = [PADDLEJOB, DEPLOYMENT, VOLCANO_JOB, SERVICE]
    for f in range(n_repo):
        write(repo / f"app-{f // 20:02d}", f"manifests-{f:03d}.yaml", stream(templates[f % 4], 25, start=f * 25))
    folders("", 2 * rounds)  # cheap runs: more rounds

    one = write(tmp, "one.yaml", stream(PADDLEJOB, 1))
    imports = tool("python -c 'import yaml'", [PYTHON, "-c", "import yaml"])
    case = Case("one small file (one PaddleJob)", [imports, *every(one)], 2 * rounds)
    case.measure().show({1: "(target: <= 3x)"})

    # The folders again with a core taken: a process of this bench spins on it, from SPIN_LEAD
    # seconds before (the load average of the last minute follows a new process slowly)
    spin_lead = 20 if args.quick else 40
    print(f"(a process spins from now on; {spin_lead} s for the load average to see it)", flush=True)
    spinner = subprocess.Popen([PYTHON, "-c", "while True: pass"])
    try:
        time.sleep(spin_lead)
        folders(", a core busy (a spinning process)", 2 * rounds)
    finally:
        spinner.kill()
        spinner.wait()

    print(f"load average at the end: {load_average()}   ({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
