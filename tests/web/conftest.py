"""Browser fixtures: headless Chromium from the OS (no `playwright install` download),
driven by Playwright for Python; every page fails its test on a console error.
Screenshots go to tests/web/artifacts/ (git-ignored)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


def system_chromium() -> str | None:
    """The OS's Chromium: $CURIA_CHROMIUM, else chromium or chromium-browser on PATH."""
    named = os.environ.get("CURIA_CHROMIUM")
    if named:
        return named
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium for one test module: Playwright's sync API keeps an event loop
    running in this thread while it is open, so it must close before other modules run."""
    sync_api = pytest.importorskip("playwright.sync_api")
    executable = system_chromium()
    if executable is None:
        pytest.skip("no chromium on PATH (.ci/run installs it)")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable,
                                              args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A desktop-sized page; console errors and uncaught exceptions fail the test."""
    context = browser.new_context(viewport=DESKTOP)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("console", lambda message: errors.append(message.text)
              if message.type == "error" else None)
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    context.close()
    assert not errors, f"console errors: {errors}"


def screenshot(page: Any, name: str, *, full_page: bool = False) -> Path:
    """Write a screenshot artifact and check it is not blank (many distinct colours)."""
    from PIL import Image

    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    with Image.open(path) as image:
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20) or []
    assert len(colours) > 16, f"{path} looks blank ({len(colours)} colours)"
    return path


def replay_of_a_played_game(folder: Path, game: str, *, seed: int = 4,
                            seats: tuple[str, ...] = (), service: bool = False) -> Path:
    """`curia play --json` (bots `seats`; through a service with `service`), then `curia
    replay` of its record: the replay page's path."""
    from tests.servers import REPO

    command = [sys.executable, "-m", "curia", "play", "--game", game, "--json",
               "--seed", str(seed)]
    command += ["--seats", ",".join(seats)] if seats else []
    command += ["--service"] if service else []
    played = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert played.returncode == 0, played.stderr[-2000:]
    (folder / "r.json").write_text(played.stdout)
    done = subprocess.run([sys.executable, "-m", "curia", "replay", str(folder / "r.json"),
                           "-o", str(folder / "r.html")], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return folder / "r.html"
