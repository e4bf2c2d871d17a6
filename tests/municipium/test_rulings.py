"""Rulings M1-M13 (board, influence, events, turn) pinned on hand-set positions.

M0 is in test_setup, M14/M22/M23 in test_end, M15-M21 in test_powers.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from games.core import IllegalDecisionError, NotYourTurnError
from games.municipium import MunicipiumState
from games.municipium.board import COLOURS, COMMON_DECK
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
    room,
    start_power,
    step,
)

PARKED = {"blue": {"rest": "temple"}, "orange": {"rest": "temple"}, "yellow": {"rest": "temple"}}


def refused(st: MunicipiumState, text: str) -> None:
    """The decision raises IllegalDecisionError and changes nothing."""
    before = st.to_bytes()
    with pytest.raises(IllegalDecisionError):
        play(st, text)
    assert st.to_bytes() == before


# -- M1 streets, M2 Praefect route, M3 citizens in an Institution -----------------------
def test_m1_streets_from_baths_and_temple() -> None:
    st = (Position().members(blue={"baths": 1, "temple": 1, "rest": "praetorium"},
                             orange={"rest": "tavern"}, yellow={"rest": "forum"}).build())
    moves = [d for d in legal(st) if d.startswith("move ")]
    assert moves == ["move temple>tavern", "move temple>emporium", "move temple>forum",
                     "move baths>tavern", "move baths>emporium",
                     "move praetorium>tavern", "move praetorium>forum"]


def test_m1_baths_to_basilica_is_a_two_step_move() -> None:
    st = (Position().members(blue={"baths": 1, "rest": "praetorium"},
                             orange={"rest": "tavern"}, yellow={"rest": "forum"}).build())
    refused(st, "move baths>basilica")
    play(st, "move baths>emporium", "move emporium>basilica")
    assert at(st, "basilica") == {"blue": (1, 0)} and at(st, "baths") == {}


@pytest.mark.parametrize(("start", "visited"), [("basilica", "forum"), ("praetorium", "tavern"),
                                                ("tavern", "baths")])
def test_m2_praefect_moves_clockwise_to_next_room(start: str, visited: str) -> None:
    st = (Position().members(blue={"rest": "temple"}, orange={"rest": "temple"},
                             yellow={"rest": "temple"})
          .praefect(start).deck("praefect-visit").build())
    events = play(st, "play common")
    assert of_kind(events, "praefect")[0]["institution"] == visited
    assert st.discard == ["praefect-visit"]


def test_m3_banner_counts_and_meeting_room_citizen_does_not() -> None:
    st = (Position().members(blue={"baths": 1, "rest": "forum"}, orange={"rest": "forum"},
                             yellow={"rest": "forum"})
          .citizens(baths=["merchant"]).rooms(baths="merchant")
          .deck("citizen-visit").draws("merchant", "merchant", "priest").build())
    play(st, "play common", "place merchant baths")
    assert citizens_at(st, "baths") == ["merchant", "merchant"]  # room citizen not counted
    events = play(st, "place merchant baths")
    assert of_kind(events, "citizen-event")[0]["gains"] == {"blue": ["merchant", "merchant"]}
    assert room(st, "baths")[0] == "merchant" and citizens_at(st, "baths") == []  # room: kept


# -- M4 influence, M5 Citizen events ----------------------------------------------------
def visit_at_baths(blue: dict, orange: dict, baths: list[str], temple: tuple[str, ...] =
                   ("blue", "orange", "yellow")) -> MunicipiumState:
    """Blue's Citizen Visit: its drawn merchant will be the 3rd citizen in the Baths."""
    return (Position().members(blue=blue, orange=orange, yellow={"rest": "tavern"})
            .citizens(baths=baths).temple(*temple)
            .deck("citizen-visit").draws("merchant", "militia", "militia").build())


