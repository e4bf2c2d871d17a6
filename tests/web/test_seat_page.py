"""A person's seat in the browser: `curia play --service --seats human,...` prints a link
to `/games/ID/play`; in Chromium a person plays a whole game of each title by clicking
(buttons, and the typed forms of decisions with parts), with no console error; and every
answer the page received holds nothing its seat may not see, checked from outside the
service: against the engine replaying the game's record for that seat."""

from __future__ import annotations

import base64
import json
import random
import re
import struct
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from games import GAMES
from games.core import GameState
from service.redis_server import free_port
from tests.servers import REPO
from tests.timing import patient
from tests.web.conftest import screenshot

PlaywrightError = pytest.importorskip("playwright.sync_api").Error
LINK = re.compile(r"(http://127\.0\.0\.1:\d+/games/([0-9a-f]+)/play)#token=(\S+)")
SERVICE_PATH = "/curia.v1.GameService/"


@dataclass
class Played:
    """What one game through the seat page left: the record, the person's seat and token,
    every token of the game, and the bodies of the page's calls by method."""

    record: dict[str, Any]
    seat: int
    token: str
    answers: list[tuple[str, bytes]]
    clicks: int
    forms: int


def embedded(tmp_path: Path) -> tuple[str, ...]:
    """`curia play`'s options for a service of its own."""
    return "--service", "--port", "0", "--data-dir", str(tmp_path / "redis")


def start_play(service: tuple[str, ...], game: str, seats: str, seed: int, *options: str
               ) -> tuple[subprocess.Popen[str], str, str, str]:
    """`curia play --json` with a human seat on `service` (`embedded`, or `--server` and
    `--web-url`): the process, the page's URL, the game id and the seat's token (from the
    link it prints)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "curia", "play", *service, "--json", "--game", game,
         "--seats", seats, "--seed", str(seed), *options],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    deadline = time.monotonic() + patient(60)
    for line in process.stderr:
        found = LINK.search(line)
        if found:
            return process, found.group(1), found.group(2), found.group(3)
        assert time.monotonic() < deadline, "no link printed"
    process.kill()
    raise AssertionError(f"curia play printed no link: {process.communicate()}")


def seat_state(page: Any) -> dict[str, str]:
    return page.evaluate("() => ({...document.getElementById('seat').dataset})")


def wait_for_turn_or_end(page: Any, after: str) -> dict[str, str]:
    """The page's state once it shows a version after `after` (or a refusal), deciding or
    over."""
    page.wait_for_function(
        """(after) => { const d = document.getElementById('seat').dataset;
                        return (d.state === 'deciding' || d.state === 'over')
                               && (d.version !== after || d.refused); }""",
        arg=after, timeout=patient(120) * 1000)
    return seat_state(page)


def click_a_decision(page: Any, rng: random.Random) -> bool:
    """Choose one of the listed decisions as a person would: a button, or a typed form's
    parts then Send. True if a typed form was used."""
    rows = page.query_selector_all("#decisions .verb-row")
    assert rows, ("it is the seat's turn but no decision is offered",
                  seat_state(page), page.inner_html("#seat"))
    row = rng.choice(rows)
    form = row.query_selector("form.typed")
    if form is None:
        row.query_selector("button").click()
        return False
    for index in range(len(form.query_selector_all("select"))):
        select = form.query_selector(f"select[name=part-{index}]")
        values = [option.get_attribute("value")
                  for option in select.query_selector_all("option")]
        if select.is_visible():
            select.select_option(rng.choice(values))
    form.query_selector("button[type=submit]").click()
    return True


#: Installed in the page before its own script: every answer to a curia.v1 call is
#: copied (the body teed as it arrives) so that the test reads what the page received.
RECORD_ANSWERS = """
(() => {
  const original = window.fetch.bind(window);
  window.__answers = [];
  window.fetch = async (input, init) => {
    const response = await original(input, init);
    const url = typeof input === "string" ? input : input.url;
    if (!url.includes("/curia.v1.GameService/") || !response.body) { return response; }
    const [copy, page] = response.body.tee();
    const answer = { method: url.split("/").pop(), chunks: [], done: false };
    window.__answers.push(answer);
    (async () => {
      const reader = copy.getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) { break; }
        answer.chunks.push(value);
      }
      answer.done = true;
    })();
    return new Response(page, { status: response.status, headers: response.headers });
  };
})();
"""

#: The recorded answers, each body in base64.
READ_ANSWERS = """() => window.__answers.map((answer) => {
  let text = "";
  for (const chunk of answer.chunks) {
    for (let i = 0; i < chunk.length; i += 8192) {
      text += String.fromCharCode(...chunk.subarray(i, i + 8192));
    }
  }
  return { method: answer.method, done: answer.done, body: btoa(text) };
})"""


def recorded(page: Any) -> list[tuple[str, bytes]]:
    """(method, body) of every call's answer whose body has arrived whole."""
    return [(item["method"], base64.b64decode(item["body"]))
            for item in page.evaluate(READ_ANSWERS) if item["done"]]


