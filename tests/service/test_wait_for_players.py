"""Games created with `wait_for_players`: no clock runs until every seat has made contact
(its first authenticated call), the last contact starts the game; over real gRPC channels,
two servers and a real redis-server."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import grpc
import pytest
import redis
from prometheus_client import REGISTRY

import games
from client.unary import CuriaClient
from curia_api.v1 import game_service_pb2 as pb
from curia_api.v1 import game_service_pb2_grpc as pb_grpc
from service.keeper import NOBODY_STARTED
from service.server import BackgroundServer
from service.store import keys
from tests.service.gameplay import Game, new_game

WAITING = pb.GAME_STATUS_WAITING_FOR_SEATS
IN_PROGRESS = pb.GAME_STATUS_IN_PROGRESS
FINISHED = pb.GAME_STATUS_FINISHED


@pytest.fixture
def store(redis_url: str) -> Iterator[redis.Redis]:
    with redis.Redis.from_url(redis_url) as connection:
        yield connection


def waiting_game(client: CuriaClient, seed: int, **kwargs: object) -> Game:
    return new_game(client, seed=seed, wait_for_players=True, on_timeout="forfeit",
                    **kwargs)


def contacts() -> float:
    """Contact scripts this process's servers have run so far."""
    return REGISTRY.get_sample_value("curia_redis_duration_seconds_count",
                                     {"operation": "contact"}) or 0.0


def session_view(server: str, game_id: str, token: str) -> pb.View:
    """One GetView on a Session stream."""
    with grpc.insecure_channel(server) as channel:
        stub = pb_grpc.GameServiceStub(channel)  # type: ignore[no-untyped-call]
        request = pb.SessionRequest(tag=1, get_view=pb.GetViewRequest(
            game_id=game_id, seat_token=token))
        reply = next(iter(stub.Session(iter([request]))))
    return reply.get_view.view


def test_no_clock_runs_until_the_last_seat_makes_contact(client: CuriaClient,
                                                         server: str) -> None:
    """Each kind of authenticated call is a contact (GetView, WatchGame, Session); a
    spectator's is not; the game starts at the last one, its first decider's deadline
    counted from then."""
    game = waiting_game(client, seed=81, decision_ms=300)
    spectator = client.view(game.game_id)
    assert spectator.status == WAITING and list(spectator.absent_seats) == [0, 1, 2]
    assert spectator.deadline_unix_ms == 0
    assert spectator.pending == "waiting for every seat to make contact"
    own = client.view(game.game_id, game.tokens[0])
    assert own.status == WAITING and not own.legal_decisions
    first = next(iter(client.watch(game.game_id, game.tokens[1])))
    assert list(first.view.absent_seats) == [2]
    time.sleep(0.8)  # beyond decision_ms: nothing may time out while a seat is awaited
    still = client.view(game.game_id)
    assert (still.status, still.version, list(still.forfeited_seats)) == (WAITING, 0, [])
    started_ms = time.time() * 1000
    last = session_view(server, game.game_id, game.tokens[2])
    assert last.status == IN_PROGRESS and not last.absent_seats
    view = client.view(game.game_id)
    assert view.status == IN_PROGRESS and not view.absent_seats
    assert started_ms + 250 <= view.deadline_unix_ms <= time.time() * 1000 + 300
    mover = view.to_move[0]
    assert client.view(game.game_id, game.tokens[mover]).legal_decisions


