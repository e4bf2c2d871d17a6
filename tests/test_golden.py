"""Golden playthroughs: pin every decision, what a spectator sees, and the state bytes.

A rules change that alters any game shows up here as a diff. When the change is
intended, regenerate with `CURIA_REGENERATE_GOLDEN=1 python3 -m pytest tests/test_golden.py`
and review the diff.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from games import new_game
from games.core import Rng, notation

GOLDEN = Path(__file__).parent / "golden"
CASES = [("municipium", "classic", 3, 7), ("municipium", "revised", 2, 8),
         ("municipium", "revised", 4, 9), ("municipium", "classic", 5, 10)]


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def transcript(game: str, variant: str, seats: int, seed: int) -> str:
    """One line per decision: seat, decision, spectator-view digest, state digest."""
    state = new_game(game, variant, seats, seed=seed)
    chooser = Rng(seed)
    lines = [f"# {game} {variant} seats={seats} seed={seed}"]
    while not state.is_over:
        seat = state.to_move()[0]
        legal = state.legal_decisions(seat)
        decision = legal[chooser.below(len(legal))]
        state.apply(seat, decision)
        view = json.dumps(state.observation(None), sort_keys=True).encode()
        lines.append(f"{seat} {notation(decision)} | {digest(view)} {digest(state.to_bytes())}")
    lines.append(f"# result {json.dumps(state.result().to_json(), sort_keys=True)}")  # type: ignore[union-attr]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(("game", "variant", "seats", "seed"), CASES)
def test_golden_playthrough(game: str, variant: str, seats: int, seed: int) -> None:
    path = GOLDEN / f"{game}-{variant}-{seats}-seed{seed}.txt"
    actual = transcript(game, variant, seats, seed)
    if os.environ.get("CURIA_REGENERATE_GOLDEN"):
        path.write_text(actual)
    expected = path.read_text()
    assert actual == expected, f"{path.name} changed; see the module docstring"
