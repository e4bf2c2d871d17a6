"""Phase III, placing the servants: order (from the Princeps, clockwise, one at a time),
no spot twice, the Senate spots (draw 4 recruit 2 / draw 2 recruit 1, costs, the rest
under the pile, private draws), the cénacle limit (C8) and discarding, the upper zone
spots (+X and/or a card, in either order; others one of them), the lower spots (+1 and a
card; others one of them), empty decks (C12)."""

from __future__ import annotations

import pytest

from games.ciceron.position import (
    Position,
    cenacle,
    hand,
    influence,
    legal,
    mover,
    of_kind,
    play,
    senator_where,
    step,
)
from games.ciceron.state import CiceronState
from games.core import IllegalDecisionError

HORTENSIUS = "quintus-hortensius-hortalus"  # orator 3 votes, orator influence 2
CATO = "marcus-porcius-cato"  # orator 2 votes, influence orator 2 mercator 1
ATTICUS = "titus-pomponius-atticus"
METELLUS = "quintus-caecilius-metellus-pius"
ANTONIUS = "marcus-antonius"  # influence belligerator 2, orator 1
LABIENUS = "titus-labienus"
PILE = "orator-pontifex"
CURIO = "gaius-scribonius-curio"  # cost orator 4
BIBULUS = "marcus-calpurnius-bibulus"  # orator 3 pontifex 1
CATULUS = "quintus-lutatius-catulus"  # orator 2 pontifex 2
PHILIPPUS = "lucius-marcius-philippus"  # orator 1 pontifex 3
BALBUS = "lucius-cornelius-balbus"  # orator 3 pontifex 1
GABINIUS = "aulus-gabinius"  # orator 2 pontifex 2
SCAEVOLA = "quintus-mucius-scaevola"  # orator 2 pontifex 2
MEMMIUS = "gaius-memmius"  # pontifex 4
AXIUS = "quintus-axius"  # orator 4, raises the limit by 1
QUINCTIUS = "lucius-quinctius"  # orator 1 pontifex 3, raises the limit by 2


def servants() -> Position:
    """Turn 1, phase III, aemilii (the Princeps) to place; 3 families."""
    return Position(3).at("servants").princeps("aemilii")


def settle(st: CiceronState, answer: str = "gain") -> None:
    """Answer every other family's choice with `answer` until the next placement."""
    while step(st) in ("secondary", "upper_other"):
        play(st, answer)


# -- order ------------------------------------------------------------------------------
def place(st: CiceronState, spot: str) -> None:
    """Place on `spot`; every choice it causes answered with the first decision."""
    play(st, f"place {spot}")
    while st.phase == "servants" and step(st) != "place":
        play(st, legal(st)[0])


ZONE_SPOTS = [f"{zone}-{level}" for level in ("lower", "upper") for zone in
              ("curia-hostilia", "emporium", "temple-of-jupiter", "subura", "circus-maximus",
               "exercitus")]


def test_book_servants_placed_from_the_princeps_clockwise_one_at_a_time() -> None:
    st = Position(3).at("servants").princeps("iulii").build()
    placers = []
    for spot in ZONE_SPOTS:
        if st.phase != "servants":
            break
        placers.append(mover(st))
        place(st, spot)
    assert placers == ["iulii", "cornelii", "aemilii"] * 3  # 3 servants each
    assert step(st) == "pay"  # all placed: phase IV


def test_book_servants_two_each_with_four_families() -> None:
    st = Position(4).at("servants").princeps("claudii").build()
    placers = []
    for spot in ZONE_SPOTS:
        if st.phase != "servants":
            break
        placers.append(mover(st))
        place(st, spot)
    assert placers == ["claudii", "aemilii", "iulii", "cornelii"] * 2


