"""A tournament played by `curia league worker` processes through the Redis Stream of seats
(hosting/seat_jobs.py): with workers started by the arena, and with workers started apart
from it, as on other machines."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from redis import Redis

from client.unary import CuriaClient
from curia_api.v1 import game_service_pb2 as pb
from hosting.seat_jobs import (
    ARENA_RUNS_KEY,
    RUN_FOLDERS_KEY,
    SeatQueue,
    arena_jobs_key,
    arena_lease_key,
    queue_job,
)
from hosting.worker import WORKERS_KEY, Worker, takeover_ms, worker_key
from service.leagues import text
from tests.timing import wait_until

REPO = Path(__file__).resolve().parents[2]
BOTS = [REPO / "bots" / "greedy_bot" / "bot.toml", REPO / "bots" / "random_bot" / "bot.toml",
        REPO / "bots" / "python_stdio" / "bot.toml"]
#: Bots whose every answer is a pure function of what they are asked: a bot restarted
#: mid-game plays on as before, so a fault that the workers absorb changes no result.
PURE = [Path(__file__).parent / "purebots" / f"{salt}.toml" for salt in "abc"]


def tournament_file(folder: Path, manifests: list[Path] = BOTS, rounds: int = 1,
                    clock: str = "decision_ms = 5000\nbank_ms = 60000") -> Path:
    """Three bots (by default two on gRPC, one stdio), round-robin of two-seat Leges: 6
    games a round."""
    bots = "".join(f'\n[[bots]]\nmanifest = "{path}"\n' for path in manifests)
    path = folder / "tournament.toml"
    path.write_text(f"""[tournament]
name = "workers"
game = "leges"
variant = "standard"
seats = 2
format = "round-robin"
rounds = {rounds}
seed = 11
concurrency = 2
output = "{folder / 'run'}"

