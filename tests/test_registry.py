"""The registry of kinds (generator/core/kinds.py) is the one table keyed by kind: every code
reference in it imports, and help loads only what it prints."""

from __future__ import annotations

import subprocess
import sys

from generator.core.paths import REPO


def _imported_by(*argv: str) -> set[str]:
    """The modules of this package that `python -m generator ARGV` imports (-X importtime)."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "generator", *argv],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    names = set()
    for line in run.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name.startswith("generator"):
                names.add(name)
    return names


def test_job_help_imports_no_validator():
    # `job --help` prints flags and the runtimes' names: the validator (schemas, rules, CEL) and
    # the YAML writer are for a job being rendered.
    imported = _imported_by("job", "--help")
    assert "generator.jobs.model" in imported  # the measure sees what the subcommand imports
    heavy = sorted(
        m for m in imported if m.startswith(("generator.validate", "generator.render", "generator.kubeyaml.dump"))
    )
    assert heavy == [], f"`job --help` imports {heavy}"
