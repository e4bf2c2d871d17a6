"""Hosted bots played by `curia league worker`s: jobs in a Redis Stream consumer group, the
bots in their sandbox, a dead worker's games taken over, every result recorded once."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from league.agent import LeagueAgent
from league.worker import GROUP, Worker, jobs_key
from service.client import CuriaClient
from tests.league.conftest import World, new_league

REPO = Path(__file__).resolve().parents[2]
RANDOM = str(REPO / "bots" / "random_bot" / "bot.toml")
GREEDY = str(REPO / "bots" / "leges_greedy" / "bot.toml")


def start_worker(world: World, logs: Path, **options: object) -> tuple[Worker, threading.Event,
                                                                       threading.Thread]:
    worker = Worker(world.redis, CuriaClient(world.target), world.target, 2, logs,
                    **options)  # type: ignore[arg-type]
    stop = threading.Event()
    thread = threading.Thread(target=worker.run, args=(stop,), daemon=True)
    thread.start()
    return worker, stop, thread


def play_until(world: World, agent: LeagueAgent, league: str, games: int,
               timeout: float = 120) -> None:
    settings = world.leagues.settings(league)
    deadline = time.monotonic() + timeout
    while len(world.leagues.results(league)) < games:
        assert time.monotonic() < deadline, "the league did not play its games"
        agent.tend(settings)
        time.sleep(0.1)


def test_two_workers_play_the_hosted_bots_games_in_their_sandboxes(
        world: World, agent: LeagueAgent, tmp_path: Path) -> None:
    league = new_league(world, max_games=4, decision_ms=20_000)
    for name, manifest in (("greedy", GREEDY), ("random-a", RANDOM), ("random-b", RANDOM)):
        world.leagues.add_bot(league.name, name, manifest=manifest)
    workers = [start_worker(world, tmp_path / f"w{i}") for i in range(2)]
    try:
        play_until(world, agent, league.name, 4)
    finally:
        for _, stop, thread in workers:
            stop.set()
            thread.join(timeout=30)
    results = world.leagues.results(league.name)
    assert len({r["game_id"] for r in results}) == 4
    assert not any(r.get("forfeits") for r in results), results  # every bot played it out
    logs = [path.read_text() for path in tmp_path.glob("w*/*.log")]
    assert len(logs) == 8 and all("game over" in text for text in logs)
    assert not world.redis.xlen(jobs_key(league.name))  # every job done and deleted


def test_a_dead_workers_game_is_taken_over_and_recorded_once(
        world: World, agent: LeagueAgent, tmp_path: Path) -> None:
    league = new_league(world, max_games=1, decision_ms=30_000)
    world.leagues.add_bot(league.name, "a", manifest=RANDOM)
    world.leagues.add_bot(league.name, "b", manifest=RANDOM)
    agent.tend(world.leagues.settings(league.name))
    (game_id,) = world.leagues.live(league.name)
    doomed = Worker(world.redis, CuriaClient(world.target), world.target, 2, tmp_path / "dead")
    doomed.logs.mkdir()
    doomed.work_once()  # takes both jobs and starts the bots...
    assert len(doomed.running) == 2
    for running in doomed.running.values():  # ...and dies: its bots die with it, no ack
        running.bot.stop(grace=0)
    pending = world.redis.xpending(jobs_key(league.name), GROUP)
    assert pending["pending"] == 2
    heir, stop, thread = start_worker(world, tmp_path / "heir", takeover_ms=1000)
    try:
        play_until(world, agent, league.name, 1, timeout=90)
    finally:
        stop.set()
        thread.join(timeout=30)
    results = world.leagues.results(league.name)
    assert [r["game_id"] for r in results] == [game_id]
    assert not results[0].get("void")
    assert len(list((tmp_path / "heir").glob("*.log"))) == 2
    assert world.redis.xpending(jobs_key(league.name), GROUP)["pending"] == 0
