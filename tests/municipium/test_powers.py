"""Institution powers, both variants where they differ (M15-M21)."""

from __future__ import annotations

import pytest

from games.municipium import MunicipiumState
from tests.municipium.position import (
    Position,
    assert_consistent,
    at,
    citizens_at,
    held,
    legal,
    mover,
    of_kind,
    play,
    start_power,
    step,
    temple_order,
)

PARKED = {"orange": {"rest": "tavern"}, "yellow": {"rest": "forum"}}


def blue_at(blue: dict, variant: str = "classic") -> Position:
    """A position where blue is as given and orange / yellow wait in Tavern / Forum."""
    return Position(variant, 3).members(blue=blue, **PARKED)  # type: ignore[arg-type]


# -- M15 Temple ----------------------------------------------------------------------------
def temple_position(variant: str) -> MunicipiumState:
    """Orange (2) holds the Temple majority over yellow (1 distinguished = 2) and blue (1)."""
    return (Position(variant, 3)
            .members(blue={"temple": 1, "rest": "baths"}, orange={"temple": 2, "rest": "emporium"},
                     yellow={"temple*": 1, "tavern": 1, "rest": "forum"})
            .temple("blue", "orange", "yellow").turn("orange").build())


def test_m15_temple_reorders_by_influence_ties_keep_their_order() -> None:
    st = temple_position("classic")
    play(st, "play powers")
    assert legal(st) == ["power temple", "skip"]  # classic: may
    events = play(st, "power temple")
    assert temple_order(st) == ["orange", "yellow", "blue"]
    assert of_kind(events, "temple-order") == [{"order": ["orange", "yellow", "blue"]}]


def test_m15_classic_temple_power_may_be_skipped() -> None:
    st = temple_position("classic")
    play(st, "play powers", "skip")
    assert temple_order(st) == ["blue", "orange", "yellow"]


def test_m15_revised_temple_power_is_compulsory() -> None:
    st = temple_position("revised")
    events = play(st, "play powers")
    assert temple_order(st) == ["orange", "yellow", "blue"]
    assert of_kind(events, "power") == [{"family": "orange", "institution": "temple"}]
    assert step(st) == "offer" and legal(st) == ["power emporium", "skip"]


def test_m15_new_temple_order_counts_at_once() -> None:
    """All Powers: the reorder decides the next tie (the Tavern, blue 2 v yellow 2)."""
    st = (Position("classic", 3)
          .members(blue={"temple": 2, "tavern": 2, "rest": "baths"},
                   orange={"rest": "emporium"}, yellow={"temple": 1, "tavern": 2, "rest": "forum"})
          .temple("yellow", "blue", "orange").deck("all-powers").build())
    play(st, "play common")
    assert mover(st) == "blue" and legal(st) == ["power temple", "skip"]
    play(st, "power temple")
    assert temple_order(st)[:2] == ["blue", "yellow"]
    assert mover(st) == "blue" and legal(st) == ["power tavern", "skip"]


# -- M16 Tavern ---------------------------------------------------------------------------------
def tavern_position() -> MunicipiumState:
    return (Position().members(blue={"tavern": 3, "rest": "praetorium"},
                               orange={"forum": 2, "forum*": 1, "rest": "baths"},
                               yellow={"tavern": 7})
            .build())


def test_m16_tavern_any_family_one_institution_how_many() -> None:
    st = tavern_position()
    start_power(st, "blue", "tavern")
    assert legal(st) == ["family blue", "family orange"]  # yellow: all already in the Tavern
    play(st, "family orange")
    assert legal(st) == ["from baths", "from forum"]
    play(st, "from forum")
    assert legal(st) == ["send 1", "send 2", "send 0 1*", "send 1 1*", "send 2 1*"]
    events = play(st, "send 1 1*")
    assert at(st, "forum") == {"orange": (1, 0)}
    assert at(st, "tavern")["orange"] == (1, 1)
    assert of_kind(events, "tavern") == [{"family": "orange", "source": "forum", "members": 1,
                                          "distinguished": 1}]
    assert step(st) == "turn"


def test_m16_tavern_may_call_ones_own_family() -> None:
    st = tavern_position()
    start_power(st, "blue", "tavern")
    play(st, "family blue", "from praetorium", "send 4")
    assert at(st, "tavern")["blue"] == (7, 0) and at(st, "praetorium") == {}


