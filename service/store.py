"""The Redis store: every game's state, log, seat tokens and request ids.

Keys of one game share the hash tag `{<game id>}`, so they live in one Redis Cluster slot:

    curia:{id}:game      hash    meta (JSON), state (engine bytes), version, status,
                                 token:<seat> (SHA-256 of the seat token), deadline,
                                 forfeits (JSON {seat: reason}), clock (JSON time banks),
                                 active_ms (last create, join or seat decision),
                                 autoplay (server decisions since the last seat decision),
                                 ended (why a game ended without a result, e.g. abandoned),
                                 present:<seat> (a game waiting for its players: when the
                                 seat first made contact, ms),
                                 lineage (the current version's lineage; see below),
                                 chain (the secret key of its lineages),
                                 record (a finished game's compact record)
    curia:{id}:log       stream  one entry per version, id "<version>-1": seat, notation,
                                 cause, events (JSON), ms, deadline, forfeits, clock, lineage
                                 and the lineage of the version before (parent)
    curia:{id}:requests  hash    "<seat>:<request id>" -> the version it produced (a
                                 finished game keeps them in its compact record)

Two indexes that span games live outside any game's slot and are only hints:
`curia:active` (set of live games: waiting or in progress; the live-games cap counts it)
and `curia:deadlines` (zset id -> the next time the sweeper must look at the game: its
decision deadline, or when it expires for want of activity). An entry may outlive its
game (the sweeper drops it when it comes due and finds no game), but a create never
leaves a live game out of them: on one Redis the create script writes the game and its
entries together, and on a Cluster (where the indexes are in other slots than the game,
out of one script's reach) the entries are written before the game and again after it
(`GameStore.create`).

Live games' keys carry a TTL of twice the idle limit (at least a minute more than it),
renewed by every commit, so a game nobody sweeps still goes away; finished games keep
theirs for `finished_ttl`.

A decision commits with one Lua script: a compare-and-set on the version and the lineage
that also appends the log entry and records the request id, so concurrent servers never
lose or double-apply a decision.

Every version has a lineage ("" at version 0): a keyed hash chain of the decisions,
`next_lineage(chain key, the version before's lineage, seat, notation, cause)`, its key a
per-game secret (field `chain`) so that a lineage reveals no secret decision (a game
stored before lineages has no chain key: the first server to read it writes a random one,
ADOPT_CHAIN_SCRIPT; never one derived from the public game id). Redis can
lose acknowledged versions (a failover to a replica that lagged, a restore from a
backup, a Redis or host crash under `appendfsync everysec`); the game may then be played on from
an earlier version, and its version numbers repeat with other decisions. The lineage
tells the two histories apart (the same decisions give the same lineage: the same
state): a server that holds a state from the lost one (cached by game, version and
lineage) has its commit refused ('diverged') and reloads.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import secrets
import time
import zlib
from dataclasses import dataclass, field
from typing import Any

import orjson
import redis.asyncio as aioredis

from service import cancellation
from service.metrics import REDIS_SECONDS, series
from service.redis_link import RedisLink, stream_rows
from service.version_feed import VersionFeed, woken_within

cancellation.install()  # a cancelled stream handler must stay cancelled (Python 3.11)

log = logging.getLogger("curia.service")

CLUSTER_SCHEME = "redis+cluster://"
ACTIVE = "curia:active"
DEADLINES = "curia:deadlines"
#: How long a watcher's XREAD blocks for the next version before it looks again.
WAIT_BLOCK_MS = 5000
#: Redis socket read timeout, longer than that block: redis-py 8 defaults to 5 s, which
#: raced the 5 s XREAD BLOCK and cut every WatchGame stream of a game idle for 5 s.
SOCKET_TIMEOUT_S = WAIT_BLOCK_MS / 1000 + 5
#: Connections of a process's request pool: a burst of more requests at once waits up to
#: POOL_WAIT_S for one (redis-py's plain pool refused the 101st: "Too many connections").
POOL_CONNECTIONS, POOL_WAIT_S = 64, 5.0
#: Connections of the watchers' pool: one per WatchGame stream waiting for a version.
WATCH_CONNECTIONS = 10_000
#: Seconds a live game may go without a create, join or seat decision (`--idle-ttl`).
DEFAULT_IDLE_TTL = 24 * 3600

#: Merges forfeits (JSON object seat -> reason) into the game hash; returns the merged JSON.
MERGE_FORFEITS = """
local function merge_forfeits(key, added)
  local merged = cjson.decode(redis.call('HGET', key, 'forfeits') or '{}')
  for seat, reason in pairs(cjson.decode(added)) do
    if merged[seat] == nil then merged[seat] = reason end
  end
  local text = cjson.encode(merged)
  if text == '[]' then text = '{}' end
  redis.call('HSET', key, 'forfeits', text)
  return text
