"""The `curia` command: play, simulate, games, argument errors, replayable records; the
in-process games behind it (`arena.local`) and the one way results print (`curia_api.render`)."""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.local import GameSpec, GameSummary, SeriesStats, play_game, replay, seating
from curia.cli import main
from curia_api.render import final_of_state, final_of_view, result_lines
from games import GAMES, default_game
from service.views import build_view

ROOT = Path(__file__).resolve().parents[1]
#: The subcommands on the shipped game, named (it is the default only while it is the one).
M_PLAY = ["play", "--game", "municipium"]
M_SIMULATE = ["simulate", "--game", "municipium"]
PLAY = [*M_PLAY, "--variant", "classic",
        "--seats", "random,greedy,random", "--seed", "7"]
DECISION_LINE = re.compile(r"^ *(setup|\d+) (blue|orange|yellow|black|pink) +\S")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_play_prints_a_line_per_decision_then_the_result(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *PLAY)
    assert code == 0
    lines = out.splitlines()
    decisions = [line for line in lines if DECISION_LINE.match(line)]
    _, record_out, _ = run(capsys, *PLAY, "--json")
    record = json.loads(record_out)
    assert len(decisions) == len(record["decisions"])
    assert [line.split(maxsplit=2)[2] for line in decisions] == record["decisions"]
    assert "citizen event at" in out and "praefect visits" in out
    assert "result: a family reached 5 Decurions" in out
    assert re.search(r"^  1\. \w+ +\w+ +decurions 5, citizens\+favours \d+, favours \d+$",
                     out, re.M)
    assert lines[-1].startswith("game length:")


def test_play_quiet_prints_only_the_result(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *PLAY, "--quiet")
    assert code == 0
    assert out.startswith("result:")
    assert not any(DECISION_LINE.match(line) for line in out.splitlines())


def test_play_json_record_replays_to_the_same_final_state(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *PLAY, "--option", "target_decurions=4", "--max-turns", "300")
    assert code == 0
    code, out, _ = run(capsys, *PLAY, "--option", "target_decurions=4", "--max-turns", "300",
                       "--json")
    record = json.loads(out)
    assert record["seed"] == 7 and record["seats"] == ["random", "greedy", "random"]
    assert record["options"] == {"target_decurions": 4, "max_turns": 300}
    spec = GameSpec(record["game"], record["variant"], tuple(record["seats"]), record["options"])
    state = replay(spec, record["seed"], record["decisions"])
    assert hashlib.sha256(state.to_bytes()).hexdigest() == record["final_state_sha256"]
    assert state.result() is not None
    assert state.result().to_json() == record["result"]  # type: ignore[union-attr]


def test_play_stops_at_the_max_turns_limit(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *PLAY, "--max-turns", "3", "--quiet")
    assert code == 0
    assert "the limit of 3 turns was reached: ranked as it stands" in out


