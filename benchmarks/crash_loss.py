"""What a crash of Redis loses of what clients were told, per append-only fsync policy.

For each policy (`curia serve --appendfsync`): one `curia serve` on a fresh embedded Redis
with that policy; client coroutines create games and play random legal decisions flat
out, recording every acknowledged CreateGame and SubmitDecision; mid-load, redis-server
gets SIGKILL; `curia serve` is restarted on the same data folder (Redis reloads its
append-only file) and every acknowledgement of the round is checked: the game is there
(GetView), its version is at least the acknowledged one, and its log holds the
acknowledged decision at that version. Repeated `--kills` times per policy.

Two crashes are measured at each kill instant:
  - a Redis process crash (kill -9): what the restarted Redis lacks;
  - a host crash (power loss), emulated: a shim preloaded into redis-server (LD_PRELOAD,
    compiled with `cc` at run time; the column is skipped without a compiler) records,
    after every fsync/fdatasync of the append-only file, the size the file had when the
    sync began. At the kill, a copy of the data folder whose append-only file is cut to
    that size is what a power loss at that instant may leave at worst (the kernel may
    have written more back on its own, never less); a Redis loads the copy and the same
    check counts what it lacks.

`exposed` is the share of 10 ms samples of INFO persistence in which Redis held appended
writes in memory only while a background fsync ran (aof_pending_bio_fsync with a
non-empty aof_buffer_length): `everysec` postpones its write(2) then, for up to 2 s, and
still answers the clients. `--aim` kills at the first such sample (sampled every 2 ms
after `--min-load` seconds of load) instead of at a random instant. `--disks`: `plain`
(the disk as it is), `hog` (a process rewriting and fsyncing 8 MB on the same disk
throughout: a busy disk), `slow` (the shim sleeps `--slow-ms` before every fsync of the
append-only file: a disk whose syncs are that slow).

    python3 benchmarks/crash_loss.py [--modes always,everysec,no] [--disks plain,hog,slow]
        [--kills 5] [--players 32] [--min-load 1.5] [--max-load 3.0] [--aim]
        [--slow-ms 100] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import redis

if __package__ in (None, ""):  # run as a script: the repository's packages are importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from curia_api.v1 import game_service_pb2 as pb  # noqa: E402
from curia_api.v1 import game_service_pb2_grpc as pb_grpc  # noqa: E402
from service.redis_server import (  # noqa: E402
    APPENDFSYNC,
    PASSWORD_FILE,
    EmbeddedRedis,
    free_port,
)
from service.store import GameStore  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
#: The embedded Redis's append-only file in its data folder (Redis 6.2 and earlier).
AOF = "appendonly.aof"
#: Where the shim writes the last fsynced size ("<inode> <size> <count>").
FSYNC_LOG_ENV = "CURIA_FSYNC_LOG"
#: Milliseconds the shim sleeps before every fsync of the AOF (an emulated slow disk).
FSYNC_DELAY_ENV = "CURIA_FSYNC_DELAY_MS"
NONE = pb.OBSERVATION_ENCODING_NONE
FINISHED = pb.GAME_STATUS_FINISHED
#: Seconds any one RPC may take (a busy disk under `always` makes commits slow).
RPC_TIMEOUT = 20.0

SHIM_SOURCE = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int log_fd = -2;
static long long count;

static int is_aof(int fd) {
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n < 4) return 0;
    path[n] = 0;
    return strcmp(path + n - 4, ".aof") == 0;
}

static int synced(int fd, const char *name) {
    int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, name);
    struct stat before;
    int aof = is_aof(fd) && fstat(fd, &before) == 0;
    const char *delay = getenv("CURIA_FSYNC_DELAY_MS");
    if (aof && delay) usleep((useconds_t)atoi(delay) * 1000);  /* a slow disk */
    int rc = real(fd);
    if (aof && rc == 0) {
        pthread_mutex_lock(&lock);
        if (log_fd == -2) {
            const char *path = getenv("CURIA_FSYNC_LOG");
            log_fd = path ? open(path, O_WRONLY | O_CREAT, 0600) : -1;
        }
        if (log_fd >= 0) {
            char line[80];
            count++;
            int len = snprintf(line, sizeof line, "%20lld %20lld %20lld\n",
                               (long long)before.st_ino, (long long)before.st_size, count);
            if (pwrite(log_fd, line, len, 0) != len) { /* the measure is lost, not Redis */ }
        }
        pthread_mutex_unlock(&lock);
    }
    return rc;
}

int fsync(int fd) { return synced(fd, "fsync"); }
int fdatasync(int fd) { return synced(fd, "fdatasync"); }
"""


