"""Whole tournaments on the real service: shipped bots of every language, bad bots, resume."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.config import TournamentConfig
from arena.report import format_leaderboard, leaderboard
from arena.runner import ResultsFile, Tournament
from ratings.records import GameOutcome
from tests.timing import patient

REPO = Path(__file__).resolve().parents[2]
BADBOTS = Path(__file__).resolve().parent / "badbots"


def tournament_file(folder: Path, bots: list[Path], head: str, time: str = "") -> Path:
    body = "".join(f'[[bots]]\nmanifest = "{path}"\n' for path in bots)
    path = folder / "t.toml"
    path.write_text(f'[tournament]\nname = "t"\ngame = "municipium"\n'  # the bots' game
                    f'output = "{folder / "out"}"\n{head}\n[time]\n{time}\n{body}')
    return path


def shipped(name: str) -> Path:
    return REPO / "bots" / name / "bot.toml"


@pytest.fixture(scope="module")
def node_ready() -> None:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are needed for the Node.js bot")


def test_shipped_bots_of_every_language_play_a_tournament_end_to_end(
        tmp_path: Path, node_ready: None) -> None:
    """`curia arena run` as a user runs it: embedded service, 5 seats, every rotation."""
    bots = [shipped(n) for n in
            ("greedy_bot", "random_bot", "node_grpc", "perl_stdio", "python_stdio")]
    config = tournament_file(tmp_path, bots, "seats = 5\nseed = 3\nconcurrency = 2\n"
                                             "build_network = true\n"  # npm install
                                             "[options]\ntarget_decurions = 4",
                             # ten bots of five runtimes start at once, in sandboxes:
                             # the default 10 s was short on a loaded run
                             f"decision_ms = 10000\nstartup_ms = {int(patient(30_000))}")
    done = subprocess.run([sys.executable, "-m", "curia", "arena", "run", str(config),
                           "--no-progress"], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    out = tmp_path / "out"
    outcomes = ResultsFile(out / "results.jsonl").load()
    assert sorted(o.index for o in outcomes) == [0, 1, 2, 3, 4]
    assert all(not o.forfeits for o in outcomes), [o.reasons for o in outcomes]
    seats_of = {name: {o.seating.index(name) for o in outcomes} for name in outcomes[0].seating}
    assert all(seats == set(range(5)) for seats in seats_of.values())
    for name in ("leaderboard.txt", "tournament.json", "games.csv", "ratings.csv"):
        assert (out / name).stat().st_size > 0
    assert (out / "ratings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(list((out / "games").glob("*.json"))) == 5
    assert "±95%" in done.stdout and "crosstable" in done.stdout
    board = (out / "leaderboard.txt").read_text()
    assert all(bot in board for bot in ("greedy", "node-grpc", "perl-stdio", "python-stdio"))


def test_crashing_hanging_and_illegal_bots_lose_and_the_tournament_goes_on(
        tmp_path: Path, server: str) -> None:
    bots = [shipped("random_bot"), *(BADBOTS / b / "bot.toml" for b in
                                     ("crash", "hang", "illegal"))]
    path = tournament_file(tmp_path, bots, "seats = 4\nseed = 5\nconcurrency = 2\n"
                                           "[options]\nmax_turns = 30", "decision_ms = 4000")
    config = TournamentConfig.load(path)
    outcomes = Tournament(config, server, config.output).run()
    assert len(outcomes) == 4, "every game finished"
    reasons = {}
    for outcome in outcomes:
        bad = {seat for seat, name in enumerate(outcome.seating) if name.startswith("bad-")}
        assert set(outcome.forfeits) == bad
        assert outcome.ranking[0] == (outcome.seating.index("random"),), "random wins"
        reasons.update({outcome.seating[s]: r for s, r in outcome.reasons.items()})
    assert reasons["bad-crash"].startswith(("stdio bot exited", "crashed"))
    assert reasons["bad-hang"] == "timeout"
    assert reasons["bad-illegal"] == "illegal"
    logs = list((config.output / "logs").glob("*-bad-crash.log"))
    assert len(logs) == 4 and all(log.exists() for log in logs)
    rows = {row.name: row for row in leaderboard(outcomes)}
    assert rows["bad-hang"].forfeits == 4 and rows["random"].forfeits == 0


def python_only(tmp_path: Path, name: str) -> TournamentConfig:
    folder = tmp_path / name
    folder.mkdir()
    bots = [shipped(n) for n in ("greedy_bot", "random_bot", "python_stdio")]
    path = tournament_file(folder, bots, "seats = 3\nseed = 11\nrounds = 2\nconcurrency = 2\n"
                                         "[options]\ntarget_decurions = 4",
                           "decision_ms = 10000")
    return TournamentConfig.load(path)


def test_a_resumed_tournament_ends_with_the_same_table_as_an_uninterrupted_one(
        tmp_path: Path, server: str) -> None:
    key = tmp_path / "deal.key"  # the same deals in both folders
    whole = python_only(tmp_path, "whole")
    uninterrupted = Tournament(whole, server, whole.output, deal_key=key).run()

    broken = python_only(tmp_path, "broken")
    first = Tournament(broken, server, broken.output, deal_key=key)

    def interrupt(outcomes: list[GameOutcome], total: int) -> None:
        if len(outcomes) >= 2:
            first._stop.set()  # as if the host pressed Ctrl-C after two games

    first.on_result = interrupt
    partial = first.run()
    assert 2 <= len(partial) < len(uninterrupted)
    with (broken.output / "results.jsonl").open("a") as handle:
        handle.write('{"index": 5, "seed"')  # a line torn by a crash: ignored
    resumed = Tournament(broken, server, broken.output, deal_key=key).run()
    assert [o.to_json() for o in resumed] == [o.to_json() for o in uninterrupted]
    assert (format_leaderboard(leaderboard(resumed))
            == format_leaderboard(leaderboard(uninterrupted)))


def test_resuming_into_another_tournaments_folder_is_refused(tmp_path: Path,
                                                             server: str) -> None:
    config = python_only(tmp_path, "one")
    (config.output).mkdir(parents=True)
    (config.output / "tournament.lock.json").write_text(json.dumps({"seed": 999}))
    with pytest.raises(ValueError, match="another tournament"):
        Tournament(config, server, config.output).run()


def test_the_refusal_names_each_setting_that_changed_with_both_values(
        tmp_path: Path, server: str) -> None:
    config = python_only(tmp_path, "one")
    Tournament(config, server, config.output).progress()  # writes the folder's lock
    changed = dataclasses.replace(config, rounds=3, seed=12)
    with pytest.raises(ValueError) as refused:
        Tournament(changed, server, changed.output).progress()
    message = str(refused.value)
    assert "rounds: 2 in the folder, 3 now" in message
    assert "seed: 11 in the folder, 12 now" in message
    assert "options" not in message and "bots" not in message, "only what changed"


def test_sprt_stops_when_it_decides_and_reports_the_verdict(tmp_path: Path) -> None:
    bots = [shipped("greedy_bot"), shipped("random_bot")]
    path = tournament_file(tmp_path, bots, 'seats = 2\nvariant = "revised"\nformat = "sprt"\n'
                                           "seed = 1\nconcurrency = 2\n[sprt]\na = \"greedy\"\n"
                                           'b = "random"\nelo0 = 0\nelo1 = 150\n'
                                           "max_games = 80", "decision_ms = 10000")
    done = subprocess.run([sys.executable, "-m", "curia", "arena", "run", str(path),
                           "--no-progress"], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    played = ResultsFile(tmp_path / "out" / "results.jsonl").load()
    assert 5 <= len(played) < 80, "the test stops early on a clear difference"
    assert "H1 accepted: greedy is stronger than random" in done.stdout
