"""Security for a public deployment: TLS (and mutual TLS), the operator credential, quotas,
expiry of abandoned games, the bounded autoplay, a locked-down embedded Redis, request ids
that cannot be reused for another decision, and reflection under both names."""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
import redis
from grpc_reflection.v1alpha import reflection_pb2

from client.channels import ClientSecurity
from client.unary import CuriaClient
from curia_api.v1 import game_service_pb2 as pb
from service.access import AccessPolicy, CreateRateLimit, peer_host
from service.errors import ServiceError
from service.keeper import GameKeeper
from service.redis_server import EmbeddedRedis
from service.server import BackgroundServer, ServerRules
from service.store import GameStore, token_hash
from tests.node_bots import node_bot_folder
from tests.pki import Pki, tls_server
from tests.servers import REPO, ServiceProcess
from tests.service.gameplay import new_game
from tests.timing import wait_until

GAME, VARIANT = "municipium", "classic"


def tls_client(address: str, pki: Pki, *, client_cert: bool = False) -> CuriaClient:
    return CuriaClient(address, timeout=5, security=ClientSecurity(
        ca=pki.path("ca.pem").read_bytes(),
        cert=pki.path("client.pem").read_bytes() if client_cert else None,
        key=pki.path("client.key").read_bytes() if client_cert else None))


def refused(call: object) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call()  # type: ignore[operator]
    return caught.value


# -- TLS ----------------------------------------------------------------------------------
def test_curia_serve_with_tls_answers_a_tls_client_and_refuses_a_plaintext_one(
        redis_url: str, pki: Pki) -> None:
    process = ServiceProcess(redis_url, tls_ca=pki.path("ca.pem"), extra_args=(
        "--tls-cert", str(pki.path("server.pem")), "--tls-key", str(pki.path("server.key"))))
    try:
        with tls_client(process.address, pki) as client:
            assert GAME in [g.name for g in client.list_games().games]
            game = client.create_game(GAME, VARIANT, 3, seed=1)
            assert client.view(game.game_id).version == 0
        with CuriaClient(process.address, timeout=3, security=ClientSecurity()) as plain:
            assert refused(plain.list_games).code() == grpc.StatusCode.UNAVAILABLE
    finally:
        process.stop()


def test_a_bot_process_configured_by_the_environment_plays_over_tls(
        redis_url: str, pki: Pki) -> None:
    """CURIA_TLS_CA is all a shipped client needs: here the random bot's gRPC player."""
    with tls_server(redis_url, pki) as address, tls_client(address, pki) as client:
        game = client.create_game(GAME, VARIANT, 3, seed=2)
        for seat in game.seats[1:]:  # the server decides for seats 1 and 2
            client.resign(game.game_id, seat.token, "test")
        bot = subprocess.run(
            [sys.executable, "-m", "bots.grpc_player", "--bot", "random",
             "--server", address, "--game-id", game.game_id, "--seat", "0"],
            cwd=REPO, capture_output=True, text=True, timeout=120,
            env={**os.environ, "CURIA_TLS_CA": str(pki.path("ca.pem")),
                 "CURIA_SEAT_TOKEN": game.seats[0].token})
        assert bot.returncode == 0, bot.stderr
        view = client.view(game.game_id)
        assert view.status == pb.GAME_STATUS_FINISHED
        assert not view.result.reason.startswith("abandoned")


def test_the_node_bot_plays_over_tls_given_the_ca(redis_url: str, pki: Pki) -> None:
    folder = node_bot_folder("node_grpc")
    with tls_server(redis_url, pki) as address, tls_client(address, pki) as client:
        game = client.create_game(GAME, VARIANT, 3, seed=9)
        for seat in game.seats[1:]:
            client.resign(game.game_id, seat.token, "test")
        bot = subprocess.run(
            ["node", "bot.js", "--server", address, "--game-id", game.game_id,
             "--seat", "0"], cwd=folder, capture_output=True, text=True, timeout=120,
            env={**os.environ, "CURIA_TLS_CA": str(pki.path("ca.pem")),
                 "CURIA_SEAT_TOKEN": game.seats[0].token})
        assert bot.returncode == 0, bot.stderr
        assert client.view(game.game_id).status == pb.GAME_STATUS_FINISHED


def test_mutual_tls_refuses_a_client_without_a_certificate(redis_url: str, pki: Pki) -> None:
    with tls_server(redis_url, pki, mutual=True) as address:
        with tls_client(address, pki, client_cert=True) as client:
            assert client.list_games().games
        with tls_client(address, pki) as anonymous:
            assert refused(anonymous.list_games).code() == grpc.StatusCode.UNAVAILABLE


