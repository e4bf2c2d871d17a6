"""The gRPC server: a thin adapter from curia_api.v1.GameService to the GameKeeper.

`create_server` builds a grpc.aio server (game service, standard health checking,
reflection) bound to an address; `serve` is `curia serve`: it starts an embedded Redis
unless given `--redis-url`, the metrics endpoint, the timeout sweeper, and runs until
SIGINT/SIGTERM.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import signal
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import grpc
import redis.exceptions as redis_errors
from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.message import DecodeError
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection
from grpc_reflection.v1alpha import reflection_pb2 as reflection_pb
from prometheus_client import start_http_server

from client.channels import ServerTls
from curia_api.v1 import game_service_pb2 as pb
from curia_api.v1 import game_service_pb2_grpc as pb_grpc
from service.access import AccessPolicy, CreateRateLimit, peer_host
from service.cancellation import for_certain
from service.errors import REASON_KEY, Refused, ServiceError, invalid, refused
from service.health import StoreOutage, follow_store
from service.http_gateway import Gateway, start_gateway
from service.keeper import DEFAULT_AUTOPLAY_LIMIT, GameKeeper
from service.metrics import ACTIVE_GAMES, DECISIONS_REJECTED, OPEN_STREAMS, RPC_SECONDS, series
from service.play import PlayStream, Replaced, open_play
from service.redis_link import out_of_memory
from service.redis_server import DEFAULT_APPENDFSYNC, EmbeddedRedis
from service.store import DEFAULT_IDLE_TTL, GameStore
from service.threads import LoopThread

log = logging.getLogger("curia.service")

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["GameService"].full_name
#: Server reflection as the gRPC spec names it now; v1alpha (reflection.SERVICE_NAME) is
#: served too, for older clients. The two protocols' messages are the same on the wire.
REFLECTION_V1 = "grpc.reflection.v1.ServerReflection"
REFLECTION_V1_FILE = "grpc/reflection/v1/reflection.proto"
#: Health names: "" and SERVICE_NAME are SERVING only while Redis answers (readiness);
#: LIVENESS is SERVING as long as the server's event loop answers at all (liveness: a
#: restart would not bring Redis back).
LIVENESS = "liveness"
MAX_REQUEST_BYTES = 64 * 1024
#: Wrong bot keys an address may send a minute (and at once) before it must wait.
BAD_KEYS_PER_MINUTE, BAD_KEYS_BURST = 30, 30
#: On SIGTERM, seconds of NOT_SERVING before the server stops accepting calls.
DRAIN_SECONDS = 1.0
MAX_RESPONSE_BYTES = 8 * 1024 * 1024
Response = TypeVar("Response")
#: Redis away for a moment (down, restarting, loading its file, a cluster failover): the
#: request may be retried, so it is answered UNAVAILABLE, not INTERNAL.
REDIS_AWAY = (redis_errors.ConnectionError, redis_errors.TimeoutError,
              redis_errors.ClusterDownError, redis_errors.TryAgainError,
              redis_errors.ReadOnlyError)  # (a master turned replica by a failover)
UNAVAILABLE_MESSAGE = "the game store is unavailable for a moment; retry"
STORE_FULL_MESSAGE = ("the game store is full (Redis maxmemory); nothing was written. "
                      "Finished games expire after --finished-ttl")


@dataclass(frozen=True)
class MalformedRequest:
    """A request payload that does not parse as its message type (see `add_game_service`)."""

    error: str


def _lenient(message_type: Any) -> Callable[[bytes], Any]:
    def parse(data: bytes) -> Any:
        try:
            return message_type.FromString(data)
        except DecodeError as error:
            return MalformedRequest(str(error) or "not a valid message")
    return parse


#: The grpc handler factory for a method by (client streaming, server streaming).
HANDLER_KINDS = {(False, False): grpc.unary_unary_rpc_method_handler,
                 (False, True): grpc.unary_stream_rpc_method_handler,
                 (True, True): grpc.stream_stream_rpc_method_handler}


def add_game_service(servicer: GameService, server: grpc.aio.Server) -> None:
    """Register the servicer as the generated code does, except that a payload that does
    not parse reaches it as a MalformedRequest, answered INVALID_ARGUMENT (gRPC itself
    would answer UNKNOWN)."""
    handlers = {}
    for method in pb.DESCRIPTOR.services_by_name["GameService"].methods:
        make = HANDLER_KINDS[method.client_streaming, method.server_streaming]
        handlers[method.name] = make(
            getattr(servicer, method.name),
            request_deserializer=_lenient(getattr(pb, method.input_type.name)),
            response_serializer=getattr(pb, method.output_type.name).SerializeToString)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE_NAME,
                                                                          handlers),))
    server.add_registered_method_handlers(SERVICE_NAME, handlers)


async def send_all(messages: AsyncGenerator[Any, None], context: grpc.aio.ServicerContext) -> None:
    """Write each message of a stream to the call, closing `messages` however the call
    ends (`for_certain`: even where a library swallows the cancel). (An async generator
    handed to grpc as the handler is left unclosed when the call is cancelled while a
    message is being sent: its `finally` runs only when it is garbage-collected. Here
    cancellation reaches `context.write`, and `aclosing` runs it.)"""
    async def write_all() -> None:
        async with contextlib.aclosing(messages) as stream:
            async for message in stream:
                await context.write(message)
    await for_certain(write_all())


async def play_on(stream: PlayStream, requests: AsyncIterator[Any],
                  context: grpc.aio.ServicerContext) -> None:
    """A Play stream's work, its messages written on the call (the task `for_certain`
    runs, which takes whatever it raises)."""
    await stream.serve(requests, context.write)


def malformed(request: MalformedRequest) -> ServiceError:
    return invalid(f"malformed request: {request.error}")


def _check_parsed(request: Any) -> None:
    if isinstance(request, MalformedRequest):
        raise malformed(request)


async def abort(context: grpc.aio.ServicerContext, refusal: Refused | ServiceError) -> None:
    """End the call with the refusal's status, its reason in the trailing metadata."""
    await context.abort(refusal.code, refusal.message,
                        trailing_metadata=((REASON_KEY, refusal.reason),))


