"""The league agent: records finished games and starts new ones, one holder per league.

Every `curia serve` process runs an agent (and `curia league run` runs one alone); for
each league, the agent holding its lease (a Redis key that lapses `LEASE_MS` after its
holder's last renewal) does the work, so a league has one matchmaker at a time and
another process takes over within seconds of its holder's death. Both of its jobs are
safe to redo after a crash:

* recording: a game found finished (its spectator view, through the public API) is
  recorded by one script that adds its id to the league's `rated` set and, only if it
  was not there, appends the result and the rating history's entry after it and stores the
  ladder's pooled statistics with them (the ladder fitted here from the statistics it read,
  never from the whole list of results: the script checks that the results and history
  are still as long as when they were read, else the agent reads and fits again) and
  frees the bots' slots: exactly once, the result never without its history entry;
* matchmaking: a game is created (CreateGame, the operator credential), then its seat
  tokens are given to its bots' Play streams and it joins the live games, in one
  transaction. A holder that dies between the two leaves a game no bot plays: it is
  never rated.

A hosted bot (a worker plays its seat) is seated only while a live worker advertises a
free slot (its heartbeat, `service.leagues.live_workers`), no more hosted seats than the
live workers' free slots less the jobs still queued. A game with a hosted seat waits for
its players (CreateGame's `wait_for_players`: no clock runs until every seat made
contact); if a hosted seat's job was taken by no worker within `JOB_GRACE_MS`, or the game
still waits `START_MS` after its creation, the game is void as the arena voids one: every
seat resigns before the start, which ends it without a result, recorded void and unrated.

While Redis (or the service) is away the agent logs one line when the outage starts and
one when it ends, as the service does (service/health.py).
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import grpc
from redis import Redis
from redis.exceptions import RedisError, ResponseError

from client.channels import ClientSecurity
from client.unary import CuriaClient, resign
from curia_api.v1 import game_service_pb2 as pb
from hosting.worker import GROUP, queue_league_job
from league.ladder import outcomes
from league.matchmaking import Candidate, Knowledge, candidate, next_table
from league.registry import LeagueError, Leagues, LeagueSettings, history_entry, pair_stats
from ratings.pooled import PairwiseStats, fit_pooled
from service.keeper import NOBODY_STARTED
from service.league_records import (
    GameResult,
    HistoryEntry,
    LadderRow,
    LastTable,
    LiveTable,
    base_name,
    jobs_key,
    league_key,
    read_pair_stats,
    seats_key,
    text,
)
from service.leagues import live_workers
from service.store import now_ms

log = logging.getLogger("curia.league")

#: How a void game's seats resign (the reason after it is the void's).
VOID_PREFIX = "void: "
#: A lease lapses this long after its holder's last renewal.
LEASE_MS = 3_000
#: Seconds between two rounds of an agent's work.
TICK_S = 0.5
#: Seconds between two looks at every live game (between them, only those seen ending).
SWEEP_S = 5.0
#: A game whose hosted seat's job no worker took this long after its creation is void.
JOB_GRACE_MS = 15_000
#: A game still waiting for its players this long after its creation is void (a worker
#: took its job but the bot never made contact: a build that hangs, a worker lost).
START_MS = 600_000
#: Why a game is void when a rollback of the store un-ended it after its bots saw its end.
UNENDED = ("the store rolled back to before the game's end, which its bots had seen: "
           "the game is void")
#: The finished games an agent remembers (to tell one a rollback un-ended).
SEEN_FINISHED = 10_000
#: Times the recording is tried again when another write came between its read and its
#: script (an operator's void, a late former holder).
RECORD_ATTEMPTS = 5

#: Takes or renews the lease KEYS[1] for holder ARGV[1], ARGV[2] ms; 1 if held.
LEASE_SCRIPT = """
local holder = redis.call('GET', KEYS[1])
if holder == false or holder == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""

