"""`curia league worker`: plays the seats of hosted bots, on any number of machines.

A hosted bot is one whose code the host runs (`curia league add-bot … --manifest
bot.toml`, a path every worker machine has). When the matchmaker seats one, it adds a job
(game, seat, bot, manifest, the seat's token) to the league's `jobs` Redis Stream. Workers
share the stream as one consumer group: each reads new jobs (XREADGROUP) up to its free
slots, builds the bot as the arena does (its manifest's build step, once per worker
process, in a thread of its own while the worker goes on), starts the bot for the seat as
the arena does (its own process, in the bubblewrap sandbox where the host has it, its
limits, its log), and once the game is over stops the
bot and acknowledges the job (XACK, XDEL). A worker renews its jobs every `RENEW_S` (an
XCLAIM of its own: their idle time starts again); a job idle for longer than its
stream's takeover time (its worker died) is taken over by another worker (XAUTOCLAIM),
which starts the bot again for the seat: the game goes on from where it is. The takeover
time is `TAKEOVER_SHARE` of the stream's decision time (the league's, the tournament
run's), at least `TAKEOVER_FLOOR_MS`: a seat is taken over before its decision clock runs
out. A worker adopts a dead worker's jobs whether or not it has a free slot (its slots
bound only the new jobs it reads). A bot that exits before its game ends forfeits its
seat; one that exits with code 0 (as a bot does that saw the end of a game a rollback of
the store then un-ended) is first started again for it, `CLEAN_EXIT_RESTARTS` times. A
seat of a league game the league no longer knows (neither live nor recorded: the store
rolled back to between the game's creation and its noting) is resigned and its slot freed.
Results are the league agent's to record (exactly once): a worker only plays.

Every `HEARTBEAT_S` a worker publishes its heartbeat: its name in the ZSET
`WORKERS_KEY` (score: the time, unix ms) and the HASH `worker_key(name)` (a
`service.league_records.WorkerBeat`: `slots`, `free`, `ms`; it expires after a few
heartbeats), for a matchmaker to know which live workers have room. A worker that stops
removes both.

A tournament run with workers (`curia arena run --workers N`, hosting/seat_jobs.py) queues
its seats the same way, on its run's stream: a worker takes those too, notes which seats
it took, hides the tournament's results folder and deal key from its bots, and leaves
each bot's log in Redis for the tournament once the game is over. It takes no job of a
run that is not live (its lease expired: its arena died), and drops those it plays.
"""

from __future__ import annotations

import contextlib
import io
import logging
import secrets
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from prometheus_client import Gauge
from redis.exceptions import RedisError, ResponseError

from client.unary import CuriaClient, resign
from curia_api.v1 import game_service_pb2 as pb
from hosting.launcher import BotProcess, Launcher
from hosting.manifest import BotManifest, ConfigError
from hosting.seat_jobs import Job, arena_jobs_key, leave_log, live_runs, queue_job
from league.registry import LeagueError, Leagues
from service.league_records import (
    WORKERS_KEY,
    RecordError,
    WorkerBeat,
    jobs_key,
    league_key,
    text,
    worker_key,
)

log = logging.getLogger("curia.league.worker")

#: What a worker exports (curia league worker --metrics-port): the HPA scales workers on
#: the jobs, queued or being played, of every league.
JOBS = Gauge("curia_league_jobs", "Hosted bots' seats queued or being played, all leagues.")
SEATS_PLAYING = Gauge("curia_league_worker_seats", "Seats this worker is playing.")

