"""The stdio bridge: plays a seat over the Play stream for a bot that only reads stdin
and writes stdout (docs/bots.md, "stdio bots").

    CURIA_SEAT_TOKEN=... python3 -m hosting.stdio_bridge \\
        --server HOST:PORT --game-id ID --seat N -- perl bot.pl

The bridge starts the bot command as its child (stdin and stdout are pipes; its stderr
is copied to the bridge's), sets the bot's resource limits on it (`--memory-mb`,
`--cpu-seconds`: the bot's, not the bridge's own), and only then opens the seat's Play
stream (`client.play`): the seat token is its credential, its hello names the game, and
the server sends the game's start, a `turn` (the seat's view) whenever the seat must decide,
and the game's end. For each turn it writes one JSON line to the bot's stdin,

    {"type": "decide", "game": ..., "variant": ..., "seat": 1, "version": 12,
     "seat_names": [...], "observation": {...}, "legal": ["play common", ...],
     "time_left_ms": 1834}

reads one line back (a decision's notation, or {"decision": "..."}) and submits it as
is on the stream (a PlayDecision, answered by an ack or a refusal): the server decides
what an illegal decision costs. Answers are matched to questions in order; an answer to a
version the game has left (the seat timed out meanwhile) is dropped. An answer refused as
stale in a simultaneous choice (another seat decided first) is submitted again at the
newer turn that offers the same decisions; one refused without penalty (a game without
forfeit_on_illegal) is asked again, with `refused`, while the last turn is still the
newest. A turn older than the last one, or of another lineage at a version seen, means
the store rolled back: the answers to the lost versions are dropped. When the
game is over it writes {"type": "end", "result": {...}, "forfeited": [...]}, closes the
bot's stdin, waits `--grace` seconds and kills it; exit 0. If the bot exits or closes
its stdout before that, the bridge resigns the seat on the stream (reason "stdio bot
exited: code N", prefixed with "exceeded memory_mb (N MB): " or "exceeded cpu_seconds (N
s): " when a limit stopped it) and exits 1. A bot that does not answer is left to the
server's time limit while the bridge follows the game to its end; a forfeited seat gets
no more turns, and the bridge waits for the end.

A dropped stream is reopened (on the next server if --server lists several,
comma-separated) and resumes; a decision whose reply was lost is sent again with the same
request id (applied once). Without a server for CURIA_RETRY_SECONDS (30 s) in a row, or
with a token the server refuses (UNAUTHENTICATED), the bridge stops the bot and exits 1.

The seat's token is read from CURIA_SEAT_TOKEN and is not passed on to the bot (the bot
needs no token: only the bridge talks to the server). --server, --game-id and --seat
default to CURIA_SERVER, CURIA_GAME_ID and CURIA_SEAT.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import dataclasses
import json
import logging
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import IO, Any, Protocol

import grpc

from bots.grpc_player import add_launch_arguments, check_launch_arguments, describe_result
from client.channels import OPERATOR_ONLY_ENV
from client.play import (
    DecisionRefused,
    GameEnded,
    PlayError,
    PlaySeat,
    SeatCalls,
    StreamRefused,
)
from curia_api.v1 import game_service_pb2 as pb
from hosting.launcher import start_program
from hosting.limits import Limits, exceeded
from hosting.sandbox import end_sandbox
from hosting.sandbox import exit_code as sandbox_exit_code

log = logging.getLogger("curia.stdio_bridge")

FINISHED = pb.GAME_STATUS_FINISHED
#: Longest answer line read from a bot (the server takes at most 200 characters).
MAX_LINE = 64 * 1024
#: How often a refused answer is asked again while the seat must still decide.
MAX_REASKS = 3
#: In place of the version of a question asked on a version the store has since lost.
LOST = -1
#: How much of the bot's stderr is kept to tell why it ended (`hosting.limits.exceeded`).
STDERR_TAIL = 8192
#: What the bridge logs when the bot outlives the end of the game (`curia arena check`
#: looks for it).
NOT_EXITED = "the bot did not exit"
#: A bot without limits (the bridge's default).
NO_LIMITS = Limits(0, 0, disk_mb=0)
#: The environment a bot does not get.
SECRET_ENV = ("CURIA_SEAT_TOKEN", "CURIA_BOT_KEY", *OPERATOR_ONLY_ENV)
#: The reasons (CallStatus.reason) of a refusal about the answer itself, and of one that
#: cost the seat the game (forfeit_on_illegal: the stream sends no view to tell it).
ANSWER_REASONS = ("invalid_argument", "illegal")
FORFEIT_REASON = "forfeit_on_illegal"
#: What those refusals say, for a server older than CallStatus.reason.
FORFEITS = "the seat forfeits"
ILLEGAL = "illegal decision"


# ---------------------------------------------------------------------------------------
# The messages
# ---------------------------------------------------------------------------------------
def legal_notations(view: pb.View) -> tuple[str, ...]:
    return tuple(decision.notation for decision in view.legal_decisions)


def time_left_ms(view: pb.View, now_ms: int) -> int | None:
    """The sooner of the decision deadline and the bank; None when unlimited."""
    limits = []
    if view.deadline_unix_ms:
        limits.append(max(0, view.deadline_unix_ms - now_ms))
    if view.HasField("bank_left_ms"):
        limits.append(max(0, view.bank_left_ms))
    return min(limits) if limits else None


def decide_message(view: pb.View, now_ms: int) -> dict[str, Any]:
    """The `decide` line for a view in which the seat must decide."""
    return {
        "type": "decide",
        "game": view.game,
        "variant": view.variant,
        "seat": view.seat,
        "version": view.version,
        "seat_names": list(view.seat_names),
        "observation": json.loads(view.observation_json),
        "legal": [decision.notation for decision in view.legal_decisions],
        "time_left_ms": time_left_ms(view, now_ms),
    }


def result_json(view: pb.View) -> dict[str, Any]:
    """A game result as plain JSON (ranking best first; figures in tie-break order)."""
    names = list(view.seat_names)
    result = view.result
    return {
        "reason": result.reason,
        "ranking": [list(group.seats) for group in result.ranking],
        "scores": [{
            "seat": score.seat,
            "name": names[score.seat] if score.seat < len(names) else "",
            "rank": score.rank,
            "figures": {figure.name: figure.value for figure in score.ordered_figures},
            "forfeited": score.forfeited,
            "forfeit_reason": score.forfeit_reason,
        } for score in result.scores],
    }


def final_view(started: pb.PlayGameStarted, ended: pb.PlayGameEnded) -> pb.View:
    """The seat's view of the finished game, from the stream's start and end messages:
    what the `end` line and the last log lines read."""
    return pb.View(game_id=ended.game_id, status=FINISHED, seat=ended.seat,
                   game=started.game, variant=started.variant,
                   seat_names=started.seat_names, result=ended.result,
                   forfeited_seats=sorted(score.seat for score in ended.result.scores
                                          if score.forfeited))


def answer_was_refused(refused: DecisionRefused) -> bool:
    """Whether a refusal is about the answer itself (malformed or illegal), so that asking
    again may help; not a time that is up or a game that is over."""
    if refused.reason:
        return refused.reason in ANSWER_REASONS
    return refused.code == grpc.StatusCode.INVALID_ARGUMENT or (
        refused.code == grpc.StatusCode.FAILED_PRECONDITION
        and refused.message.startswith(ILLEGAL))


def forfeits(refused: DecisionRefused) -> bool:
    """Whether a refusal cost the seat the game (forfeit_on_illegal)."""
    if refused.reason:
        return refused.reason == FORFEIT_REASON
    return FORFEITS in refused.message


def end_message(view: pb.View) -> dict[str, Any]:
    """The `end` line, once the game is over."""
    return {"type": "end", "result": result_json(view),
            "forfeited": list(view.forfeited_seats)}


def parse_answer(line: bytes) -> str:
    """The notation in a bot's answer line: the line itself, or {"decision": "..."}."""
    text = line.decode("utf-8", "replace").strip()
    if text.startswith("{"):
        with contextlib.suppress(ValueError):
            answer = json.loads(text)
            decision = answer.get("decision") if isinstance(answer, dict) else None
            if isinstance(decision, str):
                return decision.strip()
    return text


