"""Evaluate user-written jsonnet (`render FILE.jsonnet`, examples/) in a sandbox.

A jsonnet file from a pull request must not read the CI machine's secrets, exhaust its memory
or crash the tool. So user jsonnet runs in a child process with limits, and every import goes
through a callback:

- the child is an isolated Python (`python -I`: no current folder on sys.path, no user site,
  no PYTHON* variables), started in `/` with an empty environment; it loads this package from
  the parent's own location (not by searching sys.path), so no module beside the job or in the
  current folder (`rjsonnet.py`, `json.py`, `generator/`) is ever imported;

- imports resolve only inside the file's own folder tree, the library (libsonnet/) and the
  `-J` folders given; regular files only (no /dev/zero, /proc, FIFOs), each at most 16 MiB;
  `--allow-import-anywhere` lifts the folder rule (not the others);
- each source is checked before the engine sees it: brackets nested deeper than 500 (the C++
  engine's parse limit) stop it, as rjsonnet's parser would overflow its stack;
- the child has a 1 GiB address-space limit, 60 s of CPU, and a 64 MiB evaluation stack; if
  the engine still dies (runaway recursion), the parent says so in one line;
- the result must be JSON (no `inf` from std.pow), at most 16 MiB and MAX_DEPTH levels deep;
  the child measures it before it sends it, and the parent reads the child's answers bounded
  (each one's size first, never more than 16 MiB of output, 1 MiB of an error, 16 KiB of the
  error output, which std.trace writes to): what the program makes costs the parent no more
  memory than a 16 MiB result;
- an import outside the allowed folders gets one message whatever the path is (a file, a
  folder, nothing, a link, and wherever a link points): the message tells nothing of the
  machine beyond those folders.

Our own library (the install bundle) is trusted and evaluated in-process by engine.py.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

from generator.core.errors import Error, InputError
from generator.core.paths import LIBSONNET
from generator.kubeyaml.load import MAX_DEPTH, nesting_depth

MAX_SOURCE_BYTES = 16 * 1024 * 1024
MAX_OUTPUT_BYTES = 16 * 1024 * 1024  # a job is kilobytes; parsed, the limit costs ~100 MB
MAX_ERROR_CHARS = 16 * 1024  # of an evaluation's error message (`error std.repeat(...)` is any size)
MAX_HEADER_BYTES = 1 << 20  # an answer's header: its size, or its error (escaped as JSON)
STDERR_TAIL = 16 * 1024  # of the child's error output (std.trace writes there), kept to say why it died
MAX_NESTING = 500
MEMORY_LIMIT = 1 << 30
CPU_SECONDS = 60
STACK_BYTES = 64 << 20


class SandboxError(Error):
    """Evaluation failed or was refused; the message names the file and the reason."""


class SourceRefused(InputError):
    """A file to evaluate that is a symbolic link out of its own folder tree (exit 2)."""


@dataclass
class Policy:
    roots: list[Path] = field(default_factory=list)  # folders imports may come from
    allow_anywhere: bool = False


# -- parent --------------------------------------------------------------------------------------


# What jsonnet's command line calls --ext-str, --ext-code, --tla-str and --tla-code: name -> text
VARIABLE_KINDS = ("ext_vars", "ext_codes", "tla_vars", "tla_codes")


def evaluate_files(
    paths: list[Path],
    jpath: list[Path] | None = None,
    allow_anywhere: bool = False,
    variables: dict[str, dict[str, str]] | None = None,
) -> list:
    """The data of each file, in one sandboxed child; SandboxError on the first that fails.
    ``variables``: {kind: {name: text}} for each of VARIABLE_KINDS given."""
    return start(paths, jpath, allow_anywhere, variables).result()


class _Tail(threading.Thread):
    """Reads a pipe to its end as it comes, keeping only its last ``keep`` bytes."""

    def __init__(self, pipe, keep: int) -> None:
        super().__init__(daemon=True)
        self.pipe, self.keep, self.data = pipe, keep, b""

    def run(self) -> None:
        with self.pipe:
            while chunk := self.pipe.read1(1 << 16):
                self.data = (self.data + chunk)[-self.keep :]

    def text(self) -> str:
        self.join()
        return self.data.decode("utf-8", "replace")


class Pending:
    """A sandboxed evaluation under way: the child works while the caller does other things.

    The child answers each file with a line, ``{"size": N}`` then N bytes of the result's JSON
    text, or ``{"error": MESSAGE}``; the parent reads one answer at a time and never more than
    the limits allow (it stops the child instead), so a program that makes a huge result or
    error, or traces one to the error output, costs the parent no more than the limits."""

    def __init__(self, paths: list[Path], child: subprocess.Popen, stderr: _Tail) -> None:
        self.paths, self.child, self.stderr = paths, child, stderr
        self.expired = False

    def _expire(self) -> None:
        self.expired = True
        self.child.kill()

    def result(self) -> list:
        timer = threading.Timer(CPU_SECONDS * 2, self._expire)
        timer.start()
        try:
            results = self._answers()
        except BaseException:
            self.child.kill()
            raise
        finally:
            self.child.wait()
            timer.cancel()
            self.child.stdout.close()
            self.stderr.join()
        if self.expired:
            raise SandboxError(f"{self.paths[0]}: jsonnet did not finish within {CPU_SECONDS * 2} s")
        if len(results) < len(self.paths):
            missing = self.paths[len(results)]
            death = _death(self.child.returncode, self.stderr.text())
            if self.child.returncode != 0 and not results:
                raise SandboxError(f"{missing}: {death}")
            raise SandboxError(f"{missing}: the sandbox gave no result: {death}")
        return results

    def _answers(self) -> list:
        """The data of each file, read answer by answer; fewer when the child stopped early."""
        results = []
        for path in self.paths:
            header = self.child.stdout.readline(MAX_HEADER_BYTES + 1)
            if not header.endswith(b"\n"):
                if len(header) > MAX_HEADER_BYTES:
                    raise SandboxError(f"{path}: the sandbox's answer is longer than {MAX_HEADER_BYTES:,} bytes")
                break  # the child stopped: its exit status says why
            try:
                answer = json.loads(header)
                if "error" in answer:
                    raise SandboxError(f"{path}: {str(answer['error'])[: MAX_ERROR_CHARS + 200]}")
                size = int(answer["size"])
            except (ValueError, KeyError, TypeError):
                raise SandboxError(f"{path}: the sandbox's answer is not JSON: {header[:200]!r}") from None
            if not 0 <= size <= MAX_OUTPUT_BYTES:
                raise SandboxError(f"{path}: the output is larger than {MAX_OUTPUT_BYTES:,} bytes")
            text = self.child.stdout.read(size)
            if len(text) < size:
                break
            results.append(_output(path, text.decode("utf-8", "surrogatepass")))
        return results


def start(
    paths: list[Path],
    jpath: list[Path] | None = None,
    allow_anywhere: bool = False,
    variables: dict[str, dict[str, str]] | None = None,
) -> Pending:
    """Start evaluating ``paths`` in a sandboxed child; ``.result()`` waits for the data."""
    files = []
    for path in paths:
        _check_utf8_path(path, "file")
        files.append(str(_as_given(path, allow_anywhere)))  # a link out is refused before it is looked at
        _check_source_file(path)
    for folder in jpath or []:
        _check_utf8_path(Path(folder), "-J folder")
    request = {
        "files": files,
        "jpath": [str(LIBSONNET), *(str(Path(j).resolve()) for j in jpath or [])],
        "allow_anywhere": allow_anywhere,
        "engine": os.environ.get("PADDLEJOB_JSONNET", "rjsonnet"),
        "variables": {kind: dict((variables or {}).get(kind, {})) for kind in VARIABLE_KINDS},
    }
    child = subprocess.Popen(
        child_command(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=os.sep,  # not the job's folder nor the caller's: nothing relative resolves there
        env={},  # nothing of the caller's environment (PYTHON*, secrets) reaches the child
    )
    stderr = _Tail(child.stderr, STDERR_TAIL)
    stderr.start()
    try:  # the child reads its whole request first, then works while the caller does other things
        child.stdin.write(json.dumps(request).encode())  # ASCII: json.dumps escapes the rest
        child.stdin.close()
    except OSError:
        pass  # the child died at once: result() says why
    return Pending(paths, child, stderr)


# The child's first code: load this package from the file the parent loaded it from (argv:
# package name, its __init__.py, this module's name), then run the child's side. Nothing is
# looked up on sys.path but the standard library and the interpreter's site-packages.
_BOOTSTRAP = """\
import importlib, importlib.util, os, sys
name, init, module, extra = sys.argv[1:5]
spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[os.path.dirname(init)])
package = importlib.util.module_from_spec(spec)
sys.modules[name] = package
spec.loader.exec_module(package)
if extra:
    sys.path.append(extra)
