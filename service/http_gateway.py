"""The web gateway: plain HTTP on loopback (unless told otherwise) beside the gRPC port.

- `GET /games/ID` — the viewer for a game, live: it follows `GET /games/ID/events`, a
  Server-Sent Events stream of frames built from exactly what a gRPC spectator gets (the
  keeper's WatchGame with no seat token): no tokens, no seeds, no hidden information.
  A reconnecting browser resumes after its Last-Event-ID (the version).
- `GET /` — a form asking for a game id.
- a tournament's run folder (`curia arena run --http-port`), read-only: `index.html`,
  `replays/NNNNN.html` and the report's exports; nothing else of the folder (not the
  Redis data, not the bots' logs).

Game ids are checked (1-64 letters, digits, '-' or '_') before anything else; one request
per connection; GET and HEAD only.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import logging
import re
from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from curia.v1 import game_service_pb2 as pb
from games import GAMES
from service.errors import ServiceError
from service.keeper import GameKeeper
from service.threads import LoopThread
from service.web.frames import live_frame
from service.web.page import CONTENT_SECURITY_POLICY, document, viewer_page

log = logging.getLogger(__name__)

GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: The files of a run folder the gateway serves, and their types.
SITE_FILES = re.compile(r"(index\.html|replays/\d{5}\.html|ratings\.png|leaderboard\.txt|"
                        r"tournament\.json|games\.csv|ratings\.csv)")
CONTENT_TYPES = {".html": "text/html; charset=utf-8", ".png": "image/png",
                 ".txt": "text/plain; charset=utf-8", ".json": "application/json",
                 ".csv": "text/csv; charset=utf-8"}
HEADER_TIMEOUT = 10.0
MAX_HEADERS = 64
#: Event streams open at once; more are refused (503) until some close.
MAX_STREAMS = 64
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Response:
    status: HTTPStatus
    body: bytes = b""
    content_type: str = "text/html; charset=utf-8"
    location: str = ""


async def read_request(reader: asyncio.StreamReader) -> Request | None:
    """The request line and headers (None if malformed or too slow)."""
    try:
        line = await asyncio.wait_for(reader.readline(), HEADER_TIMEOUT)
        parts = line.decode("latin-1").split()
        if len(parts) != 3 or not parts[2].startswith("HTTP/"):
            return None
        headers: dict[str, str] = {}
        for _ in range(MAX_HEADERS):
            raw = await asyncio.wait_for(reader.readline(), HEADER_TIMEOUT)
            if raw in (b"\r\n", b"\n", b""):
                target = urlsplit(parts[1])
                return Request(parts[0], target.path, parse_qs(target.query), headers)
            name, _, value = raw.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
    except (TimeoutError, ValueError, ConnectionError):
        return None
    return None


def loopback_host(header: str) -> bool:
    """Whether a Host header names loopback (a page another site's DNS points at
    127.0.0.1 is refused: DNS rebinding)."""
    if header.startswith("["):  # [IPv6]:port
        name = header[1:].partition("]")[0]
    else:
        name = header.rsplit(":", 1)[0] if header.count(":") == 1 else header
    return name.lower() in LOOPBACK_NAMES


def head(status: HTTPStatus, content_type: str, extra: str = "") -> bytes:
    """Status line and headers: no caching, no sniffing, no referrer, a strict CSP."""
    return (f"HTTP/1.1 {status.value} {status.phrase}\r\nContent-Type: {content_type}\r\n"
            f"Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n"
            f"Referrer-Policy: no-referrer\r\nX-Frame-Options: DENY\r\n"
            f"Content-Security-Policy: {CONTENT_SECURITY_POLICY}\r\n{extra}").encode()


def message_page(status: HTTPStatus, text: str) -> Response:
    body = document(f"{status.value} {status.phrase}", f"<p>{html.escape(text)}</p>")
    return Response(status, body.encode())


class Gateway:
    """Routes requests to the live viewer (with a keeper) and/or a run folder's site."""

    def __init__(self, keeper: GameKeeper | None = None, site: Path | None = None,
                 loopback_only: bool = True) -> None:
        self.keeper = keeper
        self.loopback_only = loopback_only
        self.streams = 0
        self.site = site.resolve() if site else None
        self.site_prefix = "/" if keeper is None else "/site/"
        self.tasks: set[asyncio.Task[None]] = set()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One connection, one request."""
        task = asyncio.current_task()
        assert task is not None
        self.tasks.add(task)
        try:
            await self._serve(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the browser went away
        finally:
            self.tasks.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        request = await read_request(reader)
        if request is None:
            response = message_page(HTTPStatus.BAD_REQUEST, "malformed request")
        elif request.method not in ("GET", "HEAD"):
            response = message_page(HTTPStatus.METHOD_NOT_ALLOWED, "GET and HEAD only")
        elif self.loopback_only and not loopback_host(request.headers.get("host", "")):
            response = message_page(HTTPStatus.MISDIRECTED_REQUEST,
                                    "this server answers loopback names only")
        elif self.keeper is not None and request.path.endswith("/events"):
            if self.streams >= MAX_STREAMS:
                response = message_page(HTTPStatus.SERVICE_UNAVAILABLE, "too many streams")
            else:
                self.streams += 1
                try:
                    await self._events(request, writer)
                finally:
                    self.streams -= 1
                return
        else:
            response = await self.route(request)
        extra = f"Location: {response.location}\r\n" if response.location else ""
        writer.write(head(response.status, response.content_type,
                          f"{extra}Content-Length: {len(response.body)}\r\n"
                          f"Connection: close\r\n\r\n"))
        if request is None or request.method != "HEAD":
            writer.write(response.body)
        await writer.drain()

    async def route(self, request: Request) -> Response:
        path = request.path
        if self.site is not None and path.startswith(self.site_prefix):
            return self.site_file(path[len(self.site_prefix):])
        if self.keeper is not None:
            if path == "/":
                return self.home()
            if path == "/games":
                return self.find(request)
            if path.startswith("/games/"):
                return await self.game_page(path[len("/games/"):])
        return message_page(HTTPStatus.NOT_FOUND, "no such page")

    # -- the tournament site --------------------------------------------------------
    def site_file(self, name: str) -> Response:
        """A file of the run folder's allow-list (index.html for the folder itself)."""
        assert self.site is not None
        name = name or "index.html"
        path = (self.site / name).resolve()
        if (not SITE_FILES.fullmatch(name) or not path.is_relative_to(self.site)
                or not path.is_file()):
            return message_page(HTTPStatus.NOT_FOUND, "no such page in this tournament "
                                                      "(yet)")
        return Response(HTTPStatus.OK, path.read_bytes(), CONTENT_TYPES[path.suffix])

    # -- live games -----------------------------------------------------------------
    def home(self) -> Response:
        site = (f'<p><a href="{self.site_prefix}">The tournament</a></p>'
                if self.site is not None else "")
        body = ('<form action="/games" method="get"><label for="id">Game id </label>'
                '<input id="id" name="id" required pattern="[A-Za-z0-9_\\-]{1,64}" '
                'autocomplete="off"> <button type="submit">Watch</button></form>'
                f'<p class="muted">Games are watched as a spectator: what any client '
                f"without a seat token sees.</p>{site}")
        return Response(HTTPStatus.OK, document("Curia: watch a game", body).encode())

    def find(self, request: Request) -> Response:
        game_id = (request.query.get("id") or [""])[0].strip()
        if not GAME_ID.fullmatch(game_id):
            return message_page(HTTPStatus.BAD_REQUEST, "a game id is 1-64 letters, digits, "
                                                        "'-' or '_'")
        return Response(HTTPStatus.SEE_OTHER, location=f"/games/{game_id}")

    async def game_page(self, game_id: str) -> Response:
        """The live viewer of a game, if it exists."""
        assert self.keeper is not None
        if not GAME_ID.fullmatch(game_id):
            return message_page(HTTPStatus.NOT_FOUND, "not a game id")
        try:
            view = (await self.keeper.view(pb.GetViewRequest(game_id=game_id))).view
        except ServiceError as error:
            return message_page(HTTPStatus.NOT_FOUND, error.message)
        descriptor = GAMES.get(view.game)
        title = f"{descriptor.title if descriptor else view.game} — game {game_id}"
        subtitle = f"{view.variant}, {len(view.seat_names)} seats; watched as a spectator"
        page = viewer_page(title, [], subtitle=subtitle, live_url=f"/games/{game_id}/events")
        return Response(HTTPStatus.OK, page.encode())

    async def _events(self, request: Request, writer: asyncio.StreamWriter) -> None:
        """Server-Sent Events: one frame per version (from Last-Event-ID on), then "end"."""
        assert self.keeper is not None
        game_id = request.path[len("/games/"):-len("/events")]
        if not request.path.startswith("/games/") or not GAME_ID.fullmatch(game_id):
            writer.write(head(HTTPStatus.NOT_FOUND, "text/plain", "Connection: close\r\n\r\n"))
            await writer.drain()
            return
        resume = request.headers.get("last-event-id", "")
        after = int(resume) if resume.isdigit() and len(resume) < 19 else 0
        writer.write(head(HTTPStatus.OK, "text/event-stream", "Connection: close\r\n\r\n"))
        if request.method == "HEAD":
            return
        await writer.drain()
        await stream_frames(self.keeper, game_id, after, bool(resume.isdigit()), writer)


