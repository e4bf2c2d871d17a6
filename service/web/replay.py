"""A finished game's replay page, from its record (what GetGameRecord returns, as the arena
stores it in runs/NAME/games/NNNNN.json): the record is replayed with the engine
(`games.new_game` + `apply`, deterministic), one frame per version with the spectator's
observation; the last frame adds the recorded result and, the game being over, what each
seat saw."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from google.protobuf.json_format import ParseDict, ParseError

from curia_api.render import final_of_view
from curia_api.v1 import game_service_pb2 as pb
from games import GAMES, GameState, new_game
from service.web.frames import (
    Frame,
    board,
    cause_word,
    decision_text,
    final_lines,
    frame,
    narration,
)
from service.web.page import viewer_page


@dataclass(frozen=True)
class LoadedRecord:
    """A game record and, when the file says so, who played each seat."""

    record: pb.GameRecord
    players: tuple[str, ...] = ()
    index: int | None = None


def load_record(path: Path) -> LoadedRecord:
    """A record file: the arena's {"schedule", "record"}, a GetGameRecord response
    {"record"}, or a bare GameRecord, as protobuf JSON. ValueError if it is none."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a game record (expected a JSON object)")
    body = data.get("record", data)
    try:
        record = ParseDict(body, pb.GameRecord(), ignore_unknown_fields=True)
    except ParseError as error:
        raise ValueError(f"{path}: not a game record ({error}); records are what `curia "
                         f"play --json` or `curia play --service --json` prints, or the "
                         f"arena's runs/NAME/games/NNNNN.json files") from error
    if not record.game or record.game not in GAMES:
        raise ValueError(f"{path}: not a record of a known game ({record.game or 'no game'})")
    schedule = data.get("schedule") or {}
    players = tuple(str(name) for name in schedule.get("seating", ())) or \
        tuple(record.players)
    index = schedule.get("index")
    return LoadedRecord(record, players, index if isinstance(index, int) else None)


def replay_frames(loaded: LoadedRecord) -> list[Frame]:
    """Every version of the game, replayed; the last one carries the recorded result."""
    record = loaded.record
    state = new_game(record.game, record.variant, record.num_seats, dict(record.options),
                     record.seed)
    names = list(record.seat_names) or state.seat_names()
    frames = [_state_frame(state, names, 0, "",
                           narration(record.game, _public(state.events), None))]
    for entry in record.decisions:
        decision = state.parse(entry.notation)
        events = state.apply(entry.seat, decision)
        text = decision_text(names, entry.seat, entry.notation, cause_word(entry.cause))
        frames.append(_state_frame(state, names, entry.version or len(frames), text,
                                   narration(record.game, _public(events), decision)))
    frames[-1]["result"] = final_lines(_final(record, frames[-1]["version"], state.turn_number(),
                                              loaded.players))
    frames[-1]["hidden"] = _seat_views(state, names)
    return frames


def _state_frame(state: GameState, names: list[str], version: int, text: str,
                 lines: list[str]) -> Frame:
    return frame(version=version, turn=state.turn_number(), game=state.game,
                 observation=state.observation(None), decision=text, lines=lines,
                 to_move=[names[s] for s in state.to_move()],
                 pending=state.describe_pending())


def _public(events: list[Any]) -> list[Any]:
    return [event for event in events if event.visible_to(None)]


def _final(record: pb.GameRecord, version: int, turn: int, players: tuple[str, ...]
           ) -> Any:
    """The recorded result (forfeits included) as the CLI prints it."""
    view = pb.View(game=record.game, variant=record.variant, version=version, turn=turn,
                   seat_names=record.seat_names, result=record.result)
    return final_of_view(view, options=dict(record.options), players=players)


def _seat_views(state: GameState, names: list[str]) -> list[dict[str, Any]]:
    """What each seat saw at the end (the game is over: nothing is secret any more); only
    for games where seats see more than a spectator."""
    descriptor = GAMES.get(state.game)
    if descriptor is None or not descriptor.private_information:
        return []
    return [{"name": names[seat], **board(state.game, state.observation(seat))}
            for seat in range(state.num_seats)]


def replay_title(loaded: LoadedRecord) -> tuple[str, str]:
    """The page's title and subtitle: game, variant, seats and players, seed."""
    record = loaded.record
    title = GAMES[record.game].title or record.game
    number = f"game {loaded.index}: " if loaded.index is not None else ""
    seated = ", ".join(f"{name}={player}" for name, player in
                       zip(record.seat_names, loaded.players, strict=False))
    subtitle = (f"{record.variant}, {record.num_seats} seats"
                f"{': ' + seated if seated else ''}; seed {record.seed}; "
                f"{len(record.decisions)} decisions")
    return f"{title} — {number}replay", subtitle


def replay_page(loaded: LoadedRecord, back_link: str | None = None) -> str:
    """The whole replay page of a finished game."""
    title, subtitle = replay_title(loaded)
    extra = (f'<p><a href="{html.escape(back_link)}">&larr; back to the tournament</a></p>'
             if back_link else "")
    return viewer_page(title, replay_frames(loaded), subtitle=subtitle, extra_html=extra)