importlib.import_module(module)._child()
"""


def child_command() -> list[str]:
    """The sandbox child's command line: an isolated interpreter (-I) in UTF-8 mode that loads
    this package by its location. When the package is installed in a site folder (a venv, the
    system, `pip install --user`), that folder goes last on the child's sys.path, for its
    dependencies installed beside it (-I leaves out the user site); a source checkout does not
    (files beside the package there are not dependencies)."""
    package = sys.modules[__name__.split(".")[0]]
    init = Path(package.__file__).resolve()
    site_folder = init.parent.parent
    extra = str(site_folder) if site_folder.name in ("site-packages", "dist-packages") else ""
    return [sys.executable, "-I", "-X", "utf8", "-c", _BOOTSTRAP, package.__name__, str(init), __name__, extra]


def _as_given(path: Path, allow_anywhere: bool) -> Path:
    """``path`` as the child reads it: its folder resolved, its own name kept. The folder of the
    path as given is where imports may come from, not the folder a linked FILE points into; and a
    FILE that is a symbolic link out of its own folder tree (`job.jsonnet -> ~/secret.json`, as a
    pull request may commit) is refused unless --allow-import-anywhere."""
    folder = path.parent.resolve()
    real = path.resolve()
    if not allow_anywhere and not _inside(real, [folder]):
        # one message wherever the link points, and whether or not anything is there
        raise SourceRefused(
            f"{path}: a symbolic link out of its own folder ({path.parent}); not read; give the file itself, "
            "or pass --allow-import-anywhere if you trust where it points"
        )
    return folder / path.name


def _death(code: int, stderr: str) -> str:
    if code in (-signal.SIGSEGV, -signal.SIGBUS):
        return "the jsonnet engine crashed: the program recurses too deeply (its stack is limited to 64 MiB)"
    if code in (-signal.SIGABRT, -signal.SIGKILL) or "memory" in stderr.lower():
        return f"the jsonnet program needed more than {MEMORY_LIMIT >> 20} MiB of memory"
    if code == -signal.SIGXCPU:
        return f"the jsonnet program ran longer than {CPU_SECONDS} s of CPU"
    last = stderr.strip().splitlines()[-1:] or [f"exit status {code}"]
    return f"the jsonnet evaluation failed: {last[0][:300]}"


def _output(path: Path, text: str):
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except ValueError as err:
        raise SandboxError(f"{path}: the output is not JSON ({err}); a number overflowed (std.pow?)") from None
    except RecursionError:
        raise SandboxError(f"{path}: the output nests deeper than {MAX_DEPTH} levels") from None
    if nesting_depth(data) > MAX_DEPTH:
        raise SandboxError(f"{path}: the output nests deeper than {MAX_DEPTH} levels; no manifest does")
    return data


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


# -- checks shared by both sides -----------------------------------------------------------------


def _check_utf8_path(path: Path, what: str) -> None:
    """jsonnet names files in UTF-8 only; a name with other bytes cannot reach the engine."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        raise SandboxError(
            f"{os.fsencode(path)!r}: the {what}'s path is not UTF-8; rename it (jsonnet takes UTF-8 names only)"
        ) from None


