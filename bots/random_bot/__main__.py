"""`python3 -m bots.random_bot --server HOST:PORT --game-id ID --seat N`: the random bot as a
process of the arena's bot protocol (docs/bots.md); the seat token comes from
CURIA_SEAT_TOKEN. The same as `python3 -m bots.play_client --bot random ...`."""

import sys

from bots.play_client import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], default_bot="random"))
