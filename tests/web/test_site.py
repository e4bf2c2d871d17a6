"""The tournament site and its replays, in a real browser: a small real tournament
between the shipped Python bots on an embedded service, then its index.html and a replay
opened from file://."""

from __future__ import annotations

import base64
import gzip
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.site import site_html
from tests.web.conftest import PHONE, replay_of_a_played_game, screenshot

REPO = Path(__file__).resolve().parents[2]
BOTS = REPO / "bots"
NAMES = ("random", "greedy", "python-stdio")


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory: pytest.TempPathFactory, server: str) -> Iterator[Path]:
    """Six 2-seat short Municipium games between three shipped Python bots."""
    folder = tmp_path_factory.mktemp("site")
    manifests = "".join(f'[[bots]]\nmanifest = "{BOTS / name / "bot.toml"}"\n'
                        for name in ("random_bot", "greedy_bot", "python_stdio"))
    config = folder / "t.toml"
    config.write_text('[tournament]\nname = "web"\ngame = "municipium"\nvariant = "revised"\n'
                      'seats = 2\nconcurrency = 3\noutput = "out"\n[options]\n'
                      f"target_decurions = 4\n[time]\ndecision_ms = 10000\n{manifests}")
    done = subprocess.run([sys.executable, "-m", "curia", "arena", "run", str(config),
                           "--server", server, "--no-progress"], cwd=REPO,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    yield folder / "out"


def test_the_site_shows_every_bot_with_its_interval(run_folder: Path, page: Any) -> None:
    exported = json.loads((run_folder / "tournament.json").read_text())
    page.goto((run_folder / "index.html").as_uri())
    assert page.locator("meta[http-equiv=refresh]").count() == 0, "complete: no refresh"
    rows = page.locator("section:has(h2:text-is('Leaderboard')) tbody tr")
    assert rows.count() == len(NAMES)
    for rating in exported["ratings"]:
        row = rows.filter(has_text=rating["name"])
        assert row.count() == 1, rating["name"]
        assert f"±{rating['margin']:.0f}" in row.inner_text()
        low, high = rating["rating"] - rating["margin"], rating["rating"] + rating["margin"]
        assert f"{low:.0f} – {high:.0f}" in row.inner_text()
    assert page.locator(".plot svg polyline").count() == len(NAMES)
    assert page.get_by_role("link", name=re.compile(r"^game \d+$")).count() == 6
    screenshot(page, "site", full_page=True)
    page.set_viewport_size(PHONE)
    screenshot(page, "site-phone")


def test_a_replay_stepped_to_its_end_shows_the_recorded_result(run_folder: Path,
                                                               page: Any) -> None:
    record = json.loads((run_folder / "games" / "00000.json").read_text())
    ranking = record["record"]["result"]["ranking"]
    winner = record["schedule"]["seating"][ranking[0]["seats"][0]]
    last = len(record["record"]["decisions"])
    page.goto((run_folder / "index.html").as_uri())
    page.get_by_role("link", name="game 0", exact=True).click()
    # the link opens another page, whose script shows the replay once it has decoded it
    page.wait_for_function("() => document.getElementById('position').textContent")
    assert page.locator("#position").inner_text() == f"version 0 of {last}"
    page.keyboard.press("ArrowRight")
    assert page.locator("#position").inner_text() == f"version 1 of {last}"
    assert page.locator("#decision").inner_text().strip() != ""
    page.get_by_role("button", name="Last version").click()
    assert page.locator("#position").inner_text() == f"version {last} of {last}"
    result = page.locator("#result-text").inner_text()
    assert result.startswith("result: ")
    first = next(line for line in result.splitlines() if line.strip().startswith("1."))
    assert winner in first, (winner, result)
    assert page.get_by_role("button", name="Next version").is_disabled()
    page.get_by_role("button", name="First version").click()
    assert page.locator("#position").inner_text() == f"version 0 of {last}"
    page.keyboard.press("End")
    assert page.locator("#board svg, #board pre").count() >= 1
    screenshot(page, "replay")
    page.set_viewport_size(PHONE)
    screenshot(page, "replay-phone")


def test_a_replay_link_opens_at_its_version_and_follows_the_steps(run_folder: Path,
                                                                  page: Any) -> None:
    """`replays/00000.html#7` opens at version 7; stepping keeps the link current; the
    heading says where the game stands in the game's words."""
    last = len(json.loads((run_folder / "games" / "00000.json").read_text())
               ["record"]["decisions"])
    page.goto((run_folder / "replays" / "00000.html").as_uri() + "#7")
    page.wait_for_function("() => document.getElementById('position').textContent")
    assert page.locator("#position").inner_text() == f"version 7 of {last}"
    page.keyboard.press("ArrowRight")
    assert page.evaluate("window.location.hash") == "#8"
    page.evaluate("window.location.hash = '#3'")
    page.wait_for_selector(f"#position:text-is('version 3 of {last}')")
    assert page.locator("#turn").inner_text().startswith(("Setup", "Turn "))
    page.get_by_role("button", name="First version").click()
    assert page.locator("#turn").inner_text() == "Setup"


def test_a_leges_replay_speaks_of_seasons_and_rounds(tmp_path: Path) -> None:
    replay = replay_of_a_played_game(tmp_path, "leges", service=True)
    moments = [frame["moment"] for frame in frames_of(replay)]
    assert moments[0] == "Season 1 of 4, round 1 of 3", moments[0]
    assert moments[-1].startswith("Season 4 of 4, round 3 of 3"), moments[-1]
    assert not any(moment.startswith("Turn") for moment in moments)


def test_curia_replay_writes_the_same_page_from_a_record(run_folder: Path,
                                                         tmp_path: Path) -> None:
    target = tmp_path / "replay.html"
    done = subprocess.run([sys.executable, "-m", "curia", "replay",
                           str(run_folder / "games" / "00001.json"), "-o", str(target)],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    made, kept = frames_of(target), frames_of(run_folder / "replays" / "00001.html")
    assert [f["version"] for f in made] == [f["version"] for f in kept]
    assert [f["decision"] for f in made] == [f["decision"] for f in kept]
    assert made[-1]["result"] == kept[-1]["result"] and made[-1]["result"]


def frames_of(page: Path) -> list[dict[str, Any]]:
    """The frames a page embeds (gzip + base64 JSON, as service.web.page packs them)."""
    packed = re.search(r'<script id="frames"[^>]*>([^<]*)</script>', page.read_text())
    assert packed
    data = json.loads(gzip.decompress(base64.b64decode(packed.group(1))))
    frames: list[dict[str, Any]] = data["frames"]
    return frames


def test_a_running_tournament_refreshes_and_a_complete_one_does_not(tmp_path: Path) -> None:
    running = site_html(tmp_path, [], {"name": "x"}, total=4, complete=False)
    assert 'http-equiv="refresh"' in running and "0 of 4 games" in running
    assert 'http-equiv="refresh"' not in site_html(tmp_path, [], {}, total=4, complete=True)