def _check_source_file(path: Path) -> None:
    _check_utf8_path(path, "file")
    if not path.is_file():
        raise SandboxError(f"{path}: not a regular file")
    if path.stat().st_size > MAX_SOURCE_BYTES:
        raise SandboxError(f"{path}: larger than {MAX_SOURCE_BYTES:,} bytes")


def nesting_problem(text: str) -> str | None:
    """Brackets nested deeper than MAX_NESTING, outside strings and comments."""
    depth, i, n = 0, 0, len(text)
    while i < n:
        c = text[i]
        if c in "([{":
            depth += 1
            if depth > MAX_NESTING:
                line = text.count("\n", 0, i) + 1
                return f"line {line}: brackets nest deeper than {MAX_NESTING} levels (the C++ engine's parse limit)"
        elif c in ")]}":
            depth -= 1
        elif c in "\"'":
            i = _string_end(text, i, c)
        elif c == "#" or text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
        elif text.startswith("/*", i):
            i = text.find("*/", i + 2)
            i = n if i < 0 else i + 1
        elif text.startswith("|||", i):
            i = text.find("|||", i + 3)
            i = n if i < 0 else i + 2
        i += 1
    return None


def _string_end(text: str, i: int, quote: str) -> int:
    i += 1
    while i < len(text) and text[i] != quote:
        i += 2 if text[i] == "\\" else 1
    return i


