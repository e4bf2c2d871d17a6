"""A stdio bot that reads its first question and never answers (nor exits by itself)."""

import sys
import time

sys.stdin.readline()
print("hang: not answering, on purpose", file=sys.stderr, flush=True)
time.sleep(3600)
