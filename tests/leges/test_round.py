"""A round's first steps: the simultaneous face-down Theme choice (L2), the reveal, the
Value tokens moved from the first player clockwise and stopped at the track's ends (L9),
the non-scoring abilities (`shift`)."""

from __future__ import annotations

import pytest

from games.core import Decision, NotYourTurnError
from games.leges.position import Position, legal, of_kind, play, step
from tests.leges.helpers import finish_round


def three_players() -> Position:
    return (Position(players=3, first=1)
            .hand(0, "pietas-04", "virtus-04")
            .hand(1, "libertas-04", "concordia-04")
            .hand(2, "pietas-07", "virtus-07"))


def test_l2_choices_are_simultaneous_and_secret() -> None:
    st = three_players().build()
    assert st.to_move() == (0, 1, 2)
    assert st.decision_seen_by(0, Decision("play", ("pietas-04",))) == (0,)
    events = play(st, "0: play pietas-04")
    assert [(e.kind, e.data, e.seats) for e in events] == [
        ("chosen", {"seat": 0, "second": False}, None)]
    assert st.to_move() == (1, 2), "the others still choose; seat 0 has decided"
    with pytest.raises(NotYourTurnError):
        play(st, "0: play virtus-04")
    mine, theirs, spectator = st.observation(0), st.observation(1), st.observation(None)
    assert mine["boards"][0]["choice"] == "pietas-04"
    assert theirs["boards"][0]["choice"] is None and theirs["boards"][0]["chosen"]
    assert spectator["boards"][0]["hand"] is None and spectator["boards"][0]["chosen"]
    assert theirs["boards"][0]["hand_size"] == 2, "the face-down card does not show"
    assert theirs["boards"][0]["exposed"] == []


def test_summary_all_cards_are_revealed_at_once_and_stay_in_front() -> None:
    st = three_players().build()
    play(st, "0: play pietas-04", "1: play libertas-04")
    assert of_kind(st.events, "reveal") == []
    events = play(st, "2: play pietas-07")
    [reveal] = of_kind(events, "reveal")
    assert reveal == {"cards": ["pietas-04", "libertas-04", "pietas-07"], "held": [],
                      "second": False}
    obs = st.observation(None)
    assert [b["exposed"] for b in obs["boards"]] == [["pietas-04"], ["libertas-04"],
                                                    ["pietas-07"]]
    assert [b["hand_size"] for b in obs["boards"]] == [1, 1, 1]
    finish_round(st)
    assert (st.round, step(st)) == (2, "choose")
    play(st, "0: play virtus-04", "1: play concordia-04", "2: play virtus-07")
    obs = st.observation(2)
    assert obs["boards"][0]["exposed"] == ["pietas-04", "virtus-04"]
    assert obs["boards"][0]["played"] == ["virtus-04"]


def test_summary_tokens_move_from_the_first_player_clockwise() -> None:
    """First player seat 1: +2 (to the end, 14), then seat 2's -1 (13), then seat 0's +1
    (14). From seat 0 it would end on 13."""
    st = (Position(players=3, first=1)
          .hand(0, "pietas-04").hand(1, "pietas-03").hand(2, "pietas-07")
          .values(pietas=(5, 2))
          .build())
    events = play(st, "0: play pietas-04", "1: play pietas-03", "2: play pietas-07")
    moves = [(m["seat"], m["colour"], m["by"], m["before"], m["after"])
             for m in of_kind(events, "value")]
    assert moves == [(1, "pietas", 2, 13, 14), (2, "pietas", -1, 14, 13),
                     (0, "pietas", 1, 13, 14)]
    assert st.values["pietas"] == 14


def test_l9_tokens_stop_at_both_ends_of_the_track() -> None:
    st = (Position(players=2, first=0)
          .hand(0, "pietas-11")          # pietas -2
          .hand(1, "virtus-03")          # virtus +2
          .values(pietas=1, virtus=13)
          .build())
    play(st, "0: play pietas-11", "1: play virtus-03")
    assert st.values["pietas"] == 0 and st.values["virtus"] == 14
    [low, high] = of_kind(st.events, "value")
    assert (low["by"], low["after"], high["by"], high["after"]) == (-2, 0, 2, 14)


def test_summary_a_card_may_move_several_tokens() -> None:
    st = Position(players=2).hand(0, "pietas-02").hand(1, "virtus-04").build()
    play(st, "0: play pietas-02", "1: play virtus-04")   # pietas +1, libertas -1
    assert (st.values["pietas"], st.values["libertas"], st.values["virtus"]) == (8, 6, 8)


def test_summary_shift_abilities_are_used_after_the_moves_from_the_first_player() -> None:
    """pietas-18 and virtus-20 let their owners move a token (1 and 2 spaces); they are
    asked in turn from the first player (seat 2), after every card's own moves."""
    st = (Position(players=3, first=2)
          .hand(0, "pietas-18", "pietas-04")
          .hand(1, "libertas-04")
          .hand(2, "virtus-20", "virtus-04")
          .values(concordia=14)
          .build())
    play(st, "0: play pietas-18", "1: play libertas-04", "2: play virtus-20")
    assert (step(st), st.to_move()) == ("ability", (2,))
    assert st.observation(None)["asked"] == {"step": "ability", "pass": 1, "queue": [2, 0]}
    assert (st.values["pietas"], st.values["virtus"], st.values["libertas"]) == (8, 8, 8)
    options = legal(st)
    assert "shift concordia up" not in options, "a token at the end cannot go further"
    assert {"shift concordia down", "shift pietas up", "pass"} <= set(options)
    events = play(st, "shift libertas down")
    [move] = of_kind(events, "value")
    assert (move["seat"], move["colour"], move["by"], move["after"], move["why"]) == (
        2, "libertas", -2, 6, "ability")
    assert st.to_move() == (0,)
    play(st, "pass")
    assert st.values["libertas"] == 6 and step(st) != "ability"


def test_summary_abilities_are_optional_and_public() -> None:
    st = Position(players=2).hand(0, "pietas-18").hand(1, "virtus-04").build()
    play(st, "0: play pietas-18", "1: play virtus-04")
    assert st.decision_seen_by(0, Decision("shift", ("pietas", "up"))) is None
    before = dict(st.values)
    events = play(st, "pass")
    assert of_kind(events, "ability-pass") == [{"seat": 0}]
    assert st.values == before
