"""The one place a game turns into what a viewer may see (boardgame.io's playerView).

Nothing reaches a client without passing through `build_view`: a seat gets its own
observation and, when it must decide, its own legal decisions; a spectator gets the
spectator observation. Tokens, the seed and the engine's full state never appear here.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import orjson

from curia_api import codec
from curia_api.v1 import game_service_pb2 as pb
from games import GAMES
from games.core import Decision, GameState

STATUS = {
    "waiting": pb.GAME_STATUS_WAITING_FOR_SEATS,
    "in_progress": pb.GAME_STATUS_IN_PROGRESS,
    "finished": pb.GAME_STATUS_FINISHED,
}


#: What each ObservationEncoding asks for: (typed, JSON).
ENCODINGS: dict[int, tuple[bool, bool]] = {
    pb.OBSERVATION_ENCODING_UNSPECIFIED: (True, True),
    pb.OBSERVATION_ENCODING_TYPED: (True, False),
    pb.OBSERVATION_ENCODING_JSON: (False, True),
    pb.OBSERVATION_ENCODING_NONE: (False, False)}


class EncodedObservation:
    """One observation: its JSON text at once (a snapshot: the state may change after),
    the typed message built from it when first asked for."""

    def __init__(self, game: str, observation: dict[str, object]) -> None:
        self.game = game
        self.text = orjson.dumps(observation, option=orjson.OPT_SORT_KEYS).decode()
        self._typed: pb.Observation | None = None

    def typed(self) -> pb.Observation:
        if self._typed is None:
            self._typed = codec.observation_to_proto(self.game, orjson.loads(self.text))
        return self._typed

    def json(self) -> str:
        return self.text

    def svg(self) -> str:
        """The observation drawn by its game (empty for a game without a drawing). Drawn
        each time, not kept: some 45 KB each, the cache's 8192 entries would hold
        hundreds of MB of drawings, and a seat's page asks once per version."""
        descriptor = GAMES.get(self.game)
        if descriptor is None:
            return ""
        return descriptor.render_svg(orjson.loads(self.text)) or ""


class ObservationCache:
    """Observations by (game id, version, lineage, seat): the state of a version of one
    history never changes, so an entry never goes stale and needs no invalidation (after
    the store rolls back, the same version has another lineage)."""

    def __init__(self, size: int = 8192) -> None:
        self.size = size
        self.entries: OrderedDict[tuple[str, int, str, int | None], EncodedObservation]
        self.entries = OrderedDict()

    def encoded(self, game_id: str, version: int, lineage: str, state: GameState,
                seat: int | None) -> EncodedObservation:
        key = (game_id, version, lineage, seat)
        found = self.entries.get(key)
        if found is None:
            found = EncodedObservation(state.game, state.observation(seat))
            self.entries[key] = found
            if len(self.entries) > self.size:
                self.entries.popitem(last=False)
        return found


OBSERVATIONS = ObservationCache()


class DecisionMessages:
    """The contract's message of each engine decision seen, by (game, decision): a view
    lists every legal decision, and the same ones come back view after view. Messages
    handed out are shared: copy them (RepeatedCompositeContainer.extend does)."""

    def __init__(self, size: int = 65_536) -> None:
        self.size = size
        self.entries: dict[tuple[str, Decision], pb.Decision] = {}

    def encoded(self, game: str, decision: Decision) -> pb.Decision:
        key = (game, decision)
        found = self.entries.get(key)
        if found is None:
            if len(self.entries) >= self.size:
                self.entries.clear()  # a whole vocabulary is far smaller: a rare reset
            found = self.entries[key] = codec.decision_to_proto(game, decision)
        return found


DECISIONS = DecisionMessages()


def build_view(game_id: str, meta: dict[str, Any], state: GameState, version: int,
               status: str, seat: int | None, deadline: int, forfeits: dict[int, str],
               bank_left: int | None = None, ended: str = "",
               encoding: int = pb.OBSERVATION_ENCODING_UNSPECIFIED,
               absent: Sequence[int] = (), lineage: str = "", drawn: bool = False
               ) -> pb.View:
    """The view of `seat` (None: a spectator) of a game at `version` (of `lineage`);
    `ended` says why a game ended without the engine's result (e.g. abandoned);
    `encoding` which encodings of the observation it carries (an ObservationEncoding);
    `absent` the seats a waiting game waits for; `drawn`: with the observation drawn
    (`View.board_svg`)."""
    view = pb.View(
        game_id=game_id, version=version, status=STATUS[status],
        to_move=list(state.to_move()) if status == "in_progress" else [],
        pending=_pending(state, status, ended, meta),
        deadline_unix_ms=deadline if status == "in_progress" else 0,
        game=state.game, variant=state.variant, seat_names=meta["seat_names"],
        forfeited_seats=sorted(forfeits), turn=state.turn_number(),
        absent_seats=list(absent) if status == "waiting" else [], lineage=lineage,
        players=meta.get("players", []),
    )
    if encoding != pb.OBSERVATION_ENCODING_NONE or drawn:
        encoded = OBSERVATIONS.encoded(game_id, version, lineage, state, seat)
        if encoding != pb.OBSERVATION_ENCODING_NONE:
            _add_observation(view, encoded, encoding)
        if drawn:
            view.board_svg = encoded.svg()
    if bank_left is not None:
        view.bank_left_ms = bank_left
    if seat is not None:
        view.seat = seat
        if status == "in_progress" and seat in state.to_move():
            view.legal_decisions.extend(DECISIONS.encoded(state.game, d)
                                        for d in state.legal_decisions(seat))
    result = state.result()
    if result is not None:
        view.result.CopyFrom(codec.result_to_proto(result, set(forfeits)))
    elif ended and status == "finished":
        view.result.CopyFrom(ended_result(len(meta["seat_names"]), forfeits, ended))
    for score in view.result.scores:
        score.forfeit_reason = forfeits.get(score.seat, "")
    return view


def _add_observation(view: pb.View, encoded: EncodedObservation, encoding: int) -> None:
    """The observation in the encodings asked for (a game without typed messages gets
    JSON when typed is asked)."""
    typed, text = ENCODINGS.get(encoding, (True, True))
    if typed:
        view.observation.CopyFrom(encoded.typed())
        text = text or encoded.typed().WhichOneof("game") is None
    if text:
        view.observation_json = encoded.json()


def _pending(state: GameState, status: str, ended: str, meta: dict[str, Any]) -> str:
    if status == "waiting" and meta.get("wait_for_players"):
        return "waiting for every seat to make contact"
    if status == "waiting":
        return "waiting for open seats to be joined"
    if ended and status == "finished":
        return f"the game ended without a result ({ended})"
    return state.describe_pending()


def ended_result(seats: int, forfeits: dict[int, str], reason: str) -> pb.GameResult:
    """The result of a game ended by the server before the rules ended it: no winner;
    the seats that had not forfeited share the first rank, the others the last."""
    playing = [s for s in range(seats) if s not in forfeits]
    gone = [s for s in range(seats) if s in forfeits]
    groups = [group for group in (playing, gone) if group]
    rank = {seat: 1 + sum(len(g) for g in groups[:i])
            for i, group in enumerate(groups) for seat in group}
    return pb.GameResult(ranking=[pb.RankGroup(seats=g) for g in groups], reason=reason,
                         scores=[pb.SeatScore(seat=s, rank=rank[s], forfeited=s in forfeits)
                                 for s in range(seats)])
