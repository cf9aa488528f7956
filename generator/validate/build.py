"""`validate --build`: what Argo CD and Flux apply, built as they build it, and checked.

A kustomization folder is built with `kubectl kustomize DIR` and a Helm chart rendered with
`helm template release-name CHART --include-crds` (its default values), as Argo CD's repo server
and Flux's kustomize- and helm-controllers do; each finding on the output is placed on the file
the object came from: the resource file a kustomization names (found by kind and name, before
`namePrefix`/`nameSuffix`), or the chart's template (helm's `# Source: CHART/templates/FILE`
line above each document), with the line of the tool's output it is on.

The files are the pull request's, so a build must neither reach the network nor run code:

- a kustomization that names anything but a local file or folder (a URL, `github.com/...`,
  `git@...`, `?ref=`: kustomize would fetch it), one outside the folders named, `helmCharts`
  (kustomize would run helm), a generator, transformer or validator that is a KRM function
  (exec, container, starlark) or not one of kustomize's builtins, is refused with the line that
  names it; `kubectl kustomize` keeps its default load restrictor (files only under the
  kustomization's folder) and is never given `--enable-helm`, `--enable-alpha-plugins` or
  `--enable-exec`;
- a chart whose dependencies are not vendored in `charts/` (helm would need the network),
  whose values schema `$ref`s anything but itself, or that holds a symbolic link out of its
  folder (helm follows links into `.Files`) is refused; `--dependency-update` and
  `--enable-dns` are never given;
- each tool runs with a minimal environment (no PATH, KUBECONFIG=/dev/null, HOME and every
  HELM_* folder in a temporary folder removed afterwards, proxies that lead nowhere), in a new
  network namespace where `unshare` can make one, with at most MEMORY_LIMIT bytes of address
  space, in its own process group that is killed when it ends, when the time limit passes or
  when its output passes OUTPUT_LIMIT bytes.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import posixpath
import re
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from generator.core import provenance
from generator.core.errors import InputError
from generator.core.findings import Finding, dotted, split_path
from generator.kubeyaml.load import Document, iter_documents
from generator.validate import discover
from generator.validate.report import Located, Report
from generator.validate.stream import validate_text

RELEASE = "release-name"  # the name `helm template CHART` gives the release when none is given (Helm 3 and 4)
TIMEOUT_SECONDS = discover.BUILD_TIMEOUT_SECONDS
OUTPUT_LIMIT = 64 * 1024 * 1024  # bytes of a tool's output read at most: the limit of a pipe (stream.py)
MEMORY_LIMIT = 2 << 30  # bytes of address space a tool may map (Go's runtime runs well below 1 GiB)
STDERR_LIMIT = 16 * 1024  # bytes of a tool's error output kept for the message
FILE_LIMIT = 3 * 1024 * 1024  # a kustomization, Chart.yaml or values schema: the apiserver's document limit
ARCHIVE_LIMIT = 64 * 1024 * 1024  # bytes unpacked at most from a packaged subchart to check it
# Where a proxy would be: nothing listens on the discard port of the loopback address, so a Go
# HTTP client or git that tried the network fails at once instead of reaching it.
NOWHERE = "http://127.0.0.1:9"
# JSON Schema meta-schemas helm's validators know without fetching them
_META_SCHEMA = re.compile(r"^https?://json-schema\.org/(draft-0[3467]|draft/20(19-09|20-12))/schema#?$")
# What kustomize may take for a remote target rather than a local path (api/internal/git/repospec.go,
# kustomize v5): a scheme (`https://`, `ssh://`, `file://`, `git::`, `gh:`), an SCP-style remote
# (`git@host:org/repo`, `user@host:org/repo`: a colon or an `@` before the first slash), a known
# host, Azure's `_git/`, a `.git` suffix, a `//` subfolder separator, or a query kustomize reads.
# It is refused whether or not a local folder of that name exists: kustomize tries the remote first.
_REMOTE = re.compile(
    r"^[^/]*[:@]|^(github\.com|gitlab\.com|bitbucket\.org)/|_git/|\.git(?:[/?]|$)|//"
    r"|[?&](?:ref|version|timeout|submodules|cache)=",
    re.I,
)
# kustomization fields that would make kustomize run helm (helmCharts needs --enable-helm)
_KLOG = re.compile(r"^[EWI]\d{4} [\d:.]+\s+\d+ [\w.]+:\d+\] ", re.M)  # kubectl's log header on each line
_HELM_FIELDS = ("helmCharts", "helmChartInflationGenerator", "helmGlobals")
_PLUGIN_FIELDS = ("generators", "transformers", "validators")
_FUNCTION_ANNOTATIONS = ("config.kubernetes.io/function", "config.k8s.io/function")


class Target(NamedTuple):
    """A folder to build: `kustomize` (``file`` the kustomization) or `helm` (``file`` Chart.yaml)."""

    tool: str
    folder: str
    file: str


class Refused(Exception):
    """A build that is not run, or that failed: the file and line that say why."""

    def __init__(self, file: str, line: int, column: int, message: str):
        super().__init__(message)
        self.file, self.line, self.column, self.message = file, line, column, message

    def located(self) -> Located:
        return Located(Finding("error", "", "build", self.message), self.file, 1, self.line, self.column)


class Source(NamedTuple):
    """Where a built object came from: a file, and its document there when it could be read."""

    file: str
    document: Document | None


class Patch(NamedTuple):
    """A patch a kustomization applies: where it is written (a patch file, or the kustomization
    where it is inline: ``line`` is its entry's line there), its text, the kind and name it
    targets when it says (a strategic-merge patch says it in its own text)."""

    file: str
    line: int
    inline: bool
    text: str
    kind: str | None
    name: str | None


class Built(NamedTuple):
    target: Target
    command: str  # as a user would type it to see the same output
    text: str  # the tool's output
    sources: dict[tuple[str, str], list[Source]]  # (kind, name as built) -> its source files (kustomize)
    inputs: frozenset[str]  # resource files the build read (resolved), but those `render` wrote: not read alone
    patches: tuple[Patch, ...] = ()  # the patches of its kustomizations (kustomize)


# -- the tools -------------------------------------------------------------------------------


def find_tool(name: str, given: str | None) -> str | None:
    """The tool's executable: ``given`` (--kubectl, --helm), else the first on PATH. Only absolute
    PATH entries are searched: a relative one (`.`, `bin`) would find the checkout's own file."""
    if given:
        return given
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if os.path.isabs(p))
    return shutil.which(name, path=path) if path else None


