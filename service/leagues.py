"""Leagues in Redis: the layout, bot keys, and what the Play stream reads and writes.

A league's keys share one hash tag (`curia:league:{NAME}:…`), so a league's scripts run on
one Redis Cluster node. What each key holds:

- `…:conf`      hash: the league's settings (game, variant, seats, time control, status…)
- `…:bots`      hash: bot name -> JSON account (key hash, status, games limit, client)
- `…:online`    sorted set: connected bot -> ms until its Play stream's presence lapses
- `…:streams`   hash: bot -> the id of its current Play stream (a newer one replaces it)
- `…:capacity`  hash: bot -> games it plays at once (from its last hello)
- `…:clients`   hash: bot -> the `client` string of its last hello (free text, 80 chars)
- `…:seats:BOT` hash: game id -> the bot's seat token, for each game it is in
- `…:live`      hash: game id -> JSON table (seating by bot name, created ms)
- `…:ended`     set: games a Play stream saw end, for the agent to record at once
- `…:results`   list: JSON results, in the order games ended; `…:rated` set: their ids
- `…:history`   list: the ladder after each result (JSON `{"game_id", "ms", "ladder":
                [{"bot", "elo", "low", "high", "games", "provisional"}]}`, best first)
- `…:last_table` hash: bot -> the bots of its last game (JSON)
- `…:lease`     string: the matchmaker holding the league (expires unless renewed)
- `…:jobs`      stream: hosted bots' seats for the workers (hosting/worker.py)

`curia:workers` (sorted set: worker name -> its last heartbeat, unix ms) and
`curia:worker:NAME` (hash: `slots`, `free`, `ms`) are the workers' heartbeats, written by
`curia league worker`: a worker is live while its heartbeat is younger than
`WORKER_LIVE_MS`, and the matchmaker seats a hosted bot only while a live worker has a
free slot (`live_workers`).

`curia:bot-keys` maps the SHA-256 of each bot key to "league/bot"; the key itself is
shown once, to the operator who adds the bot, and kept nowhere.

`LeagueReader` reads what the web pages show (service/web/league_pages.py): the results
and history lists only grow (RPUSH; a void rewrites a result in place), so it keeps, per
league, where each bot's games are in the results and each bot's rating after each
result, and reads only what is new at each look.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import grpc

from service.errors import ServiceError
from service.store import now_ms, token_hash

#: Every league's name.
LEAGUES_KEY = "curia:leagues"
#: SHA-256 of a bot key -> "league/bot".
BOT_KEYS_KEY = "curia:bot-keys"
#: What a bot key starts with (so that a leaked one is recognisable in logs and scanners).
KEY_PREFIX = "curia_bot_"
#: League and bot names: letters, digits, `-`, `_`, `.`; at most 40 characters.
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
#: How long a Play stream's presence lasts without being renewed.
PRESENCE_MS = 10_000
#: The workers' heartbeats: worker name -> its last heartbeat (unix ms).
WORKERS_KEY = "curia:workers"
#: A worker whose last heartbeat is older than this is not live.
WORKER_LIVE_MS = 5_000


def league_key(league: str, part: str) -> str:
    return f"curia:league:{{{league}}}:{part}"


def seats_key(league: str, bot: str) -> str:
    return league_key(league, f"seats:{bot}")


def worker_key(worker: str) -> str:
    """A worker's heartbeat hash: `slots`, `free`, `ms`."""
    return f"curia:worker:{worker}"


@dataclass(frozen=True)
class WorkerBeat:
    """A live worker as its last heartbeat advertised it."""

    name: str
    slots: int
    free: int
    ms: int


def _beats(names: list[Any], hashes: list[dict[Any, Any]]) -> list[WorkerBeat]:
    found = []
    for name, fields in zip(names, hashes, strict=True):
        raw = {text(key): text(value) for key, value in fields.items()}
        try:
            slots, free = int(raw.get("slots", 0)), int(raw.get("free", 0))
            ms = int(raw.get("ms", 0))
        except ValueError:  # a heartbeat not understood: no capacity from it
            slots = free = ms = 0
        found.append(WorkerBeat(text(name), slots, max(0, min(free, slots)), ms))
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


