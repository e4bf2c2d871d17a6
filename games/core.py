"""The engine API every Curia game implements.

A game is a pure function of (game, variant, seats, options, seed, decisions). The
`GameState` base class owns the bookkeeping every game shares (validation, typed errors,
notation round-trips, serialization framing); a game implements the rule steps.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import orjson

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


#: Verbs whose two arguments are written ``from>to``: filled from the registered games'
#: `Game.arrow_verbs` (see `register_game`); the notation syntax itself names no game.
ARROW_VERBS: set[str] = set()


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


def rank_by(keys: Sequence[tuple[int, ...]]) -> tuple[tuple[int, ...], ...]:
    """Seats ranked by their keys, highest first; equal keys form one tied group (seat
    order inside it)."""
    order = sorted(range(len(keys)), key=lambda s: (tuple(-k for k in keys[s]), s))
    groups: list[list[int]] = []
    for seat in order:
        if groups and keys[groups[-1][0]] == keys[seat]:
            groups[-1].append(seat)
        else:
            groups.append([seat])
    return tuple(tuple(g) for g in groups)


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
        for ch in str(label):  # each character into a fully mixed state
            rng.state = rng.next64() ^ ord(ch)
        rng.state = rng.next64() ^ 0x1F  # end of label: ("ab", "c") differs from ("a", "bc")
    return rng.next64() >> 1


class GameState(ABC):
    """A position of some game, with the shared validation around a game's rules."""

    #: Registry name of the game (`Game.name`).
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

    @abstractmethod
    def describe_pending(self) -> str:
        """A short human sentence: who must decide what, now."""

    # -- chance ----------------------------------------------------------------------
    #: The kinds of chance this game has (e.g. "citizen" for a bag draw), each with the
    #: outcomes it may produce: see `fix_chance`.
    chance_kinds: tuple[str, ...] = ()
    #: Outcomes fixed by `fix_chance`, by kind, next first (in memory only: not serialized).
    _fixed_chance: dict[str, list[str]] | None = None

    def fix_chance(self, kind: str, *outcomes: str) -> None:
        """Make the next chance events of `kind` produce `outcomes`, in order; then chance
        resumes from the state's seeded RNG. For scenario tests and for bots that want to
        explore a given draw. Kept by `clone`, not by `to_bytes` or `determinize`.

        Raises ValueError for a kind this game does not have.
        """
        if kind not in self.chance_kinds:
            known = ", ".join(self.chance_kinds) or "none"
            raise ValueError(f"{self.game} has no chance of kind {kind!r}; kinds: {known}")
        possible = self.chance_outcomes(kind)
        wrong = [o for o in outcomes if possible is not None and o not in possible]
        if wrong:
            raise ValueError(f"{wrong[0]!r} is not a {kind} outcome of {self.game}; "
                             f"outcomes: {', '.join(sorted(possible or ()))}")
        if self._fixed_chance is None:
            self._fixed_chance = {}
        self._fixed_chance.setdefault(kind, []).extend(outcomes)

    def chance_outcomes(self, kind: str) -> AbstractSet[str] | None:
        """Every outcome a chance event of `kind` may ever produce (None: not listed)."""
        return None

    def fixed_outcome(self, kind: str) -> str | None:
        """The next fixed outcome of `kind` (consumed), or None to draw from the RNG.

        A game calls this at each chance event of that kind before using its RNG.
        """
        queue = self._fixed_chance.get(kind) if self._fixed_chance else None
        return queue.pop(0) if queue else None

    def _copy_fixed_chance(self, other: GameState) -> None:
        """Give `other` (a clone) this state's fixed outcomes."""
        if self._fixed_chance:
            other._fixed_chance = {k: list(v) for k, v in self._fixed_chance.items()}

    # -- shared bookkeeping -------------------------------------------------------------
    def seat_names(self) -> list[str]:
        """Display names of the seats, in seat order (a game may name them)."""
        return [f"seat {i}" for i in range(self.num_seats)]

    def turn_number(self) -> int:
        """The turn (or round) as the game's rule book counts them; 0 before the first."""
        return 0

    @property
    def is_over(self) -> bool:
        return self.result() is not None

    def parse(self, text: str) -> Decision:
        """Parse text notation into a canonical decision of this game (legality is not
        checked)."""
        decision = parse_notation(text)
        problem = self.form_error(decision)
        if problem:
            raise NotationError(f"{text!r} is not a {self.game} decision: {problem}")
        return self.canonical(decision)

    def form_error(self, decision: Decision) -> str | None:
        """Why `decision` is not a decision of this game at all (None: it is well-formed)."""
        return None

    def decision_seen_by(self, seat: int, decision: Decision) -> tuple[int, ...] | None:
        """Who may see `decision`, about to be taken by `seat` (None: everyone).

        A secret simultaneous choice is seen by its own seat only, until the game reveals
        it through events; the service then streams it to others without its notation.
        """
        return None

    def canonical(self, decision: Decision) -> Decision:
        """The one spelling of a well-formed decision: a game whose decisions name an
        unordered choice (two citizens kept, tokens paid) sorts it here, so every order
        a client may write names the same decision."""
        return decision

    def apply(self, seat: int, decision: Decision | str) -> list[Event]:
        """The validated path: parse or check the form, check legality, then apply.

        Raises a DecisionError and changes nothing if the decision is refused.
        """
        decision = self.as_decision(decision)
        self.check(seat, decision)
        return self._apply(seat, decision)

    def apply_unchecked(self, seat: int, decision: Decision) -> list[Event]:
        """The fast path (python-chess's `push`): apply a decision taken from
        `legal_decisions(seat)` without re-validating it. Anything else is undefined."""
        return self._apply(seat, decision)

    def as_decision(self, decision: object) -> Decision:
        """Text parsed, a Decision checked for form, both in canonical form (`canonical`);
        anything else is a NotationError."""
        if isinstance(decision, str):
            return self.parse(decision)
        if not isinstance(decision, Decision) or not all(
                isinstance(a, str) for a in (decision.verb, *decision.args)):
            raise NotationError(f"not a decision: {decision!r}")
        problem = self.form_error(decision)
        if problem:
            raise NotationError(f"'{decision}' is not a {self.game} decision: {problem}")
        return self.canonical(decision)

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
        return orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)


