"""Live spectating: `curia serve --http-port` serves a game in progress to a browser, as a
spectator, over Server-Sent Events, until its end; and only what a spectator may see."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from client.unary import CuriaClient
from curia.remote import seat_bot
from curia_api.v1 import game_service_pb2 as pb
from service.http_gateway import BackgroundGateway, Gateway
from service.redis_server import free_port
from service.web.frames import live_frame
from tests.web.conftest import screenshot

BOTS = ("random", "greedy")


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


@pytest.fixture
def live_server(service_process: Any, tmp_path: Path) -> tuple[str, str]:
    """(gRPC address, web base URL) of a real `curia serve --http-port` process."""
    port = free_port()
    process = service_process(None, data_dir=tmp_path / "redis",
                              extra_args=("--http-port", str(port)))
    return process.address, f"http://127.0.0.1:{port}"


def play(address: str, game_id: str, seats: Any, pace: float) -> list[threading.Thread]:
    failures: list[str] = []
    threads = [threading.Thread(target=seat_bot, daemon=True, args=(
        address, game_id, cred.seat, cred.token, BOTS[cred.seat], "municipium", 7 + cred.seat,
        pace, failures)) for cred in seats]
    for thread in threads:
        thread.start()
    return threads


def watched_to_its_end(live_server: tuple[str, str], page: Any, pace: float,
                       **create: Any) -> pb.GameRecord:
    """A 2-seat Municipium game created with `create`, followed on its live page from
    version 0 while the shipped bots play it to its end; its record."""
    address, web = live_server
    with CuriaClient(address) as client:
        created = client.create_game("municipium", "revised", 2,
                                     options={"target_decurions": 4}, seed=11, **create)
        page.goto(f"{web}/games/{created.game_id}")
        page.wait_for_selector("#position:has-text('version 0')")
        threads = play(address, created.game_id, created.seats, pace=pace)
        page.wait_for_selector("#status:has-text('game over')", timeout=60_000)
        for thread in threads:
            thread.join(timeout=30)
        return client.record(created.game_id)


def first_line_of_result(page: Any) -> str:
    result = page.locator("#result-text").inner_text()
    return next(line for line in result.splitlines() if line.strip().startswith("1."))


def test_a_live_page_follows_a_game_to_its_end(live_server: tuple[str, str],
                                               page: Any) -> None:
    record = watched_to_its_end(live_server, page, pace=0.01)
    last = len(record.decisions)
    assert page.locator("#position").inner_text() == f"version {last} of {last}"
    winner = record.seat_names[record.result.ranking[0].seats[0]]
    assert winner in first_line_of_result(page), page.locator("#result-text").inner_text()
    screenshot(page, "live")
    page.get_by_role("button", name="First version").click()
    assert page.locator("#position").inner_text() == f"version 0 of {last}"


def test_the_viewer_names_the_players_a_game_was_created_with(
        live_server: tuple[str, str], page: Any) -> None:
    """A league's game names its bots (CreateGameRequest.players): in the page's header
    and in the result, beside the game's own seat names."""
    record = watched_to_its_end(live_server, page, pace=0.0, players=("ann", "bob@2"))
    names = list(record.seat_names)
    assert f"{names[0]}=ann, {names[1]}=bob@2" in page.locator("header").inner_text()
    winner = ("ann", "bob@2")[record.result.ranking[0].seats[0]]
    assert winner in first_line_of_result(page), page.locator("#result-text").inner_text()


def test_a_finished_games_frame_names_players_and_each_forfeits_reason() -> None:
    """The viewer's result (frames.live_frame of the final view): the bots by seat, and why
    a seat forfeited."""
    view = pb.View(game="leges", variant="standard", status=pb.GAME_STATUS_FINISHED,
                   seat_names=["seat 0", "seat 1"], players=["ann", "bob"], version=40,
                   result=pb.GameResult(reason="seasons", ranking=[
                       pb.RankGroup(seats=[0]), pb.RankGroup(seats=[1])], scores=[
                       pb.SeatScore(seat=0, rank=1),
                       pb.SeatScore(seat=1, rank=2, forfeited=True, forfeit_reason="time")]))
    lines = live_frame(pb.WatchGameResponse(view=view, version=40))["result"]
    assert any("seat 0" in line and "ann" in line for line in lines), lines
    assert any("bob" in line and "(forfeited: time)" in line for line in lines), lines


