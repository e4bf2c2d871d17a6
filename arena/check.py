"""`curia arena check BOT_DIR`: the compliance check a bot author runs before entering a
tournament (fastchess has one for chess engines).

It reads the bot's manifest, runs the arena's preflight and the bot's build, then, for
each game the bot claims to play (the manifest's `games`, or every game), plays a few
games through a real server against random bots (threads of this process): one per
variant at its fewest seats, and a long one, the full game at the default variant's most
seats. The bot is started exactly as the arena starts it (`hosting.launcher.Launcher`:
command, arguments, environment, limits, stdio bridge), under tournament rules (a
timeout or an illegal decision forfeits the seat; no clock runs before the bot has made
contact with its game). Each check then gets a PASS or FAIL line, and a failure shows the
end of the bot's stderr in the game that failed. A bot slow to start fails its own line
("slow to start (N ms, limit M ms)"): the check waits past the limit to measure it, where
a tournament would call the game void.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

import games
from arena.config import BotManifest, ConfigError
from arena.runner import (
    ARENA_RETRIES,
    GameVoid,
    Startup,
    end_void_game,
    follow_game,
)
from bots import make_bot
from bots.play_client import play_seat
from client.retry import RetryingClient
from client.unary import resign
from curia_api.v1 import game_service_pb2 as pb
from games.core import derive_seed
from hosting.launcher import BotProcess, BotStartError, Launcher
from hosting.stdio_bridge import NOT_EXITED

#: Seconds a bot has to exit by itself once its game is over (the bridge gives a stdio
#: bot 2 of them).
EXIT_GRACE = 5.0
#: Lines of the bot's stderr shown under a failure.
STDERR_LINES = 30
#: The start-up limit by default (the tournament file's `[time] startup_ms`).
STARTUP_MS = 10_000


def patience_ms(startup_ms: int) -> int:
    """How long the check waits for a bot to make contact, to measure a slow start."""
    return max(2 * startup_ms, startup_ms + 10_000)


@dataclass(frozen=True)
class CheckLine:
    """One check's verdict; `stderr` is the bot's, in the game that failed it."""

    name: str
    passed: bool
    detail: str
    stderr: str = ""
    #: False for a check no game could judge (SKIP): it neither passes nor fails
    judged: bool = True

    @property
    def verdict(self) -> str:
        return "SKIP" if not self.judged else "PASS" if self.passed else "FAIL"

    def text(self) -> str:
        line = f"{self.verdict}  {self.name}: {self.detail}"
        if self.passed or not self.stderr.strip():
            return line
        tail = "\n".join(f"    | {row}" for row in self.stderr.splitlines()[-STDERR_LINES:])
        return f"{line}\n    the bot's stderr (last lines):\n{tail}"


@dataclass(frozen=True)
class CheckGame:
    """One game of the check: the bot in `seat`, random bots in the others."""

    game: str
    variant: str
    seats: int
    seat: int
    long: bool = False

    def label(self) -> str:
        kind = "long game, " if self.long else ""
        return f"{kind}{self.game} {self.variant}, {self.seats} seats, seat {self.seat}"


@dataclass(frozen=True)
class Played:
    """What one check game showed about the bot."""

    plan: CheckGame
    #: The bot's forfeit reason ("" if none); "did not start: ..." if it never ran.
    forfeit: str
    #: Decisions the bot took itself.
    decisions: int
    #: Longest time between the decision before one of the bot's and the bot's, ms.
    slowest_ms: int
    #: Its exit code once the game was over, None if it had to be stopped.
    exit_code: int | None
    stderr: str
    #: Milliseconds from its launch to its contact with the game; None if it made none.
    startup_ms: int | None = None
    #: Why the game was void (no contact within the check's patience), or "".
    void: str = ""

    @property
    def started(self) -> bool:
        """It ran and answered (even if late or wrongly) instead of dying or never
        running."""
        return self.decisions > 0 or self.forfeit in ("timeout", "illegal")

    @property
    def crashed(self) -> bool:
        return bool(self.forfeit) and not self.forfeit.startswith(
            ("timeout", "illegal", "exceeded"))


def plan_games(game: str) -> list[CheckGame]:
    """A game per variant at its fewest seats, then the long game."""
    descriptor = games.GAMES[game]
    plans = [CheckGame(game, v.name, v.min_seats, seat=i % v.min_seats)
             for i, v in enumerate(descriptor.variants)]
    default = descriptor.variants[0]
    plans.append(CheckGame(game, default.name, default.max_seats,
                           seat=default.max_seats // 2, long=True))
    return plans


# ---------------------------------------------------------------------------------------
# Playing the check games
# ---------------------------------------------------------------------------------------
def play_check_game(server: str, bot: BotManifest, plan: CheckGame, folder: Path,
                    decision_ms: int, seed: int, startup_ms: int = STARTUP_MS) -> Played:
    """Play one check game to its end; the bot's conduct in it."""
    with RetryingClient.to(server, ARENA_RETRIES) as client:
        created = client.create_game(plan.game, plan.variant, plan.seats, seed=seed,
                                     decision_ms=decision_ms, on_timeout="forfeit",
                                     forfeit_on_illegal=True, wait_for_players=True)
        tokens = {cred.seat: cred.token for cred in created.seats}
        launcher = Launcher.make("auto", [bot], hidden=[folder])
        with random_opponents(server, created.game_id, tokens, plan, seed), \
                launcher.serving(server):
            log = folder / f"{plan.game}-{plan.variant}-{plan.seats}-seat{plan.seat}.log"
            try:
                process = launcher.start(bot, server=server, game_id=created.game_id,
                                         seat=plan.seat, token=tokens[plan.seat],
                                         seed=derive_seed(seed, "bot"), log_path=log)
            except BotStartError as error:
                resign(client, created.game_id, tokens[plan.seat], "did not start")
                return Played(plan, f"did not start: {error}", 0, 0, None, "")
            startup = Startup(startup_ms, give_up_ms=patience_ms(startup_ms),
                              launched={plan.seat: time.monotonic()})
            void = ""
            try:
                follow_game(client, created.game_id, {plan.seat: process},
                            {plan.seat: tokens[plan.seat]}, timeout_s=0, startup=startup)
                code = exit_after_end(process)
            except GameVoid as error:
                void = str(error)
            finally:
                process.stop()
            if void:  # the bot stopped first: nothing can start the game meanwhile
                end_void_game(client, created.game_id, tokens, void)
                return Played(plan, "", 0, 0, None, process.log_tail(), void=void)
        record = client.record(created.game_id)
    return replace(played(plan, record, code, process.log_tail()),
                   startup_ms=startup.contact_ms.get(plan.seat))


