"""The conformance suite every game behind the engine API must pass (OpenSpiel-style).

Random legal play from any seed, for every game, variant and seat count the registry
offers: never raises, always ends, replays byte for byte, serializes losslessly, and
refuses every illegal or malformed decision with a typed error while changing nothing.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import (
    GAMES,
    DecisionError,
    GameOverError,
    GameState,
    IllegalDecisionError,
    NotationError,
    NotYourTurnError,
    load,
    new_game,
)
from games.core import Decision, notation

CONFIGS = [(game, variant, seats)
           for game, info in GAMES.items()
           for v in info.variants for variant, low, high in [(v.name, v.min_seats, v.max_seats)]
           for seats in range(low, high + 1)]

SETTINGS = settings(max_examples=15, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def random_playout(state: GameState, rng: random.Random, limit: int = 20_000) -> list[str]:
    """Play random legal decisions to the end; return them as text."""
    played = []
    while not state.is_over and len(played) < limit:
        seat = state.to_move()[0]
        decision = rng.choice(state.legal_decisions(seat))
        state.apply(seat, decision)
        played.append(notation(decision))
    return played


@pytest.mark.parametrize(("game", "variant", "seats"), CONFIGS)
@SETTINGS
@given(seed=st.integers(0, 2**63 - 1))
def test_random_play_ends_and_replays_byte_for_byte(game: str, variant: str, seats: int,
                                                     seed: int) -> None:
    state = new_game(game, variant, seats, seed=seed)
    played = random_playout(state, random.Random(seed))
    result = state.result()
    assert result is not None, "random play must reach the end"
    assert sorted(s for group in result.ranking for s in group) == list(range(seats))
    assert state.to_move() == ()

    replay = new_game(game, variant, seats, seed=seed)
    for text in played:
        replay.apply(replay.to_move()[0], text)
    assert replay.to_bytes() == state.to_bytes()


@pytest.mark.parametrize(("game", "variant", "seats"), CONFIGS)
@SETTINGS
@given(seed=st.integers(0, 2**63 - 1), steps=st.integers(0, 400))
def test_serialization_round_trips_mid_game(game: str, variant: str, seats: int, seed: int,
                                            steps: int) -> None:
    state = new_game(game, variant, seats, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_over:
            break
        seat = state.to_move()[0]
        state.apply(seat, rng.choice(state.legal_decisions(seat)))
    data = state.to_bytes()
    copy = load(data)
    assert copy.to_bytes() == data
    assert state.clone().to_bytes() == data
    if not state.is_over:
        seat = state.to_move()[0]
        assert copy.legal_decisions(seat) == state.legal_decisions(seat)
        # the loaded copy continues exactly like the original
        decision = state.legal_decisions(seat)[0]
        assert copy.apply(seat, decision) == state.apply(seat, decision)
        assert copy.to_bytes() == state.to_bytes()


def every_decision_of(state: GameState) -> set[Decision]:
    """A vocabulary of decisions seen anywhere in a few random games of this config."""
    seen: set[Decision] = set()
    for seed in range(3):
        probe = new_game(state.game, state.variant, state.num_seats, seed=seed)
        rng = random.Random(seed)
        while not probe.is_over:
            legal = probe.legal_decisions(probe.to_move()[0])
            seen.update(legal)
            probe.apply(probe.to_move()[0], rng.choice(legal))
    return seen


@pytest.mark.parametrize(("game", "variant", "seats"), CONFIGS[:1] + CONFIGS[-1:])
def test_illegal_decisions_raise_typed_errors_and_change_nothing(game: str, variant: str,
                                                                  seats: int) -> None:
    state = new_game(game, variant, seats, seed=11)
    vocabulary = sorted(every_decision_of(state))
    rng = random.Random(5)
    while not state.is_over:
        seat = state.to_move()[0]
        legal = state.legal_decisions(seat)
        before = state.to_bytes()
        illegal = [d for d in rng.sample(vocabulary, 8) if d not in legal]
        for decision in illegal:
            with pytest.raises(IllegalDecisionError, match="not legal now"):
                state.apply(seat, decision)
        other = (seat + 1) % seats
        with pytest.raises(NotYourTurnError):
            state.apply(other, legal[0])
        for junk in ("", "fly me>moon", "move", "move a>b>c", "x" * 500, 42, None,
                     Decision("fly", ("moon",)), Decision(legal[0].verb, ("\u2603",) * 3)):
            with pytest.raises(NotationError):
                state.apply(seat, junk)  # type: ignore[arg-type]
        assert state.to_bytes() == before
        state.apply(seat, rng.choice(legal))
    with pytest.raises(GameOverError):
        state.apply(0, vocabulary[0])


@pytest.mark.parametrize(("game", "variant", "seats"), CONFIGS)
def test_every_legal_decision_round_trips_through_notation(game: str, variant: str,
                                                           seats: int) -> None:
    state = new_game(game, variant, seats, seed=3)
    rng = random.Random(3)
    while not state.is_over:
        seat = state.to_move()[0]
        legal = state.legal_decisions(seat)
        assert legal, "a seat to move always has a decision"
        assert len(legal) == len(set(legal)), "no duplicate decisions"
        assert len(legal) <= 60, "decision points stay small"
        for decision in legal:
            assert state.parse(notation(decision)) == decision
            assert state.parse(notation(decision).upper()) == decision
        state.apply(seat, rng.choice(legal))


@pytest.mark.parametrize(("game", "variant", "seats"), CONFIGS[:1])
def test_observation_never_reveals_hidden_state(game: str, variant: str, seats: int) -> None:
    """Two states differing only in hidden information look the same to every viewer."""
    state = new_game(game, variant, seats, seed=21)
    rng = random.Random(21)
    for _ in range(150):
        seat = state.to_move()[0]
        state.apply(seat, rng.choice(state.legal_decisions(seat)))
    twin = state.determinize(0, seed=99)
    assert twin.to_bytes() != state.to_bytes(), "determinize must resample hidden state"
    for viewer in [None, *range(seats)]:
        assert twin.observation(viewer) == state.observation(viewer)


def test_bad_setup_is_refused_with_a_reason() -> None:
    from games import SetupError

    for args, message in [
        (("chess", "classic", 3), "unknown game"),
        (("municipium", "deluxe", 3), "unknown Municipium variant"),
        (("municipium", "classic", 2), "3-5 families"),
        (("municipium", "revised", 5), "2-4 families"),
    ]:
        with pytest.raises(SetupError, match=message):
            new_game(*args)
    with pytest.raises(SetupError, match="unknown option"):
        new_game("municipium", "classic", 3, options={"speed": 2})
    with pytest.raises(SetupError, match="target_decurions"):
        new_game("municipium", "classic", 3, options={"target_decurions": 9})


def test_decision_errors_are_value_errors() -> None:
    """Callers may catch ValueError, as with python-chess."""
    assert issubclass(DecisionError, ValueError)
    assert issubclass(NotYourTurnError, IllegalDecisionError)


@pytest.mark.parametrize(("game", "variant", "seats"), CONFIGS)
def test_a_state_rebuilt_from_an_observation_sees_and_decides_the_same(
        game: str, variant: str, seats: int) -> None:
    """from_observation: the same view and the same legal decisions, at every step."""
    from games import from_observation

    state = new_game(game, variant, seats, seed=17)
    rng = random.Random(17)
    while True:
        viewer = state.to_move()[0] if state.to_move() else 0
        rebuilt = from_observation(state.observation(viewer), seed=rng.randrange(1 << 30))
        assert rebuilt.observation(viewer) == state.observation(viewer)
        assert rebuilt.to_move() == state.to_move()
        assert rebuilt.legal_decisions(viewer) == state.legal_decisions(viewer)
        if state.is_over:
            break
        state.apply(viewer, rng.choice(state.legal_decisions(viewer)))