def test_book_servants_a_family_without_servants_left_is_passed_over() -> None:
    st = (Position(3).at("servants", placer="iulii").princeps("aemilii")
          .servants(iulii=0, cornelii=1, aemilii=2)
          .spots({"curia-hostilia-lower": "iulii", "emporium-lower": "iulii",
                  "subura-lower": "iulii"}).build())
    assert mover(st) == "cornelii"
    play(st, "place exercitus-lower")
    settle(st)
    assert mover(st) == "aemilii"
    play(st, "place circus-maximus-lower")
    settle(st)
    assert mover(st) == "aemilii"  # the only one left with servants
    play(st, "place temple-of-jupiter-lower")
    settle(st)
    assert step(st) != "place"  # every servant placed: phase IV


def test_book_servants_no_spot_taken_twice() -> None:
    st = servants().spots({"curia-hostilia-upper": "iulii"}).build()
    assert "place curia-hostilia-upper" not in legal(st)
    play(st, "place emporium-lower")
    settle(st)
    assert mover(st) == "iulii" and "place emporium-lower" not in legal(st)
    with pytest.raises(IllegalDecisionError):
        play(st, "place emporium-lower")


# -- the Senate spots -----------------------------------------------------------------
def senate(**more: object) -> CiceronState:
    """Aemilii places on the orator-pontifex Senate spot and draws CURIO, BIBULUS, CATULUS,
    PHILIPPUS; iulii then BALBUS, GABINIUS; cornelii SCAEVOLA, MEMMIUS."""
    st = (servants()
          .influence(aemilii={"orator": 10, "pontifex": 10}, iulii={"rest": 0},
                     cornelii={"orator": 2, "pontifex": 2})
          .draws("senator", CURIO, BIBULUS, CATULUS, PHILIPPUS, BALBUS, GABINIUS,
                 SCAEVOLA, MEMMIUS)
          .build())
    play(st, f"place senate-{PILE}")
    return st


def test_book_senate_spot_placer_draws_four_others_two_placer_first() -> None:
    st = senate()
    assert st.families[0]["drawn"] == [CURIO, BIBULUS, CATULUS, PHILIPPUS]
    assert st.families[1]["drawn"] == [BALBUS, GABINIUS]
    assert st.families[2]["drawn"] == [SCAEVOLA, MEMMIUS]
    assert step(st) == "recruit" and mover(st) == "aemilii"


def test_c5_senators_drawn_are_seen_by_their_drawer_only_until_recruited() -> None:
    st = (servants().influence(aemilii={"orator": 10, "pontifex": 10})
          .draws("senator", CURIO, BIBULUS, CATULUS, PHILIPPUS).build())
    events = play(st, f"place senate-{PILE}")
    private = [e for e in events if e.kind == "drawn-senators"]
    assert [(e.seats, e.data["senators"]) for e in private][0] == (
        (0,), [CURIO, BIBULUS, CATULUS, PHILIPPUS])
    for viewer in (None, 1, 2):
        board = st.observation(viewer)["boards"][0]
        assert board["drawn"] is None and board["drawn_count"] == 4
    assert st.observation(0)["boards"][0]["drawn"] == [CURIO, BIBULUS, CATULUS, PHILIPPUS]
    play(st, f"recruit {CURIO}")
    assert st.observation(1)["boards"][0]["senators"] == [CURIO]


def test_book_senate_spot_placer_recruits_up_to_two_paying_their_cost() -> None:
    st = senate()
    assert [d for d in legal(st) if d.startswith("recruit")] == [
        f"recruit {s}" for s in (CURIO, BIBULUS, CATULUS, PHILIPPUS)]
    play(st, f"recruit {CURIO}", f"recruit {CATULUS}")
    assert cenacle(st, "aemilii") == [CURIO, CATULUS]
    assert influence(st, "aemilii")["orator"] == 4 and influence(st, "aemilii")["pontifex"] == 8
    assert mover(st) == "iulii"  # two recruited: aemilii's turn at the spot is over


