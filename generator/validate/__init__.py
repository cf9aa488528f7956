"""Layer 4: `validate`: objects judged offline as the apiserver and the controllers would.

The names below are the package's API, what `cli`, `jobs`, `render` and `local` use; each is
imported from its module on first use, so importing a light module of this package (discover,
report) does not load the checker and its schemas.
"""

from __future__ import annotations

import importlib

_API = {
    "ObjectChecker": "checker",
    "CUSTOM_KINDS": "checker",
    "EXTENSIONS": "checker",
    "without_nulls": "checker",
    "Located": "report",
    "Report": "report",
    "note_empty": "report",
    "validate_file": "stream",
    "validate_part": "stream",
    "validate_stream": "stream",
    "validate_text": "stream",
    "locate_objects": "stream",
    "expand": "files",
    "validate_files": "files",
}
__all__ = sorted(_API)


def __getattr__(name: str):
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
