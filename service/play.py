"""The Play stream: one authenticated stream per league bot, carrying all of its games.

The server holds the seat tokens (in the league's `seats:BOT` hash, written by the
matchmaker); the bot only ever shows its bot key. For each of the bot's games a watcher
follows the game as that seat (`GameKeeper.watch`) and sends the game's start, the view
whenever the bot must decide, the others' public decisions when asked for, and the end.
Decisions come back on the same stream and are submitted with the seat's token, through
the same checks as SubmitDecision. Presence (the bot is connected, and how many games it
takes) is kept in the league's keys for the matchmaker; a newer stream of the same bot
takes over from an older one.

A tournament's bot process plays its one seat on the same stream (`SeatPlayStream`): its
seat token is the credential and its hello names the game; the stream carries that game
only and ends once the bot was told its end. So a bot is the same program in a tournament
and in a league.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
from redis.exceptions import WatchError

from curia_api.v1 import game_service_pb2 as pb
from service.errors import Refused, ServiceError, invalid, refused
from service.keeper import GameKeeper
from service.league_records import (
    BotAccount,
    BotEntry,
    HistoryEntry,
    LiveTable,
    hash_field,
    league_key,
    seats_key,
    text,
)
from service.leagues import KEY_PREFIX, PRESENCE_MS, BotKeys
from service.store import now_ms
from service.version_feed import Announced, Waiter, woken_within

log = logging.getLogger("curia.play")

#: Seconds a new stream has to send its hello.
HELLO_TIMEOUT_S = 30.0
#: Seconds between looks for new games and renewals of the stream's presence.
LOOK_EVERY_S = 0.25
RENEW_EVERY_S = 3.0
#: Seconds before a game's watcher tries again after the store was away.
WATCH_RETRY_S = 1.0
#: Seconds a watcher waits for a new version before it looks anyway (a game ended by the
#: server without a new version, a missed wake-up).
WAKE_AT_LEAST_S = 2.0
#: Seconds a seat's stream waits, after its game's end, for the reply being made.
LAST_REPLY_S = 5.0
#: Seconds between looks at a game waiting for open seats (taking a seat makes no new
#: version: nothing wakes the watcher when the game starts).
WAITING_LOOK_S = 0.1

Answer = Callable[[str, Any, Callable[[Any], Awaitable[Any]]], Awaitable[Any]]


class Replaced(Exception):
    """A newer Play stream of the same bot took over."""


def _retrieved(task: asyncio.Task[Any]) -> None:
    """A stream's task is done: its exception, if any, is taken (and logged), never left
    for asyncio to report as "never retrieved" (e.g. the requests' iterator raising once
    the RPC has finished)."""
    if task.cancelled():
        return
    error = task.exception()
    if error is not None:
        log.info("play: a stream's task ended", extra={"task": task.get_name(),
                                                       "error": repr(error)})


class PlayStream:
    """One bot's Play stream (see the module docstring)."""

    def __init__(self, keeper: GameKeeper, answer: Answer, account: BotAccount,
                 bot_key: str = "") -> None:
        self.keeper = keeper
        self.answer = answer
        self.account = account
        #: the key the stream was opened with, looked at again when the stream is no
        #: longer the bot's (revoked: UNAUTHENTICATED; banned: PERMISSION_DENIED)
        self.bot_key = bot_key
        self.redis: Any = keeper.store.redis
        self.stream_id = secrets.token_hex(8)
        #: writes one message on the call (`serve` sets it); one message at a time
        self.write: Callable[[pb.PlayResponse], Awaitable[None]] | None = None
        self.writing = asyncio.Lock()
        #: set when the stream is to end (the bot hung up, replaced, refused, a failed write)
        self.over = asyncio.Event()
        self.watchers: dict[str, asyncio.Task[None]] = {}
        self.tokens: dict[str, str] = {}
        self.opponent_decisions = False
        self.encoding = pb.OBSERVATION_ENCODING_UNSPECIFIED
        self.replaced = False
        #: why the stream ends with a status other than OK (set before `over`)
        self.ending: Exception | None = None
        #: game -> (decisions of the seat applied on this stream, the version the last
        #: produced): a turn answered is a turn to send again if the store loses the answer
        self.applied: dict[str, tuple[int, int]] = {}
        #: set while no request is being answered (every reply is written)
        self.idle = asyncio.Event()
        self.idle.set()

    def key(self, part: str) -> str:
        return league_key(self.account.league, part)

    async def serve(self, requests: AsyncIterator[Any],
                    write: Callable[[pb.PlayResponse], Awaitable[None]]) -> None:
        """The stream, from the welcome to the bot's hanging up: each message written by
        the task that made it (the reply by the reader, a turn by the game's watcher),
        one at a time, with no queue between."""
        self.write = write
        hello = await _first_hello(requests)
        granted = await self._take_over(hello)
        await self._send(pb.PlayResponse(welcome=pb.PlayWelcome(
            bot=self.account.bot, league=self.account.league, concurrency=granted,
            game_ids=sorted(await self._look_for_games()))))
        helpers = [self._spawn(self._read(requests), "read"),
                   self._spawn(self._keep(), "keep")]
        try:
            await self.over.wait()
            async with self.writing:  # a message being written is written whole
                pass
            if self.ending is not None:
                raise self.ending
            if self.replaced:
                raise Replaced
        finally:
            for task in (*helpers, *self.watchers.values()):
                task.cancel()
            await self._leave()

    async def _send(self, message: pb.PlayResponse) -> None:
        """Write one message on the call, unless the stream is ending; a failed write (the
        call gone) ends the stream."""
        assert self.write is not None
        async with self.writing:
            if self.over.is_set():
                return
            try:
                await self.write(message)
            except Exception:
                self.over.set()
                raise

    # -- presence ------------------------------------------------------------------------
    async def _take_over(self, hello: pb.PlayHello, again: bool = False) -> int:
        """Register this stream as the bot's (replacing any other) and its concurrency: a
        first hello's 0 takes the league's default, a later hello's 0 means no new games
        (PlayHello.concurrency)."""
        self.opponent_decisions = hello.opponent_decisions
        self.encoding = hello.observation_encoding
        granted = 0 if again and not hello.concurrency else \
            await self._concurrency(hello.concurrency)
        bot = self.account.bot
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(self.key("streams"), bot, self.stream_id)
            pipe.hset(self.key("capacity"), bot, granted)
            pipe.zadd(self.key("online"), {bot: now_ms() + PRESENCE_MS})
            if hello.client:
                pipe.hset(self.key("clients"), bot, hello.client[:80])
            await pipe.execute()
        if hello.version:
            await self._take_version(hello.version)
        return granted

    async def _take_version(self, name: str) -> None:
        """PlayHello.version: names the bot's current version if it has no name yet;
        another name starts its next version (`curia league new-version`'s change)."""
        if len(name) > 40 or not name.isprintable():
            raise ServiceError(grpc.StatusCode.INVALID_ARGUMENT, "invalid_argument",
                               "PlayHello.version: at most 40 printable characters")
        key, bot = self.key("bots"), self.account.bot
        async with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    await pipe.watch(key)
                    raw = await pipe.hget(key, bot)
                    if raw is None:
                        return
                    entry = BotEntry.from_json(hash_field(key, bot), raw)
                    if entry.version_label == name:
                        return
                    if entry.version_label:
                        entry.version, entry.version_ms = entry.version + 1, now_ms()
                        log.info("play: a new version", extra={
                            "bot": bot, "version": entry.version, "label": name})
                    entry.version_label = name
                    pipe.multi()
                    pipe.hset(key, bot, entry.dumps())
                    await pipe.execute()
                    return
                except WatchError:
                    continue

    async def _concurrency(self, asked: int) -> int:
        conf = await self.redis.hmget(self.key("conf"), "concurrency", "max_concurrency")
        default, limit = (int(value or 1) for value in conf)
        return min(asked or default, limit)

    async def _still_mine(self) -> bool:
        owner = await self.redis.hget(self.key("streams"), self.account.bot)
        return owner is not None and text(owner) == self.stream_id

    def _spawn(self, work: Awaitable[None], name: str) -> asyncio.Task[None]:
        """A task of this stream whose exception is always retrieved (`_retrieved`)."""
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        task.set_name(f"play-{self.stream_id}-{name}")
        task.add_done_callback(_retrieved)
        return task

    async def _renew(self) -> None:
        bot = self.account.bot
        owner = await self.redis.hget(self.key("streams"), bot)
        if owner is not None and text(owner) == self.stream_id:
            await self.redis.zadd(self.key("online"), {bot: now_ms() + PRESENCE_MS})
            return
        if self.bot_key:  # the stream is no longer the bot's: why?
            try:
                await BotKeys(self.redis).account(self.bot_key)
            except ServiceError as error:  # revoked, banned, the league closed
                self.ending = error
                self.over.set()
                return
            if owner is None and await self.redis.hsetnx(self.key("streams"), bot,
                                                         self.stream_id):
                return  # no other stream took over (e.g. unbanned at once): still ours
        self.replaced = True
        self.over.set()

    async def _leave(self) -> None:
        with contextlib.suppress(Exception):  # the store may be away: presence lapses
            if await self._still_mine():
                async with self.redis.pipeline(transaction=True) as pipe:
                    pipe.hdel(self.key("streams"), self.account.bot)
                    pipe.zrem(self.key("online"), self.account.bot)
                    await pipe.execute()

    # -- the bot's games -------------------------------------------------------------------
    async def _keep(self) -> None:
        """Renew the presence and start a watcher for each new game, until cancelled."""
        last_renewal = asyncio.get_running_loop().time()
        while True:
            await asyncio.sleep(LOOK_EVERY_S)
            try:
                await self._look_for_games()
                if asyncio.get_running_loop().time() - last_renewal >= RENEW_EVERY_S:
                    last_renewal = asyncio.get_running_loop().time()
                    await self._renew()
            except Exception as error:  # the store away: try again at the next look
                log.info("play: store not reachable", extra={"error": str(error)})

    async def _look_for_games(self) -> dict[str, str]:
        """Follow each game of the bot's seats not followed yet, or again: one whose end
        this stream saw and that a rollback of the store un-ended (its seat then plays on,
        never forfeits). The games recorded since (gone from the seats) are forgotten."""
        found = await self.keeper.store.read_hash(seats_key(self.account.league,
                                                             self.account.bot))
        games = {text(game): text(token) for game, token in found.items()}
        for game_id in [game for game, task in self.watchers.items()
                        if task.done() and game not in games]:
            del self.watchers[game_id]
        for game_id, token in games.items():
            watcher = self.watchers.get(game_id)
            if watcher is None or (watcher.done() and await self._unended(game_id, token)):
                self.tokens[game_id] = token
                self.watchers[game_id] = self._spawn(self._watch(game_id, token),
                                                     f"watch-{game_id}")
        return games

    async def _unended(self, game_id: str, token: str) -> bool:
        """Whether a game whose watcher ended is not over (any more)."""
        try:
            _, _, view = await self.keeper.seat_moment(game_id, token, self.encoding)
        except ServiceError:  # gone (a rollback to before its creation): nothing to follow
            return False
        return view is None or view.status != pb.GAME_STATUS_FINISHED

    async def _watch(self, game_id: str, token: str) -> None:
        """Follow one game as the bot's seat and tell the bot what it needs: with the
        others' decisions (`_watch_all`), or only its turns and the end (`_watch_turns`)."""
        follow = self._watch_all if self.opponent_decisions else self._watch_turns
        try:
            await follow(game_id, token)
        except ServiceError as error:
            log.info("play: game not followed", extra={"game_id": game_id,
                                                       "reason": error.reason})
        except Exception as error:  # the store away mid-look: the next look follows it
            log.info("play: game watcher failed", extra={"game_id": game_id,
                                                         "error": repr(error)})
            self.watchers.pop(game_id, None)

    async def _watch_turns(self, game_id: str, token: str) -> None:
        """Look at the game at each new version (woken by the version feed) and build the
        seat's view only when it must decide or the game is over. A version the feed
        announces with other seats to decide is not looked at: the seat waits on.

        A turn is sent once per (lineage, version, status), until the game is seen to have
        left that version: at another version or lineage at a look, a later version
        announced by the feed, or the seat's answer applied. Should the store then roll
        back onto that very version (the answer lost), the turn is sent again."""
        nothing = ("", -1, 0)
        started, told = False, nothing  # a join starts a game at the same version
        answered = (0, 0)  # self.applied's count and version when `told` was sent
        feed = self.keeper.store.feed
        announced: Announced | None = None
        seat, look = -1, True
        woken: Waiter | None = None
        try:
            while True:
                woken = self._next_waiter(game_id, woken, announced, seat)
                if look:
                    version, lineage, view = await self._moment(game_id, token, announced)
                    applied = self.applied.get(game_id, (0, 0))
                    if told != nothing and (
                            (lineage, version) != told[:2]
                            or (announced is not None and announced.version > told[1])
                            or (applied[0] > answered[0] and applied[1] > told[1])):
                        told = nothing  # the game left the told version: a turn there is new
                    if not started:
                        full = view or (await self.keeper.view(pb.GetViewRequest(
                            game_id=game_id, seat_token=token,
                            observation_encoding=pb.OBSERVATION_ENCODING_NONE))).view
                        await self._send(await self._game_started(game_id, full))
                        started, seat = True, full.seat
                    if view is not None and (lineage, version, view.status) != told:
                        told, answered = (lineage, version, view.status), applied
                        if await self._told(view):
                            return
                    waiting = view is not None and \
                        view.status == pb.GAME_STATUS_WAITING_FOR_SEATS
                announced = await self._wait(game_id, version, woken,
                                             WAITING_LOOK_S if waiting else WAKE_AT_LEAST_S)
                look = announced is None or announced.concerns(seat) or waiting
                if not look:  # another seat's turn: the game left any version told
                    assert announced is not None
                    version, told = announced.version, nothing
        finally:
            if woken is not None and feed is not None:
                feed.discard(game_id, woken)

    def _next_waiter(self, game_id: str, previous: Waiter | None, seen: Announced | None,
                     seat: int) -> Waiter | None:
        """A waiter for the game's next version that concerns `seat` (any version while
        the seat is not known yet; None without a live feed), set to None after
        WAKE_AT_LEAST_S, registered before `previous` is let go; already set if a version
        came after `seen` (the last version announced) while no waiter of this seat was
        listening (a look at `seen` may have read the cached record of `seen` itself)."""
        feed = self.keeper.store.feed
        woken = feed.waiter(game_id, seat if seat >= 0 else None, WAKE_AT_LEAST_S) \
            if feed is not None and feed.live() else None
        if feed is not None and previous is not None:
            later = feed.latest_after(game_id, seen) if seen is not None else None
            if woken is not None and later is not None:
                woken.set_result(later)
            feed.discard(game_id, previous)
        return woken

    async def _moment(self, game_id: str, token: str, announced: Announced | None
                      ) -> tuple[int, str, pb.View | None]:
        while True:
            try:
                return await self.keeper.seat_moment(game_id, token, self.encoding,
                                                     announced)
            except (ServiceError, asyncio.CancelledError):
                raise
            except Exception:  # the store away: look again in a moment
                await asyncio.sleep(WATCH_RETRY_S)

    async def _wait(self, game_id: str, version: int,
                    woken: Waiter | None, at_most: float) -> Announced | None:
        """Until the game may have changed after `version` (or `at_most` seconds have
        passed): the (version, lineage) the feed announced, if it did."""
        if woken is not None and at_most >= WAKE_AT_LEAST_S:
            return await woken  # (the feed sets it to None after WAKE_AT_LEAST_S)
        if woken is not None:
            return woken.result() if await woken_within(woken, at_most) else None
        if at_most < WAKE_AT_LEAST_S:  # waiting for seats: no version to block on
            await asyncio.sleep(at_most)
            return None
        with contextlib.suppress(Exception):  # no feed (a Cluster): a blocking read
            await self.keeper.store.wait_log(game_id, version)
        return None

    async def _watch_all(self, game_id: str, token: str) -> None:
        """Follow one game as the bot's seat on its WatchGame stream: every change."""
        version, lineage, started = 0, "", False
        while True:
            request = pb.WatchGameRequest(game_id=game_id, seat_token=token,
                                          after_version=version, after_lineage=lineage,
                                          observation_encoding=self.encoding)
            try:
                async for change in self.keeper.watch(request):
                    if not started:
                        await self._send(await self._game_started(game_id, change.view))
                        started = True
                    elif self.opponent_decisions and change.HasField("decision"):
                        await self._send(pb.PlayResponse(update=pb.PlayUpdate(
                            game_id=game_id, change=change)))
                    version, lineage = change.version, change.view.lineage
                    if await self._told(change.view):
                        return
                return
            except (ServiceError, asyncio.CancelledError):
                raise
            except Exception:  # the store away: resume from the last version seen
                await asyncio.sleep(WATCH_RETRY_S)

    async def _told(self, view: pb.View) -> bool:
        """Send the turn or the end a view calls for; True once the game is over."""
        if view.status == pb.GAME_STATUS_FINISHED:
            await self._send(pb.PlayResponse(game_ended=pb.PlayGameEnded(
                game_id=view.game_id, seat=view.seat, result=view.result)))
            await self._game_over(view.game_id)
            return True
        if view.seat in view.to_move and view.status == pb.GAME_STATUS_IN_PROGRESS:
            await self._send(pb.PlayResponse(turn=view))
        return False

    async def _game_over(self, game_id: str) -> None:
        """Tell the league's agent at once (its sweep would find the game otherwise)."""
        with contextlib.suppress(Exception):
            await self.redis.sadd(self.key("ended"), game_id)

    async def _table(self, game_id: str) -> dict[str, Any]:
        """What the matchmaker wrote of the game: seating, time control, rated, options."""
        raw = await self.keeper.store.read("HGET", self.key("live"), game_id)
        return LiveTable.from_json(f"{self.key('live')}[{game_id}]", raw).to_json() \
            if raw else {}

    async def _game_started(self, game_id: str, view: pb.View) -> pb.PlayResponse:
        table = await self._table(game_id)
        seating = table.get("rated_as") or table.get("seating") or ()
        entry = seating[view.seat] if view.seat < len(seating) else self.account.bot
        return pb.PlayResponse(game_started=pb.PlayGameStarted(
            standing=await self._standing(entry),
            game_id=game_id, seat=view.seat, game=view.game, variant=view.variant,
            num_seats=len(view.seat_names),
            seat_names=table.get("seating", list(view.seat_names)),
            time_control=pb.TimeControl(decision_ms=table.get("decision_ms", 0),
                                        bank_ms=table.get("bank_ms", 0)),
            rated=table.get("rated", True), options=table.get("options", {}),
            waiting_for_seats=view.status == pb.GAME_STATUS_WAITING_FOR_SEATS))

    async def _standing(self, entry: str) -> pb.LadderStanding | None:
        """`entry`'s place on the league's ladder now (None: not on it, or no league)."""
        if not self.account.league:
            return None
        with contextlib.suppress(Exception):  # the store away: the game starts without it
            key = self.key("history")
            raw = await self.keeper.store.read("LINDEX", key, -1)
            ladder = HistoryEntry.from_json(key, raw).ladder if raw else ()
            for rank, row in enumerate(ladder, 1):
                if row.bot == entry:
                    return pb.LadderStanding(
                        entry=entry, elo=row.elo, low=row.low, high=row.high,
                        games=row.games, provisional=row.provisional, rank=rank,
                        entries=len(ladder))
        return None

    # -- what the bot sends ----------------------------------------------------------------
    async def _read(self, requests: AsyncIterator[Any]) -> None:
        try:
            async for request in requests:
                self.idle.clear()
                try:
                    await self._send(await self._reply(request))
                finally:
                    self.idle.set()
        except Exception as error:  # the call ended under the read (grpc's UsageError
            # 'RPC already finished.'): the end of the requests, not a task's failure
            log.info("play: requests ended", extra={"error": repr(error)})
        finally:
            self.over.set()

    async def _reply(self, request: Any) -> pb.PlayResponse:
        if not isinstance(request, pb.PlayRequest):  # server.MalformedRequest
            return refusal(request, Refused(
                grpc.StatusCode.INVALID_ARGUMENT, "invalid_argument",
                f"malformed request: {getattr(request, 'error', 'unreadable')}"))
        kind = request.WhichOneof("kind")
        try:
            if kind == "decision":
                return await self._decide(request.decision)
            if kind == "resign":
                return await self._resign(request.resign)
            if kind == "hello":
                granted = await self._take_over(request.hello, again=True)
                return pb.PlayResponse(welcome=pb.PlayWelcome(
                    bot=self.account.bot, league=self.account.league, concurrency=granted,
                    game_ids=sorted(self.tokens)))
            return refusal(request, refused(invalid(
                "a PlayRequest needs one of: hello, decision, resign")))
        except ServiceError as error:
            return refusal(request, refused(error))
        except Refused as refused_call:
            return refusal(request, refused_call)

    async def _token(self, game_id: str) -> str:
        token = self.tokens.get(game_id)
        if token is None:
            raw = await self.redis.hget(seats_key(self.account.league, self.account.bot),
                                        game_id)
            if raw is None:
                raise ServiceError(grpc.StatusCode.NOT_FOUND, "not_your_game",
                                   f"bot {self.account.bot!r} has no game {game_id!r} in "
                                   f"progress")
            token = self.tokens[game_id] = text(raw)
        return token

    async def _decide(self, decision: pb.PlayDecision) -> pb.PlayResponse:
        submitted = pb.SubmitDecisionRequest(
            game_id=decision.game_id, seat_token=await self._token(decision.game_id),
            expected_version=decision.expected_version, decision=decision.decision,
            request_id=decision.request_id, expected_lineage=decision.expected_lineage,
            observation_encoding=pb.OBSERVATION_ENCODING_NONE)  # the ack has no view
        done = await self.answer("SubmitDecision", submitted, self._submit_bare)
        if not done.duplicate:
            count, _ = self.applied.get(decision.game_id, (0, 0))
            self.applied[decision.game_id] = (count + 1, done.version)
        return pb.PlayResponse(ack=pb.PlayAck(request_id=decision.request_id,
                                             game_id=decision.game_id, version=done.version,
                                             duplicate=done.duplicate))

    async def _submit_bare(self, request: pb.SubmitDecisionRequest
                           ) -> pb.SubmitDecisionResponse:
        return await self.keeper.submit(request, bare=True)

    async def _resign(self, resign: pb.PlayResign) -> pb.PlayResponse:
        request = pb.ResignSeatRequest(game_id=resign.game_id,
                                       seat_token=await self._token(resign.game_id),
                                       reason=resign.reason)
        done = await self.answer("ResignSeat", request, self.keeper.resign)
        return pb.PlayResponse(ack=pb.PlayAck(game_id=resign.game_id, version=done.version))


