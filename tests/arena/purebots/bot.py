"""A stdio bot whose every answer is a pure function of its salt and the legal decisions
(not the observation: while seats decide at once, what a seat sees of the others depends on
who was quicker): restarted mid-game, it plays on exactly as before.
Tests compare a tournament with faults against the same tournament without."""

import hashlib
import json
import sys

salt = sys.argv[1] if len(sys.argv) > 1 else ""
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "end":
        break
    if message["type"] != "decide":
        continue
    asked = json.dumps([salt, message["legal"]])
    pick = int(hashlib.sha256(asked.encode()).hexdigest(), 16) % len(message["legal"])
    print(message["legal"][pick], flush=True)
