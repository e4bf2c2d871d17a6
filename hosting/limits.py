"""A bot process's resource limits (`[limits]` of its manifest) and how to tell that a
bot was stopped by one.

The limits are set on the bot's own process (its children inherit them): the arena sets
them on a gRPC bot, and the stdio bridge, which is not limited itself, on the stdio bot it
starts. They are set right after the process starts (`prlimit`), not in the child before
`exec`: forking a process that runs gRPC threads must not run Python code in the child.

A CPU limit is certain to be the cause when the bot dies of SIGXCPU. Running out of
address space has no signal of its own: an allocation fails, and the runtime says so
(`MemoryError`, `std::bad_alloc`, "out of memory", ...); a bot that ends early with such
a message on stderr is reported as having exceeded its memory limit.
"""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import signal
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

MIB = 1024 * 1024
#: What runtimes print when an allocation fails (Python, C/C++, Rust, Go, Java, Node.js,
#: glibc, Perl).
OUT_OF_MEMORY_SIGNS = (
    "MemoryError", "bad_alloc", "out of memory", "Out of memory", "Cannot allocate memory",
    "memory allocation of", "OutOfMemoryError", "heap out of memory", "failed to allocate",
)
#: What runtimes print when a write finds the disk full (ENOSPC, EDQUOT, EFBIG).
DISK_FULL_SIGNS = ("No space left on device", "ENOSPC", "Disk quota exceeded",
                   "File too large", "EFBIG")
#: Extra CPU seconds between SIGXCPU (the soft limit) and SIGKILL (the hard limit).
CPU_GRACE_SECONDS = 5


@dataclass(frozen=True)
class Limits:
    """Resource limits of one bot process (per game); 0: none."""

    #: address-space limit (RLIMIT_AS), MiB
    memory_mb: int = 4096
    #: CPU-time limit (RLIMIT_CPU), seconds
    cpu_seconds: int = 300
    #: processes and threads the bot may run at once (RLIMIT_NPROC inside its sandbox;
    #: a bot run unsandboxed is not held to it)
    processes: int = 256
    #: what its sandbox may hold in files, MiB: its copy of its folder and its private
    #: /tmp share this (both in memory, tmpfs); its build may grow its folder by this much
    disk_mb: int = 512

    def as_arguments(self) -> list[str]:
        """The limits as the stdio bridge's arguments."""
        return ["--memory-mb", str(self.memory_mb), "--cpu-seconds", str(self.cpu_seconds),
                "--disk-mb", str(self.disk_mb)]


def apply_limits(pid: int, limits: Limits) -> None:
    """Set the address-space and CPU limits of a started process."""
    with contextlib.suppress(ProcessLookupError, OSError):
        if limits.memory_mb:
            size = limits.memory_mb * MIB
            resource.prlimit(pid, resource.RLIMIT_AS, (size, size))
        if limits.cpu_seconds:
            resource.prlimit(pid, resource.RLIMIT_CPU,
                             (limits.cpu_seconds, limits.cpu_seconds + CPU_GRACE_SECONDS))


def exceeded(returncode: int | None, stderr_tail: str, limits: Limits) -> str | None:
    """"exceeded cpu_seconds (N s)", "exceeded memory_mb (N MB)" or "exceeded disk_mb (N MB)"
    for a bot that ended (`returncode`, negative for a signal) because of a limit; None
    otherwise."""
    if returncode is None or returncode == 0:
        return None
    if limits.cpu_seconds and returncode == -signal.SIGXCPU:
        return f"exceeded cpu_seconds ({limits.cpu_seconds} s)"
    if limits.memory_mb and any(sign in stderr_tail for sign in OUT_OF_MEMORY_SIGNS):
        return f"exceeded memory_mb ({limits.memory_mb} MB)"
    if limits.disk_mb and any(sign in stderr_tail for sign in DISK_FULL_SIGNS):
        return f"exceeded disk_mb ({limits.disk_mb} MB)"
    return None


def ended_with_parent(command: Sequence[str], cwd: str | Path | None = None,
                      path: str | None = None) -> list[str]:
    """`command`, run so that the kernel kills it (SIGKILL) the moment the process that
    starts it dies, even of kill -9: through util-linux's `setpriv --pdeathsig` (the
    death signal survives the exec; no Python code runs in the forked child). Unchanged
    where setpriv is missing (the bot then ends when its calls to the service fail), and
    for a program that cannot be found from `cwd` on `path` (so that starting it fails
    as it would, with its error)."""
    setpriv = shutil.which("setpriv")
    if setpriv is None or not command or not _runnable(command[0], cwd, path):
        return list(command)
    return [setpriv, "--pdeathsig", "KILL", "--", *command]


def _runnable(program: str, cwd: str | Path | None, path: str | None) -> bool:
    if "/" in program:
        return os.access(Path(cwd or ".") / program, os.X_OK)
    return shutil.which(program, path=path) is not None
