"""Every league record stored in Redis: its key, its typed form, its stored form.

The one schema of a league's state (as fishtest's `schemas` module is of its runs): each
record is a dataclass with `to_redis`/`from_redis` (a Redis hash, or the string of a hash
field) or `to_json`/`from_json` (a JSON object in a hash field or a list), and every
module that reads or writes league state goes through it. Reading checks each field's
type: a malformed record raises `RecordError`, which names the Redis key (and hash field
or list position) and the record's field.

It lives in `service/` and not in `league/` because the server reads these records (the
Play stream's bot keys, the league pages' `LeagueReader`) and the service may not import
the `league` package (imports run games <- curia_api <- client/service <-
hosting/arena/league <- curia); `league/`, `hosting/` and the pages import it from here.

The layout (a league's keys share one hash tag, `curia:league:{NAME}:…`, so that its
scripts run on one Redis Cluster node):

- `curia:leagues` set: every league's name;
- `curia:bot-keys` hash: SHA-256 of a bot key -> `BotAccount` ("league/bot");
- `…:conf` hash: `LeagueSettings`;
- `…:bots` hash: bot -> `BotEntry` (JSON);
- `…:live` hash: game id -> `LiveTable` (JSON);
- `…:results` list: `GameResult` (JSON), in the order games ended; `…:rated` set: their ids;
- `…:history` list: `HistoryEntry` (JSON: the ladder, `LadderRow`s, after each result);
- `…:last_table` hash: bot -> `LastTable` (JSON list);
- `…:seats:BOT` hash: game id -> the bot's seat token;
- `…:online` sorted set, `…:streams`, `…:capacity`, `…:clients` hashes: a Play stream's
  presence (service/play.py); `…:ended` set; `…:lease` string;
- `…:jobs` stream: hosted bots' seats (the job's fields are hosting.seat_jobs.Job's,
  shared with tournaments' streams: a hosting record, not a league one);
- `curia:workers` sorted set (worker -> its last heartbeat, unix ms) and `curia:worker:NAME`
  hash: `WorkerBeat`, written by `curia league worker`, read by the matchmaker and pages.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import games
from ratings.pooled import PairwiseStats

#: Every league's name.
LEAGUES_KEY = "curia:leagues"
#: SHA-256 of a bot key -> "league/bot".
BOT_KEYS_KEY = "curia:bot-keys"
#: The workers' heartbeats: worker name -> its last heartbeat (unix ms).
WORKERS_KEY = "curia:workers"
#: League and bot names: letters, digits, `-`, `_`, `.`; at most 40 characters.
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
#: A league's status.
STATUSES = ("open", "paused", "closed")


def league_key(league: str, part: str) -> str:
    return f"curia:league:{{{league}}}:{part}"


def seats_key(league: str, bot: str) -> str:
    """A bot's seats: game id -> its seat token."""
    return league_key(league, f"seats:{bot}")


def jobs_key(league: str) -> str:
    """The league's stream of hosted bots' seats."""
    return league_key(league, "jobs")


def worker_key(worker: str) -> str:
    """A worker's heartbeat hash (`WorkerBeat`)."""
    return f"curia:worker:{worker}"


def text(value: bytes | str) -> str:
    """A Redis reply as text (the league clients do not decode replies)."""
    return value.decode() if isinstance(value, bytes) else value


def check_name(kind: str, name: str) -> str:
    """`name` if it is a valid league or bot name, else ValueError saying why."""
    if not NAME_PATTERN.fullmatch(name):
        raise ValueError(f"{kind} name {name!r}: use 1-40 letters, digits, '-', '_' or '.', "
                         f"starting with a letter or digit")
    return name


# ---------------------------------------------------------------------------------------
# Reading fields with their types checked
# ---------------------------------------------------------------------------------------
class RecordError(ValueError):
    """A stored league record that is not as the schema says: the key and field named."""

    def __init__(self, where: str, name: str, problem: str) -> None:
        super().__init__(f"{where}: field {name!r}: {problem}")
        self.where, self.field, self.problem = where, name, problem


