"""`curia bot connect`: a stdio bot (docs/bots.md, "stdio bots") plays a league's games
from its author's machine, over one Play stream with the bot's key (docs/league.md,
"Connect a stdio bot"), as lichess-bot connects a UCI engine to lichess.

    CURIA_BOT_KEY=curia_bot_... curia bot connect --server HOST:PORT bots/starters/python
    CURIA_BOT_KEY=curia_bot_... curia bot connect --server HOST:PORT -- ./mybot --fast

The bot is a folder with a `bot.toml` of a stdio bot (built first if it has a build
command; run in its workdir with its limits) or a command after `--` (run here, without
limits). Each game the league gives the bot gets its own process of the program, as in a
tournament (`CURIA_BOT_SEED` derived from `--seed` and the game's id), and its own
`hosting.stdio_bridge.Bridge`, which speaks the stdio protocol with it and plays the
seat on the shared stream (`client.play.GameOnStream`). With `--one-process` one process
plays every game: each message it gets names its game (`"game_id"`), it answers the
questions in the order they were asked, and a game's end comes as `{"type":
"game_over", ...}` (the process lives on; a dead one is started again for the next game).

Reconnection, resending and rollbacks are `client.play.PlayStream`'s. The first Ctrl-C
asks the league for no new games (a later hello with concurrency 0) and exits once the
games in progress are over; a second Ctrl-C, or SIGTERM, resigns them and exits at once.
A line on stdout after each game: games played and won, and the bot's place on the
ladder as the last game started (PlayGameStarted.standing).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import math
import queue
import signal
import sys
import threading
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import IO, Any

from client.play import (
    JSON_ONLY,
    GameOnStream,
    PlayError,
    PlayStream,
    StreamRefused,
)
from curia_api.v1 import game_service_pb2 as pb
from games.core import derive_seed
from hosting.limits import Limits
from hosting.stdio_bridge import NO_LIMITS, Bridge, StdioBot

log = logging.getLogger("curia.connect")

KEY_ENV = "CURIA_BOT_KEY"
#: How long a game's bridge has to resign and stop once told to quit.
QUIT_SECONDS = 5.0


@dataclasses.dataclass(frozen=True)
class Program:
    """The bot program: its command, where it runs and its limits."""

    command: tuple[str, ...]
    cwd: Path | None = None
    limits: Limits = NO_LIMITS
    name: str = "stdio bot"
    #: its version's name, for the league (PlayHello.version; "": none)
    version: str = ""


# ---------------------------------------------------------------------------------------
# One program for every game (--one-process)
# ---------------------------------------------------------------------------------------
class SharedProgram:
    """One process of the program playing every game: questions go out naming their
    game, answers come back in the order asked and go to the game that asked."""

    def __init__(self, program: Program, seed: int) -> None:
        self.program, self.seed = program, seed
        self.lock = threading.Lock()
        self.bot: StdioBot | None = None
        self.askers: deque[SharedGame] = deque()  # by question, oldest first
        self.games: set[SharedGame] = set()

    def game(self, bridge: Bridge) -> SharedGame:
        """A game's view of the program (started now if it is not running)."""
        with self.lock:
            if self.bot is None or self.bot.process.poll() is not None:
                events: queue.Queue[tuple[str, Any]] = queue.Queue()
                limits = dataclasses.replace(self.program.limits, cpu_seconds=0)
                self.bot = StdioBot(self.program.command, events, limits,
                                    env={"CURIA_BOT_SEED": str(self.seed)},
                                    cwd=self.program.cwd)
                self.askers.clear()
                threading.Thread(target=self._route, args=(self.bot, events), daemon=True,
                                 name="shared-bot-lines").start()
            game = SharedGame(self, self.bot, bridge)
            self.games.add(game)
            return game

    def ask(self, game: SharedGame, message: dict[str, Any]) -> None:
        with self.lock:
            if message.get("type") == "decide":
                self.askers.append(game)
            game.bot.send({**message, "game_id": game.bridge.game_id})

    def _route(self, bot: StdioBot, events: queue.Queue[tuple[str, Any]]) -> None:
        """The program's lines to the games that asked, in order; its end to them all."""
        while True:
            kind, payload = events.get()
            with self.lock:
                if kind == "line":
                    if self.askers:
                        self.askers.popleft().bridge.events.put((kind, payload))
                    else:
                        log.warning("ignored a line the bot wrote unasked: %.80r", payload[0])
                    continue
                for game in [g for g in self.games if g.bot is bot and not g.over]:
                    game.bridge.events.put((kind, payload))
                return

    def stop(self) -> None:
        if self.bot is not None:
            self.bot.close_stdin()
            if self.bot.wait(2.0) is None:
                self.bot.kill()


