"""Municipium's `determinize` keeps none of the three leaks an audit found the gate missed:
the deck's real order, the real RNG, outcomes fixed with `fix_chance`.

The conformance gate (`tests/conformance.py`: `check_hidden_not_kept`,
`check_rng_resampled`, `check_determinize_forgets_fixed_chance`) checks these for every
game; the tests here pin the three named leaks on one Municipium position.
"""

from __future__ import annotations

import random
from collections import Counter

from games import new_game
from games.municipium.state import MunicipiumState

#: Determinize seeds compared with the real state.
SEEDS = range(32)
#: Citizens drawn from the bag to compare futures.
DRAWS = 10


def midgame(seed: int = 3, decisions: int = 40) -> MunicipiumState:
    """A Municipium position after random play, with a dozen hidden cards in the deck."""
    state = new_game("municipium", "classic", 4, seed=seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        seat = state.to_move()[0]
        state.apply(seat, rng.choice(state.legal_decisions(seat)))
    assert isinstance(state, MunicipiumState) and len(state.deck) >= 10
    return state


def citizens(state: MunicipiumState) -> tuple[int | None, ...]:
    """The next `DRAWS` citizens drawn from the bag (changes `state`)."""
    return tuple(state.draw_citizen() for _ in range(DRAWS))


def future(state: MunicipiumState) -> tuple[object, ...]:
    """The next citizens and the next three cards (changes `state`)."""
    return (*citizens(state), *(state.draw_card() for _ in range(3)))


def test_determinize_reshuffles_hidden_deck_order() -> None:
    """A card sits where it really is in the copy about as often as chance puts it there
    (the deck has repeated cards: Σ count² / n², 0.32 here), not always.

    Fails above halfway between chance and 1 (0.66 here; the mean of 32 samples has a
    standard deviation near 0.04)."""
    state = midgame()
    n = len(state.deck)
    chance = sum(count ** 2 for count in Counter(state.deck).values()) / n ** 2
    hits = sum(twin.deck[i] == card for twin in (state.determinize(0, k) for k in SEEDS)
               for i, card in enumerate(state.deck))
    share = hits / (n * len(SEEDS))
    assert share < (chance + 1) / 2, (
        f"determinize keeps the deck's real order: {share:.2f} of cards in place, "
        f"chance {chance:.2f}")


def test_determinize_draws_from_a_fresh_rng() -> None:
    """The copy's next citizens are not the real game's (by chance, one seed in 32 would
    repeat all ten with probability about 32 · 0.25¹⁰ ≈ 3e-5) and vary with the seed."""
    state = midgame()
    real = citizens(state.clone())
    draws = [citizens(state.determinize(0, k)) for k in SEEDS]
    assert draws.count(real) <= 1, (
        f"determinize keeps the real RNG: {draws.count(real)} of {len(SEEDS)} copies draw "
        f"the real game's next citizens")
    assert len(set(draws)) > len(SEEDS) // 2, "the copy's draws do not vary with the seed"


def test_determinize_forgets_fixed_chance() -> None:
    """Outcomes fixed on the real state (which keeps them) are not in the copy, whose
    future is that of a copy of the same state without them."""
    state = midgame()
    unfixed = state.clone()
    state.fix_chance("citizen", *["priest"] * DRAWS)
    state.fix_chance("card", *sorted(set(state.deck)))
    assert state.clone().fixed_outcome("citizen") == "priest"
    for k in range(4):
        twin = state.determinize(0, k)
        for kind in state.chance_kinds:
            assert twin.clone().fixed_outcome(kind) is None, (
                f"determinize keeps the {kind} outcomes fixed on the real state")
        assert future(twin) == future(unfixed.determinize(0, k))
