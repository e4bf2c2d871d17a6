#!/usr/bin/env python3
"""starter-python: a Curia bot to copy and make your own (docs/bots.md, "stdio bots").

The arena's stdio bridge talks to the game server for us. It writes one JSON message per
line on our stdin; for each {"type": "decide", ...} we print one line, one of the strings
in message["legal"], and flush. {"type": "end", ...} (or the end of stdin) ends the game.
stdout is for answers only: log to stderr. Standard library only.

Your logic goes in `choose` below. Everything else is plumbing you can keep as it is.
"""

from __future__ import annotations

import json
import os
import random
import sys
from typing import Any

# Seed every random choice from CURIA_BOT_SEED (an integer, up to 63 bits): the same seed
# gives the same game, which makes a bug you saw once easy to see again.
SEED = int(os.environ.get("CURIA_BOT_SEED", "0"))
rng = random.Random(SEED)


def log(*words: Any) -> None:
    """Write a line to stderr: the arena keeps it in the game's log (stdout is for answers)."""
    print(*words, file=sys.stderr, flush=True)


# ======================================================================================
# YOUR BOT: choose one decision.
#
# `message` is the whole decide message, parsed:
#   message["game"]         "municipium", "ciceron" or "leges"
#   message["variant"]      e.g. "classic"
#   message["seat"]         your seat (0-based)
#   message["observation"]  what your seat may see: the game's JSON (docs/bots.md describes
#                           each game's; "asked" is the question being asked)
#   message["legal"]        the notations of your legal decisions
#   message["time_left_ms"] milliseconds left for this decision, or None: no limit
# Return one of message["legal"], exactly as written.
# ======================================================================================
def choose(message: dict[str, Any]) -> str:
    legal: list[str] = message["legal"]
    # A one-line heuristic to replace with your own: never "skip" when anything else is
    # legal. Then pick at random among what is left.
    candidates = [notation for notation in legal if notation != "skip"] or legal
    return rng.choice(candidates)


def main() -> int:
    log(f"starter-python: seed {SEED}")
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "decide":
            print(choose(message), flush=True)  # one line, flushed at once
        elif kind == "end":
            log("game over, ranking:", message.get("result", {}).get("ranking"))
            return 0
        # any other type: a message this bot does not know; skip it
    return 0  # stdin closed: the game is over


if __name__ == "__main__":
    sys.exit(main())
