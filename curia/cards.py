"""`curia cards GAME`: a game's card set as JSON, for bots in languages whose standard
library reads JSON but not TOML (docs/bots.md, "The cards are data").

The card set file is TOML (games/<game>/cards.toml, or the file a host names in
CURIA_<GAME>_CARDS); this prints the same data as one JSON object, with the set's
`name` and `digest` as the observation's `card_set` shows them, so a bot can check
that the data it carries is the game's.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import sys
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

#: The games whose cards are data: the package that holds the set and its reader.
CARD_GAMES = {"ciceron": "games.ciceron.cardset", "leges": "games.leges.cardset"}


def add_cards(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "cards", help="print a game's card set as JSON (for bots: docs/bots.md)",
        description="Print a game's card set (the TOML file the engine reads) as one JSON "
                    "object: {game, name, digest, cards}. `digest` is the observation's "
                    "card_set.digest. Without --file: the file CURIA_<GAME>_CARDS names, "
                    "else the set Curia ships.")
    parser.add_argument("game", choices=sorted(CARD_GAMES),
                        help="a game whose cards are data (Municipium's are fixed by its rules)")
    parser.add_argument("--file", help="a card set file to convert instead")
    parser.set_defaults(run=run_cards, parser=parser)


def run_cards(args: argparse.Namespace) -> int:
    module = importlib.import_module(CARD_GAMES[args.game])
    try:
        text = card_text(args.game, module, args.file)
        module.parse_card_set(text)  # the engine's own checks: refuse what it would
    except (OSError, ValueError) as error:
        print(f"curia cards: {error}", file=sys.stderr)
        return 1
    json.dump(cards_json(args.game, text), sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


def card_text(game: str, module: Any, named: str | None) -> str:
    """The text of the card set file: `named`, the host's choice, or the packaged set."""
    path = named or os.environ.get(module.CARDS_ENV, "").strip()
    if path:
        return Path(path).read_text(encoding="utf-8")
    return resources.files(module.__package__).joinpath(module.DEFAULT_CARDS) \
        .read_text(encoding="utf-8")


def cards_json(game: str, text: str) -> dict[str, Any]:
    """The card set as JSON, named and digested as the engine does."""
    data = tomllib.loads(text)
    return {"game": game, "name": data.get("name"),
            "digest": hashlib.sha256(text.encode("utf-8")).hexdigest(), "cards": data}
