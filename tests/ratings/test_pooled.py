"""The pooled pairwise fit (ratings.pooled) is the Bradley–Terry fit of the same games, each
its own deal: the same ratings and intervals, from statistics that never re-read a result."""

from __future__ import annotations

import json
import random

import pytest

from ratings.bradley_terry import fit_bradley_terry
from ratings.pooled import PairwiseStats, fit_pooled, pooled
from ratings.records import GameOutcome

BOTS = tuple(f"bot{i}" for i in range(8))


def random_games(count: int, seats: int, seed: int) -> list[GameOutcome]:
    """Random tables; some with a bot twice, some with ties, a few void."""
    rng = random.Random(seed)
    games = []
    for index in range(count):
        seating = tuple(rng.sample(BOTS, seats)) if index % 5 else \
            (BOTS[1], BOTS[1], *rng.sample(BOTS[2:], seats - 2))
        order = list(range(seats))
        rng.shuffle(order)
        ranking = tuple((seat,) for seat in order) if index % 7 else \
            ((order[0], order[1]), *((seat,) for seat in order[2:]))
        void = index % 31 == 30
        games.append(GameOutcome(index=index, seed=0, seating=seating,
                                 ranking=() if void else ranking, forfeits=(), reason="",
                                 deal=f"game{index}", void="crash" if void else None))
    return games


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_the_pooled_fit_is_the_pairwise_fit(seats: int) -> None:
    games = random_games(300, seats, seed=seats)
    direct = fit_bradley_terry(games)
    fit = fit_pooled(pooled(games))
    assert fit.names == direct.names and fit.deals == direct.deals
    for name in direct.names:
        expected, found = direct.ratings[name], fit.ratings[name]
        assert found.elo == pytest.approx(expected.elo, abs=1e-6)
        assert found.low == pytest.approx(expected.low, abs=1e-6)
        assert found.high == pytest.approx(expected.high, abs=1e-6)
        assert (found.games, found.score) == (expected.games, pytest.approx(expected.score))


def test_statistics_survive_json_and_grow_with_tables_not_games() -> None:
    stats = pooled(random_games(2000, 4, seed=9))
    again = PairwiseStats.from_json(json.loads(json.dumps(stats.to_json())))
    assert again == stats
    assert len(stats.tables) <= 70 + 8 * 7 * 6  # distinct tables of 8 bots, not 2000 games


def test_adding_one_game_changes_the_fit_as_refitting_does() -> None:
    games = random_games(120, 3, seed=4)
    stats = pooled(games[:-1])
    stats.add(games[-1])
    assert fit_pooled(stats).ratings == fit_pooled(pooled(games)).ratings


def test_removing_a_game_gives_the_statistics_of_the_others() -> None:
    games = [game for game in random_games(200, 4, seed=5) if game.void is None]
    stats = pooled(games)
    for gone in (games[3], games[77], games[150]):
        stats.remove(gone)
    rest = [game for i, game in enumerate(games) if i not in (3, 77, 150)]
    expected = pooled(rest)
    assert (stats.games, stats.points, stats.counts, stats.products) == \
        (expected.games, expected.points, expected.counts, expected.products)
    assert {k: (t.games, {b: x for b, x in t.scores.items() if x})
            for k, t in stats.tables.items()} == \
        {k: (t.games, {b: x for b, x in t.scores.items() if x})
         for k, t in expected.tables.items()}
    found, refit = fit_pooled(stats).ratings, fit_pooled(expected).ratings
    for name, rating in refit.items():  # the same sums, summed in another order
        assert (found[name].elo, found[name].low, found[name].high) == pytest.approx(
            (rating.elo, rating.low, rating.high), abs=1e-9)
