"""Containment of an unsandboxed bot: every process it starts ends with its game.

A bot run without its sandbox (`sandbox = "off"`, a manifest's `sandbox = false`, or
"auto" on a host without bubblewrap) used to be one process group, killed as a group: a
process that left it (a double fork and `setsid`, as a daemon does) outlived the game and
the arena. Now such a bot runs under a *shepherd*, and in a *cgroup* of its own wherever
the host lets the arena make one (docs/bots.md, "How the arena starts a bot"):

- the shepherd (this file run as a program: `Containment.command`) is a small Python
  process (standard library only, started with `-I -S`) that makes itself the child
  subreaper of what it starts (prctl PR_SET_CHILD_SUBREAPER: every orphan of the bot's
  tree becomes its child, not init's), then starts the bot in a process group of its own,
  in its cgroup, with its limits set before it runs and a parent-death signal that kills
  it with its shepherd. It *sweeps* when the bot's first process exits, on SIGUSR1, or
  `--grace` seconds after a SIGTERM (which it passes on to the bot's process group):
  it kills the cgroup, then SIGKILLs every process below it until none is left, and
  exits as the bot did (its code, or its signal). Its own parent-death signal is SIGUSR1:
  a sweep when the arena (or the stdio bridge) that started it dies, even of kill -9.
- the cgroup (`Cgroup`) is made inside the starter's own cgroup, so a stdio bot's nests
  in its bridge's: cgroup v1's freezer hierarchy (frozen, every process in it sent
  SIGKILL, thawed, until it is empty) or else cgroup v2 (`cgroup.kill`). No fork leaves
  it and a frozen fork bomb cannot outrun the kill. The shepherd empties and removes it
  in its sweep, and the arena again once the shepherd has exited (`Containment.end`): a
  shepherd killed by the bot it watched leaves nothing behind either.

Why both: the cgroup is race-free, but takes privileges a host may not give (root, or a
delegated cgroup); the shepherd works on any Linux, also reaps, keeps the bot's exit
status, sets the limits before the bot's first instruction, and sweeps when the arena
dies, which nothing else can do once the arena is gone. Neither is a sandbox: a bot that
means harm, running as the arena's user, can kill its shepherd (and, as root, leave its
cgroup).

This module imports only light parts of the standard library: the shepherd starts with
every unsandboxed bot. What that costs per bot start (benchmarks/contain_overhead.py, a
2-core host): about 17 ms for the shepherd, 14 ms more for the cgroup (the kernel's
migration of the bot into it).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import itertools
import os
import resource
import select
import signal
import sys
import time

TYPE_CHECKING = False  # not typing's: importing typing would cost the shepherd 3 ms
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Callable, Sequence
    from types import FrameType
    from typing import NoReturn

    from hosting.limits import Limits

#: prctl options (linux/prctl.h).
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 1, 4, 36
#: What tells a shepherd to sweep now (also its parent-death signal).
SWEEP_SIGNAL = signal.SIGUSR1
#: What a shepherd passes on to the bot's process group, then sweeps `--grace` after.
POLITE_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
#: Seconds a bot has to exit after a SIGTERM before its shepherd sweeps.
GRACE_S = 2.0
#: Seconds a sweep keeps killing before it gives up (a process stuck in the kernel).
SWEEP_SECONDS = 10.0
#: The two kinds of cgroup: cgroup v1's freezer hierarchy, cgroup v2.
FREEZER, V2 = "freezer", "v2"
#: The file that tells a real cgroup of each kind from a plain folder.
MARK = {FREEZER: "freezer.state", V2: "cgroup.kill"}
#: The shepherd: this file, run by the Python that runs the arena.
SHEPHERD = os.path.abspath(__file__)
_NAMES = itertools.count()
#: A bot's cgroup's name: its maker's pid, a number.
NAME = "curia-bot-{pid}-{n}"


# ---------------------------------------------------------------------------------------
# The cgroup
# ---------------------------------------------------------------------------------------
def cgroup_mounts() -> list[tuple[str, str, str]]:
    """(kind, mount root, mount point) of each cgroup hierarchy that can hold a bot: v1's
    freezer and v2, from /proc/self/mountinfo."""
    found = []
    with contextlib.suppress(OSError), open("/proc/self/mountinfo") as handle:
        for line in handle:
            fields = line.split()
            tail = fields[fields.index("-") + 1:]
            if tail[0] == "cgroup" and FREEZER in tail[2].split(","):
                found.append((FREEZER, fields[3], fields[4]))
            elif tail[0] == "cgroup2":
                found.append((V2, fields[3], fields[4]))
    return found


def own_cgroups() -> dict[str, str]:
    """This process's cgroup (a path in its hierarchy) per kind, from /proc/self/cgroup."""
    own = {}
    with contextlib.suppress(OSError), open("/proc/self/cgroup") as handle:
        for line in handle:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            if not controllers:
                own[V2] = path
            elif FREEZER in controllers.split(","):
                own[FREEZER] = path
    return own


