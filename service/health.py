"""Whether the store can be reached, told truthfully: to health checks (SERVING only while
Redis answers) and to the logs (one line when Redis goes away, one when it returns).

Every part of a server that meets a Redis failure (an RPC, the timeout sweep, the probe)
reports it to the server's one `StoreOutage`; only the first failure of an outage is
logged, with its cause, and the return is logged with the outage's length and how many
failures were not logged meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

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
    """One PING, or an exception if Redis does not answer in time."""
    await asyncio.wait_for(store.redis.ping(), PROBE_TIMEOUT_S)


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