_MISSING: Any = object()


class Fields:
    """A record's stored fields, each read with its type checked (`RecordError` else)."""

    def __init__(self, where: str, raw: Mapping[Any, Any]) -> None:
        self.where = where
        self.raw = {text(key): value for key, value in raw.items()}

    def _value(self, name: str, default: Any) -> Any:
        if name in self.raw:
            return self.raw[name]
        if default is _MISSING:
            raise RecordError(self.where, name, "missing")
        return default

    def _checked(self, name: str, default: Any, ok: Callable[[Any], bool],
                 expected: str) -> Any:
        value = self._value(name, default)
        if value is not default and not ok(value):
            raise RecordError(self.where, name, f"expected {expected}, got {value!r}")
        return value

    def string(self, name: str, default: Any = _MISSING) -> Any:
        return self._checked(name, default, lambda v: isinstance(v, str), "text")

    def integer(self, name: str, default: Any = _MISSING) -> Any:
        return self._checked(name, default, _is_int, "an integer")

    def number(self, name: str, default: Any = _MISSING) -> Any:
        value = self._checked(name, default, lambda v: _is_int(v) or isinstance(v, float),
                              "a number")
        return float(value) if value is not default else value

    def flag(self, name: str, default: Any = _MISSING) -> Any:
        return self._checked(name, default, lambda v: isinstance(v, bool), "true or false")

    def names(self, name: str, default: Any = _MISSING) -> Any:
        value = self._checked(name, default, _is_names, "a list of names")
        return list(value) if value is not default else value

    def seats(self, name: str, default: Any = _MISSING) -> Any:
        value = self._checked(name, default, _is_seats, "a list of seat numbers")
        return list(value) if value is not default else value

    def groups(self, name: str, default: Any = _MISSING) -> Any:
        value = self._checked(name, default,
                              lambda v: isinstance(v, list) and all(map(_is_seats, v)),
                              "a list of lists of seat numbers")
        return [list(group) for group in value] if value is not default else value

    def mapping(self, name: str, default: Any = _MISSING) -> Any:
        value = self._checked(name, default, lambda v: isinstance(v, dict), "an object")
        return dict(value) if value is not default else value

    # a Redis hash's fields are strings: the number or JSON they hold
    def hash_text(self, name: str, default: Any = _MISSING) -> Any:
        value = self._value(name, default)
        return text(value) if value is not default else value

    def hash_int(self, name: str, default: Any = _MISSING) -> Any:
        value = self.hash_text(name, default)
        if value is default:
            return value
        try:
            return int(value)
        except ValueError:
            raise RecordError(self.where, name, f"expected an integer, got {value!r}") \
                from None

    def hash_json(self, name: str, default: Any = _MISSING) -> Any:
        value = self.hash_text(name, default)
        if value is default:
            return value
        try:
            return json.loads(value)
        except ValueError:
            raise RecordError(self.where, name, f"expected JSON, got {value!r}") from None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _is_seats(value: Any) -> bool:
    return isinstance(value, list) and all(map(_is_int, value))


def json_object(where: str, raw: bytes | str | Mapping[str, Any]) -> Fields:
    """The fields of a JSON object stored at `where` (RecordError if it is not one)."""
    if isinstance(raw, Mapping):
        return Fields(where, raw)
    try:
        value = json.loads(raw)
    except ValueError:
        raise RecordError(where, "*", f"expected a JSON object, got {text(raw)!r}") from None
    if not isinstance(value, dict):
        raise RecordError(where, "*", f"expected a JSON object, got {value!r}")
    return Fields(where, value)


def hash_field(key: str, name: str) -> str:
    """How an error names a record kept in a hash field."""
    return f"{key}[{name}]"


# ---------------------------------------------------------------------------------------
# The records
# ---------------------------------------------------------------------------------------
class LeagueError(ValueError):
    """An operator request that cannot be done (the message says why); nothing changed."""


