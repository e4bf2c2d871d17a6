"""Riding out a server that is away for a moment: one retry loop for calls and one resumable
WatchGame, for every client of the unary calls (the arena, the failover client, `curia
watch`); the Play stream's client (client/play.py) takes its codes and pauses from here.

A call that fails with a transient status (`RetryPolicy.codes`) is made again after a
growing pause, on the client its `ClientSource` hands out next (the same channel, a fresh
one, or the next replica), until it answers or the policy's retries or seconds in a row
run out; any other status is the server's answer and is raised at once. Every call a
`RetryingClient` makes is safe to repeat: reads change nothing; `submit` keeps the SAME
request id on every attempt, so the decision is applied once (a repeat after a lost answer
is answered `duplicate=True`); a repeated resignation is refused as already done; a
repeated `create_game` whose first answer was lost may leave an unused game behind.
JoinGame is not offered: a lost answer would leave a seat taken that nobody can play.

`resumable_watch` follows WatchGame; when the stream breaks, or ends before the game does,
it reopens after the last version it yielded, so each version is yielded exactly once, in
order, whatever the failures in between. Should the store roll back (lose versions it had
acknowledged), the stream goes on from the game's current version: that message is marked
`rolled_back` and its version is at or below the last one yielded.
"""

from __future__ import annotations

import logging
import os
import random
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import grpc

from client.unary import BOTH, CuriaClient
from curia_api.v1 import game_service_pb2 as pb

log = logging.getLogger("curia.retry")

T = TypeVar("T")
FINISHED = pb.GAME_STATUS_FINISHED
Code = grpc.StatusCode

#: A server (or its Redis) away for a moment, or a call that took too long.
TRANSIENT = frozenset({Code.UNAVAILABLE, Code.DEADLINE_EXCEEDED})
#: TRANSIENT, and the other ways a connection cut mid-call surfaces (CANCELLED when its
#: channel was rebuilt, INTERNAL or UNKNOWN for a stream cut mid-message): what a seat
#: playing a long game rides out.
DISCONNECTED = TRANSIENT | {Code.CANCELLED, Code.INTERNAL, Code.UNKNOWN}


class StreamInterrupted(Exception):
    """A WatchGame stream closed before the game was over."""


def describe_error(error: BaseException) -> str:
    """`CODE: details` for a gRPC error, else the error's text."""
    if isinstance(error, grpc.RpcError):
        return f"{error.code().name}: {error.details()}"
    return str(error)


#: Seconds in a row a client keeps retrying by default: long enough for a Redis restart
#: that reloads a large append-only file. The environment's CURIA_RETRY_SECONDS overrides.
DEFAULT_RETRY_SECONDS = 30.0
RETRY_SECONDS_ENV = "CURIA_RETRY_SECONDS"


def retry_seconds() -> float:
    """The time budget of retries in a row: CURIA_RETRY_SECONDS, else 30 s."""
    text = os.environ.get(RETRY_SECONDS_ENV, "")
    try:
        return max(0.0, float(text)) if text else DEFAULT_RETRY_SECONDS
    except ValueError:
        raise ValueError(f"{RETRY_SECONDS_ENV} must be a number of seconds, "
                         f"not {text!r}") from None


@dataclass(frozen=True)
class RetryPolicy:
    """Which failures are retried, for how long in a row, and the pauses in between.
    The default is a time budget (`retry_seconds()`), not a count of attempts."""

    codes: frozenset[grpc.StatusCode] = TRANSIENT
    #: Most retries in a row (None: only `seconds` limits them).
    retries: int | None = None
    #: Most seconds spent retrying in a row (None: only `retries` limits them).
    seconds: float | None = field(default_factory=retry_seconds)
    #: The first pause; each next one is twice as long, up to `max_pause`.
    pause: float = 0.05
    max_pause: float = 1.0
    #: Each pause is shortened by a random share up to `jitter`, so that many clients
    #: cut off at once do not all come back at the same instant.
    jitter: float = 0.5

    def pause_before(self, retry: int) -> float:
        """The pause before retry number `retry` (1, 2, ...)."""
        ceiling = min(self.max_pause, self.pause * 2.0 ** min(retry - 1, 60))
        return ceiling * (1.0 - self.jitter * random.random())


class _Streak:
    """The failures in a row of one call or one watch, held against a policy."""

    def __init__(self, policy: RetryPolicy) -> None:
        self.policy = policy
        self.count = 0
        self.started = 0.0

    def reset(self) -> None:
        self.count = 0

    def failed(self, error: Exception, target: str) -> float:
        """Count `error`; raise it if it is not transient or one too many, else return
        the pause to take before the retry."""
        policy = self.policy
        if isinstance(error, grpc.RpcError) and error.code() not in policy.codes:
            raise error
        now = time.monotonic()
        if self.count == 0:
            self.started = now
        self.count += 1
        pause = policy.pause_before(self.count)
        if ((policy.retries is not None and self.count > policy.retries)
                or (policy.seconds is not None
                    and now + pause - self.started > policy.seconds)):
            raise error
        limit = f"/{policy.retries}" if policy.retries is not None else ""
        log.warning("connection to %s lost (%s); retry %d%s", target, describe_error(error),
                    self.count, limit)
        return pause


class ClientSource(Protocol):
    """Where calls go: the client to use now, and what to do once it has failed."""

    def current(self) -> CuriaClient:
        """The client for the next attempt."""
        ...

    def failed(self, client: CuriaClient) -> None:
        """`client` failed with a transient status (it may already have been replaced)."""
        ...

    def close(self) -> None:
        ...