def candidate_parents() -> list[tuple[str, str]]:
    """(kind, folder) where a bot's cgroup may go, best first: this process's own cgroup
    in the freezer hierarchy, then in v2's (its mount point where the own cgroup is not
    visible, as in a container without a cgroup namespace)."""
    own = own_cgroups()
    found = []
    for kind, root, point in cgroup_mounts():
        if kind not in own:
            continue
        path = own[kind]
        inside = root == "/" or path == root or path.startswith(root.rstrip("/") + "/")
        relative = path[len(root.rstrip("/")):] if inside else ""
        folder = os.path.normpath(point + "/" + relative)
        found.append((kind, folder if os.path.isdir(folder) else point))
    return sorted(found, key=lambda item: item[0] != FREEZER)


@functools.lru_cache(maxsize=1)
def cgroup_parent() -> tuple[str, str] | None:
    """Where this process makes its bots' cgroups: (kind, folder), or None where it can
    make none (no permission, no such hierarchy). Probed once per process."""
    for kind, folder in candidate_parents():
        probe = Cgroup.create(kind, folder)
        if probe is not None:
            probe.remove()
            remove_stale(folder)
            return kind, folder
    return None


def remove_stale(folder: str) -> None:
    """Remove the bots' cgroups in `folder` whose maker no longer runs and that are
    empty: those of an arena killed between making one and starting its bot. (A bot's
    shepherd removes its cgroup even when its arena dies; a cgroup still holding a process
    is left alone.)"""
    with contextlib.suppress(OSError):
        for name in os.listdir(folder):
            words = name.split("-")  # NAME: curia, bot, the maker's pid, a number
            if len(words) == 4 and words[:2] == ["curia", "bot"] and \
                    words[2].isdigit() and words[3].isdigit() and \
                    not os.path.exists(f"/proc/{words[2]}"):
                for inner, _, _ in os.walk(os.path.join(folder, name), topdown=False):
                    _rmdir(inner)


