"""The rule book's set-up and opening: durations, servants, prestige and influence bounds,
the draft of the white senators (snake order), the first Princeps (C6)."""

from __future__ import annotations

import pytest

from games.ciceron.cardset import CASTES, load_default_card_set
from games.ciceron.position import (
    Position,
    assert_consistent,
    cenacle,
    influence,
    legal,
    mover,
    of_kind,
    play,
    prestige,
    step,
)
from games.ciceron.state import CiceronState

CARDS = load_default_card_set()
#: The white senators (stand-in set): votes, caste.
HORTENSIUS = "quintus-hortensius-hortalus"  # orator, 3 votes
CATO = "marcus-porcius-cato"  # orator, 2 votes
ATTICUS = "titus-pomponius-atticus"  # mercator, 3 votes
LUCULLUS = "lucius-licinius-lucullus"  # mercator, 2 votes
METELLUS = "quintus-caecilius-metellus-pius"  # pontifex, 3 votes
LEPIDUS = "marcus-aemilius-lepidus"  # pontifex, 2 votes
CATILINA = "lucius-sergius-catilina"  # insidiator, 3 votes
MILO = "titus-annius-milo"  # insidiator, 2 votes
CLODIUS = "publius-clodius-pulcher"  # plebeius, 3 votes
VATINIUS = "publius-vatinius"  # plebeius, 2 votes
LABIENUS = "titus-labienus"  # belligerator, 3 votes
ANTONIUS = "marcus-antonius"  # belligerator, 2 votes


def new(families: int, seed: int = 0, **chance: list[str]) -> CiceronState:
    return CiceronState.new(CARDS, families, {}, seed, chance=chance or None)


def first_legal_to_end(st: CiceronState) -> list[str]:
    """Play each step's first decision to the end; the kinds of events seen."""
    kinds: list[str] = []
    for _ in range(5000):
        if st.is_over:
            return kinds
        kinds += [e.kind for e in play(st, legal(st)[0])]
    raise AssertionError("the game did not end")


# -- durations, servants, starting values -------------------------------------------------
@pytest.mark.parametrize(("families", "turns"), [(2, 5), (3, 5), (4, 5), (5, 4)])
def test_book_game_lasts_five_turns_with_two_to_four_families_four_with_five(
        families: int, turns: int) -> None:
    st = new(families)
    assert st.turns == turns
    kinds = first_legal_to_end(st)
    assert kinds.count("turn") == turns and st.turn == turns and st.is_over


@pytest.mark.parametrize(("families", "servants"), [(2, 3), (3, 3), (4, 2), (5, 2)])
def test_book_servants_three_with_two_or_three_families_two_with_four_or_five(
        families: int, servants: int) -> None:
    st = new(families)
    assert [fam["servants"] for fam in st.families] == [servants] * families
    assert of_kind(st.events, "start")[0]["servants"] == servants


def test_book_prestige_starts_at_ten_and_influence_from_the_family_board() -> None:
    st = new(5)
    assert prestige(st) == dict.fromkeys(st.seat_names(), 10)
    for seat, board in enumerate(CARDS.families):
        assert st.families[seat]["influence"] == {c: board.influence.get(c, 0) for c in CASTES}


def test_book_prestige_may_go_negative() -> None:
    st = (Position(3).at("tribute").princeps("aemilii").ciceron("in-verrem")
          .prestige(aemilii=4).influence(aemilii={"rest": 0}).build())
    assert mover(st) == "aemilii" and legal(st) == ["disgrace"]
    play(st, "disgrace")
    assert prestige(st, "aemilii") == -6


def test_book_influence_is_bounded_zero_to_ten() -> None:
    """Phase II's +2 stops at 10; a tax stops at 0."""
    st = (Position(3).at("ciceron").princeps("aemilii").ciceron("in-verrem")
          .influence(aemilii={"orator": 9}, iulii={"belligerator": 10}).build())
    assert influence(st, "aemilii")["orator"] == 10
    assert influence(st, "iulii")["belligerator"] == 10
    st = (Position(3).at("servants").princeps("aemilii")
          .influence(aemilii={"rest": 5}, iulii={"mercator": 1}, cornelii={"mercator": 0})
          .hand(aemilii=["insidiator-06"]).build())  # tax: 2 mercator from each other
    play(st, "place subura-upper", "play insidiator-06")
    assert influence(st, "iulii")["mercator"] == 0 and influence(st, "cornelii")["mercator"] == 0


# -- the draft of the white senators -------------------------------------------------------
@pytest.mark.parametrize("families", [2, 3, 4, 5])
def test_book_draft_deals_twice_as_many_white_senators_as_families(families: int) -> None:
    st = new(families, seed=families)
    whites = {s.id for s in CARDS.white_senators}
    assert len(st.draft["packet"]) == 2 * families and set(st.draft["packet"]) <= whites
    while step(st) == "draft":
        play(st, legal(st)[0])
    assert [len(fam["senators"]) for fam in st.families] == [2] * families
    assert not st.draft["packet"]