def refusal(request: Any, refused_call: Refused) -> pb.PlayResponse:
    kind = request.WhichOneof("kind") if isinstance(request, pb.PlayRequest) else None
    named = getattr(request, kind) if kind in ("decision", "resign") else None
    return pb.PlayResponse(refusal=pb.PlayRefusal(
        request_id=getattr(named, "request_id", ""), game_id=getattr(named, "game_id", ""),
        status=refused_call.call_status()))


async def _first_hello(requests: AsyncIterator[Any]) -> pb.PlayHello:
    try:
        first = await asyncio.wait_for(anext(requests), HELLO_TIMEOUT_S)
    except (TimeoutError, StopAsyncIteration):
        raise ServiceError(grpc.StatusCode.INVALID_ARGUMENT, "no_hello",
                           f"a Play stream starts with a hello, within "
                           f"{HELLO_TIMEOUT_S:.0f} s") from None
    if not isinstance(first, pb.PlayRequest) or first.WhichOneof("kind") != "hello":
        raise ServiceError(grpc.StatusCode.INVALID_ARGUMENT, "no_hello",
                           "a Play stream's first message must be a hello")
    return first.hello


def bot_key_of(metadata: Any) -> str:
    """The bot key in a call's `authorization: Bearer …` metadata ("" if none)."""
    for key, value in metadata or ():
        if key == "authorization":
            text = value if isinstance(value, str) else value.decode(errors="replace")
            scheme, _, token = text.partition(" ")
            return token if scheme == "Bearer" else ""
    return ""


