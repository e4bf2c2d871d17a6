"""A stdio bot that answers its first decision, then exits 1 (a crash)."""

import json
import sys

message = json.loads(sys.stdin.readline())
print(message["legal"][0], flush=True)
print("crash: exiting 1 on purpose", file=sys.stderr)
sys.exit(1)
