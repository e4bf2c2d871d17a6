"""Small helpers for the Leges scenario tests (positions come from games.leges.position)."""

from __future__ import annotations

from games.leges.position import play, step
from games.leges.state import LegesState


def pass_exchanges(st: LegesState) -> None:
    """Every seat passes its Theme exchange (the step must be `exchange`)."""
    while step(st) == "exchange":
        play(st, "pass")


def finish_round(st: LegesState) -> None:
    """No Law requested, every exchange passed: on to the next round."""
    if step(st) == "laws":
        play(st, *(f"{seat}: nolaw" for seat in st.to_move()))
    pass_exchanges(st)


def choose(st: LegesState, **cards: str) -> None:
    """Each seat (`s0`, `s1`, ...) plays its card face down."""
    play(st, *(f"{seat[1:]}: play {card}" for seat, card in cards.items()))


def points(st: LegesState, seat: int) -> dict[str, int]:
    return dict(st.players[seat]["points"])
