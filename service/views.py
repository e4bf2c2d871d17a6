"""The one place a game turns into what a viewer may see (boardgame.io's playerView).

Nothing reaches a client without passing through `build_view`: a seat gets its own
observation and, when it must decide, its own legal decisions; a spectator gets the
spectator observation. Tokens, the seed and the engine's full state never appear here.
"""

from __future__ import annotations

import json
from typing import Any

from curia.v1 import game_service_pb2 as pb
from games.core import GameState
from service import codec

STATUS = {
    "waiting": pb.GAME_STATUS_WAITING_FOR_SEATS,
    "in_progress": pb.GAME_STATUS_IN_PROGRESS,
    "finished": pb.GAME_STATUS_FINISHED,
}


def build_view(game_id: str, meta: dict[str, Any], state: GameState, version: int,
               status: str, seat: int | None, deadline: int, forfeits: dict[int, str],
               bank_left: int | None = None) -> pb.View:
    """The view of `seat` (None: a spectator) of a game at `version`."""
    observation = state.observation(seat)
    view = pb.View(
        game_id=game_id, version=version, status=STATUS[status],
        to_move=list(state.to_move()) if status == "in_progress" else [],
        observation=codec.observation_to_proto(state.game, observation),
        observation_json=json.dumps(observation, sort_keys=True, separators=(",", ":")),
        pending=state.describe_pending() if status != "waiting" else
        "waiting for open seats to be joined",
        deadline_unix_ms=deadline if status == "in_progress" else 0,
        game=state.game, variant=state.variant, seat_names=meta["seat_names"],
        forfeited_seats=sorted(forfeits),
    )
    if bank_left is not None:
        view.bank_left_ms = bank_left
    if seat is not None:
        view.seat = seat
        if status == "in_progress" and seat in state.to_move():
            view.legal_decisions.extend(codec.decision_to_proto(state.game, d)
                                        for d in state.legal_decisions(seat))
    result = state.result()
    if result is not None:
        view.result.CopyFrom(codec.result_to_proto(result, set(forfeits)))
        for score in view.result.scores:
            score.forfeit_reason = forfeits.get(score.seat, "")
    return view