class _Sandbox:
    """A temporary HOME, with the environment each tool runs in, removed when left."""

    def __enter__(self):
        self.home = tempfile.mkdtemp(prefix="paddlejob-build-")
        home = self.home
        self.env = {
            "PATH": os.path.join(home, "bin"),  # nothing to run: git, helm plugins, exec functions
            "HOME": home,
            "TMPDIR": home,
            "KUBECONFIG": os.devnull,
            "XDG_CACHE_HOME": os.path.join(home, "cache"),
            "XDG_CONFIG_HOME": os.path.join(home, "config"),
            "XDG_DATA_HOME": os.path.join(home, "data"),
            "HELM_CACHE_HOME": os.path.join(home, "helm", "cache"),
            "HELM_CONFIG_HOME": os.path.join(home, "helm", "config"),
            "HELM_DATA_HOME": os.path.join(home, "helm", "data"),
            "HELM_PLUGINS": os.path.join(home, "helm", "plugins"),
            "HELM_REGISTRY_CONFIG": os.path.join(home, "helm", "registry.json"),
            "HELM_REPOSITORY_CONFIG": os.path.join(home, "helm", "repositories.yaml"),
            "HELM_REPOSITORY_CACHE": os.path.join(home, "helm", "repository"),
            "KUSTOMIZE_PLUGIN_HOME": os.path.join(home, "kustomize"),
            "LANG": "C",
        }
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
            self.env[name] = NOWHERE
        self.env["NO_PROXY"] = self.env["no_proxy"] = ""
        return self

    def __exit__(self, *exc) -> None:
        shutil.rmtree(self.home, ignore_errors=True)


_UNSHARE: list[str] | None = None


def _isolation() -> list[str]:
    """`unshare --net --map-root-user` when this machine lets a user make a network namespace
    (then a tool has no network at all); else nothing. Only for --build-unconfined: the
    confinement below makes a network namespace of its own."""
    global _UNSHARE
    if _UNSHARE is None:
        _UNSHARE = []
        unshare = find_tool("unshare", None)
        if unshare and _starts([unshare, "--net", "--map-root-user", "true"]) is None:
            _UNSHARE = [unshare, "--net", "--map-root-user"]
    return _UNSHARE


def _starts(argv: list[str]) -> str | None:
    """None when ``argv`` runs and exits 0 within 5 s, else what went wrong."""
    try:
        done = subprocess.run(
            argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=5, env={"PATH": "/usr/bin:/bin"}, check=False
        )
    except (OSError, subprocess.SubprocessError) as err:
        return str(err)
    if done.returncode != 0:
        return " ".join(done.stderr.decode("utf-8", "replace").split())[:300] or f"exit {done.returncode}"
    return None


# The system's programs and libraries, read-only, so that a tool linked against them (or a
# script standing in for one) runs; nothing of /etc, /home, /root, /tmp, /var or /run is seen.
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


class Confinement(NamedTuple):
    """bubblewrap (`bwrap`), found and able to make namespaces on this machine."""

    bwrap: str

    def argv(self, tool: str, roots: list[str], home: str) -> list[str]:
        """The command that runs ``tool`` in new user, mount, network, PID, IPC and UTS
        namespaces where the file system is: the system folders, the tool's own file, ``roots``
        (the folders named, by their real paths) read-only, ``home`` writable, a new /dev, /proc
        and an empty /tmp; no network device but loopback, no capability, its own session."""
        out = [self.bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
        for folder in SYSTEM_FOLDERS:
            if os.path.islink(folder):
                out += ["--symlink", os.readlink(folder), folder]
            elif os.path.isdir(folder):
                out += ["--ro-bind", folder, folder]
        out += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
        real_tool = os.path.realpath(tool)
        out += ["--ro-bind", real_tool, real_tool]
        for root in sorted({os.path.realpath(r) for r in roots}, key=len):
            out += ["--ro-bind", root, root]
        out += ["--bind", home, home, "--chdir", home, "--", real_tool]
        return out


_CONFINEMENT: Confinement | str | None = None


def confinement() -> Confinement | str:
    """The sandbox --build runs each tool in, or why this machine cannot make one (then
    --build refuses to run unless --build-unconfined says the files are trusted)."""
    global _CONFINEMENT
    if _CONFINEMENT is None:
        bwrap = find_tool("bwrap", None)
        true = shutil.which("true", path="/usr/bin:/bin")
        if bwrap is None:
            _CONFINEMENT = "bubblewrap (bwrap) is not installed"
        elif true is None:
            _CONFINEMENT = "no /usr/bin/true to try bubblewrap with"
        else:
            with tempfile.TemporaryDirectory(prefix="paddlejob-build-") as home:
                argv = Confinement(bwrap).argv(true, [], home)
                problem = _starts(argv)
            found = f"bubblewrap cannot make its namespaces here: {problem}" if problem else Confinement(bwrap)
            _CONFINEMENT = found
    return _CONFINEMENT


class Failed(Exception):
    """A tool that failed, timed out or wrote too much; the message says which."""


def _limit_memory() -> None:  # in the child, before exec: inherited by the tool and its children
    import resource

    with contextlib.suppress(ValueError, OSError):  # a system that cannot limit it (macOS): the time limit holds
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = MEMORY_LIMIT if hard == resource.RLIM_INFINITY else min(hard, MEMORY_LIMIT)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _exited(proc: subprocess.Popen) -> bool:
    """Whether the tool has ended, left unreaped where the system allows (waitid's WNOWAIT), so
    that its process group id is still its own when the group is killed."""
    if hasattr(os, "waitid"):
        return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    return proc.poll() is not None  # macOS: reaped; the group is killed at once after


def run(
    argv: list[str],
    env: dict[str, str],
    cwd: str,
    timeout: float,
    limit: int = OUTPUT_LIMIT,
    deadline: float | None = None,
) -> str:
    """The standard output of ``argv``, run in a process group of its own that is killed when it
    ends (no process is left behind), at ``deadline`` (a time.monotonic(); default ``timeout``
    seconds from now: ``timeout`` is what the message names), or past ``limit`` bytes of output;
    both outputs are read as they come, bounded. Failed: a non-zero exit (with the tool's error
    output), the time limit, the output limit, output that is not UTF-8."""
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
            start_new_session=True,
            close_fds=True,
            preexec_fn=_limit_memory,
        )
    except (OSError, subprocess.SubprocessError) as err:
        raise Failed(f"cannot run {argv[0]}: {getattr(err, 'strerror', None) or err}") from None
    out, err = bytearray(), bytearray()
    deadline = time.monotonic() + timeout if deadline is None else deadline
    late = f"did not end within the {timeout:g} s --build-timeout gives the whole run: stopped"
    selector = selectors.DefaultSelector()
    try:
        selector.register(proc.stdout, selectors.EVENT_READ)
        selector.register(proc.stderr, selectors.EVENT_READ)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                raise Failed(late)
            for key, _ in selector.select(left):
                data = os.read(key.fd, 1 << 16)
                if not data:
                    selector.unregister(key.fileobj)
                elif key.fileobj is proc.stdout:
                    out += data
                    if len(out) > limit:
                        raise Failed(f"wrote more than {limit:,} bytes: stopped")
                elif len(err) < STDERR_LIMIT:
                    err += data[: STDERR_LIMIT - len(err)]
        while True:  # both pipes closed: wait for the exit, without reaping (the group stays ours)
            if _exited(proc):
                break
            if time.monotonic() > deadline:
                raise Failed(late)
            time.sleep(0.01)
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # the tool, if it still runs, and anything it started
        proc.wait()
        selector.close()
        proc.stdout.close()
        proc.stderr.close()
    if proc.returncode != 0 and b"out of memory" in err:
        raise Failed(f"ran out of memory (the limit is {MEMORY_LIMIT >> 30} GiB of address space): stopped")
    if proc.returncode != 0:
        said = _KLOG.sub("", err.decode("utf-8", "replace")).strip()
        said = " ".join(said.split())[:2000] or "no message"
        raise Failed(f"failed (exit {proc.returncode}): {said}")
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError as error:
        raise Failed(f"wrote output that is not UTF-8 (byte {error.start}): stopped") from None


