"""A seeded mutation fuzzer over the inputs users hand us: `validate`, `convert`, `local --explain`,
`render --params` and `render FILE.jsonnet`.

    python -m tests.fuzz --seconds 60 --seed 1     # what CI runs (tests/test_fuzz.py)
    python -m tests.fuzz --seconds 3600            # longer, by hand

It mutates the fixture corpus and the examples (byte flips, YAML's special spellings, tags,
anchors and aliases, deep nesting, stray bytes, separators) and feeds each result to the same
library calls the CLI makes. Allowed outcomes: a result, or one of the errors the CLI turns
into exit 1 or 2. Anything else (an exception, more than 2 s, more than 300 MB) is printed
with the input's seed and the process exits 1; a native crash kills it, which the test sees.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import resource
import sys
import tempfile
import time
import traceback
from pathlib import Path

from generator import validate
from generator.core import values as cliargs
from generator.jobs import convert
from generator.jobs import model as jobs
from generator.jsonnet import sandbox
from generator.kubeyaml.load import read_documents
from generator.local import run as localrun
from generator.render import params
from generator.schema import kubernetes as kube
from generator.validate import outputs

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted(
    p for folder in ("tests/fixtures/validate", "tests/fixtures/seeds") for p in (ROOT / folder).rglob("*.y*ml")
)
JSONNET = sorted((ROOT / "examples").glob("*.jsonnet"))
JOBS = sorted((ROOT / "deploy" / "examples").glob("*.yaml"))  # rendered jobs of every runtime, for `local`
TIME_LIMIT = 2.0
MEMORY_LIMIT_MB = 300

TOKENS = [
    b"y", b"n", b"yes", b"on", b"~", b"null", b"08", b"0o17", b"1e3", b".nan", b".inf", b"12:30", b"=", b"<<",
    b"!!int", b"!!bool", b"!!binary", b"!!set", b"!!python/object:os.system", b"!Custom", b"&a", b"*a", b"*b",
    b"---", b"--- x", b"...", b"%YAML 1.1", b"? ", b"- ", b": ", b"{", b"}", b"[", b"]", b"'", b'"', b"|", b">",
    b"\t", b"\xff", b"\xc3", b"\x00", b"\r\n", b"#", b"1Ei", b"1e99999999999", b"9" * 400, b"-0b101", b"0x",
]  # fmt: skip
JSONNET_TOKENS = [
    "importstr '/etc/passwd'", "import '../x'", "std.pow(2, 1100)", "[", "]", "{", "}", "(", ")", "local",
    "tailstrict", "error 'x'", "std.range(1, 100000)", "'", "|||", "$", "self", "super", "::", "+:", "null",
]  # fmt: skip


def peak_mb() -> float:
    """This process's peak resident memory. /proc's VmHWM, not getrusage: ru_maxrss survives
    exec, so a fuzzer started from a large pytest process would report pytest's size."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _size(rng: random.Random) -> int:
    """Mostly small, sometimes near the 3 MiB document limit (issue 24's budget classes)."""
    return rng.choice([10, 1000, 100_000, 1_000_000])


