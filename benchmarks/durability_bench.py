"""What each append-only fsync policy of the embedded Redis costs, in decisions/s.

For each policy (`curia serve --appendfsync`), one `curia serve` process on a fresh
embedded Redis with that policy, under the same load (concurrent games of random legal
decisions, no think time): decisions/s and SubmitDecision latency percentiles.

    python3 benchmarks/durability_bench.py [--seconds 10] [--games 32] [--repeat 1] [--json]

`--repeat N` measures the policies in turn N times (always, everysec, always, ...) and
prints each policy's median: on a busy machine, neighbours' load then falls on both.
What each policy loses in a crash: benchmarks/crash_loss.py.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: the repository's packages are importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.service_bench import processes, serve_command  # noqa: E402
from client.loadtest import LoadSpec, run_load  # noqa: E402
from service.redis_server import APPENDFSYNC, EmbeddedRedis, free_port  # noqa: E402


def measure(policy: str, seconds: float, games: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as data, \
            EmbeddedRedis(Path(data), appendfsync=policy) as redis:
        port = free_port()
        with processes([serve_command(port, redis.url)], port):
            summary = run_load(LoadSpec(servers=[f"127.0.0.1:{port}"], games=games,
                                        duration=seconds, game="municipium", seats=3))
    return {"policy": policy, "decisions_per_s": summary["decisions_per_s"],
            "submit_ms": summary["latency_ms"].get("SubmitDecision", {})}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--games", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=1,
                        help="rounds of every policy in turn; medians reported")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    policies = [policy for policy in APPENDFSYNC if policy != "no"]
    runs = [measure(policy, args.seconds, args.games)
            for _ in range(max(1, args.repeat)) for policy in policies]
    rows = [median_row([r for r in runs if r["policy"] == policy])
            for policy in policies]
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    for row in rows:
        ms = row["submit_ms"]
        each = (f" (runs: {', '.join(f'{v:.0f}' for v in row['runs'])})"
                if len(row["runs"]) > 1 else "")
        print(f"appendfsync {row['policy']:8}: {row['decisions_per_s']:7.0f} decisions/s, "
              f"SubmitDecision p50 {ms.get('p50')} ms, p99 {ms.get('p99')} ms{each}")
    return 0


def median_row(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The median decisions/s, the latencies of the run nearest to it, every run's rate."""
    rates = [r["decisions_per_s"] for r in runs]
    median = statistics.median(rates)
    nearest = min(runs, key=lambda r: abs(r["decisions_per_s"] - median))
    return {**nearest, "decisions_per_s": median, "runs": rates}


if __name__ == "__main__":
    sys.exit(main())
