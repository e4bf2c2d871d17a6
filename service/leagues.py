"""Leagues in Redis as the server uses them: bot keys, workers' heartbeats, and what the
league pages read.

The records and their keys are `service.league_records` (one schema for every stored
league record); this module reads them for the server: `BotKeys` (who sends a bot key,
and whether it may still play), `live_workers` / `alive_workers` (the workers whose
heartbeat is younger than `WORKER_LIVE_MS`: the matchmaker seats a hosted bot only while
a live worker has a free slot), and `LeagueReader`, what the web pages show
(service/web/league_pages.py): the results and history lists only grow (RPUSH; a void
rewrites a result in place), so it keeps, per league, where each bot's games are in the
results and each bot's rating after each result, and reads only what is new at each look.

`curia:bot-keys` maps the SHA-256 of each bot key to "league/bot"; the key itself is
shown once, to the operator who adds the bot, and kept nowhere.
"""

from __future__ import annotations

import asyncio
import secrets
from collections import deque
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import grpc

from service.errors import ServiceError
from service.league_records import (
    BOT_KEYS_KEY,
    LEAGUES_KEY,
    NAME_PATTERN,
    RATED_PATTERN,
    WORKERS_KEY,
    BotAccount,
    BotEntry,
    GameResult,
    HistoryEntry,
    LeagueSettings,
    LiveTable,
    WorkerBeat,
    base_name,
    check_name,
    hash_field,
    league_key,
    rated_name,
    seats_key,
    text,
    version_of,
    worker_key,
)
from service.store import now_ms, token_hash

#: The layout's names, as the modules that read it from here knew them.
__all__ = ["BOT_KEYS_KEY", "KEY_PREFIX", "LEAGUES_KEY", "NAME_PATTERN", "PRESENCE_MS",
           "WORKERS_KEY", "WORKER_LIVE_MS", "BotAccount", "BotKeys", "LeagueReader",
           "WorkerBeat", "alive_workers", "check_name", "key_hash", "league_key",
           "live_workers", "new_bot_key", "no_worker", "seats_key", "text", "worker_key"]

#: What a bot key starts with (so that a leaked one is recognisable in logs and scanners).
KEY_PREFIX = "curia_bot_"
#: How long a Play stream's presence lasts without being renewed.
PRESENCE_MS = 10_000
#: A worker whose last heartbeat is older than this is not live.
WORKER_LIVE_MS = 5_000


def _beats(names: list[Any], hashes: list[dict[Any, Any]]) -> list[WorkerBeat]:
    found = []
    for name, fields in zip(names, hashes, strict=True):
        try:
            found.append(WorkerBeat.from_redis(text(name), fields))
        except ValueError:  # a heartbeat not understood: no capacity from it
            found.append(WorkerBeat(text(name), 0, 0, 0))
    return found


def live_workers(redis: Any, now: int | None = None) -> list[WorkerBeat]:
    """The workers whose heartbeat is younger than `WORKER_LIVE_MS` (a synchronous
    redis-py client; `alive_workers` is the async one's)."""
    names = redis.zrangebyscore(WORKERS_KEY, (now or now_ms()) - WORKER_LIVE_MS, "+inf")
    pipe = redis.pipeline(transaction=False)
    for name in names:
        pipe.hgetall(worker_key(text(name)))
    return _beats(names, pipe.execute() if names else [])


async def alive_workers(redis: Any, now: int | None = None) -> list[WorkerBeat]:
    """`live_workers` on an async redis-py client."""
    names = await redis.zrangebyscore(WORKERS_KEY, (now or now_ms()) - WORKER_LIVE_MS,
                                      "+inf")
    pipe = redis.pipeline(transaction=False)
    for name in names:
        pipe.hgetall(worker_key(text(name)))
    return _beats(names, await pipe.execute() if names else [])


def no_worker(bots: Mapping[str, BotEntry], workers: list[WorkerBeat]) -> list[str]:
    """The hosted bots among `bots` while no worker is live: they get no game until one
    is."""
    if workers:
        return []
    return sorted(bot for bot, entry in bots.items() if entry.hosted)


def key_hash(key: str) -> str:
    """What the store keeps of a bot key: its SHA-256, as of a seat token."""
    return token_hash(key)


def new_bot_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