# -- M17 Baths ----------------------------------------------------------------------------------
def test_m17_baths_all_members_to_temple_one_distinguished() -> None:
    st = blue_at({"baths": 3, "rest": "praetorium"}).temple("orange", "yellow", "blue").build()
    events = start_power(st, "blue", "baths")
    assert at(st, "baths") == {} and at(st, "temple") == {"blue": (2, 1)}
    assert st.wreath_supply == 12 and of_kind(events, "distinction")[0]["granted"]
    assert temple_order(st) == ["orange", "yellow", "blue"]  # the Temple order does not change


def test_m17_distinction_may_go_to_a_member_already_in_the_temple() -> None:
    st = blue_at({"baths*": 1, "temple": 1, "rest": "praetorium"}).build()
    start_power(st, "blue", "baths")
    assert at(st, "temple") == {"blue": (0, 2)}
    assert st.wreath_supply == 11


def test_m17_baths_with_no_wreath_left_still_moves() -> None:
    st = blue_at({"baths": 2, "rest": "praetorium"}).wreaths(0).build()
    events = start_power(st, "blue", "baths")
    assert at(st, "temple") == {"blue": (2, 0)} and at(st, "baths") == {}
    assert of_kind(events, "distinction") == [{"family": "blue", "granted": False}]
    assert st.wreath_supply == 0


def test_m17_no_undistinguished_member_no_wreath() -> None:
    st = blue_at({"baths*": 1, "temple*": 1, "rest": "praetorium"}).build()
    start_power(st, "blue", "baths")
    assert at(st, "temple") == {"blue": (0, 2)} and st.wreath_supply == 11


# -- M18 Emporium -----------------------------------------------------------------------------
def test_m18_emporium_draw_place_stop_at_will() -> None:
    st = blue_at({"emporium": 3, "rest": "praetorium"}).draws("priest", "militia").build()
    start_power(st, "blue", "emporium")
    assert legal(st)[0] == "place priest temple" and len(legal(st)) == 7
    play(st, "place priest temple")
    assert legal(st) == ["draw", "stop"]
    play(st, "draw", "place militia praetorium", "stop")
    assert citizens_at(st, "temple") == ["priest"] and citizens_at(st, "praetorium") == ["militia"]
    assert step(st) == "turn" and mover(st) == "blue"


def test_m18_emporium_stop_leaves_bag_untouched() -> None:
    st = blue_at({"emporium": 3, "rest": "praetorium"}).draws("priest").build()
    start_power(st, "blue", "emporium")
    play(st, "place priest temple")
    bag = list(st.bag)
    assert legal(st) == ["draw", "stop"]  # between two draws
    play(st, "stop")
    assert st.bag == bag and step(st) == "turn"


def test_m18_emporium_must_stop_after_a_citizen_event() -> None:
    st = (blue_at({"emporium": 3, "rest": "praetorium"}).citizens(baths=["merchant", "merchant"])
          .draws("merchant").build())
    start_power(st, "blue", "emporium")
    events = play(st, "place merchant baths")
    assert of_kind(events, "citizen-event")[0]["to_bag"] == ["merchant"] * 3  # nobody there
    assert step(st) == "turn" and "draw" not in legal(st)


def test_m18_emporium_stops_after_event_then_next_power_is_offered() -> None:
    st = (Position().members(blue={"emporium": 3, "baths": 1, "basilica": 3},
                             orange={"rest": "tavern"}, yellow={"rest": "forum"})
          .citizens(baths=["merchant", "merchant"]).draws("merchant").build())
    play(st, "play powers", "skip", "power emporium", "place merchant baths")
    assert held(st, "blue")["merchant"] == 2
    assert legal(st) == ["power basilica", "skip"]


# -- M19 Basilica ---------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["classic", "revised"])
def test_m19_basilica_exchange_any_three(variant: str) -> None:
    st = blue_at({"basilica": 3, "rest": "praetorium"}, variant).supply(
        blue={"priest": 2, "favour": 1}).build()
    start_power(st, "blue", "basilica")
    assert legal(st) == ["exchange priest priest favour", "draw"]
    bag, supply = list(st.bag), st.favour_supply
    play(st, "exchange priest priest favour")
    assert held(st, "blue") == {"favour": 0, "decurions": 1}
    assert st.bag[0] == bag[0] + 2 and st.favour_supply == supply + 1


