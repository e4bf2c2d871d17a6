"""`curia.v1.GameService` on the web port: the Connect protocol (unary calls as
`POST /curia.v1.GameService/<Method>` in `application/json` or `application/proto`, the
WatchGame stream in `application/connect+json` or `+proto`) and gRPC-Web
(`application/grpc-web+proto`), served by the Connect project's own Python library,
connect-python (`connectrpc`), as an ASGI application that this module mounts on the
gateway's aiohttp server through a small bridge (`ConnectFace.handle`).

The calls are the gRPC port's: the same servicer (service/server.py's `GameService`), its
`_answer`/`answering` (so refusals, logging and metrics are one), the operator credential
from the `authorization` header, the create rate from the peer's address. A refusal is a
Connect error with the gRPC port's code; its reason (`curia-reason`, the gRPC port's
trailing metadata) travels as the Connect protocol carries trailing metadata: a
`trailer-curia-reason` header of a unary answer, the end-of-stream message's `metadata` of
a stream, the trailers frame of gRPC-Web.

What the bridge keeps of the gateway (service/http_gateway.py): its head limits and
connection caps (they come before any call is read), a request body of at most
`max_request_bytes` (the gRPC port's 64 KiB) read within the head's deadline, WatchGame
streams counted with the event streams (the same caps), and a stream that ends for certain
when its client goes (`for_certain`). Play and Session are bidirectional streams, which
HTTP/1.1 cannot carry: they answer `unimplemented`. Requests are not compressed, nor are
answers (the app is given no compression). CORS is off unless origins are allowed
(`--cors-origin`): then a preflight from one of them is answered and its calls carry the
Access-Control headers; nothing else changes.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import struct
from collections.abc import AsyncIterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

import grpc
from aiohttp import web
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.method import IdempotencyLevel, MethodInfo
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf import json_format
from google.protobuf.message import Message
from multidict import CIMultiDict

from curia_api.metadata import REASON_KEY
from curia_api.v1 import game_service_pb2 as pb
from service.cancellation import for_certain
from service.errors import Refused
from service.metrics import OPEN_STREAMS
from service.web.answers import SAFETY_HEADERS
from service.web.guard import Occupancy, client_address

if TYPE_CHECKING:
    from service.server import GameService

SERVICE = pb.DESCRIPTOR.services_by_name["GameService"]
SERVICE_NAME = SERVICE.full_name
#: Every call's path starts so.
PREFIX = f"/{SERVICE_NAME}/"
#: The bidirectional streams: not over HTTP/1.1.
BIDIRECTIONAL = frozenset(m.name for m in SERVICE.methods if m.client_streaming)
#: The request headers a browser may send on a call (the CORS preflight's answer).
CORS_REQUEST_HEADERS = ("content-type, connect-protocol-version, connect-timeout-ms, "
                        "authorization, x-grpc-web, x-user-agent, grpc-timeout")
#: The answer's headers a browser's script may read.
CORS_EXPOSED_HEADERS = ("grpc-status, grpc-message, grpc-status-details-bin, "
                        f"{REASON_KEY}, trailer-{REASON_KEY}")
CORS_MAX_AGE = 7200
#: The framing a message may take beyond its own bytes (one 5-byte envelope).
FRAMING_BYTES = 64
JSON_TYPES = ("application/json", "application/connect+json", "application/grpc-web+json")
UNARY_TYPES = ("application/json", "application/proto")
ENVELOPED_TYPES = ("application/connect+json", "application/connect+proto",
                   "application/grpc-web", "application/grpc-web+proto",
                   "application/grpc-web+json")


@dataclass(frozen=True)
class HttpCall:
    """What the gRPC port learns from a call's context, for one web call: its metadata
    (the HTTP headers, names in lower case), its peer (as gRPC writes it: 'ipv4:A:P'), and
    what is malformed in its request, if anything (then the servicer answers
    invalid_argument, as the gRPC port does)."""

    metadata: tuple[tuple[str, str], ...]
    peer: str
    malformed: str | None = None

    def request(self, parsed: Any) -> Any:
        if self.malformed is None:
            return parsed
        from service.server import MalformedRequest
        return MalformedRequest(self.malformed)


CALL: ContextVar[HttpCall] = ContextVar("curia_http_call")


def connect_code(code: grpc.StatusCode) -> Code:
    return Code.CANCELED if code == grpc.StatusCode.CANCELLED else Code[code.name]


def connect_error(refusal: Refused, context: RequestContext[Any, Any]) -> ConnectError:
    """The refusal as Connect says it; its reason in the trailing metadata."""
    context.response_trailers()[REASON_KEY] = refusal.reason
    return ConnectError(connect_code(refusal.code), refusal.message)


class GameServiceApp(ConnectASGIApplication["GameService"]):
    """connect-python's ASGI application of curia.v1.GameService (what its code
    generator writes for a service, from the descriptor here: no generated module)."""

    @property
    def path(self) -> str:
        return f"/{SERVICE_NAME}"

    def __init__(self, servicer: GameService, max_request_bytes: int) -> None:
        super().__init__(service=servicer, endpoints=endpoints,
                         read_max_bytes=max_request_bytes, compressions=())


def endpoints(servicer: GameService) -> Mapping[str, Any]:
    """The unary methods and WatchGame, each the servicer's handler (the bidirectional
    streams never reach the app: `ConnectFace.handle` answers them)."""
    found: dict[str, Any] = {}
    for method in SERVICE.methods:
        if method.client_streaming:
            continue
        info: MethodInfo[Any, Any] = MethodInfo(
            name=method.name, service_name=SERVICE_NAME,
            input=getattr(pb, method.input_type.name),
            output=getattr(pb, method.output_type.name),
            idempotency_level=IdempotencyLevel.UNKNOWN)
        if method.server_streaming:
            found[PREFIX + method.name] = Endpoint.server_stream(
                info, functools.partial(stream_call, servicer, method.name))
        else:
            found[PREFIX + method.name] = Endpoint.unary(
                info, functools.partial(unary_call, servicer, method.name))
    return found


async def unary_call(servicer: GameService, method: str, request: Any,
                     context: RequestContext[Any, Any]) -> Any:
    call = CALL.get()
    try:
        return await servicer._answer(method, call.request(request), servicer.unary_handler(
            method, call.metadata, call.peer))
    except Refused as refusal:
        raise connect_error(refusal, context) from None


async def stream_call(servicer: GameService, method: str, request: Any,
                      context: RequestContext[Any, Any]) -> AsyncIterator[Any]:
    """WatchGame: the keeper's updates, as the gRPC port sends them."""
    call = CALL.get()
    OPEN_STREAMS.inc()
    try:
        async with (servicer.answering(method, call.request(request)),
                    contextlib.aclosing(servicer.keeper.watch(request)) as updates):
            async for update in updates:
                yield update
    except Refused as refusal:
        raise connect_error(refusal, context) from None
    finally:
        OPEN_STREAMS.dec()


