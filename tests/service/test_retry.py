"""The one retry loop and the one resumable watch (client/retry.py), on scripted clients:
what is retried, how often, with which request id, and that a watch resumed any number of
times yields every version exactly once."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest

from client.retry import (
    DISCONNECTED,
    RetryingClient,
    RetryPolicy,
    StreamInterrupted,
    resumable_watch,
    retry_call,
)
from curia_api.v1 import game_service_pb2 as pb

FAST = RetryPolicy(pause=0.0)


class Failure(grpc.RpcError):
    def __init__(self, code: grpc.StatusCode) -> None:
        self._code = code

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return "scripted"


def update(version: int, finished: bool = False) -> pb.WatchGameResponse:
    status = pb.GAME_STATUS_FINISHED if finished else pb.GAME_STATUS_IN_PROGRESS
    return pb.WatchGameResponse(version=version, view=pb.View(version=version, status=status))


@dataclass
class Scripted:
    """A client (and its own source) answering from a script: each call takes the next
    entry, an exception to raise or a value to return; each watch the next list of
    messages, ending with an exception or not."""

    script: list[Any]
    target: str = "scripted:1"
    calls: list[tuple[Any, ...]] = field(default_factory=list)
    failures: int = 0

    def current(self) -> Scripted:
        return self

    def failed(self, client: object) -> None:
        self.failures += 1

    def close(self) -> None:
        pass

    def _next(self) -> Any:
        entry = self.script.pop(0)
        if isinstance(entry, Exception):
            raise entry
        return entry

    def submit(self, game_id: str, token: str, version: int, decision: str,
               request_id: str | None = None, encoding: int = 0, lineage: str = "") -> Any:
        self.calls.append((version, decision, request_id))
        return self._next()

    def watch(self, game_id: str, token: str, after_version: int, encoding: int = 0,
              after_lineage: str = "") -> Iterator[pb.WatchGameResponse]:
        self.calls.append((after_version,))
        for message in self._next():
            if isinstance(message, Exception):
                raise message
            yield message


def test_a_transient_failure_is_retried_with_the_same_request_id() -> None:
    client = Scripted([Failure(grpc.StatusCode.UNAVAILABLE),
                       Failure(grpc.StatusCode.DEADLINE_EXCEEDED), "applied"])
    answer = RetryingClient(client, FAST).submit("g", "t", 3, "play 1")  # type: ignore[arg-type]
    assert answer == "applied"
    ids = {request_id for _, _, request_id in client.calls}
    assert len(client.calls) == 3 and len(ids) == 1 and None not in ids
    assert client.failures == 2


def test_the_servers_answer_is_raised_at_once() -> None:
    client = Scripted([Failure(grpc.StatusCode.FAILED_PRECONDITION), "never"])
    with pytest.raises(grpc.RpcError) as refused:
        retry_call(lambda c: c.submit("g", "t", 1, "x"), source=client,  # type: ignore[arg-type]
                   policy=FAST)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert len(client.calls) == 1 and client.failures == 0


def test_retries_stop_after_the_policys_count_and_codes_are_the_policys() -> None:
    client = Scripted([Failure(grpc.StatusCode.UNAVAILABLE)] * 5)
    with pytest.raises(grpc.RpcError):
        retry_call(lambda c: c.submit("g", "t", 1, "x"), source=client,  # type: ignore[arg-type]
                   policy=RetryPolicy(retries=3, pause=0.0))
    assert len(client.calls) == 4  # the first attempt and 3 retries
    unknown = Scripted([Failure(grpc.StatusCode.UNKNOWN), "ok"])
    with pytest.raises(grpc.RpcError):  # not transient for the default policy...
        retry_call(lambda c: c.submit("g", "t", 1, "x"), source=unknown,  # type: ignore[arg-type]
                   policy=FAST)
    unknown = Scripted([Failure(grpc.StatusCode.UNKNOWN), "ok"])
    assert retry_call(lambda c: c.submit("g", "t", 1, "x"),  # ... but for a seat's
                      source=unknown, policy=RetryPolicy(codes=DISCONNECTED, pause=0.0)) == "ok"  # type: ignore[arg-type]


def test_pauses_grow_and_are_capped() -> None:
    policy = RetryPolicy(pause=0.1, max_pause=1.0, jitter=0.0)
    assert [policy.pause_before(n) for n in (1, 2, 3, 4, 5, 500)] == [0.1, 0.2, 0.4, 0.8, 1.0,
                                                                      1.0]


def test_pauses_are_jittered_below_their_ceiling() -> None:
    """Clients cut off together do not come back together: each pause is shortened by a
    random share of up to `jitter`."""
    policy = RetryPolicy(pause=0.1, max_pause=1.0, jitter=0.5)
    pauses = [policy.pause_before(5) for _ in range(200)]
    assert all(0.5 <= p <= 1.0 for p in pauses)
    assert len(set(pauses)) > 100


def test_the_default_policy_is_a_time_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    assert RetryPolicy().retries is None and RetryPolicy().seconds == 30.0
    monkeypatch.setenv("CURIA_RETRY_SECONDS", "90")
    assert RetryPolicy().seconds == 90.0
    monkeypatch.setenv("CURIA_RETRY_SECONDS", "soon")
    with pytest.raises(ValueError, match="CURIA_RETRY_SECONDS"):
        RetryPolicy()


def test_a_resumed_watch_yields_every_version_once_in_order() -> None:
    client = Scripted([
        [update(0), update(1), update(2), Failure(grpc.StatusCode.UNAVAILABLE)],
        [update(2), update(3)],  # ends before the game: resumed too
        Failure(grpc.StatusCode.UNAVAILABLE),  # the server is still away
        [update(3), update(4), update(5, finished=True), update(6)],
    ])
    seen = [u.version for u in resumable_watch(source=client, policy=FAST,  # type: ignore[arg-type]
                                               game_id="g")]
    assert seen == [0, 1, 2, 3, 4, 5]  # nothing after the end, nothing twice
    assert client.calls == [(0,), (2,), (3,), (3,)]  # each reopened after the last seen
    assert client.failures == 3


def test_a_watch_gives_up_after_the_policys_failures_in_a_row() -> None:
    client = Scripted([[update(7)], [], [], []])
    with pytest.raises(StreamInterrupted):
        list(resumable_watch(source=client, policy=RetryPolicy(retries=2, pause=0.0),  # type: ignore[arg-type]
                             game_id="g", after_version=7))
    assert client.calls == [(7,), (7,), (7,)]  # the stream, then 2 retries
    lost = Scripted([[update(0), Failure(grpc.StatusCode.NOT_FOUND)]])
    with pytest.raises(grpc.RpcError):
        list(resumable_watch(source=lost, policy=FAST, game_id="g"))  # type: ignore[arg-type]
