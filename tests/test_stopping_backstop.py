"""The bound on stopping in order after SIGTERM (curia/stopping.py), on real processes:
the watchdog ends a process with its exit code while the main thread is blocked in a C
call (where a Python signal handler would wait), and without one SIGALRM's default action
ends it."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time

from tests.timing import patient

BLOCKED = textwrap.dedent("""
    import os, signal, sys
    from curia.stopping import Watchdog, arm_stop_backstop
    watchdog = Watchdog(130) if sys.argv[1] == "watchdog" else None
    if watchdog is not None:
        # the main thread never sees SIGALRM (as when another thread takes the signal
        # while the main one waits): a Python handler there would never run
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    arm_stop_backstop(1, watchdog=watchdog)
    read_end, _ = os.pipe()
    os.read(read_end, 1)  # blocked for good in a C call: nothing is ever written
""")


def ended(mode: str) -> tuple[int, float]:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", BLOCKED, mode], timeout=patient(30),
                          capture_output=True)
    return done.returncode, time.monotonic() - started


def test_the_watchdog_ends_a_blocked_process_with_its_exit_code() -> None:
    code, took = ended("watchdog")
    assert code == 130
    assert took < patient(10)


def test_without_a_watchdog_sigalrm_ends_it() -> None:
    code, _ = ended("none")
    assert code == -signal.SIGALRM