@dataclass
class LeagueSettings:
    """What a league plays and how (`…:conf`, a hash of strings)."""

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
        names = [variant.name for variant in games.GAMES[self.game].variants]
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

    @staticmethod
    def key(league: str) -> str:
        return league_key(league, "conf")

    def to_redis(self) -> dict[str, str]:
        fields = asdict(self)
        fields["options"] = json.dumps(self.options, sort_keys=True)
        fields["rated"] = "1" if self.rated else "0"
        return {key: str(value) for key, value in fields.items()}

    @classmethod
    def from_redis(cls, fields: Mapping[Any, Any], key: str = "conf") -> LeagueSettings:
        raw = Fields(key, fields)
        options = raw.hash_json("options")
        if not isinstance(options, dict):
            raise RecordError(key, "options", f"expected a JSON object, got {options!r}")
        return cls(name=raw.hash_text("name"), game=raw.hash_text("game"),
                   variant=raw.hash_text("variant"), seats=raw.hash_int("seats"),
                   options=options, decision_ms=raw.hash_int("decision_ms"),
                   bank_ms=raw.hash_int("bank_ms"), concurrency=raw.hash_int("concurrency"),
                   max_concurrency=raw.hash_int("max_concurrency"),
                   provisional_games=raw.hash_int("provisional_games"),
                   rated=raw.hash_text("rated") == "1",
                   max_games=raw.hash_int("max_games", 0), status=raw.hash_text("status"))


@dataclass(frozen=True)
class BotAccount:
    """Who a bot key belongs to (`curia:bot-keys`: key hash -> "league/bot")."""

    league: str
    bot: str

    def to_redis(self) -> str:
        return f"{self.league}/{self.bot}"

    @classmethod
    def from_redis(cls, key_hash: str, raw: bytes | str) -> BotAccount:
        league, slash, bot = text(raw).partition("/")
        if not slash or not league or not bot:
            raise RecordError(hash_field(BOT_KEYS_KEY, key_hash), "league/bot",
                              f"expected 'league/bot', got {text(raw)!r}")
        return cls(league, bot)


#: The fields of a bot's entry a page may show (never its key's hash, nor where a hosted
#: bot's manifest is on the workers).
PUBLIC_ENTRY_FIELDS = ("status", "owner", "added_ms", "version", "version_ms",
                       "version_label")


@dataclass
class BotEntry:
    """A bot of a league (`…:bots`, bot -> JSON): its key's hash ("" once revoked), status,
    owner, when it was added, and its manifest if it is hosted (played by workers)."""

    status: str = "active"
    key: str = ""
    added_ms: int = 0
    owner: str = ""
    manifest: str = ""
    version: int = 1
    """Its current version (`curia league new-version`): each its own ladder entry."""
    version_ms: int = 0
    """When its current version began (0: the first, when it was added)."""
    version_label: str = ""
    """The name its current version was given (PlayHello.version; "": none yet)."""

    @property
    def hosted(self) -> bool:
        return bool(self.manifest)

    def rated_as(self, bot: str) -> str:
        """The ladder entry its new games count for (`rated_name`)."""
        return rated_name(bot, self.version)

    def public(self) -> dict[str, Any]:
        """What a page may show (an allow-list: a field added later stays private until
        named in PUBLIC_ENTRY_FIELDS)."""
        shown = {name: getattr(self, name) for name in PUBLIC_ENTRY_FIELDS
                 if name != "version_label" or self.version_label}
        return {**shown, "hosted": self.hosted}

    def to_json(self) -> dict[str, Any]:
        stored = asdict(self)
        if self.version == 1:  # a bot never versioned is stored as before versions
            del stored["version"], stored["version_ms"]
        if not self.version_label:
            del stored["version_label"]
        return stored

    def dumps(self) -> str:
        return json.dumps(self.to_json())

    @classmethod
    def from_json(cls, where: str, raw: bytes | str | Mapping[str, Any]) -> BotEntry:
        fields = json_object(where, raw)
        return cls(status=fields.string("status", "active"), key=fields.string("key", ""),
                   added_ms=fields.integer("added_ms", 0), owner=fields.string("owner", ""),
                   manifest=fields.string("manifest", ""),
                   version=fields.integer("version", 1),
                   version_ms=fields.integer("version_ms", 0),
                   version_label=fields.string("version_label", ""))


