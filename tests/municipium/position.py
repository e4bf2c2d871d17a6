"""The scenario tests' positions: `games.municipium.position`, re-exported (read its
docstring for the builder, the description format and the helpers)."""

from games.municipium.position import (
    Position,
    assert_consistent,
    at,
    cards_in_play,
    citizens_at,
    citizens_in_hand,
    held,
    inconsistencies,
    legal,
    mover,
    of_kind,
    play,
    position_from_text,
    room,
    start_power,
    step,
    temple_order,
)

#: The former name of `start_power`.
use_power = start_power

__all__ = [
    "Position", "assert_consistent", "at", "cards_in_play", "citizens_at", "citizens_in_hand",
    "held", "inconsistencies", "legal", "mover", "of_kind", "play", "position_from_text",
    "room", "start_power", "step", "temple_order", "use_power",
]
