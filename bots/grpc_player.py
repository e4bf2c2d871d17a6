"""Play one seat of a game on a Curia server with a Python bot, as a gRPC client.

The loop every seat runs (`play_seat`): read the seat's view, follow its WatchGame
stream, and whenever the view lists legal decisions, rebuild a state from the seat's
observation (`games.from_observation`), let the bot choose and submit the choice with
`expected_version` = the view's version and a request id derived from the seat and the
version (so a retry after a lost answer is applied at most once). It is robust to:

* stale views (`ABORTED`): the stream brings the newer view, and views older than a
  version already known are never decided on;
* a server restart or a dropped connection: the channel is rebuilt and WatchGame resumes
  after the last version seen, with bounded retries (`client.retry`); a decision whose
  answer was lost is resubmitted unchanged, under the same request id;
* a store that rolled back (lost versions it had acknowledged): the stream goes on from
  the game's current version (`rolled_back`), the seat forgets what it knew of the lost
  versions and decides again where it must; each decision names the lineage of the view
  it was taken on, so one taken on a lost view is refused, never applied;
* a game still waiting for open seats (the stream says nothing when it starts: polled);
* its own forfeit (illegal decision, timeout, resignation): it stops deciding and
  follows the game to its end.

This loop is what a client built on the unary calls and WatchGame does (`curia play`
against a remote server, `curia arena check`'s other seats). As a program,

    CURIA_SEAT_TOKEN=... python3 -m bots.grpc_player --bot greedy \\
        --server HOST:PORT --game-id ID --seat N

is the arena's bot process protocol (docs/bots.md) played over the Play stream, as a
league bot plays (`bots.play_client`): the same program in a tournament and a league.
The seat token is read from the environment only (never from the command line, where
other processes could read it). A bot that does not play the game exits with status 1;
exit status 0 once the game is over.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from collections.abc import Iterator

import grpc

from bots import BOT_NAMES, Bot
from bots.play_client import main as play_main
from client.retry import (
    DISCONNECTED,
    RetryingClient,
    RetryPolicy,
    StreamInterrupted,
    describe_error,
)
from curia_api.v1 import game_service_pb2 as pb
from games import from_observation
from games.core import derive_seed, notation

log = logging.getLogger("curia.bots")

FINISHED = pb.GAME_STATUS_FINISHED
WAITING = pb.GAME_STATUS_WAITING_FOR_SEATS

#: A seat rides out a server restart: a dropped connection is retried (`client.retry`)
#: for up to CURIA_RETRY_SECONDS (30 s) in a row, on a fresh channel, pausing 0.1 s, 0.2 s,
#: ... up to 1 s (jittered).
SEAT_RETRIES = RetryPolicy(codes=DISCONNECTED, pause=0.1, max_pause=1.0)
#: A seat's views carry the observation as JSON only: what the bots and the stdio bridge
#: read (`games.from_observation`), so the server does not build the typed form too.
JSON_ONLY = pb.OBSERVATION_ENCODING_JSON
#: Refusals of a decision that leave the game as it was: the stream goes on.
REFUSED = frozenset({grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION,
                     grpc.StatusCode.INVALID_ARGUMENT})


class SeatConnection:
    """One seat's calls to a server: its view, its stream, its decisions and resignation,
    each retried after transient failures on a rebuilt channel (`SEAT_RETRIES`)."""

    def __init__(self, target: str, game_id: str, token: str,
                 policy: RetryPolicy = SEAT_RETRIES) -> None:
        self.game_id, self.token = game_id, token
        self.client = RetryingClient.to(target, policy)

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> SeatConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def view(self) -> pb.View:
        return self.client.view(self.game_id, self.token, JSON_ONLY)

    def follow(self, after_version: int) -> Iterator[pb.WatchGameResponse]:
        """The seat's updates from `after_version` on, each version once, until the game
        is over (a dropped stream resumes after the last version seen; after a rollback
        of the store it goes on from the current version, marked `rolled_back`)."""
        yield from self.client.watch(self.game_id, self.token, after_version,
                                     encoding=JSON_ONLY)

    def submit(self, version: int, text: str, request_id: str,
               lineage: str = "") -> pb.SubmitDecisionResponse:
        """Submit what was decided on the view at `version` of `lineage`; the reply's view
        carries no observation (the stream brings it)."""
        return self.client.submit(self.game_id, self.token, version, text,
                                  request_id=request_id,
                                  encoding=pb.OBSERVATION_ENCODING_NONE, lineage=lineage)

    def resign(self, reason: str) -> pb.ResignSeatResponse:
        return self.client.resign(self.game_id, self.token, reason)


def wait_for_start(connection: SeatConnection, view: pb.View, poll: float = 0.1) -> pb.View:
    """The seat's view once every seat is taken, from its current `view` (WatchGame sends
    nothing when the last open seat is joined, so a game waiting for seats is polled)."""
    if view.status == WAITING:
        log.info("the game is waiting for open seats to be taken; polling every %.1f s",
                 poll)
    while view.status == WAITING:
        time.sleep(poll)
        view = connection.view()
    return view


def play_seat(target: str, game_id: str, seat: int, token: str, bot: Bot, seed: int,
              pace: float = 0.0) -> pb.View:
    """Play `seat` of a game with `bot` until the game is over; the seat's final view."""
    with SeatConnection(target, game_id, token) as connection:
        start = wait_for_start(connection, connection.view())
        return play_connected(connection, start=start, seat=seat, bot=bot, seed=seed,
                              pace=pace)


