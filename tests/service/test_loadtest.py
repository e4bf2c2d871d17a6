"""`curia loadtest` against a real server: it plays games and reports its figures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from service.loadtest import LoadSpec, percentiles, run_load

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
