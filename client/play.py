"""The Python client of the Play stream (docs/api.md, "Play"): the one transport every
Python program that plays over Play uses, with a seat token (one game) or a league's bot
key (the league's games, many on one stream). Its users: the shipped bots
(`bots.play_client`, which `curia play` against a remote server and `curia arena check`'s
other seats run too), the stdio bridge (`hosting/stdio_bridge.py`), benchmarks/sandbox_overhead.py.

    stream = PlayStream("HOST:PORT", credential, hello, deliver)   # message by message
    with stream:                     # opens the stream: the credential's first contact
        stream.send(request)         # a decision or a resignation; its reply to deliver

    seat = PlaySeat("HOST:PORT", game_id, token, deliver)          # the synchronous wrapper
    with seat:
        ack = seat.submit(version, "play common", request_id, lineage)
        seat.resign("why")

The credential goes in the stream's metadata (`authorization: Bearer`); a seat's hello
names its game (`PlayHello.game_id`). A reader thread hands every message to `deliver`, in
order (game_started, turn, update, game_ended, and the replies to what `send` sent); a
reply to a request `PlaySeat` waits for (matched by game and request id) goes to that call
instead: `submit` and `resign` return the ack or raise `DecisionRefused`.

One reconnect loop. A dropped stream (a server restart, a cut connection, a stream that
ends before a seat's game) is reopened after a pause (`PLAY_RETRIES`, client.retry), on the
next server when the target lists several, comma-separated, and resumes: the server sends
game_started and the current turn of every game again, and every request still unanswered
is sent again with the same request id (a decision is applied once). A decision refused
because the store was away is sent again after the same pauses while it is still the
game's latest. A newer decision of a game replaces an unanswered older one (taken on a turn
the game has left, or lost in a rollback). A turn older than the last one, or of another
lineage at its version, means the store rolled back (`rolled_back`): decide again there.

One meaning for each status name:
- `STREAM_REFUSED`: the server will not open the stream for this credential (an unknown,
  revoked or banned key, a token that may not play the game, no such game): the stream is
  over, `deliver` gets `StreamRefused` with the server's reason (`curia-reason`);
- `DISCONNECTED` (client.retry), or any other end of the stream: the connection or the
  server is away: the stream is reopened; after `give_up_s` seconds in a row without a
  server (CURIA_RETRY_SECONDS, 30 s by default) `deliver` gets `StreamLost`;
- `TRANSIENT` (client.retry) refusing a request: the store is away: it is sent again, for
  `give_up_s` at most;
- any other refusal of a request is the server's answer about it (`DecisionRefused`, with
  its CallStatus and reason): stale (ABORTED), illegal, too late, ...

A seat's stream ends once the server has sent the game's end; a call still waiting then
(or made later) raises GameEnded.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import grpc

from client.channels import open_channel
from client.retry import DISCONNECTED, TRANSIENT, RetryPolicy, describe_error, retry_seconds
from curia_api.metadata import AUTHORIZATION_KEY, REASON_KEY
from curia_api.v1 import game_service_pb2 as pb
from curia_api.v1 import game_service_pb2_grpc as pb_grpc

log = logging.getLogger("curia.play")

Code = grpc.StatusCode
#: Statuses that end the stream for good: the credential may not play, or the game is gone.
STREAM_REFUSED = frozenset({Code.UNAUTHENTICATED, Code.PERMISSION_DENIED, Code.NOT_FOUND,
                            Code.INVALID_ARGUMENT})
#: The pauses between attempts in a row (a stream reopened, a request sent again while the
#: store is away): 0.1 s, 0.2 s, ... up to 1 s, jittered.
PLAY_RETRIES = RetryPolicy(codes=DISCONNECTED, pause=0.1, max_pause=1.0)
#: A resignation's reply names no request (PlayResign has no request id).
RESIGNATION = ""
#: The observation as JSON only: what the bots and the stdio bridge read.
JSON_ONLY = pb.OBSERVATION_ENCODING_JSON
#: gRPC status codes by number (CallStatus.code).
CODES = {code.value[0]: code for code in Code}


class PlayError(Exception):
    """The stream could not do what was asked."""


class StreamRefused(PlayError):
    """The server will not let the credential play (or knows no such game)."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        #: the server's word for why (`curia-reason`; empty from older servers)
        self.reason = reason


