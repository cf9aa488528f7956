"""Which build runs: the per-document modules compiled by mypyc, or all of it interpreted.

The same source runs either way (setup.py compiles MODULES when it can; tests/test_compiled.py
holds both builds to the same output, byte for byte). `paddlejob-manifests --version` says which
build this is, from the files beside the sources, without importing them.
"""

from __future__ import annotations

import importlib.machinery
from pathlib import Path

# What mypyc compiles (setup.py reads this list): the modules every document goes through, typed
# for it (pyproject.toml's [tool.mypy]). Typed but interpreted: findings.py (a Finding subclasses a
# NamedTuple, which mypyc cannot compile; one is made only for a finding) and dump.py (its dumper
# subclasses PyYAML's; output only). No compiled object may be weakly referenced: mypyc frees one
# without clearing the references (mypyc/mypyc#1102), and a WeakKeyDictionary keyed by a compiled
# closure crashed the garbage collector (crd/validator.py's rule marks are a partial for cel.py).
MODULES = (
    "generator.kubeyaml.scalars",
    "generator.kubeyaml.document",
    "generator.kubeyaml.tree",
    "generator.kubeyaml.compose",
    "generator.kubeyaml.fast",
    "generator.kubeyaml.load",
    "generator.core.grammar",
    "generator.validate.rules.base",
    "generator.validate.rules.selector",
    "generator.validate.rules.meta",
    "generator.validate.rules.volumes",
    "generator.validate.rules.pod_plan",
    "generator.validate.rules.pod",
    "generator.validate.rules.pod_containers",
    "generator.validate.rules.pod_scheduling",
    "generator.validate.rules.pod_volumes",
    "generator.validate.rules.pod_security",
    "generator.validate.rules.pod_gated",
    "generator.validate.rules.paddlejob",
    "generator.validate.rules.launcher",
    "generator.validate.rules.lifecycle",
    "generator.validate.rules.kueue",
    "generator.validate.rules.builtin",
    "generator.validate.rules.core",
    "generator.validate.rules.apps",
    "generator.validate.rules.volcano",
    "generator.validate.rules.podsecurity",
    "generator.validate.admission",
    "generator.validate.builtin",
    "generator.validate.crd.walks",
    "generator.validate.crd.validator",
    "generator.validate.checker",
    "generator.validate.stream",
)


def compiled_modules() -> list[str]:
    """The modules of MODULES that run compiled: an extension module beside the source, which
    Python's path finder takes before the .py. Looked up as files, never imported (nor their
    packages: `--help` and `--version` load none of validate)."""
    root = Path(__file__).resolve().parent.parent  # generator/
    found = []
    for name in MODULES:
        parts = name.split(".")[1:]
        folder = root.joinpath(*parts[:-1])
        if any((folder / f"{parts[-1]}{suffix}").is_file() for suffix in importlib.machinery.EXTENSION_SUFFIXES):
            found.append(name)
    return found


def build() -> str:
    """The build: compiled, interpreted, or partly compiled (N of M modules)."""
    count = len(compiled_modules())
    if count == len(MODULES):
        return "compiled"
    return "interpreted" if count == 0 else f"partly compiled ({count} of {len(MODULES)} modules)"
