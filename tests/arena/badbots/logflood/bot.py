"""A stdio bot that writes 50 MB to its stderr (flood.py) from its start until its first
answer, then plays legal[0], writes its last words and exits at the end of the game."""

import json
import sys

from flood import Flood, last_words

flood = Flood(stdout_too=False)  # stdout is for answers
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "decide":
        flood.wait()
        print(message["legal"][0], flush=True)
    elif message["type"] == "end":
        break
last_words()
