"""The compiled build in a folder of its own, beside the checkout's interpreted one: a copy of
generator/ with the per-document modules (generator/core/compiled.py's MODULES) compiled by mypyc
next to their sources, for the tests and the bench that run both builds side by side
(tests/test_compiled.py, bench/validate_bench.py). The checkout is only read.

    python build_support/compile_tree.py FOLDER      (then: PYTHONPATH=FOLDER python -m generator ...)

FOLDER gets generator/ (its _data/ pointing at the checkout's schemas and jsonnet library), the
shared library paddlejob_manifests__mypyc*.so and mypyc's C sources under build/. Needs mypy (it
ships mypyc) and a C compiler: `make test` installs the one, CI's machines have the other.
"""

from __future__ import annotations

import os
import runpy
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def compile_tree(folder: Path, quiet: bool = True) -> Path:
    """Compiles a copy of the checkout's generator/ in ``folder``; returns ``folder``."""
    folder = folder.resolve()
    target = folder / "generator"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(REPO / "generator", target, ignore=shutil.ignore_patterns("__pycache__", "*.so", "_data"))
    (target / "_data").mkdir()
    for name in ("schemas", "libsonnet"):
        (target / "_data" / name).symlink_to(REPO / name, target_is_directory=True)
    # mypy's configuration, under a name setuptools does not read as the project's (it is not one here)
    shutil.copyfile(REPO / "pyproject.toml", folder / "mypy.toml")
    modules = runpy.run_path(str(REPO / "generator" / "core" / "compiled.py"))["MODULES"]
    paths = [str(Path(*name.split(".")).with_suffix(".py")) for name in modules]
    here = os.getcwd()
    os.chdir(folder)  # mypyc names modules and writes its C sources relative to the working folder
    try:
        from mypyc.build import mypycify
        from setuptools import setup

        extensions = mypycify(["--config-file", "mypy.toml", *paths], opt_level="3", group_name="paddlejob_manifests")
        arguments = ["build_ext", "--inplace"] + (["--quiet"] if quiet else [])
        setup(name="paddlejob-manifests-compiled", ext_modules=extensions, script_args=arguments)
    finally:
        os.chdir(here)
    return folder


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip().split("\n\n")[1].strip(), file=sys.stderr)
        return 2
    folder = Path(sys.argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    compile_tree(folder)
    print(f"compiled: PYTHONPATH={folder.resolve()} python -m generator --version")
    return 0


if __name__ == "__main__":
    sys.exit(main())