def test_book_senate_spot_others_recruit_at_most_one_if_they_can_pay() -> None:
    st = senate()
    play(st, "done")
    assert mover(st) == "iulii" and legal(st) == ["done"]  # no influence: nothing to pay
    play(st, "done")
    assert mover(st) == "cornelii"
    assert [d for d in legal(st) if d.startswith("recruit")] == [f"recruit {SCAEVOLA}"]
    play(st, f"recruit {SCAEVOLA}")
    assert cenacle(st, "cornelii") == [SCAEVOLA] and influence(st, "cornelii")["orator"] == 0
    assert step(st) == "place" and mover(st) == "iulii"  # one recruited: done


def test_book_senate_spot_unrecruited_senators_go_under_their_pile() -> None:
    st = senate()
    size = len(st.piles[PILE])
    play(st, f"recruit {CURIO}", "done", "done", f"recruit {SCAEVOLA}")
    returned = {BIBULUS, CATULUS, PHILIPPUS, BALBUS, GABINIUS, MEMMIUS}
    assert set(st.piles[PILE][:6]) == returned  # the bottom (drawing takes the top)
    assert len(st.piles[PILE]) == size + 6
    assert all(fam["drawn"] == [] for fam in st.families)


def test_book_cenacle_limit_four_a_full_cenacle_recruits_nobody_new() -> None:
    full = [HORTENSIUS, CATO, ATTICUS, METELLUS]
    st = (servants().senators(aemilii=full).influence(aemilii={"orator": 10, "pontifex": 10})
          .draws("senator", CURIO, BIBULUS, CATULUS, PHILIPPUS).build())
    play(st, f"place senate-{PILE}")
    assert not any(d.startswith("recruit") for d in legal(st))
    assert {f"discard {s}" for s in full} <= set(legal(st))


def test_book_voluntary_discard_makes_room_and_the_new_senator_is_still_paid() -> None:
    full = [HORTENSIUS, CATO, ATTICUS, METELLUS]
    st = (servants().senators(aemilii=full).influence(aemilii={"orator": 10, "pontifex": 10})
          .draws("senator", CURIO, BIBULUS, CATULUS, PHILIPPUS).build())
    play(st, f"place senate-{PILE}")
    events = play(st, f"discard {ATTICUS}")
    assert of_kind(events, "discard") == [{"family": "aemilii", "senator": ATTICUS,
                                           "why": "to make room"}]
    assert ATTICUS in st.discarded and step(st) == "recruit"
    play(st, f"recruit {CURIO}")
    assert cenacle(st, "aemilii") == [HORTENSIUS, CATO, METELLUS, CURIO]
    assert influence(st, "aemilii")["orator"] == 6


def test_c8_a_limit_raiser_counts_at_once_and_may_be_the_fifth() -> None:
    full = [HORTENSIUS, CATO, ATTICUS, METELLUS]
    assert senator_where(pile=PILE, caste="mercator", limit_bonus=1) == AXIUS
    st = (servants().senators(aemilii=full).influence(aemilii={"orator": 10, "pontifex": 10})
          .draws("senator", AXIUS, CURIO, QUINCTIUS, PHILIPPUS).build())
    play(st, f"place senate-{PILE}")
    assert [d for d in legal(st) if d.startswith("recruit")] == [
        f"recruit {AXIUS}", f"recruit {QUINCTIUS}"]
    play(st, f"recruit {AXIUS}")
    assert len(cenacle(st, "aemilii")) == 5 and st.cenacle_limit(0) == 5
    assert [d for d in legal(st) if d.startswith("recruit")] == [f"recruit {QUINCTIUS}"]
    play(st, f"recruit {QUINCTIUS}")  # +2: the seventh place, he takes the sixth
    assert len(cenacle(st, "aemilii")) == 6 and st.cenacle_limit(0) == 7