# ---------------------------------------------------------------------------------------
# The request body: checked here, so that a malformed one is the servicer's refusal
# ---------------------------------------------------------------------------------------
def media_type(content_type: str) -> str:
    return content_type.partition(";")[0].strip().lower()


def envelopes(body: bytes) -> list[tuple[int, bytes]]:
    """The messages of an enveloped body (flags, payload); ValueError if it is cut."""
    found, at = [], 0
    while at < len(body):
        if len(body) - at < 5:
            raise ValueError("a cut envelope prefix")
        flags, size = struct.unpack_from(">BI", body, at)
        if len(body) - at - 5 < size:
            raise ValueError("a cut envelope")
        found.append((flags, body[at + 5:at + 5 + size]))
        at += 5 + size
    return found


def check_body(content_type: str, body: bytes, message_type: type[Message]
               ) -> tuple[bytes, str | None]:
    """The body to hand the app, and what is malformed in it (None if nothing): a
    malformed message is replaced by an empty one, framed alike, and the call is refused
    invalid_argument by the servicer (the library would answer `unknown`). What is
    not one message of the method's type (none, two, compressed) is left to the app."""
    kind = media_type(content_type)
    as_json = kind in JSON_TYPES
    try:
        if kind in UNARY_TYPES:
            parse(body, as_json, message_type)
            return body, None
        if kind not in ENVELOPED_TYPES:
            return body, None
        messages = envelopes(body)
        if len(messages) == 1 and messages[0][0] == 0:
            parse(messages[0][1], as_json, message_type)
        return body, None
    except Exception as error:  # whatever a parser raises: the message is malformed
        empty = b"{}" if as_json else b""
        if kind in ENVELOPED_TYPES:
            empty = struct.pack(">BI", 0, len(empty)) + empty
        return empty, str(error) or type(error).__name__


def parse(data: bytes, as_json: bool, message_type: type[Message]) -> None:
    message = message_type()
    if as_json:
        json_format.Parse(data.decode("utf-8"), message)
    else:
        message.ParseFromString(data)


