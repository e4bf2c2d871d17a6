"""The Play stream through faults: a store rolled back onto a turn already answered (the
turn comes again), the stream's end statuses as docs/league.md promises them (revoked:
UNAUTHENTICATED, banned: PERMISSION_DENIED, replaced: ABORTED), and streams cut every way
without a task exception left unretrieved. A real Redis, a real service, real gRPC."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import queue
import random
import threading
import time
from collections.abc import Callable, Iterator

import grpc
import pytest

from client.unary import CuriaClient
from curia_api.metadata import REASON_KEY
from curia_api.v1 import game_service_pb2 as pb
from curia_api.v1 import game_service_pb2_grpc as pb_grpc
from league.agent import LeagueAgent
from service.leagues import league_key, seats_key, text
from service.server import BackgroundServer
from tests.leagues import GAME, World, new_league
from tests.service.test_rollback import roll_back, snapshot
from tests.timing import patient, wait_until

FINISHED = pb.GAME_STATUS_FINISHED


class Stream:
    """A Play stream driven by hand; every message kept until taken (none skipped)."""

    def __init__(self, target: str, credential: str, hello: pb.PlayHello) -> None:
        self.channel = grpc.insecure_channel(target)
        self.requests: queue.Queue[pb.PlayRequest | None] = queue.Queue()
        self.requests.put(pb.PlayRequest(hello=hello))
        stub = pb_grpc.GameServiceStub(self.channel)  # type: ignore[no-untyped-call]
        self.call = stub.Play(iter(self.requests.get, None),
                              metadata=(("authorization", f"Bearer {credential}"),))
        self.arrived: queue.Queue[pb.PlayResponse | grpc.RpcError | None] = queue.Queue()
        self.kept: list[pb.PlayResponse] = []
        self.error: grpc.RpcError | None = None
        self.over = False
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        try:
            for message in self.call:
                self.arrived.put(message)
            self.arrived.put(None)
        except grpc.RpcError as error:
            self.arrived.put(error)

    def take(self, wanted: Callable[[pb.PlayResponse], bool], timeout: float = 15.0,
             drop: Callable[[pb.PlayResponse], bool] = lambda _: False) -> pb.PlayResponse:
        """The first message `wanted` (those `drop` says are thrown away, others kept)."""
        deadline = time.monotonic() + patient(timeout)
        while True:
            for message in self.kept:
                if wanted(message):
                    self.kept.remove(message)
                    return message
            self.kept = [message for message in self.kept if not drop(message)]
            if self.over:
                raise AssertionError(f"the stream ended ({self.error!r}) without the message")
            try:
                got = self.arrived.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError("no such message came in time") from None
            if isinstance(got, pb.PlayResponse):
                self.kept.append(got)
            else:
                self.over, self.error = True, got

    def kind(self, kind: str, timeout: float = 15.0) -> pb.PlayResponse:
        return self.take(lambda message: message.WhichOneof("kind") == kind, timeout)

    def turn_at(self, version: int, timeout: float = 15.0) -> pb.View:
        """The turn at `version` (turns at other versions are thrown away)."""
        def is_turn(message: pb.PlayResponse) -> bool:
            return bool(message.WhichOneof("kind") == "turn")
        return self.take(lambda m: is_turn(m) and m.turn.version == version, timeout,
                         drop=is_turn).turn

    def end(self, timeout: float = 15.0) -> grpc.RpcError | None:
        """Wait for the stream's end: the status it ended with, None for OK (the messages
        before it are kept)."""
        deadline = time.monotonic() + patient(timeout)
        while not self.over:
            try:
                got = self.arrived.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError("the stream did not end in time") from None
            if isinstance(got, pb.PlayResponse):
                self.kept.append(got)
            else:
                self.over, self.error = True, got
        return self.error

    def ended_with(self, timeout: float = 15.0) -> grpc.RpcError:
        """The status other than OK the server ended the stream with."""
        error = self.end(timeout)
        assert error is not None, "the stream ended with OK"
        return error

    def answer(self, turn: pb.View, rng: random.Random) -> pb.PlayResponse:
        """Decide on `turn`; the ack or the refusal."""
        request_id = f"{turn.version}-{turn.lineage or '0'}"
        self.requests.put(pb.PlayRequest(decision=pb.PlayDecision(
            game_id=turn.game_id, decision=rng.choice(list(turn.legal_decisions)),
            expected_version=turn.version, expected_lineage=turn.lineage,
            request_id=request_id)))
        return self.take(lambda message: message.WhichOneof("kind") in ("ack", "refusal")
                         and (message.ack.request_id == request_id
                              or message.refusal.request_id == request_id))

    def close(self) -> None:
        self.requests.put(None)
        self.call.cancel()
        self.channel.close()


def reason_of(error: grpc.RpcError) -> str:
    return str(dict(error.trailing_metadata() or ()).get(REASON_KEY, ""))


def step(client: CuriaClient, game_id: str, seat: int, play: Stream,
         others: dict[int, str], rng: random.Random) -> pb.View | None:
    """One decision of the game (the stream's seat through its turn, any other seat by
    SubmitDecision); the spectator's view once the game is over."""
    view = client.view(game_id)
    if view.status == FINISHED:
        return view
    mover = seat if seat in view.to_move else view.to_move[0]
    if mover == seat:
        play.answer(play.turn_at(view.version), rng)  # a refusal (stale): read again
    else:
        own = client.view(game_id, others[mover])
        notation = rng.choice(list(own.legal_decisions)).notation
        client.submit(game_id, others[mover], own.version, notation,
                      lineage=own.lineage)
    return None


