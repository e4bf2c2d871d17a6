"""`python3 -m bots.leges_greedy --server HOST:PORT --game-id ID --seat N`: the Leges
greedy bot as a process of the arena's bot protocol (docs/bots.md); the seat token comes
from CURIA_SEAT_TOKEN. The same as `python3 -m bots.play_client --bot greedy ...` (the
registry's `greedy` is this bot for Leges, bots/ciceron_greedy for Cicéron and
bots/greedy_bot for Municipium)."""

import sys

from bots.play_client import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], default_bot="greedy"))
