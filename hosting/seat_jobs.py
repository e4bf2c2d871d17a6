"""Seats to play as jobs in Redis Streams: how a hosted bot's seat reaches a worker.

A job is one seat of one game for one bot: the game, the seat, the bot's name and
manifest (a path every worker machine has), the seat's token, the bot's seed; for a
tournament also the paths its bots may not see (the results folder, the deal key) and
where the worker leaves the bot's log. A league's matchmaker queues jobs on the league's
stream; a tournament run with workers (`curia arena run --workers N`) queues them on its
run's stream, listed in `ARENA_RUNS_KEY` while the run lasts. `curia league worker`
processes share every stream as one consumer group (hosting/worker.py) and start each bot
as the arena does, in its sandbox.

Each incarnation of a tournament run (each `curia arena run` of its folder, a resume
included) has a run id, a stream and keys of its own, and a *lease* (`arena_lease_key`,
its decision time and folder) that the arena renews every `LEASE_RENEW_S` while it lives.
A run whose lease expired (its arena died, even of kill -9) is not live: workers take
none of its jobs, drop those they play and delete its keys; and a new incarnation of the
same folder deletes the keys of the earlier ones (`RUN_FOLDERS_KEY`) before it queues a
seat, so a resume never meets stale seats.

On the tournament's side a queued seat (`QueuedSeat`) stands where a local bot process
would (arena.runner): it is launched by queuing its job, counts as started once a worker
took it, and brings the bot's log back when the game is over. A bot that exits early is
resigned by its worker, which sees it go.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hosting.manifest import BotManifest
from service.league_records import text

#: The tournament runs whose seats workers play (a Redis set of run ids).
ARENA_RUNS_KEY = "curia:arena:runs"
#: Each run's folder (a Redis hash, run id -> folder): a new incarnation of a folder's run
#: finds the earlier ones there, to delete their keys.
RUN_FOLDERS_KEY = "curia:arena:run-folders"
#: Milliseconds a run's lease lasts unless the arena renews it, and seconds between
#: renewals.
LEASE_MS = 6_000
LEASE_RENEW_S = 1.0
#: How much of a bot's log a worker leaves in Redis for the tournament.
LOG_TAIL_BYTES = 256 * 1024
#: Seconds the uploaded logs are kept (the tournament reads them at once).
LOG_TTL_S = 24 * 3600
#: Seconds a tournament waits, after a game's end, for a worker to leave a bot's log (the
#: worker gives the bot hosting.worker.EXIT_GRACE_S to exit first).
LOG_WAIT_S = 10.0
#: Seconds between looks at Redis while waiting.
POLL_S = 0.1


def arena_jobs_key(run: str) -> str:
    return f"curia:arena:{{{run}}}:jobs"


def arena_taken_key(run: str) -> str:
    return f"curia:arena:{{{run}}}:taken"


def arena_logs_key(run: str) -> str:
    return f"curia:arena:{{{run}}}:logs"


def arena_lease_key(run: str) -> str:
    return f"curia:arena:{{{run}}}:lease"


def run_keys(run: str) -> tuple[str, ...]:
    """Every key a run's incarnation keeps (its lease aside)."""
    return arena_jobs_key(run), arena_taken_key(run), arena_logs_key(run)


def forget_run(redis: Any, run: str) -> None:
    """A run's stream, keys, lease and registry entries, deleted."""
    with redis.pipeline(transaction=True) as pipe:
        pipe.srem(ARENA_RUNS_KEY, run)
        pipe.hdel(RUN_FOLDERS_KEY, run)
        pipe.delete(*run_keys(run), arena_lease_key(run))
        pipe.execute()


def live_runs(redis: Any) -> dict[str, int]:
    """The runs whose lease holds, with their decision time (ms); the keys of the others
    (their arena died) deleted."""
    runs = sorted(text(run) for run in redis.smembers(ARENA_RUNS_KEY))
    if not runs:
        return {}
    with redis.pipeline(transaction=False) as pipe:
        for run in runs:
            pipe.get(arena_lease_key(run))
        leases = pipe.execute()
    live = {}
    for run, lease in zip(runs, leases, strict=True):
        if lease is None:
            forget_run(redis, run)
        else:
            live[run] = int(json.loads(text(lease)).get("decision_ms", 0))
    return live


def seat_field(game_id: str, seat: int) -> str:
    return f"{game_id}:{seat}"


@dataclass
class Job:
    """One seat for a worker to play, as queued on `stream`."""

    stream: str
    entry: str
    game_id: str
    seat: int
    bot: str
    manifest: str
    token: str
    seed: int
    #: paths the bot may not see (a tournament's results folder and deal key)
    hide: tuple[str, ...] = ()
    #: the Redis hash the worker leaves the bot's log in ("" : none)
    logs_key: str = ""
    #: the Redis hash the worker notes when it took the job in ("" : none)
    taken_key: str = ""
    #: the tournament run whose seat it is ("": a league's)
    run: str = ""
    #: the game's time for a decision, ms (0: not said)
    decision_ms: int = 0

    @classmethod
    def from_entry(cls, stream: str, entry: Any, fields: dict[Any, Any]) -> Job:
        found = {text(k): text(v) for k, v in fields.items()}
        return cls(stream, text(entry), found["game_id"], int(found["seat"]), found["bot"],
                   found["manifest"], found["token"], int(found["seed"]),
                   tuple(json.loads(found.get("hide", "[]"))), found.get("logs_key", ""),
                   found.get("taken_key", ""), found.get("run", ""),
                   int(found.get("decision_ms", 0) or 0))

    @property
    def seat_field(self) -> str:
        return seat_field(self.game_id, self.seat)


