"""A stdio bot that plays legal[0] but does not exit when the game is over (it ignores
the `end` line and the closing of its stdin); the bridge kills it after its grace."""

import json
import sys
import time

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "decide":
        print(message["legal"][0], flush=True)
    elif message["type"] == "end":
        break
print("linger: not exiting, on purpose", file=sys.stderr, flush=True)
time.sleep(3600)