class GameService(pb_grpc.GameServiceServicer):
    """Each RPC hands its request to the keeper and turns refusals into status codes."""

    def __init__(self, keeper: GameKeeper, outage: StoreOutage | None = None) -> None:
        self.keeper = keeper
        self.outage = outage or StoreOutage()
        self.bad_keys = CreateRateLimit(BAD_KEYS_PER_MINUTE, BAD_KEYS_BURST)

    async def _answer(self, method: str, request: Any,
                      handler: Callable[[Any], Awaitable[Response]]) -> Response:
        """The handler's reply; every refusal raised as a Refused with its status (logged
        and counted here, once for the unary and the Session paths alike). (`answering`
        without a generator's context manager: this is every call's path.)"""
        started = time.perf_counter()
        code = "OK"
        try:
            _check_parsed(request)
            return await handler(request)
        except BaseException as error:
            code, refusal = self._refusal(method, request, error)
            if refusal is None:
                raise
            raise refusal from None
        finally:
            series(RPC_SECONDS, method, code).observe(time.perf_counter() - started)

    @contextlib.asynccontextmanager
    async def answering(self, method: str, request: Any) -> AsyncIterator[None]:
        """What `_answer` does around its handler, around any block (the web port's
        WatchGame yields its updates in one): a refusal in the block is raised as a
        Refused with its status, logged and counted."""
        started = time.perf_counter()
        code = "OK"
        try:
            _check_parsed(request)
            yield
        except BaseException as error:
            code, refusal = self._refusal(method, request, error)
            if refusal is None:
                raise
            raise refusal from None
        finally:
            series(RPC_SECONDS, method, code).observe(time.perf_counter() - started)

    def _refusal(self, method: str, request: Any, error: BaseException
                 ) -> tuple[str, Refused | None]:
        """A call's error as its status code and the Refused that tells the client (None:
        the error goes on as it is: the call was cancelled or its stream failed)."""
        if isinstance(error, ServiceError):
            if method == "SubmitDecision":
                DECISIONS_REJECTED.labels(error.reason).inc()
            log.info("refused", extra={"method": method, "code": error.code.name,
                                       "reason": error.reason,
                                       "game_id": getattr(request, "game_id", ""),
                                       "request_id": getattr(request, "request_id", "")})
            return error.code.name, refused(error)
        if isinstance(error, (grpc.aio.BaseError, asyncio.CancelledError, GeneratorExit)):
            # a stream's send failed or its client went: the call ends (grpc ignores the
            # failure once the client closed)
            return "CANCELLED", None
        if isinstance(error, REDIS_AWAY):
            self.outage.failed(method, error)
            return "UNAVAILABLE", Refused(grpc.StatusCode.UNAVAILABLE, "store_unavailable",
                                          UNAVAILABLE_MESSAGE)
        if not isinstance(error, Exception):
            return "OK", None  # (KeyboardInterrupt, SystemExit: not the call's doing)
        if out_of_memory(error):  # a plain OOM reply, or a script's (Redis 6.2)
            log.error("redis is full (maxmemory)", extra={"method": method})
            return "RESOURCE_EXHAUSTED", Refused(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                                 "store_full", STORE_FULL_MESSAGE)
        log.exception("internal error", extra={"method": method,
                                               "game_id": getattr(request, "game_id", "")},
                      exc_info=error)
        return "INTERNAL", Refused(grpc.StatusCode.INTERNAL, "internal", "internal error")

    def unary_handler(self, method: str, metadata: Iterable[tuple[str, str | bytes]],
                      peer: str) -> Callable[[Any], Awaitable[Any]]:
        """The keeper's handler of a unary method, for a call with this metadata (the
        operator credential) from this peer (a gRPC peer string: the create rate): the
        gRPC port's and the web port's (service/web/connect.py) alike."""
        if method == "ListGames":
            async def listed(_: Any) -> pb.ListGamesResponse:
                return self.keeper.list_games()
            return listed
        if method == "CreateGame":
            async def create(checked: pb.CreateGameRequest) -> pb.CreateGameResponse:
                access = self.keeper.access
                access.check_operator(metadata)
                access.check_rate(peer)
                return await self.keeper.create(checked)
            return create
        handlers: dict[str, Callable[[Any], Awaitable[Any]]] = {
            "JoinGame": self.keeper.join, "GetView": self.keeper.view,
            "SubmitDecision": self.keeper.submit, "ResignSeat": self.keeper.resign,
            "GetGameRecord": self.keeper.record}
        return handlers[method]

    async def _unary(self, method: str, request: Any,
                     context: grpc.aio.ServicerContext) -> Any:
        return await self._call(method, request, context, self.unary_handler(
            method, context.invocation_metadata() or (), context.peer()))

    async def _call(self, method: str, request: Any, context: grpc.aio.ServicerContext,
                    handler: Callable[[Any], Awaitable[Response]]) -> Response:
        """The handler's reply, or the call ended with the refusal's status and reason."""
        try:
            return await self._answer(method, request, handler)
        except Refused as refusal:
            await abort(context, refusal)
            raise  # unreachable: abort raises

    async def ListGames(self, request: pb.ListGamesRequest,
                        context: grpc.aio.ServicerContext) -> pb.ListGamesResponse:
        return await self._unary("ListGames", request, context)  # type: ignore[no-any-return]

    async def CreateGame(self, request: pb.CreateGameRequest,
                         context: grpc.aio.ServicerContext) -> pb.CreateGameResponse:
        return await self._unary("CreateGame", request, context)  # type: ignore[no-any-return]

    async def JoinGame(self, request: pb.JoinGameRequest,
                       context: grpc.aio.ServicerContext) -> pb.JoinGameResponse:
        return await self._unary("JoinGame", request, context)  # type: ignore[no-any-return]

    async def GetView(self, request: pb.GetViewRequest,
                      context: grpc.aio.ServicerContext) -> pb.GetViewResponse:
        return await self._unary("GetView", request, context)  # type: ignore[no-any-return]

    async def SubmitDecision(self, request: pb.SubmitDecisionRequest,
                             context: grpc.aio.ServicerContext) -> pb.SubmitDecisionResponse:
        return await self._unary("SubmitDecision", request, context)  # type: ignore[no-any-return]

    async def ResignSeat(self, request: pb.ResignSeatRequest,
                         context: grpc.aio.ServicerContext) -> pb.ResignSeatResponse:
        return await self._unary("ResignSeat", request, context)  # type: ignore[no-any-return]

    async def GetGameRecord(self, request: pb.GetGameRecordRequest,
                            context: grpc.aio.ServicerContext) -> pb.GetGameRecordResponse:
        return await self._unary("GetGameRecord", request, context)  # type: ignore[no-any-return]

    async def WatchGame(self, request: pb.WatchGameRequest,
                        context: grpc.aio.ServicerContext) -> None:
        OPEN_STREAMS.inc()

        async def follow(checked: pb.WatchGameRequest) -> None:
            await send_all(self.keeper.watch(checked), context)
        try:
            await self._call("WatchGame", request, context, follow)
        finally:
            OPEN_STREAMS.dec()

    async def Session(self, requests: AsyncIterator[Any],
                      context: grpc.aio.ServicerContext) -> None:
        """GetView and SubmitDecision calls on one stream, answered one at a time in the
        order sent; a refusal is a reply (CallStatus), not the end of the stream."""
        OPEN_STREAMS.inc()
        try:
            async for request in requests:
                await context.write(await self._session_reply(request))
        finally:
            OPEN_STREAMS.dec()

    async def Play(self, requests: AsyncIterator[Any],
                   context: grpc.aio.ServicerContext) -> None:
        """A bot's stream (service/play.py): a league bot's on its bot key, a tournament
        seat's on its seat token; refused without a valid credential."""
        OPEN_STREAMS.inc()
        try:
            stream = await self._open_play(context)
            await for_certain(play_on(stream, requests, context))
        except ServiceError as error:
            if error.code == grpc.StatusCode.UNAUTHENTICATED:
                self.bad_keys.allow(peer_host(context.peer()))
            log.info("refused", extra={"method": "Play", "code": error.code.name,
                                       "reason": error.reason})
            await abort(context, error)
        except Replaced:
            await abort(context, Refused(grpc.StatusCode.ABORTED, "replaced",
                                         "a newer Play stream of this bot took over"))
        except REDIS_AWAY as error:
            self.outage.failed("Play", error)
            await abort(context, Refused(grpc.StatusCode.UNAVAILABLE, "store_unavailable",
                                         UNAVAILABLE_MESSAGE))
        finally:
            OPEN_STREAMS.dec()

    async def _open_play(self, context: grpc.aio.ServicerContext) -> PlayStream:
        """The Play stream of the call's credential. An address that sent more than
        `BAD_KEYS_PER_MINUTE` wrong keys or seat tokens (a burst of `BAD_KEYS_BURST`) waits."""
        peer = peer_host(context.peer())
        if not self.bad_keys.available(peer):
            raise ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, "bad_key_rate",
                               "too many wrong bot keys from this address: wait a minute")
        return await open_play(self.keeper, self._answer, context.invocation_metadata())

    async def _session_reply(self, request: Any) -> pb.SessionResponse:
        if isinstance(request, MalformedRequest):
            return pb.SessionResponse(refused=refused(malformed(request)).call_status())
        kind = request.WhichOneof("call")
        try:
            if kind == "submit_decision":
                decided = await self._answer("SubmitDecision", request.submit_decision,
                                             self.keeper.submit)
                return pb.SessionResponse(tag=request.tag, submit_decision=decided)
            if kind == "get_view":
                viewed = await self._answer("GetView", request.get_view, self.keeper.view)
                return pb.SessionResponse(tag=request.tag, get_view=viewed)
            raise refused(invalid("a SessionRequest needs a call: get_view or "
                                  "submit_decision"))
        except Refused as refusal:
            return pb.SessionResponse(tag=request.tag, refused=refusal.call_status())


