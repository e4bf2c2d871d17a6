"""Law buying: tiers 5/15/20/25 paid in the Law's colour (L1), every remaining Law on offer
but only a player's next tier (L6), one Law a round requested face down at the same time,
contested requests ordered by points in the colour then by the best other colour, and a
deciding tie blocking the tied players and those below (L7)."""

from __future__ import annotations

from typing import Any

from games.core import Decision
from games.leges.position import Position, legal, of_kind, play, step
from games.leges.state import LegesState
from tests.leges.helpers import points


def at_laws(players: int = 2, **stacks: list[int]) -> Position:
    return Position(players=players, first=0).at("laws").stacks(**stacks)


def bought(st: LegesState) -> list[tuple[int, str, int]]:
    return [(b["seat"], b["colour"], b["tier"]) for b in of_kind(st.events, "law")]


def blocked(st: LegesState) -> list[dict[str, Any]]:
    [laws] = of_kind(st.events, "laws")
    return list(laws["blocked"])


def test_l1_a_law_is_paid_with_the_points_of_its_colour() -> None:
    st = at_laws().points(0, pietas=30, virtus=40).laws(0, pietas=1).build()
    assert legal(st, 0) == ["law pietas 2", "law virtus 1", "nolaw"]
    play(st, "0: law pietas 2")
    assert bought(st) == [(0, "pietas", 2)]
    assert points(st, 0) == {"pietas": 15, "virtus": 40, "libertas": 0, "concordia": 0}
    [law] = of_kind(st.events, "law")
    assert (law["cost"], law["vp"]) == (15, 4)


def test_l1_tier_costs_5_15_20_25() -> None:
    for tier, cost in ((1, 5), (2, 15), (3, 20), (4, 25)):
        st = at_laws().points(0, virtus=cost).laws(0, virtus=tier - 1).build()
        assert legal(st, 0) == [f"law virtus {tier}", "nolaw"]
        play(st, f"0: law virtus {tier}")
        assert points(st, 0)["virtus"] == 0 and st.players[0]["laws"]["virtus"] == tier
        poorer = at_laws().points(0, virtus=cost - 1).laws(0, virtus=tier - 1).build()
        assert step(poorer) == "exchange", "a player who can afford nothing is not asked"


def test_summary_tiers_in_order_and_never_the_same_tier_twice() -> None:
    st = at_laws().points(0, pietas=100).build()
    assert legal(st, 0) == ["law pietas 1", "nolaw"], "tier 1 before any other"
    st = at_laws().points(0, pietas=100).laws(0, pietas=2).build()
    assert legal(st, 0) == ["law pietas 3", "nolaw"], "never tier 1 or 2 again"
    st = at_laws().points(0, pietas=100).laws(0, pietas=4).build()
    assert step(st) == "exchange", "nothing above tier 4"


def test_summary_a_higher_law_covers_the_lower() -> None:
    st = at_laws().points(0, pietas=20).laws(0, pietas=1).build()
    assert st.vp(0) == 1
    play(st, "0: law pietas 2")
    assert st.vp(0) == 4, "the tier-2 Law (4 VP) covers the tier-1 Law (1 VP)"
    assert st.observation(1)["boards"][0]["laws"]["pietas"] == 2
    assert st.observation(1)["boards"][0]["vp"] == 4


def test_l6_every_remaining_law_is_on_offer_but_only_the_next_tier() -> None:
    """pietas tier 1 is sold out: seat 0 (holding tier 1) may still buy tier 2; seat 1
    (holding none) cannot buy pietas at all."""
    st = at_laws(pietas=[0, 2, 1, 1]).points(0, pietas=50).laws(0, pietas=1) \
        .points(1, pietas=50, virtus=5).build()
    assert legal(st, 0) == ["law pietas 2", "nolaw"]
    assert legal(st, 1) == ["law virtus 1", "nolaw"]


def test_l7_one_law_a_round_requested_face_down_at_the_same_time() -> None:
    st = at_laws().points(0, pietas=10, virtus=10).points(1, libertas=5).build()
    assert st.to_move() == (0, 1)
    assert st.decision_seen_by(0, Decision("law", ("pietas", "1"))) == (0,)
    assert st.decision_seen_by(0, Decision("nolaw")) == (0,)
    events = play(st, "0: law pietas 1")
    assert [(e.kind, e.data) for e in events] == [("requested", {"seat": 0})]
    seen = st.observation(1)["boards"][0]
    assert (seen["requested"], seen["request"]) == (True, None)
    assert st.observation(0)["boards"][0]["request"] == "pietas 1"
    play(st, "1: nolaw")
    assert bought(st) == [(0, "pietas", 1)], "one Law only, though virtus was affordable"
    assert st.observation(1)["law_requests"] == ["pietas 1", "none"]
    assert step(st) == "exchange"


