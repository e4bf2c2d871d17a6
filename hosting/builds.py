"""Building bots: each manifest's build command, run in its folder under a lock, inside the
bot's sandbox where the run has one.

An entrant's build is the entrant's code: it runs as the bot does (hosting.sandbox), with
the bot's own folder writable (the folder each game's copy is then made from) and nothing
else: the read-only system and Curia, a private /tmp, no network unless the host opts in
(`[tournament] build_network`, `curia league worker --build-network`), and then only
through slirp4netns with the host's loopback cut off (no Redis, no service), its limits
(`build_limits`: address space, CPU, processes, file size, wall time, and the folder may
grow by at most `disk_mb`). A build that fails, times out or exceeds a limit is a
ConfigError whose first line names the bot and why.

Two tournaments (or a tournament and `curia arena check`) on one machine may build the
same bot at once; `npm install` and the like are not safe to run twice in one folder
concurrently, so each build holds an exclusive lock on its folder for its duration.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

from hosting.limits import MIB, Limits, ended_with_parent
from hosting.manifest import BotManifest, ConfigError
from hosting.sandbox import (
    Layout,
    ProcessCap,
    SandboxPlan,
    base_arguments,
    end_sandbox,
    environment,
    environment_arguments,
    limit_prefix,
    mask_arguments,
    tool,
)

#: Seconds a build may run (wall clock).
BUILD_SECONDS = 600
#: A build's own limits, at least: compilers need more than most bots (address space, not
#: RAM: a JVM reserves half of it for its heap, and glibc an arena per thread).
BUILD_MEMORY_MB = 8192
BUILD_CPU_SECONDS = 600
BUILD_PROCESSES = 256
#: Seconds the set-up of a build's sandbox and network may take.
SETUP_SECONDS = 30.0
#: Seconds between two tries of slirp4netns on a sandbox not ready to be joined.
RETRY_SECONDS = 0.05
#: Seconds between two looks at how much a build has written in its folder.
DISK_LOOK_SECONDS = 0.5
#: How builds reach the network: "none" (the default), "slirp" (slirp4netns, the host's
#: loopback cut off), "host" (the host's network: "auto" where slirp4netns is missing).
NETWORKS = ("none", "slirp", "host")


@contextlib.contextmanager
def build_lock(workdir: Path) -> Iterator[None]:
    """Hold the machine-wide lock on building in `workdir` (a file lock kept outside the
    bot's folder, which may be read-only)."""
    digest = hashlib.sha256(str(workdir.resolve()).encode()).hexdigest()[:16]
    path = Path(tempfile.gettempdir()) / f"curia-build-{digest}.lock"
    with path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def build_limits(limits: Limits) -> Limits:
    """A build's limits: the bot's, raised to the build minimums; its disk_mb as is."""
    return replace(limits, memory_mb=max(limits.memory_mb, BUILD_MEMORY_MB),
                   cpu_seconds=max(limits.cpu_seconds, BUILD_CPU_SECONDS),
                   processes=max(limits.processes, BUILD_PROCESSES))


def build_bots(manifests: Iterable[BotManifest], out: IO[str],
               plan: SandboxPlan | None = None, timeout: float = BUILD_SECONDS) -> None:
    """Run each manifest's build command once, in its folder (in its sandbox where `plan`
    has one); ConfigError if one fails."""
    for manifest in manifests:
        if manifest.build:
            layout = plan.layout_for(manifest.name) if plan is not None else None
            network = plan.build_network if plan is not None else "host"
            build_bot(manifest, out, timeout, layout, network)


def build_bot(manifest: BotManifest, out: IO[str], timeout: float = BUILD_SECONDS,
              layout: Layout | None = None, network: str = "none") -> None:
    """Run one manifest's build command under its folder's lock; ConfigError if it fails.
    `layout`: in the bot's sandbox, `network` one of NETWORKS."""
    where = "in its sandbox" if layout is not None else "UNSANDBOXED"
    print(f"building {manifest.name} ({where}): {' '.join(manifest.build)}", file=out,
          flush=True)
    with build_lock(manifest.workdir):
        if layout is None:
            build = Build(list(manifest.build), manifest.workdir, Limits(disk_mb=0))
        else:
            cap = ProcessCap(build_limits(manifest.limits).processes)
            build = Build(sandboxed_build(layout, manifest, network, cap), manifest.workdir,
                          build_limits(manifest.limits), slirp=network == "slirp", cap=cap)
        failure = build.run(timeout)
    if failure:
        hint = ("\n(the build ran without network: one that downloads needs "
                "build_network = true in [tournament], or --build-network)"
                if layout is not None and network == "none" else "")
        raise ConfigError(f"building {manifest.name} failed{failure}{hint}")


def sandboxed_build(layout: Layout, manifest: BotManifest, network: str,
                    cap: ProcessCap) -> list[str]:
    """The bwrap command line of a build in the bot's sandbox: its folder bound writable
    at its own path, everything else as for its games."""
    limits = build_limits(manifest.limits)
    own = manifest.workdir
    args = base_arguments(layout, limits.disk_mb)
    if network in ("host", "slirp"):  # slirp: the namespace it runs in (SlirpNetwork)
        args.append("--share-net")
    args += ["--bind", str(own), str(own)]
    args += [word for path in layout.masks(layout.trees, own)
             for word in mask_arguments(path)]
    if network == "slirp" and (resolv := slirp_resolv_conf()) is not None:
        args += ["--ro-bind", str(resolv), "/etc/resolv.conf"]
    args += ["--chdir", str(own), *environment_arguments(environment(sys.executable, {}))]
    prlimit = limit_prefix(limits)
    if limits.disk_mb:
        prlimit.insert(1, f"--fsize={limits.disk_mb * MIB}")
    return [*cap.prefix(), *args, "--", *prlimit, *manifest.build]


def slirp_resolv_conf() -> Path | None:
    """A resolv.conf naming slirp4netns's DNS (10.0.2.3) where the host's names a resolver
    on its loopback (which a build with slirp4netns cannot reach); None: the host's."""
    with contextlib.suppress(OSError):
        if "nameserver 127." not in Path("/etc/resolv.conf").read_text():
            return None
    path = Path(tempfile.gettempdir()) / "curia-slirp-resolv.conf"
    path.write_text("nameserver 10.0.2.3\n")
    return path


def folder_bytes(folder: Path) -> int:
    """The bytes the files under `folder` take (links not followed)."""
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
    return total


@dataclass
class Build:
    """One build process: run to its end within its wall time and disk growth."""

    command: list[str]
    folder: Path
    limits: Limits
    slirp: bool = False
    #: the pids cgroup its sandbox runs in, removed after it
    cap: ProcessCap | None = None

    def run(self, timeout: float) -> str:
        """Run the build; "" if it succeeded, else why not, to follow "building NAME
        failed" (one line, then the end of its output)."""
        try:
            with tempfile.TemporaryFile() as log:
                return self._run(log, timeout)
        finally:
            if self.cap is not None:
                self.cap.close()

    def _run(self, log: IO[bytes], timeout: float) -> str:
        try:
            process, network = self._start(log)
        except (OSError, ValueError) as error:
            return f": cannot start: {error}"
        over = threading.Event()
        watcher = threading.Thread(target=self._watch_disk, args=(process, over),
                                   daemon=True)
        watcher.start()
        try:
            code = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return f": timed out after {timeout:.0f} s\n{tail(log)}"
        finally:
            kill_group(process)
            if network is not None:
                network.close()
            watcher.join()
        if over.is_set():
            return f": exceeded disk_mb ({self.limits.disk_mb} MB)\n{tail(log)}"
        return "" if code == 0 else f" (exit code {code}):\n{tail(log)}"

    def _start(self, log: IO[bytes]) -> tuple[subprocess.Popen[bytes], SlirpNetwork | None]:
        """The build process, and its network where it has one: a network namespace
        made first (`SlirpNetwork`), given the network by slirp4netns, which the sandbox
        then shares (bwrap --share-net, run under nsenter)."""
        if not self.slirp:
            return self._popen(self.command, log), None
        network = SlirpNetwork.start()
        at = self.command.index(tool("bwrap"))
        try:
            return self._popen([*self.command[:at], *network.enter(), *self.command[at:]],
                               log), network
        except OSError:
            network.close()
            raise

    def _popen(self, command: list[str], log: IO[bytes]) -> subprocess.Popen[bytes]:
        return subprocess.Popen(command, cwd=self.folder, stdin=subprocess.DEVNULL,
                                stdout=log, stderr=log, start_new_session=True)

    def _watch_disk(self, process: subprocess.Popen[bytes], over: threading.Event) -> None:
        """Stop the build once its folder grew by more than disk_mb."""
        if not self.limits.disk_mb:
            return
        allowed = folder_bytes(self.folder) + self.limits.disk_mb * MIB
        while process.poll() is None:
            if folder_bytes(self.folder) > allowed:
                over.set()
                kill_group(process)
                return
            time.sleep(DISK_LOOK_SECONDS)


def read_within(fd: int, seconds: float = SETUP_SECONDS) -> bytes:
    """What `fd` has to read, waiting at most `seconds`; OSError past that."""
    ready, _, _ = select.select([fd], [], [], seconds)
    if not ready:
        raise OSError(f"no answer within {seconds:.0f} s while setting up the build's sandbox")
    return os.read(fd, 4096)


@dataclass
class SlirpNetwork:
    """A network namespace held by a small process of its own (`unshare`), given the
    network by slirp4netns with the host's loopback cut off (--disable-host-loopback); a
    build's sandbox runs in it (`enter`). Made before the sandbox, so that slirp4netns
    joins a namespace that is complete (joining bwrap's own while it is being set up can
    fail: setns EPERM)."""

    holder: subprocess.Popen[bytes]
    slirp: subprocess.Popen[bytes] | None = None

    @classmethod
    def start(cls) -> SlirpNetwork:
        """The namespace and its network, up; OSError if either cannot be made."""
        user = [] if os.geteuid() == 0 else ["--user", "--map-root-user"]
        holder = subprocess.Popen(ended_with_parent(  # gone with the arena, even kill -9
            [tool("unshare"), *user, "--net", "--", "/bin/sh", "-c", "read line"]),
                                  stdin=subprocess.PIPE,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        network = cls(holder)
        try:
            network.wait_unshared()
            network.slirp = start_slirp(holder.pid)
        except OSError:
            network.close()
            raise
        return network

    def wait_unshared(self) -> None:
        """Until the holder is in its own network namespace (unshare has run)."""
        ours = os.readlink("/proc/self/ns/net")
        deadline = time.monotonic() + SETUP_SECONDS
        while os.readlink(f"/proc/{self.holder.pid}/ns/net") == ours:
            if self.holder.poll() is not None or time.monotonic() > deadline:
                raise OSError("unshare could not make the build's network namespace")
            time.sleep(RETRY_SECONDS)

    def enter(self) -> list[str]:
        """The words that run a command in the namespace (its user namespace too, for a
        user that is not root)."""
        pid = self.holder.pid
        user = [] if os.geteuid() == 0 else [f"--user=/proc/{pid}/ns/user",
                                              "--preserve-credentials"]
        return [tool("nsenter"), f"--net=/proc/{pid}/ns/net", *user, "--"]

    def close(self) -> None:
        for process in (self.slirp, self.holder):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()


def start_slirp(pid: int, seconds: float = SETUP_SECONDS) -> subprocess.Popen[bytes]:
    """slirp4netns giving the network namespace of `pid` the network, the host's loopback
    cut off; returns once the network is up (tried again every RETRY_SECONDS for at most
    `seconds` while it fails)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return slirp_once(pid)
        except OSError:
            if time.monotonic() > deadline:
                raise
        time.sleep(RETRY_SECONDS)


def slirp_once(pid: int) -> subprocess.Popen[bytes]:
    """One try of `start_slirp`; OSError if slirp4netns could not configure the network.
    Its messages go to a file: a pipe nobody reads would stop it once full."""
    userns = [] if os.geteuid() == 0 else [f"--userns-path=/proc/{pid}/ns/user"]
    ready_read, ready_write = os.pipe()
    with tempfile.TemporaryFile() as said:
        try:
            network = subprocess.Popen(ended_with_parent(  # gone with the arena, kill -9 too
                [tool("slirp4netns"), "--configure", "--mtu=65520", "--disable-host-loopback",
                 *userns, "--ready-fd", str(ready_write), str(pid), "tap0"]),
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=said,
                pass_fds=(ready_write,))
        finally:
            os.close(ready_write)
        try:
            answer = b""
            with contextlib.suppress(OSError):
                answer = read_within(ready_read)[:1]
        finally:
            os.close(ready_read)
        if answer != b"1":
            network.kill()
            network.wait()
            raise OSError(f"slirp4netns could not give the build its network: "
                          f"{tail(said, 200).strip()}")
    return network


def slirp_available() -> bool:
    return shutil.which("slirp4netns") is not None


def kill_group(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL a build's process group, its sandbox first (`end_sandbox`, which works
    unsandboxed too: the build's command and its children)."""
    end_sandbox(process)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=10)


def tail(log: IO[bytes], size: int = 2000) -> str:
    """The end of a build's output."""
    log.seek(0, os.SEEK_END)
    log.seek(max(0, log.tell() - size))
    return log.read().decode("utf-8", "replace")
