"""Server CPU per decision, against the CPU of one bare gRPC + Redis call.

Both servers run as processes on one embedded Redis and are measured alternately in one
run: the server process's CPU time (user + system, from /proc/PID/stat) over the load,
divided by what it served. The bare server (benchmarks/bare_service.py: grpc.aio, one
Redis GET and SET of 2 KB per call) is the ceiling of the stack; the full service is driven
by `curia loadtest`'s players (views without the observation; GetView only when another
seat must decide next), on Session streams, then with unary calls, then as the shipped
bots played before Play (a player per seat following WatchGame, submitting with unary
calls), then as the shipped bots play (one Play stream per bot carrying all its games,
each turn with its JSON observation: benchmarks/play_driver.py; the league agent that
matches them runs as a process of its own, its CPU reported apart), and the same without
observations. A child that ignores SIGTERM is killed after STOP_GRACE_S. The Redis is
emptied before each path: games a path left in progress would be swept while the next
one is measured.
The Redis syncs its append-only file every second (`--appendfsync everysec`) and never
rewrites it during the run: with a sync per write (`always`, `curia serve`'s default) the
disk's latency, which varies from one moment to the next on a shared machine, moved every
figure, the bare call's included, by up to 40 % between rounds.

    python3 benchmarks/cpu_per_decision.py [--seconds 10] [--concurrency 32] [--rounds 2]
                                           [--appendfsync everysec]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc
from redis import Redis

if __package__ in (None, ""):  # run as a script: the repository's packages are importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.play_driver import drive_play  # noqa: E402
from benchmarks.service_bench import HERE, drive_bare, redis_env, serve_command  # noqa: E402
from client.loadtest import LoadSpec, run_load  # noqa: E402
from curia_api.v1 import game_service_pb2 as pb  # noqa: E402
from service.redis_server import APPENDFSYNC, EmbeddedRedis, free_port  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")
#: The Redis rewrites no append-only file during the run (a rewrite forks a child that
#: competes for the two cores at a moment nobody chose).
NO_REWRITE = ("--auto-aof-rewrite-percentage", "0")
#: Seconds a child has to end after SIGTERM before it is killed.
STOP_GRACE_S = 15.0
#: The paths measured: (name, how): how is "session", "unary", "watch", or the Play
#: stream's observation encoding.
PATHS: tuple[tuple[str, Any], ...] = (
    ("Session streams", "session"),
    ("unary calls", "unary"),
    ("WatchGame per seat, unary decisions", "watch"),
    ("bots' path: one Play stream per bot, JSON observations",
     pb.OBSERVATION_ENCODING_JSON),
    ("one Play stream per bot, no observations", pb.OBSERVATION_ENCODING_NONE),
)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (/proc/PID/stat fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


@contextmanager
def server(command: list[str], port: int, env: dict[str, str] | None = None
           ) -> Iterator[int]:
    """A server process, ready on `port`: its pid."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env=env)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            grpc.channel_ready_future(channel).result(timeout=30)
        time.sleep(0.3)
        yield process.pid
    finally:
        stop(process)


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL if the process has not ended within STOP_GRACE_S: a child
    that ignores SIGTERM neither stops the benchmark nor outlives it."""
    process.terminate()
    try:
        process.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def measure_bare(redis_url: str, seconds: float, concurrency: int, link: bool = False
                 ) -> dict[str, Any]:
    """The bare server's CPU per call: Redis through redis-py (the reference), or through
    the service's own pipelined connection (`link`)."""
    port = free_port()
    command = [sys.executable, str(HERE / "bare_service.py"), "--port", str(port),
               *(["--link"] if link else [])]
    with server(command, port, redis_env(redis_url)) as pid:
        before = cpu_seconds(pid)
        figures = asyncio.run(drive_bare(f"127.0.0.1:{port}", concurrency, seconds,
                                         channels=8))
        used = cpu_seconds(pid) - before
    return {"calls": figures["calls"], "cpu_us_per_call": round(used / figures["calls"] * 1e6)}


def measure_service(redis: EmbeddedRedis, seconds: float, concurrency: int,
                    unary: bool = False, watch: bool = False) -> dict[str, Any]:
    """The service under `curia loadtest`'s players: GetView and SubmitDecision on Session
    streams (the recommended path), as unary calls, or (`watch`) a player per seat
    following WatchGame and submitting with unary calls, as the shipped bots do."""
    port = free_port()
    assert redis.process is not None
    with server(serve_command(port), port, redis_env(redis.url)) as pid:
        before, redis_before = cpu_seconds(pid), cpu_seconds(redis.process.pid)
        summary = run_load(LoadSpec(servers=[f"127.0.0.1:{port}"], games=concurrency,
                                    duration=seconds, channels=8, game="municipium",
                                    seats=3, unary=unary, watch=watch))
        used = cpu_seconds(pid) - before
        redis_used = cpu_seconds(redis.process.pid) - redis_before
    decisions = max(summary["decisions"], 1)
    return {"decisions": decisions, "decisions_per_s": summary["decisions_per_s"],
            "cpu_us_per_decision": round(used / decisions * 1e6),
            "redis_cpu_us_per_decision": round(redis_used / decisions * 1e6),
            "submit_p99_ms": summary["latency_ms"].get("SubmitDecision", {}).get("p99")}