def test_book_draft_snake_order_the_last_family_picks_two_in_a_row() -> None:
    """Seat 0 (the youngest, C6) picks first, the packet goes left; the last family picks
    two at once and sends it back right; the first family gets the last card."""
    packet = [HORTENSIUS, CATO, ATTICUS, LUCULLUS, METELLUS, LEPIDUS]
    st = new(3, white=packet)
    assert sorted(st.draft["packet"]) == sorted(packet)
    order = []
    while step(st) == "draft":
        order.append(mover(st))
        play(st, legal(st)[0])
    assert order == ["aemilii", "iulii", "cornelii", "cornelii", "iulii"]
    assert [len(cenacle(st, f)) for f in ("aemilii", "iulii", "cornelii")] == [2, 2, 2]
    picks = [e["family"] for e in of_kind(st.events, "draft")]
    assert picks[-1] == "aemilii"  # the last card, without a choice


def test_book_draft_packet_is_seen_only_by_the_families_that_held_it() -> None:
    st = new(3, white=[HORTENSIUS, CATO, ATTICUS, LUCULLUS, METELLUS, LEPIDUS])
    assert st.observation(0)["draft"]["packet"] is not None
    assert st.observation(1)["draft"]["packet"] is None
    assert st.observation(None)["draft"]["packet"] is None
    play(st, f"pick {HORTENSIUS}")
    assert st.observation(1)["draft"]["packet"] == sorted([CATO, ATTICUS, LUCULLUS, METELLUS,
                                                           LEPIDUS])
    assert st.observation(2)["draft"]["packet"] is None
    assert cenacle(st, "aemilii") == [HORTENSIUS]  # a senator taken is public


def test_position_draft_phase_deals_the_white_senators_named() -> None:
    st = Position(2).at("draft").draws("white", LABIENUS, CLODIUS).build()
    assert LABIENUS in st.draft["packet"] and CLODIUS in st.draft["packet"]
    assert len(st.draft["packet"]) == 4 and mover(st) == "aemilii"


# -- the first Princeps ----------------------------------------------------------------
def first_princeps(**cenacles: list[str]) -> CiceronState:
    return Position(len(cenacles)).at("first-princeps").senators(**cenacles).build()


def test_book_first_princeps_has_the_most_senate_votes() -> None:
    st = first_princeps(aemilii=[LUCULLUS, CATO], iulii=[ATTICUS, CLODIUS],
                        cornelii=[METELLUS, LEPIDUS])
    assert st.princeps == 1  # iulii 6 votes, cornelii 5, aemilii 4
    assert of_kind(st.events, "princeps")[0]["votes"] == {"aemilii": 4, "iulii": 6,
                                                          "cornelii": 5}


def test_book_first_princeps_tie_goes_to_the_most_orator_votes() -> None:
    st = first_princeps(aemilii=[CATILINA, CATO], iulii=[HORTENSIUS, VATINIUS],
                        cornelii=[LUCULLUS, ANTONIUS])
    assert st.princeps == 1  # 5 = 5; orator votes 3 against 2


def test_c6_first_princeps_then_the_oldest_family_the_highest_seat() -> None:
    st = first_princeps(aemilii=[CATILINA, LEPIDUS], iulii=[LUCULLUS, ANTONIUS],
                        cornelii=[CLODIUS, MILO])
    assert st.princeps == 2  # 5 = 5, no orator votes: cornelii is the oldest
    st = first_princeps(aemilii=[HORTENSIUS, LEPIDUS], iulii=[LUCULLUS, ANTONIUS],
                        cornelii=[CLODIUS, CATO])
    assert st.princeps == 0  # 5 = 5, orator 3 against 2: the youngest wins on orators


def test_book_first_princeps_is_the_first_player_of_turn_one() -> None:
    st = first_princeps(aemilii=[LUCULLUS, CATO], iulii=[ATTICUS, CLODIUS],
                        cornelii=[METELLUS, LEPIDUS])
    assert st.turn == 1 and step(st) == "place" and mover(st) == "iulii"
    assert st.ciceron is not None  # turn 1 has no election: phase II came first


def test_book_opening_through_the_draft_to_the_first_placement() -> None:
    st = new(2, white=[HORTENSIUS, CATILINA, ATTICUS, LEPIDUS])
    play(st, f"pick {HORTENSIUS}", f"pick {CATILINA}", f"pick {ATTICUS}")
    assert cenacle(st, "aemilii") == [HORTENSIUS, LEPIDUS]
    assert cenacle(st, "iulii") == [CATILINA, ATTICUS]
    assert st.princeps == 1  # 6 votes against 5
    assert_consistent(st)
