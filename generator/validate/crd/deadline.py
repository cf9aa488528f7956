"""A time limit for Python's regex engine, which backtracks where the apiserver's RE2 does not:
a CRD from a pull request may hold a pattern or a CEL rule whose regex takes exponential time on
a short string. SIGALRM interrupts `re` wherever it backtracks; off the main thread no alarm can
be had, and `within` says so instead of running the call unbounded.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time


class Expired(Exception):
    """The call ran out of its time."""


class NotHere(Exception):
    """No time limit can be set in this thread, so the call was not made."""


_armed = False  # the alarm is ours to raise from


def _alarm(signum, frame) -> None:
    if _armed:
        raise Expired


@contextlib.contextmanager
def within(seconds: float):
    """Run the block with at most ``seconds`` of wall time (Expired when it runs out); a timer
    someone else had set is rearmed afterwards for what was left of it. Yields a callable that
    returns the seconds spent so far."""
    global _armed
    if threading.current_thread() is not threading.main_thread():
        raise NotHere
    previous = signal.signal(signal.SIGALRM, _alarm)
    pending = signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-3))
    started = time.perf_counter()
    _armed = True
    try:
        yield lambda: time.perf_counter() - started
    finally:
        _armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if pending[0] > 0:  # someone else's timer: rearmed for what was left of it
            spent = time.perf_counter() - started
            signal.setitimer(signal.ITIMER_REAL, max(pending[0] - spent, 1e-6), pending[1])