class Cgroup:
    """One bot's cgroup: `kind` FREEZER (v1) or V2, at `path`."""

    def __init__(self, kind: str, path: str) -> None:
        self.kind, self.path = kind, path

    @classmethod
    def make(cls) -> Cgroup | None:
        """A new cgroup inside this process's own, or None where the host gives none."""
        parent = cgroup_parent()
        return cls.create(*parent) if parent is not None else None

    @classmethod
    def create(cls, kind: str, folder: str) -> Cgroup | None:
        """A new cgroup of `kind` in `folder`, or None if `folder` cannot hold one."""
        while True:
            path = os.path.join(folder, NAME.format(pid=os.getpid(), n=next(_NAMES)))
            try:
                os.mkdir(path)
            except FileExistsError:
                continue  # left by a process that had this pid
            except OSError:
                return None
            if os.path.exists(os.path.join(path, MARK[kind])):
                return cls(kind, path)
            with contextlib.suppress(OSError):  # a plain folder: it limits nothing
                os.rmdir(path)
            return None

    @classmethod
    def parse(cls, text: str) -> Cgroup:
        """The cgroup of `str(group)` ("kind:path"), as the shepherd is given it."""
        kind, path = text.split(":", 1)
        return cls(kind, path)

    def __str__(self) -> str:
        return f"{self.kind}:{self.path}"

    def join_file(self) -> str:
        return os.path.join(self.path, "cgroup.procs")

    def pids(self) -> list[int]:
        """Every process in the cgroup and in the cgroups below it."""
        found = []
        for folder, _, _ in os.walk(self.path):
            with contextlib.suppress(OSError), open(os.path.join(folder, "cgroup.procs")) \
                    as handle:
                found += [int(line) for line in handle if line.strip()]
        return found

    def kill(self, seconds: float = SWEEP_SECONDS) -> bool:
        """SIGKILL every process in the cgroup until it is empty (for at most `seconds`):
        whether it is."""
        deadline = time.monotonic() + seconds
        while self.pids():
            if time.monotonic() > deadline:
                return False
            if self.kind == V2:
                self._write("cgroup.kill", "1")
            else:
                self._freeze_and_kill(deadline)
            wait_for(lambda: not self.pids(), min(deadline, time.monotonic() + 1.0))
        return True

    def _freeze_and_kill(self, deadline: float) -> None:
        """Freeze (v1: no process forks or exits meanwhile), SIGKILL each, thaw: they die."""
        self._write("freezer.state", "FROZEN")
        wait_for(lambda: self._read("freezer.state") == "FROZEN",
                 min(deadline, time.monotonic() + 1.0))  # FREEZING: a task in the kernel
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self._write("freezer.state", "THAWED")

    def remove(self) -> None:
        """Kill every process in it, then remove it and the cgroups below it."""
        self.kill()
        deadline = time.monotonic() + SWEEP_SECONDS
        for folder, _, _ in os.walk(self.path, topdown=False):
            wait_for(functools.partial(_rmdir, folder), deadline)

    def _write(self, name: str, value: str) -> None:
        with contextlib.suppress(OSError), open(os.path.join(self.path, name), "w") as out:
            out.write(value)

    def _read(self, name: str) -> str:
        with contextlib.suppress(OSError), open(os.path.join(self.path, name)) as handle:
            return handle.read().strip()
        return ""


def _rmdir(folder: str) -> bool:
    """Remove an empty cgroup: whether it is gone (False: still busy)."""
    try:
        os.rmdir(folder)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True


def wait_for(done: Callable[[], bool], deadline: float) -> bool:
    """Look at `done` (a kernel state: nothing tells when it changes) every few ms until it
    is true or `deadline` (monotonic) has passed: whether it is."""
    pause = 0.0005
    while not done():
        if time.monotonic() >= deadline:
            return False
        time.sleep(pause)
        pause = min(pause * 2, 0.02)
    return True


# ---------------------------------------------------------------------------------------
# The starter's side
# ---------------------------------------------------------------------------------------
class Containment:
    """What holds one unsandboxed bot's process tree: the shepherd its command runs under,
    and its cgroup (`group`, None where the host gives none)."""

    def __init__(self, group: Cgroup | None) -> None:
        self.group = group

    @classmethod
    def make(cls) -> Containment:
        return cls(Cgroup.make())

    def command(self, words: Sequence[str], *, limits: Limits | None = None,
                cwd: str | os.PathLike[str] | None = None,
                path: str | None = None) -> list[str]:
        """`words` run under a shepherd (the bot's `limits` set on the bot before it runs).
        Unchanged for a program that cannot be found from `cwd` on `path`, so that
        starting it fails as it would, with its error."""
        if not words or not runnable(words[0], cwd, path):
            return list(words)
        options = ["--parent", str(os.getpid()), "--grace", str(GRACE_S)]
        if self.group is not None:
            options += ["--cgroup", str(self.group)]
        return [sys.executable, "-I", "-S", SHEPHERD, *options, *limit_options(limits),
                "--", *words]

    def terminate(self, process: subprocess.Popen[bytes]) -> None:
        """SIGTERM to the shepherd, which passes it on and sweeps `GRACE_S` later."""
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)

    def end(self, process: subprocess.Popen[bytes], grace: float = 0.0) -> None:
        """End the bot's whole tree, then remove its cgroup: a SIGTERM and `grace` seconds
        to exit (0: none), a sweep (SWEEP_SIGNAL), the shepherd's SIGKILL if it hangs;
        what is left in the cgroup is killed after it."""
        steps = [(signal.SIGTERM, grace)] if grace > 0 else []
        for sig, seconds in [*steps, (SWEEP_SIGNAL, SWEEP_SECONDS), (signal.SIGKILL, 5.0)]:
            if process.poll() is not None:
                break
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(sig)
            wait_process(process, seconds)
        self.close()

    def close(self) -> None:
        """Empty and remove the cgroup (a bot that never started, or ended)."""
        if self.group is not None:
            self.group.remove()