def _register_reflection_v1() -> None:
    """Put grpc/reflection/v1/reflection.proto in the default pool (grpcio-reflection
    ships only v1alpha; v1 is the same file under another package), so that reflection
    can describe the v1 service it lists."""
    pool = descriptor_pool.Default()
    with contextlib.suppress(KeyError):
        pool.FindFileByName(REFLECTION_V1_FILE)
        return
    proto = descriptor_pb2.FileDescriptorProto()
    reflection_pb.DESCRIPTOR.CopyToProto(proto)
    old, new = ".grpc.reflection.v1alpha.", ".grpc.reflection.v1."
    proto.name, proto.package = REFLECTION_V1_FILE, "grpc.reflection.v1"
    proto.ClearField("options")
    for message in proto.message_type:
        for member in message.field:
            if member.type_name:
                member.type_name = member.type_name.replace(old, new)
    for method in proto.service[0].method:
        method.input_type = method.input_type.replace(old, new)
        method.output_type = method.output_type.replace(old, new)
    pool.Add(proto)


def enable_reflection(server: grpc.aio.Server, services: tuple[str, ...]) -> None:
    """Server reflection under both its names (v1 and v1alpha), one servicer."""
    _register_reflection_v1()
    listed = (*services, reflection.SERVICE_NAME, REFLECTION_V1)
    servicer = reflection.aio.ReflectionServicer(listed)
    reflection.enable_server_reflection(listed, server)
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb.ServerReflectionResponse.SerializeToString)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
        REFLECTION_V1, {"ServerReflectionInfo": handler}),))


