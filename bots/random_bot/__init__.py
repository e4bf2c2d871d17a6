"""The random bot: a uniformly random legal decision, from its own seeded RNG."""

from __future__ import annotations

import random

from games.core import Decision, GameState


class RandomBot:
    """Picks uniformly among `legal_decisions(seat)`; the same seed gives the same game."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: GameState, seat: int) -> Decision:
        legal = state.legal_decisions(seat)
        if not legal:
            raise ValueError(f"seat {seat} has no decision to take: {state.describe_pending()}")
        return self.rng.choice(legal)


__all__ = ["RandomBot"]


def _register() -> None:
    from bots import register_bot
    register_bot("random", RandomBot, description="a uniformly random legal decision; any game")


_register()
