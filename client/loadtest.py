"""`curia loadtest`: many concurrent games against running servers, with latency figures.

Each game is driven by one asyncio task holding all its seats' tokens: read the mover's
view (GetView) unless the last reply already brought it (the same seat decides again),
think (optional), submit a random legal decision (SubmitDecision), until the game ends;
then it starts a new game while time remains. Views are asked without their observation
(the players read only the legal decisions). GetView and SubmitDecision go over one
Session stream per task (the recommended path for clients that decide often), or as
unary calls with `unary=True`. Streams and calls spread over several channels (HTTP/2
connections) and servers. Figures: decisions/s, games/s, latency percentiles per call,
errors by status code.

A server that goes away during the run (killed, its host gone) fails the calls of the
games it served, counted by their status code (UNAVAILABLE) as any failure is: a Session
stream that ended between two calls is not written to again (grpc.aio would raise
InvalidStateError), and a player whose call found no server waits RETRY_PAUSE_S before the
next one (no spinning on a dead channel). The run still ends at its time with its figures,
which name the servers that could not be reached at the end (`servers_gone`).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import grpc

import games
from client.channels import ClientSecurity, open_aio_channel
from curia_api.v1 import game_service_pb2 as pb
from curia_api.v1 import game_service_pb2_grpc as pb_grpc

FINISHED = pb.GAME_STATUS_FINISHED
#: The load's players read only the legal decisions: views without the observation.
NO_OBSERVATION = pb.OBSERVATION_ENCODING_NONE


@dataclass
class LoadSpec:
    """What to drive."""

    servers: list[str]
    games: int = 50
    duration: float = 10.0
    think_ms: float = 0.0
    channels: int = 8
    game: str = ""  # "": the default game (games.default_game)
    variant: str = ""  # "": the game's first variant
    seats: int = 3
    seed: int = 1
    max_games: int | None = None
    options: dict[str, int] = field(default_factory=dict)
    #: GetView and SubmitDecision as unary calls instead of on a Session stream.
    unary: bool = False
    #: Seconds played before `duration` whose calls are not counted (games starting).
    warmup: float = 0.0
    #: Called when the warm-up ends (e.g. to read a server's CPU time from there on).
    on_counting: Callable[[], None] | None = None
    #: Play as the shipped bots do: a player per seat following its WatchGame stream and
    #: submitting with unary calls (instead of one driver asking views for every seat).
    watch: bool = False


#: The Session call (SessionRequest's oneof case) of each method.
SESSION_CALLS = {"GetView": "get_view", "SubmitDecision": "submit_decision"}
#: gRPC status codes by number (a Session's refusal carries the number).
STATUS_CODES = {code.value[0]: code for code in grpc.StatusCode}
#: Seconds a player waits after a call answered UNAVAILABLE (no server, or its store
#: away) before its next call.
RETRY_PAUSE_S = 0.1
#: Seconds a server has to accept a new connection at the end of a run that met
#: UNAVAILABLE, before it is reported gone.
REACH_TIMEOUT_S = 2.0


class Refused(Exception):
    """A call refused on a Session stream, with its status code."""

    def __init__(self, method: str, code: grpc.StatusCode) -> None:
        super().__init__(method)
        self.code = code


class SessionBroken(Exception):
    """A Session stream that ended or answered out of turn."""


class StreamEnded(Exception):
    """A Session stream that had already ended (e.g. its server went away between two
    calls) when a call was to be written on it, with the status it ended with."""

    def __init__(self, method: str, code: grpc.StatusCode) -> None:
        super().__init__(method)
        self.code = code


class SessionCaller:
    """One worker's Session stream, opened when first needed and again after it broke:
    `call` sends one request and reads its reply (one call in flight per stream)."""

    def __init__(self, stubs: Any) -> None:
        self.stubs = stubs
        self.stream: Any = None
        self.tags = itertools.count(1)

    async def call(self, method: str, request: Any) -> Any:
        """The reply; raises Refused, SessionBroken, StreamEnded or
        grpc.aio.AioRpcError (the last two drop the stream: the next call opens one)."""
        if self.stream is None:
            self.stream = next(self.stubs).Session()
        stream = self.stream
        if stream.done():  # ended since the last call: writing would raise
            self.stream = None
            raise StreamEnded(method, await stream.code())
        tag = next(self.tags)
        try:
            await stream.write(pb.SessionRequest(tag=tag, **{SESSION_CALLS[method]: request}))
            reply = await stream.read()
        except grpc.aio.AioRpcError:
            self.stream = None
            raise
        except asyncio.InvalidStateError:  # (ended while the write waited)
            self.stream = None
            raise StreamEnded(method, await stream.code()) from None
        if reply is grpc.aio.EOF or reply.tag != tag:
            self.close()
            raise SessionBroken(method)
        if reply.WhichOneof("reply") == "refused":
            raise Refused(method, STATUS_CODES.get(reply.refused.code,
                                                   grpc.StatusCode.UNKNOWN))
        return getattr(reply, SESSION_CALLS[method])

    def close(self) -> None:
        if self.stream is not None:
            self.stream.cancel()
            self.stream = None


@dataclass
class Stats:
    """Latencies per RPC (seconds), errors by code, and counts."""

    latency: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    decisions: int = 0
    games_finished: int = 0
    started: float = 0.0
    ended: float = 0.0
    #: Servers that could not be reached at the end of a run that met UNAVAILABLE.
    servers_gone: list[str] = field(default_factory=list)

    def counting(self) -> bool:
        """Past the warm-up: what happens now is counted (`started` is its end)."""
        return time.perf_counter() >= self.started

    def timed(self, method: str, seconds: float) -> None:
        if self.counting():
            self.latency[method].append(seconds)

    def decided(self) -> None:
        if self.counting():
            self.decisions += 1

    def finished(self) -> None:
        if self.counting():
            self.games_finished += 1

    @property
    def elapsed(self) -> float:
        return max(self.ended - self.started, 1e-9)

    def summary(self) -> dict[str, Any]:
        calls = sum(len(v) for v in self.latency.values())
        return {
            "seconds": round(self.elapsed, 3),
            "decisions": self.decisions, "decisions_per_s": round(self.decisions / self.elapsed, 1),
            "games_finished": self.games_finished,
            "games_per_s": round(self.games_finished / self.elapsed, 2),
            "calls": calls, "calls_per_s": round(calls / self.elapsed, 1),
            "latency_ms": {m: percentiles(v) for m, v in sorted(self.latency.items())},
            "errors": dict(sorted(self.errors.items())),
            "servers_gone": list(self.servers_gone),
        }

    def unavailable(self) -> bool:
        """Whether some call found no server (or no store) on its way."""
        return any(key.endswith(":UNAVAILABLE") for key in self.errors)


def percentiles(samples: list[float]) -> dict[str, float]:
    """p50 / p95 / p99 / max in milliseconds (nearest rank)."""
    if not samples:
        return {}
    ordered = sorted(samples)

    def rank(q: float) -> float:
        return round(1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)

    return {"count": len(ordered), "p50": rank(0.50), "p95": rank(0.95), "p99": rank(0.99),
            "max": round(1000 * ordered[-1], 2)}


class Driver:
    """Runs the load: `await Driver(spec).run()` returns the Stats."""

    def __init__(self, spec: LoadSpec) -> None:
        self.spec = spec
        self.stats = Stats()
        self.security = ClientSecurity()
        self.channels: list[grpc.aio.Channel] = []
        self.stubs: Any = None
        self.deadline = 0.0
        self.game_numbers = itertools.count()

    async def call(self, method: str, request: Any,
                   session: SessionCaller | None = None) -> Any:
        """One call, timed: on the worker's Session stream when it has one, else a unary
        RPC on the next channel; None (and counted) if it fails."""
        started = time.perf_counter()
        try:
            if session is not None and method in SESSION_CALLS:
                response = await session.call(method, request)
            else:
                stub = next(self.stubs)
                metadata = self.security.admin_metadata() if method == "CreateGame" else ()
                response = await getattr(stub, method)(request, timeout=30,
                                                       metadata=metadata)
        except grpc.aio.AioRpcError as error:
            return await self.failed(method, error.code())
        except (Refused, StreamEnded) as refused:
            return await self.failed(method, refused.code)
        except SessionBroken:
            self.stats.errors[f"{method}:SESSION_BROKEN"] += 1
            return None
        self.stats.timed(method, time.perf_counter() - started)
        return response

    async def failed(self, method: str, code: grpc.StatusCode) -> None:
        """Count a failed call by its code; after UNAVAILABLE, pause before the next."""
        self.stats.errors[f"{method}:{code.name}"] += 1
        if code == grpc.StatusCode.UNAVAILABLE:
            await asyncio.sleep(RETRY_PAUSE_S)

    async def run(self) -> Stats:
        spec = self.spec
        self.security = ClientSecurity.from_env()
        self.channels = [open_aio_channel(spec.servers[i % len(spec.servers)], self.security)
                         for i in range(max(spec.channels, len(spec.servers)))]
        self.stubs = itertools.cycle([pb_grpc.GameServiceStub(c)  # type: ignore[no-untyped-call]
                                      for c in self.channels])
        # figures count from the warm-up's end
        self.stats.started = time.perf_counter() + spec.warmup
        self.deadline = self.stats.started + spec.duration
        if spec.on_counting is not None:
            asyncio.get_running_loop().call_at(
                asyncio.get_running_loop().time() + spec.warmup, spec.on_counting)
        await asyncio.gather(*(self.play_games(worker) for worker in range(self.spec.games)))
        self.stats.ended = time.perf_counter()
        for channel in self.channels:
            await channel.close()
        if self.stats.unavailable():
            reached = await asyncio.gather(*(self.reachable(s) for s in spec.servers))
            self.stats.servers_gone = [s for s, ok in zip(spec.servers, reached, strict=True)
                                       if not ok]
        return self.stats

    async def reachable(self, server: str) -> bool:
        """Whether a new connection to the server gets ready in REACH_TIMEOUT_S."""
        channel = open_aio_channel(server, self.security)
        try:
            await asyncio.wait_for(channel.channel_ready(), REACH_TIMEOUT_S)
            return True
        except TimeoutError:
            return False
        finally:
            await channel.close()

    def more_games(self) -> bool:
        if time.perf_counter() >= self.deadline:
            return False
        cap = self.spec.max_games
        return cap is None or next(self.game_numbers) < cap

    async def play_games(self, worker: int) -> None:
        rng = random.Random(self.spec.seed * 100_003 + worker)
        if self.spec.think_ms:  # spread the starts over one think time
            await asyncio.sleep(rng.random() * self.spec.think_ms / 1000)
        session = None if self.spec.unary else SessionCaller(self.stubs)
        try:
            while self.more_games():
                await self.play_one(rng, session)
        finally:
            if session is not None:
                session.close()

    async def play_one(self, rng: random.Random, session: SessionCaller | None) -> None:
        spec = self.spec
        created = await self.call("CreateGame", pb.CreateGameRequest(
            game=spec.game or games.default_game() or "", variant=spec.variant,
            num_seats=spec.seats,
            options=spec.options, seed=rng.getrandbits(62)))
        if created is None:
            await asyncio.sleep(0.1)
            return
        tokens = {c.seat: c.token for c in created.seats}
        if spec.watch:
            await self.play_watching(created.game_id, tokens, rng)
        else:
            await self.play_asking(created.game_id, tokens, rng, session)

    async def think(self, rng: random.Random) -> bool:
        """Wait the think time; False when no decision would land before the end (the
        player then waits out the run: starting a new game instead would only churn
        CreateGame calls at the end)."""
        if not self.spec.think_ms:
            return True
        pause = rng.expovariate(1000 / self.spec.think_ms)
        if time.perf_counter() + pause >= self.deadline:
            await asyncio.sleep(max(0.0, self.deadline - time.perf_counter()))
            return False
        await asyncio.sleep(pause)
        return True

    async def decide(self, game_id: str, token: str, view: pb.View, rng: random.Random,
                     session: SessionCaller | None = None) -> pb.View | None:
        """Submit a random legal decision; the reply's view (None if refused)."""
        choice = rng.choice(view.legal_decisions)
        answer = await self.call("SubmitDecision", pb.SubmitDecisionRequest(
            game_id=game_id, seat_token=token, expected_version=view.version,
            decision=pb.Decision(notation=choice.notation),
            request_id=f"{view.seat}-{view.version}", observation_encoding=NO_OBSERVATION),
            session)
        if answer is None:
            return None
        self.stats.decided()
        after: pb.View = answer.view
        return after

    async def play_asking(self, game_id: str, tokens: dict[int, str], rng: random.Random,
                          session: SessionCaller | None) -> None:
        """One driver for every seat: ask the mover's view, decide, repeat."""
        mover = None
        ready: pb.View | None = None  # the mover's view, when a reply already brought it
        while time.perf_counter() < self.deadline:
            view = ready or await self._view(game_id, tokens, mover, session)
            ready = None
            if view is None:
                continue
            if view.status == FINISHED:
                self.stats.finished()
                return
            if not await self.think(rng):
                return
            after = await self.decide(game_id, tokens[view.seat], view, rng, session)
            if after is not None:
                if after.status == FINISHED:
                    self.stats.finished()
                    return
                mover = after.to_move[0]
                if after.legal_decisions:  # the same seat decides again: one RPC
                    ready = after

    async def play_watching(self, game_id: str, tokens: dict[int, str],
                            rng: random.Random) -> None:
        """As the shipped bots play: a player per seat following its WatchGame stream and
        submitting with unary calls."""
        seats = [asyncio.ensure_future(self.follow_seat(game_id, token, rng))
                 for token in tokens.values()]
        try:
            ended = await asyncio.wait_for(asyncio.gather(*seats),
                                           max(0.0, self.deadline - time.perf_counter()) + 1.0)
        except TimeoutError:
            return  # the run ended with the game in progress
        if any(ended):  # (not when the streams failed, e.g. their server went away)
            self.stats.finished()

    async def follow_seat(self, game_id: str, token: str, rng: random.Random) -> bool:
        """Decide on each view of the seat's stream that lists legal decisions, once per
        version (the reply of a decision may bring the next one first); whether the
        stream showed the game's end."""
        decided = -1
        over = False
        stream = next(self.stubs).WatchGame(pb.WatchGameRequest(
            game_id=game_id, seat_token=token, observation_encoding=NO_OBSERVATION))
        try:
            async for message in stream:
                view: pb.View | None = message.view
                over = over or message.view.status == FINISHED
                while (view is not None and view.status != FINISHED
                       and view.legal_decisions and view.version > decided):
                    if not await self.think(rng):
                        return over
                    decided = view.version
                    view = await self.decide(game_id, token, view, rng)
        except grpc.aio.AioRpcError as error:
            await self.failed("WatchGame", error.code())
        finally:
            stream.cancel()
        return over

    async def _view(self, game_id: str, tokens: dict[int, str], mover: int | None,
                    session: SessionCaller | None) -> pb.View | None:
        if mover is None:  # first look: as a spectator, to learn who moves
            answer = await self.call("GetView", pb.GetViewRequest(
                game_id=game_id, observation_encoding=NO_OBSERVATION), session)
            if answer is None:
                return None
            spectator: pb.View = answer.view
            if spectator.status == FINISHED:
                return spectator
            mover = spectator.to_move[0]
        answer = await self.call("GetView", pb.GetViewRequest(
            game_id=game_id, seat_token=tokens[mover], observation_encoding=NO_OBSERVATION),
            session)
        if answer is None:
            return None
        view: pb.View = answer.view
        return view


