"""Leagues and their bots, as the operator manages them (`curia league …`).

A league is a game, variant and seat count with a time control; bots join it with a key
the operator hands out once (`add_bot`), kept only as its SHA-256. Every write here is one
Redis transaction; the records and their keys are `service.league_records`.
"""

from __future__ import annotations

import json
from typing import Any

from hosting.manifest import BotManifest, ConfigError
from league.ladder import ladder_from_stats, outcomes, statistics
from ratings.pooled import PairwiseStats
from service.league_records import (
    BOT_KEYS_KEY,
    LEAGUES_KEY,
    STATUSES,
    BotAccount,
    BotEntry,
    GameResult,
    HistoryEntry,
    LeagueError,
    LeagueSettings,
    LiveTable,
    check_name,
    hash_field,
    league_key,
    read_pair_stats,
    seats_key,
    text,
)
from service.leagues import key_hash, live_workers, new_bot_key, no_worker
from service.store import now_ms

__all__ = ["STATUSES", "LeagueError", "Leagues", "LeagueSettings", "history_entry",
           "pair_stats"]


def history_entry(settings: LeagueSettings, stats: PairwiseStats, game_id: str,
                  voided: bool = False) -> HistoryEntry:
    """The rating history's entry after the results pooled in `stats` (the last one
    `game_id`'s, or after `game_id` was voided): the whole ladder, best first."""
    rows = ladder_from_stats(stats, settings.provisional_games)
    return HistoryEntry(game_id, now_ms(), tuple(row.rounded() for row in rows), voided)


def pair_stats(redis: Any, league: str) -> PairwiseStats:
    """The league's pooled statistics; for a league stored before they were kept, built
    once from its results (written with the next result or void)."""
    key = league_key(league, "pairstats")
    raw = redis.get(key)
    if raw is not None:
        return read_pair_stats(key, raw)
    results = league_key(league, "results")
    return statistics(read_results(results, redis.lrange(results, 0, -1)))