# -- who may create games -----------------------------------------------------------------
def test_with_an_operator_credential_only_its_holder_creates_games(
        redis_url: str, tmp_path: Path) -> None:
    token_file = tmp_path / "operator-token"
    token_file.write_text("s3cret-operator-credential\n")
    process = ServiceProcess(redis_url, extra_args=("--admin-token-file", str(token_file)))
    try:
        with CuriaClient(process.address, security=ClientSecurity()) as anyone:
            error = refused(lambda: anyone.create_game(GAME, VARIANT, 3))
            assert error.code() == grpc.StatusCode.UNAUTHENTICATED
            assert "operator credential" in (error.details() or "")
            assert anyone.list_games().games  # reading the catalogue stays open
        wrong = ClientSecurity(admin_token="not-the-operator-credential")
        with CuriaClient(process.address, security=wrong) as impostor:
            error = refused(lambda: impostor.create_game(GAME, VARIANT, 3))
            assert error.code() == grpc.StatusCode.PERMISSION_DENIED
        operator = ClientSecurity.from_env({"CURIA_ADMIN_TOKEN_FILE": str(token_file)})
        with CuriaClient(process.address, security=operator) as host:
            game = host.create_game(GAME, VARIANT, 3, seed=3)
        with CuriaClient(process.address, security=ClientSecurity()) as anyone:
            mover = game.seats[anyone.view(game.game_id).to_move[0]].token
            view = anyone.view(game.game_id, mover)  # seats play as before
            anyone.submit(game.game_id, mover, 0, view.legal_decisions[0])
    finally:
        process.stop()


# -- quotas -------------------------------------------------------------------------------
@pytest.fixture
def own_redis_url(tmp_path: Path) -> Iterator[str]:
    """A Redis of the test's own: what its server counts or expires is its games only
    (servers sharing a Redis share their rules in production)."""
    with EmbeddedRedis(tmp_path / "redis") as own:
        yield own.url


def test_the_live_games_cap_refuses_creation_with_a_clear_message(
        own_redis_url: str) -> None:
    redis_url = own_redis_url
    server = BackgroundServer(redis_url, rules=ServerRules(AccessPolicy(max_live_games=2)))
    address = f"127.0.0.1:{server.start()}"
    try:
        with CuriaClient(address) as client:
            client.create_game(GAME, VARIANT, 3)
            client.create_game(GAME, VARIANT, 3, open_seats=(1,))
            live = redis.Redis.from_url(redis_url).scard("curia:active")
            error = refused(lambda: client.create_game(GAME, VARIANT, 3))
            assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "maximum of 2 live games" in (error.details() or "")
            assert redis.Redis.from_url(redis_url).scard("curia:active") == live
    finally:
        server.stop()


def test_the_live_games_cap_holds_under_concurrent_creates(own_redis_url: str) -> None:
    """The cap is taken in the same step as the count: 40 creates at once on two servers
    sharing the Redis never make more than 10 live games (the check used to come before
    the create, and 11-13 got through)."""
    rules = ServerRules(AccessPolicy(max_live_games=10))
    servers = [BackgroundServer(own_redis_url, rules=rules) for _ in range(2)]
    addresses = [f"127.0.0.1:{server.start()}" for server in servers]
    try:
        clients = [CuriaClient(address) for address in addresses]
        stubs = [client.stub for client in clients]
        request = pb.CreateGameRequest(game=GAME, variant=VARIANT, num_seats=3)
        calls = [stubs[i % 2].CreateGame.future(request, timeout=30) for i in range(40)]
        created, refusals = 0, []
        for call in calls:
            try:
                call.result()
                created += 1
            except grpc.RpcError as error:
                refusals.append(error)
        assert created == 10, f"{created} games created under a cap of 10"
        assert all(e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED for e in refusals)
        assert redis.Redis.from_url(own_redis_url).scard("curia:active") == 10
        for client in clients:
            client.close()
    finally:
        for server in servers:
            server.stop()


def test_the_create_rate_is_limited_per_client_address(redis_url: str) -> None:
    server = BackgroundServer(redis_url, rules=ServerRules(AccessPolicy(
        creates=CreateRateLimit(per_minute=6, burst=2))))
    address = f"127.0.0.1:{server.start()}"
    try:
        with CuriaClient(address) as client:
            client.create_game(GAME, VARIANT, 3)
            client.create_game(GAME, VARIANT, 3)
            error = refused(lambda: client.create_game(GAME, VARIANT, 3))
            assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "at most 6 a minute" in (error.details() or "")
            assert client.list_games().games  # other calls are not limited
    finally:
        server.stop()