# -- reading the pull request's files, bounded -----------------------------------------------


def _documents(path: Path) -> list[Document]:
    """The documents of a regular file of at most FILE_LIMIT bytes (none otherwise)."""
    try:
        if not path.is_file() or path.stat().st_size > FILE_LIMIT:
            return []
        return list(iter_documents(path.read_bytes()))
    except OSError:
        return []


def _recorded(path: Path) -> bool:
    """Whether the file starts with the record `render` writes (core/provenance.py)."""
    try:
        with open(path, "rb") as stream:
            return provenance.read(stream.read(provenance.HEAD_BYTES)) is not None
    except (OSError, provenance.ProvenanceError):
        return False


def _checked(path: Path, refused_at: str, what: str) -> list[Document]:
    """The documents of a file the build would act on (a kustomization, a plugin configuration):
    Refused when it cannot be read whole or has a YAML error, where kustomize's reader might
    see what this one does not (remote resources, functions)."""
    try:
        size = path.stat().st_size
        if size > FILE_LIMIT:
            raise Refused(
                refused_at, 1, 1, f"{what}: {size:,} bytes, more than validate --build checks ({FILE_LIMIT:,})"
            )
        docs = list(iter_documents(path.read_bytes()))
    except OSError as err:
        raise Refused(refused_at, 1, 1, f"{what}: cannot read it: {err.strerror or err}") from None
    for doc in docs:
        for problem in doc.problems:
            if problem.severity == "error":
                raise Refused(
                    str(path),
                    problem.line,
                    problem.column,
                    f"{what}: {problem.message}: validate --build builds only what it can check",
                )
    return docs


def _position(doc: Document | None, path: list) -> tuple[int, int]:
    if doc is None:
        return 1, 1
    (line, column), _ = doc.position(path)
    return line, column


def _inside(path: Path, roots: list[str]) -> bool:
    real = os.path.realpath(path)
    return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except (OSError, ValueError):  # a NUL byte in the name
        return False


def kustomization_file(folder: Path) -> Path | None:
    return next((folder / name for name in discover.KUSTOMIZATIONS if (folder / name).is_file()), None)


# -- kustomize -------------------------------------------------------------------------------


def fold(name: str) -> str:
    """A field name as kustomize matches it: its kustomization and builtin plugin configurations
    are decoded by Go's encoding/json (through sigs.k8s.io/yaml), which matches a struct's field
    names without regard to case, with Unicode's simple case folding (`Resources`, `RESOURCES`
    and `reſources`, with U+017F, are all `resources`; U+212A, the Kelvin sign, is `k`)."""
    out = []
    for char in name:
        folded = char.casefold()
        out.append(folded if len(folded) == 1 else char.lower())
    return "".join(out)


def _fields(data: object, name: str) -> list[tuple[str, object]]:
    """Every (key, value) of the mapping ``data`` that kustomize would read as the field ``name``."""
    if not isinstance(data, dict):
        return []
    want = fold(name)
    return [(key, value) for key, value in data.items() if isinstance(key, str) and fold(key) == want]


def _field(data: object, name: str) -> object:
    """The value kustomize reads for ``name`` when one key spells it, else None."""
    found = _fields(data, name)
    return found[0][1] if len(found) == 1 else None


def _plugin_config(kfile: str, doc: Document | None, where: list, config: object) -> None:
    """Refuse a generator/transformer/validator configuration that kustomize would run as code,
    that would run helm, or that names a remote file."""
    if not isinstance(config, dict):
        return
    annotations: dict = {}
    for _, meta in _fields(config, "metadata"):
        for _, found in _fields(meta, "annotations"):
            annotations.update(found if isinstance(found, dict) else {})
    line, column = _position(doc, where)
    for key in _FUNCTION_ANNOTATIONS:
        if key in annotations:
            raise Refused(
                kfile,
                line,
                column,
                f"{where[0]}: a KRM function ({key}: exec, container or starlark): kustomize would run it "
                "(--enable-alpha-plugins, --enable-exec); validate --build runs no code from the "
                "repository: build it yourself where you trust it and pipe the output (kubectl kustomize "
                "--enable-alpha-plugins DIR | paddlejob-manifests validate -)",
            )
    kinds = {fold(str(value)) for _, value in _fields(config, "kind")}
    if fold("HelmChartInflationGenerator") in kinds:
        raise Refused(
            kfile,
            line,
            column,
            f"{where[0]}: HelmChartInflationGenerator: kustomize would run helm, which may fetch the chart over the "
            "network; validate --build never does: vendor the chart and name its folder, which --build renders",
        )
    versions = [value for _, value in _fields(config, "apiVersion")]
    if config.get("apiVersion") != "builtin" or any(value != "builtin" for value in versions):
        raise Refused(
            kfile,
            line,
            column,
            f"{where[0]}: {config.get('kind', '?')} ({config.get('apiVersion', 'no apiVersion')}) is not one of "
            "kustomize's builtin plugins (apiVersion: builtin): an exec or Go plugin is code from the "
            "repository, which validate --build never runs; build it yourself and pipe the output",
        )


