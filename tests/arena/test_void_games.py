"""Start-up and void games on the real service with real bot processes: a bot's clock
starts at its contact with the game; a bot still starting after `startup_ms` makes the
game void (the host's fault): played again up to VOID_ATTEMPTS, then reported as void and
counted in no rating."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from arena.config import BotManifest, TournamentConfig
from arena.report import leaderboard, seat_stats
from arena.runner import (
    ARENA_RETRIES,
    FINISHED,
    VOID_ATTEMPTS,
    GameVoid,
    ResultsFile,
    Startup,
    Tournament,
    describe,
    follow_game,
)
from client.retry import RetryingClient
from curia.arena_cli import write_report
from hosting.launcher import BotProcess
from service.server import BackgroundServer

REPO = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).resolve().parent / "badbots" / "slowstart"
# 3 s and 15 s to start (a loaded host starts a bot in up to ~4 s)
SLOW, SLOWER = FIXTURE / "bot.toml", FIXTURE / "slower.toml"


def config(folder: Path, bots: list[Path], head: str, time: str) -> TournamentConfig:
    body = "".join(f'[[bots]]\nmanifest = "{path}"\n' for path in bots)
    path = folder / "t.toml"
    path.write_text(f'[tournament]\nname = "t"\ngame = "municipium"\nvariant = "revised"\n'
                    f'output = "{folder / "out"}"\n{head}\n[time]\n{time}\n{body}')
    return TournamentConfig.load(path)


def shipped(name: str) -> Path:
    return REPO / "bots" / name / "bot.toml"


def test_a_bot_slower_than_startup_ms_gives_void_games_in_the_report_and_no_rating(
        tmp_path: Path, server: str) -> None:
    """startup_ms = 6000: the random and stdio bots start well within it, the bot that
    takes 15 s never does."""
    tournament = config(tmp_path, [shipped("random_bot"), shipped("python_stdio"), SLOWER],
                        "seats = 2\nseed = 4\nconcurrency = 2\n[options]\nmax_turns = 6",
                        "decision_ms = 5000\nstartup_ms = 6000")
    outcomes = Tournament(tournament, server, tournament.output).run()
    assert len(outcomes) == 6
    void = [o for o in outcomes if o.void is not None]
    assert {o.index for o in void} == {o.index for o in outcomes
                                       if "slower-start" in o.seating}
    for game in void:
        seat = game.seating.index("slower-start")
        assert game.void == (f"seat {seat} (slower-start) did not start within startup_ms "
                             f"(6000 ms)")
        assert game.attempts == VOID_ATTEMPTS and game.ranking == ()
    played = [o for o in outcomes if o.void is None]
    assert len(played) == 2 and all(o.attempts == 1 and o.ranking for o in played)

    assert {row.name for row in leaderboard(outcomes)} == {"random", "python-stdio"}
    assert [row.games for row in seat_stats(outcomes)] == [2, 2]
    again = ResultsFile(tournament.output / "results.jsonl").load()
    assert sorted(again, key=lambda o: o.index) == outcomes, "void games resume as such"
    assert Tournament(tournament, server, tournament.output).progress().left == 0

    logs = tournament.output / "logs"
    first = void[0]
    name = f"{first.index:05d}-seat{first.seating.index('slower-start')}-slower-start"
    assert {p.name for p in logs.glob(f"{name}*")} == {
        f"{name}.void{n}.log" for n in range(1, VOID_ATTEMPTS + 1)}
    assert "arena: void, attempt 1 of 3: seat" in (logs / f"{name}.void1.log").read_text()
    assert "arena: attempt 3 of 3 of this game" in (logs / f"{name}.void3.log").read_text()

    out = io.StringIO()
    write_report(outcomes, tournament.output, describe(tournament), out)
    board = (tournament.output / "leaderboard.txt").read_text()
    assert "void games (the host's fault: not counted)" in board
    assert f"4 void game(s) of 6, counted in no rating; {4 * VOID_ATTEMPTS} attempt(s)" in board
    assert f"game {first.index} ({', '.join(first.seating)}): {first.void}" in board
    leaderboard_text = board.split("crosstable")[0]
    assert "slower-start" not in leaderboard_text
    exported = json.loads((tournament.output / "tournament.json").read_text())
    assert {r["name"] for r in exported["ratings"]} == {"random", "python-stdio"}
    assert exported["void"]["attempts"] == 4 * VOID_ATTEMPTS
    site = (tournament.output / "index.html").read_text()
    assert "Void games" in site and "6 games (4 void)" in site
    assert "did not start within startup_ms (6000 ms)" in site


def test_a_bot_slow_to_start_within_startup_ms_plays_and_loses_no_decision_time(
        tmp_path: Path, server: str) -> None:
    """The bot takes 3 s to start and has 1 s per decision: the clock starts once it has
    made contact, so it plays every decision itself, on time."""
    tournament = config(tmp_path, [shipped("random_bot"), SLOW],
                        "seats = 2\nseed = 6\nconcurrency = 2\n[options]\nmax_turns = 6",
                        "decision_ms = 1000")
    assert tournament.startup_ms == 10_000, "the documented default"
    outcomes = Tournament(tournament, server, tournament.output).run()
    assert len(outcomes) == 2
    for game in outcomes:
        assert game.void is None and game.attempts == 1
        assert not game.forfeits, game.reasons
        assert game.decisions > 0
    assert {row.name for row in leaderboard(outcomes)} == {"random", "slow-start"}


class OwnServer:
    """A server of the test's own, which the test may stop."""

    def __init__(self, redis_url: str) -> None:
        self.background = BackgroundServer(redis_url)
        self.address = f"127.0.0.1:{self.background.start()}"
        self.running = True

    def stop(self) -> None:
        if self.running:
            self.running = False
            self.background.stop()


