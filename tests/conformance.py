"""The checks of the conformance gate (tests/test_conformance.py), one function per property.

Every function takes a position (a `GameState`) or a whole configuration and fails with an
assertion naming what is wrong. Nothing here names a game: a game earns its place by being
in `games.GAMES`, and its descriptor's flags (`simultaneous`, `private_information`) say
which properties must hold.

Hidden information, as the gate understands it: a seat's observation is everything it
may know; `determinize(seat, k)` resamples everything else. So, for every position, seat
s and seed k:

* s's own observation and legal decisions are the same in every determinization for s;
* the spectator's observation is the same in every determinization for any seat (a
  spectator knows less than any seat);
* in a game with private information, what another seat t sees does vary across
  determinizations for s somewhere in a game (else nothing is really resampled and the
  equalities above prove nothing), and some seat does see more than a spectator (else
  the flag is wrong); in a game without it, every seat sees exactly what a spectator
  sees, apart from the `seat` field;
* events visible to a viewer never tell two worlds apart that the viewer's observations
  cannot: the same decision (or, for another seat's secret choice, any decision) applied
  in the real state and in a determinization, if the viewer's observations agree before
  and after, yields the same events for that viewer.

And `determinize(seat, k)` keeps nothing `seat` cannot see:

* not the real RNG (every `Rng` the state holds differs from the real one and varies with
  `k`, so the copy's future draws are not the real game's);
* not the outcomes fixed with `fix_chance` on the real state (`fixed_outcome` is empty in
  the copy, which continues exactly like a copy of the state without them);
* not the real order or place of hidden cards: states rebuilt from the seat's
  observation alone (`from_observation`, blind by construction) say which values are
  hidden and how often chance puts the real value there; determinizations must not put
  it there almost always (`check_hidden_not_kept`, a statistical test);
* nothing at all beyond the seat's observation: two states rebuilt from it with
  different seeds give byte-identical determinizations for the same `k` (a copy
  shuffled from the real order, not from a canonical one, would tell the order).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

import pytest

import games
from games import (
    GAMES,
    Decision,
    DecisionError,
    Event,
    GameOverError,
    GameState,
    IllegalDecisionError,
    NotationError,
    NotYourTurnError,
    load,
    new_game,
)
from games.core import JSON, Rng, notation

#: Random play must end within this many decisions (with a game's default options).
DECISION_LIMIT = 20_000
#: A decision point stays small enough for a client to list (and a bot to search).
MAX_LEGAL = 60
#: Text and objects that are not decisions of any game.
JUNK: tuple[object, ...] = (
    "", "   ", "fly me>moon", "move", "move a>b>c", "x" * 500, "3 + 4", "play\x00 1",
    42, None, 1.5, ("play", "1"), ["play", "1"], Decision("fly", ("moon",)),
    Decision("\u2603"), Decision("play", (1,)),  # type: ignore[arg-type]
)
#: Seat numbers no game has (besides `num_seats` itself, added per game).
NO_SUCH_SEATS: tuple[object, ...] = (-1, 99, "0", None, 1.0)
#: Determinizations, and blind rebuilds from the observation, per position and seat in
#: `check_hidden_not_kept`.
LEAK_SAMPLES = 32
#: A value is tested as hidden where the blind rebuilds vary and hold the real value in at
#: most this many of `LEAK_SAMPLES` (chance ≤ 1/4).
CHANCE_AT_MOST = 8
#: ... and fails if determinizations hold the real value in at least this many. With the
#: same sampling law for both, P(blind ≤ 8 and determinized ≥ 30 of 32) ≤ 1.3e-9 per
#: value tested, whatever the chance c of the real value (worst near c = 0.59).
KEPT_AT_LEAST = 30
#: Decisions of random play compared after a determinization in
#: `check_determinize_forgets_fixed_chance`.
FOLLOW_STEPS = 40
#: Seed offset of the blind rebuilds, so that they never share a seed with determinize.
BLIND_SEEDS = 10_000


class Config(NamedTuple):
    """One (game, variant, seat count) the registry offers."""

    game: str
    variant: str
    seats: int

    def __str__(self) -> str:
        return f"{self.game}-{self.variant}-{self.seats}"


def all_configs() -> list[Config]:
    """Every (game, variant, seat count) of every registered game: the whole gate."""
    return [Config(name, variant.name, seats)
            for name, game in sorted(GAMES.items())
            for variant in game.variants
            for seats in range(variant.min_seats, variant.max_seats + 1)]


def viewers(state: GameState) -> list[int | None]:
    """The spectator (None), then every seat."""
    return [None, *range(state.num_seats)]


def public_part(observation: JSON) -> JSON:
    """An observation without its `seat` field: what must be the same for every viewer of
    a game without private information."""
    return {key: value for key, value in observation.items() if key != "seat"}


def as_json(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


# ---------------------------------------------------------------------------------------
# Random play
# ---------------------------------------------------------------------------------------
class Step(NamedTuple):
    """A position and what random play decides there (seat and decision None at the end)."""

    state: GameState
    seat: int | None
    decision: Decision | None


def random_walk(state: GameState, rng: random.Random,
                limit: int = DECISION_LIMIT) -> Iterator[Step]:
    """Play random legal decisions from `state`, yielding each position before its decision
    is applied, the final position last. Of several seats to move (a simultaneous round),
    a random one decides first. The caller must not change the state it is shown."""
    for _ in range(limit):
        movers = state.to_move()
        if not movers:
            yield Step(state, None, None)
            return
        seat = movers[rng.randrange(len(movers))]
        decision = rng.choice(state.legal_decisions(seat))
        yield Step(state, seat, decision)
        state.apply(seat, decision)
    raise AssertionError(f"random play did not end within {limit} decisions")


def play_randomly(config: Config, options: JSON, seed: int,
                  limit: int = DECISION_LIMIT) -> tuple[GameState, list[tuple[int, str]]]:
    """A random game to its end: the final state and the (seat, notation) played."""
    state = new_game(config.game, config.variant, config.seats, options, seed)
    played = [(step.seat, notation(step.decision))
              for step in random_walk(state, random.Random(seed), limit)
              if step.seat is not None and step.decision is not None]
    return state, played


def vocabulary(config: Config, options: JSON, seeds: range = range(3)) -> list[Decision]:
    """Every decision legal for some seat somewhere in a few random games of `config`."""
    seen: set[Decision] = set()
    for seed in seeds:
        state = new_game(config.game, config.variant, config.seats, options, seed)
        for step in random_walk(state, random.Random(seed)):
            for seat in step.state.to_move():
                seen.update(step.state.legal_decisions(seat))
    return sorted(seen)


# ---------------------------------------------------------------------------------------
# Checks of one position
# ---------------------------------------------------------------------------------------
def check_position(state: GameState) -> None:
    """Who moves, what they may do, and how every viewer's observation is framed."""
    game = GAMES[state.game]
    movers = state.to_move()
    assert isinstance(movers, tuple), "to_move() is a tuple of seats"
    assert len(set(movers)) == len(movers), f"a seat is listed twice in to_move {movers}"
    assert all(isinstance(s, int) and 0 <= s < state.num_seats for s in movers), movers
    assert (movers == ()) == state.is_over, "nobody moves exactly when the game is over"
    if not game.simultaneous:
        assert len(movers) <= 1, f"{state.game} is not simultaneous, yet {movers} move"
    for seat in range(state.num_seats):
        legal = state.legal_decisions(seat)
        if seat not in movers:
            assert legal == [], f"seat {seat} is not to move yet has decisions {legal[:5]}"
            continue
        assert legal, f"seat {seat} must move but has no decision"
        assert len(legal) == len(set(legal)), "duplicate decisions"
        assert len(legal) <= MAX_LEGAL, f"{len(legal)} decisions: decision points stay small"
        for decision in legal:
            assert isinstance(decision, Decision), decision
            text = notation(decision)
            assert state.parse(text) == decision, f"{text!r} does not parse back"
            assert state.parse(text.upper()) == decision, f"{text.upper()!r} is not the same"
            assert state.canonical(decision) == decision, f"{text!r} is not canonical"
    result = state.result()
    if result is not None:
        check_result(state)
    for viewer in viewers(state):
        observation = state.observation(viewer)
        assert observation.get("game") == state.game, "an observation names its game"
        assert observation.get("seat", "missing") == viewer, "an observation names its seat"
        assert json.loads(json.dumps(observation)) == observation, (
            f"the observation of {viewer} does not survive JSON (tuples, non-str keys?)")


