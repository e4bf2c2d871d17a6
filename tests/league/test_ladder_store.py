"""The ladder's pooled statistics in Redis: kept with every result in the script that
records it, taken out by a void, built once for a league stored before them; recording
never reads the list of results (its cost does not grow with the league)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest

from curia_api.v1 import game_service_pb2 as pb
from league.agent import LeagueAgent
from league.ladder import cross_check, ladder, statistics
from league.registry import pair_stats
from service.league_records import HistoryEntry, LeagueError, LiveTable, league_key
from tests.leagues import World, new_league
from tests.timing import patient

BOTS = ("ann", "bob", "cid", "dee", "eve")


def record_games(agent: LeagueAgent, world: World, name: str, count: int, seed: int) -> None:
    """`count` finished 3-seat games recorded as the agent records them."""
    settings = world.leagues.settings(name)
    rng = random.Random(seed)
    for index in range(count):
        seating = rng.sample(BOTS, 3)
        order = rng.sample(range(3), 3)
        view = pb.View(status=pb.GAME_STATUS_FINISHED, lineage=f"l{index}",
                       result=pb.GameResult(ranking=[pb.RankGroup(seats=[s]) for s in order],
                                            reason="target"))
        game_id = f"{name}-{seed}-{index}"
        assert agent.record(settings, game_id, LiveTable(seating=seating), view) == 1


def last_ladder(world: World, name: str) -> list[tuple[str, float, float]]:
    key = league_key(name, "history")
    entry = HistoryEntry.from_json(key, world.redis.lindex(key, -1))
    return [(row.bot, row.elo, row.high) for row in entry.ladder]


def rounded(rows: list) -> list[tuple[str, float, float]]:
    return [(row.rounded().bot, row.rounded().elo, row.rounded().high) for row in rows]


def test_the_stored_statistics_are_those_of_the_results(world: World,
                                                        agent: LeagueAgent) -> None:
    league = new_league(world, seats=3)
    record_games(agent, world, league.name, 30, seed=1)
    results = world.leagues.game_results(league.name)
    assert pair_stats(world.redis, league.name) == statistics(results)
    assert world.redis.exists(league_key(league.name, "pairstats"))
    assert last_ladder(world, league.name) == rounded(ladder(results))


def test_recording_reads_no_stored_result(world: World, agent: LeagueAgent) -> None:
    """A result that cannot be read any more stops nothing: recording reads the
    statistics and the lists' lengths only."""
    league = new_league(world, seats=3)
    record_games(agent, world, league.name, 5, seed=2)
    world.redis.lset(league_key(league.name, "results"), 0, b"not a result")
    record_games(agent, world, league.name, 3, seed=3)
    assert world.redis.llen(league_key(league.name, "results")) == 8


def test_a_void_takes_its_result_out_of_the_statistics(world: World,
                                                       agent: LeagueAgent) -> None:
    league = new_league(world, seats=3)
    record_games(agent, world, league.name, 12, seed=4)
    voided = world.leagues.game_results(league.name)[3].game_id
    world.leagues.void(league.name, voided, "test")
    with pytest.raises(LeagueError, match="void already \\(test\\)"):
        world.leagues.void(league.name, voided, "again")  # refused, the reason kept
    assert world.leagues.game_results(league.name)[3].void == "test"
    results = world.leagues.game_results(league.name)
    assert pair_stats(world.redis, league.name) == statistics(results)
    assert statistics(results).games == 11
    assert last_ladder(world, league.name) == rounded(ladder(results))


def test_a_league_stored_before_the_statistics_gets_them_once(world: World,
                                                              agent: LeagueAgent) -> None:
    league = new_league(world, seats=3)
    record_games(agent, world, league.name, 10, seed=5)
    world.redis.delete(league_key(league.name, "pairstats"))  # as stored before
    record_games(agent, world, league.name, 2, seed=6)
    results = world.leagues.game_results(league.name)
    assert pair_stats(world.redis, league.name) == statistics(results)
    assert statistics(results).games == 12


def test_the_ladder_command_prints_the_pairwise_fit_and_its_cross_check(
        world: World, agent: LeagueAgent) -> None:
    league = new_league(world, seats=3)
    record_games(agent, world, league.name, 40, seed=7)
    results = world.leagues.game_results(league.name)
    env = {**os.environ, "CURIA_REDIS_URL": world.redis_url}

    def printed(*flags: str) -> list[tuple[str, float]]:
        done = subprocess.run([sys.executable, "-m", "curia", "league", "ladder", league.name,
                               "--json", *flags], env=env, capture_output=True, text=True,
                              timeout=patient(60), check=True)
        return [(row["bot"], round(row["elo"])) for row in json.loads(done.stdout)]

    assert printed() == [(row.bot, round(row.elo)) for row in ladder(results)]
    assert printed("--cross-check") == [(row.bot, round(row.elo))
                                        for row in cross_check(results)]
    assert printed() != printed("--cross-check")
