"""How the long-running commands stop: a bound on stopping in order after SIGTERM."""

from __future__ import annotations

import signal

#: Seconds a process has, after SIGTERM, to stop in order before SIGALRM ends it (its
#: bots and workers die with it: their sandbox's, shepherd's or own parent-death signal).
STOP_WITHIN_S = 4


def arm_stop_backstop(seconds: int = STOP_WITHIN_S) -> None:
    """In `seconds`, SIGALRM's default action ends this process, whatever Python is doing
    then (the kernel's, not a handler's: a busy or blocked main thread cannot delay it)."""
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.alarm(seconds)
