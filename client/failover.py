"""A client that fails over between replicas: "any replica serves any game, clients retry
on the other".

    client = FailoverClient(["10.0.0.1:50051", "10.0.0.2:50051"])
    view = client.view(game_id, token)
    client.submit(game_id, token, view.version, view.legal_decisions[0].notation)

Each call goes to the current target; when it fails with UNAVAILABLE or DEADLINE_EXCEEDED
(the server died, cannot be reached, or its Redis is away) the client moves on to the next
target and tries again after a growing, jittered pause, for up to `seconds` in a row
(default: `client.retry.retry_seconds()`, 30 s, enough for a Redis restart with a large
append-only file). Every other status is the server's answer and is raised at once. The
loops are `client.retry`'s.

Retries are safe because the state is in Redis, not in a server: `submit` keeps the SAME
request id on every attempt, so the decision is applied exactly once (a retry that finds
it already applied answers `duplicate=True`), and `watch` resumes on the next target
from the last version it yielded, yielding every later version exactly once. A retried
`create_game` whose first answer was lost may leave an unused game behind.
"""

from __future__ import annotations

import threading

from client.retry import TRANSIENT, RetryingClient, RetryPolicy, retry_seconds
from client.unary import CuriaClient


class Replicas:
    """Several servers of one store: calls go to one until it fails, then to the next.
    Safe to share between threads."""

    def __init__(self, targets: list[str], timeout: float) -> None:
        self.targets = list(targets)
        self.clients = [CuriaClient(target, timeout=timeout) for target in self.targets]
        self.index = 0
        #: How many times calls moved on to another target (for tests and metrics).
        self.failovers = 0
        self._lock = threading.Lock()

    def current(self) -> CuriaClient:
        with self._lock:
            return self.clients[self.index]

    def failed(self, client: CuriaClient) -> None:
        """Move past `client`'s target, unless another thread already did."""
        with self._lock:
            if self.clients[self.index] is client:
                self.index = (self.index + 1) % len(self.clients)
                self.failovers += 1

    def close(self) -> None:
        for client in self.clients:
            client.close()


class FailoverClient(RetryingClient):
    """CuriaClient's calls over several targets, failing over on UNAVAILABLE and
    DEADLINE_EXCEEDED. Safe to share between threads."""

    def __init__(self, targets: list[str], seconds: float | None = None,
                 timeout: float = 10.0, backoff: float = 0.05, max_backoff: float = 1.0,
                 attempts: int | None = None) -> None:
        """`seconds`: how long to keep retrying in a row (default `retry_seconds()`);
        `attempts`: optionally, also at most this many attempts in all."""
        if not targets:
            raise ValueError("FailoverClient needs at least one target")
        if attempts is not None and attempts < 1:
            raise ValueError("attempts must be at least 1")
        self.replicas = Replicas(targets, timeout)
        super().__init__(self.replicas, RetryPolicy(
            codes=TRANSIENT, retries=attempts - 1 if attempts is not None else None,
            seconds=retry_seconds() if seconds is None else seconds, pause=backoff,
            max_pause=max_backoff))

    @property
    def target(self) -> str:
        """The target calls go to now."""
        return self.replicas.current().target

    @property
    def failovers(self) -> int:
        """How many times a call moved on to another target."""
        return self.replicas.failovers

    def __enter__(self) -> FailoverClient:
        return self