@contextmanager
def random_opponents(server: str, game_id: str, tokens: dict[int, str], plan: CheckGame,
                     seed: int) -> Iterator[None]:
    """Random bots in every seat but the bot's, as threads, for the `with` block."""
    threads = [threading.Thread(
        target=play_seat, daemon=True, name=f"random-{seat}",
        args=(server, game_id, seat, token, make_bot("random", seed + seat, plan.game),
              seed + seat)) for seat, token in tokens.items() if seat != plan.seat]
    for thread in threads:
        thread.start()
    try:
        yield
    finally:
        for thread in threads:
            thread.join(timeout=30)


def exit_after_end(process: BotProcess) -> int | None:
    """The bot's exit code if it exits by itself within EXIT_GRACE of the end, else None
    (a stdio bot the bridge had to kill counts as not exiting)."""
    try:
        code = process.process.wait(timeout=EXIT_GRACE)
    except subprocess.TimeoutExpired:
        return None
    if process.manifest.protocol == "stdio" and NOT_EXITED in process.log_tail():
        return None
    return code


def played(plan: CheckGame, record: pb.GameRecord, code: int | None, stderr: str) -> Played:
    """The bot's conduct from the game's record."""
    scores = {score.seat: score for score in record.result.scores}
    mine = scores[plan.seat]
    slowest, previous = 0, None
    decisions = 0
    for decision in record.decisions:
        if decision.seat == plan.seat and decision.cause == pb.DECISION_CAUSE_SEAT:
            decisions += 1
            if previous is not None:
                slowest = max(slowest, decision.unix_ms - previous)
        previous = decision.unix_ms
    forfeit = (mine.forfeit_reason or "forfeited") if mine.forfeited else ""
    own = bridge_slowest_ms(stderr)  # a stdio bot's own time, measured by its bridge
    return Played(plan, forfeit, decisions, slowest if own is None else own, code, stderr)


