"""arena.sprt: one A–B result per game, the verdict read in index order, the cap.

The error rates are checked by simulation: bots of known strength, finishing orders drawn
from a Plackett–Luce model with a seeded random.Random, seatings from the real SPRT
schedule with B filling the empty seats (the common case: Municipium needs 3–5 seats).
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

import pytest

from arena.config import TournamentConfig
from arena.ratings import GameOutcome, head_to_head, score_from_elo
from arena.runner import Tournament, describe
from arena.schedule import ScheduledGame, sprt_games
from arena.sprt import (
    SprtSettings,
    ab_score,
    designated_b_seat,
    finished_prefix,
    sequential_test,
    sprt_verdict,
    undecided_share,
    verdict_text,
)
from benchmarks.sprt_error_rates import games as simulated_games
from benchmarks.sprt_error_rates import plackett_luce
from tests.arena.test_ratings import game, void

REPO = Path(__file__).resolve().parents[2]

SIMULATED = SprtSettings(elo0=0, elo1=150, max_games=100_000)
"""Wide hypotheses keep the simulated tests short (about 30 games each); Wald's bounds
promise the same α = β = 5% whatever the hypotheses."""
RUNS = 1000
"""Tests per hypothesis and seat count: a 5% rate is estimated within ±0.7% (one s.e.)."""
TOLERANCE = 0.065
"""5% plus two standard errors; counting every A–B seat pair gave 8–18% (test below)."""


# --- counting ---------------------------------------------------------------------------
def test_a_meets_the_first_b_seat_after_its_own() -> None:
    assert designated_b_seat(("a", "b", "b"), "a", "b") == 1
    assert designated_b_seat(("b", "b", "a"), "a", "b") == 0    # round the table
    assert designated_b_seat(("b", "c", "a", "d", "b"), "a", "b") == 4
    assert designated_b_seat(("a", "c"), "a", "b") is None


def test_the_sprt_schedule_seats_the_designated_b_right_after_a() -> None:
    for seats in (2, 3, 4, 5):
        for field in (["a", "b"], ["a", "b", "c", "d"]):
            for g in islice(sprt_games("a", "b", field, seats, seed=3), 20):
                a_seat = g.seating.index("a")
                assert designated_b_seat(g.seating, "a", "b") == (a_seat + 1) % seats


def test_one_result_per_game_whatever_the_other_b_seats_did() -> None:
    # A second, B ahead of it at seat 1, another B last: one loss, not a loss and a win.
    outcome = game(0, ("a", "b", "b"), [[1], [0], [2]])
    assert ab_score(outcome, "a", "b") == 0.0
    assert head_to_head([outcome], "a", "b") == (1, 0, 1)    # every pair: what it was
    assert ab_score(game(1, ("b", "a", "b"), [[0], [1, 2]]), "a", "b") == 0.5
    assert ab_score(game(2, ("a", "c", "d"), [[0], [1], [2]]), "a", "b") is None


# --- stopping ---------------------------------------------------------------------------
def test_the_verdict_is_taken_at_the_first_crossing_and_kept() -> None:
    settings = SprtSettings(elo0=0, elo1=150)
    verdict = sequential_test([1.0] * 40 + [0.0] * 40, settings)
    assert verdict.status == "H1" and verdict.wins == verdict.games < 40
    assert verdict.losses == 0, "games after the stop do not move the verdict back"


def test_games_are_read_in_index_order_up_to_the_first_unfinished() -> None:
    wins = [game(i, ("a", "b"), [[0], [1]]) for i in range(30)]
    assert [g.index for g in finished_prefix(wins[5:] + wins[:3])] == [0, 1, 2]
    settings = SprtSettings(elo0=0, elo1=150)
    waiting = sprt_verdict(wins[:3] + wins[4:], "a", "b", settings)
    assert (waiting.status, waiting.games) == ("running", 3), "game 3 is still in flight"
    done = sprt_verdict(reversed(wins), "a", "b", settings)
    assert done.status == "H1" and done.games < 30
    assert sprt_verdict(wins, "a", "b", settings) == done, "any finishing order"


def test_the_cap_ends_the_test_undecided() -> None:
    settings = SprtSettings(elo0=0, elo1=50, max_games=10)
    verdict = sequential_test([1.0, 0.0] * 20, settings)
    assert (verdict.status, verdict.games, verdict.wins) == ("max_games", 10, 5)
    assert verdict.stopped and not sequential_test([1.0], settings).stopped


def test_undecided_share_matches_a_simulation() -> None:
    settings = SprtSettings(elo0=0, elo1=50, max_games=60)
    exact = undecided_share(settings, 25)
    rng = random.Random(8)
    win = score_from_elo(25)
    runs = 2000
    undecided = sum(
        sequential_test([float(rng.random() < win) for _ in range(60)], settings).status
        == "max_games" for _ in range(runs))
    assert exact == pytest.approx(undecided / runs, abs=0.02)
    assert undecided_share(SprtSettings(max_games=1), 0) == 1.0


def test_verdict_text_states_the_stop() -> None:
    spec = {"a": "a", "b": "b", "elo0": 0, "elo1": 150, "alpha": 0.05, "beta": 0.05,
            "max_games": 400}
    wins = [game(i, ("a", "b", "b"), [[0], [1], [2]]) for i in range(40)]
    text = verdict_text(wins, spec)
    assert "H1 accepted: a is stronger than b (elo1 = 150)" in text
    assert "finished after it: kept in the tables, not in the verdict" in text
    capped = verdict_text(wins[:4], {**spec, "max_games": 4})
    assert "max_games reached: no decision" in capped and "% of runs end undecided" in capped
    assert "running: 4 of at most 400" in verdict_text(wins[:4], spec)


# --- error rates, simulated -------------------------------------------------------------
def error_rate(seats: int, true_elo: float, wrong: str, count_every_pair: bool = False
               ) -> float:
    """Share of RUNS tests at `true_elo` that accept the `wrong` hypothesis."""
    rng = random.Random(seats * 1000 + int(true_elo))
    wrong_runs = 0
    for _ in range(RUNS):
        games = simulated_games(rng, seats, true_elo)
        scores = (every_pair(games) if count_every_pair
                  else (ab_score(g, "a", "b") for g in games))
        wrong_runs += sequential_test(scores, SIMULATED).status == wrong
    return wrong_runs / RUNS


def every_pair(games: Iterator[GameOutcome]) -> Iterator[float]:
    """The old counting: each A–B seat pair of a game as an independent result."""
    for g in games:
        wins, draws, losses = head_to_head([g], "a", "b")
        yield from [1.0] * wins + [0.5] * draws + [0.0] * losses


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_error_rates_are_as_promised_with_b_in_the_empty_seats(seats: int) -> None:
    false_h1 = error_rate(seats, SIMULATED.elo0, "H1")
    false_h0 = error_rate(seats, SIMULATED.elo1, "H0")
    assert false_h1 <= TOLERANCE and false_h0 <= TOLERANCE, (false_h1, false_h0)


def test_counting_every_seat_pair_breaks_the_promise() -> None:
    """The simulation tells the old counting apart: the test above would catch it."""
    assert error_rate(3, SIMULATED.elo0, "H1", count_every_pair=True) > TOLERANCE


# --- the stop, through the runner (games simulated in place of a server) ----------------
STRENGTH = {"greedy": 10 ** (150 / 400), "random": 1.0}


class SimulatedTournament(Tournament):
    """A Tournament whose games are drawn (Plackett–Luce, seeded by the game) instead of
    played on a server; each takes a random few milliseconds, so they finish out of
    order at a concurrency above 1."""

    def play(self, game: ScheduledGame) -> GameOutcome:
        rng = random.Random(f"{game.deal}/{game.index}")  # the same under any deal key
        time.sleep(rng.random() * 0.004)
        order = plackett_luce(rng, [STRENGTH[name] for name in game.seating])
        return GameOutcome(index=game.index, seed=game.seed, seating=game.seating,
                           ranking=tuple((seat,) for seat in order))


def sprt_config(folder: Path, concurrency: int, elo1: int = 100) -> TournamentConfig:
    bots = "".join(f'[[bots]]\nmanifest = "{REPO / "bots" / name / "bot.toml"}"\n'
                   for name in ("greedy_bot", "random_bot"))
    path = folder / "sprt.toml"
    path.write_text(f'[tournament]\nname = "sprt"\ngame = "municipium"\nseats = 3\n'
                    f'format = "sprt"\nseed = 7\nconcurrency = {concurrency}\n'
                    f'output = "{folder / "out"}"\n[sprt]\na = "greedy"\nb = "random"\n'
                    f"elo0 = 0\nelo1 = {elo1}\nmax_games = 400\n{bots}")
    return TournamentConfig.load(path)


def verdict_of(config: TournamentConfig, outcomes: list[GameOutcome]) -> str:
    return verdict_text(outcomes, describe(config)["sprt"])


def test_a_three_seat_sprt_stops_with_the_verdict_it_stopped_on(tmp_path: Path) -> None:
    (tmp_path / "parallel").mkdir()
    (tmp_path / "serial").mkdir()
    parallel = sprt_config(tmp_path / "parallel", concurrency=4)
    outcomes = SimulatedTournament(parallel, "unused", parallel.output).run()
    text = verdict_of(parallel, outcomes)
    assert "H1 accepted: greedy is stronger than random" in text, text

    rerun = SimulatedTournament(parallel, "unused", parallel.output).run()
    assert len(rerun) == len(outcomes), "a decided test plays nothing more"
    assert verdict_of(parallel, rerun) == text

    serial = sprt_config(tmp_path / "serial", concurrency=1)
    alone = SimulatedTournament(serial, "unused", serial.output).run()
    stop_line = text.splitlines()[1]
    assert verdict_of(serial, alone).splitlines()[1] == stop_line, "at any concurrency"
    assert len(alone) <= len(outcomes)


def test_a_run_folder_is_not_resumed_with_other_sprt_settings(tmp_path: Path) -> None:
    config = sprt_config(tmp_path, concurrency=2)
    SimulatedTournament(config, "unused", config.output).run()
    changed = sprt_config(tmp_path, concurrency=2, elo1=50)
    with pytest.raises(ValueError, match="another tournament"):
        SimulatedTournament(changed, "unused", changed.output).run()


def test_a_void_game_gives_no_result_and_the_test_reads_on_past_it() -> None:
    settings = SprtSettings(elo0=0, elo1=150, max_games=400)
    games = [void(0, ("a", "b")), *(game(i, ("a", "b"), [[0], [1]]) for i in range(1, 30))]
    assert ab_score(games[0], "a", "b") is None
    verdict = sprt_verdict(games, "a", "b", settings)
    assert verdict.status == "H1" and verdict.wins == verdict.games - 1
    spec = {"a": "a", "b": "b", "elo0": 0, "elo1": 150, "alpha": 0.05, "beta": 0.05,
            "max_games": 400}
    assert "1 void game(s) among them gave no result" in verdict_text(games, spec)
