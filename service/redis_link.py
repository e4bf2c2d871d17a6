"""A lean pipelined Redis connection for the hot path (a decision's commit, a game's load).

redis-py spends about 60 µs of Python per command on this path (pool checkout and health
checks, per-argument encoding, a timeout per read, retries); a decision is one script
call. A `RedisLink` is one connection on which the commands sent during a turn of the
event loop are written together (one system call), and replies are matched to them in
order (Redis answers in order), packed and parsed by hiredis: about a quarter of that
cost. It raises redis-py's exceptions, so callers treat a failure as they treat
redis-py's:

- a connection that fails (or a reply later than `timeout`) fails every command in flight
  with `redis.exceptions.ConnectionError` (or `TimeoutError`); the next command connects
  again;
- an error reply raises what redis-py would (`LOADING` -> BusyLoadingError, `OOM` ->
  OutOfMemoryError, `NOSCRIPT` -> NoScriptError, ...), except that a script's error
  carrying Redis's OOM refusal also raises OutOfMemoryError (see `out_of_memory`).

Only plain `redis://` and `rediss://` URLs (user, password, database) are served;
`RedisLink.for_url` answers None for others (unix sockets, query options), and the store
then uses redis-py for everything.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import ssl
import time
from collections import deque
from typing import Any
from urllib.parse import urlsplit

import hiredis
import redis.exceptions as redis_errors
from redis._parsers.base import BaseParser
from redis.asyncio.connection import parse_url

#: How often the watchdog looks for a reply overdue.
WATCHDOG_S = 0.5
#: Redis's refusal of a write over `maxmemory` ("OOM command not allowed when used memory
#: > 'maxmemory'."), wherever it sits in an error: a plain reply starts with it, Redis 7
#: puts the script after it, and Redis 6.2 wraps it in a script error ("ERR Error running
#: script (call to f_...): @user_script:3: @user_script: 3: -OOM command not allowed...").
OOM_REFUSAL = re.compile(r"(?:^|[\s:-])OOM command not allowed")


class _Replies(asyncio.Protocol):
    """The connection: commands sent are written together once per turn of the event
    loop (one system call for every command the loop's callbacks sent meanwhile); each
    complete reply resolves the oldest waiter."""

    def __init__(self) -> None:
        self.reader = hiredis.Reader()
        #: (future, when its command was sent), oldest first
        self.waiting: deque[tuple[asyncio.Future[Any], float]] = deque()
        self.transport: asyncio.Transport | None = None
        self.lost: BaseException | None = None
        #: commands sent and not yet written, packed
        self.outgoing: list[bytes] = []

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def send(self, futures: list[asyncio.Future[Any]], packed: bytes) -> None:
        """Queue packed commands, whose replies resolve `futures`, for the next write."""
        if not self.outgoing:
            asyncio.get_running_loop().call_soon(self._write)
        self.outgoing.append(packed)
        sent = time.monotonic()
        self.waiting.extend((future, sent) for future in futures)

    def _write(self) -> None:
        packed, self.outgoing = b"".join(self.outgoing), []
        if self.lost is None and self.transport is not None:
            self.transport.write(packed)

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        while (reply := self.reader.gets()) is not False:
            if not self.waiting:  # a reply nobody asked for: the stream is out of step
                self.fail(redis_errors.ConnectionError("unexpected reply from Redis"))
                return
            future, _ = self.waiting.popleft()
            if not future.done():  # (a cancelled caller's reply is read and dropped)
                future.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.fail(redis_errors.ConnectionError(
            f"connection to Redis lost{f': {exc}' if exc else ''}"))

    def fail(self, error: BaseException) -> None:
        """Fail every command in flight and close: the next command reconnects."""
        if self.lost is None:
            self.lost = error
        while self.waiting:
            future, _ = self.waiting.popleft()
            if not future.done():
                future.set_exception(error)
        if self.transport is not None:
            self.transport.abort()


class RedisLink:
    """One pipelined connection to a Redis server (see the module docstring)."""

    def __init__(self, host: str, port: int, *, password: str | None = None,
                 username: str | None = None, db: int = 0, tls: bool = False,
                 timeout: float = 10.0) -> None:
        self.host, self.port, self.db, self.timeout = host, port, db, timeout
        self.password, self.username, self.tls = password, username, tls
        self.replies: _Replies | None = None
        self.connecting = asyncio.Lock()
        self.watchdog: asyncio.Task[None] | None = None
        self.scripts: dict[str, str] = {}  # sha1 -> source, for NOSCRIPT

    @classmethod
    def for_url(cls, url: str, timeout: float) -> RedisLink | None:
        """A link for a plain redis:// or rediss:// URL; None for any other."""
        parts = urlsplit(url)
        if parts.scheme not in ("redis", "rediss") or parts.query:
            return None
        found = parse_url(url)
        return cls(found.get("host") or "localhost", int(found.get("port") or 6379),
                   password=found.get("password"), username=found.get("username"),
                   db=int(found.get("db") or 0), tls=parts.scheme == "rediss",
                   timeout=timeout)

    def script(self, source: str) -> str:
        """Register a Lua script; its SHA-1, to `evalsha` it."""
        sha = hashlib.sha1(source.encode()).hexdigest()
        self.scripts[sha] = source
        return sha

    async def evalsha(self, sha: str, keys: list[Any], args: list[Any]) -> Any:
        """Run a registered script (loaded into Redis first if Redis does not know it)."""
        command = ("EVALSHA", sha, len(keys), *keys, *args)
        try:
            return await self.execute(*command)
        except redis_errors.NoScriptError:
            await self.execute("SCRIPT", "LOAD", self.scripts[sha])
            return await self.execute(*command)

    async def hgetall(self, key: str) -> dict[bytes, bytes]:
        flat = await self.execute("HGETALL", key)
        return dict(zip(flat[::2], flat[1::2], strict=True))


    async def execute(self, *command: Any) -> Any:
        """Send one command and await its reply (raises redis-py's exceptions)."""
        return (await self.execute_all([command]))[0]

    async def execute_all(self, commands: list[tuple[Any, ...]]) -> list[Any]:
        """Send commands together and await their replies, in order (raises the first
        error among them)."""
        replies = self.replies
        if replies is None or replies.lost is not None:
            replies = await self._connect()
        loop = asyncio.get_running_loop()
        futures: list[asyncio.Future[Any]] = [loop.create_future() for _ in commands]
        replies.send(futures, b"".join(hiredis.pack_command(c) for c in commands))
        answers: list[Any] = []
        try:
            for future in futures:  # (a failed connection fails them all alike)
                answers.append(await future)
        finally:
            for future in futures:  # none left pending or with an unread exception
                if not future.done():
                    future.cancel()
                elif not future.cancelled():
                    future.exception()
        return [_checked(answer) for answer in answers]

    async def _connect(self) -> _Replies:
        async with self.connecting:
            if self.replies is not None and self.replies.lost is None:
                return self.replies  # another caller connected meanwhile
            loop = asyncio.get_running_loop()
            try:
                _, replies = await asyncio.wait_for(loop.create_connection(
                    _Replies, self.host, self.port,
                    ssl=ssl.create_default_context() if self.tls else None), self.timeout)
            except (TimeoutError, OSError) as error:
                raise redis_errors.ConnectionError(
                    f"cannot connect to Redis at {self.host}:{self.port}: {error}") from None
            self.replies = replies
            await self._hello()
            if self.watchdog is None or self.watchdog.done():
                self.watchdog = asyncio.create_task(self._watch())
            return replies

    def auth_command(self) -> tuple[str, ...] | None:
        """The AUTH command a new connection sends first (None without a password)."""
        if self.password is None:
            return None
        return ("AUTH", *((self.username, self.password) if self.username
                          else (self.password,)))

    async def _hello(self) -> None:
        """Authenticate and select the database, as redis-py would on connecting."""
        if (auth := self.auth_command()) is not None:
            await self._first(*auth)
        if self.db:
            await self._first("SELECT", self.db)

    async def _first(self, *command: Any) -> None:
        try:
            await self.execute(*command)
        except redis_errors.ResponseError as error:
            assert self.replies is not None
            self.replies.fail(redis_errors.AuthenticationError(str(error)))
            raise redis_errors.AuthenticationError(str(error)) from None

    async def _watch(self) -> None:
        """Fail the connection when its oldest command waits longer than `timeout`."""
        while True:
            await asyncio.sleep(WATCHDOG_S)
            replies = self.replies
            if replies is None or replies.lost is not None:
                continue
            if replies.waiting and time.monotonic() - replies.waiting[0][1] > self.timeout:
                replies.fail(redis_errors.TimeoutError(
                    f"Redis did not answer within {self.timeout} s"))

    async def close(self) -> None:
        if self.watchdog is not None:
            self.watchdog.cancel()
        if self.replies is not None and self.replies.transport is not None:
            self.replies.transport.close()
        self.replies = None


def stream_rows(rows: list[Any]) -> list[tuple[bytes, dict[bytes, bytes]]]:
    """An XRANGE reply as redis-py gives it: (id, {field: value}) per entry."""
    return [(entry_id, dict(zip(flat[::2], flat[1::2], strict=True)))
            for entry_id, flat in rows]


def out_of_memory(error: BaseException) -> bool:
    """Whether a Redis error is its refusal to write over `maxmemory`: redis-py's
    OutOfMemoryError (a reply that starts with OOM), or a script error that carries the
    refusal, which redis-py raises as a plain ResponseError."""
    return isinstance(error, redis_errors.OutOfMemoryError) or (
        isinstance(error, redis_errors.ResponseError)
        and OOM_REFUSAL.search(str(error)) is not None)


def _checked(reply: Any) -> Any:
    """The reply, or the exception redis-py raises for an error reply (OutOfMemoryError
    for every form of the OOM refusal)."""
    if isinstance(reply, hiredis.ReplyError):
        error: Exception = BaseParser.parse_error(str(reply))  # type: ignore[no-untyped-call]
        if out_of_memory(error) and not isinstance(error, redis_errors.OutOfMemoryError):
            raise redis_errors.OutOfMemoryError(str(error))
        raise error
    return reply