GROUP = "workers"
#: A job not renewed for TAKEOVER_SHARE of its stream's decision time (at least
#: TAKEOVER_FLOOR_MS; TAKEOVER_MS where the stream says none) is taken over by another
#: worker.
TAKEOVER_SHARE = 0.3
TAKEOVER_FLOOR_MS = 3_000
TAKEOVER_MS = 5_000
#: Seconds between renewals of a worker's jobs (and its heartbeats), and between looks at
#: its games.
RENEW_S = 1.0
HEARTBEAT_S = 1.0
LOOK_S = 0.5
#: Times a bot that exits with code 0 while its game is not over (one that saw the end of a
#: game a rollback of the store un-ended) is started again for its seat before it forfeits.
CLEAN_EXIT_RESTARTS = 2
#: Dead workers' jobs a worker adopts at a look, beyond its free slots.
ADOPT_AT_ONCE = 16
#: Seconds a worker's hash (worker_key) outlives its last heartbeat.
WORKER_TTL_S = 5
#: A seat's resign reason when its league no longer knows its game (`Worker._forgotten`).
FORGOTTEN = "the league has no record of this game (the store rolled back): seat dropped"
#: Seconds a bot has, once its game is over, to see the end and exit by itself.
EXIT_GRACE_S = 5.0
#: Seconds after a failed build before a worker tries that bot's build again.
REBUILD_AFTER_S = 60.0


def takeover_ms(decision_ms: int) -> int:
    """How long a job of a stream whose games give `decision_ms` for a decision may go
    without renewal before another worker takes it over."""
    if decision_ms <= 0:
        return TAKEOVER_MS
    return max(TAKEOVER_FLOOR_MS, int(decision_ms * TAKEOVER_SHARE))


def queue_league_job(redis: Any, league: str, game_id: str, seat: int, bot: str,
                     manifest: str, token: str, decision_ms: int = 0) -> None:
    """Add a hosted bot's seat to the league's jobs (called by the matchmaker, in its
    transaction's pipeline or on a client); `decision_ms`: its game's (workers take the
    league's own otherwise)."""
    if decision_ms > 0:
        queue_job(redis, jobs_key(league), game_id, seat, bot, manifest, token,
                  decision_ms=str(decision_ms))
    else:
        queue_job(redis, jobs_key(league), game_id, seat, bot, manifest, token)


class BotBuilds:
    """Each bot's build step, run once per worker process in a thread of its own (under
    the arena's build lock, so that a tournament on the same machine never builds the same
    folder at once); a failed build is tried again after REBUILD_AFTER_S."""

    def __init__(self) -> None:
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bot-build")
        self.builds: dict[tuple[str, tuple[str, ...]], tuple[Future[None], float]] = {}

    def built(self, manifest: BotManifest, launcher: Launcher) -> bool:
        """Whether the bot is built (starting its preflight and build, in its sandbox
        where `launcher` has one, if it is not); ConfigError, with the build's output, if
        its build failed."""
        if not manifest.build:
            return True
        key = (str(manifest.workdir), manifest.build)
        future, started = self.builds.get(key, (None, 0.0))
        if future is None or (future.done() and future.exception() is not None
                              and time.monotonic() - started >= REBUILD_AFTER_S):
            future = self.pool.submit(launcher.prepare, io.StringIO())
            self.builds[key] = (future, time.monotonic())
        if not future.done():
            return False
        error = future.exception()
        if error is not None:
            raise error if isinstance(error, ConfigError) else ConfigError(str(error))
        return True

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


@dataclass
class Running:
    """A job being played: its bot process and what must close with it."""

    job: Job
    bot: BotProcess
    closing: contextlib.ExitStack
    #: when its game was first seen over (the bot then has EXIT_GRACE_S to exit)
    over_at: float = 0.0
    #: times its bot was started again after exiting with code 0 before the end
    restarts: int = 0


