"""The Play stream on a seat token: a tournament's seat plays its one game on the same
stream a league bot plays on (docs/bots.md, "One stream: Play")."""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterator

import grpc
import pytest

from bots.play_client import PlayClient
from client.unary import CuriaClient, refusal_reason
from curia_api.v1 import game_service_pb2 as pb
from curia_api.v1 import game_service_pb2_grpc as pb_grpc
from tests.leagues import World

GAME = "leges"


class Stream:
    """A raw Play stream: requests put on a queue, responses read one at a time."""

    def __init__(self, target: str, credential: str) -> None:
        self.channel = grpc.insecure_channel(target)
        self.requests: queue.Queue[pb.PlayRequest | None] = queue.Queue()
        stub = pb_grpc.GameServiceStub(self.channel)  # type: ignore[no-untyped-call]
        self.responses = stub.Play(self._requests(),
                                   metadata=(("authorization", f"Bearer {credential}"),))

    def _requests(self) -> Iterator[pb.PlayRequest]:
        while (request := self.requests.get()) is not None:
            yield request

    def send(self, **kind: object) -> None:
        self.requests.put(pb.PlayRequest(**kind))  # type: ignore[arg-type]

    def next(self) -> pb.PlayResponse:
        return next(self.responses)

    def close(self) -> None:
        self.requests.put(None)
        self.responses.cancel()
        self.channel.close()


@pytest.fixture
def client(world: World) -> Iterator[CuriaClient]:
    with CuriaClient(world.target) as connected:
        yield connected