def check_result(state: GameState) -> None:
    """A finished game ranks every seat exactly once and says why it ended."""
    result = state.result()
    assert result is not None
    ranked = [seat for group in result.ranking for seat in group]
    assert sorted(ranked) == list(range(state.num_seats)), f"ranking {result.ranking}"
    assert all(result.ranking), "no empty group in a ranking"
    assert len(result.scores) == state.num_seats, "one score per seat"
    assert isinstance(result.reason, str) and result.reason, "a result says why"
    assert json.loads(json.dumps(result.to_json())) == result.to_json()
    assert state.to_move() == ()
    assert all(state.legal_decisions(seat) == [] for seat in range(state.num_seats))


@dataclass
class HiddenInformation:
    """What the determinizations of one game showed, checked against the game's flags
    once the game is over (see the module docstring)."""

    game: str
    #: (s, t): the view of t varied across determinizations for s at some position.
    varied: set[tuple[int, int]] = field(default_factory=set)
    #: Seats whose determinizations differed from the real state somewhere.
    resampled: set[int] = field(default_factory=set)
    #: Seats that saw more than a spectator somewhere.
    saw_private: set[int] = field(default_factory=set)
    #: Whether several seats had to move at once somewhere.
    saw_simultaneous: bool = False

    def check_game(self, state: GameState) -> None:
        """After a whole game: the flags of the descriptor are honest."""
        game = GAMES[self.game]
        seats = range(state.num_seats)
        if game.private_information:
            assert self.saw_private, (
                f"{self.game} declares private information, but no seat ever saw more "
                f"than a spectator")
            for owner in sorted(self.saw_private):
                assert any((other, owner) in self.varied for other in seats if other != owner), (
                    f"seat {owner} sees more than a spectator, but no determinization for "
                    f"another seat ever changed what seat {owner} sees: its private "
                    f"information is not resampled (a bot searching it would peek)")
        if state.chance_kinds or game.private_information:
            assert self.resampled == set(seats), (
                f"determinize(seat, k) never resampled anything for seats "
                f"{sorted(set(seats) - self.resampled)}, though {self.game} hides something")
        if game.simultaneous:
            assert self.saw_simultaneous, (
                f"{self.game} declares simultaneous moves, but never had two seats to move")