def queue_job(redis: Any, stream: str, game_id: str, seat: int, bot: str, manifest: str,
              token: str, seed: int | None = None, **extra: str) -> None:
    """Add a seat to `stream` (on a client or in a pipeline); `extra`: hide (a JSON
    list), logs_key, taken_key, run, decision_ms."""
    redis.xadd(stream, {"game_id": game_id, "seat": seat, "bot": bot, "manifest": manifest,
                        "token": token,
                        "seed": secrets.randbits(62) if seed is None else seed, **extra})


def leave_log(redis: Any, job: Job, log_path: Path) -> None:
    """The end of the bot's log, where the job's tournament reads it."""
    if not job.logs_key:
        return
    try:
        data = log_path.read_bytes()[-LOG_TAIL_BYTES:]
    except OSError:
        data = b"(the worker kept no log)\n"
    with redis.pipeline(transaction=True) as pipe:
        pipe.hset(job.logs_key, job.seat_field, data)
        pipe.expire(job.logs_key, LOG_TTL_S)
        pipe.execute()


# ---------------------------------------------------------------------------------------
# The tournament's side
# ---------------------------------------------------------------------------------------
@dataclass
class SeatQueue:
    """A tournament run's job stream: `curia league worker` processes play its seats.
    Entered: the earlier incarnations of `folder`'s run (and runs whose lease expired)
    forgotten, this one listed with its lease, renewed in a thread until exit."""

    redis: Any
    hide: tuple[str, ...]
    #: the run folder (what makes a resume the same run)
    folder: str = ""
    #: the games' time for a decision (workers take a dead worker's seats well within it)
    decision_ms: int = 0
    run: str = field(default_factory=lambda: secrets.token_hex(6))
    _stop: threading.Event = field(default_factory=threading.Event)
    _renewer: threading.Thread | None = None

    def __enter__(self) -> SeatQueue:
        folders = {text(run): text(folder)
                   for run, folder in self.redis.hgetall(RUN_FOLDERS_KEY).items()}
        for run in folders:
            if folders[run] == self.folder:
                forget_run(self.redis, run)  # an earlier incarnation (killed): stale seats
        live_runs(self.redis)  # (forgets the runs whose arena died)
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(arena_lease_key(self.run), self._lease(), px=LEASE_MS)
            pipe.hset(RUN_FOLDERS_KEY, self.run, self.folder)
            pipe.sadd(ARENA_RUNS_KEY, self.run)
            pipe.execute()
        self._renewer = threading.Thread(target=self._renew, name="seat-queue-lease",
                                         daemon=True)
        self._renewer.start()
        return self

    def _lease(self) -> str:
        return json.dumps({"folder": self.folder, "decision_ms": self.decision_ms})

    def _renew(self) -> None:
        while not self._stop.wait(LEASE_RENEW_S):
            try:
                self.redis.set(arena_lease_key(self.run), self._lease(), px=LEASE_MS)
            except Exception:  # Redis away a moment: the next renewal may succeed
                continue

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._renewer is not None:
            self._renewer.join(timeout=5)
        forget_run(self.redis, self.run)

    def launch(self, manifest: BotManifest, *, game_id: str, seat: int, token: str,
               seed: int, log_path: Path) -> QueuedSeat:
        queue_job(self.redis, arena_jobs_key(self.run), game_id, seat, manifest.name,
                  str(manifest.path.resolve()), token, seed, hide=json.dumps(self.hide),
                  logs_key=arena_logs_key(self.run), taken_key=arena_taken_key(self.run),
                  run=self.run, decision_ms=str(self.decision_ms))
        return QueuedSeat(self, manifest, game_id, seat, log_path)


@dataclass(eq=False)  # kept in sets by identity, as hosting.launcher.BotProcess
class QueuedSeat:
    """A seat a worker plays: what the tournament knows of its bot."""

    queue: SeatQueue
    manifest: BotManifest
    game_id: str
    seat: int
    log_path: Path
    notes: list[str] = field(default_factory=list)

    def wait_taken(self, stop: threading.Event) -> bool:
        """Until a worker has taken the seat (True), or `stop` is set (False)."""
        key, name = arena_taken_key(self.queue.run), seat_field(self.game_id, self.seat)
        while not stop.is_set():
            if self.queue.redis.hexists(key, name):
                return True
            stop.wait(POLL_S)
        return False

    def exit_code(self) -> int | None:
        return None  # the worker resigns for a bot that exits early

    def ended_reason(self) -> str:
        return "ended on its worker"  # (said by the worker, which resigned the seat)

    def note(self, line: str) -> None:
        self.notes.append(f"arena: {line}\n")

    def terminate(self) -> None:
        """Nothing to signal here: ending the game stops the bot on its worker."""

    def collect_log(self) -> None:
        """Wait for the worker to leave the bot's log (the game is over), and keep it."""
        key, name = arena_logs_key(self.queue.run), seat_field(self.game_id, self.seat)
        deadline = time.monotonic() + LOG_WAIT_S
        while (data := self.queue.redis.hget(key, name)) is None and \
                time.monotonic() < deadline:
            time.sleep(POLL_S)
        body = data if data is not None else b"(no log from the worker yet)\n"
        self.log_path.write_bytes(body + "".join(self.notes).encode())
        self.notes.clear()

    def stop(self, grace: float = 0.0) -> None:
        """Keep the tournament's notes in the log (the log itself: `collect_log`)."""
        if self.notes:
            with self.log_path.open("a") as handle:
                handle.write("".join(self.notes))
            self.notes.clear()
