"""The service door (hosting/door.py): a sandboxed gRPC bot's one way to the service lets
through a seat's calls only. Real sockets, real gRPC channels, the real service on a real
Redis: refused calls change nothing and say why (`curia-reason: door_denied`); a seat's
whole game goes through unchanged (statuses and trailing metadata included); cancellation
and the end of the service reach the other side; and a flooding bot in a real sandboxed
tournament creates no game."""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from arena.runner import ResultsFile
from client.unary import CuriaClient, refusal_reason
from curia_api.metadata import REASON_KEY
from curia_api.v1 import game_service_pb2 as pb
from curia_api.v1 import game_service_pb2_grpc as pb_grpc
from hosting.door import (
    ALLOWED_METHODS,
    COUNTED_METHODS,
    DENIED_REASON,
    OTHER_METHODS,
    UNARY_METHODS,
    ServiceDoor,
    service_door,
)
from hosting.sandbox import unavailable_reason
from service.redis_server import free_port
from service.server import BAD_KEYS_BURST, BackgroundServer
from tests.pki import Pki, tls_server
from tests.servers import REPO, ServiceProcess
from tests.timing import patient, wait_until

WAIT = patient(20.0)  # seconds: this machine's time scale (tests/timing.py)
GAME, VARIANT = "leges", "standard"
FLOOD = Path(__file__).resolve().parent / "badbots" / "flood" / "bot.toml"


#: How long a stream the bot ended may stay open upstream: the service notices a cancelled
#: stream on a quiet game at its next keepalive ping at the latest (HTTP/2 ping every 5 s,
#: unanswered for 5 s: client/channels.py), not always at once.
STREAM_END_S = 60.0


@pytest.fixture(scope="module")
def door(server: str) -> Iterator[Path]:
    """A service door to the session's service: its socket."""
    with service_door(server) as path:
        yield path


@pytest.fixture
def through(door: Path) -> Iterator[grpc.Channel]:
    """A bot's channel through the door (what `unix:/run/curia/service.sock` is inside)."""
    with grpc.insecure_channel(f"unix:{door}") as channel:
        yield channel


def stored_games(redis_url: str) -> set[bytes]:
    """Every game the service holds in Redis."""
    with redis.Redis.from_url(redis_url) as admin:
        return set(admin.scan_iter(match="curia:{*}:game"))


def caught(call: Callable[[], object]) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as error:
        call()
    return error.value


def status(error: grpc.RpcError) -> tuple[grpc.StatusCode, str, str]:
    return error.code(), error.details(), refusal_reason(error)


# -- what the door refuses --------------------------------------------------------------
def _create(channel: grpc.Channel, game_id: str) -> object:
    return pb_grpc.GameServiceStub(channel).CreateGame(pb.CreateGameRequest(
        game=GAME, variant=VARIANT, num_seats=2), timeout=WAIT)


def _join(channel: grpc.Channel, game_id: str) -> object:
    return pb_grpc.GameServiceStub(channel).JoinGame(pb.JoinGameRequest(game_id=game_id),
                                                     timeout=WAIT)


def _list(channel: grpc.Channel, game_id: str) -> object:
    return pb_grpc.GameServiceStub(channel).ListGames(pb.ListGamesRequest(), timeout=WAIT)


def _session(channel: grpc.Channel, game_id: str) -> object:
    return list(pb_grpc.GameServiceStub(channel).Session(iter([pb.SessionRequest(
        tag=1, get_view=pb.GetViewRequest(game_id=game_id))]), timeout=WAIT))


def _unknown(channel: grpc.Channel, game_id: str) -> object:
    return channel.unary_unary("/curia.v1.GameService/DropAllGames")(b"", timeout=WAIT)


def _reflection(channel: grpc.Channel, game_id: str) -> object:
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    return list(stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(
        list_services="")]), timeout=WAIT))


REFUSED = {
    "/curia.v1.GameService/CreateGame": _create,
    "/curia.v1.GameService/JoinGame": _join,
    "/curia.v1.GameService/ListGames": _list,
    "/curia.v1.GameService/Session": _session,
    "/curia.v1.GameService/DropAllGames": _unknown,
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo": _reflection,
}


