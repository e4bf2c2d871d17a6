"""Tournament configuration and bot manifests (TOML files), validated at the boundary.

A tournament is a config plus a seed: the same file gives the same schedule, the same
game seeds and, with deterministic bots, the same results.

Both files are strict: every table lists the keys it takes (`TOURNAMENT_FILE`,
`MANIFEST_FILE`, ... below) with the kind of value each expects, and an unknown key or
section, or a value of the wrong kind, is a ConfigError that names it (and the closest
valid key). The game's own rules (variants, seat counts, options) are checked by the
game's descriptor (`games.core.Game.check_setup`), in its own words, before anything
starts.
"""

from __future__ import annotations

import difflib
import os
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, NamedTuple

import games
from hosting.limits import Limits
from ratings.sprt import COUNTINGS, SprtSettings

PROTOCOLS = ("grpc", "stdio")
#: `[tournament] sandbox` (hosting.sandbox: kept here so that config needs no sandbox code).
SANDBOX_MODES = ("auto", "required", "off")
FORMATS = ("round-robin", "gauntlet", "sprt")

__all__ = ["BotManifest", "ConfigError", "Limits", "SprtSpec", "TournamentConfig"]


class ConfigError(ValueError):
    """A tournament file or bot manifest that cannot be used, with the reason."""


# ---------------------------------------------------------------------------------------
# The schema: which keys each table takes, and what kind of value
# ---------------------------------------------------------------------------------------
class Kind(NamedTuple):
    """A kind of TOML value: what a message calls it, and the test."""

    expected: str
    test: Callable[[Any], bool]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


TEXT = Kind("a string", lambda v: isinstance(v, str))
BOOLEAN = Kind("true or false", lambda v: isinstance(v, bool))
INTEGER = Kind("an integer", _is_int)
NUMBER = Kind("a number", lambda v: _is_int(v) or isinstance(v, float))
WORDS = Kind('a non-empty list of strings, e.g. ["node", "bot.js"]',
             lambda v: isinstance(v, list) and bool(v) and all(isinstance(w, str) for w in v))
TABLE = Kind("a table", lambda v: isinstance(v, dict))
TABLES = Kind("a list of tables ([[bots]])",
              lambda v: isinstance(v, list) and all(isinstance(t, dict) for t in v))

Schema = Mapping[str, Kind]

TOURNAMENT_FILE: Schema = {"tournament": TABLE, "options": TABLE, "time": TABLE,
                           "sprt": TABLE, "bots": TABLES}
TOURNAMENT: Schema = {"name": TEXT, "game": TEXT, "variant": TEXT, "seats": INTEGER,
                      "format": TEXT, "rounds": INTEGER, "seed": INTEGER, "challenger": TEXT,
                      "concurrency": INTEGER, "output": TEXT, "sandbox": TEXT,
                      "build_network": BOOLEAN}
TIME: Schema = {"decision_ms": INTEGER, "bank_ms": INTEGER, "game_timeout_s": INTEGER,
                "startup_ms": INTEGER}
SPRT: Schema = {"a": TEXT, "b": TEXT, "elo0": NUMBER, "elo1": NUMBER, "alpha": NUMBER,
                "beta": NUMBER, "max_games": INTEGER, "counting": TEXT}
BOT_ENTRY: Schema = {"manifest": TEXT}
MANIFEST_FILE: Schema = {"name": TEXT, "language": TEXT, "protocol": TEXT, "command": WORDS,
                         "workdir": TEXT, "build": WORDS, "games": WORDS, "limits": TABLE,
                         "sandbox": BOOLEAN}
LIMITS: Schema = {"memory_mb": INTEGER, "cpu_seconds": INTEGER, "processes": INTEGER,
                  "disk_mb": INTEGER}


def type_name(value: Any) -> str:
    """A TOML value's type, as the TOML spec names it."""
    if isinstance(value, bool):
        return "a boolean"
    names = {str: "a string", int: "an integer", float: "a float", list: "an array",
             dict: "a table"}
    return names.get(type(value), f"a {type(value).__name__}")


def closest(word: str, choices: Iterable[str]) -> str:
    """"; did you mean 'x'?" for the closest of `choices`, else the list of them."""
    choices = sorted(choices)
    match = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    if match:
        return f"; did you mean {match[0]!r}?"
    return f"; expected one of: {', '.join(choices)}" if choices else ""


def check_table(table: Mapping[str, Any], schema: Schema, where: str) -> list[str]:
    """The problems of one table: unknown keys and values of the wrong kind."""
    problems = []
    for key, value in table.items():
        kind = schema.get(key)
        if kind is None:
            problems.append(f"unknown key {key!r} in {where}{closest(key, schema)}")
        elif not kind.test(value):
            problems.append(f"{key!r} in {where}: expected {kind.expected}, got {value!r} "
                            f"({type_name(value)})")
    return problems