@pytest.fixture
def own_server(redis_url: str) -> Iterator[OwnServer]:
    running = OwnServer(redis_url)
    yield running
    running.stop()


def launched(stack: ExitStack, manifest: Path, server: str, game_id: str, seat: int,
             token: str, folder: Path) -> BotProcess:
    bot = BotProcess.start(BotManifest.load(manifest), server=server, game_id=game_id,
                           seat=seat, token=token, seed=seat,
                           log_path=folder / f"seat{seat}.log")
    stack.callback(bot.stop)
    return bot


def test_a_game_whose_service_is_away_while_the_bots_start_is_void(
        tmp_path: Path, own_server: OwnServer) -> None:
    address = own_server.address
    with RetryingClient.to(address, ARENA_RETRIES) as client, ExitStack() as stack:
        created = client.create_game("municipium", "revised", 2, seed=3, decision_ms=5000,
                                     on_timeout="forfeit", wait_for_players=True)
        tokens = {c.seat: c.token for c in created.seats}
        bot = launched(stack, shipped("random_bot"), address, created.game_id, 0, tokens[0],
                       tmp_path)
        startup = Startup(2000, launched={0: time.monotonic()})
        own_server.stop()  # before the bot can make contact
        with pytest.raises(GameVoid, match=r"^the service was away while the bots started: "
                                           r"seat 0 \(random\) made no contact within "
                                           r"2000 ms$"):
            follow_game(client, created.game_id, {0: bot}, tokens, 0, startup)
        assert startup.away and 0 not in startup.contact_ms


def test_a_bot_that_exits_before_its_contact_forfeits_and_the_game_counts(
        tmp_path: Path, server: str) -> None:
    quitter = tmp_path / "quit.toml"
    quitter.write_text('name = "quitter"\ncommand = ["{python}", "-c", '
                       '"import sys; sys.exit(3)"]\n')
    with RetryingClient.to(server, ARENA_RETRIES) as client, ExitStack() as stack:
        created = client.create_game("municipium", "revised", 2, seed=5, decision_ms=5000,
                                     on_timeout="forfeit", wait_for_players=True,
                                     options={"max_turns": 4})
        tokens = {c.seat: c.token for c in created.seats}
        bots = {0: launched(stack, quitter, server, created.game_id, 0, tokens[0], tmp_path),
                1: launched(stack, shipped("random_bot"), server, created.game_id, 1,
                            tokens[1], tmp_path)}
        now = time.monotonic()
        startup = Startup(10_000, launched={0: now, 1: now})
        final = follow_game(client, created.game_id, bots, tokens, 0, startup)
    assert final.status == FINISHED and list(final.forfeited_seats) == [0]
    scores = {s.seat: s for s in final.result.scores}
    assert scores[0].forfeit_reason == "crashed: exited with code 3 before the end"
    assert 1 in startup.contact_ms and 0 not in startup.contact_ms