# ---------------------------------------------------------------------------------------
# The bridge: one aiohttp request to the ASGI app and back
# ---------------------------------------------------------------------------------------
def grpc_peer(request: web.BaseRequest) -> str:
    """The peer as gRPC writes it ('ipv4:127.0.0.1:5000', 'ipv6:[::1]:5000')."""
    peer = request.transport.get_extra_info("peername") if request.transport else None
    if not isinstance(peer, tuple):
        return f"unix:{peer}"
    host, port = str(peer[0]), peer[1]
    return f"ipv6:[{host}]:{port}" if ":" in host else f"ipv4:{host}:{port}"


def error_response(status: HTTPStatus, code: Code, message: str, reason: str,
                   retry_after: int = 0) -> web.Response:
    """A Connect error answered before the app is called (gRPC-Web clients read the HTTP
    status): its reason in `trailer-curia-reason`, as the app's unary errors carry it."""
    headers = {"Content-Type": "application/json", **SAFETY_HEADERS,
               f"trailer-{REASON_KEY}": reason}
    if retry_after:
        headers["Retry-After"] = str(retry_after)
    response = web.Response(status=status, headers=headers, body=json.dumps(
        {"code": code.value, "message": message}).encode())
    response.force_close()
    return response


class ConnectFace:
    """The calls of the web port: `handle` answers any request under PREFIX."""

    #: every call's path starts so (the gateway routes them here)
    prefix = PREFIX

    def __init__(self, servicer: GameService, max_request_bytes: int,
                 cors_origins: frozenset[str] = frozenset()) -> None:
        self.app = GameServiceApp(servicer, max_request_bytes)
        self.max_request_bytes = max_request_bytes
        self.cors_origins = cors_origins

    def cors_headers(self, request: web.BaseRequest) -> dict[str, str]:
        """The Access-Control headers of an answer to an allowed origin (none else)."""
        origin = request.headers.get("Origin", "")
        if origin not in self.cors_origins:
            return {}
        return {"Access-Control-Allow-Origin": origin, "Vary": "Origin",
                "Access-Control-Expose-Headers": CORS_EXPOSED_HEADERS}

    def answers_preflight(self, request: web.BaseRequest) -> bool:
        return (request.method == "OPTIONS" and request.headers.get("Origin", "")
                in self.cors_origins)

    async def handle(self, request: web.BaseRequest, path: str, occupancy: Occupancy,
                     deadline: float) -> web.StreamResponse:
        """A call (POST), or a CORS preflight (OPTIONS from an allowed origin)."""
        cors = self.cors_headers(request)
        if self.answers_preflight(request):
            response = web.Response(status=HTTPStatus.NO_CONTENT, headers={
                **cors, "Access-Control-Allow-Methods": "POST",
                "Access-Control-Allow-Headers": CORS_REQUEST_HEADERS,
                "Access-Control-Max-Age": str(CORS_MAX_AGE), **SAFETY_HEADERS})
            response.force_close()
            return response
        return await self.call(request, path, occupancy, deadline, cors)

    async def call(self, request: web.BaseRequest, path: str, occupancy: Occupancy,
                   deadline: float, cors: dict[str, str]) -> web.StreamResponse:
        method = path[len(PREFIX):]
        if request.method != "POST":
            response = error_response(HTTPStatus.METHOD_NOT_ALLOWED, Code.UNIMPLEMENTED,
                                      "calls are POST requests", "method_not_allowed")
            response.headers["Allow"] = "POST"
            response.headers.update(cors)
            return response
        if method in BIDIRECTIONAL:
            response = error_response(
                HTTPStatus.NOT_IMPLEMENTED, Code.UNIMPLEMENTED,
                f"{method} is a bidirectional stream: over gRPC (HTTP/2, the gRPC port) "
                f"only", "unimplemented")
            response.headers.update(cors)
            return response
        kind = media_type(request.headers.get("Content-Type", ""))
        if kind == "application/grpc" or kind.startswith("application/grpc+"):
            response = error_response(
                HTTPStatus.UNSUPPORTED_MEDIA_TYPE, Code.UNIMPLEMENTED,
                "gRPC (HTTP/2) is served on the gRPC port; here: Connect or gRPC-Web",
                "unimplemented")
            response.headers.update(cors)
            return response
        body = await self.read_body(request, deadline)
        if isinstance(body, web.StreamResponse):
            body.headers.update(cors)
            return body
        descriptor = SERVICE.methods_by_name.get(method)
        malformed = None
        if descriptor is not None:
            body, malformed = check_body(request.headers.get("Content-Type", ""), body,
                                         getattr(pb, descriptor.input_type.name))
        call = HttpCall(tuple((name.lower(), value) for name, value in request.headers.items()),
                        grpc_peer(request), malformed)
        if descriptor is None or not descriptor.server_streaming:
            return await self.bridge(request, path, body, call, cors)
        address = client_address(request)
        refusal = occupancy.stream_refusal(address)
        if refusal is not None:
            response = error_response(
                HTTPStatus(refusal.status), Code.UNAVAILABLE if refusal.status ==
                HTTPStatus.SERVICE_UNAVAILABLE else Code.RESOURCE_EXHAUSTED,
                "too many streams on this server" if refusal.status ==
                HTTPStatus.SERVICE_UNAVAILABLE else "too many streams from this address",
                "stream_cap", refusal.retry_after)
            response.headers.update(cors)
            return response
        occupancy.open_stream(address)
        try:
            return await self.bridge(request, path, body, call, cors)
        finally:
            occupancy.close_stream(address)

    async def read_body(self, request: web.BaseRequest, deadline: float
                        ) -> bytes | web.StreamResponse:
        """The body, at most the request cap and its framing, within `deadline` seconds
        (408 after; 413 beyond the cap, resource_exhausted as the gRPC port says)."""
        cap = self.max_request_bytes + FRAMING_BYTES
        too_large = error_response(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                                   Code.RESOURCE_EXHAUSTED,
                                   f"a request is at most {self.max_request_bytes} bytes",
                                   "request_too_large")
        if (request.content_length or 0) > cap:
            return too_large
        body = bytearray()
        try:
            async with asyncio.timeout(deadline):
                while chunk := await request.content.read(64 * 1024):
                    body += chunk
                    if len(body) > cap:
                        return too_large
        except TimeoutError:
            return error_response(HTTPStatus.REQUEST_TIMEOUT, Code.DEADLINE_EXCEEDED,
                                  "the request took too long", "request_timeout")
        return bytes(body)

    async def bridge(self, request: web.BaseRequest, path: str, body: bytes,
                     call: HttpCall, cors: dict[str, str]) -> web.StreamResponse:
        """Run the ASGI app on this request: its body at once, its answer as it comes
        (a unary answer with its length, a stream chunked); the app ends for certain
        when the client goes (aiohttp cancels this handler)."""
        bridge = AsgiExchange(request, body, cors)
        scope = {
            "type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1", "method": request.method, "scheme": "http",
            "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
            "headers": [(name.lower(), value) for name, value in request.raw_headers],
            "client": None, "server": None, "extensions": {},
        }
        token = CALL.set(call)
        try:
            await for_certain(self.app(scope, bridge.receive, bridge.send))
        finally:
            CALL.reset(token)
        return await bridge.finished()


