"""Municipium components are conserved at every step of random play (property tests)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.municipium import MunicipiumState
from games.municipium.board import COMMON_DECK, VARIANTS

VARIANT_SEATS = st.sampled_from([("classic", 3), ("classic", 4), ("classic", 5),
                                 ("revised", 2), ("revised", 3), ("revised", 4)])


def citizens_in_play(state: MunicipiumState, colour: int) -> int:
    """Citizens of a colour in the bag, Institutions, meeting rooms, supplies and in hand."""
    in_hand = 0
    for frame in state.frames:  # drawn and not yet placed
        if frame["k"] == "place" and frame["colour"] == colour:
            in_hand += 1
        if frame["k"] == "invite":
            in_hand += frame["colours"].count(colour)
    return (state.bag[colour]
            + sum(citizens.count(colour) for citizens in state.inst_citizens)
            + state.room_citizen.count(colour)
            + sum(supply[colour] for supply in state.supply)
            + in_hand)


def assert_conserved(state: MunicipiumState) -> None:
    rules = VARIANTS[state.variant]
    for colour in range(4):
        assert citizens_in_play(state, colour) == rules.citizens_per_colour
    assert state.favour_supply + sum(state.room_favour) + sum(state.favours) == rules.favours
    assert state.wreath_supply + sum(map(sum, state.wreathed)) == rules.wreaths
    on_board = [sum(state.plain[s]) + sum(state.wreathed[s]) for s in range(state.num_seats)]
    if state.turn:  # setup over: every family has its 7 members on the board
        assert on_board == [7] * state.num_seats
    cards_out = sum(1 for f in state.frames if f["k"] == "discard")
    assert sorted(state.deck + state.discard + [f["card"] for f in state.frames
                                                if f["k"] == "discard"]) == sorted(COMMON_DECK)
    assert cards_out <= 1
    assert min(state.bag) >= 0 and min(min(s) for s in state.supply) >= 0
    assert all(len(c) <= 3 for c in state.inst_citizens)  # M5 fires at 3
    if state.turn:
        assert sorted(state.temple) == list(range(state.num_seats))


@settings(max_examples=40, deadline=None)
@given(config=VARIANT_SEATS, seed=st.integers(0, 2**63 - 1))
def test_components_are_conserved_at_every_step(config: tuple[str, int], seed: int) -> None:
    variant, seats = config
    state = MunicipiumState.new(variant, seats, seed=seed)
    rng = random.Random(seed)
    assert_conserved(state)
    while not state.is_over:
        seat = state.to_move()[0]
        state.apply(seat, rng.choice(state.legal_decisions(seat)))
        assert_conserved(state)


def test_m23_random_games_almost_never_reach_the_turn_limit() -> None:
    """M23: the safety limit exists for pathological games, not ordinary random play."""
    limited = 0
    for seed in range(60):
        state = MunicipiumState.new("classic", 4, seed=seed)
        rng = random.Random(seed)
        while not state.is_over:
            seat = state.to_move()[0]
            state.apply(seat, rng.choice(state.legal_decisions(seat)))
        result = state.result()
        assert result is not None
        limited += result.reason == "max_turns"
    assert limited == 0
