"""`curia bot connect` (hosting/connect.py): a stdio bot on its author's machine plays a
remote league's games over one Play stream with its bot key. The command runs as a real
process, the starter kit as its real child processes, against a real service and Redis;
the league's agent seats and rates the games."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from redis import Redis

from bots.play_client import PlayClient
from client.unary import CuriaClient
from league.agent import LeagueAgent
from league.ladder import ladder
from league.registry import Leagues
from service.server import BackgroundServer, ServerTls
from tests.faults.netns import Network, delete_stale_namespaces, unavailable_reason
from tests.leagues import World, new_league
from tests.pki import Pki
from tests.servers import REPO
from tests.timing import patient, wait_until

STARTER = REPO / "bots" / "starters" / "python"


class Connected:
    """A `curia bot connect` process, its stdout lines on a queue as they come."""

    def __init__(self, world: World, key: str, *arguments: str) -> None:
        env = {**os.environ, "CURIA_BOT_KEY": key}
        env.pop("CURIA_SERVER", None)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "curia", "bot", "connect", "--server", world.target,
             *arguments], cwd=REPO, env=env, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self.stderr = ""
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        self.stderr = self.process.stderr.read()

    def output(self) -> str:
        while not self.lines.empty():
            self.seen.append(self.lines.get())
        return "\n".join(self.seen)

    def wait_for_line(self, words: str, world: World, agent: LeagueAgent,
                      league: str, seconds: float = 60) -> None:
        """Tend the league until a line with `words` comes."""
        deadline = time.monotonic() + patient(seconds)
        settings = world.leagues.settings(league)
        while words not in self.output():
            assert time.monotonic() < deadline, f"no {words!r} line: {self.output()}"
            assert self.process.poll() is None, (self.output(), self.stderr)
            agent.tend(settings)
            time.sleep(0.05)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


@contextmanager
def opponent(world: World, league: str, name: str = "random") -> Iterator[None]:
    """A shipped Python bot on its own Play stream, playing the league's games."""
    stop = threading.Event()
    client = PlayClient(world.target, world.leagues.add_bot(league, name), "random",
                        concurrency=2)
    thread = threading.Thread(target=client.run, args=(stop,), daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=patient(10))


def tend_until_exit(connected: Connected, world: World, agent: LeagueAgent, league: str,
                    seconds: float = 120) -> int:
    settings = world.leagues.settings(league)
    deadline = time.monotonic() + patient(seconds)
    while connected.process.poll() is None:
        assert time.monotonic() < deadline, (connected.output(), connected.stderr)
        agent.tend(settings)
        time.sleep(0.05)
    bot = connected.output().partition(" as ")[2].split(" ", 1)[0]
    ended = connected.output().count(" over: ")
    wait_until(lambda: agent.tend(settings) or len(results_of(world, league, bot)) >= ended,
               30, message="the results of the games it saw end")
    return connected.process.returncode


def results_of(world: World, league: str, bot: str) -> list[dict[str, object]]:
    return [result for result in world.leagues.results(league)
            if bot in result["seating"]]  # type: ignore[operator]


def test_a_starter_kit_joins_a_league_through_bot_connect_and_is_rated(
        world: World, agent: LeagueAgent) -> None:
    league = new_league(world, decision_ms=20_000).name
    key = world.leagues.add_bot(league, "starter")
    with opponent(world, league):
        connected = Connected(world, key, "--concurrency", "2", "--games", "4", str(STARTER))
        try:
            assert tend_until_exit(connected, world, agent, league) == 0, connected.stderr
        finally:
            connected.stop()
    output = connected.output()
    played = results_of(world, league, "starter")
    assert len(played) >= 4
    assert output.count(" started: ") == len(played), output
    assert "as starter in league" in output
    assert f"stopped: played {len(played)}, won " in output, output
    # the league's standing as later games started: on the ladder, with its interval
    assert "rating " in output and "rated games, rank " in output, output
    rows = {row.bot: row for row in ladder(world.leagues.results(league), 10)}
    assert rows["starter"].games == len(played)
    assert not any(result["forfeits"] for result in played)
    # one process of the kit per game, each with its own seed (found by pattern: the kits
    # write at once, so their lines may run together)
    seeds = re.findall(r"starter-python: seed (\d+)", connected.stderr)
    assert len(seeds) == len(played) and len(set(seeds)) == len(seeds), connected.stderr


def test_one_process_plays_every_game(world: World, agent: LeagueAgent) -> None:
    league = new_league(world, decision_ms=20_000).name
    key = world.leagues.add_bot(league, "shared")
    with opponent(world, league):
        connected = Connected(world, key, "--concurrency", "2", "--games", "3",
                              "--one-process", str(STARTER))
        try:
            assert tend_until_exit(connected, world, agent, league) == 0, connected.stderr
        finally:
            connected.stop()
    played = results_of(world, league, "shared")
    assert len(played) >= 3
    assert connected.stderr.count("starter-python: seed") == 1, connected.stderr
    assert "game over, ranking" not in connected.stderr  # the kit saw no "end": it lives on
    assert not any(result["forfeits"] for result in played)


def test_ctrl_c_takes_no_new_game_and_finishes_the_one_in_progress(
        world: World, agent: LeagueAgent, tmp_path: Path) -> None:
    league = new_league(world, decision_ms=20_000).name
    key = world.leagues.add_bot(league, "calm")
    slow = tmp_path / "slow.py"  # the kit, a little slower: the game outlasts the signal
    slow.write_text(STARTER.joinpath("bot.py").read_text().replace(
        "print(choose(message), flush=True)",
        "__import__('time').sleep(0.02); print(choose(message), flush=True)"))
    with opponent(world, league):
        connected = Connected(world, key, "--", sys.executable, str(slow))
        try:
            connected.wait_for_line(" started: ", world, agent, league)
            connected.process.send_signal(signal.SIGINT)
            assert tend_until_exit(connected, world, agent, league) == 0, connected.stderr
        finally:
            connected.stop()
    output = connected.output()
    assert "no new games; finishing the 1 in progress" in output, output
    played = results_of(world, league, "calm")
    assert len(played) == 1 and output.count(" started: ") == 1, output
    assert not played[0]["forfeits"]
    assert "stopped: played 1, " in output


