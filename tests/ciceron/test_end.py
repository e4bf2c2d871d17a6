"""The end of a turn (servants home, turn-only effects over, end-of-turn cards) and of the
game (after the last turn's prestige phase; the most prestige wins, C11: equal prestige
shares the win)."""

from __future__ import annotations

import pytest

from games.ciceron.position import (
    Position,
    cenacle,
    legal,
    mover,
    of_kind,
    play,
    prestige,
    step,
)
from games.core import GameOverError

HORTENSIUS = "quintus-hortensius-hortalus"
CATO = "marcus-porcius-cato"
ATTICUS = "titus-pomponius-atticus"
METELLUS = "quintus-caecilius-metellus-pius"
LABIENUS = "titus-labienus"


def test_book_the_game_ends_after_the_last_turns_prestige_phase() -> None:
    st = (Position(3).at("prestige", turn=5).princeps("aemilii").primus(orator="iulii")
          .senators(iulii=[HORTENSIUS]).build())
    result = st.result()
    assert result is not None and result.winners == (1,) and prestige(st, "iulii") == 16
    assert st.to_move() == () and step(st) is None
    with pytest.raises(GameOverError):
        st.apply(0, "gain")


@pytest.mark.parametrize(("families", "last"), [(2, 5), (3, 5), (4, 5), (5, 4)])
def test_book_the_last_turn_by_the_number_of_families(families: int, last: int) -> None:
    st = Position(families).at("end", turn=last).build()
    assert st.is_over
    if last == 4:
        return
    st = Position(families).at("end", turn=last - 1).build()
    assert not st.is_over and st.turn == last


def test_c11_equal_prestige_shares_the_win() -> None:
    st = (Position(3).at("end", turn=5).prestige(aemilii=20, iulii=15, cornelii=20).build())
    result = st.result()
    assert result is not None and result.ranking == ((0, 2), (1,))
    assert result.winners == (0, 2) and result.rank_of(2) == 1 and result.rank_of(1) == 3


def test_book_negative_prestige_ranks_last() -> None:
    st = Position(3).at("end", turn=5).prestige(aemilii=-4, iulii=0, cornelii=3).build()
    result = st.result()
    assert result is not None and result.ranking == ((2,), (1,), (0,))


def test_cards_doc_end_of_turn_cards_of_the_last_turn_count_for_the_result() -> None:
    st = (Position(3).at("end", turn=5).princeps("iulii").prestige(aemilii=10, iulii=11)
          .end_of_turn(aemilii=["pontifex-08"]).build())  # +3 PP at the end of the turn
    result = st.result()
    assert result is not None and result.winners == (0,) and prestige(st, "aemilii") == 13


def test_book_servants_come_home_at_the_end_of_the_turn() -> None:
    st = (Position(3).at("end", turn=2).princeps("aemilii").servants(aemilii=0, iulii=1)
          .spots({"senate-orator-pontifex": "aemilii", "curia-hostilia-upper": "aemilii",
                  "emporium-upper": "aemilii", "emporium-lower": "iulii",
                  "subura-lower": "iulii"}).build())
    assert [f["servants"] for f in st.families] == [3, 3, 3]
    assert all(holder is None for holder in st.spots.values())
    assert st.turn == 3 and step(st) == "election"


def test_cards_doc_a_limit_for_the_turn_ends_with_it_and_forces_a_discard() -> None:
    five = [HORTENSIUS, CATO, ATTICUS, METELLUS, LABIENUS]
    st = (Position(3).at("end", turn=2).princeps("iulii").senators(cornelii=five)
          .effects(cornelii=["limit=1"]).build())
    assert step(st) == "trim" and mover(st) == "cornelii" and st.turn == 3
    assert legal(st) == [f"discard {s}" for s in five]
    play(st, f"discard {LABIENUS}")
    assert cenacle(st, "cornelii") == five[:4] and step(st) == "election"


def test_cards_doc_a_guild_power_chosen_in_the_last_turn_has_no_turn_left() -> None:
    st = (Position(3).at("majorities", turn=5).princeps("aemilii")
          .senators(aemilii=[ATTICUS]).build())
    assert step(st) == "guild_choice"
    events = play(st, "choose power")
    assert st.is_over and of_kind(events, "guild-power") == []
    assert prestige(st, "aemilii") == 16  # the mercator Primus, no guild PP
