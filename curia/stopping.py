"""How the long-running commands stop: a bound on stopping in order after SIGTERM."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from typing import NoReturn

#: Seconds a process has, after SIGTERM, to stop in order before SIGALRM ends it (its
#: bots and workers die with it: their sandbox's, shepherd's or own parent-death signal).
STOP_WITHIN_S = 4


class Watchdog:
    """A daemon thread that ends the process with `exit_code` once `arm`ed and its time is
    up, whatever the main thread is doing: a Python signal handler runs only between the
    main thread's bytecodes (not while it waits in a C call that retries on EINTR), and
    not at all once the interpreter finalizes. Start it before the signal comes; `arm`
    takes no lock, so a signal handler may call it."""

    #: Seconds between the thread's looks at its deadline.
    LOOK_S = 0.1

    def __init__(self, exit_code: int) -> None:
        self.exit_code = exit_code
        self.deadline: float | None = None
        threading.Thread(target=self._watch, name="stop-watchdog", daemon=True).start()

    def arm(self, seconds: float) -> None:
        if self.deadline is None:
            self.deadline = time.monotonic() + seconds

    def _watch(self) -> None:
        while self.deadline is None or time.monotonic() < self.deadline:
            time.sleep(self.LOOK_S)
        exit_now(self.exit_code)


def arm_stop_backstop(seconds: int = STOP_WITHIN_S, watchdog: Watchdog | None = None) -> None:
    """In `seconds`, this process ends: by `watchdog`, with its exit code (the status a
    stop in order gives), and in any case by SIGALRM's default action a second after that
    (the kernel's: nothing in the process can delay it)."""
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    if watchdog is not None:
        watchdog.arm(seconds)
        seconds += 1
    signal.alarm(seconds)


def exit_now(code: int) -> NoReturn:
    """End a process that has stopped in order, at once, with `code` (its output flushed).
    The interpreter's own finalization is skipped: it resets the signal handlers first, and
    the cleanup after (gRPC's among it) may outlast the backstop armed at SIGTERM, whose
    SIGALRM would then kill the process with no exit code of ours."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing to say
            stream.flush()
    os._exit(code)