async def stream_frames(keeper: GameKeeper, game_id: str, after: int, resumed: bool,
                        writer: asyncio.StreamWriter) -> None:
    """The spectator's WatchGame as SSE frames (a resumed stream skips the version the
    browser already has)."""
    watch = keeper.watch(pb.WatchGameRequest(game_id=game_id, after_version=after))
    try:
        first = True
        async for update in watch:
            if not (first and resumed):
                frame = await asyncio.to_thread(live_frame, update)
                writer.write(f"id: {update.view.version}\ndata: "
                             f"{json.dumps(frame, separators=(',', ':'))}\n\n".encode())
                await writer.drain()
            first = False
        writer.write(b"event: end\ndata: {}\n\n")
    except ServiceError as error:
        writer.write(f"event: refused\ndata: {json.dumps({'message': error.message})}\n\n"
                     .encode())
    finally:
        close = getattr(watch, "aclose", None)  # an async generator: stop its wait
        if close is not None:
            await close()
    await writer.drain()


# ---------------------------------------------------------------------------------------
# Running it
# ---------------------------------------------------------------------------------------
class RunningGateway:
    """A listening gateway: its port, and `stop()` (open streams are cancelled)."""

    def __init__(self, server: asyncio.Server, gateway: Gateway) -> None:
        self.server, self.gateway = server, gateway
        self.port: int = server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        self.server.close()
        for task in list(self.gateway.tasks):
            task.cancel()
        await asyncio.gather(*self.gateway.tasks, return_exceptions=True)
        await self.server.wait_closed()


async def start_gateway(gateway: Gateway, host: str, port: int) -> RunningGateway:
    """Listen on host:port (port 0: any free one); on a loopback address, answer
    loopback host names only."""
    gateway.loopback_only = host in LOOPBACK_NAMES
    server = await asyncio.start_server(gateway.handle, host, port)
    running = RunningGateway(server, gateway)
    log.info("web gateway", extra={"http": f"http://{host}:{running.port}/"})
    return running


class BackgroundGateway(LoopThread):
    """A gateway in a thread of its own (its own event loop): the arena serves its run
    folder this way while it plays."""

    label = "web gateway"

    def __init__(self, gateway: Gateway, host: str, port: int) -> None:
        super().__init__()
        self.gateway, self.host, self.port = gateway, host, port

    def start(self, timeout: float = 10.0) -> int:
        try:
            self.start_thread(timeout)
        except RuntimeError as error:
            raise OSError(str(error)) from None
        return self.port

    async def serve(self) -> None:
        running = await start_gateway(self.gateway, self.host, self.port)
        self.port = running.port
        self.ready()
        assert self.stopping is not None
        await self.stopping.wait()
        await running.stop()
