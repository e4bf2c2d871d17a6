"""Game end and result (M14, M22, M23, tie-breaks), and typed errors that change nothing."""

from __future__ import annotations

import random

import pytest

from games.core import (
    DecisionError,
    GameOverError,
    IllegalDecisionError,
    NotationError,
    NotYourTurnError,
)
from games.municipium import MunicipiumState
from tests.municipium.position import Position, assert_consistent, legal, mover, play

ALL_IN_TEMPLE = {"blue": {"rest": "temple"}, "orange": {"rest": "temple"},
                 "yellow": {"rest": "temple"}}


def closing(variant: str, **supply: dict) -> MunicipiumState:
    """Blue and orange hold 5 Decurions; blue's Praefect Visit changes nothing (empty Forum)."""
    return (Position(variant, 3).members(**ALL_IN_TEMPLE).decurions(blue=5, orange=5, yellow=1)
            .supply(**supply).deck("praefect-visit").build())


# -- M14 end of the game ---------------------------------------------------------------------
def test_m14_game_ends_at_the_end_of_the_turn_reaching_the_target() -> None:
    st = (Position().members(blue={"basilica": 3, "rest": "temple"},
                             orange={"baths": 3, "rest": "tavern"}, yellow={"rest": "forum"})
          .supply(blue={"priest": 3}).decurions(blue=4).deck("one-power").build())
    play(st, "play common", "power basilica", "exchange priest priest priest")
    assert st.decurions[0] == 5
    assert not st.is_over and mover(st) == "orange"  # the One Power card goes on
    play(st, "skip", "skip")
    result = st.result()
    assert result is not None and result.reason == "target" and result.winners == (0,)
    assert st.to_move() == () and legal(st) == []


@pytest.mark.parametrize(("target", "over"), [(4, True), (5, False)])
def test_m14_short_game_target_four(target: int, over: bool) -> None:
    st = (Position(target=target)
          .members(blue={"forum": 2, "rest": "temple"}, orange={"rest": "temple"},
                   yellow={"rest": "temple"})
          .decurions(blue=3).supply(blue={"priest": 1, "militia": 1, "merchant": 1})
          .deck("praefect-visit").build())
    play(st, "play common")  # the Favour completes blue's 4th set
    assert st.decurions[0] == 4 and st.is_over == over


def test_m14_classic_tie_citizens_and_favours_then_favours() -> None:
    st = closing("classic", blue={"priest": 2}, orange={"priest": 1, "favour": 1})
    play(st, "play common")
    result = st.result()
    assert result is not None and result.ranking == ((1,), (0,), (2,))
    assert result.scores[0] == {"decurions": 5, "citizens_and_favours": 2, "favours": 0}


@pytest.mark.parametrize("variant", ["classic", "revised"])
def test_m14_tie_on_decurions_broken_by_citizens_and_favours(variant: str) -> None:
    st = closing(variant, blue={"priest": 3}, orange={"priest": 1, "favour": 1})
    play(st, "play common")
    assert st.result().ranking == ((0,), (1,), (2,))  # type: ignore[union-attr]


def test_m14_revised_full_tie_is_a_shared_victory() -> None:
    st = closing("revised", blue={"priest": 2}, orange={"priest": 1, "favour": 1})
    play(st, "play common")
    result = st.result()
    assert result is not None and result.ranking == ((0, 1), (2,)) and result.winners == (0, 1)
    assert result.rank_of(1) == 1 and result.rank_of(2) == 3


def test_m14_classic_tie_on_everything_is_shared() -> None:
    st = closing("classic", blue={"militia": 1, "favour": 1}, orange={"priest": 1, "favour": 1})
    play(st, "play common")
    assert st.result().ranking == ((0, 1), (2,))  # type: ignore[union-attr]


