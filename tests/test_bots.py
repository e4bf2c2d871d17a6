"""The reference bots: legal choices only, no peeking at hidden information, greedy > random."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import pytest

from bots import BOT_NAMES, Bot, make_bot
from bots.greedy_bot import PLAY_COMMON, GreedyBot, remaining_common_cards
from games import GameState, new_game
from games.core import derive_seed
from games.municipium import MunicipiumState

CONFIGS = [("classic", 3), ("classic", 5), ("revised", 2), ("revised", 4)]


def random_positions(variant: str, seats: int, seed: int) -> Iterator[GameState]:
    """Yield every position of a random game (the caller must not apply to it)."""
    state = new_game("municipium", variant, seats, seed=seed)
    rng = random.Random(seed)
    while not state.is_over:
        yield state
        seat = state.to_move()[0]
        state.apply(seat, rng.choice(state.legal_decisions(seat)))


def test_registry_makes_each_bot_and_refuses_unknown_names() -> None:
    for name in BOT_NAMES:
        bot = make_bot(name, seed=1)
        assert isinstance(bot, Bot)
        assert bot.name == name
    with pytest.raises(ValueError, match="unknown bot 'smart'"):
        make_bot("smart", seed=1)


@pytest.mark.parametrize(("variant", "seats"), CONFIGS)
def test_bots_only_return_legal_decisions_and_leave_the_state_alone(variant: str,
                                                                    seats: int) -> None:
    bots = [make_bot(name, seed=seats) for name in BOT_NAMES]
    checked = 0
    for state in random_positions(variant, seats, seed=100 + seats):
        seat = state.to_move()[0]
        legal = state.legal_decisions(seat)
        before = state.to_bytes()
        for bot in bots:
            assert bot.choose(state, seat) in legal, (bot.name, state.describe_pending())
        assert state.to_bytes() == before, "a bot must not change the real state"
        checked += 1
    assert checked > 50


def test_a_bot_asked_for_a_seat_that_does_not_decide_raises() -> None:
    state = new_game("municipium", "classic", 3, seed=1)
    idle = (state.to_move()[0] + 1) % 3
    for name in BOT_NAMES:
        with pytest.raises(ValueError, match="no decision"):
            make_bot(name, seed=1).choose(state, idle)


def hidden_twin(state: GameState, rng: random.Random) -> MunicipiumState:
    """The same position with another deck order and another RNG (the bag's future draws)."""
    data = state.to_json()
    deck = list(data["deck"])
    if len(set(deck)) > 1:
        while deck == data["deck"]:
            rng.shuffle(deck)
    twin = MunicipiumState.from_json(dict(data, deck=deck, rng=rng.getrandbits(64)))
    assert twin.to_bytes() != state.to_bytes()
    return twin


def test_greedy_choice_does_not_depend_on_hidden_information() -> None:
    """Two states equal but for the deck order and the RNG: greedy picks the same."""
    rng = random.Random(7)
    compared = with_common = 0
    for game in range(3):
        for state in random_positions("classic", 4, seed=200 + game):
            seat = state.to_move()[0]
            twin = hidden_twin(state, rng)
            for viewer in (None, *range(4)):
                assert twin.observation(viewer) == state.observation(viewer)
            bot_seed = derive_seed(game, compared)
            assert (GreedyBot(seed=bot_seed).choose(state, seat)
                    == GreedyBot(seed=bot_seed).choose(twin, seat)), state.describe_pending()
            compared += 1
            with_common += PLAY_COMMON in state.legal_decisions(seat)
    assert with_common > 30, "the positions must include draws from the common deck"


def test_determinize_depends_on_public_information_only() -> None:
    rng = random.Random(3)
    for state in random_positions("classic", 4, seed=300):
        if len(set(state.to_json()["deck"])) > 1:
            twin = hidden_twin(state, rng)
            seat = state.to_move()[0]
            assert (state.determinize(seat, 5).to_bytes()
                    == twin.determinize(seat, 5).to_bytes())


def test_public_deck_composition_matches_the_deck() -> None:
    """The greedy bot's card-kind weights come from the rule book's deck minus the discard."""
    for state in random_positions("classic", 3, seed=400):
        if PLAY_COMMON not in state.legal_decisions(state.to_move()[0]):
            continue
        counts = remaining_common_cards(state.observation(None))
        assert counts is not None
        real = state.to_json()["deck"] or state.to_json()["discard"]
        assert counts == Counter(real)


def play(bots: list[Bot], seed: int, variant: str = "classic") -> GameState:
    state = new_game("municipium", variant, len(bots), seed=seed)
    while not state.is_over:
        seat = state.to_move()[0]
        state.apply(seat, bots[seat].choose(state, seat))
    return state


def test_greedy_is_reproducible_from_its_seed() -> None:
    games = [play([make_bot("greedy", seed=s) for s in range(3)], seed=9).to_bytes()
             for _ in range(2)]
    assert games[0] == games[1]


def test_greedy_clearly_beats_random() -> None:
    """30 games, greedy against two random bots, seats rotating.

    A bot no better than random wins a third of them; 21 or more wins would then have a
    probability below 1e-4.
    """
    wins = 0.0
    for game in range(30):
        greedy_seat = game % 3
        bots = [make_bot("greedy" if s == greedy_seat else "random", seed=derive_seed(game, s))
                for s in range(3)]
        result = play(bots, seed=derive_seed(1, game)).result()
        assert result is not None
        if greedy_seat in result.winners:
            wins += 1 / len(result.winners)
    assert wins >= 21, f"greedy won only {wins} of 30 games"