class StreamLost(PlayError):
    """No server answered for too long, or the stream was closed."""


class GameEnded(PlayError):
    """The server ended a seat's stream with the game (after game_ended) before it
    replied: its reply to a decision that ended the game may be lost with it."""


class DecisionRefused(PlayError):
    """A decision or resignation refused (nothing changed): its CallStatus."""

    def __init__(self, status: pb.CallStatus) -> None:
        self.status = status
        super().__init__(f"{self.code.name}: {status.message}")

    @property
    def code(self) -> grpc.StatusCode:
        return status_code(self.status)

    @property
    def message(self) -> str:
        return self.status.message

    @property
    def reason(self) -> str:
        """The server's word for why (CallStatus.reason; empty from older servers)."""
        return self.status.reason


Reply = pb.PlayResponse | PlayError
Deliver = Callable[[Reply], None]
Key = tuple[str, str]  # (game id, request id)


@dataclass
class Pending:
    """A request not answered yet, and who waits for its reply (None: `deliver`)."""

    request: pb.PlayRequest
    answer: queue.Queue[Reply] | None
    away: int = 0  # refusals in a row with the store away
    away_since: float = 0.0


class PlayStream:
    """One credential's Play stream, reopened until it is over (see the module docstring).
    `give_up_s`: seconds in a row without a server before `StreamLost` (None:
    CURIA_RETRY_SECONDS; math.inf: never)."""

    def __init__(self, target: str, credential: str, hello: pb.PlayHello, deliver: Deliver,
                 *, give_up_s: float | None = None,
                 policy: RetryPolicy = PLAY_RETRIES) -> None:
        self.targets = [part.strip() for part in target.split(",") if part.strip()]
        if not self.targets:
            raise ValueError("no server to play on")
        self.credential, self.hello, self.deliver = credential, hello, deliver
        self.give_up_s = retry_seconds() if give_up_s is None else give_up_s
        self.policy = policy
        #: a seat's game ended (its end was delivered)
        self.ended = False
        #: streams opened
        self.attempts = 0
        self._lock = threading.Lock()
        self._outbox: queue.Queue[pb.PlayRequest | None] = queue.Queue()
        self._pending: dict[Key, Pending] = {}
        self._later_hello: pb.PlayHello | None = None  # change_concurrency's
        self._failure: PlayError | None = None
        self._call: Any = None
        self._heard = False  # the current stream brought a message
        self._failures, self._failing_since = 0, 0.0  # streams failed in a row, since
        self._stop = threading.Event()
        #: set once there is no more stream (its last message delivered)
        self.over = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="play-stream")

    # -- the caller's side -------------------------------------------------------------
    def start(self) -> None:
        """Open the stream (the credential's first contact with the server)."""
        self._thread.start()

    def close(self) -> None:
        """Hang up; a call still waiting raises StreamLost."""
        self._stop.set()
        with self._lock:
            self._outbox.put(None)
            call = self._call
        if call is not None:
            call.cancel()
        if self._thread.is_alive():
            self._thread.join(timeout=2.0)

    def __enter__(self) -> PlayStream:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def send(self, request: pb.PlayRequest) -> None:
        """Send a decision or a resignation; its reply goes to `deliver` (dropped once the
        stream is over)."""
        try:
            self._register(request, None)
        except PlayError as over:
            log.debug("not sent, the stream is over (%s)", over)

    def change_concurrency(self, concurrency: int) -> None:
        """Tell the server how many games to give the bot at once from now on (a later
        hello); 0: no new games (the games in progress go on). A reopened stream says so
        again after its first hello."""
        with self._lock:
            self._later_hello = pb.PlayHello()
            self._later_hello.CopyFrom(self.hello)
            self._later_hello.concurrency = concurrency
            self._outbox.put(pb.PlayRequest(hello=self._later_hello))

    def exchange(self, request: pb.PlayRequest) -> pb.PlayResponse:
        """Send a decision or a resignation and wait for its reply (ack or refusal)."""
        answer: queue.Queue[Reply] = queue.Queue(maxsize=1)
        self._register(request, answer)
        reply = answer.get()
        if isinstance(reply, PlayError):
            raise reply
        return reply

    def _register(self, request: pb.PlayRequest, answer: queue.Queue[Reply] | None) -> None:
        """Remember `request` until its reply (it replaces an older decision of its game
        nobody waits for) and send it."""
        key = request_key(request)
        with self._lock:
            if self._failure is not None:
                raise self._failure
            if request.WhichOneof("kind") == "decision":
                for older in [k for k, p in self._pending.items()
                              if k[0] == key[0] and k[1] != RESIGNATION and p.answer is None]:
                    del self._pending[older]
            self._pending[key] = Pending(request, answer)
            self._outbox.put(request)

    # -- the reader thread -------------------------------------------------------------
    def _run(self) -> None:
        """Streams until a seat's game is over, a refusal, `give_up_s` without a server,
        or `close`."""
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
            return self._end(StreamLost(f"the Play stream failed: {error}"), tell=True)
        self._end(StreamLost("the Play stream was closed"), tell=False)

    def _failed(self, target: str, error: Exception) -> PlayError | None:
        """After a stream stopped by `error`: why the stream is over if the server refused
        it or none answered for `give_up_s` in a row, else None after the pause before the
        next attempt."""
        if isinstance(error, grpc.RpcError) and error.code() in STREAM_REFUSED:
            return StreamRefused(describe_error(error), trailing_reason(error))
        if self._heard or not self._failures:  # the first failure of a streak
            self._failures, self._failing_since = 0, time.monotonic()
        self._failures += 1
        if time.monotonic() - self._failing_since > self.give_up_s:
            return StreamLost(f"no server for {self.give_up_s:.0f} s: "
                              f"{describe_error(error)}")
        pause = self.policy.pause_before(self._failures)
        log.warning("connection to %s lost (%s); retry %d in %.1f s", target,
                    describe_error(error), self._failures, pause)
        self._stop.wait(pause)
        return None

    def _stream(self, target: str) -> Exception | None:
        """One stream to `target`: None once a seat's game ended, else why it stopped."""
        self._heard = False
        channel = open_channel(target)
        outbox = self._fresh_outbox()
        try:
            stub = pb_grpc.GameServiceStub(channel)  # type: ignore[no-untyped-call]
            call = stub.Play(outbox_requests(outbox, self._stop),
                             metadata=((AUTHORIZATION_KEY, f"Bearer {self.credential}"),))
            with self._lock:
                self._call = call
            for message in call:
                self._heard = True
                self._route(message)
            return None if self.ended else StreamLost("the stream ended")
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
            if self._later_hello is not None:  # a first hello's 0 is the league's default
                outbox.put(pb.PlayRequest(hello=self._later_hello))
            for pending in self._pending.values():
                outbox.put(pending.request)
            self._outbox = outbox
        return outbox

    def _route(self, message: pb.PlayResponse) -> None:
        """A reply to the call waiting for it; anything else to `deliver`."""
        kind = message.WhichOneof("kind")
        if kind in ("ack", "refusal"):
            key = reply_key(message)
            with self._lock:
                pending = self._pending.get(key)
            if pending is not None and kind == "refusal" and \
                    self._send_again(key, pending, message.refusal):
                return
            with self._lock:
                self._pending.pop(key, None)
            if pending is not None and pending.answer is not None:
                pending.answer.put(message)
                return
        elif kind == "game_ended" and self.hello.game_id:
            self.ended = True
        self.deliver(message)

    def _send_again(self, key: Key, pending: Pending, refusal: pb.PlayRefusal) -> bool:
        """Whether a request refused with the store away is sent again (after a pause,
        if it is still unanswered then), `give_up_s` at most."""
        if status_code(refusal.status) not in TRANSIENT or self._stop.is_set():
            return False
        now = time.monotonic()
        if not pending.away:
            pending.away_since = now
        if now - pending.away_since > self.give_up_s:
            return False
        pending.away += 1
        pause = self.policy.pause_before(pending.away)
        log.warning("request refused (%s: %s); retry %d in %.1f s",
                    status_code(refusal.status).name, refusal.status.message,
                    pending.away, pause)
        timer = threading.Timer(pause, self._resend, (key, pending))
        timer.daemon = True
        timer.start()
        return True

    def _resend(self, key: Key, pending: Pending) -> None:
        with self._lock:
            if self._pending.get(key) is pending and self._failure is None:
                self._outbox.put(pending.request)

    def _end(self, failure: PlayError, *, tell: bool) -> None:
        """No more stream: every waiting call (and every later one) gets `failure`,
        and `deliver` too if `tell`."""
        with self._lock:
            self._failure = failure
            pending, self._pending = self._pending, {}
        for waiting in pending.values():
            if waiting.answer is not None:
                waiting.answer.put(failure)
        if tell:
            self.deliver(failure)
        self.over.set()


