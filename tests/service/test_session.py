"""The Session stream (GetView and SubmitDecision on one stream), the caches that make a
decision cheap, and the Redis pools under many watchers: through real gRPC channels and a
real redis-server."""

from __future__ import annotations

import asyncio
import queue
from collections.abc import Iterator

import grpc
import pytest
import redis

from client.unary import CuriaClient
from curia_api.v1 import game_service_pb2 as pb
from curia_api.v1 import game_service_pb2_grpc as pb_grpc
from service.keeper import GameKeeper
from service.store import GameStore
from tests.timing import wait_until

NONE = pb.OBSERVATION_ENCODING_NONE


@pytest.fixture
def stub(server: str) -> Iterator[pb_grpc.GameServiceStub]:
    with grpc.insecure_channel(server) as channel:
        yield pb_grpc.GameServiceStub(channel)  # type: ignore[no-untyped-call]


def new_game(client: CuriaClient, seed: int = 5) -> tuple[str, dict[int, str]]:
    created = client.create_game("municipium", "revised", 2, seed=seed,
                                 options={"max_turns": 2})
    return created.game_id, {s.seat: s.token for s in created.seats}


def view_call(tag: int, game_id: str, token: str = "") -> pb.SessionRequest:
    return pb.SessionRequest(tag=tag, get_view=pb.GetViewRequest(
        game_id=game_id, seat_token=token, observation_encoding=NONE))


def submit_call(tag: int, game_id: str, token: str, version: int, notation: str,
                request_id: str) -> pb.SessionRequest:
    return pb.SessionRequest(tag=tag, submit_decision=pb.SubmitDecisionRequest(
        game_id=game_id, seat_token=token, expected_version=version,
        decision=pb.Decision(notation=notation), request_id=request_id,
        observation_encoding=NONE))


class Session:
    """One open Session stream (sync client): `ask` sends a request and reads its reply."""

    def __init__(self, stub: pb_grpc.GameServiceStub) -> None:
        self.queue: queue.Queue[pb.SessionRequest | None] = queue.Queue()
        self.replies = stub.Session(iter(self.queue.get, None))

    def send(self, request: pb.SessionRequest) -> None:
        self.queue.put(request)

    def read(self) -> pb.SessionResponse:
        reply: pb.SessionResponse = next(self.replies)
        return reply

    def ask(self, request: pb.SessionRequest) -> pb.SessionResponse:
        self.send(request)
        return self.read()

    def close(self) -> None:
        self.queue.put(None)
        assert list(self.replies) == []  # the server ends the stream when the client does


def test_a_game_played_to_its_end_on_one_session_stream(stub: pb_grpc.GameServiceStub,
                                                        client: CuriaClient) -> None:
    game_id, tokens = new_game(client)
    session = Session(stub)
    tag, decisions = 0, 0
    view = session.ask(view_call(0, game_id)).get_view.view  # spectator: who moves
    while view.status != pb.GAME_STATUS_FINISHED:
        tag += 1
        mine = session.ask(view_call(tag, game_id, tokens[view.to_move[0]]))
        assert mine.tag == tag and mine.WhichOneof("reply") == "get_view"
        seat_view = mine.get_view.view
        assert seat_view.legal_decisions and not seat_view.observation_json
        tag += 1
        done = session.ask(submit_call(tag, game_id, tokens[seat_view.seat],
                                       seat_view.version,
                                       seat_view.legal_decisions[-1].notation, f"r{tag}"))
        assert done.tag == tag, done
        assert done.submit_decision.version == seat_view.version + 1
        decisions += 1
        view = done.submit_decision.view
    session.close()
    record = client.record(game_id)  # the same game the unary API tells of
    assert len(record.decisions) == decisions and record.result.ranking


def test_a_refused_call_is_a_reply_with_its_status_and_the_stream_goes_on(
        stub: pb_grpc.GameServiceStub, client: CuriaClient) -> None:
    game_id, tokens = new_game(client, seed=9)
    session = Session(stub)
    before = client.view(game_id)
    mover = before.to_move[0]
    stale = session.ask(submit_call(1, game_id, tokens[mover], before.version + 3, "x", "a"))
    assert stale.tag == 1 and stale.refused.code == grpc.StatusCode.ABORTED.value[0]
    assert "stale version" in stale.refused.message
    assert stale.refused.reason == "stale_version"
    wrong = session.ask(view_call(2, game_id, "not-a-token"))
    assert wrong.refused.code == grpc.StatusCode.UNAUTHENTICATED.value[0]
    missing = session.ask(view_call(3, "no-such-game"))
    assert missing.refused.code == grpc.StatusCode.NOT_FOUND.value[0]
    assert (wrong.refused.reason, missing.refused.reason) == ("unauthenticated", "not_found")
    empty = session.ask(pb.SessionRequest(tag=4))
    assert empty.tag == 4 and empty.refused.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert "get_view or submit_decision" in empty.refused.message
    illegal = session.ask(submit_call(5, game_id, tokens[mover], before.version,
                                      "no such decision", "b"))
    assert illegal.refused.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert illegal.refused.reason == "invalid_argument"
    after = client.view(game_id)
    assert (after.version, after.observation_json) == (before.version,
                                                       before.observation_json)
    ok = session.ask(view_call(6, game_id, tokens[mover]))  # the stream still serves
    assert ok.tag == 6 and ok.get_view.view.legal_decisions
    session.close()


