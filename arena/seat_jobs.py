"""Seats to play as jobs in Redis Streams: how a hosted bot's seat reaches a worker.

A job is one seat of one game for one bot: the game, the seat, the bot's name and
manifest (a path every worker machine has), the seat's token, the bot's seed; for a
tournament also the paths its bots may not see (the results folder, the deal key) and
where the worker leaves the bot's log. A league's matchmaker queues jobs on the league's
stream; a tournament run with workers (`curia arena run --workers N`) queues them on its
run's stream, listed in `ARENA_RUNS_KEY` while the run lasts. `curia league worker`
processes share every stream as one consumer group (league/worker.py) and start each bot
as the arena does, in its sandbox.

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

from arena.config import BotManifest
from service.leagues import text

#: The tournament runs whose seats workers play (a Redis set of run ids).
ARENA_RUNS_KEY = "curia:arena:runs"
#: How much of a bot's log a worker leaves in Redis for the tournament.
LOG_TAIL_BYTES = 256 * 1024
#: Seconds the uploaded logs are kept (the tournament reads them at once).
LOG_TTL_S = 24 * 3600
#: Seconds a tournament waits, after a game's end, for a worker to leave a bot's log (the
#: worker gives the bot league.worker.EXIT_GRACE_S to exit first).
LOG_WAIT_S = 10.0
#: Seconds between looks at Redis while waiting.
POLL_S = 0.1


def arena_jobs_key(run: str) -> str:
    return f"curia:arena:{{{run}}}:jobs"


def arena_taken_key(run: str) -> str:
    return f"curia:arena:{{{run}}}:taken"


def arena_logs_key(run: str) -> str:
    return f"curia:arena:{{{run}}}:logs"


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

    @classmethod
    def from_entry(cls, stream: str, entry: Any, fields: dict[Any, Any]) -> Job:
        found = {text(k): text(v) for k, v in fields.items()}
        return cls(stream, text(entry), found["game_id"], int(found["seat"]), found["bot"],
                   found["manifest"], found["token"], int(found["seed"]),
                   tuple(json.loads(found.get("hide", "[]"))), found.get("logs_key", ""),
                   found.get("taken_key", ""))

    @property
    def seat_field(self) -> str:
        return seat_field(self.game_id, self.seat)


def queue_job(redis: Any, stream: str, game_id: str, seat: int, bot: str, manifest: str,
              token: str, seed: int | None = None, **extra: str) -> None:
    """Add a seat to `stream` (on a client or in a pipeline); `extra`: hide (a JSON
    list), logs_key, taken_key."""
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
    """A tournament run's job stream: `curia league worker` processes play its seats."""

    redis: Any
    hide: tuple[str, ...]
    run: str = field(default_factory=lambda: secrets.token_hex(6))

    def __enter__(self) -> SeatQueue:
        self.redis.sadd(ARENA_RUNS_KEY, self.run)
        return self

    def __exit__(self, *exc: object) -> None:
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.srem(ARENA_RUNS_KEY, self.run)
            pipe.delete(arena_jobs_key(self.run), arena_taken_key(self.run),
                        arena_logs_key(self.run))
            pipe.execute()

    def launch(self, manifest: BotManifest, *, game_id: str, seat: int, token: str,
               seed: int, log_path: Path) -> QueuedSeat:
        queue_job(self.redis, arena_jobs_key(self.run), game_id, seat, manifest.name,
                  str(manifest.path.resolve()), token, seed, hide=json.dumps(self.hide),
                  logs_key=arena_logs_key(self.run), taken_key=arena_taken_key(self.run))
        return QueuedSeat(self, manifest, game_id, seat, log_path)


@dataclass(eq=False)  # kept in sets by identity, as arena.launcher.BotProcess
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
