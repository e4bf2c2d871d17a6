"""Tournament schedules: who meets whom, in which seats, dealt which (named) deal."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations, islice

import pytest

from arena.schedule import (
    ScheduledGame,
    gauntlet,
    rotations,
    round_robin,
    spread_order,
    sprt_games,
)

BOTS = ["a", "b", "c", "d", "e"]


def test_round_robin_meets_every_group_in_every_seat_equally() -> None:
    games = round_robin(BOTS, seats=3, rounds=2, seed=1)
    assert len(games) == 10 * 3 * 2
    assert [g.index for g in games] == list(range(len(games)))
    seat_counts = Counter((name, seat) for g in games for seat, name in enumerate(g.seating))
    assert set(seat_counts.values()) == {12}, "every bot in every seat equally often"
    groups = Counter(frozenset(g.seating) for g in games)
    assert len(groups) == 10 and set(groups.values()) == {6}


def test_rotations_of_a_group_share_a_deal_and_rounds_do_not() -> None:
    games = round_robin(BOTS[:3], seats=3, rounds=2, seed=7)
    assert len({g.deal for g in games[:3]}) == 1
    assert games[0].deal != games[3].deal


def test_the_public_schedule_holds_no_seed() -> None:
    """Seeds come from the host's secret key (arena.deals), never from the schedule."""
    games = [*round_robin(BOTS, 3, 2, seed=7), *gauntlet("c", BOTS, 3, 1, seed=7),
             *islice(sprt_games("a", "b", BOTS, 3, seed=7), 12)]
    assert {g.seed for g in games} == {0}
    assert all(g.deal.startswith("seed 7 ") for g in games)


def test_the_schedule_is_a_function_of_the_seed() -> None:
    assert round_robin(BOTS, 3, 1, seed=5) == round_robin(BOTS, 3, 1, seed=5)
    assert round_robin(BOTS, 3, 1, seed=5) != round_robin(BOTS, 3, 1, seed=6)


def largest_lag(games: Sequence[ScheduledGame]) -> float:
    """Over every prefix of the schedule, how far a bot's games so far are from its
    share of them (its games in the whole schedule, times the prefix's fraction)."""
    total = Counter(name for g in games for name in g.seating)
    so_far: Counter[str] = Counter()
    worst = 0.0
    for played, g in enumerate(games, start=1):
        so_far.update(g.seating)
        fraction = played / len(games)
        worst = max(worst, *(abs(so_far[n] - fraction * total[n]) for n in total))
    return worst


@pytest.mark.parametrize("bots, seats", [(5, 3), (8, 2), (8, 4), (10, 5)])
def test_round_robin_spreads_every_bots_games_evenly(bots: int, seats: int) -> None:
    names = [f"bot{i}" for i in range(bots)]
    games = round_robin(names, seats, rounds=2, seed=1)
    assert largest_lag(games) <= 1, "never more than one game ahead of or behind its share"
    # the old order, every rotation of each combination in turn, lags by several games
    old = [ScheduledGame(i, 0, seating) for i, seating in enumerate(
        seating for group in combinations(names, seats) for seating in rotations(group))]
    assert largest_lag(old) > 3


def test_gauntlet_spreads_the_fields_games_evenly() -> None:
    games = gauntlet("c", [f"bot{i}" for i in range(7)] + ["c"], seats=4, rounds=1, seed=2)
    assert largest_lag(games) <= 1


def test_the_interleaved_schedule_keeps_its_games_and_seeds() -> None:
    """Interleaving only reorders: the same seatings with the same deals as the plain
    schedule (every combination, every rotation, deal per combination and round)."""
    games = round_robin(BOTS, seats=3, rounds=2, seed=4)
    assert [g.index for g in games] == list(range(60))
    by_group: dict[tuple[frozenset[str], int], set[int]] = {}
    for g in games:
        by_group.setdefault((frozenset(g.seating), g.index // 30), set()).add(g.deal)
    assert len(by_group) == 20 and all(len(seeds) == 1 for seeds in by_group.values())
    assert len(set(g.seating for g in games[:30])) == 30, "round 1 plays each seating once"
    assert round_robin(BOTS, 3, 2, seed=4) == games


def test_spread_order_puts_the_least_played_first() -> None:
    groups = [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d")]
    order = spread_order(groups)
    assert sorted(order) == list(range(6))
    assert [groups[i] for i in order[:2]] == [("a", "b"), ("c", "d")]   # all four once


def test_gauntlet_always_seats_the_challenger_in_every_position() -> None:
    games = gauntlet("c", BOTS, seats=3, rounds=1, seed=3)
    assert len(games) == 6 * 3  # C(4, 2) groups x 3 rotations
    assert all("c" in g.seating for g in games)
    assert Counter(g.seating.index("c") for g in games) == {0: 6, 1: 6, 2: 6}


def test_sprt_games_seat_both_bots_and_alternate_positions() -> None:
    games = list(islice(sprt_games("a", "b", BOTS, seats=2, seed=9), 6))
    assert [g.seating for g in games] == [("a", "b"), ("b", "a")] * 3
    assert games[0].deal == games[1].deal != games[2].deal
    four = list(islice(sprt_games("a", "b", BOTS, seats=4, seed=9), 8))
    assert all({"a", "b"} <= set(g.seating) for g in four)
    assert [g.seating for g in four[:5]] == [("a", "b", "c", "d"), ("b", "c", "d", "a"),
                                             ("c", "d", "a", "b"), ("d", "a", "b", "c"),
                                             ("b", "a", "c", "d")]


def mirror(seating: tuple[str, ...]) -> tuple[str, ...]:
    """A and the B seat right after it swapped."""
    i = seating.index("a")
    j = (i + 1) % len(seating)
    if seating[j] != "b":
        j = seating.index("b")
    swapped = list(seating)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    return tuple(swapped)


@pytest.mark.parametrize("field", [["a", "b"], ["a", "b", "c"], BOTS])
@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_every_sprt_game_has_its_mirror_under_the_same_deal(field: list[str],
                                                             seats: int) -> None:
    """Each deal seats every rotation of (A, B, fillers…) and of (B, A, fillers…): A in
    every seat position equally often, B right after A as often as right before it, and
    every game's mirror (A and B swapped) dealt the same cards."""
    games = list(islice(sprt_games("a", "b", field, seats, seed=5), 200))
    by_deal: dict[str, list[tuple[str, ...]]] = {}
    for g in games:
        by_deal.setdefault(g.deal, []).append(g.seating)
    deals = list(by_deal.values())[:-1]  # the last may be cut by islice
    for seatings in deals:
        assert len(set(seatings)) == len(seatings), "no seating twice"
        assert all(mirror(s) in seatings for s in seatings)
        assert Counter(s.index("a") for s in seatings) == {
            seat: len(seatings) // seats for seat in range(seats)}
        after = sum(s[(s.index("a") + 1) % seats] == "b" for s in seatings)
        before = sum(s[s.index("a") - 1] == "b" for s in seatings)
        assert after == before
    expected = seats if field == ["a", "b"] or seats == 2 else 2 * seats
    assert {len(seatings) for seatings in deals} == {expected}