def test_a_create_rate_bucket_refills_with_time_and_is_kept_per_peer() -> None:
    limit = CreateRateLimit(per_minute=60, burst=1)
    assert limit.allow("a", now=0.0)
    assert not limit.allow("a", now=0.5)
    assert limit.allow("b", now=0.5)  # another address has its own bucket
    assert limit.allow("a", now=1.6)  # one token a second
    assert peer_host("ipv4:10.0.0.7:51234") == "10.0.0.7"
    assert peer_host("ipv6:[::1]:51234") == "::1"


# -- expiry and the bounded autoplay ------------------------------------------------------
@pytest.fixture
def short_lived(own_redis_url: str) -> Iterator[str]:
    """A server whose games expire after 1 s idle and that abandons a game after 5 server
    decisions in a row."""
    server = BackgroundServer(own_redis_url, idle_ttl=1, rules=ServerRules(autoplay_limit=5))
    yield f"127.0.0.1:{server.start()}"
    server.stop()


def test_a_waiting_game_nobody_joins_expires(short_lived: str, own_redis_url: str) -> None:
    redis_url = own_redis_url
    with CuriaClient(short_lived) as client:
        game = client.create_game(GAME, VARIANT, 3, open_seats=(2,))
        store = redis.Redis.from_url(redis_url)
        ttl = store.ttl(f"curia:{{{game.game_id}}}:game")
        assert ttl != -1 and ttl <= 61  # a TTL from the start (-2: already gone)

        def gone() -> bool:
            try:
                client.view(game.game_id)
            except grpc.RpcError as error:
                return (error.code() == grpc.StatusCode.NOT_FOUND
                        and not store.sismember("curia:active", game.game_id))
            return False
        wait_until(gone, 15.0, message="the waiting game to expire and leave the index")


def test_a_started_game_nobody_plays_ends_as_abandoned(short_lived: str) -> None:
    with CuriaClient(short_lived) as client:
        game = new_game(client, seed=4)
        wait_until(lambda: client.view(game.game_id).status == pb.GAME_STATUS_FINISHED, 15.0,
                   message="the idle game to be abandoned")
        view = client.view(game.game_id, game.tokens[0])
        assert view.result.reason.startswith("abandoned: no seat decided")
        assert not view.legal_decisions and not view.to_move
        error = refused(lambda: client.submit(game.game_id, game.tokens[0], view.version,
                                              "pass"))
        assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
        record = client.record(game.game_id)
        assert record.result.reason == view.result.reason
        assert len(record.decisions) == view.version == 0


def test_server_decisions_in_a_row_are_bounded(short_lived: str) -> None:
    """A game whose seats all time out is not played to its end by the server."""
    with CuriaClient(short_lived) as client:
        game = client.create_game(GAME, VARIANT, 3, seed=5, decision_ms=1)
        wait_until(lambda: client.view(game.game_id).status == pb.GAME_STATUS_FINISHED, 15.0,
                   message="the game to be abandoned")
        view = client.view(game.game_id)
        assert view.version == 5
        assert "5 decisions in a row were the server's" in view.result.reason
        # a watcher of the whole game is told how it ended, and the stream closes
        last = list(client.watch(game.game_id, "", 0))[-1]
        assert last.view.status == pb.GAME_STATUS_FINISHED
        assert last.view.result.reason == view.result.reason


def test_a_seat_deciding_resets_the_autoplay_count(short_lived: str) -> None:
    with CuriaClient(short_lived) as client:
        game = client.create_game(GAME, VARIANT, 3, seed=6)
        for seat in game.seats[1:]:
            client.resign(game.game_id, seat.token, "gone")
        for _ in range(8):  # seat 0 plays on; the server decides for 1 and 2 in between
            view = client.view(game.game_id, game.seats[0].token)
            client.submit(game.game_id, game.seats[0].token, view.version,
                          view.legal_decisions[0])
        view = client.view(game.game_id)
        assert view.status == pb.GAME_STATUS_IN_PROGRESS
        assert view.version > 8 + 5  # more than the limit of server decisions, all told