@pytest.mark.parametrize("method", list(REFUSED))
def test_the_door_refuses_every_call_but_a_seats_and_nothing_reaches_the_service(
        method: str, through: grpc.Channel, client: CuriaClient, server: str,
        redis_url: str) -> None:
    open_game = client.create_game(GAME, VARIANT, 2, open_seats=(1,))
    before = stored_games(redis_url)
    error = caught(lambda: REFUSED[method](through, open_game.game_id))
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED
    assert refusal_reason(error) == DENIED_REASON
    assert dict(error.trailing_metadata() or ())[REASON_KEY] == DENIED_REASON
    assert repr(method) in error.details()
    assert "only serves a seat's calls" in error.details()
    assert stored_games(redis_url) == before  # no game created
    assert client.join(open_game.game_id).seat == 1  # the open seat was not taken
    # The control: straight to the service, the same call is served (JoinGame's control
    # is the join above: the seat was still open).
    with grpc.insecure_channel(server) as direct:
        if method.endswith("/DropAllGames"):
            assert caught(lambda: _unknown(direct, "")).code() == \
                grpc.StatusCode.UNIMPLEMENTED
        elif not method.endswith("/JoinGame"):
            REFUSED[method](direct, open_game.game_id)
        if method.endswith("/CreateGame"):
            assert len(stored_games(redis_url) - before) == 1


def test_a_flood_of_creates_through_the_door_creates_nothing(
        through: grpc.Channel, redis_url: str) -> None:
    before = stored_games(redis_url)
    codes = [caught(lambda: _create(through, "")).code() for _ in range(150)]
    assert set(codes) == {grpc.StatusCode.PERMISSION_DENIED}
    assert stored_games(redis_url) == before


# -- what the door lets through ---------------------------------------------------------
def test_a_seat_plays_a_whole_game_through_the_door(
        through: grpc.Channel, client: CuriaClient) -> None:
    """Seat 0 on the unary calls, seat 1 on a Play stream with its seat token, a spectator
    on WatchGame: every reply, refusal and stream end as the service gives them."""
    game = client.create_game(GAME, VARIANT, 2, seed=11)
    stub = pb_grpc.GameServiceStub(through)
    watched: list[pb.WatchGameResponse] = []
    watch_ended: list[grpc.StatusCode] = []

    def spectate() -> None:
        stream = stub.WatchGame(pb.WatchGameRequest(game_id=game.game_id), timeout=60)
        watched.extend(stream)
        watch_ended.append(stream.code())

    spectator = threading.Thread(target=spectate, daemon=True)
    spectator.start()

    zero = game.seats[0].token
    view = stub.GetView(pb.GetViewRequest(game_id=game.game_id, seat_token=zero),
                        timeout=WAIT).view
    assert view == client.view(game.game_id, zero)
    assert view.legal_decisions
    illegal = pb.SubmitDecisionRequest(game_id=game.game_id, seat_token=zero,
                                       expected_version=view.version,
                                       decision=pb.Decision(notation="pass"),
                                       request_id=uuid.uuid4().hex)
    refused = caught(lambda: stub.SubmitDecision(illegal, timeout=WAIT))
    assert status(refused)[0] == grpc.StatusCode.FAILED_PRECONDITION
    assert status(refused)[2] == "illegal"
    assert status(refused) == status(caught(
        lambda: client.stub.SubmitDecision(illegal, timeout=WAIT)))  # unchanged
    chosen = view.legal_decisions[0].notation
    applied = stub.SubmitDecision(pb.SubmitDecisionRequest(
        game_id=game.game_id, seat_token=zero, expected_version=view.version,
        decision=pb.Decision(notation=chosen), request_id=uuid.uuid4().hex,
        expected_lineage=view.lineage), timeout=WAIT)
    assert applied.version >= 1
    resigned = stub.ResignSeat(pb.ResignSeatRequest(game_id=game.game_id, seat_token=zero,
                                                    reason="through the door"), timeout=WAIT)
    assert resigned.version >= applied.version

    requests: queue.Queue[pb.PlayRequest | None] = queue.Queue()
    requests.put(pb.PlayRequest(hello=pb.PlayHello(game_id=game.game_id, client="door")))

    def outgoing() -> Iterator[pb.PlayRequest]:
        while (request := requests.get()) is not None:
            yield request

    play = stub.Play(outgoing(), timeout=60,
                     metadata=(("authorization", f"Bearer {game.seats[1].token}"),))
    kinds: dict[str, int] = {}
    try:
        for reply in play:
            kind = reply.WhichOneof("kind")
            kinds[kind] = kinds.get(kind, 0) + 1
            # A turn may go stale as the server decides for seat 0 (it resigned): the
            # next turn comes; any other refusal is a failure.
            assert kind != "refusal" or reply.refusal.status.reason == "stale_version", \
                reply.refusal
            if kind == "turn":
                requests.put(pb.PlayRequest(decision=pb.PlayDecision(
                    game_id=game.game_id, expected_version=reply.turn.version,
                    decision=pb.Decision(notation=reply.turn.legal_decisions[0].notation),
                    request_id=uuid.uuid4().hex, expected_lineage=reply.turn.lineage)))
    finally:
        requests.put(None)
    assert play.code() == grpc.StatusCode.OK  # the server ends the seat's stream at the end
    assert kinds["game_started"] == 1 and kinds["game_ended"] == 1
    assert kinds["ack"] >= 2
    assert kinds["ack"] + kinds.get("refusal", 0) == kinds["turn"]

    spectator.join(timeout=WAIT)
    assert watch_ended == [grpc.StatusCode.OK]
    versions = [message.version for message in watched]
    assert versions == list(range(versions[0], versions[0] + len(versions)))
    assert watched[-1].view.status == pb.GAME_STATUS_FINISHED

    record = stub.GetGameRecord(pb.GetGameRecordRequest(game_id=game.game_id),
                                timeout=WAIT).record
    assert record == client.record(game.game_id)
    assert record.decisions[0].seat == 0 and record.decisions[0].notation == chosen
    assert record.decisions[-1].version == watched[-1].version
    seat_zero = next(score for score in record.result.scores if score.seat == 0)
    assert seat_zero.forfeited
    played_on_play = [d for d in record.decisions if d.seat == 1
                      and d.cause != pb.DECISION_CAUSE_FORFEITED]
    assert len(played_on_play) == kinds["ack"]


