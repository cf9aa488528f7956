"""Evaluate jsonnet to Python data.

rjsonnet (the Rust jrsonnet engine) is the default: on the v1 bundle, whose
CRD schema is about 190 kB of JSON, it is about 9x faster than the C++ engine
here (bench/render_bench.py), with identical data (tests compare them).
Set PADDLEJOB_JSONNET=cpp (the C++ engine) or go (go-jsonnet, a test dependency) to use another.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from generator.core.errors import Error
from generator.core.paths import LIBSONNET


class JsonnetError(Error, RuntimeError):
    pass


def evaluate(path: Path, tla: dict | None = None, engine: str | None = None, tla_strings: dict | None = None):
    """Evaluate ``path`` with ``-J libsonnet`` and top-level arguments: ``tla`` as JSON values,
    ``tla_strings`` as strings (a large JSON document is faster to pass as text and parse with
    std.parseJson than as jsonnet code)."""
    engine = engine or os.environ.get("PADDLEJOB_JSONNET", "rjsonnet")
    codes = {name: json.dumps(value) for name, value in (tla or {}).items()}
    strings = tla_strings or {}
    try:
        if engine == "rjsonnet":
            import rjsonnet

            text = rjsonnet.evaluate_file(str(path), jpathdir=[str(LIBSONNET)], tla_codes=codes, tla_vars=strings)
        elif engine in ("cpp", "go"):
            module = __import__("_jsonnet" if engine == "cpp" else "_gojsonnet")
            text = module.evaluate_file(str(path), jpathdir=[str(LIBSONNET)], tla_codes=codes, tla_vars=strings)
        else:
            raise JsonnetError(f"unknown jsonnet engine {engine!r}; use rjsonnet, cpp or go")
    except RuntimeError as err:
        raise JsonnetError(str(err).strip()) from None
    return json.loads(text)


def evaluate_snippet(code: str) -> object:
    """Evaluate a jsonnet expression with ``-J libsonnet`` (the default engine)."""
    import rjsonnet

    try:
        return json.loads(rjsonnet.evaluate_snippet("<snippet>", code, jpathdir=[str(LIBSONNET)]))
    except RuntimeError as err:
        raise JsonnetError(str(err).strip()) from None
