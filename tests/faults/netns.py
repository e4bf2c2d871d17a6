"""Network namespaces joined by veth pairs, for the partition tests: iproute2 (`ip`) only,
as root. A `Network` makes namespaces (each with its loopback up), point-to-point links
between two of them or between one and the root namespace (a veth pair, a /30 of the
network's own /24 in 10.213.0.0/16 at its ends), and processes inside a namespace
(`ip netns exec`); `close()` ends them all and deletes the namespaces (their veths go
with them).

A link is cut by setting one end down (`Link.cut`): the other end loses its carrier and
what its side sends is dropped silently, while the side that went down has no route
left, so its own new connections fail at once. It is cut one way by deleting the route
at one end (`Link.cut_one_way`): what that side receives still arrives, what it sends
(its answers, its acknowledgements) never leaves. Healing sets both ends up and puts
their routes back.

Names carry the creating process's id, so parallel test workers never clash;
namespaces left behind by a process that has died are deleted by the next `Network`.
"""

from __future__ import annotations

import contextlib
import fcntl
import ipaddress
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

#: Every namespace of these tests is named PREFIX-<pid>-<role>.
PREFIX = "curia-part"
#: The /24 of a network is 10.213.N.0/24 for an N no address of the root namespace uses.
SUPERNET = ipaddress.ip_network("10.213.0.0/16")
LOCK = Path(tempfile.gettempdir()) / "curia-netns.lock"


class NetnsUnavailable(RuntimeError):
    """Network namespaces cannot be made here (not root, no iproute2, no veth, ...)."""


def ip(*args: str, check: bool = True) -> str:
    """`ip ARGS...`: its stdout; a RuntimeError with its stderr when it fails."""
    done = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=20)
    if check and done.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _dies_with_parent() -> list[str]:
    """A command prefix that has the child killed when the test process dies (util-linux
    `setpriv`), or none. Not a `preexec_fn`: forking a process that runs gRPC's threads
    can abort the child before it execs (gRPC's fork handlers restart its poller, whose
    epoll descriptor close_fds then closes: "epoll_wait error: Bad file descriptor")."""
    found = shutil.which("setpriv")
    return [found, "--pdeathsig", "KILL", "--"] if found else []


def unavailable_reason() -> str | None:
    """Why this machine cannot run the partition tests, or None if it can: root, the `ip`
    binary, a namespace with a veth pair to the root namespace and a process in it must
    all work."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    if shutil.which("ip") is None:
        return "no `ip` binary (iproute2)"
    name = f"{PREFIX}-{os.getpid()}-probe{uuid.uuid4().hex[:4]}"
    device = f"cp{uuid.uuid4().hex[:8]}"
    try:
        ip("netns", "add", name)
    except (RuntimeError, OSError, subprocess.SubprocessError) as error:
        return f"`ip netns add` failed: {error}"
    try:
        ip("link", "add", device, "type", "veth", "peer", "name", "p0", "netns", name)
        ip("-n", name, "link", "set", "lo", "up")
        ip("netns", "exec", name, "true")
    except (RuntimeError, OSError, subprocess.SubprocessError) as error:
        return f"no veth pair into a network namespace, or no `ip netns exec`: {error}"
    finally:
        ip("link", "del", device, check=False)
        ip("netns", "del", name, check=False)
    return None


def delete_stale_namespaces() -> None:
    """Delete the namespaces of these tests whose creating process has died, and stop
    what still runs in them (else they would outlive their names)."""
    for line in ip("netns", "list", check=False).splitlines():
        found = re.match(rf"({re.escape(PREFIX)}-(\d+)-\S+)", line)
        if found and not _pid_alive(int(found.group(2))):
            for pid in ip("netns", "pids", found.group(1), check=False).split():
                with contextlib.suppress(OSError):
                    os.kill(int(pid), signal.SIGKILL)
            ip("netns", "del", found.group(1), check=False)


@contextlib.contextmanager
def _allocation_lock() -> Iterator[None]:
    """One test process at a time picks a /24 and puts addresses in the root namespace."""
    with open(LOCK, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _free_subnet() -> ipaddress.IPv4Network:
    """A /24 of SUPERNET that no address or route of the root namespace touches."""
    used = ip("-4", "-o", "addr", "show", check=False) + ip("-4", "route", "show",
                                                           check=False)
    taken = {ipaddress.ip_network(f"{m.group(1)}/24", strict=False)
             for m in re.finditer(r"(10\.213\.\d+\.\d+)", used)}
    candidates = list(SUPERNET.subnets(new_prefix=24))
    start = os.getpid() % len(candidates)
    for candidate in candidates[start:] + candidates[:start]:
        if candidate not in taken:
            return candidate
    raise NetnsUnavailable("no free /24 left in 10.213.0.0/16")


@dataclass
class End:
    """One end of a link: its namespace (None: the root namespace), device and address."""

    namespace: str | None
    device: str
    address: str

    def ip(self, *args: str, check: bool = True) -> str:
        return ip(*(("-n", self.namespace) if self.namespace else ()), *args, check=check)

    def set(self, up: bool) -> None:
        self.ip("link", "set", self.device, "up" if up else "down")


@dataclass
class Link:
    """A veth pair between two namespaces, a /30 at its ends."""

    label: str
    subnet: str
    left: End
    right: End

    def end_in(self, namespace: str | None) -> End:
        for end in (self.left, self.right):
            if end.namespace == namespace:
                return end
        raise KeyError(namespace)

    def cut(self, at: str | None) -> None:
        """Set the end in namespace `at` down: its peer's traffic is dropped silently."""
        self.end_in(at).set(False)

    def cut_one_way(self, at: str | None) -> None:
        """Delete the route of the end in namespace `at`: what it receives arrives, what
        it sends over the link is lost."""
        end = self.end_in(at)
        end.ip("route", "del", self.subnet, "dev", end.device)

    def heal(self) -> None:
        """Both ends up again, with their routes."""
        for end in (self.left, self.right):
            end.set(True)
            end.ip("route", "replace", self.subnet, "dev", end.device, "proto", "kernel",
                   "scope", "link", "src", end.address)