# Issue 24's classes: long dash runs, huge flow lists, NUL floods, big comments of what the
# fast reader's scans look for, merge keys in every order, and escapes go-yaml reads otherwise.
HOSTILE = [
    lambda rng: b"\nd:\n" + b"-\n" * _size(rng),
    lambda rng: b"\nf: [" + b"{}," * (_size(rng) // 2) + b"]\n",
    lambda rng: b"\0" * _size(rng),
    lambda rng: b"\n#" + rng.choice([b"&", b"?", b"|x", b"> ", b" }", b":,", b"\\"]) * (_size(rng) // 2) + b"\n",
    lambda rng: rng.choice([
        b"\nmetadata: {name: ok, <<: {name: merged}}\n", b"\nmetadata: {<<: [{name: a}, {name: b}], name: c}\n",
        b"\nm:\n  <<: {a: 1}\n  <<: {a: 2}\n  a: 3\n", b"\nm: {a: &x 1, b: &x 2, c: *x}\n",
    ]),
    lambda rng: b'\ne: "' + rng.choice([b"\\/", b"\\'", b"\\ud800", b"\\x41", b"\\\\/", b"\\N"]) + b'"\n',
    lambda rng: b'{"j": ' + rng.choice([b"1e400", b"-1e400", b"1" * 400, b"18446744073709551617", b'"\\ud800"']) + b"}",
]  # fmt: skip


def mutate(data: bytes, rng: random.Random) -> bytes:
    """A few edits of ``data``: flips, inserted tokens, repeated or dropped spans, deep nesting."""
    data = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        where = rng.randint(0, len(data))
        choice = rng.random()
        if choice < 0.35:
            data[where:where] = rng.choice(TOKENS) + rng.choice([b"", b" ", b"\n"])
        elif choice < 0.5 and data:
            data[min(where, len(data) - 1)] = rng.randrange(256)
        elif choice < 0.65:
            end = min(len(data), where + rng.randint(1, 200))
            data[where:where] = bytes(data[where:end]) * rng.randint(1, 50)
        elif choice < 0.75:
            del data[where : where + rng.randint(1, 100)]
        elif choice < 0.85:
            depth = rng.choice([10, 150, 250, 6000])
            opener, closer = rng.choice([(b"[", b"]"), (b"{a: ", b"}"), (b"- ", b"")])
            data[where:where] = opener * depth + b"x" + closer * depth
        elif choice < 0.9:
            data[where:where] = rng.choice(HOSTILE)(rng)
        else:
            anchor = b"&a [" + b",".join([b"*a"] * 3) + b"]" if rng.random() < 0.3 else b"&a [x, x, x]"
            data[where:where] = b"\nk: " + anchor + b"\nl: [" + b",".join([b"*a"] * rng.randint(2, 30)) + b"]\n"
    return bytes(data)


def mutate_jsonnet(text: str, rng: random.Random) -> str:
    for _ in range(rng.randint(1, 4)):
        where = rng.randint(0, len(text))
        text = text[:where] + " " + rng.choice(JSONNET_TOKENS) + " " + text[where:]
    return text


def run_one(target: str, data: bytes, checker, workdir: Path) -> None:
    """One input through one entry point; raises only on what the CLI would not handle."""
    if target == "validate":
        report = validate.Report(max_errors=1000)
        validate.validate_stream("fuzz.yaml", data, checker, report)
        outputs.json_report(report)
        outputs.text(report)
    elif target == "convert":
        docs, problems = read_documents(data)
        if any(p.severity == "error" for p in problems):
            return
        for doc in docs:
            try:
                job, _ = convert.to_job(doc)
                job.render("paddle-operator")
            except (convert.ConvertError, jobs.JobError):
                pass
    elif target == "local":
        with contextlib.suppress(localrun.LocalError):
            localrun.explain(localrun.prepare(data, "fuzz.yaml", sys.executable, workdir))
    elif target == "params":
        path = workdir / "params.yaml"
        path.write_bytes(data)
        with contextlib.suppress(cliargs.UsageError):
            params.check(params.read_params_file(str(path)))
    else:
        path = workdir / "job.jsonnet"
        path.write_bytes(data)
        with contextlib.suppress(sandbox.SandboxError):
            sandbox.evaluate_files([path])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    checker = validate.ObjectChecker(kube.known_versions()[-1])
    corpus = [p.read_bytes() for p in CORPUS]
    jobs_corpus = [p.read_bytes() for p in JOBS]
    sources = [p.read_text() for p in JSONNET]
    deadline = time.monotonic() + args.seconds
    counts: dict[str, int] = {}
    failures = 0
    memory_reported = False
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        while time.monotonic() < deadline:
            case_seed = rng.randrange(1 << 30)
            case = random.Random(case_seed)
            target = case.choices(["validate", "convert", "local", "params", "jsonnet"], weights=[50, 15, 15, 15, 5])[0]
            if target == "jsonnet":
                data = mutate_jsonnet(case.choice(sources), case).encode()
            elif target == "local":
                data = mutate(case.choice(jobs_corpus), case)
            else:
                data = mutate(case.choice(corpus), case)
            started = time.perf_counter()
            try:
                run_one(target, data, checker, workdir)
            except Exception:  # noqa: BLE001 - the fuzzer reports every unexpected error
                failures += 1
                print(f"FAIL {target} case-seed={case_seed}:\n{traceback.format_exc()}", file=sys.stderr)
            took = time.perf_counter() - started
            peak = peak_mb()
            if peak > MEMORY_LIMIT_MB and not memory_reported:
                memory_reported = True
                print(f"MEMORY {target} case-seed={case_seed}: peak {peak:.0f} MB", file=sys.stderr)
            if took > TIME_LIMIT:
                failures += 1
                print(f"SLOW {target} case-seed={case_seed}: {took:.2f} s", file=sys.stderr)
            counts[target] = counts.get(target, 0) + 1
    peak = peak_mb()
    if peak > MEMORY_LIMIT_MB:
        failures += 1
        print(f"MEMORY peak {peak:.0f} MB", file=sys.stderr)
    print(f"fuzz: {sum(counts.values())} inputs {counts}, {failures} failures, peak {peak:.0f} MB")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