def check_determinizations(state: GameState, seeds: range, seen: HiddenInformation) -> None:
    """A determinization for s agrees with everything s (and a spectator) may know."""
    game = GAMES[state.game]
    before = state.to_bytes()
    movers = state.to_move()
    spectator = state.observation(None)
    seen.saw_simultaneous |= len(movers) > 1
    views = {seat: state.observation(seat) for seat in range(state.num_seats)}
    for seat, view in views.items():
        if public_part(view) != public_part(spectator):
            assert game.private_information, (
                f"{state.game} declares no private information, yet seat {seat} sees more "
                f"than a spectator: {_difference(view, spectator)}")
            seen.saw_private.add(seat)
    real_rngs = rng_states(state)
    for seat in range(state.num_seats):
        legal = state.legal_decisions(seat)
        others: dict[int, set[str]] = {t: set() for t in range(state.num_seats) if t != seat}
        rngs: set[tuple[tuple[str, int], ...]] = set()
        for k in seeds:
            twin = state.determinize(seat, k)
            where = f"determinize({seat}, {k})"
            rngs.add(check_rng_resampled(twin, real_rngs, where))
            own = twin.observation(seat)
            assert own == views[seat], (
                f"{where} changed what seat {seat} sees: {_difference(own, views[seat])}")
            assert twin.legal_decisions(seat) == legal, f"{where} changed seat {seat}'s decisions"
            assert twin.to_move() == movers, f"{where} changed who moves"
            assert twin.seed == 0, f"{where} keeps the game's seed, which gives the deck away"
            assert twin.result() == state.result(), f"{where} changed the result"
            public = twin.observation(None)
            assert public == spectator, (
                f"{where} changed what a spectator sees, so a spectator sees something "
                f"private or hidden: {_difference(public, spectator)}")
            data = twin.to_bytes()
            assert load(data).to_bytes() == data, f"{where} does not round-trip"
            if data != before:
                seen.resampled.add(seat)
            for other in others:
                others[other].add(as_json(twin.observation(other)))
        again = state.determinize(seat, seeds[0]).to_bytes()
        assert again == state.determinize(seat, seeds[0]).to_bytes(), (
            f"determinize({seat}, {seeds[0]}) is not a function of the state and the seed")
        assert not real_rngs or len(rngs) == len(seeds), (
            f"determinize({seat}, k) gives the same RNG state for different seeds k "
            f"{list(seeds)}: what follows a determinization must vary with its seed")
        seen.varied |= {(seat, other) for other, values in others.items() if len(values) > 1}
    assert state.to_bytes() == before, "determinize changed the real state"


