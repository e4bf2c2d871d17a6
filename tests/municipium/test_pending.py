"""The public form of the pending steps (`asked`, `agenda`) holds exactly the engine's frames."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from games import new_game
from games.municipium import VARIANTS, MunicipiumState, rules
from games.municipium.pending import STEP_NAMES, frames_from_public, public_steps

#: Every edition and seat count.
CONFIGS = [(variant.name, seats) for variant in VARIANTS.values()
           for seats in range(variant.min_seats, variant.max_seats + 1)]
SEEDS = (1, 2, 3)
DOCS = Path(__file__).resolve().parents[2] / "docs" / "bots.md"


def positions(variant: str, seats: int, seed: int) -> Iterator[MunicipiumState]:
    """Every position of a random game, the finished one included."""
    state = new_game("municipium", variant, seats, seed=seed)
    assert isinstance(state, MunicipiumState)
    rng = random.Random(seed)
    while True:
        yield state
        if state.is_over:
            return
        seat = state.to_move()[0]
        state.apply(seat, rng.choice(state.legal_decisions(seat)))


def as_sent(value: Any) -> Any:
    """The value as a client receives it: through JSON."""
    return json.loads(json.dumps(value))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("variant", "seats"), CONFIGS)
def test_the_public_steps_give_back_the_frames(variant: str, seats: int, seed: int) -> None:
    for state in positions(variant, seats, seed):
        asked, agenda = as_sent(public_steps(state))
        assert frames_from_public(asked, agenda, state.names) == state.frames


@pytest.mark.parametrize(("variant", "seats"), CONFIGS)
def test_asked_is_the_question_of_the_seat_to_move(variant: str, seats: int) -> None:
    for state in positions(variant, seats, seed=4):
        observation = state.observation(None)
        asked, agenda = observation["asked"], observation["agenda"]
        assert "frames" not in observation
        if state.is_over:
            assert (asked, agenda) == (None, [])
            continue
        assert (asked["seat"],) == state.to_move()
        assert asked["family"] == state.names[asked["seat"]]
        outermost = [] if asked["step"] == "setup" else [{"step": "end-turn"}]
        assert agenda[len(agenda) - len(outermost):] == outermost


def test_random_games_meet_most_steps() -> None:
    """Every step but the automatic `citizen-event` (always resolved before anyone is
    asked) shows up in the random games of the round trip above."""
    met: set[str] = set()
    for (variant, seats), seed in zip(CONFIGS, [*SEEDS, *SEEDS], strict=True):
        for state in positions(variant, seats, seed):
            met.update(frame["k"] for frame in state.frames)
    assert met >= set(rules.OPTIONS) | set(rules.AUTO) - {"citizen_event"}


def test_every_frame_kind_has_a_documented_step() -> None:
    assert len(STEP_NAMES) == len(set(STEP_NAMES)) == len(rules.OPTIONS) + len(rules.AUTO)
    text = DOCS.read_text()
    assert [name for name in STEP_NAMES if f"`{name}`" not in text] == []


def test_a_stack_of_every_kind_round_trips() -> None:
    """Frames random play rarely keeps (a Citizen event, Grande Famille), pushed by hand."""
    state = new_game("municipium", "revised", 4, seed=9)
    assert isinstance(state, MunicipiumState)
    state.frames = [
        {"k": "end_turn"},
        {"k": "discard", "card": "one-power"},
        {"k": "one_power", "seats": [3, 0]},
        {"k": "your_powers", "seat": 1, "next": 7},
        {"k": "all_powers", "next": 0},
        {"k": "visit", "seats": []},
        {"k": "invite", "seat": 2, "colours": [3, 0, 3]},
        {"k": "citizen_event", "inst": 5},
        {"k": "tavern_send", "seat": 2, "fam": 0, "inst": 6},
        {"k": "reposition", "seat": 1, "mode": "gf",
         "pending": [[1, 0, 2, 0, 0, 3, 0], [0, 0, 0, 0, 1, 0, 0]]},
        {"k": "turn", "seat": 1, "moves": 1, "last": [6, 1, 1]},
    ]
    asked, agenda = as_sent(public_steps(state))
    assert asked == {"step": "turn", "seat": 1, "family": "orange", "moves_made": 1,
                     "last_moved": {"from": "praetorium", "to": "tavern",
                                    "distinguished": True}}
    assert agenda[0] == {"step": "reposition", "seat": 1, "family": "orange",
                         "to_reposition": {"temple": [1, 0], "baths": [2, 0],
                                           "basilica": [0, 1], "forum": [3, 0]},
                         "may_stop": True, "may_advance": True}
    assert agenda[2] == {"step": "citizen-event", "institution": "forum"}
    assert agenda[-4] == {"step": "your-powers", "seat": 1, "family": "orange",
                          "institutions_left": []}
    assert frames_from_public(asked, agenda, state.names) == state.frames
