"""Hosted seats only while a worker is live, void games for seats no worker took, the
result and its rating-history entry in one script, one log line per outage. A real Redis,
a real service, the real agent; the workers' heartbeats are written here as
`curia league worker` writes them (service/leagues.py)."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from redis import Redis
from redis.asyncio import Redis as AsyncRedis

import league.agent as agent_module
from client.unary import CuriaClient
from curia.cli import main
from curia_api.v1 import game_service_pb2 as pb
from hosting.worker import GROUP, jobs_key
from league.agent import LeagueAgent
from league.ladder import ladder, ladder_json
from service.leagues import (
    WORKER_LIVE_MS,
    WORKERS_KEY,
    LeagueReader,
    league_key,
    seats_key,
    worker_key,
)
from service.redis_server import EmbeddedRedis
from service.store import keys as store_keys
from service.store import now_ms
from service.web import league_pages
from tests.leagues import GAME, World, new_league
from tests.timing import wait_until

REPO = Path(__file__).resolve().parents[2]
RANDOM = str(REPO / "bots" / "random_bot" / "bot.toml")


def beat(world: World, name: str, free: int, slots: int = 4, age_ms: int = 0) -> None:
    """A worker's heartbeat, `age_ms` old."""
    ms = now_ms() - age_ms
    world.redis.zadd(WORKERS_KEY, {name: ms})
    world.redis.hset(worker_key(name), mapping={"slots": slots, "free": free, "ms": ms})


@pytest.fixture
def workers(world: World) -> Iterator[None]:
    """No heartbeat before the test, none left after it."""
    def clear() -> None:
        for key in world.redis.scan_iter(worker_key("*")):
            world.redis.delete(key)
        world.redis.delete(WORKERS_KEY)
    clear()
    yield
    clear()


def online(world: World, league: str, *bots: str) -> None:
    for bot in bots:
        world.leagues.add_bot(league, bot)
        world.redis.zadd(league_key(league, "online"), {bot: now_ms() + 60_000})


def seated(world: World, league: str) -> set[str]:
    return {bot for table in world.leagues.live(league).values() for bot in table["seating"]}


def status(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
           world: World) -> str:
    monkeypatch.setenv("CURIA_REDIS_URL", world.redis_url)
    capsys.readouterr()
    assert main(["league", "status"]) == 0
    return capsys.readouterr().out


