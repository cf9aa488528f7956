"""The build backend: setuptools', asking the build environment for mypy (which ships mypyc) when
setup.py will compile: a wheel on a machine with a C compiler, unless PADDLEJOB_COMPILE=0; an
editable install only with PADDLEJOB_COMPILE=1. pyproject.toml names it; setup.py decides."""

from __future__ import annotations

import os
import shutil
import sysconfig
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403  (every hook this module does not change)

MYPY = "mypy==2.4.1"  # as requirements-test.txt pins it


def _can_compile() -> bool:
    compiler = os.environ.get("CC", sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(compiler) is not None and (Path(sysconfig.get_paths()["include"]) / "Python.h").exists()


def _compiler_requires(editable: bool) -> list[str]:
    choice = os.environ.get("PADDLEJOB_COMPILE", "").strip()
    if choice == "1" or (choice == "" and not editable and _can_compile()):
        return [MYPY]
    return []


def get_requires_for_build_wheel(config_settings=None):
    return _setuptools.get_requires_for_build_wheel(config_settings) + _compiler_requires(editable=False)


def get_requires_for_build_editable(config_settings=None):
    return _setuptools.get_requires_for_build_editable(config_settings) + _compiler_requires(editable=True)
