"""Tests that kill the mutants of the last mutmut run of Cicéron: notation (canonical, form
errors), permanent amounts, who must decide."""

from __future__ import annotations

import pytest

from games.ciceron.position import Position, influence, mover, of_kind, play, step
from games.core import Decision, NotationError

#: In Verrem: a mercator or pontifex senator, or 2 of insidiator, mercator, belligerator x2.
IN_VERREM_PAIR = ("mercator", "insidiator")  # caste order
VERB_LIST = ("award, choose, discard, disgrace, done, draw, elect, gain, pay, pick, place, "
             "play, recruit, reward, sacrifice, use, vote")


def test_bots_doc_a_tribute_pair_may_be_written_in_either_order() -> None:
    """docs/bots.md, `pay CASTE CASTE`: two of the Cicéron card's influences, "either order;
    written in caste order": both spellings name the one legal decision."""
    st = (Position(3).at("tribute", turn=2).princeps("aemilii").ciceron("in-verrem")
          .influence(aemilii={"rest": 5}).build())
    assert step(st) == "pay" and mover(st) == "aemilii"
    canonical = Decision("pay", IN_VERREM_PAIR)
    assert st.parse("pay insidiator mercator") == canonical
    assert st.parse("pay mercator insidiator") == canonical
    assert st.canonical(Decision("pay", ("insidiator", "mercator"))) == canonical
    # a `pay` naming no caste is left as it is (legality refuses it later, not canonical)
    assert st.canonical(Decision("pay", ("gold", "silver"))) == Decision("pay",
                                                                          ("gold", "silver"))
    events = st.apply(0, "pay insidiator mercator")
    assert of_kind(events, "tribute") == [{"family": "aemilii", "how": "pay",
                                           "influences": list(IN_VERREM_PAIR)}]
    assert influence(st, "aemilii")["mercator"] == influence(st, "aemilii")["insidiator"] == 4


def test_an_unknown_verb_is_refused_with_the_list_of_verbs() -> None:
    """docs/adding-a-game.md, `form_error`: why a decision is not one of the game's at all
    is told to the player: an unknown verb, with the notation's verbs listed."""
    st = Position(3).at("servants", turn=2).princeps("aemilii").build()
    assert st.form_error(Decision("shout", ("iulii",))) == (
        f"unknown verb 'shout'; verbs are: {VERB_LIST}")
    with pytest.raises(NotationError, match=f"verbs are: {VERB_LIST}$"):
        st.parse("shout iulii")


def test_cards_doc_an_income_card_adds_influence_in_its_own_caste_only() -> None:
    """docs/ciceron-cards.md, `income`: `amount` influence in `caste` at every later
    phase II, with the +2 of the home caste (orator for the aemilii), and nowhere else."""
    st = (Position(3).at("ciceron").princeps("aemilii")
          .influence(aemilii={"rest": 0})
          .permanents(aemilii=["mercator-11"])  # income: +1 mercator
          .build())
    assert influence(st, "aemilii") == {"orator": 2, "mercator": 1, "pontifex": 0,
                                        "insidiator": 0, "plebeius": 0, "belligerator": 0}


def test_cards_doc_permanent_cards_and_turn_effects_of_one_family_add_up() -> None:
    """docs/ciceron-cards.md, `votes` and `limit` (permanent cards) and `[guild_powers]`
    (`votes`, `limit` for the next turn): a family holding both counts both (C8 for the
    limit); the boards show the sums."""
    st = (Position(3).at("election", turn=2).princeps("aemilii")
          .permanents(aemilii=["orator-04", "orator-18"])  # votes +2, limit +1
          .effects(aemilii=["votes=3", "limit=1"])  # a guild's votes and limit this turn
          .build())
    board = st.observation(None)["boards"][0]
    assert board["cenacle_limit"] == 4 + 1 + 1
    assert board["election_votes"] == board["senate_votes"] + 2 + 3
    events = play(st, "aemilii: vote aemilii", "iulii: vote iulii", "cornelii: vote cornelii")
    assert of_kind(events, "election")[0]["totals"]["aemilii"] == 5