class Leagues:
    """The operator's door to the leagues in one Redis (a synchronous redis-py client)."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis

    def names(self) -> list[str]:
        return sorted(text(name) for name in self.redis.smembers(LEAGUES_KEY))

    def settings(self, league: str) -> LeagueSettings:
        key = LeagueSettings.key(league)
        fields = self.redis.hgetall(key)
        if not fields:
            raise LeagueError(f"no league {league!r}; leagues: "
                              f"{', '.join(self.names()) or 'none yet'}")
        return LeagueSettings.from_redis(fields, key)

    def create(self, settings: LeagueSettings) -> LeagueSettings:
        settings.check()
        key = LeagueSettings.key(settings.name)
        if self.redis.exists(key):
            raise LeagueError(f"league {settings.name!r} exists already")
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(key, mapping=settings.to_redis())
        pipe.sadd(LEAGUES_KEY, settings.name)
        pipe.execute()
        return settings

    def set_status(self, league: str, status: str) -> None:
        """Open, pause (no new games; games in progress end) or close (no bot may
        connect) a league."""
        self.settings(league)
        if status not in STATUSES:
            raise LeagueError(f"status is one of {', '.join(STATUSES)}")
        self.redis.hset(LeagueSettings.key(league), "status", status)

    def set_limits(self, league: str, **limits: int) -> LeagueSettings:
        """Change the time control or concurrency of the games to come."""
        settings = self.settings(league)
        for name, value in limits.items():
            setattr(settings, name, value)
        settings.check()
        self.redis.hset(LeagueSettings.key(league), mapping=settings.to_redis())
        return settings

    def entries(self, league: str) -> dict[str, BotEntry]:
        """The league's bots, by name."""
        self.settings(league)
        key = league_key(league, "bots")
        found = self.redis.hgetall(key)
        return {text(name): BotEntry.from_json(hash_field(key, text(name)), raw)
                for name, raw in sorted(found.items())}

    def bots(self, league: str) -> dict[str, dict[str, Any]]:
        """The league's bots, each entry as its JSON."""
        return {name: entry.to_json() for name, entry in self.entries(league).items()}

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
        entry = BotEntry("active", key_hash(key), now_ms(), owner[:80], manifest)
        if not self.redis.hsetnx(league_key(league, "bots"), bot, entry.dumps()):
            raise LeagueError(f"league {league!r} has a bot {bot!r} already")
        self.redis.hset(BOT_KEYS_KEY, entry.key, BotAccount(league, bot).to_redis())
        return key

    def new_key(self, league: str, bot: str) -> str:
        """Revoke the bot's key and return a new one (its games and rating stay)."""
        entry = self.entry(league, bot)
        key = new_bot_key()
        pipe = self.redis.pipeline(transaction=True)
        pipe.hdel(BOT_KEYS_KEY, entry.key)
        entry.key = key_hash(key)
        pipe.hset(league_key(league, "bots"), bot, entry.dumps())
        pipe.hset(BOT_KEYS_KEY, entry.key, BotAccount(league, bot).to_redis())
        pipe.hdel(league_key(league, "streams"), bot)  # its stream ends at the next look
        pipe.execute()
        return key

    def new_version(self, league: str, bot: str) -> str:
        """Start the bot's next version: its next games count for a new ladder entry
        (`NAME@N`), with its own rating and history; the entries of its earlier versions
        keep theirs and get no new game. Its key, account and games in play stay. The new
        entry's name."""
        key = league_key(league, "bots")

        def bump(pipe: Any) -> None:
            raw = pipe.hget(key, bot)
            if raw is None:
                raise LeagueError(f"league {league!r} has no bot {bot!r}")
            entry = BotEntry.from_json(hash_field(key, bot), raw)
            entry.version, entry.version_ms = entry.version + 1, now_ms()
            pipe.multi()
            pipe.hset(key, bot, entry.dumps())

        self.settings(league)
        self.redis.transaction(bump, key)
        return self.entry(league, bot).rated_as(bot)

    def revoke(self, league: str, bot: str) -> None:
        """The bot's key stops working (a new one: `new_key`)."""
        entry = self.entry(league, bot)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hdel(BOT_KEYS_KEY, entry.key)
        entry.key = ""
        pipe.hset(league_key(league, "bots"), bot, entry.dumps())
        pipe.hdel(league_key(league, "streams"), bot)
        pipe.execute()

    def ban(self, league: str, bot: str, banned: bool = True) -> None:
        """A banned bot gets no new games and may not connect (its results stay)."""
        entry = self.entry(league, bot)
        entry.status = "banned" if banned else "active"
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(league_key(league, "bots"), bot, entry.dumps())
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
            rows = read_results(key, pipe.lrange(key, 0, -1))
            found = [i for i, row in enumerate(rows) if row.game_id == game_id]
            if not found:
                raise LeagueError(f"league {league!r} has no result for game {game_id!r}")
            if rows[found[0]].void:
                raise LeagueError(f"game {game_id!r} of league {league!r} is void already "
                                  f"({rows[found[0]].void}): nothing changed")
            stats = pair_stats(pipe, league)
            for outcome in outcomes([rows[found[0]]]):  # counted until now: no more
                stats.remove(outcome)
            rows[found[0]].void = reason or "voided by the operator"
            entry = history_entry(settings, stats, game_id, voided=True)
            pipe.multi()
            pipe.lset(key, found[0], rows[found[0]].dumps())
            pipe.rpush(league_key(league, "history"), entry.dumps())
            pipe.set(stats_key, json.dumps(stats.to_json()))

        stats_key = league_key(league, "pairstats")
        self.redis.transaction(mark, key, stats_key)

    def snapshot(self, settings: LeagueSettings, game_id: str, voided: bool = False) -> None:
        """Append the ladder as it stands to the league's rating history: after the result
        of `game_id`, or after it was voided."""
        entry = history_entry(settings, pair_stats(self.redis, settings.name), game_id,
                              voided)
        self.redis.rpush(league_key(settings.name, "history"), entry.dumps())

    def no_worker(self, league: str) -> list[str]:
        """The league's hosted bots while no worker is live to play them (they get no
        game meanwhile)."""
        return no_worker(self.entries(league), live_workers(self.redis))

    def game_results(self, league: str) -> list[GameResult]:
        """Every result of the league, in the order games ended."""
        self.settings(league)
        key = league_key(league, "results")
        return read_results(key, self.redis.lrange(key, 0, -1))

    def results(self, league: str) -> list[dict[str, Any]]:
        """Every result, each as its JSON (`curia league results --json` prints them)."""
        return [result.to_json() for result in self.game_results(league)]

    def tables(self, league: str) -> dict[str, LiveTable]:
        """The games being played, by game id."""
        key = league_key(league, "live")
        found = self.redis.hgetall(key)
        return {text(game): LiveTable.from_json(hash_field(key, text(game)), raw)
                for game, raw in found.items()}

    def live(self, league: str) -> dict[str, dict[str, Any]]:
        """The games being played, each table as its JSON."""
        return {game: table.to_json() for game, table in self.tables(league).items()}

    def online(self, league: str) -> list[str]:
        alive = self.redis.zrangebyscore(league_key(league, "online"), now_ms(), "+inf")
        return sorted(text(bot) for bot in alive)

    def games_of(self, league: str, bot: str) -> list[str]:
        return sorted(text(game) for game in self.redis.hkeys(seats_key(league, bot)))

    def entry(self, league: str, bot: str) -> BotEntry:
        key = league_key(league, "bots")
        raw = self.redis.hget(key, bot)
        if raw is None:
            self.settings(league)
            raise LeagueError(f"league {league!r} has no bot {bot!r}")
        return BotEntry.from_json(hash_field(key, bot), raw)


def read_results(key: str, rows: list[bytes]) -> list[GameResult]:
    """The results list's entries as records."""
    return [GameResult.from_json(f"{key}[{position}]", raw)
            for position, raw in enumerate(rows)]
