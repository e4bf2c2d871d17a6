"""Every label of the Leges board is legible in the viewer on a 1280×800 screen: at least
10 px tall as Chromium draws it (the SVG's font size times its scale on the page), at the
game's last version with five seats (the fullest board). The Municipium and Cicéron
boards still draw the letters inside their smallest pieces below that (about 7 and 5 px):
not checked here yet."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.servers import REPO

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
    bots = ",".join(["random"] * seats)
    played = subprocess.run([sys.executable, "-m", "curia", "play", "--game", game,
                             "--seats", bots, "--json", "--seed", "4"], cwd=REPO,
                            capture_output=True, text=True, timeout=300)
    assert played.returncode == 0, played.stderr[-2000:]
    (tmp_path / "r.json").write_text(played.stdout)
    done = subprocess.run([sys.executable, "-m", "curia", "replay", str(tmp_path / "r.json"),
                           "-o", str(tmp_path / "r.html")], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    page.goto((tmp_path / "r.html").as_uri())
    page.get_by_role("button", name="Last version").click()
    page.wait_for_selector("#board svg text")
    px, label = page.evaluate(MEASURE)
    assert px >= SMALLEST_PX, f"{game}: {label!r} is drawn {px:.1f} px tall"