# kustomization fields that name a file to load, which kustomize's file loader fetches when it is
# an http(s) URL (api/internal/loader/fileloader.go, kustomize v5): patches' and replacements'
# `path`, openapi's `path`, generators' `files` (KEY=PATH), `envs` and `env`, ...
_PATH_KEYS = frozenset(map(fold, ("path", "env")))
_PATH_LISTS = frozenset(map(fold, ("files", "envs", "paths", "configurations", "crds", "patchesStrategicMerge")))
# fields whose mappings are data (labels, annotations), not kustomize's fields: not searched
_DATA_MAPS = frozenset(map(fold, ("commonLabels", "commonAnnotations", "pairs", "labels", "annotations")))


def _remote_path(node: object, where: tuple = ()) -> tuple[list, str] | None:
    """The first file a kustomization or plugin configuration names (by the fields above, spelt
    as kustomize matches them, at any depth) that is a URL or a git repository: (its path in the
    document, the entry)."""
    if isinstance(node, dict):
        items = node.items()
    elif isinstance(node, list):
        items = enumerate(node)
    else:
        return None
    for key, value in items:
        here = (*where, key)
        folded = fold(key) if isinstance(key, str) else key
        if isinstance(value, str) and "\n" not in value:
            listed = isinstance(key, int) and where and isinstance(where[-1], str) and fold(where[-1]) in _PATH_LISTS
            if (folded in _PATH_KEYS or listed) and (_REMOTE.search(value) or _REMOTE.search(value.partition("=")[2])):
                return list(here), value
        elif isinstance(value, dict | list) and len(here) < 20 and folded not in _DATA_MAPS:
            found = _remote_path(value, here)
            if found:
                return found
    return None


class _Scan:
    """The kustomizations a build reads, checked before it runs, and the objects of their
    resource files by (kind, name as the build names them)."""

    def __init__(self, roots: list[str]):
        self.roots = roots
        self.sources: dict[tuple[str, str], list[Source]] = {}
        self.inputs: set[str] = set()
        self.patches: list[Patch] = []
        self.seen: set[str] = set()

    def kustomization(self, folder: Path, prefix: str = "", suffix: str = "", depth: int = 0) -> None:
        kpath = kustomization_file(folder)
        real = os.path.realpath(folder)
        if kpath is None or real in self.seen:  # kustomize itself says what is missing or cyclic
            return
        if depth > 50:
            raise Refused(str(kpath), 1, 1, "kustomizations nested more than 50 deep: too deep for validate --build")
        self.seen.add(real)
        kfile = str(kpath)
        docs = _checked(kpath, kfile, "the kustomization")
        doc = next((d for d in docs if isinstance(d.data, dict)), None)
        data = doc.data if doc is not None else {}
        for key in [found for name in _HELM_FIELDS for found, _ in _fields(data, name)]:
            line, column = _position(doc, [key])
            raise Refused(
                kfile,
                line,
                column,
                f"{key}: kustomize would run helm, which may fetch the chart over the network "
                "(kubectl kustomize --enable-helm); validate --build never does: vendor the chart into the "
                "repository and name it by its folder, which --build renders with helm template",
            )
        if (remote := _remote_path(data)) is not None:
            where, entry = remote
            line, column = _position(doc, where)
            raise self._remote(kfile, line, column, dotted(where), entry)
        self._patches(folder, kfile, doc, data)
        inner_prefix, inner_suffix = _field(data, "namePrefix"), _field(data, "nameSuffix")
        prefix += inner_prefix if isinstance(inner_prefix, str) else ""
        suffix = (inner_suffix if isinstance(inner_suffix, str) else "") + suffix
        for name in ("resources", "bases", "components"):
            for key, entries in _fields(data, name):
                for index, entry in enumerate(entries if isinstance(entries, list) else []):
                    if isinstance(entry, str):
                        self._resource(folder, kfile, doc, [key, index], entry, prefix, suffix, depth)
        for key, entries in [found for name in _PLUGIN_FIELDS for found in _fields(data, name)]:
            for index, entry in enumerate(entries if isinstance(entries, list) else []):
                if not isinstance(entry, str):
                    continue
                if "\n" in entry:  # an inline configuration (kustomize 4.1+)
                    for inline in iter_documents(entry):
                        if inline.problems:
                            line, column = _position(doc, [key, index])
                            raise Refused(kfile, line, column, f"{key}: an inline configuration this tool cannot read")
                        self._plugin(kfile, doc, [key, index], inline.data)
                    continue
                target = folder / entry
                line, column = _position(doc, [key, index])
                if _REMOTE.search(entry) or not _exists(target):
                    raise self._remote(kfile, line, column, key, entry)
                if not _inside(target, self.roots) or not target.is_file():
                    raise Refused(
                        kfile,
                        line,
                        column,
                        f"{key}: {entry!r} is not a plugin configuration file under the folders named; "
                        "validate --build reads only those: name a folder that holds it",
                    )
                for config in _checked(target, kfile, f"{key}: {entry}"):
                    self._plugin(kfile, doc, [key, index], config.data)

    def _plugin(self, kfile: str, doc: Document | None, where: list, config: object) -> None:
        _plugin_config(kfile, doc, where, config)
        if (remote := _remote_path(config)) is not None:
            line, column = _position(doc, where)
            raise self._remote(kfile, line, column, f"{dotted(where)} (its {dotted(remote[0])})", remote[1])

    def _patches(self, folder: Path, kfile: str, doc: Document | None, data: dict) -> None:
        """Record the kustomization's patches (`patches`, `patchesStrategicMerge`,
        `patchesJson6902`), inline or in a file under the folders named, for placing findings."""
        for name in ("patches", "patchesStrategicMerge", "patchesJson6902"):
            for key, entries in _fields(data, name):
                for index, entry in enumerate(entries if isinstance(entries, list) else []):
                    if isinstance(entry, str):  # patchesStrategicMerge: a file, or the patch itself
                        inline, path, target, where = ("\n" in entry and entry), entry, None, [key, index]
                    elif isinstance(entry, dict):
                        spelt = [k for k, _ in _fields(entry, "patch")]
                        inline, path, target = _field(entry, "patch"), _field(entry, "path"), _field(entry, "target")
                        where = [key, index, *spelt[:1]]
                    else:
                        continue
                    kind = _field(target, "kind") if isinstance(target, dict) else None
                    named = _field(target, "name") if isinstance(target, dict) else None
                    if isinstance(inline, str) and inline:
                        line, _ = _position(doc, where)
                        found = _patch_target(inline, kind, named)
                        self.patches.append(Patch(os.path.normpath(kfile), line, True, inline, *found))
                        continue
                    patch_file = folder / path if isinstance(path, str) else None
                    if patch_file is None or not (patch_file.is_file() and _inside(patch_file, self.roots)):
                        continue
                    try:
                        text = patch_file.read_bytes()[:FILE_LIMIT].decode("utf-8", "replace")
                    except OSError:
                        continue
                    found = _patch_target(text, kind, named)
                    self.patches.append(Patch(os.path.normpath(patch_file), 1, False, text, *found))

    def _remote(self, kfile: str, line: int, column: int, key: str, entry: str) -> Refused:
        return Refused(
            kfile,
            line,
            column,
            f"{key}: {entry!r} is a remote target (a URL, a git repository) or no file or folder here: kustomize "
            "would fetch it over the network; validate --build reads local files only: vendor it into the "
            "repository, or build it yourself and pipe the output "
            "(kubectl kustomize DIR | paddlejob-manifests validate -)",
        )

    def _resource(self, folder, kfile, doc, where, entry, prefix, suffix, depth) -> None:
        line, column = _position(doc, where)
        target = folder / entry
        if _REMOTE.search(entry) or not _exists(target):
            raise self._remote(kfile, line, column, where[0], entry)
        if not _inside(target, self.roots):
            raise Refused(
                kfile,
                line,
                column,
                f"{where[0]}: {entry!r} is outside the folders named; validate --build reads only those: "
                "name a folder that holds both (the repository's root)",
            )
        if target.is_dir():
            self.kustomization(target, prefix, suffix, depth + 1)
            return
        if not _recorded(target):  # a file `render` wrote is also read on its own, for the releases it records
            self.inputs.add(os.path.realpath(target))
        for resource in _documents(target):
            data = resource.data
            if not isinstance(data, dict):
                continue
            meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
            kind, name = data.get("kind"), meta.get("name")
            if isinstance(kind, str) and isinstance(name, str):
                source = Source(os.path.normpath(target), resource)
                for built_name in {prefix + name + suffix, name}:
                    self.sources.setdefault((kind, built_name), []).append(source)


