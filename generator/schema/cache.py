"""Derived schemas kept on disk between runs, so `validate` of one small file does not derive
the PaddleJob schema from the Kubernetes definitions again (a third of its time).

An entry is named by what it was derived from: the tool's version and the size and time of
every input file, the code that derives it included; a change to any of them is a new entry.
The cache is an optimisation only: a folder that cannot be read or written means deriving.

    $PADDLEJOB_MANIFESTS_CACHE, else $XDG_CACHE_HOME/paddlejob-manifests, else ~/.cache/...
    PADDLEJOB_MANIFESTS_CACHE=off   derive every time
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import orjson

from generator import __version__

# The interpreter's own SHA-256 (the same digests as hashlib's): importing hashlib loads OpenSSL,
# a thirtieth of a small file's run (`validate` of one file names its cache entries by it).
try:
    from _sha2 import sha256  # CPython 3.12 and later
except ImportError:
    try:
        from _sha256 import sha256  # CPython 3.11
    except ImportError:  # an interpreter without them
        from hashlib import sha256


def directory() -> Path | None:
    """The cache folder, or None when caching is off."""
    chosen = os.environ.get("PADDLEJOB_MANIFESTS_CACHE")
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "paddlejob-manifests"


def cached(name: str, inputs: list[Path], derive: Callable[[], object], content: bytes = b"") -> object:
    """``derive()`` (JSON data), or what it gave in an earlier run from the same ``inputs``
    (files: the code that derives included) and ``content`` (data derived from)."""
    folder = directory()
    if folder is None:
        return derive()
    digest = sha256(__version__.encode())
    for path in inputs:
        stat = path.stat()
        digest.update(f"{path.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
    digest.update(content)
    entry = folder / f"{name}-{digest.hexdigest()[:32]}.json"
    try:
        return orjson.loads(entry.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        pass
    value = derive()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        partial = entry.with_name(f"{entry.name}.{os.getpid()}.partial")
        partial.write_bytes(orjson.dumps(value))
        os.replace(partial, entry)  # whole or absent: another process may read it meanwhile
    except OSError:
        pass
    return value
