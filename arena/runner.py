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
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import grpc
from google.protobuf.json_format import MessageToDict

from arena.config import BotManifest, ConfigError, Limits, TournamentConfig
from arena.ratings import GameOutcome, head_to_head, sprt
from arena.schedule import ScheduledGame, gauntlet, round_robin, sprt_games
from curia.v1 import game_service_pb2 as pb
from games.core import derive_seed
from service.retry import TRANSIENT, RetryingClient, RetryPolicy

FINISHED = pb.GAME_STATUS_FINISHED
POLL_SECONDS = 0.05
#: A server or Redis away for a moment is waited out for at most this many seconds in a
#: row, then the tournament fails loudly.
RETRY_SECONDS = 60.0
#: The arena's calls: transient failures retried (`service.retry`) for RETRY_SECONDS.
ARENA_RETRIES = RetryPolicy(codes=TRANSIENT, retries=None, seconds=RETRY_SECONDS)


def apply_limits(pid: int, limits: Limits) -> None:
    """Address-space and CPU limits on a started process (its children inherit them)."""
    with contextlib.suppress(ProcessLookupError, OSError):
        if limits.memory_mb:
            size = limits.memory_mb * 1024 * 1024
            resource.prlimit(pid, resource.RLIMIT_AS, (size, size))
        if limits.cpu_seconds:
            resource.prlimit(pid, resource.RLIMIT_CPU,
                             (limits.cpu_seconds, limits.cpu_seconds + 5))


@dataclass
class BotProcess:
    """One bot playing one seat of one game, as a process group of its own."""

    manifest: BotManifest
    process: subprocess.Popen[bytes]
    log: IO[bytes]

    @classmethod
    def start(cls, manifest: BotManifest, *, server: str, game_id: str, seat: int,
              token: str, seed: int, log_path: Path) -> BotProcess:
        args = ["--server", server, "--game-id", game_id, "--seat", str(seat)]
        env = {**os.environ, "CURIA_SERVER": server, "CURIA_GAME_ID": game_id,
               "CURIA_SEAT": str(seat), "CURIA_SEAT_TOKEN": token, "CURIA_BOT_SEED": str(seed)}
        log = log_path.open("wb")
        process = subprocess.Popen(
            manifest.launch_command(sys.executable, args), cwd=manifest.workdir, env=env,
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
        apply_limits(process.pid, manifest.limits)
        return cls(manifest, process, log)

    def exit_code(self) -> int | None:
        return self.process.poll()

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


def build_bots(manifests: Iterable[BotManifest], out: IO[str]) -> None:
    """Run each manifest's build command once, in its folder; fail loudly."""
    for manifest in manifests:
        if not manifest.build:
            continue
        print(f"building {manifest.name}: {' '.join(manifest.build)}", file=out, flush=True)
        done = subprocess.run(manifest.build, cwd=manifest.workdir, capture_output=True,
                              text=True, timeout=600)
        if done.returncode != 0:
            raise ConfigError(f"building {manifest.name} failed ({done.returncode}):\n"
                              f"{done.stdout[-2000:]}{done.stderr[-2000:]}")


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
        c = self.config
        return c.sprt.max_games if c.format == "sprt" and c.sprt else len(self.schedule())

    def _sprt_decided(self) -> bool:
        spec = self.config.sprt
        assert spec is not None
        wins, draws, losses = head_to_head(self._outcomes, spec.a, spec.b)
        return sprt(wins, draws, losses, spec.elo0, spec.elo1, spec.alpha,
                    spec.beta).decision is not None

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
                       "bots": sorted(self.manifests)}
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
            bots = [self._launch(game, created.game_id, seat, name, tokens[seat])
                    for seat, name in enumerate(game.seating)]
            try:
                final = self._follow(client, created.game_id, bots, tokens)
            finally:
                for bot in bots:
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

    def _follow(self, client: RetryingClient, game_id: str, bots: list[BotProcess],
                tokens: dict[int, str]) -> pb.View:
        """Watch until the game ends; resign seats whose process died or ran too long."""
        deadline = time.monotonic() + self.config.game_timeout_s
        resigned: set[int] = set()
        while (view := client.view(game_id)).status != FINISHED:
            for seat, bot in enumerate(bots):
                code = bot.exit_code()
                if code is not None and seat not in resigned:
                    self._resign(client, game_id, tokens[seat], view,
                                 f"crashed: exited with code {code} before the end")
                    resigned.add(seat)
            if time.monotonic() > deadline:
                for seat in set(range(len(bots))) - resigned:
                    self._resign(client, game_id, tokens[seat], view, "game time limit")
                    resigned.add(seat)
            time.sleep(POLL_SECONDS)
        return view

    @staticmethod
    def _resign(client: RetryingClient, game_id: str, token: str, view: pb.View,
                reason: str) -> None:
        with contextlib.suppress(grpc.RpcError):  # the game may have ended meanwhile
            client.resign(game_id, token, reason)

    def _save_record(self, game: ScheduledGame, record: pb.GameRecord) -> None:
        path = self.output / "games" / f"{game.index:05d}.json"
        data = {"schedule": game.to_json(),
                "record": MessageToDict(record, preserving_proto_field_name=True)}
        path.write_text(json.dumps(data, indent=1, sort_keys=True))


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
