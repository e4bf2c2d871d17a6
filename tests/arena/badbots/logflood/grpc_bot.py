"""A gRPC bot that writes 50 MB to its stdout and stderr (flood.py) from its start
until its first decision, plays at random (bots.grpc_player), writes its last words and
exits at the end of the game."""

import sys

from flood import Flood, last_words

from bots import make_bot
from bots.grpc_player import parse_args
from bots.play_client import play_seat
from games.core import Decision, GameState


class FloodingRandom:
    """The random bot, once the flood is over."""

    name = "logflood"

    def __init__(self, seed: int, flood: Flood) -> None:
        self.random, self.flood = make_bot("random", seed), flood

    def choose(self, state: GameState, seat: int) -> Decision:
        self.flood.wait()
        return self.random.choose(state, seat)


if __name__ == "__main__":
    flood = Flood(stdout_too=True)
    args = parse_args(sys.argv[1:], default_bot="random")
    final = play_seat(args.server, args.game_id, args.seat, args.token,
                      FloodingRandom(args.seed, flood), args.seed)
    last_words()
    sys.exit(0 if final.result.scores else 1)
