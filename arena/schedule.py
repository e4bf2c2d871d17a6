"""Which games a tournament plays: who sits where, with which seed. Pure.

Round-robin plays every combination of `seats` bots; gauntlet every combination that
includes the challenger. Each combination is played once per seat rotation, so every bot
sits in every seat position equally often, and all rotations of one combination and round
share one game seed (the same deck and draws from every seat, like paired openings in
chess). Game seeds derive from the tournament seed: the schedule is reproducible.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

from games.core import derive_seed


@dataclass(frozen=True)
class ScheduledGame:
    """One game of a tournament."""

    index: int
    seed: int
    seating: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {"index": self.index, "seed": self.seed, "seating": list(self.seating)}


def rotations(group: Sequence[str]) -> list[tuple[str, ...]]:
    """Every cyclic rotation of a seating."""
    return [tuple(group[r:]) + tuple(group[:r]) for r in range(len(group))]


def _games_of(groups: list[tuple[str, ...]], rounds: int, seed: int) -> list[ScheduledGame]:
    scheduled: list[ScheduledGame] = []
    for round_ in range(rounds):
        for number, group in enumerate(groups):
            game_seed = derive_seed(seed, "group", number, "round", round_)
            for seating in rotations(group):
                scheduled.append(ScheduledGame(len(scheduled), game_seed, seating))
    return scheduled


def round_robin(names: Sequence[str], seats: int, rounds: int,
                seed: int) -> list[ScheduledGame]:
    """Every combination of `seats` bots, every rotation, `rounds` times."""
    return _games_of(list(combinations(names, seats)), rounds, seed)


def gauntlet(challenger: str, field: Sequence[str], seats: int, rounds: int,
             seed: int) -> list[ScheduledGame]:
    """The challenger with every combination of `seats - 1` others, every rotation."""
    others = [name for name in field if name != challenger]
    groups = [(challenger, *rest) for rest in combinations(others, seats - 1)]
    return _games_of(groups, rounds, seed)


def sprt_games(a: str, b: str, field: Sequence[str], seats: int,
               seed: int) -> Iterator[ScheduledGame]:
    """An endless stream of games seating A and B (other seats from the field, in turn);
    the runner stops when the test decides."""
    fillers = [name for name in field if name not in (a, b)] or [b]
    index = 0
    for number in range(10**9):
        extra = tuple(fillers[(number + k) % len(fillers)] for k in range(seats - 2))
        game_seed = derive_seed(seed, "sprt", number)
        for seating in rotations((a, b, *extra)):
            yield ScheduledGame(index, game_seed, seating)
            index += 1