@dataclass
class Worker:
    """One worker process's loop (see the module docstring)."""

    redis: Any
    client: CuriaClient
    server: str
    slots: int
    logs: Path
    name: str = field(default_factory=lambda: f"worker-{secrets.token_hex(4)}")
    sandbox: str = "auto"
    #: whether hosted bots' builds may reach the network (--build-network)
    build_network: bool = False
    #: the takeover time of every stream (default: each stream's own, `takeover_ms`)
    takeover_ms: int | None = None
    running: dict[str, Running] = field(default_factory=dict)
    #: jobs taken whose bot is being built
    building: dict[str, Job] = field(default_factory=dict)
    builds: BotBuilds = field(default_factory=BotBuilds)
    #: each league's job stream, with the league's name (refreshed at every look)
    leagues_by_stream: dict[str, str] = field(default_factory=dict)
    renewed: float = 0.0
    beaten: float = 0.0

    def run(self, stop: threading.Event) -> None:
        self.logs.mkdir(parents=True, exist_ok=True)
        try:
            while not stop.is_set():
                try:
                    self.work_once()
                except (RedisError, grpc.RpcError, OSError) as error:
                    log.info("worker: %s", error)
                stop.wait(LOOK_S)
        finally:
            for running in list(self.running.values()):
                running.bot.terminate()  # (all at once: a worker stops within seconds)
            for running in list(self.running.values()):
                self._stop(running)  # not acknowledged: another worker takes them over
            self.builds.close()
            with contextlib.suppress(RedisError):
                self.redis.zrem(WORKERS_KEY, self.name)
                self.redis.delete(worker_key(self.name))

    def work_once(self) -> None:
        self.heartbeat()  # (first: a service away a moment does not make it look dead)
        self.finish_ended()
        streams = self.streams()
        self.drop_dead_runs({key for key, _ in streams})
        for job in list(self.building.values()):
            self.start(job)
        if time.monotonic() - self.renewed >= RENEW_S:
            self.renew()
        JOBS.set(sum(self.redis.xlen(key) for key, _ in streams))
        SEATS_PLAYING.set(len(self.running))
        for key, decision_ms in streams:  # a dead worker's jobs: whatever the free slots
            for job in self.adopt(key, decision_ms):
                self.start(job)
        for key, _ in streams:
            if self.free() <= 0:
                break
            for job in self.take(key, self.free()):
                self.start(job)

    def free(self) -> int:
        return self.slots - len(self.running) - len(self.building)

    def heartbeat(self, force: bool = False) -> None:
        """This worker's heartbeat (WORKERS_KEY, worker_key): alive, with room or not."""
        if not force and time.monotonic() - self.beaten < HEARTBEAT_S:
            return
        self.beaten = time.monotonic()
        now = int(time.time() * 1000)
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.zadd(WORKERS_KEY, {self.name: now})
            beat = WorkerBeat(self.name, self.slots, max(0, self.free()), now)
            pipe.hset(worker_key(self.name), mapping=beat.to_redis())
            pipe.expire(worker_key(self.name), WORKER_TTL_S)
            pipe.execute()

    def streams(self) -> list[tuple[str, int]]:
        """Every job stream with its games' decision time (ms): each league's, then each
        live tournament run's (the keys of runs whose arena died are deleted)."""
        leagues = Leagues(self.redis)
        found = []
        self.leagues_by_stream = {jobs_key(league): league for league in leagues.names()}
        for league in self.leagues_by_stream.values():
            try:
                decision_ms = leagues.settings(league).decision_ms
            except (LeagueError, RecordError):
                decision_ms = 0
            found.append((jobs_key(league), decision_ms))
        return found + [(arena_jobs_key(run), decision_ms)
                        for run, decision_ms in live_runs(self.redis).items()]

    def drop_dead_runs(self, streams: set[str]) -> None:
        """Stop playing (and forget) the seats of tournament runs that are not live."""
        for entry, running in list(self.running.items()):
            if running.job.run and running.job.stream not in streams:
                log.info("worker %s: run %s is over: seat %d of game %s dropped", self.name,
                         running.job.run, running.job.seat, running.job.game_id)
                self._stop(running)
                del self.running[entry]
        for entry, job in list(self.building.items()):
            if job.run and job.stream not in streams:
                del self.building[entry]

    def _group(self, key: str) -> None:
        with contextlib.suppress(ResponseError):  # BUSYGROUP: it exists; or no stream
            self.redis.xgroup_create(key, GROUP, id="0")

    def adopt(self, key: str, decision_ms: int) -> list[Job]:
        """The jobs of dead workers (idle past the stream's takeover time), taken over;
        none from a stream that does not exist (a league's before its first job, a
        tournament run's once the run has deleted it: creating the group with MKSTREAM
        would bring that stream back)."""
        self._group(key)
        idle = self.takeover_ms if self.takeover_ms is not None else takeover_ms(decision_ms)
        try:
            claimed = self.redis.xautoclaim(key, GROUP, self.name, idle, "0-0",
                                            count=ADOPT_AT_ONCE)[1]
        except ResponseError:  # NOGROUP: the stream is gone (or not there yet)
            return []
        mine = set(self.running) | set(self.building)
        return [Job.from_entry(key, entry, fields) for entry, fields in claimed
                if fields and text(entry) not in mine]

    def take(self, key: str, count: int) -> list[Job]:
        """Up to `count` new jobs of the stream."""
        self._group(key)
        try:
            found = self.redis.xreadgroup(GROUP, self.name, {key: ">"}, count=count)
        except ResponseError:  # NOGROUP: the stream is gone (or not there yet)
            return []
        return [Job.from_entry(key, entry, fields)
                for _, rows in found or [] for entry, fields in rows]

    def start(self, job: Job) -> None:
        """Start the bot for the job's seat once it is built (a job whose game is over is
        done at once; a bot that cannot be built or started forfeits its seat)."""
        self.building.pop(job.entry, None)
        if self._over(job):  # (its bot, on a worker that died, may have played it out)
            self._mark_taken(job)
            self._done(job)
            return
        try:
            manifest = BotManifest.load(job.manifest)
            launcher = self._launcher(job, manifest)
            if not self.builds.built(manifest, launcher):
                self.building[job.entry] = job  # looked at again at the next round
                return
        except ConfigError as error:
            self._cannot_start(job, error)
            return
        self._launch(job, manifest, launcher)

    def _launcher(self, job: Job, manifest: BotManifest) -> Launcher:
        """How a job's bot (and its build) starts: this worker's logs and what the job
        names (a tournament's run folder and deal key) hidden from it."""
        hidden = [self.logs, *(Path(path) for path in job.hide)]
        return Launcher.make(self.sandbox, [manifest], hidden,
                             build_network=self.build_network)

    def _mark_taken(self, job: Job) -> None:
        """Tell the job's tournament that a worker has its seat (a league's job has no
        such mark)."""
        if job.taken_key:
            self.redis.hset(job.taken_key, job.seat_field, self.name)

    def _launch(self, job: Job, manifest: BotManifest, launcher: Launcher) -> None:
        """Start the job's bot: the seat is marked taken first, so that a worker dying
        between the two leaves a mark and a job to adopt, never a bot playing a seat the
        tournament still waits to see taken."""
        self._mark_taken(job)
        closing = contextlib.ExitStack()
        try:
            closing.enter_context(launcher.serving(self.server))
            bot = launcher.start(
                manifest, server=self.server, game_id=job.game_id, seat=job.seat,
                token=job.token, seed=job.seed,
                log_path=self.logs / f"{job.game_id}-seat{job.seat}-{job.bot}.log")
        except Exception as error:  # a bot that cannot start forfeits its seat
            closing.close()
            self._cannot_start(job, error)
            return
        self.running[job.entry] = Running(job, bot, closing)
        log.info("worker %s: %s plays seat %d of game %s", self.name, job.bot, job.seat,
                 job.game_id)

    def finish_ended(self) -> None:
        """Stop and acknowledge the jobs whose game is over (the bot is given
        `EXIT_GRACE_S` to see the end and exit by itself); resign for a bot that exited
        before the end."""
        for entry, running in list(self.running.items()):
            job = running.job
            over = self._over(job)
            if not over and self._forgotten(job):
                log.warning("worker %s: league game %s is neither live nor recorded (the "
                            "store rolled back to before it was noted): seat %d dropped",
                            self.name, job.game_id, job.seat)
                self._resign(job, FORGOTTEN)
            elif not over:
                if running.bot.exit_code() is None:
                    continue
                if running.bot.exited_cleanly() and running.restarts < CLEAN_EXIT_RESTARTS:
                    self._restart(entry, running)
                    continue
                self._resign(job, running.bot.ended_reason())
            elif running.bot.exit_code() is None:
                running.over_at = running.over_at or time.monotonic()
                if time.monotonic() - running.over_at < EXIT_GRACE_S:
                    continue
            self._stop(running)
            del self.running[entry]
            leave_log(self.redis, job, running.bot.log_path)
            self._done(job)

    def _restart(self, entry: str, running: Running) -> None:
        """Start the bot of a seat again: it exited with code 0 while its game is not over
        (a rollback of the store un-ended the game whose end it saw; never a forfeit)."""
        log.info("worker %s: %s exited before the end of game %s (a rollback?): started "
                 "again for seat %d", self.name, running.job.bot, running.job.game_id,
                 running.job.seat)
        self._stop(running)
        del self.running[entry]
        self.start(running.job)
        if entry in self.running:
            self.running[entry].restarts = running.restarts + 1

    def renew(self) -> None:
        """Reset the idle time of this worker's jobs (so no other worker takes them)."""
        self.renewed = time.monotonic()
        by_stream: dict[str, list[str]] = {}
        jobs = [*(running.job for running in self.running.values()), *self.building.values()]
        for job in jobs:
            by_stream.setdefault(job.stream, []).append(job.entry)
        for key, entries in by_stream.items():
            with contextlib.suppress(ResponseError):  # NOGROUP: its run deleted it
                self.redis.xclaim(key, GROUP, self.name, 0, entries, justid=True)

    def _over(self, job: Job) -> bool:
        """Whether the job's game is over; a game the store no longer has (NOT_FOUND: a
        rollback of the store to before its creation) is over too. Were that error raised,
        every round of the worker would fail at its first look (`finish_ended`): it would
        never again take, renew or finish a job, its slot held for ever."""
        try:
            view = self.client.view(job.game_id)
        except grpc.RpcError as error:
            if error.code() == grpc.StatusCode.NOT_FOUND:
                log.warning("worker %s: game %s is gone (the store rolled back?): seat %d "
                            "dropped", self.name, job.game_id, job.seat)
                return True
            raise
        return bool(view.status == pb.GAME_STATUS_FINISHED)

    def _forgotten(self, job: Job) -> bool:
        """Whether the league no longer knows a league job's game: neither live nor
        recorded. A rollback of the store to between the game's creation and the agent's
        noting of it (its live table and its jobs, written at once) leaves the game waiting
        for ever with nobody to end it: its seat is not worth a slot."""
        league = self.leagues_by_stream.get(job.stream)
        if job.run or league is None:
            return False
        pipe = self.redis.pipeline(transaction=False)
        pipe.hexists(league_key(league, "live"), job.game_id)
        pipe.sismember(league_key(league, "rated"), job.game_id)
        return not any(pipe.execute())

    def _cannot_start(self, job: Job, error: Exception) -> None:
        log.warning("worker: bot %s cannot start: %s", job.bot, error)
        self._resign(job, f"could not start: {error}")
        self._done(job)

    def _resign(self, job: Job, reason: str) -> None:
        resign(self.client, job.game_id, job.token, reason)  # (False: over meanwhile)

    def _done(self, job: Job) -> None:
        self.redis.xack(job.stream, GROUP, job.entry)
        self.redis.xdel(job.stream, job.entry)

    @staticmethod
    def _stop(running: Running) -> None:
        running.bot.stop()
        running.closing.close()