def require(table: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in table:
        raise ConfigError(f"missing {key!r} in {where}")
    return table[key]


def one_of(value: str, choices: Iterable[str], what: str) -> str:
    choices = tuple(choices)
    if value not in choices:
        raise ConfigError(f"unknown {what} {value!r}{closest(value, choices)}")
    return value


# ---------------------------------------------------------------------------------------
# Bot manifests
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BotManifest:
    """How to build and start one bot (`bot.toml` in the bot's folder)."""

    name: str
    language: str
    protocol: str
    command: tuple[str, ...]
    workdir: Path
    build: tuple[str, ...] = ()
    limits: Limits = field(default_factory=Limits)
    path: Path = Path(".")
    #: The games it plays (the manifest's `games`); empty: every game.
    games: tuple[str, ...] = ()
    #: False: the author asks to run unsandboxed (a trusted local bot); the tournament's
    #: `sandbox` mode decides whether that is allowed (hosting.sandbox).
    sandbox: bool = True

    @classmethod
    def load(cls, path: str | Path) -> BotManifest:
        path = Path(path).resolve()
        data = read_toml(path)
        where = f"bot manifest {shown(path)}"
        limits = data.get("limits", {})
        problems = (check_table(data, MANIFEST_FILE, "the manifest")
                    + (check_table(limits, LIMITS, "[limits]") if isinstance(limits, dict)
                       else []))
        if problems:
            raise ConfigError(f"{where}: " + f"\n{where}: ".join(problems))
        try:
            workdir = confined(path.parent, path.parent, data.get("workdir", "."), "workdir")
            for key in ("command", "build"):
                confine_program(path.parent, workdir, data.get(key, ()), key)
            return cls(
                name=bot_name(require(data, "name", "the manifest")),
                language=data.get("language", "unknown"),
                protocol=one_of(data.get("protocol", "grpc"), PROTOCOLS, "protocol"),
                command=tuple(require(data, "command", "the manifest")),
                workdir=workdir,
                build=tuple(data.get("build", ())),
                limits=read_limits(limits),
                path=path,
                games=tuple(one_of(g, games.GAMES, "game") for g in data.get("games", ())),
                sandbox=data.get("sandbox", True))
        except ConfigError as error:
            raise ConfigError(f"{where}: {error}") from None

    def plays(self, game: str) -> bool:
        return not self.games or game in self.games

    def claimed_games(self) -> tuple[str, ...]:
        """The games it says it plays (every registered game if it names none)."""
        return self.games or tuple(sorted(games.GAMES))

    def launch_command(self, python: str, protocol_args: list[str],
                       sandbox: Callable[[list[str]], list[str]] | None = None) -> list[str]:
        """The command line the arena runs: "{python}" replaced, the protocol arguments
        appended; a stdio bot runs behind the bridge, which takes those arguments and the
        limits, and sets the limits on the bot's process (not on itself). `sandbox` wraps
        the bot's own command (a gRPC bot's with its arguments; the bridge stays out)."""
        command = [python if word == "{python}" else word for word in self.command]
        if self.protocol == "stdio":
            bridge = [python, "-m", "hosting.stdio_bridge", *protocol_args,
                      *self.limits.as_arguments()]
            if sandbox is None:
                return [*bridge, "--", *command]
            return [*bridge, "--sandboxed", "--", *sandbox(command)]
        return sandbox([*command, *protocol_args]) if sandbox else [*command, *protocol_args]


def confined(folder: Path, base: Path, value: str, key: str) -> Path:
    """`value` (a manifest's path, relative to `base`) resolved, symlinks included; a
    ConfigError naming `key` unless it stays inside `folder`, the manifest's own folder.
    Every path an entrant writes stays in the entrant's folder: the arena copies and
    mounts these paths as the host's user."""
    if Path(value).is_absolute():
        raise ConfigError(f"{key} {value!r} is an absolute path: a bot's paths are "
                          f"relative to its manifest's folder and stay inside it")
    resolved = (base / value).resolve()
    root = folder.resolve()
    if resolved != root and root not in resolved.parents:
        raise ConfigError(f"{key} {value!r} leads outside the manifest's folder "
                          f"({shown(root)}): a bot's paths stay inside its own folder")
    return resolved


def confine_program(folder: Path, workdir: Path, words: Any, key: str) -> None:
    """A command's program (and `{python}`'s script) named by a path stays inside the
    manifest's folder (`confined`); a bare name is a program of the system, looked up on
    the sandbox's PATH (hosting.sandbox)."""
    if not isinstance(words, list) or not words:
        return
    program = words[0]
    if program == "{python}":
        script = words[1] if len(words) > 1 else "-"
        if not script.startswith("-"):
            confined(folder, workdir, script, f"{key} script")
    elif Path(program).is_absolute():
        raise ConfigError(f"{key} program {program!r} is an absolute path: name a system "
                          f"program by its bare name (e.g. {Path(program).name!r}) or a "
                          f"program of the bot's own folder by its relative path")
    elif os.sep in program:
        confined(folder, workdir, program, f"{key} program")


def read_limits(table: Mapping[str, Any]) -> Limits:
    limits = Limits(**table)
    for item in fields(Limits):
        if getattr(limits, item.name) < 0:
            raise ConfigError(f"[limits] {item.name} must be 0 (no limit) or more")
    return limits


def bot_name(name: str) -> str:
    if not name or len(name) > 40 or not all(c.isalnum() or c in "-_." for c in name):
        raise ConfigError(f"name must be 1-40 letters, digits, '-', '_' or '.', not {name!r}")
    return name


# ---------------------------------------------------------------------------------------
# Tournaments
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class SprtSpec(SprtSettings):
    """Sequential test of "is bot A stronger than bot B" (fastchess-style): the two bots
    and the test's settings (hypotheses, error rates, cap; ratings.sprt.SprtSettings)."""

    a: str
    b: str

    @classmethod
    def read(cls, table: Mapping[str, Any]) -> SprtSpec:
        spec = cls(a=require(table, "a", "[sprt]"), b=require(table, "b", "[sprt]"),
                   **{k: v for k, v in table.items() if k not in ("a", "b")})
        if not (0 < spec.alpha < 0.5 and 0 < spec.beta < 0.5):
            raise ConfigError("[sprt] alpha and beta must be between 0 and 0.5")
        if spec.elo1 <= spec.elo0:
            raise ConfigError("[sprt] elo1 must be greater than elo0")
        if spec.max_games < 1:
            raise ConfigError("[sprt] max_games must be at least 1")
        if spec.counting not in COUNTINGS:
            raise ConfigError(f"[sprt] counting must be {' or '.join(map(repr, COUNTINGS))}, "
                              f"not {spec.counting!r}")
        return spec


@dataclass(frozen=True)
class TournamentConfig:
    """Everything that defines a tournament."""

    name: str
    game: str
    variant: str
    seats: int
    format: str
    seed: int
    bots: tuple[BotManifest, ...]
    rounds: int = 1
    challenger: str | None = None
    concurrency: int = 2
    output: Path = Path("runs/tournament")
    options: dict[str, Any] = field(default_factory=dict)
    decision_ms: int = 5000
    bank_ms: int = 0
    game_timeout_s: int = 900
    #: How long a bot has, from its launch, to make contact with its game (docs/arena.md).
    startup_ms: int = 10_000
    sprt: SprtSpec | None = None
    path: Path = Path(".")
    #: "auto", "required" or "off" (hosting.sandbox.MODES).
    sandbox: str = "auto"
    #: Whether the bots' builds may reach the network (hosting.builds; off by default).
    build_network: bool = False

    @classmethod
    def load(cls, path: str | Path) -> TournamentConfig:
        path = Path(path).resolve()
        data = read_toml(path)
        where = f"tournament file {shown(path)}"
        problems = check_tournament_file(data)
        if problems:
            raise ConfigError(f"{where}: " + f"\n{where}: ".join(problems))
        try:
            config = cls.from_tables(data, path)
        except ConfigError as error:
            raise ConfigError(f"{where}: {error}") from None
        config.validate()
        return config

    @classmethod
    def from_tables(cls, data: Mapping[str, Any], path: Path) -> TournamentConfig:
        """The config from a checked file (`check_tournament_file`)."""
        head, time = data.get("tournament", {}), data.get("time", {})
        if "tournament" not in data:
            raise ConfigError("missing section [tournament]")
        game = head.get("game", games.default_game())
        if game is None:
            raise ConfigError(f"missing 'game' in [tournament]: one of "
                              f"{', '.join(sorted(games.GAMES))}")
        one_of(game, games.GAMES, "game")
        return cls(
            name=head.get("name", path.stem), game=game,
            variant=head.get("variant", games.GAMES[game].default_variant),
            seats=require(head, "seats", "[tournament]"),
            format=one_of(head.get("format", "round-robin"), FORMATS, "format"),
            seed=head.get("seed", 0), rounds=head.get("rounds", 1),
            challenger=head.get("challenger"), concurrency=head.get("concurrency", 2),
            output=(path.parent / head.get("output", f"runs/{path.stem}")).resolve(),
            options=dict(data.get("options", {})),
            decision_ms=time.get("decision_ms", 5000), bank_ms=time.get("bank_ms", 0),
            game_timeout_s=time.get("game_timeout_s", 900),
            startup_ms=time.get("startup_ms", 10_000),
            sprt=SprtSpec.read(data["sprt"]) if "sprt" in data else None,
            sandbox=one_of(head.get("sandbox", "auto"), SANDBOX_MODES, "sandbox"),
            build_network=head.get("build_network", False),
            bots=tuple(BotManifest.load(path.parent / require(b, "manifest", "[[bots]]"))
                       for b in data.get("bots", [])),
            path=path)

    def validate(self) -> None:
        """Raise ConfigError for anything that would fail later: the game's own rules
        first, in its own words, then the tournament's."""
        where = f"tournament {self.name!r}"
        try:
            games.GAMES[self.game].check_setup(self.variant, self.seats, dict(self.options))
        except games.SetupError as error:
            raise ConfigError(f"{where}: {error}") from None
        for problem in self.problems():
            raise ConfigError(f"{where}: {problem}")

    def problems(self) -> list[str]:
        """What is wrong with the bots and the format (the game being playable)."""
        names = [b.name for b in self.bots]
        found = [f"bot {b.name!r} ({shown(b.path)}) does not play {self.game}: its manifest "
                 f"says games = {list(b.games)}" for b in self.bots if not b.plays(self.game)]
        if len(set(names)) != len(names):
            found.append(f"bot names must be unique, got {names}")
        if len(self.bots) < 2:
            found.append("at least 2 bots are needed ([[bots]] with manifest = ...)")
        elif self.format != "sprt" and len(self.bots) < self.seats:
            found.append(f"a {self.format} of {self.seats}-seat games needs at least "
                         f"{self.seats} bots, got {len(self.bots)}")
        if self.format == "gauntlet" and self.challenger not in names:
            found.append(f"gauntlet needs challenger = one of {names}")
        if self.format == "sprt" and (self.sprt is None or {self.sprt.a, self.sprt.b}
                                      - set(names)):
            found.append(f"sprt needs an [sprt] table whose a and b name two of {names}")
        elif self.format == "sprt" and self.sprt is not None and self.sprt.counting == "deal":
            fillers = set(names) - {self.sprt.a, self.sprt.b}  # as ratings.sprt.deal_games
            deal = 2 * self.seats if fillers and self.seats > 2 else self.seats
            if self.sprt.max_games < deal:
                found.append(f"[sprt] max_games = {self.sprt.max_games} is less than one deal "
                             f"({deal} games): the test reads whole deals")
        if self.rounds < 1 or self.concurrency < 1:
            found.append("rounds and concurrency must be at least 1")
        if self.sandbox == "required":
            found += [f"bot {b.name!r} ({shown(b.path)}) asks to run unsandboxed "
                      f"(sandbox = false) but the tournament has sandbox = \"required\""
                      for b in self.bots if not b.sandbox]
        if min(self.decision_ms, self.bank_ms, self.game_timeout_s) < 0:
            found.append("[time] values must be 0 or more")
        if self.startup_ms < 1:
            found.append("[time] startup_ms must be at least 1")
        return found


def unknown_section(key: str) -> str:
    """An unknown section, or a key written above the section it belongs in."""
    for section, schema in (("tournament", TOURNAMENT), ("time", TIME), ("sprt", SPRT)):
        if key in schema:
            return f"{key!r} is outside any section: put it under [{section}]"
    return f"unknown section [{key}]{closest(key, TOURNAMENT_FILE)}"


def check_tournament_file(data: Mapping[str, Any]) -> list[str]:
    """Unknown keys and sections, and values of the wrong kind, in a tournament file."""
    problems = [unknown_section(key) for key in data if key not in TOURNAMENT_FILE]
    problems += [problem for problem in check_table(data, TOURNAMENT_FILE, "the file")
                 if not problem.startswith("unknown key")]
    for section, schema in (("tournament", TOURNAMENT), ("time", TIME), ("sprt", SPRT)):
        table = data.get(section)
        if isinstance(table, dict):
            problems += check_table(table, schema, f"[{section}]")
    entries = data.get("bots")
    if isinstance(entries, list):
        for entry in entries:
            if isinstance(entry, dict):
                problems += check_table(entry, BOT_ENTRY, "[[bots]]")
    return problems


# ---------------------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------------------
def read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise ConfigError(f"no such file: {shown(path)}") from None
    except IsADirectoryError:
        raise ConfigError(f"{shown(path)} is a folder, not a TOML file") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{shown(path)}: not valid TOML: {error}") from None


def shown(path: Path) -> str:
    """A path as a user would type it: relative to the working folder when inside it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
