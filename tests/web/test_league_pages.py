"""The league pages of `curia serve --http-port`: a real Redis, a real `curia serve`
process (its league agent matching and recording), bots on real Play streams; the pages
read over plain HTTP, then followed in Chromium while one more game is played."""

from __future__ import annotations

import csv
import io
import json
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from redis import Redis

from bots.play_client import PlayClient
from curia_api.v1 import game_service_pb2 as pb
from league.ladder import ladder
from league.registry import Leagues, LeagueSettings
from service.leagues import league_key
from service.redis_server import free_port
from service.web import league_pages
from tests.servers import ServiceProcess
from tests.timing import patient, wait_until
from tests.web.conftest import screenshot

LEAGUE = "pages-league"
#: bot -> (shipped bot, games at once); "delta" is registered and never connects.
BOTS = {"alpha": ("greedy", 2), "beta": ("random", 1), "gamma": ("random", 1)}
OWNER = '<script>alert("owned")</script> & Sons'
FIRST_GAMES = 4


class PacedClient(PlayClient):
    """A shipped bot that may take its time (so that a game stays live a while)."""

    pace = 0.0

    def _decide(self, view: pb.View) -> pb.PlayRequest | None:
        if self.pace:
            time.sleep(self.pace)
        return super()._decide(view)


@dataclass
class World:
    web: str
    address: str
    redis: Redis
    leagues: Leagues
    keys: dict[str, str]
    clients: list[PacedClient]
    live_seen: dict[str, dict[str, Any]] = field(default_factory=dict)

    def results(self) -> list[dict[str, Any]]:
        return self.leagues.results(LEAGUE)

    def history(self) -> list[dict[str, Any]]:
        return [json.loads(raw) for raw in
                self.redis.lrange(league_key(LEAGUE, "history"), 0, -1)]

    def play(self, games: int, timeout: float = 60) -> None:
        """Let the league play up to `games` games in all; meanwhile, note what the
        league's state.json shows live."""
        self.leagues.set_limits(LEAGUE, max_games=games)
        deadline = time.monotonic() + patient(timeout)
        while len(self.results()) < games or len(self.history()) < games:
            assert time.monotonic() < deadline, "the league did not play its games"
            for table in get_json(f"{self.web}/leagues/{LEAGUE}/state.json")["live"]:
                self.live_seen[table["game_id"]] = table
            time.sleep(0.05)


def get(url: str) -> tuple[int, str, str]:
    """(status, content type, body) of a GET."""
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status, answer.headers["Content-Type"], answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read().decode()


def get_json(url: str) -> Any:
    status, kind, body = get(url)
    assert status == 200 and kind == "application/json", (status, body[:200])
    return json.loads(body)


def attribute_values(html: str, name: str) -> list[str]:
    return re.findall(rf'{name}="([^"]*)"', html)


def section(html: str, part: str) -> str:
    """The inside of `<div id="part">…</div>` of a page: up to the first `</div>` that a
    heading, another part or a paragraph follows."""
    found = re.search(rf'<div id="{part}">(.*?)</div>(?:<h2>|<div id=|<p>)', html, re.S)
    assert found, f"no section {part}"
    return found.group(1)


@pytest.fixture(scope="module")
def world(redis_url: str) -> Iterator[World]:
    redis = Redis.from_url(redis_url)
    leagues = Leagues(redis)
    leagues.create(LeagueSettings(name=LEAGUE, game="leges", decision_ms=20_000,
                                  max_games=FIRST_GAMES))
    keys = {bot: leagues.add_bot(LEAGUE, bot, owner=OWNER if bot == "alpha" else "ops")
            for bot in (*BOTS, "delta")}
    port = free_port()
    process = ServiceProcess(redis_url, extra_args=("--http-port", str(port)))
    stop = threading.Event()
    clients = [PacedClient(process.address, keys[bot], shipped, seed=i,
                           concurrency=concurrency)
               for i, (bot, (shipped, concurrency)) in enumerate(BOTS.items())]
    threads = [threading.Thread(target=client.run, args=(stop,), daemon=True)
               for client in clients]
    for thread in threads:
        thread.start()
    world = World(f"http://127.0.0.1:{port}", process.address, redis, leagues, keys, clients)
    try:
        world.play(FIRST_GAMES)
        yield world
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=10)
        process.stop()
        redis.close()


