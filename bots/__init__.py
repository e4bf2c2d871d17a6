"""Curia's reference bots: a tiny interface and a registry keyed by name and game.

A bot sees a game only through the engine API (`games.core`, `games`): it is handed the
real state and its seat, and returns one of `state.legal_decisions(seat)`. A bot that
searches must do so on `state.determinize(seat, seed)`, never on the real state, so that
it cannot read hidden information (the deck order, future draws, other hands).

Each bot package registers itself on import (`register_bot`), saying which games it
understands: `random` plays any game; a heuristic bot only the games it knows. Plugin
modules (see `games.load_plugins`) may register more.

    >>> from games import GAMES, new_game
    >>> game = sorted(GAMES)[0]
    >>> bot = make_bot("random", seed=1, game=game)
    >>> state = new_game(game, None, GAMES[game].variants[0].min_seats, seed=7)
    >>> bot.choose(state, state.to_move()[0]) in state.legal_decisions(state.to_move()[0])
    True
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from games.core import Decision, GameState


@runtime_checkable
class Bot(Protocol):
    """Anything that picks a legal decision for a seat."""

    #: The registry name the bot was made from, e.g. "greedy".
    name: str

    def choose(self, state: GameState, seat: int) -> Decision:
        """One of `state.legal_decisions(seat)`; `state` must be left unchanged."""
        ...


@dataclass(frozen=True)
class BotEntry:
    """A registered bot: how to make it and which games it plays."""

    name: str
    #: Called as factory(seed=...).
    factory: Callable[..., Bot]
    #: The games it understands; None: every game.
    games: frozenset[str] | None
    description: str = ""

    def plays(self, game: str) -> bool:
        return self.games is None or game in self.games


#: Bot name -> entry. Filled by `register_bot` as bot packages are imported.
REGISTRY: dict[str, BotEntry] = {}


def register_bot(name: str, factory: Callable[..., Bot], *, games: tuple[str, ...] | None = None,
                 description: str = "") -> None:
    """Make a bot available by name, for the games it understands (None: all)."""
    REGISTRY[name] = BotEntry(name, factory, None if games is None else frozenset(games),
                              description)


def bot_names(game: str | None = None) -> tuple[str, ...]:
    """The registered bots, or those that play `game`."""
    _discover()
    return tuple(name for name, entry in REGISTRY.items() if game is None or entry.plays(game))


def make_bot(name: str, seed: int, game: str | None = None) -> Bot:
    """A fresh bot of the given registry name, with its own seeded randomness.

    Raises ValueError for an unknown bot, or one that does not play `game` (when given).
    """
    _discover()
    entry = REGISTRY.get(name)
    if entry is None:
        raise ValueError(f"unknown bot {name!r}; bots: {', '.join(bot_names())}")
    if game is not None and not entry.plays(game):
        raise ValueError(f"bot {name!r} plays only {', '.join(sorted(entry.games or ()))}, "
                         f"not {game}; bots for {game}: {', '.join(bot_names(game))}")
    return entry.factory(seed=seed)


_discovered = False


def _discover() -> None:
    """Import every bot package of `bots/` (each registers itself) and the plugins."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    for module in pkgutil.iter_modules(__path__):
        if module.ispkg:
            importlib.import_module(f"{__name__}.{module.name}")
    import games
    games.load_plugins()


def __getattr__(name: str) -> tuple[str, ...]:
    if name == "BOT_NAMES":  # every registered bot, for any game
        return bot_names()
    raise AttributeError(name)


__all__ = ["BOT_NAMES", "Bot", "BotEntry", "REGISTRY", "bot_names", "make_bot", "register_bot"]
