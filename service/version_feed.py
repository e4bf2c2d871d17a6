"""Wakes a process's watchers when a game gets a new version.

The commit script publishes "<game id> <version> <lineage> <movers>" on CHANNEL (one
Redis, not a Cluster; movers: the seats that must decide at that version, "0,2", or "-"
once the game is over); each process holds one Pub/Sub subscription to it and wakes the
watchers waiting on that game, which then read the new log entries. A waiter's result is
the `Announced` version, lineage and movers, or None when it was woken without one (a new
subscription). A Play stream's seat that is not among the movers has nothing to look at:
it waits for the next version without reading the game (`latest_after` gives it any
version announced while it was not registered).
This replaces a blocking XREAD per watcher, which held a Redis connection per waiting
watcher and cost a round trip per watcher per version even when nothing was new.

A notification is only a hint: a watcher reads the log before it waits (so a version made
before it registered is not missed) and waits at most its block time, after which it
looks again. While the subscription is down (starting, Redis away, an ACL user without
the channel) watchers block in XREAD as before.

For a plain redis:// or rediss:// URL the subscription is a connection of the feed's own,
read by hiredis: each announcement wakes its watchers as it is parsed (`_Subscriber`, no
task and no redis-py call per message); otherwise it is redis-py's PubSub.

A subscription only ever reads, so a Redis that vanished without closing the connection
(its host gone in a network cut: no FIN, no RST) would leave it waiting for good, live in
name only, its watchers woken by nothing but their block time. The feed therefore PINGs
Redis on the subscription's connection every PING_EVERY_S and takes the subscription for
dead when nothing at all (message, subscription reply, PING reply) has come for
SILENT_LIMIT_S: it then drops the connection and subscribes again, and watchers wait in
XREAD meanwhile. This works with any redis-py client (no client option is needed), and
every step that waits on Redis (subscribing, reading, closing) is bounded by a timeout of
its own. A subscription confirmed again (redis-py's retry policy may reconnect and
resubscribe inside a read) wakes every watcher, as a new subscription does.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
import socket
import ssl
from typing import TYPE_CHECKING, Any, NamedTuple

import hiredis
import redis.exceptions as redis_errors

if TYPE_CHECKING:
    from service.redis_link import RedisLink

log = logging.getLogger("curia.service")

#: The channel the commit script publishes new versions on.
CHANNEL = "curia:versions"
#: Seconds between attempts to subscribe again after the subscription failed.
RESUBSCRIBE_S = 0.5
#: Seconds between PINGs on the subscription's connection (sent whatever else arrives).
PING_EVERY_S = 2.0
#: Seconds without anything from Redis on the subscription after which it counts as dead
#: (so a dead subscription is noticed within SILENT_LIMIT_S + READ_GRACE_S of its last
#: reply, whatever the redis-py version and the TCP keepalive settings).
SILENT_LIMIT_S = 6.0
#: Seconds a step may overrun the time it was given (a read, subscribing, closing) before
#: it is abandoned: a step stuck on a connection that no longer answers.
READ_GRACE_S = 1.0
#: Seconds to connect, authenticate and send SUBSCRIBE.
SUBSCRIBE_TIMEOUT_S = 5.0
#: Seconds between two looks for waiters whose time is up (`waiter(..., within=)`).
EXPIRE_EVERY_S = 0.25


class Announced(NamedTuple):
    """A new version as the commit script announces it."""

    version: int
    lineage: str
    #: the seats that must decide at it; None: every seat must look (the game is over, or
    #: an older server announced the version without them)
    movers: frozenset[int] | None = None

    def concerns(self, seat: int) -> bool:
        """Whether `seat` has anything to look at, at this version."""
        return self.movers is None or seat in self.movers


async def woken_within(woken: asyncio.Future[Any], seconds: float) -> bool:
    """Wait at most `seconds` for a waiter; whether it was woken. The waiter is left as it
    is on a timeout, and a cancellation of the caller always propagates (Python 3.11's
    `asyncio.wait_for` returns the result instead when the future completes just as the
    caller is cancelled, which would leave a cancelled stream running)."""
    done, _ = await asyncio.wait((woken,), timeout=seconds)
    return bool(done)


def parse_announcement(data: bytes) -> tuple[str, Announced | None]:
    """The game id of "<game id> <version> <lineage> <movers>", and what was announced if
    version and lineage are there (an older server announces the version alone, or no
    movers: every seat then looks)."""
    words = data.decode(errors="replace").split()
    game_id = words[0] if words else ""
    if len(words) >= 3 and words[1].isdigit():
        return game_id, Announced(int(words[1]), words[2], parse_movers(words[3:4]))
    return game_id, None


def parse_movers(words: list[str]) -> frozenset[int] | None:
    """The seats of "0,2"; None for "-", nothing, or anything else."""
    seats = words[0].split(",") if words else []
    if not seats or not all(seat.isdigit() and seat.isascii() for seat in seats):
        return None
    return frozenset(int(seat) for seat in seats)


class SubscriptionSilent(Exception):
    """Nothing came from Redis on the subscription for SILENT_LIMIT_S."""


Waiter = asyncio.Future[Announced | None]


class VersionFeed:
    """One subscription to CHANNEL for the process; `waiter(game_id)` is a future set when
    that game gets a new version (or when notifications may have been missed).

    A seat's waiter (`waiter(game_id, seat)`, the Play stream's) is set only at a version
    its seat must decide at, or the game's end: at another seat's turn nothing runs for it.
    A waiter given `within` seconds is set to None once they have passed (one timer for
    the process instead of one per wait)."""

    def __init__(self, client: Any, address: RedisLink | None = None) -> None:
        #: a redis.asyncio client; the subscription takes one connection of its pool
        self.client = client
        #: where to subscribe on a connection of the feed's own (`_Subscriber`: each
        #: announcement handled as it is parsed), for a plain redis:// or rediss:// URL;
        #: None: through redis-py's PubSub
        self.address = address
        #: each game's waiters, with the seat each one waits for (None: any version)
        self.waiting: dict[str, dict[Waiter, int | None]] = {}
        #: (time up, order, waiter) of the waiters given a time, earliest first
        self.due: list[tuple[float, int, Waiter]] = []
        self.order = itertools.count()
        self.expirer: asyncio.Task[None] | None = None
        #: the last version announced of each game that has waiters (dropped with its last
        #: waiter, and at a new subscription)
        self.latest: dict[str, Announced] = {}
        self.listener: asyncio.Task[None] | None = None
        #: set while the subscription is live
        self.subscribed = asyncio.Event()

    def live(self) -> bool:
        """Whether the subscription is up (started at the first call): while it is not
        (starting, Redis away, no permission on the channel), watchers wait otherwise."""
        if self.listener is None or self.listener.done():
            self.listener = asyncio.create_task(self._listen())
        return self.subscribed.is_set()

    def waiter(self, game_id: str, seat: int | None = None, within: float | None = None
               ) -> Waiter:
        """A future set at the game's next version (to the version, lineage and movers
        announced, when known), or with a `seat`, at its next version that concerns the
        seat; set to None after `within` seconds. `discard` it when done with it."""
        self.live()
        loop = asyncio.get_running_loop()
        future: Waiter = loop.create_future()
        self.waiting.setdefault(game_id, {})[future] = seat
        if within is not None:
            heapq.heappush(self.due, (loop.time() + within, next(self.order), future))
            if self.expirer is None or self.expirer.done():
                self.expirer = asyncio.create_task(self._expire())
        return future

    def discard(self, game_id: str, future: Waiter) -> None:
        futures = self.waiting.get(game_id)
        if futures is not None:
            futures.pop(future, None)
            if not futures:
                del self.waiting[game_id]
                self.latest.pop(game_id, None)

    def latest_after(self, game_id: str, seen: Announced) -> Announced | None:
        """A version of the game announced after `seen` (while one of its waiters was
        already woken: a waiter registered since missed it), if any."""
        latest = self.latest.get(game_id)
        return latest if latest is not None and latest.version > seen.version else None

    def wake(self, game_id: str, announced: Announced | None = None) -> None:
        futures = self.waiting.get(game_id)
        if not futures:
            return
        if announced is not None:
            self.latest[game_id] = announced
        for future, seat in futures.items():
            if not future.done() and (announced is None or seat is None
                                      or announced.concerns(seat)):
                future.set_result(announced)

    def wake_all(self) -> None:
        self.latest.clear()
        for game_id in list(self.waiting):
            self.wake(game_id)

    async def _expire(self) -> None:
        """Set to None each waiter whose time is up, every EXPIRE_EVERY_S, while any
        waits (a waiter let go before its time stays in the heap until then)."""
        loop = asyncio.get_running_loop()
        while self.due:
            await asyncio.sleep(EXPIRE_EVERY_S)
            now = loop.time()
            while self.due and self.due[0][0] <= now:
                future = heapq.heappop(self.due)[2]
                if not future.done():
                    future.set_result(None)

    async def _listen(self) -> None:
        """Follow CHANNEL for good, subscribing again after a failure or a silence (and
        then waking every watcher: notifications may have been missed meanwhile)."""
        while True:
            try:
                if self.address is not None:
                    await self._follow_own(self.address)
                else:
                    await self._follow_pubsub()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # Redis away: watchers fall back to their timeout
                log.debug("version feed interrupted", extra={"error": repr(error)})
            finally:
                self.subscribed.clear()
            self.wake_all()
            await asyncio.sleep(RESUBSCRIBE_S)

    async def _follow_own(self, address: RedisLink) -> None:
        """Subscribe on a connection of the feed's own and keep it until it fails or falls
        silent: a PING every PING_EVERY_S, SubscriptionSilent once nothing has come for
        SILENT_LIMIT_S (the announcements themselves are handled as they arrive)."""
        loop = asyncio.get_running_loop()
        transport, subscriber = await asyncio.wait_for(loop.create_connection(
            lambda: _Subscriber(self), address.host, address.port,
            ssl=ssl.create_default_context() if address.tls else None), SUBSCRIBE_TIMEOUT_S)
        try:
            auth = address.auth_command()
            commands: list[Any] = [*([auth] if auth else []), ("SUBSCRIBE", CHANNEL)]
            transport.write(b"".join(hiredis.pack_command(command) for command in commands))
            pinged = loop.time()
            while True:
                now = loop.time()
                silent_for = now - subscriber.heard
                if silent_for >= SILENT_LIMIT_S:
                    raise SubscriptionSilent(
                        f"no reply from Redis on the subscription for {silent_for:.1f} s")
                if now - pinged >= PING_EVERY_S:
                    transport.write(hiredis.pack_command(("PING",)))
                    pinged = now
                wait = max(0.05, min(pinged + PING_EVERY_S,
                                     subscriber.heard + SILENT_LIMIT_S) - now)
                await asyncio.wait((subscriber.closed,), timeout=wait)
                if subscriber.closed.done():
                    raise subscriber.closed.result()
        finally:
            transport.abort()

    async def _follow_pubsub(self) -> None:
        """Subscribe through redis-py's PubSub and follow it (`_follow`)."""
        pubsub = self.client.pubsub()
        try:
            await asyncio.wait_for(pubsub.subscribe(CHANNEL), SUBSCRIBE_TIMEOUT_S)
            await self._follow(pubsub)
        finally:
            await _close(pubsub)

    async def _follow(self, pubsub: Any) -> None:
        """Read the subscription until it fails or falls silent: live from Redis's
        confirmation of SUBSCRIBE on, a PING every PING_EVERY_S, and SubscriptionSilent
        once nothing has come for SILENT_LIMIT_S."""
        loop = asyncio.get_running_loop()
        heard = pinged = loop.time()
        while True:
            now = loop.time()
            silent_for = now - heard
            if silent_for >= SILENT_LIMIT_S:
                raise SubscriptionSilent(
                    f"no reply from Redis on the subscription for {silent_for:.1f} s")
            if now - pinged >= PING_EVERY_S:
                await asyncio.wait_for(pubsub.ping(), READ_GRACE_S)
                pinged = now
            wait = max(0.05, min(pinged + PING_EVERY_S, heard + SILENT_LIMIT_S) - now)
            async with asyncio.timeout(wait + READ_GRACE_S):  # (no task per message)
                message = await pubsub.get_message(timeout=wait)
            if message is None:
                continue
            heard = loop.time()
            kind = message.get("type")
            if kind == "message":
                self.wake(*parse_announcement(message["data"]))
            elif kind == "subscribe":  # (again: redis-py reconnected inside a read)
                self.subscribed.set()
                self.wake_all()

    async def close(self) -> None:
        for task in (self.listener, self.expirer):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self.listener = self.expirer = None


