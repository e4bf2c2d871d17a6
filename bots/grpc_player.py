"""The launch protocol of a Python bot in a tournament (docs/bots.md): its arguments and
its program. As a program,

    CURIA_SEAT_TOKEN=... python3 -m bots.grpc_player --bot greedy \\
        --server HOST:PORT --game-id ID --seat N

plays the seat over the Play stream as a league bot plays: it is `bots.play_client` (the
bot's side) over `client.play` (the one Python Play transport), the same program in a
tournament and a league. The seat token is read from the environment only (never from the
command line, where other processes could read it). A bot that does not play the game
exits with status 1; exit status 0 once the game is over.

The helpers here are the protocol's arguments (`add_launch_arguments`,
`check_launch_arguments`, `parse_args`), shared with the stdio bridge, and the one line
that tells a seat's result (`describe_result`). To play a seat from Python with a bot
already made: `bots.play_client.play_seat`.
"""

from __future__ import annotations

import argparse
import os
import sys

from bots import BOT_NAMES
from bots.play_client import main as play_main
from curia_api.v1 import game_service_pb2 as pb


def describe_result(view: pb.View, seat: int) -> str:
    """One line: the seat's rank and the reason the game ended."""
    names = list(view.seat_names)
    for score in view.result.scores:
        if score.seat == seat:
            lost = f", forfeited ({score.forfeit_reason})" if score.forfeited else ""
            return (f"game over ({view.result.reason}): seat {seat} ({names[seat]}) ranked "
                    f"{score.rank} of {len(names)}{lost}")
    return f"game over ({view.result.reason})"


def add_launch_arguments(parser: argparse.ArgumentParser) -> None:
    """--server, --game-id, --seat of the launch protocol (docs/bots.md), defaulting to
    CURIA_SERVER, CURIA_GAME_ID, CURIA_SEAT."""
    env = os.environ
    parser.add_argument("--server", default=env.get("CURIA_SERVER"),
                        help="HOST:PORT of the service (default: $CURIA_SERVER)")
    parser.add_argument("--game-id", default=env.get("CURIA_GAME_ID"),
                        help="the game (default: $CURIA_GAME_ID)")
    parser.add_argument("--seat", type=int, default=env.get("CURIA_SEAT"),
                        help="the seat to play (default: $CURIA_SEAT)")


def check_launch_arguments(parser: argparse.ArgumentParser,
                           args: argparse.Namespace) -> None:
    """Refuse missing launch arguments; read the seat token from CURIA_SEAT_TOKEN only."""
    for name in ("server", "game_id", "seat"):
        if getattr(args, name) is None:
            parser.error(f"--{name.replace('_', '-')} (or $CURIA_{name.upper()}) is required")
    args.seat = int(args.seat)
    args.token = os.environ.get("CURIA_SEAT_TOKEN", "")
    if not args.token:
        parser.error("CURIA_SEAT_TOKEN is not set (the seat's token is passed only in "
                     "the environment)")


def parse_args(argv: list[str] | None, bots: tuple[str, ...] = BOT_NAMES,
               default_bot: str | None = None) -> argparse.Namespace:
    """The protocol's arguments, with the environment as defaults (docs/bots.md)."""
    env = os.environ
    parser = argparse.ArgumentParser(
        prog=f"python3 -m bots.{default_bot}_bot" if default_bot else
        "python3 -m bots.grpc_player",
        description="Play one seat of a Curia game with a registered Python bot, through "
                    "the gRPC API. The seat token comes from CURIA_SEAT_TOKEN only.")
    if default_bot is None:
        parser.add_argument("--bot", choices=bots, required=True,
                            help="the registered bot to play with")
    add_launch_arguments(parser)
    parser.add_argument("--seed", type=int, default=int(env.get("CURIA_BOT_SEED", "0")),
                        help="the bot's seed (default: $CURIA_BOT_SEED, else 0)")
    parser.add_argument("--pace", type=float, default=0.0,
                        help="seconds to wait before each decision (default 0)")
    args = parser.parse_args(argv)
    if default_bot is not None:
        args.bot = default_bot
    check_launch_arguments(parser, args)
    return args


def main(argv: list[str] | None = None, default_bot: str | None = None) -> int:
    """`python3 -m bots.grpc_player --bot NAME --server ... --game-id ... --seat N`: the
    seat played over the Play stream (`bots.play_client`), as in a league."""
    return play_main(argv, default_bot)


if __name__ == "__main__":
    sys.exit(main())