def rolled_back_onto_an_answered_turn(client: CuriaClient, redis: object, game_id: str,
                                      seat: int, play: Stream, others: dict[int, str],
                                      rng: random.Random) -> None:
    """Play until the seat answers a turn after which it is not to move, roll the store
    back onto that turn (its answer lost): the seat gets the turn again, at the same
    version and lineage, and the game is played to its end on the stream."""
    for _ in range(500):
        view = client.view(game_id)
        assert view.status != FINISHED, "the game ended before a turn to roll back onto"
        if seat not in view.to_move:
            step(client, game_id, seat, play, others, rng)
            continue
        turn = play.turn_at(view.version)
        saved = snapshot(redis, game_id)  # type: ignore[arg-type]
        reply = play.answer(turn, rng)
        assert reply.WhichOneof("kind") == "ack", reply
        after = client.view(game_id)
        if seat in after.to_move or after.status == FINISHED:
            continue  # its next turn follows at once: not the case under test
        roll_back(redis, saved)  # type: ignore[arg-type]
        assert client.view(game_id).version == turn.version
        again = play.turn_at(turn.version, timeout=10)
        assert (again.version, again.lineage) == (turn.version, turn.lineage)
        reply = play.answer(again, rng)  # the same request id: not known any more
        assert reply.WhichOneof("kind") == "ack" and not reply.ack.duplicate, reply
        break
    else:
        raise AssertionError("no turn to roll back onto")
    while step(client, game_id, seat, play, others, rng) is None:
        pass
    ended = play.kind("game_ended")
    assert ended.game_ended.game_id == game_id


@pytest.fixture
def client(world: World) -> Iterator[CuriaClient]:
    with CuriaClient(world.target) as connected:
        yield connected


# -- turns after a rollback -----------------------------------------------------------------
@contextlib.contextmanager
def two_bots_in_a_game(world: World, agent: LeagueAgent
                       ) -> Iterator[tuple[str, dict[str, Stream]]]:
    """A new league whose bots alpha and beta, on Play streams of their own, are seated
    in one game by the matchmaker: the league's name and the streams (closed after)."""
    league = new_league(world)
    keys = {bot: world.leagues.add_bot(league.name, bot) for bot in ("alpha", "beta")}
    streams = {bot: Stream(world.target, key, pb.PlayHello(concurrency=1))
               for bot, key in keys.items()}
    try:
        for stream in streams.values():
            stream.kind("welcome")
        wait_until(lambda: len(world.leagues.online(league.name)) == 2, 5,
                   message="both bots online")
        assert agent.start_games(world.leagues.settings(league.name)) == 1
        yield league.name, streams
    finally:
        for stream in streams.values():
            stream.close()


