"""The 2-family game and the Automatii: 5 turns, 3 servants each; at every turn start 3
senators revealed, the Automatii's servants on the lower spots of their castes' zones and
both families take those spots' secondary action; duplicates (2 servants, +1 AND a card);
three of one caste redrawn (C10); the revealed senators discarded; the Automatii's 5 votes
to the family with fewer PP, on equal PP to the Princeps' opponent."""

from __future__ import annotations

from games.ciceron.position import (
    Position,
    hand,
    influence,
    legal,
    mover,
    of_kind,
    play,
    senator_where,
    spot,
    step,
)
from games.ciceron.state import CiceronState

OP, MP, IB = "orator-pontifex", "mercator-plebeius", "insidiator-belligerator"
CURIO = senator_where(pile=OP, caste="orator", votes=3)
RUFUS = senator_where(pile=MP, caste="orator", votes=3)
FAVONIUS = senator_where(pile=IB, caste="orator", votes=3)
SCAEVOLA = senator_where(pile=OP, caste="pontifex", votes=3)
VESTORIUS = senator_where(pile=MP, caste="mercator", votes=3)
CLOELIUS = senator_where(pile=IB, caste="insidiator", votes=3)
HORTENSIUS = "quintus-hortensius-hortalus"
ATTICUS = "titus-pomponius-atticus"
CATO = "marcus-porcius-cato"


def turn_start(*tops: tuple[str, str], turn: int = 1) -> Position:
    """Two families at the start of `turn`, aemilii the Princeps; `tops`: (pile, senator)
    on top of the piles, the first drawn first."""
    pos = Position(2).at("turn", turn=turn).princeps("aemilii")
    piles: dict[str, list[str]] = {}
    for pile, senator in tops:
        piles.setdefault(pile, []).append(senator)
    for pile, senators in piles.items():
        pos.pile(pile, *senators)
    return pos


def test_book_two_families_five_turns_three_servants() -> None:
    st = Position(2).at("servants").build()
    assert st.turns == 5 and [f["servants"] for f in st.families] == [3, 3]


def test_book_automatii_reveal_three_senators_and_take_the_lower_spots() -> None:
    """The book's example: orator, mercator, insidiator senators revealed."""
    st = (turn_start((OP, CURIO), (MP, VESTORIUS), (IB, CLOELIUS))
          .influence(aemilii={"rest": 1}, iulii={"rest": 1}).build())
    assert of_kind(st.events, "automatii") == [{"senators": [CURIO, VESTORIUS, CLOELIUS]}]
    assert {s for s in st.spots if spot(st, s) == "automatii"} == {
        "curia-hostilia-lower", "emporium-lower", "subura-lower"}
    assert {CURIO, VESTORIUS, CLOELIUS} <= set(st.discarded)
    answers = []
    while step(st) == "secondary":  # each spot: each family gains 1 or draws a card
        answers.append((mover(st), st.frames[-1]["caste"]))
        assert legal(st) == ["gain", "draw"]
        play(st, "gain" if st.frames[-1]["caste"] != "mercator" else "draw")
    assert answers == [("aemilii", "orator"), ("iulii", "orator"), ("aemilii", "mercator"),
                       ("iulii", "mercator"), ("aemilii", "insidiator"),
                       ("iulii", "insidiator")]
    for family in ("aemilii", "iulii"):
        assert influence(st, family)["insidiator"] == 2
        assert influence(st, family)["mercator"] == 1 and len(hand(st, family)) == 1
    # orator: 1 + 1, and phase II's +2 in aemilii's home caste
    assert influence(st, "aemilii")["orator"] == 4 and influence(st, "iulii")["orator"] == 2
    assert step(st) == "place"


def test_book_automatii_spots_are_blocked_during_phase_three() -> None:
    st = turn_start((OP, CURIO), (MP, VESTORIUS), (IB, CLOELIUS)).build()
    while step(st) == "secondary":
        play(st, "gain")
    for blocked in ("curia-hostilia-lower", "emporium-lower", "subura-lower"):
        assert f"place {blocked}" not in legal(st)
    assert "place temple-of-jupiter-lower" in legal(st)


