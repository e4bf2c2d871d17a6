"""Leagues end to end: bot keys, the Play stream, the matchmaker, the ladder, the
operator's controls. A real Redis, a real service, real gRPC streams."""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path

import grpc
import pytest
from redis import Redis

from bots.play_client import KeyRefused, PlayClient
from client.unary import CuriaClient
from curia_api.v1 import game_service_pb2 as pb
from curia_api.v1 import game_service_pb2_grpc as pb_grpc
from league.agent import LEASE_MS, LeagueAgent
from league.ladder import ladder
from league.registry import LeagueError
from service.leagues import BOT_KEYS_KEY, key_hash, league_key, seats_key
from service.server import BackgroundServer
from tests.leagues import GAME, World, new_league
from tests.node_bots import node_bot_folder
from tests.timing import patient, wait_until


class RawPlay:
    """A Play stream driven by hand: messages in a queue, requests sent one by one."""

    def __init__(self, target: str, key: str, hello: pb.PlayHello | None = None) -> None:
        self.channel = grpc.insecure_channel(target)
        self.requests: queue.Queue[pb.PlayRequest | None] = queue.Queue()
        self.received: queue.Queue[pb.PlayResponse | grpc.RpcError] = queue.Queue()
        self.requests.put(pb.PlayRequest(hello=hello or pb.PlayHello(concurrency=1)))
        stub = pb_grpc.GameServiceStub(self.channel)
        self.stream = stub.Play(iter(self.requests.get, None),
                                metadata=(("authorization", f"Bearer {key}"),))
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        try:
            for message in self.stream:
                self.received.put(message)
        except grpc.RpcError as error:
            self.received.put(error)

    def next(self, kind: str, timeout: float = 15.0) -> pb.PlayResponse:
        """The next message of `kind` (others are skipped); an RpcError is raised."""
        deadline = time.monotonic() + patient(timeout)
        while True:
            message = self.received.get(timeout=max(0.01, deadline - time.monotonic()))
            if isinstance(message, grpc.RpcError):
                raise message
            if message.WhichOneof("kind") == kind:
                return message

    def send(self, request: pb.PlayRequest) -> None:
        self.requests.put(request)

    def close(self) -> None:
        self.requests.put(None)
        self.stream.cancel()
        self.channel.close()


def refused_code(target: str, key: str) -> grpc.StatusCode:
    play = RawPlay(target, key)
    try:
        with pytest.raises(grpc.RpcError) as refused:
            play.next("welcome")
        return refused.value.code()
    finally:
        play.close()


# -- bot keys -----------------------------------------------------------------------------
def test_a_bot_key_is_shown_once_and_stored_only_as_its_hash(world: World) -> None:
    league = new_league(world)
    key = world.leagues.add_bot(league.name, "alpha")
    assert key.startswith("curia_bot_") and len(key) > 40
    stored = [value for name in world.redis.scan_iter() for value in _values(world.redis, name)]
    assert not any(key.encode() in value for value in stored)
    assert world.redis.hget(BOT_KEYS_KEY, key_hash(key)) == f"{league.name}/alpha".encode()
    with pytest.raises(LeagueError, match="has a bot 'alpha' already"):
        world.leagues.add_bot(league.name, "alpha")


def _values(redis: Redis, name: bytes) -> list[bytes]:
    kind = redis.type(name)
    if kind == b"hash":
        return [*redis.hkeys(name), *redis.hvals(name)]
    if kind == b"string":
        return [redis.get(name) or b""]
    if kind == b"list":
        return list(redis.lrange(name, 0, -1))
    return []


def test_play_refuses_a_missing_wrong_or_revoked_key_and_a_banned_bot(world: World) -> None:
    league = new_league(world)
    key = world.leagues.add_bot(league.name, "alpha")
    assert refused_code(world.target, "") == grpc.StatusCode.UNAUTHENTICATED
    assert refused_code(world.target, key + "x") == grpc.StatusCode.UNAUTHENTICATED
    world.leagues.ban(league.name, "alpha")
    assert refused_code(world.target, key) == grpc.StatusCode.PERMISSION_DENIED
    world.leagues.ban(league.name, "alpha", banned=False)
    new_key = world.leagues.new_key(league.name, "alpha")
    assert refused_code(world.target, key) == grpc.StatusCode.UNAUTHENTICATED
    world.leagues.revoke(league.name, "alpha")
    assert refused_code(world.target, new_key) == grpc.StatusCode.UNAUTHENTICATED