class Network:
    """Namespaces, links and the processes in them, all removed by `close()`. One at a
    time per test process (names carry its id)."""

    def __init__(self) -> None:
        self.tag = str(os.getpid())
        self.namespaces: list[str] = []
        self.links: list[Link] = []
        self.processes: list[subprocess.Popen[bytes]] = []
        self._subnet: ipaddress.IPv4Network | None = None
        self._hosts: Iterator[ipaddress.IPv4Network] | None = None

    def namespace(self, role: str) -> str:
        """A new namespace, with its loopback up and no reverse-path filter (a one-way
        cut leaves a side without a route back to what it receives)."""
        name = f"{PREFIX}-{self.tag}-{role}"
        ip("netns", "del", name, check=False)  # a leftover of a crashed run of this pid
        ip("netns", "add", name)
        self.namespaces.append(name)
        ip("-n", name, "link", "set", "lo", "up")
        ip("netns", "exec", name, "sh", "-c",
           "for f in /proc/sys/net/ipv4/conf/*/rp_filter; do echo 0 > $f; done")
        return name

    def links_between(self, pairs: list[tuple[str, str | None, str | None]]) -> list[Link]:
        """Links (label, left namespace, right namespace; None: the root namespace), all
        made at once under the machine-wide lock that keeps root addresses apart."""
        with _allocation_lock():
            if self._subnet is None:
                self._subnet = _free_subnet()
                self._hosts = self._subnet.subnets(new_prefix=30)
            return [self._link(*pair) for pair in pairs]

    def _link(self, label: str, left: str | None, right: str | None) -> Link:
        assert self._hosts is not None
        subnet = next(self._hosts)
        first, second = (str(a) for a in list(subnet.hosts())[:2])
        # device names: at most 15 characters, those in the root namespace unique there
        ends = [End(ns, f"c{self.tag}{label}{side}" if ns is None else f"{label}{side}",
                    address) for ns, side, address in ((left, "l", first),
                                                        (right, "r", second))]
        assert all(len(end.device) <= 15 for end in ends), ends
        # made from the root namespace's end if there is one: the peer is moved away
        here, there = (ends[1], ends[0]) if right is None else (ends[0], ends[1])
        assert there.namespace is not None
        here.ip("link", "add", here.device, "type", "veth", "peer", "name", there.device,
                "netns", there.namespace)
        for end in ends:
            end.ip("addr", "add", f"{end.address}/30", "dev", end.device)
            end.set(True)
        link = Link(label, str(subnet), ends[0], ends[1])
        self.links.append(link)
        return link

    def spawn(self, namespace: str | None, args: list[str], *, log: Path,
              env: dict[str, str] | None = None, cwd: Path | None = None
              ) -> subprocess.Popen[bytes]:
        """`args` as a process in `namespace` (None: here), stdout and stderr to `log`;
        killed if this process dies (where `setpriv` is installed)."""
        inside = ["ip", "netns", "exec", namespace] if namespace else []
        with open(log, "ab") as out:
            process = subprocess.Popen([*_dies_with_parent(), *inside, *args], stdout=out,
                                       stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       env=env, cwd=cwd)
        self.processes.append(process)
        return process

    def close(self) -> None:
        """Stop every process (SIGTERM, then SIGKILL after 5 s), delete every namespace
        and whatever root-side veth end is left."""
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        deadline = time.monotonic() + 5.0
        for process in self.processes:
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(5.0)
        for name in self.namespaces:
            ip("netns", "del", name, check=False)
        for link in self.links:
            for end in (link.left, link.right):
                if end.namespace is None:
                    ip("link", "del", end.device, check=False)
        self.namespaces, self.links, self.processes = [], [], []