#: Renews the lease KEYS[1] for ARGV[2] ms if holder ARGV[1] still holds it; 1 if renewed.
RENEW_SCRIPT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
"""

#: Records a finished game once, with the rating history's entry after it and the ladder's
#: pooled statistics with it. KEYS: rated, results, live, ended, history, pairstats, then
#: each bot's seats hash. ARGV: game id, result JSON, history entry JSON, the results' and
#: the history's lengths the entry was fitted on, the statistics JSON. 1 if recorded now,
#: 0 if it had been, -1 if the lists changed since they were read (nothing written: fit
#: again; a void appends to the history, so the statistics read are still the stored ones).
RECORD_SCRIPT = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 0 and
   (redis.call('LLEN', KEYS[2]) ~= tonumber(ARGV[4]) or
    redis.call('LLEN', KEYS[5]) ~= tonumber(ARGV[5])) then
  return -1
end
for i = 7, #KEYS do redis.call('HDEL', KEYS[i], ARGV[1]) end
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('SREM', KEYS[4], ARGV[1])
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('RPUSH', KEYS[5], ARGV[3])
redis.call('SET', KEYS[6], ARGV[6])
return 1
"""

#: Rewrites a game's live table (its hosted jobs' entry ids, a void mark), if it is still
#: live. KEYS: live. ARGV: game id, the table JSON.
NOTE_TABLE_SCRIPT = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""


class Outage:
    """One log line when the agent's work starts failing (Redis or the service away), one
    when it works again (as service.health.StoreOutage does for the service)."""

    def __init__(self) -> None:
        self.since: float | None = None  # monotonic start of the current outage
        self.unlogged = 0

    def failed(self, error: BaseException) -> None:
        if self.since is not None:
            self.unlogged += 1
            return
        self.since = time.monotonic()
        log.warning("league agent: redis or the service unavailable: %s: %s",
                    type(error).__name__, error)

    def succeeded(self) -> None:
        if self.since is None:
            return
        log.warning("league agent: working again after %.1f s (%d failures not logged)",
                    time.monotonic() - self.since, self.unlogged)
        self.since, self.unlogged = None, 0