def no_worker(bots: dict[str, dict[str, Any]], workers: list[WorkerBeat]) -> list[str]:
    """The hosted bots among `bots` (name -> account) while no worker is live: they get
    no game until one is."""
    if workers:
        return []
    return sorted(bot for bot, account in bots.items()
                  if account.get("manifest") or account.get("hosted"))


def key_hash(key: str) -> str:
    """What the store keeps of a bot key: its SHA-256, as of a seat token."""
    return token_hash(key)


def new_bot_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def check_name(kind: str, name: str) -> str:
    """`name` if it is a valid league or bot name, else ValueError saying why."""
    if not NAME_PATTERN.fullmatch(name):
        raise ValueError(f"{kind} name {name!r}: use 1-40 letters, digits, '-', '_' or '.', "
                         f"starting with a letter or digit")
    return name


@dataclass(frozen=True)
class BotAccount:
    """Who a bot key belongs to."""

    league: str
    bot: str


class BotKeys:
    """Bot keys against the store: who sends a key, and whether it may still play."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis

    async def account(self, key: str) -> BotAccount:
        """The account of `key`; UNAUTHENTICATED for an unknown or revoked key, a banned
        bot, or a closed league (PERMISSION_DENIED for the last two)."""
        if not key.startswith(KEY_PREFIX) or len(key) > 200:
            raise unknown_key()
        owner = await self.redis.hget(BOT_KEYS_KEY, key_hash(key))
        if owner is None:
            raise unknown_key()
        league, _, bot = text(owner).partition("/")
        raw = await self.redis.hget(league_key(league, "bots"), bot)
        if raw is None:
            raise unknown_key()
        status = json.loads(raw).get("status", "active")
        if status == "banned":
            raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, "bot_banned",
                               f"bot {bot!r} is banned from league {league!r}")
        league_status = text(await self.redis.hget(league_key(league, "conf"), "status")
                              or b"closed")
        if league_status == "closed":
            raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, "league_closed",
                               f"league {league!r} is closed")
        return BotAccount(league, bot)


# ---------------------------------------------------------------------------------------
# Reading a league for the web pages
# ---------------------------------------------------------------------------------------
#: The recent games a page shows.
RECENT_GAMES = 20
#: The points of a bot's rating history kept (its last ones).
HISTORY_POINTS = 1000
#: List entries read at once while catching up with a long list.
READ_CHUNK = 500
#: The fields of a bot's account a page may show (never its key's hash, nor where a
#: hosted bot's manifest is on the workers).
PUBLIC_ACCOUNT_FIELDS = ("status", "owner", "added_ms")


def public_account(account: dict[str, Any]) -> dict[str, Any]:
    """What a page may show of a bot's account (an allow-list: a field added to accounts
    later stays private until named here)."""
    shown = {name: account[name] for name in PUBLIC_ACCOUNT_FIELDS if name in account}
    shown["hosted"] = bool(account.get("manifest"))
    return shown


def live_table(game_id: str, table: dict[str, Any]) -> dict[str, Any]:
    """A live game as a page shows it."""
    return {"game_id": game_id, "seating": list(table.get("seating", [])),
            "created_ms": table.get("created_ms", 0)}


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
    """A league's pages' data from Redis (an async redis-py client): plain dicts, for
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
            pipe.hmget(league_key(name, "conf"), "game", "variant", "status")
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
        pipe = self.redis.pipeline(transaction=False)
        pipe.hgetall(league_key(name, "conf"))
        pipe.lindex(league_key(name, "history"), -1)
        pipe.zrangebyscore(league_key(name, "online"), now, "+inf")
        pipe.hgetall(league_key(name, "live"))
        pipe.lrange(league_key(name, "results"), -RECENT_GAMES, -1)
        pipe.llen(league_key(name, "results"))
        pipe.hgetall(league_key(name, "bots"))
        conf, last, online, live, recent, played, bots = await pipe.execute()
        if not conf:
            return None
        standing = json.loads(last) if last else None
        tables = [live_table(text(game), json.loads(raw)) for game, raw in live.items()]
        accounts = {text(bot): json.loads(raw) for bot, raw in sorted(bots.items())}
        workers = await alive_workers(self.redis, now)
        return {
            "name": name, "now_ms": now,
            "settings": {text(key): text(value) for key, value in conf.items()},
            "ladder": standing,
            "online": sorted(text(bot) for bot in online),
            "live": sorted(tables, key=lambda table: (table["created_ms"], table["game_id"])),
            "recent": [json.loads(raw) for raw in reversed(recent)],
            "played": int(played),
            "bots": {bot: public_account(account) for bot, account in accounts.items()},
            "workers": len(workers),
            "no_worker": no_worker(accounts, workers)}

    async def bot(self, name: str, bot: str) -> dict[str, Any] | None:
        """A bot's page's data: the league's (as `league`) and the bot's account, client,
        rating now and over time, its last games (newest first) and live ones."""
        if not NAME_PATTERN.fullmatch(bot):
            return None
        data = await self.league(name)
        if data is None or bot not in data["bots"]:
            return None
        index = await self.index(name)
        positions = list(index.games.get(bot, ()))[-RECENT_GAMES:]
        pipe = self.redis.pipeline(transaction=False)
        for position in positions:
            pipe.lindex(league_key(name, "results"), position)
        pipe.hget(league_key(name, "clients"), bot)
        *rows, client = await pipe.execute()
        rows = [json.loads(raw) for raw in reversed(rows) if raw is not None]
        ladder = (data["ladder"] or {}).get("ladder", [])
        ranks = [rank for rank, row in enumerate(ladder, 1) if row.get("bot") == bot]
        data["bot"] = {
            "name": bot, "account": data["bots"][bot],
            "client": text(client) if client is not None else "",
            "online": bot in data["online"],
            "rank": ranks[0] if ranks else None,
            "rating": ladder[ranks[0] - 1] if ranks else None,
            "series": [list(point) for point in index.series.get(bot, ())],
            "recent": [row for row in rows if bot in row.get("seating", ())],
            "live": [table for table in data["live"] if bot in table["seating"]]}
        return data

    async def results(self, name: str) -> list[dict[str, Any]] | None:
        """Every result of the league, in the order games ended."""
        if not NAME_PATTERN.fullmatch(name) or not await self.redis.exists(
                league_key(name, "conf")):
            return None
        key = league_key(name, "results")
        found: list[dict[str, Any]] = []
        while rows := await self.redis.lrange(key, len(found), len(found) + READ_CHUNK - 1):
            found.extend(json.loads(raw) for raw in rows)
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
            results_first, history_first = _game_of(results_first), _game_of(history_first)
            if results_len < index.results_read or results_first != index.results_first:
                index.games.clear()
                index.results_read, index.results_first = 0, results_first
            if history_len < index.history_read or history_first != index.history_first:
                index.series.clear()
                index.history_read, index.history_first = 0, history_first
            async for position, row in self._rows(results, index.results_read, results_len):
                for bot in set(row.get("seating", ())):
                    index.games.setdefault(bot, deque(maxlen=RECENT_GAMES)).append(position)
                index.results_read = position + 1
            async for position, entry in self._rows(history, index.history_read, history_len):
                for row in entry.get("ladder", ()):
                    point = [position + 1, entry.get("ms", 0), row["elo"], row["low"],
                             row["high"]]
                    index.series.setdefault(row["bot"], deque(maxlen=HISTORY_POINTS)
                                            ).append(point)
                index.history_read = position + 1
        return index

    async def _rows(self, key: str, start: int, end: int
                    ) -> AsyncIterator[tuple[int, dict[str, Any]]]:
        """(position, parsed entry) of a list from `start` to `end` (excluded), in chunks."""
        for first in range(start, end, READ_CHUNK):
            rows = await self.redis.lrange(key, first, min(first + READ_CHUNK, end) - 1)
            for offset, raw in enumerate(rows):
                yield first + offset, json.loads(raw)


def _game_of(raw: bytes | str | None) -> str:
    """The game id of a result or history entry (empty for none)."""
    return str(json.loads(raw).get("game_id", "")) if raw else ""


def unknown_key() -> ServiceError:
    return ServiceError(grpc.StatusCode.UNAUTHENTICATED, "bot_key",
                        "Play needs a valid bot key: call metadata "
                        "'authorization: Bearer curia_bot_…' (from curia league add-bot); "
                        "this one is unknown or revoked")


def text(value: bytes | str) -> str:
    """A Redis reply as text (the league clients do not decode replies)."""
    return value.decode() if isinstance(value, bytes) else value
