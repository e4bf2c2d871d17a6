"""A client that fails over between replicas: "any replica serves any game, clients retry
on the other".

    client = FailoverClient(["10.0.0.1:50051", "10.0.0.2:50051"])
    view = client.view(game_id, token)
    client.submit(game_id, token, view.version, "setup temple")

Each call goes to the current target; when it fails with UNAVAILABLE or DEADLINE_EXCEEDED
(the server died or cannot be reached) the client moves on to the next target and tries
again after a bounded, growing pause, at most `attempts` times in all. Every other status
is the server's answer and is raised at once.

Retries are safe because the state is in Redis, not in a server: `submit` keeps the SAME
request id on every attempt, so the decision is applied exactly once (a retry that finds
it already applied answers `duplicate=True`), and `watch` resumes on the next target
from the last version it yielded, yielding every later version exactly once. A retried
`create_game` whose first answer was lost may leave an unused game behind.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import TypeVar

import grpc

from curia.v1 import game_service_pb2 as pb
from service.client import CuriaClient

T = TypeVar("T")

#: Statuses that mean "this server is gone or unreachable": try the next one.
FAILOVER_CODES = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})
FINISHED = pb.GAME_STATUS_FINISHED


class StreamInterrupted(Exception):
    """A WatchGame stream closed before the game was over."""


class FailoverClient:
    """CuriaClient's calls over several targets, failing over on UNAVAILABLE and
    DEADLINE_EXCEEDED. Safe to share between threads."""

    def __init__(self, targets: list[str], attempts: int = 8, timeout: float = 10.0,
                 backoff: float = 0.05, max_backoff: float = 1.0) -> None:
        if not targets:
            raise ValueError("FailoverClient needs at least one target")
        if attempts < 1:
            raise ValueError("attempts must be at least 1")
        self.targets = list(targets)
        self.attempts = attempts
        self.backoff, self.max_backoff = backoff, max_backoff
        self.clients = [CuriaClient(target, timeout=timeout) for target in self.targets]
        self._current = 0
        self._lock = threading.Lock()
        #: How many times a call moved on to another target (for tests and metrics).
        self.failovers = 0

    @property
    def target(self) -> str:
        """The target calls go to now."""
        return self.targets[self._current]

    def close(self) -> None:
        for client in self.clients:
            client.close()

    def __enter__(self) -> FailoverClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the retry loop ------------------------------------------------------------------
    def _client(self) -> tuple[int, CuriaClient]:
        with self._lock:
            return self._current, self.clients[self._current]

    def _fail_over(self, failed: int, failures: int) -> None:
        """Move past target `failed` (unless another thread already did), then pause."""
        with self._lock:
            if self._current == failed:
                self._current = (failed + 1) % len(self.targets)
                self.failovers += 1
        time.sleep(min(self.max_backoff, self.backoff * 2 ** (failures - 1)))

    def call(self, method: Callable[[CuriaClient], T]) -> T:
        """`method(client)` on the current target, failing over until `attempts` run out."""
        failures = 0
        while True:
            index, client = self._client()
            try:
                return method(client)
            except grpc.RpcError as error:
                failures += 1
                if error.code() not in FAILOVER_CODES or failures >= self.attempts:
                    raise
                self._fail_over(index, failures)

    # -- the service's calls -------------------------------------------------------------
    def list_games(self) -> pb.ListGamesResponse:
        return self.call(lambda client: client.list_games())

    def create_game(self, game: str, variant: str, num_seats: int, *,
                    options: dict[str, int] | None = None, seed: int | None = None,
                    open_seats: tuple[int, ...] = (), decision_ms: int = 0,
                    bank_ms: int = 0, on_timeout: str = "random",
                    forfeit_on_illegal: bool = False) -> pb.CreateGameResponse:
        return self.call(lambda client: client.create_game(
            game, variant, num_seats, options=options, seed=seed, open_seats=open_seats,
            decision_ms=decision_ms, bank_ms=bank_ms, on_timeout=on_timeout,
            forfeit_on_illegal=forfeit_on_illegal))

    def view(self, game_id: str, token: str = "") -> pb.View:
        return self.call(lambda client: client.view(game_id, token))

    def submit(self, game_id: str, token: str, version: int, decision: str | pb.Decision,
               request_id: str | None = None) -> pb.SubmitDecisionResponse:
        """Submit a decision; every attempt carries the same request id, so it is applied
        once (an attempt after a lost answer returns `duplicate=True`)."""
        request_id = request_id or uuid.uuid4().hex
        return self.call(lambda client: client.submit(game_id, token, version, decision,
                                                      request_id=request_id))

    def record(self, game_id: str) -> pb.GameRecord:
        return self.call(lambda client: client.record(game_id))

    def watch(self, game_id: str, token: str = "",
              after_version: int = 0) -> Iterator[pb.WatchGameResponse]:
        """The WatchGame stream, resumed on the next target after a failure from the last
        version yielded: the view at `after_version`, then each later version once."""
        last: int | None = None  # the last version yielded
        failures = 0
        while True:
            index, client = self._client()
            resume = after_version if last is None else last
            try:
                for update in client.watch(game_id, token, resume):
                    if last is not None and update.version <= last:
                        continue  # the resume point, already yielded
                    failures = 0
                    last = update.version
                    yield update
                    if update.view.status == FINISHED:
                        return
                failure: grpc.RpcError | StreamInterrupted = StreamInterrupted(
                    f"the stream of game {game_id} ended at version {last} before the end")
            except grpc.RpcError as error:
                if error.code() not in FAILOVER_CODES:
                    raise
                failure = error
            failures += 1
            if failures >= self.attempts:
                raise failure
            self._fail_over(index, failures)