def test_health_goes_through_the_door_as_the_service_answers_it(
        through: grpc.Channel, server: str) -> None:
    health = health_pb2_grpc.HealthStub(through)
    answer = health.Check(health_pb2.HealthCheckRequest(service="curia.v1.GameService"),
                          timeout=WAIT)
    assert answer.status == health_pb2.HealthCheckResponse.SERVING
    unknown = health_pb2.HealthCheckRequest(service="no.such.Service")
    with grpc.insecure_channel(server) as direct:
        assert status(caught(lambda: health.Check(unknown, timeout=WAIT))) == status(caught(
            lambda: health_pb2_grpc.HealthStub(direct).Check(unknown, timeout=WAIT)))
    watch = health.Watch(health_pb2.HealthCheckRequest(service=""), timeout=WAIT)
    assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
    watch.cancel()


def test_the_allow_list_is_a_seats_calls_and_health() -> None:
    assert sorted(ALLOWED_METHODS) == sorted([
        "/curia.v1.GameService/Play", "/curia.v1.GameService/GetView",
        "/curia.v1.GameService/SubmitDecision", "/curia.v1.GameService/WatchGame",
        "/curia.v1.GameService/ResignSeat", "/curia.v1.GameService/GetGameRecord",
        "/grpc.health.v1.Health/Check", "/grpc.health.v1.Health/Watch"])
    assert sorted(UNARY_METHODS) == sorted([  # relayed as unary calls, the rest as streams
        "/curia.v1.GameService/GetView", "/curia.v1.GameService/SubmitDecision",
        "/curia.v1.GameService/ResignSeat", "/curia.v1.GameService/GetGameRecord",
        "/grpc.health.v1.Health/Check"])


def test_refusals_of_many_made_up_methods_are_counted_in_bounded_room(server: str) -> None:
    """A bot that calls endless made-up methods costs the door a bounded count, and each
    call is refused all the same."""
    with ServiceDoor(server) as door, grpc.insecure_channel(f"unix:{door.path}") as channel:
        names = [f"/evil.Service/Method{i}" for i in range(COUNTED_METHODS + 20)]
        for name in names:
            error = caught(lambda: channel.unary_unary(name)(b"", timeout=WAIT))  # noqa: B023
            assert status(error)[0::2] == (grpc.StatusCode.PERMISSION_DENIED, DENIED_REASON)
            assert repr(name) in error.details()
        assert len(door.denied) == COUNTED_METHODS + 1
        assert door.denied[OTHER_METHODS] == 20
        assert sum(door.denied.values()) == len(names)


