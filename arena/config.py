"""Tournament configuration (a TOML file), validated at the boundary.

A tournament is a config plus a seed: the same file gives the same schedule, the same
game seeds and, with deterministic bots, the same results.

The file is strict, as bot manifests are (hosting.manifest, whose kit it shares): every
table lists the keys it takes (`TOURNAMENT_FILE`, `TOURNAMENT`, ... below) with the kind of
value each expects, and an unknown key or section, or a value of the wrong kind, is a
ConfigError that names it (and the closest valid key). The game's own rules (variants,
seat counts, options) are checked by the game's descriptor
(`games.core.Game.check_setup`), in its own words, before anything starts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import games
from hosting.limits import Limits
from hosting.manifest import (
    BOOLEAN,
    INTEGER,
    NUMBER,
    TABLE,
    TABLES,
    TEXT,
    BotManifest,
    ConfigError,
    Schema,
    check_table,
    closest,
    one_of,
    read_toml,
    require,
    shown,
)
from ratings.sprt import COUNTINGS, SprtSettings

#: `[tournament] sandbox` (hosting.sandbox: kept here so that config needs no sandbox code).
SANDBOX_MODES = ("auto", "required", "off")
FORMATS = ("round-robin", "gauntlet", "sprt")

__all__ = ["BotManifest", "ConfigError", "Limits", "SprtSpec", "TournamentConfig"]


# ---------------------------------------------------------------------------------------
# The schema: which keys each table takes, and what kind of value
# ---------------------------------------------------------------------------------------
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