class LeagueAgent:
    """One process's agent (see the module docstring)."""

    def __init__(self, redis: Any, client: CuriaClient, seed: int | None = None) -> None:
        self.redis = redis
        self.client = client
        self.leagues = Leagues(redis)
        self.holder = secrets.token_hex(8)
        self.rng = random.Random(seed)
        self._lease = redis.register_script(LEASE_SCRIPT)
        self._renew = redis.register_script(RENEW_SCRIPT)
        #: the leagues whose lease this agent holds, renewed by `renew_leases`
        self.held: set[str] = set()
        self._record = redis.register_script(RECORD_SCRIPT)
        self._note_table = redis.register_script(NOTE_TABLE_SCRIPT)
        self.outage = Outage()
        #: the games this agent saw finished, with their `ending`, most recent last (a
        #: rollback of the store may un-end one, or end it another way)
        self.seen_finished: OrderedDict[str, str] = OrderedDict()
        #: league -> when its live games were all looked at last (time.monotonic)
        self.swept: dict[str, float] = {}

    def run(self, stop: threading.Event) -> None:
        """Work until `stop` is set; an error in one round is logged, the next one runs.
        The leases held are renewed by a thread of their own, so a long round (a slow
        service, a large fit) never lets one lapse."""
        threading.Thread(target=self.renew_leases, args=(stop,), daemon=True,
                         name="league-leases").start()
        while not stop.wait(TICK_S):
            try:
                self.work_once()
            except (grpc.RpcError, RedisError, OSError) as error:  # the service or store away
                self.outage.failed(error)
            except Exception:
                log.exception("league agent: round failed")
            else:
                self.outage.succeeded()

    def work_once(self) -> None:
        for league in self.leagues.names():
            if self.hold(league):
                self.tend(self.leagues.settings(league))
            else:
                self.void_unended(league)

    def void_unended(self, league: str) -> int:
        """Void the live games of a league this agent does not hold that it saw finished
        and a rollback of the store un-ended (or ended otherwise); how many.

        Only the agent that saw a game's end can tell that a rollback un-ended it (what it
        saw is in its memory: the store itself rolled back). The lease may have passed to
        another agent meanwhile (the outage outlasted it), which would let the game run on
        without the bots that saw its end and rate it on their time-outs; so every agent
        voids the games it saw end, holder or not. That is safe beside the holder: the void
        mark is noted only while the game is live, and a game is recorded exactly once."""
        live = [text(game) for game in self.redis.hkeys(league_key(league, "live"))]
        seen = [game for game in live if game in self.seen_finished]
        if not seen:
            return 0
        settings = self.leagues.settings(league)
        tables = self.leagues.tables(league)
        voided = 0
        for game_id in seen:
            if game_id not in tables:
                continue  # recorded meanwhile
            view = self.client.view(game_id)
            if view.status == pb.GAME_STATUS_FINISHED and \
                    self.seen_finished[game_id] == ending(view):
                continue  # the end it saw: the holder records it
            self.void(settings, game_id, tables[game_id], UNENDED)
            voided += 1
        return voided

    def hold(self, league: str) -> bool:
        held = bool(self._lease(keys=[league_key(league, "lease")],
                                args=[self.holder, LEASE_MS]))
        (self.held.add if held else self.held.discard)(league)
        return held

    def renew_leases(self, stop: threading.Event) -> None:
        """Renew every lease held, a third of `LEASE_MS` apart, until `stop` is set; one
        found taken by another holder (it lapsed) is let go."""
        while not stop.wait(LEASE_MS / 3000):
            for league in list(self.held):
                try:
                    if not self._renew(keys=[league_key(league, "lease")],
                                       args=[self.holder, LEASE_MS]):
                        self.held.discard(league)
                except RedisError:
                    pass  # the store away: the round's outage line says so

    def tend(self, settings: LeagueSettings) -> None:
        self.record_finished(settings)
        self.void_unstarted(settings)
        if settings.status == "open":
            self.start_games(settings)

    # -- recording -------------------------------------------------------------------------
    def record_finished(self, settings: LeagueSettings) -> int:
        """Record the live games that have ended; how many were recorded now. The games
        the Play streams saw end are looked at each round; every live game once every
        `SWEEP_S` (a game no bot follows ends unseen: by time-outs, say)."""
        name = settings.name
        live = self.leagues.tables(name)
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
            seen = self.seen_finished.get(game_id)
            if view.status == pb.GAME_STATUS_FINISHED and seen in (None, ending(view)):
                self.saw_finished(game_id, ending(view))
                recorded += self.record(settings, game_id, live[game_id], view)
            elif seen is not None:  # un-ended by a rollback (and perhaps ended otherwise)
                self.void(settings, game_id, live[game_id], UNENDED)
        return recorded

    def saw_finished(self, game_id: str, end: str) -> None:
        self.seen_finished[game_id] = end
        self.seen_finished.move_to_end(game_id)
        while len(self.seen_finished) > SEEN_FINISHED:
            self.seen_finished.popitem(last=False)

    def record(self, settings: LeagueSettings, game_id: str,
               table: LiveTable | Mapping[str, Any], view: pb.View) -> int:
        live = as_table(game_id, table)
        row = game_result(settings, game_id, live, view)
        name = settings.name
        keys = [league_key(name, "rated"), league_key(name, "results"),
                league_key(name, "live"), league_key(name, "ended"),
                league_key(name, "history"), league_key(name, "pairstats"),
                *(seats_key(name, bot) for bot in live.seating)]
        for _ in range(RECORD_ATTEMPTS):
            stats, results, history = self.read_standing(name)
            for outcome in outcomes([row]):  # a rated, non-void result
                stats.add(outcome)
            entry = history_entry(settings, stats, game_id)
            done = int(self._record(keys=keys, args=[
                game_id, row.dumps(), entry.dumps(), results, history,
                json.dumps(stats.to_json())]))
            if done >= 0:
                return done
        raise RedisError(f"league {name}: game {game_id}: the results kept changing")

    def read_standing(self, league: str) -> tuple[PairwiseStats, int, int]:
        """The ladder's pooled statistics and the lengths of the results and the rating
        history, read at once: what a result costs does not grow with the league."""
        pipe = self.redis.pipeline(transaction=True)
        pipe.get(league_key(league, "pairstats"))
        pipe.llen(league_key(league, "results"))
        pipe.llen(league_key(league, "history"))
        raw, results, history = pipe.execute()
        if raw is None:  # stored before the statistics were kept: built once
            return pair_stats(self.redis, league), int(results), int(history)
        return read_pair_stats(league_key(league, "pairstats"), raw), int(results), \
            int(history)

    # -- void games --------------------------------------------------------------------------
    def void_unstarted(self, settings: LeagueSettings) -> int:
        """Void the games with a hosted seat that no worker took within `JOB_GRACE_MS`
        (or still waiting for a player `START_MS` after their creation); how many."""
        name = settings.name
        now = now_ms()
        waiting = {game: table for game, table in self.leagues.tables(name).items()
                   if table.wait and now - (table.created_ms or now) >= JOB_GRACE_MS}
        if not waiting:
            return 0
        delivered = self.last_delivered(name)
        voided = 0
        for game_id, table in waiting.items():
            view = self.client.view(game_id)
            if view.status != pb.GAME_STATUS_WAITING_FOR_SEATS:
                continue
            jobs = {int(seat): entry for seat, entry in (table.jobs or {}).items()}
            untaken = [seat for seat in view.absent_seats if seat in jobs
                       and not _taken(jobs[seat], delivered)]
            if untaken:
                bots = ", ".join(table.seating[seat] for seat in untaken)
                reason = f"no worker took the seat of {bots} within {JOB_GRACE_MS / 1000:g} s"
            elif now - (table.created_ms or now) >= START_MS:
                bots = ", ".join(table.seating[seat] for seat in view.absent_seats)
                reason = f"{bots} made no contact within {START_MS / 1000:g} s"
            else:
                continue
            self.void(settings, game_id, table, reason)
            voided += 1
        return voided

    def void(self, settings: LeagueSettings, game_id: str,
             table: LiveTable | Mapping[str, Any], reason: str) -> None:
        """End a game without a result, as the arena ends a void game
        (arena.runner.end_void_game: every seat resigns; before the start, that ends it
        without a result), take its untaken jobs back, and record it void (unrated, no
        forfeit: the mark in its live table says so, not the seats' resign reasons)."""
        name = settings.name
        # noted first: whoever records it, it is void
        table = replace(as_table(game_id, table), void=reason)
        if not self._note_table(keys=[league_key(name, "live")],
                                args=[game_id, table.dumps()]):
            return  # recorded meanwhile
        if table.jobs:
            self.redis.xdel(jobs_key(name), *table.jobs.values())
        for bot in table.seating:
            token = self.redis.hget(seats_key(name, bot), game_id)
            if token is not None:
                resign(self.client, game_id, text(token), VOID_PREFIX + reason)
        log.warning("league %s: game %s void: %s", name, game_id, reason)
        view = self.client.view(game_id)
        if view.status == pb.GAME_STATUS_FINISHED:
            self.record(settings, game_id, table, view)

    def last_delivered(self, league: str) -> tuple[int, int] | None:
        """The last job the workers' group was given (None: no worker ever read any)."""
        try:
            groups = self.redis.xinfo_groups(jobs_key(league))
        except ResponseError:  # no stream yet
            return None
        for group in groups:
            if text(group.get("name", b"")) == GROUP:
                return _entry_id(group.get("last-delivered-id", b"0-0"))
        return None

    def undelivered(self, league: str) -> int:
        """The league's jobs no worker took yet."""
        delivered = self.last_delivered(league)
        if delivered is None:
            return int(self.redis.xlen(jobs_key(league)))
        after = f"({delivered[0]}-{delivered[1]}"
        return len(self.redis.xrange(jobs_key(league), after, "+", count=10_000))

    # -- matchmaking -----------------------------------------------------------------------
    def start_games(self, settings: LeagueSettings) -> int:
        """Start games while enough connected bots have a free slot; how many started."""
        started = 0
        room = self.room(settings)
        candidates = self.candidates(settings) if room else []
        knowledge = self.knowledge(settings.name) \
            if len(candidates) >= settings.seats else None  # a fit only when a table can start
        while started < room and (table := next_table(candidates, settings.seats, self.rng,
                                                      knowledge)) is not None:
            self.start(settings, table)
            started += 1
            candidates = self.candidates(settings)
            knowledge = knowledge.after(table) if knowledge else None
        return started

    def knowledge(self, league: str) -> Knowledge:
        """What the matchmaking weighs tables by: the ladder fitted from the pooled
        statistics (ratings and their covariance) and the pairs' counts."""
        stats = pair_stats(self.redis, league)
        if not stats.games:
            return Knowledge({}, stats.counts)
        fit = fit_pooled(stats)
        return Knowledge({bot: rating.elo for bot, rating in fit.ratings.items()},
                         stats.counts, {(a, b): fit.covariance[i][j]
                                        for i, a in enumerate(fit.names)
                                        for j, b in enumerate(fit.names)})

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
        accounts = self.leagues.entries(name)
        hosted = [bot for bot, entry in accounts.items() if entry.hosted]
        free = sum(worker.free for worker in live_workers(self.redis)) if hosted else 0
        if free:  # the workers' free slots, less the seats already queued for them
            free = max(0, free - self.undelivered(name))
        if not free:
            hosted = []
        online = sorted({*self.leagues.online(name), *hosted})
        if not online:
            return []
        capacity = capacities(self.redis, name)
        rows = self.standings(name)
        pipe = self.redis.pipeline(transaction=False)
        for bot in online:
            pipe.hlen(seats_key(name, bot))
        playing = dict(zip(online, pipe.execute(), strict=True))
        found = []
        for bot in online:
            if bot not in accounts or accounts[bot].status != "active":
                continue
            if playing[bot] >= capacity.get(bot, settings.concurrency):
                continue
            found.append(candidate(bot, rows.get(accounts[bot].rated_as(bot))))
        seatable = [c for c in found if c.bot in hosted]
        if len(seatable) > free:  # more hosted bots than free slots: those with fewest games
            self.rng.shuffle(seatable)
            seatable.sort(key=lambda c: c.games)
            dropped = {c.bot for c in seatable[free:]}
            found = [c for c in found if c.bot not in dropped]
        return [replace(c, bot=accounts[c.bot].rated_as(c.bot)) for c in found]

    def standings(self, league: str) -> dict[str, LadderRow]:
        """The ladder after the last result (the rating history's last entry), by bot."""
        key = league_key(league, "history")
        last = self.redis.lindex(key, -1)
        return HistoryEntry.from_json(f"{key}[-1]", last).by_bot() if last else {}

    def start(self, settings: LeagueSettings, entries: tuple[str, ...]) -> str:
        """Start a game of the ladder `entries` (bots, or `NAME@N` for a bot's N-th
        version): its bots' seats and live table, hosted seats queued; its id."""
        return str(start_table(self.redis, self.client, self.leagues, settings,
                               entries).game_id)