def build_fsync_shim(folder: Path) -> Path | None:
    """The shim compiled into `folder`; None without a C compiler (or if it fails)."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    source, library = folder / "fsync_shim.c", folder / "fsync_shim.so"
    source.write_text(SHIM_SOURCE)
    done = subprocess.run([compiler, "-shared", "-fPIC", "-O2", "-o", str(library),
                           str(source), "-ldl", "-lpthread"], capture_output=True)
    return library if done.returncode == 0 else None


def last_fsync(log: Path) -> tuple[int, int] | None:
    """(inode, size) of the AOF at the start of the last completed fsync, if any."""
    try:
        inode, size, _ = log.read_text().split()
    except (OSError, ValueError):
        return None
    return int(inode), int(size)


@contextlib.contextmanager
def fsync_hog(folder: Path, megabytes: int = 8) -> Iterator[None]:
    """A process rewriting and fsyncing `megabytes` MB in `folder` in a loop: a busy disk
    (on the development machine's fast disk it barely slowed Redis's fsyncs; `slow` is
    the dependable emulation)."""
    folder.mkdir(parents=True, exist_ok=True)
    code = ("import os,sys\n"
            "fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o600)\n"
            f"chunk = os.urandom({megabytes} << 20)\n"
            "while True:\n"
            "    os.pwrite(fd, chunk, 0)\n"
            "    os.fsync(fd)\n")
    hog = subprocess.Popen([sys.executable, "-c", code, str(folder / "fsync-hog.bin")])
    try:
        yield
    finally:
        hog.kill()
        hog.wait()
        with contextlib.suppress(OSError):
            (folder / "fsync-hog.bin").unlink()


# -- the service ---------------------------------------------------------------------------
class Serve:
    """`curia serve` with its embedded Redis in `data_dir` (`appendfsync` None: whatever
    `curia serve` does by default), or on `redis_url`; `redis_url` with the password,
    `redis_pid` the redis-server process (from INFO server)."""

    def __init__(self, data_dir: Path, appendfsync: str | None = None,
                 env: dict[str, str] | None = None, timeout: float = 30.0,
                 redis_url: str | None = None) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        args = [sys.executable, "-m", "curia", "serve", "--port", str(self.port),
                "--host", "127.0.0.1", "--log-level", "WARNING"]
        if not redis_url:
            args += ["--data-dir", str(data_dir)]
        if appendfsync is not None:
            args += ["--appendfsync", appendfsync]
        # the Redis URL (its password) in the environment, never on the command line
        environment = {k: v for k, v in os.environ.items() if k != "CURIA_REDIS_URL"}
        if redis_url:
            environment["CURIA_REDIS_URL"] = redis_url
        self.process = subprocess.Popen(args, cwd=REPO, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE,
                                        env={**environment, **(env or {})})
        self.redis_url = redis_url or self._embedded_url(self._ready_line(timeout))
        if redis_url:
            self._ready_line(timeout)
        with redis.Redis.from_url(self.redis_url) as client:
            self.redis_pid = int(client.info("server")["process_id"])
            self.appendfsync = str(client.config_get("appendfsync")["appendfsync"])

    def _ready_line(self, timeout: float) -> str:
        assert self.process.stdout is not None
        readable, _, _ = select.select([self.process.stdout], [], [], timeout)
        line = self.process.stdout.readline().decode() if readable else ""
        found = re.search(r"\(redis (\S+)\)", line)
        if not found:
            self.process.kill()
            _, err = self.process.communicate()
            raise RuntimeError(f"curia serve did not start: {line!r} {err.decode()[-2000:]}")
        return found.group(1)

    def _embedded_url(self, shown: str) -> str:
        """The URL shown, with the password (kept in the data folder) put back."""
        password = (self.data_dir / PASSWORD_FILE).read_text().strip()
        return shown.replace(":***@", f":{password}@")

    def kill_redis(self) -> None:
        """SIGKILL to redis-server: no flush, no goodbye; waits until it is gone."""
        os.kill(self.redis_pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.kill(self.redis_pid, 0)
            except ProcessLookupError:
                return
            with contextlib.suppress(FileNotFoundError), \
                    open(f"/proc/{self.redis_pid}/stat") as stat:
                if stat.read().split(") ")[-1].startswith("Z"):  # dead, not yet reaped
                    return
            time.sleep(0.005)
        raise TimeoutError("redis-server outlived SIGKILL")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


# -- the load and its acknowledgements -----------------------------------------------------
@dataclass
class Ledger:
    """Every acknowledgement clients received: games created, decisions applied."""

    games: list[str] = field(default_factory=list)
    #: (game id, version) -> (seat, notation) of each SubmitDecision answered OK
    decisions: dict[tuple[str, int], tuple[int, str]] = field(default_factory=dict)
    #: errors before the kill (the load is broken, the figures are not to be trusted)
    early_errors: list[str] = field(default_factory=list)
    killed_at: float | None = None
    started_at: float = field(default_factory=time.monotonic)

    def decisions_per_s(self) -> float:
        end = self.killed_at or time.monotonic()
        return len(self.decisions) / max(1e-9, end - self.started_at)


async def player(stub: Any, ledger: Ledger, stop: asyncio.Event, rng: random.Random) -> None:
    """Create a game, play it out with random legal decisions, again, until `stop`; the
    first failed call ends the player (after the kill, every call fails)."""
    try:
        while not stop.is_set():
            created = await stub.CreateGame(pb.CreateGameRequest(
                game="municipium", variant="classic", num_seats=3,
                seed=rng.randrange(1 << 31)), timeout=RPC_TIMEOUT)
            ledger.games.append(created.game_id)
            game_id = created.game_id
            tokens = {seat.seat: seat.token for seat in created.seats}
            view = (await stub.GetView(pb.GetViewRequest(
                game_id=game_id, observation_encoding=NONE), timeout=RPC_TIMEOUT)).view
            while not stop.is_set() and view.status != FINISHED:
                seat = view.to_move[0]
                mine = (await stub.GetView(pb.GetViewRequest(
                    game_id=game_id, seat_token=tokens[seat], observation_encoding=NONE),
                    timeout=RPC_TIMEOUT)).view
                choice = rng.choice(list(mine.legal_decisions)).notation
                answer = await stub.SubmitDecision(pb.SubmitDecisionRequest(
                    game_id=game_id, seat_token=tokens[seat], expected_version=mine.version,
                    decision=pb.Decision(notation=choice), request_id=uuid.uuid4().hex,
                    observation_encoding=NONE), timeout=RPC_TIMEOUT)
                ledger.decisions[(game_id, answer.version)] = (seat, choice)
                view = answer.view
    except grpc.aio.AioRpcError as error:
        if ledger.killed_at is None:
            ledger.early_errors.append(f"{error.code().name}: {error.details()}")


async def creator(stub: Any, ledger: Ledger, stop: asyncio.Event, rng: random.Random) -> None:
    """Create games flat out until `stop` (a created game must survive as much as a
    decision); the first failed call ends it."""
    try:
        while not stop.is_set():
            created = await stub.CreateGame(pb.CreateGameRequest(
                game="municipium", variant="classic", num_seats=3,
                seed=rng.randrange(1 << 31)), timeout=RPC_TIMEOUT)
            ledger.games.append(created.game_id)
    except grpc.aio.AioRpcError as error:
        if ledger.killed_at is None:
            ledger.early_errors.append(f"{error.code().name}: {error.details()}")


def exposed(info: dict[str, Any]) -> bool:
    """Redis holds appended writes in memory only, waiting for a background fsync."""
    return bool(info.get("aof_pending_bio_fsync")) and bool(info.get("aof_buffer_length"))


@dataclass
class KillReport:
    """When and how the kill happened: seconds of load, whether a sample saw writes
    held back at the kill, the share of samples that did."""

    after_s: float
    exposed_at_kill: bool
    exposed_share: float
    samples: int


async def kill_mid_load(serve: Serve, ledger: Ledger, min_s: float, max_s: float,
                        aim: bool, rng: random.Random) -> KillReport:
    """Sample INFO persistence every 10 ms; SIGKILL redis-server at a random instant in
    [min_s, max_s] of load, or (`aim`) at the first exposed sample after min_s."""
    import redis.asyncio as aredis

    at = max_s if aim else rng.uniform(min_s, max_s)
    samples = hits = 0
    last = False
    client = aredis.Redis.from_url(serve.redis_url, socket_timeout=5.0)
    try:
        while True:
            elapsed = time.monotonic() - ledger.started_at
            try:
                last = exposed(await client.info("persistence"))
            except (redis.TimeoutError, redis.ConnectionError):
                last = False  # a busy host: the load goes on, the kill comes at `at`
            samples += 1
            hits += last
            if elapsed >= at or (aim and last and elapsed >= min_s):
                break
            await asyncio.sleep(0.002 if aim else 0.01)
    finally:
        await client.aclose()
    serve.kill_redis()
    ledger.killed_at = time.monotonic()
    return KillReport(round(ledger.killed_at - ledger.started_at, 2), last,
                      hits / max(1, samples), samples)


async def load_and_kill(serve: Serve, players: int, min_s: float, max_s: float, aim: bool,
                        seed: int, creators: int = 1) -> tuple[Ledger, KillReport]:
    """`players` coroutines playing flat out on `serve` and `creators` creating games;
    Redis killed mid-load (see `kill_mid_load`)."""
    rng = random.Random(seed)
    ledger = Ledger()
    stop = asyncio.Event()
    async with grpc.aio.insecure_channel(serve.address) as channel:
        stub = pb_grpc.GameServiceStub(channel)  # type: ignore[no-untyped-call]
        tasks = [asyncio.create_task(play(stub, ledger, stop, random.Random(rng.random())))
                 for play in [player] * players + [creator] * creators]
        ledger.started_at = time.monotonic()
        report = await kill_mid_load(serve, ledger, min_s, max_s, aim, rng)
        stop.set()
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=RPC_TIMEOUT + 10)
    return ledger, report


# -- what survived -------------------------------------------------------------------------
@dataclass
class Loss:
    """Acknowledged games and decisions missing, with an example of each."""

    games: int = 0
    decisions: int = 0
    examples: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.games or self.decisions)


def version_by_service(address: str) -> Any:
    """game id -> the version GetView answers (None: NOT_FOUND), on a service."""
    channel = grpc.insecure_channel(address)
    stub = pb_grpc.GameServiceStub(channel)  # type: ignore[no-untyped-call]

    def version(game_id: str) -> int | None:
        try:
            return int(stub.GetView(pb.GetViewRequest(game_id=game_id, observation_encoding=NONE),
                                    timeout=RPC_TIMEOUT).view.version)
        except grpc.RpcError as error:
            if error.code() == grpc.StatusCode.NOT_FOUND:
                return None
            raise

    version.close = channel.close  # type: ignore[attr-defined]
    return version


def check(redis_url: str, ledger: Ledger, service: str | None = None) -> Loss:
    """What of the ledger this Redis lacks: games (GetView NOT_FOUND through `service`, or
    not in the store), decisions (the game's version below the acknowledged one, or its
    log, as the service reads it, without the acknowledged decision at that version)."""
    return asyncio.run(_check(redis_url, ledger, service))


async def _check(redis_url: str, ledger: Ledger, service: str | None) -> Loss:
    loss = Loss()
    by_game: dict[str, dict[int, tuple[int, str]]] = {g: {} for g in ledger.games}
    for (game_id, at), decided in ledger.decisions.items():
        by_game.setdefault(game_id, {})[at] = decided
    ask = version_by_service(service) if service else None
    store = GameStore.from_url(redis_url)
    try:
        for game_id, acked in by_game.items():
            version: int | None
            if ask is not None:
                version = ask(game_id)
            else:
                stored = await store.load(game_id)
                version = None if stored is None else stored.version
            if version is None:
                loss.games += 1
                loss.decisions += len(acked)
                loss.examples.append(f"game {game_id} gone ({len(acked)} decisions)")
                continue
            log = {e.version: (e.seat, e.notation) for e in await store.log(game_id)}
            for at, decided in sorted(acked.items()):
                if at > version or log.get(at) != decided:
                    loss.decisions += 1
                    loss.examples.append(f"{game_id} v{at} {decided} (now v{version}, "
                                         f"logged {log.get(at)})")
    finally:
        await store.close()
        if ask is not None:
            ask.close()
    return loss


def check_power_loss(data_dir: Path, fsync_log: Path, ledger: Ledger,
                     scratch: Path) -> Loss | None:
    """The ledger against a copy of `data_dir` whose AOF is cut to its last fsynced size
    (None: no AOF where expected, or it was replaced since that fsync by a rewrite)."""
    aof = data_dir / AOF
    if not aof.exists():
        return None
    synced = last_fsync(fsync_log)
    inode = aof.stat().st_ino
    if synced is not None and synced[0] != inode:
        return None  # rewritten since: the last fsync was of another file
    durable = synced[1] if synced is not None else 0
    copy = scratch / "power-loss"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(data_dir, copy, ignore=shutil.ignore_patterns("*.sock"))
    with open(copy / AOF, "r+b") as handle:
        handle.truncate(min(durable, aof.stat().st_size))
    store = EmbeddedRedis(copy).start(timeout=60)
    try:
        return check(store.url, ledger)
    finally:
        store.stop()
        shutil.rmtree(copy, ignore_errors=True)


# -- one policy ----------------------------------------------------------------------------
#: The disks a run can emulate: as it is, busy (the fsync hog), slow (every fsync of the
#: append-only file takes --slow-ms longer: the shim sleeps first).
DISKS = ("plain", "hog", "slow")


@dataclass
class Row:
    mode: str
    disk: str
    kills: int = 0
    acked_decisions: int = 0
    acked_games: int = 0
    lost_decisions: int = 0
    lost_games: int = 0
    kills_losing: int = 0
    worst_kill: int = 0
    host_lost_decisions: int | None = None
    host_lost_games: int | None = None
    host_kills: int = 0
    exposed_share: float = 0.0
    exposed_at_kill: int = 0
    decisions_per_s: float = 0.0
    delayed_fsync_logs: int = 0
    examples: list[str] = field(default_factory=list)
    early_errors: list[str] = field(default_factory=list)


def shim_env(shim: Path | None, fsync_log: Path, slow_ms: int = 0) -> dict[str, str]:
    """The environment that preloads the shim into `curia serve` and its redis-server."""
    if shim is None:
        return {}
    env = {"LD_PRELOAD": str(shim), FSYNC_LOG_ENV: str(fsync_log)}
    if slow_ms:
        env[FSYNC_DELAY_ENV] = str(slow_ms)
    return env


def run_mode(mode: str, disk: str, kills: int, players: int, min_s: float, max_s: float,
             aim: bool, slow_ms: int, seed: int, scratch: Path, shim: Path | None) -> Row:
    row = Row(mode, disk if disk != "slow" else f"slow {slow_ms}ms")
    data_dir = scratch / "redis"
    fsync_log = scratch / "fsync.log"
    env = shim_env(shim, fsync_log, slow_ms if disk == "slow" else 0)
    rates: list[float] = []
    exposures: list[float] = []
    with fsync_hog(scratch / "hog") if disk == "hog" else contextlib.nullcontext():
        for kill in range(kills):
            serve = Serve(data_dir, mode, env)
            try:
                assert serve.appendfsync == mode, (serve.appendfsync, mode)
                ledger, report = asyncio.run(load_and_kill(
                    serve, players, min_s, max_s, aim, seed * 1000 + kill))
            finally:
                serve.stop()
            host = check_power_loss(data_dir, fsync_log, ledger, scratch) if shim else None
            serve = Serve(data_dir, mode, env)  # the same folder: Redis reloads its AOF
            try:
                loss = check(serve.redis_url, ledger, serve.address)
            finally:
                serve.stop()
            row.kills += 1
            row.acked_decisions += len(ledger.decisions)
            row.acked_games += len(ledger.games)
            row.lost_decisions += loss.decisions
            row.lost_games += loss.games
            row.kills_losing += bool(loss)
            row.worst_kill = max(row.worst_kill, loss.decisions + loss.games)
            row.examples += loss.examples[:2]
            row.early_errors += ledger.early_errors[:3]
            row.exposed_at_kill += report.exposed_at_kill
            if host is not None:
                row.host_kills += 1
                row.host_lost_decisions = (row.host_lost_decisions or 0) + host.decisions
                row.host_lost_games = (row.host_lost_games or 0) + host.games
            rates.append(ledger.decisions_per_s())
            exposures.append(report.exposed_share)
    log = (data_dir / "redis.log").read_text(errors="replace")
    row.delayed_fsync_logs = log.count("Asynchronous AOF fsync is taking too long")
    row.decisions_per_s = round(sum(rates) / max(1, len(rates)), 1)
    row.exposed_share = round(sum(exposures) / max(1, len(exposures)), 3)
    return row


def run_failover(mode: str, kills: int, players: int, min_s: float, max_s: float,
                 seed: int, scratch: Path) -> Row:
    """Failover to an asynchronous replica: `curia serve` on a master (`mode`) with one
    replica; mid-load the master is SIGKILLed and the replica promoted (REPLICAOF NO ONE),
    as Sentinel or a managed Redis would; the ledger is checked against the promoted
    replica. (The kill is at a random instant: replication is not held back by fsyncs.)"""
    row = Row(mode, "replica")
    rates: list[float] = []
    for kill in range(kills):
        master = EmbeddedRedis(scratch / f"master{kill}", appendfsync=mode).start()
        replica_dir = scratch / f"replica{kill}"
        replica_dir.mkdir(mode=0o700)
        shutil.copy(scratch / f"master{kill}" / PASSWORD_FILE, replica_dir / PASSWORD_FILE)
        replica = EmbeddedRedis(replica_dir, appendfsync=mode, extra_args=(
            "--replicaof", "127.0.0.1", str(master.port),
            "--masterauth", str(master.password))).start()
        try:
            with redis.Redis.from_url(replica.url) as client:
                deadline = time.monotonic() + 30
                while client.info("replication").get("master_link_status") != "up":
                    if time.monotonic() > deadline:
                        raise TimeoutError("the replica did not sync")
                    time.sleep(0.05)
            serve = Serve(scratch, redis_url=master.url)
            try:
                ledger, _ = asyncio.run(load_and_kill(serve, players, min_s, max_s, False,
                                                      seed * 1000 + kill))
            finally:
                serve.stop()
            with redis.Redis.from_url(replica.url) as client:
                client.execute_command("REPLICAOF", "NO", "ONE")
            loss = check(replica.url, ledger)
        finally:
            master.stop(kill=True)
            replica.stop()
        row.kills += 1
        row.acked_decisions += len(ledger.decisions)
        row.acked_games += len(ledger.games)
        row.lost_decisions += loss.decisions
        row.lost_games += loss.games
        row.kills_losing += bool(loss)
        row.worst_kill = max(row.worst_kill, loss.decisions + loss.games)
        row.examples += loss.examples[:2]
        row.early_errors += ledger.early_errors[:3]
        rates.append(ledger.decisions_per_s())
    row.decisions_per_s = round(sum(rates) / max(1, len(rates)), 1)
    return row


def format_rows(rows: list[Row]) -> str:
    head = (f"{'mode':9} {'disk':11} {'kills':>5} {'acked':>10} {'lost: kill -9':>14} "
            f"{'kills losing':>12} {'worst':>5} {'lost: power loss':>17} "
            f"{'exposed':>7} {'dec/s':>5}")
    lines = [head, "-" * len(head)]
    for r in rows:
        acks = f"{r.acked_decisions}+{r.acked_games}g"
        lost = f"{r.lost_decisions}+{r.lost_games}g"
        host = ("n/a" if r.host_lost_decisions is None else
                f"{r.host_lost_decisions}+{r.host_lost_games}g"
                + ("" if r.host_kills == r.kills else f" ({r.host_kills} kills)"))
        lines.append(f"{r.mode:9} {r.disk:11} {r.kills:>5} {acks:>10} {lost:>14} "
                     f"{r.kills_losing:>12} {r.worst_kill:>5} {host:>17} "
                     f"{r.exposed_share:>7.1%} {r.decisions_per_s:>5.0f}")
    return "\n".join(lines)


LEGEND = ("acked/lost: decisions + games created (g); 'kills losing': kills after which an "
          "acknowledged\ndecision or game was missing; 'worst': most lost at one kill; "
          "'power loss': the AOF cut to its\nlast fsync at the kill instant (the most a power "
          "loss may take); 'exposed': share of INFO\nsamples with appended writes held back "
          "in memory during a background fsync")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", default=",".join(APPENDFSYNC),
                        help="comma-separated appendfsync policies (default: all)")
    parser.add_argument("--disks", default="plain",
                        help=f"comma-separated, of {', '.join(DISKS)} (default plain)")
    parser.add_argument("--slow-ms", type=int, default=100,
                        help="the slow disk: ms added to every fsync of the AOF (default 100)")
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--players", type=int, default=32)
    parser.add_argument("--min-load", type=float, default=1.5)
    parser.add_argument("--max-load", type=float, default=3.0)
    parser.add_argument("--aim", action="store_true",
                        help="kill when writes are held back, not at a random instant")
    parser.add_argument("--failover", action="store_true",
                        help="also: each mode with a replica, the master killed and the "
                             "replica promoted (the 'lost: kill -9' column)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dir", help="scratch folder (default: a temporary one)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    modes = [m for m in args.modes.split(",") if m]
    disks = [d for d in args.disks.split(",") if d]
    for mode in modes:
        if mode not in APPENDFSYNC:
            parser.error(f"unknown mode {mode!r}")
    for disk in disks:
        if disk not in DISKS:
            parser.error(f"unknown disk {disk!r}")
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(dir=args.dir) as scratch_dir:
        scratch = Path(scratch_dir)
        shim = build_fsync_shim(scratch)
        if shim is None:
            if "slow" in disks:
                parser.error("--disks slow needs a C compiler (cc) for its shim")
            print("no C compiler: the power-loss column is skipped", file=sys.stderr)
        if not args.json:
            print(format_rows([]), flush=True)
        for disk in disks:
            for mode in modes:
                run_scratch = scratch / f"{mode}-{disk}"
                run_scratch.mkdir()
                rows.append(run_mode(mode, disk, args.kills, args.players, args.min_load,
                                     args.max_load, args.aim, args.slow_ms, args.seed,
                                     run_scratch, shim))
                if not args.json:
                    print(format_rows(rows[-1:]).splitlines()[2], flush=True)
        for mode in modes if args.failover else []:
            run_scratch = scratch / f"{mode}-failover"
            run_scratch.mkdir()
            rows.append(run_failover(mode, args.kills, args.players, args.min_load,
                                     args.max_load, args.seed, run_scratch))
            if not args.json:
                print(format_rows(rows[-1:]).splitlines()[2], flush=True)
    if args.json:
        print(json.dumps([r.__dict__ for r in rows], indent=1))
        return 0
    print(LEGEND)
    print(f"{os.cpu_count()} cores; kill -9 after {args.min_load}-{args.max_load} s of load "
          f"({'aimed at held-back writes' if args.aim else 'at a random instant'}), "
          f"{args.players} players")
    for r in rows:
        for example in r.examples[:3]:
            print(f"  {r.mode} {r.disk} lost: {example}")
        for error in r.early_errors[:3]:
            print(f"  {r.mode} {r.disk} error before the kill: {error}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