def test_m5_citizen_event_fires_on_third_citizen() -> None:
    st = visit_at_baths({"baths": 2, "rest": "forum"}, {"baths": 1, "rest": "forum"},
                        ["merchant", "priest"])
    play(st, "play common")
    assert legal(st) == ["place merchant baths", "place merchant emporium"]
    events = play(st, "place merchant baths")
    # Fires before the next family draws: the majority family chooses 2 of the 3.
    assert mover(st) == "blue" and of_kind(events, "draw") == []
    assert legal(st) == ["keep priest merchant", "keep merchant merchant"]
    events = play(st, "keep priest merchant")
    assert of_kind(events, "citizen-event") == [
        {"institution": "baths", "gains": {"blue": ["priest", "merchant"],
                                           "orange": ["merchant"]}, "to_bag": []}]
    assert held(st, "blue") == {"priest": 1, "merchant": 1, "favour": 0, "decurions": 0}
    assert held(st, "orange") == {"merchant": 1, "favour": 0, "decurions": 0}
    assert citizens_at(st, "baths") == [] and mover(st) == "orange"
    assert_consistent(st)


def test_m5_two_citizens_do_not_fire() -> None:
    st = visit_at_baths({"baths": 2, "rest": "forum"}, {"rest": "forum"}, ["priest"])
    play(st, "play common", "place merchant baths")
    assert citizens_at(st, "baths") == ["merchant", "priest"] and mover(st) == "orange"


def test_m5_one_family_present_third_citizen_to_bag() -> None:
    st = visit_at_baths({"baths": 1, "rest": "forum"}, {"rest": "forum"}, ["merchant", "priest"])
    play(st, "play common", "place merchant baths")
    bag = list(st.bag)
    events = play(st, "keep merchant merchant")
    assert of_kind(events, "citizen-event")[0]["to_bag"] == ["priest"]
    assert st.bag[0] == bag[0] + 1 and held(st, "blue")["merchant"] == 2
    assert held(st, "orange") == {"favour": 0, "decurions": 0}


def test_m5_no_family_present_all_three_to_bag() -> None:
    st = visit_at_baths({"rest": "forum"}, {"rest": "forum"}, ["merchant", "priest"])
    play(st, "play common")
    bag = list(st.bag)
    events = play(st, "place merchant baths")
    assert of_kind(events, "citizen-event")[0]["to_bag"] == ["merchant", "priest", "merchant"]
    assert mover(st) == "orange"  # orange has drawn its militia
    assert st.bag == [bag[0] + 1, bag[1] - 1, bag[2] + 2, bag[3]]


def test_m5_no_choice_no_decision() -> None:
    st = visit_at_baths({"baths": 2, "rest": "forum"}, {"baths": 1, "rest": "forum"},
                        ["merchant", "merchant"])
    play(st, "play common", "place merchant baths")
    assert mover(st) == "orange" and legal(st)[0].startswith("place militia")
    assert held(st, "blue")["merchant"] == 2 and held(st, "orange")["merchant"] == 1


@pytest.mark.parametrize(("blue", "orange", "temple", "keeper", "second"), [
    ({"baths*": 1, "rest": "forum"}, {"baths": 1, "rest": "forum"}, ("orange", "blue", "yellow"),
     "blue", "orange"),   # a distinguished member counts 2
    ({"baths*": 1, "rest": "forum"}, {"baths": 2, "rest": "forum"}, ("orange", "blue", "yellow"),
     "orange", "blue"),   # tie 2-2: the higher disc wins
    ({"baths*": 1, "rest": "forum"}, {"baths": 2, "rest": "forum"}, ("blue", "orange", "yellow"),
     "blue", "orange"),
    ({"baths": 1, "rest": "forum"}, {"baths": 3, "rest": "forum"}, ("blue", "orange", "yellow"),
     "orange", "blue"),   # the Temple only breaks ties
])
def test_m4_influence_and_temple_tie_break(blue: dict, orange: dict, temple: tuple[str, ...],
                                           keeper: str, second: str) -> None:
    st = visit_at_baths(blue, orange, ["merchant", "priest"], temple)
    play(st, "play common", "place merchant baths")
    assert mover(st) == keeper
    events = play(st, "keep merchant merchant")
    assert of_kind(events, "citizen-event")[0]["gains"] == {keeper: ["merchant", "merchant"],
                                                           second: ["priest"]}


# -- M6 Praefect events ------------------------------------------------------------------
def praefect_to_forum(blue: int, orange: int, yellow: int, **kw: object) -> MunicipiumState:
    """Blue draws a Praefect Visit; the Praefect moves from the Basilica to the Forum."""
    members = {}
    for fam, n, park in (("blue", blue, "tavern"), ("orange", orange, "baths"),
                         ("yellow", yellow, "emporium")):
        members[fam] = {"forum": n, "rest": park} if n else {"rest": park}
    pos = (Position(str(kw.get("variant", "classic")), int(kw.get("seats", 3)))
           .members(**members).rooms(forum="priest").deck("praefect-visit").draws("militia"))
    if kw.get("no_favour"):
        pos.no_favour("forum")
    return pos.build()


