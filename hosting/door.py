"""The service door: a sandboxed gRPC bot's one way to the service, and only for a seat's
calls.

A sandboxed gRPC bot has no network. The arena binds one Unix socket into its sandbox (at
`hosting.sandbox.SERVICE_SOCKET`), served by a `ServiceDoor` in the arena's process. The door
is a gRPC proxy, not a byte pipe: it reads each call's method and forwards only those a
seat token (or a league bot key) is for, `ALLOWED_METHODS`:

    /curia.v1.GameService/Play            a seat's (or a league bot's) Play stream
    /curia.v1.GameService/GetView         the seat's view
    /curia.v1.GameService/SubmitDecision  a decision
    /curia.v1.GameService/WatchGame       the game's updates
    /curia.v1.GameService/ResignSeat      resigning the seat
    /curia.v1.GameService/GetGameRecord   the record of a finished game
    /grpc.health.v1.Health/Check, Watch   the service's serving status (read-only, no data)

Every other call (CreateGame, JoinGame, ListGames, Session, server reflection, any method
the service does not have) is answered by the door itself with PERMISSION_DENIED, a message
naming the method, and the trailing metadata `curia-reason: door_denied`; nothing reaches
the service. (Before, the door forwarded bytes: on a service without an operator
credential, `curia arena run --server`, a sandboxed bot created 150 games of 150.)

A forwarded call goes to the service on one channel per door, shared by its bots (HTTP/2
streams), as raw bytes, with identity serializers: the door parses no message. A refused
call is answered as a stream-stream call, whatever its method (a unary call's framing is
the same); an allowed one is relayed in its own shape (`METHOD_KINDS`: GetView,
SubmitDecision, ResignSeat, GetGameRecord and Health/Check unary, WatchGame and
Health/Watch one request and a stream of replies, Play a stream each way), which costs
the door less (benchmarks/sandbox_overhead.py). It carries the request metadata (less the
pseudo, hop-by-hop and `grpc-*` reserved headers), the deadline, the initial metadata
back, every response message, the final status code, details and trailing metadata (so
`curia-reason` reaches the bot unchanged, even where grpc.aio's client misreports it:
`WRITE_RACE`), and cancellation both ways: a bot that cancels cancels the upstream call,
a call the service ends ends the bot's.

The upstream channel follows the arena's own client settings (CURIA_TLS_*:
`client.channels.open_aio_channel`), but never carries the operator credential: the door
ignores CURIA_ADMIN_TOKEN_FILE, and attaches no metadata of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import grpc
from grpc_health.v1 import health_pb2

from client.channels import OPERATOR_ONLY_ENV, ClientSecurity, open_aio_channel
from curia_api.metadata import REASON_KEY
from curia_api.v1 import game_service_pb2 as pb
from service.server import (
    KEEPALIVE_MS,
    KEEPALIVE_TIMEOUT_MS,
    MAX_REQUEST_BYTES,
    MAX_RESPONSE_BYTES,
    MIN_CLIENT_PING_MS,
)
from service.threads import LoopThread

if TYPE_CHECKING:
    from hosting.sandbox import Layout

log = logging.getLogger("curia.arena.door")

GAME_SERVICE = "/curia.v1.GameService/"
HEALTH = "/grpc.health.v1.Health/"
#: A seat's calls: what a seat token (or a league bot key, on Play) is for.
SEAT_METHODS = tuple(GAME_SERVICE + name for name in (
    "Play", "GetView", "SubmitDecision", "WatchGame", "ResignSeat", "GetGameRecord"))
#: The standard health checks: the service's serving status, nothing else (no game data,
#: no state changed); a bot may wait for the service to be up.
HEALTH_METHODS = (HEALTH + "Check", HEALTH + "Watch")
#: Every method the door forwards; any other is refused (`DENIED_REASON`).
ALLOWED_METHODS = frozenset(SEAT_METHODS + HEALTH_METHODS)
#: How each allowed method is relayed, by its shape in the services' descriptors:
#: "unary_unary", "unary_stream" or "stream_stream".
METHOD_KINDS = {
    f"/{service.full_name}/{method.name}":
        ("stream" if method.client_streaming else "unary") + "_"
        + ("stream" if method.server_streaming else "unary")
    for service in (pb.DESCRIPTOR.services_by_name["GameService"],
                    health_pb2.DESCRIPTOR.services_by_name["Health"])
    for method in service.methods
    if f"/{service.full_name}/{method.name}" in ALLOWED_METHODS}
#: The allowed methods with one request and one reply.
UNARY_METHODS = frozenset(m for m, kind in METHOD_KINDS.items() if kind == "unary_unary")
#: What grpc.aio's client reports when it sends a message on a call the service has
#: just ended (grpc/grpc#36066: the write's failure overwrites the service's status,
#: about one Play stream in ten refused at its opening). The bot gets the service's own.
WRITE_RACE = (grpc.StatusCode.INTERNAL, "Internal error from Core")
#: Seconds the door waits for the service's status after such a failed write.
WRITE_RACE_WAIT_S = 2.0
#: The `curia-reason` (service.errors.REASON_KEY) of a call the door refuses.
DENIED_REASON = "door_denied"
#: Headers of one hop (HTTP/1.1's hop-by-hop list, and those gRPC sets itself on each
#: connection): never forwarded, like pseudo-headers (":path") and reserved ones ("grpc-*").
HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-connection", "proxy-authenticate",
                        "proxy-authorization", "te", "trailer", "transfer-encoding",
                        "upgrade", "host", "content-type", "content-length", "user-agent"})
#: A method name as long as this is shown cut in a refusal's message.
SHOWN_METHOD_CHARS = 200
#: Refused methods counted (and logged, once each) by name; past that, as OTHER_METHODS.
COUNTED_METHODS = 64
OTHER_METHODS = "(other methods)"
#: Seconds the door's open calls get to finish when it closes.
STOP_GRACE_S = 1.0
#: A deadline further away than this (seconds) is no deadline (grpc's "infinite future").
NO_DEADLINE_S = 10 ** 8

Metadata = tuple[tuple[str, str | bytes], ...]


def forwardable(metadata: Sequence[tuple[str, str | bytes]] | None) -> Metadata:
    """`metadata` less what belongs to one hop: pseudo, hop-by-hop and `grpc-*` headers."""
    return tuple((key, value) for key, value in metadata or ()
                 if not key.startswith((":", "grpc-")) and key.lower() not in HOP_BY_HOP)


def denied_message(method: str) -> str:
    """Why the door refuses `method` (named, cut if very long)."""
    shown = method if len(method) <= SHOWN_METHOD_CHARS else \
        method[:SHOWN_METHOD_CHARS] + "..."
    short = ", ".join(name.rsplit("/", 1)[1] for name in SEAT_METHODS)
    return (f"{shown!r} is refused: a sandboxed bot's service door only serves a seat's "
            f"calls (curia.v1.GameService {short}; grpc.health.v1.Health Check, Watch)")


def upstream_security() -> ClientSecurity:
    """The arena's TLS settings (CURIA_TLS_*), without the operator credential."""
    return ClientSecurity.from_env({name: value for name, value in os.environ.items()
                                    if name not in OPERATOR_ONLY_ENV})


