"""Playing action cards: the cost is paid, then the effect by its timing (instant,
end of turn, permanent, on a senator), the card leaves the game once it has acted;
legions (a province and one reward; C12 none left); the end-of-turn order
(docs/ciceron-cards.md: from the Princeps clockwise)."""

from __future__ import annotations

from games.ciceron.position import (
    Position,
    actions_where,
    cenacle,
    hand,
    influence,
    legal,
    mover,
    of_kind,
    play,
    prestige,
    step,
)
from games.ciceron.state import CiceronState

HORTENSIUS = "quintus-hortensius-hortalus"
CATO = "marcus-porcius-cato"
ATTICUS = "titus-pomponius-atticus"
METELLUS = "quintus-caecilius-metellus-pius"
LABIENUS = "titus-labienus"  # belligerator influence 2
ANTONIUS = "marcus-antonius"
CATILINA = "lucius-sergius-catilina"  # insidiator influence 2
AXIUS = "quintus-axius"  # raises the limit by 1


def playing(zone: str, cards: list[str], **influence_: int) -> CiceronState:
    """Aemilii, the Princeps, about to place on `zone`'s upper spot with `cards` in hand."""
    st = (Position(3).at("servants").princeps("aemilii")
          .senators(aemilii=[HORTENSIUS, CATO], iulii=[ATTICUS, ANTONIUS],
                    cornelii=[METELLUS])
          .influence(aemilii={"rest": 5, **influence_}).hand(aemilii=cards).build())
    play(st, f"place {zone}-upper")
    return st


def test_book_instant_card_pays_its_cost_acts_and_leaves_the_game() -> None:
    st = playing("temple-of-jupiter", ["pontifex-03"])  # 2 pontifex: +3 PP
    events = play(st, "play pontifex-03")
    assert prestige(st, "aemilii") == 13 and influence(st, "aemilii")["pontifex"] == 3
    assert "pontifex-03" in st.removed and hand(st, "aemilii") == []
    assert of_kind(events, "play")[0]["card"] == "pontifex-03"


def test_book_end_of_turn_card_acts_at_the_end_of_the_turn() -> None:
    st = playing("temple-of-jupiter", ["pontifex-06"])  # free: +2 PP at the end of the turn
    play(st, "play pontifex-06")
    assert prestige(st, "aemilii") == 10
    assert st.families[0]["turn_effects"] == [{"card": "pontifex-06", "when": "end"}]
    st = (Position(3).at("end", turn=2).princeps("aemilii")
          .end_of_turn(aemilii=["pontifex-06"]).build())
    assert prestige(st, "aemilii") == 12 and "pontifex-06" in st.removed
    assert st.families[0]["turn_effects"] == [] and st.turn == 3


def test_cards_doc_end_of_turn_cards_act_from_the_princeps_clockwise() -> None:
    """Cornelii (the Princeps, pontifex 9) gains 2 pontifex; aemilii taxes 1 pontifex.
    From the Princeps: 9 + 2 = 10, then - 1 = 9 (from seat 0 it would be 8 + 2 = 10)."""
    st = (Position(3).at("end", turn=2).princeps("cornelii")
          .end_of_turn(aemilii=["plebeius-06"], cornelii=["mercator-07"])
          .influence(cornelii={"pontifex": 9}).build())
    assert influence(st, "cornelii")["pontifex"] == 9
    kinds = [(e.kind, e.data.get("family")) for e in st.events if e.kind in ("influence", "tax")]
    assert kinds == [("influence", "cornelii"), ("tax", "aemilii")]


def test_book_permanent_card_lies_beside_the_board_for_the_game() -> None:
    st = playing("curia-hostilia", ["orator-18"], mercator=1)  # limit +1
    play(st, "play orator-18")
    assert st.families[0]["permanents"] == ["orator-18"] and st.cenacle_limit(0) == 5
    assert "orator-18" not in st.removed


def test_book_card_aimed_at_a_senator_bribe_lies_on_one_of_ones_own() -> None:
    st = playing("curia-hostilia", ["orator-10"])  # bribe +2 votes
    plays = [d for d in legal(st) if d.startswith("play")]
    assert plays == [f"play orator-10 {s}" for s in (HORTENSIUS, CATO)]
    play(st, f"play orator-10 {HORTENSIUS}")
    assert st.senate_votes(0) == 7 and st.senate_votes(0, "orator") == 7