end
"""

#: KEYS: the live-games set. ARGV: the cap, the new game's id. Takes a place among the
#: live games for a game about to be created, in the same step as the count: 0 if full.
RESERVE_LIVE_SCRIPT = """
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[2])
return 1
"""

#: KEYS: game hash; on one Redis (not a Cluster) also the deadlines index and the
#: live-games set. ARGV: ttl, the game id, its first look (ms), then the hash's fields and
#: values. Writes a new game whole, indexed in the same step on one Redis: a full Redis
#: (`noeviction`) refuses a script's first write, never a later one, so a create happens
#: whole or not at all. The indexes first and the game last: a script error on a store
#: edited by hand (an index key of another type) leaves at most an entry without a game,
#: which the sweeper drops, never a game outside the indexes. 0 if the id is taken.
CREATE_SCRIPT = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if KEYS[2] then
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
  redis.call('SADD', KEYS[3], ARGV[2])
end
redis.call('HSET', KEYS[1], unpack(ARGV, 4))
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[1]))
return 1
"""

#: KEYS: game hash. ARGV: a new random chain key. A game stored before lineages has no
#: chain key (field `chain`, absent or empty): the first read gives it this one, or keeps
#: the one another server gave it first. Returns the game's chain key; false if the game
#: is gone.
ADOPT_CHAIN_SCRIPT = """
if redis.call('HEXISTS', KEYS[1], 'meta') == 0 then return false end
local chain = redis.call('HGET', KEYS[1], 'chain')
if chain and chain ~= '' then return chain end
redis.call('HSET', KEYS[1], 'chain', ARGV[1])
return ARGV[1]
"""

#: KEYS: game hash, log stream, requests hash; on one Redis (not a Cluster) also the
#:       live-games set and the deadlines index, updated in the same call (and the new
#:       version is then published for watchers: service/version_feed.py).
#: ARGV: expected version, state, request key, status, deadline, forfeits to add, seat,
#:       notation, cause, events, ms, ttl seconds, clock, the game id, the index's next
#:       look (ms; 0: leave the index as it is), the expected lineage, the new lineage,
#:       the seats that must decide at the new version ("0,2"; "-" once it is over).
#: Returns the outcome, the version and (when ok) the merged forfeits.
COMMIT_SCRIPT = MERGE_FORFEITS + """
local done = redis.call('HGET', KEYS[3], ARGV[3])
if done then return {'duplicate', done} end
local current = redis.call('HGET', KEYS[1], 'version')
if not current then return {'missing', '0'} end
if tonumber(current) ~= tonumber(ARGV[1]) then return {'stale', current} end
if (redis.call('HGET', KEYS[1], 'lineage') or '') ~= ARGV[16] then
  return {'diverged', current}
end
if redis.call('HGET', KEYS[1], 'status') ~= 'in_progress' then
  return {'not_in_progress', current}
end
local version = tonumber(current) + 1
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'version', version, 'status', ARGV[4],
           'deadline', ARGV[5], 'clock', ARGV[13], 'lineage', ARGV[17])
local forfeits = merge_forfeits(KEYS[1], ARGV[6])
redis.call('XADD', KEYS[2], version .. '-1', 'seat', ARGV[7], 'notation', ARGV[8],
           'cause', ARGV[9], 'events', ARGV[10], 'ms', ARGV[11], 'deadline', ARGV[5],
           'forfeits', forfeits, 'clock', ARGV[13], 'lineage', ARGV[17],
           'parent', ARGV[16])
redis.call('HSET', KEYS[3], ARGV[3], version)
if ARGV[9] == 'seat' then
  redis.call('HSET', KEYS[1], 'active_ms', ARGV[11], 'autoplay', 0)
else
  redis.call('HINCRBY', KEYS[1], 'autoplay', 1)
end
local ttl = tonumber(ARGV[12])
if ttl > 0 then
  for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ttl) end
end
if KEYS[4] then
  if ARGV[4] == 'finished' then
    redis.call('SREM', KEYS[4], ARGV[14])
    redis.call('ZREM', KEYS[5], ARGV[14])
  elseif tonumber(ARGV[15]) > 0 then
    redis.call('ZADD', KEYS[5], ARGV[15], ARGV[14])
  end
  -- a hint for watchers, last and unchecked: no refusal here may undo the commit
  redis.pcall('PUBLISH', 'curia:versions',
              ARGV[14] .. ' ' .. version .. ' ' .. ARGV[17] .. ' ' .. ARGV[18])
end
return {'ok', tostring(version), forfeits}
"""

#: Whether a waiting game may start: every seat taken and, in a game waiting for its
#: players, each in contact or resigned; and the start itself (the first deciders' clocks
#: run from `now`; the game's keys get the live TTL).
START_WHEN_SETTLED = """
local function settled(key, meta)
  local forfeits = cjson.decode(redis.call('HGET', key, 'forfeits') or '{}')
  for seat = 0, meta['num_seats'] - 1 do
    if redis.call('HEXISTS', key, 'token:' .. seat) == 0 then return false end
    if meta['wait_for_players'] and forfeits[tostring(seat)] == nil
        and redis.call('HEXISTS', key, 'present:' .. seat) == 0 then
      return false
    end
  end
  return true
end
local function start(key, deadline, clock, now, ttl)
  redis.call('HSET', key, 'status', 'in_progress', 'deadline', deadline, 'clock', clock,
             'active_ms', now)
  redis.call('EXPIRE', key, tonumber(ttl))
end
"""

