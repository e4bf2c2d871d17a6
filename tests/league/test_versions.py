"""Bot versions (`curia league new-version`): the next games of a bot count for a new
ladder entry with its own rating and history; the earlier entries keep theirs, get no
new game and keep their pages."""

from __future__ import annotations

import asyncio
import queue
import shutil
from pathlib import Path

import pytest
from redis.asyncio import Redis as AsyncRedis

from client.play import PlayError, PlayStream, StreamRefused
from curia.bot_cli import read_program
from curia_api.v1 import game_service_pb2 as pb
from league.agent import LeagueAgent
from league.ladder import ladder
from service.league_records import LeagueError, league_key, seats_key
from service.leagues import LeagueReader
from service.store import now_ms
from tests.leagues import World, new_league
from tests.servers import REPO
from tests.timing import patient


def online(world: World, league: str, *bots: str) -> None:
    for bot in bots:
        world.leagues.add_bot(league, bot)
        world.redis.zadd(league_key(league, "online"), {bot: now_ms() + 60_000})


def finish(agent: LeagueAgent, world: World, league: str, game_id: str) -> None:
    """The game ends, seat 0 first: recorded as the agent records a finished game."""
    table = world.leagues.tables(league)[game_id]
    view = pb.View(status=pb.GAME_STATUS_FINISHED, lineage="x", result=pb.GameResult(
        ranking=[pb.RankGroup(seats=[0]), pb.RankGroup(seats=[1])], reason="target"))
    assert agent.record(world.leagues.settings(league), game_id, table, view) == 1


def bot_page(world: World, league: str, bot: str) -> dict | None:
    async def read() -> dict | None:
        redis = AsyncRedis.from_url(world.redis_url)
        try:
            return await LeagueReader(redis).bot(league, bot)
        finally:
            await redis.aclose()
    return asyncio.run(read())


def test_a_new_version_starts_a_new_entry_and_the_old_keeps_its_history(
        world: World, agent: LeagueAgent) -> None:
    league = new_league(world, seats=2).name
    online(world, league, "ann", "bob")
    settings = world.leagues.settings(league)
    first = agent.start(settings, ("ann", "bob"))
    finish(agent, world, league, first)

    assert world.leagues.new_version(league, "bob") == "bob@2"
    assert {c.bot for c in agent.candidates(settings)} == {"ann", "bob@2"}
    second = agent.start(settings, ("bob@2", "ann"))
    table = world.leagues.tables(league)[second]
    assert table.seating == ["bob", "ann"] and table.rated_as == ["bob@2", "ann"]
    assert list(agent.client.view(second).players) == ["bob@2", "ann"]  # viewers name them
    assert world.redis.hexists(seats_key(league, "bob"), second)  # the bot plays it
    finish(agent, world, league, second)
    assert not world.redis.hexists(seats_key(league, "bob"), second)

    results = world.leagues.results(league)
    assert [r["seating"] for r in results] == [["ann", "bob"], ["bob@2", "ann"]]
    history = world.leagues.redis.lrange(league_key(league, "history"), 0, -1)
    assert len(history) == 2
    rated = {row.bot: row.games for row in ladder(results)}
    assert rated == {"ann": 2, "bob": 1, "bob@2": 1}

    old, new = bot_page(world, league, "bob"), bot_page(world, league, "bob@2")
    assert old is not None and new is not None
    assert old["bot"]["versions"] == new["bot"]["versions"] == ["bob", "bob@2"]
    assert old["bot"]["current"] == new["bot"]["current"] == "bob@2"
    assert [r["game_id"] for r in old["bot"]["recent"]] == [first]
    assert [r["game_id"] for r in new["bot"]["recent"]] == [second]
    assert bot_page(world, league, "bob@3") is None


def test_a_new_version_of_an_unknown_bot_is_refused(world: World) -> None:
    league = new_league(world, seats=2).name
    with pytest.raises(LeagueError, match="no bot 'nobody'"):
        world.leagues.new_version(league, "nobody")


def hello_with_version(world: World, key: str, version: str) -> pb.PlayResponse | PlayError:
    """Open the bot's Play stream with a hello naming `version`: its first message (the
    welcome), or why it was refused."""
    received: queue.Queue[pb.PlayResponse | PlayError] = queue.Queue()
    hello = pb.PlayHello(concurrency=1, client="test", version=version)
    with PlayStream(world.target, key, hello, received.put, give_up_s=patient(10)):
        return received.get(timeout=patient(30))


def test_the_hello_names_a_version_and_a_new_name_starts_the_next(world: World) -> None:
    league = new_league(world, seats=2).name
    key = world.leagues.add_bot(league, "cal")
    assert hello_with_version(world, key, "1.0").WhichOneof("kind") == "welcome"
    entry = world.leagues.entry(league, "cal")
    assert (entry.version, entry.version_label) == (1, "1.0")  # named, not a new entry
    hello_with_version(world, key, "1.0")
    assert world.leagues.entry(league, "cal").version == 1  # the same name: no change
    hello_with_version(world, key, "2.0")
    entry = world.leagues.entry(league, "cal")
    assert (entry.version, entry.version_label) == (2, "2.0")
    assert entry.rated_as("cal") == "cal@2"


def test_a_version_name_too_long_is_refused_and_changes_nothing(world: World) -> None:
    league = new_league(world, seats=2).name
    key = world.leagues.add_bot(league, "dee")
    refused = hello_with_version(world, key, "v" * 41)
    assert isinstance(refused, StreamRefused) and "40 printable" in str(refused), refused
    entry = world.leagues.entry(league, "dee")
    assert (entry.version, entry.version_label) == (1, "")


def test_a_manifest_names_the_version_curia_bot_connect_sends(tmp_path: Path) -> None:
    folder = tmp_path / "kit"
    shutil.copytree(REPO / "bots" / "starters" / "python", folder)
    manifest = folder / "bot.toml"
    manifest.write_text('version = "3.1"\n' + manifest.read_text())
    assert read_program([str(folder)]).version == "3.1"