def measure_play(redis: EmbeddedRedis, seconds: float, concurrency: int,
                 encoding: int = pb.OBSERVATION_ENCODING_NONE) -> dict[str, Any]:
    """The service under league bots on Play streams (benchmarks/play_driver.py). The
    league agent (matchmaking, recording, the ladder) runs in a process of its own
    (`curia league run`, as beside `curia serve --no-league-agent`), so that the server's
    CPU is the bots' path (and the agent's CreateGame and GetView calls, as `curia
    loadtest` creates its games); the agent's own CPU is reported apart."""
    port = free_port()
    assert redis.process is not None
    target = f"127.0.0.1:{port}"
    with server([*serve_command(port), "--no-league-agent"], port,
                redis_env(redis.url)) as pid, \
            agent_process(target, redis.url) as agent:
        marks: dict[bool, tuple[float, float, float]] = {}

        def window(start: bool) -> None:
            marks[start] = (cpu_seconds(pid), cpu_seconds(redis.process.pid),
                            cpu_seconds(agent))
        summary = drive_play(target, redis.url, concurrency, seconds, on_window=window,
                             encoding=encoding)
    used, redis_used, agent_used = (after - before for before, after in
                                    zip(marks[True], marks[False], strict=True))
    decisions = max(summary["decisions"], 1)
    return {"decisions": decisions, "decisions_per_s": summary["decisions_per_s"],
            "cpu_us_per_decision": round(used / decisions * 1e6),
            "redis_cpu_us_per_decision": round(redis_used / decisions * 1e6),
            "agent_cpu_us_per_decision": round(agent_used / decisions * 1e6),
            "submit_p99_ms": None}


@contextmanager
def agent_process(target: str, redis_url: str) -> Iterator[int]:
    """`curia league run` against the server: its pid."""
    process = subprocess.Popen([sys.executable, "-m", "curia", "league", "run", "--server",
                                target], env=redis_env(redis_url),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield process.pid
    finally:
        stop(process)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=2, help="alternations of the two")
    parser.add_argument("--appendfsync", choices=APPENDFSYNC, default="everysec",
                        help="the Redis's fsync policy (default everysec: the servers' CPU "
                             "is measured, not the disk's; `always` is what `curia serve` "
                             "runs by default)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as data, EmbeddedRedis(
            data, appendfsync=args.appendfsync, extra_args=NO_REWRITE) as redis:
        for round_ in range(1, args.rounds + 1):
            bare = measure_bare(redis.url, args.seconds, args.concurrency)
            lean = measure_bare(redis.url, args.seconds, args.concurrency, link=True)
            print(f"round {round_}: bare {bare['cpu_us_per_call']} µs CPU per call "
                  f"(Redis through redis-py; through the service's pipelined link: "
                  f"{lean['cpu_us_per_call']} µs)", flush=True)
            for path, how in PATHS:
                full = measure_path(redis, how, args.seconds, args.concurrency)
                ratio = full["cpu_us_per_decision"] / bare["cpu_us_per_call"]
                print(f"  service, {path}: {full['cpu_us_per_decision']} µs CPU per "
                      f"decision ({full['decisions_per_s']:.0f} decisions/s, "
                      f"SubmitDecision p99 {full['submit_p99_ms']} ms): {ratio:.2f}x the "
                      f"bare call ({full['cpu_us_per_decision'] / lean['cpu_us_per_call']:.2f}x "
                      f"the linked one); Redis {full['redis_cpu_us_per_decision']} µs CPU "
                      f"per decision{agent_note(full)}", flush=True)
    return 0


def measure_path(redis: EmbeddedRedis, how: Any, seconds: float, concurrency: int
                 ) -> dict[str, Any]:
    emptied(redis)
    if how in ("session", "unary", "watch"):
        return measure_service(redis, seconds, concurrency, unary=how == "unary",
                               watch=how == "watch")
    return measure_play(redis, seconds, concurrency, encoding=how)


def emptied(redis: EmbeddedRedis) -> None:
    """Empty the Redis between two paths: the games a measured path left in progress
    would otherwise time out, and be swept, while the next path is measured."""
    with Redis.from_url(redis.url) as client:
        client.flushall()


def agent_note(figures: dict[str, Any]) -> str:
    """The league agent's CPU, where it ran apart."""
    agent = figures.get("agent_cpu_us_per_decision")
    return "" if agent is None else f"; the league agent (its own process) {agent} µs"


if __name__ == "__main__":
    sys.exit(main())
