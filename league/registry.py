"""Leagues and their bots, as the operator manages them (`curia league …`).

A league is a game, variant and seat count with a time control; bots join it with a key
the operator hands out once (`add_bot`), kept only as its SHA-256. Every write here is one
Redis transaction; the layout is `service.leagues`.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

import games
from hosting.manifest import BotManifest, ConfigError
from league.ladder import ladder
from service.leagues import (
    BOT_KEYS_KEY,
    LEAGUES_KEY,
    check_name,
    key_hash,
    league_key,
    live_workers,
    new_bot_key,
    no_worker,
    seats_key,
    text,
)
from service.store import now_ms

STATUSES = ("open", "paused", "closed")


class LeagueError(ValueError):
    """An operator request that cannot be done (the message says why); nothing changed."""


@dataclass
class LeagueSettings:
    """What a league plays and how."""

    name: str
    game: str
    variant: str = ""
    seats: int = 2
    options: dict[str, int] = field(default_factory=dict)
    decision_ms: int = 10_000
    bank_ms: int = 0
    concurrency: int = 1
    """Games a bot plays at once unless its hello asks for fewer or more."""
    max_concurrency: int = 4
    """The most games a bot may play at once, whatever it asks."""
    provisional_games: int = 10
    """Games before a bot's rating is no longer provisional."""
    rated: bool = True
    max_games: int = 0
    """Games the league plays in all, then it starts no more (0: no end)."""
    status: str = "open"

    def check(self) -> LeagueSettings:
        """The settings, the variant filled in; LeagueError naming what is wrong."""
        try:
            check_name("league", self.name)
        except ValueError as error:
            raise LeagueError(str(error)) from None
        if self.game not in games.GAMES:
            raise LeagueError(f"unknown game {self.game!r}; games: "
                              f"{', '.join(sorted(games.GAMES))}")
        described = games.GAMES[self.game]
        names = [variant.name for variant in described.variants]
        self.variant = self.variant or names[0]
        if self.variant not in names:
            raise LeagueError(f"{self.game} has no variant {self.variant!r}; variants: "
                              f"{', '.join(names)}")
        try:
            games.new_game(self.game, self.variant, self.seats, seed=0, options=self.options)
        except (games.SetupError, ValueError) as error:
            raise LeagueError(f"league {self.name}: {error}") from None
        if not 1 <= self.concurrency <= self.max_concurrency:
            raise LeagueError("concurrency must be between 1 and max_concurrency")
        if min(self.decision_ms, self.bank_ms, self.provisional_games, self.max_games) < 0:
            raise LeagueError("decision_ms, bank_ms, provisional_games and max_games must "
                              "not be negative")
        if self.status not in STATUSES:
            raise LeagueError(f"status is one of {', '.join(STATUSES)}")
        return self

    def to_redis(self) -> dict[str, str]:
        fields = asdict(self)
        fields["options"] = json.dumps(self.options, sort_keys=True)
        fields["rated"] = "1" if self.rated else "0"
        return {key: str(value) for key, value in fields.items()}

    @classmethod
    def from_redis(cls, fields: dict[Any, Any]) -> LeagueSettings:
        raw = {text(key): text(value) for key, value in fields.items()}
        return cls(name=raw["name"], game=raw["game"], variant=raw["variant"],
                   seats=int(raw["seats"]), options=json.loads(raw["options"]),
                   decision_ms=int(raw["decision_ms"]), bank_ms=int(raw["bank_ms"]),
                   concurrency=int(raw["concurrency"]),
                   max_concurrency=int(raw["max_concurrency"]),
                   provisional_games=int(raw["provisional_games"]),
                   rated=raw["rated"] == "1", max_games=int(raw.get("max_games", 0)),
                   status=raw["status"])


def history_entry(settings: LeagueSettings, results: list[dict[str, Any]], game_id: str,
                  voided: bool = False) -> dict[str, Any]:
    """The rating history's entry after `results` (the last one `game_id`'s, or after
    `game_id` was voided): the whole ladder, best first."""
    rows = ladder(results, settings.provisional_games)
    return {"game_id": game_id, "ms": now_ms(), **({"voided": True} if voided else {}),
            "ladder": [{"bot": row.bot, "elo": round(row.elo, 1),
                        "low": round(row.low, 1), "high": round(row.high, 1),
                        "games": row.games, "provisional": row.provisional}
                       for row in rows]}


