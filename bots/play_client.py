"""Play a league with a Python bot over one Play stream (docs/league.md).

    CURIA_BOT_KEY=curia_bot_... python3 -m bots.play_client --server HOST:PORT --bot greedy

The bot key is read from the environment only. The client opens the stream, says how
many games it plays at once, and for each game the league gives it: makes the named bot
for that game (its seed derived from `--seed` and the game id), and whenever a view asks
it to decide, rebuilds a state from its observation and submits the bot's choice with the
view's version and lineage and a request id naming them (a resend after a reconnection is
applied once). A choice refused as stale is not asked again while the same decisions are
offered: it is resubmitted at the newer version. A dropped stream is reopened, on the
next server if `--server` lists several (every game resumes); an unknown, revoked or
banned key ends the program with status 1.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import queue
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import grpc

from bots import BOT_NAMES, Bot, make_bot
from curia.v1 import game_service_pb2 as pb
from curia.v1 import game_service_pb2_grpc as pb_grpc
from games import from_observation
from games.core import derive_seed, notation
from service.channels import open_channel

log = logging.getLogger("curia.play")

KEY_ENV = "CURIA_BOT_KEY"
#: Statuses that end the program: the key may not play.
FATAL = (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED)
#: Seconds between reconnection attempts (doubling up to the last).
BACKOFF_S = (0.2, 0.5, 1.0, 2.0, 5.0)


class KeyRefused(Exception):
    """The server will not let this key play."""


@dataclass
class SeatGame:
    """What the client keeps of one game."""

    bot: Bot
    seat: int
    decided: int = 0
    #: (legal notations, choice) of a choice not yet applied
    pending: tuple[tuple[str, ...], str] | None = None


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
    games: dict[str, SeatGame] = field(default_factory=dict)
    ended: int = 0
    attempts: int = 0

    def run(self, stop: threading.Event | None = None) -> int:
        """Play until `max_games` have ended or `stop` is set; games ended."""
        stop = stop or threading.Event()
        failures = 0
        while not stop.is_set() and not self.done:
            try:
                self._session(stop)
                failures = 0
            except grpc.RpcError as error:
                if error.code() in FATAL:
                    raise KeyRefused(error.details()) from None
                delay = BACKOFF_S[min(failures, len(BACKOFF_S) - 1)]
                failures += 1
                log.info("play stream ended (%s); reconnecting in %.1f s",
                         error.code().name, delay)
                stop.wait(delay)
        return self.ended

    @property
    def done(self) -> bool:
        return bool(self.max_games) and self.ended >= self.max_games

    @property
    def targets(self) -> list[str]:
        """The servers to try, in turn (`target` may list several, comma-separated)."""
        return [part.strip() for part in self.target.split(",") if part.strip()]

    def _session(self, stop: threading.Event) -> None:
        outbox: queue.Queue[pb.PlayRequest | None] = queue.Queue()
        outbox.put(pb.PlayRequest(hello=pb.PlayHello(
            concurrency=self.concurrency, opponent_decisions=self.opponent_decisions,
            client=f"curia bots.play_client {self.bot_name}",
            observation_encoding=pb.OBSERVATION_ENCODING_JSON)))
        targets = self.targets
        channel = open_channel(targets[self.attempts % len(targets)])
        self.attempts += 1
        stub = pb_grpc.GameServiceStub(channel)  # type: ignore[no-untyped-call]
        stream = stub.Play(_requests(outbox, stop),
                           metadata=(("authorization", f"Bearer {self.key}"),))
        try:
            for message in stream:
                self._on(message, outbox)
                if self.done or stop.is_set():
                    break
        finally:
            outbox.put(None)
            stream.cancel()
            channel.close()

    def _on(self, message: pb.PlayResponse, outbox: queue.Queue[pb.PlayRequest | None]) -> None:
        kind = message.WhichOneof("kind")
        if kind == "game_started":
            started = message.game_started
            if started.game_id not in self.games:
                seed = derive_seed(self.seed, started.game_id)
                self.games[started.game_id] = SeatGame(
                    make_bot(self.bot_name, seed, started.game), started.seat)
        elif kind == "turn":
            request = self._decide(message.turn)
            if request is not None:
                outbox.put(request)
        elif kind == "game_ended":
            if self.games.pop(message.game_ended.game_id, None) is not None:
                self.ended += 1
        elif kind == "refusal":
            status = message.refusal.status
            level = logging.DEBUG if status.code == grpc.StatusCode.ABORTED.value[0] \
                else logging.INFO
            log.log(level, "game %s: refused: %s", message.refusal.game_id, status.message)

    def _decide(self, view: pb.View) -> pb.PlayRequest | None:
        game = self.games.get(view.game_id)
        if game is None or not view.legal_decisions:
            return None
        legal = tuple(decision.notation for decision in view.legal_decisions)
        if game.pending is None or game.pending[0] != legal:
            state = from_observation(json.loads(view.observation_json),
                                     derive_seed(self.seed, view.game_id, game.decided))
            game.pending = (legal, notation(game.bot.choose(state, game.seat)))
            game.decided += 1
        return pb.PlayRequest(decision=pb.PlayDecision(
            game_id=view.game_id, decision=pb.Decision(notation=game.pending[1]),
            expected_version=view.version, expected_lineage=view.lineage,
            request_id=f"{view.version}-{view.lineage or '0'}"))


def _requests(outbox: queue.Queue[pb.PlayRequest | None],
              stop: threading.Event) -> Iterator[pb.PlayRequest]:
    while not stop.is_set():
        try:
            request = outbox.get(timeout=0.5)
        except queue.Empty:
            continue
        if request is None:
            return
        yield request


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python3 -m bots.play_client",
        description=f"Play a league's games with a shipped bot. The bot key comes from "
                    f"${KEY_ENV}.")
    parser.add_argument("--server", required=True,
                        help="HOST:PORT of a curia server (several, comma-separated: tried "
                             "in turn when one is away)")
    parser.add_argument("--bot", required=True, choices=BOT_NAMES, help="the bot to play")
    parser.add_argument("--seed", type=int, default=0, help="the bot's seed (default 0)")
    parser.add_argument("--concurrency", type=int, default=1,
                        help="games at once (the league caps it; default 1)")
    parser.add_argument("--games", type=int, default=0,
                        help="stop after this many games (default: play on)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    key = os.environ.get(KEY_ENV, "")
    if not key:
        print(f"set {KEY_ENV} to the bot key (from curia league add-bot)", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    client = PlayClient(args.server, key, args.bot, args.seed, args.concurrency,
                        max_games=args.games)
    started = time.monotonic()
    try:
        ended = client.run()
    except KeyRefused as refused:
        print(f"the server refused the bot key: {refused}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    log.info("%d games played in %.0f s", ended, time.monotonic() - started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
