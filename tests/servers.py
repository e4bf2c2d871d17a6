"""Real servers for tests: `curia serve` as a process (`ServiceProcess`), the Redis URL it
announces, whether a port answers. The fixtures built on them are in tests/conftest.py."""

from __future__ import annotations

import os
import re
import select
import socket
import subprocess
import sys
import time
from pathlib import Path

import grpc

from curia.arena_cli import stop_processes
from service.redis_server import free_port
from tests.timing import patient

REPO = Path(__file__).resolve().parents[1]


class ServiceProcess:
    """`curia serve` as a real process (python -m curia serve)."""

    def __init__(self, redis_url: str | None, port: int | None = None,
                 data_dir: Path | None = None, metrics_port: int | None = None,
                 log_level: str = "WARNING", extra_args: tuple[str, ...] = (),
                 tls_ca: Path | None = None) -> None:
        self.port = port or free_port()
        self.data_dir = data_dir
        self.tls_ca = tls_ca
        args = [sys.executable, "-m", "curia", "serve", "--port", str(self.port),
                "--host", "127.0.0.1", "--log-level", log_level, *extra_args]
        # the Redis URL by environment, as a host passes it: never on a command line
        env = {k: v for k, v in os.environ.items() if k != "CURIA_REDIS_URL"}
        if redis_url:
            env["CURIA_REDIS_URL"] = redis_url
        if data_dir:
            args += ["--data-dir", str(data_dir)]
        if metrics_port:
            args += ["--metrics-port", str(metrics_port)]
        self.args = args
        self.process = subprocess.Popen(args, cwd=REPO, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, env=env)
        self.address = f"127.0.0.1:{self.port}"
        try:
            self._wait_ready()
        except BaseException:  # a server that did not start is not left running
            stop_processes([self.process], grace=5)
            raise

    def _wait_ready(self, timeout: float = 60.0) -> None:  # (20 s was short under load)
        deadline = time.monotonic() + patient(timeout)
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"curia serve exited: {self.process.stderr.read().decode()}")
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    channel = (grpc.secure_channel(self.address, grpc.ssl_channel_credentials(
                        self.tls_ca.read_bytes()), options=[
                            ("grpc.ssl_target_name_override", "localhost")])
                        if self.tls_ca else grpc.insecure_channel(self.address))
                    try:
                        grpc.channel_ready_future(channel).result(timeout=2)
                        self._wait_web_port(deadline)
                        return
                    except grpc.FutureTimeoutError:
                        pass
                    finally:
                        channel.close()
            time.sleep(0.05)
        raise TimeoutError("curia serve did not start")

    def _wait_web_port(self, deadline: float) -> None:
        """With --http-port: until that port accepts too (the service counts as ready once
        its gRPC port answers; its web port may open a moment later)."""
        if "--http-port" not in self.args:
            return
        port = int(self.args[self.args.index("--http-port") + 1])
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    return
            time.sleep(0.05)
        raise TimeoutError(f"curia serve's web port {port} did not open")

    def kill(self) -> None:
        """SIGKILL: no goodbye, no flush."""
        self.process.kill()
        self.process.wait()

    def stop(self) -> None:
        stop_processes([self.process], grace=15)


def served_redis_url(process: ServiceProcess, timeout: float = 10.0) -> str:
    """The Redis URL a `curia serve` process announced on stdout ("curia serving on port
    P (redis URL)"): for an embedded Redis, where its port is. Read once per process."""
    assert process.process.stdout is not None
    readable, _, _ = select.select([process.process.stdout], [], [], timeout)
    assert readable, "curia serve printed no ready line"
    line = process.process.stdout.readline().decode()
    found = re.search(r"\(redis (\S+)\)", line)
    assert found, f"unexpected ready line: {line!r}"
    url = found.group(1)
    if ":***@" in url:  # the embedded Redis's password, kept in its data folder
        assert process.data_dir is not None
        password = (process.data_dir / "redis.password").read_text().strip()
        url = url.replace(":***@", f":{password}@")
    return url


def port_answers(port: int, host: str = "127.0.0.1") -> bool:
    """True if something accepts TCP connections on the port."""
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) == 0