def exit_reason(code: int | None) -> str:
    """The resignation's reason for a bot that left early."""
    if code is None:
        return "stdio bot closed its stdout"
    if code < 0:
        try:
            name = f" ({signal.Signals(-code).name})"
        except ValueError:
            name = ""
        return f"stdio bot exited: signal {-code}{name}"
    return f"stdio bot exited: code {code}"


# ---------------------------------------------------------------------------------------
# The bot process
# ---------------------------------------------------------------------------------------
class BotPipe(Protocol):
    """What the bridge needs of its bot: a StdioBot, or one game of a program shared by
    many (`hosting.connect`)."""

    def send(self, message: dict[str, Any]) -> None: ...
    def close_stdin(self) -> None: ...
    def wait(self, timeout: float) -> int | None: ...
    def kill(self) -> None: ...
    def exit_reason(self, code: int | None) -> str: ...


class StdioBot:
    """The bot as a child process; its stdout lines and the game's views arrive on one
    queue (`events`), so that neither a silent bot nor a quiet game blocks the other."""

    def __init__(self, command: Sequence[str], events: queue.Queue[tuple[str, Any]],
                 limits: Limits = NO_LIMITS, sandboxed: bool = False,
                 env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
        """`env`: variables for the bot on top of ours (less SECRET_ENV); `cwd`: where it
        runs (default: here)."""
        env = {**{k: v for k, v in os.environ.items() if k not in SECRET_ENV},
               **(env or {})}
        if sandboxed:  # its command sets the bot's environment; nothing of ours goes in
            env = {}
        #: unsandboxed: its shepherd and cgroup (hosting.contain) set its limits before it
        #: runs and end every process it starts; a sandbox does both inside (hosting.sandbox)
        self.process, self.contained = start_program(
            command, env=env, sandboxed=sandboxed, limits=limits, cwd=cwd,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=sandboxed)  # a signal to our group is ours to pass on
        self.limits, self.sandboxed = limits, sandboxed
        self.events = events
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.stderr_tail = b""
        threading.Thread(target=self._read, daemon=True, name="bot-stdout").start()
        threading.Thread(target=self._write, daemon=True, name="bot-stdin").start()
        self._copier = threading.Thread(target=self._copy_stderr, daemon=True,
                                         name="bot-stderr")
        self._copier.start()

    def _copy_stderr(self) -> None:
        """The bot's stderr to ours (the seat's log, which the arena caps: hosting.botlog),
        keeping its last STDERR_TAIL bytes."""
        stderr = self.process.stderr
        assert stderr is not None
        with contextlib.suppress(OSError, ValueError):
            while chunk := os.read(stderr.fileno(), 65536):
                sys.stderr.buffer.write(chunk)
                sys.stderr.buffer.flush()
                self.stderr_tail = (self.stderr_tail + chunk)[-STDERR_TAIL:]

    def exit_reason(self, code: int | None) -> str:
        """Why the bot left early: a limit it exceeded, then how it exited."""
        self._copier.join(timeout=2.0)  # its last words
        if self.sandboxed:
            code = sandbox_exit_code(code)
        limit = exceeded(code, self.stderr_tail.decode("utf-8", "replace"), self.limits)
        return f"{limit}: {exit_reason(code)}" if limit else exit_reason(code)

    def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        with contextlib.suppress(OSError, ValueError):
            while True:
                line = stdout.readline(MAX_LINE)
                if not line:
                    break
                if len(line) == MAX_LINE and not line.endswith(b"\n"):
                    while (rest := stdout.readline(MAX_LINE)) and not rest.endswith(b"\n"):
                        pass  # an overlong line: keep its start only
                self.events.put(("line", (line, time.monotonic())))
        self.events.put(("eof", None))

    def _write(self) -> None:
        stdin: IO[bytes] | None = self.process.stdin
        assert stdin is not None
        try:
            while (line := self.lines.get()) is not None:
                stdin.write(line)
                stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            return  # the bot is gone: its stdout's end tells the main loop
        with contextlib.suppress(OSError):
            stdin.close()

    def send(self, message: dict[str, Any]) -> None:
        """Queue one JSON line for the bot (never blocks on a bot that does not read)."""
        self.lines.put(json.dumps(message).encode() + b"\n")

    def close_stdin(self) -> None:
        self.lines.put(None)

    def wait(self, timeout: float) -> int | None:
        """The bot's exit code once it has exited (its stderr copied to the end, so that
        the bridge's lines come after the bot's last words), None after `timeout`."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            code = self.process.wait(timeout=timeout)
            self._copier.join(timeout=2.0)
            return code
        return None

    def kill(self) -> None:
        """End the bot now, with every process it started (unsandboxed: its shepherd's
        sweep; sandboxed: its whole sandbox, `end_sandbox`)."""
        if self.contained is not None:
            self.contained.end(self.process)
            return
        end_sandbox(self.process)


@dataclasses.dataclass
class AnswerTimes:
    """How fast the bot answered: its own time, from a question written to its stdin to
    the answer read from its stdout (the game's clock also counts the bridge's and the
    network's share)."""

    count: int = 0
    slowest_ms: float = 0.0
    #: answers that came after another seat's simultaneous decision moved the game on
    #: (ABORTED as stale), submitted again at the newer version: normal, not the bot's
    resubmitted: int = 0

    def add(self, seconds: float) -> None:
        self.count += 1
        self.slowest_ms = max(self.slowest_ms, seconds * 1000)

    def summary(self) -> str:
        """The line the bridge ends a game's log with (`curia arena check` reads it)."""
        line = f"{self.count} answers; slowest answer {self.slowest_ms:.0f} ms (the bot's own time)"
        if self.resubmitted:
            line += (f"; {self.resubmitted} submitted again after another seat's "
                     f"simultaneous decision (normal)")
        return line


# ---------------------------------------------------------------------------------------
# The bridge
# ---------------------------------------------------------------------------------------
class Bridge:
    """One seat, played by a stdio bot."""

    def __init__(self, server: str, game_id: str, seat: int, token: str,
                 command: Sequence[str], grace: float = 2.0,
                 limits: Limits = NO_LIMITS, sandboxed: bool = False) -> None:
        self.server, self.game_id, self.seat, self.token = server, game_id, seat, token
        self.sandboxed = sandboxed
        self.command, self.grace, self.limits = list(command), grace, limits
        self.events: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.asked: collections.deque[int] = collections.deque()  # versions, in order
        self.asked_at: collections.deque[float] = collections.deque()  # when, the same
        #: the bot's own time per answer: from its question written to its answer read
        self.answer_times = AnswerTimes()
        self.asked_versions: set[int] = set()
        self.reasks: collections.Counter[int] = collections.Counter()
        #: the legal notations the bot was shown, by version asked
        self.shown: dict[int, tuple[str, ...]] = {}
        #: the bot's last answer refused as stale, with the decisions it chose among
        self.stale_answer: tuple[tuple[str, ...], str] | None = None
        #: the last answer applied, by its version (see `_confirm`)
        self.applied: dict[int, str] = {}
        #: the version of the newest turn
        self.latest = 0
        #: the lineage of each version seen (a decision names the one it was taken on)
        self.lineages: dict[int, str] = {}
        self.forfeited = False
        #: the game as the stream announced it
        self.table = pb.PlayGameStarted()
        #: the last turn (the seat's view where it must decide); the final view at the end
        self.view = pb.View()

    def run(self) -> int:
        """Start the bot, then open the seat's stream: its first contact, which may start
        the game's clock, comes only once the bot's process runs (docs/bots.md)."""
        _Stop.starting = True
        try:
            bot = StdioBot(self.command, self.events, self.limits, self.sandboxed)
        except OSError as error:
            _Stop.starting = False
            reason = f"stdio bot did not start: {error.strerror or error}"
            log.error("%s (%s)", reason, " ".join(self.command))
            with self._open() as stream:
                self._resign(stream, reason)
            return 1
        try:
            _Stop.starting = False
            if _Stop.pending is not None:  # a SIGTERM came while the bot started
                raise SystemExit(128 + _Stop.pending)
            with self._open() as stream:
                return self._play(bot, stream)
        finally:
            bot.kill()

    def play_on(self, seat: SeatCalls, bot: BotPipe) -> int:
        """Play the game on a stream opened elsewhere (a bot key's, carrying many games:
        `hosting.connect`), whose messages for this game reach `deliver`; `bot` (a
        StdioBot, or a game of a shared program) already runs, its lines on `events`."""
        try:
            return self._play(bot, seat)
        finally:
            bot.kill()

    def deliver(self, item: pb.PlayResponse | PlayError) -> None:
        """A message of the game's stream (or the stream's loss), for the bridge."""
        self._deliver(item)

    def quit(self, reason: str) -> None:
        """Resign the seat with `reason` and stop (the game goes on without it)."""
        self.events.put(("quit", reason))

    def _open(self) -> PlaySeat:
        """The seat's Play stream; its messages and its loss arrive on the event queue."""
        return PlaySeat(self.server, self.game_id, self.token, self._deliver,
                        client="curia hosting.stdio_bridge")

    def _deliver(self, item: pb.PlayResponse | PlayError) -> None:
        self.events.put(("lost", item) if isinstance(item, PlayError) else ("play", item))

    def _play(self, bot: BotPipe, stream: SeatCalls) -> int:
        while True:
            kind, payload = self.events.get()
            if kind == "play":
                if self._on_message(bot, stream, payload):
                    return self._finish(bot)
            elif kind == "line":
                line, received = payload
                self._on_answer(bot, stream, parse_answer(line), received)
            elif kind == "eof":
                return self._bot_left(bot, stream)
            elif kind == "lost":
                return self._lost(payload)
            elif kind == "quit":
                log.warning("resigning seat %d of game %s: %s", self.seat, self.game_id,
                            payload)
                self._resign(stream, payload)
                return 1

    def _on_message(self, bot: BotPipe, stream: SeatCalls,
                    message: pb.PlayResponse) -> bool:
        """Handle one message of the stream; True once the game is over."""
        kind = message.WhichOneof("kind")
        if kind == "game_started":
            self._on_start(message.game_started)
        elif kind == "turn":
            self._on_turn(bot, stream, message.turn)
            if self.stale_answer is not None:
                self._resubmit_stale(stream)
        elif kind == "game_ended":
            self.view = final_view(self.table, message.game_ended)
            return True
        return False

    def _on_start(self, started: pb.PlayGameStarted) -> None:
        """The game's start (again after each reconnection)."""
        if not self.table.game_id and started.waiting_for_seats:
            log.info("the game is waiting for open seats to be taken")
        self.table = started

    def _on_turn(self, bot: BotPipe, stream: SeatCalls, view: pb.View) -> None:
        """Ask the bot, unless it was asked at this version or is already deciding among
        the same decisions."""
        if self._rolled_back(view):
            self._forget_lost_versions(view)
        self.latest, self.view = view.version, view
        self.lineages[view.version] = view.lineage
        if self.seat in view.forfeited_seats:
            self._note_forfeit(view.version)
        elif view.version in self.applied:
            self._confirm(stream, view.version)
        elif view.legal_decisions and view.version not in self.asked_versions:
            legal = legal_notations(view)
            if self._answer_pending_for(legal) or (
                    self.stale_answer is not None and self.stale_answer[0] == legal):
                self.asked_versions.add(view.version)  # the bot's answer will do
            else:
                self._ask(bot, view)

    def _rolled_back(self, view: pb.View) -> bool:
        """Whether a turn shows that the store lost versions seen before: it is older
        than the newest turn, or of another lineage at a version seen."""
        return view.version < self.latest or \
            self.lineages.get(view.version, view.lineage) != view.lineage

    def _confirm(self, stream: SeatCalls, version: int) -> None:
        """A turn seen again after the seat's decision at its version was applied: the
        stream resumed before the decision's reply came, or the store lost the decision
        (it rolled back to that very version). The same request again is applied once:
        a duplicate in the first case, the decision again in the second."""
        log.debug("the turn at version %d again: its decision submitted again", version)
        self._submit(None, stream, version, self.applied.pop(version))

    def _forget_lost_versions(self, view: pb.View) -> None:
        """The store rolled back to `view`'s version (it lost later ones): answers to the
        questions asked since are dropped when they come, and the bot is asked again
        where the seat must decide."""
        log.warning("the game was rolled back to version %d (the store lost later "
                    "versions); asking again from there", view.version)
        self.asked = collections.deque(LOST for _ in self.asked)
        self.asked_versions.clear()
        self.shown.clear()
        self.reasks.clear()
        self.lineages.clear()
        self.applied.clear()
        self.stale_answer = None
        self.latest = view.version

    def _note_forfeit(self, version: int) -> None:
        if not self.forfeited:
            log.warning("seat %d forfeited at version %d; following the game to its end",
                        self.seat, version)
        self.forfeited = True

    def _answer_pending_for(self, legal: tuple[str, ...]) -> bool:
        """Whether the bot is already deciding among exactly these decisions: a newer
        version while a simultaneous choice is pending (another seat decided). The bot is
        not asked twice, so its choices do not depend on who answered first."""
        return bool(self.asked) and self.shown.get(self.asked[-1]) == legal

    def _ask(self, bot: BotPipe, view: pb.View, refused: str | None = None) -> None:
        message = decide_message(view, int(time.time() * 1000))
        if refused is not None:
            message["refused"] = refused
        bot.send(message)
        self.asked.append(view.version)
        self.asked_at.append(time.monotonic())
        self.asked_versions.add(view.version)
        self.shown[view.version] = legal_notations(view)

    def _on_answer(self, bot: BotPipe, stream: SeatCalls, text: str,
                   received: float) -> None:
        if not self.asked:
            log.warning("ignored a line the bot wrote unasked: %.80r", text)
            return
        version = self.asked.popleft()
        self.answer_times.add(received - self.asked_at.popleft())
        if version == LOST:
            log.info("dropped %.80r: asked on a version the store has lost", text)
            return
        if version < self.latest and not self.forfeited and \
                self.shown.get(version) == legal_notations(self.view):
            version = self.latest  # the same choice, still open at the newer version
        if version < self.latest or self.forfeited:
            log.info("dropped %.80r: an answer for version %d, the game is at %d", text,
                     version, self.latest)
            return
        self._submit(bot, stream, version, text)

    def _submit(self, bot: BotPipe | None, stream: SeatCalls, version: int,
                text: str) -> None:
        """Submit the bot's answer at `version`. Refused as stale (another seat decided
        first), it is kept: a newer turn with the same decisions gets it again."""
        lineage = self.lineages.get(version, "")
        request_id = f"{self.seat}-{version}-{lineage or 0}-{self.reasks[version]}"
        self.stale_answer = None
        try:
            stream.submit(version, text, request_id, lineage)
        except DecisionRefused as refused:
            self._on_refused(bot, version, text, refused)
            return
        except GameEnded:  # its end is on the event queue
            log.debug("%.80r at version %d: the game ended meanwhile", text, version)
            return
        self.applied = {version: text}

    def _on_refused(self, bot: BotPipe | None, version: int, text: str,
                    refused: DecisionRefused) -> None:
        """A refused answer: kept if stale, asked again if illegal without penalty; a
        refusal that is not about the answer (the game gone) raises."""
        if refused.code == grpc.StatusCode.ABORTED:  # normal in a simultaneous choice
            log.debug("%.80r at version %d stale (%s)", text, version, refused)
            self.answer_times.resubmitted += 1
            self.stale_answer = (self.shown.get(version, ()), text)
            return
        log.warning("%.80r at version %d refused (%s)", text, version, refused)
        if refused.code not in (grpc.StatusCode.INVALID_ARGUMENT,
                                grpc.StatusCode.FAILED_PRECONDITION):
            raise refused
        if forfeits(refused):  # no more turns come
            self._note_forfeit(version)
        elif bot is not None and answer_was_refused(refused):
            self._maybe_reask(bot, version, refused.message or refused.code.name)

    def _resubmit_stale(self, stream: SeatCalls) -> None:
        """The stale answer again, at the newest turn, if the seat still chooses among
        the same decisions there (a simultaneous choice another seat made first); dropped
        once the seat has other decisions to choose from (the bot is asked then)."""
        assert self.stale_answer is not None
        legal, text = self.stale_answer
        view = self.view
        current = legal_notations(view)
        if self.forfeited or (current and current != legal):
            self.stale_answer = None
        elif current:
            self.shown[view.version] = legal
            self._submit(None, stream, view.version, text)

    def _maybe_reask(self, bot: BotPipe, version: int, refusal: str) -> None:
        """A refusal that changed nothing (a game without forfeit_on_illegal): ask again,
        a few times, on the last turn while it is still at `version` (the stream sends no
        second turn for the same version)."""
        view = self.view
        if (view.version != version or not view.legal_decisions or self.forfeited
                or self.reasks[version] >= MAX_REASKS):
            return
        self.reasks[version] += 1
        self._ask(bot, view, refused=refusal)

    def _finish(self, bot: BotPipe) -> int:
        bot.send(end_message(self.view))
        bot.close_stdin()
        code = bot.wait(self.grace)
        if code is None:
            log.warning("%s %.1f s after the end: killed", NOT_EXITED, self.grace)
        log.info("%s", describe_result(self.view, self.seat))
        log.info("%s", self.answer_times.summary())
        return 0

    def _bot_left(self, bot: BotPipe, stream: SeatCalls) -> int:
        code = bot.wait(1.0)
        reason = bot.exit_reason(code)
        log.error("%s before the game was over: resigning seat %d", reason, self.seat)
        self._resign(stream, reason)
        return 1

    def _resign(self, stream: SeatCalls, reason: str) -> None:
        try:
            stream.resign(reason)
        except PlayError as error:
            log.warning("resignation refused (%s)", error)

    def _lost(self, error: PlayError) -> int:
        if isinstance(error, StreamRefused):
            log.error("the server refused to let seat %d play game %s: %s", self.seat,
                      self.game_id, error)
        else:
            log.error("lost the game: %s", error)
        return 1


# ---------------------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------------------
def split_argv(argv: list[str]) -> tuple[list[str], list[str]]:
    """(the bridge's own arguments, the bot command) around the first `--`."""
    if "--" not in argv:
        return argv, []
    cut = argv.index("--")
    return argv[:cut], argv[cut + 1:]


def parse_args(argv: list[str]) -> argparse.Namespace:
    own, command = split_argv(argv)
    parser = argparse.ArgumentParser(
        prog="python3 -m hosting.stdio_bridge",
        usage="%(prog)s [--server HOST:PORT] [--game-id ID] [--seat N] -- COMMAND...",
        description="Play a seat of a Curia game for a stdio bot (docs/bots.md). The seat "
                    "token comes from CURIA_SEAT_TOKEN.")
    add_launch_arguments(parser)
    parser.add_argument("--grace", type=float, default=2.0,
                        help="seconds the bot has to exit after the end (default 2)")
    parser.add_argument("--memory-mb", type=int, default=0,
                        help="the bot's address-space limit, MiB (default 0: none)")
    parser.add_argument("--cpu-seconds", type=int, default=0,
                        help="the bot's CPU-time limit, seconds (default 0: none)")
    parser.add_argument("--disk-mb", type=int, default=0,
                        help="what the bot's sandbox may hold in files, MiB (its sandbox "
                             "sets it; named here to tell a full disk from a crash)")
    parser.add_argument("--sandboxed", action="store_true",
                        help="the command runs the bot in its sandbox (hosting.sandbox), "
                             "which sets its limits itself")
    args = parser.parse_args(own)
    check_launch_arguments(parser, args)
    if not command:
        parser.error("no bot command: put it after `--`")
    args.command = command
    return args


class _Stop:
    """SIGTERM while the bot's process is being started waits until it is (`starting`,
    `pending`): raised in the middle of Popen, the exit would leave a sandbox started
    and nobody to end it."""

    starting = False
    pending: int | None = None


def _terminate(signum: int, frame: FrameType | None) -> None:
    if _Stop.starting:
        _Stop.pending = signum
        return
    raise SystemExit(128 + signum)  # unwinds through Bridge.run, which kills the bot


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format=f"stdio_bridge[seat {args.seat}]: %(message)s")
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _terminate)
    try:
        return Bridge(args.server, args.game_id, args.seat, args.token, args.command,
                      args.grace, Limits(args.memory_mb, args.cpu_seconds,
                             disk_mb=args.disk_mb),
                      args.sandboxed).run()
    except PlayError as error:
        log.error("giving up: %s", error)
        return 1


if __name__ == "__main__":
    sys.exit(main())
