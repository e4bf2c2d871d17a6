"""The position builder (fluent and described) and fixed chance (`fix_chance`)."""

from __future__ import annotations

from typing import Any

import pytest

from games.municipium import MunicipiumState
from tests.municipium.position import (
    Position,
    cards_in_play,
    citizens_in_hand,
    inconsistencies,
    legal,
    of_kind,
    play,
    position_from_text,
    room,
    step,
)

DESCRIBED = """
variant = "classic"
seats = 3
turn = "blue"
temple = ["orange", "blue", "yellow"]
deck = ["citizen-visit"]
draws = ["priest", "militia", "advocate"]

[members.blue]
baths = 2
"temple*" = 1
rest = "forum"
[members.orange]
tavern = 7
[members.yellow]
rest = "praetorium"

[citizens]
forum = ["advocate", "priest"]

[supply.blue]
priest = 1
favour = 2
"""


def fluent() -> Position:
    return (Position("classic", seats=3)
            .members(blue={"baths": 2, "temple*": 1, "rest": "forum"},
                     orange={"tavern": 7}, yellow={"rest": "praetorium"})
            .citizens(forum=["advocate", "priest"])
            .supply(blue={"priest": 1, "favour": 2})
            .temple("orange", "blue", "yellow")
            .deck("citizen-visit")
            .draws("priest", "militia", "advocate")
            .turn("blue"))


def visit(st: MunicipiumState) -> list[str]:
    """Play the Citizen Visit on top of the deck; the citizens drawn, in order."""
    events = play(st, "play common")
    while step(st) == "place":
        events += play(st, legal(st)[0])
    return [e["citizen"] for e in of_kind(events, "draw")]


def bare(**changes: Any) -> dict[str, Any]:
    """A minimal valid description, with `changes` (None: key removed)."""
    data: dict[str, Any] = {"members": {"blue": {"rest": "temple"}, "orange": {"rest": "baths"},
                                        "yellow": {"rest": "forum"}}}
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


# -- descriptions ------------------------------------------------------------------------------
def test_position_from_toml_equals_the_fluent_one() -> None:
    described, built = position_from_text(DESCRIBED).build(), fluent().build()
    assert described.to_bytes() == built.to_bytes()
    assert visit(described) == visit(built) == ["priest", "militia", "advocate"]


def test_every_description_key_matches_its_builder_method() -> None:
    data = {"variant": "revised", "seats": 4, "target": 4, "max_turns": 50, "seed": 9,
            "turn": "yellow", "turn_number": 7, "first": "orange",
            "temple": ["pink", "yellow", "orange", "blue"], "praefect": "tavern",
            "deck": ["one-power"], "discard": ["praefect-visit"], "draws": ["merchant"],
            "wreaths": 3, "no_favour": ["baths"],
            "members": {"blue": {"forum*": 2, "rest": "baths"}, "orange": {"tavern": 7},
                        "yellow": {"rest": "temple"}, "pink": {"forum": 7}},
            "citizens": {"emporium": ["merchant"]}, "rooms": {"forum": "militia"},
            "supply": {"pink": {"advocate": 2, "favour": 1}}, "decurions": {"orange": 3},
            "cards": {"blue": ["powers"]}}
    fluent_ = (Position("revised", 4, target=4, max_turns=50, seed=9)
               .turn("yellow", 7, first="orange").temple("pink", "yellow", "orange", "blue")
               .praefect("tavern").deck("one-power", discard=["praefect-visit"])
               .draws("merchant").wreaths(3).no_favour("baths")
               .members(blue={"forum*": 2, "rest": "baths"}, orange={"tavern": 7},
                        yellow={"rest": "temple"}, pink={"forum": 7})
               .citizens(emporium=["merchant"]).rooms(forum="militia")
               .supply(pink={"advocate": 2, "favour": 1}).decurions(orange=3)
               .cards(blue=["powers"]))
    assert Position.from_description(data).build().to_bytes() == fluent_.build().to_bytes()