class BotKeys:
    """Bot keys against the store: who sends a key, and whether it may still play."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis

    async def account(self, key: str) -> BotAccount:
        """The account of `key`; UNAUTHENTICATED for an unknown or revoked key, a banned
        bot, or a closed league (PERMISSION_DENIED for the last two)."""
        if not key.startswith(KEY_PREFIX) or len(key) > 200:
            raise unknown_key()
        hashed = key_hash(key)
        owner = await self.redis.hget(BOT_KEYS_KEY, hashed)
        if owner is None:
            raise unknown_key()
        account = BotAccount.from_redis(hashed, owner)
        league, bot = account.league, account.bot
        bots = league_key(league, "bots")
        raw = await self.redis.hget(bots, bot)
        if raw is None:
            raise unknown_key()
        if BotEntry.from_json(hash_field(bots, bot), raw).status == "banned":
            raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, "bot_banned",
                               f"bot {bot!r} is banned from league {league!r}")
        league_status = text(await self.redis.hget(LeagueSettings.key(league), "status")
                             or b"closed")
        if league_status == "closed":
            raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, "league_closed",
                               f"league {league!r} is closed")
        return account


# ---------------------------------------------------------------------------------------
# Reading a league for the web pages
# ---------------------------------------------------------------------------------------
#: The recent games a page shows.
RECENT_GAMES = 20
#: The points of a bot's rating history kept (its last ones).
HISTORY_POINTS = 1000
#: List entries read at once while catching up with a long list.
READ_CHUNK = 500


def live_table(game_id: str, table: LiveTable) -> dict[str, Any]:
    """A live game as a page shows it."""
    return {"game_id": game_id, "seating": list(table.seating),
            "created_ms": table.created_ms or 0}


def read_result(key: str, position: int, raw: bytes | str) -> GameResult:
    return GameResult.from_json(f"{key}[{position}]", raw)


def read_history(key: str, position: int, raw: bytes | str) -> HistoryEntry:
    return HistoryEntry.from_json(f"{key}[{position}]", raw)


@dataclass
class LeagueIndex:
    """What a reader has read of one league's growing lists (see the module docstring)."""

    results_first: str = ""  # the first result's game id: a league made again starts over
    results_read: int = 0
    history_first: str = ""
    history_read: int = 0
    #: bot -> positions in the results list of its last games
    games: dict[str, deque[int]] = field(default_factory=dict)
    #: bot -> [result number, ms, elo, low, high] after each result it was on the ladder
    series: dict[str, deque[list[float]]] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class LeagueReader:
    """A league's pages' data from Redis (an async redis-py client): each record read
    through `service.league_records`, handed on as plain dicts (its JSON form), for
    service/web/league_pages.py. None for a league or bot that does not exist."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self.indexes: dict[str, LeagueIndex] = {}

    async def names(self) -> list[str]:
        return sorted(text(name) for name in await self.redis.smembers(LEAGUES_KEY))

    async def leagues(self) -> list[dict[str, Any]]:
        """Every league, in a line: its game, status, bots, games played and live."""
        names = await self.names()
        now = now_ms()
        pipe = self.redis.pipeline(transaction=False)
        for name in names:
            pipe.hmget(LeagueSettings.key(name), "game", "variant", "status")
            pipe.hlen(league_key(name, "bots"))
            pipe.zcount(league_key(name, "online"), now, "+inf")
            pipe.llen(league_key(name, "results"))
            pipe.hlen(league_key(name, "live"))
        replies = await pipe.execute()
        found = []
        for number, name in enumerate(names):
            conf, bots, online, played, live = replies[5 * number:5 * number + 5]
            game, variant, status = (text(value or b"") for value in conf)
            if game:
                found.append({"name": name, "game": game, "variant": variant,
                              "status": status, "bots": int(bots), "online": int(online),
                              "played": int(played), "live": int(live)})
        return found

    async def league(self, name: str) -> dict[str, Any] | None:
        """The league page's data: settings, ladder (the history's last entry), bots,
        who is online, live games (oldest first), the last results (newest first)."""
        if not NAME_PATTERN.fullmatch(name):
            return None
        now = now_ms()
        results, history, live_key, bots_key = (league_key(name, part) for part in
                                                ("results", "history", "live", "bots"))
        pipe = self.redis.pipeline(transaction=False)
        pipe.hgetall(LeagueSettings.key(name))
        pipe.lindex(history, -1)
        pipe.llen(history)
        pipe.zrangebyscore(league_key(name, "online"), now, "+inf")
        pipe.hgetall(live_key)
        pipe.lrange(results, -RECENT_GAMES, -1)
        pipe.llen(results)
        pipe.hgetall(bots_key)
        conf, last, entries, online, live, recent, played, bots = await pipe.execute()
        if not conf:
            return None
        LeagueSettings.from_redis(conf, LeagueSettings.key(name))  # checked
        standing = read_history(history, entries - 1, last).to_json() if last else None
        tables = [live_table(text(game), LiveTable.from_json(hash_field(live_key, text(game)),
                                                             raw))
                  for game, raw in live.items()]
        first = int(played) - len(recent)
        recent_rows = [read_result(results, first + n, raw).to_json()
                       for n, raw in enumerate(recent)]
        accounts = {text(bot): BotEntry.from_json(hash_field(bots_key, text(bot)), raw)
                    for bot, raw in sorted(bots.items())}
        workers = await alive_workers(self.redis, now)
        return {
            "name": name, "now_ms": now,
            "settings": {text(key): text(value) for key, value in conf.items()},
            "ladder": standing,
            "online": sorted(text(bot) for bot in online),
            "live": sorted(tables, key=lambda table: (table["created_ms"], table["game_id"])),
            "recent": recent_rows[::-1],
            "played": int(played),
            "bots": {bot: entry.public() for bot, entry in accounts.items()},
            "workers": len(workers),
            "no_worker": no_worker(accounts, workers)}

    async def bot(self, name: str, bot: str) -> dict[str, Any] | None:
        """A bot's page's data: the league's (as `league`) and the bot's account, client,
        rating now and over time, its last games (newest first) and live ones."""
        if not RATED_PATTERN.fullmatch(bot):
            return None
        data = await self.league(name)
        base = base_name(bot)
        if data is None or base not in data["bots"]:
            return None
        account = data["bots"][base]
        current = rated_name(base, account.get("version", 1))
        if version_of(bot) > account.get("version", 1):
            return None
        index = await self.index(name)
        positions = list(index.games.get(bot, ()))[-RECENT_GAMES:]
        results = league_key(name, "results")
        pipe = self.redis.pipeline(transaction=False)
        for position in positions:
            pipe.lindex(results, position)
        pipe.hget(league_key(name, "clients"), base)
        *rows, client = await pipe.execute()
        games = [read_result(results, position, raw).to_json()
                 for position, raw in zip(positions, rows, strict=True) if raw is not None]
        ladder = (data["ladder"] or {}).get("ladder", [])
        ranks = [rank for rank, row in enumerate(ladder, 1) if row.get("bot") == bot]
        data["bot"] = {
            "name": bot, "account": account, "base": base, "current": current,
            "versions": [rated_name(base, n) for n in range(1, account.get("version", 1) + 1)],
            "client": text(client) if client is not None else "",
            "online": base in data["online"],
            "rank": ranks[0] if ranks else None,
            "rating": ladder[ranks[0] - 1] if ranks else None,
            "series": [list(point) for point in index.series.get(bot, ())],
            "recent": [row for row in games[::-1] if bot in row.get("seating", ())],
            "live": [table for table in data["live"] if bot == current
                     and base in table["seating"]]}
        return data

    async def results(self, name: str) -> list[dict[str, Any]] | None:
        """Every result of the league, in the order games ended."""
        if not NAME_PATTERN.fullmatch(name) or not await self.redis.exists(
                LeagueSettings.key(name)):
            return None
        key = league_key(name, "results")
        found: list[dict[str, Any]] = []
        while rows := await self.redis.lrange(key, len(found), len(found) + READ_CHUNK - 1):
            found.extend(read_result(key, len(found) + n, raw).to_json()
                         for n, raw in enumerate(rows))
        return found

    async def index(self, name: str) -> LeagueIndex:
        """The league's index, brought up to date (read only what is new since the last
        look; all again if a list got shorter or starts with another game)."""
        index = self.indexes.setdefault(name, LeagueIndex())
        async with index.lock:
            results, history = league_key(name, "results"), league_key(name, "history")
            pipe = self.redis.pipeline(transaction=False)
            pipe.llen(results)
            pipe.lindex(results, 0)
            pipe.llen(history)
            pipe.lindex(history, 0)
            results_len, results_first, history_len, history_first = await pipe.execute()
            results_first = read_result(results, 0, results_first).game_id \
                if results_first else ""
            history_first = read_history(history, 0, history_first).game_id \
                if history_first else ""
            if results_len < index.results_read or results_first != index.results_first:
                index.games.clear()
                index.results_read, index.results_first = 0, results_first
            if history_len < index.history_read or history_first != index.history_first:
                index.series.clear()
                index.history_read, index.history_first = 0, history_first
            async for position, raw in self._rows(results, index.results_read, results_len):
                for bot in set(read_result(results, position, raw).seating):
                    index.games.setdefault(bot, deque(maxlen=RECENT_GAMES)).append(position)
                index.results_read = position + 1
            async for position, raw in self._rows(history, index.history_read, history_len):
                entry = read_history(history, position, raw)
                for row in entry.ladder:
                    point = [position + 1, entry.ms, row.elo, row.low, row.high]
                    index.series.setdefault(row.bot, deque(maxlen=HISTORY_POINTS)
                                            ).append(point)
                index.history_read = position + 1
        return index

    async def _rows(self, key: str, start: int, end: int
                    ) -> AsyncIterator[tuple[int, bytes]]:
        """(position, stored entry) of a list from `start` to `end` (excluded), in chunks."""
        for first in range(start, end, READ_CHUNK):
            rows = await self.redis.lrange(key, first, min(first + READ_CHUNK, end) - 1)
            for offset, raw in enumerate(rows):
                yield first + offset, raw


def unknown_key() -> ServiceError:
    return ServiceError(grpc.StatusCode.UNAUTHENTICATED, "bot_key",
                        "Play needs a valid bot key: call metadata "
                        "'authorization: Bearer curia_bot_…' (from curia league add-bot); "
                        "this one is unknown or revoked")