def bridge_slowest_ms(log: str) -> int | None:
    """The slowest answer the stdio bridge measured (question written to answer read,
    the bot's own time: `AnswerTimes.summary`), or None (a gRPC bot's log)."""
    found = re.findall(r"slowest answer (\d+) ms \(the bot's own time\)", log)
    return int(found[-1]) if found else None


# ---------------------------------------------------------------------------------------
# The verdicts
# ---------------------------------------------------------------------------------------
def verdicts(games_played: list[Played], decision_ms: int,
             startup_ms: int = STARTUP_MS) -> list[CheckLine]:
    """One line per check of the games, from what each game showed."""
    started = [p for p in games_played if p.startup_ms is not None or p.void]
    return [
        verdict("starts", games_played, lambda p: p.started,
                "it ran and answered in every game",
                lambda p: p.forfeit or p.void or "it took no decision"),
        verdict("starts in time", started,
                lambda p: p.startup_ms is not None and p.startup_ms <= startup_ms,
                f"slowest start {max((p.startup_ms or 0) for p in started or games_played)} "
                f"ms (limit {startup_ms} ms)", lambda p: slow_start_text(p, startup_ms)),
        verdict("answers in time", games_played, lambda p: p.forfeit != "timeout",
                f"slowest answer {max(p.slowest_ms for p in games_played)} ms "
                f"(limit {decision_ms} ms)", lambda p: f"timed out ({decision_ms} ms)"),
        verdict("legal decisions", games_played, lambda p: p.forfeit != "illegal",
                f"{sum(p.decisions for p in games_played)} decisions, all legal",
                lambda p: "it submitted an illegal decision (see the log)"),
        verdict("survives a long game", games_played,
                lambda p: not p.crashed and not (p.plan.long and p.forfeit),
                "every game played to its end, the long one included",
                lambda p: f"forfeited: {p.forfeit}"),
        verdict("within its limits", games_played,
                lambda p: not p.forfeit.startswith("exceeded"),
                "memory_mb and cpu_seconds never exceeded", lambda p: p.forfeit),
        verdict("exits at the end", [p for p in games_played if not p.forfeit and not p.void],
                lambda p: p.exit_code == 0,
                "exited 0 by itself after every game",
                lambda p: f"still running {EXIT_GRACE:.0f} s after the end"
                if p.exit_code is None else f"exited with code {p.exit_code}"),
    ]


def slow_start_text(game: Played, startup_ms: int) -> str:
    """"slow to start (N ms, limit M ms)", N measured, or the patience that ran out."""
    if game.startup_ms is None:
        return (f"slow to start (no contact within {patience_ms(startup_ms)} ms, limit "
                f"{startup_ms} ms)")
    return f"slow to start ({game.startup_ms} ms, limit {startup_ms} ms)"


def verdict(name: str, games_played: list[Played], ok: Callable[[Played], bool],
            passed: str, failed: Callable[[Played], str]) -> CheckLine:
    """PASS if `ok` holds in every game; else FAIL on the first game where it does not."""
    for game in games_played:
        if not ok(game):
            return CheckLine(name, False, f"{game.plan.label()}: {failed(game)}",
                             game.stderr)
    if not games_played:  # every game ended otherwise: the failures above say how
        return CheckLine(name, True, "not judged: no game ended in a way that shows it",
                         judged=False)
    return CheckLine(name, True, passed)