def start_table(redis: Any, client: CuriaClient, leagues: Leagues, settings: LeagueSettings,
                entries: tuple[str, ...], people: frozenset[int] = frozenset(),
                decision_ms: int | None = None) -> pb.CreateGameResponse:
    """Create a league game of `entries` by seat and make it live: each bot's seat given
    to its Play stream (hosted seats queued for the workers). `people`: seats a person
    plays on the seat page (`entries` names them; their tokens are only in the answer,
    returned): such a game is an exhibition, never rated, and waits for its players;
    `decision_ms` replaces the league's time for it."""
    name = settings.name
    table = tuple(base_name(entry) for entry in entries)
    accounts = leagues.entries(name)
    bots = {seat: bot for seat, bot in enumerate(table) if seat not in people}
    hosted = {seat: accounts[bot].manifest for seat, bot in bots.items()
              if bot in accounts and accounts[bot].hosted}
    waits = bool(hosted) or bool(people)  # no clock until a worker's bot (or a person) is there
    time_ms = settings.decision_ms if decision_ms is None else decision_ms
    created = client.create_game(
        settings.game, settings.variant, settings.seats, options=settings.options,
        decision_ms=time_ms, bank_ms=settings.bank_ms,
        on_timeout="random" if people else "forfeit", wait_for_players=waits,
        players=entries)
    live = LiveTable(list(table), now_ms(), False if people else settings.rated,
                     settings.game, settings.variant, settings.options, time_ms,
                     settings.bank_ms, wait=waits,
                     rated_as=list(entries) if entries != table else None)
    tokens = {credential.seat: credential.token for credential in created.seats}
    pipe = redis.pipeline(transaction=True)
    for seat, bot in bots.items():
        pipe.hset(seats_key(name, bot), created.game_id, tokens[seat])
        if not people:
            pipe.hset(league_key(name, "last_table"), bot, LastTable(frozenset(table)).dumps())
    first = len(pipe)  # the replies from here on are the jobs' entry ids
    for seat, manifest in hosted.items():  # a hosted bot: a worker plays its seat
        queue_league_job(pipe, name, created.game_id, seat, table[seat], manifest,
                         tokens[seat])
    pipe.hset(league_key(name, "live"), created.game_id, live.dumps())
    replies = pipe.execute()
    if hosted:  # the jobs' entry ids, to tell whether a worker took them
        jobs = replies[first:first + len(hosted)]
        live.jobs = {str(seat): text(entry) for seat, entry in zip(hosted, jobs, strict=True)}
        redis.register_script(NOTE_TABLE_SCRIPT)(keys=[league_key(name, "live")],
                                                 args=[created.game_id, live.dumps()])
    log.info("league %s: game %s started: %s", name, created.game_id, ", ".join(table))
    return created