def describe(answers: list[tuple[str, bytes]]) -> list[tuple[str, int, list[int]]]:
    return [(method, len(body), [int(m.get("version", 0)) for m in stream_messages(body)][-3:]
             if method == "WatchGame" else []) for method, body in answers]


def reached(answers: list[tuple[str, bytes]], version: int) -> bool:
    """Whether a WatchGame stream among `answers` brought the page to `version`."""
    return any(int(message.get("version", 0)) == version for method, body in answers
               if method == "WatchGame" for message in stream_messages(body))


def play_in_the_browser(page: Any, service: tuple[str, ...], game: str, seats: str, seed: int
                        ) -> Played:
    process, url, game_id, token = start_play(service, game, seats, seed)
    page.add_init_script(RECORD_ANSWERS)
    try:
        page.goto(f"{url}#token={token}")
        assert page.url == url, "the token left the address bar"
        stored = page.evaluate(f"() => sessionStorage.getItem('curia-seat:{game_id}')")
        assert stored == token
        rng, clicks, forms, shown = random.Random(seed), 0, 0, ""
        while (state := wait_for_turn_or_end(page, shown))["state"] != "over":
            if state.get("refused"):
                raise AssertionError(page.text_content("#note"))
            try:
                forms += click_a_decision(page, rng)
            except PlaywrightError as error:  # the choices changed under the pointer (a
                if "not attached" not in str(error):  # new view): look again
                    raise
                continue
            shown = state["version"]
            clicks += 1
        screenshot(page, f"seat-{game}")
        out, err = process.communicate(timeout=patient(120))
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err[-2000:]
    record = json.loads(out)
    last = len(record["decisions"])
    deadline = time.monotonic() + patient(30)
    while not reached(answers := recorded(page), last):
        assert time.monotonic() < deadline, ("the page's stream never reached the end",
                                             describe(answers)[-3:])
        page.wait_for_timeout(100)  # lets the browser's events reach the test
    seat = record["players"].index("human")
    return Played(record, seat, token, answers, clicks, forms)


# -- the outside leak check --------------------------------------------------------------
@dataclass
class SeatMoment:
    """What the seat may know at one version, from the engine: its observation drawn,
    its legal decisions, and the decision and events that made the version as it may
    see them."""

    svg: str
    legal: list[str]
    notation: str
    secret: bool
    events: list[tuple[str, Any]]


def seat_moments(record: dict[str, Any], seat: int) -> dict[int, SeatMoment]:
    """The engine's replay of the record, version by version, as `seat` may see it."""
    game = GAMES[record["game"]]
    options = {name: int(value) for name, value in record["options"].items()}
    state = game.new(record["variant"], int(record["num_seats"]), options,
                     int(record["seed"]))
    moments = {0: moment_of(state, seat, "", False, [])}
    for entry in record["decisions"]:
        decision = state.parse(entry["notation"])
        seen_by = state.decision_seen_by(entry["seat"], decision)
        secret = seen_by is not None and seat not in seen_by
        events = [(e.kind, e.data) for e in state.apply_unchecked(entry["seat"], decision)
                  if e.visible_to(seat)]
        moments[int(entry["version"])] = moment_of(state, seat, "" if secret else entry["notation"],
                                              secret, events)
    return moments


def moment_of(state: GameState, seat: int, notation: str, secret: bool,
              events: list[tuple[str, Any]]) -> SeatMoment:
    observation = json.loads(json.dumps(state.observation(seat), sort_keys=True))
    legal = ([str(d) for d in state.legal_decisions(seat)]
             if not state.is_over and seat in state.to_move() else [])
    return SeatMoment(GAMES[state.game].render_svg(observation) or "", legal, notation,
                      secret, [(kind, data) for kind, data in json.loads(json.dumps(events))])


def stream_messages(body: bytes, refusals: tuple[bytes, ...] = ()) -> list[dict[str, Any]]:
    """The messages of a gRPC-Web (JSON) answer; its trailers must say OK, or one of the
    `refusals` (curia-reason words)."""
    messages, at = [], 0
    while at < len(body):
        flags, size = struct.unpack(">BI", body[at:at + 5])
        payload = body[at + 5:at + 5 + size]
        at += 5 + size
        if flags & 0x80:
            assert b"grpc-status: 0" in payload or any(
                f"curia-reason: {reason}\r\n".encode() in payload
                for reason in refusals), payload
            continue
        messages.append(json.loads(payload or b"{}"))
    return messages


#: The view fields the page may receive (it asks for no observation, and a drawn board).
VIEW_FIELDS = {"gameId", "version", "status", "seat", "toMove", "legalDecisions", "pending",
               "result", "deadlineUnixMs", "game", "variant", "seatNames", "bankLeftMs",
               "forfeitedSeats", "turn", "absentSeats", "lineage", "players", "boardSvg"}