def test_card_patronage_adds_guild_symbols_to_its_senator() -> None:
    st = playing("exercitus", ["belligerator-18"])  # strategists +1
    assert st.guild_symbols(0, "strategists") == 0
    play(st, f"play belligerator-18 {CATO}")
    assert st.guild_symbols(0, "strategists") == 1


def test_card_assassination_discards_another_familys_senator_with_its_cards() -> None:
    st = (Position(3).at("servants").princeps("aemilii")
          .senators(aemilii=[CATILINA], iulii=[ATTICUS, ANTONIUS])
          .attached(iulii={ATTICUS: ["orator-07"]})
          .influence(aemilii={"insidiator": 5}).hand(aemilii=["insidiator-01"]).build())
    play(st, "place subura-upper")
    plays = [d for d in legal(st) if d.startswith("play")]
    assert plays == [f"play insidiator-01 {s}" for s in (ATTICUS, ANTONIUS)]  # not its own
    play(st, f"play insidiator-01 {ATTICUS}")
    assert cenacle(st, "iulii") == [ANTONIUS] and ATTICUS in st.discarded
    assert {"orator-07", "insidiator-01"} <= set(st.removed)
    assert st.families[1]["attached"] == {}
    assert influence(st, "aemilii")["insidiator"] == 4  # 5 - 3, then + 2 (X)


def test_card_tax_every_other_family_loses_influence() -> None:
    st = (Position(3).at("servants").princeps("aemilii")
          .influence(aemilii={"plebeius": 5, "orator": 4}, iulii={"orator": 3},
                     cornelii={"orator": 1})
          .hand(aemilii=["plebeius-05"]).build())  # 2 plebeius: others lose 2 orator
    play(st, "place circus-maximus-upper", "play plebeius-05")
    assert [influence(st, f)["orator"] for f in ("aemilii", "iulii", "cornelii")] == [4, 1, 0]


def test_card_draw_takes_what_is_left_of_the_deck() -> None:
    st = (Position(3).at("servants").princeps("aemilii")
          .hand(aemilii=["pontifex-15"])  # free: draw 2 pontifex cards
          .deck("pontifex", "pontifex-01", exact=True).build())
    play(st, "place temple-of-jupiter-upper", "play pontifex-15")
    assert hand(st, "aemilii") == ["pontifex-01"]


def test_c12_draw_card_cannot_be_played_on_an_empty_deck() -> None:
    st = (Position(3).at("servants").princeps("aemilii")
          .hand(aemilii=["pontifex-15"]).deck("pontifex", exact=True).build())
    play(st, "place temple-of-jupiter-upper")
    assert legal(st) == ["gain"]


# -- legions -------------------------------------------------------------------------------
def test_book_legion_card_the_rule_books_example() -> None:
    """2 belligerator influence, a legion on Corsica, then 2 PP or 1 insidiator."""
    assert actions_where(kind="legion", province="corsica") == ["belligerator-09"]
    st = playing("exercitus", ["belligerator-09"], belligerator=2, insidiator=3)
    play(st, "play belligerator-09")
    assert st.legions["corsica"] == 1 and st.legions_left == 14
    assert influence(st, "aemilii")["belligerator"] == 0  # paid; X = 0 (no belligerator)
    assert step(st) == "reward" and legal(st)[:2] == ["reward prestige", "reward insidiator"]
    play(st, "reward insidiator")
    assert influence(st, "aemilii")["insidiator"] == 4 and prestige(st, "aemilii") == 10
    assert mover(st) == "iulii"


def test_book_legion_reward_prestige() -> None:
    st = playing("exercitus", ["belligerator-09"], belligerator=2)
    play(st, "play belligerator-09", "reward prestige")
    assert prestige(st, "aemilii") == 12 and influence(st, "aemilii")["insidiator"] == 5


def test_c12_legion_card_unplayable_with_no_legion_left() -> None:
    st = (Position(3).at("servants").princeps("aemilii").legions(gallia=15)
          .influence(aemilii={"belligerator": 5})
          .hand(aemilii=["belligerator-09", "belligerator-16"]).build())
    assert st.legions_left == 0
    play(st, "place exercitus-upper")
    assert [d for d in legal(st) if d.startswith("play")] == ["play belligerator-16"]
    st = (Position(3).at("servants").princeps("aemilii").legions_left(0)
          .influence(aemilii={"belligerator": 5}).hand(aemilii=["belligerator-09"]).build())
    play(st, "place exercitus-upper")
    assert legal(st) == ["gain"]