@dataclasses.dataclass(eq=False)
class SharedGame:
    """One game's side of a SharedProgram (a `hosting.stdio_bridge.BotPipe`)."""

    shared: SharedProgram
    bot: StdioBot
    bridge: Bridge
    over: bool = False

    def send(self, message: dict[str, Any]) -> None:
        if message.get("type") == "end":  # the program plays on: a game's end only
            message = {**message, "type": "game_over"}
            self.over = True
        self.shared.ask(self, message)

    def close_stdin(self) -> None:
        return None

    def wait(self, timeout: float) -> int | None:
        return 0 if self.over else self.bot.wait(timeout)

    def kill(self) -> None:
        self.over = True
        with self.shared.lock:
            self.shared.games.discard(self)

    def exit_reason(self, code: int | None) -> str:
        return self.bot.exit_reason(code)


# ---------------------------------------------------------------------------------------
# The connection
# ---------------------------------------------------------------------------------------
@dataclasses.dataclass
class Running:
    """A game in progress: its bridge and the thread that runs it."""

    bridge: Bridge
    thread: threading.Thread
    standing: pb.LadderStanding | None


@dataclasses.dataclass
class Tally:
    """Games played and won, and the last standing the league gave."""

    played: int = 0
    won: int = 0
    forfeited: int = 0
    standing: pb.LadderStanding | None = None

    def add(self, ended: pb.PlayGameEnded) -> None:
        self.played += 1
        for score in ended.result.scores:
            if score.seat == ended.seat:
                self.won += score.rank == 1
                self.forfeited += score.forfeited

    def line(self) -> str:
        """The progress line."""
        text = f"played {self.played}, won {self.won}"
        if self.forfeited:
            text += f", forfeited {self.forfeited}"
        standing = self.standing
        if standing is None or not standing.entry:
            return text + "; not on the ladder yet"
        flag = ", provisional" if standing.provisional else ""
        return (f"{text}; rating {standing.elo:.0f} [{standing.low:.0f}, "
                f"{standing.high:.0f}] after {standing.games} rated games, rank "
                f"{standing.rank} of {standing.entries}{flag} (as the last game started)")


