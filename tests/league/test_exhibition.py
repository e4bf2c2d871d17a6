"""A league host seats a person: `curia league exhibition` makes an unrated game of the
league's bots online and a person's seat, whose link is the seat page's (the same as
`curia play --seats human,...` prints); the bots play on their Play streams, the person on
the web port with the link's token, and the agent records the game, unrated."""

from __future__ import annotations

import json
import os
import random
import struct
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from redis import Redis

from bots.play_client import PlayClient
from client.unary import CuriaClient
from curia_api.v1 import game_service_pb2 as pb
from league.agent import LeagueAgent
from league.registry import Leagues, LeagueSettings
from service.leagues import seats_key
from service.redis_server import EmbeddedRedis
from service.server import BackgroundServer
from tests.servers import REPO
from tests.timing import patient, wait_until


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, str, str]]:
    """(Redis URL, gRPC address, web URL) of a service with its web port."""
    with EmbeddedRedis(tmp_path / "redis") as store:
        server = BackgroundServer(store.url, http_port=0)
        port = server.start()
        try:
            yield store.url, f"127.0.0.1:{port}", f"http://127.0.0.1:{server.http_port}"
        finally:
            server.stop()


def exhibition(redis_url: str, league: str, seats: str, target: str, web: str
               ) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, CURIA_REDIS_URL=redis_url)
    return subprocess.run([sys.executable, "-m", "curia", "league", "exhibition", league,
                           "--seats", seats, "--server", target, "--web-url", web],
                          cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=patient(60))


def grpc_web(web: str, method: str, message: dict[str, Any]) -> dict[str, Any] | None:
    """One unary call as the seat page makes it (gRPC-Web, JSON); the answer, or None if
    it was refused as stale (another seat decided first)."""
    body = json.dumps(message).encode()
    request = urllib.request.Request(
        f"{web}/curia.v1.GameService/{method}", data=struct.pack(">BI", 0, len(body)) + body,
        headers={"Content-Type": "application/grpc-web+json", "X-Grpc-Web": "1"})
    with urllib.request.urlopen(request, timeout=patient(30)) as answer:
        raw = answer.read()
    flags, size = struct.unpack(">BI", raw[:5])
    if flags & 0x80 and b"grpc-status: 10\r\n" in raw:
        return None
    assert not flags & 0x80, raw  # a message first (a refusal is trailers alone)
    return json.loads(raw[5:5 + size] or b"{}")


def play_as_the_person(web: str, game_id: str, token: str, rng: random.Random) -> int:
    """The person's seat played to the end over the web port; decisions made."""
    made, deadline = 0, time.monotonic() + patient(120)
    while True:
        answer = grpc_web(web, "GetView", {"gameId": game_id, "seatToken": token,
                                           "observationEncoding": "OBSERVATION_ENCODING_NONE"})
        assert answer is not None
        view = answer["view"]
        if view.get("status") == "GAME_STATUS_FINISHED":
            return made
        assert time.monotonic() < deadline, "the exhibition did not end"
        legal = [d["notation"] for d in view.get("legalDecisions", [])]
        if not legal:
            time.sleep(0.02)  # the bots' turn: look again
            continue
        answer = grpc_web(web, "SubmitDecision", {
            "gameId": game_id, "seatToken": token, "expectedVersion": view.get("version", "0"),
            "decision": {"notation": rng.choice(legal)}, "requestId": f"v{view.get('version')}"})
        made += answer is not None


def test_a_host_seats_a_person_in_an_unrated_game_with_the_leagues_bots(
        served: tuple[str, str, str]) -> None:
    redis_url, target, web = served
    redis = Redis.from_url(redis_url)
    leagues = Leagues(redis)
    settings = leagues.create(LeagueSettings(name="open-day", game="leges", seats=3,
                                             decision_ms=20_000))
    leagues.set_status("open-day", "paused")  # no matchmaking: the bots wait for the host
    stop = threading.Event()
    players = [PlayClient(target, leagues.add_bot("open-day", name), bot, seed=i)
               for i, (name, bot) in enumerate([("g", "greedy"), ("r", "random")])]
    for player in players:
        threading.Thread(target=player.run, args=(stop,), daemon=True).start()
    client = CuriaClient(target)
    agent = LeagueAgent(redis, client, seed=3)
    try:
        refused = exhibition(redis_url, "open-day", "human,g,ghost", target, web)
        assert refused.returncode == 1 and "no bot 'ghost'" in refused.stderr
        wait_until(lambda: leagues.online("open-day") == ["g", "r"], 15)
        wrong = exhibition(redis_url, "open-day", "human,g", target, web)
        assert wrong.returncode == 1 and "plays 3 seats, not 2" in wrong.stderr
        done = exhibition(redis_url, "open-day", "g,human,r", target, web)
        assert done.returncode == 0, done.stderr
        link = done.stdout.split("play it in a browser at:")[1].split()[0]
        page, _, token = link.partition("#token=")
        game_id = page.split("/games/")[1].split("/")[0]
        assert page == f"{web}/games/{game_id}/play" and token
        assert token not in redis.dump(seats_key("open-day", "g")).decode("latin-1")
        with urllib.request.urlopen(page, timeout=patient(30)) as answer:
            assert 'id="seat"' in answer.read().decode()
        assert play_as_the_person(web, game_id, token, random.Random(5)) > 0
        deadline = time.monotonic() + patient(60)
        while not leagues.results("open-day"):
            assert time.monotonic() < deadline, "the agent did not record the exhibition"
            agent.tend(leagues.settings("open-day"))
            time.sleep(0.05)
    finally:
        stop.set()
        client.close()
    result, = leagues.results("open-day")
    assert result["game_id"] == game_id and result["seating"] == ["g", "human", "r"]
    assert result["rated"] is False and result["ranking"]
    assert not leagues.tables("open-day"), "the game left the live games"
    assert redis.hlen(seats_key("open-day", "g")) == redis.hlen(seats_key("open-day", "r")) == 0
    record = client_record(target, game_id)
    assert list(record.players) == ["g", "human", "r"]
    assert any(d.seat == 1 and d.cause == pb.DECISION_CAUSE_SEAT for d in record.decisions)
    assert settings.rated, "the league rates its games; the exhibition alone is unrated"
    redis.close()


def client_record(target: str, game_id: str) -> pb.GameRecord:
    with CuriaClient(target) as client:
        return client.record(game_id)
