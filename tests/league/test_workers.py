"""Hosted bots played by `curia league worker`s: jobs in a Redis Stream consumer group, the
bots in their sandbox, a dead worker's games taken over, every result recorded once."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

import pytest

from client.unary import CuriaClient
from curia_api.v1 import game_service_pb2 as pb
from hosting.worker import CLEAN_EXIT_RESTARTS, GROUP, Worker, jobs_key, queue_league_job
from league.agent import LeagueAgent
from tests.leagues import World, new_league
from tests.timing import patient, wait_until

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
    deadline = time.monotonic() + patient(timeout)
    while len(world.leagues.results(league)) < games:
        assert time.monotonic() < deadline, "the league did not play its games"
        agent.tend(settings)
        time.sleep(0.1)
    # the workers acknowledge (and delete) a job once its bot has seen the end and exited
    wait_until(lambda: not world.redis.xlen(jobs_key(league)), 30.0,
               message="the workers to finish every job")


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
    now = int(time.time() * 1000)  # the doomed worker's heartbeat: the matchmaker seats
    world.redis.zadd("curia:workers", {"doomed": now})  # hosted bots only while one is live
    world.redis.hset("curia:worker:doomed", mapping={"slots": 2, "free": 2, "ms": now})
    agent.tend(world.leagues.settings(league.name))
    (game_id,) = world.leagues.live(league.name)
    world.redis.zrem("curia:workers", "doomed")
    world.redis.delete("curia:worker:doomed")
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


def play_with_a_worker(world: World, agent: LeagueAgent, league: str, games: int,
                       logs: Path) -> None:
    _, stop, thread = start_worker(world, logs)
    try:
        play_until(world, agent, league, games)
    finally:
        stop.set()
        thread.join(timeout=30)


def hosted_bot(folder: Path, build: str) -> str:
    """A stdio bot whose manifest's build step (a shell line) must make its bot.py."""
    folder.mkdir()
    (folder / "bot.toml").write_text(
        f'name = "{folder.name}"\nlanguage = "python"\nprotocol = "stdio"\n'
        f'command = ["{{python}}", "bot.py"]\nbuild = ["sh", "-c", {build!r}]\n')
    return str(folder / "bot.toml")


def test_a_worker_builds_a_hosted_bot_once_before_it_plays(
        world: World, agent: LeagueAgent, tmp_path: Path) -> None:
    stdio_bot = REPO / "bots" / "python_stdio" / "bot.py"
    manifest = hosted_bot(tmp_path / "built", f"cp {stdio_bot} bot.py && echo x >> builds")
    league = new_league(world, max_games=2, decision_ms=20_000)
    for name in ("one", "two"):
        world.leagues.add_bot(league.name, name, manifest=manifest)
    play_with_a_worker(world, agent, league.name, 2, tmp_path / "logs")
    results = world.leagues.results(league.name)
    assert not any(r.get("forfeits") for r in results), results  # built, then played
    assert (tmp_path / "built" / "builds").read_text() == "x\n"  # one build, four seats


def test_a_hosted_bot_whose_build_fails_forfeits_its_seat(
        world: World, agent: LeagueAgent, tmp_path: Path) -> None:
    manifest = hosted_bot(tmp_path / "broken", "echo no compiler here >&2; exit 3")
    league = new_league(world, max_games=1, decision_ms=20_000)
    world.leagues.add_bot(league.name, "broken", manifest=manifest)
    world.leagues.add_bot(league.name, "random", manifest=RANDOM)
    play_with_a_worker(world, agent, league.name, 1, tmp_path / "logs")
    (result,) = world.leagues.results(league.name)
    view = CuriaClient(world.target).view(result["game_id"])
    (forfeit,) = [score for score in view.result.scores if score.forfeited]
    assert "building broken failed (exit code 3)" in forfeit.forfeit_reason
    assert not world.redis.xlen(jobs_key(league.name))  # both jobs done


QUITTER = "import sys\nsys.exit(0)\n"  # a gRPC bot that leaves at once, "cleanly"


def test_a_bot_that_exits_cleanly_before_the_end_is_started_again_then_forfeits(
        world: World, agent: LeagueAgent, tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    """A hosted bot that exits with code 0 while its game is not over (as one does that
    saw the end of a game a rollback of the store then un-ended) is started again for its
    seat, `CLEAN_EXIT_RESTARTS` times; one that keeps doing so then forfeits."""
    folder = tmp_path / "quitter"
    folder.mkdir()
    (folder / "bot.py").write_text(QUITTER)
    (folder / "bot.toml").write_text('name = "quitter"\nlanguage = "python"\n'
                                     'protocol = "grpc"\ncommand = ["{python}", "bot.py"]\n')
    league = new_league(world, max_games=1, decision_ms=20_000)
    world.leagues.add_bot(league.name, "quitter", manifest=str(folder / "bot.toml"))
    world.leagues.add_bot(league.name, "random", manifest=RANDOM)
    with caplog.at_level(logging.INFO, logger="curia.league.worker"):
        play_with_a_worker(world, agent, league.name, 1, tmp_path / "logs")
    (result,) = world.leagues.results(league.name)
    quitter = result["seating"].index("quitter")
    assert result["forfeits"] == [quitter]
    assert "exited with code 0" in result["reasons"][str(quitter)]
    again = [r for r in caplog.records if "started again" in r.getMessage()]
    assert len(again) == CLEAN_EXIT_RESTARTS


def test_a_seat_of_a_game_the_league_does_not_know_is_dropped(
        world: World, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A rollback of the store to between a game's creation and the agent's noting of it
    (its live table and its jobs, written at once) leaves a game that waits for ever, no
    league record of it, and a worker still playing its seat (fresh-clone run 5 of stop
    39: the worker's slot never came free). The worker resigns that seat and frees the
    slot; seats of the league's own games are played as before (the tests above)."""
    league = new_league(world, max_games=1, decision_ms=20_000)
    client = CuriaClient(world.target)
    created = client.create_game(league.game, league.variant, league.seats,
                                 decision_ms=20_000, wait_for_players=True)
    token = {seat.seat: seat.token for seat in created.seats}[0]
    queue_league_job(world.redis, league.name, created.game_id, 0, "random", RANDOM, token)
    with caplog.at_level(logging.WARNING, logger="curia.league.worker"):
        worker, stop, thread = start_worker(world, tmp_path / "logs")
        try:
            wait_until(lambda: not world.redis.xlen(jobs_key(league.name)), 30.0,
                       message="the seat of the unknown game dropped")
            wait_until(lambda: not worker.running, 10.0, message="the worker's slot free")
        finally:
            stop.set()
            thread.join(timeout=30)
    assert any("neither live nor recorded" in record.getMessage()
               for record in caplog.records)
    view = client.view(created.game_id)
    assert view.status == pb.GAME_STATUS_WAITING_FOR_SEATS  # seat 1 never came
    assert list(view.forfeited_seats) == [0]  # the dropped seat resigned
