"""A stdio bot that answers its first decision, then allocates far beyond its
memory_mb: the allocation fails (MemoryError) and it dies."""

import json
import sys

message = json.loads(sys.stdin.readline())
print(message["legal"][0], flush=True)
print("memory: allocating 1 GiB on purpose", file=sys.stderr, flush=True)
hoard = bytearray(1 << 30)
print(message["legal"][0], len(hoard), flush=True)  # never reached within the limit
