"""The wheel carries the schemas and the jsonnet library as generator/_data/ (generator/core/paths.py
looks there first), copied from the top of the repository, where a checkout keeps them.

The per-document modules (generator/core/compiled.py's MODULES) are compiled by mypyc into a
platform wheel when a wheel is built and a C compiler, Python's headers and mypy are there; the
same source runs interpreted everywhere else, with the same findings. PADDLEJOB_COMPILE decides:

    unset  a wheel (`pip install .`, `pip wheel .`) is compiled when it can be, else pure Python,
           said in one line; an editable install (`pip install -e .`, `make manifests`) is never
           compiled: it runs the checkout's own files, with no compile step
    1      compiled, or the build fails saying why (an editable install too: its extension
           modules are written beside the sources, which .gitignore leaves out); unset, a
           failed type check of mypyc's builds pure Python, said in one line
    0      pure Python: the py3-none-any wheel

build_support/backend.py asks the build environment for mypy when a compiled build is wanted.
Everything else about the package is in pyproject.toml."""

import os
import runpy
import shutil
import sys
import sysconfig
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DATA = ("schemas", "libsonnet")
HERE = Path(__file__).resolve().parent


class BuildWithData(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the checkout's own folders
        for name in DATA:
            target = Path(self.build_lib) / "generator" / "_data" / name
            shutil.copytree(Path(name), target, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))


def _note(text: str) -> None:
    print(f"paddlejob-manifests: {text}", file=sys.stderr)


def _compiler_missing() -> str | None:
    """Why no C extension can be built here, or None."""
    compiler = os.environ.get("CC", sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler})"
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not headers.exists():
        return f"no Python headers ({headers})"
    return None


def _extensions() -> list:
    choice = os.environ.get("PADDLEJOB_COMPILE", "").strip()
    if choice not in ("", "0", "1"):
        raise SystemExit(f"PADDLEJOB_COMPILE={choice!r}: use 1 (compile) or 0 (pure Python)")
    wheel = "bdist_wheel" in sys.argv
    editable = "editable_wheel" in sys.argv
    if choice == "0" or not (wheel or editable or "build_ext" in sys.argv):
        return []  # sdist, metadata, or asked for pure Python
    if editable and choice != "1":
        return []  # `make manifests`: the checkout's files as they are, no compile step
    missing = _compiler_missing()
    if missing is None:
        try:
            from mypyc.build import mypycify
        except ImportError:
            missing = "no mypy (it ships mypyc)"
    if missing is not None:
        if choice == "1":
            raise SystemExit(f"PADDLEJOB_COMPILE=1, but {missing}")
        _note(f"building interpreted (pure Python): {missing}; PADDLEJOB_COMPILE=1 requires compiling")
        return []
    modules = runpy.run_path(str(HERE / "generator" / "core" / "compiled.py"))["MODULES"]
    paths = [str(Path(*name.split(".")).with_suffix(".py")) for name in modules]
    _note(f"compiling {len(paths)} modules with mypyc (PADDLEJOB_COMPILE=0 builds pure Python)")
    try:
        # the shared library is named after the project (paddlejob_manifests__mypyc), not a hash
        return mypycify(paths, opt_level="3", group_name="paddlejob_manifests")
    except (SystemExit, Exception) as err:  # mypyc's type check failed: what it said is above
        if choice == "1":
            raise
        reason = f"its type check, exit {err.code}" if isinstance(err, SystemExit) else err
        _note(f"building interpreted (pure Python): mypyc failed ({reason}); PADDLEJOB_COMPILE=1 requires compiling")
        return []


setup(cmdclass={"build_py": BuildWithData}, ext_modules=_extensions())