def rated_name(bot: str, version: int) -> str:
    """A bot's ladder entry for one of its versions: its name for the first, `NAME@N` for
    the N-th ('@' is in no bot's name)."""
    return bot if version <= 1 else f"{bot}@{version}"


def base_name(rated: str) -> str:
    """The bot a ladder entry is a version of."""
    return rated.partition("@")[0]


def version_of(rated: str) -> int:
    _, _, number = rated.partition("@")
    return int(number) if number.isdigit() else 1


#: A ladder entry's name: a bot's, with `@N` for its N-th version (N >= 2).
RATED_PATTERN = re.compile(NAME_PATTERN.pattern + r"(@[1-9][0-9]{0,5})?")


@dataclass(frozen=True)
class LadderRow:
    """One bot on the ladder: rating (Elo scale), 95% interval, rated games, provisional."""

    bot: str
    elo: float
    low: float
    high: float
    games: int
    """Rated games the bot finished."""
    provisional: bool

    @property
    def margin(self) -> float:
        """Half the interval's width."""
        return (self.high - self.low) / 2

    def rounded(self) -> LadderRow:
        """As the rating history keeps it (ratings to 0.1)."""
        return LadderRow(self.bot, round(self.elo, 1), round(self.low, 1),
                         round(self.high, 1), self.games, self.provisional)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, where: str, raw: Mapping[str, Any]) -> LadderRow:
        fields = json_object(where, raw)
        return cls(bot=fields.string("bot"), elo=fields.number("elo"),
                   low=fields.number("low"), high=fields.number("high"),
                   games=fields.integer("games"), provisional=fields.flag("provisional"))


@dataclass(frozen=True)
class HistoryEntry:
    """The ladder after one result, best first (`…:history`), or after a void."""

    game_id: str
    ms: int
    ladder: tuple[LadderRow, ...] = ()
    voided: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"game_id": self.game_id, "ms": self.ms,
                **({"voided": True} if self.voided else {}),
                "ladder": [row.to_json() for row in self.ladder]}

    def dumps(self) -> str:
        return json.dumps(self.to_json())

    def by_bot(self) -> dict[str, LadderRow]:
        return {row.bot: row for row in self.ladder}

    @classmethod
    def from_json(cls, where: str, raw: bytes | str | Mapping[str, Any]) -> HistoryEntry:
        fields = json_object(where, raw)
        rows = fields._checked("ladder", _MISSING, lambda v: isinstance(v, list), "a list")
        return cls(game_id=fields.string("game_id"), ms=fields.integer("ms"),
                   ladder=tuple(LadderRow.from_json(f"{where} ladder[{number}]", row)
                                for number, row in enumerate(rows)),
                   voided=fields.flag("voided", False))


@dataclass
class GameResult:
    """A finished game of the league (`…:results`): bots by seat, the ranking (groups of
    seats, best first), forfeits and their reasons, rated or not, void and why."""

    game_id: str
    seating: list[str]
    ranking: list[list[int]]
    ended_ms: int | None = None
    forfeits: list[int] = field(default_factory=list)
    reason: str = ""
    reasons: dict[str, str] = field(default_factory=dict)
    rated: bool = True
    void: str = ""

    @property
    def counts(self) -> bool:
        """Whether the ladder counts it (rated and not void)."""
        return self.rated and not self.void

    def to_json(self) -> dict[str, Any]:
        return {"game_id": self.game_id, "seating": list(self.seating),
                **({} if self.ended_ms is None else {"ended_ms": self.ended_ms}),
                "ranking": [list(group) for group in self.ranking],
                "forfeits": list(self.forfeits), "reason": self.reason,
                "reasons": dict(self.reasons), "rated": self.rated,
                **({"void": self.void} if self.void else {})}

    def dumps(self) -> str:
        return json.dumps(self.to_json())

    @classmethod
    def from_json(cls, where: str, raw: bytes | str | Mapping[str, Any]) -> GameResult:
        fields = json_object(where, raw)
        return cls(game_id=fields.string("game_id"), seating=fields.names("seating"),
                   ranking=fields.groups("ranking"), ended_ms=fields.integer("ended_ms", None),
                   forfeits=fields.seats("forfeits", []), reason=fields.string("reason", ""),
                   reasons=fields.mapping("reasons", {}), rated=fields.flag("rated", True),
                   void=fields.string("void", ""))