def test_a_hosted_bot_without_a_live_worker_is_never_seated_and_status_says_so(
        world: World, agent: LeagueAgent, workers: None, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    league = new_league(world, concurrency=2, max_concurrency=4)
    online(world, league.name, "alpha", "beta")
    world.leagues.add_bot(league.name, "hosted", manifest=RANDOM)
    beat(world, "gone", free=4, age_ms=WORKER_LIVE_MS + 1000)  # a dead worker's last beat
    settings = world.leagues.settings(league.name)
    for _ in range(5):
        agent.tend(settings)
    assert seated(world, league.name) == {"alpha", "beta"}  # the others play each other
    assert len(world.leagues.live(league.name)) == 2
    assert not world.redis.xlen(jobs_key(league.name))  # no job for any worker
    line = [text for text in status(monkeypatch, capsys, world).splitlines()
            if "hosted, no worker" in text]
    assert line and "hosted" in line[0].split(":", 1)[1]
    assert world.leagues.no_worker(league.name) == ["hosted"]


def test_a_live_worker_with_room_gets_hosted_seats_up_to_its_free_slots(
        world: World, agent: LeagueAgent, workers: None, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    league = new_league(world, concurrency=2, max_concurrency=4)
    for bot in ("h1", "h2"):
        world.leagues.add_bot(league.name, bot, manifest=RANDOM)
    settings = world.leagues.settings(league.name)
    beat(world, "w1", free=1)  # one free slot: a table of two hosted seats does not fit
    agent.tend(settings)
    assert not world.leagues.live(league.name)
    beat(world, "w1", free=3)
    agent.tend(settings)  # one game (2 seats queued); a second would need 4 slots
    (game_id, table), = world.leagues.live(league.name).items()
    assert set(table["seating"]) == {"h1", "h2"} and set(table["jobs"]) == {"0", "1"}
    assert world.redis.xlen(jobs_key(league.name)) == 2
    with CuriaClient(world.target) as client:  # no clock until the workers' bots are there
        view = client.view(game_id)
    assert view.status == pb.GAME_STATUS_WAITING_FOR_SEATS
    assert sorted(view.absent_seats) == [0, 1]
    assert "hosted, no worker" not in status(monkeypatch, capsys, world)
    assert world.leagues.no_worker(league.name) == []


def test_a_seat_no_worker_took_within_the_grace_is_void_not_rated(
        world: World, agent: LeagueAgent, workers: None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(agent_module, "JOB_GRACE_MS", 300)
    league = new_league(world)
    online(world, league.name, "alpha")
    world.leagues.add_bot(league.name, "hosted", manifest=RANDOM)
    settings = world.leagues.settings(league.name)
    beat(world, "w1", free=2)
    agent.tend(settings)
    (game_id, table), = world.leagues.live(league.name).items()
    world.redis.delete(WORKERS_KEY)  # the worker stopped before it took the job
    def voided() -> bool:
        agent.tend(settings)
        return bool(world.leagues.results(league.name))
    wait_until(voided, 10, message="the game to be void")
    (row,) = world.leagues.results(league.name)
    assert row["game_id"] == game_id and row["rated"] is False
    assert "no worker took the seat of hosted" in row["void"]
    assert row["forfeits"] == [] and row["ranking"] == []  # no forfeit, no result
    assert not world.leagues.live(league.name)
    assert not world.redis.xlen(jobs_key(league.name))  # no worker will start it late
    assert ladder(world.leagues.results(league.name), 10) == []
    last = json.loads(world.redis.lindex(league_key(league.name, "history"), -1) or b"{}")
    assert last["game_id"] == game_id and last["ladder"] == []


def test_a_taken_seat_is_not_void_at_the_grace_only_when_it_never_starts(
        world: World, agent: LeagueAgent, workers: None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(agent_module, "JOB_GRACE_MS", 200)
    league = new_league(world)
    for bot in ("h1", "h2"):
        world.leagues.add_bot(league.name, bot, manifest=RANDOM)
    settings = world.leagues.settings(league.name)
    beat(world, "w1", free=2)
    agent.tend(settings)
    (game_id, table), = world.leagues.live(league.name).items()
    key = jobs_key(league.name)
    world.redis.xgroup_create(key, GROUP, id="0")
    world.redis.xreadgroup(GROUP, "w1", {key: ">"}, count=2)  # a worker takes both jobs
    assert world.redis.xpending(key, GROUP)["pending"] == 2
    wait_until(lambda: now_ms() - table["created_ms"] > 400, 5, message="the grace")
    agent.tend(settings)
    assert game_id in world.leagues.live(league.name)  # its bots are starting (building)
    assert not world.leagues.results(league.name)
    monkeypatch.setattr(agent_module, "START_MS", 300)  # ...and never make contact
    agent.tend(settings)
    (row,) = world.leagues.results(league.name)
    assert row["rated"] is False and "made no contact" in row["void"]


def finished_game(world: World) -> tuple[str, pb.View]:
    with CuriaClient(world.target) as client:
        created = client.create_game(GAME, "", 2)
        for credential in created.seats:  # both resign: the server plays the game out
            client.resign(created.game_id, credential.token)
        wait_until(lambda: client.view(created.game_id).status == pb.GAME_STATUS_FINISHED,
                   30)
        return created.game_id, client.view(created.game_id)


def test_a_result_and_its_history_entry_are_written_together_or_not_at_all(
        world: World, agent: LeagueAgent) -> None:
    league = new_league(world)
    settings = world.leagues.settings(league.name)
    results, history = league_key(league.name, "results"), league_key(league.name, "history")
    table = {"seating": ["a", "b"]}
    first, view = finished_game(world)
    assert agent.record(settings, first, table, view) == 1
    assert agent.record(settings, first, table, view) == 0  # exactly once
    second, view = finished_game(world)
    world.redis.rename(history, "broken-history")  # the history cannot be written...
    world.redis.set(history, "not a list")
    with pytest.raises(Exception, match="WRONGTYPE"):
        agent.record(settings, second, table, view)
    assert world.redis.llen(results) == 1  # ...so the result is not written either
    assert not world.redis.sismember(league_key(league.name, "rated"), second)
    world.redis.rename("broken-history", history)
    assert agent.record(settings, second, table, view) == 1
    rows = world.leagues.results(league.name)
    entries = [json.loads(raw) for raw in world.redis.lrange(history, 0, -1)]
    assert [e["game_id"] for e in entries] == [r["game_id"] for r in rows] == [first, second]
    refit = [{key: round(value, 1) if isinstance(value, float) else value
              for key, value in row.items()} for row in ladder_json(ladder(rows, 10))]
    assert entries[-1]["ladder"] == refit  # the history is the ladder refitted


def test_a_history_entry_fitted_on_stale_results_is_refused_and_fitted_again(
        world: World, agent: LeagueAgent) -> None:
    league = new_league(world)
    settings = world.leagues.settings(league.name)
    history = league_key(league.name, "history")
    game_id, view = finished_game(world)
    keys = [league_key(league.name, part)
            for part in ("rated", "results", "live", "ended", "history")]
    assert agent._record(keys=keys, args=[game_id, "{}", "{}", 1, 0]) == -1  # stale lengths
    assert not world.redis.llen(league_key(league.name, "results"))
    assert not world.redis.llen(history)
    world.redis.rpush(league_key(league.name, "results"), json.dumps(  # another result
        {"game_id": "other", "seating": ["c", "d"], "ranking": [[0], [1]]}))
    assert agent.record(settings, game_id, {"seating": ["a", "b"]}, view) == 1
    entry = json.loads(world.redis.lindex(history, -1) or b"{}")
    assert {row["bot"] for row in entry["ladder"]} == {"a", "b", "c", "d"}


def test_the_agent_logs_one_line_per_outage(world: World, tmp_path: Path,
                                            caplog: pytest.LogCaptureFixture) -> None:
    store = EmbeddedRedis(tmp_path / "redis").start()
    redis = Redis.from_url(store.url, socket_timeout=1, socket_connect_timeout=1)
    client = CuriaClient(world.target)
    agent = LeagueAgent(redis, client)
    stop = threading.Event()
    thread = threading.Thread(target=agent.run, args=(stop,), daemon=True)
    caplog.set_level(logging.INFO, logger="curia.league")

    def lines(text: str) -> int:
        return sum(text in record.getMessage() for record in caplog.records)
    try:
        thread.start()
        wait_until(lambda: redis.ping(), 5)
        store.stop()
        wait_until(lambda: agent.outage.unlogged >= 4, 15,
                   message="rounds failing while Redis is down")
        store.start()
        wait_until(lambda: lines("working again") == 1, 15, message="the outage's end")
    finally:
        stop.set()
        thread.join(timeout=10)
        client.close()
        redis.close()
        store.stop()
    assert lines("unavailable") == 1 and lines("working again") == 1
    assert len([r for r in caplog.records if r.name == "curia.league"]) == 2


def test_the_league_pages_show_a_hosted_bot_while_no_worker_is_live(
        world: World, workers: None) -> None:
    league = new_league(world)
    world.leagues.add_bot(league.name, "hosted", manifest=RANDOM)
    world.leagues.add_bot(league.name, "remote")

    async def read() -> tuple[Any, Any]:
        redis = AsyncRedis.from_url(world.redis_url)
        try:
            reader = LeagueReader(redis)
            return await reader.league(league.name), await reader.bot(league.name, "hosted")
        finally:
            await redis.aclose()
    data, bot = asyncio.run(read())
    assert data["no_worker"] == ["hosted"]
    assert "hosted, no worker" in league_pages.league_page(data)
    assert "hosted, no worker" in league_pages.league_state(data)["sections"]["online"]
    assert "hosted, no worker" in league_pages.bot_page(bot)
    beat(world, "w1", free=0)  # a live worker, busy: the bot waits for a slot, not a worker
    data, bot = asyncio.run(read())
    assert data["no_worker"] == [] and data["workers"] == 1
    assert "no worker" not in league_pages.league_page(data)
    assert "no worker" not in league_pages.bot_page(bot)


@pytest.mark.parametrize("after", ["unended", "ended otherwise"])
def test_a_game_a_rollback_un_ended_is_void_never_a_forfeit(
        world: World, agent: LeagueAgent, workers: None, after: str) -> None:
    """The store rolls back (the game's keys and the league's, as a Redis restarted from
    an older snapshot) to before a game's end that its bots saw and the agent recorded:
    the game is void, whether the agent finds it in progress again or ended another way
    (a seat that no longer follows it timing out)."""
    league = new_league(world, max_games=1)
    online(world, league.name, "alpha", "beta")
    settings = world.leagues.settings(league.name)
    agent.tend(settings)
    (game_id, table), = world.leagues.live(league.name).items()
    seating = table["seating"]
    tokens = [str(world.redis.hget(seats_key(league.name, bot), game_id), "ascii")  # type: ignore[arg-type]
              for bot in seating]
    saved = {key: world.redis.dump(key) for key in [
        *store_keys(game_id), *(seats_key(league.name, bot) for bot in seating),
        *(league_key(league.name, part)
          for part in ("live", "rated", "results", "history", "ended", "last_table",
                       "pairstats"))]}
    with CuriaClient(world.target) as client:
        for token in tokens:  # both resign: the server plays the game out
            client.resign(game_id, token)
        wait_until(lambda: client.view(game_id).status == pb.GAME_STATUS_FINISHED, 30)
        agent.swept.clear()
        agent.tend(settings)
        (recorded,) = world.leagues.results(league.name)
        assert recorded["ranking"] and not recorded.get("void")  # the bots saw this end
        for key, dumped in saved.items():  # the rollback
            world.redis.delete(key)
            if dumped is not None:
                world.redis.restore(key, 0, dumped, replace=True)
        assert client.view(game_id).status == pb.GAME_STATUS_IN_PROGRESS
        assert not world.leagues.results(league.name) and game_id in world.leagues.live(
            league.name)
        if after == "ended otherwise":  # as timeouts of bots no longer following it
            for token in tokens:
                client.resign(game_id, token, "timeout")
            wait_until(lambda: client.view(game_id).status == pb.GAME_STATUS_FINISHED, 30)
        agent.swept.clear()
        agent.tend(settings)
        assert client.view(game_id).status == pb.GAME_STATUS_FINISHED
    (row,) = world.leagues.results(league.name)
    assert row["void"] == agent_module.UNENDED and row["rated"] is False
    assert row["forfeits"] == [] and row["ranking"] == []
    assert not world.leagues.live(league.name)
    last = json.loads(world.redis.lindex(league_key(league.name, "history"), -1) or b"{}")
    assert last["game_id"] == game_id and last["ladder"] == []
