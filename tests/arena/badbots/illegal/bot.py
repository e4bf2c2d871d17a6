"""A gRPC bot that submits `power forum` whatever it is asked: illegal during the setup.

It is bots.grpc_player with a bot that ignores the rules; once its seat has forfeited it
follows the game to its end and exits 0, like any bot.
"""

import sys

from bots.grpc_player import parse_args
from bots.play_client import play_seat
from games.core import Decision, GameState


class IllegalBot:
    name = "illegal"

    def choose(self, state: GameState, seat: int) -> Decision:
        return Decision("power", ("forum",))


if __name__ == "__main__":
    args = parse_args(sys.argv[1:], default_bot="illegal")
    final = play_seat(args.server, args.game_id, args.seat, args.token, IllegalBot(),
                      args.seed)
    sys.exit(0 if final.result.scores else 1)
