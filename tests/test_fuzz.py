"""The seeded mutation fuzzer (tests/fuzz.py) as part of the suite: about a minute in CI.

Bounded by a count and a seed, not by the clock, so that every machine, loaded or not, runs the
same cases: PADDLEJOB_FUZZ_INPUTS in-process inputs (default 1,000) and PADDLEJOB_FUZZ_ROUNDS
rounds of each command-line class (file systems, render journals, concurrent renders, chart
values, --build's scan; default 4). PADDLEJOB_FUZZ_SEED picks another sequence. --suite leaves
out the known bugs the fuzzer found (tests/fuzz.py's KNOWN_BUGS) and the 10 s named-pipe waits.
It runs in a child process, so a native crash fails this test instead of killing pytest.
"""

from __future__ import annotations

import os
import subprocess
import sys

from .conftest import REPO


def test_mutated_inputs_never_crash_hang_or_blow_up():
    inputs = os.environ.get("PADDLEJOB_FUZZ_INPUTS", "1000")
    rounds = os.environ.get("PADDLEJOB_FUZZ_ROUNDS", "4")
    seed = os.environ.get("PADDLEJOB_FUZZ_SEED", "20261122")
    command = ["--inputs", inputs, "--rounds", rounds, "--seed", seed, "--suite"]
    done = subprocess.run(
        [sys.executable, "-m", "tests.fuzz", *command],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr[-5000:])
    assert f"fuzz: {inputs} inputs" in done.stdout and "0 failures" in done.stdout
