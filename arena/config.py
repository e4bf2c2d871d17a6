"""Tournament configuration and bot manifests (TOML files), validated at the boundary.

A tournament is a config plus a seed: the same file gives the same schedule, the same
game seeds and, with deterministic bots, the same results.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import games

PROTOCOLS = ("grpc", "stdio")
FORMATS = ("round-robin", "gauntlet", "sprt")


class ConfigError(ValueError):
    """A tournament file or bot manifest that cannot be used, with the reason."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of one bot process (per game)."""

    #: address-space limit (RLIMIT_AS), MiB; 0: none
    memory_mb: int = 4096
    #: CPU-time limit (RLIMIT_CPU), seconds; 0: none
    cpu_seconds: int = 300


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

    @classmethod
    def load(cls, path: str | Path) -> BotManifest:
        path = Path(path).resolve()
        data = _read_toml(path)
        where = f"bot manifest {path}"
        protocol = _get(data, "protocol", str, where, "grpc")
        if protocol not in PROTOCOLS:
            raise ConfigError(f"{where}: protocol must be one of {PROTOCOLS}, not {protocol!r}")
        limits = data.get("limits", {})
        return cls(
            name=_name(_get(data, "name", str, where), where),
            language=_get(data, "language", str, where, "unknown"),
            protocol=protocol,
            command=_words(data.get("command"), f"{where}: command"),
            workdir=(path.parent / _get(data, "workdir", str, where, ".")).resolve(),
            build=_words(data["build"], f"{where}: build") if "build" in data else (),
            limits=Limits(memory_mb=_get(limits, "memory_mb", int, where, 4096),
                          cpu_seconds=_get(limits, "cpu_seconds", int, where, 300)),
            path=path)

    def launch_command(self, python: str, protocol_args: list[str]) -> list[str]:
        """The command line the arena runs: "{python}" replaced, the protocol arguments
        appended; a stdio bot runs behind the bridge, which takes those arguments."""
        command = [python if word == "{python}" else word for word in self.command]
        if self.protocol == "stdio":
            return [python, "-m", "arena.stdio_bridge", *protocol_args, "--", *command]
        return [*command, *protocol_args]


@dataclass(frozen=True)
class SprtSpec:
    """Sequential test of "is bot A stronger than bot B" (fastchess-style)."""

    a: str
    b: str
    elo0: float = 0.0
    elo1: float = 50.0
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int = 400


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
    sprt: SprtSpec | None = None
    path: Path = Path(".")

    @classmethod
    def load(cls, path: str | Path) -> TournamentConfig:
        path = Path(path).resolve()
        data = _read_toml(path)
        where = f"tournament file {path}"
        head = data.get("tournament", {})
        time = data.get("time", {})
        bots = tuple(BotManifest.load(path.parent / _get(b, "manifest", str, where))
                     for b in data.get("bots", []))
        if "game" not in head and games.default_game() is None:
            raise ConfigError(f"{where}: missing `game`: one of {', '.join(sorted(games.GAMES))}")
        game = _get(head, "game", str, where, games.default_game())
        config = cls(
            name=_get(head, "name", str, where, path.stem),
            game=game,
            variant=_get(head, "variant", str, where, _default_variant(game)),
            seats=_get(head, "seats", int, where),
            format=_get(head, "format", str, where, "round-robin"),
            seed=_get(head, "seed", int, where, 0),
            rounds=_get(head, "rounds", int, where, 1),
            challenger=head.get("challenger"),
            concurrency=_get(head, "concurrency", int, where, 2),
            output=(path.parent / _get(head, "output", str, where,
                                       f"runs/{path.stem}")).resolve(),
            options=dict(data.get("options", {})),
            decision_ms=_get(time, "decision_ms", int, where, 5000),
            bank_ms=_get(time, "bank_ms", int, where, 0),
            game_timeout_s=_get(time, "game_timeout_s", int, where, 900),
            sprt=SprtSpec(**data["sprt"]) if "sprt" in data else None,
            bots=bots, path=path)
        config.validate()
        return config

    def validate(self) -> None:
        """Raise ConfigError for anything that would fail later."""
        where = f"tournament {self.name!r}"
        names = [b.name for b in self.bots]
        if len(set(names)) != len(names):
            raise ConfigError(f"{where}: bot names must be unique, got {names}")
        if self.format not in FORMATS:
            raise ConfigError(f"{where}: format must be one of {FORMATS}")
        if len(self.bots) < 2:
            raise ConfigError(f"{where}: at least 2 bots are needed")
        if self.format != "sprt" and len(self.bots) < self.seats:
            raise ConfigError(f"{where}: {self.seats} seats need at least {self.seats} bots")
        if self.format == "gauntlet" and self.challenger not in names:
            raise ConfigError(f"{where}: gauntlet needs `challenger` = one of {names}")
        if self.format == "sprt" and (self.sprt is None or {self.sprt.a, self.sprt.b} -
                                      set(names)):
            raise ConfigError(f"{where}: sprt needs an [sprt] table naming two of {names}")
        if self.rounds < 1 or self.concurrency < 1:
            raise ConfigError(f"{where}: rounds and concurrency must be at least 1")
        try:
            games.new_game(self.game, self.variant, self.seats, dict(self.options))
        except games.SetupError as error:
            raise ConfigError(f"{where}: {error}") from None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise ConfigError(f"no such file: {path}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None


def _default_variant(game: str) -> str:
    """The game's first variant; an unknown game is reported by `validate`."""
    known = games.GAMES.get(game)
    return known.default_variant if known is not None else ""


def _get(data: dict[str, Any], key: str, kind: type, where: str, default: Any = ...) -> Any:
    if key not in data:
        if default is ...:
            raise ConfigError(f"{where}: missing `{key}`")
        return default
    value = data[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ConfigError(f"{where}: `{key}` must be a {kind.__name__}, not {value!r}")
    return value


def _words(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(w, str) for w in value):
        raise ConfigError(f"{where} must be a non-empty list of strings, e.g. [\"node\", "
                          f"\"bot.js\"]")
    return tuple(value)


def _name(name: str, where: str) -> str:
    if not name or len(name) > 40 or not all(c.isalnum() or c in "-_." for c in name):
        raise ConfigError(f"{where}: name must be 1-40 letters, digits, '-', '_' or '.'")
    return name