def _patch_target(text: str, kind: object, name: object) -> tuple[str | None, str | None]:
    """The kind and name a patch targets: its `target`'s, else a strategic-merge patch's own."""
    if isinstance(kind, str) or isinstance(name, str):
        return (kind if isinstance(kind, str) else None), (name if isinstance(name, str) else None)
    with contextlib.suppress(Exception):  # a patch this reader cannot read targets nothing it can tell
        for doc in iter_documents(text):
            if isinstance(doc.data, dict):
                meta = doc.data.get("metadata")
                own = meta.get("name") if isinstance(meta, dict) else None
                kind = doc.data.get("kind")
                return (kind if isinstance(kind, str) else None), (own if isinstance(own, str) else None)
    return None, None


def check_kustomization(folder: str, roots: list[str]) -> _Scan:
    scan = _Scan(roots)
    scan.kustomization(Path(folder))
    return scan


# -- helm ------------------------------------------------------------------------------------


class _Pairs(list):
    """A JSON object as the (key, value) pairs it was written with, duplicates kept: every `$ref`
    is checked, whichever of two the loader would keep."""


def _schema_refs(node: object, path: str = "", depth: int = 0) -> str | None:
    """The first `$ref`/`$dynamicRef` to anything but a place in the same schema, or a `$schema`
    that is not a meta-schema helm knows: what helm's JSON Schema loader would fetch."""
    if depth > 200:
        return "too deep"
    if isinstance(node, _Pairs):
        for key, value in node:
            if key in ("$ref", "$dynamicRef", "$recursiveRef") and not (
                isinstance(value, str) and value.startswith("#")
            ):
                return f"{path}/{key}: {value!r}"
            if key == "$schema" and not (isinstance(value, str) and _META_SCHEMA.match(value)):
                return f"{path}/{key}: {value!r}"
            found = _schema_refs(value, f"{path}/{key}", depth + 1)
            if found:
                return found
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found = _schema_refs(value, f"{path}/{index}", depth + 1)
            if found:
                return found
    return None


def _check_schema(text: bytes, where: str) -> None:
    """Refuse a values schema that helm's loader would fetch anything for, or that this tool
    cannot read whole to tell (what it cannot check it does not build): bytes that are not
    UTF-8 are read as U+FFFD, as Go's JSON decoder reads them, so no byte hides a `$ref`."""
    try:
        schema = json.loads(text.decode("utf-8", "replace"), object_pairs_hook=_Pairs)
    except RecursionError:
        schema = None
        found = "too deep"
    except ValueError as err:
        raise Refused(
            where,
            1,
            1,
            f"values schema: not JSON this tool can read ({err}): validate --build renders only a chart whose "
            "schema it has checked for $refs helm would fetch",
        ) from None
    else:
        found = _schema_refs(schema)
    if found == "too deep":
        raise Refused(where, 1, 1, "values schema nested more than 200 levels: too deep to check its $refs")
    if found:
        raise Refused(
            where,
            1,
            1,
            f"values schema {found}: helm's JSON Schema loader would fetch it over the network; validate --build "
            "never lets it: keep the schema's $refs inside the file (#/definitions/...)",
        )


