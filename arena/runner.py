"""Running a tournament: bot processes, games on the service, results kept as they finish.

The arena is a client of the public gRPC API like any other. For each game it creates
the game (forfeit on timeout and on illegal decisions), starts one process per seat with
the launch protocol of docs/bots.md, watches the game as a spectator, resigns a seat whose
process dies, and stops every process at the end. Each result is appended to
`results.jsonl` the moment its game ends, so an interrupted tournament resumes where it
stopped; each game's full record is kept in `games/`. A server or Redis away for a moment
(UNAVAILABLE, DEADLINE_EXCEEDED) is waited out, for at most RETRY_SECONDS in a row.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import grpc
from google.protobuf.json_format import MessageToDict

from arena.config import BotManifest, ConfigError, TournamentConfig, shown
from arena.limits import apply_limits, exceeded
from arena.ratings import GameOutcome
from arena.schedule import SCHEDULE_VERSION, ScheduledGame, gauntlet, round_robin, sprt_games
from arena.sprt import sprt_verdict
from curia.v1 import game_service_pb2 as pb
from games.core import derive_seed
from service.channels import OPERATOR_ONLY_ENV
from service.retry import TRANSIENT, RetryingClient, RetryPolicy

FINISHED = pb.GAME_STATUS_FINISHED
POLL_SECONDS = 0.05
#: A server or Redis away for a moment is waited out for at most this many seconds in a
#: row, then the tournament fails loudly.
RETRY_SECONDS = 60.0
#: The arena's calls: transient failures retried (`service.retry`) for RETRY_SECONDS.
ARENA_RETRIES = RetryPolicy(codes=TRANSIENT, retries=None, seconds=RETRY_SECONDS)


class BotStartError(ConfigError):
    """A bot whose process could not be started at all."""


def bot_environment() -> dict[str, str]:
    """The arena's environment less what only the host may hold (the operator credential):
    what a bot process starts with."""
    return {k: v for k, v in os.environ.items() if k not in OPERATOR_ONLY_ENV}


@dataclass
class BotProcess:
    """One bot playing one seat of one game, as a process group of its own. Its limits
    are set on its process; a stdio bot's bridge sets them on the bot it starts."""

    manifest: BotManifest
    process: subprocess.Popen[bytes]
    log: IO[bytes]
    log_path: Path

    @classmethod
    def start(cls, manifest: BotManifest, *, server: str, game_id: str, seat: int,
              token: str, seed: int, log_path: Path) -> BotProcess:
        args = ["--server", server, "--game-id", game_id, "--seat", str(seat)]
        env = {**bot_environment(), "CURIA_SERVER": server, "CURIA_GAME_ID": game_id,
               "CURIA_SEAT": str(seat), "CURIA_SEAT_TOKEN": token, "CURIA_BOT_SEED": str(seed)}
        command = manifest.launch_command(sys.executable, args)
        log = log_path.open("wb")
        try:
            process = subprocess.Popen(command, cwd=manifest.workdir, env=env,
                                       stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                       start_new_session=True)
        except OSError as error:
            log.close()
            raise BotStartError(f"bot {manifest.name!r}: cannot start {' '.join(command)!r} "
                                f"in {manifest.workdir}: {error.strerror or error}") from None
        if manifest.protocol == "grpc":
            apply_limits(process.pid, manifest.limits)
        return cls(manifest, process, log, log_path)

    def exit_code(self) -> int | None:
        return self.process.poll()

    def ended_reason(self) -> str:
        """Why a bot that exited before the end did: a limit it exceeded, or a crash."""
        code = self.process.returncode
        cause = exceeded(code, self.log_tail(), self.manifest.limits) or "crashed"
        how = f"killed by signal {-code}" if code is not None and code < 0 else \
            f"exited with code {code}"
        return f"{cause}: {how} before the end"

    def log_tail(self, size: int = 8192) -> str:
        """The end of what the bot wrote (stderr and, for a gRPC bot, stdout)."""
        with contextlib.suppress(OSError), self.log_path.open("rb") as handle:
            handle.seek(max(0, handle.seek(0, os.SEEK_END) - size))
            return handle.read().decode("utf-8", "replace")
        return ""

    def note(self, text: str) -> None:
        """A line of the arena's own in the bot's log."""
        with contextlib.suppress(OSError, ValueError):
            self.log.write(f"arena: {text}\n".encode())
            self.log.flush()

    def stop(self, grace: float = 2.0) -> None:
        """SIGTERM to its process group, then SIGKILL after `grace` seconds."""
        for sig, wait_s in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
            if self.process.poll() is not None:
                break
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=wait_s)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)  # stray children of the bot
        self.log.close()


