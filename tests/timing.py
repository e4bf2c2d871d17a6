"""The suite's one time scale: every wait of a test is a multiple of `PATIENCE`.

A slow or loaded machine raises it by environment variable, for every wait at once
(`CURIA_TEST_PATIENCE=3 python3 -m pytest`); the per-test timeout (pytest-timeout, set in
tests/conftest.py) scales with it. A test waits for a condition (`wait_until`), never for
a fixed time standing for one.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

#: How much longer than on a quiet machine every wait may take (CURIA_TEST_PATIENCE).
PATIENCE = float(os.environ.get("CURIA_TEST_PATIENCE", "1") or 1)
#: Seconds a single test may run, at PATIENCE 1, before pytest-timeout stops it by name.
TEST_TIMEOUT_S = 600


def patient(seconds: float) -> float:
    """`seconds` on this machine's time scale."""
    return seconds * PATIENCE


def wait_until(predicate: Callable[[], object], timeout: float, interval: float = 0.05,
               message: str = "condition") -> None:
    """Poll `predicate` until true; fail the test after `timeout` seconds (times
    PATIENCE)."""
    limit = patient(timeout)
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {limit:g}s waiting for {message}")
        time.sleep(interval)


def join_while_progressing(threads: list[threading.Thread], progress: Callable[[], object],
                           stall: float, interval: float = 0.2) -> None:
    """Join `threads`; fail only if they stop making progress: `progress()` (a count, or any
    value that changes while work gets done) stays the same for `stall` seconds (times
    PATIENCE). A load test's total time depends on the machine; a hang does not."""
    limit = patient(stall)
    seen, since = progress(), time.monotonic()
    while any(t.is_alive() for t in threads):
        for thread in threads:
            thread.join(interval)
            if thread.is_alive():
                break
        now = progress()
        if now != seen:
            seen, since = now, time.monotonic()
        elif time.monotonic() - since > limit:
            raise AssertionError(f"no progress for {limit:g}s: {sum(t.is_alive() for t in threads)}"
                                 f" of {len(threads)} threads still running")