class SeatCalls:
    """A seat's decisions and resignation as calls that return the ack or raise
    (`DecisionRefused`, `PlayError`), on the stream `exchange` sends on."""

    game_id: str

    def exchange(self, request: pb.PlayRequest) -> pb.PlayResponse:
        raise NotImplementedError

    def submit(self, version: int, notation: str, request_id: str,
               lineage: str = "") -> pb.PlayAck:
        """Submit a decision taken on the view at `version` of `lineage`; its ack, or
        DecisionRefused."""
        return acknowledged(self.exchange(decision_request(
            self.game_id, version, notation, request_id, lineage)))

    def resign(self, reason: str) -> pb.PlayAck:
        """Resign the seat; its ack, or DecisionRefused."""
        return acknowledged(self.exchange(pb.PlayRequest(resign=pb.PlayResign(
            game_id=self.game_id, reason=reason))))


class PlaySeat(SeatCalls, PlayStream):
    """The synchronous wrapper: one seat of one game on a stream of its own (its seat
    token's)."""

    def __init__(self, target: str, game_id: str, token: str, deliver: Deliver, *,
                 client: str = "curia client.play", encoding: pb.ObservationEncoding = JSON_ONLY,
                 opponent_decisions: bool = False, give_up_s: float | None = None) -> None:
        hello = pb.PlayHello(client=client, observation_encoding=encoding,
                             opponent_decisions=opponent_decisions, game_id=game_id)
        super().__init__(target, token, hello, deliver, give_up_s=give_up_s)
        self.game_id = game_id

    def __enter__(self) -> PlaySeat:
        self.start()
        return self

    def exchange(self, request: pb.PlayRequest) -> pb.PlayResponse:
        return PlayStream.exchange(self, request)


