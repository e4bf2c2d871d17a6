"""Municipium components are conserved at every step of random play (property tests)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.municipium import MunicipiumState
from games.municipium.position import assert_consistent

VARIANT_SEATS = st.sampled_from([("classic", 3), ("classic", 4), ("classic", 5),
                                 ("revised", 2), ("revised", 3), ("revised", 4)])


@settings(max_examples=40, deadline=None)
@given(config=VARIANT_SEATS, seed=st.integers(0, 2**63 - 1))
def test_components_are_conserved_at_every_step(config: tuple[str, int], seed: int) -> None:
    """Citizens (bag, Institutions, rooms, supplies, drawn and not yet placed), Favours,
    wreaths, 7 members a family and the Temple once setup is over, the 12 common cards (at
    most one in play), nothing negative, at most 3 citizens in an Institution."""
    variant, seats = config
    state = MunicipiumState.new(variant, seats, seed=seed)
    rng = random.Random(seed)
    assert_consistent(state)
    while not state.is_over:
        seat = state.to_move()[0]
        state.apply(seat, rng.choice(state.legal_decisions(seat)))
        assert_consistent(state)


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
