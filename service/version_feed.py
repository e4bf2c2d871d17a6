"""Wakes a process's watchers when a game gets a new version.

The commit script publishes "<game id> <version>" on CHANNEL (one Redis, not a Cluster);
each process holds one Pub/Sub subscription to it and wakes the watchers waiting on that
game, which then read the new log entries. This replaces a blocking XREAD per watcher,
which held a Redis connection per waiting watcher and cost a round trip per watcher per
version even when nothing was new.

A notification is only a hint: a watcher reads the log before it waits (so a version made
before it registered is not missed) and waits at most its block time, after which it
looks again. While the subscription is down (starting, Redis away, an ACL user without
the channel) watchers block in XREAD as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

log = logging.getLogger("curia.service")

#: The channel the commit script publishes new versions on.
CHANNEL = "curia:versions"
#: Seconds between attempts to subscribe again after the subscription failed.
RESUBSCRIBE_S = 0.5


class VersionFeed:
    """One subscription to CHANNEL for the process; `waiter(game_id)` is a future set when
    that game gets a new version (or when notifications may have been missed)."""

    def __init__(self, client: Any) -> None:
        #: a redis.asyncio client; the subscription takes one connection of its pool
        self.client = client
        self.waiting: dict[str, set[asyncio.Future[None]]] = {}
        self.listener: asyncio.Task[None] | None = None
        #: set while the subscription is live
        self.subscribed = asyncio.Event()

    def live(self) -> bool:
        """Whether the subscription is up (started at the first call): while it is not
        (starting, Redis away, no permission on the channel), watchers wait otherwise."""
        if self.listener is None or self.listener.done():
            self.listener = asyncio.create_task(self._listen())
        return self.subscribed.is_set()

    def waiter(self, game_id: str) -> asyncio.Future[None]:
        """A future set at the game's next version; `discard` it when done with it."""
        self.live()
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiting.setdefault(game_id, set()).add(future)
        return future

    def discard(self, game_id: str, future: asyncio.Future[None]) -> None:
        futures = self.waiting.get(game_id)
        if futures is not None:
            futures.discard(future)
            if not futures:
                del self.waiting[game_id]

    def wake(self, game_id: str) -> None:
        for future in self.waiting.get(game_id, ()):
            if not future.done():
                future.set_result(None)

    def wake_all(self) -> None:
        for game_id in list(self.waiting):
            self.wake(game_id)

    async def _listen(self) -> None:
        """Follow CHANNEL for good, subscribing again after a failure (and then waking
        every watcher: notifications may have been missed meanwhile)."""
        while True:
            pubsub = self.client.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(CHANNEL)
                self.subscribed.set()
                self.wake_all()
                async for message in pubsub.listen():
                    if message.get("type") == "message":
                        self.wake(message["data"].split(b" ", 1)[0].decode())
            except asyncio.CancelledError:
                raise
            except Exception as error:  # Redis away: watchers fall back to their timeout
                log.debug("version feed interrupted", extra={"error": repr(error)})
            finally:
                self.subscribed.clear()
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
            self.wake_all()
            await asyncio.sleep(RESUBSCRIBE_S)

    async def close(self) -> None:
        if self.listener is not None:
            self.listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.listener
            self.listener = None
