"""`curia replay RECORD.json -o replay.html`: a finished game's record (GetGameRecord's,
as `curia play --json` prints it or the arena keeps it in runs/NAME/games/) as a
self-contained page that steps through every version (service/web/replay.py)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from games.core import DecisionError, SetupError


def add_replay(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "replay", help="write a finished game's replay as a web page",
        description="Replay a game record with the engine and write one self-contained HTML "
                    "page (no external fetch; opens from file://) that steps through every "
                    "version: the board, each decision and its narration, whose turn, and "
                    "the recorded result.")
    parser.add_argument("record", help="a record file: runs/NAME/games/NNNNN.json, or what "
                                       "`curia play --service --json` prints")
    parser.add_argument("-o", "--output", help="the page (default: RECORD with .html)")
    parser.set_defaults(run=run_replay, parser=parser)


def run_replay(args: argparse.Namespace) -> int:
    from service.web.replay import load_record, replay_page

    source = Path(args.record)
    target = Path(args.output) if args.output else source.with_suffix(".html")
    try:
        page = replay_page(load_record(source))
    except OSError as error:
        args.parser.error(f"cannot read {source}: {error.strerror or error}")
    except (ValueError, DecisionError, SetupError) as error:
        args.parser.error(f"{source} cannot be replayed: {error}")
    target.write_text(page, encoding="utf-8")
    print(f"replay written to {target} (open {target.resolve().as_uri()})")
    return 0
