"""`curia loadtest` against a real server: it plays games and reports its figures."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis

from client.loadtest import LoadSpec, format_summary, percentiles, run_load
from service.store import ACTIVE
from tests.servers import ServiceProcess
from tests.timing import wait_until

REPO = Path(__file__).resolve().parents[2]


def test_percentiles_by_nearest_rank() -> None:
    figures = percentiles([i / 1000 for i in range(1, 101)])
    assert (figures["p50"], figures["p99"], figures["max"], figures["count"]) == (
        51.0, 100.0, 100.0, 100)


def test_the_load_driver_plays_games_to_their_end(server: str) -> None:
    summary = run_load(LoadSpec(servers=[server], games=4, duration=3.0, channels=2,
                                game="municipium", variant="revised", seats=2,
                                options={"max_turns": 4}))
    assert summary["decisions"] > 100 and summary["errors"] == {}
    assert summary["latency_ms"]["SubmitDecision"]["count"] == summary["decisions"]
    assert summary["games_finished"] >= 1


@pytest.mark.parametrize("path", ["session", "unary", "watch"])
def test_each_path_of_the_load_plays_games_to_their_end(server: str, path: str) -> None:
    """Session streams (the default), unary calls, and players following WatchGame per
    seat as the shipped bots do: each finishes games without an error."""
    summary = run_load(LoadSpec(servers=[server], games=3, duration=3.0, channels=2,
                                game="municipium", variant="revised", seats=2,
                                options={"max_turns": 3}, unary=path == "unary",
                                watch=path == "watch"))
    assert summary["errors"] == {} and summary["games_finished"] >= 1
    assert summary["latency_ms"]["SubmitDecision"]["count"] == summary["decisions"] > 30
    calls = set(summary["latency_ms"])
    assert ("GetView" in calls) == (path != "watch")  # watchers never ask for a view


def test_a_warm_up_is_played_but_not_counted(server: str) -> None:
    summary = run_load(LoadSpec(servers=[server], games=2, duration=1.0, warmup=1.5,
                                channels=1, game="municipium", variant="revised",
                                seats=2, max_games=1, options={"max_turns": 2}))
    assert summary["decisions"] == 0 and summary["latency_ms"] == {}  # one game, in warm-up


def test_curia_loadtest_prints_json_figures(server: str) -> None:
    done = subprocess.run([sys.executable, "-m", "curia", "loadtest", "--server", server,
                           "--games", "3", "--duration", "2", "--json",
                           "--game", "municipium"], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["decisions_per_s"] > 0 and "GetView" in figures["latency_ms"]
    assert set(figures["latency_ms"]["GetView"]) == {"count", "p50", "p95", "p99", "max"}


def test_curia_loadtest_reports_a_server_that_dies_mid_run(
        service_process: type[ServiceProcess], redis_url: str) -> None:
    """kill -9 of the server while its games' Session streams wait between calls (think
    time): the loadtest neither writes on an ended stream (grpc.aio's InvalidStateError)
    nor stops; it plays out its time and prints its figures, the games' failed calls
    counted as UNAVAILABLE and the server named as gone."""
    server = service_process(redis_url)
    games = 6
    with redis.Redis.from_url(redis_url) as admin:
        live_before = admin.scard(ACTIVE)
        loadtest = subprocess.Popen(
            [sys.executable, "-m", "curia", "loadtest", "--server", server.address,
             "--games", str(games), "--duration", "6", "--think-ms", "150", "--json",
             "--game", "municipium"], cwd=REPO, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        try:
            wait_until(lambda: admin.scard(ACTIVE) >= live_before + games, 30.0,
                       message="the loadtest's games to start")
            time.sleep(1.0)  # decisions made; streams open, mostly waiting (think time)
            server.kill()
            out, err = loadtest.communicate(timeout=60)
        finally:
            if loadtest.poll() is None:
                loadtest.kill()
                loadtest.communicate()
    assert loadtest.returncode == 0, err
    assert "InvalidStateError" not in err and "Traceback" not in err, err
    figures = json.loads(out)
    assert figures["decisions"] > 0  # played before the kill, and counted
    unavailable = {k: v for k, v in figures["errors"].items() if k.endswith(":UNAVAILABLE")}
    assert unavailable, figures["errors"]
    assert sum(unavailable.values()) < 2000, "no spinning on a dead channel"
    assert figures["servers_gone"] == [server.address]
    assert f"server {server.address} went away" in format_summary(figures)