def test_a_refused_decision_is_a_contact_and_later_calls_cost_no_script(
        client: CuriaClient, store: redis.Redis) -> None:
    """A SubmitDecision while waiting is refused but marks the seat; a second call of the
    same seat runs no script, and a contact changes nothing else in the game's hash."""
    game = waiting_game(client, seed=82)
    key = keys(game.game_id)[0]
    before = store.hgetall(key)
    ran = contacts()
    with pytest.raises(grpc.RpcError) as caught:
        client.submit(game.game_id, game.tokens[1], 0, "setup temple")
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "waiting for every seat to make contact" in (caught.value.details() or "")
    assert contacts() == ran + 1
    after = store.hgetall(key)
    assert set(after) - set(before) == {b"present:1"}
    assert {k: v for k, v in after.items() if k != b"present:1"} == before
    for _ in range(3):
        client.view(game.game_id, game.tokens[1])
    next(iter(client.watch(game.game_id, game.tokens[1])))
    assert contacts() == ran + 1, "a seat already in contact runs no script"
    assert store.hgetall(key) == after
    assert list(client.view(game.game_id).absent_seats) == [0, 2]


def test_contacts_through_two_servers_at_once_start_the_game_once(
        client: CuriaClient, redis_url: str, server: str, store: redis.Redis) -> None:
    other = BackgroundServer(redis_url)
    second = f"127.0.0.1:{other.start()}"
    try:
        game = waiting_game(client, seed=83, decision_ms=5000)
        targets = [server, second]

        def knock(seat: int, turn: int) -> None:
            with CuriaClient(targets[(seat + turn) % 2]) as knocker:
                knocker.view(game.game_id, game.tokens[seat])

        threads = [threading.Thread(target=knock, args=(seat, turn))
                   for seat in range(3) for turn in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        view = client.view(game.game_id)
        assert view.status == IN_PROGRESS and view.version == 0 and not view.forfeited_seats
        marks = store.hmget(keys(game.game_id)[0], ["present:0", "present:1", "present:2"])
        assert all(marks)
    finally:
        other.stop()


def test_a_seat_that_resigns_before_the_start_is_not_awaited(client: CuriaClient) -> None:
    game = waiting_game(client, seed=84, options={"max_turns": 4})
    mover = games.new_game("municipium", "classic", 3, {"max_turns": 4}, 84).to_move()[0]
    for seat in set(range(3)) - {mover}:
        client.view(game.game_id, game.tokens[seat])
    resigned = client.resign(game.game_id, game.tokens[mover], "crashed: exit code 1")
    assert resigned.view.status == IN_PROGRESS
    view = client.view(game.game_id)
    assert list(view.forfeited_seats) == [mover] and not view.absent_seats
    assert view.version >= 1 and mover not in view.to_move, \
        "the server decided at once for the forfeited first mover"


def test_a_game_whose_every_seat_resigns_before_the_start_ends_without_a_result(
        client: CuriaClient) -> None:
    game = waiting_game(client, seed=85)
    client.view(game.game_id, game.tokens[0])
    for seat in range(3):
        answer = client.resign(game.game_id, game.tokens[seat], "void: a test")
    assert answer.view.status == FINISHED and answer.view.version == 0
    view = client.view(game.game_id)
    assert view.status == FINISHED and view.result.reason == NOBODY_STARTED
    assert [s.forfeit_reason for s in view.result.scores] == ["void: a test"] * 3
    assert client.record(game.game_id).decisions == []


def test_an_open_seat_of_such_a_game_is_awaited_until_joined_and_in_contact(
        client: CuriaClient) -> None:
    created = client.create_game("municipium", "revised", 2, seed=86, open_seats=(1,),
                                 wait_for_players=True)
    game_id, token = created.game_id, created.seats[0].token
    client.view(game_id, token)
    assert list(client.view(game_id).absent_seats) == [1]
    joined = client.join(game_id)
    assert client.view(game_id).status == WAITING, "joined, not yet in contact"
    client.view(game_id, joined.token)
    assert client.view(game_id).status == IN_PROGRESS


def test_a_game_without_the_field_starts_at_once(client: CuriaClient) -> None:
    game = new_game(client, seed=87, decision_ms=5000)
    view = client.view(game.game_id)
    assert view.status == IN_PROGRESS and view.deadline_unix_ms > 0 and not view.absent_seats
