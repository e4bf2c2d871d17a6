"""What players and spectators read is in words: the narration of every event, the
sentence of the end, the pending question and the board's drawing name no ruling id
("L12", "C11", "ruling M23"): those are for docs/rulings.md, logs and records."""

from __future__ import annotations

import re

import pytest

from arena.local import GameSpec, play_game
from games import GAMES
from games.core import Decision, Event, GameState

#: "(L12: ...)", "(C10)", "ruling M23", "C11: ..." (a Leges Theme's label, "C14 ·3", is
#: a card, not a ruling)
RULING_ID = re.compile(r"\((?:ruling )?[LCMG]\d{1,2}\b|\bruling [LCMG]\d|\b[LCMG]\d{1,2}:")


def svg_words(svg: str) -> list[str]:
    """The text a drawing shows (its labels and tooltips), not its path data."""
    return re.findall(r"<(?:text|tspan|title)\b[^>]*>([^<]*)<", svg)


def texts_of_a_game(game: str, variant: str, seats: int, seed: int) -> list[str]:
    """Every sentence a viewer of a random game sees, and its drawings' text."""
    descriptor = GAMES[game]
    seen: list[str] = []

    def collect(state: GameState, seat: int, decision: Decision, events: list[Event]) -> None:
        for event in events:
            seen.append(descriptor.describe_event(event, decision) or "")
        observation = state.observation(None)
        seen.append(str(observation.get("pending") or ""))
        if len(seen) % 25 == 0:
            seen.extend(svg_words(descriptor.render_svg(observation) or ""))

    record = play_game(GameSpec(game, variant, ("random",) * seats), seed, on_step=collect)
    result = record.state.result()
    assert result is not None
    seen.append(descriptor.describe_end(result, record.state.observation(None)["options"]))
    return seen


@pytest.mark.parametrize(("game", "variant", "seats"), [
    ("municipium", "classic", 3), ("municipium", "revised", 2), ("ciceron", "standard", 2),
    ("ciceron", "standard", 4), ("leges", "standard", 3)])
def test_no_ruling_id_in_player_facing_text(game: str, variant: str, seats: int) -> None:
    for seed in range(3):
        for text in texts_of_a_game(game, variant, seats, seed):
            assert not RULING_ID.search(text), f"{game}: {text!r}"


def test_the_turn_limit_is_said_in_words() -> None:
    """Municipium's safety limit (docs/rulings.md) is named for what it does."""
    from games.municipium.narration import describe_end
    sentence = describe_end("max_turns", {"max_turns": 3})
    assert sentence == "the limit of 3 turns was reached: ranked as it stands"