def test_l7_uncontested_requests_all_buy() -> None:
    st = at_laws(3).points(0, pietas=10).points(1, pietas=20).laws(1, pietas=1) \
        .points(2, virtus=6).build()
    play(st, "0: law pietas 1", "1: law pietas 2", "2: law virtus 1")
    assert sorted(bought(st)) == [(0, "pietas", 1), (1, "pietas", 2), (2, "virtus", 1)]
    assert st.stacks["pietas"] == [2, 1, 2, 1] and st.stacks["virtus"] == [2, 2, 2, 1]


def test_l7_contested_most_points_in_the_colour_buys_first() -> None:
    st = at_laws(pietas=[1, 2, 1, 1]).points(0, pietas=8).points(1, pietas=10).build()
    play(st, "0: law pietas 1", "1: law pietas 1")
    assert bought(st) == [(1, "pietas", 1)]
    assert blocked(st) == [{"seat": 0, "colour": "pietas", "tier": 1, "why": "sold-out"}]
    assert points(st, 0)["pietas"] == 8 and points(st, 1)["pietas"] == 5
    assert st.stacks["pietas"][0] == 0


def test_l7_a_tie_in_the_colour_goes_to_the_best_other_colour() -> None:
    """Equal pietas; seat 0 has 3 in three other colours (9 in all), seat 1 has 6 in one:
    the single best other colour decides, seat 1 buys."""
    st = at_laws(pietas=[1, 2, 1, 1]) \
        .points(0, pietas=10, virtus=3, libertas=3, concordia=3) \
        .points(1, pietas=10, libertas=6).build()
    play(st, "0: law pietas 1", "1: law pietas 1")
    assert bought(st) == [(1, "pietas", 1)]
    assert blocked(st) == [{"seat": 0, "colour": "pietas", "tier": 1, "why": "sold-out"}]


def test_l7_a_full_tie_for_the_last_card_lets_nobody_buy() -> None:
    st = at_laws(pietas=[1, 2, 1, 1]).points(0, pietas=10, virtus=4) \
        .points(1, pietas=10, concordia=4).build()
    play(st, "0: law pietas 1", "1: law pietas 1")
    assert bought(st) == []
    assert blocked(st) == [{"seat": 0, "colour": "pietas", "tier": 1, "why": "tie"},
                           {"seat": 1, "colour": "pietas", "tier": 1, "why": "tie"}]
    assert st.stacks["pietas"][0] == 1, "the card stays on offer for a later round"
    assert points(st, 0)["pietas"] == 10


def test_l7_a_deciding_tie_blocks_the_tied_and_those_below() -> None:
    """Two cards: seat 0 (20) buys; seats 1 and 2 tie (18) for the last card: neither
    buys, nor seat 3 (16) below them, though a card remains."""
    st = (at_laws(4, pietas=[2, 3, 2, 1])
          .points(0, pietas=20).points(1, pietas=18).points(2, pietas=18)
          .points(3, pietas=16).build())
    play(st, "0: law pietas 1", "1: law pietas 1", "2: law pietas 1", "3: law pietas 1")
    assert bought(st) == [(0, "pietas", 1)]
    assert [(b["seat"], b["why"]) for b in blocked(st)] == [(1, "tie"), (2, "tie"),
                                                            (3, "tie")]
    assert st.stacks["pietas"][0] == 1


def test_l7_a_tie_that_decides_no_card_is_harmless() -> None:
    """Two cards and two tied players above a third: both tied buy; the third finds none."""
    st = (at_laws(3, pietas=[2, 2, 2, 1])
          .points(0, pietas=16).points(1, pietas=18).points(2, pietas=18).build())
    play(st, "0: law pietas 1", "1: law pietas 1", "2: law pietas 1")
    assert sorted(bought(st)) == [(1, "pietas", 1), (2, "pietas", 1)]
    assert blocked(st) == [{"seat": 0, "colour": "pietas", "tier": 1, "why": "sold-out"}]


def test_l7_different_tiers_of_one_colour_are_not_contested() -> None:
    st = at_laws(pietas=[1, 1, 1, 1]).points(0, pietas=5).points(1, pietas=15) \
        .laws(1, pietas=1).build()
    play(st, "0: law pietas 1", "1: law pietas 2")
    assert sorted(bought(st)) == [(0, "pietas", 1), (1, "pietas", 2)]


def test_summary_laws_are_bought_after_scoring() -> None:
    """The round's points count for this round's purchase."""
    st = Position(players=2).hand(0, "virtus-04").hand(1, "libertas-04").build()
    play(st, "0: play virtus-04", "1: play libertas-04")
    assert step(st) == "laws" and st.to_move() == (0, 1)
    assert legal(st, 0) == ["law virtus 1", "nolaw"]
    assert st.observation(None)["law_requests"] == [None, None]