def capacities(redis: Any, league: str) -> dict[str, int]:
    """The games each bot asked to play at once (its hello's concurrency, as granted); a
    bot not in it plays the league's `concurrency`."""
    return {text(bot): int(n) for bot, n in
            redis.hgetall(league_key(league, "capacity")).items()}


def check_exhibition(leagues: Leagues, settings: LeagueSettings, entries: tuple[str, ...],
                     people: frozenset[int]) -> None:
    """LeagueError unless `entries` can be an exhibition now: the league's seat count, a
    person somewhere, and every other seat a bot of the league, active, online and with
    a free slot."""
    name = settings.name
    if settings.status == "closed":
        raise LeagueError(f"league {name} is closed")
    if len(entries) != settings.seats:
        raise LeagueError(f"league {name} plays {settings.seats} seats, not {len(entries)}")
    if not people:
        raise LeagueError("an exhibition seats a person: name one seat human")
    accounts, online = leagues.entries(name), set(leagues.online(name))
    capacity = capacities(leagues.redis, name)
    bots = [entry for seat, entry in enumerate(entries) if seat not in people]
    if len(set(bots)) != len(bots):
        raise LeagueError("a bot takes one seat of a game")
    for bot in bots:
        if bot not in accounts:
            raise LeagueError(f"league {name} has no bot {bot!r}")
        if accounts[bot].status != "active":
            raise LeagueError(f"bot {bot} is {accounts[bot].status}")
        if bot not in online:
            raise LeagueError(f"bot {bot} is not online (its Play stream is not connected)")
        if leagues.redis.hlen(seats_key(name, bot)) >= capacity.get(bot, settings.concurrency):
            raise LeagueError(f"bot {bot} has no free slot now")


