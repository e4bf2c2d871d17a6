"""Leges: 2-5 players, campaign Themes chosen face down at the same time, four societal
Values on a track, Laws bought with the points of their colour (rulings L1-L13)."""

from games.core import register_game
from games.leges.game import Leges
from games.leges.state import LegesState

GAME = register_game(Leges())

__all__ = ["GAME", "Leges", "LegesState"]
