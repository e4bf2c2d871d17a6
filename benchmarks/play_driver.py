"""League bots on Play streams as a load: a league, its bots, each a stream answering every
turn with a random legal decision.

`drive_play` makes the league in the server's Redis, lets the server's own league agent
match the bots, counts the decisions applied (acks) during the measured window, and takes
the league out of the agents' sight afterwards.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import grpc
from redis import Redis

from curia_api.v1 import game_service_pb2 as pb
from curia_api.v1 import game_service_pb2_grpc as pb_grpc
from league.registry import Leagues, LeagueSettings
from service.leagues import LEAGUES_KEY


class Counter:
    """Decisions applied, and whether the window is open."""

    def __init__(self) -> None:
        self.acks = 0
        self.counting = False


async def bot(target: str, key: str, concurrency: int, counter: Counter, seed: int,
              stop: asyncio.Event, encoding: int) -> None:
    rng = random.Random(seed)
    outbox: asyncio.Queue[pb.PlayRequest | None] = asyncio.Queue()
    await outbox.put(pb.PlayRequest(hello=pb.PlayHello(
        concurrency=concurrency, observation_encoding=encoding)))

    async def requests() -> Any:
        while (request := await outbox.get()) is not None:
            yield request

    async with grpc.aio.insecure_channel(target) as channel:
        stub = pb_grpc.GameServiceStub(channel)  # type: ignore[no-untyped-call]
        call = stub.Play(requests(), metadata=(("authorization", f"Bearer {key}"),))
        reader = asyncio.create_task(_answer(call, outbox, counter, rng))
        await stop.wait()
        await outbox.put(None)
        call.cancel()
        reader.cancel()


async def _answer(call: Any, outbox: asyncio.Queue[pb.PlayRequest | None], counter: Counter,
                  rng: random.Random) -> None:
    async for message in call:
        kind = message.WhichOneof("kind")
        if kind == "turn":
            view = message.turn
            await outbox.put(pb.PlayRequest(decision=pb.PlayDecision(
                game_id=view.game_id, decision=rng.choice(view.legal_decisions),
                expected_version=view.version, expected_lineage=view.lineage,
                request_id=str(view.version))))
        elif kind == "ack" and counter.counting:
            counter.acks += 1


def drive_play(target: str, redis_url: str, games: int, seconds: float, game: str = "municipium",
               seats: int = 3, warmup: float = 3.0, on_window: Any = None,
               encoding: int = pb.OBSERVATION_ENCODING_NONE) -> dict[str, Any]:
    """Enough bots for `games` games at once (4 games each), played for `seconds` after a
    warm-up; `on_window(start: bool)` is called as the window opens and closes. The views
    come without the observation, as `curia loadtest`'s players read them (`encoding`:
    OBSERVATION_ENCODING_JSON, as the shipped bots read them)."""
    per_bot = 4
    count = max(seats + 1, -(-games * seats // per_bot))
    redis = Redis.from_url(redis_url)
    leagues = Leagues(redis)
    name = f"bench-{int(time.time() * 1000)}"
    leagues.create(LeagueSettings(name=name, game=game, seats=seats, decision_ms=60_000,
                                  concurrency=per_bot, max_concurrency=per_bot))
    keys = [leagues.add_bot(name, f"bot{i}") for i in range(count)]
    counter = Counter()

    async def run() -> float:
        stop = asyncio.Event()
        tasks = [asyncio.create_task(bot(target, key, per_bot, counter, i, stop, encoding))
                 for i, key in enumerate(keys)]
        await asyncio.sleep(warmup)
        if on_window:
            on_window(True)
        counter.counting, started = True, time.monotonic()
        await asyncio.sleep(seconds)
        counter.counting = False
        elapsed = time.monotonic() - started
        if on_window:
            on_window(False)
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        return elapsed

    try:
        elapsed = asyncio.run(run())
    finally:
        leagues.set_status(name, "closed")
        redis.srem(LEAGUES_KEY, name)
        redis.close()
    return {"decisions": counter.acks, "decisions_per_s": counter.acks / elapsed,
            "bots": count}