def build_bots(manifests: Iterable[BotManifest], out: IO[str],
               timeout: float = 600) -> None:
    """Run each manifest's build command once, in its folder; ConfigError if one fails."""
    for manifest in manifests:
        if not manifest.build:
            continue
        print(f"building {manifest.name}: {' '.join(manifest.build)}", file=out, flush=True)
        try:
            done = subprocess.run(manifest.build, cwd=manifest.workdir, capture_output=True,
                                  text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as error:
            raise ConfigError(f"building {manifest.name} failed: {error}") from None
        if done.returncode != 0:
            raise ConfigError(f"building {manifest.name} failed (exit code "
                              f"{done.returncode}):\n{done.stdout[-2000:]}"
                              f"{done.stderr[-2000:]}")


def command_problem(words: tuple[str, ...], workdir: Path) -> str | None:
    """Why a command cannot be run from `workdir`, or None: its program is missing, or
    (`{python} script.py`) its script."""
    if words[0] == "{python}":
        script = words[1] if len(words) > 1 else "-"
        missing = not script.startswith("-") and not (workdir / script).is_file()
        return f"the script {script!r} does not exist in {workdir}" if missing else None
    return executable_problem(words[0], workdir)


def executable_problem(word: str, workdir: Path) -> str | None:
    """Why a program (a command's first word) cannot be run from `workdir`, or None."""
    if os.sep in word:
        path = workdir / word
        if not path.is_file():
            return f"{word!r} does not exist in {workdir}"
        return None if os.access(path, os.X_OK) else f"{word!r} is not executable"
    return None if shutil.which(word) else f"{word!r} is not on PATH"


def preflight(manifest: BotManifest, *, built: bool) -> list[str]:
    """What keeps a bot from being built (`built` False) or started (True): a missing
    workdir, a build or bot command that does not exist. Each names the bot."""
    where = f"bot {manifest.name!r} ({shown(manifest.path)})"
    if not manifest.workdir.is_dir():
        return [f"{where}: workdir {shown(manifest.workdir)} does not exist"]
    commands = [("command", manifest.command)] if built else \
        [("build", manifest.build)] if manifest.build else []
    return [f"{where}: {what} {list(words)}: {problem}" for what, words in commands
            if (problem := command_problem(words, manifest.workdir))]


def check_bots(manifests: Iterable[BotManifest], out: IO[str]) -> None:
    """The preflight of a tournament: every workdir and build command, the builds, then
    every bot command; ConfigError naming each bot and its problem."""
    manifests = list(manifests)
    for built in (False, True):
        problems = [p for manifest in manifests for p in preflight(manifest, built=built)]
        if problems:
            raise ConfigError("\n".join(problems))
        if not built:
            build_bots(manifests, out)


@dataclass(frozen=True)
class Progress:
    """How far a tournament's output folder is."""

    done: int
    left: int
    total: int
    sequential: bool = False  # SPRT: `total` is max_games, a cap

    def line(self) -> str:
        """"resuming: 39 of 90 games done", "complete: nothing to play", ..."""
        of = f"at most {self.total} (SPRT)" if self.sequential else str(self.total)
        if self.left == 0:
            return f"complete: nothing to play ({self.done} games in results.jsonl)"
        if self.done == 0:
            return f"starting: {of} games"
        return f"resuming: {self.done} of {of} games done"


@dataclass
class ResultsFile:
    """`results.jsonl`: one finished game per line, appended and flushed as games end."""

    path: Path
    lock: threading.Lock = field(default_factory=threading.Lock)

    def load(self) -> list[GameOutcome]:
        if not self.path.exists():
            return []
        outcomes = []
        for line in self.path.read_text().splitlines():
            with contextlib.suppress(ValueError, KeyError, TypeError):  # a torn last line
                outcomes.append(GameOutcome.from_json(json.loads(line)))
        return outcomes

    def append(self, outcome: GameOutcome) -> None:
        with self.lock, self.path.open("a") as handle:
            handle.write(json.dumps(outcome.to_json(), sort_keys=True) + "\n")
            handle.flush()
            os.fsync(handle.fileno())


class Tournament:
    """Plays a TournamentConfig's games against a server; see the module docstring."""

    def __init__(self, config: TournamentConfig, server: str, output: Path,
                 on_result: Callable[[list[GameOutcome], int], None] | None = None) -> None:
        self.config = config
        self.server = server
        self.output = output
        self.on_result = on_result
        self.manifests = {bot.name: bot for bot in config.bots}
        self.results = ResultsFile(output / "results.jsonl")
        self._outcomes: list[GameOutcome] = []
        self._stop = threading.Event()

    # -- schedule ---------------------------------------------------------------------
    def schedule(self) -> list[ScheduledGame]:
        """The fixed schedule (round-robin, gauntlet); SPRT games come from `sprt_games`."""
        names = [bot.name for bot in self.config.bots]
        c = self.config
        if c.format == "gauntlet":
            assert c.challenger is not None
            return gauntlet(c.challenger, names, c.seats, c.rounds, c.seed)
        return round_robin(names, c.seats, c.rounds, c.seed)

    def _games(self) -> Iterator[ScheduledGame]:
        c = self.config
        if c.format == "sprt":
            assert c.sprt is not None
            names = [bot.name for bot in c.bots]
            for game in sprt_games(c.sprt.a, c.sprt.b, names, c.seats, c.seed):
                if game.index >= c.sprt.max_games or self._sprt_decided():
                    return
                yield game
        else:
            yield from self.schedule()

    def total_games(self) -> int:
        """Games in the schedule (SPRT: max_games, a cap), counted without building it."""
        c = self.config
        if c.format == "sprt" and c.sprt:
            return c.sprt.max_games
        others = len(c.bots) - (c.format == "gauntlet")
        groups = math.comb(others, c.seats - (c.format == "gauntlet"))
        return groups * c.seats * c.rounds

    def _sprt_decided(self) -> bool:
        """The SPRT has stopped (H0, H1 or max_games) on the games finished so far, read
        in index order up to the first unfinished one (see arena.sprt)."""
        spec = self.config.sprt
        assert spec is not None
        return sprt_verdict(self._outcomes, spec.a, spec.b, spec).stopped

    def progress(self) -> Progress:
        """Games done (in results.jsonl) and left to play; refuses (ConfigError) a folder
        that holds another tournament."""
        self._check_same_tournament()
        self._outcomes = self.results.load()
        done = {o.index for o in self._outcomes}
        left = sum(1 for game in self._games() if game.index not in done)
        return Progress(done=len(done), left=left, total=self.total_games(),
                        sequential=self.config.format == "sprt")

    # -- running ----------------------------------------------------------------------
    def run(self) -> list[GameOutcome]:
        """Play every game not yet in results.jsonl; return all outcomes, by index."""
        (self.output / "games").mkdir(parents=True, exist_ok=True)
        (self.output / "logs").mkdir(exist_ok=True)
        self._check_same_tournament()
        self._outcomes = self.results.load()
        done = {o.index for o in self._outcomes}
        pending = (g for g in self._games() if g.index not in done)
        with ThreadPoolExecutor(self.config.concurrency) as pool:
            running: set[Future[GameOutcome]] = set()
            for game in pending:
                while len(running) >= self.config.concurrency:
                    running = self._collect(running)
                if self._stop.is_set() or (self.config.format == "sprt"
                                           and self._sprt_decided()):
                    break
                running.add(pool.submit(self.play, game))
            while running:
                running = self._collect(running)
        return sorted(self._outcomes, key=lambda o: o.index)

    def _collect(self, running: set[Future[GameOutcome]]) -> set[Future[GameOutcome]]:
        finished, still = wait(running, return_when=FIRST_COMPLETED)
        for future in finished:
            outcome = future.result()
            self.results.append(outcome)
            self._outcomes.append(outcome)
            if self.on_result is not None:
                self.on_result(sorted(self._outcomes, key=lambda o: o.index),
                               self.total_games())
        return still

    def _check_same_tournament(self) -> None:
        """Resuming into a folder of another tournament would mix results: refuse."""
        c = self.config
        fingerprint = {"game": c.game, "variant": c.variant, "seats": c.seats,
                       "format": c.format, "seed": c.seed, "rounds": c.rounds,
                       "challenger": c.challenger, "options": c.options,
                       "bots": sorted(self.manifests), "schedule": SCHEDULE_VERSION,
                       "sprt": dataclasses.asdict(c.sprt) if c.sprt else None}
        path = self.output / "tournament.lock.json"
        if path.exists() and json.loads(path.read_text()) != fingerprint:
            raise ConfigError(f"{self.output} holds results of another tournament "
                              f"(see {path.name}); use another output folder or --fresh")
        path.write_text(json.dumps(fingerprint, sort_keys=True, indent=1))

    # -- one game ---------------------------------------------------------------------
    def play(self, game: ScheduledGame) -> GameOutcome:
        c = self.config
        with RetryingClient.to(self.server, ARENA_RETRIES) as client:
            created = client.create_game(  # a retry may orphan a game
                c.game, c.variant, c.seats, options=dict(c.options), seed=game.seed,
                decision_ms=c.decision_ms, bank_ms=c.bank_ms, on_timeout="forfeit",
                forfeit_on_illegal=True)
            tokens = {cred.seat: cred.token for cred in created.seats}
            bots: dict[int, BotProcess] = {}
            try:
                for seat, name in enumerate(game.seating):
                    bots[seat] = self._launch(game, created.game_id, seat, name, tokens[seat])
                final = follow_game(client, created.game_id, bots, tokens,
                                    c.game_timeout_s)
            finally:
                for bot in bots.values():
                    bot.stop()
            record = client.record(created.game_id)
        self._save_record(game, record)
        return outcome_of(game, record, final)

    def _launch(self, game: ScheduledGame, game_id: str, seat: int, name: str,
                token: str) -> BotProcess:
        log = self.output / "logs" / f"{game.index:05d}-seat{seat}-{name}.log"
        return BotProcess.start(self.manifests[name], server=self.server, game_id=game_id,
                                seat=seat, token=token,
                                seed=derive_seed(game.seed, "bot", name, seat), log_path=log)

    def _save_record(self, game: ScheduledGame, record: pb.GameRecord) -> None:
        path = self.output / "games" / f"{game.index:05d}.json"
        data = {"schedule": game.to_json(),
                "record": MessageToDict(record, preserving_proto_field_name=True)}
        path.write_text(json.dumps(data, indent=1, sort_keys=True))


def follow_game(client: RetryingClient, game_id: str, bots: Mapping[int, BotProcess],
                tokens: Mapping[int, str], timeout_s: float) -> pb.View:
    """Watch a game until it ends (its final view); resign the seat of a bot whose process
    died (saying why: a limit it exceeded, or a crash) and, after `timeout_s` (0: never),
    every seat."""
    deadline = time.monotonic() + timeout_s if timeout_s else float("inf")
    resigned: set[int] = set()
    while (view := client.view(game_id)).status != FINISHED:
        for seat, bot in bots.items():
            if seat not in resigned and bot.exit_code() is not None:
                reason = bot.ended_reason()
                if resign(client, game_id, tokens[seat], reason) and \
                        bot.manifest.protocol == "grpc":  # the bridge logs a stdio bot's
                    bot.note(reason)
                resigned.add(seat)
        if time.monotonic() > deadline:
            for seat in set(tokens) - resigned:
                resign(client, game_id, tokens[seat], "game time limit")
                resigned.add(seat)
        time.sleep(POLL_SECONDS)
    return view


def resign(client: RetryingClient, game_id: str, token: str, reason: str) -> bool:
    """Resign a seat; False if the game did not let it (it may have ended, or the stdio
    bridge may have resigned it already)."""
    try:
        client.resign(game_id, token, reason[:200])
    except grpc.RpcError:
        return False
    return True


def outcome_of(game: ScheduledGame, record: pb.GameRecord, final: pb.View) -> GameOutcome:
    """What the ratings need of a finished game."""
    result = record.result
    forfeits = [s.seat for s in result.scores if s.forfeited]
    turns = final.turn
    return GameOutcome(
        index=game.index, seed=game.seed, seating=game.seating,
        ranking=tuple(tuple(group.seats) for group in result.ranking),
        forfeits=tuple(forfeits),
        reasons={s.seat: s.forfeit_reason for s in result.scores if s.forfeited},
        reason=result.reason, decisions=len(record.decisions), turns=int(turns))


def describe(config: TournamentConfig) -> dict[str, Any]:
    """The config as plain data, for the exports."""
    return {"name": config.name, "game": config.game, "variant": config.variant,
            "seats": config.seats, "format": config.format, "seed": config.seed,
            "rounds": config.rounds, "options": config.options,
            "decision_ms": config.decision_ms, "bank_ms": config.bank_ms,
            "sprt": dataclasses.asdict(config.sprt) if config.sprt else None,
            "bots": [{"name": b.name, "language": b.language, "protocol": b.protocol}
                     for b in config.bots]}