def _dependencies(chart: Path) -> tuple[list[tuple[str, list]], Document | None, str]:
    """A chart's dependencies (name, path in its file) and the file that lists them."""
    meta = chart / "Chart.yaml"
    docs = _documents(meta)
    doc = next((d for d in docs if isinstance(d.data, dict)), None)
    data = doc.data if doc is not None else {}
    where, listed = str(meta), data.get("dependencies")
    if data.get("apiVersion") != "v2" and (chart / "requirements.yaml").is_file():  # Helm 2's place
        req = _documents(chart / "requirements.yaml")
        doc = next((d for d in req if isinstance(d.data, dict)), None)
        where, listed = str(chart / "requirements.yaml"), doc.data.get("dependencies") if doc else None
    out = []
    for index, dep in enumerate(listed if isinstance(listed, list) else []):
        if isinstance(dep, dict) and isinstance(dep.get("name"), str):
            out.append((dep["name"], ["dependencies", index]))
    return out, doc, where


def _vendored(chart: Path) -> dict[str, Path]:
    """The subcharts in charts/: by the name their Chart.yaml gives, folders and archives."""
    found: dict[str, Path] = {}
    folder = chart / "charts"
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return found
    for entry in entries:
        if entry.is_dir():
            docs = _documents(entry / "Chart.yaml")
            data = next((d.data for d in docs if isinstance(d.data, dict)), {})
            found[data.get("name") if isinstance(data.get("name"), str) else entry.name] = entry
        elif entry.name.endswith(".tgz"):
            found[re.sub(r"-v?\d+(\.\d+)*([-+][\w.+-]*)?\.tgz$|\.tgz$", "", entry.name)] = entry
    return found


def _member_name(name: str) -> str:
    """A packaged chart's member as helm's loader names it (pkg/chart/loader/archive.go): the
    first component dropped, backslashes as slashes, the rest cleaned (`x/./y/.` is `x/y`)."""
    rest = name.replace("\\", "/").split("/", 1)
    return posixpath.normpath(rest[1]) if len(rest) > 1 and rest[1] else ""


def _check_archive(archive: Path, data: bytes | None = None, depth: int = 0) -> None:
    """A packaged subchart: its values schemas checked as a folder's are, unpacked bounded.
    Helm reads every member that is not a folder as a file, whatever its type flag, under its
    cleaned name; a packaged chart inside it is checked the same way."""
    import gzip  # here: only a packaged subchart needs them
    import tarfile

    class Bounded(io.RawIOBase):
        def __init__(self, raw):
            self.raw, self.total = raw, 0

        def readable(self) -> bool:
            return True

        def readinto(self, buffer) -> int:
            data = self.raw.read(len(buffer))
            self.total += len(data)
            if self.total > ARCHIVE_LIMIT:
                raise Refused(str(archive), 1, 1, f"the packaged chart unpacks to more than {ARCHIVE_LIMIT:,} bytes")
            buffer[: len(data)] = data
            return len(data)

    try:
        with (
            io.BytesIO(data) if data is not None else open(archive, "rb") as raw,
            gzip.GzipFile(fileobj=raw) as unpacked,
            tarfile.open(fileobj=io.BufferedReader(Bounded(unpacked)), mode="r|") as tar,
        ):
            for member in tar:
                if member.isdir():
                    continue
                name = _member_name(member.name)
                base = posixpath.basename(name).lower()
                nested = base.endswith(".tgz") and posixpath.basename(posixpath.dirname(name)) == "charts"
                if base != "values.schema.json" and not nested:
                    continue
                handle = tar.extractfile(member)
                if handle is None:  # a link: helm reads it as an empty file
                    continue
                if nested and depth < 5:
                    _check_archive(Path(f"{archive}:{member.name}"), handle.read(ARCHIVE_LIMIT), depth + 1)
                elif not nested:
                    _check_schema(handle.read(FILE_LIMIT + 1)[:FILE_LIMIT], f"{archive}:{member.name}")
    except (OSError, tarfile.TarError, EOFError, gzip.BadGzipFile):
        return  # helm says what is wrong with it


def check_chart(chart: Path, roots: list[str], depth: int = 0) -> None:
    """Refuse a chart helm could not render offline, or that reads outside its folder."""
    vendored = _vendored(chart)
    deps, doc, where = _dependencies(chart)
    for name, path in deps:
        if name not in vendored:
            line, column = _position(doc, path)
            raise Refused(
                where,
                line,
                column,
                f"the dependency {name!r} is not vendored in {chart / 'charts'}: helm would need the network "
                "(helm dependency build); validate --build never fetches: run helm dependency build where you "
                "trust the repositories and commit charts/, or render the chart yourself and pipe the output "
                "(helm template NAME CHART | paddlejob-manifests validate -)",
            )
    real_chart = os.path.realpath(chart)
    for folder, dirs, files in os.walk(chart):
        for name in dirs + files:
            path = Path(folder, name)
            if path.is_symlink() and not _inside(path, [real_chart]):
                raise Refused(
                    str(path),
                    1,
                    1,
                    f"a symbolic link to {os.readlink(path)!r}, outside the chart: helm follows it (into .Files), "
                    "validate --build renders no chart that reads files outside its folder",
                )
        if "values.schema.json" in files:
            schema = Path(folder, "values.schema.json")
            if schema.stat().st_size > FILE_LIMIT:
                raise Refused(
                    str(schema), 1, 1, f"more than {FILE_LIMIT:,} bytes: too large for validate --build to check"
                )
            _check_schema(schema.read_bytes(), str(schema))
        for name in files:
            if name.endswith(".tgz") and Path(folder).name == "charts":
                _check_archive(Path(folder, name))
    for sub in vendored.values():
        if sub.is_dir() and depth < 20:
            check_chart(sub, roots, depth + 1)


def is_library(chart: str) -> bool:
    """A library chart (`type: library`): helm renders it only inside the charts that use it."""
    docs = _documents(Path(chart, "Chart.yaml"))
    return any(isinstance(d.data, dict) and d.data.get("type") == "library" for d in docs)


# -- building --------------------------------------------------------------------------------