@pytest.mark.parametrize("module", ["curia.cli", "curia"])
def test_play_in_a_real_process(module: str) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p))
    done = subprocess.run([sys.executable, "-m", module, *PLAY, "--quiet"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "result:" in done.stdout
    bad = subprocess.run([sys.executable, "-m", module, *M_PLAY, "--seats", "random,random"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
    assert "3-5 families" in bad.stderr


@pytest.mark.parametrize(("argv", "message"), [
    ([*M_PLAY, "--seats", "random,smart,random"], "unknown bot 'smart'"),
    ([*M_PLAY, "--seats", "random,,random"], "bot names separated by commas"),
    ([*M_PLAY, "--seats", "random,greedy"], "Municipium classic takes 3-5 families, not 2"),
    ([*M_PLAY, "--variant", "revised", "--seats", "random,random,random,random,random"],
     "2-4 families"),
    ([*M_PLAY, "--variant", "deluxe"], "unknown Municipium variant 'deluxe'"),
    (["play", "--game", "chess"], "invalid choice: 'chess'"),
    ([*M_PLAY, "--option", "speed=3"], "unknown option 'speed'"),
    ([*M_PLAY, "--option", "target_decurions"], "expected KEY=VALUE"),
    ([*M_PLAY, "--option", "target_decurions=9"],
     "target_decurions must be an integer from 4 to 5"),
    ([*M_PLAY, "--max-turns", "0"], "max_turns must be an integer"),
    ([*M_PLAY, "--seed", "x"], "invalid int value"),
    ([*M_PLAY, "--quiet", "--json"], "not allowed with"),
    ([*M_PLAY, "--seats", "human,random,random"], "a human seat is played in the browser"),
    ([*M_PLAY, "--seats", "human,random,random", "--server", "localhost:1"],
     "add --service (or --server with --web-url)"),
    ([*M_PLAY, "--service", "--web-url", "http://127.0.0.1:1"], "use it with --server"),
    ([*M_SIMULATE, "--seats", "human,random,random"], "a human seat is played in the browser"),
    ([*M_SIMULATE, "-n", "0"], "-n must be at least 1"),
    ([*M_SIMULATE, "--workers", "0"], "--workers must be at least 1"),
    ([*M_SIMULATE, "--seats", "greedy"], "3-5 families"),
    ([], "required: COMMAND"),
    (["fly"], "invalid choice: 'fly'"),
])
def test_bad_arguments_exit_2_with_a_message(capsys: pytest.CaptureFixture[str],
                                             argv: list[str], message: str) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert message in err
    assert "usage: curia" in err


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "simulate", "--help")
    assert code == 0
    assert "rotates" in out


def test_simulate_prints_the_statistics(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, *M_SIMULATE, "-n", "5", "--seats", "greedy,random,random",
                         "--seed", "3")
    assert code == 0
    for text in ("games: 5 in", "games/s", "decisions/s", "mean game length:",
                 "end reasons (of 5): target 5",
                 "win rate by seat position (a win tied between k seats counts 1/k",
                 "seat 0 (blue", "seat 2 (yellow", "mean rank"):
        assert text in out, text
    assert re.search(r"^  greedy +5 +[\d.]+% +[\d.]+$", out, re.M)
    assert re.search(r"^  random +10 +[\d.]+% +[\d.]+$", out, re.M)
    assert "\r[" in err and "5/5 games" in err


def test_simulate_counts_games_ended_by_the_limit(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *M_SIMULATE, "-n", "3", "--max-turns", "4", "--no-progress",
                       "--json")
    assert code == 0
    figures = json.loads(out)
    assert figures["ended_by_max_turns"] == 3
    assert figures["mean_turns"] == 4
    assert sum(figures["seat_win_rate"]) == pytest.approx(1)


def test_simulate_with_workers_gives_the_same_figures(
        capsys: pytest.CaptureFixture[str]) -> None:
    timing = ("seconds", "games_per_s", "decisions_per_s")
    figures = []
    for workers in ("1", "2"):
        code, out, _ = run(capsys, *M_SIMULATE, "-n", "4", "--seats", "greedy,random,random",
                           "--workers", workers, "--no-progress", "--json")
        assert code == 0
        figures.append({k: v for k, v in json.loads(out).items() if k not in timing})
    assert figures[0] == figures[1]


def test_seating_rotates_so_each_entry_plays_each_seat() -> None:
    bots = ("greedy", "random", "minimax")
    seen = {(seat, name) for i in range(3) for seat, name in enumerate(seating(bots, i, True))}
    assert seen == {(seat, name) for seat in range(3) for name in bots}
    assert seating(bots, 5, False) == bots


def test_series_stats_share_tied_wins_and_ranks() -> None:
    stats = SeriesStats(3)
    stats.add(GameSummary(0, 1, ("greedy", "random", "random"), ((0, 1), (2,)), "target",
                          10, 50))
    stats.add(GameSummary(1, 2, ("random", "greedy", "random"), ((1,), (0, 2)), "max_turns",
                          20, 70))
    figures = stats.to_json(seconds=2.0)
    assert figures["seat_win_rate"] == [0.25, 0.75, 0.0]
    assert figures["bots"]["greedy"] == {"games": 2, "win_rate": 0.75, "mean_rank": 1.0}
    assert figures["bots"]["random"] == {"games": 4, "win_rate": 0.125, "mean_rank": 2.0}
    assert figures["mean_turns"] == 15 and figures["mean_decisions"] == 60
    assert figures["ended_by_max_turns"] == 1
    assert figures["games_per_s"] == 1.0


# ---------------------------------------------------------------------------------------
# Games where several seats decide at once; bots that do not play a game; `curia games`
# ---------------------------------------------------------------------------------------
@pytest.fixture
def guess() -> Iterator[str]:
    """The test tree's game of simultaneous secret choices, registered for one test (and
    unregistered after it unless it was registered before, so that other tests see the
    registry they expect)."""
    name, module = "guess", "tests.plugins.guess"
    registered = name in GAMES
    GAMES[name] = importlib.import_module(module).GAME
    yield name
    if not registered:
        del GAMES[name]
        sys.modules.pop(module, None)  # a later import registers it again


def test_play_game_asks_each_seat_of_a_simultaneous_decision_in_seat_order(
        guess: str) -> None:
    spec = GameSpec(guess, "standard", ("random", "random"), {"rounds": 3})
    asked: list[tuple[tuple[int, ...], int]] = []
    record = play_game(spec, 4, before_step=lambda state, seat: asked.append(
        (state.to_move(), seat)))
    assert asked[:2] == [((0, 1), 0), ((1,), 1)]  # both must choose: seat 0, then seat 1
    assert [seat for _, seat in asked] == [0, 1] * 3
    assert record.result is not None and record.turns == 3
    assert replay(spec, 4, record.decisions).to_bytes() == record.state.to_bytes()


def test_play_refuses_a_bot_that_does_not_play_the_game(
        capsys: pytest.CaptureFixture[str], guess: str) -> None:
    code, _, err = run(capsys, "play", "--game", guess, "--seats", "greedy,random")
    assert code == 2
    assert "usage: curia" in err
    assert "bot 'greedy' plays only " in err and "not guess; bots for guess: random" in err


def test_play_defaults_to_the_games_first_variant_and_random_bots(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *M_PLAY, "--seed", "3", "--json")
    assert code == 0
    record = json.loads(out)
    assert (record["game"], record["variant"]) == ("municipium", "classic")
    assert record["seats"] == ["random"] * 3
    assert record["seat_names"] == ["blue", "orange", "yellow"]


def test_without_a_game_play_takes_the_one_shipped_game_or_asks_for_one(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "play", "--seed", "3", "--quiet")
    if default_game() is None:
        assert code == 2 and "--game" in err
    else:
        assert code == 0 and out.startswith("result:")


def test_games_lists_variants_options_flags_and_bots(capsys: pytest.CaptureFixture[str],
                                                     guess: str) -> None:
    code, out, _ = run(capsys, "games")
    assert code == 0
    entries = {entry.split()[0]: entry for entry in out.split("\n\n")}
    assert sorted(entries) == sorted(GAMES)
    municipium, other = entries["municipium"], entries[guess]
    assert other.splitlines()[0] == "guess (Guess)"
    assert "  variant standard (2-2 players, the default): nine cards" in other
    assert "  option rounds=3 (1 to 4): cards dealt to each player (rounds)" in other
    assert "  simultaneous decisions: yes; private information: yes" in other
    assert other.splitlines()[-1] == "  bots: random"
    assert "  variant classic (3-5 families, the default)" in municipium
    assert "  variant revised (2-4 families)" in municipium
    assert "  option target_decurions=5 (4 to 5)" in municipium
    assert "  simultaneous decisions: no; private information: no" in municipium
    assert municipium.splitlines()[-1] == "  bots: greedy, random"


# ---------------------------------------------------------------------------------------
# One way to print a result
# ---------------------------------------------------------------------------------------
def test_a_result_prints_the_same_from_the_engine_and_from_a_service_view() -> None:
    spec = GameSpec("municipium", "classic", ("greedy", "random", "random"))
    record = play_game(spec, 7)
    state = record.state
    view = build_view("g", {"seat_names": state.seat_names()}, state, len(record.decisions),
                      "finished", None, 0, {})
    here = result_lines(final_of_state(state, players=spec.bots,
                                       decisions=len(record.decisions)))
    there = result_lines(final_of_view(view, options=state.options, players=spec.bots))
    assert here == there
    assert here[0] == "result: a family reached 5 Decurions"
    assert here[-1] == f"game length: {record.turns} turns, {len(record.decisions)} decisions"


def test_a_forfeited_seat_prints_last_and_marked() -> None:
    record = play_game(GameSpec("municipium", "classic", ("random",) * 3), 2)
    state = record.state
    view = build_view("g", {"seat_names": state.seat_names()}, state, 9, "finished", None, 0,
                      {0: "timeout", 2: "illegal"})
    lines = result_lines(final_of_view(view, options=state.options))
    assert re.match(r"^  1\. orange +decurions \d", lines[1])
    assert re.match(r"^  2= blue +decurions .*  \(forfeited\)$", lines[2])
    assert re.match(r"^  2= yellow +decurions .*  \(forfeited\)$", lines[3])
    assert lines[-1] == f"game length: {state.turn_number()} turns, 9 decisions"
    assert result_lines(None) == ["the game did not finish"]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_curia_replay_reads_what_curia_play_json_prints(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, game: str) -> None:
    """A game played in this process replays as a page whose last frame is its end: the
    record `curia play --json` prints has no seats per decision, they are found again."""
    from tests.web.test_site import frames_of

    _, printed, _ = run(capsys, "play", "--game", game, "--seed", "5", "--json")
    record = json.loads(printed)
    path = tmp_path / "local.json"
    path.write_text(printed)
    code, out, err = run(capsys, "replay", str(path), "-o", str(tmp_path / "r.html"))
    assert code == 0, err
    frames = frames_of(tmp_path / "r.html")
    assert [f["version"] for f in frames] == list(range(len(record["decisions"]) + 1))
    assert frames[-1]["result"], "the last frame carries the result"


def test_a_record_that_is_none_is_refused_in_one_complete_sentence(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"record": {"result": 5}}')
    code, _, err = run(capsys, "replay", str(path))
    assert code == 2
    assert "not a game record" in err and err.rstrip().endswith("NNNNN.json files")
