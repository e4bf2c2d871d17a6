"""Who may create games, and how many: the operator credential, the per-peer rate of
CreateGame and the cap on live games.

What each secret allows:
- a game id: to read the game as a spectator (GetView, WatchGame, GetGameRecord once over)
  and to take one of its open seats (JoinGame);
- a seat token: to decide and resign for that one seat, and to see that seat's private
  information;
- the operator credential (`curia serve --admin-token-file`): to create games. Without it
  configured, anyone who reaches the port may create games (a loopback or private
  deployment), still within the rate limit and the cap.
"""

from __future__ import annotations

import hmac
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

import grpc

from client.channels import ADMIN_METADATA_KEY
from service.errors import ServiceError

#: Seconds a peer's CreateGame bucket is kept after its last call.
BUCKET_IDLE_S = 600.0


@dataclass
class CreateRateLimit:
    """A token bucket per peer host: `per_minute` CreateGame calls a minute on average,
    bursts up to `burst`. Counted per server process. 0: no limit."""

    per_minute: int
    burst: int
    _buckets: dict[str, tuple[float, float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def allow(self, peer: str, now: float | None = None) -> bool:
        if self.per_minute <= 0:
            return True
        now = time.monotonic() if now is None else now
        with self._lock:
            self._forget_idle(now)
            tokens, last = self._buckets.get(peer, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - last) * self.per_minute / 60)
            allowed = tokens >= 1.0
            self._buckets[peer] = (tokens - 1.0 if allowed else tokens, now)
            return allowed

    def available(self, peer: str, now: float | None = None) -> bool:
        """Whether `allow` would allow a call now (nothing is taken)."""
        if self.per_minute <= 0:
            return True
        now = time.monotonic() if now is None else now
        with self._lock:
            tokens, last = self._buckets.get(peer, (float(self.burst), now))
        return min(float(self.burst), tokens + (now - last) * self.per_minute / 60) >= 1.0

    def _forget_idle(self, now: float) -> None:
        if len(self._buckets) > 10_000:
            self._buckets = {peer: (tokens, last) for peer, (tokens, last)
                             in self._buckets.items() if now - last < BUCKET_IDLE_S}


def peer_host(peer: str) -> str:
    """The host part of a gRPC peer string ('ipv4:1.2.3.4:5678' -> '1.2.3.4')."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv6":
        return rest.rpartition(":")[0].strip("[]") if "]" in rest else rest.rpartition(":")[0]
    if kind == "ipv4":
        return rest.rpartition(":")[0]
    return peer  # unix sockets and the like: one bucket per peer string


@dataclass
class AccessPolicy:
    """The server's rules for CreateGame (see the module docstring)."""

    admin_token: str | None = None
    max_live_games: int = 0
    creates: CreateRateLimit = field(default_factory=lambda: CreateRateLimit(0, 0))

    def check_operator(self, metadata: Iterable[tuple[str, str | bytes]]) -> None:
        """Refuse a call without the operator credential, when one is configured."""
        if self.admin_token is None:
            return
        sent = [value for key, value in metadata if key == ADMIN_METADATA_KEY]
        if not sent:
            raise ServiceError(grpc.StatusCode.UNAUTHENTICATED, "operator_required",
                               "CreateGame needs the operator credential: call metadata "
                               "'authorization: Bearer <token>'")
        value = sent[0] if isinstance(sent[0], str) else sent[0].decode(errors="replace")
        scheme, _, token = value.partition(" ")
        if scheme != "Bearer" or not hmac.compare_digest(token.encode(),
                                                         self.admin_token.encode()):
            raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, "operator_denied",
                               "the operator credential is not this server's")

    def check_rate(self, peer: str) -> None:
        if not self.creates.allow(peer_host(peer)):
            raise ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, "create_rate",
                               f"too many CreateGame calls from this address: at most "
                               f"{self.creates.per_minute} a minute (bursts of "
                               f"{self.creates.burst}); retry later")

    def live_games_full(self) -> ServiceError:
        """The refusal of a CreateGame over the live-games cap."""
        return ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, "live_games_cap",
                            f"the server holds its maximum of {self.max_live_games} "
                            "live games (waiting or in progress); retry when some end")