def test_c8_losing_a_limit_raiser_forces_a_discard_down_to_the_limit() -> None:
    five = [HORTENSIUS, CATO, ATTICUS, METELLUS, AXIUS]  # Axius: +1, a full cénacle of 5
    st = (servants().senators(aemilii=five).influence(aemilii={"orator": 10, "pontifex": 10})
          .draws("senator", CURIO, BIBULUS, CATULUS, PHILIPPUS).build())
    play(st, f"place senate-{PILE}", f"discard {AXIUS}")
    assert step(st) == "recruit" and len(cenacle(st, "aemilii")) == 4
    six = [HORTENSIUS, CATO, ATTICUS, METELLUS, QUINCTIUS, LABIENUS]  # Quinctius: +2
    st = (servants().senators(aemilii=six).influence(aemilii={"orator": 10, "pontifex": 10})
          .draws("senator", CURIO, BIBULUS, CATULUS, PHILIPPUS).build())
    play(st, f"place senate-{PILE}", f"discard {QUINCTIUS}")
    assert step(st) == "trim" and mover(st) == "aemilii"
    assert legal(st) == [f"discard {s}" for s in (HORTENSIUS, CATO, ATTICUS, METELLUS,
                                                   LABIENUS)]
    play(st, f"discard {LABIENUS}")
    assert step(st) == "recruit" and len(cenacle(st, "aemilii")) == 4


def test_c_c3_a_discard_is_offered_where_it_makes_room_only() -> None:
    """Decision C-C3: a senator never harms its family, so the engine offers a voluntary
    discard where it matters: a full cénacle at a recruit step, with a drawn senator it
    could pay for (never elsewhere, where a seat the server decides for at random would
    lose senators for nothing)."""
    st = servants().senators(aemilii=[HORTENSIUS, CATO], iulii=[ANTONIUS]).build()
    assert not any(d.startswith("discard") for d in legal(st))
    play(st, "place curia-hostilia-lower")
    assert step(st) == "secondary" and not any(d.startswith("discard") for d in legal(st))
    room = (servants().senators(aemilii=[HORTENSIUS, CATO])
            .influence(aemilii={"orator": 10, "pontifex": 10})
            .draws("senator", CURIO, BIBULUS, CATULUS, PHILIPPUS).build())
    play(room, f"place senate-{PILE}")
    assert step(room) == "recruit" and not any(d.startswith("discard") for d in legal(room))


def test_card_extra_recruit_permanent_lets_the_placer_take_three() -> None:
    st = (servants().permanents(aemilii=["mercator-17"])
          .influence(aemilii={"orator": 10, "pontifex": 10})
          .draws("senator", CURIO, BIBULUS, CATULUS, PHILIPPUS).build())
    play(st, f"place senate-{PILE}")
    play(st, f"recruit {CURIO}", f"recruit {CATULUS}")
    assert mover(st) == "aemilii"  # a third
    play(st, f"recruit {PHILIPPUS}")
    assert cenacle(st, "aemilii") == [CURIO, CATULUS, PHILIPPUS] and mover(st) == "iulii"


def test_card_extra_recruit_for_the_turn_lets_another_family_take_two() -> None:
    st = (servants().effects(iulii=["extra_recruit"])
          .influence(iulii={"orator": 8, "pontifex": 8})
          .draws("senator", CURIO, BIBULUS, CATULUS, PHILIPPUS, BALBUS, GABINIUS).build())
    play(st, f"place senate-{PILE}", "done")
    play(st, f"recruit {BALBUS}")
    assert mover(st) == "iulii"
    play(st, f"recruit {GABINIUS}")
    assert cenacle(st, "iulii") == [BALBUS, GABINIUS]


# -- the upper zone spots ----------------------------------------------------------------
def upper(orator: int = 9, **more: object) -> CiceronState:
    """Aemilii (orator influence X = 4 from its senators) holds a bribe (orator-10: 2
    orator, +2 votes); iulii (X = 1) an influence card (orator-15: free, +2 orator)."""
    return (servants().senators(aemilii=[HORTENSIUS, CATO], iulii=[ANTONIUS])
            .influence(aemilii={"orator": orator}, iulii={"orator": 3})
            .hand(aemilii=["orator-10"], iulii=["orator-15"]).build())


