"""Municipium (Reiner Knizia): variants `classic` (3-5 families) and `revised` (2-4)."""

from games.core import register_game
from games.municipium.board import VARIANTS
from games.municipium.game import Municipium
from games.municipium.state import MunicipiumState

GAME = register_game(Municipium())

__all__ = ["GAME", "Municipium", "MunicipiumState", "VARIANTS"]
