"""The gateway's limits that aiohttp does not state itself, kept in its protocol's hooks
(no HTTP is parsed here: aiohttp's parser reads every request):

- `GuardedProtocol`, aiohttp's RequestHandler for one connection: the connection cap
  (503 as it opens), one deadline for the whole request head (408) and a cap on the head's
  bytes, up to its blank line (431: a body read with the head, as a call's POST body
  often is, is not the head's); such a refusal is written at once, then the connection
  is half-closed and closed once the client closes (or after a second);
- `Occupancy`: the connections and event streams open, per client address too.

The header count (64) is checked on the parsed request (`too_many_headers`); aiohttp's own
per-line and count limits are set so that only these caps are ever met first.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
from collections import Counter
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from aiohttp import web
from aiohttp.abc import AbstractStreamWriter
from aiohttp.http import HttpVersion11, RawRequestMessage
from aiohttp.http_exceptions import InvalidURLError, LineTooLong
from aiohttp.streams import StreamReader
from aiohttp.web_protocol import ERROR

from service.web.answers import Answer, message_page, raw_answer, web_response

log = logging.getLogger("service.http_gateway")

#: How long a refused connection waits for its client to close (closing on its unread
#: request would reset the connection, and the reset could destroy the answer).
LINGER_SECONDS = 1.0


@dataclass(frozen=True)
class HttpLimits:
    """What one gateway allows (service/http_gateway.py's docstring explains each)."""

    header_deadline: float = 10.0  # seconds for the request line and every header
    max_headers: int = 64
    max_head_bytes: int = 16 * 1024  # request line and headers; also the longest line
    max_connections: int = 128
    max_streams: int = 64
    max_streams_per_address: int = 8
    ping_interval: float = 15.0
    retry_after: int = 5  # seconds, in the Retry-After of a 503 or 429

    def parser_settings(self) -> dict[str, int]:
        """aiohttp's parser limits: never below ours (a head within max_head_bytes
        passes them), so that our caps answer first, with our statuses."""
        return {"max_line_size": self.max_head_bytes, "max_field_size": self.max_head_bytes,
                "max_headers": self.max_head_bytes // 4 + 1}

    def head_bytes(self) -> int:
        """What a head may take on the wire: max_head_bytes, and its closing blank line."""
        return self.max_head_bytes + 2


@dataclass
class Occupancy:
    """The connections and event streams open now."""

    limits: HttpLimits
    connections: int = 0
    streams: int = 0
    streams_by_address: Counter[str] = field(default_factory=Counter)

    def stream_refusal(self, address: str) -> Answer | None:
        """503 beyond the streams of the server, 429 beyond those of an address."""
        limits = self.limits
        if self.streams >= limits.max_streams:
            return message_page(HTTPStatus.SERVICE_UNAVAILABLE, "too many live viewers on "
                                "this server", limits.retry_after)
        if self.streams_by_address[address] >= limits.max_streams_per_address:
            return message_page(HTTPStatus.TOO_MANY_REQUESTS, f"at most "
                                f"{limits.max_streams_per_address} live viewers per address",
                                limits.retry_after)
        return None

    def open_stream(self, address: str) -> None:
        self.streams += 1
        self.streams_by_address[address] += 1

    def close_stream(self, address: str) -> None:
        self.streams -= 1
        self.streams_by_address[address] -= 1
        if not self.streams_by_address[address]:
            del self.streams_by_address[address]


def client_address(request: web.BaseRequest) -> str:
    """Who the per-address stream cap counts: the peer's IP address (an IPv6 one's /64, as
    one host usually has a whole /64; an IPv4-mapped one as IPv4)."""
    peer = request.transport.get_extra_info("peername") if request.transport else None
    host = str(peer[0] if isinstance(peer, tuple) else peer)
    try:
        address = ipaddress.ip_address(host.partition("%")[0])
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def too_many_headers(request: web.BaseRequest, limits: HttpLimits) -> Answer | None:
    """431 beyond `limits.max_headers` header lines (counted as sent, repeats included)."""
    if len(request.raw_headers) <= limits.max_headers:
        return None
    return head_too_large(limits)


def head_too_large(limits: HttpLimits) -> Answer:
    return message_page(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
                        f"at most {limits.max_headers} headers and "
                        f"{limits.max_head_bytes} bytes")


def make_request(message: RawRequestMessage, payload: StreamReader,
                 protocol: web.RequestHandler, writer: AbstractStreamWriter,
                 task: asyncio.Task[None]) -> web.BaseRequest:
    """aiohttp's request (its `request_factory`), said to be HTTP/1.1 when it stands for a
    request aiohttp could not parse (its ERROR placeholder says HTTP/1.0): every answer's
    status line says HTTP/1.1, a refusal's too."""
    if message is ERROR:
        message = message._replace(version=HttpVersion11)
    return web.BaseRequest(message, payload, protocol, writer, task,
                           asyncio.get_running_loop())


class GuardedProtocol(web.RequestHandler):
    """aiohttp's protocol for one connection, with the limits it does not state: the
    connection cap, the head's deadline and byte cap (see the module docstring)."""

    def __init__(self, manager: web.Server, occupancy: Occupancy, **settings: Any) -> None:
        super().__init__(manager, **settings)
        self.occupancy, self.limits = occupancy, occupancy.limits
        self.head_sent = 0  # bytes of the head received so far
        self.head_ended = False  # its blank line received (what follows is the body)
        self.head_tail = b""  # the last bytes of the head so far (a blank line split)
        self.head_whole = False
        self.refused = False
        self.timer: asyncio.TimerHandle | None = None
        self.loop = asyncio.get_running_loop()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.occupancy.connections += 1
        if self.occupancy.connections > self.limits.max_connections:
            self.refuse(message_page(HTTPStatus.SERVICE_UNAVAILABLE, "too many connections",
                                     self.limits.retry_after))
        else:
            self.timer = self.loop.call_later(self.limits.header_deadline, self.late)

    def connection_lost(self, exc: BaseException | None) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.occupancy.connections -= 1
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.refused:
            return  # read and dropped while lingering
        if not self.head_ended:
            self.count_head(data)
            if self.head_sent > self.limits.head_bytes():
                self.refuse(head_too_large(self.limits))
                return
        super().data_received(data)

    def count_head(self, data: bytes) -> None:
        """Count the bytes of `data` up to the head's blank line (a body that comes with
        the head in one read is not the head's)."""
        seen = self.head_tail + data
        end = seen.find(b"\r\n\r\n")
        if end < 0:
            self.head_sent += len(data)
            self.head_tail = seen[-3:]
            return
        self.head_ended = True
        self.head_sent += max(end + 4 - len(self.head_tail), 0)

    def head_received(self) -> bool:
        """Called as the request is handled: its head came in time and within the cap;
        False if it was refused meanwhile (it has had its answer)."""
        self.head_whole = True
        if self.refused:
            return False
        if self.timer is not None:
            self.timer.cancel()
        return True

    def late(self) -> None:
        if not self.head_whole:
            self.refuse(message_page(HTTPStatus.REQUEST_TIMEOUT, "the request took too long"))

    def refuse(self, answer: Answer) -> None:
        """Answer before (or instead of) reading the request, then linger and close."""
        transport = self.transport
        if self.refused or transport is None:
            return
        self.refused = True
        if self.timer is not None:
            self.timer.cancel()
        transport.write(raw_answer(answer))
        if transport.can_write_eof():
            transport.write_eof()
        self.timer = self.loop.call_later(LINGER_SECONDS, self.force_close)

    def handle_error(self, request: web.BaseRequest, status: int = 500,
                     exc: BaseException | None = None, message: str | None = None
                     ) -> web.StreamResponse:
        """aiohttp's answer to a malformed request or a failed handler, as our page: 400
        (431 for a line beyond the cap, 404 for a target no page has: every page's path
        is ASCII), or 500 with the error logged."""
        if self.refused or request.writer.output_size > 0:
            raise ConnectionError("an answer was sent: no other answer can follow")
        if isinstance(exc, LineTooLong):
            return web_response(head_too_large(self.limits))
        if isinstance(exc, InvalidURLError):
            return web_response(message_page(HTTPStatus.NOT_FOUND, "no such page"))
        if status >= HTTPStatus.INTERNAL_SERVER_ERROR:
            log.error("web request failed", exc_info=exc)
            return web_response(message_page(HTTPStatus(status), "this page failed"))
        log.debug("malformed request: %s", message)
        return web_response(message_page(HTTPStatus(status), "malformed request"))