def check_from_observation(state: GameState, seeds: range) -> None:
    """A state rebuilt from a viewer's observation (as sent, through JSON) shows that viewer
    the same, gives it the same decisions, and agrees with every public fact."""
    before = state.to_bytes()
    spectator = state.observation(None)
    for viewer in viewers(state):
        view = state.observation(viewer)
        sent = json.loads(json.dumps(view))
        for k in seeds:
            rebuilt = games.from_observation(sent, k)
            where = f"from_observation(observation({viewer}), {k})"
            assert rebuilt.observation(viewer) == view, (
                f"{where} shows its viewer something else: "
                f"{_difference(rebuilt.observation(viewer), view)}")
            assert rebuilt.observation(None) == spectator, (
                f"{where} disagrees with the spectator's view: "
                f"{_difference(rebuilt.observation(None), spectator)}")
            assert rebuilt.to_move() == state.to_move(), f"{where} changed who moves"
            assert rebuilt.is_over == state.is_over, f"{where} changed whether the game is over"
            if viewer is not None:
                assert rebuilt.legal_decisions(viewer) == state.legal_decisions(viewer), (
                    f"{where} gives seat {viewer} other decisions")
            data = rebuilt.to_bytes()
            assert load(data).to_bytes() == data, f"{where} does not round-trip"
        again = games.from_observation(sent, seeds[0]).to_bytes()
        assert again == games.from_observation(sent, seeds[0]).to_bytes(), (
            f"from_observation(observation({viewer}), {seeds[0]}) is not a function of "
            f"the observation and the seed")
    assert state.to_bytes() == before, "from_observation changed the real state"


def check_round_trip(state: GameState, seat: int | None, decision: Decision | None) -> None:
    """Bytes, clone and load agree on everything, and continue alike: `apply` with a
    Decision or its text, and `apply_unchecked`, give the same events and bytes."""
    data = state.to_bytes()
    copies = {"load": load(data), "clone": state.clone()}
    for how, copy in copies.items():
        assert copy.to_bytes() == data, f"{how} changed the bytes"
        assert copy.to_move() == state.to_move(), f"{how} changed who moves"
        assert copy.result() == state.result(), f"{how} changed the result"
        for viewer in viewers(state):
            assert copy.observation(viewer) == state.observation(viewer), (
                f"{how} changed what {viewer} sees")
        for s in range(state.num_seats):
            assert copy.legal_decisions(s) == state.legal_decisions(s), (
                f"{how} changed seat {s}'s decisions")
    if seat is None or decision is None:
        return
    by_text = load(data)
    unchecked = state.clone()
    events = copies["clone"].apply(seat, decision)
    after = copies["clone"].to_bytes()
    assert copies["load"].apply(seat, decision) == events, "a loaded state continues otherwise"
    assert by_text.apply(seat, notation(decision)) == events, "text and Decision differ"
    assert unchecked.apply_unchecked(seat, decision) == events, "apply_unchecked differs"
    for how, copy in (("load", copies["load"]), ("text", by_text), ("unchecked", unchecked)):
        assert copy.to_bytes() == after, f"{how}: different bytes after '{decision}'"
    assert state.to_bytes() == data, "copies share state with the original"


