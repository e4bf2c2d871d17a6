"""A Curia bot in 20 lines, through the arena's stdio bridge (docs/bots.md).

Each line on stdin is a JSON message. For {"type": "decide", ...} answer one line: the
notation of one of message["legal"]. {"type": "end", ...} ends the game. Standard library
only; the bridge speaks gRPC for us. Logs go to stderr (stdout is for answers only).
"""

import json
import os
import random
import sys

rng = random.Random(int(os.environ.get("CURIA_BOT_SEED", "0")))
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "end":
        print("result:", message["result"]["ranking"], file=sys.stderr)
        break
    if message["type"] != "decide":
        continue  # a message type this bot does not know
    legal = message["legal"]
    # A tiny heuristic: take a Decurion when one is offered, never skip if anything else.
    best = [d for d in legal if d.startswith("exchange ")] or \
        [d for d in legal if d != "skip"] or legal
    print(rng.choice(best), flush=True)