def test_a_play_stream_the_service_refuses_at_once_ends_as_the_service_ended_it(
        redis_url: str) -> None:
    """The service refuses a Play stream on its credential before it reads the bot's
    hello; grpc.aio's client, writing that hello, sometimes replaces the refusal with
    INTERNAL (grpc/grpc#36066). The bot gets the service's status every time."""
    service = BackgroundServer(redis_url)  # its own wrong-credential count
    address = f"127.0.0.1:{service.start()}"
    try:
        with CuriaClient(address) as client, ServiceDoor(address) as door, \
                grpc.insecure_channel(f"unix:{door.path}") as channel:
            game = client.create_game(GAME, VARIANT, 2)
            stub = pb_grpc.GameServiceStub(channel)
            hello = pb.PlayRequest(hello=pb.PlayHello(game_id=game.game_id))

            def refused_play(token: str) -> tuple[grpc.StatusCode, str]:
                with pytest.raises(grpc.RpcError) as error:
                    list(stub.Play(iter([hello]), timeout=WAIT,
                                   metadata=(("authorization", f"Bearer {token}"),)))
                return error.value.code(), refusal_reason(error.value)

            ends = [refused_play(f"wrong-{i}") for i in range(80)]
    finally:
        service.stop()
    assert ends[:BAD_KEYS_BURST] == [(grpc.StatusCode.UNAUTHENTICATED, "unauthenticated")
                                     ] * BAD_KEYS_BURST
    assert set(ends[BAD_KEYS_BURST:]) == {(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                           "bad_key_rate")}


# -- cancellation, deadlines, the service's end ----------------------------------------
def open_streams(metrics_port: int) -> float:
    """The service's curia_open_streams gauge, from its metrics endpoint."""
    with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics",
                                timeout=5) as answer:
        text = answer.read().decode()
    found = re.search(r"^curia_open_streams (\S+)$", text, re.MULTILINE)
    assert found, "no curia_open_streams in the metrics"
    return float(found.group(1))


def test_cancel_and_deadline_end_the_upstream_stream_and_the_service_end_reaches_the_bot(
        service_process: type[ServiceProcess], redis_url: str) -> None:
    metrics_port = free_port()
    process = service_process(redis_url, metrics_port=metrics_port)
    with CuriaClient(process.address) as client, service_door(process.address) as door, \
            grpc.insecure_channel(f"unix:{door}") as channel:
        game = client.create_game(GAME, VARIANT, 2, seed=3)  # nobody plays: it stays
        stub = pb_grpc.GameServiceStub(channel)
        request = pb.WatchGameRequest(game_id=game.game_id)
        baseline = open_streams(metrics_port)

        def streams_are(count: float) -> Callable[[], bool]:
            return lambda: open_streams(metrics_port) == count

        def streams_back_to(count: float) -> Callable[[], bool]:
            """At most `count` open: the service's own short streams (its start-up's
            health watch) may close meanwhile."""
            return lambda: open_streams(metrics_port) <= count

        # The bot cancels: the service's stream ends too.
        watch: Any = stub.WatchGame(request)
        assert next(watch).version == 0
        wait_until(streams_are(baseline + 1), WAIT, message="the upstream stream")
        watch.cancel()
        wait_until(streams_back_to(baseline), STREAM_END_S, message="the upstream stream to end")

        # The bot's deadline passes: the service's stream ends too.
        started = time.monotonic()
        timed: Any = stub.WatchGame(request, timeout=1.5)
        assert next(timed).version == 0
        wait_until(streams_are(baseline + 1), WAIT, message="the upstream stream")
        assert caught(lambda: list(timed)).code() == grpc.StatusCode.DEADLINE_EXCEEDED
        assert time.monotonic() - started < WAIT
        wait_until(streams_back_to(baseline), STREAM_END_S, message="the upstream stream to end")

        # The service goes away: the bot's stream ends, not left hanging.
        last: Any = stub.WatchGame(request, timeout=60)
        assert next(last).version == 0
        wait_until(streams_are(baseline + 1), WAIT, message="the upstream stream")
        started = time.monotonic()
        process.stop()
        ended = caught(lambda: list(last))
        assert ended.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED)
        assert time.monotonic() - started < patient(30)


