"""Game outcomes: one finished game's seating and finishing order (`GameOutcome`, its
JSON record), the pairwise results it gives, and the outcomes that count in index order.

Pure: no I/O and nothing beyond the standard library.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

JSON = dict[str, Any]


# ---------------------------------------------------------------------------------------
# Game outcomes
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameOutcome:
    """One finished arena game: a line of the arena's results file (JSON lines)."""

    index: int
    """Position in the tournament schedule; sequential ratings replay games in this order."""
    seed: int
    """Seed the game was played with."""
    seating: tuple[str, ...]
    """Bot name per seat."""
    ranking: tuple[tuple[int, ...], ...]
    """Groups of tied seats, best first; every seat appears exactly once (none in a void
    game)."""
    forfeits: tuple[int, ...] = ()
    """Seats that forfeited (time loss, crash, illegal decision); already ranked last
    (no seat that played on is ranked below one of them)."""
    reasons: dict[int, str] = field(default_factory=dict, hash=False)
    """Why a forfeited seat forfeited, for the seats that say (e.g. {1: "timeout"})."""
    reason: str = ""
    """Why the game ended (e.g. "target", "max_turns")."""
    decisions: int = 0
    """Decisions taken in the game."""
    turns: int | None = None
    """Turns played, when the game counts turns."""
    void: str | None = None
    """Why the game is void, or None: it never got going through the host's fault (a bot
    slow to start, the service away), so it has no result and counts in no rating."""
    attempts: int = 1
    """Games the arena started for this one: the ones before the last were void and
    played again."""
    deal: str = ""
    """The deal the game was dealt (`arena.schedule.ScheduledGame.deal`), shared by every
    rotation of its group: games of one deal share their cards, so they are one unit in
    the ratings' intervals (`deal_unit`). "" in records that do not say (written before
    the arena kept it): the seed then stands for the deal, every game of a deal having
    its seed."""

    def __post_init__(self) -> None:
        # Lists and seat keys as strings (JSON shapes) are accepted and normalised.
        object.__setattr__(self, "seating", tuple(self.seating))
        object.__setattr__(self, "ranking", tuple(tuple(group) for group in self.ranking))
        object.__setattr__(self, "forfeits", tuple(self.forfeits))
        object.__setattr__(self, "reasons", {int(k): v for k, v in self.reasons.items()})
        problem = _outcome_problem(self)
        if problem:
            raise ValueError(f"game {self.index}: {problem}")

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameOutcome:
        """Parse and validate one results-file record.

        Required: index, seed, seating, ranking. Optional: forfeits ([]), reasons ({},
        keyed by seat as a string), reason (""), decisions (0), turns (null), void (null),
        attempts (1), deal ("").
        Raises ValueError for a missing field, a wrong type or an inconsistent ranking.
        """
        missing = [key for key in ("index", "seed", "seating", "ranking") if key not in data]
        if missing:
            raise ValueError(f"game record lacks {', '.join(missing)}")
        try:
            return cls(
                index=_int(data["index"]), seed=_int(data["seed"]),
                seating=tuple(_str(name) for name in _list(data["seating"])),
                ranking=tuple(tuple(_int(s) for s in _list(group))
                              for group in _list(data["ranking"])),
                forfeits=tuple(_int(s) for s in _list(data.get("forfeits", []))),
                reasons={_int(int(k)): _str(v) for k, v in data.get("reasons", {}).items()},
                reason=_str(data.get("reason", "")), decisions=_int(data.get("decisions", 0)),
                turns=None if data.get("turns") is None else _int(data["turns"]),
                void=None if data.get("void") is None else _str(data["void"]),
                attempts=_int(data.get("attempts", 1)), deal=_str(data.get("deal", "")),
            )
        except (TypeError, AttributeError) as error:
            raise ValueError(f"malformed game record: {error}") from error

    def to_json(self) -> JSON:
        """The results-file record; `from_json(to_json())` gives back an equal outcome.
        `void`, `attempts` and `deal` are written only when they say something (a void
        game, a game played again, a named deal)."""
        data: JSON = {
            "index": self.index, "seed": self.seed, "seating": list(self.seating),
            "ranking": [list(group) for group in self.ranking],
            "forfeits": list(self.forfeits),
            "reasons": {str(seat): why for seat, why in sorted(self.reasons.items())},
            "reason": self.reason, "decisions": self.decisions, "turns": self.turns,
        }
        if self.void is not None:
            data["void"] = self.void
        if self.attempts != 1:
            data["attempts"] = self.attempts
        if self.deal:
            data["deal"] = self.deal
        return data

    @property
    def deal_unit(self) -> tuple[str, str]:
        """What identifies the game's deal: its name, or its seed when the record names
        none (every game of a deal is played with the deal's seed, `arena.deals`)."""
        return ("deal", self.deal) if self.deal else ("seed", str(self.seed))

    @property
    def seats(self) -> int:
        return len(self.seating)

    def places(self) -> list[int]:
        """Per seat, the index of its group in `ranking` (0 = best; tied seats share it)."""
        place = [0] * self.seats
        for group_index, group in enumerate(self.ranking):
            for seat in group:
                place[seat] = group_index
        return place

    def ranks(self) -> list[int]:
        """Per seat, its 1-based rank; tied seats share the better rank (1, 2, 2, 4)."""
        rank = [0] * self.seats
        next_rank = 1
        for group in self.ranking:
            for seat in group:
                rank[seat] = next_rank
            next_rank += len(group)
        return rank


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an integer, got {value!r}")
    return value


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError(f"expected a list, got {value!r}")
    return value


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {value!r}")
    return value