#: KEYS: game hash. ARGV: seats and reasons to add (JSON); then, for a game waiting for
#: its players: the deadline and clock if this settles the last seat, now (ms), the live
#: TTL, why the game ends if every seat has resigned, the finished TTL. Returns the
#: outcome ('forfeited'; 'started' or 'ended' for a game that was waiting) and the merged
#: forfeits; false if the game is not in progress (nor waiting for its players).
FORFEIT_SCRIPT = MERGE_FORFEITS + START_WHEN_SETTLED + """
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'in_progress' then return {'forfeited', merge_forfeits(KEYS[1], ARGV[1])} end
if status ~= 'waiting' then return false end
local meta = cjson.decode(redis.call('HGET', KEYS[1], 'meta'))
if not meta['wait_for_players'] then return false end
local merged = merge_forfeits(KEYS[1], ARGV[1])
if not settled(KEYS[1], meta) then return {'forfeited', merged} end
local forfeits = cjson.decode(merged)
for seat = 0, meta['num_seats'] - 1 do
  if forfeits[tostring(seat)] == nil then
    start(KEYS[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5])
    return {'started', merged}
  end
end
redis.call('HSET', KEYS[1], 'status', 'finished', 'ended', ARGV[6], 'deadline', 0)
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[7]))
return {'ended', merged}
"""

#: KEYS: game hash. ARGV: seat, token hash, deadline and clock when this seat was the
#: last one awaited, now (ms), the live TTL.
JOIN_SCRIPT = START_WHEN_SETTLED + """
if redis.call('EXISTS', KEYS[1]) == 0 then return 'missing' end
if redis.call('HEXISTS', KEYS[1], 'token:' .. ARGV[1]) == 1 then return 'taken' end
redis.call('HSET', KEYS[1], 'token:' .. ARGV[1], ARGV[2], 'active_ms', ARGV[5])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[6]))
local meta = cjson.decode(redis.call('HGET', KEYS[1], 'meta'))
if redis.call('HGET', KEYS[1], 'status') ~= 'waiting' or not settled(KEYS[1], meta) then
  return 'joined'
end
start(KEYS[1], ARGV[3], ARGV[4], ARGV[5], ARGV[6])
return 'started'
"""

#: KEYS: game hash. ARGV: seat, now (ms), the deadline and clock if this is the last seat
#: awaited, the live TTL. A seat's first contact with a game waiting for its players:
#: 'present' (marked), 'started' (marked, and it was the last one awaited), 'known'
#: (marked before) or 'not_waiting' (started, finished or gone: nothing changes).
CONTACT_SCRIPT = START_WHEN_SETTLED + """
if redis.call('HGET', KEYS[1], 'status') ~= 'waiting' then return 'not_waiting' end
if redis.call('HSETNX', KEYS[1], 'present:' .. ARGV[1], ARGV[2]) == 0 then return 'known' end
if not settled(KEYS[1], cjson.decode(redis.call('HGET', KEYS[1], 'meta'))) then
  return 'present'
end
start(KEYS[1], ARGV[3], ARGV[4], ARGV[2], ARGV[5])
return 'started'
"""

#: KEYS: game hash, log stream, requests hash. ARGV: expected version, why it ended, ttl,
#: expected lineage. Ends a game in progress without a result; false if it moved on (or
#: is on another lineage) or is not in progress.
ABANDON_SCRIPT = """
if redis.call('HGET', KEYS[1], 'status') ~= 'in_progress' then return false end
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return false end
if (redis.call('HGET', KEYS[1], 'lineage') or '') ~= ARGV[4] then return false end
redis.call('HSET', KEYS[1], 'status', 'finished', 'ended', ARGV[2], 'deadline', 0)
for _, key in ipairs(KEYS) do redis.call('EXPIRE', key, tonumber(ARGV[3])) end
return true
"""

#: KEYS: game hash, log stream, requests hash. ARGV: the final version, the compact
#: record (request ids included), the ttl, the compressed state (the game's hash is
#: written anew: no space left over from the values it held in play). A finished game
#: becomes its record (see GameStore.compact); false if the game is not finished at that
#: version.
COMPACT_SCRIPT = """
if redis.call('HGET', KEYS[1], 'status') ~= 'finished' then return false end
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return false end
local fields = redis.call('HGETALL', KEYS[1])
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('HSET', KEYS[1], 'record', ARGV[2], 'state', ARGV[4])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return true
"""

#: KEYS: game hash, log stream, requests hash. Deletes a game still waiting for seats (or
#: already gone); false if it has started.
EXPIRE_WAITING_SCRIPT = """
local status = redis.call('HGET', KEYS[1], 'status')
if status and status ~= 'waiting' then return false end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
return true
"""


def next_lineage(chain: bytes, parent: str, seat: int, notation: str, cause: str) -> str:
    """The lineage of the version a decision makes (see the module's docstring)."""
    text = f"{parent}\n{seat}\n{cause}\n{notation}".encode()
    return hmac.new(chain, text, hashlib.sha256).hexdigest()[:16]


def new_chain() -> str:
    """A game's secret chain key: 128 random bits (hexadecimal)."""
    return secrets.token_hex(16)