def test_book_upper_spot_placer_gains_x_then_may_play_a_card() -> None:
    st = upper()
    play(st, "place curia-hostilia-upper")
    assert legal(st)[:1] == ["gain"] and f"play orator-10 {CATO}" in legal(st)
    play(st, "gain")
    assert influence(st, "aemilii")["orator"] == 10  # 9 + 4, at most 10
    assert legal(st)[0] == "done" and "gain" not in legal(st)
    play(st, f"play orator-10 {CATO}")
    assert influence(st, "aemilii")["orator"] == 8
    assert st.families[0]["attached"] == {CATO: ["orator-10"]}
    assert mover(st) == "iulii"


def test_book_upper_spot_placer_may_play_first_then_gain() -> None:
    st = upper()
    play(st, "place curia-hostilia-upper", f"play orator-10 {CATO}")
    assert influence(st, "aemilii")["orator"] == 10  # 9 - 2, then + 4
    assert mover(st) == "iulii"


def test_book_upper_spot_placer_may_gain_and_play_nothing() -> None:
    st = upper(orator=2)
    play(st, "place curia-hostilia-upper", "gain", "done")
    assert influence(st, "aemilii")["orator"] == 6 and hand(st, "aemilii") == ["orator-10"]


def test_book_upper_spot_others_gain_x_or_play_a_card_not_both() -> None:
    st = upper()
    play(st, "place curia-hostilia-upper", "gain", "done")
    assert mover(st) == "iulii"
    assert [d for d in legal(st) if not d.startswith("discard")] == ["gain", "play orator-15"]
    play(st, "play orator-15")
    assert influence(st, "iulii")["orator"] == 5  # the card's +2, and not X
    assert mover(st) == "cornelii" and legal(st) == ["gain"]  # no card, no senator: X = 0
    play(st, "gain")
    assert step(st) == "place" and mover(st) == "iulii"


def test_book_upper_spot_only_cards_of_the_zones_caste() -> None:
    st = (servants().senators(aemilii=[HORTENSIUS])
          .hand(aemilii=["mercator-01", "orator-15"]).build())
    play(st, "place emporium-upper")
    assert legal(st) == ["gain", "play mercator-01"]


def test_book_action_card_cost_must_be_affordable() -> None:
    st = upper(orator=1)
    play(st, "place curia-hostilia-upper")
    assert not any(d.startswith("play") for d in legal(st))  # 2 orator wanted, 1 held
    play(st, "gain")  # 1 + 4
    assert f"play orator-10 {CATO}" in legal(st)


# -- the lower zone spots ----------------------------------------------------------------
def test_book_lower_spot_placer_gains_one_and_draws_the_top_card() -> None:
    st = (servants().influence(aemilii={"orator": 3}, iulii={"orator": 0})
          .deck("orator", "orator-13", "orator-14").build())
    events = play(st, "place curia-hostilia-lower")
    assert influence(st, "aemilii")["orator"] == 4 and hand(st, "aemilii") == ["orator-13"]
    assert [e.seats for e in events if e.kind == "drawn-action"] == [(0,)]  # private
    assert mover(st) == "iulii" and legal(st) == ["gain", "draw"]
    play(st, "draw")
    assert hand(st, "iulii") == ["orator-14"] and influence(st, "iulii")["orator"] == 0
    play(st, "gain")
    assert hand(st, "cornelii") == [] and step(st) == "place"


def test_c12_empty_deck_offers_no_draw() -> None:
    st = (servants().influence(aemilii={"orator": 3})
          .deck("orator", exact=True).build())
    play(st, "place curia-hostilia-lower")
    assert influence(st, "aemilii")["orator"] == 4 and hand(st, "aemilii") == []
    assert legal(st) == ["gain"]