@pytest.mark.parametrize(("data", "message"), [
    (bare(colour="red"), "unknown key 'colour'"),
    (bare(seats="3"), "seats must be an integer, not '3'"),
    (bare(seats=True), "seats must be an integer, not True"),
    (bare(variant="deluxe"), "no variant 'deluxe'"),
    (bare(turn="purple"), "turn: no family 'purple'; one of: blue, orange, yellow"),
    (bare(members={"blue": {"rest": "temple"}, "orange": {"rest": "baths"}}),
     "missing ['yellow']"),
    (bare(members={"blue": {"temple": 8}, "orange": {"rest": "baths"},
                   "yellow": {"rest": "forum"}}), "members.blue: 8 members given"),
    (bare(members={"blue": {"atlantis": 7}, "orange": {"rest": "baths"},
                   "yellow": {"rest": "forum"}}), "members.blue: no institution 'atlantis'"),
    (bare(members={"blue": {"temple": -1, "rest": "baths"}, "orange": {"rest": "baths"},
                   "yellow": {"rest": "forum"}}), "members.blue.temple must not be negative"),
    (bare(citizens={"forum": ["gold"]}), "citizens.forum: no citizen colour 'gold'"),
    (bare(citizens={"forum": "advocate"}), "citizens.forum must be a list of strings"),
    (bare(rooms={"temple": "priest"}), "rooms: the temple has no meeting room"),
    (bare(supply={"blue": {"priest": 21}}), "more citizens of each colour placed than the 20"),
    (bare(supply={"blue": {"favour": "2"}}), "supply.blue.favour must be an integer"),
    (bare(decurions={"black": 1}), "decurions: no family 'black'"),
    (bare(temple=["blue", "orange"]), "temple: must list every family once"),
    (bare(deck=["praefect-visit"] * 6), "6 x 'praefect-visit', the common deck has 5"),
    (bare(cards={"blue": ["grande-famille"]}), "cards.blue: no classic family card"),
    (bare(draws=["gold"]), "draws: no citizen colour 'gold'"),
    (bare(turn_number=0), "turn_number must be 1 or more, not 0"),
    (bare(members=None), "missing ['blue', 'orange', 'yellow']"),
])
def test_a_bad_description_names_the_bad_key_or_value(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(")):
        Position.from_description(data).build()


def test_a_description_that_is_not_toml_is_refused() -> None:
    with pytest.raises(ValueError, match="not TOML"):
        position_from_text("seats = = 3")


def test_families_are_the_variants_own() -> None:
    """Revised has no black family: its fourth is pink."""
    members = {"blue": {"rest": "temple"}, "orange": {"rest": "temple"},
               "yellow": {"rest": "temple"}}
    st = Position("revised", 4).members(**members, pink={"rest": "forum"}).build()
    assert st.names[3] == "pink"
    with pytest.raises(ValueError, match="no family 'black'"):
        Position("revised", 4).members(**members, black={"rest": "forum"}).build()


# -- fixed chance --------------------------------------------------------------------------------
def plain_position() -> MunicipiumState:
    return Position().members(**bare()["members"]).deck("citizen-visit", "one-power").build()


def test_fix_chance_citizens_are_drawn_in_order() -> None:
    st = plain_position()
    st.fix_chance("citizen", "advocate", "militia")
    st.fix_chance("citizen", "merchant")  # appended after the others
    assert visit(st) == ["advocate", "militia", "merchant"]


def test_fix_chance_cards_are_drawn_before_the_deck_top() -> None:
    st = plain_position()
    st.fix_chance("card", "all-powers")
    events = play(st, "play common")
    assert of_kind(events, "play")[0]["card"] == "all-powers"
    assert cards_in_play(st) == ["all-powers"]


def test_a_clone_keeps_the_fixed_chance() -> None:
    st = plain_position()
    st.fix_chance("citizen", "priest", "priest", "advocate")
    st.fix_chance("card", "citizen-visit", "praefect-visit")  # the deck: visit, one-power
    copy = st.clone()
    assert visit(copy) == ["priest", "priest", "advocate"]
    assert visit(st) == ["priest", "priest", "advocate"]  # the original kept its own
    assert of_kind(play(copy, "play common"), "play")[0]["card"] == "praefect-visit"


def test_fix_chance_refuses_an_unknown_kind() -> None:
    with pytest.raises(ValueError, match="no chance of kind 'dice'; kinds: citizen, card"):
        plain_position().fix_chance("dice", "6")


def test_a_fixed_colour_not_left_in_the_bag_is_an_error() -> None:
    st = (Position().members(**bare()["members"]).supply(orange={"advocate": 20})
          .deck("citizen-visit").build())
    st.fix_chance("citizen", "advocate")
    with pytest.raises(ValueError, match="no advocate left in the bag"):
        play(st, "play common")


def test_a_fixed_card_not_left_in_the_deck_is_an_error() -> None:
    st = Position().members(**bare()["members"]).deck(discard=["all-powers"]).build()
    st.fix_chance("card", "all-powers")
    with pytest.raises(ValueError, match="no all-powers card left in the deck"):
        play(st, "play common")


# -- queries -----------------------------------------------------------------------------------
def test_queries_of_a_card_in_progress() -> None:
    st = fluent().rooms(forum="militia").no_favour("baths").build()
    play(st, "play common")
    assert step(st) == "place" and citizens_in_hand(st) == ["priest"]
    assert cards_in_play(st) == ["citizen-visit"]
    assert room(st, "forum") == ("militia", True) and room(st, "baths") == (None, False)
    assert inconsistencies(st) == []


def test_inconsistencies_name_what_is_not_conserved() -> None:
    st = Position().members(**bare()["members"]).wreaths(0).build()
    assert inconsistencies(st) == ["0 wreaths, not 13"]
