"""Tournament schedules: who meets whom, in which seats, with which seed."""

from __future__ import annotations

from collections import Counter
from itertools import islice

from arena.schedule import gauntlet, round_robin, sprt_games

BOTS = ["a", "b", "c", "d", "e"]


def test_round_robin_meets_every_group_in_every_seat_equally() -> None:
    games = round_robin(BOTS, seats=3, rounds=2, seed=1)
    assert len(games) == 10 * 3 * 2
    assert [g.index for g in games] == list(range(len(games)))
    seat_counts = Counter((name, seat) for g in games for seat, name in enumerate(g.seating))
    assert set(seat_counts.values()) == {12}, "every bot in every seat equally often"
    groups = Counter(frozenset(g.seating) for g in games)
    assert len(groups) == 10 and set(groups.values()) == {6}


def test_rotations_of_a_group_share_a_seed_and_rounds_do_not() -> None:
    games = round_robin(BOTS[:3], seats=3, rounds=2, seed=7)
    assert len({g.seed for g in games[:3]}) == 1
    assert games[0].seed != games[3].seed


def test_the_schedule_is_a_function_of_the_seed() -> None:
    assert round_robin(BOTS, 3, 1, seed=5) == round_robin(BOTS, 3, 1, seed=5)
    assert round_robin(BOTS, 3, 1, seed=5) != round_robin(BOTS, 3, 1, seed=6)


def test_gauntlet_always_seats_the_challenger_in_every_position() -> None:
    games = gauntlet("c", BOTS, seats=3, rounds=1, seed=3)
    assert len(games) == 6 * 3  # C(4, 2) groups x 3 rotations
    assert all("c" in g.seating for g in games)
    assert Counter(g.seating.index("c") for g in games) == {0: 6, 1: 6, 2: 6}


def test_sprt_games_seat_both_bots_and_alternate_positions() -> None:
    games = list(islice(sprt_games("a", "b", BOTS, seats=2, seed=9), 6))
    assert [g.seating for g in games] == [("a", "b"), ("b", "a")] * 3
    assert games[0].seed == games[1].seed != games[2].seed
    four = list(islice(sprt_games("a", "b", BOTS, seats=4, seed=9), 8))
    assert all({"a", "b"} <= set(g.seating) for g in four)
