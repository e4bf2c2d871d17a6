"""Every label of the Leges board is legible in the viewer on a 1280×800 screen: at least
10 px tall as Chromium draws it (the SVG's font size times its scale on the page), at the
game's last version with five seats (the fullest board). The Municipium and Cicéron
boards still draw the letters inside their smallest pieces below that (about 7 and 5 px):
not checked here yet."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import replay_of_a_played_game

SMALLEST_PX = 10.0
#: The smallest drawn font size and the text it belongs to (a squeezed line's glyphs are
#: narrower, never shorter).
MEASURE = """() => {
  const svg = document.querySelector('#board svg');
  const scale = svg.getScreenCTM().a;
  let smallest = [1e9, ''];
  for (const label of svg.querySelectorAll('text')) {
    if (!label.textContent.trim()) continue;
    const px = parseFloat(getComputedStyle(label).fontSize) * scale;
    if (px < smallest[0]) smallest = [px, label.textContent];
  }
  return smallest;
}"""


@pytest.mark.parametrize(("game", "seats"), [("leges", 5), ("leges", 2)])
def test_every_leges_label_is_at_least_10_px_at_1280_by_800(
        game: str, seats: int, tmp_path: Path, page: Any) -> None:
    replay = replay_of_a_played_game(tmp_path, game, seats=("random",) * seats)
    page.goto(replay.as_uri())
    page.get_by_role("button", name="Last version").click()
    page.wait_for_selector("#board svg text")
    px, label = page.evaluate(MEASURE)
    assert px >= SMALLEST_PX, f"{game}: {label!r} is drawn {px:.1f} px tall"
