"""The conformance gate: every registered game, every variant, every seat count.

The gate runs on all configurations of `games.GAMES` (the games of `games/` and the test
tree's own `tests.plugins.guess`, private hands and simultaneous secret choices), not a
sample. For each, from several seeds, random play:

* ends within a bound (default options) and ranks every seat; replaying (game, variant,
  seats, options, seed, decisions) gives the same events and byte-identical states, by
  text and by `apply_unchecked`; `to_bytes`, `load` and `clone` agree at every position
  and continue alike;
* refuses illegal and malformed input with the right `DecisionError` (wrong seat, a seat
  that already chose, nonsense, a legal-looking but illegal decision, anything after the
  end), leaving the state byte for byte unchanged;
* keeps hidden information hidden: each seat's observation and decisions are the same in
  every `determinize(seat, k)`, a spectator's in every determinization for any seat; a
  game with private information really resamples it (and a game without any shows every
  seat what a spectator sees); `from_observation` rebuilds a state that shows its viewer
  the same and gives it the same decisions; events never tell a viewer more than its
  observations do;
* keeps in `determinize(seat, k)` nothing the seat cannot see: not the real RNG (at every
  position), and, at positions spread over a game, not the outcomes fixed with
  `fix_chance`, not hidden cards where they really are (a statistical test against
  states rebuilt blind from the seat's observation), nothing beyond that observation.

The checks themselves are in tests/conformance.py (a game's own tests may reuse them).
Games are kept short where a game offers an option for it (`SHORT_OPTIONS`); the tests
of whole games use the default options, so the real end of every configuration is
reached and checked too.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import games
from games import (
    GAMES,
    DecisionError,
    IllegalDecisionError,
    NotYourTurnError,
    SetupError,
    load,
    new_game,
)
from games.core import JSON, Decision, Event, GameState
from tests.conformance import (
    DECISION_LIMIT,
    Config,
    HiddenInformation,
    Step,
    all_configs,
    check_creation_events,
    check_determinizations,
    check_determinize_forgets_fixed_chance,
    check_determinize_reads_only_the_view,
    check_events_reveal_nothing,
    check_from_observation,
    check_hidden_not_kept,
    check_position,
    check_refusals,
    check_result,
    check_round_trip,
    check_seat_has_decided,
    play_randomly,
    random_walk,
    vocabulary,
)

games.load_plugins("tests.plugins.guess")

CONFIGS = all_configs()
IDS = [str(config) for config in CONFIGS]
#: Options that keep a game short, for the checks run at every position. Games not named
#: here are short already (or offer no such option) and run with their defaults.
SHORT_OPTIONS: dict[str, JSON] = {"municipium": {"max_turns": 20}}
#: Seeds of the random games whose every position is checked.
GAME_SEEDS = range(3)
#: The same for the longest games (Cicéron with 4 or 5 families: several hundred
#: positions each, a minute of checks per game).
LONG_GAME_SEEDS = range(2)
#: Seeds of the determinizations (and rebuilt states) compared at each position.
SAMPLE_SEEDS = range(3)
#: Positions, spread over a random game, where determinizations are searched for hidden
#: values kept (each with `LEAK_SAMPLES` determinizations per seat).
LEAK_POSITIONS = 6


def game_seeds(config: Config) -> range:
    """The random games checked at every position: fewer for the longest games."""
    return LONG_GAME_SEEDS if config.game == "ciceron" and config.seats >= 4 else GAME_SEEDS


def short(config: Config) -> JSON:
    return dict(SHORT_OPTIONS.get(config.game, {}))


def positions(config: Config, seed: int) -> Iterator[Step]:
    """Every position of a short random game of `config`, the end included."""
    state = new_game(config.game, config.variant, config.seats, short(config), seed)
    yield from random_walk(state, random.Random(seed))


def spread_positions(config: Config, seed: int, count: int) -> list[GameState]:
    """`count` positions (copies) spread evenly over a short random game of `config`, its
    start and end included."""
    states = [step.state.clone() for step in positions(config, seed)]
    picks = {round(i * (len(states) - 1) / max(count - 1, 1)) for i in range(count)}
    return [states[i] for i in sorted(picks)]


parametrize = pytest.mark.parametrize("config", CONFIGS, ids=IDS)


def test_the_gate_covers_every_registered_game() -> None:
    assert "guess" in GAMES, "the test tree's game is gated too"
    assert {config.game for config in CONFIGS} == set(GAMES)
    for name, game in GAMES.items():
        for variant in game.variants:
            counts = {c.seats for c in CONFIGS if (c.game, c.variant) == (name, variant.name)}
            assert counts == set(range(variant.min_seats, variant.max_seats + 1))


# ---------------------------------------------------------------------------------------
# Whole games: they end, replay byte for byte, round-trip
# ---------------------------------------------------------------------------------------
@parametrize
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**63 - 1))
@example(seed=0)
def test_random_play_ends_and_replays_byte_for_byte(config: Config, seed: int) -> None:
    """With default options: random play ends; the same (setup, seed, decisions) replays
    the same events and bytes, by text and through `apply_unchecked`."""
    assert (new_game(*config, seed=seed).to_bytes()
            == new_game(*config, seed=seed).to_bytes()), "creation depends on the seed only"
    state = new_game(*config, seed=seed)
    rng = random.Random(seed)
    record: list[tuple[int, Decision, list[Event]]] = []
    while not state.is_over:
        assert len(record) < DECISION_LIMIT, "random play must end"
        movers = state.to_move()
        seat = movers[rng.randrange(len(movers))]
        decision = rng.choice(state.legal_decisions(seat))
        record.append((seat, decision, list(state.apply(seat, decision))))
    check_result(state)
    final = state.to_bytes()
    assert load(final).to_bytes() == final
    assert load(final).result() == state.result()

    by_text = new_game(*config, seed=seed)
    unchecked = new_game(*config, seed=seed)
    for number, (seat, decision, events) in enumerate(record, 1):
        assert by_text.apply(seat, str(decision)) == events, f"replayed step {number} differs"
        legal = unchecked.legal_decisions(seat)
        assert decision in legal, f"step {number}: '{decision}' is no longer legal on replay"
        assert unchecked.apply_unchecked(seat, decision) == events, f"unchecked step {number}"
    assert by_text.to_bytes() == final, "replay by text is not byte-identical"
    assert unchecked.to_bytes() == final, "apply_unchecked is not byte-identical to apply"


@parametrize
def test_games_end_with_their_default_options(config: Config) -> None:
    """The real end of every configuration, checked like every other position."""
    for seed in range(2):
        state, played = play_randomly(config, {}, seed)
        assert played, "a game takes at least one decision"
        check_position(state)
        check_determinizations(state, SAMPLE_SEEDS, HiddenInformation(config.game))
        check_from_observation(state, SAMPLE_SEEDS)
        check_round_trip(state, None, None)
        check_refusals(state, vocabulary(config, {}), random.Random(seed))


# ---------------------------------------------------------------------------------------
# Every position of short random games
# ---------------------------------------------------------------------------------------
@parametrize
def test_positions_are_well_formed_and_round_trip(config: Config) -> None:
    """Who moves and with what, notation, observations as JSON; `load`, `clone`, text and
    `apply_unchecked` agree with the original at every position and after its decision;
    the game replays from (setup with its options, seed, decisions) byte for byte."""
    for seed in GAME_SEEDS:
        played: list[tuple[int, str]] = []
        for step in positions(config, seed):
            check_position(step.state)
            check_round_trip(step.state, step.seat, step.decision)
            if step.seat is not None and step.decision is not None:
                played.append((step.seat, str(step.decision)))
        replay = new_game(*config, options=short(config), seed=seed)
        for seat, text in played:
            replay.apply(seat, text)
        assert replay.to_bytes() == step.state.to_bytes(), "the replay (with options) differs"


@parametrize
def test_views_agree_with_determinizations(config: Config) -> None:
    """Each seat's own view and decisions never vary across its determinizations, a
    spectator's never vary at all, private information really is resampled, and a game
    without private information shows every seat what a spectator sees."""
    for seed in game_seeds(config):
        seen = HiddenInformation(config.game)
        state = None
        for step in positions(config, seed):
            check_determinizations(step.state, SAMPLE_SEEDS, seen)
            state = step.state
        assert state is not None
        seen.check_game(state)


@parametrize
def test_determinizations_keep_nothing_the_seat_cannot_see(config: Config) -> None:
    """Neither hidden cards where they really are (against chance), nor outcomes fixed on
    the real state, nor anything beyond the seat's observation. (The real RNG is checked
    at every position, by `check_determinizations`.)"""
    tested = 0
    for state in spread_positions(config, GAME_SEEDS[0], LEAK_POSITIONS):
        for seat in range(state.num_seats):
            tested += check_hidden_not_kept(state, seat)
            check_determinize_forgets_fixed_chance(state, seat, seat)
            check_determinize_reads_only_the_view(state, seat, SAMPLE_SEEDS[:2])
    hides = GAMES[config.game].private_information or new_game(*config).chance_kinds
    assert tested or not hides, "no hidden value was tested: the leak test proves nothing"


@parametrize
def test_states_rebuilt_from_observations_agree(config: Config) -> None:
    for seed in game_seeds(config):
        for step in positions(config, seed):
            check_from_observation(step.state, SAMPLE_SEEDS)


@parametrize
def test_events_tell_no_viewer_more_than_its_observations(config: Config) -> None:
    rng = random.Random(7)
    for seed in game_seeds(config):
        for step in positions(config, seed):
            if step.seat is not None and step.decision is not None:
                check_events_reveal_nothing(step.state, step.seat, step.decision,
                                            SAMPLE_SEEDS[:2], rng)
    check_creation_events(config, short(config), range(30))


@parametrize
def test_illegal_input_is_refused_and_changes_nothing(config: Config) -> None:
    """Wrong seats, seats that already chose, nonsense, legal-looking but illegal
    decisions and anything after the end: a typed DecisionError, the state unchanged."""
    words = vocabulary(config, short(config))
    rng = random.Random(5)
    for seed in GAME_SEEDS:
        state = new_game(*config, options=short(config), seed=seed)
        for step in random_walk(state, random.Random(seed)):
            check_refusals(step.state, words, rng)
            if step.seat is not None and step.decision is not None:
                after = step.state.clone()
                after.apply(step.seat, step.decision)
                check_seat_has_decided(after, step.seat, step.decision)


@parametrize
def test_fix_chance_refuses_unknown_kinds(config: Config) -> None:
    state = new_game(*config, seed=1)
    data = state.to_bytes()
    with pytest.raises(ValueError, match="no-such-chance"):
        state.fix_chance("no-such-chance", "x")
    for kind in state.chance_kinds:
        state.fix_chance(kind)  # no outcome: nothing fixed
    assert state.to_bytes() == data, "fixing chance is not part of the serialized state"


# ---------------------------------------------------------------------------------------
# Setup and errors
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_refuses_bad_setups(name: str) -> None:
    game = GAMES[name]
    with pytest.raises(SetupError, match="unknown"):
        new_game(name, "no-such-variant", game.variants[0].min_seats)
    for variant in game.variants:
        for seats in (variant.min_seats - 1, variant.max_seats + 1, True, "2", None):
            with pytest.raises(SetupError):
                new_game(name, variant.name, seats)  # type: ignore[arg-type]
        with pytest.raises(SetupError, match="unknown option"):
            new_game(name, variant.name, variant.min_seats, options={"no_such_option": 1})
        for option in game.options:
            for value in (option.minimum - 1, option.maximum + 1, True, "1", 1.5):
                with pytest.raises(SetupError, match=option.name):
                    new_game(name, variant.name, variant.min_seats, {option.name: value})
            for value in (option.minimum, option.maximum):
                state = new_game(name, variant.name, variant.min_seats, {option.name: value})
                assert state.options[option.name] == value


def test_bad_setup_is_refused_with_a_reason() -> None:
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
    assert issubclass(IllegalDecisionError, DecisionError)
    assert issubclass(NotYourTurnError, IllegalDecisionError)
