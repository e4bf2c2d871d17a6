"""Phase VI, majorities: castes by Senate votes (Primus 6 PP, Secundus 3 PP), guilds by
symbols (power next turn or 3 PP, chosen again each turn); ties settled by the Princeps,
the holder's too; cards kept until lost, none without a vote or symbol (C9). Phase VII:
senators whose guild requirements the cénacle meets, one symbol serving several."""

from __future__ import annotations

from games.ciceron.position import (
    Position,
    holder,
    influence,
    legal,
    mover,
    of_kind,
    play,
    prestige,
    senators_where,
    step,
)

# Orator "voters": 3 votes, no guild symbol, no prestige.
CURIO, RUFUS, FAVONIUS = senators_where(caste="orator", votes=3, guilds={})
ORATOR_TWO = "lucius-aurelius-cotta"  # orator, 2 votes, no symbol (2 PP: assassins+diplomats)
ATTICUS = "titus-pomponius-atticus"  # mercator 3 votes, 1 traders
LUCULLUS = "lucius-licinius-lucullus"  # mercator 2 votes, 1 traders (2 PP: traders+artisans)
OPPIUS = "gaius-oppius"  # mercator 2 votes, 1 traders (2 PP: traders+artisans)
CATO = "marcus-porcius-cato"  # orator 2 votes, 1 diplomats (2 PP: diplomats+strategists)
ANTONIUS = "marcus-antonius"  # belligerator 2 votes, 1 strategists (2 PP: the same)


def majorities(princeps: str = "aemilii", **cenacles: list[str]) -> Position:
    return Position(3).at("majorities", turn=2).princeps(princeps).senators(**cenacles)


def test_book_primus_six_pp_secundus_three_pp() -> None:
    st = majorities(aemilii=[CURIO, RUFUS], iulii=[FAVONIUS]).build()
    assert holder(st, "primus-orator") == "aemilii" and holder(st, "secundus-orator") == "iulii"
    assert prestige(st) == {"aemilii": 16, "iulii": 13, "cornelii": 10}
    assert st.turn == 3 and step(st) == "election"  # the turn is over


def test_c9_no_secundus_for_a_family_without_a_vote_of_the_caste() -> None:
    st = majorities(aemilii=[CURIO], iulii=[ATTICUS]).build()
    assert holder(st, "primus-orator") == "aemilii" and holder(st, "secundus-orator") is None
    assert holder(st, "primus-mercator") == "iulii"


def test_book_tie_settled_by_the_princeps() -> None:
    st = majorities(princeps="cornelii", aemilii=[CURIO], iulii=[FAVONIUS]).build()
    assert step(st) == "award" and mover(st) == "cornelii"
    assert [d for d in legal(st) if d.startswith("award")] == ["award aemilii", "award iulii"]
    assert st.frames[-1]["card"] == "primus-orator"
    play(st, "award iulii")
    assert holder(st, "primus-orator") == "iulii" and holder(st, "secundus-orator") == "aemilii"


def test_book_princeps_may_settle_a_tie_in_its_own_favour() -> None:
    st = majorities(aemilii=[CURIO], iulii=[FAVONIUS]).build()
    play(st, "award aemilii")
    assert holder(st, "primus-orator") == "aemilii"


def test_book_three_way_tie_the_princeps_awards_primus_then_secundus() -> None:
    st = majorities(princeps="iulii", aemilii=[CURIO], iulii=[FAVONIUS],
                    cornelii=[RUFUS]).build()
    play(st, "award cornelii")
    assert st.frames[-1]["card"] == "secundus-orator" and mover(st) == "iulii"
    assert [d for d in legal(st) if d.startswith("award")] == ["award aemilii", "award iulii"]
    play(st, "award aemilii")
    assert holder(st, "primus-orator") == "cornelii" and holder(st, "secundus-orator") == "aemilii"


def test_c9_the_princeps_settles_a_tie_even_against_the_holder() -> None:
    st = (majorities(princeps="aemilii", aemilii=[CURIO], iulii=[FAVONIUS])
          .primus(orator="iulii").secundus(orator="aemilii").build())
    play(st, "award aemilii")
    assert holder(st, "primus-orator") == "aemilii" and holder(st, "secundus-orator") == "iulii"


