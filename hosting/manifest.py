"""Bot manifests (`bot.toml`): how to build and start one bot, validated at the boundary,
and the strict-TOML kit the tournament file shares (hosting's and the arena's files).

A manifest is strict: every table lists the keys it takes (`MANIFEST_FILE`, `LIMITS`)
with the kind of value each expects, and an unknown key, or a value of the wrong kind, is
a ConfigError that names it (and the closest valid key). Every path a manifest names
stays inside the manifest's own folder (`confined`).
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

PROTOCOLS = ("grpc", "stdio")


class ConfigError(ValueError):
    """A tournament file or bot manifest that cannot be used, with the reason."""



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

MANIFEST_FILE: Schema = {"name": TEXT, "language": TEXT, "protocol": TEXT, "command": WORDS,
                         "workdir": TEXT, "build": WORDS, "games": WORDS, "limits": TABLE,
                         "sandbox": BOOLEAN, "version": TEXT}
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
    #: The bot's own name for its version (e.g. "2.1"): a league's ladder starts a new
    #: entry when it changes (`curia bot connect` sends it; docs/league.md, "Versions").
    version: str = ""

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
                sandbox=data.get("sandbox", True), version=data.get("version", ""))
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