class Leagues:
    """The operator's door to the leagues in one Redis (a synchronous redis-py client)."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis

    def names(self) -> list[str]:
        return sorted(text(name) for name in self.redis.smembers(LEAGUES_KEY))

    def settings(self, league: str) -> LeagueSettings:
        fields = self.redis.hgetall(league_key(league, "conf"))
        if not fields:
            raise LeagueError(f"no league {league!r}; leagues: "
                              f"{', '.join(self.names()) or 'none yet'}")
        return LeagueSettings.from_redis(fields)

    def create(self, settings: LeagueSettings) -> LeagueSettings:
        settings.check()
        if self.redis.exists(league_key(settings.name, "conf")):
            raise LeagueError(f"league {settings.name!r} exists already")
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(league_key(settings.name, "conf"), mapping=settings.to_redis())
        pipe.sadd(LEAGUES_KEY, settings.name)
        pipe.execute()
        return settings

    def set_status(self, league: str, status: str) -> None:
        """Open, pause (no new games; games in progress end) or close (no bot may
        connect) a league."""
        self.settings(league)
        if status not in STATUSES:
            raise LeagueError(f"status is one of {', '.join(STATUSES)}")
        self.redis.hset(league_key(league, "conf"), "status", status)

    def set_limits(self, league: str, **limits: int) -> LeagueSettings:
        """Change the time control or concurrency of the games to come."""
        settings = self.settings(league)
        for name, value in limits.items():
            setattr(settings, name, value)
        settings.check()
        self.redis.hset(league_key(league, "conf"), mapping=settings.to_redis())
        return settings

    def bots(self, league: str) -> dict[str, dict[str, Any]]:
        self.settings(league)
        found = self.redis.hgetall(league_key(league, "bots"))
        return {text(name): json.loads(raw) for name, raw in sorted(found.items())}

    def add_bot(self, league: str, bot: str, owner: str = "", manifest: str = "") -> str:
        """Register `bot` in `league`; return its key (shown this once, stored hashed).
        With `manifest` (a bot.toml every worker machine has at that path), the bot is
        hosted: `curia league worker` processes play its seats."""
        self.settings(league)
        try:
            check_name("bot", bot)
            if manifest:
                manifest = str(BotManifest.load(manifest).path.resolve())
        except (ValueError, ConfigError) as error:
            raise LeagueError(str(error)) from None
        key = new_bot_key()
        account = {"status": "active", "key": key_hash(key), "added_ms": now_ms(),
                   "owner": owner[:80], "manifest": manifest}
        if not self.redis.hsetnx(league_key(league, "bots"), bot, json.dumps(account)):
            raise LeagueError(f"league {league!r} has a bot {bot!r} already")
        self.redis.hset(BOT_KEYS_KEY, account["key"], f"{league}/{bot}")
        return key

    def new_key(self, league: str, bot: str) -> str:
        """Revoke the bot's key and return a new one (its games and rating stay)."""
        account = self._account(league, bot)
        key = new_bot_key()
        pipe = self.redis.pipeline(transaction=True)
        pipe.hdel(BOT_KEYS_KEY, account["key"])
        account["key"] = key_hash(key)
        pipe.hset(league_key(league, "bots"), bot, json.dumps(account))
        pipe.hset(BOT_KEYS_KEY, account["key"], f"{league}/{bot}")
        pipe.hdel(league_key(league, "streams"), bot)  # its stream ends at the next look
        pipe.execute()
        return key

    def revoke(self, league: str, bot: str) -> None:
        """The bot's key stops working (a new one: `new_key`)."""
        account = self._account(league, bot)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hdel(BOT_KEYS_KEY, account["key"])
        account["key"] = ""
        pipe.hset(league_key(league, "bots"), bot, json.dumps(account))
        pipe.hdel(league_key(league, "streams"), bot)
        pipe.execute()

    def ban(self, league: str, bot: str, banned: bool = True) -> None:
        """A banned bot gets no new games and may not connect (its results stay)."""
        account = self._account(league, bot)
        account["status"] = "banned" if banned else "active"
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(league_key(league, "bots"), bot, json.dumps(account))
        if banned:
            pipe.hdel(league_key(league, "streams"), bot)
        pipe.execute()

    def void(self, league: str, game_id: str, reason: str) -> None:
        """Take a finished game out of the ratings (it stays in the results, marked), and
        append the ladder that follows to the rating history, in one transaction (tried
        again if the matchmaker appends a result meanwhile)."""
        settings = self.settings(league)
        key = league_key(league, "results")

        def mark(pipe: Any) -> None:
            rows = [json.loads(raw) for raw in pipe.lrange(key, 0, -1)]
            found = [i for i, row in enumerate(rows) if row["game_id"] == game_id]
            if not found:
                raise LeagueError(f"league {league!r} has no result for game {game_id!r}")
            rows[found[0]]["void"] = reason or "voided by the operator"
            entry = history_entry(settings, rows, game_id, voided=True)
            pipe.multi()
            pipe.lset(key, found[0], json.dumps(rows[found[0]]))
            pipe.rpush(league_key(league, "history"), json.dumps(entry))

        self.redis.transaction(mark, key)

    def snapshot(self, settings: LeagueSettings, game_id: str, voided: bool = False) -> None:
        """Append the ladder as it stands to the league's rating history: after the result
        of `game_id`, or after it was voided."""
        entry = history_entry(settings, self.results(settings.name), game_id, voided)
        self.redis.rpush(league_key(settings.name, "history"), json.dumps(entry))

    def no_worker(self, league: str) -> list[str]:
        """The league's hosted bots while no worker is live to play them (they get no
        game meanwhile)."""
        return no_worker(self.bots(league), live_workers(self.redis))

    def results(self, league: str) -> list[dict[str, Any]]:
        self.settings(league)
        return [json.loads(raw) for raw in self.redis.lrange(league_key(league, "results"),
                                                             0, -1)]

    def live(self, league: str) -> dict[str, dict[str, Any]]:
        found = self.redis.hgetall(league_key(league, "live"))
        return {text(game): json.loads(raw) for game, raw in found.items()}

    def online(self, league: str) -> list[str]:
        alive = self.redis.zrangebyscore(league_key(league, "online"), now_ms(), "+inf")
        return sorted(text(bot) for bot in alive)

    def games_of(self, league: str, bot: str) -> list[str]:
        return sorted(text(game) for game in self.redis.hkeys(seats_key(league, bot)))

    def _account(self, league: str, bot: str) -> dict[str, Any]:
        raw = self.redis.hget(league_key(league, "bots"), bot)
        if raw is None:
            self.settings(league)
            raise LeagueError(f"league {league!r} has no bot {bot!r}")
        account: dict[str, Any] = json.loads(raw)
        return account