def test_m6_praefect_event_favour_to_majority_citizen_to_second() -> None:
    st = praefect_to_forum(3, 2, 1)
    supply = st.favour_supply
    events = play(st, "play common")
    assert of_kind(events, "praefect") == [{"institution": "forum", "favour": "blue",
                                            "citizen": "priest", "citizen_to": "orange"}]
    assert held(st, "blue")["favour"] == 1 and held(st, "orange")["priest"] == 1
    assert held(st, "yellow") == {"favour": 0, "decurions": 0}
    assert room(st, "forum")[1] and st.favour_supply == supply - 1  # Favour space refilled
    assert room(st, "forum")[0] == "militia"  # a new citizen drawn
    assert_consistent(st)


def test_m6_one_family_favour_only_citizen_to_bag() -> None:
    st = praefect_to_forum(0, 0, 2)
    bag = list(st.bag)
    play(st, "play common")
    assert held(st, "yellow") == {"favour": 1, "decurions": 0}
    assert st.bag == [bag[0] + 1, bag[1] - 1, bag[2], bag[3]]  # priest back, militia drawn


def test_m6_no_family_favour_stays_citizen_to_bag() -> None:
    st = praefect_to_forum(0, 0, 0)
    supply, bag = st.favour_supply, list(st.bag)
    play(st, "play common")
    assert st.favours == [0, 0, 0] and room(st, "forum") == ("militia", True)
    assert st.favour_supply == supply and st.bag == [bag[0] + 1, bag[1] - 1, bag[2], bag[3]]


def test_m6_empty_favour_space_gives_no_favour_and_is_refilled() -> None:
    st = praefect_to_forum(3, 2, 0, no_favour=True)
    supply = st.favour_supply
    play(st, "play common")
    assert held(st, "blue")["favour"] == 0 and held(st, "orange")["priest"] == 1
    assert room(st, "forum")[1] and st.favour_supply == supply - 1


def test_m6_m8_empty_favour_supply_leaves_the_space_empty() -> None:
    st = (Position("revised", 4)
          .members(blue={"forum": 2, "rest": "tavern"}, orange={"rest": "baths"},
                   yellow={"rest": "baths"}, pink={"rest": "baths"})
          .supply(orange={"favour": 3}, yellow={"favour": 3}, pink={"favour": 3})
          .deck("praefect-visit").build())
    assert st.favour_supply == 0
    play(st, "play common")
    assert held(st, "blue")["favour"] == 1
    assert not room(st, "forum")[1] and st.favour_supply == 0
    assert_consistent(st)


# -- M7 Decurions ---------------------------------------------------------------------------
def forum_event(blue_supply: dict, forum: list[str]) -> MunicipiumState:
    """Yellow's Citizen Visit; blue, last, places its advocate in the Forum: a Citizen event."""
    st = (Position().members(blue={"forum": 2, "rest": "baths"},
                             orange={"forum": 1, "rest": "tavern"}, yellow={"rest": "tavern"})
          .citizens(forum=forum).supply(blue=blue_supply).turn("yellow")
          .deck("citizen-visit").draws("militia", "militia", "advocate").build())
    play(st, "play common", "place militia tavern", "place militia tavern")
    return st


def test_m7_decurion_exchange_real_citizens_before_favours() -> None:
    st = forum_event({"militia": 1, "merchant": 1, "favour": 1}, ["priest", "advocate"])
    play(st, "place advocate forum")
    bag, supply = list(st.bag), st.favour_supply
    events = play(st, "keep priest advocate")
    assert of_kind(events, "decurion") == [{"family": "blue", "favours_used": 0}]
    assert held(st, "blue") == {"favour": 1, "decurions": 1}  # the Favour is kept
    assert st.bag == [bag[0] + 1, bag[1] + 1, bag[2] + 1, bag[3] + 1]
    assert st.favour_supply == supply and held(st, "orange")["advocate"] == 1
    assert_consistent(st)


