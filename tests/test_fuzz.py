"""The seeded mutation fuzzer (tests/fuzz.py) as part of the suite: about a minute in CI.

PADDLEJOB_FUZZ_SECONDS=3600 runs it longer; PADDLEJOB_FUZZ_SEED picks another sequence;
PADDLEJOB_FUZZ_PROCESS_SECONDS sets the command-line classes' share (file systems, render
journals, concurrent renders, chart values), a few rounds of each by default. --suite leaves out
the known bugs the fuzzer found (tests/fuzz.py's KNOWN_BUGS) and the 10 s named-pipe waits.
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
    # a few rounds of each command-line class (about 4 s a round); half of a longer run
    process_seconds = os.environ.get("PADDLEJOB_FUZZ_PROCESS_SECONDS", str(max(20.0, float(seconds) / 2)))
    command = ["--seconds", seconds, "--seed", seed, "--process-seconds", process_seconds, "--suite"]
    done = subprocess.run(
        [sys.executable, "-m", "tests.fuzz", *command],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=(float(seconds) + float(process_seconds)) * 3 + 180,
    )
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr[-5000:])
    assert "0 failures" in done.stdout
