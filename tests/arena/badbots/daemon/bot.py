"""A stdio bot that leaves a daemon behind at its start (daemonize.py), then plays legal[0]
and exits at the end of the game like a good bot."""

import json
import sys

from daemonize import leave_daemon

leave_daemon()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "decide":
        print(message["legal"][0], flush=True)
    elif message["type"] == "end":
        break
