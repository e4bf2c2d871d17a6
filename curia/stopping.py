"""How the long-running commands stop: a bound on stopping in order after SIGTERM."""

from __future__ import annotations

import os
import signal

#: Seconds a process has, after SIGTERM, to stop in order before SIGALRM ends it (its
#: bots and workers die with it: their sandbox's, shepherd's or own parent-death signal).
STOP_WITHIN_S = 4


def arm_stop_backstop(seconds: int = STOP_WITHIN_S, exit_code: int | None = None) -> None:
    """In `seconds`, SIGALRM ends this process: with `exit_code` (os._exit, from a handler:
    the exit status a stop in order gives), or by its default action (the kernel's: a
    busy or blocked main thread cannot delay it)."""
    if exit_code is None:
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
    else:
        signal.signal(signal.SIGALRM, lambda signum, frame: os._exit(exit_code))
    signal.alarm(seconds)
