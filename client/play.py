"""One seat of one game on a Play stream, for a synchronous client (the stdio bridge,
`hosting/stdio_bridge.py`; any program that plays a tournament's seat with its seat token).

    seat = PlaySeat("HOST:PORT", game_id, token, deliver=inbox.put)
    with seat:                       # opens the stream: the seat's first contact
        ack = seat.submit(version, "play common", request_id, lineage)
        seat.resign("why")

The seat token is the stream's credential (`authorization: Bearer`) and the hello names the
game (`PlayHello.game_id`). A reader thread hands every message of the game (game_started,
turn, update, game_ended) to `deliver`, in order; the replies to decisions and resignations
(ack, refusal) go to the call waiting for them, matched by request id: `submit` and
`resign` return the ack or raise `DecisionRefused` with the refusal's CallStatus (a
refusal of the store being away is sent again after a pause, like a dropped stream).

A dropped stream (a server restart, a cut connection) is reopened, on the next server when
the target lists several, comma-separated, and resumes: the server sends game_started and
the current turn again, and a request whose reply was lost is sent again with the same
request id (the server applies a decision once). After `give_up_s` seconds in a row without
a server (CURIA_RETRY_SECONDS, 30 s by default), or once the server refuses the token or the
game (UNAUTHENTICATED, PERMISSION_DENIED, NOT_FOUND, INVALID_ARGUMENT), the seat is lost:
`deliver` gets the error (SeatLost, SeatRefused), and every call waiting raises it. The
server ends the stream once it has sent the game's end; a call still waiting then (or made
later) raises GameEnded.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import grpc

from client.channels import open_channel
from client.retry import DISCONNECTED, describe_error, retry_seconds
from curia_api.v1 import game_service_pb2 as pb
from curia_api.v1 import game_service_pb2_grpc as pb_grpc

log = logging.getLogger("curia.play_seat")

#: Statuses that end the stream for good: the token may not play that game, or it is gone.
REFUSED = frozenset({grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED,
                     grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT})
#: Seconds between attempts in a row (the last one repeats).
BACKOFF_S = (0.1, 0.2, 0.5, 1.0)
#: A resignation's reply names no request (PlayResign has no request id).
RESIGNATION = ""
#: gRPC status codes by number (CallStatus.code).
CODES = {code.value[0]: code for code in grpc.StatusCode}


class PlayError(Exception):
    """The seat's stream could not do what was asked."""


class SeatRefused(PlayError):
    """The server will not let the token play the game (or knows no such game)."""


class SeatLost(PlayError):
    """No server answered for too long, or the seat's stream was closed."""


class GameEnded(PlayError):
    """The server ended the stream with the game (after game_ended) before it replied:
    its reply to a decision that ended the game may be lost with it."""


class DecisionRefused(PlayError):
    """A decision or resignation refused (nothing changed): its CallStatus."""

    def __init__(self, status: pb.CallStatus) -> None:
        self.status = status
        super().__init__(f"{self.code.name}: {status.message}")

    @property
    def code(self) -> grpc.StatusCode:
        return CODES.get(self.status.code, grpc.StatusCode.UNKNOWN)

    @property
    def message(self) -> str:
        return self.status.message

    @property
    def reason(self) -> str:
        """The server's word for why (CallStatus.reason; empty from older servers)."""
        return self.status.reason


Deliver = Callable[[pb.PlayResponse | PlayError], None]
Reply = pb.PlayResponse | PlayError