class AsgiExchange:
    """One request's ASGI `receive` and `send` over aiohttp."""

    def __init__(self, request: web.BaseRequest, body: bytes, cors: dict[str, str]) -> None:
        self.request, self.body, self.cors = request, body, cors
        self.read = False
        self.gone = asyncio.Event()  # never set: aiohttp cancels the call as its client goes
        self.status = 0
        self.headers: CIMultiDict[str] = CIMultiDict()
        self.response: web.StreamResponse | None = None

    async def receive(self) -> dict[str, Any]:
        if not self.read:
            self.read = True
            return {"type": "http.request", "body": self.body, "more_body": False}
        await self.gone.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: Mapping[str, Any]) -> None:
        kind = message["type"]
        if kind == "http.response.start":
            self.status = message["status"]
            for name, value in message.get("headers", ()):
                self.headers.add(name.decode("latin-1"), value.decode("latin-1"))
        elif kind == "http.response.body":
            body, more = message.get("body", b""), message.get("more_body", False)
            if self.response is None:
                await self.start(None if more else len(body))
            assert self.response is not None
            if body:
                await self.response.write(body)
            if not more:
                await self.response.write_eof()

    async def start(self, length: int | None) -> None:
        headers = CIMultiDict(self.headers)
        for name, value in {**SAFETY_HEADERS, **self.cors}.items():
            headers.setdefault(name, value)
        response = web.StreamResponse(status=self.status, headers=headers)
        if length is not None:
            response.content_length = length
        response.force_close()
        self.response = response
        await response.prepare(self.request)

    async def finished(self) -> web.StreamResponse:
        """The answer sent (an app that sent none: 500, as aiohttp would say)."""
        if self.response is None:
            raise RuntimeError("the Connect application sent no answer")
        return self.response
