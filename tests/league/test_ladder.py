"""The ladder is the pairwise Bradley–Terry fit (not Plackett–Luce), provisional by the
interval's width, ordered by the interval's low end; Plackett–Luce only as a cross-check."""

from __future__ import annotations

import pytest

from league.ladder import PROVISIONAL_HALF_WIDTH, cross_check, is_provisional, ladder, outcomes
from ratings.bradley_terry import fit_bradley_terry
from ratings.plackett_luce import fit_plackett_luce
from tests.ratings.test_pooled import random_games


def as_results(count: int) -> list[dict[str, object]]:
    return [{"game_id": game.deal, "seating": list(game.seating),
             "ranking": [list(group) for group in game.ranking], "forfeits": [],
             "reason": "", "counts": True}
            for game in random_games(count, 4, seed=3) if game.void is None]


def test_the_ladder_is_the_pairwise_fit_not_plackett_luce() -> None:
    results = as_results(300)
    direct = fit_bradley_terry(outcomes(results))
    rows = {row.bot: row for row in ladder(results)}
    for bot, rating in direct.ratings.items():
        assert (rows[bot].elo, rows[bot].low, rows[bot].high) == pytest.approx(
            (rating.elo, rating.low, rating.high), abs=1e-6)
    plackett = fit_plackett_luce(outcomes(results)).ratings
    assert any(abs(rows[bot].elo - rating.elo) > 1e-3 for bot, rating in plackett.items())
    assert {row.bot: row.elo for row in cross_check(results)} == pytest.approx(
        {bot: rating.elo for bot, rating in plackett.items()})


def test_provisional_by_the_interval_width_and_ordered_by_its_low_end() -> None:
    assert is_provisional(1300.0, 1300.0 + 2 * PROVISIONAL_HALF_WIDTH + 1, 500)
    assert not is_provisional(1400.0, 1400.0 + 2 * PROVISIONAL_HALF_WIDTH - 1, 500)
    assert is_provisional(1400.0, 1450.0, 3, provisional_games=10)
    few, many = ladder(as_results(12)), ladder(as_results(2000))
    assert all(row.provisional for row in few)
    assert not any(row.provisional for row in many)
    assert [row.low for row in many] == sorted((row.low for row in many), reverse=True)
