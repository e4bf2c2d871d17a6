"""What recording one league result costs as the league grows: the agent's record (read the
pooled statistics and the lists' lengths, add the result, fit the ladder, one script), at
100, 1,000, 10,000 and 100,000 stored results, against a real redis-server. Beside it,
what the refit over every stored result (the ladder before pooled statistics) costs.

    python3 benchmarks/league_record_cost.py            # 8 bots, 4 seats
    python3 benchmarks/league_record_cost.py --bots 16 --seats 5 --sizes 1000 100000
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from redis import Redis  # noqa: E402

from curia_api.v1 import game_service_pb2 as pb  # noqa: E402
from league.agent import LeagueAgent  # noqa: E402
from league.ladder import ladder  # noqa: E402
from league.ladder import statistics as pooled_statistics
from league.registry import Leagues, read_results  # noqa: E402
from service.league_records import GameResult, LeagueSettings, LiveTable, league_key  # noqa: E402
from service.redis_server import EmbeddedRedis  # noqa: E402


def random_result(rng: random.Random, bots: Sequence[str], seats: int, index: int) -> GameResult:
    seating = rng.sample(list(bots), seats)
    order = rng.sample(range(seats), seats)
    return GameResult(f"old-{index}", seating, [[seat] for seat in order], ended_ms=index,
                      reason="target")


def prefill(redis: Redis, name: str, results: list[GameResult]) -> None:
    """A league with `results` stored, its statistics and one history entry."""
    key = league_key(name, "results")
    redis.delete(key, league_key(name, "pairstats"), league_key(name, "rated"),
                 league_key(name, "history"))
    pipe = redis.pipeline(transaction=False)
    for start in range(0, len(results), 5000):
        pipe.rpush(key, *(row.dumps() for row in results[start:start + 5000]))
    pipe.set(league_key(name, "pairstats"), json.dumps(pooled_statistics(results).to_json()))
    pipe.rpush(league_key(name, "history"), json.dumps({"game_id": "", "ms": 0, "ladder": []}))
    pipe.execute()


def finished_view(rng: random.Random, seats: int) -> pb.View:
    order = rng.sample(range(seats), seats)
    return pb.View(status=pb.GAME_STATUS_FINISHED, result=pb.GameResult(
        ranking=[pb.RankGroup(seats=[seat]) for seat in order], reason="target"))


def time_records(agent: LeagueAgent, settings: LeagueSettings, bots: Sequence[str],
                 rng: random.Random, count: int) -> float:
    """Median seconds per recorded result over `count` results."""
    times = []
    for index in range(count):
        table = LiveTable(seating=rng.sample(list(bots), settings.seats))
        view = finished_view(rng, settings.seats)
        started = time.perf_counter()
        assert agent.record(settings, f"new-{index}", table, view) == 1
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def time_full_refit(redis: Redis, name: str, count: int) -> float:
    """Median seconds to read and parse every result and fit the ladder from them."""
    times = []
    key = league_key(name, "results")
    for _ in range(count):
        started = time.perf_counter()
        ladder(read_results(key, redis.lrange(key, 0, -1)))
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10_000, 100_000])
    parser.add_argument("--records", type=int, default=50)
    parser.add_argument("--refit-up-to", type=int, default=10_000,
                        help="time the full refit only up to this many results")
    args = parser.parse_args(argv)
    bots = [f"bot{i:02d}" for i in range(args.bots)]
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as folder, EmbeddedRedis(Path(folder)) as store:
        redis = Redis.from_url(store.url)
        settings = Leagues(redis).create(LeagueSettings(name="bench", game="leges",
                                                        seats=args.seats))
        agent = LeagueAgent(redis, client=None, seed=1)  # type: ignore[arg-type]
        print(f"{args.bots} bots, {args.seats} seats; median of {args.records} results")
        print(f"{'stored results':>14}  {'record (ms)':>11}  {'full refit (ms)':>15}")
        for size in args.sizes:
            prefill(redis, "bench", [random_result(rng, bots, args.seats, i)
                                     for i in range(size)])
            record = time_records(agent, settings, bots, rng, args.records)
            refit = (f"{1000 * time_full_refit(redis, 'bench', 3):>15.1f}"
                     if size <= args.refit_up_to else f"{'(skipped)':>15}")
            print(f"{size:>14,}  {1000 * record:>11.2f}  {refit}", flush=True)
        redis.close()


if __name__ == "__main__":
    main()