def test_a_closed_league_takes_no_connection(world: World) -> None:
    league = new_league(world)
    key = world.leagues.add_bot(league.name, "alpha")
    world.leagues.set_status(league.name, "closed")
    assert refused_code(world.target, key) == grpc.StatusCode.PERMISSION_DENIED


def test_a_bot_key_is_not_an_operator_credential(tmp_path_factory: pytest.TempPathFactory,
                                                  world: World) -> None:
    """With an operator credential configured, a bot key cannot create games."""
    from client.channels import ClientSecurity
    from service.access import AccessPolicy
    from service.server import ServerRules
    league = new_league(world)
    key = world.leagues.add_bot(league.name, "alpha")
    guarded = BackgroundServer(world.redis_url, rules=ServerRules(AccessPolicy("s3cret")))
    target = f"127.0.0.1:{guarded.start()}"
    try:
        with CuriaClient(target, security=ClientSecurity(admin_token=key)) as client, \
                pytest.raises(grpc.RpcError) as refused:
            client.create_game(GAME, "", 2)
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    finally:
        guarded.stop()


# -- the Play stream ------------------------------------------------------------------------
def test_a_bot_plays_its_games_on_one_stream_and_never_sees_a_seat_token(
        world: World, agent: LeagueAgent) -> None:
    league = new_league(world, max_games=1)
    keys = {bot: world.leagues.add_bot(league.name, bot) for bot in ("alpha", "beta")}
    streams = {bot: RawPlay(world.target, key) for bot, key in keys.items()}
    try:
        for bot, play in streams.items():
            welcome = play.next("welcome").welcome
            assert (welcome.bot, welcome.league, welcome.concurrency) == (bot, league.name, 1)
        wait_until(lambda: len(world.leagues.online(league.name)) == 2, 5)
        assert agent.start_games(world.leagues.settings(league.name)) == 1
        started = {bot: play.next("game_started").game_started
                   for bot, play in streams.items()}
        game_id = started["alpha"].game_id
        assert started["beta"].game_id == game_id
        assert {started[b].seat for b in started} == {0, 1}
        assert list(started["alpha"].seat_names) == \
            [b for b in sorted(started, key=lambda b: started[b].seat)]
        tokens = [token for bot in keys
                  for token in world.redis.hvals(seats_key(league.name, bot))]
        seen: list[bytes] = []
        _play_out(streams, game_id, seen)
        assert not any(token in message for token in tokens for message in seen)
        assert agent.record_finished(world.leagues.settings(league.name)) == 1
        assert [r["game_id"] for r in world.leagues.results(league.name)] == [game_id]
        assert not world.redis.hlen(seats_key(league.name, "alpha"))
    finally:
        for play in streams.values():
            play.close()


def _play_out(streams: dict[str, RawPlay], game_id: str, seen: list[bytes]) -> None:
    """Answer every turn with the first legal decision until both streams see the end."""
    ended: set[str] = set()
    deadline = time.monotonic() + patient(60)
    while len(ended) < len(streams):
        assert time.monotonic() < deadline, "the game did not end"
        for bot, play in streams.items():
            if bot in ended:
                continue
            try:
                message = play.received.get(timeout=0.05)
            except queue.Empty:
                continue
            assert not isinstance(message, grpc.RpcError), message
            seen.append(message.SerializeToString())
            kind = message.WhichOneof("kind")
            if kind == "turn":
                view = message.turn
                play.send(pb.PlayRequest(decision=pb.PlayDecision(
                    game_id=game_id, decision=view.legal_decisions[0],
                    expected_version=view.version, request_id=f"r{view.version}")))
            elif kind == "game_ended":
                assert message.game_ended.game_id == game_id
                ended.add(bot)


def test_a_decision_in_another_bots_game_is_refused_and_changes_nothing(
        world: World, agent: LeagueAgent) -> None:
    league = new_league(world, max_games=1)
    keys = {bot: world.leagues.add_bot(league.name, bot) for bot in ("alpha", "beta")}
    streams = {bot: RawPlay(world.target, key) for bot, key in keys.items()}
    outsider = RawPlay(world.target, world.leagues.add_bot(league.name, "gamma"))
    try:
        outsider.next("welcome")
        outsider.send(pb.PlayRequest(hello=pb.PlayHello(concurrency=0)))  # no new games
        assert outsider.next("welcome").welcome.concurrency == 0
        wait_until(lambda: len(world.leagues.online(league.name)) == 3, 5)
        world.leagues.set_limits(league.name)  # (no change: settings still valid)
        agent.start_games(world.leagues.settings(league.name))
        turn = _first_turn(streams)
        before = CuriaClient(world.target).view(turn.game_id).version
        outsider.send(pb.PlayRequest(decision=pb.PlayDecision(
            game_id=turn.game_id, decision=turn.legal_decisions[0],
            expected_version=turn.version, request_id="steal")))
        refusal = outsider.next("refusal").refusal
        assert refusal.status.code == grpc.StatusCode.NOT_FOUND.value[0]
        assert "gamma" in refusal.status.message and refusal.game_id == turn.game_id
        assert CuriaClient(world.target).view(turn.game_id).version == before
    finally:
        for play in (*streams.values(), outsider):
            play.close()