def wait_process(process: subprocess.Popen[bytes], seconds: float) -> None:
    """Wait at most `seconds` for `process` to exit."""
    import subprocess  # the starter's, already loaded (the shepherd does without it)

    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=seconds)


def runnable(program: str, cwd: str | os.PathLike[str] | None, path: str | None) -> bool:
    """Whether `program` (a path relative to `cwd`, or a name looked up on `path`) can
    be run."""
    if "/" in program:
        return os.access(os.path.join(cwd or ".", program), os.X_OK)
    folders = (path if path is not None else os.defpath).split(os.pathsep)
    return any(os.path.isfile(os.path.join(folder or ".", program))
               and os.access(os.path.join(folder or ".", program), os.X_OK)
               for folder in folders)


def limit_options(limits: Limits | None) -> list[str]:
    """The shepherd's options that set a bot's address-space and CPU limits."""
    from hosting.limits import CPU_GRACE_SECONDS, MIB  # the starter's, already loaded

    options = []
    if limits is not None and limits.memory_mb:
        options += ["--as", str(limits.memory_mb * MIB)]
    if limits is not None and limits.cpu_seconds:
        options += ["--cpu", f"{limits.cpu_seconds}:{limits.cpu_seconds + CPU_GRACE_SECONDS}"]
    return options


# ---------------------------------------------------------------------------------------
# The shepherd
# ---------------------------------------------------------------------------------------
class Told:
    """What the shepherd was told by signal (its handlers only note it)."""

    polite = False
    now = False


@functools.lru_cache(maxsize=1)
def libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def prctl(option: int, value: int) -> None:
    """prctl(2) with one argument; OSError on failure."""
    if libc().prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option}, {value})")


def _note_signal(signum: int, frame: FrameType | None) -> None:
    if signum == SWEEP_SIGNAL:
        Told.now = True
    else:
        Told.polite = True


def wake_on_signals() -> int:
    """A pipe's reading end that becomes readable at each signal (SIGCHLD included), the
    handlers that note what was asked installed."""
    read, write = os.pipe()
    os.set_blocking(read, False)
    os.set_blocking(write, False)
    signal.set_wakeup_fd(write)
    for sig in (*POLITE_SIGNALS, SWEEP_SIGNAL, signal.SIGCHLD):
        signal.signal(sig, _note_signal if sig != signal.SIGCHLD else lambda *_: None)
    return read


def spawn(command: Sequence[str], options: dict[str, str], group: Cgroup | None) -> int:
    """Start the bot: fork, then in the child become the bot (`become_bot`) and exec."""
    pid = os.fork()
    if pid:
        devnull = os.open(os.devnull, os.O_RDWR)  # hold none of the bot's pipes but stderr
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        os.close(devnull)
        return pid
    try:
        become_bot(options, group)
        os.execvp(command[0], list(command))
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.write(2, f"curia shepherd: cannot run {command[0]!r}: {error}\n".encode())
    finally:
        os._exit(127)


