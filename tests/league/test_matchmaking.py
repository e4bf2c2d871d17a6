"""The league's matchmaking (league/matchmaking.py): a table whenever enough bots are free,
chosen for what it teaches the ladder."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from league.matchmaking import Candidate, Knowledge, _Model, next_table


def rated(*bots: tuple[str, float, float, int]) -> list[Candidate]:
    return [Candidate(bot, elo, margin, games) for bot, elo, margin, games in bots]


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_a_table_is_chosen_whenever_enough_bots_are_free(seats: int) -> None:
    rng = random.Random(1)
    bots = [f"b{i}" for i in range(seats + 2)]
    pairs: dict[tuple[str, str], int] = {}
    for _ in range(300):
        free = [Candidate(bot) for bot in bots if rng.random() < 0.8]
        table = next_table(free, seats, rng, Knowledge({}, pairs))
        if len(free) < seats:
            assert table is None
            continue
        assert table is not None and len(set(table)) == seats
        assert set(table) <= {c.bot for c in free}
        for a, b in combinations(table, 2):
            pairs[a, b] = pairs.get((a, b), 0) + 1


def test_a_newcomer_is_seated_first() -> None:
    pairs = {(a, b): 20 for a, b in combinations("abcd", 2)}
    free = [*rated(("a", 1500, 60, 60), ("b", 1510, 60, 60), ("c", 1490, 60, 60)),
            Candidate("new")]
    knowledge = Knowledge({"a": 1500, "b": 1510, "c": 1490, "d": 1500}, pairs)
    for seed in range(10):
        assert "new" in next_table(free, 2, random.Random(seed), knowledge)


def test_the_least_certain_bot_meets_the_closest_ratings() -> None:
    """A bot with few results plays the free bot of nearest strength (the most
    informative result), not the one it would surely beat."""
    elo = {"x": 1500.0, "near": 1520.0, "far": 2300.0, "d": 1900.0}
    pairs = {("near", "far"): 40, ("near", "d"): 40, ("far", "d"): 40, ("x", "d"): 1}
    free = [Candidate(bot, elo[bot]) for bot in ("x", "near", "far")]
    table = next_table(free, 2, random.Random(0), Knowledge(elo, pairs))
    assert set(table) == {"x", "near"}


def test_tables_started_in_one_tick_count_before_the_next_fit() -> None:
    """The same knowledge chooses the same table; counting a started table moves on."""
    elo = {bot: 1500.0 for bot in "abcdef"}
    knowledge = Knowledge(elo, {("a", "b"): 5})
    free = [Candidate(bot) for bot in "abcdef"]
    first = next_table(free, 2, random.Random(3), knowledge)
    again = knowledge
    for _ in range(3):
        again = again.after(first)
    assert set(next_table(free, 2, random.Random(3), again)) != set(first)


def test_the_fit_covariance_is_used_when_given() -> None:
    """With the ladder fit's covariance, the widest interval is seated first."""
    elo = {bot: 1500.0 for bot in "abc"}
    covariance = {(a, b): (900.0 if a == b == "c" else 100.0 if a == b else -50.0)
                  for a in "abc" for b in "abc"}
    free = [Candidate(bot) for bot in "abc"]
    for seed in range(5):
        table = next_table(free, 2, random.Random(seed),
                           Knowledge(elo, {("a", "b"): 9}, covariance))
        assert "c" in table


def test_a_table_with_a_newcomer_is_counted_too() -> None:
    """Counting a started table that seats a bot the fit does not know yet."""
    elo = {"a": 1500.0, "b": 1550.0}
    covariance = {(x, y): (400.0 if x == y else -400.0) for x in "ab" for y in "ab"}
    knowledge = Knowledge(elo, {("a", "b"): 3}, covariance).after(("a", "new"))
    assert knowledge.pairs[("a", "new")] == 1 and knowledge.covariance is None
    free = [Candidate(bot) for bot in ("a", "b", "new", "c")]
    assert next_table(free, 2, random.Random(1), knowledge) is not None


def test_the_variances_after_a_table_are_those_of_its_pairs_added_one_by_one() -> None:
    """The Woodbury form the matchmaking weighs tables by equals one rank-one update per
    pair of the table (Sherman–Morrison, as `Knowledge.after` counts started tables)."""
    elo = {f"b{i}": 1350.0 + 50 * i for i in range(6)}
    pairs = {("b0", "b1"): 3, ("b1", "b2"): 2, ("b2", "b3"): 4, ("b3", "b4"): 1,
             ("b4", "b5"): 2, ("b0", "b5"): 1}
    model = _Model(dict(elo), pairs)
    table = ["b0", "b2", "b3", "b5"]
    predicted = model.variances_after(table)
    model.add(table)
    assert predicted == pytest.approx([model.variance(bot) for bot in model.names], rel=1e-9)
    assert model.cost(["b1", "b4"]) < sum(v ** 8 for v in predicted)  # a game only narrows
