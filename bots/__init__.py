"""Curia's reference bots: a tiny interface and a registry keyed by name and game.

A bot sees a game only through the engine API (`games.core`, `games`): it is handed the
real state and its seat, and returns one of `state.legal_decisions(seat)`. A bot that
searches must do so on `state.determinize(seat, seed)`, never on the real state, so that
it cannot read hidden information (the deck order, future draws, other hands).

Each bot package registers itself on import (`register_bot`), saying which games it
understands: `random` plays any game; a heuristic bot only the games it knows. One name
may have one bot per game: two packages may each register `greedy` for their own game,
and `make_bot("greedy", seed, game)` makes the one for that game.
Plugin modules (see `games.load_plugins`) may register more.

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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
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
    """A registered bot name: how to make it for each game it plays.

    One name may have one factory per game (a `greedy` bot registered by two packages,
    each for its own game): `factories` maps each game to its factory, and `default` (if
    any) makes the bot for every other game.
    """

    name: str
    #: Game -> the factory of the bot for that game, called as factory(seed=...).
    factories: Mapping[str, Callable[..., Bot]] = field(default_factory=dict)
    #: The factory for any game not in `factories` (None: only those games).
    default: Callable[..., Bot] | None = None
    description: str = ""

    @property
    def games(self) -> frozenset[str] | None:
        """The games it understands; None: every game."""
        return None if self.default is not None else frozenset(self.factories)

    @property
    def factory(self) -> Callable[..., Bot]:
        """The one factory of a bot registered once; for a name with a factory per game,
        one that makes a `PerGameBot` (it picks the game's bot from the state it is
        handed)."""
        makers = {*self.factories.values(), *([self.default] if self.default else [])}
        if len(makers) == 1:
            return next(iter(makers))
        return lambda seed=0: PerGameBot(self, seed)

    def plays(self, game: str) -> bool:
        return self.default is not None or game in self.factories

    def factory_for(self, game: str) -> Callable[..., Bot] | None:
        """The factory of the bot for `game` (None if this name does not play it)."""
        return self.factories.get(game, self.default)

    def refusal(self, game: str) -> str:
        """Why this name cannot play `game`."""
        return (f"bot {self.name!r} plays only {', '.join(sorted(self.games or ()))}, "
                f"not {game}; bots for {game}: {', '.join(bot_names(game))}")


class PerGameBot:
    """A bot name with one factory per game, made before the game is known (`make_bot`
    without a game): the game's own bot is made, with the same seed, from the first state
    it is handed, one per game."""

    def __init__(self, entry: BotEntry, seed: int) -> None:
        self.name = entry.name
        self.entry, self.seed = entry, seed
        self.bots: dict[str, Bot] = {}

    def choose(self, state: GameState, seat: int) -> Decision:
        bot = self.bots.get(state.game)
        if bot is None:
            factory = self.entry.factory_for(state.game)
            if factory is None:
                raise ValueError(self.entry.refusal(state.game))
            bot = self.bots[state.game] = factory(seed=self.seed)
        return bot.choose(state, seat)


#: Bot name -> entry. Filled by `register_bot` as bot packages are imported.
REGISTRY: dict[str, BotEntry] = {}


def register_bot(name: str, factory: Callable[..., Bot], *, games: tuple[str, ...] | None = None,
                 description: str = "") -> None:
    """Make a bot available by name, for the games it understands (None: all).

    Registering a name again for other games adds a factory for those games to the same
    name (one bot name, one factory per game); registering it again for a game it already
    has replaces that game's factory.
    """
    known = REGISTRY.get(name)
    factories = dict(known.factories) if known else {}
    default = known.default if known else None
    if games is None:
        default = factory
    else:
        factories.update(dict.fromkeys(games, factory))
    if known and known.description and description and description not in known.description:
        description = f"{known.description}; {description}"
    REGISTRY[name] = BotEntry(name, factories, default,
                              description or (known.description if known else ""))


def bot_names(game: str | None = None) -> tuple[str, ...]:
    """The registered bots, or those that play `game`."""
    _discover()
    return tuple(name for name, entry in REGISTRY.items() if game is None or entry.plays(game))


def make_bot(name: str, seed: int, game: str | None = None) -> Bot:
    """A fresh bot of the given registry name, with its own seeded randomness.

    With `game`, the bot the name has for that game; without, the name's only bot, or a
    `PerGameBot` for a name with one bot per game. Raises ValueError for an unknown bot,
    or one that does not play `game` (when given).
    """
    _discover()
    entry = REGISTRY.get(name)
    if entry is None:
        raise ValueError(f"unknown bot {name!r}; bots: {', '.join(bot_names())}")
    if game is None:
        return entry.factory(seed=seed)
    factory = entry.factory_for(game)
    if factory is None:
        raise ValueError(entry.refusal(game))
    return factory(seed=seed)


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


__all__ = ["BOT_NAMES", "Bot", "BotEntry", "PerGameBot", "REGISTRY", "bot_names", "make_bot",
           "register_bot"]
