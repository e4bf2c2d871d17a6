"""Leagues in Redis: the layout, bot keys, and what the Play stream reads and writes.

A league's keys share one hash tag (`curia:league:{NAME}:…`), so a league's scripts run on
one Redis Cluster node. What each key holds:

- `…:conf`      hash: the league's settings (game, variant, seats, time control, status…)
- `…:bots`      hash: bot name -> JSON account (key hash, status, games limit, client)
- `…:online`    sorted set: connected bot -> ms until its Play stream's presence lapses
- `…:streams`   hash: bot -> the id of its current Play stream (a newer one replaces it)
- `…:capacity`  hash: bot -> games it plays at once (from its last hello)
- `…:seats:BOT` hash: game id -> the bot's seat token, for each game it is in
- `…:live`      hash: game id -> JSON table (seating by bot name, created ms)
- `…:ended`     set: games a Play stream saw end, for the agent to record at once
- `…:results`   list: JSON results, in the order games ended; `…:rated` set: their ids
- `…:history`   list: the ladder after each result (JSON)
- `…:last_table` hash: bot -> the bots of its last game (JSON)
- `…:lease`     string: the matchmaker holding the league (expires unless renewed)

`curia:bot-keys` maps the SHA-256 of each bot key to "league/bot"; the key itself is
shown once, to the operator who adds the bot, and kept nowhere.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import time
from dataclasses import dataclass
from typing import Any

import grpc

from service.errors import ServiceError

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


def league_key(league: str, part: str) -> str:
    return f"curia:league:{{{league}}}:{part}"


def seats_key(league: str, bot: str) -> str:
    return league_key(league, f"seats:{bot}")


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def new_bot_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def now_ms() -> int:
    return int(time.time() * 1000)


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
        league, _, bot = _text(owner).partition("/")
        raw = await self.redis.hget(league_key(league, "bots"), bot)
        if raw is None:
            raise unknown_key()
        status = json.loads(raw).get("status", "active")
        if status == "banned":
            raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, "bot_banned",
                               f"bot {bot!r} is banned from league {league!r}")
        league_status = _text(await self.redis.hget(league_key(league, "conf"), "status")
                              or b"closed")
        if league_status == "closed":
            raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, "league_closed",
                               f"league {league!r} is closed")
        return BotAccount(league, bot)


def unknown_key() -> ServiceError:
    return ServiceError(grpc.StatusCode.UNAUTHENTICATED, "bot_key",
                        "Play needs a valid bot key: call metadata "
                        "'authorization: Bearer curia_bot_…' (from curia league add-bot); "
                        "this one is unknown or revoked")


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
