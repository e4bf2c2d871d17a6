"""A league through failures: the server a bot plays on and the matchmaker's holder are
killed (SIGKILL) mid-league; the league goes on, and no rated result is lost or doubled."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis import Redis

from bots.play_client import PlayClient
from client.unary import CuriaClient
from league.registry import Leagues, LeagueSettings
from service.leagues import league_key
from service.redis_server import EmbeddedRedis
from tests.servers import ServiceProcess
from tests.timing import patient

REPO = Path(__file__).resolve().parents[2]
GAMES = 10


class AgentProcess:
    """`curia league run`: a league agent alone, its holder id read from its first line."""

    def __init__(self, redis_url: str, server: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "curia", "league", "run", "--server", server], cwd=REPO,
            env={**{k: v for k, v in os.environ.items() if k != "CURIA_REDIS_URL"},
                 "CURIA_REDIS_URL": redis_url},  # never on a command line
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True)
        assert self.process.stdout is not None
        self.holder = self.process.stdout.readline().split()[2]  # "league agent ID on …"

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    with EmbeddedRedis(tmp_path / "redis") as store:
        yield store.url


def test_killing_a_server_and_the_matchmakers_holder_loses_and_doubles_no_result(
        redis_url: str) -> None:
    redis = Redis.from_url(redis_url)
    leagues = Leagues(redis)
    leagues.create(LeagueSettings(name="faults", game="leges", decision_ms=20_000,
                                  max_games=GAMES))
    servers = [ServiceProcess(redis_url, extra_args=("--no-league-agent",)) for _ in range(2)]
    agents = [AgentProcess(redis_url, server.address) for server in servers]
    both = ",".join(server.address for server in servers)
    stop = threading.Event()
    clients = [PlayClient(both, leagues.add_bot("faults", name), bot, seed=i)
               for i, (name, bot) in enumerate([("g", "greedy"), ("r1", "random"),
                                                ("r2", "random")])]
    for client in clients:
        threading.Thread(target=client.run, args=(stop,), daemon=True).start()
    try:
        wait_for_results(leagues, 3, timeout=90)
        holder = redis.get(league_key("faults", "lease")).decode()
        (dying,) = [agent for agent in agents if agent.holder == holder]
        dying.kill()  # the matchmaker's holder, mid-league
        servers[0].kill()  # the server the bots started on: they fail over
        wait_for_results(leagues, GAMES, timeout=180)
        assert redis.get(league_key("faults", "lease")).decode() != holder  # taken over
    finally:
        stop.set()
        for agent in agents:
            agent.kill()
        for server in servers:
            server.stop()
    results = leagues.results("faults")
    ids = [result["game_id"] for result in results]
    assert len(ids) == len(set(ids)) == GAMES
    assert redis.scard(league_key("faults", "rated")) == GAMES
    assert not leagues.live("faults")
    survivor = ServiceProcess(redis_url, extra_args=("--no-league-agent",))
    try:
        with CuriaClient(survivor.address) as client:
            for result in results:  # every rated game really ended, as recorded
                record = client.record(result["game_id"])
                assert [list(group.seats) for group in record.result.ranking] == \
                    result["ranking"]
    finally:
        survivor.stop()
        redis.close()


def wait_for_results(leagues: Leagues, count: int, timeout: float) -> None:
    deadline = time.monotonic() + patient(timeout)
    while len(leagues.results("faults")) < count:
        assert time.monotonic() < deadline, f"fewer than {count} results"
        time.sleep(0.2)
