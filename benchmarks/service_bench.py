"""The game service measured against the ceiling of its own stack, on this machine.

In one run, with client and servers sharing the machine:
  (a) the bare ceiling: benchmarks/bare_service.py (grpc.aio, one Redis GET+SET per call)
      under C calls in flight;
  (b) the full service (`curia serve`) under the same client load: C concurrent games,
      each with one call in flight (`curia loadtest`'s players), no think time;
  and prints b/a as decisions/s against calls/s. Then (c) scale-out: 1, 2 and 4 service
  processes sharing one port (SO_REUSEPORT) on one Redis; (d) many games with think time
  (each deciding about once a second): decision latency percentiles; (e) the server
  CPU per decision against the CPU per bare call (benchmarks/cpu_per_decision.py); and
  (f) the bytes a finished and an in-progress game keep in Redis.

    python3 benchmarks/service_bench.py [--seconds 10] [--concurrency 64] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
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

if __package__ in (None, ""):  # run as a script: the repository's packages are importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from client.loadtest import LoadSpec, format_summary, percentiles, run_load  # noqa: E402
from service.redis_server import EmbeddedRedis, free_port  # noqa: E402
from service.store import keys  # noqa: E402

HERE = Path(__file__).resolve().parent
#: The game the load plays (3 seats, random legal decisions).
GAME = "municipium"
#: Seconds of the think-time run not counted: its games start over one think time, and
#: creating a thousand games at once is not the steady state being measured.
THINK_WARMUP_S = 5.0


def redis_env(redis_url: str) -> dict[str, str]:
    """The environment that gives a server process its Redis, password and all
    (CURIA_REDIS_URL): never its command line, which every local user can read."""
    return {**os.environ, "CURIA_REDIS_URL": redis_url}


@contextmanager
def processes(commands: list[list[str]], ready_port: int,
              env: dict[str, str] | None = None) -> Iterator[None]:
    """Start server processes and wait until the port accepts gRPC; stop them after."""
    started = [subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                env=env) for c in commands]
    try:
        channel = grpc.insecure_channel(f"127.0.0.1:{ready_port}")
        grpc.channel_ready_future(channel).result(timeout=30)
        channel.close()
        time.sleep(1.0 if len(commands) > 1 else 0.3)  # let every process bind
        yield
    finally:
        for process in started:
            process.terminate()
        for process in started:
            process.wait(timeout=15)


async def drive_bare(target: str, concurrency: int, seconds: float,
                     channels: int) -> dict[str, Any]:
    """C workers calling the bare service in a loop; calls/s and latency."""
    chans = [grpc.aio.insecure_channel(target) for _ in range(channels)]
    calls = [c.unary_unary("/curia.bench.Bare/Call") for c in chans]
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds

    async def worker(n: int) -> None:
        call = calls[n % len(calls)]
        key = f"k{n}".encode()
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            await call(key, timeout=30)
            latencies.append(time.perf_counter() - started)

    began = time.perf_counter()
    await asyncio.gather(*(worker(n) for n in range(concurrency)))
    elapsed = time.perf_counter() - began
    for c in chans:
        await c.close()
    return {"calls": len(latencies), "calls_per_s": round(len(latencies) / elapsed, 1),
            "latency_ms": percentiles(latencies)}


def serve_command(port: int) -> list[str]:
    """`curia serve` on `port`; its Redis comes from its environment (`redis_env`)."""
    return [sys.executable, "-m", "curia", "serve", "--port", str(port), "--host",
            "127.0.0.1", "--log-level", "WARNING"]


def bench(seconds: float, concurrency: int, think_games: int) -> dict[str, Any]:
    report: dict[str, Any] = {"machine": f"{os.cpu_count()} cores, Python "
                                         f"{sys.version.split()[0]}",
                              "seconds": seconds, "concurrency": concurrency}
    with tempfile.TemporaryDirectory() as data, EmbeddedRedis(data) as redis:
        port = free_port()
        bare = [sys.executable, str(HERE / "bare_service.py"), "--port", str(port)]
        with processes([bare], port, redis_env(redis.url)):
            report["bare"] = asyncio.run(drive_bare(f"127.0.0.1:{port}", concurrency,
                                                    seconds, channels=8))
        report["full"] = {}
        for count in (1, 2, 4):
            port = free_port()
            with processes([serve_command(port)] * count, port, redis_env(redis.url)):
                report["full"][count] = run_load(LoadSpec(
                    servers=[f"127.0.0.1:{port}"], games=concurrency, duration=seconds,
                    channels=8 * count, game=GAME))
        bare_rate = report["bare"]["calls_per_s"]
        # a decision is not a call: count what the service is for
        report["ratio_full_to_bare"] = round(report["full"][1]["decisions_per_s"] / bare_rate,
                                             3)
        report["memory"] = memory_figures(redis.url)
        report["cpu"] = cpu_figures(redis, seconds, min(concurrency, 32))
        report["think"] = think_run(redis, think_games, seconds * 2)
    return report


def memory_figures(redis_url: str, sample: int = 200) -> dict[str, Any]:
    """Bytes in Redis per game (MEMORY USAGE of every key of the game), finished and in
    progress, over up to `sample` games of each kind left by the runs."""
    import redis as sync_redis

    client = sync_redis.Redis.from_url(redis_url)
    found: dict[str, list[tuple[int, int]]] = {"finished": [], "in_progress": []}
    for key in client.scan_iter(match="curia:{*}:game", count=1000):
        status = (client.hget(key, "status") or b"").decode()
        if status not in found or len(found[status]) >= sample:
            continue
        game_id = key.decode()[len("curia:{"):-len("}:game")]
        size = sum(client.memory_usage(k, samples=0) or 0 for k in keys(game_id))
        found[status].append((size, int(client.hget(key, "version") or 0)))
    client.close()
    return {status: {"games": len(rows),
                     "mean_bytes": round(sum(b for b, _ in rows) / max(len(rows), 1)),
                     "max_bytes": max((b for b, _ in rows), default=0),
                     "mean_version": round(sum(v for _, v in rows) / max(len(rows), 1))}
            for status, rows in found.items()}


def think_run(redis: EmbeddedRedis, games: int, seconds: float) -> dict[str, Any]:
    """`games` games deciding about once a second each on one service process: the load's
    summary after the warm-up, with the server's CPU per decision over the same span."""
    from benchmarks.cpu_per_decision import cpu_seconds, server

    port = free_port()
    with server(serve_command(port), port, redis_env(redis.url)) as pid:
        marks: list[float] = []
        summary = run_load(LoadSpec(
            servers=[f"127.0.0.1:{port}"], games=games, duration=seconds, think_ms=1000,
            channels=32, game=GAME, warmup=THINK_WARMUP_S,
            on_counting=lambda: marks.append(cpu_seconds(pid))))
        used = cpu_seconds(pid) - marks[0]
    summary["cpu_us_per_decision"] = round(used / max(summary["decisions"], 1) * 1e6)
    return summary