def deadline(context: grpc.aio.ServicerContext) -> float | None:
    """The seconds left of the bot's deadline, None if it set none."""
    left: float | None = context.time_remaining()
    return None if left is None or left > NO_DEADLINE_S else max(left, 0.0)


Status = tuple[grpc.StatusCode, str, Metadata]


def settled(awaitable: Any) -> Any:
    """The value of a call's accessor (`code()`, ...) once the call is done: such a
    coroutine returns at once, so a done-callback may read it without an event loop."""
    try:
        awaitable.send(None)
    except StopIteration as returned:
        return returned.value
    awaitable.close()
    raise RuntimeError("the call's status is not known yet")


#: Seconds between two looks at whether a bot's stream is over (`cancel_when_done`).
CANCEL_LOOK_S = 0.25

class FirstStatus:
    """The first status a call ends with, as grpc.aio announces it to done-callbacks."""

    def __init__(self, call: Any) -> None:
        self.status: Status | None = None
        call.add_done_callback(self._done)

    def _done(self, call: Any) -> None:  # called inside grpc: it must not raise
        with contextlib.suppress(Exception):
            self.status = (settled(call.code()), settled(call.details()) or "",
                           tuple(settled(call.trailing_metadata()) or ()))


async def cancel_when_done(context: grpc.aio.ServicerContext, call: Any) -> None:
    """Cancel the upstream `call` once the bot's end of a stream is over (cancelled, its
    deadline passed, gone), looked at every CANCEL_LOOK_S: grpc may tell a handler that
    waits on a quiet upstream stream only at its next write, which may never come."""
    while not call.done():
        if context.done() or context.cancelled():
            call.cancel()
            return
        await asyncio.sleep(CANCEL_LOOK_S)


