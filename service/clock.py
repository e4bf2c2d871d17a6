"""Time limits per seat: decision deadlines and time banks (pure functions, no I/O).

A clock is JSON kept with the game: `bank` (each seat's thinking time left, or None),
`since` (when the current version began) and `started` (seat -> when that seat began to
be asked). Several seats may be asked at once (secret simultaneous choices): each has its
own deadline, counted from when it was first asked, and keeps it while the others
decide. The game's deadline, which the timeout sweep files, is the earliest of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Clock = dict[str, Any]


def new_clock(meta: dict[str, Any], now: int) -> Clock:
    bank = meta.get("bank_ms", 0)
    return {"bank": [bank] * meta["num_seats"] if bank else None, "since": now, "started": {}}


def asked_since(clock: Clock, seat: int) -> int:
    """When `seat` began to be asked (clocks written before per-seat starts: `since`)."""
    return int(clock.get("started", {}).get(str(seat), clock["since"]))


def start_movers(clock: Clock, movers: Sequence[int], now: int,
                 decided: int | None = None) -> Clock:
    """The clock of a new version: movers still asked keep their start, others start now."""
    before = clock.get("started", {})
    started = {str(m): before[str(m)] if str(m) in before and m != decided else now
               for m in movers}
    return {"bank": clock.get("bank"), "since": now, "started": started}


def charge(clock: Clock, seat: int | None, now: int, movers: Sequence[int]) -> Clock:
    """The clock after `seat` decided at `now` (None: nobody is charged); `movers` are
    the seats asked next."""
    bank = clock.get("bank")
    if bank and seat is not None:
        bank = list(bank)
        bank[seat] -= now - asked_since(clock, seat)
    return start_movers({**clock, "bank": bank}, movers, now, decided=seat)


def seat_deadline(meta: dict[str, Any], clock: Clock, seat: int) -> int:
    """When `seat`'s decision times out: the sooner of decision_ms and its bank (0: never)."""
    limits = [meta["decision_ms"]] if meta["decision_ms"] else []
    if clock.get("bank"):
        limits.append(max(0, clock["bank"][seat]))
    return asked_since(clock, seat) + min(limits) if limits else 0


def game_deadline(meta: dict[str, Any], clock: Clock, movers: Sequence[int]) -> int:
    """The earliest deadline among the movers (0: none)."""
    deadlines = [d for d in (seat_deadline(meta, clock, m) for m in movers) if d]
    return min(deadlines) if deadlines else 0


def due_seat(meta: dict[str, Any], clock: Clock, movers: Sequence[int]) -> int:
    """The mover whose deadline comes first (the one the timeout sweep decides for)."""
    return min(movers, key=lambda m: (seat_deadline(meta, clock, m) or 2**62, m))


def viewer_deadline(meta: dict[str, Any], clock: Clock, movers: Sequence[int],
                    seat: int | None) -> int:
    """The deadline a viewer is shown: its own when it is asked, else the game's."""
    if seat is not None and seat in movers:
        return seat_deadline(meta, clock, seat)
    return game_deadline(meta, clock, movers)


def bank_left(clock: Clock, seat: int | None, movers: Sequence[int], now: int) -> int | None:
    if seat is None or not clock.get("bank"):
        return None
    left = int(clock["bank"][seat])
    return left - (now - asked_since(clock, seat)) if seat in movers else left
