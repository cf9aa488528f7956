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
- the result must be JSON (no `inf` from std.pow), at most 16 MiB and MAX_DEPTH levels deep.

Our own library (the install bundle) is trusted and evaluated in-process by engine.py.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from generator.core.errors import Error, InputError
from generator.core.paths import LIBSONNET
from generator.kubeyaml.load import MAX_DEPTH, nesting_depth

MAX_SOURCE_BYTES = 16 * 1024 * 1024
MAX_OUTPUT_BYTES = 16 * 1024 * 1024  # a job is kilobytes; parsed, the limit costs ~100 MB
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


class Pending:
    """A sandboxed evaluation under way: the child works while the caller does other things."""

    def __init__(self, paths: list[Path], child: subprocess.Popen, request: str) -> None:
        self.paths, self.child, self.request = paths, child, request

    def result(self) -> list:
        try:
            stdout, stderr = self.child.communicate(self.request, timeout=CPU_SECONDS * 2)
        except subprocess.TimeoutExpired:
            self.child.kill()
            self.child.communicate()
            raise SandboxError(f"{self.paths[0]}: jsonnet did not finish within {CPU_SECONDS * 2} s") from None
        if self.child.returncode != 0 or not stdout:
            raise SandboxError(f"{self.paths[0]}: {_death(self.child.returncode, stderr)}")
        try:
            outcomes = json.loads(stdout)
        except ValueError:
            raise SandboxError(f"{self.paths[0]}: the sandbox's answer is not JSON: {stdout[:200]!r}") from None
        results = []
        for path, outcome in zip(self.paths, outcomes, strict=False):
            if "error" in outcome:
                raise SandboxError(f"{path}: {outcome['error']}")
            results.append(_output(path, outcome["json"]))
        if len(results) < len(self.paths):
            missing = self.paths[len(results)]
            raise SandboxError(f"{missing}: the sandbox gave no result: {_death(self.child.returncode, stderr)}")
        return results


def start(
    paths: list[Path],
    jpath: list[Path] | None = None,
    allow_anywhere: bool = False,
    variables: dict[str, dict[str, str]] | None = None,
) -> Pending:
    """Start evaluating ``paths`` in a sandboxed child; ``.result()`` waits for the data."""
    for path in paths:
        _check_source_file(path)
    for folder in jpath or []:
        _check_utf8_path(Path(folder), "-J folder")
    request = {
        "files": [str(_as_given(p, allow_anywhere)) for p in paths],
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
        encoding="utf-8",
        errors="replace",
    )
    return Pending(paths, child, json.dumps(request))


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
        raise SourceRefused(
            f"{path}: a symbolic link to {os.readlink(path) if path.is_symlink() else str(real)!r}, outside "
            f"its own folder ({path.parent}); not read; give the file itself, or pass "
            "--allow-import-anywhere if you trust where it points"
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
    if len(text) > MAX_OUTPUT_BYTES:
        raise SandboxError(f"{path}: the output is larger than {MAX_OUTPUT_BYTES:,} bytes")
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


def make_import_callback(policy: Policy, as_bytes: bool):
    """The engines' import callback: (importing folder, import path) -> (found path, content)."""

    def callback(folder: str, rel: str):
        candidates = [Path(folder) / rel] + [root / rel for root in policy.roots]
        for candidate in candidates:
            try:
                real = candidate.resolve()
            except (OSError, RuntimeError):
                continue
            if not real.exists():
                continue
            if not policy.allow_anywhere and not _inside(real, policy.roots):
                raise RuntimeError(
                    f"import {rel!r} resolves to {real}, outside the file's folder, the library and -J "
                    "folders; pass --allow-import-anywhere if you trust the file"
                )
            if not real.is_file():
                raise RuntimeError(f"import {rel!r}: {real} is not a regular file")
            if real.stat().st_size > MAX_SOURCE_BYTES:
                raise RuntimeError(f"import {rel!r}: {real} is larger than {MAX_SOURCE_BYTES:,} bytes")
            raw = real.read_bytes()[: MAX_SOURCE_BYTES + 1]
            if as_bytes:
                return str(candidate), raw
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise RuntimeError(f"import {rel!r}: {real} is not UTF-8 text") from None
            if real.suffix in (".jsonnet", ".libsonnet"):
                problem = nesting_problem(text)
                if problem:
                    raise RuntimeError(f"import {rel!r}: {real}: {problem}")
            return str(candidate), text
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
    results: list[dict] = []

    def run() -> None:
        for file in request["files"]:
            results.append(_evaluate_one(file, request))
            if "error" in results[-1]:
                break

    threading.stack_size(STACK_BYTES)
    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    sys.stdout.write(json.dumps(results))


if __name__ == "__main__":
    _child()
