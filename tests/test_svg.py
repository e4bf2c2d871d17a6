"""The board renderers: each game's `render_svg(observation)` (games/<game>/svg.py).

For every game, positions come from random play (arena.local.play_game with the random
bot) stopped at a few points and at the end; at each, the spectator's and every seat's
observation is drawn. The SVG must parse, scale (viewBox, width 100%), name every family
or player and the game's key elements, show a seat's private hand only in that seat's own
drawing, be identical for identical observations, and hold no non-finite or off-board
coordinate. Text taken from the observation is escaped.
"""

from __future__ import annotations

import copy
import json
import math
import xml.etree.ElementTree as ET
from functools import cache
from typing import Any

import pytest

import games
from arena.local import GameSpec, play_game
from games.ciceron import svg as ciceron_svg
from games.leges import svg as leges_svg
from games.municipium import svg as municipium_svg

SVG = "{http://www.w3.org/2000/svg}"
#: (game, variant, seats, seed): a spread of seat counts and both Municipium variants.
CONFIGS = (
    ("municipium", "classic", 3, 1), ("municipium", "classic", 5, 2),
    ("municipium", "revised", 2, 3), ("municipium", "revised", 4, 4),
    ("ciceron", "standard", 2, 5), ("ciceron", "standard", 3, 6),
    ("ciceron", "standard", 5, 7),
    ("leges", "standard", 2, 8), ("leges", "standard", 4, 9), ("leges", "standard", 5, 10),
)
#: The decision counts at which a position is kept (and the end of the game).
STOPS = (1, 7, 30, 90, 200)
COORDINATES = ("x", "y", "cx", "cy", "x1", "y1", "x2", "y2", "r", "width", "height",
               "font-size", "textLength")


@cache
def positions(game: str, variant: str, seats: int, seed: int) -> tuple[str, ...]:
    """The observations (JSON text: spectator first, then each seat) at every stop."""
    kept: list[str] = []

    def keep(state: Any) -> None:
        views = [state.observation(None)] + [state.observation(s) for s in range(seats)]
        kept.append(json.dumps(views))

    count = 0

    def hook(state: Any, seat: int, decision: Any, events: Any) -> None:
        nonlocal count
        count += 1
        if count in STOPS:
            keep(state)

    record = play_game(GameSpec(game, variant, ("random",) * seats), seed, on_step=hook)
    keep(record.state)
    return tuple(kept)


def views(config: tuple[str, str, int, int]) -> list[list[dict[str, Any]]]:
    """Every kept position of a configuration: [spectator, seat 0, seat 1, ...]."""
    return [json.loads(text) for text in positions(*config)]


def render(observation: dict[str, Any]) -> str:
    svg = games.get_game(observation["game"]).render_svg(observation)
    assert svg is not None
    return svg


def texts(svg: str) -> str:
    """Every text and accessible name of a drawing, in one string."""
    root = ET.fromstring(svg)
    words = [node.text or "" for node in root.iter()]
    words += [node.get("aria-label") or "" for node in root.iter()]
    return "\n".join(words)


def ids(config: tuple[str, str, int, int]) -> str:
    return "-".join(map(str, config))


@pytest.mark.parametrize("config", CONFIGS, ids=ids)
def test_parses_scales_and_is_described(config: tuple[str, str, int, int]) -> None:
    for position in views(config):
        for observation in position:
            root = ET.fromstring(render(observation))
            assert root.tag == f"{SVG}svg"
            assert root.get("viewBox") == "0 0 1280 800"
            assert root.get("width") == "100%" and root.get("height") is None
            assert root.get("role") == "img" and root.get("aria-label")
            assert root.find(f"{SVG}title") is not None
            assert (root.find(f"{SVG}desc").text or "").strip()  # type: ignore[union-attr]


@pytest.mark.parametrize("config", CONFIGS, ids=ids)
def test_coordinates_are_finite_and_on_the_board(config: tuple[str, str, int, int]) -> None:
    for position in views(config):
        for observation in position:
            root = ET.fromstring(render(observation))
            for node in root.iter():
                for name in COORDINATES:
                    if node is root or node.get(name) is None:
                        continue
                    value = float(node.get(name))  # type: ignore[arg-type]
                    assert math.isfinite(value), (node.tag, name, node.get(name))
                    limit = 1280 if name in ("x", "cx", "x1", "x2", "width") else 800
                    assert -1 <= value <= limit, (node.tag, name, value)