def _outcome_problem(game: GameOutcome) -> str | None:
    """What is inconsistent in a game outcome, or None."""
    seats = range(game.seats)
    ranked = sorted(seat for group in game.ranking for seat in group)
    if game.seats < 2:
        return "a game needs at least two seats"
    if game.attempts < 1:
        return f"attempts {game.attempts} is below 1"
    if game.void is not None:
        return ("a void game has no ranking, forfeits nor reasons"
                if game.ranking or game.forfeits or game.reasons else None)
    if ranked != list(seats) or not all(game.ranking):
        return f"ranking {game.ranking} is not a grouping of seats 0..{game.seats - 1}"
    if not set(game.forfeits) <= set(seats) or len(set(game.forfeits)) != len(game.forfeits):
        return f"forfeits {game.forfeits} are not distinct seats"
    place = game.places()
    kept = [place[s] for s in seats if s not in game.forfeits]
    if kept and game.forfeits and max(kept) > min(place[s] for s in game.forfeits):
        return "a seat that forfeited is ranked above one that did not"
    if not set(game.reasons) <= set(game.forfeits):
        return f"reasons given for seats that did not forfeit: {sorted(game.reasons)}"
    return None


# ---------------------------------------------------------------------------------------
# Pairwise results and helpers
# ---------------------------------------------------------------------------------------
PairResult = tuple[str, str, float]


def pairwise(outcome: GameOutcome) -> list[PairResult]:
    """The game as pairwise results `(a, b, score of a against b)`, one per pair of seats.

    Seat i before seat j in the finishing order scores 1, tied 0.5, behind 0; pairs are
    listed once, in seat order (i < j). Two seats played by the same bot are skipped; a
    void game has none.
    """
    if outcome.void is not None:
        return []
    place = outcome.places()
    return [(outcome.seating[i], outcome.seating[j], _pair_score(place[i], place[j]))
            for i, j in combinations(range(outcome.seats), 2)
            if outcome.seating[i] != outcome.seating[j]]


def _pair_score(place_a: int, place_b: int) -> float:
    return 1.0 if place_a < place_b else 0.5 if place_a == place_b else 0.0


def head_to_head(outcomes: Iterable[GameOutcome], a: str, b: str) -> tuple[int, int, int]:
    """(wins, draws, losses) of bot `a` against bot `b` over their pairwise results."""
    wins = draws = losses = 0
    for game in counted(outcomes):
        for first, second, score in pairwise(game):
            if {first, second} != {a, b}:
                continue
            score_of_a = score if first == a else 1 - score
            wins += score_of_a == 1
            draws += score_of_a == 0.5
            losses += score_of_a == 0
    return wins, draws, losses


def in_index_order(outcomes: Iterable[GameOutcome]) -> list[GameOutcome]:
    """The games sorted by their `index`."""
    return sorted(outcomes, key=lambda game: game.index)


def counted(outcomes: Iterable[GameOutcome]) -> list[GameOutcome]:
    """The games that count, in index order: every game but the void ones. Every rating,
    table and test reads only these."""
    return [game for game in in_index_order(outcomes) if game.void is None]
