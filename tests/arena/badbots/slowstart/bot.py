"""A gRPC bot that takes 3 s to start (a runtime loading, a model read from disk), then
plays at random: its clock must not run before it makes contact with its game.

It is bots.random_bot, late: it sleeps before its first call to the server. A number
before the launch arguments sets the seconds (`slower.toml`: 8).
"""

import sys
import time

from bots.grpc_player import main

if __name__ == "__main__":
    args = sys.argv[1:]
    seconds = float(args.pop(0)) if args and not args[0].startswith("-") else 3.0
    print(f"slow-start: starting, {seconds:.0f} s", file=sys.stderr, flush=True)
    time.sleep(seconds)
    sys.exit(main(args, default_bot="random"))