def cpu_figures(redis: EmbeddedRedis, seconds: float, concurrency: int) -> dict[str, Any]:
    """Server CPU per bare call and per decision (benchmarks/cpu_per_decision.py)."""
    from benchmarks.cpu_per_decision import measure_bare, measure_service

    bare = measure_bare(redis.url, seconds, concurrency)
    full = measure_service(redis, seconds, concurrency)
    return {"bare": bare, "full": full,
            "ratio": round(full["cpu_us_per_decision"] / bare["cpu_us_per_call"], 2)}


def print_report(report: dict[str, Any]) -> None:
    bare = report["bare"]
    print(f"machine: {report['machine']}; {report['seconds']} s per run, "
          f"{report['concurrency']} calls in flight")
    print(f"(a) bare ceiling (grpc.aio + one Redis GET+SET): {bare['calls_per_s']:.0f} calls/s,"
          f" p50 {bare['latency_ms']['p50']} ms, p99 {bare['latency_ms']['p99']} ms")
    for count, summary in report["full"].items():
        print(f"(b/c) full service, {count} process(es): {summary['calls_per_s']:.0f} calls/s, "
              f"{summary['decisions_per_s']:.0f} decisions/s, "
              f"{summary['games_per_s']:.1f} games/s")
    print(f"decisions/s of the full service (1 process) / calls/s of the bare one: "
          f"{report['ratio_full_to_bare']:.2f}")
    cpu = report["cpu"]
    print(f"(e) server CPU: {cpu['full']['cpu_us_per_decision']} µs per decision against "
          f"{cpu['bare']['cpu_us_per_call']} µs per bare call: {cpu['ratio']:.2f}x "
          f"(aim <= 1.0x); Redis {cpu['full']['redis_cpu_us_per_decision']} µs per decision")
    for status, figures in report["memory"].items():
        print(f"(f) Redis memory per {status.replace('_', ' ')} game: "
              f"{figures['mean_bytes'] / 1024:.1f} KB on average, "
              f"{figures['max_bytes'] / 1024:.1f} KB at most ({figures['games']} games, "
              f"{figures['mean_version']} decisions on average)"
              + (" (aim <= 8 KB)" if status == "finished" else ""))
    print("\nfull service, 1 process:\n" + format_summary(report["full"][1]))
    think = report["think"]
    submit = think["latency_ms"].get("SubmitDecision", {})
    print(f"\n(d) {think_games_of(report)} games, ~1 decision/s each (think time 1 s), "
          f"1 process, after {THINK_WARMUP_S:.0f} s of warm-up: "
          f"{think['decisions_per_s']:.0f} decisions/s, SubmitDecision p99 "
          f"{submit.get('p99')} ms (target < 50 ms); server CPU "
          f"{think['cpu_us_per_decision']} µs per decision\n" + format_summary(think))


def think_games_of(report: dict[str, Any]) -> int:
    return int(report.get("think_games", 0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--think-games", type=int, default=1000)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    report = bench(options.seconds, options.concurrency, options.think_games)
    report["think_games"] = options.think_games
    if options.json:
        print(json.dumps(report, indent=1))
    else:
        print_report(report)


if __name__ == "__main__":
    main()
