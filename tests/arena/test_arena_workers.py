"""A tournament played by `curia league worker` processes through the Redis Stream of seats
(arena/seat_jobs.py): with workers started by the arena, and with workers started apart
from it, as on other machines."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis import Redis

from arena.seat_jobs import ARENA_RUNS_KEY
from tests.service.conftest import wait_until

REPO = Path(__file__).resolve().parents[2]
BOTS = [REPO / "bots" / "greedy_bot" / "bot.toml", REPO / "bots" / "random_bot" / "bot.toml",
        REPO / "bots" / "python_stdio" / "bot.toml"]


def tournament_file(folder: Path) -> Path:
    """Three bots (two on gRPC, one stdio), round-robin of two-seat Leges: 6 games."""
    bots = "".join(f'\n[[bots]]\nmanifest = "{path}"\n' for path in BOTS)
    path = folder / "tournament.toml"
    path.write_text(f"""[tournament]
name = "workers"
game = "leges"
variant = "standard"
seats = 2
format = "round-robin"
rounds = 1
seed = 11
concurrency = 2
output = "{folder / 'run'}"

[time]
decision_ms = 5000
bank_ms = 60000
{bots}""")
    return path


def arena(config: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "curia", "arena", "run", str(config),
                           "--no-progress", *extra], capture_output=True, text=True,
                          timeout=600, cwd=REPO)


def assert_played_by_workers(run: Path) -> None:
    """Every game has a result, and every seat's log is the bot's own, brought back from
    its worker (the arena started no bot)."""
    results = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    assert sorted(r["index"] for r in results) == list(range(6))
    assert all(r["ranking"] and not r.get("void") and not r.get("forfeits") for r in results)
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
    found = subprocess.run(["pgrep", "-f", f"--logs {run / 'worker-logs'}"],
                           capture_output=True, text=True)
    assert not found.stdout.strip(), "the workers stopped with the tournament"


@pytest.fixture
def workers(redis_url: str, server: str, tmp_path: Path) -> Iterator[None]:
    """Two `curia league worker` processes on the service, as on two other machines."""
    started = [subprocess.Popen(
        [sys.executable, "-m", "curia", "league", "worker", "--redis-url", redis_url,
         "--server", server, "--slots", "2", "--logs", str(tmp_path / f"machine{i}")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for i in range(2)]
    yield
    for process in started:
        process.terminate()
        process.wait(timeout=20)


def test_a_tournament_queues_its_seats_for_workers_elsewhere(
        tmp_path: Path, redis_url: str, server: str, workers: None) -> None:
    done = arena(tournament_file(tmp_path), "--server", server, "--redis-url", redis_url,
                 "--workers", "0")
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