def test_a_late_spectator_is_told_it_is_catching_up(live_server: tuple[str, str],
                                                     page: Any) -> None:
    """A page opened on a game already far along says "catching up, version N of M" until
    the stream reaches the version the game had, never "following" with a wrong total."""
    address, web = live_server
    with CuriaClient(address) as client:
        created = client.create_game("municipium", "revised", 2,
                                     options={"target_decurions": 4}, seed=11)
        for thread in play(address, created.game_id, created.seats, pace=0):
            thread.join(timeout=60)
        last = client.view(created.game_id).version
    assert last > 20
    page.add_init_script("""
        window.seen = [];
        new MutationObserver(() => {
          const s = document.getElementById("status"), p = document.getElementById("position");
          if (s && p) { window.seen.push([s.textContent, p.textContent]); }
        }).observe(document, {subtree: true, childList: true, characterData: true});""")
    page.goto(f"{web}/games/{created.game_id}")
    page.wait_for_selector("#status:has-text('game over')", timeout=60_000)
    seen = page.evaluate("window.seen")
    catching = [status for status, _ in seen if "catching up" in status]
    assert catching, seen[:5]
    assert all(position.endswith(f" of {last}") for _, position in seen if position), seen
    assert not any(status == "live: following" and not position.startswith(f"version {last}")
                   for status, position in seen), seen
    assert page.locator("#position").inner_text() == f"version {last} of {last}"


def test_the_stream_holds_spectator_views_only(live_server: tuple[str, str]) -> None:
    address, web = live_server
    with CuriaClient(address) as client:
        created = client.create_game("municipium", "revised", 2, seed=123456789)
        for thread in play(address, created.game_id, created.seats, pace=0.0):
            thread.join(timeout=60)
    status, body = get(f"{web}/games/{created.game_id}/events")
    assert status == 200 and body.endswith("event: end\ndata: {}\n\n")
    frames = [json.loads(line[len("data: "):]) for line in body.splitlines()
              if line.startswith("data: {\"")]
    assert frames[0]["version"] == 0 and frames[-1]["result"]
    for cred in created.seats:
        assert cred.token not in body
    assert "123456789" not in body, "no seed"
    resumed = get(f"{web}/games/{created.game_id}/events", {"Last-Event-ID": "5"})[1]
    assert json.loads(resumed.split("data: ", 2)[1].split("\n")[0])["version"] == 6


@pytest.mark.parametrize(("path", "code"), [
    ("/games/nosuchgame", 404), ("/games/bad%0Aid", 404), ("/games/" + "x" * 65, 404),
    ("/games?id=bad%20id", 400), ("/nothing", 404), ("/", 200)])
def test_game_ids_are_checked(live_server: tuple[str, str], path: str, code: int) -> None:
    assert get(live_server[1] + path)[0] == code


def test_a_run_folder_is_served_read_only_and_only_its_site(tmp_path: Path) -> None:
    (tmp_path / "replays").mkdir()
    (tmp_path / "redis").mkdir()
    for name in ("index.html", "replays/00000.html", "redis/redis.password",
                 "logs.txt", "tournament.lock.json"):
        (tmp_path / name).write_text(name)
    gateway = BackgroundGateway(Gateway(site=tmp_path), "127.0.0.1", 0)
    base = f"http://127.0.0.1:{gateway.start()}"
    try:
        assert get(base + "/") == (200, "index.html")
        assert get(base + "/replays/00000.html") == (200, "replays/00000.html")
        for path in ("/redis/redis.password", "/logs.txt", "/tournament.lock.json",
                     "/replays/../redis/redis.password", "/games/abc"):
            assert get(base + path)[0] == 404, path
    finally:
        gateway.stop()


def test_a_loopback_gateway_refuses_other_host_names(live_server: tuple[str, str]) -> None:
    """DNS rebinding: a page of another site resolved to 127.0.0.1 gets nothing."""
    assert get(live_server[1] + "/", {"Host": "evil.example:80"})[0] == 421
