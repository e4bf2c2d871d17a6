"""Pure rules of Curia's games behind one engine API (see games.core).

No I/O, no network, no storage: a game is a pure function of
(game, variant, seats, options, seed, decisions).

Games are plugins. Each package under `games/` registers its `Game` when imported, and
`load_plugins` imports them all, then any extra modules a host names: in the
`CURIA_PLUGINS` environment variable (comma-separated module names or paths to `.py`
files) or as `curia.plugins` entry points of installed distributions. A plugin module may
register a game, its contract adapter (`curia_api.codecs`) and its bots (`bots`).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
import sys
import zlib
from importlib.metadata import entry_points
from pathlib import Path

import orjson

from games.core import (
    GAMES,
    JSON,
    Decision,
    DecisionError,
    Event,
    Game,
    GameOverError,
    GameState,
    IllegalDecisionError,
    NotationError,
    NotYourTurnError,
    OptionSpec,
    Result,
    SetupError,
    VariantSpec,
    register_game,
)

#: Environment variable naming extra plugin modules (module names or `.py` paths).
PLUGINS_ENV = "CURIA_PLUGINS"
_loaded: set[str] = set()


def load_plugins(extra: str | None = None) -> None:
    """Import every game package of `games/`, then the plugins the host names (idempotent).

    `extra` adds comma-separated plugins to those of `CURIA_PLUGINS`. A plugin that fails
    to import raises ImportError naming it.
    """
    for module in pkgutil.iter_modules(__path__):
        if module.ispkg:
            _import_once(f"{__name__}.{module.name}")
    names = [os.environ.get(PLUGINS_ENV, ""), extra or ""]
    for plugin in (p.strip() for text in names for p in text.split(",")):
        if plugin:
            _import_once(plugin)
    for point in entry_points(group="curia.plugins"):
        if point.value not in _loaded:
            _loaded.add(point.value)
            point.load()


def _import_once(plugin: str) -> None:
    if plugin in _loaded:
        return
    try:
        if plugin.endswith(".py"):
            path = Path(plugin).resolve()
            spec = importlib.util.spec_from_file_location(f"curia_plugin_{path.stem}", path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load {path}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module
            spec.loader.exec_module(module)
        else:
            importlib.import_module(plugin)
    except Exception as error:
        raise ImportError(f"Curia plugin {plugin!r} failed to load: {error}") from error
    _loaded.add(plugin)


def default_game() -> str | None:
    """The game a command plays when none is named: the one game shipped in `games/`, or
    None once there are several (then the game must be named). Plugins do not count."""
    shipped = [name for name, game in GAMES.items()
               if type(game).__module__.startswith(f"{__name__}.")]
    return shipped[0] if len(shipped) == 1 else None


def get_game(name: str) -> Game:
    """The registered game of that name; SetupError naming the games if none."""
    game = GAMES.get(name)
    if game is None:
        raise SetupError(f"unknown game {name!r}; games: {', '.join(sorted(GAMES))}")
    return game


def new_game(game: str, variant: str | None = None, num_seats: int = 0,
             options: JSON | None = None, seed: int = 0) -> GameState:
    """Create a game from (game, variant, number of seats, options, seed).

    Raises SetupError (a ValueError) for anything not playable, saying why.
    """
    descriptor = get_game(game)
    variant = variant or descriptor.default_variant
    merged = descriptor.check_setup(variant, num_seats, options)
    return descriptor.new(variant, num_seats, merged, int(seed))


def from_observation(observation: JSON, seed: int = 0) -> GameState:
    """A state consistent with an observation (see Game.from_observation)."""
    game = GAMES.get(str(observation.get("game", "")))
    if game is None:
        raise ValueError(f"not an observation of a Curia game: {observation.get('game')!r}")
    return game.from_observation(observation, seed)


def load(data: bytes) -> GameState:
    """Rebuild a state from `GameState.to_bytes()` (or those bytes zlib-compressed);
    raises ValueError on foreign data."""
    payload = orjson.loads(zlib.decompress(data) if data[:1] == b"x" else data)
    game = GAMES.get(payload.get("game"))
    if game is None:
        raise ValueError(f"not a Curia game state: game {payload.get('game')!r}")
    if payload.get("format") != game.format_version:
        raise ValueError(f"unsupported {game.name} state format {payload.get('format')!r}")
    return game.load(payload["state"])


load_plugins()

__all__ = [
    "GAMES", "Game", "OptionSpec", "VariantSpec", "default_game", "get_game", "load_plugins",
    "new_game", "load", "from_observation", "register_game",
    "Decision", "DecisionError", "Event",
    "GameOverError", "GameState", "IllegalDecisionError", "NotationError",
    "NotYourTurnError", "Result", "SetupError",
]
