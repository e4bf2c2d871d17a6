"""The league agent: records finished games and starts new ones, one holder per league.

Every `curia serve` process runs an agent (and `curia league run` runs one alone); for
each league, the agent holding its lease (a Redis key that lapses `LEASE_MS` after its
holder's last renewal) does the work, so a league has one matchmaker at a time and
another process takes over within seconds of its holder's death. Both of its jobs are
safe to redo after a crash:

* recording: a game found finished (its spectator view, through the public API) is
  recorded by one script that adds its id to the league's `rated` set and, only if it
  was not there, appends the result and frees the bots' slots: exactly once;
* matchmaking: a game is created (CreateGame, the operator credential), then its seat
  tokens are given to its bots' Play streams and it joins the live games, in one
  transaction. A holder that dies between the two leaves a game no bot plays: it is
  never rated.
"""

from __future__ import annotations

import json
import logging
import random
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

import grpc
from redis import Redis
from redis.exceptions import RedisError

from curia.v1 import game_service_pb2 as pb
from league.matchmaking import UNRATED_MARGIN, Candidate, next_table
from league.registry import Leagues, LeagueSettings
from league.worker import queue_league_job
from service.channels import ClientSecurity
from service.client import CuriaClient
from service.leagues import league_key, seats_key, text
from service.store import now_ms

log = logging.getLogger("curia.league")

#: A lease lapses this long after its holder's last renewal.
LEASE_MS = 3_000
#: Seconds between two rounds of an agent's work.
TICK_S = 0.5
#: Seconds between two looks at every live game (between them, only those seen ending).
SWEEP_S = 5.0