class SeatPlayStream(PlayStream):
    """The Play stream of one seat of one game, on the seat's token (a tournament's bot
    process): no league, no presence; the stream ends after the game's end."""

    def __init__(self, keeper: GameKeeper, answer: Answer, token: str) -> None:
        super().__init__(keeper, answer, BotAccount("", ""))
        self.token = token
        self.game_id = ""
        self.meta: dict[str, Any] = {}

    async def _take_over(self, hello: pb.PlayHello, again: bool = False) -> int:
        """Check the token against the hello's game (UNAUTHENTICATED if it is not one of
        its seats) and take the seat's name as the bot's."""
        self.opponent_decisions = hello.opponent_decisions
        self.encoding = hello.observation_encoding
        if self.game_id and hello.game_id not in ("", self.game_id):
            raise refused(invalid(f"this stream plays game {self.game_id!r} only"))
        if not self.game_id:
            if not hello.game_id:
                raise ServiceError(grpc.StatusCode.UNAUTHENTICATED, "unknown_key",
                                   "not a bot key; a seat token plays the game named in "
                                   "PlayHello.game_id")
            stored = await self.keeper.load(hello.game_id)
            seat = self.keeper.seat_of(stored, self.token, required=True)
            self.game_id, self.meta = hello.game_id, stored.meta
            self.account = BotAccount("", stored.meta["seat_names"][seat])
        return 1

    async def _concurrency(self, asked: int) -> int:
        return 1

    async def _renew(self) -> None:
        return None

    async def _leave(self) -> None:
        return None

    async def _look_for_games(self) -> dict[str, str]:
        if self.game_id not in self.watchers:
            self.tokens[self.game_id] = self.token
            self.watchers[self.game_id] = self._spawn(
                self._watch(self.game_id, self.token), f"watch-{self.game_id}")
        return {self.game_id: self.token}

    async def _watch(self, game_id: str, token: str) -> None:
        """Follow the game; the stream ends with it, once the reply to a request being
        answered (the decision that ended the game) is out."""
        try:
            await super()._watch(game_id, token)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.idle.wait(), LAST_REPLY_S)
        finally:
            self.over.set()

    async def _game_over(self, game_id: str) -> None:
        return None

    async def _table(self, game_id: str) -> dict[str, Any]:
        meta = self.meta  # the game's settings, read when the hello was checked
        return {"decision_ms": meta["decision_ms"], "bank_ms": meta.get("bank_ms", 0),
                "options": dict(meta["options"]), "rated": True}

    async def _token(self, game_id: str) -> str:
        if game_id != self.game_id:
            raise ServiceError(grpc.StatusCode.NOT_FOUND, "not_your_game",
                               f"this stream plays game {self.game_id!r} only")
        return self.token


async def open_play(keeper: GameKeeper, answer: Answer, metadata: Any) -> PlayStream:
    """The stream of the bot whose key the call carries, or of the seat whose token it
    carries (checked against its hello's game); ServiceError if none may play."""
    credential = bot_key_of(metadata)
    if credential.startswith(KEY_PREFIX) or not credential:
        account = await BotKeys(keeper.store.redis).account(credential)
        return PlayStream(keeper, answer, account, credential)
    return SeatPlayStream(keeper, answer, credential)