def as_table(game_id: str, table: LiveTable | Mapping[str, Any]) -> LiveTable:
    """A live table as the record (given as its JSON form: checked)."""
    if isinstance(table, LiveTable):
        return table
    return LiveTable.from_json(f"live table of {game_id}", table)


def game_result(settings: LeagueSettings, game_id: str, table: LiveTable,
                view: pb.View) -> GameResult:
    """The result to record of a finished game (void if the table is marked void, or if
    the game ended without a ranking or before its start: kept, never rated)."""
    result = view.result
    row = GameResult(
        game_id, list(table.rated_as or table.seating),
        [list(group.seats) for group in result.ranking],
        ended_ms=now_ms(),
        forfeits=sorted(score.seat for score in result.scores if score.forfeited),
        reason=result.reason,
        reasons={str(score.seat): score.forfeit_reason for score in result.scores
                 if score.forfeited and score.forfeit_reason},
        rated=settings.rated if table.rated is None else table.rated)
    marked = table.void  # the agent voided it (`void`)
    if marked or not row.ranking or result.reason == NOBODY_STARTED:
        row.void = marked or result.reason or "no result"
        row.rated = False
        if marked or result.reason == NOBODY_STARTED:  # no forfeit of theirs
            row.ranking, row.forfeits, row.reasons = [], [], {}
    return row


def ending(view: pb.View) -> str:
    """How a finished game ended: its last version's lineage and its result."""
    result = view.result.SerializeToString(deterministic=True)
    return f"{view.lineage}:{hashlib.sha256(result).hexdigest()}"


def _entry_id(raw: Any) -> tuple[int, int]:
    ms, _, seq = text(raw).partition("-")
    return int(ms), int(seq or 0)


def _taken(entry: str, delivered: tuple[int, int] | None) -> bool:
    """Whether a worker took the job `entry` (the group was given it: it is at or before
    the group's last delivered entry)."""
    return delivered is not None and _entry_id(entry) <= delivered


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