def test_a_seat_token_plays_its_one_game_and_the_stream_ends_with_it(
        world: World, client: CuriaClient) -> None:
    """Both seats of a game played by the shipped client on seat tokens: the game
    finishes, each client ends on its own, and no message carries a seat token."""
    created = client.create_game(GAME, "standard", 2, seed=5)
    tokens = {seat.seat: seat.token for seat in created.seats}
    players = [PlayClient(world.target, tokens[seat], "random", seed=seat,
                          game_id=created.game_id) for seat in (0, 1)]
    threads = [threading.Thread(target=player.run, daemon=True) for player in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    assert [player.ended for player in players] == [1, 1]
    assert client.view(created.game_id).status == pb.GAME_STATUS_FINISHED


def test_the_seat_stream_says_welcome_start_turns_end_then_closes(
        world: World, client: CuriaClient) -> None:
    created = client.create_game(GAME, "standard", 2, seed=6)
    tokens = {seat.seat: seat.token for seat in created.seats}
    streams = {seat: Stream(world.target, token) for seat, token in tokens.items()}
    seen: list[pb.PlayResponse] = []
    try:
        for stream in streams.values():
            stream.send(hello=pb.PlayHello(game_id=created.game_id,
                                           observation_encoding=pb.OBSERVATION_ENCODING_JSON))
        for seat, stream in streams.items():
            welcome, started = stream.next(), stream.next()
            assert welcome.welcome.game_ids == [created.game_id]
            assert welcome.welcome.bot == started.game_started.seat_names[seat]
            assert started.game_started.seat == seat
            assert started.game_started.game == GAME
            seen += [welcome, started]
        ended = play_out(streams, seen)
        assert ended == {0, 1}
        for stream in streams.values():  # then the server ended each stream (OK)
            rest = list(stream.responses)  # the reply to the deciding decision may follow
            assert all(message.HasField("ack") for message in rest), rest
    finally:
        for stream in streams.values():
            stream.close()
    wire = b"".join(message.SerializeToString() for message in seen)
    assert not any(token.encode() in wire for token in tokens.values())


def play_out(streams: dict[int, Stream], seen: list[pb.PlayResponse]) -> set[int]:
    """Answer every turn with its first legal decision, each seat on a thread of its own,
    until each saw the end; the seats that did."""
    ended: set[int] = set()

    def play(seat: int, stream: Stream) -> None:
        for message in stream.responses:
            seen.append(message)
            if message.HasField("turn"):
                view = message.turn
                assert view.seat == seat and json.loads(view.observation_json)
                stream.send(decision=pb.PlayDecision(
                    game_id=view.game_id, expected_version=view.version,
                    expected_lineage=view.lineage, request_id=f"{view.version}",
                    decision=pb.Decision(notation=view.legal_decisions[0].notation)))
            elif message.HasField("game_ended"):
                ended.add(seat)
                return

    threads = [threading.Thread(target=play, args=item, daemon=True)
               for item in streams.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return ended


def test_a_wrong_seat_token_or_a_missing_game_is_refused(world: World,
                                                         client: CuriaClient) -> None:
    created = client.create_game(GAME, "standard", 2, seed=7)
    cases = [("not-a-token", created.game_id, grpc.StatusCode.UNAUTHENTICATED,
              "unauthenticated"),
             (created.seats[0].token, "", grpc.StatusCode.UNAUTHENTICATED, "unknown_key"),
             (created.seats[0].token, "0" * 32, grpc.StatusCode.NOT_FOUND, "not_found")]
    for credential, game_id, code, reason in cases:
        stream = Stream(world.target, credential)
        stream.send(hello=pb.PlayHello(game_id=game_id))
        with pytest.raises(grpc.RpcError) as refused:
            stream.next()
        stream.close()
        assert refused.value.code() == code, (credential[:5], game_id)
        assert refusal_reason(refused.value) == reason, (credential[:5], game_id)
    assert client.view(created.game_id).version == created.version  # nothing changed


def test_a_seat_stream_decides_in_its_own_game_only(world: World,
                                                    client: CuriaClient) -> None:
    mine = client.create_game(GAME, "standard", 2, seed=8)
    other = client.create_game(GAME, "standard", 2, seed=8)
    stream = Stream(world.target, mine.seats[0].token)
    try:
        stream.send(hello=pb.PlayHello(game_id=mine.game_id))
        stream.next(), stream.next()  # welcome, game_started
        stream.send(decision=pb.PlayDecision(game_id=other.game_id,
                                             decision=pb.Decision(notation="pass")))
        message = stream.next()
        while not message.HasField("refusal"):  # a turn may come first
            message = stream.next()
        assert message.refusal.game_id == other.game_id
        assert message.refusal.status.code == grpc.StatusCode.NOT_FOUND.value[0]
        assert message.refusal.status.reason == "not_your_game"
    finally:
        stream.close()
    assert client.view(other.game_id).version == other.version


def test_a_game_waiting_for_a_seat_says_so_then_starts_with_a_turn(
        world: World, client: CuriaClient) -> None:
    """Taking the last seat makes no new version: the stream still sees the start."""
    created = client.create_game(GAME, "standard", 2, seed=9, open_seats=(1,))
    token = created.seats[0].token
    stream = Stream(world.target, token)
    try:
        stream.send(hello=pb.PlayHello(game_id=created.game_id))
        stream.next()
        started = stream.next().game_started
        assert started.waiting_for_seats
        joined = client.join(created.game_id, 1)
        if 0 not in client.view(created.game_id).to_move:  # let seat 1 move first
            view = client.view(created.game_id, joined.token)
            client.submit(created.game_id, joined.token, view.version,
                          view.legal_decisions[0].notation)
        message = stream.next()
        while not message.HasField("turn"):
            message = stream.next()
        assert message.turn.status == pb.GAME_STATUS_IN_PROGRESS
    finally:
        stream.close()


def test_only_the_seats_that_must_decide_look_at_a_new_version(
        world: World, client: CuriaClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each version is announced with the seats it asks (the version feed): the other
    seats' streams wait on without reading the game. Three seats of a Leges game on Play
    streams look well under twice per version (its secret-choice rounds ask every seat),
    not three times (every seat woken and looking at every version, as before)."""
    from service.keeper import GameKeeper  # the server runs in this process (world)
    looks = {"count": 0}
    seat_moment = GameKeeper.seat_moment

    async def counted(self: GameKeeper, *args: object, **kwargs: object) -> object:
        looks["count"] += 1
        return await seat_moment(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(GameKeeper, "seat_moment", counted)
    created = client.create_game(GAME, "standard", 3, seed=8)
    tokens = {seat.seat: seat.token for seat in created.seats}
    players = [PlayClient(world.target, tokens[seat], "random", seed=seat,
                          game_id=created.game_id) for seat in (0, 1, 2)]
    threads = [threading.Thread(target=player.run, daemon=True) for player in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert [player.ended for player in players] == [1, 1, 1]
    versions = client.view(created.game_id).version
    assert versions >= 20
    assert looks["count"] <= 2 * versions, (looks["count"], versions)  # 196 of 137; was 417