@dataclass(frozen=True)
class ServerRules:
    """What a server allows, beyond the API's own checks: access (operator credential,
    create rate, live-games cap) and the autoplay limit."""

    access: AccessPolicy = field(default_factory=AccessPolicy)
    autoplay_limit: int = DEFAULT_AUTOPLAY_LIMIT


#: HTTP/2 keepalive (the WatchGame heartbeat): the server pings an idle connection every
#: KEEPALIVE_MS and drops it if the ping is not answered in KEEPALIVE_TIMEOUT_MS; it
#: accepts client pings as often as every MIN_CLIENT_PING_MS (clients we ship ping every
#: 5 s: client.channels.KEEPALIVE_OPTIONS).
KEEPALIVE_MS, KEEPALIVE_TIMEOUT_MS, MIN_CLIENT_PING_MS = 10_000, 5_000, 4_000


@dataclass
class RunningServer:
    """A started server and what runs beside it: its keeper, health and store outage."""

    server: grpc.aio.Server
    port: int
    keeper: GameKeeper
    health: health_aio.HealthServicer
    outage: StoreOutage
    servicer: GameService | None = None


async def create_server(store: GameStore, address: str = "[::]:50051",
                        tls: ServerTls | None = None, rules: ServerRules | None = None
                        ) -> RunningServer:
    """A started server for `store` on `address` (port 0: any free port); TLS only when
    `tls` is given."""
    rules = rules or ServerRules()
    server = grpc.aio.server(options=[
        ("grpc.max_receive_message_length", MAX_REQUEST_BYTES),
        ("grpc.max_send_message_length", MAX_RESPONSE_BYTES),
        ("grpc.so_reuseport", 1),
        ("grpc.keepalive_time_ms", KEEPALIVE_MS),
        ("grpc.keepalive_timeout_ms", KEEPALIVE_TIMEOUT_MS),
        ("grpc.http2.min_recv_ping_interval_without_data_ms", MIN_CLIENT_PING_MS),
        ("grpc.http2.max_ping_strikes", 0),
    ])
    outage = StoreOutage()
    keeper = GameKeeper(store, rules.access, rules.autoplay_limit)
    servicer = GameService(keeper, outage)
    add_game_service(servicer, server)
    health = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    enable_reflection(server, (SERVICE_NAME,
                               health_pb2.DESCRIPTOR.services_by_name["Health"].full_name))
    port = (server.add_secure_port(address, tls.credentials()) if tls is not None
            else server.add_insecure_port(address))
    if port == 0:
        raise OSError(f"cannot bind {address}")
    await server.start()
    for name in ("", SERVICE_NAME, LIVENESS):
        await health.set(name, health_pb2.HealthCheckResponse.SERVING)
    return RunningServer(server, port, keeper, health, outage, servicer)