def become_bot(options: dict[str, str], group: Cgroup | None) -> None:
    """In the forked child: the signals Python changed restored, a process group of its
    own, its cgroup, death with its shepherd, its limits."""
    shepherd = os.getppid()
    signal.set_wakeup_fd(-1)
    for sig in (signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(sig, signal.SIG_DFL)
    os.setpgid(0, 0)
    if group is not None:  # (where it cannot join, the shepherd's sweep holds it alone)
        with contextlib.suppress(OSError), open(group.join_file(), "w") as out:
            out.write(str(os.getpid()))
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != shepherd:
        os._exit(127)  # the shepherd died meanwhile
    if "--as" in options:
        size = int(options["--as"])
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
    if "--cpu" in options:
        soft, hard = (int(part) for part in options["--cpu"].split(":"))
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def reap(child: int) -> int | None:
    """Reap every child that has exited (the bot, orphans): the bot's wait status if it
    was among them."""
    found = None
    with contextlib.suppress(ChildProcessError):
        while True:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            if pid == child:
                found = status
    return found


def watch(child: int, wake: int, grace: float) -> int | None:
    """Wait for the bot's first process to exit (its wait status), reaping orphans
    meanwhile; None once told to sweep (SWEEP_SIGNAL, or `grace` after a SIGTERM)."""
    deadline: float | None = None
    while True:
        status = reap(child)
        if status is not None:
            return status
        if Told.now:
            return None
        if Told.polite and deadline is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child, signal.SIGTERM)
            deadline = time.monotonic() + grace
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            return None
        select.select([wake], [], [], left)
        drain(wake)


def drain(fd: int) -> None:
    with contextlib.suppress(BlockingIOError):
        while os.read(fd, 512):
            pass


def descendants(root: int) -> list[int]:
    """The live processes below `root` (zombies left out), from /proc."""
    children: dict[int, list[int]] = {}
    live = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                state, ppid = handle.read().rsplit(b")", 1)[1].split()[:2]
        except (OSError, ValueError):
            continue  # gone meanwhile
        children.setdefault(int(ppid), []).append(int(name))
        if state not in (b"Z", b"X"):
            live.add(int(name))
    found, todo = [], [root]
    while todo:
        for pid in children.get(todo.pop(), []):
            found.append(pid)
            todo.append(pid)
    return [pid for pid in found if pid in live]


def sweep(child: int, status: int | None, group: Cgroup | None, wake: int) -> int | None:
    """Kill the bot's cgroup, then every process below the shepherd, until none is left;
    remove the cgroup. The bot's wait status (`status`, or as reaped meanwhile)."""
    if group is not None:
        group.kill()
    deadline = time.monotonic() + SWEEP_SECONDS
    while True:
        reaped = reap(child)
        status = reaped if reaped is not None else status
        live = descendants(os.getpid())
        if not live:
            break
        if time.monotonic() > deadline:
            os.write(2, f"curia shepherd: processes {live} would not die\n".encode())
            break
        for pid in live:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        select.select([wake], [], [], 0.01)  # a SIGCHLD, or a moment for the others
        drain(wake)
    if group is not None:
        group.remove()
    return status


def exit_as(status: int | None) -> NoReturn:
    """Exit as the bot did: its exit code, or killed by its signal (no core file of the
    shepherd's); killed by SIGKILL when it could not be reaped."""
    code = os.waitstatus_to_exitcode(status) if status is not None else -signal.SIGKILL
    if code >= 0:
        os._exit(code)
    with contextlib.suppress(OSError):
        prctl(PR_SET_DUMPABLE, 0)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    signal.set_wakeup_fd(-1)
    with contextlib.suppress(OSError):  # SIGKILL's cannot be changed, nor need to be
        signal.signal(-code, signal.SIG_DFL)
    os.kill(os.getpid(), -code)
    os._exit(128 - code)  # a signal that does not end a process


def shepherd(argv: Sequence[str]) -> NoReturn:
    """`contain.py --parent PID --grace S [--cgroup KIND:PATH] [--as BYTES]
    [--cpu SOFT:HARD] -- COMMAND...`: run COMMAND as a contained bot (module docstring)."""
    cut = list(argv).index("--")
    options = dict(zip(argv[:cut:2], argv[1:cut:2], strict=True))
    command = argv[cut + 1:]
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    prctl(PR_SET_PDEATHSIG, SWEEP_SIGNAL)
    wake = wake_on_signals()
    group = Cgroup.parse(options["--cgroup"]) if "--cgroup" in options else None
    if os.getppid() != int(options["--parent"]):  # it died before the signal was set
        if group is not None:
            group.remove()
        os._exit(1)
    child = spawn(command, options, group)
    status = watch(child, wake, float(options["--grace"]))
    exit_as(sweep(child, status, group, wake))


if __name__ == "__main__":
    shepherd(sys.argv[1:])
