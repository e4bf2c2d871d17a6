"""How the long-running commands stop: a bound on stopping in order after SIGTERM."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from typing import NoReturn

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


def exit_now(code: int) -> NoReturn:
    """End a process that has stopped in order, at once, with `code` (its output flushed).
    The interpreter's own finalization is skipped: it resets the signal handlers first, and
    the cleanup after (gRPC's among it) may outlast the backstop armed at SIGTERM, whose
    SIGALRM would then kill the process with no exit code of ours."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing to say
            stream.flush()
    os._exit(code)