def test_book_automatii_duplicate_caste_two_servants_influence_and_a_card() -> None:
    st = (turn_start((OP, CURIO), (MP, RUFUS), (IB, CLOELIUS))
          .influence(aemilii={"rest": 0}, iulii={"rest": 0}).build())
    assert {s for s in st.spots if spot(st, s) == "automatii"} == {
        "curia-hostilia-lower", "subura-lower"}
    for family in ("aemilii", "iulii"):  # both: the influence AND the card, no choice
        assert influence(st, family)["orator"] == 1
        assert [st.cards.action(c).caste for c in hand(st, family)] == ["orator"]
    assert step(st) == "secondary" and st.frames[-1]["caste"] == "insidiator"


def test_c10_automatii_three_of_one_caste_are_redrawn() -> None:
    st = turn_start((OP, CURIO), (MP, RUFUS), (IB, FAVONIUS),
                    (OP, SCAEVOLA), (MP, VESTORIUS), (IB, CLOELIUS)).build()
    assert of_kind(st.events, "automatii-redraw") == [{"senators": [CURIO, RUFUS, FAVONIUS]}]
    assert of_kind(st.events, "automatii") == [{"senators": [SCAEVOLA, VESTORIUS, CLOELIUS]}]
    assert {CURIO, RUFUS, FAVONIUS, SCAEVOLA, VESTORIUS, CLOELIUS} <= set(st.discarded)
    assert {s for s in st.spots if spot(st, s) == "automatii"} == {
        "temple-of-jupiter-lower", "emporium-lower", "subura-lower"}


def test_book_automatii_every_turn_before_the_election() -> None:
    st = turn_start((OP, CURIO), (MP, VESTORIUS), (IB, CLOELIUS), turn=2).build()
    assert step(st) == "secondary"
    while step(st) == "secondary":
        play(st, "gain")
    assert step(st) == "election"


def election(prestige: dict[str, int], princeps: str) -> CiceronState:
    """Aemilii 6 votes, iulii 2; each votes for itself."""
    st = (Position(2).at("election", turn=2).princeps(princeps)
          .senators(aemilii=[HORTENSIUS, ATTICUS], iulii=[CATO]).prestige(**prestige).build())
    play(st, "aemilii: vote aemilii", "iulii: vote iulii")
    return st


def test_book_automatii_five_votes_to_the_family_with_fewer_pp() -> None:
    st = election({"aemilii": 12, "iulii": 10}, "aemilii")
    assert st.election is not None and st.election["totals"] == {"aemilii": 6, "iulii": 7}
    assert st.princeps == 1
    st = election({"aemilii": 9, "iulii": 10}, "iulii")
    assert st.election is not None and st.election["totals"] == {"aemilii": 11, "iulii": 2}


def test_book_automatii_equal_pp_votes_go_to_the_princeps_opponent() -> None:
    st = election({"aemilii": 10, "iulii": 10}, "aemilii")
    assert st.election is not None and st.election["totals"] == {"aemilii": 6, "iulii": 7}
    st = election({"aemilii": 10, "iulii": 10}, "iulii")
    assert st.election is not None and st.election["totals"] == {"aemilii": 11, "iulii": 2}


def test_book_automatii_spots_come_back_at_the_end_of_the_turn() -> None:
    st = (Position(2).at("end", turn=1).princeps("aemilii")
          .spots({"curia-hostilia-lower": "automatii", "emporium-lower": "automatii"})
          .servants(aemilii=0, iulii=0)
          .spots({"exercitus-upper": "aemilii", "subura-upper": "aemilii",
                  "circus-maximus-upper": "aemilii", "exercitus-lower": "iulii",
                  "subura-lower": "iulii", "circus-maximus-lower": "iulii"})
          .pile(OP, CURIO).pile(MP, VESTORIUS).pile(IB, CLOELIUS).build())
    assert st.turn == 2 and [f["servants"] for f in st.families] == [3, 3]
    assert {s for s in st.spots if spot(st, s) == "automatii"} == {
        "curia-hostilia-lower", "emporium-lower", "subura-lower"}
    assert {s for s in st.spots if isinstance(st.spots[s], int)} == set()