async def service_status(call: Any, first: FirstStatus | None = None) -> Status:
    """How the service ended `call`: its status as grpc.aio reports it, unless that is the
    failed write of WRITE_RACE, whose status replaced the service's (then the first status,
    or the service's when it comes after)."""
    status: Status = (await call.code(), await call.details() or "",
                      tuple(await call.trailing_metadata() or ()))
    waited = 0.0
    while status[:2] == WRITE_RACE and waited < WRITE_RACE_WAIT_S:
        if first is not None and first.status is not None and \
                first.status[:2] != WRITE_RACE:
            return first.status
        await asyncio.sleep(0.01)  # the service's status, still on its way, replaces it
        waited += 0.01
        status = (await call.code(), await call.details() or "",
                  tuple(await call.trailing_metadata() or ()))
    return status


async def end_as_the_service_did(call: Any, context: grpc.aio.ServicerContext,
                                 first: FirstStatus | None = None) -> None:
    """The bot's call ends with the service's status code, details and trailing metadata."""
    code, details, trailing = await service_status(call, first)
    context.set_trailing_metadata(forwardable(trailing))
    if code != grpc.StatusCode.OK:
        context.set_code(code)
        context.set_details(details)


class DoorHandler(grpc.GenericRpcHandler):  # type: ignore[misc]
    """Every call to the door: forwarded if allowed, refused otherwise."""

    def __init__(self, door: ServiceDoor) -> None:
        self.door = door
        relays: dict[str, tuple[Any, Callable[..., Awaitable[Any]]]] = {
            "unary_unary": (grpc.unary_unary_rpc_method_handler, door.forward_unary),
            "unary_stream": (grpc.unary_stream_rpc_method_handler,
                             door.forward_unary_stream),
            "stream_stream": (grpc.stream_stream_rpc_method_handler, door.forward_stream)}
        self.forwarders: dict[str, Any] = {}
        for method, kind in METHOD_KINDS.items():
            handler, relay = relays[kind]
            self.forwarders[method] = handler(functools.partial(relay, method),
                                              request_deserializer=None,
                                              response_serializer=None)

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> Any:
        method: str = handler_call_details.method
        forwarder = self.forwarders.get(method)
        if forwarder is not None:
            return forwarder
        return grpc.stream_stream_rpc_method_handler(
            functools.partial(self.door.deny, method), request_deserializer=None,
            response_serializer=None)


