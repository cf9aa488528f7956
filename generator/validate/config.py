"""`validate`'s configuration file, found as kube-linter and ruff find theirs: the file given
(`--config FILE`), else `.paddlejob-manifests.yaml` (or `.yml`) in the current folder or the
nearest folder above it up to the repository's root (the folder holding `.git`), else the table
`[tool.paddlejob-manifests]` of the nearest `pyproject.toml` that has one, within the same folders.

The file holds the long names of `validate`'s flags (`kube-version: "1.30"`, `skip-kinds:
[ConfigMap]`, `output: [text, sarif=results.sarif]`, `crds: [crds/]`); cli/validate.py turns each
value into what the flag's own parser makes of it, so a value is checked once, one way. This
module only finds and reads the file: each key with its value and line."""

from __future__ import annotations

import os
from typing import Any, NamedTuple

from generator.core import files
from generator.core.errors import InputError

NAMES = (".paddlejob-manifests.yaml", ".paddlejob-manifests.yml")
PYPROJECT = "pyproject.toml"
TABLE = "tool.paddlejob-manifests"
MAX_BYTES = 1 << 20  # a configuration file of more is refused (as --params)


class Setting(NamedTuple):
    key: str
    value: Any
    line: int  # 1-based; 0 where the format gives none


class Config(NamedTuple):
    path: str  # the file, as found (relative to the current folder when below it)
    settings: list[Setting]

    def where(self, setting: Setting) -> str:
        return f"{self.path}:{setting.line}" if setting.line else self.path


def find(start: str = ".") -> str | None:
    """The configuration file for a run started in ``start``: the nearest of NAMES, or of the
    pyproject.toml files holding the table, from ``start`` up to the repository's root (or the
    filesystem's, outside a repository)."""
    folder = os.path.abspath(start)
    while True:
        for name in NAMES:
            candidate = os.path.join(folder, name)
            if os.path.isfile(candidate):
                return _shown(candidate)
        candidate = os.path.join(folder, PYPROJECT)
        if os.path.isfile(candidate) and _has_table(candidate):
            return _shown(candidate)
        parent = os.path.dirname(folder)
        if os.path.exists(os.path.join(folder, ".git")) or parent == folder:
            return None
        folder = parent


def _shown(path: str) -> str:
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _read(path: str) -> str:
    try:
        data = files.read_regular(path, MAX_BYTES + 1, follow_links=True)
    except files.NotRegularFile as err:
        raise InputError(f"--config: {path}: not a regular file ({err})") from None
    except (OSError, ValueError) as err:
        raise InputError(f"--config: {path}: cannot read it: {getattr(err, 'strerror', None) or err}") from None
    if len(data) > MAX_BYTES:
        raise InputError(f"--config: {path}: over {MAX_BYTES:,} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"--config: {path}: not UTF-8 text") from None


def _has_table(path: str) -> bool:
    try:
        return _table(path) is not None
    except InputError:
        return True  # a broken pyproject.toml with the table's name: read, and said


def _table(path: str) -> dict | None:
    text = _read(path)
    if "paddlejob-manifests" not in text:
        return None
    import tomllib  # here: only a pyproject.toml needs it

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"{path}: not TOML: {err}") from None
    table = data.get("tool", {}).get("paddlejob-manifests") if isinstance(data.get("tool"), dict) else None
    return table if isinstance(table, dict) or table is None else {}


def load(path: str) -> Config:
    """The settings of the file ``path`` (YAML, or a pyproject.toml's table), in file order."""
    if os.path.basename(path) == PYPROJECT or path.endswith(".toml"):
        table = _table(path)
        if table is None:
            raise InputError(f"--config: {path}: no [{TABLE}] table")
        lines = _toml_lines(_read(path))
        return Config(path, [Setting(key, value, lines.get(key, 0)) for key, value in table.items()])
    from generator.kubeyaml import load as kubeyaml_load  # `load` is this module's own function

    documents = list(kubeyaml_load.iter_documents(_read(path)))
    for document in documents:
        for problem in document.problems:
            if problem.severity == "error":
                raise InputError(f"{path}:{problem.line}: {problem.message}")
    data = [d.data for d in documents if d.data is not None]
    if not data:
        return Config(path, [])
    if len(data) > 1 or not isinstance(data[0], dict):
        raise InputError(f"{path}: expected one mapping of validate's flags (kube-version: ..., skip-kinds: ...)")
    document = next(d for d in documents if d.data is not None)
    return Config(path, [Setting(key, value, document.position([key])[0][0]) for key, value in data[0].items()])


def _toml_lines(text: str) -> dict[str, int]:
    """The line of each key of the table (tomllib gives none): `key =` lines under its header."""
    import re

    lines: dict[str, int] = {}
    inside = False
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("["):
            inside = re.fullmatch(r"\[\s*tool\s*\.\s*[\"']?paddlejob-manifests[\"']?\s*\]", stripped) is not None
        elif inside and (match := re.match(r"[\"']?([A-Za-z0-9_-]+)[\"']?\s*=", stripped)):
            lines.setdefault(match.group(1), number)
    return lines