# -- the embedded Redis -------------------------------------------------------------------
def test_the_embedded_redis_requires_its_password_and_keeps_its_files_private(
        tmp_path: Path) -> None:
    data = tmp_path / "redis"
    with EmbeddedRedis(data) as embedded:
        with redis.Redis(host="127.0.0.1", port=embedded.port) as anonymous, \
                pytest.raises(redis.AuthenticationError):
            anonymous.set("x", "1")
        with redis.Redis.from_url(embedded.url) as owner:
            owner.set("x", "1")
            assert owner.config_get("maxmemory-policy") == {"maxmemory-policy": "noeviction"}
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    files = [p for p in data.rglob("*") if p.is_file()]
    assert any("appendonly" in p.name for p in files)
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in files), \
        {p.name: oct(p.stat().st_mode) for p in files}
    assert embedded.password and embedded.password not in (data / "redis.conf").name
    with EmbeddedRedis(data) as again:  # a restart on the same data keeps the password
        assert again.password == embedded.password
        with redis.Redis.from_url(again.url) as owner:
            assert owner.get("x") == b"1"


# -- exact validation ---------------------------------------------------------------------
def test_a_request_id_reused_for_another_decision_is_refused(client: CuriaClient) -> None:
    game = new_game(client, seed=8)
    mover = client.view(game.game_id).to_move[0]
    token = game.tokens[mover]
    view = client.view(game.game_id, token)
    first, other = view.legal_decisions[0], view.legal_decisions[-1]
    assert first.notation != other.notation
    applied = client.submit(game.game_id, token, view.version, first, request_id="rid-1")
    before = client.view(game.game_id)
    error = refused(lambda: client.submit(game.game_id, token, view.version, other,
                                          request_id="rid-1"))
    assert error.code() == grpc.StatusCode.ALREADY_EXISTS
    assert "was not applied" in (error.details() or "")
    assert client.view(game.game_id) == before
    again = client.submit(game.game_id, token, view.version, first, request_id="rid-1")
    assert again.duplicate and again.version == applied.version


def test_reflection_is_served_as_v1_and_v1alpha(server: str) -> None:
    with grpc.insecure_channel(server) as channel:
        for name in ("grpc.reflection.v1.ServerReflection",
                     "grpc.reflection.v1alpha.ServerReflection"):
            call = channel.stream_stream(
                f"/{name}/ServerReflectionInfo",
                request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
                response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)
            answers = list(call(iter([reflection_pb2.ServerReflectionRequest(
                list_services="")]), timeout=5))
            services = {s.name for s in answers[0].list_services_response.service}
            assert "curia.v1.GameService" in services, name
            assert "grpc.reflection.v1.ServerReflection" in services
            for listed in services:  # and every service listed can be described
                described = list(call(iter([reflection_pb2.ServerReflectionRequest(
                    file_containing_symbol=listed)]), timeout=5))[0]
                assert described.HasField("file_descriptor_response"), (name, listed)


def test_bot_processes_never_inherit_the_operator_credential(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The arena holds the operator credential to create games; its bots (and the stdio
    bridge's bot) must not: they would then be able to create games themselves."""
    from hosting.launcher import bot_environment
    from hosting.stdio_bridge import SECRET_ENV

    monkeypatch.setenv("CURIA_ADMIN_TOKEN_FILE", "/etc/curia/operator.token")
    monkeypatch.setenv("CURIA_TLS_CA", "/etc/curia/ca.pem")
    env = bot_environment()
    assert "CURIA_ADMIN_TOKEN_FILE" not in env
    assert env["CURIA_TLS_CA"] == "/etc/curia/ca.pem"  # TLS settings do reach the bots
    assert "CURIA_ADMIN_TOKEN_FILE" in SECRET_ENV and "CURIA_SEAT_TOKEN" in SECRET_ENV


def test_a_remembered_token_is_refused_once_its_seat_has_another_token(redis_url: str) -> None:
    """The keeper remembers the seat each token matched, so a stream's next request costs
    one comparison (issue 35). Should the game's seat hold another token's hash since (a
    rollback lost the join, and someone else took the seat), the old token is refused,
    not served from memory; the other seats' tokens still serve."""
    async def body() -> None:
        store = GameStore.from_url(redis_url)
        keeper = GameKeeper(store)
        try:
            created = await keeper.create(pb.CreateGameRequest(
                game="municipium", variant="revised", num_seats=2, seed=3))
            tokens = {seat.seat: seat.token for seat in created.seats}
            stored = await keeper.load(created.game_id)
            assert keeper.seat_of(stored, tokens[1], required=True) == 1
            assert keeper.seat_of(stored, tokens[1], required=True) == 1  # remembered
            stored.token_hashes[1] = token_hash("the token of whoever took the seat since")
            with pytest.raises(ServiceError) as refusal:
                keeper.seat_of(stored, tokens[1], required=True)
            assert refusal.value.code == grpc.StatusCode.UNAUTHENTICATED
            assert keeper.seat_of(stored, tokens[0], required=True) == 0
        finally:
            await store.close()
    asyncio.run(body())