# ---------------------------------------------------------------------------------------
# The whole check
# ---------------------------------------------------------------------------------------
def load_manifest(bot_dir: Path) -> tuple[BotManifest | None, CheckLine]:
    """The manifest of a bot folder (or the manifest file given)."""
    path = bot_dir / "bot.toml" if bot_dir.is_dir() else bot_dir
    try:
        bot = BotManifest.load(path)
    except ConfigError as error:
        return None, CheckLine("manifest", False, str(error))
    return bot, CheckLine("manifest", True, f"{bot.name} ({bot.language}, {bot.protocol}), "
                                            f"plays {', '.join(bot.claimed_games())}")


def build(bot: BotManifest, out: TextIO, build_network: bool = False) -> CheckLine:
    """The arena's preflight and the bot's build, in its sandbox where the host has one
    (as a tournament's "auto")."""
    try:
        Launcher.make("auto", [bot], build_network=build_network).prepare(out)
    except ConfigError as error:
        return CheckLine("build", False, str(error))
    step = f"built with {' '.join(bot.build)}" if bot.build else "no build step"
    return CheckLine("build", True, f"{step}; command {list(bot.command)} found")


def prepare(bot_dir: Path, game: str | None, out: TextIO,
            build_network: bool = False) -> BotManifest | None:
    """The manifest, game and build checks, each printed; the bot if all pass."""
    bot, line = load_manifest(bot_dir)
    if not show(line, out) or bot is None:
        return None
    if game is not None and not show(game_line(bot, game), out):
        return None
    return bot if show(build(bot, out, build_network), out) else None


def show(line: CheckLine, out: TextIO) -> bool:
    """Print a check's line; whether it passed."""
    print(line.text(), file=out, flush=True)
    return line.passed


def check_bot(bot_dir: Path, out: TextIO, serve: Callable[[], AbstractContextManager[str]],
              *, game: str | None = None, decision_ms: int = 5000, seed: int = 1,
              logs: Path | None = None, startup_ms: int = STARTUP_MS,
              build_network: bool = False) -> bool:
    """Run every check, printing one line each; True if all pass. `serve()` gives the
    server to play on (started only once the bot is built)."""
    bot = prepare(bot_dir, game, out, build_network)
    if bot is None:
        return False
    passed = True
    with serve() as server, log_folder(logs) as folder:
        for name in [game] if game else bot.claimed_games():
            print(f"\n{name}:", file=out, flush=True)
            results = play_all(server, bot, name, folder, decision_ms, seed, out,
                               startup_ms)
            for line in verdicts(results, decision_ms, startup_ms):
                print(line.text(), file=out, flush=True)
                passed = passed and line.passed
    return passed


def game_line(bot: BotManifest, game: str) -> CheckLine:
    """The --game asked for: a known game the bot claims to play."""
    if game not in games.GAMES:
        return CheckLine("game", False, f"unknown game {game!r}; games: "
                                        f"{', '.join(sorted(games.GAMES))}")
    if not bot.plays(game):
        return CheckLine("game", False, f"the manifest's games = {list(bot.games)} does not "
                                        f"name {game}")
    return CheckLine("game", True, game)


def play_all(server: str, bot: BotManifest, game: str, folder: Path, decision_ms: int,
             seed: int, out: TextIO, startup_ms: int = STARTUP_MS) -> list[Played]:
    """The check games of one game, in order; stops after a bot that did not start (or
    made no contact at all)."""
    results = []
    for number, plan in enumerate(plan_games(game)):
        print(f"  playing {plan.label()}", file=out, flush=True)
        result = play_check_game(server, bot, plan, folder, decision_ms,
                                 derive_seed(seed, game, number), startup_ms)
        results.append(result)
        if result.forfeit.startswith("did not start") or result.void:
            break
    return results


@contextmanager
def log_folder(logs: Path | None) -> Iterator[Path]:
    """The folder for the bot's logs: `logs` (kept), or a temporary one."""
    if logs is not None:
        logs.mkdir(parents=True, exist_ok=True)
        yield logs
        return
    with tempfile.TemporaryDirectory(prefix="curia-check-") as folder:
        yield Path(folder)