class Connector:
    """The bot's stream and a bridge per game (see the module docstring)."""

    def __init__(self, server: str, key: str, program: Program, *, concurrency: int = 1,
                 max_games: int = 0, one_process: bool = False, seed: int = 0,
                 out: IO[str] = sys.stdout) -> None:
        self.server, self.key, self.program = server, key, program
        self.concurrency, self.max_games, self.seed = concurrency, max_games, seed
        self.shared = SharedProgram(program, seed) if one_process else None
        self.out = out
        self.inbox: queue.Queue[pb.PlayResponse | PlayError] = queue.Queue()
        self.running: dict[str, Running] = {}
        #: the bridges of games over, still telling their bot (joined before exiting)
        self.finishing: list[threading.Thread] = []
        self.tally = Tally()
        self.interrupts = 0  # Ctrl-C (1: no new games; 2: resign and go)
        self.draining = False
        self.quitting = False

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def interrupt(self, hard: bool = False) -> None:
        """Ctrl-C (from a signal handler: only counts)."""
        self.interrupts = 2 if hard else self.interrupts + 1

    def run(self) -> int:
        """Play until stopped; the exit status (0; 1 if the key is refused; 130 after a
        second Ctrl-C)."""
        hello = pb.PlayHello(concurrency=self.concurrency, observation_encoding=JSON_ONLY,
                             client=f"{self.program.name} (curia bot connect)",
                             version=self.program.version)
        with PlayStream(self.server, self.key, hello, self.inbox.put,
                        give_up_s=math.inf) as stream:
            try:
                return self._loop(stream)
            finally:
                self._quit_all("curia bot connect stopped")
                for thread in self.finishing:
                    thread.join(timeout=QUIT_SECONDS)
                if self.shared is not None:
                    self.shared.stop()

    def _loop(self, stream: PlayStream) -> int:
        while True:
            if self.interrupts >= 2:
                self._quit_all("the bot's author stopped curia bot connect")
                return 130
            if (self.interrupts or self._enough()) and not self.draining:
                self.draining = True
                stream.change_concurrency(0)
                self.say(f"no new games; finishing the {len(self.running)} in progress "
                         f"(Ctrl-C again resigns them)" if self.interrupts else
                         f"{self.max_games} games taken: finishing the ones in progress")
            if self.draining and not self.running:
                self.say(f"stopped: {self.tally.line()}")
                return 0
            try:
                item = self.inbox.get(timeout=0.2)
            except queue.Empty:
                continue
            if isinstance(item, StreamRefused):
                self.say(f"the server refused the bot key: {item}")
                return 1
            if isinstance(item, PlayError):
                self.say(f"the stream is over: {item}")
                return 1
            self._on(item, stream)

    def _enough(self) -> bool:
        """Whether the games asked for (`max_games`) are all played or in progress."""
        return bool(self.max_games) and \
            self.tally.played + len(self.running) >= self.max_games

    def _on(self, message: pb.PlayResponse, stream: PlayStream) -> None:
        kind = message.WhichOneof("kind")
        if kind == "welcome":
            welcome = message.welcome
            if not self.draining:  # (a drain's later hello is answered by a welcome too)
                games = "1 game" if welcome.concurrency == 1 else \
                    f"{welcome.concurrency} games"
                self.say(f"connected to {self.server} as {welcome.bot} in league "
                         f"{welcome.league}: {games} at once")
            return
        if kind == "game_started":
            self._started(message.game_started, stream)
        game_id = game_of(message)
        running = self.running.get(game_id)
        if running is not None:
            running.bridge.deliver(message)
        if kind == "game_ended" and running is not None:
            self._ended(message.game_ended, running)

    def _started(self, started: pb.PlayGameStarted, stream: PlayStream) -> None:
        """A bridge for a game seen for the first time (again after a reconnection: the
        one running gets the message)."""
        if started.game_id in self.running:
            return
        standing = started.standing if started.HasField("standing") else None
        bridge = Bridge("", started.game_id, started.seat, "", self.program.command,
                        limits=self.program.limits)
        try:
            bot = self.shared.game(bridge) if self.shared is not None else StdioBot(
                self.program.command, bridge.events, self.program.limits,
                env={"CURIA_BOT_SEED": str(derive_seed(self.seed, started.game_id))},
                cwd=self.program.cwd)
        except OSError as error:
            reason = f"stdio bot did not start: {error.strerror or error}"
            self.say(f"game {started.game_id}: {reason}; resigning")
            with contextlib.suppress(PlayError):
                GameOnStream(stream, started.game_id).resign(reason)
            return
        seat = GameOnStream(stream, started.game_id)
        thread = threading.Thread(target=bridge.play_on, args=(seat, bot), daemon=True,
                                  name=f"game-{started.game_id}")
        self.running[started.game_id] = Running(bridge, thread, standing)
        thread.start()
        others = [name for n, name in enumerate(started.seat_names) if n != started.seat]
        self.say(f"game {started.game_id} started: {started.game} ({started.variant}), "
                 f"seat {started.seat}, against {', '.join(others) or 'nobody'}"
                 f"{'' if started.rated else ' (unrated)'}")

    def _ended(self, ended: pb.PlayGameEnded, running: Running) -> None:
        """The game's end, counted; its bridge finishes on its own (tells the bot, waits
        for it to exit) while the other games go on."""
        del self.running[ended.game_id]
        self.finishing.append(running.thread)
        self.tally.add(ended)
        if running.standing is not None:
            self.tally.standing = running.standing
        self.say(f"game {ended.game_id} over: {rank_text(ended)} · {self.tally.line()}")

    def _quit_all(self, reason: str) -> None:
        """Resign every game in progress and wait for its bridge."""
        if self.quitting:
            return
        self.quitting = True
        if self.running:
            self.say(f"resigning {len(self.running)} games in progress")
        for running in self.running.values():
            running.bridge.quit(reason)
        for running in self.running.values():
            running.thread.join(timeout=QUIT_SECONDS)


def game_of(message: pb.PlayResponse) -> str:
    """The game a stream message is about ("" for the welcome)."""
    kind = message.WhichOneof("kind")
    if kind == "turn":
        return message.turn.game_id
    if kind == "update":
        return message.update.game_id
    body = getattr(message, kind) if kind else None
    return str(getattr(body, "game_id", ""))


def rank_text(ended: pb.PlayGameEnded) -> str:
    for score in ended.result.scores:
        if score.seat == ended.seat:
            text = "won" if score.rank == 1 else f"ranked {score.rank} of " \
                f"{len(ended.result.scores)}"
            return text + (f" (forfeited: {score.forfeit_reason})" if score.forfeited else "")
    return f"over ({ended.result.reason})"


def connect(server: str, key: str, program: Program, **options: Any) -> int:
    """Run a Connector with Ctrl-C and SIGTERM handled (see the module docstring)."""
    connector = Connector(server, key, program, **options)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        connector.interrupt(hard=signum == signal.SIGTERM)

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, on_signal)
        signal.signal(signal.SIGTERM, on_signal)
    return connector.run()


def command_program(command: Sequence[str]) -> Program:
    """A bot given as a command line (run here, without limits)."""
    return Program(tuple(command), name=Path(command[0]).name)