def test_m7_favours_are_wild_and_go_back_to_the_supply() -> None:
    st = forum_event({"militia": 1, "merchant": 1, "favour": 1}, ["priest", "advocate"])
    play(st, "place advocate forum")
    supply = st.favour_supply
    events = play(st, "keep advocate advocate")  # no priest: the Favour stands in for one
    assert of_kind(events, "decurion") == [{"family": "blue", "favours_used": 1}]
    assert held(st, "blue") == {"advocate": 1, "favour": 0, "decurions": 1}
    assert st.favour_supply == supply + 1


def test_m7_every_complete_set_at_once() -> None:
    st = forum_event({"priest": 2, "militia": 2, "merchant": 2}, ["priest", "advocate"])
    play(st, "place advocate forum")
    events = play(st, "keep advocate advocate")
    assert len(of_kind(events, "decurion")) == 2
    assert held(st, "blue") == {"favour": 0, "decurions": 2}


def test_m7_exchange_happens_on_another_familys_turn() -> None:
    st = (Position().members(blue={"forum": 3, "rest": "tavern"},
                             orange={"forum": 2, "rest": "baths"}, yellow={"rest": "baths"})
          .rooms(forum="advocate").supply(orange={"priest": 1, "militia": 1, "merchant": 1})
          .deck("praefect-visit").draws("militia").build())
    play(st, "play common")
    assert held(st, "orange") == {"favour": 0, "decurions": 1}
    assert mover(st) == "orange"  # no decision was involved; it is simply orange's turn


@settings(max_examples=80, deadline=None)
@given(citizens=hs.lists(hs.integers(0, 4), min_size=4, max_size=4), favours=hs.integers(0, 6))
def test_m7_property_as_many_sets_as_possible_real_citizens_first(citizens: list[int],
                                                                 favours: int) -> None:
    supply = dict(zip(COLOURS, citizens, strict=True)) | {"favour": favours}
    st = Position().members(**PARKED).supply(blue=supply).build()
    st.exchange_sets(0)
    sets = max(d for d in range(10) if sum(max(0, d - c) for c in citizens) <= favours)
    left = [c - min(c, sets) for c in citizens]  # one of each held, per set
    assert held(st, "blue") == {c: n for c, n in zip(COLOURS, left, strict=True) if n} | {
        "favour": favours - sum(max(0, sets - c) for c in citizens), "decurions": sets}


# -- M8 empty bag, M9 deck ---------------------------------------------------------------------
def empty_bag(*top: str) -> MunicipiumState:
    """Every citizen is held by blue or orange (no complete set): the bag is empty."""
    return (Position().members(blue={"emporium": 7}, orange={"basilica": 7},
                               yellow={"forum": 7})
            .supply(blue={"priest": 20, "militia": 20, "merchant": 20},
                    orange={"advocate": 20})
            .rooms().deck(*top).build())


def test_m8_empty_bag_citizen_visit_draws_nothing() -> None:
    st = empty_bag("citizen-visit")
    assert st.bag == [0, 0, 0, 0]
    events = play(st, "play common")
    assert of_kind(events, "draw") == [] and of_kind(events, "place") == []
    assert mover(st) == "orange" and st.discard == ["citizen-visit"]


def test_m8_empty_bag_invitations_reveal_nothing() -> None:
    st = empty_bag()
    events = play(st, "play invitations")
    assert of_kind(events, "reveal") == [{"family": "blue", "citizens": []}]
    assert mover(st) == "orange" and "invitations" not in st.family_cards[0]


def test_m8_empty_bag_emporium_and_basilica_draw_nothing() -> None:
    st = empty_bag()
    events = start_power(st, "blue", "emporium")
    assert of_kind(events, "draw") == [] and step(st) == "turn"
    start_power(st, "blue", "basilica")
    assert "draw" not in legal(st) and "exchange priest priest priest" in legal(st)


def test_m8_empty_bag_meeting_room_stays_empty() -> None:
    st = empty_bag("praefect-visit")
    play(st, "play common")
    assert held(st, "yellow") == {"favour": 1, "decurions": 0}
    assert room(st, "forum")[0] is None
    assert_consistent(st)


def test_m9_empty_deck_reshuffles_the_discard_pile() -> None:
    st = (Position().members(blue={"rest": "temple"}, orange={"rest": "temple"},
                             yellow={"rest": "temple"})
          .deck(discard=COMMON_DECK).build())
    assert st.deck == []
    events = play(st, "play common")
    assert of_kind(events, "reshuffle") == [{"cards": 12}]
    card = of_kind(events, "play")[0]["card"]
    while step(st) != "turn" or mover(st) == "blue":  # finish the card
        play(st, legal(st)[-1])
    assert len(st.deck) == 11 and st.discard == [card]
    assert_consistent(st)