# ---------------------------------------------------------------------------------------
# Games: a static descriptor per game, and the registry
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class VariantSpec:
    """One variant of a game (a rule set) and the seats it takes."""

    name: str
    #: Fewest and most seats (players) this variant takes.
    min_seats: int
    max_seats: int
    #: One line for catalogues (`curia games`, ListGames).
    description: str = ""


@dataclass(frozen=True)
class OptionSpec:
    """One integer option of a game, with its default and its inclusive range."""

    name: str
    description: str
    default: int
    minimum: int
    maximum: int


class Game(ABC):
    """A game's static description and the operations every game provides (OpenSpiel's
    Game): the registry holds one instance per game, and nothing outside a game's own
    modules needs to know which game it is.

    A game's package ends with ``register_game(MyGame())``.
    """

    #: Registry name, a lower-case identifier.
    name: str = ""
    #: Display name, as the rule book writes it.
    title: str = ""
    #: What the game's turn number counts, in the plural, for "game length: 12 turns".
    turn_unit: str = "turns"
    #: Whether the game's cards are data, in a card set file (`card_set_text`).
    has_card_set: bool = False
    #: The variants, the first being the default.
    variants: tuple[VariantSpec, ...] = ()
    #: Integer options with defaults and ranges (the same for every variant).
    options: tuple[OptionSpec, ...] = ()
    #: Whether several seats may have to decide at the same time (secret simultaneous
    #: choices, revealed once all are in).
    simultaneous: bool = False
    #: Whether some seat may see what another may not (hands, face-down choices).
    #: Deck order and future draws are hidden in every game and do not count here.
    private_information: bool = False
    #: Verbs whose two arguments are written ``from>to`` in the text notation.
    arrow_verbs: frozenset[str] = frozenset()
    #: Serialization format of the game's states (`GameState.format_version`).
    format_version: int = 1
    #: What the rule book calls the seats, for messages (e.g. "players").
    seat_noun: str = "seats"

    # -- what every game implements -------------------------------------------------
    @abstractmethod
    def new(self, variant: str, num_seats: int, options: JSON, seed: int) -> GameState:
        """A new game; `options` already complete and checked (see `new_game`)."""

    @abstractmethod
    def load(self, data: JSON) -> GameState:
        """A state from its `GameState.to_json()` data."""

    @abstractmethod
    def from_observation(self, observation: JSON, seed: int) -> GameState:
        """A state consistent with a seat's observation, its hidden parts sampled from
        `seed` (a determinization): how a bot outside the server searches."""

    # -- what a game may refine -------------------------------------------------------
    def describe_event(self, event: Event, decision: Decision | None) -> str | None:
        """A short sentence for logs and `curia watch`, or None when the decision line
        (`decision`, None for the game's creation) already says it all."""
        details = ", ".join(f"{k}={v}" for k, v in event.data.items())
        return f"{event.kind}: {details}" if details else event.kind

    def describe_end(self, result: Result, options: JSON) -> str:
        """Why the game ended, as a sentence (from `Result.reason`)."""
        return result.reason

    def card_set_text(self, path: str | None = None) -> str:
        """The text of the card set file the game plays with (or of the file at `path`),
        checked as the engine checks it; for a game that `has_card_set` only."""
        raise NotImplementedError(f"{self.name}'s cards are fixed by its rules")

    def describe_moment(self, observation: JSON) -> str:
        """Where the game stands, in the game's own words, for viewers' headings:
        "Turn 12" unless the game counts its time otherwise (seasons, rounds)."""
        turn = observation.get("turn")
        return f"Turn {turn}" if isinstance(turn, int) and turn > 0 else "Setup"

    def render_svg(self, observation: JSON) -> str | None:
        """The board as one self-contained SVG document, drawn from an observation (a
        seat's or a spectator's: the renderer shows exactly what the observation holds,
        never more); None if the game has no renderer (viewers then show the JSON)."""
        return None

    # -- shared ---------------------------------------------------------------------
    @property
    def default_variant(self) -> str:
        return self.variants[0].name

    def variant(self, name: str) -> VariantSpec:
        """The variant of that name; SetupError naming the variants if none."""
        for spec in self.variants:
            if spec.name == name:
                return spec
        raise SetupError(f"unknown {self.title or self.name} variant {name!r}; variants: "
                         f"{', '.join(v.name for v in self.variants)}")

    def default_options(self) -> JSON:
        return {spec.name: spec.default for spec in self.options}

    def check_setup(self, variant: str, num_seats: int, options: JSON | None) -> JSON:
        """The complete options of a new game, or SetupError saying what is wrong."""
        spec = self.variant(variant)
        if (isinstance(num_seats, bool) or not isinstance(num_seats, int)
                or not spec.min_seats <= num_seats <= spec.max_seats):
            raise SetupError(f"{self.title or self.name} {variant} takes {spec.min_seats}-"
                             f"{spec.max_seats} {self.seat_noun}, not {num_seats!r}")
        merged = self.default_options()
        ranges = {o.name: o for o in self.options}
        for name, value in (options or {}).items():
            option = ranges.get(name)
            if option is None:
                known = ", ".join(ranges) or "none"
                raise SetupError(f"unknown option {name!r} for {self.name}; options: {known}")
            if (isinstance(value, bool) or not isinstance(value, int)
                    or not option.minimum <= value <= option.maximum):
                raise SetupError(f"option {name} must be an integer from {option.minimum} "
                                 f"to {option.maximum} ({option.description}), not {value!r}")
            merged[name] = value
        return merged


#: Registry name -> the game. Filled by `register_game` as game packages are imported.
GAMES: dict[str, Game] = {}


def register_game(game: Game) -> Game:
    """Add a game to the registry (a game's package calls this once, on import)."""
    if not game.name or game.name != game.name.lower() or not game.name.isidentifier():
        raise ValueError(f"a game's name is a lower-case identifier, not {game.name!r}")
    known = GAMES.get(game.name)
    if known is not None and type(known) is not type(game):
        raise ValueError(f"a different game is already registered as {game.name!r}")
    if not game.variants:
        raise ValueError(f"game {game.name!r} declares no variant")
    GAMES[game.name] = game
    ARROW_VERBS.update(game.arrow_verbs)
    return game