# ---------------------------------------------------------------------------------------
# Plain HTTP
# ---------------------------------------------------------------------------------------
def test_the_league_page_shows_the_ladder_live_and_recent_games(world: World) -> None:
    results = world.results()
    last = world.history()[-1]
    rows = ladder(results, world.leagues.settings(LEAGUE).provisional_games)
    assert [row["bot"] for row in last["ladder"]] == [row.bot for row in rows]

    status, kind, page = get(f"{world.web}/leagues/{LEAGUE}")
    assert (status, kind) == (200, "text/html; charset=utf-8")
    shown = section(page, "ladder")
    assert attribute_values(shown, "data-bot") == [row.bot for row in rows]
    for row in last["ladder"]:
        assert f'href="/leagues/{LEAGUE}/bots/{row["bot"]}"' in shown
        assert f'{row["low"]:.0f}–{row["high"]:.0f}' in shown
    assert shown.count(">provisional<") == len(rows)  # fewer than 10 games each
    assert "Not on the ladder yet" in shown and "delta" in shown
    recent = section(page, "recent")
    assert attribute_values(recent, "data-game") == [r["game_id"] for r in results[::-1]]
    for result in results:
        assert f'href="/games/{result["game_id"]}"' in recent
    online = section(page, "online")
    assert all(f">{bot}</a>" in online for bot in BOTS) and "delta" not in online
    assert "/results.csv" in page and "/ladder.json" in page

    # live games were shown while being played, each linking to the viewer
    assert world.live_seen, "state.json never showed a live game"
    ended = {result["game_id"]: result for result in results}
    for game_id, table in world.live_seen.items():
        assert table["seating"] == ended[game_id]["seating"]

    # the viewer the links lead to replays a finished game
    finished = results[0]["game_id"]
    assert get(f"{world.web}/games/{finished}")[0] == 200
    events = get(f"{world.web}/games/{finished}/events")[2]
    assert events.startswith("id: 0\n") and events.endswith("event: end\ndata: {}\n\n")

    state = get_json(f"{world.web}/leagues/{LEAGUE}/state.json")
    assert state["ladder"] == last and state["played"] == len(results)
    assert set(state["sections"]) == {"summary", "ladder", "online", "live", "recent",
                                      "settings"}

    head = urllib.request.Request(f"{world.web}/leagues/{LEAGUE}", method="HEAD")
    with urllib.request.urlopen(head, timeout=30) as answer:
        assert answer.status == 200 and answer.read() == b""

    status, _, index = get(f"{world.web}/leagues")
    assert status == 200 and f'href="/leagues/{LEAGUE}"' in index
    assert 'href="/leagues"' in get(f"{world.web}/")[2]


def test_a_bot_page_shows_its_rating_history_and_games(world: World) -> None:
    results, history = world.results(), world.history()
    for bot, (shipped, _) in BOTS.items():
        status, _, page = get(f"{world.web}/leagues/{LEAGUE}/bots/{bot}")
        assert status == 200
        mine = [r["game_id"] for r in results if bot in r["seating"]]
        assert attribute_values(section(page, "recent"), "data-game") == mine[::-1]
        now = next(row for row in history[-1]["ladder"] if row["bot"] == bot)
        assert f'<strong>{now["elo"]:.0f}</strong>' in section(page, "rating")
        points = sum(any(row["bot"] == bot for row in entry["ladder"]) for entry in history)
        chart = section(page, "chart")
        assert "<svg" in chart and f"{points} points" in chart and "<script" not in chart
        profile = section(page, "profile")
        assert f"curia bots.play_client {shipped}" in profile
        assert "<td class=\"name\">yes</td>" in profile  # connected
        state = get_json(f"{world.web}/leagues/{LEAGUE}/bots/{bot}/state.json")
        assert len(state["bot"]["series"]) == points
        assert [r["game_id"] for r in state["bot"]["recent"]] == mine[::-1]
    status, _, page = get(f"{world.web}/leagues/{LEAGUE}/bots/delta")
    assert status == 200 and "No rated game yet" in page and "No rating yet" in page


