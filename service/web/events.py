"""A game's live stream, `GET /games/ID/events`: Server-Sent Events of exactly what a
gRPC spectator gets (the keeper's WatchGame with no seat token), one frame per version
from Last-Event-ID on, then "end"; a `: ping` comment every `ping_interval` seconds. The
stream ends when its client goes (aiohttp cancels the handler as the connection closes;
`for_certain` sees the cancel through) or a write fails; its slot is free again at once."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Coroutine
from http import HTTPStatus
from typing import Any

from aiohttp import web

from curia_api.v1 import game_service_pb2 as pb
from service.cancellation import for_certain
from service.errors import ServiceError
from service.keeper import GameKeeper
from service.web.answers import headers, message_page, web_response
from service.web.frames import live_frame
from service.web.guard import Occupancy, client_address

#: A version, as Last-Event-ID gives it back (ASCII digits: str.isdigit() takes '²' too).
LAST_EVENT_ID = re.compile(r"[0-9]{1,18}")


def resume_after(request: web.BaseRequest) -> int | None:
    """The version a reconnecting browser has (its Last-Event-ID; None without one).
    ValueError unless it is 1-18 ASCII digits: the request is refused (400), since a
    browser only sends back an id this server gave it."""
    value = request.headers.get("Last-Event-ID", "")
    if not value:
        return None
    if not LAST_EVENT_ID.fullmatch(value):
        raise ValueError(value)
    return int(value)


async def event_stream(request: web.BaseRequest, keeper: GameKeeper, game_id: str,
                       occupancy: Occupancy) -> web.StreamResponse:
    """The stream, within the caps (503 beyond the server's, 429 beyond an address's);
    400 for a Last-Event-ID that is not a version."""
    try:
        after = resume_after(request)
    except ValueError:
        return web_response(message_page(HTTPStatus.BAD_REQUEST, "Last-Event-ID must be a "
                                         "version: 1-18 ASCII digits"))
    address = client_address(request)
    refusal = occupancy.stream_refusal(address)
    if refusal is not None:
        return web_response(refusal)
    occupancy.open_stream(address)
    try:
        return await stream(request, keeper, game_id, after, occupancy.limits.ping_interval)
    finally:
        occupancy.close_stream(address)


async def stream(request: web.BaseRequest, keeper: GameKeeper, game_id: str,
                 after: int | None, ping_interval: float) -> web.StreamResponse:
    response = web.StreamResponse(headers=headers("text/event-stream"))
    response.force_close()
    await response.prepare(request)
    if request.method != "HEAD":
        await for_certain(first_done(send_frames(response, keeper, game_id, after),
                                     send_pings(response, ping_interval)))
    return response


async def send_frames(response: web.StreamResponse, keeper: GameKeeper, game_id: str,
                      after: int | None) -> None:
    """The spectator's WatchGame as SSE frames (a resumed stream skips the version the
    browser already has), then "end"; "refused" if the keeper refuses."""
    watch = keeper.watch(pb.WatchGameRequest(game_id=game_id, after_version=after or 0))
    try:
        skip = after is not None
        async for update in watch:
            if not skip:
                frame = await asyncio.to_thread(live_frame, update)
                await response.write(f"id: {update.view.version}\ndata: "
                                     f"{json.dumps(frame, separators=(',', ':'))}\n\n"
                                     .encode())
            skip = False
        await response.write(b"event: end\ndata: {}\n\n")
    except ServiceError as error:
        await response.write(f"event: refused\ndata: "
                             f"{json.dumps({'message': error.message})}\n\n".encode())
    finally:
        close = getattr(watch, "aclose", None)  # an async generator: stop its wait
        if close is not None:
            await close()


async def send_pings(response: web.StreamResponse, interval: float) -> None:
    """A comment frame every `interval` seconds (a write fails once the client is gone)."""
    while True:
        await asyncio.sleep(interval)
        await response.write(b": ping\n\n")


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