def test_a_league_bot_gets_its_turn_again_after_a_rollback_onto_it(
        world: World, agent: LeagueAgent, client: CuriaClient) -> None:
    with two_bots_in_a_game(world, agent) as (league, streams):
        started = streams["alpha"].kind("game_started").game_started
        game_id = started.game_id
        beta_seat = 1 - started.seat
        beta_token = world.redis.hget(seats_key(league, "beta"), game_id)
        assert beta_token is not None
        rolled_back_onto_an_answered_turn(client, world.redis, game_id, started.seat,
                                          streams["alpha"], {beta_seat: text(beta_token)},
                                          random.Random(3))


def test_a_league_bot_follows_again_a_game_a_rollback_un_ended(
        world: World, agent: LeagueAgent, client: CuriaClient) -> None:
    """The bot's stream saw its game end and the agent recorded it; the store rolls back
    to before the end (the game's keys and the bots' seats): the stream follows the game
    again, from its start message, and the seat plays on (never a forfeit)."""
    with two_bots_in_a_game(world, agent) as (league, streams):
        game_id = streams["alpha"].kind("game_started").game_started.game_id
        streams["beta"].kind("game_started")
        seats = [seats_key(league, bot) for bot in ("alpha", "beta")]
        saved = {**snapshot(world.redis, game_id),
                 **{key: world.redis.dump(key) for key in seats}}
        client.resign(game_id, text(world.redis.hget(seats[1], game_id)))
        assert streams["alpha"].kind("game_ended").game_ended.game_id == game_id
        agent.swept.clear()
        agent.record_finished(world.leagues.settings(league))
        assert [r["game_id"] for r in world.leagues.results(league)] == [game_id]
        assert not world.redis.hexists(seats[0], game_id)  # recorded: out of the seats
        roll_back(world.redis, saved)
        assert client.view(game_id).status == pb.GAME_STATUS_IN_PROGRESS
        again = streams["alpha"].kind("game_started", timeout=10).game_started
        assert again.game_id == game_id


def test_a_tournament_seat_gets_its_turn_again_after_a_rollback_onto_it(
        world: World, client: CuriaClient) -> None:
    created = client.create_game(GAME, "standard", 2, seed=8)
    tokens = {seat.seat: seat.token for seat in created.seats}
    play = Stream(world.target, tokens[0], pb.PlayHello(game_id=created.game_id))
    try:
        play.kind("welcome")
        rolled_back_onto_an_answered_turn(client, world.redis, created.game_id, 0, play,
                                          {1: tokens[1]}, random.Random(4))
        assert play.end() is None, play.error  # a seat's stream ends with its game
    finally:
        play.close()


# -- the stream's end statuses ----------------------------------------------------------
def connected(world: World) -> tuple[str, str, Stream]:
    league = new_league(world)
    key = world.leagues.add_bot(league.name, "alpha")
    stream = Stream(world.target, key, pb.PlayHello(concurrency=1))
    stream.kind("welcome")
    return league.name, key, stream


@pytest.mark.parametrize("how", ["revoke", "new_key"])
def test_revoking_a_connected_bots_key_ends_its_stream_unauthenticated(
        world: World, how: str) -> None:
    league, _, stream = connected(world)
    try:
        getattr(world.leagues, how)(league, "alpha")
        ended = stream.ended_with(timeout=10)
        assert ended.code() == grpc.StatusCode.UNAUTHENTICATED, ended
        assert reason_of(ended) == "bot_key"
    finally:
        stream.close()


def test_banning_a_connected_bot_ends_its_stream_permission_denied(world: World) -> None:
    league, _, stream = connected(world)
    try:
        world.leagues.ban(league, "alpha")
        ended = stream.ended_with(timeout=10)
        assert ended.code() == grpc.StatusCode.PERMISSION_DENIED, ended
        assert reason_of(ended) == "bot_banned"
    finally:
        stream.close()


def test_a_newer_stream_ends_the_older_aborted(world: World) -> None:
    league, key, older = connected(world)
    newer = Stream(world.target, key, pb.PlayHello(concurrency=1))
    try:
        newer.kind("welcome")
        ended = older.ended_with(timeout=10)
        assert ended.code() == grpc.StatusCode.ABORTED, ended
        assert reason_of(ended) == "replaced"
        assert world.leagues.online(league) == ["alpha"]
    finally:
        older.close()
        newer.close()