def run_load(spec: LoadSpec) -> dict[str, Any]:
    """Drive the load; the summary as plain data."""
    stats = asyncio.run(Driver(spec).run())
    return stats.summary()


def format_summary(summary: dict[str, Any]) -> str:
    """An aligned table of the summary."""
    lines = [f"{summary['seconds']:.1f} s: {summary['decisions']} decisions "
             f"({summary['decisions_per_s']:.0f}/s), {summary['games_finished']} games "
             f"finished ({summary['games_per_s']:.2f}/s), {summary['calls']} calls "
             f"({summary['calls_per_s']:.0f}/s)",
             f"{'rpc':<16}{'count':>8}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'max ms':>9}"]
    for method, p in summary["latency_ms"].items():
        lines.append(f"{method:<16}{p['count']:>8}{p['p50']:>9.2f}{p['p95']:>9.2f}"
                     f"{p['p99']:>9.2f}{p['max']:>9.2f}")
    errors = summary["errors"]
    lines.append("errors: " + (", ".join(f"{k} {v}" for k, v in errors.items()) or "none"))
    for server in summary.get("servers_gone", ()):
        lines.append(f"server {server} went away: not reachable at the end of the run "
                     f"(its games' calls count above as UNAVAILABLE)")
    return "\n".join(lines)


def main_json(summary: dict[str, Any]) -> str:
    return json.dumps(summary, indent=1, sort_keys=True)
