"""Municipium (Reiner Knizia): variants `classic` (3-5 families) and `revised` (2-4)."""

from games.municipium.board import VARIANTS
from games.municipium.state import MunicipiumState

__all__ = ["MunicipiumState", "VARIANTS"]