def test_pipelined_calls_are_answered_in_the_order_sent(stub: pb_grpc.GameServiceStub,
                                                        client: CuriaClient) -> None:
    game_id, tokens = new_game(client, seed=11)
    session = Session(stub)
    for tag in (7, 3, 9):
        session.send(view_call(tag, game_id, tokens[tag % 2]))
    replies = [session.read() for _ in range(3)]
    assert [r.tag for r in replies] == [7, 3, 9]
    assert [r.get_view.view.seat for r in replies] == [1, 1, 1]
    session.close()


def test_a_session_view_shows_a_seat_only_what_it_may_see(stub: pb_grpc.GameServiceStub,
                                                          client: CuriaClient) -> None:
    game_id, tokens = new_game(client, seed=13)
    session = Session(stub)
    spectator = session.ask(pb.SessionRequest(tag=1, get_view=pb.GetViewRequest(
        game_id=game_id))).get_view.view
    assert spectator.observation_json == client.view(game_id).observation_json
    assert not spectator.legal_decisions and not spectator.HasField("seat")
    for seat, token in tokens.items():
        seen = session.ask(pb.SessionRequest(tag=2, get_view=pb.GetViewRequest(
            game_id=game_id, seat_token=token))).get_view.view
        assert seen.observation_json == client.view(game_id, token).observation_json
        assert seen.seat == seat
    session.close()


def test_decisions_stay_right_when_the_state_cache_has_forgotten_the_game(
        redis_url: str) -> None:
    """A game's cached record must carry its latest state: with the engine states evicted,
    a decision at the cached version is applied to that version's state."""
    async def play() -> None:
        store = GameStore.from_url(redis_url)
        keeper = GameKeeper(store)
        try:
            created = await keeper.create(pb.CreateGameRequest(
                game="municipium", variant="revised", num_seats=2, seed=21))
            tokens = {s.seat: s.token for s in created.seats}
            view = (await keeper.view(pb.GetViewRequest(game_id=created.game_id))).view
            for step in range(6):
                seat = view.to_move[0]
                mine = (await keeper.view(pb.GetViewRequest(
                    game_id=created.game_id, seat_token=tokens[seat]))).view
                keeper.states.entries.clear()  # as if evicted under load
                done = await keeper.submit(pb.SubmitDecisionRequest(
                    game_id=created.game_id, seat_token=tokens[seat],
                    expected_version=mine.version, request_id=f"s{step}",
                    decision=pb.Decision(notation=mine.legal_decisions[0].notation)))
                view = done.view
                keeper.states.entries.clear()
            stored = await store.load(created.game_id)
            assert stored is not None and stored.version == 6
            cached = keeper.games.get(created.game_id)
            assert cached is not None and cached.state == stored.state
        finally:
            await store.close()
    asyncio.run(play())


def redis_clients(redis_url: str) -> int:
    with redis.Redis.from_url(redis_url) as connection:
        return len(connection.client_list())


def subscribers(redis_url: str) -> int:
    """Connections subscribed to a channel (the version feed's)."""
    with redis.Redis.from_url(redis_url) as connection:
        return sum(int(c.get("sub", 0)) + int(c.get("psub", 0)) + int(c.get("ssub", 0) or 0)
                   for c in connection.client_list())


def test_many_watchers_hold_no_redis_connection_and_do_not_starve_the_requests(
        stub: pb_grpc.GameServiceStub, client: CuriaClient, redis_url: str) -> None:
    """150 waiting WatchGame streams (more than redis-py's default pool of 100): woken by
    the process's one subscription to new versions, they hold no Redis connection each
    (a blocking XREAD per watcher did), and requests are served meanwhile."""
    game_id, tokens = new_game(client, seed=17)
    version = client.view(game_id).version
    first = stub.WatchGame(pb.WatchGameRequest(game_id=game_id, after_version=version))
    assert next(first).version == version  # (the process's subscription starts here)
    wait_until(lambda: subscribers(redis_url) > 0, 10,
               message="the version feed's subscription")
    before = redis_clients(redis_url)
    streams = [stub.WatchGame(pb.WatchGameRequest(game_id=game_id, after_version=version,
                                                  observation_encoding=NONE))
               for _ in range(150)]
    try:
        for stream in streams:
            assert next(stream).version == version  # each now waits for the next
        assert redis_clients(redis_url) - before < 10
        for _ in range(20):
            assert client.view(game_id, tokens[0]).version == version
        mover = client.view(game_id).to_move[0]
        mine = client.view(game_id, tokens[mover])
        done = client.submit(game_id, tokens[mover], mine.version,
                             mine.legal_decisions[0].notation)
        assert done.version == version + 1
        assert all(next(stream).version == version + 1 for stream in streams)
    finally:
        for stream in [first, *streams]:
            stream.cancel()


def test_a_message_that_does_not_parse_is_refused_and_the_stream_goes_on(
        server: str, client: CuriaClient) -> None:
    game_id, tokens = new_game(client, seed=19)
    good = view_call(5, game_id, tokens[1]).SerializeToString()
    with grpc.insecure_channel(server) as channel:
        call = channel.stream_stream("/curia.v1.GameService/Session")
        replies = [pb.SessionResponse.FromString(r)
                   for r in call(iter([b"\xff\xff\xff", good]), timeout=10)]
    assert [r.tag for r in replies] == [0, 5]
    assert replies[0].refused.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert "malformed request" in replies[0].refused.message
    assert replies[1].get_view.view.seat == 1
