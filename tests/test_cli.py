"""The `curia` command: play, simulate, argument errors, replayable records."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from curia.cli import GameSpec, GameSummary, SeriesStats, main, replay, seating

ROOT = Path(__file__).resolve().parents[1]
PLAY = ["play", "--game", "municipium", "--variant", "classic",
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
    assert "the limit of 3 turns was reached (ruling M23)" in out


@pytest.mark.parametrize("module", ["curia.cli", "curia"])
def test_play_in_a_real_process(module: str) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p))
    done = subprocess.run([sys.executable, "-m", module, *PLAY, "--quiet"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "result:" in done.stdout
    bad = subprocess.run([sys.executable, "-m", module, "play", "--seats", "random,random"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
    assert "3-5 families" in bad.stderr


@pytest.mark.parametrize(("argv", "message"), [
    (["play", "--seats", "random,smart,random"], "unknown bot 'smart'"),
    (["play", "--seats", "random,,random"], "bot names separated by commas"),
    (["play", "--seats", "random,greedy"], "Municipium classic takes 3-5 families, not 2"),
    (["play", "--variant", "revised", "--seats", "random,random,random,random,random"],
     "2-4 families"),
    (["play", "--variant", "deluxe"], "unknown Municipium variant 'deluxe'"),
    (["play", "--game", "chess"], "invalid choice: 'chess'"),
    (["play", "--option", "speed=3"], "unknown option 'speed'"),
    (["play", "--option", "target_decurions"], "expected KEY=VALUE"),
    (["play", "--option", "target_decurions=9"], "target_decurions must be an integer from 4 to 5"),
    (["play", "--max-turns", "0"], "max_turns must be an integer"),
    (["play", "--seed", "x"], "invalid int value"),
    (["play", "--quiet", "--json"], "not allowed with"),
    (["simulate", "-n", "0"], "-n must be at least 1"),
    (["simulate", "--workers", "0"], "--workers must be at least 1"),
    (["simulate", "--seats", "greedy"], "3-5 families"),
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
    code, out, err = run(capsys, "simulate", "-n", "5", "--seats", "greedy,random,random",
                         "--seed", "3")
    assert code == 0
    for text in ("games: 5 in", "games/s", "decisions/s", "mean game length:",
                 "ended by the max_turns limit (M23): 0 of 5",
                 "win rate by seat position (a win tied between k seats counts 1/k",
                 "seat 0 (blue", "seat 2 (yellow", "mean rank"):
        assert text in out, text
    assert re.search(r"^  greedy +5 +[\d.]+% +[\d.]+$", out, re.M)
    assert re.search(r"^  random +10 +[\d.]+% +[\d.]+$", out, re.M)
    assert "\r[" in err and "5/5 games" in err


def test_simulate_counts_games_ended_by_the_limit(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "simulate", "-n", "3", "--max-turns", "4", "--no-progress",
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
        code, out, _ = run(capsys, "simulate", "-n", "4", "--seats", "greedy,random,random",
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
