"""Prometheus metrics of the game service (names are part of the deploy/ dashboards)."""

from __future__ import annotations

from functools import cache
from typing import Any

from prometheus_client import Counter, Gauge, Histogram

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)

DECISIONS_APPLIED = Counter(
    "curia_decisions_applied_total", "Decisions applied to games.", ["game", "cause"])
DECISIONS_REJECTED = Counter(
    "curia_decisions_rejected_total", "Decisions refused, by reason.", ["reason"])
GAMES_CREATED = Counter("curia_games_created_total", "Games created.", ["game"])
GAMES_FINISHED = Counter("curia_games_finished_total", "Games finished.", ["game"])
GAMES_EXPIRED = Counter(
    "curia_games_expired_total",
    "Live games ended for want of players: waiting games deleted, games in progress "
    "abandoned (idle, or only the server deciding).", ["status"])
RPC_SECONDS = Histogram(
    "curia_rpc_duration_seconds", "Time to serve an RPC (streams: to open).",
    ["method", "code"], buckets=LATENCY_BUCKETS)
REDIS_SECONDS = Histogram(
    "curia_redis_duration_seconds", "Time of Redis operations.", ["operation"],
    buckets=LATENCY_BUCKETS)
ACTIVE_GAMES = Gauge("curia_active_games",
                     "Live games, waiting or in progress (all servers, from Redis).")
OPEN_STREAMS = Gauge("curia_open_streams",
                     "WatchGame and Session streams open on this server.")
TIMEOUTS = Counter("curia_timeouts_total", "Decisions that timed out, by policy.", ["policy"])


@cache
def series(metric: Any, *labels: str) -> Any:
    """The metric's series for these label values, looked up once (labels() is not free
    on the hot path)."""
    return metric.labels(*labels)
