"""The wheel carries the schemas and the jsonnet library as generator/_data/ (generator/core/paths.py
looks there first), copied from the top of the repository, where a checkout keeps them. Everything
else about the package is in pyproject.toml."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DATA = ("schemas", "libsonnet")


class BuildWithData(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the checkout's own folders
        for name in DATA:
            target = Path(self.build_lib) / "generator" / "_data" / name
            shutil.copytree(Path(name), target, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))


setup(cmdclass={"build_py": BuildWithData})
