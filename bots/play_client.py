"""The Python bot program: a shipped bot playing over one Play stream (`client.play`, the
one Python transport), a league's games (docs/league.md) or a tournament's seat
(docs/bots.md). The same program, the same stream:

    CURIA_BOT_KEY=curia_bot_... python3 -m bots.play_client --server HOST:PORT --bot greedy
    CURIA_SEAT_TOKEN=... python3 -m bots.play_client --server HOST:PORT --bot greedy \
        --game-id ID --seat N

The credential is read from the environment only. With a bot key the client says how
many games it plays at once, and for each game the league gives it makes the named bot
for that game (its seed derived from `--seed` and the game id); with a seat token it
plays that one game (its seed `--seed`, as the arena gives it) and exits once it is
over. Whenever a turn asks it to decide, it rebuilds a state from the observation and
sends the bot's choice with the turn's version and lineage and a request id naming them.
A choice refused as stale is not asked again while the same decisions are offered: it is
sent again at the newer version; after a rollback of the store (`client.play.rolled_back`)
the bot decides again. Everything about the stream (reconnecting, on the next server if
`--server` lists several; sending again what was not answered; a store away) is
client.play's; an unknown, revoked or banned key (or a refused seat token), or a seat
without a server for CURIA_RETRY_SECONDS, ends the program with status 1.

`play_seat` is the same client for one seat with a bot already made (`curia play`
against a remote server, `curia arena check`'s other seats).
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import queue
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import grpc

from bots import BOT_NAMES, Bot, make_bot
from client.play import (
    JSON_ONLY,
    PlayError,
    PlayStream,
    StreamRefused,
    decision_request,
    rolled_back,
    status_code,
)
from client.retry import retry_seconds
from curia_api.v1 import game_service_pb2 as pb
from games import from_observation
from games.core import derive_seed, notation

log = logging.getLogger("curia.play_client")

KEY_ENV = "CURIA_BOT_KEY"
SEAT_TOKEN_ENV = "CURIA_SEAT_TOKEN"


class KeyRefused(Exception):
    """The server will not let this key (or seat token) play."""


class BotUnfit(Exception):
    """The bot does not play the game it was given."""


class GaveUp(Exception):
    """No server answered for `give_up_s` seconds in a row."""


@dataclass
class SeatGame:
    """What the client keeps of one game."""

    bot: Bot
    seat: int
    seed: int
    decided: int = 0
    #: (legal notations, choice) of a choice not yet applied
    pending: tuple[tuple[str, ...], str] | None = None
    #: the (version, lineage) of the last turn (`client.play.rolled_back`)
    seen: tuple[int, str] = (0, "")
    #: the last decision sent and not yet acknowledged
    sent: pb.PlayRequest | None = None


@dataclass
class PlayClient:
    """A bot on its Play stream (see the module docstring)."""

    target: str
    key: str
    bot_name: str
    seed: int = 0
    concurrency: int = 1
    opponent_decisions: bool = False
    max_games: int = 0
    """Stop after this many games have ended (0: play on until stopped)."""
    game_id: str = ""
    """With a seat token as the key: the seat's game (the client plays it, then stops)."""
    pace: float = 0.0
    """Seconds to wait before each choice is sent."""
    give_up_s: float = 0.0
    """Stop after this many seconds in a row without a server (0: never)."""
    bot: Bot | None = None
    """With a seat token: the bot already made (else made from `bot_name`)."""
    games: dict[str, SeatGame] = field(default_factory=dict)
    ended: int = 0
    #: the last game's end
    last_end: pb.PlayGameEnded | None = None

    def __post_init__(self) -> None:
        if self.game_id:
            self.max_games = 1

    @property
    def done(self) -> bool:
        return bool(self.max_games) and self.ended >= self.max_games

    def run(self, stop: threading.Event | None = None) -> int:
        """Play until `max_games` have ended or `stop` is set; games ended."""
        stop = stop or threading.Event()
        inbox: queue.Queue[pb.PlayResponse | PlayError] = queue.Queue()
        with PlayStream(self.target, self.key, self.hello(), inbox.put,
                        give_up_s=self.give_up_s or math.inf) as stream:
            while not stop.is_set() and not self._finished(stream, inbox):
                try:
                    item = inbox.get(timeout=0.2)
                except queue.Empty:
                    continue
                if isinstance(item, StreamRefused):
                    raise KeyRefused(str(item)) from None
                if isinstance(item, PlayError):
                    raise GaveUp(str(item)) from None
                self._on(item, stream)
        return self.ended

    def _finished(self, stream: PlayStream, inbox: queue.Queue[Any]) -> bool:
        """Whether the league's games to play have ended, or the stream is over and read
        (a seat's stream is read to its end: the reply to the decision that ended the
        game may come after the end)."""
        return (self.done and not self.game_id) or (stream.over.is_set() and inbox.empty())

    def hello(self) -> pb.PlayHello:
        return pb.PlayHello(
            concurrency=self.concurrency, opponent_decisions=self.opponent_decisions,
            client=f"curia bots.play_client {self.bot_name}",
            observation_encoding=JSON_ONLY, game_id=self.game_id)

    def _on(self, message: pb.PlayResponse, stream: PlayStream) -> None:
        kind = message.WhichOneof("kind")
        if kind == "game_started":
            self._started(message.game_started)
        elif kind == "turn":
            request = self._decide(message.turn)
            if request is not None:
                stream.send(request)
        elif kind == "game_ended":
            if self.games.pop(message.game_ended.game_id, None) is not None:
                self.ended += 1
                self.last_end = message.game_ended
                log.info("%s (game %s)", describe_end(message.game_ended),
                         message.game_ended.game_id)
        elif kind == "ack":
            game = self.games.get(message.ack.game_id)
            if game is not None and game.sent is not None and \
                    game.sent.decision.request_id == message.ack.request_id:
                game.sent = None
        elif kind == "refusal":
            refusal = message.refusal
            code = status_code(refusal.status)
            log.log(logging.DEBUG if code == grpc.StatusCode.ABORTED else logging.INFO,
                    "game %s: refused (%s: %s)", refusal.game_id, code.name,
                    refusal.status.message)

    def _started(self, started: pb.PlayGameStarted) -> None:
        """Make the bot of a game seen for the first time."""
        if started.game_id in self.games:
            return
        seed = self.seed if self.game_id else derive_seed(self.seed, started.game_id)
        try:
            bot = self.bot or make_bot(self.bot_name, seed, started.game)
        except ValueError as error:
            raise BotUnfit(f"game {started.game_id}: {error}") from None
        self.games[started.game_id] = SeatGame(bot, started.seat, seed)
        log.info("game %s: seat %d of %s%s", started.game_id, started.seat,
                 ", ".join(started.seat_names),
                 "; waiting for open seats to be taken" if started.waiting_for_seats else "")

    def _decide(self, view: pb.View) -> pb.PlayRequest | None:
        game = self.games.get(view.game_id)
        if game is None or not view.legal_decisions:
            return None
        if rolled_back(game.seen, view):
            log.warning("game %s was rolled back to version %d (the store lost later "
                        "versions); deciding again from there", view.game_id, view.version)
            game.pending = None
        game.seen = (view.version, view.lineage)
        legal = tuple(decision.notation for decision in view.legal_decisions)
        if game.pending is None or game.pending[0] != legal:
            state = from_observation(json.loads(view.observation_json),
                                     derive_seed(game.seed, game.decided))
            game.pending = (legal, notation(game.bot.choose(state, game.seat)))
            game.decided += 1
            if self.pace:
                time.sleep(self.pace)
        game.sent = decision_request(view.game_id, view.version, game.pending[1],
                                     f"{view.version}-{view.lineage or '0'}", view.lineage)
        return game.sent