class GameOnStream(SeatCalls):
    """One game of a bot key's stream (many games on one stream), as a seat's calls."""

    def __init__(self, stream: PlayStream, game_id: str) -> None:
        self.stream, self.game_id = stream, game_id

    def exchange(self, request: pb.PlayRequest) -> pb.PlayResponse:
        return self.stream.exchange(request)


def decision_request(game_id: str, version: int, notation: str, request_id: str,
                     lineage: str = "") -> pb.PlayRequest:
    """A decision taken on the view at `version` of `lineage`."""
    return pb.PlayRequest(decision=pb.PlayDecision(
        game_id=game_id, decision=pb.Decision(notation=notation), expected_version=version,
        request_id=request_id, expected_lineage=lineage))


def acknowledged(reply: pb.PlayResponse) -> pb.PlayAck:
    """A reply's ack; DecisionRefused for a refusal."""
    if reply.WhichOneof("kind") == "ack":
        return reply.ack
    raise DecisionRefused(reply.refusal.status)


def rolled_back(seen: tuple[int, str], view: pb.View) -> bool:
    """Whether a turn shows the store lost versions since the turn `seen` (version,
    lineage): it is older, or of another lineage at the same version."""
    version, lineage = seen
    return view.version < version or (view.version == version and view.lineage != lineage)


def request_key(request: pb.PlayRequest) -> Key:
    """(game id, request id) of a decision or a resignation."""
    kind = request.WhichOneof("kind")
    if kind == "decision":
        return request.decision.game_id, request.decision.request_id
    if kind == "resign":
        return request.resign.game_id, RESIGNATION
    raise ValueError(f"only decisions and resignations are sent, not {kind!r}")


def reply_key(message: pb.PlayResponse) -> Key:
    """(game id, request id) of the request an ack or a refusal answers."""
    reply = getattr(message, message.WhichOneof("kind"))
    return reply.game_id, reply.request_id


def status_code(status: pb.CallStatus) -> grpc.StatusCode:
    return CODES.get(status.code, Code.UNKNOWN)


def trailing_reason(error: grpc.RpcError) -> str:
    """The reason a refused call's trailing metadata gives (`curia-reason`), if any."""
    trailing = getattr(error, "trailing_metadata", None)
    for key, value in (trailing() if trailing is not None else None) or ():
        if key == REASON_KEY:
            return str(value)
    return ""


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
