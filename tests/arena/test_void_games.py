"""Start-up and void games on the real service with real bot processes: a bot's clock
starts at its contact with the game; a bot still starting after `startup_ms` makes the
game void (the host's fault): played again up to VOID_ATTEMPTS, then reported as void and
counted in no rating."""

from __future__ import annotations

import io
import json
from pathlib import Path

from arena.config import TournamentConfig
from arena.report import leaderboard, seat_stats
from arena.runner import VOID_ATTEMPTS, ResultsFile, Tournament, describe
from curia.arena_cli import write_report

REPO = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).resolve().parent / "badbots" / "slowstart"
SLOW, SLOWER = FIXTURE / "bot.toml", FIXTURE / "slower.toml"  # 3 s and 8 s to start


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
    """startup_ms = 4000: the random and stdio bots start well within it, the bot that
    takes 8 s never does."""
    tournament = config(tmp_path, [shipped("random_bot"), shipped("python_stdio"), SLOWER],
                        "seats = 2\nseed = 4\nconcurrency = 2\n[options]\nmax_turns = 6",
                        "decision_ms = 5000\nstartup_ms = 4000")
    outcomes = Tournament(tournament, server, tournament.output).run()
    assert len(outcomes) == 6
    void = [o for o in outcomes if o.void is not None]
    assert {o.index for o in void} == {o.index for o in outcomes
                                       if "slower-start" in o.seating}
    for game in void:
        seat = game.seating.index("slower-start")
        assert game.void == (f"seat {seat} (slower-start) did not start within startup_ms "
                             f"(4000 ms)")
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
    assert "did not start within startup_ms (4000 ms)" in site


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
