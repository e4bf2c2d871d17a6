"""The frames the viewer steps through, one per version: the board (the game's own SVG
renderer, or the observation as data until that game has one), the decision that made
the version and its narration, whose turn, and the final result once over.

Frames come from a replayed record (`service.web.replay`) or from a spectator's
WatchGame stream (`service.web.events`); both say things with the game's own
sentences (`Game.describe_event`, `Game.describe_end`) and the CLI's result lines.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from typing import Any

from curia_api.render import FinalResult, final_of_view, result_lines
from curia_api.v1 import game_service_pb2 as pb
from games import GAMES, Decision, Event
from games.core import JSON, parse_notation

log = logging.getLogger(__name__)

Frame = dict[str, Any]


def board(game: str, observation: JSON) -> dict[str, str | None]:
    """{"svg": the game's drawing} or, without a renderer, {"fallback": the pending text
    and the observation as JSON}."""
    descriptor = GAMES.get(game)
    svg = None
    if descriptor is not None:
        try:
            svg = descriptor.render_svg(observation)
        except Exception:  # a renderer's bug must not take the page down
            log.exception("render_svg failed for %s", game)
    if svg:
        return {"svg": svg, "fallback": None}
    pending = observation.get("pending")
    head = f"{pending}\n\n" if isinstance(pending, str) and pending else ""
    return {"svg": None, "fallback": head + json.dumps(observation, indent=1)}


def moment(game: str, observation: JSON, turn: int) -> str:
    """The heading of a frame: where the game stands, in the game's words."""
    descriptor = GAMES.get(game)
    if descriptor is None or not observation:
        return f"Turn {turn}"
    return descriptor.describe_moment(observation)


def narration(game: str, events: Iterable[Event], decision: Decision | None) -> list[str]:
    """The game's sentence for each event that has one."""
    descriptor = GAMES.get(game)
    lines = []
    for event in events:
        text = (descriptor.describe_event(event, decision) if descriptor is not None
                else event.kind)
        if text:
            lines.append(text)
    return lines


def decision_text(seat_names: Sequence[str], seat: int, notation: str, cause: str) -> str:
    """"blue: move baths>emporium", with why the server took it when it did."""
    name = seat_names[seat] if seat < len(seat_names) else f"seat {seat}"
    note = "" if cause in ("", "seat") else f" ({cause})"
    return f"{name}: {notation}{note}"


def cause_word(cause: int) -> str:
    """DECISION_CAUSE_TIMEOUT -> "timeout"."""
    return str(pb.DecisionCause.Name(cause)).split("_")[-1].lower()


def frame(*, version: int, turn: int, game: str, observation: JSON, decision: str,
          lines: list[str], to_move: list[str], pending: str,
          result: list[str] | None = None) -> Frame:
    """One frame, as viewer.js reads it."""
    return {"version": version, "turn": turn, "moment": moment(game, observation, turn),
            **board(game, observation), "decision": decision,
            "narration": lines, "to_move": to_move, "pending": pending, "result": result}


def final_lines(final: FinalResult | None) -> list[str] | None:
    """The CLI's result lines (end sentence, ranking with figures, length), each forfeit
    with its reason, or None."""
    return result_lines(final, reasons=True) if final is not None else None


# ---------------------------------------------------------------------------------------
# Live: a spectator's WatchGame stream
# ---------------------------------------------------------------------------------------
def live_frame(update: pb.WatchGameResponse) -> Frame:
    """The frame of one WatchGame message seen by a spectator (never more than it holds:
    a secret decision stays "(a secret decision)")."""
    view = update.view
    names = list(view.seat_names)
    observation: JSON = json.loads(view.observation_json) if view.observation_json else {}
    text, lines = "", []
    if update.HasField("decision"):
        recorded = update.decision
        shown = "(a secret decision)" if recorded.secret else recorded.notation
        text = decision_text(names, recorded.seat, shown, cause_word(recorded.cause))
        decision = None if recorded.secret else parse_notation(recorded.notation)
        events = [Event(e.kind, json.loads(e.data_json)) for e in update.events]
        lines = narration(view.game, events, decision)
    options = observation.get("options")
    final = final_of_view(view, options=options if isinstance(options, dict) else {},
                          players=list(view.players))
    return frame(version=view.version, turn=view.turn, game=view.game,
                 observation=observation, decision=text, lines=lines,
                 to_move=[names[s] for s in view.to_move if s < len(names)],
                 pending=view.pending, result=final_lines(final))

