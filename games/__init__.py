"""Pure rules of Curia's games behind one engine API (see games.core).

No I/O, no network, no storage: a game is a pure function of
(game, variant, seats, options, seed, decisions).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from games.core import (
    JSON,
    Decision,
    DecisionError,
    Event,
    GameOverError,
    GameState,
    IllegalDecisionError,
    NotationError,
    NotYourTurnError,
    Result,
    SetupError,
)
from games.municipium import MunicipiumState
from games.municipium.board import DEFAULT_OPTIONS as MUNICIPIUM_OPTIONS
from games.municipium.board import OPTION_RANGES as MUNICIPIUM_OPTION_RANGES
from games.municipium.board import VARIANTS as MUNICIPIUM_VARIANTS


@dataclass(frozen=True)
class OptionSpec:
    """One integer option of a game."""

    name: str
    description: str
    default: int
    minimum: int
    maximum: int


@dataclass(frozen=True)
class GameInfo:
    """What a game offers: its variants with seat ranges, and its options with defaults."""

    name: str
    state_class: type[MunicipiumState]
    variants: dict[str, tuple[int, int]]
    options: JSON
    option_specs: tuple[OptionSpec, ...] = ()


GAMES: dict[str, GameInfo] = {
    "municipium": GameInfo(
        "municipium", MunicipiumState,
        {name: (v.min_seats, v.max_seats) for name, v in MUNICIPIUM_VARIANTS.items()},
        dict(MUNICIPIUM_OPTIONS),
        tuple(OptionSpec(name, desc, MUNICIPIUM_OPTIONS[name], low, high)
              for name, (desc, low, high) in MUNICIPIUM_OPTION_RANGES.items()),
    ),
}


def new_game(game: str, variant: str, num_seats: int, options: JSON | None = None,
             seed: int = 0) -> GameState:
    """Create a game from (game, variant, number of seats, options, seed)."""
    if game not in GAMES:
        raise SetupError(f"unknown game {game!r}; games: {', '.join(GAMES)}")
    return GAMES[game].state_class.new(variant, num_seats, options, seed)


def from_observation(observation: JSON, seed: int = 0) -> GameState:
    """A state consistent with an observation (see GameState.from_observation)."""
    info = GAMES.get(observation.get("game", ""))
    if info is None:
        raise ValueError(f"not an observation of a Curia game: {observation.get('game')!r}")
    return info.state_class.from_observation(observation, seed)


def load(data: bytes) -> GameState:
    """Rebuild a state from `GameState.to_bytes()`; raises ValueError on foreign data."""
    payload = json.loads(data)
    info = GAMES.get(payload.get("game"))
    if info is None:
        raise ValueError(f"not a Curia game state: game {payload.get('game')!r}")
    if payload.get("format") != info.state_class.format_version:
        raise ValueError(f"unsupported {info.name} state format {payload.get('format')!r}")
    return info.state_class.from_json(payload["state"])


__all__ = [
    "GAMES", "GameInfo", "OptionSpec", "new_game", "load", "from_observation",
    "Decision", "DecisionError", "Event",
    "GameOverError", "GameState", "IllegalDecisionError", "NotationError",
    "NotYourTurnError", "Result", "SetupError",
]