def token_hash(token: str) -> str:
    """What the store keeps of a seat token: its SHA-256, never the token itself."""
    return hashlib.sha256(token.encode()).hexdigest()


def now_ms() -> int:
    return int(time.time() * 1000)


def keys(game_id: str) -> tuple[str, str, str]:
    tag = f"curia:{{{game_id}}}"
    return f"{tag}:game", f"{tag}:log", f"{tag}:requests"


@dataclass
class StoredGame:
    """One game as read from Redis."""

    game_id: str
    meta: dict[str, Any]
    state: bytes
    version: int
    status: str
    token_hashes: dict[int, str]
    forfeits: dict[int, str] = field(default_factory=dict)
    deadline: int = 0
    clock: dict[str, Any] = field(default_factory=dict)
    active_ms: int = 0
    autoplay: int = 0
    ended: str = ""
    #: The seats that have made contact with a game waiting for its players.
    present: frozenset[int] = frozenset()
    #: The current version's lineage ("" at version 0; see the module's docstring).
    lineage: str = ""
    #: The secret key of the game's lineage chain.
    chain: bytes = b""

    def copy(self) -> StoredGame:
        """A shallow copy (copy.copy, without its generic machinery: this is per request)."""
        twin = object.__new__(StoredGame)
        twin.__dict__.update(self.__dict__)
        return twin


@dataclass(frozen=True)
class LogEntry:
    """One applied decision, as kept in the game's stream."""

    version: int
    seat: int
    notation: str
    cause: str
    events: str
    ms: int
    deadline: int
    forfeits: dict[int, str]
    clock: dict[str, Any]
    #: The lineage of this version and of the one before ("" where unknown).
    lineage: str = ""
    parent: str = ""


@dataclass(frozen=True)
class Forfeit:
    """What the forfeit script answered: 'forfeited', or, for a game that was waiting for
    its players, 'started' (the last seat awaited resigned) or 'ended' (every seat has
    resigned: over without a result); and the merged forfeits."""

    outcome: str
    forfeits: dict[int, str]


@dataclass(frozen=True)
class Commit:
    """What the commit script answered: 'ok', 'duplicate', 'stale', 'diverged' (the
    version matches but on another lineage: the state the commit was built on was lost),
    'not_in_progress' (ended meanwhile, e.g. abandoned) or 'missing'; with 'ok', the
    merged forfeits."""

    outcome: str
    version: int
    forfeits: dict[int, str] | None = None