def test_m19_basilica_only_one_exchange() -> None:
    st = blue_at({"basilica": 3, "rest": "praetorium"}).supply(
        blue={"priest": 3, "militia": 3}).build()
    start_power(st, "blue", "basilica")
    assert "exchange priest priest priest" in legal(st)
    assert "exchange priest militia militia" in legal(st) and len(legal(st)) == 4 + 1
    play(st, "exchange priest priest militia")
    assert held(st, "blue") == {"priest": 1, "militia": 2, "favour": 0, "decurions": 1}
    assert step(st) == "turn"


def test_m19_basilica_fewer_than_three_only_draw() -> None:
    st = blue_at({"basilica": 3, "rest": "praetorium"}).supply(
        blue={"militia": 1, "favour": 1}).build()
    start_power(st, "blue", "basilica")
    assert legal(st) == ["draw"]


def test_m19_basilica_draw_then_m7() -> None:
    st = blue_at({"basilica": 3, "rest": "praetorium"}).supply(
        blue={"militia": 1, "merchant": 1, "advocate": 1}).draws("priest").build()
    start_power(st, "blue", "basilica")
    assert legal(st) == ["exchange militia merchant advocate", "draw"]
    events = play(st, "draw")
    assert of_kind(events, "draw") == [{"family": "blue", "citizen": "priest"}]
    assert held(st, "blue") == {"favour": 0, "decurions": 1}


# -- M20 Forum -----------------------------------------------------------------------------------
def test_m20_forum_citizen_from_a_family_or_institution_never_favour_or_room() -> None:
    st = (Position().members(blue={"forum": 3, "rest": "praetorium"}, orange={"rest": "tavern"},
                             yellow={"rest": "baths"})
          .supply(blue={"priest": 1}, orange={"militia": 1, "favour": 2}, yellow={"favour": 1})
          .citizens(basilica=["advocate"], temple=["priest", "priest"])
          .rooms(forum="merchant", baths="priest").build())
    start_power(st, "blue", "forum")
    assert legal(st) == ["take militia orange", "take priest temple", "take advocate basilica"]
    events = play(st, "take militia orange")
    assert held(st, "orange") == {"favour": 2, "decurions": 0}
    assert held(st, "blue") == {"priest": 1, "militia": 1, "favour": 0, "decurions": 0}
    assert of_kind(events, "take") == [{"family": "blue", "citizen": "militia",
                                        "source": "orange"}]


def test_m20_forum_take_from_institution_then_m7() -> None:
    st = (Position().members(blue={"forum": 3, "rest": "praetorium"}, orange={"rest": "tavern"},
                             yellow={"rest": "baths"})
          .supply(blue={"priest": 1, "militia": 1, "merchant": 1})
          .citizens(basilica=["advocate"]).build())
    start_power(st, "blue", "forum")
    play(st, "take advocate basilica")
    assert citizens_at(st, "basilica") == [] and held(st, "blue")["decurions"] == 1
    assert_consistent(st)


# -- M21 Praetorium --------------------------------------------------------------------------------
def test_m21_classic_praetorium_repositions_every_member_in_turn() -> None:
    st = blue_at({"temple": 1, "baths": 2, "baths*": 1, "praetorium": 3}).build()
    start_power(st, "blue", "praetorium")
    seen = []
    for dst in ("forum", "baths", "forum", "forum", "praetorium", "praetorium", "tavern"):
        seen.append(legal(st)[0].split(">")[0])
        assert len(legal(st)) == 7 and "done" not in legal(st)  # may stay, may not stop
        play(st, f"{legal(st)[0].split('>')[0]}>{dst}")
    assert seen == ["reposition temple"] + ["reposition baths"] * 2 + ["reposition baths*"] + [
        "reposition praetorium"] * 3
    assert at(st, "forum")["blue"] == (2, 1) and at(st, "baths")["blue"] == (1, 0)
    assert at(st, "praetorium")["blue"] == (2, 0) and at(st, "tavern")["blue"] == (1, 0)
    assert step(st) == "turn"


def test_m21_revised_praetorium_any_members_then_done() -> None:
    st = blue_at({"baths": 1, "praetorium": 6}, "revised").build()
    start_power(st, "blue", "praetorium")
    assert "done" in legal(st) and "reposition baths>baths" not in legal(st)
    assert len(legal(st)) == 6 + 6 + 1
    play(st, "reposition baths>forum")
    assert not any(d.startswith("reposition forum") for d in legal(st))  # each member once
    assert "advance" not in legal(st)
    play(st, "reposition praetorium>temple", "done")
    assert at(st, "forum")["blue"] == (1, 0) and at(st, "temple") == {"blue": (1, 0)}
    assert step(st) == "turn"