@dataclass
class LiveTable:
    """A game being played (`…:live`, game id -> JSON): bots by seat, when it was made,
    the settings it was made with, whether it waits for hosted seats (their jobs' stream
    entry ids by seat) and a void mark. A field left out (None) was not written."""

    seating: list[str]
    created_ms: int | None = None
    rated: bool | None = None
    game: str | None = None
    variant: str | None = None
    options: dict[str, Any] | None = None
    decision_ms: int | None = None
    bank_ms: int | None = None
    wait: bool = False
    jobs: dict[str, str] | None = None
    void: str = ""
    rated_as: list[str] | None = None
    """The ladder entries the seats count for, when a bot plays as a later version."""

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {"seating": list(self.seating)}
        if self.rated_as is not None:
            found["rated_as"] = list(self.rated_as)
        for name in ("created_ms", "rated", "game", "variant", "options", "decision_ms",
                     "bank_ms"):
            if getattr(self, name) is not None:
                found[name] = getattr(self, name)
        if self.wait:
            found["wait"] = True
        if self.jobs is not None:
            found["jobs"] = dict(self.jobs)
        if self.void:
            found["void"] = self.void
        return found

    def dumps(self) -> str:
        return json.dumps(self.to_json())

    @classmethod
    def from_json(cls, where: str, raw: bytes | str | Mapping[str, Any]) -> LiveTable:
        fields = json_object(where, raw)
        return cls(seating=fields.names("seating"),
                   created_ms=fields.integer("created_ms", None),
                   rated=fields.flag("rated", None), game=fields.string("game", None),
                   variant=fields.string("variant", None),
                   options=fields.mapping("options", None),
                   decision_ms=fields.integer("decision_ms", None),
                   bank_ms=fields.integer("bank_ms", None), wait=fields.flag("wait", False),
                   jobs=fields.mapping("jobs", None), void=fields.string("void", ""),
                   rated_as=fields.names("rated_as", None))


@dataclass(frozen=True)
class LastTable:
    """The bots of a bot's last game (`…:last_table`, bot -> JSON list, sorted)."""

    bots: frozenset[str]

    def dumps(self) -> str:
        return json.dumps(sorted(self.bots))

    @classmethod
    def from_json(cls, where: str, raw: bytes | str) -> LastTable:
        try:
            value = json.loads(raw)
        except ValueError:
            value = None
        if not _is_names(value):
            raise RecordError(where, "*", f"expected a JSON list of bots, got {text(raw)!r}")
        return cls(frozenset(value))


@dataclass(frozen=True)
class WorkerBeat:
    """A worker's last heartbeat (`curia:worker:NAME`, a hash of strings): its slots, the
    free ones (not playing or building a seat) and when (unix ms)."""

    name: str
    slots: int
    free: int
    ms: int

    def to_redis(self) -> dict[str, int]:
        return {"slots": self.slots, "free": self.free, "ms": self.ms}

    @classmethod
    def from_redis(cls, name: str, raw: Mapping[Any, Any]) -> WorkerBeat:
        fields = Fields(worker_key(name), raw)
        slots = fields.hash_int("slots", 0)
        free = fields.hash_int("free", 0)
        return cls(name, slots, max(0, min(free, slots)), fields.hash_int("ms", 0))


def read_pair_stats(where: str, raw: bytes | str) -> PairwiseStats:
    """The ladder's pooled statistics (`…:pairstats`, `PairwiseStats` as JSON): what the
    ladder is fitted from, updated with every result in the script that records it."""
    try:
        return PairwiseStats.from_json(json.loads(raw))
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise RecordError(where, "*", f"not the ladder's statistics: {error}") from None