def _inside(path: Path, roots: list[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def _outside_message(rel: str) -> str:
    """The one error for an import outside the allowed folders, whatever is (or is not) there."""
    return (
        f"import {rel!r}: outside the file's folder, the library and -J folders (or a link out of them); not "
        "read; pass --allow-import-anywhere if you trust the file"
    )


def make_import_callback(policy: Policy, as_bytes: bool):
    """The engines' import callback: (importing folder, import path) -> (found path, content).

    Each candidate (the importing folder, then each root, as jsonnet searches them) is judged
    first by its spelling (made absolute, `..` folded) and then by where it resolves: one that is
    outside the roots either way is passed over without being looked at, so what lies outside
    (a file, a folder, nothing, a link and its target) never changes the outcome; if no candidate
    inside is found, an import that had a candidate outside gets _outside_message. Messages name
    the candidate as spelt, never where a link points."""
    spelt_roots = [Path(os.path.abspath(root)) for root in policy.roots]
    real_roots = []
    for root in policy.roots:
        try:
            real_roots.append(Path(root).resolve())
        except (OSError, RuntimeError):
            continue
    roots = spelt_roots + real_roots

    def callback(folder: str, rel: str):
        # rjsonnet gives the top file's imports the process's own folder (the child's is /): not a
        # folder of the program's, so not a candidate (the file's own folder is the first root)
        own = policy.allow_anywhere or _inside(Path(os.path.abspath(folder)), roots)
        candidates = [Path(folder) / rel] * own + [root / rel for root in policy.roots]
        outside = False
        for candidate in candidates:
            spelt = Path(os.path.abspath(candidate))
            try:
                real = candidate.resolve()
            except (OSError, RuntimeError):
                real = None
            if not policy.allow_anywhere and (real is None or not (_inside(spelt, roots) and _inside(real, roots))):
                outside = True  # a link that loops counts as outside: it may loop out there
                continue
            if real is None or not real.exists():
                continue
            if not real.is_file():
                raise RuntimeError(f"import {rel!r}: {candidate} is not a regular file")
            if real.stat().st_size > MAX_SOURCE_BYTES:
                raise RuntimeError(f"import {rel!r}: {candidate} is larger than {MAX_SOURCE_BYTES:,} bytes")
            raw = real.read_bytes()[: MAX_SOURCE_BYTES + 1]
            if as_bytes:
                return str(candidate), raw
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise RuntimeError(f"import {rel!r}: {candidate} is not UTF-8 text") from None
            if real.suffix in (".jsonnet", ".libsonnet"):
                problem = nesting_problem(text)
                if problem:
                    raise RuntimeError(f"import {rel!r}: {candidate}: {problem}")
            return str(candidate), text
        if outside:
            raise RuntimeError(_outside_message(rel))
        raise RuntimeError(f"import {rel!r}: file not found")

    return callback


# -- child ---------------------------------------------------------------------------------------


def _limit_child() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS + 5))


def _evaluate_one(file: str, request: dict) -> dict:
    path = Path(file)
    policy = Policy([path.parent, *(Path(j) for j in request["jpath"])], request["allow_anywhere"])
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        return {"error": f"cannot read the file: {err}"}
    problem = nesting_problem(text)
    if problem:
        return {"error": problem}
    engine, variables = request["engine"], request["variables"]
    try:
        if engine == "rjsonnet":
            import rjsonnet

            out = rjsonnet.evaluate_snippet(
                str(path), text, jpathdir=[], import_callback=make_import_callback(policy, False), **variables
            )
        else:
            module = __import__("_jsonnet" if engine == "cpp" else "_gojsonnet")
            out = module.evaluate_snippet(
                str(path), text, import_callback=make_import_callback(policy, True), **variables
            )
    except RuntimeError as err:
        return {"error": "jsonnet failed:\n" + str(err).strip()}
    except ImportError as err:
        return {
            "error": f"the jsonnet engine {engine!r} cannot be imported in the sandbox's isolated Python "
            f"({sys.executable} -I): {err}; install it into that interpreter"
        }
    except Exception as err:  # noqa: BLE001 - an engine's own failure, said as the file's error
        return {"error": f"the jsonnet engine failed: {type(err).__name__}: {str(err)[:300]}"}
    return {"json": out}


def _child() -> None:
    import threading

    _limit_child()
    request = json.loads(sys.stdin.read())

    def run() -> None:
        for file in request["files"]:
            outcome = _evaluate_one(file, request)
            sys.stdout.buffer.write(_answer(outcome))
            sys.stdout.buffer.flush()
            if "error" in outcome:
                break

    threading.stack_size(STACK_BYTES)
    worker = threading.Thread(target=run)
    worker.start()
    worker.join()


def _answer(outcome: dict) -> bytes:
    """One file's answer as Pending reads it: a header line, then the result's text. A result over
    MAX_OUTPUT_BYTES and an error's message over MAX_ERROR_CHARS are never sent whole."""
    if "error" in outcome:
        message = outcome["error"]
        if len(message) > MAX_ERROR_CHARS:
            message = f"{message[:MAX_ERROR_CHARS]}... ({len(message) - MAX_ERROR_CHARS:,} characters more)"
        return json.dumps({"error": message}).encode() + b"\n"
    text = outcome["json"]
    data = b"" if len(text) > MAX_OUTPUT_BYTES else text.encode("utf-8", "surrogatepass")
    if len(text) > MAX_OUTPUT_BYTES or len(data) > MAX_OUTPUT_BYTES:
        return json.dumps({"error": f"the output is larger than {MAX_OUTPUT_BYTES:,} bytes"}).encode() + b"\n"
    return json.dumps({"size": len(data)}).encode() + b"\n" + data


if __name__ == "__main__":
    _child()
