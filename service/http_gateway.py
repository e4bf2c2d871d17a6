"""The web gateway: plain HTTP on loopback (unless told otherwise) beside the gRPC port.

- `GET /games/ID` — the viewer for a game, live: it follows `GET /games/ID/events`, a
  Server-Sent Events stream of frames built from exactly what a gRPC spectator gets (the
  keeper's WatchGame with no seat token): no tokens, no seeds, no hidden information.
  A reconnecting browser resumes after its Last-Event-ID (the version).
- `GET /` — a form asking for a game id (and a link to the leagues, if there are any).
- `GET /leagues`, `/leagues/NAME`, `/leagues/NAME/bots/BOT` — the leagues in the
  keeper's Redis (service/web/league_pages.py): each league's ladder, bots online, live
  and recent games (linking to the viewer above, which replays a finished game too while
  the store keeps it), each bot's rating over time; a page follows its `state.json` (the
  same path + `/state.json`) every 2 s. Exports: `/leagues/NAME/results.csv`,
  `/leagues/NAME/ladder.json`. Nothing of a bot's key, not even its hash.
- a tournament's run folder (`curia arena run --http-port`), read-only: `index.html`,
  `replays/NNNNN.html` and the report's exports; nothing else of the folder (not the
  Redis data, not the bots' logs).

Game ids are checked (1-64 letters, digits, '-' or '_') before anything else; one request
per connection; GET and HEAD only.

Limits (HttpLimits; a refusal says when to come back with Retry-After):

- the request line and headers: 10 s in all (408 after), at most 64 header lines and
  16 KiB (431 beyond);
- 128 connections open at once (503 to the next ones, before their request is read);
- 64 event streams open at once (503), 8 per client address (429; an IPv6 client's
  address is its /64; behind a reverse proxy every viewer has the proxy's address);
- an idle stream gets a comment frame (`: ping`) every 15 s, and a stream ends as soon as
  its client closes the connection (its end of it: a client that half-closes after its
  request is taken as gone) or a write fails: its slot is free again at once;
- `Last-Event-ID` is a version: 1-18 ASCII digits, or the request gets 400 (a browser
  only sends back an id this server gave it).

A run folder's site is served by name from an allow-list, and only if the file a name
resolves to is on the allow-list too: a symlink to anything else (`private/`, whose deal
key and withheld records are secret, `results.jsonl`, a log) or outside the folder is
refused with 404, as is anything not a regular file.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import ipaddress
import json
import logging
import os
import re
import stat
from collections import Counter
from collections.abc import Coroutine
from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import parse_qs, urlsplit

from redis.exceptions import RedisError

from curia_api.v1 import game_service_pb2 as pb
from games import GAMES
from service.errors import ServiceError
from service.keeper import GameKeeper
from service.leagues import LeagueReader
from service.threads import LoopThread
from service.web import league_pages
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
#: A version, as Last-Event-ID gives it back (ASCII digits: str.isdigit() takes '²' too).
LAST_EVENT_ID = re.compile(r"[0-9]{1,18}")
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})


@dataclass(frozen=True)
class HttpLimits:
    """What one gateway allows (the module docstring explains each)."""

    header_deadline: float = 10.0  # seconds for the request line and every header
    max_headers: int = 64
    max_head_bytes: int = 16 * 1024  # request line and headers; also the longest line
    max_connections: int = 128
    max_streams: int = 64
    max_streams_per_address: int = 8
    ping_interval: float = 15.0
    retry_after: int = 5  # seconds, in the Retry-After of a 503 or 429


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
    retry_after: int = 0


async def read_request(reader: asyncio.StreamReader, limits: HttpLimits) -> Request | Response:
    """The request line and headers, or the answer refusing them: 400 if malformed, 408
    after `limits.header_deadline` seconds in all, 431 beyond the size caps (a line longer
    than the reader's limit, max_head_bytes, raises ValueError)."""
    try:
        async with asyncio.timeout(limits.header_deadline):
            return await read_head(reader, limits)
    except TimeoutError:
        return message_page(HTTPStatus.REQUEST_TIMEOUT, "the request took too long")
    except ValueError:
        return message_page(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "request too large")
    except ConnectionError:
        return message_page(HTTPStatus.BAD_REQUEST, "malformed request")


async def read_head(reader: asyncio.StreamReader, limits: HttpLimits) -> Request | Response:
    line = await reader.readline()
    parts = line.decode("latin-1").split()
    if len(parts) != 3 or not parts[2].startswith("HTTP/"):
        return message_page(HTTPStatus.BAD_REQUEST, "malformed request")
    size, count = len(line), 0
    headers: dict[str, str] = {}
    while (raw := await reader.readline()) not in (b"\r\n", b"\n", b""):
        size, count = size + len(raw), count + 1
        if size > limits.max_head_bytes or count > limits.max_headers:
            return message_page(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
                                f"at most {limits.max_headers} headers and "
                                f"{limits.max_head_bytes} bytes")
        name, _, value = raw.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    target = urlsplit(parts[1])
    return Request(parts[0], target.path, parse_qs(target.query), headers)


def resume_after(request: Request) -> int | None:
    """The version a reconnecting browser has (its Last-Event-ID; None without one).
    ValueError unless it is 1-18 ASCII digits: the request is refused (400), since a
    browser only sends back an id this server gave it."""
    value = request.headers.get("last-event-id", "")
    if not value:
        return None
    if not LAST_EVENT_ID.fullmatch(value):
        raise ValueError(value)
    return int(value)


def client_address(writer: asyncio.StreamWriter) -> str:
    """Who the per-address stream cap counts: the peer's IP address (an IPv6 one's /64, as
    one host usually has a whole /64; an IPv4-mapped one as IPv4)."""
    peer = writer.get_extra_info("peername")
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


def read_regular_file(path: Path) -> bytes:
    """A regular file's bytes, its last component not followed if it became a symlink
    meanwhile (OSError for anything else: a folder, a FIFO, a device)."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise OSError(f"{path} is not a regular file")
        with os.fdopen(descriptor, "rb", closefd=False) as handle:
            return handle.read()
    finally:
        os.close(descriptor)


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


def message_page(status: HTTPStatus, text: str, retry_after: int = 0) -> Response:
    body = document(f"{status.value} {status.phrase}", f"<p>{html.escape(text)}</p>")
    return Response(status, body.encode(), retry_after=retry_after)


def html_answer(page: str) -> Response:
    return Response(HTTPStatus.OK, page.encode())


def json_answer(data: Any) -> Response:
    return Response(HTTPStatus.OK, json.dumps(data, separators=(",", ":")).encode(),
                    "application/json")


def no_league(name: str) -> Response:
    return message_page(HTTPStatus.NOT_FOUND, f"no league {name!r}")


async def send(writer: asyncio.StreamWriter, response: Response, with_body: bool = True) -> None:
    extra = f"Location: {response.location}\r\n" if response.location else ""
    if response.retry_after:
        extra += f"Retry-After: {response.retry_after}\r\n"
    writer.write(head(response.status, response.content_type,
                      f"{extra}Content-Length: {len(response.body)}\r\n"
                      f"Connection: close\r\n\r\n"))
    if with_body:
        writer.write(response.body)
    await writer.drain()


async def linger(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 seconds: float = 1.0) -> None:
    """After an answer sent before the request was read: half-close, and give the client a
    moment to close (closing on its unread request would reset the connection, and the
    reset could destroy the answer before the client reads it)."""
    with contextlib.suppress(OSError, TimeoutError):
        if writer.can_write_eof():
            writer.write_eof()
        async with asyncio.timeout(seconds):
            while await reader.read(4096):
                pass


async def keep_alive(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                     interval: float) -> None:
    """Return when the client of an event stream goes: the end of its side of the
    connection (anything it sends is discarded), or a failed write (ConnectionError) of
    the comment frame sent after every `interval` seconds without a word from it."""
    while True:
        try:
            async with asyncio.timeout(interval):
                if not await reader.read(4096):
                    return
        except TimeoutError:
            writer.write(b": ping\n\n")
            await writer.drain()


async def first_done(*coroutines: Coroutine[Any, Any, None]) -> None:
    """Run the coroutines until one of them ends, then cancel the others; the error of the
    one that ended, if any, is raised."""
    tasks = [asyncio.ensure_future(coroutine) for coroutine in coroutines]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    for task in done:
        task.result()


class Gateway:
    """Routes requests to the live viewer (with a keeper) and/or a run folder's site."""

    def __init__(self, keeper: GameKeeper | None = None, site: Path | None = None,
                 loopback_only: bool = True, limits: HttpLimits | None = None) -> None:
        self.keeper = keeper
        self.loopback_only = loopback_only
        self.limits = limits or HttpLimits()
        self.connections = self.streams = 0
        self.streams_by_address: Counter[str] = Counter()
        self.site = site.resolve() if site else None
        self.site_prefix = "/" if keeper is None else "/site/"
        self.tasks: set[asyncio.Task[None]] = set()
        #: the league pages' reader (it keeps what it read of each league's lists)
        self.leagues = LeagueReader(keeper.store.redis) if keeper is not None else None

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One connection, one request."""
        task = asyncio.current_task()
        assert task is not None
        self.tasks.add(task)
        self.connections += 1
        try:
            if self.connections > self.limits.max_connections:
                await send(writer, message_page(HTTPStatus.SERVICE_UNAVAILABLE,
                                                "too many connections",
                                                self.limits.retry_after))
                await linger(reader, writer)
            else:
                await self._serve(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the browser went away
        except Exception:
            log.exception("web request failed")
        finally:
            self.connections -= 1
            self.tasks.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        request = await read_request(reader, self.limits)
        if isinstance(request, Response):
            await send(writer, request)
            return
        if request.method not in ("GET", "HEAD"):
            response = message_page(HTTPStatus.METHOD_NOT_ALLOWED, "GET and HEAD only")
        elif self.loopback_only and not loopback_host(request.headers.get("host", "")):
            response = message_page(HTTPStatus.MISDIRECTED_REQUEST,
                                    "this server answers loopback names only")
        elif (self.keeper is not None and request.path.startswith("/games/")
              and request.path.endswith("/events")):
            refusal = await self._events(request, reader, writer)
            if refusal is None:
                return
            response = refusal
        else:
            response = await self.route(request)
        await send(writer, response, with_body=request.method != "HEAD")

    async def route(self, request: Request) -> Response:
        path = request.path
        if self.site is not None and path.startswith(self.site_prefix):
            return self.site_file(path[len(self.site_prefix):])
        if self.keeper is not None:
            if path == "/":
                return await self.home()
            if path == "/games":
                return self.find(request)
            if path.startswith("/games/"):
                return await self.game_page(path[len("/games/"):])
            if path == "/leagues" or path.startswith("/leagues/"):
                return await self.league_route(path)
        return message_page(HTTPStatus.NOT_FOUND, "no such page")

    # -- the tournament site --------------------------------------------------------
    def site_file(self, name: str) -> Response:
        """A file of the run folder's allow-list (index.html for the folder itself)."""
        name = name or "index.html"
        path = self.site_path(name)
        try:
            body = read_regular_file(path) if path is not None else None
        except OSError:
            body = None
        if body is None:
            return message_page(HTTPStatus.NOT_FOUND, "no such page in this tournament "
                                                      "(yet)")
        return Response(HTTPStatus.OK, body, CONTENT_TYPES.get(PurePosixPath(name).suffix,
                                                               "application/octet-stream"))

    def site_path(self, name: str) -> Path | None:
        """The real path of an allowed name, if it is an allowed name of the folder too (a
        symlink is followed to another published file only: never into private/, to
        results.jsonl or a log, or out of the folder)."""
        assert self.site is not None
        if not SITE_FILES.fullmatch(name):
            return None
        path = (self.site / name).resolve()
        if not path.is_relative_to(self.site):
            return None
        return path if SITE_FILES.fullmatch(path.relative_to(self.site).as_posix()) else None

    # -- leagues --------------------------------------------------------------------
    async def league_route(self, path: str) -> Response:
        """/leagues, /leagues/NAME[/state.json|/results.csv|/ladder.json],
        /leagues/NAME/bots/BOT[/state.json]; 404 for anything else, or an unknown league
        or bot; 503 while Redis is away."""
        assert self.leagues is not None
        parts = path.strip("/").split("/")[1:]
        try:
            return await self.league_answer(self.leagues, parts)
        except RedisError as error:
            log.info("league page: the store is away: %s", error)
            return message_page(HTTPStatus.SERVICE_UNAVAILABLE, "the store is away; try "
                                "again soon", self.limits.retry_after)
        except (ValueError, KeyError, TypeError, AttributeError):
            log.exception("league page: unreadable league data")
            return message_page(HTTPStatus.INTERNAL_SERVER_ERROR, "this league's data "
                                                                  "could not be read")

    async def league_answer(self, reader: LeagueReader, parts: list[str]) -> Response:
        if not parts:
            return html_answer(league_pages.index_page(await reader.leagues()))
        name, rest = parts[0], parts[1:]
        if rest[:1] == ["bots"]:
            return await self.bot_answer(reader, name, rest[1:])
        if rest == ["results.csv"]:
            results = await reader.results(name)
            if results is None:
                return no_league(name)
            return Response(HTTPStatus.OK, league_pages.results_csv(results).encode(),
                            "text/csv; charset=utf-8")
        if rest not in ([], ["state.json"], ["ladder.json"]):
            return message_page(HTTPStatus.NOT_FOUND, "no such page")
        league = await reader.league(name)
        if league is None:
            return no_league(name)
        if rest == ["state.json"]:
            return json_answer(league_pages.league_state(league))
        if rest == ["ladder.json"]:
            return json_answer(league_pages.ladder_json(league))
        return html_answer(league_pages.league_page(league))

    async def bot_answer(self, reader: LeagueReader, name: str, rest: list[str]
                         ) -> Response:
        """/leagues/NAME/bots/BOT and its state.json (`rest`: what follows bots/)."""
        if not rest or rest[1:] not in ([], ["state.json"]):
            return message_page(HTTPStatus.NOT_FOUND, "no such page")
        data = await reader.bot(name, rest[0])
        if data is None:
            return message_page(HTTPStatus.NOT_FOUND, f"league {name!r} has no bot "
                                                      f"{rest[0]!r}")
        if rest[1:]:
            return json_answer(league_pages.bot_state(data))
        return html_answer(league_pages.bot_page(data))

    # -- live games -----------------------------------------------------------------
    async def home(self) -> Response:
        site = (f'<p><a href="{self.site_prefix}">The tournament</a></p>'
                if self.site is not None else "")
        if self.leagues is not None:
            with contextlib.suppress(RedisError):
                if await self.leagues.names():
                    site += '<p><a href="/leagues">The leagues</a></p>'
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
        page = viewer_page(title, [], subtitle=subtitle, live_url=f"/games/{game_id}/events",
                           live_version=view.version)
        return Response(HTTPStatus.OK, page.encode())

    async def _events(self, request: Request, reader: asyncio.StreamReader,
                      writer: asyncio.StreamWriter) -> Response | None:
        """Server-Sent Events: one frame per version (from Last-Event-ID on), then "end",
        until the client goes (see keep_alive); or the answer refusing the stream."""
        game_id = request.path[len("/games/"):-len("/events")]
        if not request.path.startswith("/games/") or not GAME_ID.fullmatch(game_id):
            return message_page(HTTPStatus.NOT_FOUND, "not a game id")
        try:
            after = resume_after(request)
        except ValueError:
            return message_page(HTTPStatus.BAD_REQUEST, "Last-Event-ID must be a version: "
                                                        "1-18 ASCII digits")
        address = client_address(writer)
        refusal = self.stream_refusal(address)
        if refusal is not None:
            return refusal
        self.streams += 1
        self.streams_by_address[address] += 1
        try:
            await self._stream(request, game_id, after, reader, writer)
        finally:
            self.streams -= 1
            self.streams_by_address[address] -= 1
            if not self.streams_by_address[address]:
                del self.streams_by_address[address]
        return None

    def stream_refusal(self, address: str) -> Response | None:
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

    async def _stream(self, request: Request, game_id: str, after: int | None,
                      reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        assert self.keeper is not None
        writer.write(head(HTTPStatus.OK, "text/event-stream", "Connection: close\r\n\r\n"))
        if request.method == "HEAD":
            return
        await writer.drain()
        await first_done(
            stream_frames(self.keeper, game_id, after or 0, after is not None, writer),
            keep_alive(reader, writer, self.limits.ping_interval))


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
    server = await asyncio.start_server(gateway.handle, host, port,
                                        limit=gateway.limits.max_head_bytes)
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
