"""Whether the store can be reached, told truthfully: to health checks (SERVING only while
Redis answers) and to the logs (one line when Redis goes away, one when it returns).

Every part of a server that meets a Redis failure (an RPC, the timeout sweep, the probe)
reports it to the server's one `StoreOutage`; only the first failure of an outage is
logged, with its cause, and the return is logged with the outage's length and how many
failures were not logged meanwhile.

A probe that fails on a connection error is tried once more on a fresh connection before
it counts: after Redis restarts, the pooled connection a probe takes may be one that died
with the old Redis process, while the new one answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

import redis.exceptions as redis_errors
from grpc_health.v1 import health_pb2
from grpc_health.v1.health import aio as health_aio

from service.store import GameStore

log = logging.getLogger("curia.service")

#: Seconds between two probes of the store.
PROBE_EVERY_S = 1.0
#: Seconds a probe may take before the store counts as unreachable.
PROBE_TIMEOUT_S = 1.0
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


class StoreOutage:
    """The state of the store as this process last met it, and the log of its changes."""

    def __init__(self) -> None:
        self.since: float | None = None  # monotonic start of the current outage
        self.unlogged = 0

    @property
    def down(self) -> bool:
        return self.since is not None

    def failed(self, where: str, error: BaseException) -> None:
        """A Redis failure met by `where`: logged only if it starts an outage."""
        if self.since is not None:
            self.unlogged += 1
            return
        self.since = time.monotonic()
        log.warning("redis unavailable", extra={
            "where": where, "error": f"{type(error).__name__}: {error}"})

    def succeeded(self) -> None:
        """Redis answered: ends the outage, if there was one, with one line."""
        if self.since is None:
            return
        log.warning("redis available again", extra={
            "outage_s": round(time.monotonic() - self.since, 2),
            "failures_not_logged": self.unlogged})
        self.since, self.unlogged = None, 0


async def probe(store: GameStore) -> None:
    """One PING, or an exception if Redis does not answer in time. A PING that fails on
    a connection error (a pooled connection that died, e.g. with a Redis that restarted)
    is tried once more on a fresh connection, which decides."""
    try:
        await asyncio.wait_for(store.redis.ping(), PROBE_TIMEOUT_S)
    except redis_errors.ConnectionError:
        await asyncio.wait_for(ping_fresh(store.redis), PROBE_TIMEOUT_S)


async def ping_fresh(client: Any) -> None:
    """PING on a new connection of the client's pool's kind, outside the pool (closed
    after); for a Cluster client (no single pool), one more PING."""
    pool = getattr(client, "connection_pool", None)
    if pool is None:
        await client.ping()
        return
    connection = pool.make_connection()
    try:
        await connection.connect()
        await connection.send_command("PING")
        answer = await connection.read_response()
        if answer not in (b"PONG", "PONG", True):
            raise redis_errors.ResponseError(f"unexpected answer to PING: {answer!r}")
    finally:
        await connection.disconnect()


async def follow_store(store: GameStore, health: health_aio.HealthServicer,
                       services: tuple[str, ...], outage: StoreOutage,
                       stop: asyncio.Event) -> None:
    """Probe the store every PROBE_EVERY_S until `stop`; `services` (and the overall
    status, "") are SERVING while it answers, NOT_SERVING while it does not."""
    serving = True
    while not stop.is_set():
        try:
            await probe(store)
            outage.succeeded()
            reachable = True
        except Exception as error:  # any failure to answer is an outage
            outage.failed("health probe", error)
            reachable = False
        if reachable != serving:
            serving = reachable
            for name in ("", *services):
                await health.set(name, SERVING if serving else NOT_SERVING)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(stop.wait(), PROBE_EVERY_S)
