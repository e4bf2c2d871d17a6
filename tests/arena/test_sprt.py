"""ratings.sprt: the generalised SPRT over deals, read unit by unit in index order; the
pair counting kept as an option; the cap in whole deals; the incremental test.

The error rates are checked by simulation: bots of known strength, finishing orders drawn
from a Plackett–Luce model with a seeded random.Random, seatings from the real SPRT
schedule with B filling the empty seats (the common case: Municipium needs 3–5 seats).
A real tournament's seating balance is checked on in-process games of the shipped bots.
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
from collections import Counter
from fractions import Fraction
from itertools import islice
from pathlib import Path

import pytest

from arena.config import ConfigError, TournamentConfig
from arena.local import GameSpec, play_game
from arena.runner import Tournament, describe
from arena.schedule import ScheduledGame, sprt_games
from benchmarks.sprt_error_rates import Effect, plackett_luce
from benchmarks.sprt_error_rates import games as simulated_games
from benchmarks.sprt_error_rates import run as simulated_run
from ratings.elo import score_from_elo
from ratings.records import GameOutcome
from ratings.sprt import (
    SprtSettings,
    SprtTest,
    _lagrange,
    ab_score,
    deal_games,
    deal_llr,
    designated_b_seat,
    finished_prefix,
    game_score,
    sequential_test,
    sprt_verdict,
    undecided_share,
    undecided_share_deals,
    verdict_text,
    virtual_deals,
)
from tests.arena.test_ratings import game, void

REPO = Path(__file__).resolve().parents[2]
NO_EFFECT = Effect()
S0, S1 = 0.5, score_from_elo(50)
SPEC = {"a": "a", "b": "b", "elo0": 0, "elo1": 150, "alpha": 0.05, "beta": 0.05,
        "max_games": 400}


def wins(count: int, seating: tuple[str, ...] = ("a", "b", "b"),
         start: int = 0) -> list[GameOutcome]:
    """Games that A wins, B seats in seat order behind it."""
    order = sorted(range(len(seating)), key=lambda seat: seating[seat] != "a")
    return [game(start + i, seating, [[seat] for seat in order]) for i in range(count)]


def schedule(seats: int, count: int, field: tuple[str, ...] = ("a", "b")
             ) -> list[ScheduledGame]:
    return list(islice(sprt_games("a", "b", list(field), seats, seed=1), count))


# --- counting ---------------------------------------------------------------------------
def test_a_game_scores_a_against_every_b_seat() -> None:
    # A second, a B ahead of it at seat 1, another B last: half, one ahead, one behind.
    assert game_score(game(0, ("a", "b", "b"), [[1], [0], [2]]), "a", "b") == (
        Fraction(1, 2), 1, 0, 1)
    # A tied first with the B at seat 0, ahead of the other two: (1/2 + 1 + 1)/3.
    assert game_score(game(1, ("b", "a", "b", "b"), [[0, 1], [2], [3]]), "a", "b") == (
        Fraction(5, 6), 2, 1, 0)
    assert game_score(game(2, ("a", "c", "d"), [[0], [1], [2]]), "a", "b") is None
    assert game_score(void(3, ("a", "b")), "a", "b") is None


def test_a_deal_is_every_rotation_and_its_mirror_under_one_name() -> None:
    for seats in (2, 3, 4, 5):
        for field in (("a", "b"), ("a", "b", "c", "d", "e")):
            games = schedule(seats, 40, field)
            unit = deal_games(games[0].seating, "a", "b")
            assert unit == (seats if field == ("a", "b") or seats == 2 else 2 * seats)
            for start in range(0, 40 - unit + 1, unit):
                deal = games[start:start + unit]
                assert len({g.deal for g in deal}) == 1, "one deal, consecutive indices"
                assert games[start + unit - 1].deal != (games[start + unit].deal
                                                        if start + unit < 40 else None)
                assert all(deal_games(g.seating, "a", "b") == unit for g in deal)


def test_the_pair_counting_meets_the_first_b_seat_after_a() -> None:
    assert designated_b_seat(("a", "b", "b"), "a", "b") == 1
    assert designated_b_seat(("b", "b", "a"), "a", "b") == 0    # round the table
    assert designated_b_seat(("b", "c", "a", "d", "b"), "a", "b") == 4
    assert designated_b_seat(("a", "c"), "a", "b") is None
    assert ab_score(game(0, ("a", "b", "b"), [[1], [0], [2]]), "a", "b") == 0.0
    assert ab_score(game(1, ("b", "a", "b"), [[0], [1, 2]]), "a", "b") == 0.5


# --- the ratio --------------------------------------------------------------------------
def test_the_constrained_distribution_has_the_hypothesis_mean() -> None:
    rng = random.Random(3)
    counts = Counter(Fraction(rng.randrange(21), 20) for _ in range(40))
    points = [(float(x), float(n)) for x, n in counts.items()] + virtual_deals(S0, S1, 5)
    total = sum(n for _, n in points)
    for s in (S0, S1, 0.3, 0.8):
        lam = _lagrange(points, s)
        p = [n / total / (1 + lam * (x - s)) for x, n in points]
        assert sum(p) == pytest.approx(1, abs=1e-9)
        assert sum(x * q for (x, _), q in zip(points, p, strict=True)) == pytest.approx(
            s, abs=1e-9)


def test_the_ratio_is_antisymmetric_and_near_its_normal_approximation() -> None:
    rng = random.Random(4)
    scores = [Fraction(sum(rng.random() < 0.55 for _ in range(8)), 8) for _ in range(300)]
    counts = Counter(scores)
    mirrored = Counter({1 - x: n for x, n in counts.items()})
    llr = deal_llr(counts, S0, S1, 8)
    assert deal_llr(mirrored, 1 - S1, 1 - S0, 8) == pytest.approx(-llr)
    mean = sum(map(float, scores)) / len(scores)
    variance = sum((float(x) - mean) ** 2 for x in scores) / len(scores)
    normal = len(scores) * (S1 - S0) * (2 * mean - S0 - S1) / (2 * variance)
    assert llr == pytest.approx(normal, rel=0.1)   # fishtest's LLR_alt2
    assert deal_llr(Counter(), S0, S1, 8) == 0


def test_a_few_equal_deals_cannot_decide() -> None:
    """Equal scores have no spread: the virtual deal keeps the ratio small."""
    upper = math.log(0.95 / 0.05)
    for x in (Fraction(0), Fraction(3, 5), Fraction(1)):
        for n in range(1, 8):
            assert abs(deal_llr(Counter({x: n}), S0, S1, 5, 4)) <= 0.5 * n
        assert abs(deal_llr(Counter({x: 7}), S0, S1, 5, 4)) < upper


# --- reading the games: units in index order, whole, the cap ----------------------------
def test_the_verdict_is_taken_at_the_first_crossing_and_kept() -> None:
    settings = SprtSettings(elo0=0, elo1=150)
    games = wins(60)
    verdict = sprt_verdict(games, "a", "b", settings)
    assert verdict.status == "H1" and verdict.games % 3 == 0 and verdict.games < 60
    assert verdict.units == verdict.games // 3 and verdict.score == 1.0
    losses = [game(g.index, g.seating, [[1], [2], [0]]) for g in wins(60)]
    later = games[:verdict.games] + losses[verdict.games:]
    assert sprt_verdict(later, "a", "b", settings) == verdict, "later deals do not count"


def test_a_deal_is_read_once_every_game_of_it_and_before_it_has_finished() -> None:
    settings = SprtSettings(elo0=0, elo1=150)
    games = wins(60)
    assert [g.index for g in finished_prefix(games[5:] + games[:3])] == [0, 1, 2]
    waiting = sprt_verdict(games[:4] + games[5:], "a", "b", settings)
    assert (waiting.status, waiting.games) == ("running", 3), "game 4 is in flight"
    assert sprt_verdict(games[:5], "a", "b", settings).games == 3, "deal 1 is not whole"
    shuffled = games[:]
    random.Random(1).shuffle(shuffled)
    assert sprt_verdict(shuffled, "a", "b", settings) == sprt_verdict(games, "a", "b",
                                                                      settings)


def test_void_games_give_nothing_and_an_all_void_deal_is_skipped() -> None:
    settings = SprtSettings(elo0=0, elo1=150)
    seating = ("a", "b", "b")
    games = [void(0, seating), *wins(2, seating, start=1),     # deal 0: two games
             void(3, seating), void(4, seating), void(5, seating),  # deal 1: none
             *wins(6, seating, start=6)]
    verdict = sprt_verdict(games, "a", "b", settings)
    assert (verdict.status, verdict.games, verdict.units) == ("running", 12, 3)
    assert verdict.wins == 2 * (2 + 6) and verdict.score == 1.0
    assert "4 void game(s) among them gave no result" in verdict_text(games, SPEC)


def test_the_cap_is_in_whole_deals() -> None:
    settings = SprtSettings(elo0=0, elo1=50, max_games=10)
    alternate = [game(i, ("a", "b", "b"), [[0], [1], [2]] if i % 2 else [[1], [2], [0]])
                 for i in range(12)]
    test = SprtTest("a", "b", settings).add_all(alternate)
    assert test.limit == 9 and test.verdict.status == "max_games"
    assert test.verdict.games == 9 and test.verdict.stopped
    assert not sprt_verdict(alternate[:8], "a", "b", settings).stopped


def test_the_pair_counting_is_the_test_before() -> None:
    settings = SprtSettings(elo0=0, elo1=150, counting="pair")
    rng = random.Random(5)
    games = list(islice(simulated_games(rng, 4, 150), 200))
    verdict = sprt_verdict(games, "a", "b", settings)
    assert verdict == sequential_test((ab_score(g, "a", "b") for g in games), settings)
    assert verdict.counting == "pair" and verdict.status == "H1"
    text = verdict_text(games, {**SPEC, "counting": "pair"})
    assert "one result per game: a against the first b seat after it" in text
    capped = sprt_verdict(wins(12), "a", "b", dataclasses.replace(
        settings, elo1=10, max_games=10))
    assert (capped.status, capped.games) == ("max_games", 10), "the cap in games"


def test_the_incremental_verdict_is_the_verdict_from_scratch_at_every_prefix() -> None:
    rng = random.Random(6)
    games = list(islice(simulated_games(rng, 3, 40), 240))
    arrival = games[:]
    for start in range(0, len(arrival), 7):   # finishing out of order, a few at a time
        chunk = arrival[start:start + 7]
        rng.shuffle(chunk)
        arrival[start:start + 7] = chunk
    for counting in ("deal", "pair"):
        settings = SprtSettings(elo0=0, elo1=40, max_games=200, counting=counting)
        test = SprtTest("a", "b", settings, deal_games=3)
        growing: list[GameOutcome] = []
        for outcome in arrival:
            growing.append(outcome)
            assert test.follow(growing).verdict == sprt_verdict(growing, "a", "b",
                                                                settings)
        assert test.follow(arrival[:10]).verdict == sprt_verdict(arrival[:10], "a", "b",
                                                                 settings), "a new list"


def test_undecided_shares() -> None:
    settings = SprtSettings(elo0=0, elo1=50, max_games=60, counting="pair")
    exact = undecided_share(settings, 25)
    rng = random.Random(8)
    win = score_from_elo(25)
    undecided = sum(
        sequential_test([float(rng.random() < win) for _ in range(60)], settings).status
        == "max_games" for _ in range(2000))
    assert exact == pytest.approx(undecided / 2000, abs=0.02)
    assert undecided_share(SprtSettings(max_games=1), 0) == 1.0
    # deals: the Brownian approximation against deals drawn with the same variance
    deals = SprtSettings(elo0=0, elo1=50, max_games=150)
    share = undecided_share_deals(deals, 25, variance=0.025, units=30)
    runs = [simulated_run(random.Random(i), 5, 25, deals) for i in range(150)]
    simulated = sum(status == "max_games" for status, _ in runs) / len(runs)
    assert share == pytest.approx(simulated, abs=0.1)  # 0.53 against 0.55
    assert undecided_share_deals(deals, 25, 0.025, 1) > 0.99
    assert undecided_share_deals(deals, 25, 0.025, 10_000) < 0.01


def test_verdict_text_states_the_stop() -> None:
    games = wins(40)
    text = verdict_text(games, SPEC)
    assert "H1 accepted: a is stronger than b (elo1 = 150)" in text
    assert "deals of 3 games read" in text and "against every b seat" in text
    assert "finished after it: kept in the tables, not in the verdict" in text
    alternate = [game(i, ("a", "b", "b"), [[0], [1], [2]] if i % 2 else [[1], [0], [2]])
                 for i in range(30)]
    capped = verdict_text(alternate, {**SPEC, "elo1": 50, "max_games": 30})
    assert "max_games reached: no decision" in capped and "% of runs end undecided" in capped
    assert "running: 6 of at most 400" in verdict_text(games[:7], {**SPEC, "elo1": 10})


# --- error rates, simulated -------------------------------------------------------------
SIMULATED = SprtSettings(elo0=0, elo1=150, max_games=100_000)
"""Wide hypotheses keep the simulated tests short (about 30 games each); Wald's bounds
promise the same α = β = 5% whatever the hypotheses."""
RUNS = 400
"""Tests per hypothesis and seat count: a 5% rate is estimated within ±1.1% (one s.e.)."""
TOLERANCE = 0.05 + 2 * math.sqrt(0.05 * 0.95 / RUNS)
"""5% plus two standard errors (7.2%)."""


def error_rate(seats: int, wrong: str, settings: SprtSettings = SIMULATED,
               effect: Effect = NO_EFFECT) -> float:
    """Share of RUNS tests that accept the `wrong` hypothesis (A's expected score s0 or
    s1, the hypothesis that is right)."""
    right = settings.elo0 if wrong == "H1" else settings.elo1
    true_elo = effect.calibrated(score_from_elo(right), seats)
    rng = random.Random(f"{seats}/{wrong}/{settings.counting}/{effect}")
    return sum(simulated_run(rng, seats, true_elo, settings, effect)[0] == wrong
               for _ in range(RUNS)) / RUNS


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_error_rates_are_as_promised_with_b_in_the_empty_seats(seats: int) -> None:
    false_h1, false_h0 = error_rate(seats, "H1"), error_rate(seats, "H0")
    assert false_h1 <= TOLERANCE and false_h0 <= TOLERANCE, (false_h1, false_h0)


def test_deals_as_units_keep_the_promise_where_single_games_do_not() -> None:
    """A deal that favours one bot in every seat by 300 Elo: read game by game (the pair
    counting) the games of a deal count as independent evidence, and false H1 goes
    beyond the promise (10%); read deal by deal it holds (5.5%)."""
    effect = Effect("bot", 300)
    deals = dataclasses.replace(SIMULATED, elo1=100)
    pair = dataclasses.replace(deals, counting="pair")
    assert error_rate(2, "H1", pair, effect) > TOLERANCE
    assert error_rate(2, "H1", deals, effect) <= TOLERANCE


# --- seating balance with real games ----------------------------------------------------
def mean_deal_scores(field: tuple[str, ...], seats: int, deals: int,
                     bots: dict[str, str]) -> list[tuple[Fraction, Fraction]]:
    """Per deal: A's deal score (every B seat) and its pair score (the first B seat after
    A), over in-process Municipium games seated by `sprt_games`, each deal played with one
    seed. Identical bot programs in the same seats with the same seed play the same game
    (a bot's seed is its seat's), so each distinct seating of bot programs is played once."""
    played: dict[tuple[str, ...], GameOutcome] = {}
    per_deal: dict[str, list[GameOutcome]] = {}
    for g in sprt_games("a", "b", list(field), seats, seed=11):
        if g.deal not in per_deal and len(per_deal) == deals:
            break
        programs = tuple(bots[name] for name in g.seating)
        seed = 1000 + int(g.deal.split()[-1])  # one seed per deal
        key = (*programs, str(seed))
        if key not in played:
            record = play_game(GameSpec("municipium", "classic", programs), seed)
            assert record.result is not None
            played[key] = GameOutcome(index=0, seed=seed, seating=programs,
                                      ranking=record.result.ranking)
        ranking = played[key].ranking
        per_deal.setdefault(g.deal, []).append(
            GameOutcome(index=g.index, seed=seed, seating=g.seating, ranking=ranking))
    result = []
    for games in per_deal.values():
        deal = [game_score(g, "a", "b") for g in games]
        pair = [ab_score(g, "a", "b") for g in games]
        result.append((sum((s[0] for s in deal if s), Fraction(0)) / len(games),
                       Fraction(sum(p for p in pair if p is not None)) / len(games)))
    return result


def test_identical_bots_score_exactly_one_half_in_every_deal() -> None:
    """Two greedy bots as A and B, random bots in the other seats: each game has its
    mirror (A and B swapped) under the same deal, so A scores exactly 1/2 per deal."""
    scores = mean_deal_scores(("a", "b", "c", "d", "e"), 5, deals=2,
                              bots={"a": "greedy", "b": "greedy", "c": "random",
                                    "d": "random", "e": "random"})
    assert [deal for deal, _ in scores] == [Fraction(1, 2)] * 2
    assert [pair for _, pair in scores] == [Fraction(1, 2)] * 2, "one B: the same"


def test_identical_bots_with_b_in_every_other_seat() -> None:
    """Greedy bots in all five seats (A, and B four times): A against every B seat scores
    1/2 exactly in every deal; A against the seat right after it (the pair counting, and
    the seating and counting before) does not: k/5 per deal, and in expectation 0.4903 ±
    0.0026 over 2,400 games (the audit's measurement: too costly here)."""
    scores = mean_deal_scores(("a", "b"), 5, deals=3,
                              bots={"a": "greedy", "b": "greedy"})
    assert [deal for deal, _ in scores] == [Fraction(1, 2)] * 3
    assert all(pair != Fraction(1, 2) for _, pair in scores)


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


def sprt_config(folder: Path, concurrency: int, elo1: int = 100,
                max_games: int = 400, extra: str = "") -> TournamentConfig:
    bots = "".join(f'[[bots]]\nmanifest = "{REPO / "bots" / name / "bot.toml"}"\n'
                   for name in ("greedy_bot", "random_bot"))
    path = folder / "sprt.toml"
    path.write_text(f'[tournament]\nname = "sprt"\ngame = "municipium"\nseats = 3\n'
                    f'format = "sprt"\nseed = 7\nconcurrency = {concurrency}\n'
                    f'output = "{folder / "out"}"\n[sprt]\na = "greedy"\nb = "random"\n'
                    f"elo0 = 0\nelo1 = {elo1}\nmax_games = {max_games}\n{extra}{bots}")
    return TournamentConfig.load(path)


def verdict_of(config: TournamentConfig, outcomes: list[GameOutcome]) -> str:
    return verdict_text(outcomes, describe(config)["sprt"])


def llr_line(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("LLR"))


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
    assert llr_line(verdict_of(serial, alone)) == llr_line(text), "at any concurrency"
    assert len(alone) <= len(outcomes) and len(alone) % 3 == 0, "whole deals, serially"


def test_a_capped_sprt_plays_whole_deals_only(tmp_path: Path) -> None:
    config = sprt_config(tmp_path, concurrency=2, elo1=5, max_games=10)
    tournament = SimulatedTournament(config, "unused", config.output)
    outcomes = tournament.run()
    assert len(outcomes) == 9 and tournament.progress().left == 0
    assert "max_games reached" in verdict_of(config, outcomes)


def test_the_counting_and_the_cap_are_checked_in_the_config(tmp_path: Path) -> None:
    default = sprt_config(tmp_path, 1)
    assert default.sprt is not None and default.sprt.counting == "deal"
    pair = sprt_config(tmp_path, 1, extra='counting = "pair"\n')
    assert pair.sprt is not None and pair.sprt.counting == "pair"
    with pytest.raises(ConfigError, match="counting must be 'deal' or 'pair', not 'game'"):
        sprt_config(tmp_path, 1, extra='counting = "game"\n')
    with pytest.raises(ConfigError, match=r"max_games = 2 is less than one deal \(3 games"):
        sprt_config(tmp_path, 1, max_games=2)
    assert sprt_config(tmp_path, 1, max_games=2, extra='counting = "pair"\n')


def test_a_run_folder_is_not_resumed_with_other_sprt_settings(tmp_path: Path) -> None:
    config = sprt_config(tmp_path, concurrency=2)
    SimulatedTournament(config, "unused", config.output).run()
    changed = sprt_config(tmp_path, concurrency=2, elo1=50)
    with pytest.raises(ValueError, match="another tournament"):
        SimulatedTournament(changed, "unused", changed.output).run()

