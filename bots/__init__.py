"""Curia's reference bots: a tiny interface and a registry by name.

A bot sees a game only through the engine API (`games.core`, `games`): it is handed the
real state and its seat, and returns one of `state.legal_decisions(seat)`. A bot that
searches must do so on `state.determinize(seat, seed)`, never on the real state, so that
it cannot read hidden information (the deck order, future draws).

    >>> from games import new_game
    >>> bot = make_bot("random", seed=1)
    >>> state = new_game("municipium", "classic", 3, seed=7)
    >>> bot.choose(state, state.to_move()[0]) in state.legal_decisions(state.to_move()[0])
    True
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
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


#: Bot name -> "module:factory"; a factory is called as factory(seed=...). Imported lazily.
REGISTRY: dict[str, str] = {
    "random": "bots.random_bot:RandomBot",
    "greedy": "bots.greedy_bot:GreedyBot",
}

BOT_NAMES: tuple[str, ...] = tuple(REGISTRY)


def make_bot(name: str, seed: int) -> Bot:
    """A fresh bot of the given registry name, with its own seeded randomness."""
    try:
        target = REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; bots: {', '.join(BOT_NAMES)}") from None
    module, _, factory_name = target.partition(":")
    factory: Callable[..., Bot] = getattr(import_module(module), factory_name)
    return factory(seed=seed)


__all__ = ["BOT_NAMES", "Bot", "REGISTRY", "make_bot"]