def test_a_second_ctrl_c_resigns_the_games_in_progress(
        world: World, agent: LeagueAgent, tmp_path: Path) -> None:
    league = new_league(world, decision_ms=20_000).name
    key = world.leagues.add_bot(league, "hasty")
    silent = tmp_path / "silent.py"  # never answers: the game waits on it; says what
    up = tmp_path / "up"  # of the key it can see (nothing), then that it is up
    silent.write_text("import os, sys\n"
                      "print('key in env:', 'CURIA_BOT_KEY' in os.environ, file=sys.stderr,"
                      " flush=True)\n"
                      f"open({str(up)!r}, 'w').close()\n"
                      "for line in sys.stdin:\n    pass\n")
    with opponent(world, league):
        connected = Connected(world, key, "--", sys.executable, str(silent))
        try:
            connected.wait_for_line(" started: ", world, agent, league)
            wait_until(up.exists, 60, message="the bot to be up (its line said)")
            connected.process.send_signal(signal.SIGINT)
            connected.wait_for_line("no new games", world, agent, league)
            connected.process.send_signal(signal.SIGINT)
            assert tend_until_exit(connected, world, agent, league) == 130, connected.stderr
        finally:
            connected.stop()
        settings = world.leagues.settings(league)
        wait_until(lambda: agent.tend(settings) or results_of(world, league, "hasty"), 30,
                   message="the resigned game's result")
    assert "key in env: False" in connected.stderr, connected.stderr  # never the bot's
    played = results_of(world, league, "hasty")
    assert len(played) == 1
    seat = played[0]["seating"].index("hasty")  # type: ignore[attr-defined]
    assert played[0]["forfeits"] == [seat], played[0]
    assert "stopped curia bot connect" in played[0]["reasons"][str(seat)], played[0]  # type: ignore[index]


def test_a_refused_key_exits_1_and_says_why(world: World) -> None:
    env = {**os.environ, "CURIA_BOT_KEY": "curia_bot_unknown"}
    finished = subprocess.run(
        [sys.executable, "-m", "curia", "bot", "connect", "--server", world.target,
         str(STARTER)], cwd=REPO, env=env, capture_output=True, text=True,
        timeout=patient(60))
    assert finished.returncode == 1
    assert "the server refused the bot key" in finished.stdout


def test_without_a_key_it_says_where_the_key_goes() -> None:
    env = {k: v for k, v in os.environ.items() if k != "CURIA_BOT_KEY"}
    finished = subprocess.run(
        [sys.executable, "-m", "curia", "bot", "connect", "--server", "127.0.0.1:1",
         str(STARTER)], cwd=REPO, env=env, capture_output=True, text=True,
        timeout=patient(60))
    assert finished.returncode == 2
    assert "CURIA_BOT_KEY" in finished.stderr and "never goes on the command line" in \
        finished.stderr


def test_a_stdio_bot_on_another_host_joins_a_tls_league(
        redis_url: str, pki: Pki, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The author's machine is a network namespace of its own, joined to the host's by a
    veth pair; the league's server speaks TLS only, on the host's end of the link. The
    author has the starter kit, a key, and the CA (CURIA_TLS_CA, as every client)."""
    reason = unavailable_reason()
    if reason is not None:
        pytest.skip(f"needs network namespaces: {reason}")
    delete_stale_namespaces()
    network = Network()
    server = None
    try:
        author = network.namespace("author")
        link, = network.links_between([("au", author, None)])
        host = link.end_in(None).address
        server = BackgroundServer(redis_url, host=host, tls=ServerTls.from_files(
            str(pki.path("server.pem")), str(pki.path("server.key")), None))
        target = f"{host}:{server.start()}"
        tls = {"CURIA_TLS_CA": str(pki.path("ca.pem")), "CURIA_TLS_SERVER_NAME": "localhost"}
        for name, value in tls.items():  # the opponent, here, trusts the same CA
            monkeypatch.setenv(name, value)
        redis = Redis.from_url(redis_url)
        world = World(redis_url, target, redis, Leagues(redis))
        league = new_league(world, decision_ms=20_000).name
        key = world.leagues.add_bot(league, "remote")
        env = {**os.environ, **tls, "CURIA_BOT_KEY": key}
        log = tmp_path / "connect.log"
        with opponent(world, league), CuriaClient(target) as client:
            agent = LeagueAgent(redis, client, seed=7)
            process = network.spawn(author, [sys.executable, "-m", "curia", "bot", "connect",
                                             "--server", target, "--games", "2",
                                             str(STARTER)], log=log, env=env, cwd=REPO)
            settings = world.leagues.settings(league)
            deadline = time.monotonic() + patient(120)
            while process.poll() is None:
                assert time.monotonic() < deadline, log.read_text()[-3000:]
                agent.tend(settings)
                time.sleep(0.05)
            agent.tend(settings)
        assert process.returncode == 0, log.read_text()[-3000:]
        played = results_of(world, league, "remote")
        assert len(played) >= 2 and not any(result["forfeits"] for result in played)
        assert f"connected to {target} as remote" in log.read_text()
        redis.close()
    finally:
        if server is not None:
            server.stop()
        network.close()
