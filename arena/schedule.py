"""Which games a tournament plays: who sits where, dealt which cards. Pure, and public.

Round-robin plays every combination of `seats` bots; gauntlet every combination that
includes the challenger. Each combination is played once per seat rotation, so every bot
sits in every seat position equally often, and all rotations of one combination and round
share one deal (the same deck and draws from every seat, like paired openings in chess).
The schedule names each deal from the tournament seed (`ScheduledGame.deal`); the cards
themselves come from the host's secret deal key (`arena.deals`), so nothing here lets
anyone compute a game's seed.

Order (fair at every moment): each round is played in passes, one per seat rotation;
a pass plays every combination once, in an order that spreads each bot's games evenly
(`spread_order`: next comes the combination whose bots have played the fewest games so
far). Every pass is complete and balanced on its own, so a tournament stopped or watched
at any point has given every bot about its share of games.
"""

from __future__ import annotations

import dataclasses
import heapq
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

SCHEDULE_VERSION = 3
"""Bumped when the same config would give other games at the same indices (2: passes in
spread order; 3: an SPRT deal seats (B, A, …) too, `sprt_deal`); part of a run folder's
fingerprint, so a folder of another version is not resumed."""


@dataclass(frozen=True)
class ScheduledGame:
    """One game of a tournament. `deal` names its cards (games sharing it are dealt the
    same); `seed` is the secret seed the runner gives that deal (`dealt`), 0 until then."""

    index: int
    seed: int
    seating: tuple[str, ...]
    deal: str = ""

    def dealt(self, seed: int) -> ScheduledGame:
        """This game with its deal's seed."""
        return dataclasses.replace(self, seed=seed)

    def to_json(self) -> dict[str, object]:
        return {"index": self.index, "seed": self.seed, "seating": list(self.seating),
                "deal": self.deal}


def rotations(group: Sequence[str]) -> list[tuple[str, ...]]:
    """Every cyclic rotation of a seating."""
    return [tuple(group[r:]) + tuple(group[:r]) for r in range(len(group))]


def spread_order(groups: Sequence[Sequence[str]]) -> list[int]:
    """The groups' positions in playing order: each next group is the one whose bots have
    played the fewest games so far (sum over its bots), ties to the earlier position.

    Greedy with a lazy heap: a group's key only grows as its bots play, so a popped group
    whose key is still current is the true minimum. Remembered per list of groups (a
    large round-robin, 4,368 groups of 5 of 16 bots, takes seconds).
    """
    return list(_spread_order(tuple(tuple(group) for group in groups)))


@lru_cache(maxsize=16)
def _spread_order(groups: tuple[tuple[str, ...], ...]) -> tuple[int, ...]:
    played: dict[str, int] = {}
    heap = [(0, position) for position in range(len(groups))]
    order: list[int] = []
    while heap:
        key, position = heapq.heappop(heap)
        current = sum(played.get(name, 0) for name in groups[position])
        if current != key:
            heapq.heappush(heap, (current, position))
            continue
        order.append(position)
        for name in groups[position]:
            played[name] = played.get(name, 0) + 1
    return tuple(order)


def _games_of(groups: list[tuple[str, ...]], rounds: int, seed: int) -> list[ScheduledGame]:
    order = spread_order(groups)
    seats = len(groups[0]) if groups else 0
    scheduled: list[ScheduledGame] = []
    for round_ in range(rounds):
        for rotation in range(seats):
            for number in order:
                deal = f"seed {seed} round {round_} group {number}"
                seating = rotations(groups[number])[rotation]
                scheduled.append(ScheduledGame(len(scheduled), 0, seating, deal))
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


def sprt_deal(a: str, b: str, extra: Sequence[str]) -> list[tuple[str, ...]]:
    """The seatings of one SPRT deal: every rotation of (A, B, extra…), then every rotation
    of (B, A, extra…) not among them. Each game has its mirror, A and B swapped, under the
    same deal, so B sits right after A as often as right before it. When every extra seat
    is B (or there is none) the mirrored rotations are the same seatings: `seats` games,
    else 2 × seats (`ratings.sprt.deal_games`)."""
    seatings = rotations((a, b, *extra))
    return seatings + [s for s in rotations((b, a, *extra)) if s not in seatings]


def sprt_games(a: str, b: str, field: Sequence[str], seats: int,
               seed: int) -> Iterator[ScheduledGame]:
    """An endless stream of games seating A and B (other seats from the field, in turn,
    or more copies of B when the field is only A and B); the runner stops when the test
    decides. Deal after deal, each deal's seatings (`sprt_deal`) at consecutive indices:
    the unit the test reads (ratings.sprt)."""
    fillers = [name for name in field if name not in (a, b)] or [b]
    index = 0
    for number in range(10**9):
        extra = tuple(fillers[(number + k) % len(fillers)] for k in range(seats - 2))
        for seating in sprt_deal(a, b, extra):
            yield ScheduledGame(index, 0, seating, f"seed {seed} sprt {number}")
            index += 1