def play_seat(target: str, game_id: str, seat: int, token: str, bot: Bot, seed: int,
              pace: float = 0.0) -> pb.PlayGameEnded:
    """Play `seat` of a game with a bot already made until the game is over; its end
    (KeyRefused, GaveUp or BotUnfit if it cannot)."""
    client = PlayClient(target, token, getattr(bot, "name", "bot"), seed, game_id=game_id,
                        pace=pace, give_up_s=retry_seconds(), bot=bot)
    client.run()
    if client.last_end is None:
        raise GaveUp(f"game {game_id}: seat {seat} stopped before the end")
    return client.last_end


def describe_end(ended: pb.PlayGameEnded) -> str:
    """One line: the seat's rank and why the game ended."""
    for score in ended.result.scores:
        if score.seat == ended.seat:
            lost = f", forfeited ({score.forfeit_reason})" if score.forfeited else ""
            return (f"game over ({ended.result.reason}): seat {ended.seat} ranked "
                    f"{score.rank} of {len(ended.result.scores)}{lost}")
    return f"game over ({ended.result.reason})"


def parse_args(argv: list[str] | None, default_bot: str | None = None
               ) -> argparse.Namespace:
    """The league's arguments, or the launch protocol's (docs/bots.md), with the
    environment as defaults; the credential read from the environment into `key`."""
    env = os.environ
    parser = argparse.ArgumentParser(
        prog=f"python3 -m bots.{default_bot}_bot" if default_bot else
        "python3 -m bots.play_client",
        description=f"Play with a shipped bot over one Play stream: a league's games with "
                    f"${KEY_ENV}, or one tournament seat with ${SEAT_TOKEN_ENV} and "
                    f"--game-id.")
    parser.add_argument("--server", default=env.get("CURIA_SERVER"),
                        help="HOST:PORT of a curia server (several, comma-separated: tried "
                             "in turn when one is away; default: $CURIA_SERVER)")
    if default_bot is None:
        parser.add_argument("--bot", required=True, choices=BOT_NAMES,
                            help="the bot to play")
    parser.add_argument("--seed", type=int, default=int(env.get("CURIA_BOT_SEED", "0")),
                        help="the bot's seed (default: $CURIA_BOT_SEED, else 0)")
    parser.add_argument("--game-id", default=env.get("CURIA_GAME_ID", ""),
                        help="a seat token's game (default: $CURIA_GAME_ID)")
    parser.add_argument("--seat", type=int, default=env.get("CURIA_SEAT"),
                        help="a seat token's seat, for the logs (default: $CURIA_SEAT)")
    parser.add_argument("--concurrency", type=int, default=1,
                        help="league games at once (the league caps it; default 1)")
    parser.add_argument("--games", type=int, default=0,
                        help="stop after this many league games (default: play on)")
    parser.add_argument("--pace", type=float, default=0.0,
                        help="seconds to wait before each decision (default 0)")
    args = parser.parse_args(argv)
    args.bot = default_bot or args.bot
    if args.server is None:
        parser.error("--server (or $CURIA_SERVER) is required")
    args.key = env.get(KEY_ENV, "")
    if not args.key:
        args.key = env.get(SEAT_TOKEN_ENV, "")
        if not args.key or not args.game_id:
            parser.error(f"set {KEY_ENV} to the bot key (from curia league add-bot), or "
                         f"{SEAT_TOKEN_ENV} to a seat token and --game-id to its game")
    else:
        args.game_id = ""  # a bot key plays the league's games
    return args


def main(argv: list[str] | None = None, default_bot: str | None = None) -> int:
    args = parse_args(argv, default_bot)
    who = f"{args.bot}[seat {args.seat}]" if args.game_id else args.bot
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format=f"{who}: %(message)s")
    client = PlayClient(args.server, args.key, args.bot, args.seed, args.concurrency,
                        max_games=args.games, game_id=args.game_id, pace=args.pace,
                        give_up_s=retry_seconds() if args.game_id else 0.0)
    started = time.monotonic()
    try:
        ended = client.run()
    except KeyRefused as refused:
        print(f"the server refused the {'seat token' if args.game_id else 'bot key'}: "
              f"{refused}", file=sys.stderr)
        return 1
    except (GaveUp, BotUnfit) as error:
        print(f"giving up: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    log.info("%d games played in %.0f s", ended, time.monotonic() - started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