def _first_turn(streams: dict[str, RawPlay]) -> pb.View:
    deadline = time.monotonic() + patient(15)
    while time.monotonic() < deadline:
        for play in streams.values():
            try:
                message = play.received.get(timeout=0.05)
            except queue.Empty:
                continue
            if not isinstance(message, grpc.RpcError) and message.WhichOneof("kind") == "turn":
                return message.turn
    raise AssertionError("no turn came")


def test_a_reconnected_bot_resumes_its_games(world: World, agent: LeagueAgent) -> None:
    league = new_league(world, max_games=1)
    keys = {bot: world.leagues.add_bot(league.name, bot) for bot in ("alpha", "beta")}
    first = {bot: RawPlay(world.target, key) for bot, key in keys.items()}
    wait_until(lambda: len(world.leagues.online(league.name)) == 2, 5)
    agent.start_games(world.leagues.settings(league.name))
    game_id = first["alpha"].next("game_started").game_started.game_id
    first["alpha"].close()
    again = RawPlay(world.target, keys["alpha"])
    try:
        assert list(again.next("welcome").welcome.game_ids) == [game_id]
        assert again.next("game_started").game_started.game_id == game_id
    finally:
        again.close()
        first["beta"].close()


def test_a_newer_stream_of_a_bot_replaces_the_older(world: World) -> None:
    league = new_league(world)
    key = world.leagues.add_bot(league.name, "alpha")
    older = RawPlay(world.target, key)
    older.next("welcome")
    newer = RawPlay(world.target, key)
    try:
        newer.next("welcome")
        with pytest.raises(grpc.RpcError) as ended:
            older.next("never", timeout=10)
        assert ended.value.code() == grpc.StatusCode.ABORTED
        assert "newer Play stream" in ended.value.details()
    finally:
        older.close()
        newer.close()


# -- the matchmaker and the ladder -----------------------------------------------------
def test_connected_bots_play_rated_games_within_their_concurrency(
        world: World, agent: LeagueAgent) -> None:
    """The Python Play client plays real games; each result is recorded once; no bot
    ever has more games at once than it asked for."""
    league = new_league(world, max_games=8, decision_ms=20_000)
    stop = threading.Event()
    clients = [PlayClient(world.target, world.leagues.add_bot(league.name, name), bot,
                          seed=i, concurrency=concurrency)
               for i, (name, bot, concurrency) in enumerate(
                   [("g", "greedy", 2), ("r1", "random", 1), ("r2", "random", 1)])]
    threads = [threading.Thread(target=c.run, args=(stop,), daemon=True) for c in clients]
    for thread in threads:
        thread.start()
    most = {"g": 0, "r1": 0, "r2": 0}
    try:
        wait_until(lambda: len(world.leagues.online(league.name)) == 3, 10)
        settings = world.leagues.settings(league.name)
        deadline = time.monotonic() + patient(120)
        while len(world.leagues.results(league.name)) < 8:
            assert time.monotonic() < deadline, "the league did not play its games"
            agent.tend(settings)
            for bot in most:
                most[bot] = max(most[bot], world.redis.hlen(seats_key(league.name, bot)))
            time.sleep(0.1)
    finally:
        stop.set()
    results = world.leagues.results(league.name)
    assert len({r["game_id"] for r in results}) == len(results) == 8
    assert most["r1"] <= 1 and most["r2"] <= 1 and most["g"] <= 2
    rows = ladder(results, settings.provisional_games)
    assert {row.bot for row in rows} == {"g", "r1", "r2"}
    assert all(row.low < row.elo < row.high and row.provisional for row in rows)
    history = [json.loads(e) for e in world.redis.lrange(league_key(league.name, "history"),
                                                         0, -1)]
    assert [e["game_id"] for e in history] == [r["game_id"] for r in results]
    assert [row["bot"] for row in history[-1]["ladder"]] == [row.bot for row in rows]
    assert sum(row["games"] for row in history[-1]["ladder"]) == 2 * len(results)