@pytest.mark.parametrize("config", CONFIGS, ids=ids)
def test_names_every_family_and_the_key_elements(config: tuple[str, str, int, int]) -> None:
    game = config[0]
    for position in views(config):
        spectator = position[0]
        words = texts(render(spectator))
        for name in names_of(spectator):
            assert name in words, name
        for element in KEY_ELEMENTS[game]:
            assert element in words, element


def names_of(observation: dict[str, Any]) -> list[str]:
    """How the families or players are written on the board."""
    if observation["game"] == "leges":
        return list(observation["players"])
    return [family.title() for family in observation["families"]]


KEY_ELEMENTS = {
    "municipium": ("0  Temple", "I  Tavern", "II  Baths", "III  Emporium", "IV  Basilica",
                   "V  Forum", "VI  Praetorium", "Decurions", "common deck", "Legend",
                   "Priest", "Militia", "Merchant", "Advocate"),
    "ciceron": ("Senate", "Curia Hostilia", "Emporium", "Temple of Jupiter", "Subura",
                "Circus Maximus", "Exercitus", "Primus", "Secundus", "Provinces", "Guilds",
                "Legend"),
    "leges": ("Pietas", "Virtus", "Libertas", "Concordia", "Value card 1", "Value card 5",
              "Laws left", "Theme deck", "Legend"),
}


def test_the_praefect_stands_where_the_observation_puts_him() -> None:
    for position in views(CONFIGS[0]):
        root = ET.fromstring(render(position[0]))
        where = position[0]["praefect"].title()
        holders = [node.get("aria-label") or "" for node in root.iter()
                   if "the Praefect is here" in (node.get("aria-label") or "")]
        assert len(holders) == 1 and where in holders[0]


@pytest.mark.parametrize("config", [c for c in CONFIGS if c[0] != "municipium"], ids=ids)
def test_a_hand_shows_only_in_its_own_seat(config: tuple[str, str, int, int]) -> None:
    checked = 0
    for position in views(config):
        spectator, seats = position[0], position[1:]
        public = json.dumps(spectator)
        drawings = [render(o) for o in position]
        for seat, observation in enumerate(seats):
            hand = observation["boards"][seat]["hand"] or []
            private = [card for card in hand if card not in public]
            if not private:
                continue
            card = private[0]
            assert card in drawings[seat + 1]
            assert card not in drawings[0]
            for other in range(len(seats)):
                if other != seat:
                    assert card not in drawings[other + 1]
            checked += 1
    assert checked, "no position with a private hand"


@pytest.mark.parametrize("config", CONFIGS, ids=ids)
def test_identical_observations_draw_identically(config: tuple[str, str, int, int]) -> None:
    for position in views(config):
        for observation in position:
            assert render(observation) == render(copy.deepcopy(observation))


@pytest.mark.parametrize("game", ["municipium", "ciceron", "leges"])
def test_text_from_the_observation_is_escaped(game: str) -> None:
    config = next(c for c in CONFIGS if c[0] == game)
    observation = copy.deepcopy(views(config)[-1][0])
    observation["result"] = None
    observation["pending"] = '<script>alert("x")</script> & more'
    svg = render(observation)
    assert "<script>" not in svg
    assert '<script>alert("x")</script> & more' in texts(svg)


def test_the_modules_are_what_the_descriptors_call() -> None:
    for config, module in ((CONFIGS[0], municipium_svg), (CONFIGS[4], ciceron_svg)):
        observation = views(config)[-1][0]
        assert render(observation) == module.render_svg(observation)
    observation = views(CONFIGS[7])[-1][0]
    cards = games.get_game("leges").cards  # type: ignore[attr-defined]
    assert render(observation) == leges_svg.render_svg(observation, cards)


def test_leges_without_its_card_set_still_draws() -> None:
    observation = copy.deepcopy(views(CONFIGS[8])[-1][1])
    observation["card_set"] = {"name": "another", "digest": "0" * 64}
    svg = render(observation)
    assert svg == leges_svg.render_svg(observation)
    assert "Value card 3" in texts(svg)


@pytest.mark.parametrize("module", [municipium_svg, ciceron_svg, leges_svg])
def test_a_non_finite_coordinate_is_refused(module: Any) -> None:
    with pytest.raises(ValueError):
        module.el("circle", cx=float("nan"))
