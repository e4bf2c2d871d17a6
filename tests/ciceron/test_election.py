"""Phase I, the Princeps election: simultaneous secret votes (C1, C5), every vote of a
family to one family (itself included), ties decided by the outgoing Princeps, the
Princeps first player; phase II follows."""

from __future__ import annotations

import pytest

from games.ciceron.position import (
    Position,
    legal,
    mover,
    movers,
    of_kind,
    play,
    step,
)
from games.core import NotYourTurnError

HORTENSIUS = "quintus-hortensius-hortalus"  # orator, 3 votes
CATO = "marcus-porcius-cato"  # orator, 2 votes
ATTICUS = "titus-pomponius-atticus"  # mercator, 3 votes
LUCULLUS = "lucius-licinius-lucullus"  # mercator, 2 votes
METELLUS = "quintus-caecilius-metellus-pius"  # pontifex, 3 votes
LEPIDUS = "marcus-aemilius-lepidus"  # pontifex, 2 votes
VATINIUS = "publius-vatinius"  # plebeius, 2 votes


def election(princeps: str = "iulii", **more: list[str]) -> Position:
    """Turn 2's election: aemilii 6 votes, iulii 4, cornelii 5."""
    cenacles = {"aemilii": [HORTENSIUS, ATTICUS], "iulii": [CATO, LUCULLUS],
                "cornelii": [METELLUS, LEPIDUS], **more}
    return Position(3).at("election", turn=2).princeps(princeps).senators(**cenacles)


def test_book_election_every_family_votes_at_once() -> None:
    st = election().build()
    assert step(st) == "election" and movers(st) == ["aemilii", "iulii", "cornelii"]
    votes = [d for d in legal(st, "iulii") if d.startswith("vote")]
    assert votes == ["vote aemilii", "vote iulii", "vote cornelii"]  # itself included
    play(st, "iulii: vote cornelii")
    assert movers(st) == ["aemilii", "cornelii"] and legal(st, "iulii") == []
    with pytest.raises(NotYourTurnError):
        play(st, "iulii: vote aemilii")  # one vote, all its votes


def test_book_election_most_votes_wins_all_of_a_familys_votes_go_to_one() -> None:
    st = election().build()
    events = play(st, "aemilii: vote aemilii", "iulii: vote cornelii", "cornelii: vote cornelii")
    assert of_kind(events, "election")[0]["totals"] == {"aemilii": 6, "iulii": 0,
                                                        "cornelii": 9}
    assert st.princeps == 2 and of_kind(events, "princeps")[0]["how"] == "election"


def test_c1_c5_election_no_family_sees_a_vote_before_all_are_in() -> None:
    st = election().build()
    vote = st.parse("vote iulii")
    assert st.decision_seen_by(0, vote) == (0,)
    events = play(st, "aemilii: vote iulii")
    assert [(e.kind, e.data) for e in events] == [("voted", {"family": "aemilii"})]
    for viewer in (None, 1, 2):
        board = st.observation(viewer)["boards"][0]
        assert board["voted"] is True and board["vote"] is None
    assert st.observation(0)["boards"][0]["vote"] == "iulii"
    assert st.observation(1)["election"] is None
    seen = {st.determinize(1, k).families[0]["vote"] for k in range(12)}
    assert len(seen) > 1  # a bot of iulii's searching cannot peek at it
    play(st, "cornelii: vote cornelii", "iulii: vote iulii")
    revealed = st.observation(2)["election"]
    assert revealed["votes"] == {"aemilii": "iulii", "iulii": "iulii", "cornelii": "cornelii"}
    assert revealed["totals"] == {"aemilii": 0, "iulii": 10, "cornelii": 5}


def test_book_election_tie_decided_by_the_outgoing_princeps_among_the_tied() -> None:
    st = election(princeps="cornelii", cornelii=[VATINIUS]).build()
    play(st, "aemilii: vote aemilii", "iulii: vote iulii", "cornelii: vote iulii")
    assert step(st) == "elect" and mover(st) == "cornelii"
    assert [d for d in legal(st) if d.startswith("elect")] == ["elect aemilii", "elect iulii"]
    events = play(st, "elect aemilii")
    assert st.princeps == 0
    assert of_kind(events, "princeps")[0]["how"] == "tie decided by the outgoing Princeps"


def test_book_election_outgoing_princeps_may_decide_a_tie_for_itself() -> None:
    st = election(princeps="aemilii", cornelii=[VATINIUS]).build()
    play(st, "aemilii: vote aemilii", "iulii: vote iulii", "cornelii: vote iulii")
    assert mover(st) == "aemilii"
    play(st, "elect aemilii")
    assert st.princeps == 0


def test_book_election_princeps_is_the_first_player() -> None:
    st = election(princeps="aemilii").build()
    play(st, "aemilii: vote cornelii", "iulii: vote cornelii", "cornelii: vote aemilii")
    assert st.princeps == 2
    assert step(st) == "place" and mover(st) == "cornelii"  # phase III starts with him
    play(st, "place curia-hostilia-lower")
    assert mover(st) == "aemilii"  # then clockwise (C12)


def test_book_election_votes_include_action_cards_and_bribes() -> None:
    """Senators' votes, bribes lying on them, permanent votes cards, a guild's votes."""
    st = (Position(3).at("election", turn=3).princeps("iulii")
          .senators(aemilii=[CATO], iulii=[LUCULLUS], cornelii=[LEPIDUS])
          .attached(aemilii={CATO: ["orator-09"]})  # bribe: +2
          .permanents(aemilii=["orator-04"])  # +2 at every election
          .effects(iulii=["votes=3"])  # the diplomats' power for this turn
          .build())
    events = play(st, "aemilii: vote aemilii", "iulii: vote iulii", "cornelii: vote cornelii")
    assert of_kind(events, "election")[0]["totals"] == {"aemilii": 6, "iulii": 5,
                                                        "cornelii": 2}
    assert st.families[1]["turn_effects"] == []  # the guild's votes served this election


def test_book_phase_two_reveals_cicerons_card_and_each_gains_two_at_home() -> None:
    """Phase II: the top Cicéron card is revealed (public), +2 in each home caste."""
    st = (election().ciceron("pro-murena")
          .influence(aemilii={"orator": 3}, iulii={"belligerator": 9},
                     cornelii={"pontifex": 0}).build())
    events = play(st, "aemilii: vote aemilii", "iulii: vote aemilii", "cornelii: vote aemilii")
    assert of_kind(events, "ciceron") == [{"card": "pro-murena"}]
    assert st.observation(None)["ciceron"] == "pro-murena"
    assert [st.families[s]["influence"][c] for s, c in
            ((0, "orator"), (1, "belligerator"), (2, "pontifex"))] == [5, 10, 2]


def test_book_phase_two_income_cards_add_to_the_home_gain() -> None:
    st = (Position(3).at("ciceron").princeps("aemilii")
          .influence(aemilii={"orator": 1, "mercator": 1})
          .permanents(aemilii=["mercator-11", "mercator-13"])  # +1 mercator, +1 orator
          .build())
    assert st.families[0]["influence"]["orator"] == 4
    assert st.families[0]["influence"]["mercator"] == 2


def test_book_turn_one_has_no_election() -> None:
    with pytest.raises(ValueError, match="turn 1 has no Princeps election"):
        Position(3).at("election", turn=1).build()
    st = Position(3).at("turn", turn=1).princeps("iulii").build()
    assert step(st) == "place" and mover(st) == "iulii"