def test_a_finished_game_is_recorded_exactly_once(world: World, agent: LeagueAgent) -> None:
    league = new_league(world)
    settings = world.leagues.settings(league.name)
    created = CuriaClient(world.target).create_game(GAME, "", 2)
    world.redis.hset(league_key(league.name, "live"), created.game_id,
                     json.dumps({"seating": ["a", "b"]}))
    with CuriaClient(world.target) as client:
        for credential in created.seats:  # both resign: the server plays the game out
            client.resign(created.game_id, credential.token)
        wait_until(lambda: client.view(created.game_id).status == pb.GAME_STATUS_FINISHED, 30)
        view = client.view(created.game_id)
    table = {"seating": ["a", "b"]}
    assert agent.record(settings, created.game_id, table, view) == 1
    assert agent.record(settings, created.game_id, table, view) == 0
    assert len(world.leagues.results(league.name)) == 1


def test_one_matchmaker_at_a_time_and_a_takeover_when_it_dies(world: World) -> None:
    league = new_league(world)
    with CuriaClient(world.target) as client:
        first, second = LeagueAgent(world.redis, client), LeagueAgent(world.redis, client)
        assert first.hold(league.name)
        assert not second.hold(league.name)
        assert first.hold(league.name)  # renewed
        time.sleep(LEASE_MS / 1000 + 0.2)  # the holder stops renewing
        assert second.hold(league.name)
        assert not first.hold(league.name)


def test_a_paused_league_starts_no_game_and_a_void_leaves_the_ladder(
        world: World, agent: LeagueAgent) -> None:
    league = new_league(world)
    for bot in ("alpha", "beta"):
        world.leagues.add_bot(league.name, bot)
        world.redis.zadd(league_key(league.name, "online"), {bot: time.time() * 1000 + 60_000})
    world.leagues.set_status(league.name, "paused")
    agent.tend(world.leagues.settings(league.name))
    assert not world.leagues.live(league.name)
    world.leagues.set_status(league.name, "open")
    agent.tend(world.leagues.settings(league.name))
    assert len(world.leagues.live(league.name)) == 1
    world.redis.rpush(league_key(league.name, "results"), json.dumps(
        {"game_id": "g1", "seating": ["alpha", "beta"], "ranking": [[0], [1]]}))
    assert {row.bot for row in ladder(world.leagues.results(league.name), 10)} == \
        {"alpha", "beta"}
    world.leagues.void(league.name, "g1", "a bug in the bot's build")
    assert ladder(world.leagues.results(league.name), 10) == []
    last = json.loads(world.redis.lindex(league_key(league.name, "history"), -1))
    assert last["voided"] and last["ladder"] == []  # the pages show the ladder without it
    assert world.leagues.results(league.name)[0]["void"] == "a bug in the bot's build"


def test_the_python_client_stops_on_a_refused_key(world: World) -> None:
    with pytest.raises(KeyRefused):
        PlayClient(world.target, "curia_bot_nope", "random").run()


# -- a bot in another language ---------------------------------------------------------------


@pytest.fixture(scope="module")
def node_bot() -> Path:
    """bots/node_league with its packages (npm install, as the arena builds Node bots)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail("Node.js is missing: apt-get install nodejs npm")
    return node_bot_folder("node_league")


def test_a_node_bot_written_from_the_docs_joins_a_running_league_and_is_rated(
        world: World, agent: LeagueAgent, node_bot: Path) -> None:
    league = new_league(world, max_games=4, decision_ms=20_000)
    stop = threading.Event()
    python = PlayClient(world.target, world.leagues.add_bot(league.name, "py"), "random",
                        concurrency=2)
    threading.Thread(target=python.run, args=(stop,), daemon=True).start()
    key = world.leagues.add_bot(league.name, "node")
    process = subprocess.Popen(
        ["node", "bot.js", "--server", world.target, "--concurrency", "2", "--games", "4"],
        cwd=node_bot, env={"PATH": os.environ["PATH"], "CURIA_BOT_KEY": key},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        settings = world.leagues.settings(league.name)
        deadline = time.monotonic() + patient(120)
        while len(world.leagues.results(league.name)) < 4:
            assert time.monotonic() < deadline, "the league did not play its games"
            assert process.poll() in (None, 0), process.stderr.read() if process.stderr else ""
            agent.tend(settings)
            time.sleep(0.1)
        assert process.wait(timeout=30) == 0
    finally:
        stop.set()
        if process.poll() is None:
            process.kill()
    rows = {row.bot: row for row in ladder(world.leagues.results(league.name), 10)}
    assert rows["node"].games == 4 and rows["node"].low < rows["node"].elo < rows["node"].high