def play_connected(connection: SeatConnection, *, start: pb.View, seat: int, bot: Bot,
                   seed: int, pace: float = 0.0) -> pb.View:
    """Play `seat` from its view `start` (every seat taken) to the end of the game.

    The state handed to the bot for its n-th decision is rebuilt from the seat's
    observation with the seed `derive_seed(seed, n)`; `pace` seconds pass before each
    submission. A choice refused as stale (another seat decided first) is submitted again
    at the newer version while the seat chooses among the same decisions: the bot is not
    asked twice, so a game's decisions do not depend on who answered first.
    """
    if start.status == FINISHED:
        return start
    latest = start.version  # the newest version known: older views are stale
    chosen: tuple[tuple[str, ...], str] | None = None  # (legal notations, choice) pending
    applied = -1  # the last version whose decision the server applied
    decided = 0  # decisions of this seat applied so far
    forfeited = False
    for update in connection.follow(start.version):
        view = update.view
        if view.status == FINISHED:
            return view
        if update.rolled_back:  # the store lost versions: what was known of them goes
            log.warning("seat %d: the game was rolled back to version %d (the store lost "
                        "later versions); deciding again from there", seat, view.version)
            latest, applied, chosen = view.version, -1, None
        if view.version < latest:
            continue
        latest = view.version
        if seat in view.forfeited_seats:
            if not forfeited:
                log.warning("seat %d forfeited at version %d: the server decides for "
                            "it; following the game to its end", seat, view.version)
            forfeited = True
            continue
        if not view.legal_decisions or applied == view.version:
            continue
        legal = tuple(d.notation for d in view.legal_decisions)
        if chosen is None or chosen[0] != legal:
            state = from_observation(json.loads(view.observation_json),
                                     derive_seed(seed, decided))
            chosen = (legal, notation(bot.choose(state, seat)))
            if pace:
                time.sleep(pace)
        response = submit(connection, seat, view, chosen[1])
        if response is not None:
            applied, chosen, decided = view.version, None, decided + 1
            latest = max(latest, response.version)
    raise StreamInterrupted(f"game {connection.game_id}: the stream ended before the game "
                            f"was over")


def submit(connection: SeatConnection, seat: int, view: pb.View,
           text: str) -> pb.SubmitDecisionResponse | None:
    """Submit a decision taken on `view`; None if the server refused it (stale, illegal,
    too late). Its request id names the seat, the version and the lineage: a retry is the
    same request, a decision at a version replayed after a rollback is a new one."""
    version = view.version
    try:
        return connection.submit(version, text, request_id=request_id(seat, view),
                                 lineage=view.lineage)
    except grpc.RpcError as error:
        if error.code() not in REFUSED:
            raise
        stale = error.code() == grpc.StatusCode.ABORTED  # another seat decided first:
        # normal in a simultaneous choice, submitted again at the newer version
        log.log(logging.DEBUG if stale else logging.INFO, "seat %d: %r at version %d "
                "refused (%s)", seat, text, version, describe_error(error))
        return None


def request_id(seat: int, view: pb.View, attempt: int | None = None) -> str:
    """The request id of a seat's decision on `view` (and its `attempt`-th re-ask)."""
    parts = [str(seat), str(view.version), view.lineage or "0"]
    if attempt is not None:
        parts.append(str(attempt))
    return "-".join(parts)


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