class GameStore:
    """Async access to the games in one Redis (or Redis Cluster)."""

    def __init__(self, client: Any, finished_ttl: int = 7 * 24 * 3600,
                 idle_ttl: int = DEFAULT_IDLE_TTL, watch_client: Any = None,
                 link: RedisLink | None = None, feed: VersionFeed | None = None) -> None:
        #: a redis.asyncio client (typed Any: redis-py's stubs do not follow decode options)
        self.redis: Any = client
        #: the client of the watchers' blocking reads (XREAD BLOCK holds a connection
        #: while it waits): another pool, so that watchers never starve the requests
        self.watch_redis: Any = watch_client if watch_client is not None else client
        #: the hot path's pipelined connection (a decision's commit, a game's load, a
        #: watcher's read of the log), when the URL allows one; else redis-py serves those
        self.link = link
        #: new versions announced by the commit script (one Redis); None: watchers block
        #: in XREAD each (a Cluster)
        self.feed = feed
        #: a Redis Cluster: the cross-game indexes live in other slots than a game's keys
        self.cluster = isinstance(client, aioredis.RedisCluster)
        self.finished_ttl = finished_ttl
        #: seconds without a create, join or seat decision after which a live game ends
        self.idle_ttl = idle_ttl
        self._create = client.register_script(CREATE_SCRIPT)
        self._adopt_chain = client.register_script(ADOPT_CHAIN_SCRIPT)
        self._reserve_live = client.register_script(RESERVE_LIVE_SCRIPT)
        self._commit = client.register_script(COMMIT_SCRIPT)
        self._commit_sha = link.script(COMMIT_SCRIPT) if link is not None else ""
        self._join = client.register_script(JOIN_SCRIPT)
        self._contact = client.register_script(CONTACT_SCRIPT)
        self._forfeit = client.register_script(FORFEIT_SCRIPT)
        self._abandon = client.register_script(ABANDON_SCRIPT)
        self._expire_waiting = client.register_script(EXPIRE_WAITING_SCRIPT)
        self._compact = client.register_script(COMPACT_SCRIPT)

    @classmethod
    def from_url(cls, url: str, finished_ttl: int = 7 * 24 * 3600,
                 idle_ttl: int = DEFAULT_IDLE_TTL) -> GameStore:
        """`redis://host:port/db` for one Redis, `redis+cluster://host:port` for a Cluster
        (any node; the others are discovered)."""
        if url.startswith(CLUSTER_SCHEME):
            node = "redis://" + url[len(CLUSTER_SCHEME):]
            return cls(aioredis.RedisCluster.from_url(node, socket_timeout=SOCKET_TIMEOUT_S),
                       finished_ttl, idle_ttl)
        pool = aioredis.BlockingConnectionPool.from_url(
            url, max_connections=POOL_CONNECTIONS, timeout=POOL_WAIT_S,
            socket_timeout=SOCKET_TIMEOUT_S)
        watchers = aioredis.from_url(url, socket_timeout=SOCKET_TIMEOUT_S,
                                     max_connections=WATCH_CONNECTIONS)
        # (a subscription waits for messages as long as it takes: no socket timeout)
        link = RedisLink.for_url(url, SOCKET_TIMEOUT_S)
        feed = VersionFeed(aioredis.from_url(url, socket_keepalive=True), address=link)
        return cls(aioredis.Redis.from_pool(pool), finished_ttl, idle_ttl, watchers, link,
                   feed)

    @property
    def live_ttl(self) -> int:
        """The TTL of a live game's keys: a backstop, should no sweeper end the game
        (twice the idle limit, and at least a minute past it)."""
        return self.idle_ttl + max(self.idle_ttl, 60)

    def next_look(self, deadline: int, active_ms: int) -> int:
        """When the sweeper must look at a live game: its decision deadline, or when it
        has been idle too long, whichever comes first."""
        idle_at = active_ms + self.idle_ttl * 1000
        return min(deadline, idle_at) if deadline else idle_at

    async def close(self) -> None:
        await self.redis.aclose()
        if self.link is not None:
            await self.link.close()
        if self.feed is not None:
            await self.feed.close()
            await self.feed.client.aclose()
        if self.watch_redis is not self.redis:
            await self.watch_redis.aclose()

    async def create(self, game_id: str, meta: dict[str, Any], state: bytes, status: str,
                     token_hashes: dict[int, str], deadline: int,
                     clock: dict[str, Any]) -> None:
        """Write a new game and its entries in the two indexes, whole or not at all (see
        the module docstring); KeyError if the id is taken."""
        game_key = keys(game_id)[0]
        created_ms = now_ms()
        fields: dict[str, Any] = {"meta": json.dumps(meta), "state": state, "version": 0,
                                  "status": status, "forfeits": "{}", "deadline": deadline,
                                  "clock": _dumps(clock), "active_ms": created_ms,
                                  "autoplay": 0, "chain": new_chain()}
        fields.update({f"token:{seat}": h for seat, h in token_hashes.items()})
        pairs = [item for name, value in fields.items() for item in (name, value)]
        look = self.next_look(deadline, created_ms)
        args = [self.live_ttl, game_id, look, *pairs]
        with series(REDIS_SECONDS, "create").time():
            if not self.cluster:  # the game and its index entries in one script
                if not await self._create(keys=[game_key, DEADLINES, ACTIVE], args=args):
                    raise KeyError(f"game {game_id} exists")
                return
            # A Cluster: the indexes live in other slots, out of the script's reach. They
            # are written first, so a failure leaves at most entries without a game (the
            # sweeper drops them when they come due), never a game outside them; and again
            # after, should a sweeper have dropped them while the game was being written.
            await self.schedule(game_id, look)
            await self.redis.sadd(ACTIVE, game_id)
            if not await self._create(keys=[game_key], args=args):
                raise KeyError(f"game {game_id} exists")
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    pipe.zadd(DEADLINES, {game_id: look})
                    pipe.sadd(ACTIVE, game_id)
                    await pipe.execute()
            except aioredis.RedisError as error:  # the entries written before stand
                log.warning("indexing a created game again failed", extra={
                    "game_id": game_id, "error": f"{type(error).__name__}: {error}"})

    async def read(self, *command: Any) -> Any:
        """One reading command's raw reply (HGET, LINDEX, ...), on the pipelined
        connection where there is one (what a Play stream reads as a game starts)."""
        return await (self.link.execute(*command) if self.link is not None
                      else self.redis.execute_command(*command))

    async def read_hash(self, key: str) -> dict[bytes, bytes]:
        """A whole hash (HGETALL), on the pipelined connection where there is one (a
        Play stream's look for its games)."""
        return await (self.link.hgetall(key) if self.link is not None
                      else self.redis.hgetall(key))

    async def load(self, game_id: str) -> StoredGame | None:
        with series(REDIS_SECONDS, "load").time():
            key = keys(game_id)[0]
            raw = await (self.link.hgetall(key) if self.link is not None
                         else self.redis.hgetall(key))
        if not raw or b"meta" not in raw:
            return None
        chain = raw.get(b"chain") or await self.adopt_chain(game_id)
        if chain is None:  # gone since it was read
            return None
        tokens = {int(k[6:]): v.decode() for k, v in raw.items() if k.startswith(b"token:")}
        present = frozenset(int(k[8:]) for k in raw if k.startswith(b"present:"))
        return StoredGame(
            game_id=game_id, meta=orjson.loads(raw[b"meta"]), state=raw[b"state"],
            version=int(raw[b"version"]), status=raw[b"status"].decode(),
            token_hashes=tokens, forfeits=_forfeits(raw.get(b"forfeits", b"{}")),
            deadline=int(raw.get(b"deadline", b"0")),
            clock=orjson.loads(raw.get(b"clock", b"{}")),
            active_ms=int(raw.get(b"active_ms", b"0")), autoplay=int(raw.get(b"autoplay", b"0")),
            ended=raw.get(b"ended", b"").decode(), present=present,
            lineage=raw.get(b"lineage", b"").decode(), chain=chain)

    async def request_version(self, game_id: str, seat: int, request_id: str) -> int | None:
        """The version a request id already produced for this seat, if any: from the
        game's request ids, or from its compact record once it is finished."""
        game_key, _, requests_key = keys(game_id)
        request_key = f"{seat}:{request_id}"
        with series(REDIS_SECONDS, "request").time():
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.hget(requests_key, request_key)
                pipe.hget(game_key, RECORD_FIELD)
                found, record = await pipe.execute()
        if found is None and record is not None:
            found = record_requests(record).get(request_key)
        return int(found) if found is not None else None

    async def commit(self, game_id: str, expected_version: int, state: bytes, *,
                     request_key: str, status: str, deadline: int,
                     new_forfeits: dict[int, str], clock: dict[str, Any], seat: int,
                     notation: str, cause: str, events: str, expected_lineage: str,
                     lineage: str, movers: tuple[int, ...] = ()) -> Commit:
        """Compare-and-set the next version (at `expected_version` on `expected_lineage`,
        the new one on `lineage`), append its log entry, record the request; the version
        is announced with the seats that must decide at it (`movers`)."""
        ttl = self.finished_ttl if status == "finished" else self.live_ttl
        now = now_ms()
        look = self.next_look(deadline, now) if deadline or cause == "seat" else 0
        args = [expected_version, state, request_key, status, deadline,
                _dumps(new_forfeits), seat, notation,
                cause, events, now, ttl, _dumps(clock), game_id, look, expected_lineage,
                lineage, movers_word(status, movers)]
        indexes = [] if self.cluster else [ACTIVE, DEADLINES]  # a Cluster: another slot
        with series(REDIS_SECONDS, "commit").time():
            script_keys = [*keys(game_id), *indexes]
            answer = await (self.link.evalsha(self._commit_sha, script_keys, args)
                            if self.link is not None
                            else self._commit(keys=script_keys, args=args))
        result = Commit(answer[0].decode(), int(answer[1]),
                        _forfeits(answer[2]) if len(answer) > 2 else None)
        if result.outcome == "ok" and self.cluster:
            if status == "finished":
                await self.forget(game_id)
            elif look:
                await self.schedule(game_id, look)
        return result

    async def exists(self, game_id: str) -> bool:
        """Whether the game is stored."""
        return bool(await self.redis.exists(keys(game_id)[0]))

    async def forget(self, game_id: str) -> None:
        """Take a game that is no longer live out of the indexes."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.srem(ACTIVE, game_id)
            pipe.zrem(DEADLINES, game_id)
            await pipe.execute()

    async def abandon(self, game_id: str, version: int, reason: str, lineage: str) -> bool:
        """End a game in progress at `version` on `lineage` without a result; False if it
        moved on."""
        with series(REDIS_SECONDS, "abandon").time():
            ended = await self._abandon(keys=list(keys(game_id)),
                                        args=[version, reason, self.finished_ttl, lineage])
        if ended:
            await self.forget(game_id)
        return bool(ended)

    async def expire_waiting(self, game_id: str) -> bool:
        """Delete a game still waiting for seats; False if it has started meanwhile."""
        deleted = await self._expire_waiting(keys=list(keys(game_id)))
        if deleted:
            await self.forget(game_id)
        return bool(deleted)

    async def join(self, game_id: str, seat: int, hashed: str, deadline: int,
                   clock: dict[str, Any]) -> str:
        """Take an open seat: 'joined', 'started' (the last one awaited), 'taken' or
        'missing'."""
        now = now_ms()
        with series(REDIS_SECONDS, "join").time():
            answer = await self._join(keys=[keys(game_id)[0]], args=[
                seat, hashed, deadline, _dumps(clock), now, self.live_ttl])
        outcome = _text(answer)
        if outcome in ("joined", "started"):
            await self._look_after_start(game_id, outcome, deadline, now)
        return outcome

    async def contact(self, game_id: str, seat: int, deadline: int,
                      clock: dict[str, Any]) -> str:
        """A seat's first contact with a game waiting for its players (CONTACT_SCRIPT):
        'present', 'started' (the last seat awaited), 'known' or 'not_waiting'."""
        now = now_ms()
        with series(REDIS_SECONDS, "contact").time():
            answer = await self._contact(keys=[keys(game_id)[0]], args=[
                seat, now, deadline, _dumps(clock), self.live_ttl])
        outcome = _text(answer)
        if outcome == "started":
            await self._look_after_start(game_id, outcome, deadline, now)
        return outcome

    async def _look_after_start(self, game_id: str, outcome: str, deadline: int,
                                now: int) -> None:
        """File when the sweeper must next look at a game joined or just started."""
        await self.schedule(game_id, self.next_look(deadline if outcome == "started" else 0,
                                                    now))

    async def forfeit(self, game_id: str, seat: int, reason: str, *, deadline: int = 0,
                      clock: dict[str, Any] | None = None, ended: str = "") -> Forfeit | None:
        """Add a forfeit to a game in progress, or waiting for its players (`deadline` and
        `clock` start it if this settles the last seat; `ended` is why it ends if every
        seat has resigned); None if the game is neither."""
        now = now_ms()
        with series(REDIS_SECONDS, "forfeit").time():
            answer = await self._forfeit(keys=[keys(game_id)[0]], args=[
                json.dumps({str(seat): reason}), deadline, _dumps(clock or {}), now,
                self.live_ttl, ended, self.finished_ttl])
        if not answer:
            return None
        outcome = _text(answer[0])
        if outcome == "started":
            await self._look_after_start(game_id, outcome, deadline, now)
        elif outcome == "ended":
            await self.forget(game_id)
        return Forfeit(outcome, _forfeits(answer[1]))

    async def log(self, game_id: str, after_version: int = 0,
                  up_to: int | None = None) -> list[LogEntry]:
        """Log entries with after_version < version <= up_to: from the stream, or from the
        compact record of a finished game (entries without events, see `compact`)."""
        end = f"{up_to}-1" if up_to is not None else "+"
        game_key, log_key, _ = keys(game_id)
        with series(REDIS_SECONDS, "log").time():
            if self.link is not None:  # the reads in one write on the pipelined connection
                found, record, chain = await self.link.execute_all([
                    ("XRANGE", log_key, f"({after_version}-1", end),
                    ("HGET", game_key, RECORD_FIELD), ("HGET", game_key, "chain")])
                rows = stream_rows(found)
            else:
                rows = await self.redis.xrange(log_key, f"({after_version}-1", end)
                record, chain = ((None, None) if rows else
                                 await self.redis.hmget(game_key, RECORD_FIELD, "chain"))
        if rows:
            return [_entry(entry_id, fields) for entry_id, fields in rows]
        if record is None:
            return []
        chain = chain or await self.adopt_chain(game_id)
        if chain is None:  # gone since it was read
            return []
        return [e for e in record_entries(record, chain)
                if after_version < e.version and (up_to is None or e.version <= up_to)]

    async def adopt_chain(self, game_id: str) -> bytes | None:
        """The chain key of a game stored before lineages (it has none): a random one,
        written by the first server that reads the game (ADOPT_CHAIN_SCRIPT), never one
        anybody could derive from the public game id; None if the game is gone."""
        with series(REDIS_SECONDS, "adopt_chain").time():
            chain = await self._adopt_chain(keys=[keys(game_id)[0]], args=[new_chain()])
        return chain if isinstance(chain, bytes) else None

    async def compact(self, game_id: str, version: int) -> bool:
        """Keep a finished game as its record: the decisions (seat, notation, cause, time),
        forfeits and request ids, compressed, in the game's hash; the stream and the
        request hash go (events and views are regenerated by replay; a retry of any
        applied request still answers its first outcome, duplicate)."""
        game_key, log_key, requests_key = keys(game_id)
        if self.link is not None:  # the reads in one write on the pipelined connection
            found, state, flat = await self.link.execute_all([
                ("XRANGE", log_key, "-", "+"), ("HGET", game_key, "state"),
                ("HGETALL", requests_key)])
            rows, requests = stream_rows(found), dict(zip(flat[::2], flat[1::2], strict=True))
        else:
            rows = await self.redis.xrange(log_key)
            state = await self.redis.hget(game_key, "state")
            requests = await self.redis.hgetall(requests_key)
        if not rows or state is None or _entry(*rows[-1]).version != version:
            return False
        blob = compact_record(_record_entries(rows), requests)
        with series(REDIS_SECONDS, "compact").time():
            done = await self._compact(keys=[game_key, log_key, requests_key], args=[
                version, blob, self.finished_ttl, compress_state(state)])
        return bool(done)

    async def wait_log(self, game_id: str, after_version: int,
                       block_ms: int = WAIT_BLOCK_MS) -> list[LogEntry]:
        """Block until entries after `after_version` exist (or the time runs out): woken by
        the version feed while it is live, else in a blocking XREAD (a Cluster too)."""
        if self.feed is not None and self.feed.live():
            return await self._wait_for_feed(game_id, after_version, block_ms)
        stream = keys(game_id)[1]
        answer = await self.watch_redis.xread({stream: f"{after_version}-1"}, block=block_ms,
                                        count=100)
        return [_entry(i, f) for _, rows in answer for i, f in rows]

    async def _wait_for_feed(self, game_id: str, after_version: int,
                             block_ms: int) -> list[LogEntry]:
        assert self.feed is not None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + block_ms / 1000
        while True:
            woken = self.feed.waiter(game_id)  # before reading: no version can slip by
            try:
                entries = await self.log(game_id, after_version)
                left = deadline - loop.time()
                if entries or left <= 0:
                    return entries
                if not await woken_within(woken, left):
                    return []
            finally:
                self.feed.discard(game_id, woken)

    async def schedule(self, game_id: str, deadline: int) -> None:
        await self.redis.zadd(DEADLINES, {game_id: deadline})

    async def due(self, now: int, limit: int = 100) -> list[str]:
        """Games whose deadline has passed, by the index (check the game's own field)."""
        ids = await self.redis.zrangebyscore(DEADLINES, "-inf", now, start=0, num=limit)
        return [i.decode() for i in ids]

    async def unschedule(self, game_id: str) -> None:
        await self.redis.zrem(DEADLINES, game_id)

    async def reserve_live(self, game_id: str, cap: int) -> bool:
        """Count `game_id` among the live games unless `cap` are live already (atomic:
        concurrent creates never exceed it); `forget` gives the place back."""
        return bool(await self._reserve_live(keys=[ACTIVE], args=[cap, game_id]))

    async def active_games(self) -> int:
        return int(await self.redis.scard(ACTIVE))


def movers_word(status: str, movers: tuple[int, ...]) -> str:
    """The seats to decide as the version feed announces them: "0,2"; "-" for every
    seat (the game is over: each seat must look)."""
    if status != "in_progress" or not movers:
        return "-"
    return ",".join(str(seat) for seat in movers)


def _entry(entry_id: bytes, fields: dict[bytes, bytes]) -> LogEntry:
    return LogEntry(
        version=int(entry_id.split(b"-")[0]), seat=int(fields[b"seat"]),
        notation=fields[b"notation"].decode(), cause=fields[b"cause"].decode(),
        events=fields[b"events"].decode(), ms=int(fields[b"ms"]),
        deadline=int(fields[b"deadline"]), forfeits=_forfeits(fields[b"forfeits"]),
        clock=orjson.loads(fields.get(b"clock", b"{}")),
        lineage=fields.get(b"lineage", b"").decode(),
        parent=fields.get(b"parent", b"").decode())


def _record_entries(rows: list[tuple[bytes, dict[bytes, bytes]]]) -> list[LogEntry]:
    """Log rows read for a compact record: only what it keeps (no events, no clock; the
    forfeits parsed where they change)."""
    entries: list[LogEntry] = []
    raw, forfeits = b"", {}
    for entry_id, fields in rows:
        if fields[b"forfeits"] != raw:
            raw, forfeits = fields[b"forfeits"], _forfeits(fields[b"forfeits"])
        entries.append(LogEntry(
            version=int(entry_id.split(b"-")[0]), seat=int(fields[b"seat"]),
            notation=fields[b"notation"].decode(), cause=fields[b"cause"].decode(),
            events="", ms=int(fields[b"ms"]), deadline=0, forfeits=forfeits, clock={}))
    return entries


RECORD_FIELD = "record"


def compress_state(state: bytes) -> bytes:
    """A finished game's state, zlib-compressed (`games.load` reads both forms)."""
    return state if state[:1] == b"x" else zlib.compress(state, 9)


def compact_record(entries: list[LogEntry],
                   requests: dict[bytes, bytes] | None = None) -> bytes:
    """A finished game's decisions, forfeits and request ids, compressed: [[seat,
    notation, cause, ms since the previous decision], ...], the versions where the
    forfeits changed, and {"<seat>:<request id>": version}."""
    changes: list[list[Any]] = []
    before: dict[int, str] = {}
    for entry in entries:
        if entry.forfeits != before:
            changes.append([entry.version, entry.forfeits])
            before = entry.forfeits
    times = [0] + [e.ms for e in entries]
    data = {"decisions": [[e.seat, e.notation, e.cause, e.ms - times[i]]
                          for i, e in enumerate(entries)],
            "forfeits": changes,
            "requests": {key.decode(): int(version)
                         for key, version in (requests or {}).items()}}
    return zlib.compress(orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS), 9)