[time]
{clock}
{bots}""")
    return path


def with_redis(redis_url: str | None) -> dict[str, str]:
    """This environment, with the Redis URL (password and all) in CURIA_REDIS_URL: never
    on a command line, where every local user could read it."""
    env = {k: v for k, v in os.environ.items() if k != "CURIA_REDIS_URL"}
    if redis_url:
        env["CURIA_REDIS_URL"] = redis_url
    return env


def arena(config: Path, *extra: str, redis_url: str | None = None
          ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "curia", "arena", "run", str(config),
                           "--no-progress", *extra], capture_output=True, text=True,
                          timeout=600, cwd=REPO, env=with_redis(redis_url))


def assert_played_by_workers(run: Path) -> None:
    """Every game has a result, and every seat's log is the bot's own, brought back from
    its worker (the arena started no bot)."""
    results = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    assert sorted(r["index"] for r in results) == list(range(6))
    spoilt = [r for r in results if not r["ranking"] or r.get("void") or r.get("forfeits")]
    assert not spoilt, (spoilt, {log.name: log.read_text()[-800:]
                                 for log in (run / "logs").glob("*.log")})
    logs = sorted((run / "logs").glob("*.log"))
    assert len(logs) == 12
    for log in logs:
        text = log.read_text()
        assert "game over" in text, (log.name, text[-500:])
        assert "no log from the worker" not in text


def test_a_tournament_with_workers_started_by_the_arena(tmp_path: Path) -> None:
    done = arena(tournament_file(tmp_path), "--workers", "2")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "workers: 2 here" in done.stdout
    run = tmp_path / "run"
    assert_played_by_workers(run)
    assert sorted(p.name for p in (run / "worker-logs").iterdir()) == ["w0", "w1"]
    assert not worker_pids(run), "the workers stopped with the tournament"


@pytest.fixture
def workers(redis_url: str, server: str, tmp_path: Path) -> Iterator[None]:
    """Two `curia league worker` processes on the service, as on two other machines."""
    started = [subprocess.Popen(
        [sys.executable, "-m", "curia", "league", "worker",
         "--server", server, "--slots", "2", "--logs", str(tmp_path / f"machine{i}")],
        env=with_redis(redis_url), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for i in range(2)]
    yield
    for process in started:
        process.terminate()
        process.wait(timeout=20)


def test_a_tournament_queues_its_seats_for_workers_elsewhere(
        tmp_path: Path, redis_url: str, server: str, workers: None) -> None:
    done = arena(tournament_file(tmp_path), "--server", server, "--workers", "0",
                 redis_url=redis_url)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "seats queued in run" in done.stdout
    assert_played_by_workers(tmp_path / "run")
    played = [len(list((tmp_path / f"machine{i}").glob("*.log"))) for i in range(2)]
    assert sum(played) == 12 and all(played), played  # both machines played seats
    redis = Redis.from_url(redis_url)
    wait_until(lambda: not redis.smembers(ARENA_RUNS_KEY), 5, message="the run unlisted")
    assert not redis.keys("curia:arena:{*")  # its stream, taken seats and logs are gone
    redis.close()


def test_workers_without_the_store_are_refused_in_one_line(
        tmp_path: Path, server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CURIA_REDIS_URL", raising=False)
    done = arena(tournament_file(tmp_path), "--server", server, "--workers", "1")
    assert done.returncode == 1
    assert "--workers with --server needs --redis-url" in done.stderr
    assert "Traceback" not in done.stderr


# -- faults: a killed arena, a killed worker ------------------------------------------------
def results_of(run: Path) -> list[dict[str, Any]]:
    path = run / "results.jsonl"
    return ([json.loads(line) for line in path.read_text().splitlines()]
            if path.exists() else [])


def worker_pids(run: Path, worker: str = "") -> list[int]:
    """The `curia league worker` processes of the run (those of its worker `worker`)."""
    logs = f"--logs {run / 'worker-logs' / worker}"
    found = []
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if entry.name.isdigit() and " league worker " in command and logs in command:
            found.append(int(entry.name))
    return found


def start_arena(config: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "curia", "arena", "run", str(config),
                             "--no-progress", "--workers", "2", *extra], cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def test_an_arena_killed_mid_run_resumes_complete_and_its_workers_die_with_it(
        tmp_path: Path) -> None:
    """kill -9 of `curia arena run --workers 2` after each new result, five times: its
    workers end with it, and each resume (the killed run's stream and listing kept in its
    redis/) takes no stale seat: the run completes, every game once."""
    config, run = tournament_file(tmp_path, rounds=3), tmp_path / "run"  # 18 games: work
    for _ in range(5):                                                    # left for 5 kills
        before = len(results_of(run))
        process = start_arena(config, "--keep-redis")
        wait_until(lambda: len(results_of(run)) > before or process.poll() is not None,  # noqa: B023
                   120, message="a new result")
        assert process.poll() is None, process.communicate()[1][-3000:]
        wait_until(lambda: len(worker_pids(run)) == 2, 30, message="both workers up")
        process.kill()
        process.wait()
        wait_until(lambda: not worker_pids(run), 5, message="the workers to die with it")
    done = arena(config, "--workers", "2")
    assert done.returncode == 0, done.stderr[-3000:]
    indexes = [result["index"] for result in results_of(run)]
    assert sorted(indexes) == list(range(18)), indexes  # each game exactly once
    assert not worker_pids(run)


def test_a_run_forgets_its_killed_incarnations_and_workers_skip_dead_runs(
        redis_url: str, tmp_path: Path) -> None:
    """The keys a resume of the same folder meets (a killed incarnation's stream and
    listing) are deleted before it queues a seat; a run whose lease expired (its arena
    died) offers no job to a worker; a worker's heartbeat is where a matchmaker reads it."""
    redis = Redis.from_url(redis_url)

    def killed(folder: Path) -> SeatQueue:  # entered, then dead: no renewal, no exit
        queue = SeatQueue(redis, (), folder=str(folder), decision_ms=10_000).__enter__()
        queue._stop.set()
        queue_job(redis, arena_jobs_key(queue.run), "game", 0, "bot", "bot.toml", "token",
                  1, run=queue.run)
        return queue

    earlier, elsewhere = killed(tmp_path / "run"), killed(tmp_path / "other")
    redis.delete(arena_lease_key(elsewhere.run))  # its lease expired
    worker = Worker(redis, None, "", 2, tmp_path / "logs")  # type: ignore[arg-type]
    with SeatQueue(redis, (), folder=str(tmp_path / "run"), decision_ms=10_000) as resumed:
        assert not redis.exists(arena_jobs_key(earlier.run))
        assert {text(run) for run in redis.smembers(ARENA_RUNS_KEY)} >= {resumed.run}
        assert earlier.run.encode() not in redis.smembers(ARENA_RUNS_KEY)
        streams = dict(worker.streams())
        assert streams.get(arena_jobs_key(resumed.run)) == 10_000
        assert arena_jobs_key(elsewhere.run) not in streams  # not live: not offered
        assert not redis.exists(arena_jobs_key(elsewhere.run))  # and forgotten
        assert takeover_ms(10_000) < 10_000 // 2 and takeover_ms(1_000) >= 3_000
    assert not redis.smembers(ARENA_RUNS_KEY) and not redis.hgetall(RUN_FOLDERS_KEY)
    worker.heartbeat(force=True)
    try:
        beat = {text(k): int(v) for k, v in redis.hgetall(worker_key(worker.name)).items()}
        assert beat["slots"] == beat["free"] == 2
        assert redis.zscore(WORKERS_KEY, worker.name) == beat["ms"]
        assert 0 < redis.ttl(worker_key(worker.name)) <= 10
    finally:
        redis.zrem(WORKERS_KEY, worker.name)
        redis.delete(worker_key(worker.name))
        redis.close()