async def stop_server(running: RunningServer, grace: float, drain: float = 0.0) -> None:
    """Report NOT_SERVING (so balancers and probes stop sending), keep serving for
    `drain` seconds, then stop, letting calls in flight finish for `grace` seconds."""
    await running.health.enter_graceful_shutdown()
    if drain:
        await asyncio.sleep(drain)
    await running.server.stop(grace=grace)


async def run_background(running: RunningServer, stop: asyncio.Event,
                         sweep_every: float = 0.05) -> None:
    """Until `stop` is set: time-out sweeps, the active-games gauge, and the store probe
    that keeps health truthful."""
    keeper = running.keeper
    prober = asyncio.create_task(follow_store(keeper.store, running.health, (SERVICE_NAME,),
                                              running.outage, stop))
    last_gauge = 0.0
    full = False  # the last sweep met a full Redis: said once, not at every sweep
    while not stop.is_set():
        try:
            await keeper.sweep_timeouts()
            if time.monotonic() - last_gauge > 2.0:
                ACTIVE_GAMES.set(await keeper.store.active_games())
                last_gauge = time.monotonic()
            full = False
        except REDIS_AWAY as error:  # one line per outage (service.health)
            running.outage.failed("timeout sweep", error)
        except Exception as error:
            if not out_of_memory(error):
                log.exception("background sweep failed")
            elif not full:  # (a time-out's commit refused: tried again at the next sweep)
                full = True
                log.error("redis is full (maxmemory)", extra={"where": "timeout sweep"})
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(stop.wait(), sweep_every)
    await prober