def test_the_exports_match_the_results(world: World) -> None:
    results = world.results()
    status, kind, text = get(f"{world.web}/leagues/{LEAGUE}/results.csv")
    assert (status, kind) == (200, "text/csv; charset=utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [row["game_id"] for row in rows] == [r["game_id"] for r in results]
    assert [row["seating"].split() for row in rows] == [r["seating"] for r in results]
    for row, result in zip(rows, results, strict=True):  # each seat's place, 1 = first
        places = {seat: place for place, group in enumerate(result["ranking"], 1)
                  for seat in group}
        assert row["places"].split() == [str(places[s]) for s in range(len(places))]
    exported = get_json(f"{world.web}/leagues/{LEAGUE}/ladder.json")
    last = world.history()[-1]
    assert exported == {"league": LEAGUE, **last}
    rows_now = ladder(results, world.leagues.settings(LEAGUE).provisional_games)
    assert [row["bot"] for row in exported["ladder"]] == [row.bot for row in rows_now]


@pytest.mark.parametrize("path", [
    "/leagues/no-such-league", "/leagues/no-such-league/state.json",
    "/leagues/no-such-league/results.csv", "/leagues/no-such-league/ladder.json",
    f"/leagues/{LEAGUE}/bots/nobody", f"/leagues/{LEAGUE}/bots/nobody/state.json",
    f"/leagues/{LEAGUE}/bots", f"/leagues/{LEAGUE}/bots/", f"/leagues/{LEAGUE}/other",
    f"/leagues/{LEAGUE}/bots/alpha/other", "/leagues/%3Cscript%3E", "/leagues/a}b",
    f"/leagues/{LEAGUE}/bots/..%2Fbeta"])
def test_an_unknown_league_or_bot_is_404(world: World, path: str) -> None:
    status, kind, body = get(world.web + path)
    assert (status, kind) == (404, "text/html; charset=utf-8")
    assert "<script>" not in body


def every_page(world: World) -> dict[str, str]:
    paths = ["/", "/leagues", f"/leagues/{LEAGUE}", f"/leagues/{LEAGUE}/state.json",
             f"/leagues/{LEAGUE}/results.csv", f"/leagues/{LEAGUE}/ladder.json",
             *(f"/leagues/{LEAGUE}/bots/{bot}{tail}" for bot in world.keys
               for tail in ("", "/state.json"))]
    pages = {}
    for path in paths:
        status, _, body = get(world.web + path)
        assert status == 200, path
        pages[path] = body
    return pages


def test_no_page_shows_a_key_or_its_hash_and_free_text_is_escaped(world: World) -> None:
    accounts = world.leagues.bots(LEAGUE)
    secrets = [account["key"] for account in accounts.values()] + list(world.keys.values())
    assert all(len(secret) >= 40 for secret in secrets)
    pages = every_page(world)
    for path, body in pages.items():
        for secret in secrets:
            assert secret not in body, f"{path} shows a key or its hash"
        assert '"key"' not in body, path
    escaped = "&lt;script&gt;alert(&quot;owned&quot;)&lt;/script&gt; &amp; Sons"
    bot_page = pages[f"/leagues/{LEAGUE}/bots/alpha"]
    assert escaped in bot_page and "<script>alert" not in bot_page
    state = json.loads(pages[f"/leagues/{LEAGUE}/bots/alpha/state.json"])
    assert escaped in state["sections"]["profile"]
    assert state["bot"]["account"]["owner"] == OWNER  # data, served as JSON (nosniff)
    for path, body in pages.items():
        if path.endswith((".json", ".csv")):
            continue
        scripts = re.findall(r"<script>(.*?)</script>", body, re.S)
        assert all("owned" not in script for script in scripts), path
        assert "<script>alert" not in body, path


def test_free_text_void_and_unrated_results_render_safely() -> None:
    """The page functions alone: whatever Redis holds is escaped; a void or unrated
    result is marked; a seat out of range does not break the page."""
    evil = "<img src=x onerror=alert(1)>"
    result = {"game_id": "g1", "seating": ["a", "b"], "ranking": [[1], [0, 7]],
              "forfeits": [0], "reason": evil, "void": evil, "rated": False,
              "ended_ms": 1_700_000_000_000}
    data = {"name": "L", "now_ms": 0, "played": 1, "online": ["a"], "live": [],
            "recent": [result], "ladder": None,
            "settings": {"game": evil, "variant": "v", "options": evil, "status": "open"},
            "bots": {"a": {"owner": evil, "status": "active", "hosted": False}},
            "bot": {"name": "a", "account": {"owner": evil, "status": "banned"},
                    "client": evil, "online": True, "rank": None, "rating": None,
                    "series": [], "recent": [result], "live": []}}
    pages = [league_pages.league_page(data), league_pages.bot_page(data),
             json.dumps(league_pages.league_state(data)["sections"]),
             json.dumps(league_pages.bot_state(data)["sections"])]
    for page in pages:
        assert "<img" not in page
    league = pages[0]
    assert "void: &lt;img" in league and "unrated" in league
    assert "1. <a href=\"/leagues/L/bots/b\">b</a> · 2. " in league
    assert "a</a> (forfeit), seat 7" in league
    assert "No rated game yet." in league
    assert "2 of 2 (forfeit)" in pages[1]
    timed_out = {**result, "reasons": {"0": "time"}}
    page = league_pages.bot_page({**data, "recent": [timed_out],
                                  "bot": {**data["bot"], "recent": [timed_out]}})
    assert "2 of 2 (forfeit: time)" in page and "a</a> (forfeit: time)" in page
    chart = league_pages.rating_chart([[1, 0, 1500.0, 1200.0, 1800.0]], "a")
    assert chart.count("<circle") == 1 and "game 1" in chart


# ---------------------------------------------------------------------------------------
# In a browser: the pages follow the league
# ---------------------------------------------------------------------------------------
def test_the_pages_follow_a_game_without_a_reload(world: World, page: Any) -> None:
    before = len(world.results())
    page.goto(f"{world.web}/leagues/{LEAGUE}")
    page.wait_for_selector("#ladder [data-bot]")
    page.evaluate("window.notReloaded = true")
    bot_pages, errors = {}, []
    for bot in BOTS:
        opened = page.context.new_page()
        opened.on("console", lambda message: errors.append(message.text)
                  if message.type == "error" else None)
        opened.on("pageerror", lambda error: errors.append(str(error)))
        opened.goto(f"{world.web}/leagues/{LEAGUE}/bots/{bot}")
        opened.evaluate("window.notReloaded = true")
        bot_pages[bot] = opened
    games_shown = sum(int(cell) for cell in page.locator(
        "#ladder tbody td:nth-child(5)").all_inner_texts())
    assert games_shown == 2 * before

    for client in world.clients:  # one more game, slowly enough to be seen live
        client.pace = 0.2  # (a game is some 100 decisions)
    world.leagues.set_limits(LEAGUE, max_games=before + 1)
    wait_until(lambda: len(world.leagues.live(LEAGUE)) == 1, 10, message="a new game")
    game_id, table = next(iter(world.leagues.live(LEAGUE).items()))
    page.wait_for_selector(f'#live [data-game="{game_id}"]', timeout=10_000)
    assert page.locator(f'#live [data-game="{game_id}"] a[href="/games/{game_id}"]').count()
    for client in world.clients:
        client.pace = 0.0
    page.wait_for_selector(f'#recent tbody tr:first-child[data-game="{game_id}"]',
                           timeout=30_000)
    page.wait_for_selector(f'#live [data-game="{game_id}"]', state="detached")
    wait_until(lambda: sum(int(cell) for cell in page.locator(
        "#ladder tbody td:nth-child(5)").all_inner_texts()) == 2 * (before + 1), 10,
               message="the ladder's games to count the new one")
    assert page.evaluate("window.notReloaded") is True
    assert page.locator("#status").inner_text() == "live"
    last = world.history()[-1]
    assert page.locator("#ladder [data-bot]").evaluate_all(
        "rows => rows.map(row => row.dataset.bot)") == [row["bot"] for row in last["ladder"]]
    screenshot(page, "league")
    world.leagues.set_status(LEAGUE, "paused")  # a setting changes: the page follows it too
    page.wait_for_selector("#summary strong:text-is('paused')", timeout=10_000)
    world.leagues.set_status(LEAGUE, "open")

    for bot, opened in bot_pages.items():
        played = bot in table["seating"]
        if played:
            opened.wait_for_selector(f'#recent tbody tr:first-child[data-game="{game_id}"]',
                                     timeout=10_000)
            now = next(row for row in last["ladder"] if row["bot"] == bot)
            opened.wait_for_selector(f"#rating strong:text-is('{now['elo']:.0f}')",
                                     timeout=10_000)
            points = sum(any(row["bot"] == bot for row in entry["ladder"])
                         for entry in world.history())
            assert f", {points} points;" in opened.locator("#chart svg").get_attribute(
                "aria-label")
        else:
            assert not opened.locator(f'#recent [data-game="{game_id}"]').count()
        assert opened.evaluate("window.notReloaded") is True
        assert opened.locator("#chart svg polyline").count() == 1
    screenshot(bot_pages[table["seating"][0]], "league-bot", full_page=True)
    for opened in bot_pages.values():
        opened.close()
    assert not errors, f"console errors on the bots' pages: {errors}"

