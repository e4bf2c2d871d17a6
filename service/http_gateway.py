"""The web gateway: plain HTTP on loopback (unless told otherwise) beside the gRPC port.

It runs on aiohttp's low-level server (aiohttp.web.Server in the gRPC server's own
asyncio loop): a well-kept HTTP/1.1 parser with configurable line, field and header
limits, streaming responses for Server-Sent Events, and no extra process or thread, where
Starlette + uvicorn would add an ASGI layer and a server of its own to run beside
grpc.aio. The limits aiohttp does not state are kept in its protocol's hooks
(service/web/guard.py); the answers are service/web/answers.py's, the streams
service/web/events.py's, a run folder's files service/web/run_folder.py's.

- `GET /games/ID/play` — a person's seat (service/web/seat.js), with `curia serve`'s
  curia.v1 face: the link carries the seat's token in its fragment (`#token=...`, which a
  browser never sends), the page moves it to the tab's session storage and plays with the
  gRPC-Web calls below (WatchGame with `draw_board`, SubmitDecision). The page holds no
  secret: it is the same for every seat and every visitor.
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

- `POST /curia.v1.GameService/METHOD` — the game service itself over the Connect protocol
  and gRPC-Web (service/web/connect.py), when the gateway is given a `ConnectFace`
  (`curia serve`): the gRPC port's servicer answers; WatchGame streams count with the
  event streams below; CORS preflights (`OPTIONS`) for `--cors-origin` origins only.

Game ids are checked (1-64 letters, digits, '-' or '_') before anything else; one request
per connection (`Connection: close`); GET and HEAD only, but for the calls.

Limits (HttpLimits; a refusal says when to come back with Retry-After):

- the request line and headers: 10 s in all (408 after), at most 64 header lines and
  16 KiB (431 beyond; what a client sends before its head is whole counts);
- 128 connections open at once (503 to the next ones, before their request is read);
- 64 event streams open at once (503), 8 per client address (429; an IPv6 client's
  address is its /64; behind a reverse proxy every viewer has the proxy's address);
- an idle stream gets a comment frame (`: ping`) every 15 s, and a stream ends as soon as
  its client closes the connection (its end of it: a client that half-closes after its
  request is taken as gone) or a write fails: its slot is free again at once (a stream is
  sent in chunks, `Transfer-Encoding: chunked`, to an HTTP/1.1 client);
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
import logging
import re
from collections.abc import Mapping
from http import HTTPStatus
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from aiohttp import web
from redis.exceptions import RedisError

from curia_api.v1 import game_service_pb2 as pb
from games import GAMES
from service.errors import ServiceError
from service.keeper import GameKeeper
from service.leagues import LeagueReader
from service.threads import LoopThread
from service.web import league_pages
from service.web.answers import (
    Answer,
    html_answer,
    json_answer,
    message_page,
    web_response,
)
from service.web.events import event_stream
from service.web.guard import (
    GuardedProtocol,
    HttpLimits,
    Occupancy,
    make_request,
    too_many_headers,
)
from service.web.page import document, seat_page, viewer_page
from service.web.run_folder import site_file

if TYPE_CHECKING:
    from service.web.connect import ConnectFace

__all__ = ["BackgroundGateway", "Gateway", "HttpLimits", "RunningGateway", "start_gateway"]

log = logging.getLogger(__name__)

GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})


def loopback_host(header: str) -> bool:
    """Whether a Host header names loopback (a page another site's DNS points at
    127.0.0.1 is refused: DNS rebinding)."""
    if header.startswith("["):  # [IPv6]:port
        name = header[1:].partition("]")[0]
    else:
        name = header.rsplit(":", 1)[0] if header.count(":") == 1 else header
    return name.lower() in LOOPBACK_NAMES


def no_league(name: str) -> Answer:
    return message_page(HTTPStatus.NOT_FOUND, f"no league {name!r}")


def events_game(path: str) -> str | None:
    """The game id of `/games/ID/events` (None for any other path)."""
    if path.startswith("/games/") and path.endswith("/events"):
        return path[len("/games/"):-len("/events")]
    return None


class Gateway:
    """Routes requests to the live viewer (with a keeper) and/or a run folder's site."""

    def __init__(self, keeper: GameKeeper | None = None, site: Path | None = None,
                 loopback_only: bool = True, limits: HttpLimits | None = None,
                 rpc: ConnectFace | None = None) -> None:
        self.keeper = keeper
        #: curia.v1.GameService over Connect and gRPC-Web (None: not on this port)
        self.rpc = rpc
        self.loopback_only = loopback_only
        self.limits = limits or HttpLimits()
        self.occupancy = Occupancy(self.limits)
        self.site = site.resolve() if site else None
        self.site_prefix = "/" if keeper is None else "/site/"
        self.tasks: set[asyncio.Task[object]] = set()
        #: the league pages' reader (it keeps what it read of each league's lists)
        self.leagues = LeagueReader(keeper.store.redis) if keeper is not None else None

    async def handle(self, request: web.BaseRequest) -> web.StreamResponse:
        """One request (aiohttp's handler): its head is whole; then the checks every
        request passes, then its page or stream."""
        protocol = request.protocol
        if isinstance(protocol, GuardedProtocol) and not protocol.head_received():
            raise ConnectionResetError("refused (late or too large) before it was handled")
        task = asyncio.current_task()
        assert task is not None
        self.tasks.add(task)
        try:
            refusal = self.refusal(request)
            if refusal is not None:
                return web_response(refusal)
            path = urlsplit(request.raw_path).path
            if self.rpc is not None and path.startswith(self.rpc.prefix):
                return await self.rpc.handle(request, path, self.occupancy,
                                             self.limits.header_deadline)
            game_id = events_game(path) if self.keeper is not None else None
            if game_id is not None:
                return await self.events(request, game_id)
            return web_response(await self.route(path, request.query))
        finally:
            self.tasks.discard(task)

    def refusal(self, request: web.BaseRequest) -> Answer | None:
        """431 beyond the header count, 405 but for GET and HEAD (and the calls' POST,
        and OPTIONS of CORS: service/web/connect.py), 421 for a name other than
        loopback's on a loopback gateway."""
        if (too_many := too_many_headers(request, self.limits)) is not None:
            return too_many
        call = (self.rpc is not None
                and urlsplit(request.raw_path).path.startswith(self.rpc.prefix)
                and (request.method == "POST" or self.rpc.answers_preflight(request)))
        if request.method not in ("GET", "HEAD") and not call:
            return message_page(HTTPStatus.METHOD_NOT_ALLOWED, "GET and HEAD only")
        if self.loopback_only and not loopback_host(request.headers.get("Host", "")):
            return message_page(HTTPStatus.MISDIRECTED_REQUEST,
                                "this server answers loopback names only")
        return None

    async def route(self, path: str, query: Mapping[str, str]) -> Answer:
        if self.site is not None and path.startswith(self.site_prefix):
            return site_file(self.site, path[len(self.site_prefix):])
        if self.keeper is not None:
            if path == "/":
                return await self.home()
            if path == "/games":
                return self.find(query)
            if self.rpc is not None and path.startswith("/games/") \
                    and path.endswith("/play"):
                return await self.game_page(path[len("/games/"):-len("/play")], seat=True)
            if path.startswith("/games/"):
                return await self.game_page(path[len("/games/"):])
            if path == "/leagues" or path.startswith("/leagues/"):
                return await self.league_route(path)
        return message_page(HTTPStatus.NOT_FOUND, "no such page")

    # -- leagues --------------------------------------------------------------------
    async def league_route(self, path: str) -> Answer:
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

    async def league_answer(self, reader: LeagueReader, parts: list[str]) -> Answer:
        if not parts:
            return html_answer(league_pages.index_page(await reader.leagues()))
        name, rest = parts[0], parts[1:]
        if rest[:1] == ["bots"]:
            return await self.bot_answer(reader, name, rest[1:])
        if rest == ["results.csv"]:
            results = await reader.results(name)
            if results is None:
                return no_league(name)
            return Answer(HTTPStatus.OK, league_pages.results_csv(results).encode(),
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

    async def bot_answer(self, reader: LeagueReader, name: str, rest: list[str]) -> Answer:
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
    async def home(self) -> Answer:
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
        return html_answer(document("Curia: watch a game", body))

    def find(self, query: Mapping[str, str]) -> Answer:
        game_id = query.get("id", "").strip()
        if not GAME_ID.fullmatch(game_id):
            return message_page(HTTPStatus.BAD_REQUEST, "a game id is 1-64 letters, digits, "
                                                        "'-' or '_'")
        return Answer(HTTPStatus.SEE_OTHER, location=f"/games/{game_id}")

    async def game_page(self, game_id: str, seat: bool = False) -> Answer:
        """The live viewer of a game, if it exists; with `seat`, the page a person plays
        a seat on (its token in the link's fragment: the page is the same for all)."""
        assert self.keeper is not None
        if not GAME_ID.fullmatch(game_id):
            return message_page(HTTPStatus.NOT_FOUND, "not a game id")
        try:
            view = (await self.keeper.view(pb.GetViewRequest(game_id=game_id))).view
        except ServiceError as error:
            return message_page(HTTPStatus.NOT_FOUND, error.message)
        descriptor = GAMES.get(view.game)
        title = f"{descriptor.title if descriptor else view.game} — game {game_id}"
        seated = ", ".join(f"{name}={player}" for name, player in
                           zip(view.seat_names, view.players, strict=False))
        if seat:
            return html_answer(seat_page(game_id, title, f"{view.variant}, "
                                         f"{len(view.seat_names)} seats"))
        subtitle = (f"{view.variant}, {len(view.seat_names)} seats"
                    f"{': ' + seated if seated else ''}; watched as a spectator")
        return html_answer(viewer_page(title, [], subtitle=subtitle,
                                       live_url=f"/games/{game_id}/events",
                                       live_version=view.version))

    async def events(self, request: web.BaseRequest, game_id: str) -> web.StreamResponse:
        """The game's Server-Sent Events (service/web/events.py), for a game id."""
        assert self.keeper is not None
        if not GAME_ID.fullmatch(game_id):
            return web_response(message_page(HTTPStatus.NOT_FOUND, "not a game id"))
        return await event_stream(request, self.keeper, game_id, self.occupancy)


# ---------------------------------------------------------------------------------------
# Running it
# ---------------------------------------------------------------------------------------
class RunningGateway:
    """A listening gateway: its port, and `stop()` (open requests get a moment to end:
    a stream of a game that just ended sends its last message; then they are
    cancelled)."""

    def __init__(self, server: asyncio.Server, handler: web.Server, gateway: Gateway
                 ) -> None:
        self.server, self.handler, self.gateway = server, handler, gateway
        self.port: int = server.sockets[0].getsockname()[1]

    async def stop(self, grace: float = 1.0) -> None:
        self.server.close()
        if self.gateway.tasks:
            await asyncio.wait(list(self.gateway.tasks), timeout=grace)
        for task in list(self.gateway.tasks):
            task.cancel()
        await asyncio.gather(*self.gateway.tasks, return_exceptions=True)
        for connection in self.handler.connections:
            connection.close()
        await self.handler.shutdown(timeout=1.0)
        await self.server.wait_closed()


async def start_gateway(gateway: Gateway, host: str, port: int) -> RunningGateway:
    """Listen on host:port (port 0: any free one); on a loopback address, answer
    loopback host names only."""
    gateway.loopback_only = host in LOOPBACK_NAMES
    loop = asyncio.get_running_loop()
    handler = web.Server(gateway.handle, handler_cancellation=True,
                         request_factory=make_request)
    settings = gateway.limits.parser_settings()

    def connection() -> GuardedProtocol:
        return GuardedProtocol(handler, gateway.occupancy, loop=loop, access_log=None,
                               **settings)

    server = await loop.create_server(connection, host, port)
    running = RunningGateway(server, handler, gateway)
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