class Reconnecting:
    """One server, on a fresh channel after each failure (a channel that saw its server go
    may otherwise sit out its own reconnect backoff). Safe to share between threads."""

    def __init__(self, target: str, timeout: float = 30.0) -> None:
        self.target, self.timeout = target, timeout
        self._client = CuriaClient(target, timeout=timeout)
        self._lock = threading.Lock()

    def current(self) -> CuriaClient:
        with self._lock:
            return self._client

    def failed(self, client: CuriaClient) -> None:
        with self._lock:
            if client is not self._client:
                return  # another thread has rebuilt it already
            self._client = CuriaClient(self.target, timeout=self.timeout)
        client.close()

    def close(self) -> None:
        self.current().close()


def retry_call(method: Callable[[CuriaClient], T], *, source: ClientSource,
               policy: RetryPolicy) -> T:
    """`method(client)` on the source's current client, retried per `policy`."""
    streak = _Streak(policy)
    while True:
        client = source.current()
        try:
            return method(client)
        except grpc.RpcError as error:
            pause = streak.failed(error, client.target)
        source.failed(client)
        time.sleep(pause)


def resumable_watch(*, source: ClientSource, policy: RetryPolicy, game_id: str,
                    token: str = "", after_version: int = 0,
                    encoding: pb.ObservationEncoding = pb.OBSERVATION_ENCODING_UNSPECIFIED
                    ) -> Iterator[pb.WatchGameResponse]:
    """WatchGame from `after_version` (its view first, then each later version) until the
    game is over, every version exactly once: a stream that breaks or ends early is
    reopened after the last version yielded (and its lineage: a version the store has
    since lost resumes at the current one, marked `rolled_back`), retried per `policy`
    (any message resets the count of failures in a row). Raises the last failure once
    the policy gives up."""
    streak = _Streak(policy)
    last: int | None = None  # the last version yielded
    lineage = ""  # and its lineage
    while True:
        client = source.current()
        error: Exception
        try:
            for update in client.watch(game_id, token,
                                       after_version if last is None else last,
                                       encoding=encoding, after_lineage=lineage):
                if last is not None and update.version <= last and not update.rolled_back:
                    continue  # the resume point, already yielded
                streak.reset()
                last, lineage = update.version, update.view.lineage
                yield update
                if update.view.status == FINISHED:
                    return
            error = StreamInterrupted(f"the stream of game {game_id} ended at version "
                                      f"{last} before the game was over")
        except grpc.RpcError as failure:
            error = failure
        pause = streak.failed(error, client.target)
        source.failed(client)
        time.sleep(pause)


class RetryingClient:
    """CuriaClient's calls, each retried on transient failures (`retry_call`), and a
    resumable `watch`, over the clients of a ClientSource. Thread-safe when its source is.
    """

    def __init__(self, source: ClientSource, policy: RetryPolicy = RetryPolicy()) -> None:
        self.source, self.policy = source, policy

    @classmethod
    def to(cls, target: str, policy: RetryPolicy = RetryPolicy(),
           timeout: float = 30.0) -> RetryingClient:
        """A client of one server, on a fresh channel after each failure."""
        return cls(Reconnecting(target, timeout), policy)

    def close(self) -> None:
        self.source.close()

    def __enter__(self) -> RetryingClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def call(self, method: Callable[[CuriaClient], T]) -> T:
        """`method(client)`, retried on transient failures."""
        return retry_call(method, source=self.source, policy=self.policy)

    def list_games(self) -> pb.ListGamesResponse:
        return self.call(lambda client: client.list_games())

    def create_game(self, game: str, variant: str, num_seats: int,
                    **settings: Any) -> pb.CreateGameResponse:
        """`CuriaClient.create_game` (same keyword settings); a retry after a lost answer
        may leave an unused game behind."""
        return self.call(lambda client: client.create_game(game, variant, num_seats,
                                                           **settings))

    def view(self, game_id: str, token: str = "",
             encoding: pb.ObservationEncoding = BOTH, *, draw_board: bool = False
             ) -> pb.View:
        return self.call(lambda client: client.view(game_id, token, encoding,
                                                    draw_board=draw_board))

    def submit(self, game_id: str, token: str, version: int, decision: str | pb.Decision,
               request_id: str | None = None,
               encoding: pb.ObservationEncoding = BOTH,
               lineage: str = "") -> pb.SubmitDecisionResponse:
        """Submit a decision; every attempt carries the same request id (one is made up
        if none is given), so it is applied once. `lineage`: see CuriaClient.submit."""
        same_id = request_id or uuid.uuid4().hex
        return self.call(lambda client: client.submit(game_id, token, version, decision,
                                                      request_id=same_id,
                                                      encoding=encoding, lineage=lineage))

    def resign(self, game_id: str, token: str, reason: str = "") -> pb.ResignSeatResponse:
        return self.call(lambda client: client.resign(game_id, token, reason))

    def record(self, game_id: str) -> pb.GameRecord:
        return self.call(lambda client: client.record(game_id))

    def watch(self, game_id: str, token: str = "", after_version: int = 0,
              encoding: pb.ObservationEncoding = BOTH) -> Iterator[pb.WatchGameResponse]:
        """The resumable WatchGame (`resumable_watch`)."""
        return resumable_watch(source=self.source, policy=self.policy, game_id=game_id,
                               token=token, after_version=after_version, encoding=encoding)