def record_entries(blob: bytes, chain: bytes) -> list[LogEntry]:
    """The log entries of a compact record: no events (replay makes them), no clock;
    their lineages from the game's chain key."""
    data = orjson.loads(zlib.decompress(blob))
    changes = {version: _forfeits(orjson.dumps(forfeits))
               for version, forfeits in data["forfeits"]}
    entries: list[LogEntry] = []
    forfeits: dict[int, str] = {}
    ms = 0
    lineage = ""
    for version, (seat, notation, cause, delta) in enumerate(data["decisions"], start=1):
        forfeits = changes.get(version, forfeits)
        ms += delta
        parent, lineage = lineage, next_lineage(chain, lineage, seat, notation, cause)
        entries.append(LogEntry(version=version, seat=seat, notation=notation, cause=cause,
                                events="", ms=ms, deadline=0, forfeits=forfeits, clock={},
                                lineage=lineage, parent=parent))
    return entries


def record_requests(blob: bytes) -> dict[str, int]:
    """The request ids of a compact record ("<seat>:<request id>" -> version); none in
    a record compacted before they were kept."""
    requests: dict[str, int] = orjson.loads(zlib.decompress(blob)).get("requests", {})
    return requests


def _dumps(value: Any) -> bytes:
    """Compact JSON (integer keys written as strings, as the json module does)."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


def _text(answer: bytes | str) -> str:
    return answer.decode() if isinstance(answer, bytes) else str(answer)


def _forfeits(text: bytes | str) -> dict[int, str]:
    return {int(seat): reason for seat, reason in json.loads(text).items()}
