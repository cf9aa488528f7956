"""Which files under a folder are Kubernetes manifests, and which are not (and why).

A repository holds more YAML than manifests: kustomizations and the patches they apply, Helm
charts (Chart.yaml, values.yaml, templates that are not YAML until rendered), CI configs, other
tools' files (jsonnetfile.json, package.json, docker-compose.yml, ...).
`validate DIR` reads the manifests and skips the others with a note that says how to check
them (build the kustomization, render the chart). Files named on the command line are always
read. `--ignore PATTERN` skips paths that match a regular expression, as kubeconform's
-ignore-filename-pattern does.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path
from typing import NamedTuple

from generator.core.values import InputError
from generator.kubeyaml.load import read_documents

BUILD_TIMEOUT_SECONDS = 60.0  # per build of a kustomization or chart (validate --build-timeout)

EXTENSIONS = (".yaml", ".yml", ".json")
KUSTOMIZATIONS = ("kustomization.yaml", "kustomization.yml", "Kustomization")
# Helm's own files: a chart's metadata and values, which are no manifests wherever they are
HELM_VALUES = re.compile(r"^values([-.][\w.-]+)?\.ya?ml$|^values\.schema\.json$|^Chart\.(yaml|lock)$")
# Other tools' own files, which no apiserver reads: jsonnet-bundler's, npm's, TypeScript's,
# Renovate's, Docker Compose's, MkDocs', Codecov's. (Files in hidden folders, .github/ and
# the like, are never walked into.)
TOOL_FILES = {
    "jsonnetfile.json": "jsonnet-bundler's",
    "jsonnetfile.lock.json": "jsonnet-bundler's",
    "package.json": "npm's",
    "package-lock.json": "npm's",
    "tsconfig.json": "TypeScript's",
    "renovate.json": "Renovate's",
    "docker-compose.yml": "Docker Compose's",
    "docker-compose.yaml": "Docker Compose's",
    "compose.yaml": "Docker Compose's",
    "compose.yml": "Docker Compose's",
    "mkdocs.yml": "MkDocs'",
    "mkdocs.yaml": "MkDocs'",
    "codecov.yml": "Codecov's",
}


def _tool_file(name: str) -> str | None:
    owner = TOOL_FILES.get(name)
    return f"{owner} configuration, not a manifest" if owner else None


# kustomization fields whose files are not whole objects (or not objects at all): patches, and
# the configurations of plugins (`apiVersion: builtin` PatchTransformer, ...)
_KUSTOMIZE_INPUTS = (
    "patches",
    "patchesStrategicMerge",
    "patchesJson6902",
    "configurations",
    "replacements",
    "transformers",
    "generators",
    "validators",
)


def file_type(mode: int) -> str:
    """What a file that is no regular file or folder is, by its mode (os.stat's st_mode)."""
    kinds = (
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a folder"),
    )
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def _resolved(path: Path) -> Path:
    """``path`` made absolute with its links resolved, as far as they resolve: a symbolic link
    loop (RuntimeError or OSError from resolve) or a name the system refuses (a NUL byte in a
    kustomization's path: ValueError) is taken as it is written."""
    try:
        return path.resolve()
    except (OSError, RuntimeError, ValueError):
        try:
            return Path(os.path.abspath(path))
        except ValueError:
            return path


def _link_note(path: str) -> str | None:
    """Why ``path``, a file that is no regular file or folder, is not read: a symbolic link loop,
    a link whose target does not exist, a named pipe, a device, a socket. None when it is a
    folder or a regular file after all (it changed since it was listed)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as err:
        if os.path.islink(path):
            try:
                target = os.readlink(path)
            except OSError:
                target = "?"
            if err.errno == errno.ELOOP:
                return f"a symbolic link loop (to {target!r}): it never reaches a file"
            return f"a dangling symbolic link: its target {target!r} does not exist"
        return f"cannot read it: {err.strerror}"
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return f"{file_type(mode)}, not a regular file: not read"


class Found(NamedTuple):
    files: list[str]  # the files to read, in order
    skipped: list[tuple[str, str]]  # (path, why)
    # with ``build``: the folders to build, (tool, folder, file): ("kustomize", DIR, its
    # kustomization) or ("helm", CHART, its Chart.yaml), skipped otherwise
    builds: list[tuple[str, str, str]] = []  # noqa: RUF012 (never appended to: find makes its own)


KUSTOMIZATION_NOTE = "a kustomization: build it first (kubectl kustomize DIR | validate -)"
CHART_NOTE = "a Helm chart: render it first (helm template CHART | validate -)"
# Argo CD renders a directory application's *.jsonnet files; validate, with --build too, does not
# evaluate a repository's jsonnet (it would be code from the pull request): said, not passed over.
JSONNET_NOTE = (
    "a jsonnet file (Argo CD evaluates those of a directory application): render it first "
    "(paddlejob-manifests render FILE.jsonnet | validate -, or jsonnet -y FILE | validate -)"
)


def _kustomize_inputs(kustomization: Path) -> set[Path]:
    """The files a kustomization uses as patches and configurations."""
    try:
        docs, _ = read_documents(kustomization)
    except OSError:
        return set()
    found = set()
    for doc in docs:
        if not isinstance(doc, dict):
            continue
        for key in _KUSTOMIZE_INPUTS:
            entries = doc.get(key)
            for entry in entries if isinstance(entries, list) else []:
                name = entry.get("path") if isinstance(entry, dict) else entry
                if isinstance(name, str):
                    found.add(_resolved(kustomization.parent / name))
        for name in _generator_sources(doc):
            found.add(_resolved(kustomization.parent / name))
    return found


def _generator_sources(doc: dict) -> list[str]:
    """The files a kustomization's configMapGenerator and secretGenerator read as data (kustomize's
    api/types GeneratorArgs: `files` as PATH or KEY=PATH, `envs`, the older `env`): not manifests."""
    out = []
    for key in ("configMapGenerator", "secretGenerator"):
        generators = doc.get(key)
        for generator in generators if isinstance(generators, list) else []:
            if not isinstance(generator, dict):
                continue
            files = generator.get("files")
            for entry in files if isinstance(files, list) else []:
                if isinstance(entry, str):
                    out.append(entry.partition("=")[2] or entry)
            envs = generator.get("envs")
            out += [e for e in (envs if isinstance(envs, list) else []) if isinstance(e, str)]
            if isinstance(generator.get("env"), str):
                out.append(generator["env"])
    return out


def find(paths: list[str], ignore: list[str] | None = None, build: bool = False) -> Found:
    """Files to read: the files named, and the manifests under the folders named, but those whose
    path a pattern of ``ignore`` finds (--ignore: a file named too, as kubeconform). With
    ``build`` (`validate --build`), the kustomizations and charts found (and kustomizations
    named) are listed in ``builds`` instead of ``skipped``; a kustomize Component is skipped:
    it is built by the kustomizations that name it."""
    try:
        patterns = [re.compile(p) for p in ignore or []]
    except re.error as err:
        raise InputError(f"--ignore: not a regular expression: {err}") from None
    out = Found([], [], [])
    roots = _named_folders(paths)
    for name in paths:
        if name == "-":
            out.files.append(name)
            continue
        if patterns and any(pattern.search(name) for pattern in patterns):  # named or found, as kubeconform
            out.skipped.append((name, "--ignore"))
            continue
        path = Path(name)
        try:
            mode = os.stat(name).st_mode
        except (OSError, ValueError) as err:
            if isinstance(err, OSError) and err.errno == errno.ENOENT and not os.path.islink(name):
                raise InputError(f"{name}: no such file or directory") from None
            why = _link_note(name) if isinstance(err, OSError) else "the name holds a NUL byte"
            raise InputError(f"{name}: {why}") from None
        if stat.S_ISDIR(mode):
            _walk(path, patterns, out, roots, build)
        elif stat.S_ISREG(mode):
            why = _not_a_manifest(path)
            if build and path.name in KUSTOMIZATIONS:
                _add_kustomization(out, name)
            elif why:
                out.skipped.append((name, why))
            else:
                out.files.append(name)
        elif stat.S_ISFIFO(mode):  # /dev/stdin, <(...) and other pipes, read like files (with limits)
            out.files.append(name)
        else:
            raise InputError(
                f"{name}: {file_type(mode)}, not a file: validate reads files, folders and - (standard input)"
            )
    return out


def _not_a_manifest(path: Path) -> str | None:
    """Why a file named on the command line (a pre-commit hook names every changed file) is no
    manifest, by the names the folder walk knows; None for a manifest."""
    if path.name in KUSTOMIZATIONS:
        return KUSTOMIZATION_NOTE
    if HELM_VALUES.match(path.name):
        return "Helm values or chart metadata, not a manifest"
    if why := _tool_file(path.name):
        return why
    resolved = _resolved(path)
    chart = next((d for d in resolved.parents if (d / "Chart.yaml").is_file()), None)
    if chart is not None and "templates" in resolved.relative_to(chart).parts:
        return "a Helm template: render the chart first (helm template CHART | validate -)"
    siblings = [path.parent / k for k in KUSTOMIZATIONS if (path.parent / k).is_file()]
    if any(resolved in _kustomize_inputs(k) for k in siblings):
        return "a kustomize patch, configuration or generator input, used by the build"
    return None


def _named_folders(paths: list[str]) -> list[str]:
    """The folders named on the command line, resolved: where a link found in a walk may point."""
    roots = []
    for name in paths:
        try:
            if name != "-" and os.path.isdir(name):
                roots.append(os.path.realpath(name))
        except (OSError, ValueError):
            continue
    return roots


def _outside(path: str, roots: list[str]) -> str | None:
    """Where the symbolic link ``path`` leads when that is outside every folder in ``roots``:
    a link committed in a pull request (`leak.yaml -> ~/.kube/config`) must not make a folder
    walk read, and quote in its findings, a file elsewhere on the machine. None: inside."""
    try:
        real = os.path.realpath(path)
    except (OSError, ValueError):
        return path
    for root in roots:
        if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
            return None
    return real


def _files_below(root: str, notes: list[tuple[str, str]], roots: list[str] | None = None) -> list[tuple[str, ...]]:
    """The files below ``root``, as their names' parts from it (links to files too; linked
    folders are not walked into, as Path.rglob), without hidden files and folders, which are not
    even walked (.git can hold more files than the rest). A directory entry knows whether it is
    a file or a folder: no system call per file. Names are strings, not Paths: a Path costs
    some 20 us to make and compare, which a repository of 5,000 files waits for before any
    file is checked. What is not read and might have been a manifest is added to ``notes``
    (path, why): a folder that cannot be listed, and by a manifest's name a symbolic link loop,
    a dangling link, a named pipe, a device, and a link to a file outside every folder in
    ``roots`` (the folders named; default: ``root``), which is never read."""
    roots = [os.path.realpath(root)] if roots is None else roots
    files: list[tuple[str, ...]] = []
    folders: list[tuple[str, ...]] = [()]
    while folders:
        parts = folders.pop()
        try:
            with os.scandir(_joined(root, parts)) as entries:
                for entry in entries:
                    if entry.name.startswith("."):
                        continue
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            folders.append((*parts, entry.name))
                            continue
                        regular = entry.is_file()
                    except OSError:  # a symbolic link loop (ELOOP), a name too long to follow
                        regular = False
                    if regular and entry.is_symlink():
                        path = _joined(root, (*parts, entry.name))
                        if _outside(path, roots) is not None:
                            if os.path.splitext(entry.name)[1] in EXTENSIONS or entry.name in KUSTOMIZATIONS:
                                notes.append((path, _outside_note(path)))
                            continue
                    if regular:
                        files.append((*parts, entry.name))
                    elif os.path.splitext(entry.name)[1] in EXTENSIONS and not _linked_folder(entry):
                        path = _joined(root, (*parts, entry.name))
                        if why := _link_note(path):
                            notes.append((path, why))
        except OSError as err:  # as rglob, a folder that cannot be listed holds nothing: said
            if parts:
                notes.append((_joined(root, parts), f"cannot list the folder: {err.strerror}"))
            else:
                raise InputError(f"{root}: cannot list the folder: {err.strerror}") from None
    return files


def _outside_note(path: str) -> str:
    try:
        target = os.readlink(path)  # as the link says it, not where it lands on this machine
    except OSError:
        target = "?"
    return (
        f"a symbolic link to {target!r}, outside the folders named: not read "
        "(name the link itself on the command line to read it)"
    )


def _linked_folder(entry: os.DirEntry) -> bool:
    """A symbolic link to a folder (not walked into, as Path.rglob, and not worth a note)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _joined(root: str, parts: tuple[str, ...]) -> str:
    """The path of ``parts`` below ``root``, written as str(Path(root, *parts)) writes it."""
    if not parts:
        return root
    if root == ".":
        return os.sep.join(parts)
    return (root if root.endswith(os.sep) else root + os.sep) + os.sep.join(parts)