def build(
    target: Target,
    tool: str,
    roots: list[str],
    kube_version: str,
    timeout: float = TIMEOUT_SECONDS,
    deadline: float | None = None,
    unconfined: bool = False,
) -> Built:
    """Build ``target`` with the executable ``tool``, in the confinement (or, ``unconfined``, in
    a network namespace where one can be made, for trusted files); Refused when it may not be
    built or fails, InputError when no confinement can be made here. ``timeout`` is the run's
    --build-timeout, ``deadline`` when it ends (default: ``timeout`` from now)."""
    sandbox_of = None if unconfined else _confined()
    folder = os.path.realpath(target.folder)  # the path the tool sees its folder by, in the sandbox too
    roots = [*roots, folder]  # a kustomization named as a file: its own folder
    if target.tool == "kustomize":
        scan = check_kustomization(target.folder, roots)
        args = ["kustomize", folder]
        command = f"kubectl kustomize {target.folder}"
        sources, inputs, patches = scan.sources, frozenset(scan.inputs), tuple(scan.patches)
    else:
        check_chart(Path(target.folder), roots)
        args = ["template", RELEASE, folder, "--include-crds", "--kube-version", kube_version]
        command = f"helm template {RELEASE} {target.folder} --include-crds --kube-version {kube_version}"
        sources, inputs, patches = {}, frozenset(), ()
    if deadline is not None and deadline <= time.monotonic():
        raise Refused(target.file, 1, 1, f"`{command}` not run: the {timeout:g} s of --build-timeout had passed")
    with _Sandbox() as sandbox:
        if sandbox_of is None:
            argv = [*_isolation(), tool, *args]
        else:
            argv = [*sandbox_of.argv(tool, roots, sandbox.home), *args]
        try:
            text = run(argv, sandbox.env, sandbox.home, timeout, deadline=deadline)
        except Failed as err:
            at = _helm_error_at(target, str(err)) if target.tool == "helm" else None
            file, line, column = at or (target.file, 1, 1)
            raise Refused(file, line, column, f"`{command}` {err}") from None
    return Built(target, command, text, sources, inputs, patches)


def _confined() -> Confinement:
    found = confinement()
    if isinstance(found, str):
        raise InputError(
            f"--build runs kubectl kustomize and helm template on the repository's files only inside an "
            f"operating-system sandbox (bubblewrap: only the folders named, read-only, and no network); "
            f"{found}. Install it (apt install bubblewrap, dnf install bubblewrap, apk add bubblewrap), or, "
            "for files you trust, add --build-unconfined (the checks before each build still hold)"
        )
    return found


# -- the findings, placed on their sources ---------------------------------------------------


def _helm_sources(text: str) -> list[tuple[int, str]]:
    """(line, path) of every `# Source: PATH` line helm wrote, in order."""
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("# Source: "):
            out.append((number, line[len("# Source: ") :].strip()))
    return out


def _template_file(target: Target, source: str) -> str:
    """The file of a `# Source:` path: CHART/templates/x.yaml is under the chart's folder; a
    subchart's (CHART/charts/SUB/...) too when it is vendored as a folder of that name. A path
    that would lead out of the chart's folder (a template can print any `# Source:` line) is
    the chart's own Chart.yaml: a finding is never placed on a file outside the chart."""
    rest = source.split("/", 1)[1] if "/" in source else source
    clean = posixpath.normpath(rest)
    helm_wrote = clean.startswith(("templates/", "charts/", "crds/"))  # what helm writes for a chart's files
    if rest != clean or "\\" in rest or not helm_wrote:
        return target.file
    path = Path(target.folder, clean)
    if not path.is_file():
        return f"{target.folder}/{clean}"
    return str(path) if _inside(path, [os.path.realpath(target.folder)]) else target.file


# helm's errors that name a template's own line: Go's text/template when it executes
# (`template: CHART/templates/x.yaml:6:15: executing ...`) and when it parses
# (`parse error at (CHART/templates/x.yaml:6): ...`)
_HELM_AT = re.compile(r"(?:template: |parse error at \()([^\s:()]+):(\d+)(?::(\d+))?")


def _helm_error_at(target: Target, message: str) -> tuple[str, int, int] | None:
    """(file, line, column) of the template a helm error names, when it names a line."""
    found = _HELM_AT.search(message)
    if found is None:
        return None
    file = _template_file(target, found.group(1))
    if file == target.file:
        return None
    return file, int(found.group(2)), int(found.group(3) or 1)


def _template_line(file: str, parts: list) -> tuple[int, int]:
    """Where a template writes the field at ``parts``, when one line alone can: the only line
    of the template that writes its key (`  key:` or `- key:`); else (1, 1). A template is not
    YAML before helm runs it, so its lines are read as text, bounded."""
    key = next((part for part in reversed(parts) if isinstance(part, str)), None)
    if key is None:
        return 1, 1
    try:
        with open(file, "rb") as stream:
            text = stream.read(FILE_LIMIT).decode("utf-8", "replace")
    except OSError:
        return 1, 1
    pattern = re.compile(rf"^(\s*(?:-\s+)?){re.escape(key)}\s*:", re.M)
    found = list(pattern.finditer(text))
    if len(found) != 1:
        return 1, 1
    start = found[0].start()
    return text.count("\n", 0, start) + 1, len(found[0].group(1)) + 1


def _holds(data: object, parts: list) -> bool:
    """Whether ``data`` has the field at ``parts`` (a finding's path; its last part may name a
    key or an index that is the problem itself, so a path to a missing field is not held)."""
    for part in parts:
        in_list = isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data)
        if not (in_list or (isinstance(data, dict) and part in data)):
            return False
        data = data[part]
    return True


def _value(data: object, parts: list) -> object:
    """The value at ``parts`` of ``data`` (held: _holds), or _MISSING."""
    if not _holds(data, parts):
        return _MISSING
    for part in parts:
        data = data[part]  # type: ignore[index]  (held)
    return data


_MISSING = object()


def _key_line(text: str, key: str, after: int = 1) -> tuple[int, int] | None:
    """(line, column) of the first line at or after ``after`` that writes ``key`` (`key:`, `- key:`,
    or a JSON patch's `path: .../key`)."""
    pattern = re.compile(rf"^(\s*(?:-\s+)?){re.escape(key)}\s*:|^(\s*(?:-\s+)?path:\s*\S*/){re.escape(key)}\b", re.M)
    for found in pattern.finditer(text):
        line = text.count("\n", 0, found.start()) + 1
        if line >= after:
            return line, len(found.group(1) if found.group(1) is not None else found.group(2)) + 1
    return None