# -- streams cut every way --------------------------------------------------------------
def test_streams_cut_every_way_leave_no_task_exception_unretrieved(
        world: World, agent: LeagueAgent, client: CuriaClient,
        caplog: pytest.LogCaptureFixture) -> None:
    """Streams of a server of its own, cut by their clients mid-turn, half-closed, ended by
    the server (a seat's game over, a newer stream, a revoked key), some with a game
    watcher failing (its table unreadable); once the server has stopped and its tasks are
    collected, asyncio reported no exception left unretrieved."""
    caplog.set_level(logging.INFO)
    rng = random.Random(5)
    server = BackgroundServer(world.redis_url)
    target = f"127.0.0.1:{server.start()}"
    try:
        # a tournament's seats: each stream cancelled by its client (mid-turn for the
        # seat to move), then seat 0 played to the end on a stream the server ends
        created = client.create_game(GAME, "standard", 2, seed=9)
        tokens = {seat.seat: seat.token for seat in created.seats}
        for seat, token in tokens.items():
            cut = Stream(target, token, pb.PlayHello(game_id=created.game_id))
            cut.kind("welcome")
            if seat in client.view(created.game_id).to_move:
                cut.kind("turn")
            cut.close()
        play = Stream(target, tokens[0], pb.PlayHello(game_id=created.game_id))
        while step(client, created.game_id, 0, play, {1: tokens[1]}, rng) is None:
            pass
        play.kind("game_ended")
        assert play.end() is None, play.error
        play.close()
        # league streams: cancelled mid-turn, half-closed, replaced, revoked
        league = new_league(world).name
        keys = {bot: world.leagues.add_bot(league, bot) for bot in ("alpha", "beta")}
        streams = {bot: Stream(target, key, pb.PlayHello(concurrency=1))
                   for bot, key in keys.items()}
        for stream in streams.values():
            stream.kind("welcome")
        wait_until(lambda: len(world.leagues.online(league)) == 2, 5)
        assert agent.start_games(world.leagues.settings(league)) == 1
        seats = {bot: stream.kind("game_started").game_started for bot, stream
                 in streams.items()}
        to_move = client.view(seats["alpha"].game_id).to_move
        mover = next(bot for bot, started in seats.items() if started.seat in to_move)
        streams[mover].kind("turn")
        streams[mover].close()  # cancelled mid-turn
        other = streams["beta" if mover == "alpha" else "alpha"]
        other.requests.put(None)  # half-closed: the server ends the stream
        assert other.end() is None, other.error
        other.close()
        # the game's table unreadable: the watchers of the streams below fail
        world.redis.hset(league_key(league, "live"), seats["alpha"].game_id, "{")
        older = Stream(target, keys["alpha"], pb.PlayHello(concurrency=1))
        older.kind("welcome")
        newer = Stream(target, keys["alpha"], pb.PlayHello(concurrency=1))
        newer.kind("welcome")
        older.ended_with(timeout=10)  # replaced (its status: the tests above)
        world.leagues.revoke(league, "alpha")
        newer.ended_with(timeout=10)  # revoked
        older.close()
        newer.close()
        assert failed_tasks() == []
    finally:
        server.stop()
    assert failed_tasks() == []
    gc.collect()
    logged = caplog.text
    assert "Task exception was never retrieved" not in logged
    assert "Exception in callback" not in logged


def failed_tasks() -> list[str]:
    """The tasks of service/play.py that ended with an exception (each one asyncio logs as
    "Task exception was never retrieved" if nobody took it, once the task is collected,
    if ever: grpc's objects may keep it alive, so the log alone would not tell)."""
    found = []
    for task in list(asyncio.tasks._all_tasks):  # type: ignore[attr-defined]
        code = getattr(task.get_coro(), "cr_code", None)
        if task.done() and not task.cancelled() and task.exception() is not None and \
                code is not None and code.co_filename.endswith("service/play.py"):
            found.append(f"{code.co_qualname}: {task.exception()!r}")
    return found