class JsonFormatter(logging.Formatter):
    """One JSON object per line; `extra=` fields (game_id, request_id, ...) included."""

    SKIP = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message"}

    def format(self, record: logging.LogRecord) -> str:
        entry = {"ts": round(record.created, 3), "level": record.levelname,
                 "msg": record.getMessage()}
        entry.update({k: v for k, v in vars(record).items() if k not in self.SKIP})
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def setup_logging(level: str = "INFO") -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger("curia")
    root.handlers[:] = [handler]
    root.setLevel(level)
    root.propagate = False


def redact_url(url: str) -> str:
    """The URL with its password, if any, replaced by '***' (for logs and messages)."""
    parts = urlsplit(url)
    if parts.password is not None:
        host = parts.netloc.rpartition("@")[2]
        parts = parts._replace(netloc=f"{parts.username or ''}:***@{host}")
    query = parse_qsl(parts.query, keep_blank_values=True)
    if parts.password is None and all(k != "password" for k, _ in query):
        return url
    query = [(k, "***" if k == "password" else v) for k, v in query]
    return urlunsplit(parts._replace(query=urlencode(query, safe="*")))


LOOPBACK = "127.0.0.1"
ALL_INTERFACES = "[::]"


@dataclass
class ServeOptions:
    """Options of `curia serve`. `host` None: loopback with the embedded Redis (a
    single-machine setup), every interface with an external one."""

    port: int = 50051
    host: str | None = None
    redis_url: str | None = None
    data_dir: str = "data/redis"
    appendfsync: str = DEFAULT_APPENDFSYNC
    metrics_port: int | None = None
    metrics_host: str | None = None
    finished_ttl: int = 7 * 24 * 3600
    idle_ttl: int = DEFAULT_IDLE_TTL
    log_level: str = "INFO"
    tls: ServerTls | None = None
    rules: ServerRules = field(default_factory=ServerRules)
    #: The web gateway's port (service/http_gateway.py): None, no web pages.
    http_port: int | None = None
    #: Its address: loopback unless told, whatever the gRPC port binds.
    http_host: str = LOOPBACK
    #: The origins whose browser pages may call the service on the web port (CORS);
    #: none: no Access-Control headers at all.
    cors_origins: tuple[str, ...] = ()
    #: Started once the server is ready, with its port and Redis URL (the CLI's league
    #: agent); returns the function that stops it, called before the server stops.
    alongside: Callable[[int, str], Callable[[], None]] | None = None

    def bind_host(self) -> str:
        if self.host is not None:
            return self.host
        return LOOPBACK if self.redis_url is None else ALL_INTERFACES


def metrics_address(host: str) -> str:
    """The address prometheus_client binds for a gRPC bind host ('[::]' -> '::')."""
    return host.strip("[]") or "::"