def _is_component(kustomization: Path) -> bool:
    """A kustomize Component (kind: Component): built only by the kustomizations that name it."""
    try:
        docs, _ = read_documents(kustomization)
    except OSError:
        return False
    return any(isinstance(doc, dict) and doc.get("kind") == "Component" for doc in docs)


def _add_kustomization(out: Found, file: str) -> None:
    """A kustomization to build (``out.builds``), or a Component, skipped with a note."""
    if _is_component(Path(file)):
        out.skipped.append((file, "a kustomize Component: checked where a kustomization that names it is built"))
    else:
        out.builds.append(("kustomize", os.path.dirname(file) or ".", file))


def _walk(
    root: Path, patterns: list[re.Pattern], out: Found, roots: list[str] | None = None, build: bool = False
) -> None:
    top = str(root)  # as Path writes it: "./a/" is "a"
    notes: list[tuple[str, str]] = []
    candidates = sorted(_files_below(top, notes, roots))  # by parts, as Paths sort
    out.skipped.extend(sorted(notes))
    # a chart's files are the chart's, and a subchart's its parent's (the outermost chart)
    charts = sorted({parts[:-1] for parts in candidates if parts[-1] == "Chart.yaml"}, key=len)
    patches: set[Path] = set()
    for parts in candidates:
        if parts[-1] in KUSTOMIZATIONS:
            patches |= _kustomize_inputs(Path(_joined(top, parts)))
    for parts in candidates:
        name, text = parts[-1], _joined(top, parts)
        chart = next((c for c in charts if parts[: len(c)] == c), None)
        if chart is not None:
            if parts[:-1] == chart and name == "Chart.yaml":
                if build:
                    out.builds.append(("helm", _joined(top, chart), text))
                else:
                    out.skipped.append((_joined(top, chart), CHART_NOTE))
        elif name in KUSTOMIZATIONS:
            if build:
                _add_kustomization(out, text)
            else:
                out.skipped.append((text, KUSTOMIZATION_NOTE))
        elif patches and _resolved(Path(text)) in patches:  # resolve() costs a system call per folder of the path
            out.skipped.append((text, "a kustomize patch or plugin configuration, or generator data"))
        elif HELM_VALUES.match(name):
            out.skipped.append((text, "Helm values or chart metadata, not a manifest"))
        elif why := _tool_file(name):
            out.skipped.append((text, why))
        elif name.endswith(".jsonnet") and not any(pattern.search(text) for pattern in patterns):
            out.skipped.append((text, JSONNET_NOTE))
        elif os.path.splitext(name)[1] not in EXTENSIONS:
            continue
        elif any(pattern.search(text) for pattern in patterns):
            out.skipped.append((text, "--ignore"))
        else:
            out.files.append(text)
