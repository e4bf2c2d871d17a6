"""Setup: the board as laid out, setup placement and the initial Temple order (M0, M2, M3)."""

from __future__ import annotations

import pytest

from games.core import SetupError
from games.municipium import MunicipiumState
from games.municipium.board import BANNERS, INSTITUTIONS, MEETING_ROOMS
from tests.municipium.position import (
    Position,
    assert_consistent,
    at,
    legal,
    mover,
    play,
    room,
    step,
    temple_order,
)


def new_with_first(variant: str, seats: int, first: int) -> MunicipiumState:
    """A new game whose randomly drawn first family is seat `first`."""
    for seed in range(200):
        st = MunicipiumState.new(variant, seats, seed=seed)
        if st.first == first:
            return st
    raise AssertionError("no seed found")


def place_all(st: MunicipiumState, plans: dict[str, list[str]]) -> list[list[str]]:
    """Play setup: each family places its members in its plan's order.

    Returns the Temple order after every placement."""
    plans = {fam: list(plan) for fam, plan in plans.items()}
    orders = []
    while step(st) == "setup":
        play(st, "setup " + plans[mover(st)].pop(0))
        orders.append(temple_order(st))
    return orders


def test_m0_temple_example_blue_yellow_pink() -> None:
    """001 §4.1: Blue, Yellow, Pink enter the Temple; Yellow then Pink place a 2nd member."""
    st = new_with_first("classic", 5, first=0)
    rest = ["tavern", "baths", "emporium", "basilica", "forum"]
    plans = {"blue": ["temple", *rest, "praetorium"],
             "orange": ["tavern"] * 7,
             "yellow": ["temple", "temple", *rest],
             "black": ["forum"] * 7,
             "pink": ["temple", "temple", *rest]}
    orders = place_all(st, plans)
    assert orders[0] == ["blue"]                          # Blue's first: top space
    assert orders[2] == ["blue", "yellow"]                # Yellow: next lower space
    assert orders[4] == ["blue", "yellow", "pink"]        # Pink: third space
    assert orders[7] == ["yellow", "blue", "pink"]        # Yellow's 2nd: top, Blue shifts
    assert orders[9] == ["yellow", "pink", "blue"]        # Pink's 2nd: second, Blue third
    # No Temple member by their 7th placement: next open spaces, in placement order.
    assert orders[-1] == ["yellow", "pink", "blue", "orange", "black"]
    assert step(st) == "turn" and mover(st) == "blue"


def test_m0_third_member_goes_above_families_with_two() -> None:
    """M0: the k-th Temple member moves the disc just below those that reached k first."""
    st = new_with_first("classic", 3, first=0)
    plans = {"blue": ["temple", "temple", *["tavern"] * 5],
             "orange": ["temple", "temple", "temple", *["baths"] * 4],
             "yellow": ["forum"] * 7}
    orders = place_all(st, plans)
    assert orders[3] == ["blue", "orange"]       # Blue's 2nd member: already on top
    assert orders[4] == ["blue", "orange"]       # Orange's 2nd: below Blue, which had 2 first
    assert orders[7] == ["orange", "blue"]       # Orange's 3rd: above all (none had 3)
    assert orders[-1] == ["orange", "blue", "yellow"]


def test_m0_revised_temple_order_by_count_ties_to_earliest_seat_from_first() -> None:
    """Revised: order set once setup ends; ties go clockwise from the first family."""
    st = new_with_first("revised", 4, first=2)  # yellow first: yellow, pink, blue, orange
    plans = {"blue": ["temple", "temple", *["tavern"] * 5],
             "orange": ["temple", *["baths"] * 6],
             "yellow": ["temple", *["forum"] * 6],
             "pink": ["temple", "temple", *["basilica"] * 5]}
    orders = place_all(st, plans)
    assert all(order == [] for order in orders[:-1])  # nothing during setup
    assert orders[-1] == ["pink", "blue", "yellow", "orange"]
    assert mover(st) == "yellow"  # 5.0: the first to place starts the game


def test_m0_revised_no_temple_member_ranks_last_by_seat_from_first() -> None:
    st = new_with_first("revised", 3, first=1)  # orange, yellow, blue
    orders = place_all(st, {"blue": ["tavern"] * 7, "orange": ["baths"] * 7,
                            "yellow": ["temple", *["baths"] * 6]})
    assert orders[-1] == ["yellow", "orange", "blue"]


def test_setup_one_decision_per_member_any_institution() -> None:
    st = MunicipiumState.new("classic", 3, seed=1)
    assert legal(st) == [f"setup {name}" for name in INSTITUTIONS]
    seats = []
    while step(st) == "setup":
        seats.append(st.to_move()[0])
        play(st, "setup temple")
    assert len(seats) == 21
    assert seats[:6] == [(st.first + i) % 3 for i in range(6)]  # clockwise from the first
    assert at(st, "temple") == {f: (7, 0) for f in ("blue", "orange", "yellow")}  # no limit


@pytest.mark.parametrize(("variant", "seats", "per_colour", "favours", "wreaths"),
                         [("classic", 3, 20, 20, 13), ("revised", 3, 15, 15, 10)])
def test_m2_m3_board_layout(variant: str, seats: int, per_colour: int, favours: int,
                            wreaths: int) -> None:
    """Banner citizens in the Institutions, a Favour and a citizen in each meeting room."""
    st = MunicipiumState.new(variant, seats, seed=3)
    assert st.inst_citizens == [[c] for c in BANNERS]
    assert st.praefect == INSTITUTIONS.index("basilica")
    rooms = [room(st, INSTITUTIONS[i]) for i in MEETING_ROOMS]
    assert all(citizen is not None and favour for citizen, favour in rooms)
    assert st.room_citizen[0] is None and not st.room_favour[0]  # no room at the Temple
    assert sum(st.bag) == 4 * per_colour - 7 - 6
    assert st.favour_supply == favours - 6 and st.wreath_supply == wreaths
    assert all(len(cards) == 3 for cards in st.family_cards)


def test_revised_two_families_meeting_rooms_have_no_citizen() -> None:
    st = MunicipiumState.new("revised", 2, seed=5)
    assert st.room_citizen == [None] * 7
    assert sum(st.bag) == 60 - 7


def test_revised_two_families_praefect_event_gives_the_favour_only() -> None:
    st = (Position("revised", 2)
          .members(blue={"forum": 3, "rest": "tavern"}, orange={"forum": 2, "rest": "baths"})
          .deck("praefect-visit").build())
    bag = list(st.bag)
    play(st, "play common")
    assert st.favours == [1, 0] and st.supply == [[0] * 4, [0] * 4]
    assert st.room_citizen == [None] * 7 and st.bag == bag  # nothing drawn for the room
    assert_consistent(st)


@pytest.mark.parametrize(("variant", "seats"), [("classic", 2), ("classic", 6),
                                                 ("revised", 1), ("revised", 5)])
def test_setup_family_counts(variant: str, seats: int) -> None:
    with pytest.raises(SetupError):
        MunicipiumState.new(variant, seats)


@pytest.mark.parametrize("options", [{"target_decurions": 3}, {"max_turns": 0}, {"x": 1}])
def test_setup_bad_options(options: dict[str, int]) -> None:
    with pytest.raises(SetupError):
        MunicipiumState.new("classic", 3, options)