def check_refusals(state: GameState, vocabulary: list[Decision], rng: random.Random,
                   samples: int = 8) -> None:
    """Illegal and malformed input raises the right DecisionError and changes nothing."""
    data, events = state.to_bytes(), list(state.events)

    def refused(error: type[DecisionError], seat: object, decision: object) -> DecisionError:
        with pytest.raises(error) as caught:
            state.apply(seat, decision)  # type: ignore[arg-type]
        assert state.to_bytes() == data, f"refusing {decision!r} by {seat!r} changed the state"
        assert state.events == events, f"refusing {decision!r} by {seat!r} changed the events"
        return caught.value

    movers = state.to_move()
    if not movers:
        for seat in range(state.num_seats):
            for decision in rng.sample(vocabulary, min(samples, len(vocabulary))):
                refused(GameOverError, seat, decision)
                refused(GameOverError, seat, notation(decision))
        return
    for seat in movers:
        legal = state.legal_decisions(seat)
        illegal = [d for d in vocabulary if d not in legal]
        for decision in rng.sample(illegal, min(samples, len(illegal))):
            for form in (decision, notation(decision)):
                error = refused(IllegalDecisionError, seat, form)
                assert not isinstance(error, NotYourTurnError | GameOverError), (
                    f"{form!r} by a seat to move: {type(error).__name__}")
        for junk in (*JUNK, Decision(legal[0].verb, ("\u2603",) * 3)):
            refused(NotationError, seat, junk)
        # a legal decision with one argument too many: malformed or illegal, never applied
        refused(DecisionError, seat, Decision(legal[0].verb, (*legal[0].args, legal[0].verb)))
    some = state.legal_decisions(movers[0])[0]
    for seat in range(state.num_seats):
        if seat not in movers:
            refused(NotYourTurnError, seat, some)
            refused(NotYourTurnError, seat, notation(some))
    for nobody in (*NO_SUCH_SEATS, state.num_seats):
        refused(NotYourTurnError, nobody, some)


def check_seat_has_decided(state: GameState, seat: int, decision: Decision) -> None:
    """Just after `seat` decided: if it no longer moves (its secret choice is in, or the
    turn passed), deciding again is refused as not its turn, changing nothing."""
    if state.is_over or seat in state.to_move():
        return
    data = state.to_bytes()
    with pytest.raises(NotYourTurnError):
        state.apply(seat, decision)
    assert state.to_bytes() == data, "a refused second decision changed the state"


def check_events(events: list[Event], num_seats: int) -> None:
    """Events are well formed: a kind, JSON data, and `seats` None or real seats."""
    for event in events:
        assert isinstance(event, Event), event
        assert isinstance(event.kind, str) and event.kind, event
        assert json.loads(json.dumps(event.to_json())) == event.to_json(), event
        if event.seats is not None:
            assert isinstance(event.seats, tuple) and event.seats, event
            assert all(isinstance(s, int) and 0 <= s < num_seats for s in event.seats), event
            assert len(set(event.seats)) == len(event.seats), event


def visible(events: list[Event], viewer: int | None) -> list[Event]:
    return [event for event in events if event.visible_to(viewer)]


def check_events_reveal_nothing(state: GameState, seat: int, decision: Decision,
                                seeds: range, rng: random.Random) -> None:
    """A viewer's events never tell apart two worlds its observations cannot.

    The real transition (the state, `decision` by `seat`) is compared with transitions in
    determinizations for every seat: with the same decision when it is legal there, and,
    in a game with private information, with a random legal decision of `seat` too
    (another seat's secret choice may differ in a world the viewer cannot tell apart;
    such a game's observations must therefore show every decision a viewer may know of).
    In a game without private information every decision is public, and the events may
    say which was taken even where the observation cannot tell. For each viewer whose
    observations agree before and after, the events it may see must agree too.
    """
    secret_choices = GAMES[state.game].private_information
    real = state.clone()
    events = real.apply(seat, decision)
    check_events(events, state.num_seats)
    before = {v: state.observation(v) for v in viewers(state)}
    after = {v: real.observation(v) for v in viewers(state)}
    for determinized_for in range(state.num_seats):
        for k in seeds:
            twin = state.determinize(determinized_for, k)
            legal = twin.legal_decisions(seat)
            choices = {decision} if decision in legal else set()
            if secret_choices:
                choices.add(rng.choice(legal))
            for choice in sorted(choices):
                world = twin.clone()
                world_before = {v: world.observation(v) for v in viewers(state)}
                world_events = world.apply(seat, choice)
                for viewer in viewers(state):
                    if (world_before[viewer] != before[viewer]
                            or world.observation(viewer) != after[viewer]):
                        continue
                    assert visible(world_events, viewer) == visible(events, viewer), (
                        f"viewer {viewer} cannot tell '{decision}' in the real state from "
                        f"'{choice}' in determinize({determinized_for}, {k}) by observation, "
                        f"but the events it sees differ: {visible(events, viewer)} vs "
                        f"{visible(world_events, viewer)}")


