"""The arena's site writer (curia.arena_cli.SiteUpdater): a game's end never waits for a
page to render, so a run collects its games and answers a stop meanwhile; updates that
came during a render are written once, the latest; a normal end waits for that last one."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from curia.arena_cli import SiteUpdater
from tests.timing import patient


def games(count: int) -> list[Any]:
    return [object()] * count


def test_a_slow_page_holds_up_no_update_and_the_end_writes_the_latest(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rendering, release = threading.Event(), threading.Event()
    written: list[int] = []

    def slow_site(output: Path, outcomes: list[Any], meta: dict[str, Any], *, total: int,
                  complete: bool) -> None:
        rendering.set()
        assert release.wait(patient(30)), "the test never released the render"
        written.append(len(outcomes))

    monkeypatch.setattr("arena.site.write_site", slow_site)
    site = SiteUpdater(tmp_path, {}, None)
    site.update(games(1), 9)
    assert rendering.wait(patient(30))  # the first game's page, under way

    def two_more_games() -> None:
        for count in (2, 3):
            site.update(games(count), 9)

    updates = threading.Thread(target=two_more_games)
    updates.start()
    updates.join(patient(5))
    assert not updates.is_alive(), "an update waited for the page being rendered"
    assert written == []
    release.set()
    site.finish()
    assert written == [1, 3], "the render under way, then only the latest update"
