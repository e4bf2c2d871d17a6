"""Who plays whom next in a league (pure: candidates and a random source in, a table out).

The bot with the fewest games is seated first (a newcomer is rated soonest); each further
seat goes to the free bot whose game with those seated says most about the ladder: the
outcome's variance p(1 - p) (largest for close ratings) times the width of the two
intervals (largest for bots with few games). One seat in ten (`EXPLORATION`) goes to a
free bot drawn at random instead, so that every pairing is tried. A table the same as one
of its bots' last table is not chosen while another one is possible. Seats are shuffled.
A candidate's rating comes from its stored ladder row (`service.league_records.LadderRow`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from service.league_records import LadderRow

#: The chance that a seat goes to a random free bot.
EXPLORATION = 0.1
#: The interval half-width assumed for a bot without a rating yet (Elo).
UNRATED_MARGIN = 400.0


@dataclass(frozen=True)
class Candidate:
    """A connected bot with a free slot."""

    bot: str
    elo: float = 1500.0
    margin: float = UNRATED_MARGIN
    games: int = 0
    last_table: frozenset[str] = frozenset()


def candidate(bot: str, row: LadderRow | None,
              last_table: frozenset[str] = frozenset()) -> Candidate:
    """A free bot as its ladder row (the rating history's last entry) rates it; a bot
    not on the ladder yet is weighed as a newcomer."""
    if row is None:
        return Candidate(bot, last_table=last_table)
    return Candidate(bot, row.elo, row.margin, row.games, last_table)


def win_chance(a: Candidate, b: Candidate) -> float:
    return 1.0 / (1.0 + 10 ** ((b.elo - a.elo) / 400.0))


def information(seated: Sequence[Candidate], candidate: Candidate) -> float:
    """How much a game of `candidate` against those seated says about the ladder."""
    total = 0.0
    for other in seated:
        p = win_chance(candidate, other)
        total += p * (1 - p) * (candidate.margin + other.margin)
    return total


def next_table(candidates: Sequence[Candidate], seats: int,
               rng: random.Random) -> tuple[str, ...] | None:
    """The bots of the next game, by seat; None if fewer than `seats` are free."""
    if len(candidates) < seats:
        return None
    tables = [_table(candidates, seats, rng) for _ in range(8)]
    fresh = [table for table in tables if not _repeats(table)]
    chosen = fresh[0] if fresh else (None if _other_table_possible(candidates, seats)
                                     else tables[0])
    if chosen is None:
        return None
    names = [candidate.bot for candidate in chosen]
    rng.shuffle(names)
    return tuple(names)


def _table(candidates: Sequence[Candidate], seats: int,
           rng: random.Random) -> list[Candidate]:
    first = min(candidates, key=lambda c: (c.games, rng.random()))
    table = [first]
    while len(table) < seats:
        rest = [c for c in candidates if c not in table]
        if rng.random() < EXPLORATION:
            table.append(rng.choice(rest))
        else:
            table.append(max(rest, key=lambda c: (information(table, c), rng.random())))
    return table


def _repeats(table: Sequence[Candidate]) -> bool:
    names = frozenset(candidate.bot for candidate in table)
    return any(candidate.last_table == names for candidate in table)


def _other_table_possible(candidates: Sequence[Candidate], seats: int) -> bool:
    """Whether some table of the free bots is no bot's last table (a league of exactly
    `seats` free bots has only one table: it is played again)."""
    return len(candidates) > seats or not _repeats(candidates)