def check_view(view: dict[str, Any], truth: SeatMoment, seat: int) -> None:
    assert set(view) <= VIEW_FIELDS, set(view) - VIEW_FIELDS
    assert view.get("seat", 0) == seat
    if "boardSvg" in view:
        assert view["boardSvg"] == truth.svg, "the board is not the seat's observation"
    legal = [d["notation"] for d in view.get("legalDecisions", [])]
    assert legal in ([], truth.legal), (legal, truth.legal)


#: A seat token's shape (32 random bytes, URL-safe base64): no answer holds one.
TOKEN_SHAPE = re.compile(rb"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])")


def check_answers(played: Played) -> int:
    """Every answer against the engine's truth for the seat; the number of stream
    messages checked."""
    truth = seat_moments(played.record, played.seat)
    checked = 0
    for method, body in played.answers:
        assert played.token.encode() not in body, f"{method} echoed the seat's token"
        assert not TOKEN_SHAPE.search(body), f"{method} holds a token-shaped word"
        if method == "WatchGame":
            for message in stream_messages(body):
                moment = truth[int(message.get("version", 0))]
                check_view(message["view"], moment, played.seat)
                assert message["view"].get("boardSvg"), "a view without its board"
                decision = message.get("decision")
                if decision is not None:
                    assert decision.get("notation", "") == moment.notation
                    assert bool(decision.get("secret")) == moment.secret
                assert events_of(message) == moment.events
                checked += 1
        elif method == "SubmitDecision":
            answers = stream_messages(body, refusals=("stale_version",))
            if not answers:  # another seat decided first: the page sends it again
                continue
            answer, = answers
            moment = truth[int(answer["version"])]
            assert events_of(answer) == moment.events
            if "view" in answer:
                check_view(answer["view"], moment, played.seat)
        else:
            raise AssertionError(f"the page called {method}")
    return checked


def events_of(message: dict[str, Any]) -> list[tuple[str, Any]]:
    return [(e["kind"], json.loads(e.get("dataJson", "{}"))) for e in message.get("events", [])]


@pytest.fixture
def web_service(service_process: Any, redis_url: str) -> tuple[str, ...]:
    """`curia play`'s options for a running `curia serve --http-port` (which outlives the
    game, so the test reads what its page got to the end)."""
    port = free_port()
    served = service_process(redis_url, extra_args=("--http-port", str(port)))
    return "--server", served.address, "--web-url", f"http://127.0.0.1:{port}"


@pytest.mark.parametrize(("game", "seats", "seed"), [
    ("municipium", "human,greedy,random", 3),
    ("ciceron", "random,human,greedy,random", 5),
    ("leges", "greedy,human", 7),
    ("leges", "random,random,greedy,random,human", 9),
])
def test_a_person_plays_a_whole_game_in_the_browser(page: Any, web_service: tuple[str, ...],
                                                    game: str, seats: str, seed: int) -> None:
    played = play_in_the_browser(page, web_service, game, seats, seed)
    result = page.text_content("#result-text")
    assert "— you" in result
    assert played.clicks >= 5 and played.forms >= 1, (played.clicks, played.forms)
    mine = [d for d in played.record["decisions"] if d["seat"] == played.seat]
    assert 0 < len(mine) <= played.clicks  # (a decision refused as stale and no longer
    # legal on the next view is not sent again: the person decides again)
    assert all(d["cause"] == "DECISION_CAUSE_SEAT" for d in mine)
    checked = check_answers(played)
    assert checked >= len(played.record["decisions"]), "the page missed versions"


def test_a_seat_page_says_what_is_wrong_without_its_token_and_shows_the_clock(
        browser: Any, tmp_path: Path) -> None:
    """No token: it says a seat's link is needed; a forged one: the service's refusal (no
    console error: a refusal is an answer); the
    real link: the seat's turn with its time to decide (a game created with
    --decision-seconds), the game having waited for the person to arrive."""
    process, url, game_id, token = start_play(embedded(tmp_path), "leges", "human,random", 11,
                                              "--decision-seconds", "300")
    context = browser.new_context()
    errors: list[str] = []
    context.on("console", lambda message: errors.append(message.text)
               if message.type == "error" else None)
    try:
        page = context.new_page()
        page.goto(url)
        page.wait_for_function("() => document.getElementById('status').textContent "
                               "=== 'no seat'", timeout=patient(30) * 1000)
        assert "needs a seat's link" in page.text_content("#note")
        page = context.new_page()  # (a fragment alone is no new load)
        page.goto(f"{url}#token=forged-{token[:8]}")
        page.wait_for_function("() => document.getElementById('status').textContent"
                               ".startsWith('refused')", timeout=patient(30) * 1000)
        assert "seat" in page.text_content("#status")
        page = context.new_page()
        page.goto(f"{url}#token={token}")
        assert wait_for_turn_or_end(page, "")["state"] == "deciding"
        clock = page.text_content("#clock")
        assert re.fullmatch(r"time to decide: [45]:\d\d", clock), clock
    finally:
        context.close()
        process.kill()
        process.communicate()
    assert not errors, errors