def test_a_seat_whose_game_ended_before_a_worker_took_it_is_marked_taken(
        server: str, redis_url: str, tmp_path: Path) -> None:
    """A seat's job adopted after its game ended (the bot of a worker that died after
    starting it may play the game out before it dies too) is marked taken as it is
    acknowledged: the tournament, which waits for the mark, never waits for ever."""
    redis = Redis.from_url(redis_url)
    stream, taken = "curia:arena:{test-ended}:jobs", "curia:arena:{test-ended}:taken"
    with CuriaClient(server) as client:
        created = client.create_game("leges", "", 2)
        for credential in created.seats:  # both resign: the server plays the game out
            client.resign(created.game_id, credential.token)
        wait_until(lambda: client.view(created.game_id).status == pb.GAME_STATUS_FINISHED,
                   30, message="the game's end")
        queue_job(redis, stream, created.game_id, 1, "bot", "bot.toml",
                  created.seats[1].token, 1, taken_key=taken, run="test-ended")
        worker = Worker(redis, client, server, 2, tmp_path / "logs")
        (job,) = worker.take(stream, 1)
        worker.start(job)
    try:
        assert redis.hget(taken, f"{created.game_id}:1") == worker.name.encode()
        assert not redis.xrange(stream), "the job is done"
        assert not worker.running
    finally:
        redis.delete(stream, taken)
        redis.close()


def records_of(run: Path) -> list[dict[str, Any]]:
    """The records of a run's games (games/NNNNN.json)."""
    return [json.loads(path.read_text())["record"] for path in sorted(run.glob("games/*.json"))]


def rankings(run: Path) -> dict[int, Any]:
    return {result["index"]: result["ranking"] for result in results_of(run)}


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def test_a_worker_killed_mid_game_changes_no_result(tmp_path: Path) -> None:
    """The same tournament file and deal key, with and without a worker killed (SIGKILL)
    while it plays a seat: its seats are taken over before their decision clock runs out
    (by the other worker, beyond its free slots, or by the one the arena starts again),
    unless the dying worker's bot finished its game first (or was still starting: then
    that attempt is void and the game is played again, same deal), and every game ends as
    in the run without the fault, none forfeited or void, each seat played by a bot."""
    key, clock = tmp_path / "deal.key", "decision_ms = 10000\nbank_ms = 0"
    (tmp_path / "plain").mkdir()
    (tmp_path / "faulty").mkdir()
    done = arena(tournament_file(tmp_path / "plain", PURE, clock=clock), "--workers", "2",
                 "--deal-key", str(key))
    assert done.returncode == 0, done.stderr[-3000:]
    run = tmp_path / "faulty" / "run"
    process = start_arena(tournament_file(tmp_path / "faulty", PURE, clock=clock),
                          "--deal-key", str(key))
    doomed = run / "worker-logs" / "w0"

    def unfinished() -> list[str]:  # the seats of w0 whose game is not over
        return [log.name for log in doomed.glob("*.log") if "game over" not in log.read_text()]

    try:
        wait_until(unfinished, 120, interval=0.02, message="worker w0 playing a seat")
        (pid,) = [pid for pid in worker_pids(run, "w0") if parent_of(pid) == process.pid]
        os.kill(pid, signal.SIGKILL)
        killed = unfinished()
        assert process.wait(timeout=300) == 0, process.communicate()[1][-3000:]
    finally:
        process.kill()
        process.wait()
    records = {record["game_id"]: record for record in records_of(run)}
    for name in killed:  # played to its end by a bot started again for the seat, or by
        # the first one before it died with its worker (its log lost with the worker)
        restarted = any("game over" in log.read_text() for log in (
            doomed / name, run / "worker-logs" / "w1" / name) if log.exists())
        game_id, _, rest = name.partition("-seat")
        seat = int(rest.split("-")[0])
        if game_id not in records:  # killed while its bot was still starting (a loaded
            # machine): that attempt went void and its game was played again, same deal
            assert any(r.get("attempts", 1) > 1 for r in results_of(run)), (name, sorted(records))
            continue
        causes = {d["cause"] for d in records[game_id]["decisions"] if d["seat"] == seat}
        assert restarted or causes == {"DECISION_CAUSE_SEAT"}, (name, causes)
    assert not any(r.get("forfeits") or r.get("void") for r in results_of(run)), \
        results_of(run)
    assert len(results_of(run)) == 6
    assert rankings(run) == rankings(tmp_path / "plain" / "run")