def test_m9_deck_top_is_drawn_first() -> None:
    st = (Position().members(blue={"rest": "temple"}, orange={"rest": "temple"},
                             yellow={"rest": "temple"})
          .deck("all-powers", "one-power").build())
    assert of_kind(play(st, "play common"), "play")[0]["card"] == "all-powers"


# -- M10 movement, M11 card ---------------------------------------------------------------------
def movers(blue: dict) -> MunicipiumState:
    return (Position().members(blue=blue, orange={"rest": "tavern"}, yellow={"rest": "forum"})
            .deck("praefect-visit").build())


def test_m10_movement_is_optional() -> None:
    st = movers({"baths": 1, "rest": "praetorium"})
    play(st, "play common")
    assert mover(st) == "orange" and at(st, "baths") == {"blue": (1, 0)}


def test_m10_one_member_two_streets_may_not_end_where_it_started() -> None:
    st = movers({"baths": 1, "rest": "praetorium"})
    play(st, "move baths>emporium")
    moves = [d for d in legal(st) if d.startswith("move emporium")]
    assert moves == ["move emporium>temple", "move emporium>basilica"]
    refused(st, "move emporium>baths")
    play(st, "move emporium>temple")
    assert at(st, "temple") == {"blue": (1, 0)} and at(st, "baths") == {}


def test_m10_two_members_one_street_each() -> None:
    st = movers({"baths": 2, "emporium": 1, "rest": "praetorium"})
    play(st, "move baths>emporium")
    assert "move emporium>baths" in legal(st)  # another member may take the opposite street
    play(st, "move baths>tavern")
    assert at(st, "baths") == {} and at(st, "emporium")["blue"] == (2, 0)
    assert at(st, "tavern")["blue"] == (1, 0)


def test_m10_at_most_two_moves() -> None:
    st = movers({"baths": 2, "rest": "praetorium"})
    play(st, "move baths>tavern", "move praetorium>forum")
    assert legal(st) == ["play common", "play powers", "play praefect", "play invitations"]
    refused(st, "move baths>emporium")


def test_m10_distinguished_member_moves_as_itself() -> None:
    st = movers({"baths*": 1, "rest": "praetorium"})
    play(st, "move baths*>emporium")
    assert at(st, "emporium") == {"blue": (0, 1)}
    refused(st, "move emporium>baths")  # no plain member there


def test_m11_a_card_must_be_played_family_cards_once() -> None:
    st = (Position().members(blue={"rest": "temple"}, orange={"rest": "tavern"},
                             yellow={"rest": "forum"})
          .deck("praefect-visit", "praefect-visit").build())
    assert "skip" not in legal(st) and "done" not in legal(st)
    play(st, "play powers")  # blue: Temple majority only
    play(st, "skip")
    assert st.family_cards[0] == ["praefect", "invitations"]
    play(st, "play common", "play common")  # orange, yellow
    assert mover(st) == "blue"
    assert legal(st)[-3:] == ["play common", "play praefect", "play invitations"]
    refused(st, "play powers")


# -- M12 orders of resolution -----------------------------------------------------------------
def test_m12_citizen_visit_clockwise_from_active() -> None:
    st = (Position().members(blue={"rest": "temple"}, orange={"rest": "temple"},
                             yellow={"rest": "temple"})
          .turn("orange").deck("citizen-visit").draws("priest", "priest", "priest").build())
    order = []
    play(st, "play common")
    while step(st) == "place":
        order.append(mover(st))
        play(st, "place priest tavern")
    assert order == ["orange", "yellow", "blue"] and mover(st) == "yellow"


def test_m12_one_power_clockwise_skips_families_without_majority() -> None:
    st = (Position().members(blue={"rest": "tavern"}, orange={"rest": "temple"},
                             yellow={"rest": "forum"})
          .temple("orange", "yellow", "blue").turn("yellow").deck("one-power").build())
    play(st, "play common")
    asked = []
    while step(st) == "choose_power":
        asked.append((mover(st), legal(st)))
        play(st, "skip")
    assert asked == [("yellow", ["power forum", "skip"]), ("blue", ["power tavern", "skip"]),
                     ("orange", ["power temple", "skip"])]