def web_gateway(running: RunningServer, cors_origins: Iterable[str] = ()) -> Gateway:
    """The web port's gateway: pages, event streams and curia.v1 over Connect and
    gRPC-Web (service/web/connect.py), the gRPC port's servicer answering. (Imported
    here: connect-python, with its HTTP client, takes 0.3 s to import, which only a
    web port needs.)"""
    from service.web.connect import ConnectFace
    assert running.servicer is not None
    face = ConnectFace(running.servicer, MAX_REQUEST_BYTES, frozenset(cors_origins))
    return Gateway(running.keeper, rpc=face)


async def serve(options: ServeOptions, ready: Callable[[int, str], None] | None = None) -> None:
    """Run the service until SIGINT/SIGTERM; start and stop an embedded Redis if needed."""
    setup_logging(options.log_level)
    embedded = None
    redis_url = options.redis_url
    if redis_url is None:
        embedded = EmbeddedRedis(Path(options.data_dir),
                                 appendfsync=options.appendfsync).start()
        redis_url = embedded.url
        log.info("embedded redis started", extra={"redis": redact_url(redis_url),
                                                  "data_dir": options.data_dir})
    store = GameStore.from_url(redis_url, options.finished_ttl, options.idle_ttl)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    host = options.bind_host()
    try:
        if options.metrics_port is not None:
            start_http_server(options.metrics_port,
                              addr=metrics_address(options.metrics_host or host))
        running = await create_server(store, f"{host}:{options.port}", options.tls,
                                      options.rules)
        port = running.port
        shown = redact_url(redis_url)  # a password in the URL stays out of logs and stdout
        log.info("serving", extra={"port": port, "host": host, "redis": shown,
                                   "tls": options.tls is not None,
                                   "operator_credential":
                                       options.rules.access.admin_token is not None,
                                   "metrics_port": options.metrics_port})
        gateway = (await start_gateway(web_gateway(running, options.cors_origins),
                                       options.http_host, options.http_port)
                   if options.http_port is not None else None)
        if ready is not None:
            ready(port, shown)
        background = asyncio.create_task(run_background(running, stop))
        stop_alongside = options.alongside(port, redis_url) if options.alongside else None
        await stop.wait()
        if stop_alongside is not None:
            await loop.run_in_executor(None, stop_alongside)
        if gateway is not None:
            await gateway.stop()
        await stop_server(running, grace=2.0, drain=DRAIN_SECONDS)
        await background
    finally:
        await store.close()
        if embedded is not None:
            embedded.stop()


class BackgroundServer(LoopThread):
    """A server running in a thread of its own (its own event loop): for the CLI's
    embedded mode and for tests. `start()` returns the port; with `http_port` (0: any
    free one) the web port is served too, on loopback (`self.http_port` once started)."""

    label = "server"

    def __init__(self, redis_url: str, host: str = LOOPBACK, port: int = 0,
                 finished_ttl: int = 7 * 24 * 3600, tls: ServerTls | None = None,
                 rules: ServerRules | None = None, idle_ttl: int = DEFAULT_IDLE_TTL,
                 http_port: int | None = None) -> None:
        super().__init__()
        self.redis_url, self.host, self.port = redis_url, host, port
        self.http_port = http_port
        self.finished_ttl, self.idle_ttl = finished_ttl, idle_ttl
        self.tls, self.rules = tls, rules or ServerRules()

    def start(self, timeout: float = 10.0) -> int:
        self.start_thread(timeout)
        return self.port

    async def serve(self) -> None:
        store = GameStore.from_url(self.redis_url, self.finished_ttl, self.idle_ttl)
        running = await create_server(store, f"{self.host}:{self.port}", self.tls,
                                      self.rules)
        self.port = running.port
        gateway = (await start_gateway(web_gateway(running), LOOPBACK, self.http_port)
                   if self.http_port is not None else None)
        if gateway is not None:
            self.http_port = gateway.port
        assert self.stopping is not None
        background = asyncio.create_task(run_background(running, self.stopping))
        self.ready()
        await self.stopping.wait()
        if gateway is not None:
            await gateway.stop()
        await stop_server(running, grace=1.0)
        await background
        await store.close()
