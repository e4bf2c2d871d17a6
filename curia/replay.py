"""`curia replay RECORD.json -o replay.html`: a finished game's record (GetGameRecord's,
as `curia play --service --json` prints it or the arena keeps it in runs/NAME/games/; or
what `curia play --json` prints for a game played in this process) as a self-contained
page that steps through every version (service/web/replay.py)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from curia_api.v1 import game_service_pb2 as pb
from games import new_game
from games.core import DecisionError, SetupError


def add_replay(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "replay", help="write a finished game's replay as a web page",
        description="Replay a game record with the engine and write one self-contained HTML "
                    "page (no external fetch; opens from file://) that steps through every "
                    "version: the board, each decision and its narration, whose turn, and "
                    "the recorded result.")
    parser.add_argument("record", help="a record file: runs/NAME/games/NNNNN.json, or what "
                                       "`curia play --json` (or `--service --json`) prints")
    parser.add_argument("-o", "--output", help="the page (default: RECORD with .html)")
    parser.set_defaults(run=run_replay, parser=parser)


def run_replay(args: argparse.Namespace) -> int:
    from service.web.replay import LoadedRecord, load_record, replay_page

    source = Path(args.record)
    target = Path(args.output) if args.output else source.with_suffix(".html")
    try:
        local = local_record(source)
        page = replay_page(LoadedRecord(*local) if local else load_record(source))
    except OSError as error:
        args.parser.error(f"cannot read {source}: {error.strerror or error}")
    except (ValueError, DecisionError, SetupError) as error:
        args.parser.error(f"{source} cannot be replayed: {error}")
    target.write_text(page, encoding="utf-8")
    print(f"replay written to {target} (open {target.resolve().as_uri()})")
    return 0


def local_record(path: Path) -> tuple[pb.GameRecord, tuple[str, ...]] | None:
    """What `curia play --json` prints (a game played in this process: its decisions
    without seats) as the contract's GameRecord and the bots seated, each decision's seat
    found by replaying as the game was played (`arena.local.next_seat`); None for any
    other file."""
    from arena.local import next_seat  # (the command's layer: arena's rule of play)
    from curia_api import codec

    data = json.loads(path.read_text(encoding="utf-8"))
    if not (isinstance(data, dict) and isinstance(data.get("seats"), list)
            and "final_state_sha256" in data):
        return None
    state = new_game(data["game"], data["variant"], len(data["seats"]),
                     dict(data["options"]), data["seed"])
    record = pb.GameRecord(game=data["game"], variant=data["variant"],
                           num_seats=len(data["seats"]), options=data["options"],
                           seed=data["seed"], seat_names=state.seat_names())
    for version, text in enumerate(data["decisions"], start=1):
        seat = next_seat(state)
        state.apply(seat, text)
        record.decisions.add(version=version, seat=seat, notation=text,
                             cause=pb.DECISION_CAUSE_SEAT)
    result = state.result()
    if result is not None:
        record.result.CopyFrom(codec.result_to_proto(result, set()))
    return record, tuple(str(name) for name in data["seats"])