def _patch_place(built: Built, kind: str, name: str, parts: list) -> tuple[str, int, int] | None:
    """Where a patch of the build writes the field at ``parts`` of the object (kind, name as its
    resource file names it), when exactly one patch that targets it writes the field's key."""
    key = next((part for part in reversed(parts) if isinstance(part, str)), None)
    if key is None:
        return None
    found = []
    for patch in built.patches:
        if patch.kind not in (None, kind) or patch.name not in (None, name):
            continue
        if patch.inline:
            try:
                with open(patch.file, "rb") as stream:
                    text = stream.read(FILE_LIMIT).decode("utf-8", "replace")
            except OSError:
                continue
            at = _key_line(text, key, patch.line)
            if at is not None and _key_line(patch.text, key) is not None:
                found.append((patch.file, *at))
        elif (at := _key_line(patch.text, key)) is not None:
            found.append((patch.file, *at))
    return found[0] if len(found) == 1 else None


def placed(built: Built, report: Report, objects: dict | None = None) -> list[Located]:
    """The findings of ``report`` (on the built output) placed on the files they came from; a
    field a patch of the build changed is placed on that patch (``objects``: the built objects
    by kind and name, to tell)."""
    marks = _helm_sources(built.text) if built.target.tool == "helm" else []
    out = []
    for item in report.findings:
        finding = item.finding
        if built.target.tool == "helm":
            source = next((path for line, path in reversed(marks) if line <= item.line), None)
            file = _template_file(built.target, source) if source else built.target.file
            note = f"(rendered by helm template: line {item.line} of `{built.command}`)"
            line, column, index = 1, 1, 1
            if file != built.target.file:
                line, column = _template_line(file, split_path(finding.path) if finding.path else [])
        else:
            kind, name = item.kind, item.name
            candidates = built.sources.get((kind, name), []) if kind and name else []
            note = f"(as `{built.command}` builds it: line {item.line} of its output)"
            if len(candidates) == 1:
                source = candidates[0]
                file, index = source.file, source.document.index if source.document else 1
                parts = split_path(finding.path) if finding.path else []
                line, column = _position(source.document, parts)
                data = source.document.data if source.document is not None else None
                built_value = _value((objects or {}).get((kind, name)), parts)
                changed = data is not None and (
                    not _holds(data, parts) or (built_value is not _MISSING and _value(data, parts) != built_value)
                )
                meta = data.get("metadata") if isinstance(data, dict) else None
                own_name = meta.get("name") if isinstance(meta, dict) else None
                patch = _patch_place(built, kind, own_name, parts) if changed and isinstance(own_name, str) else None
                if patch is not None:
                    file, line, column = patch
                    index = 1
                    note += "; the patch here sets it"
                elif changed:
                    note += "; not as this file has it: a patch, component or transformer of the build sets it"
            else:  # made by a generator, or two files that could be it: the kustomization
                file, line, column, index = built.target.file, 1, 1, 1
                if candidates:
                    note += f"; from one of {', '.join(sorted({c.file for c in candidates}))}"
                else:
                    note += "; no resource file holds it: made by a generator or a patch of the kustomization"
        placed_finding = Finding(finding.severity, finding.path, finding.rule, f"{finding.message} {note}")
        out.append(Located(placed_finding, file, index, line, column, item.api_version, item.kind, item.name))
    return out


# -- every folder of a run -------------------------------------------------------------------


def build_all(
    targets: list[tuple[str, str, str]],
    tools: dict[str, str | None],
    roots: list[str],
    kube_version: str,
    timeout: float,
    unconfined: bool = False,
) -> tuple[list[Built], list[Located], list[tuple[str, str]]]:
    """Build the folders discover.find listed (``targets``: tool, folder, file) with ``tools``
    (the executable of each tool, None: not found), all within ``timeout`` seconds. Returns the
    builds, the findings of the folders refused or failed (a folder that cannot be checked is an
    error, as a file that cannot be read), and the folders skipped, (path, why): a library
    chart, and a folder whose tool is missing, with the note it has without --build and the tool
    it needs. InputError, before anything runs, when a build is due and no confinement can be
    made here (unless ``unconfined``)."""
    built, refused, skipped = [], [], []
    due = []
    for tool, folder, file in targets:
        if tool == "helm" and is_library(folder):
            skipped.append((folder, "a Helm library chart: rendered where a chart uses it"))
            continue
        exe = tools.get(tool)
        if exe is None:
            name = "kubectl" if tool == "kustomize" else "helm"
            note = discover.KUSTOMIZATION_NOTE if tool == "kustomize" else discover.CHART_NOTE
            skipped.append(
                (file if tool == "kustomize" else folder, f"{note}; --build needs {name}: none on PATH (--{name} PATH)")
            )
            continue
        due.append((Target(tool, folder, file), exe))
    if due and not unconfined:
        _confined()
    deadline = time.monotonic() + timeout
    for target, exe in due:
        try:
            built.append(build(target, exe, roots, kube_version, timeout, deadline, unconfined))
        except Refused as err:
            refused.append(err.located())
    return built, refused, skipped


def check(built: list[Built], checker, report: Report) -> None:
    """Check each build's output with ``checker`` into ``report``, each finding placed on its
    source (placed), until the report is full; sorted as validate_files sorts. The same finding on
    the same place from several builds (a base built on its own and in each overlay that names it)
    is reported once, saying how many other builds found it."""
    seen: dict[tuple, list[int]] = {}
    for done in built:
        if report.full:
            break
        left = report.max_errors and report.max_errors - report.errors
        part = Report(max_errors=left, skip_rules=report.skip_rules)
        validate_text(done.command, done.text, checker, part)
        report.documents += part.documents
        objects = {}
        if done.patches and part.findings:  # what the build made, to tell a field a patch changed
            for doc in iter_documents(done.text):
                data = doc.data if isinstance(doc.data, dict) else {}
                meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
                objects[(data.get("kind"), meta.get("name"))] = data
        for item, said in zip(placed(done, part, objects), part.findings, strict=True):
            key = (item.file, item.line, item.column, item.finding.rule, item.finding.path, said.finding.message)
            if key in seen:  # a base built on its own and in each overlay: one finding, its builds counted
                seen[key][1] += 1
            else:
                seen[key] = [len(report.findings), 0]
                report.findings.append(item)
        report.truncated = report.truncated or part.truncated
    for index, others in seen.values():
        if others:
            item = report.findings[index]
            also = f" (and {others} other build{'s' if others > 1 else ''} of the run)"
            report.findings[index] = item._replace(finding=item.finding._replace(message=item.finding.message + also))
    report.findings.sort(key=lambda x: (x.file, x.document, x.line, x.column, x.finding.path))
