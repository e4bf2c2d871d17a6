"""Every card: common (praefect-visit, citizen-visit, one-power, all-powers) and family
(powers, praefect, invitations, grande-famille), M11/M12."""

from __future__ import annotations

import pytest

from games.core import IllegalDecisionError
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
    step,
)


def spread(variant: str = "classic", seats: int = 3) -> Position:
    """Blue: Temple+Tavern; orange: Baths+Basilica; yellow: Forum (and 1 in the Tavern)."""
    fams = {"blue": {"temple": 2, "tavern": 3, "basilica": 2},
            "orange": {"baths": 3, "basilica": 3, "forum": 1},
            "yellow": {"forum": 6, "tavern": 1}, "black": {"rest": "praetorium"}}
    return Position(variant, seats).members(**dict(list(fams.items())[:seats]))


# -- common cards ---------------------------------------------------------------------------
def test_card_praefect_visit_common_goes_to_discard() -> None:
    st = spread().rooms(forum="militia").deck("praefect-visit").draws("priest").build()
    events = play(st, "play common")
    assert of_kind(events, "praefect")[0] == {"institution": "forum", "favour": "yellow",
                                               "citizen": "militia", "citizen_to": "orange"}
    assert st.discard == ["praefect-visit"] and len(st.deck) == 11
    assert st.family_cards[0] == ["powers", "praefect", "invitations"]
    assert mover(st) == "orange"


def test_card_citizen_visit_every_family_must_place_one() -> None:
    st = spread().deck("citizen-visit").draws("merchant", "advocate", "militia").build()
    play(st, "play common")
    assert legal(st) == ["place merchant baths", "place merchant emporium"]  # no skip
    assert st.discard == []  # face up in front of blue until done
    events = play(st, "place merchant emporium", "place advocate basilica",
                  "place militia praetorium")
    assert [(e["family"], e["institution"]) for e in of_kind(events, "place")] == [
        ("blue", "emporium"), ("orange", "basilica"), ("yellow", "praetorium")]
    assert st.discard == ["citizen-visit"] and mover(st) == "orange"


def test_card_one_power_each_family_may_use_one() -> None:
    st = spread().supply(orange={"priest": 1}).deck("one-power").draws("militia").build()
    play(st, "play common")
    assert mover(st) == "blue" and legal(st) == ["power temple", "power tavern", "skip"]
    play(st, "skip")
    assert mover(st) == "orange" and legal(st) == ["power baths", "power basilica", "skip"]
    play(st, "power basilica", "draw")  # only one of its two powers
    assert held(st, "orange") == {"priest": 1, "militia": 1, "favour": 0, "decurions": 0}
    assert mover(st) == "yellow" and legal(st) == ["power forum", "skip"]
    play(st, "skip")
    assert st.discard == ["one-power"] and step(st) == "turn"
    assert mover(st) == "orange"


def test_card_one_power_majority_judged_when_each_family_chooses() -> None:
    """Blue's Tavern calls 6 of yellow's Forum members: the Forum is orange's, the Tavern
    yellow's, by the time each chooses."""
    st = spread().deck("one-power").build()
    play(st, "play common", "power tavern", "family yellow", "from forum", "send 6")
    assert mover(st) == "orange" and legal(st) == ["power baths", "power basilica",
                                                   "power forum", "skip"]
    play(st, "skip")
    assert mover(st) == "yellow" and legal(st) == ["power tavern", "skip"]


def test_card_all_powers_only_where_someone_is_present() -> None:
    st = spread().deck("all-powers").build()
    play(st, "play common")
    offered = []
    while step(st) == "offer":
        offered.append((mover(st), legal(st)[0]))
        play(st, "skip")
    # The Emporium and the Praetorium are empty: no power there.
    assert offered == [("blue", "power temple"), ("blue", "power tavern"),
                       ("orange", "power baths"), ("orange", "power basilica"),
                       ("yellow", "power forum")]
    assert st.discard == ["all-powers"]


# -- family cards ---------------------------------------------------------------------------
def test_card_your_powers_only_where_active_family_has_majority() -> None:
    st = spread().turn("orange").build()
    events = play(st, "play powers")
    assert legal(st) == ["power baths", "skip"]  # not Forum (present, no majority)
    play(st, "skip")
    assert legal(st) == ["power basilica", "skip"]
    play(st, "skip")
    assert st.family_cards[1] == ["praefect", "invitations"] and st.discard == []
    assert of_kind(events, "play") == [{"family": "orange", "card": "powers",
                                        "source": "family"}]
    assert mover(st) == "yellow"


def test_card_your_powers_some_or_all() -> None:
    st = spread().turn("orange").supply(orange={"priest": 1}).draws("militia").build()
    play(st, "play powers", "power baths")
    assert at(st, "temple")["orange"] == (2, 1)
    play(st, "power basilica", "draw")
    assert held(st, "orange")["militia"] == 1 and mover(st) == "yellow"


def test_card_praefect_family_card_classic() -> None:
    st = spread().rooms(forum="militia").build()
    play(st, "play praefect")
    assert st.praefect == 5 and held(st, "yellow")["favour"] == 1
    assert st.family_cards[0] == ["powers", "invitations"]
    assert st.discard == [] and len(st.deck) == 12  # not a common card
    assert_consistent(st)


def test_card_invitations_reveals_four_and_is_used_once() -> None:
    st = spread().draws("priest", "priest", "militia", "merchant").build()
    play(st, "play invitations", "place priest temple", "place priest temple",
         "place militia tavern", "place merchant baths")
    assert citizens_at(st, "temple") == ["priest", "priest"] and mover(st) == "orange"
    assert "invitations" not in st.family_cards[0]


def test_card_invitations_fewer_than_four_in_the_bag() -> None:
    st = (spread().supply(blue={"priest": 20, "militia": 20, "merchant": 20},
                          orange={"advocate": 18}).build())
    events = play(st, "play invitations")
    assert of_kind(events, "reveal")[0]["citizens"] == ["advocate", "advocate"]
    assert legal(st) == ["place advocate basilica", "place advocate forum"]


def grande_famille() -> MunicipiumState:
    return (spread("revised").rooms(forum="militia").draws("priest").build())


def test_card_grande_famille_advance_the_praefect() -> None:
    st = grande_famille()
    play(st, "play grande-famille")
    assert "advance" in legal(st) and "done" in legal(st)
    play(st, "advance")
    assert st.praefect == 5 and held(st, "yellow")["favour"] == 1
    assert held(st, "orange")["militia"] == 1
    assert "grande-famille" not in st.family_cards[0] and mover(st) == "orange"


def test_card_grande_famille_reposition_any_then_no_advance() -> None:
    st = grande_famille()
    play(st, "play grande-famille", "reposition tavern>forum")
    assert "advance" not in legal(st) and "done" in legal(st)
    play(st, "reposition tavern>forum", "done")
    assert at(st, "forum")["blue"] == (2, 0) and at(st, "tavern")["blue"] == (1, 0)
    assert st.praefect == 4 and mover(st) == "orange"


@pytest.mark.parametrize(("variant", "card"), [("classic", "grande-famille"),
                                               ("revised", "praefect")])
def test_card_family_cards_per_variant(variant: str, card: str) -> None:
    st = spread(variant).build()
    before = st.to_bytes()
    with pytest.raises(IllegalDecisionError):
        play(st, f"play {card}")
    assert st.to_bytes() == before