def all_powers_position() -> MunicipiumState:
    return (Position().members(blue={"temple": 3, "tavern": 3, "praetorium": 1},
                               orange={"baths": 3, "emporium": 4},
                               yellow={"basilica": 2, "forum": 2, "praetorium": 3})
            .deck("all-powers").build())


def test_m12_all_powers_in_order_temple_to_praetorium() -> None:
    st = all_powers_position()
    play(st, "play common")
    offered = []
    while step(st) == "offer":
        offered.append((mover(st), legal(st)[0]))
        play(st, "skip")
    assert offered == [("blue", "power temple"), ("blue", "power tavern"),
                       ("orange", "power baths"), ("orange", "power emporium"),
                       ("yellow", "power basilica"), ("yellow", "power forum"),
                       ("yellow", "power praetorium")]
    assert mover(st) == "orange" and st.discard == ["all-powers"]


def test_m12_majority_judged_when_each_power_is_offered() -> None:
    st = all_powers_position()
    play(st, "play common", "skip", "power tavern", "family yellow", "from praetorium", "send 3")
    assert at(st, "praetorium") == {"blue": (1, 0)}
    play(st, "skip", "skip", "skip", "skip")  # baths, emporium, basilica, forum
    assert mover(st) == "blue" and legal(st) == ["power praetorium", "skip"]


# -- M13 citizen placement -------------------------------------------------------------------
@pytest.mark.parametrize(("colour", "places"), [
    ("priest", ["temple", "tavern", "baths", "emporium", "basilica", "forum", "praetorium"]),
    ("militia", ["tavern", "praetorium"]), ("merchant", ["baths", "emporium"]),
    ("advocate", ["basilica", "forum"])])
def test_m13_placement_restrictions(colour: str, places: list[str]) -> None:
    st = (Position().members(blue={"rest": "temple"}, orange={"rest": "temple"},
                             yellow={"rest": "temple"})
          .deck("citizen-visit").draws(colour).build())
    play(st, "play common")
    assert legal(st) == [f"place {colour} {p}" for p in places]
    wrong = "temple" if colour != "priest" else None
    if wrong:
        refused(st, f"place {colour} {wrong}")


def test_m13_invitations_event_decided_by_majority_then_back_to_active() -> None:
    st = (Position().members(blue={"rest": "temple"}, orange={"forum": 1, "rest": "tavern"},
                             yellow={"rest": "tavern"})
          .citizens(forum=["advocate", "priest"]).draws("advocate", "priest", "priest", "priest")
          .build())
    play(st, "play invitations", "place advocate forum")
    assert mover(st) == "orange" and legal(st) == ["keep priest advocate",
                                                   "keep advocate advocate"]
    before = st.to_bytes()
    with pytest.raises(NotYourTurnError):
        st.apply(0, "keep priest advocate")
    assert st.to_bytes() == before
    play(st, "keep advocate advocate")
    assert held(st, "orange")["advocate"] == 2 and mover(st) == "blue"
    assert legal(st)[0] == "place priest temple"


def test_m13_invitations_any_order_citizen_event_between_placements() -> None:
    st = (Position().members(blue={"forum": 2, "rest": "temple"}, orange={"forum": 1,
                                                                         "rest": "tavern"},
                             yellow={"rest": "tavern"})
          .citizens(forum=["advocate", "priest"])
          .deck().draws("merchant", "priest", "advocate", "militia").build())
    events = play(st, "play invitations")
    assert of_kind(events, "reveal") == [
        {"family": "blue", "citizens": ["merchant", "priest", "advocate", "militia"]}]
    assert len(legal(st)) == 7 + 2 + 2 + 2  # any of the 4, in any order
    play(st, "place advocate forum")  # 3rd citizen in the Forum: the event comes first
    assert step(st) == "keep" and mover(st) == "blue"
    play(st, "keep priest advocate")
    assert held(st, "orange")["advocate"] == 1 and citizens_at(st, "forum") == []
    assert "place priest forum" in legal(st)  # the emptied Forum takes citizens again
    assert "place advocate forum" not in legal(st)  # each revealed citizen placed once
    play(st, "place priest forum", "place militia tavern", "place merchant baths")
    assert citizens_at(st, "forum") == ["priest"] and mover(st) == "orange"
    assert_consistent(st)
