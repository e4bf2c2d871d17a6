"""What the bot sandbox (arena/sandbox.py) costs: per bot start and per call to the service.

    python3 benchmarks/sandbox_overhead.py [--starts 20] [--calls 2000]

1. Start: from launching a trivial Python bot to its first line on stdout, unsandboxed
   and in its sandbox (copy of its folder, bwrap, prlimit, the pids cgroup where the
   host allows one), alternated; the sandbox's copy is of the shipped python_stdio bot.
2. Per decision: a GetView round trip (the call a bot makes most, with SubmitDecision)
   straight to the service over TCP, and through the ServiceDoor's Unix socket as a
   sandboxed gRPC bot makes it, alternated in one run against one embedded service.
Prints medians and the difference; needs bwrap (apt-get install bubblewrap).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arena.limits import Limits
from arena.sandbox import Layout, Sandbox, environment, service_door, unavailable_reason
from service.client import CuriaClient
from service.redis_server import EmbeddedRedis
from service.server import BackgroundServer

REPO = Path(__file__).resolve().parents[1]
BOT_FOLDER = REPO / "bots" / "python_stdio"
HELLO = [sys.executable, "-c", "print('ready', flush=True)"]


def first_line_ms(command: list[str], env: dict[str, str] | None = None) -> float:
    """Milliseconds from launch to the first line on stdout."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                               env=env, cwd=BOT_FOLDER)
    assert process.stdout is not None
    process.stdout.readline()
    elapsed = (time.perf_counter() - start) * 1000
    process.wait()
    return elapsed


def sandboxed_start_ms(layout: Layout) -> float:
    start = time.perf_counter()
    box = Sandbox(layout, BOT_FOLDER)
    try:
        command = box.command(HELLO, Limits(), setenv=environment(sys.executable, {}))
        copy_ms = (time.perf_counter() - start) * 1000
        return copy_ms + first_line_ms(command, env={})
    finally:
        box.close()


def starts(count: int) -> tuple[list[float], list[float]]:
    layout = Layout.for_run([])
    plain, boxed = [], []
    for _ in range(count):
        plain.append(first_line_ms(HELLO))
        boxed.append(sandboxed_start_ms(layout))
    return plain, boxed


def call_us(client: CuriaClient, game_id: str, calls: int) -> list[float]:
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        client.view(game_id)
        times.append((time.perf_counter() - start) * 1e6)
    return times


def calls(count: int) -> tuple[list[float], list[float]]:
    with tempfile.TemporaryDirectory() as data, EmbeddedRedis(Path(data)) as redis:
        server = BackgroundServer(redis.url)
        address = f"127.0.0.1:{server.start()}"
        try:
            with service_door(address) as door, CuriaClient(address) as direct, \
                    CuriaClient(f"unix:{door}") as forwarded:
                game_id = direct.create_game("leges", "standard", 2).game_id
                direct_us, door_us = [], []
                for _ in range(10):  # alternated blocks
                    direct_us += call_us(direct, game_id, count // 10)
                    door_us += call_us(forwarded, game_id, count // 10)
                return direct_us, door_us
        finally:
            server.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    if (reason := unavailable_reason()) is not None:
        print(f"no sandbox on this host: {reason}")
        return 1
    plain, boxed = starts(args.starts)
    print(f"bot start to first line, median of {args.starts}: unsandboxed "
          f"{statistics.median(plain):.1f} ms, sandboxed {statistics.median(boxed):.1f} ms "
          f"(+{statistics.median(boxed) - statistics.median(plain):.1f} ms per bot per game)")
    direct, door = calls(args.calls)
    print(f"GetView round trip, median of {args.calls}: direct TCP "
          f"{statistics.median(direct):.0f} us, through the sandbox's service door "
          f"{statistics.median(door):.0f} us "
          f"(+{statistics.median(door) - statistics.median(direct):.0f} us per call)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