# -- TLS upstream, and never the operator credential -------------------------------------
def test_the_door_speaks_mutual_tls_upstream_without_reading_the_operator_credential(
        redis_url: str, pki: Pki, tmp_path: Path,  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CURIA_TLS_CA", str(pki.path("ca.pem")))
    monkeypatch.setenv("CURIA_TLS_CERT", str(pki.path("client.pem")))
    monkeypatch.setenv("CURIA_TLS_KEY", str(pki.path("client.key")))
    # The arena's own credential: a door that read it would fail to start on this file.
    monkeypatch.setenv("CURIA_ADMIN_TOKEN_FILE", str(tmp_path / "missing-admin.token"))
    with tls_server(redis_url, pki, mutual=True) as address:
        door = ServiceDoor(address)
        try:
            socket = door.start()
            with grpc.insecure_channel(f"unix:{socket}") as channel:
                stub = pb_grpc.GameServiceStub(channel)
                game_id = "no-such-game"
                error = caught(lambda: stub.GetView(pb.GetViewRequest(game_id=game_id),
                                                    timeout=WAIT))
                assert error.code() == grpc.StatusCode.NOT_FOUND  # the service answered
                assert refusal_reason(error) == "not_found"
                assert caught(lambda: _create(channel, "")).code() == \
                    grpc.StatusCode.PERMISSION_DENIED
            assert door.denied["/curia.v1.GameService/CreateGame"] == 1
            assert oct(socket.stat().st_mode & 0o777) == oct(0o666)
            assert oct(socket.parent.stat().st_mode & 0o777) == oct(0o700)
        finally:
            door.close()
        assert not door.folder.exists()


# -- a flooding bot in a real sandboxed tournament --------------------------------------
# The audit's setting: `curia arena run --server` on a service without an operator
# credential (`curia serve` on a private network: anyone who reaches it may create games).
# The arena's embedded service requires its own credential, which no bot has.
def run_flood_tournament(tmp_path: Path, sandbox: str,
                         server: str) -> subprocess.CompletedProcess[str]:
    """`curia arena run` on `server`: a Leges gauntlet of the random bot against the flood."""
    config = tmp_path / "t.toml"
    config.write_text(
        f'[tournament]\nname = "flood"\ngame = "{GAME}"\nseats = 2\nformat = "gauntlet"\n'
        f'challenger = "random"\nconcurrency = 2\nsandbox = "{sandbox}"\n'
        f'output = "{tmp_path / "out"}"\n[time]\ndecision_ms = 10000\n'
        f'startup_ms = 120000\n'  # its flood comes before its contact, slower under load
        f'[[bots]]\nmanifest = "{REPO / "bots" / "random_bot" / "bot.toml"}"\n'
        f'[[bots]]\nmanifest = "{FLOOD}"\n')
    env = {k: v for k, v in os.environ.items() if k != "CURIA_ADMIN_TOKEN_FILE"}
    return subprocess.run([sys.executable, "-m", "curia", "arena", "run", str(config),
                           "--server", server, "--no-progress"], cwd=REPO,
                          capture_output=True, text=True, timeout=300, env=env)


def flood_lines(out: Path) -> tuple[list[str], list[str]]:
    """The flood's ATTACK lines, and its lines on how the creates were refused."""
    lines = [line for log in sorted((out / "logs").glob("*-bad-flood.log"))
             for line in log.read_text(errors="replace").splitlines()]
    return ([line for line in lines if line.startswith("ATTACK create-flood")],
            [line for line in lines if line.startswith("create-flood refused")])


@pytest.mark.skipif(unavailable_reason() is not None,
                    reason=f"no sandbox here: {unavailable_reason()}")
def test_a_flooding_bot_in_a_sandboxed_tournament_creates_no_game(
        tmp_path: Path, service_process: type[ServiceProcess], redis_url: str) -> None:
    process = service_process(redis_url)
    before = stored_games(redis_url)
    done = run_flood_tournament(tmp_path, "required", process.address)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    out = tmp_path / "out"
    attacks, refusals = flood_lines(out)
    assert attacks and set(attacks) == {"ATTACK create-flood: 0 of 150 created"}, attacks
    assert set(refusals) == {"create-flood refused 150 times: PERMISSION_DENIED door_denied"}
    outcomes = ResultsFile(out / "results.jsonl").load()
    assert outcomes and len(attacks) == len(outcomes)  # it flooded in every game
    assert not [o for o in outcomes if o.forfeits], [o.reasons for o in outcomes]
    assert len(stored_games(redis_url) - before) == len(outcomes)  # the arena's games only
    assert "sandbox: every bot ran in its sandbox" in (out / "leaderboard.txt").read_text()


def test_the_flood_gets_through_without_the_sandbox(
        tmp_path: Path, service_process: type[ServiceProcess], redis_url: str) -> None:
    """The control: unsandboxed, the bot reaches the service's TCP port and creates."""
    process = service_process(redis_url)
    before = stored_games(redis_url)
    done = run_flood_tournament(tmp_path, "off", process.address)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    attacks, _ = flood_lines(tmp_path / "out")
    assert attacks and set(attacks) == {"ATTACK create-flood: 150 of 150 created"}, attacks
    outcomes = ResultsFile(tmp_path / "out" / "results.jsonl").load()
    assert len(stored_games(redis_url) - before) == len(outcomes) + 150 * len(attacks)