class ServiceDoor(LoopThread):
    """A Unix socket (mode 0666, in a private 0700 folder) that forwards a seat's calls
    to the service at `server` and refuses every other (the module docstring). Sandboxed
    gRPC bots have no network; this socket, bound into each sandbox at SERVICE_SOCKET, is
    their one way to the service, and to nothing else."""

    label = "service door"

    def __init__(self, server: str) -> None:
        super().__init__()
        self.server = server
        self.folder = Path(tempfile.mkdtemp(prefix="curia-door-"))
        self.path = self.folder / "service.sock"
        #: Calls refused, by method (the first COUNTED_METHODS names, then OTHER_METHODS).
        self.denied: Counter[str] = Counter()
        self.channel: grpc.aio.Channel | None = None

    def start(self) -> Path:
        self.start_thread(timeout=10)
        return self.path

    def __enter__(self) -> ServiceDoor:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def serve(self) -> None:
        self.channel = open_aio_channel(self.server, upstream_security(), options=[
            ("grpc.max_receive_message_length", MAX_RESPONSE_BYTES),
            ("grpc.max_send_message_length", MAX_REQUEST_BYTES)])
        # The same limits and keepalive as the service's own server: a bot sees one service.
        server = grpc.aio.server(handlers=(DoorHandler(self),), options=[
            ("grpc.max_receive_message_length", MAX_REQUEST_BYTES),
            ("grpc.max_send_message_length", MAX_RESPONSE_BYTES),
            ("grpc.keepalive_time_ms", KEEPALIVE_MS),
            ("grpc.keepalive_timeout_ms", KEEPALIVE_TIMEOUT_MS),
            ("grpc.http2.min_recv_ping_interval_without_data_ms", MIN_CLIENT_PING_MS),
            ("grpc.http2.max_ping_strikes", 0)])
        try:
            if not server.add_insecure_port(f"unix:{self.path}"):
                raise OSError(f"cannot bind unix:{self.path}")
            await server.start()
            os.chmod(self.path, 0o666)  # the bot's user in its namespace connects
            self.ready()
            assert self.stopping is not None
            await self.stopping.wait()
        finally:
            await server.stop(STOP_GRACE_S)
            await self.channel.close()

    def _upstream(self, method: str, kind: str, request: Any,
                  context: grpc.aio.ServicerContext) -> Any:
        """The service's side of a bot's call: `method` of `kind` ("unary_unary",
        "unary_stream", "stream_stream"), raw bytes, the bot's metadata and deadline."""
        assert self.channel is not None
        start = getattr(self.channel, kind)(method, request_serializer=None,
                                            response_deserializer=None)
        return start(request, metadata=forwardable(context.invocation_metadata()),
                     timeout=deadline(context))

    async def forward_unary(self, method: str, request: bytes,
                            context: grpc.aio.ServicerContext) -> bytes | None:
        """An allowed unary call (GetView, SubmitDecision, ...), relayed."""
        call = self._upstream(method, "unary_unary", request, context)
        context.add_done_callback(lambda _: call.cancel())  # as in _relay
        response: bytes | None = None
        try:
            with contextlib.suppress(grpc.aio.AioRpcError):  # its status, read below
                response = await call
            initial = forwardable(await call.initial_metadata())
            if initial:
                await context.send_initial_metadata(initial)
            await end_as_the_service_did(call, context)
        finally:  # the bot cancelled (or went away): so does the upstream call
            if not call.done():
                call.cancel()
        return response

    async def forward_unary_stream(self, method: str, request: bytes,
                                   context: grpc.aio.ServicerContext) -> None:
        """An allowed call with one request and a stream of replies (WatchGame,
        Health/Watch), relayed."""
        await self._relay(self._upstream(method, "unary_stream", request, context), context)

    async def forward_stream(self, method: str, requests: AsyncIterator[bytes],
                             context: grpc.aio.ServicerContext) -> None:
        """An allowed stream of requests and replies (Play), relayed both ways."""
        await self._relay(self._upstream(method, "stream_stream", requests, context),
                          context)

    async def _relay(self, call: Any, context: grpc.aio.ServicerContext) -> None:
        """The service's replies to the bot, then the service's end of the call. The bot's
        end of the call (a cancel, its deadline, its going away) cancels the upstream call
        at once, from grpc's own callback: a handler waiting on a quiet stream may hear of
        the cancel only at its next write."""
        first = FirstStatus(call)
        context.add_done_callback(lambda _: call.cancel())
        watcher = asyncio.get_running_loop().create_task(cancel_when_done(context, call))
        try:
            initial = forwardable(await call.initial_metadata())
            if initial:
                await context.send_initial_metadata(initial)
            with contextlib.suppress(grpc.aio.AioRpcError):  # its status, read below
                async for message in call:
                    await context.write(message)
            await end_as_the_service_did(call, context, first)
        finally:  # the bot cancelled (or went away): so does the upstream call
            watcher.cancel()
            if not call.done():
                call.cancel()

    async def deny(self, method: str, requests: AsyncIterator[bytes],
                   context: grpc.aio.ServicerContext) -> None:
        """A call the door does not serve: PERMISSION_DENIED, `curia-reason: door_denied`."""
        counted = method if method in self.denied or len(self.denied) < COUNTED_METHODS \
            else OTHER_METHODS
        if not self.denied[counted]:
            log.warning("service door: refused %s (a sandboxed bot's door serves only a "
                        "seat's calls)", counted[:SHOWN_METHOD_CHARS])
        self.denied[counted] += 1
        await context.abort(grpc.StatusCode.PERMISSION_DENIED, denied_message(method),
                            trailing_metadata=((REASON_KEY, DENIED_REASON),))

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


@contextlib.contextmanager
def service_door(server: str) -> Iterator[Path]:
    """A ServiceDoor to `server` for the `with` block: its socket's path."""
    door = ServiceDoor(server)
    try:
        yield door.start()
    finally:
        door.close()


@contextlib.contextmanager
def door_for(layout: Layout | None, protocol: str, server: str) -> Iterator[Path | None]:
    """A ServiceDoor for a sandboxed gRPC bot (`layout` given), else None."""
    if layout is None or protocol != "grpc":
        yield None
        return
    with service_door(server) as path:
        yield path


__all__ = ["ALLOWED_METHODS", "DENIED_REASON", "ServiceDoor", "door_for", "service_door"]