def test_book_cards_are_kept_until_lost_then_go_to_the_family_that_takes_them() -> None:
    st = (majorities(aemilii=[CURIO, RUFUS], iulii=[ORATOR_TWO], cornelii=[FAVONIUS])
          .primus(orator="aemilii").secundus(orator="iulii").build())
    assert holder(st, "primus-orator") == "aemilii"  # kept
    assert holder(st, "secundus-orator") == "cornelii"  # lost by iulii: 2 votes against 3
    assert prestige(st, "iulii") == 10


def test_c9_a_card_nobody_qualifies_for_returns_to_the_supply() -> None:
    st = (majorities(aemilii=[ATTICUS]).primus(orator="aemilii").secundus(orator="iulii")
          .build())
    assert holder(st, "primus-orator") is None and holder(st, "secundus-orator") is None
    majority = {e["card"]: e["family"] for e in of_kind(st.events, "majority")}
    assert majority["primus-orator"] is None and majority["primus-mercator"] == "aemilii"


# -- guilds -----------------------------------------------------------------------------------
def guilds() -> Position:
    """Traders: aemilii 2 symbols, iulii 1; mercator votes 5 and 2."""
    return majorities(aemilii=[ATTICUS, OPPIUS], iulii=[LUCULLUS])


def test_book_guild_goes_to_the_most_symbols_who_chooses_power_or_three_pp() -> None:
    st = guilds().build()
    assert step(st) == "guild_choice" and mover(st) == "aemilii"
    assert holder(st, "guild-traders") == "aemilii"
    assert [d for d in legal(st) if d.startswith("choose")] == ["choose power",
                                                                "choose prestige"]
    play(st, "choose prestige")
    assert prestige(st) == {"aemilii": 19, "iulii": 13, "cornelii": 10}  # 6 + 3; 3


def test_book_guild_power_is_used_during_the_next_turn_instead_of_the_pp() -> None:
    st = guilds().influence(aemilii={"mercator": 2}).build()
    events = play(st, "choose power")
    assert prestige(st, "aemilii") == 16
    assert of_kind(events, "guild-power") == [{"family": "aemilii", "guild": "traders",
                                               "target": None}]
    assert influence(st, "aemilii")["mercator"] == 5  # traders: +3 mercator, next turn start
    assert st.turn == 3 and step(st) == "election"


def test_c9_the_guilds_winner_chooses_again_each_turn() -> None:
    st = guilds().build()
    play(st, "choose power")
    play(st, "aemilii: vote aemilii", "iulii: vote aemilii", "cornelii: vote aemilii")
    while step(st) != "guild_choice":  # turn 3: place, pay, ... to the majorities
        play(st, "disgrace" if "disgrace" in legal(st) else legal(st)[0])
    assert st.turn == 3 and mover(st) == "aemilii" and holder(st, "guild-traders") == "aemilii"


def test_book_guild_tie_settled_by_the_princeps_there_is_no_second() -> None:
    st = majorities(princeps="cornelii", aemilii=[ATTICUS], iulii=[LUCULLUS]).build()
    assert holder(st, "primus-mercator") == "aemilii"  # 3 votes against 2
    assert step(st) == "award" and st.frames[-1]["card"] == "guild-traders"
    play(st, "award iulii")
    assert holder(st, "guild-traders") == "iulii" and mover(st) == "iulii"
    assert step(st) == "guild_choice"


# -- phase VII ----------------------------------------------------------------------------
def test_book_senator_prestige_when_the_cenacle_meets_its_guild_requirements() -> None:
    """Cato and Antonius each ask 1 diplomats + 1 strategists; Cato brings the diplomats,
    Antonius the strategists: each symbol serves both (2 + 2 PP)."""
    st = majorities(aemilii=[CATO, ANTONIUS]).build()
    while step(st) == "guild_choice":
        play(st, "choose power")
    assert prestige(st, "aemilii") == 10 + 6 + 6 + 4  # Primus orator, belligerator; senators


def test_book_senator_prestige_not_scored_without_the_symbols() -> None:
    st = majorities(aemilii=[CATO]).build()
    play(st, "choose power")
    assert prestige(st, "aemilii") == 16  # Primus orator only
