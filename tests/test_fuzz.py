"""The seeded mutation fuzzer (tests/fuzz.py) as part of the suite: about a minute in CI.

PADDLEJOB_FUZZ_SECONDS=3600 runs it longer; PADDLEJOB_FUZZ_SEED picks another sequence.
It runs in a child process, so a native crash fails this test instead of killing pytest.
"""

from __future__ import annotations

import os
import subprocess
import sys

from .conftest import REPO


def test_mutated_inputs_never_crash_hang_or_blow_up():
    seconds = os.environ.get("PADDLEJOB_FUZZ_SECONDS", "45")
    seed = os.environ.get("PADDLEJOB_FUZZ_SEED", "20261122")
    done = subprocess.run(
        [sys.executable, "-m", "tests.fuzz", "--seconds", seconds, "--seed", seed],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=float(seconds) * 3 + 120,
    )
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr[-5000:])
    assert "0 failures" in done.stdout
