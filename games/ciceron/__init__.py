"""Cicéron (François Delbosc): 2-5 families, seven phases a turn, secret votes."""

from games.ciceron.game import Ciceron
from games.ciceron.state import CiceronState
from games.core import register_game

GAME = register_game(Ciceron())

__all__ = ["GAME", "Ciceron", "CiceronState"]