class _Subscriber(asyncio.Protocol):
    """The feed's own subscription connection, read by hiredis: each announcement wakes
    its game's watchers as it is parsed, with no task and no call per message; anything
    read counts as heard; an error reply (a wrong password, no permission on the
    channel) or the connection's loss closes it."""

    def __init__(self, feed: VersionFeed) -> None:
        self.feed = feed
        self.reader = hiredis.Reader()
        self.loop = asyncio.get_running_loop()
        self.heard = self.loop.time()
        #: set to the reason once the connection is over
        self.closed: asyncio.Future[Exception] = self.loop.create_future()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        connection = transport.get_extra_info("socket")
        if connection is not None:  # (as redis-py's socket_keepalive)
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)

    def data_received(self, data: bytes) -> None:
        self.heard = self.loop.time()
        self.reader.feed(data)
        while (reply := self.reader.gets()) is not False:
            if isinstance(reply, hiredis.ReplyError):
                self.close(redis_errors.ConnectionError(f"subscription refused: {reply}"))
                return
            if isinstance(reply, list) and len(reply) == 3 and reply[0] == b"message":
                self.feed.wake(*parse_announcement(reply[2]))
            elif isinstance(reply, list) and reply and reply[0] == b"subscribe":
                self.feed.subscribed.set()
                self.feed.wake_all()

    def connection_lost(self, exc: Exception | None) -> None:
        self.close(redis_errors.ConnectionError(
            f"subscription connection lost{f': {exc}' if exc else ''}"))

    def close(self, reason: Exception) -> None:
        if not self.closed.done():
            self.closed.set_result(reason)
        if self.transport is not None:
            self.transport.abort()


async def _close(pubsub: Any) -> None:
    """Close a subscription, giving up after READ_GRACE_S (closing a connection to a host
    that vanished may wait on data that will never be sent)."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(pubsub.aclose(), READ_GRACE_S)