def check_creation_events(config: Config, options: JSON, seeds: range) -> None:
    """At creation too: games a viewer cannot tell apart show it the same events."""
    seen: dict[tuple[int | None, str], tuple[int, list[Event]]] = {}
    for seed in seeds:
        state = new_game(config.game, config.variant, config.seats, options, seed)
        check_events(state.events, config.seats)
        for viewer in viewers(state):
            key = (viewer, as_json(state.observation(viewer)))
            shown = visible(state.events, viewer)
            if key in seen:
                other, expected = seen[key]
                assert shown == expected, (
                    f"viewer {viewer} sees the same new game for seeds {other} and {seed}, "
                    f"but different events: {expected} vs {shown}")
            else:
                seen[key] = (seed, shown)


# ---------------------------------------------------------------------------------------
# Determinizations keep nothing hidden
# ---------------------------------------------------------------------------------------
#: Where a value sits in a state's full data: its keys and list indexes.
Path = tuple[object, ...]


def rng_states(state: GameState) -> dict[str, int]:
    """The state of each seeded `Rng` a position holds, by attribute: its future draws."""
    attributes = getattr(state, "__dict__", {})
    return {name: value.state for name, value in attributes.items() if isinstance(value, Rng)}


def check_rng_resampled(twin: GameState, real: dict[str, int],
                        where: str) -> tuple[tuple[str, int], ...]:
    """`twin` holds none of the `real` RNG states (its draws would be the real game's);
    returns its RNG states, for the caller to check that they vary with the seed."""
    mine = rng_states(twin)
    kept = sorted(name for name, value in mine.items() if real.get(name) == value)
    assert not kept, (
        f"{where} keeps the real RNG state ({', '.join(kept)}): its future chance "
        f"outcomes would be the real game's")
    return tuple(sorted(mine.items()))


def fix_every_chance(state: GameState) -> GameState:
    """A clone of `state` with outcomes fixed for every kind of chance it has: each listed
    outcome in order, or a placeholder where the game lists none."""
    fixed = state.clone()
    for kind in state.chance_kinds:
        fixed.fix_chance(kind, *sorted(state.chance_outcomes(kind) or ("conformance",)))
    return fixed


def follow(state: GameState, seed: int, steps: int = FOLLOW_STEPS) -> list[object]:
    """What `steps` decisions of random play (from `seed`) do to `state`: their events, the
    error that stopped them if any, and the bytes at the end."""
    rng = random.Random(seed)
    trace: list[object] = []
    for _ in range(steps):
        movers = state.to_move()
        if not movers:
            break
        seat = movers[rng.randrange(len(movers))]
        try:
            trace.append(state.apply(seat, rng.choice(state.legal_decisions(seat))))
        except ValueError as error:  # a fixed draw that cannot happen, say
            trace.append(f"{type(error).__name__}: {error}")
            break
    return [*trace, state.to_bytes()]


def check_determinize_forgets_fixed_chance(state: GameState, seat: int, seed: int) -> None:
    """Outcomes fixed on the real state are not in its determinization, which continues
    exactly like a determinization of the state without them."""
    where = f"determinize({seat}, {seed})"
    twin = fix_every_chance(state).determinize(seat, seed)
    for kind in state.chance_kinds:
        assert twin.clone().fixed_outcome(kind) is None, (
            f"{where} keeps the {kind!r} outcomes fixed with fix_chance on the real state")
    plain = state.determinize(seat, seed)
    assert follow(twin, seed) == follow(plain, seed), (
        f"{where} of a state with fixed chance outcomes continues otherwise than {where} "
        f"of the same state without them: it carries the fixed draws")