#: Takes or renews the lease KEYS[1] for holder ARGV[1], ARGV[2] ms; 1 if held.
LEASE_SCRIPT = """
local holder = redis.call('GET', KEYS[1])
if holder == false or holder == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""

#: Records a finished game once. KEYS: rated, results, live, ended, then each bot's seats
#: hash.
#: ARGV: game id, result JSON. 1 if recorded now, 0 if it had been.
RECORD_SCRIPT = """
for i = 5, #KEYS do redis.call('HDEL', KEYS[i], ARGV[1]) end
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('SREM', KEYS[4], ARGV[1])
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[2])
return 1
"""


class LeagueAgent:
    """One process's agent (see the module docstring)."""

    def __init__(self, redis: Any, client: CuriaClient, seed: int | None = None) -> None:
        self.redis = redis
        self.client = client
        self.leagues = Leagues(redis)
        self.holder = secrets.token_hex(8)
        self.rng = random.Random(seed)
        self._lease = redis.register_script(LEASE_SCRIPT)
        self._record = redis.register_script(RECORD_SCRIPT)
        #: league -> when its live games were all looked at last (time.monotonic)
        self.swept: dict[str, float] = {}

    def run(self, stop: threading.Event) -> None:
        """Work until `stop` is set; an error in one round is logged, the next one runs."""
        while not stop.wait(TICK_S):
            try:
                self.work_once()
            except (grpc.RpcError, RedisError, OSError) as error:  # the service or store away
                log.info("league agent: %s", error)
            except Exception:
                log.exception("league agent: round failed")

    def work_once(self) -> None:
        for league in self.leagues.names():
            if self.hold(league):
                self.tend(self.leagues.settings(league))

    def hold(self, league: str) -> bool:
        return bool(self._lease(keys=[league_key(league, "lease")],
                                args=[self.holder, LEASE_MS]))

    def tend(self, settings: LeagueSettings) -> None:
        self.record_finished(settings)
        if settings.status == "open":
            self.start_games(settings)

    # -- recording -------------------------------------------------------------------------
    def record_finished(self, settings: LeagueSettings) -> int:
        """Record the live games that have ended; how many were recorded now. The games
        the Play streams saw end are looked at each round; every live game once every
        `SWEEP_S` (a game no bot follows ends unseen: by time-outs, say)."""
        name = settings.name
        live = self.leagues.live(name)
        now = time.monotonic()
        if now - self.swept.get(name, 0.0) >= SWEEP_S:
            self.swept[name] = now
            candidates = list(live)
        else:
            candidates = [text(game) for game in self.redis.smembers(league_key(name, "ended"))]
        recorded = 0
        for game_id in candidates:
            if game_id not in live:
                self.redis.srem(league_key(name, "ended"), game_id)
                continue
            view = self.client.view(game_id)
            if view.status == pb.GAME_STATUS_FINISHED:
                recorded += self.record(settings, game_id, live[game_id], view)
        return recorded

    def record(self, settings: LeagueSettings, game_id: str, table: dict[str, Any],
               view: pb.View) -> int:
        seating = table["seating"]
        result = view.result
        forfeits = sorted(score.seat for score in result.scores if score.forfeited)
        row = {"game_id": game_id, "seating": seating, "ended_ms": now_ms(),
               "ranking": [list(group.seats) for group in result.ranking],
               "forfeits": forfeits, "reason": result.reason,
               "reasons": {str(score.seat): score.forfeit_reason for score in result.scores
                           if score.forfeited and score.forfeit_reason},
               "rated": table.get("rated", settings.rated)}
        if not row["ranking"]:  # ended with no result (abandoned): kept, never rated
            row["void"] = result.reason or "no result"
        name = settings.name
        keys = [league_key(name, "rated"), league_key(name, "results"),
                league_key(name, "live"), league_key(name, "ended"),
                *(seats_key(name, bot) for bot in seating)]
        done = int(self._record(keys=keys, args=[game_id, json.dumps(row)]))
        if done:
            self.snapshot(settings, game_id)
        return done

    def snapshot(self, settings: LeagueSettings, game_id: str) -> None:
        """Append the ladder after `game_id` to the league's rating history."""
        self.leagues.snapshot(settings, game_id)

    # -- matchmaking -----------------------------------------------------------------------
    def start_games(self, settings: LeagueSettings) -> int:
        """Start games while enough connected bots have a free slot; how many started."""
        started = 0
        room = self.room(settings)
        candidates = self.candidates(settings) if room else []
        while started < room and (table := next_table(candidates, settings.seats,
                                                      self.rng)) is not None:
            self.start(settings, table)
            started += 1
            candidates = self.candidates(settings)
        return started

    def room(self, settings: LeagueSettings) -> int:
        """Games the league may still start (`max_games`; a large number if no end)."""
        if not settings.max_games:
            return 1 << 30
        name = settings.name
        played = self.redis.scard(league_key(name, "rated")) + self.redis.hlen(
            league_key(name, "live"))
        return max(0, settings.max_games - int(played))

    def candidates(self, settings: LeagueSettings) -> list[Candidate]:
        name = settings.name
        accounts = self.leagues.bots(name)
        hosted = [bot for bot, account in accounts.items() if account.get("manifest")]
        online = sorted({*self.leagues.online(name), *hosted})
        if not online:
            return []
        capacity = {text(bot): int(n) for bot, n in
                    self.redis.hgetall(league_key(name, "capacity")).items()}
        last = {text(bot): frozenset(json.loads(table)) for bot, table in
                self.redis.hgetall(league_key(name, "last_table")).items()}
        rows = self.standings(name)
        pipe = self.redis.pipeline(transaction=False)
        for bot in online:
            pipe.hlen(seats_key(name, bot))
        playing = dict(zip(online, pipe.execute(), strict=True))
        found = []
        for bot in online:
            if accounts.get(bot, {}).get("status") != "active":
                continue
            if playing[bot] >= capacity.get(bot, settings.concurrency):
                continue
            row = rows.get(bot)
            found.append(Candidate(bot, row["elo"] if row else 1500.0,
                                   (row["high"] - row["low"]) / 2 if row else UNRATED_MARGIN,
                                   row["games"] if row else 0, last.get(bot, frozenset())))
        return found

    def standings(self, league: str) -> dict[str, dict[str, Any]]:
        """The ladder after the last result (the rating history's last entry), by bot."""
        last = self.redis.lindex(league_key(league, "history"), -1)
        return {row["bot"]: row for row in json.loads(last)["ladder"]} if last else {}

    def start(self, settings: LeagueSettings, table: tuple[str, ...]) -> str:
        created = self.client.create_game(
            settings.game, settings.variant, settings.seats, options=settings.options,
            decision_ms=settings.decision_ms, bank_ms=settings.bank_ms, on_timeout="forfeit")
        name = settings.name
        live = {"seating": list(table), "created_ms": now_ms(), "rated": settings.rated,
                "game": settings.game, "variant": settings.variant,
                "options": settings.options, "decision_ms": settings.decision_ms,
                "bank_ms": settings.bank_ms}
        tokens = {credential.seat: credential.token for credential in created.seats}
        accounts = self.leagues.bots(name)
        pipe = self.redis.pipeline(transaction=True)
        for seat, bot in enumerate(table):
            pipe.hset(seats_key(name, bot), created.game_id, tokens[seat])
            pipe.hset(league_key(name, "last_table"), bot, json.dumps(sorted(table)))
            manifest = accounts.get(bot, {}).get("manifest")
            if manifest:  # a hosted bot: a worker plays its seat
                queue_league_job(pipe, name, created.game_id, seat, bot, manifest, tokens[seat])
        pipe.hset(league_key(name, "live"), created.game_id, json.dumps(live))
        pipe.execute()
        log.info("league %s: game %s started: %s", name, created.game_id, ", ".join(table))
        return str(created.game_id)


def start_agent(target: str, redis_url: str, security: ClientSecurity
                ) -> tuple[Callable[[], None], str]:
    """Run an agent in a daemon thread against the server at `target`; the function that
    stops it, and the agent's holder id (the value of the leases it holds)."""
    redis = Redis.from_url(redis_url, socket_timeout=5)
    client = CuriaClient(target, timeout=10, security=security)
    agent = LeagueAgent(redis, client)
    stop = threading.Event()
    thread = threading.Thread(target=agent.run, args=(stop,), name="league-agent",
                              daemon=True)
    thread.start()

    def stop_agent() -> None:
        stop.set()
        thread.join(timeout=5)
        client.close()
        redis.close()
    return stop_agent, agent.holder
