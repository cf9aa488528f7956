"""A seeded mutation fuzzer over the inputs users hand us: `validate`, `convert`, `local --explain`,
`render --params` and `render FILE.jsonnet`; then the command-line classes of issue 24.

    python -m tests.fuzz --inputs 1000 --rounds 4 --suite   # what CI runs (tests/test_fuzz.py)
    python -m tests.fuzz --seconds 3600            # longer, by hand (known bugs included)
    python -m tests.fuzz --replay journal:1234 --keep                 # one command-line case again

It mutates the fixture corpus and the examples (byte flips, YAML's special spellings, tags,
anchors and aliases, deep nesting, stray bytes, separators) and feeds each result to the same
library calls the CLI makes. Allowed outcomes: a result, or one of the errors the CLI turns
into exit 1 or 2. Anything else (an exception, more than 2 s, more than 300 MB) is printed
with the input's seed and the process exits 1; a native crash kills it, which the test sees.

The command-line classes run `python -m generator` in a folder of their own, round-robin for
--process-seconds, each case from its own seed:
- files: `validate -o FORMAT` over a folder of symlink loops, dangling links, links to /dev/zero,
  named pipes (with a writer and without), sockets, unreadable folders (not as root) and names
  with bytes 0xff, ESC and newline: exit 0, 1 or 2, no traceback, and JSON, JUnit, TAP, SARIF
  and workflow commands that still parse, with no raw control character;
- journal: a hostile `.paddlejob-render.journal` in --out (`..`, absolute paths, links, wrong
  tokens, not JSON, huge, a pipe, a folder); `render --check --out D` then `render --out D`
  exit 0, 1 or 2, change nothing beside D (a sentinel tree three folders up is hashed), touch
  nothing on exit 2, and a render that succeeds leaves a clean render;
- concurrent: two or three renders into one folder at once (one maybe killed mid-swap, one maybe
  a --check): each finishes or refuses cleanly (exit 2, "another render"), and D ends clean;
- values: tolerations, resources and apiserverPorts through `render --params` (exit 0, or 1/2
  and D untouched) and, where `make helm-tools` installed Helm, `helm template -f`: the two doors
  agree, and no NetworkPolicy egress rule lacks ports.
- build: kustomizations whose fields are spelt as kustomize still reads them (case, `ſ`, the
  Kelvin sign) and name local, outside and remote entries; `validate --build`'s scan refuses
  exactly the outside and remote ones (ground truth from how each case was made).
KNOWN_BUGS lists what the fuzzer found and the product still does; --suite leaves those cases
(and the 10 s waits on a named pipe with no writer) out so that the suite stays green.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import hashlib
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from xml.etree import ElementTree

import yaml

from generator import validate
from generator.core.errors import InputError
from generator.jobs import convert
from generator.jobs import model as jobs
from generator.jsonnet import sandbox
from generator.kubeyaml.load import read_documents
from generator.local import run as localrun
from generator.render import params
from generator.schema import kubernetes
from generator.validate import output as outputs

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
        outputs.FORMATS["json"](report)
        outputs.FORMATS["text"](report)
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
        with contextlib.suppress(InputError):
            params.check(params.read_params_file(str(path)))
    else:
        path = workdir / "job.jsonnet"
        path.write_bytes(data)
        with contextlib.suppress(sandbox.SandboxError):
            sandbox.evaluate_files([path])


# -- the command-line classes (issue 24): file systems, render journals, concurrent renders and
# chart values, each a seeded case run through `python -m generator` in a folder of its own ----------

FORMATS = ("text", "json", "junit", "tap", "sarif", "github")
CHART = ROOT / "charts" / "paddle-operator"
HELMS = [ROOT / ".venv" / "helm" / f"v{major}" / "helm" for major in (3, 4)]
TOKEN = "deadbeef"  # the staging token of every planted journal entry
# Reachable with `python -m tests.fuzz --seconds N`, left out with --suite until fixed: a bug the
# fuzzer found (issue 24), so that the suite stays green and the case is one flag away.
# journal-chain, bundle-file-folder and chart-int64-max are fixed (tests/test_safety_fuzzfound.py).
KNOWN_BUGS: dict[str, str] = {}
# file names for `validate` over a folder: bytes no terminal, XML, TAP line or URI takes raw
NAME_BYTES = [
    b"\xff", b"\x1b[31m", b"\n", b"\r", b"\t", b" ", b"#", b"-", b"&", b"<", b">", b'"', b"'", b"]]>", b"%",
    b"\\", b"\xc3\xa9", b"\xc3", b":", b"?", b"\x7f", b"\x01", b"ok 1", b"1..1", b"::error", b",", b"=",
]  # fmt: skip


class Raw(str):
    """A YAML scalar written as it is (``1e400``, ``~``, ``'443'``), not quoted."""


INT64_MAX = Raw(str(2**63 - 1))


class Ran:
    """One finished `python -m generator` (returncode None: it hung and was killed)."""

    def __init__(self, args: list[str], returncode: int | None, stdout: bytes, stderr: bytes) -> None:
        self.args, self.returncode, self.stdout, self.stderr = args, returncode, stdout, stderr

    def problems(self, codes: tuple[int, ...]) -> list[str]:
        what = "generator " + " ".join(self.args)
        if self.returncode is None:
            return [f"{what}: did not finish (killed)"]
        found = []
        if self.returncode not in codes:
            found.append(f"{what}: exit {self.returncode}, expected {codes}: {self.stderr[-1500:]!r}")
        if b"Traceback (most recent call last)" in self.stderr + self.stdout:
            found.append(f"{what}: a traceback: {self.stderr[-1500:]!r}")
        return found


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment without PYTHONPATH (the package is installed) and no render test hooks."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("PADDLEJOB_RENDER_")}
    env.update(extra or {})
    return env


def cli(args: list[str], cwd: Path, extra_env: dict[str, str] | None = None, timeout: float = 60) -> Ran:
    command = [sys.executable, "-m", "generator", *args]
    try:
        done = subprocess.run(
            command, cwd=cwd, env=child_env(extra_env), capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired as err:
        return Ran(args, None, err.stdout or b"", err.stderr or b"")
    return Ran(args, done.returncode, done.stdout, done.stderr)


def tree_state(top: Path, skip: Path | None = None) -> dict[bytes, tuple]:
    """What is under ``top`` (``skip`` left out), read without following a link or opening a
    special file: type, mode, a file's digest, a link's target."""
    state: dict[bytes, tuple] = {}
    top_b, skip_b = os.fsencode(top), os.fsencode(skip) if skip else None

    def walk(folder: bytes) -> None:
        try:
            names = sorted(os.listdir(folder))
        except OSError as err:
            state[os.path.relpath(folder, top_b) + b"/"] = ("unlistable", err.errno)
            return
        for name in names:
            path = os.path.join(folder, name)
            if path == skip_b:
                continue
            key = os.path.relpath(path, top_b)
            try:
                st = os.lstat(path)
            except OSError as err:
                state[key] = ("gone", err.errno)
                continue
            mode = stat.S_IMODE(st.st_mode)
            if stat.S_ISDIR(st.st_mode):
                state[key] = ("dir", mode)
                walk(path)
            elif stat.S_ISLNK(st.st_mode):
                state[key] = ("link", os.readlink(path))
            elif stat.S_ISREG(st.st_mode):
                try:
                    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
                    with os.fdopen(fd, "rb") as f:
                        digest = hashlib.sha256(f.read()).hexdigest()
                except OSError as err:
                    digest = f"unreadable {err.errno}"
                state[key] = ("file", mode, digest)
            else:
                state[key] = ("special", stat.S_IFMT(st.st_mode), mode)

    if os.path.lexists(top_b):
        walk(top_b)
    return state


def tree_changes(before: dict, after: dict) -> str:
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    return ", ".join(f"{k!r}: {before.get(k)} -> {after.get(k)}" for k in changed[:6]) + (
        f" and {len(changed) - 6} more" if len(changed) > 6 else ""
    )


def hostile_name(rng: random.Random, ext: str = ".yaml") -> bytes:
    parts = [rng.choice([b"a", b"job", b"x"])]
    for _ in range(rng.randint(0, 3)):
        parts.append(rng.choice(NAME_BYTES))
    rng.shuffle(parts)
    return b"".join(parts).replace(b"/", b"_")[:200] + ext.encode()


class Writer(threading.Thread):
    """A writer for a named pipe that waits (without blocking) for a reader to open it, then
    writes ``data`` and closes; it gives up when stopped, so no case waits on it."""

    def __init__(self, path: Path, data: bytes) -> None:
        super().__init__(daemon=True)
        self.path, self.data, self.stop = path, data, threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as err:
                if err.errno != errno.ENXIO:  # ENXIO: no reader yet
                    return
                time.sleep(0.02)
                continue
            try:
                os.set_blocking(fd, True)
                with contextlib.suppress(OSError):
                    os.write(fd, self.data)
            finally:
                os.close(fd)
            return


def _fs_specials(
    rng: random.Random, folder: Path, sample: bytes, pipes: list, unreadable: list
) -> list[tuple[Path, bool]]:
    """Plant a few hostile entries in ``folder``; returns those worth naming on the command line,
    each with whether naming it is slow (a pipe with no writer: the 10 s idle timeout)."""
    named: list[tuple[Path, bool]] = []
    kinds = ["loop", "pair", "dirloop", "dangling", "devzero", "devnull", "fifo", "fifo-writer", "socket", "empties",
             "deep", "outside", "unreadable", "unreadable-file"]  # fmt: skip
    for kind in rng.sample(kinds, rng.randint(1, 5)):
        name = os.path.join(os.fsencode(folder), hostile_name(rng, rng.choice([".yaml", ".yml", ".json"])))
        path = Path(os.fsdecode(name))
        with contextlib.suppress(FileExistsError):
            if kind == "loop":
                os.symlink(os.path.basename(name), name)
            elif kind == "pair":
                other = os.path.join(os.fsencode(folder), b"pair-" + os.path.basename(name))
                os.symlink(os.path.basename(other), name)
                os.symlink(os.path.basename(name), other)
            elif kind == "dirloop":
                target = rng.choice([b".", b"..", b"../..", os.fsencode(folder)])
                os.symlink(target, os.path.join(os.fsencode(folder), hostile_name(rng, "")))
                continue  # a folder link named on the command line is a folder: nothing new
            elif kind == "dangling":
                os.symlink(rng.choice([b"nowhere.yaml", b"no/such/dir", b"/nonexistent-fuzz"]), name)
            elif kind == "devzero":
                os.symlink("/dev/zero", name)
            elif kind == "devnull":
                os.symlink("/dev/null", name)
            elif kind == "fifo":
                os.mkfifo(name)
                named.append((path, True))  # named with no writer: the 10 s idle timeout (not in --suite)
                continue
            elif kind == "fifo-writer":
                os.mkfifo(name)
                pipes.append((path, sample))
            elif kind == "socket":
                with socket.socket(socket.AF_UNIX) as sock:
                    try:
                        sock.bind(name)
                    except OSError:  # a path too long for sun_path
                        continue
            elif kind == "empties":
                for index in range(rng.choice([3, 50, 500])):
                    (folder / f"empty-{index}.yaml").write_bytes(b"" if index % 2 else b"# nothing\n")
                continue
            elif kind == "deep":
                deep = folder
                for _ in range(rng.choice([5, 40])):
                    deep = deep / "d"
                deep.mkdir(parents=True, exist_ok=True)
                (deep / "deep.yaml").write_bytes(sample)
                continue
            elif kind == "outside":
                outside = folder.parent / "outside.yaml"
                outside.write_bytes(sample)
                os.symlink(outside, name)
            elif kind in ("unreadable", "unreadable-file"):
                if os.geteuid() == 0:
                    continue  # root reads through a mode of 000
                if kind == "unreadable":
                    locked = folder / "locked"
                    locked.mkdir(exist_ok=True)
                    (locked / "in.yaml").write_bytes(sample)
                    path = locked
                else:
                    path.write_bytes(sample)
                os.chmod(path, 0)
                unreadable.append(path)
            named.append((path, False))
    return named


def _output_problems(fmt: str, out: bytes) -> list[str]:
    """What is wrong with ``validate -o fmt``'s standard output, if anything."""
    try:
        text = out.decode("utf-8")
    except UnicodeDecodeError as err:
        return [f"-o {fmt}: standard output is not UTF-8 ({err})"]
    controls = sorted({c for c in text if (ord(c) < 32 and c not in "\n\t") or ord(c) == 127})
    if controls:
        return [f"-o {fmt}: raw control characters {controls!r} in standard output"]
    try:
        if fmt in ("json", "sarif"):
            data = json.loads(text)
            if fmt == "sarif":
                uris = [
                    location["physicalLocation"]["artifactLocation"]["uri"]
                    for run in data["runs"]
                    for result in run.get("results", [])
                    for location in result.get("locations", [])
                ]
                bad = [u for u in uris if not re.fullmatch(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+", u)]
                if bad:
                    return [f"-o sarif: URIs that are not percent-encoded: {bad[:3]!r}"]
        elif fmt == "junit":
            ElementTree.fromstring(out)
        elif fmt == "tap":
            lines = text.splitlines()
            points = [x for x in lines if re.match(r"(not )?ok \d+", x)]
            plan = [x for x in lines if re.fullmatch(r"1\.\.\d+", x)]
            stray = [x for x in lines if not re.match(r"(TAP version 13$|1\.\.\d+$|(not )?ok \d+|#|  |$)", x)]
            if stray or len(plan) != 1 or int(plan[0][3:]) != len(points):
                return [f"-o tap: not TAP: plan {plan}, {len(points)} test points, stray lines {stray[:3]!r}"]
        elif fmt == "github":
            stray = [x for x in text.splitlines() if x and not re.match(r"::|\d+ documents?: ", x)]
            if stray:
                return [f"-o github: lines that are not workflow commands: {stray[:3]!r}"]
    except (ValueError, KeyError, TypeError, ElementTree.ParseError) as err:
        return [f"-o {fmt}: standard output does not parse: {err}"]
    return []


def case_files(rng: random.Random, tmp: Path, ctx: Context) -> list[str]:
    """`validate` over a folder of links, loops, devices, pipes, sockets and hostile file names."""
    tree = tmp / "tree"
    tree.mkdir()
    for _ in range(rng.randint(1, 4)):
        folder = os.path.join(os.fsencode(tree), rng.choice([b"", b"a", b"a/b", hostile_name(rng, "")]))
        os.makedirs(folder, exist_ok=True)
        data = rng.choice(ctx.corpus)
        if rng.random() < 0.3:
            data = mutate(data, rng)[:200_000]
        with open(os.path.join(folder, hostile_name(rng, rng.choice([".yaml", ".yml", ".json"]))), "wb") as f:
            f.write(data)
    pipes: list[tuple[Path, bytes]] = []
    unreadable: list[Path] = []
    sample = rng.choice(ctx.corpus)[:20_000]
    named = _fs_specials(rng, tree, sample, pipes, unreadable)
    args = [str(tree)]
    for path, slow in named:
        if rng.random() < (0.15 if slow else 0.3) and not (slow and ctx.suite):
            args.append(str(path))
    problems = []
    try:
        for fmt in rng.sample(FORMATS, rng.randint(1, 2)):
            writers = [Writer(path, data) for path, data in pipes]
            for writer in writers:
                writer.start()
            extra = rng.choice([[], [], ["--jobs", "2"], ["--max-errors", "1"], ["--fail-on-empty"], ["--strict"]])
            try:
                ran = cli(["validate", "-o", fmt, *extra, *args], tmp, timeout=40)
            finally:
                for writer in writers:
                    writer.stop.set()
                    writer.join()
            problems += ran.problems((0, 1, 2))
            if ran.returncode in (0, 1) or (ran.returncode == 2 and ran.stdout):
                problems += [f"{p} (generator {' '.join(ran.args)})" for p in _output_problems(fmt, ran.stdout)]
            long_lines = [x for x in ran.stderr.splitlines() if len(x) > 20_000]
            if long_lines:
                problems.append(f"validate: a note of {len(long_lines[0]):,} bytes on stderr")
    finally:
        for path in unreadable:
            os.chmod(path, 0o755)
    return problems


# -- render journals -----------------------------------------------------------------------------


# targets a journal names: those this tool writes, and hostile ones (`..`, absolute, through links, odd strings)
GOOD_TARGETS = ["v1", "v1beta1", "x", "sub/x", "v1/jobs.yaml", "v1beta1/crd.yaml"]


def _hostile_targets(case: Path, out: Path) -> list[str]:
    return [
        "link/x", "linkfile", "../victim", "../../victim", "../S", "../S/file", str(case / "victim"), str(case / "S"),
        str(out / "v1"), "v1/../../victim", "./v1", "v1/", "", ".", "..", "/", ".paddlejob-render.journal",
        f".paddlejob-new-v1-{TOKEN}", "a\nb", "\udcff", "\ud800", "a" * 300, "/".join(["a" * 200] * 30), "sub/../v1",
    ]  # fmt: skip


def _sibling_row(target: str, token: str = TOKEN) -> dict:
    """The entry this tool writes for ``target``."""
    parent, name = os.path.split(target)
    return {
        "target": target,
        "staged": os.path.join(parent, f".paddlejob-new-{name}-{token}"),
        "old": os.path.join(parent, f".paddlejob-old-{name}-{token}"),
    }


def _row(rng: random.Random, target: str) -> object:
    """An entry for ``target``: mostly the one this tool writes, sometimes wrong in one way."""
    token = TOKEN if rng.random() < 0.85 else rng.choice(["DEADBEEF", "deadbee", "deadbeef0", "zzzzzzzz", "cafef00d"])
    row = _sibling_row(target, token)
    roll = rng.random()
    if roll < 0.05:
        row["staged"], row["old"] = row["old"], row["staged"]
    elif roll < 0.1:
        row["staged"] = os.path.abspath(row["staged"]) if rng.random() < 0.5 else "../" + row["staged"]
    elif roll < 0.15:
        row["extra"] = 1
    elif roll < 0.2:
        del row[rng.choice(list(row))]
    elif roll < 0.25:
        row[rng.choice(list(row))] = rng.choice([None, 1, [], {}, "", "\0"])
    elif roll < 0.28:
        return rng.choice([None, 1, "v1", [], [target]])
    return row


def _plant(rng: random.Random, path: str, case: Path, links_inside: bool) -> str:
    """Something at ``path`` (a folder, file, link or pipe), if it lies inside the case folder
    (and is not the journal itself); with ``links_inside``, sometimes a folder holding a link to S
    (what the journal-chain bug swapped in)."""
    full = os.path.normpath(path)
    if not full.startswith(str(case) + "/") or os.path.basename(full).startswith(".paddlejob-render.journal"):
        return ""
    kind = rng.choice(["dir"] * 6 + ["file"] * 2 + ["link", "fifo"] + (["dir-with-link"] if links_inside else []))
    with contextlib.suppress(OSError, UnicodeEncodeError, ValueError):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if kind in ("dir", "dir-with-link"):
            os.mkdir(path)
            Path(path, "crd.yaml").write_text("# planted\n")
            if kind == "dir-with-link":
                os.symlink(os.path.relpath(case / "S", path), os.path.join(path, rng.choice(["c", "x", "sub"])))
        elif kind == "file":
            Path(path).write_text("# planted\n")
        elif kind == "link":
            os.symlink(rng.choice([str(case / "S"), "../victim", str(case / "victim"), "/dev/zero"]), path)
        else:
            os.mkfifo(path)
    return kind


def _journal_bytes(rng: random.Random, rows: list) -> bytes:
    roll = rng.random()
    text = json.dumps(rows, indent=rng.choice([None, 1])).encode("utf-8", "surrogatepass")
    if roll < 0.8:
        return text
    return rng.choice([
        lambda: mutate(text, rng),
        lambda: b"",
        lambda: b"[]",
        lambda: b"{}",
        lambda: b"null",
        lambda: b"[" * 100_000,
        lambda: b"\xef\xbb\xbf" + text,
        lambda: text + b" " * (1 << 20),
        lambda: json.dumps(rows * (1000 // max(len(rows), 1) + 1)).encode("utf-8", "surrogatepass"),
        lambda: text.replace(b'"v1"', b'"v1\\u0000"'),
        lambda: b"\xff\xfe" + text,
        lambda: b'[{"target": NaN}]',
    ])()  # fmt: skip


def _chain(rng: random.Random, out: Path, case: Path) -> list:
    """The journal-chain bug (fixed): entry 1 swaps in a folder holding a link to S; entry 2 then writes
    through it."""
    outer, link, victim = rng.choice(["a", "v1"]), rng.choice(["c", "sub"]), rng.choice(["victim", "file"])
    (out / outer / link / f".paddlejob-new-{victim}-{TOKEN}").mkdir(parents=True)
    staged = out / f".paddlejob-new-{outer}-{TOKEN}"
    staged.mkdir()
    os.symlink(os.path.relpath(case / "S", out / outer), staged / link)
    bait = case / "S" / f".paddlejob-new-{victim}-{TOKEN}"
    bait.mkdir(exist_ok=True)
    (bait / "planted").write_text("the attacker's\n")
    return [_sibling_row(outer), _sibling_row(f"{outer}/{link}/{victim}")]


def case_journal(rng: random.Random, tmp: Path, ctx: Context) -> list[str]:
    """A hostile `.paddlejob-render.journal` in --out; `render --check` and `render` must keep out of
    everything beside --out (a sentinel tree three folders up is hashed before and after)."""
    case = tmp / "l1" / "l2" / "case"
    out = case / "D"
    for level in (tmp, tmp / "l1", tmp / "l1" / "l2", case):
        level.mkdir(exist_ok=True)
        (level / "victim").write_text(f"precious {level.name}\n")
    (case / "S" / "sub").mkdir(parents=True)
    (case / "S" / "file").write_text("precious S\n")
    (case / "S" / "victim").write_text("precious S/victim\n")
    (case / "S" / "sub" / "file").write_text("precious S/sub\n")
    if rng.random() < 0.6:
        shutil.copytree(ctx.reference, out, symlinks=True)
    else:
        out.mkdir()
    if rng.random() < 0.3:
        os.symlink("../S", out / "link")
    if rng.random() < 0.3:
        os.symlink("../victim", out / "linkfile")
    if rng.random() < 0.3:
        (out / "sub").mkdir()
    if rng.random() < 0.1:
        rows = _chain(rng, out, case)
    else:
        hostile = _hostile_targets(case, out)
        targets = [rng.choice(GOOD_TARGETS if rng.random() < 0.75 else hostile) for _ in range(rng.randint(1, 3))]
        rows = [_row(rng, target) if rng.random() < 0.3 else _sibling_row(target) for target in targets]
        for row in rows:
            if isinstance(row, dict):
                for key, chance in (("target", 0.4), ("staged", 0.7), ("old", 0.3)):
                    value = row.get(key)
                    if isinstance(value, str) and rng.random() < chance:
                        _plant(rng, os.path.join(out, value), case, True)
    journal = out / ".paddlejob-render.journal"
    shape = rng.random()
    if shape < 0.94:
        journal.write_bytes(_journal_bytes(rng, rows))
    elif shape < 0.96:
        (case / "S" / "journal").write_bytes(_journal_bytes(rng, rows))
        os.symlink("../S/journal", journal)
    elif shape < 0.98:
        os.mkfifo(journal)
    else:
        journal.mkdir()
    for _ in range(rng.choice([0, 0, 1, 2])):  # leftovers of an uncommitted render, some of them links out
        leftover = out / f".paddlejob-{rng.choice(['new', 'old'])}-{rng.choice(['v1', 'x', 'victim'])}-{TOKEN}"
        _plant(rng, str(leftover), case, False)
    if rng.random() < 0.2:
        os.symlink("../victim", out / ".paddlejob-render.journal.tmp")
    problems = []
    for args in (["render", "--check", "--out", "D"], ["render", "--out", "D"]):
        outside, inside = tree_state(tmp, skip=out), tree_state(out)
        ran = cli(args, case)
        problems += ran.problems((0, 1, 2))
        after = tree_state(tmp, skip=out)
        if after != outside:
            problems.append(f"generator {' '.join(args)} changed what lies outside D: {tree_changes(outside, after)}")
        if ran.returncode == 2 and tree_state(out) != inside:
            problems.append(
                f"generator {' '.join(args)}: exit 2 yet D changed: {tree_changes(inside, tree_state(out))}"
            )
        if args[1] == "--out" and ran.returncode == 0:
            bundle = {k: v for k, v in tree_state(out).items() if k.split(b"/")[0] in (b"v1", b"v1beta1")}
            if bundle != ctx.reference_state:
                problems.append(
                    f"render --out D: exit 0 but D is not a clean render: {tree_changes(ctx.reference_state, bundle)}"
                )
            ours = [n for n in os.listdir(out) if n.startswith(".paddlejob-")]
            if ours:
                problems.append(f"render --out D: exit 0 but left {ours[:5]}")
    return problems


# -- concurrent renders ---------------------------------------------------------------------------


def case_concurrent(rng: random.Random, tmp: Path, ctx: Context) -> list[str]:
    """Two or three `render --out D` at once (one maybe killed mid-swap, one maybe a --check): each
    finishes or refuses cleanly, and D ends as a clean render."""
    out = tmp / "D"
    start = rng.choice(["absent", "empty", "reference", "stale", "stale"])
    if start == "empty":
        out.mkdir()
    elif start != "absent":
        shutil.copytree(ctx.reference if start == "reference" else ctx.stale, out, symlinks=True)
    wait = rng.choice([None, None, "0", "0.3"])
    jobs = []
    for index in range(rng.choice([2, 2, 3])):
        env = {} if wait is None else {"PADDLEJOB_RENDER_LOCK_WAIT": wait}
        role = "render"
        if index and rng.random() < 0.25:
            role, env["PADDLEJOB_RENDER_FAULT"] = "killed", str(rng.randint(1, 6))
        elif index and rng.random() < 0.2:
            role = "check"
        args = ["render", "--check", "--out", "D"] if role == "check" else ["render", "--out", "D"]
        if index:
            time.sleep(rng.choice([0, 0, 0.05, 0.2]))
        process = subprocess.Popen(
            [sys.executable, "-m", "generator", *args],
            cwd=tmp, env=child_env(env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        jobs.append((role, args, process))
    problems = []
    finished = []
    for role, args, process in jobs:
        try:
            stdout, stderr = process.communicate(timeout=90)
            ran = Ran(args, process.returncode, stdout, stderr)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            ran = Ran(args, None, b"", b"")
        finished.append((role, ran))
        if role == "killed" and ran.returncode == -signal.SIGKILL:
            continue
        problems += ran.problems((0, 1, 2) if role == "check" else (0, 2))
        if role == "render" and ran.returncode == 2 and b"another render" not in ran.stderr:
            problems.append(f"a concurrent render exited 2 for another reason: {ran.stderr[-800:]!r}")
    killed = any(role == "killed" and ran.returncode == -signal.SIGKILL for role, ran in finished)
    if killed:  # the README: any next `render --check` (no flags) finishes or rolls back, then a render ends it
        ran = cli(["render", "--check", "--out", "D"], tmp)
        problems += [f"after a kill: {p}" for p in ran.problems((0, 1))]
        ran = cli(["render", "--out", "D"], tmp)
        problems += [f"after a kill: {p}" for p in ran.problems((0,))]
    rendered = any(role != "check" and ran.returncode == 0 for role, ran in finished) or killed
    if rendered:
        state = tree_state(out)
        if state != ctx.reference_state:
            outcomes = [(role, ran.returncode) for role, ran in finished]
            problems.append(f"{outcomes}: D is not a clean render: {tree_changes(ctx.reference_state, state)}")
    return problems


# -- chart values and --params --------------------------------------------------------------------


def _yaml(value) -> str:
    """Flow-style YAML; Raw scalars as they are, strings double-quoted (JSON's escapes are YAML's)."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_yaml(k)}: {_yaml(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_yaml(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    return str(value)


# each value of a chart or --params field: (taken by the apiserver, refused); a leaf is a bad one 1 time in 12
TOLERATION_VALUES = {
    "key": (["a", "node-role.kubernetes.io/master", "example.com/gpu", "a" * 63, "A_b.c", "a" * 253 + "/k"],
            ["", "a" * 64, "a b", "-a", "x/y/z", "/a", "a/", "a" * 254 + "/k", Raw("~"), Raw("1"), Raw("[a]")]),
    "operator": (["Exists", "Equal"], ["", "exists", "Sometimes", Raw("null"), Raw("1")]),
    "value": (["", "b", "a" * 63, "b.c_d-e"], ["x y", "a" * 64, "-b", Raw("1"), Raw("null"), Raw("yes")]),
    "effect": (["NoSchedule", "PreferNoSchedule", "NoExecute"], ["", "NoRun", "noschedule", Raw("null")]),
    "tolerationSeconds": ([Raw("5"), Raw("0"), Raw("-1"), INT64_MAX],
                          [Raw(str(2**63)), "5", Raw("5.5"), Raw(".inf"), Raw("true"), Raw("null"), Raw("1e3")]),
}  # fmt: skip
RESOURCE_NAMES = (["cpu", "memory", "ephemeral-storage", "hugepages-2Mi", "example.com/gpu", "nvidia.com/gpu"],
                  ["hugepages-lots", "kubernetes.io/foo", "requests.example.com/gpu", "gpu", "a" * 64 + ".io/x", "CPU",
                   ""])  # fmt: skip
QUANTITIES = (["100m", "1", "0", "1Gi", "300Mi", "20Mi", "1e3", "1E3", "0.5", "+1", ".5", "1.", "1e-3", "1Ki", "1e99",
               "9" * 64, Raw("2"), Raw("0.1")],
              ["-1", "1e400", "1ki", "1e100", "9" * 65, "1 Gi", "", Raw("1e400"), Raw("-1"), Raw(".inf"), Raw(".nan"),
               Raw("null"), Raw("true"), Raw("0x10"), Raw("[]"), Raw("{}")])  # fmt: skip
PORTS = ([443, 6443, 1, 65535],
         [0, 65536, -1, Raw("'443'"), Raw("443.0"), Raw("0x1BB"), Raw("0o777"), Raw("true"), Raw("null"), Raw("1e3"),
          2**31, Raw("~")])  # fmt: skip


def _pick(rng: random.Random, pools: tuple[list, list]):
    return rng.choice(pools[1] if rng.random() < 1 / 12 else pools[0])


def _toleration(rng: random.Random):
    if rng.random() < 1 / 20:
        return rng.choice([Raw("null"), Raw("{}"), "x", Raw("1"), {"key": "a", "operator": "Exists", "bad": 1}])
    fields = {"key": _pick(rng, TOLERATION_VALUES["key"])}
    fields["operator"] = _pick(rng, TOLERATION_VALUES["operator"])
    if fields["operator"] == "Equal" or rng.random() < 1 / 12:
        fields["value"] = _pick(rng, TOLERATION_VALUES["value"])
    if rng.random() < 0.7:
        fields["effect"] = _pick(rng, TOLERATION_VALUES["effect"])
    if fields.get("effect") == "NoExecute" and rng.random() < 0.5 or rng.random() < 1 / 20:
        fields["tolerationSeconds"] = _pick(rng, TOLERATION_VALUES["tolerationSeconds"])
    for name in list(fields):
        if rng.random() < 1 / 30:
            del fields[name]
    return fields


def _values(rng: random.Random) -> dict:
    """The values of one case (never none: an empty --params file is refused, an empty values file is not)."""
    values: dict = {}
    if rng.random() < 0.7:
        many = [_toleration(rng) for _ in range(rng.randint(0, 3))]
        values["tolerations"] = rng.choice([Raw("null"), Raw("{}"), "x"]) if rng.random() < 1 / 30 else many
    if rng.random() < 0.6:
        parts = rng.sample(["limits", "requests"], rng.randint(1, 2))
        if rng.random() < 1 / 20:
            parts.append(rng.choice(["claims", "extra"]))
        values["resources"] = {
            part: rng.choice([Raw("null"), Raw("[]"), "x"]) if rng.random() < 1 / 30 else
            {_pick(rng, RESOURCE_NAMES): _pick(rng, QUANTITIES) for _ in range(rng.randint(0, 3))}
            for part in parts
        }  # fmt: skip
    if rng.random() < 0.6:
        ports = [_pick(rng, PORTS) for _ in range(rng.randint(1, 3))]
        values["apiserverPorts"] = (
            rng.choice([Raw("null"), Raw("[]"), Raw("443"), Raw("{}")]) if rng.random() < 1 / 12 else ports
        )
    if rng.random() < 0.8:
        values["networkPolicy"] = rng.choice([True, True, True, False, Raw("yes"), Raw("'true'"), Raw("null")])
    if rng.random() < 0.05:
        values[rng.choice(["namespce", "replicas", "image"])] = rng.choice([2, "x", Raw("null")])
    return values or {"networkPolicy": True}


def _egress_problems(docs: list, what: str) -> list[str]:
    """A NetworkPolicy egress rule with no ports allows all egress: never what networkPolicy asks for."""
    found = []
    for doc in docs:
        if isinstance(doc, dict) and doc.get("kind") == "NetworkPolicy":
            for rule in (doc.get("spec") or {}).get("egress") or []:
                if not isinstance(rule, dict) or not rule.get("ports"):
                    found.append(f"{what}: a NetworkPolicy egress rule without ports (all egress allowed): {rule!r}")
    return found


def case_values(rng: random.Random, tmp: Path, ctx: Context) -> list[str]:
    """Random tolerations, resources and apiserverPorts through `render --params` (exit 0, or 1/2 and
    nothing written) and, where Helm is installed, the chart's values.schema.json and templates."""
    values = _values(rng)
    text = "\n".join(f"{key}: {_yaml(value)}" for key, value in values.items()) + "\n"
    mutated = rng.random() < 0.15
    data = mutate(text.encode(), rng)[:100_000] if mutated else text.encode()
    (tmp / "params.yaml").write_bytes(data)
    out = tmp / "D"
    start = rng.choice(["absent", "reference", "stale"])
    if start != "absent":
        shutil.copytree(ctx.reference if start == "reference" else ctx.stale, out, symlinks=True)
    before = tree_state(out)
    ran = cli(["render", "--params", "params.yaml", "--out", "D"], tmp)
    problems = [f"{p}\n  params.yaml: {data[:600]!r}" for p in ran.problems((0, 1, 2))]
    if ran.returncode in (1, 2) and tree_state(out) != before:
        problems.append(
            f"render --params: exit {ran.returncode} yet D changed: {tree_changes(before, tree_state(out))}"
        )
    if ran.returncode == 0 and (out / "v1" / "operator.yaml").is_file():
        docs = list(yaml.safe_load_all((out / "v1" / "operator.yaml").read_text()))
        problems += _egress_problems(docs, f"render --params {data[:300]!r}")
    helms = [h for h in HELMS if h.is_file()]
    if helms and not mutated:
        helm = rng.choice(helms)
        home = {
            "HELM_CACHE_HOME": str(tmp / "hc"),
            "HELM_CONFIG_HOME": str(tmp / "hc"),
            "HELM_DATA_HOME": str(tmp / "hd"),
        }
        env = {"PATH": os.defpath, "KUBECONFIG": os.devnull, **home}
        try:
            done = subprocess.run(
                [str(helm), "template", "p", str(CHART), "-f", "params.yaml"],
                cwd=tmp, env=env, capture_output=True, timeout=60, stdin=subprocess.DEVNULL,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            return [*problems, f"{helm.parent.name} helm template: did not finish; values {data!r}"]
        if done.returncode == 0:
            with contextlib.suppress(yaml.YAMLError):
                docs = list(yaml.safe_load_all(done.stdout))
                problems += _egress_problems(docs, f"helm template ({helm.parent.name}) -f {data[:300]!r}")
        # the two doors agree on the values both check: what --params refuses the chart refuses
        if ran.returncode == 2 and done.returncode == 0:
            problems.append(
                f"--params refuses what the chart ({helm.parent.name}) takes: {data[:400]!r}: {ran.stderr[-400:]!r}"
            )
        if ran.returncode in (0, 1) and done.returncode != 0:
            problems.append(
                f"the chart ({helm.parent.name}) refuses what --params takes: {data[:400]!r}: {done.stderr[-400:]!r}"
            )
    return problems


# -- `validate --build`'s scan: kustomizations whose fields are spelt as kustomize reads them ------

_FOLDS = {"s": ["S", "\u017f"], "k": ["K", "\u212a"], "i": ["I"]}


def _spelling(rng: random.Random, field: str) -> str:
    """``field`` spelt another way kustomize still reads it as (case, Unicode simple folding)."""
    out = []
    for char in field:
        if rng.random() < 0.4:
            out.append(rng.choice(_FOLDS.get(char.lower(), [char.swapcase()])))
        else:
            out.append(char)
    return "".join(out)


_REMOTES = [
    "http://127.0.0.1:9/x.yaml", "HTTPS://example.org/x", "git@github.com:org/repo", "user@host:org/repo",
    "gh:org/repo", "git::https://example.org/r", "github.com/org/repo", "example.org/org/repo.git",
    "example.org/org/repo//deploy", "local?ref=main", "ssh://git@example.org/r", "file:///etc", "org@example.org/r",
    "dev.azure.com/org/_git/repo",
]  # fmt: skip


def _build_entry(rng: random.Random, kind: str) -> tuple[str, str]:
    """(an entry, its truth): 'local' (a file or folder in the kustomization's folder), 'outside'
    (beside the repository), 'remote' (a target kustomize would fetch)."""
    truth = rng.choices(["local", "outside", "remote"], weights=[5, 2, 3])[0]
    if truth == "remote":
        return rng.choice(_REMOTES), truth
    if truth == "outside":
        return ("../../outside" if kind == "resource" else "../../outside/cm.yaml"), truth
    return ("cm.yaml" if kind != "folder" else "sub"), truth


def case_build(rng: random.Random, tmp: Path, ctx: Context) -> list[str]:
    """A kustomization whose fields are spelt at random as kustomize reads them, naming local,
    outside and remote entries; the scan must refuse exactly those that are outside (for the
    fields it confines: resources, bases, components) or remote (every field that loads a file),
    whatever the spelling. Ground truth comes from how the case was made, not from the scan."""
    from generator.validate import build

    repo = tmp / "repo"
    (repo / "app" / "sub").mkdir(parents=True)
    (tmp / "outside").mkdir()
    cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
    for folder in (repo / "app", repo / "app" / "sub", tmp / "outside"):
        (folder / "cm.yaml").write_text(cm)
    (repo / "app" / "sub" / "kustomization.yaml").write_text("resources: [cm.yaml]\n")
    (tmp / "outside" / "kustomization.yaml").write_text("resources: [cm.yaml]\n")
    lines, unsafe = [], False
    for _ in range(rng.randint(1, 3)):
        shape = rng.choice(["resources", "bases", "components", "patch", "files", "envs", "inline", "openapi", "crds"])
        entry, truth = _build_entry(rng, "file" if shape not in ("resources", "bases", "components") else "resource")
        if shape in ("resources", "bases", "components"):
            lines.append(f"{_spelling(rng, shape)}: [{json.dumps(entry)}]")
            unsafe = unsafe or truth != "local"
        elif shape == "patch":
            lines.append(f"{_spelling(rng, 'patches')}: [{{{_spelling(rng, 'path')}: {json.dumps(entry)}}}]")
            unsafe = unsafe or truth == "remote"
        elif shape in ("files", "envs"):
            generator = _spelling(rng, rng.choice(["configMapGenerator", "secretGenerator"]))
            value = json.dumps(("k=" if rng.random() < 0.3 else "") + entry)
            lines.append(f"{generator}: [{{name: g, {_spelling(rng, shape)}: [{value}]}}]")
            unsafe = unsafe or truth == "remote"
        elif shape == "inline":
            field, kind, key = rng.choice(
                [("transformers", "PatchTransformer", "path"), ("generators", "ConfigMapGenerator", "files")]
            )
            value = json.dumps(entry) if key == "path" else f"[{json.dumps(entry)}]"
            config = f"apiVersion: builtin\nkind: {kind}\nmetadata: {{name: x}}\n{_spelling(rng, key)}: {value}\n"
            lines.append(f"{_spelling(rng, field)}: [{json.dumps(config)}]")
            unsafe = unsafe or truth == "remote"
        elif shape == "openapi":
            lines.append(f"{_spelling(rng, 'openapi')}: {{{_spelling(rng, 'path')}: {json.dumps(entry)}}}")
            unsafe = unsafe or truth == "remote"
        else:
            lines.append(f"{_spelling(rng, 'crds')}: [{json.dumps(entry)}]")
            unsafe = unsafe or truth == "remote"
    text = "\n".join(lines) + "\n"
    (repo / "app" / "kustomization.yaml").write_text(text, encoding="utf-8")
    try:
        build.check_kustomization(str(repo / "app"), [os.path.realpath(repo)])
        refused = None
    except build.Refused as err:
        refused = err.message
    if unsafe and refused is None:
        return [f"the scan let through a kustomization that reads outside or fetches:\n{text}"]
    if not unsafe and refused is not None:
        return [f"the scan refused a safe kustomization ({refused}):\n{text}"]
    return []


class Context:
    """What every command-line case shares: the corpus, clean renders to compare with, the mode."""

    def __init__(self, tmp: Path, corpus: list[bytes], suite: bool) -> None:
        self.corpus, self.suite = corpus, suite
        self.reference, self.stale = tmp / "reference", tmp / "stale"
        for folder, flags in ((self.reference, []), (self.stale, ["--namespace", "fuzz-stale", "--network-policy"])):
            ran = cli(["render", "--out", folder.name, *flags], tmp)
            if ran.returncode != 0:
                raise RuntimeError(f"a clean render failed: {ran.stderr[-2000:]!r}")
        self.reference_state = tree_state(self.reference)


CLASSES = {
    "files": case_files,
    "journal": case_journal,
    "concurrent": case_concurrent,
    "values": case_values,
    "build": case_build,
}


def run_process_case(name: str, case_seed: int, ctx: Context, keep: bool = False) -> list[str]:
    tmp = Path(tempfile.mkdtemp(prefix=f"fuzz-{name}-"))
    try:
        return CLASSES[name](random.Random(case_seed), tmp, ctx)
    except Exception:  # noqa: BLE001 - the fuzzer's own failure is a failure too
        return [f"the case itself failed:\n{traceback.format_exc()}"]
    finally:
        if keep:
            print(f"kept {tmp}", file=sys.stderr)
        else:
            for folder, _, _ in os.walk(tmp):  # a folder made unreadable must be listable to be removed
                with contextlib.suppress(OSError):
                    os.chmod(folder, 0o755)
            shutil.rmtree(tmp, ignore_errors=True)


def run_processes(
    rng: random.Random, seconds: float, ctx: Context, only: list[str], rounds: int | None = None
) -> tuple[dict, int]:
    """Round-robin over the command-line classes: ``rounds`` rounds when given (the same cases for
    the same seed on any machine), else for ``seconds`` (at least one round)."""
    counts: dict[str, int] = {}
    failures = 0
    deadline = time.monotonic() + seconds
    done_rounds = 0
    while True:
        for name in only:
            case_seed = rng.randrange(1 << 30)
            started = time.perf_counter()
            problems = run_process_case(name, case_seed, ctx)
            counts[name] = counts.get(name, 0) + 1
            for problem in problems:
                failures += 1
                took = time.perf_counter() - started
                replay = f"python -m tests.fuzz --replay {name}:{case_seed} --keep"
                print(
                    f"FAIL {name} case-seed={case_seed} ({took:.1f} s; replay: {replay}):\n  {problem}", file=sys.stderr
                )
        done_rounds += 1
        if (rounds is not None and done_rounds >= rounds) or (rounds is None and time.monotonic() >= deadline):
            return counts, failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60, help="the in-process inputs' share")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--inputs", type=int, help="run this many in-process inputs instead of for --seconds (the same on any machine)"
    )
    parser.add_argument("--rounds", type=int, help="run this many rounds of the command-line classes instead")
    parser.add_argument(
        "--process-seconds", type=float, help="the command-line classes' share (default: half of --seconds)"
    )
    parser.add_argument("--classes", default=",".join(CLASSES), help=f"command-line classes ({', '.join(CLASSES)})")
    parser.add_argument("--suite", action="store_true", help="leave out the known bugs and the 10 s pipe waits")
    parser.add_argument("--replay", metavar="CLASS:SEED", help="run one command-line case and exit")
    parser.add_argument("--keep", action="store_true", help="with --replay: keep the case's folder")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    corpus = [p.read_bytes() for p in CORPUS]
    only = [c for c in args.classes.split(",") if c]
    if unknown := [c for c in only if c not in CLASSES]:
        parser.error(f"unknown classes {unknown}; known: {', '.join(CLASSES)}")
    if args.replay:
        name, _, seed = args.replay.partition(":")
        with tempfile.TemporaryDirectory() as tmp:
            problems = run_process_case(name, int(seed), Context(Path(tmp), corpus, args.suite), keep=args.keep)
        for problem in problems:
            print(f"FAIL {name} case-seed={seed}:\n  {problem}", file=sys.stderr)
        print(f"fuzz: {name}:{seed}, {len(problems)} failures")
        return 1 if problems else 0
    checker = validate.ObjectChecker(kubernetes.known_versions()[-1])
    jobs_corpus = [p.read_bytes() for p in JOBS]
    sources = [p.read_text() for p in JSONNET]
    deadline = time.monotonic() + args.seconds
    counts: dict[str, int] = {}
    failures = 0
    memory_reported = False
    slowest = (0.0, "", 0)  # the margin under TIME_LIMIT, printed in the summary
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        while time.monotonic() < deadline if args.inputs is None else sum(counts.values()) < args.inputs:
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
            slowest = max(slowest, (took, target, case_seed))
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
    process_seconds = args.seconds / 2 if args.process_seconds is None else args.process_seconds
    process_counts: dict[str, int] = {}
    if only and (process_seconds > 0 or args.rounds):
        started = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:
            process_counts, process_failures = run_processes(
                rng, process_seconds, Context(Path(tmp), corpus, args.suite), only, args.rounds
            )
        failures += process_failures
        print(f"fuzz: command-line cases {process_counts} in {time.perf_counter() - started:.1f} s")
    print(f"fuzz: {sum(counts.values())} inputs {counts}, {failures} failures, peak {peak:.0f} MB")
    print(f"fuzz: slowest input {slowest[0]:.2f} s of {TIME_LIMIT:.0f} s ({slowest[1]} case-seed={slowest[2]})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