def check_determinize_reads_only_the_view(state: GameState, seat: int, seeds: range) -> None:
    """Two states rebuilt from `seat`'s observation with different seeds differ only in
    what it cannot see, so their determinizations for `seat` and `k` are the same bytes."""
    view = json.loads(json.dumps(state.observation(seat)))
    one, two = (games.from_observation(view, BLIND_SEEDS + i) for i in (0, 1))
    for k in seeds:
        a, b = one.determinize(seat, k), two.determinize(seat, k)
        assert a.to_bytes() == b.to_bytes(), (
            f"determinize({seat}, {k}) depends on more than seat {seat} sees: on two states "
            f"rebuilt from its observation it differs at {_paths_differing(a, b)}")


def leaves(data: object) -> dict[Path, object]:
    """Every scalar of JSON-like data by its path of keys and list indexes."""
    found: dict[Path, object] = {}
    stack: list[tuple[Path, object]] = [((), data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            stack.extend(((*path, key), item) for key, item in value.items())
        elif isinstance(value, list | tuple):
            stack.extend(((*path, index), item) for index, item in enumerate(value))
        else:
            found[path] = value
    return found


def hidden_values(state: GameState, seat: int, samples: int) -> dict[Path, int]:
    """The values of the full state (`to_json`) hidden from `seat`, each with its chance:
    in how many of `samples` states rebuilt from the seat's observation alone
    (`from_observation`, blind by construction) the real value is there too. Hidden are
    the values on which the rebuilt states differ."""
    real = leaves(state.to_json())
    view = json.loads(json.dumps(state.observation(seat)))
    blind = [leaves(games.from_observation(view, BLIND_SEEDS + k).to_json())
             for k in range(samples)]
    hidden = {}
    for path, value in real.items():
        found = [values.get(path, _MISSING) for values in blind]
        if len(set(found)) > 1:
            hidden[path] = found.count(value)
    return hidden


def check_hidden_not_kept(state: GameState, seat: int, samples: int = LEAK_SAMPLES) -> int:
    """Determinizations for `seat` (seeds `range(samples)`) do not keep hidden values
    where they really are: where chance puts the real value at most `CHANCE_AT_MOST`
    times in `samples`, they must not put it there `KEPT_AT_LEAST` times (a copy keeping
    a deck's real order, or the real RNG, puts it there every time). Returns how many
    values were tested."""
    real = leaves(state.to_json())
    hidden = {path: chance for path, chance in hidden_values(state, seat, samples).items()
              if chance <= CHANCE_AT_MOST}
    twins = [leaves(state.determinize(seat, k).to_json()) for k in range(samples)]
    for path, chance in hidden.items():
        kept = sum(values.get(path, _MISSING) == real[path] for values in twins)
        assert kept < KEPT_AT_LEAST, (
            f"determinize({seat}, k) keeps the real hidden value at {_path(path)} "
            f"({real[path]!r}) in {kept} of {samples} seeds k, where chance (states rebuilt "
            f"from seat {seat}'s observation alone) puts it there in {chance} of {samples}")
    return len(hidden)


_MISSING = object()


def _path(path: Path) -> str:
    """A path of keys and indexes as text, e.g. ``deck.3`` or ``families.1.hand.0``."""
    return ".".join(map(str, path))


def _paths_differing(a: GameState, b: GameState, shown: int = 6) -> str:
    """The first paths at which two states' full data differ, for failure messages."""
    one, two = leaves(a.to_json()), leaves(b.to_json())
    paths = [p for p in {**one, **two} if one.get(p, _MISSING) != two.get(p, _MISSING)]
    return ", ".join(_path(p) for p in paths[:shown]) or "(the framing of the bytes)"


def _difference(actual: JSON, expected: JSON) -> str:
    """The top-level keys on which two observations differ, for failure messages."""
    keys = sorted(set(actual) | set(expected))
    diffs = [f"{k}: {actual.get(k, '<missing>')!r} != {expected.get(k, '<missing>')!r}"
             for k in keys if actual.get(k, "<missing>") != expected.get(k, "<missing>")]
    text = "; ".join(diffs)
    return text if len(text) < 600 else text[:600] + " …"