# -- M22 Decurion tokens, M23 turn limit -----------------------------------------------------
def test_m22_decurion_count_not_limited_by_printed_tokens() -> None:
    """Five families at 4 (20 of the 21 tokens); one Praefect event gives two more."""
    st = (Position("classic", 5)
          .members(blue={"forum": 3, "rest": "temple"}, orange={"forum": 2, "rest": "temple"},
                   yellow={"rest": "temple"}, black={"rest": "temple"}, pink={"rest": "temple"})
          .decurions(blue=4, orange=4, yellow=4, black=4, pink=4)
          .supply(blue={"priest": 1, "militia": 1, "merchant": 1},
                  orange={"priest": 1, "militia": 1, "merchant": 1})
          .rooms(forum="advocate").deck("praefect-visit").build())
    play(st, "play common")
    assert st.decurions == [5, 5, 4, 4, 4] and sum(st.decurions) == 22
    assert st.result().reason == "target"  # type: ignore[union-attr]
    assert_consistent(st)


def test_m23_max_turns_ends_the_game_with_reason_max_turns() -> None:
    st = (Position(max_turns=3).members(**ALL_IN_TEMPLE).decurions(yellow=2)
          .supply(blue={"priest": 1}).turn("blue", number=2)
          .deck("praefect-visit", "praefect-visit").build())
    play(st, "play common")
    assert not st.is_over and mover(st) == "orange" and st.turn == 3
    play(st, "play common")
    result = st.result()
    assert result is not None and result.reason == "max_turns"
    assert result.ranking == ((2,), (0,), (1,))  # the normal end-of-game order


def test_m23_target_takes_precedence_over_the_limit() -> None:
    st = (Position(max_turns=1).members(**ALL_IN_TEMPLE).decurions(blue=5)
          .deck("praefect-visit").build())
    play(st, "play common")
    assert st.result().reason == "target"  # type: ignore[union-attr]


# -- typed errors leave the state unchanged ------------------------------------------------------
def fresh() -> MunicipiumState:
    return (Position().members(blue={"baths": 1, "rest": "temple"}, orange={"rest": "temple"},
                               yellow={"rest": "temple"}).build())


@pytest.mark.parametrize(("seat", "text", "error"), [
    (1, "play common", NotYourTurnError),
    (7, "play common", NotYourTurnError),
    (1, "setup atlantis", NotationError),
    (0, "", NotationError),
    (0, "fly baths", NotationError),
    (0, "move baths", NotationError),
    (0, "move baths>atlantis", NotationError),
    (0, "place gold temple", NotationError),
    (0, "play", NotationError),
    (0, "setup temple", IllegalDecisionError),
    (0, "move baths>basilica", IllegalDecisionError),
    (0, "move forum>temple", IllegalDecisionError),
    (0, "keep priest priest", IllegalDecisionError),
    (0, "play grande-famille", IllegalDecisionError),
])
def test_refused_decisions_raise_typed_errors_and_change_nothing(
        seat: int, text: str, error: type[DecisionError]) -> None:
    st = fresh()
    before = st.to_bytes()
    with pytest.raises(error):
        st.apply(seat, text)
    assert st.to_bytes() == before and legal(st)  # still waiting for the same decision


def test_not_your_turn_inside_a_card() -> None:
    st = (Position().members(**ALL_IN_TEMPLE).deck("citizen-visit").draws("priest").build())
    play(st, "play common")  # blue places first
    before = st.to_bytes()
    with pytest.raises(NotYourTurnError):
        st.apply(1, legal(st)[0])
    assert st.to_bytes() == before


def test_game_over_refuses_everything() -> None:
    st = (Position().members(**ALL_IN_TEMPLE).decurions(blue=5).deck("praefect-visit").build())
    play(st, "play common")
    before = st.to_bytes()
    with pytest.raises(GameOverError):
        st.apply(1, "play common")
    assert st.to_bytes() == before


# -- built positions are ordinary game states -----------------------------------------------------
@pytest.mark.parametrize(("variant", "seats"), [("classic", 3), ("revised", 2)])
def test_built_position_plays_on_to_the_end(variant: str, seats: int) -> None:
    parks = {"blue": {"rest": "forum"}, "orange": {"rest": "baths"}, "yellow": {"rest": "temple"}}
    st = (Position(variant, seats, max_turns=60)
          .members(**dict(list(parks.items())[:seats]))
          .supply(blue={"priest": 2}).build())
    rng = random.Random(seats)
    while not st.is_over:
        st.apply(st.to_move()[0], rng.choice(st.legal_decisions(st.to_move()[0])))
        assert_consistent(st)
    assert st.result() is not None
