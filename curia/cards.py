"""`curia cards GAME`: a game's card set as JSON, for bots in languages whose standard
library reads JSON but not TOML (docs/bots.md, "The cards are data").

A game whose cards are data plays with a card set file in TOML (its packaged set, or the
file a host names in CURIA_<GAME>_CARDS); this prints the same data as one JSON object,
with the set's `name` and `digest` as the observation's `card_set` shows them, so a bot
can check that the data it carries is the game's.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tomllib
from typing import Any

from games import GAMES


def add_cards(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "cards", help="print a game's card set as JSON (for bots: docs/bots.md)",
        description="Print a game's card set (the TOML file the engine reads) as one JSON "
                    "object: {game, name, digest, cards}. `digest` is the observation's "
                    "card_set.digest. Without --file: the file CURIA_<GAME>_CARDS names, "
                    "else the set Curia ships.")
    parser.add_argument("game", choices=sorted(n for n, g in GAMES.items() if g.has_card_set),
                        help="a game whose cards are data (a card set file)")
    parser.add_argument("--file", help="a card set file to convert instead")
    parser.set_defaults(run=run_cards, parser=parser)


def run_cards(args: argparse.Namespace) -> int:
    try:
        text = GAMES[args.game].card_set_text(args.file)
    except (OSError, ValueError) as error:  # CardSetError is a ValueError
        print(f"curia cards: {error}", file=sys.stderr)
        return 1
    json.dump(cards_json(args.game, text), sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


def cards_json(game: str, text: str) -> dict[str, Any]:
    """The card set as JSON, named and digested as the engine does."""
    data = tomllib.loads(text)
    return {"game": game, "name": data.get("name"),
            "digest": hashlib.sha256(text.encode("utf-8")).hexdigest(), "cards": data}