class PlaySeat:
    """One seat's Play stream (see the module docstring)."""

    def __init__(self, target: str, game_id: str, token: str, deliver: Deliver, *,
                 client: str = "curia client.play",
                 encoding: pb.ObservationEncoding = pb.OBSERVATION_ENCODING_JSON,
                 opponent_decisions: bool = False, give_up_s: float | None = None) -> None:
        self.targets = [part.strip() for part in target.split(",") if part.strip()]
        if not self.targets:
            raise ValueError("no server to play on")
        self.game_id, self.token, self.deliver = game_id, token, deliver
        self.hello = pb.PlayHello(client=client, observation_encoding=encoding,
                                  opponent_decisions=opponent_decisions, game_id=game_id)
        self.give_up_s = retry_seconds() if give_up_s is None else give_up_s
        #: the game's end was delivered
        self.ended = False
        self.attempts = 0
        self._lock = threading.Lock()
        self._outbox: queue.Queue[pb.PlayRequest | None] = queue.Queue()
        self._waiting: dict[str, tuple[pb.PlayRequest, queue.Queue[Reply]]] = {}
        self._failure: PlayError | None = None
        self._call: Any = None
        self._heard = False  # the current stream brought a message
        self._failures, self._failing_since = 0, 0.0  # streams failed in a row, since
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="play-seat")

    # -- the caller's side -------------------------------------------------------------
    def start(self) -> None:
        """Open the stream (the seat's first contact with the server)."""
        self._thread.start()

    def close(self) -> None:
        """Hang up; a call still waiting raises SeatLost."""
        self._stop.set()
        with self._lock:
            self._outbox.put(None)
            call = self._call
        if call is not None:
            call.cancel()
        if self._thread.is_alive():
            self._thread.join(timeout=2.0)

    def __enter__(self) -> PlaySeat:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def submit(self, version: int, notation: str, request_id: str,
               lineage: str = "") -> pb.PlayAck:
        """Submit a decision taken on the view at `version` of `lineage`; its ack, or
        DecisionRefused."""
        return self._request(request_id, pb.PlayRequest(decision=pb.PlayDecision(
            game_id=self.game_id, decision=pb.Decision(notation=notation),
            expected_version=version, request_id=request_id, expected_lineage=lineage)))

    def resign(self, reason: str) -> pb.PlayAck:
        """Resign the seat; its ack, or DecisionRefused."""
        return self._request(RESIGNATION, pb.PlayRequest(resign=pb.PlayResign(
            game_id=self.game_id, reason=reason)))

    def _request(self, key: str, request: pb.PlayRequest) -> pb.PlayAck:
        """Send `request` and wait for its reply; sent again after a pause while the
        server answers that it is away (the same request id: applied once)."""
        started, retries = time.monotonic(), 0
        while True:
            reply = self._exchange(key, request)
            if reply.WhichOneof("kind") == "ack":
                return reply.ack
            refused = DecisionRefused(reply.refusal.status)
            if refused.code not in DISCONNECTED or \
                    time.monotonic() - started > self.give_up_s or self._stop.is_set():
                raise refused
            retries += 1
            pause = backoff(retries)
            log.warning("request refused (%s); retry %d in %.1f s", refused, retries, pause)
            self._stop.wait(pause)

    def _exchange(self, key: str, request: pb.PlayRequest) -> pb.PlayResponse:
        answer: queue.Queue[Reply] = queue.Queue(maxsize=1)
        with self._lock:
            if self._failure is not None:
                raise self._failure
            self._waiting[key] = (request, answer)
            self._outbox.put(request)
        reply = answer.get()
        if isinstance(reply, PlayError):
            raise reply
        return reply

    # -- the reader thread -------------------------------------------------------------
    def _run(self) -> None:
        """Streams until the game's end, a refusal, `give_up_s` without a server, or
        `close`."""
        try:
            while not self._stop.is_set():
                target = self.targets[self.attempts % len(self.targets)]
                self.attempts += 1
                error = self._stream(target)
                if error is None:
                    return self._end(GameEnded("the game is over"), tell=False)
                if self._stop.is_set():
                    break
                if (failure := self._failed(target, error)) is not None:
                    return self._end(failure, tell=True)
        except Exception as error:  # a bug or a bad setting (TLS files): never hang
            log.exception("the Play stream failed")
            return self._end(SeatLost(f"the Play stream failed: {error}"), tell=True)
        self._end(SeatLost("the Play stream was closed"), tell=False)

    def _failed(self, target: str, error: Exception) -> PlayError | None:
        """After a stream stopped by `error`: the seat's loss if the server refused it or
        none answered for `give_up_s` in a row, else None after the pause before the next
        attempt."""
        if isinstance(error, grpc.RpcError) and error.code() in REFUSED:
            return SeatRefused(describe_error(error))
        if self._heard or not self._failures:  # the first failure of a streak
            self._failures, self._failing_since = 0, time.monotonic()
        self._failures += 1
        if time.monotonic() - self._failing_since > self.give_up_s:
            return SeatLost(f"no server for {self.give_up_s:.0f} s: {describe_error(error)}")
        pause = backoff(self._failures)
        log.warning("connection to %s lost (%s); retry %d in %.1f s", target,
                    describe_error(error), self._failures, pause)
        self._stop.wait(pause)
        return None

    def _stream(self, target: str) -> Exception | None:
        """One stream to `target`: None once the game ended, else why it stopped."""
        self._heard = False
        channel = open_channel(target)
        outbox = self._fresh_outbox()
        try:
            stub = pb_grpc.GameServiceStub(channel)  # type: ignore[no-untyped-call]
            call = stub.Play(outbox_requests(outbox, self._stop),
                             metadata=(("authorization", f"Bearer {self.token}"),))
            with self._lock:
                self._call = call
            for message in call:
                self._heard = True
                self._route(message)
            return None if self.ended else SeatLost("the stream ended before the game")
        except grpc.RpcError as error:
            return None if self.ended else error  # cut after the end: nothing lost
        finally:
            outbox.put(None)
            channel.close()

    def _fresh_outbox(self) -> queue.Queue[pb.PlayRequest | None]:
        """A new stream's requests: the hello, then every request still unanswered."""
        outbox: queue.Queue[pb.PlayRequest | None] = queue.Queue()
        outbox.put(pb.PlayRequest(hello=self.hello))
        with self._lock:
            for request, _ in self._waiting.values():
                outbox.put(request)
            self._outbox = outbox
        return outbox

    def _route(self, message: pb.PlayResponse) -> None:
        """A reply to the call waiting for it; anything else to `deliver`."""
        kind = message.WhichOneof("kind")
        if kind in ("ack", "refusal"):
            key = getattr(message, kind).request_id
            with self._lock:
                waiting = self._waiting.pop(key, None)
            if waiting is None:
                log.debug("a reply to no request waiting (%r)", key)
            else:
                waiting[1].put(message)
            return
        if kind == "game_ended":
            self.ended = True
        self.deliver(message)

    def _end(self, failure: PlayError, *, tell: bool) -> None:
        """No more stream: every waiting call (and every later one) gets `failure`,
        and `deliver` too if `tell`."""
        with self._lock:
            self._failure = failure
            waiting, self._waiting = self._waiting, {}
        for _, answer in waiting.values():
            answer.put(failure)
        if tell:
            self.deliver(failure)


def backoff(attempt: int) -> float:
    """The pause before attempt `attempt` (1, 2, ...) in a row."""
    return BACKOFF_S[min(attempt, len(BACKOFF_S)) - 1]


def outbox_requests(outbox: queue.Queue[pb.PlayRequest | None],
                    stop: threading.Event) -> Iterator[pb.PlayRequest]:
    """A Play stream's requests: what is put on `outbox`, until None or `stop`."""
    while not stop.is_set():
        try:
            request = outbox.get(timeout=0.5)
        except queue.Empty:
            continue
        if request is None:
            return
        yield request
