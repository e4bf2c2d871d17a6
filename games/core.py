"""The engine API every Curia game implements.

A game is a pure function of (game, variant, seats, options, seed, decisions). The
`GameState` base class owns the bookkeeping every game shares (validation, typed errors,
notation round-trips, serialization framing); a game implements the rule steps.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, NamedTuple

JSON = dict[str, Any]

_MASK64 = (1 << 64) - 1


class DecisionError(ValueError):
    """Base of every error raised for a decision the engine refuses. The state is untouched."""


class NotationError(DecisionError):
    """The text is not a well-formed decision of this game (python-chess: InvalidMoveError)."""


class IllegalDecisionError(DecisionError):
    """A well-formed decision that the rules do not allow now (python-chess: IllegalMoveError)."""


class NotYourTurnError(IllegalDecisionError):
    """The seat is not among the seats that must decide now."""


class GameOverError(IllegalDecisionError):
    """The game has ended; no decision is accepted."""


class SetupError(ValueError):
    """A game cannot be created with these (variant, seats, options)."""


class Decision(NamedTuple):
    """One choice: a verb and its arguments, e.g. ``move baths>emporium``.

    Its text notation is stable and parses back to an equal Decision.
    """

    verb: str
    args: tuple[str, ...] = ()

    def __str__(self) -> str:
        return notation(self)


#: Verbs whose two arguments are written ``from>to``.
ARROW_VERBS = frozenset({"move", "reposition"})


def notation(decision: Decision) -> str:
    """The canonical text of a decision."""
    if decision.verb in ARROW_VERBS and len(decision.args) == 2:
        return f"{decision.verb} {decision.args[0]}>{decision.args[1]}"
    return " ".join((decision.verb, *decision.args))


def parse_notation(text: str) -> Decision:
    """Parse the text notation of a decision (game-agnostic syntax only).

    Raises NotationError for text that is not a decision at all.
    """
    if not isinstance(text, str):
        raise NotationError(f"a decision must be text, got {type(text).__name__}")
    words = text.strip().lower().split()
    if not words or len(text) > 200:
        raise NotationError(f"not a decision: {text!r}")
    verb, rest = words[0], words[1:]
    if not verb.replace("-", "").isalpha():
        raise NotationError(f"not a decision verb: {verb!r}")
    if verb in ARROW_VERBS:
        if len(rest) != 1 or rest[0].count(">") != 1:
            raise NotationError(f"{verb} is written '{verb} FROM>TO', got {text!r}")
        src, dst = rest[0].split(">")
        return Decision(verb, (src, dst))
    return Decision(verb, tuple(rest))


@dataclass(frozen=True)
class Event:
    """Something that happened, for spectators and replays.

    `seats` is None when everyone may see it, else the seats allowed to.
    """

    kind: str
    data: JSON = field(default_factory=dict)
    seats: tuple[int, ...] | None = None

    def visible_to(self, seat: int | None) -> bool:
        """Whether `seat` (None: a spectator) may see this event."""
        return self.seats is None or (seat is not None and seat in self.seats)

    def to_json(self) -> JSON:
        return {"kind": self.kind, **self.data}


@dataclass(frozen=True)
class Result:
    """How a finished game ended.

    `ranking` lists groups of tied seats, best first. `scores` holds, per seat, the
    figures the rules rank by (in tie-break order). `reason` says why the game ended.
    """

    ranking: tuple[tuple[int, ...], ...]
    scores: tuple[JSON, ...]
    reason: str

    def rank_of(self, seat: int) -> int:
        """1-based rank of a seat; tied seats share the better rank."""
        place = 1
        for group in self.ranking:
            if seat in group:
                return place
            place += len(group)
        raise KeyError(seat)

    @property
    def winners(self) -> tuple[int, ...]:
        return self.ranking[0]

    def to_json(self) -> JSON:
        return {
            "ranking": [list(g) for g in self.ranking],
            "scores": list(self.scores),
            "reason": self.reason,
        }


def apply_forfeits(result: Result, forfeited: AbstractSet[int]) -> Result:
    """`result` with the forfeited seats ranked below every other seat.

    The forfeited seats leave their groups and form one tied group at the bottom, in seat
    order; the other seats keep their order and ties. Scores and reason are unchanged.
    Forfeiting is a match rule shared by every game (the service's and the arena's time
    limits), not a rule of any one game, so it lives here rather than in a game.
    """
    if not forfeited:
        return result
    seated = {seat for group in result.ranking for seat in group}
    unknown = set(forfeited) - seated
    if unknown:
        raise ValueError(f"seat(s) {sorted(unknown)} are not in this result")
    kept = tuple(rest for group in result.ranking
                 if (rest := tuple(seat for seat in group if seat not in forfeited)))
    return Result((*kept, tuple(sorted(forfeited))), result.scores, result.reason)


class Rng:
    """SplitMix64: a small, fast, portable PRNG whose whole state is one integer.

    The state lives inside the game state, so (seed, decisions) replays a game exactly.
    `below(n)` uses a modulo of a 64-bit draw; the bias (< n / 2**64) is negligible.
    """

    __slots__ = ("state",)

    def __init__(self, state: int) -> None:
        self.state = state & _MASK64

    def next64(self) -> int:
        self.state = s = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in [0, n)."""
        return self.next64() % n

    def shuffle(self, items: list[Any]) -> None:
        """Fisher-Yates shuffle in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def derive_seed(seed: int, *labels: object) -> int:
    """A child seed from a parent seed and labels (e.g. a game's index in a series)."""
    rng = Rng(seed)
    for label in labels:
        for ch in str(label):
            rng.state ^= ord(ch)
            rng.next64()
        rng.next64()
    return rng.next64() >> 1


class GameState(ABC):
    """A position of some game, with the shared validation around a game's rules."""

    #: Registry name of the game, e.g. "municipium".
    game: str = ""
    #: Serialization format version; bumped when the layout changes.
    format_version: int = 1

    num_seats: int
    variant: str
    options: JSON
    seed: int
    #: The events of the last transition: the game's creation, or the last `apply`.
    events: list[Event]

    # -- what every game implements -------------------------------------------------
    @abstractmethod
    def to_move(self) -> tuple[int, ...]:
        """The seats that must decide now (empty once the game is over)."""

    @abstractmethod
    def legal_decisions(self, seat: int) -> list[Decision]:
        """The finite list of decisions `seat` may take now (empty if none)."""

    @abstractmethod
    def _apply(self, seat: int, decision: Decision) -> list[Event]:
        """Apply a decision already known to be legal; return the events it caused."""

    @abstractmethod
    def observation(self, seat: int | None) -> JSON:
        """What `seat` may see (None: a spectator). JSON-ready."""

    @abstractmethod
    def result(self) -> Result | None:
        """The result once the game is over, else None."""

    @abstractmethod
    def to_json(self) -> JSON:
        """The full state, hidden information included, as JSON-ready data."""

    @abstractmethod
    def clone(self) -> GameState:
        """An independent deep copy."""

    @abstractmethod
    def determinize(self, seat: int, seed: int) -> GameState:
        """A copy whose hidden information is resampled, consistent with what `seat` sees.

        Bots that search use this, so they never peek at the real deck order or dice.
        """

    @classmethod
    @abstractmethod
    def from_observation(cls, observation: JSON, seed: int) -> GameState:
        """A state consistent with a seat's observation, its hidden parts sampled from
        `seed` (a determinization): how a bot outside the server searches."""

    @abstractmethod
    def describe_pending(self) -> str:
        """A short human sentence: who must decide what, now."""

    # -- shared bookkeeping -------------------------------------------------------------
    def seat_names(self) -> list[str]:
        """Display names of the seats, in seat order (a game may name them)."""
        return [f"seat {i}" for i in range(self.num_seats)]

    @property
    def is_over(self) -> bool:
        return self.result() is not None

    def parse(self, text: str) -> Decision:
        """Parse text notation into a decision of this game (legality is not checked)."""
        decision = parse_notation(text)
        problem = self.form_error(decision)
        if problem:
            raise NotationError(f"{text!r} is not a {self.game} decision: {problem}")
        return decision

    def form_error(self, decision: Decision) -> str | None:
        """Why `decision` is not a decision of this game at all (None: it is well-formed)."""
        return None

    def apply(self, seat: int, decision: Decision | str) -> list[Event]:
        """Validate and apply a decision; raise a DecisionError and change nothing if refused."""
        decision = self.as_decision(decision)
        self.check(seat, decision)
        return self._apply(seat, decision)

    def as_decision(self, decision: object) -> Decision:
        """Text parsed, a Decision checked for form; anything else is a NotationError."""
        if isinstance(decision, str):
            return self.parse(decision)
        if not isinstance(decision, Decision) or not all(
                isinstance(a, str) for a in (decision.verb, *decision.args)):
            raise NotationError(f"not a decision: {decision!r}")
        problem = self.form_error(decision)
        if problem:
            raise NotationError(f"'{decision}' is not a {self.game} decision: {problem}")
        return decision

    def check(self, seat: int, decision: Decision) -> None:
        """Raise the DecisionError that `apply` would raise, or return if legal."""
        if self.is_over:
            raise GameOverError("the game is over")
        if not isinstance(seat, int) or not 0 <= seat < self.num_seats:
            raise NotYourTurnError(f"there is no seat {seat!r} in this {self.num_seats}-seat game")
        movers = self.to_move()
        if seat not in movers:
            raise NotYourTurnError(
                f"seat {seat} may not decide now; waiting for seat(s) "
                f"{', '.join(map(str, movers))}: {self.describe_pending()}"
            )
        legal = self.legal_decisions(seat)
        if decision not in legal:
            shown = ", ".join(str(d) for d in legal[:12])
            more = f" … ({len(legal)} in all)" if len(legal) > 12 else ""
            raise IllegalDecisionError(
                f"'{decision}' is not legal now ({self.describe_pending()}); "
                f"legal: {shown}{more}"
            )

    def to_bytes(self) -> bytes:
        """Lossless, versioned, canonical serialization (same state, same bytes)."""
        payload = {"game": self.game, "format": self.format_version, "state": self.to_json()}
        return json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()
