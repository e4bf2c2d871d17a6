"""A league through chaos: two servers, two league agents (`curia league run`), remote bots
(Play streams over both servers) and hosted bots played by `curia league worker`
processes. Mid-league the agent holding the lease is killed (SIGKILL), a worker playing a
seat is killed (SIGKILL; another is started, as a supervisor would) and Redis is killed and
restarted from an older snapshot (lost writes). Afterwards every ended game is recorded
exactly once, the ladder is the refit of the results, no game is stuck and no rated game
was played without both of its bots."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from redis import Redis
from redis.exceptions import RedisError

from bots.play_client import PlayClient
from client.unary import CuriaClient
from curia.arena_cli import stop_processes
from hosting.worker import GROUP, jobs_key
from league.agent import UNENDED
from league.ladder import ladder, ladder_json
from league.registry import Leagues, LeagueSettings
from service.keeper import NOBODY_STARTED
from service.leagues import league_key, live_workers, text
from tests.faults.test_rollback import SnapshotRedis
from tests.league.test_league_faults import AgentProcess
from tests.servers import ServiceProcess
from tests.timing import wait_until

REPO = Path(__file__).resolve().parents[2]
RANDOM = str(REPO / "bots" / "random_bot" / "bot.toml")
LEAGUE = "chaos"
GAMES = 14
#: Forfeit reasons that say a seat's bot was never there (such a game must not be rated).
ABSENT = ("no worker", "made no contact", "never started", "could not start", "void",
          NOBODY_STARTED)


class WorkerProcess:
    """`curia league worker` as a real process, the Redis URL in its environment only;
    its name read from its first line ("league worker NAME on …")."""

    def __init__(self, redis_url: str, server: str, logs: Path, slots: int = 2) -> None:
        env = {**os.environ, "CURIA_REDIS_URL": redis_url}
        logs.mkdir(parents=True, exist_ok=True)
        self.errors = (logs / "worker.err").open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "curia", "league", "worker", "--server", server,
             "--slots", str(slots), "--logs", str(logs)], cwd=REPO, env=env,
            stdout=subprocess.PIPE, stderr=self.errors, text=True)
        assert self.process.stdout is not None
        self.name = self.process.stdout.readline().split()[2]

    def kill(self) -> None:
        """SIGKILL: its bots die with it (their parent-death signal), its jobs unacked."""
        self.process.kill()
        self.process.wait()
        self.errors.close()

    def stop(self) -> None:
        stop_processes([self.process], grace=15)
        self.errors.close()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SnapshotRedis]:
    folder = tmp_path / "redis"
    folder.mkdir()
    snapshotted = SnapshotRedis(folder)
    yield snapshotted
    snapshotted.stop()


def answered(predicate: Callable[[], bool]) -> Callable[[], bool]:
    """`predicate`, False while Redis is away (it is restarted mid-test)."""
    def check() -> bool:
        try:
            return predicate()
        except RedisError:
            return False
    return check


def test_a_league_survives_killed_agents_workers_and_a_rollback_of_the_store(
        store: SnapshotRedis, tmp_path: Path) -> None:
    redis = Redis.from_url(store.url, socket_timeout=5)
    leagues = Leagues(redis)
    settings = leagues.create(LeagueSettings(name=LEAGUE, game="leges", decision_ms=30_000,
                                             max_games=GAMES))
    servers = [ServiceProcess(store.url, extra_args=("--no-league-agent",))
               for _ in range(2)]
    try:
        play_the_league(store, redis, leagues, servers, tmp_path)
        check_the_league(redis, leagues, settings, servers[1].address)
    finally:
        for server in servers:
            server.stop()
        redis.close()


def play_the_league(store: SnapshotRedis, redis: Redis, leagues: Leagues,
                    servers: list[ServiceProcess], tmp_path: Path) -> None:
    """The league's games, through the kills and the rollback, until every game is
    recorded, no game is live and every worker is idle."""
    both = ",".join(server.address for server in servers)
    agents = [AgentProcess(store.url, server.address) for server in servers]
    workers = [WorkerProcess(store.url, server.address, tmp_path / f"w{i}")
               for i, server in enumerate(servers)]
    for name in ("hosted-1", "hosted-2"):
        leagues.add_bot(LEAGUE, name, manifest=RANDOM)
    stop = threading.Event()
    crashed: list[BaseException] = []

    def play(client: PlayClient) -> None:
        try:
            client.run(stop)
        except BaseException as error:  # noqa: BLE001 (reported by the test)
            crashed.append(error)
    clients = [PlayClient(both, leagues.add_bot(LEAGUE, name), bot, seed=i, pace=0.02)
               for i, (name, bot) in enumerate([("remote-greedy", "greedy"),
                                                ("remote-random", "random")])]
    threads = [threading.Thread(target=play, args=(client,), daemon=True)
               for client in clients]
    for thread in threads:
        thread.start()

    def results() -> int:
        return len(leagues.results(LEAGUE))
    try:
        wait_until(answered(lambda: results() >= 2), 120, 0.1, "the first results")
        # the matchmaker's holder dies; the other agent takes over (a new one is started)
        holder = redis.get(league_key(LEAGUE, "lease")).decode()  # type: ignore[union-attr]
        (dying,) = [agent for agent in agents if agent.holder == holder]
        dying.kill()
        agents.remove(dying)
        agents.append(AgentProcess(store.url, servers[0].address))
        wait_until(answered(lambda: (redis.get(league_key(LEAGUE, "lease")) or b"").decode()
                            not in ("", holder)), 60, 0.1, "the lease taken over")

        store.snapshot()  # the rollback's target: mid-league, every agent alive since
        at_snapshot = results()

        # a worker playing a seat dies; a supervisor starts another
        def busy() -> list[WorkerProcess]:
            pending = {text(row["name"]): row["pending"]
                       for row in redis.xinfo_consumers(jobs_key(LEAGUE), GROUP)}
            return [worker for worker in workers if pending.get(worker.name, 0) > 0]
        wait_until(answered(lambda: bool(busy())), 120, 0.05, "a worker playing a seat")
        doomed = busy()[0]
        doomed.kill()
        workers.remove(doomed)
        workers.append(WorkerProcess(store.url, servers[1].address, tmp_path / "w-new"))

        # Redis dies and comes back from the snapshot: the writes since are lost
        wait_until(answered(lambda: results() >= at_snapshot + 2), 120, 0.1,
                   "results after the snapshot")
        store.roll_back(outage_s=1.0)
        wait_until(answered(lambda: results() >= GAMES), 240, 0.2, "every game played")
        wait_until(answered(lambda: not leagues.live(LEAGUE)), 60, 0.2,
                   "no game left live")
        wait_until(answered(lambda: not redis.xlen(jobs_key(LEAGUE))), 60, 0.2,
                   "every hosted seat's job done")
        names = {worker.name for worker in workers}
        wait_until(answered(lambda: idle_workers(redis, names)), 30, 0.2,
                   "every live worker idle (no seat held for a game over or gone)")
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=10)
        for agent in agents:
            agent.kill()
        for worker in workers:
            worker.stop()
    assert not crashed, crashed  # the remote bots rode it out


def idle_workers(redis: Redis, names: set[str]) -> bool:
    """Whether every one of `names` is live with all its slots free."""
    live = {beat.name: beat for beat in live_workers(redis)}
    return all(name in live and live[name].free == live[name].slots for name in names)


def check_the_league(redis: Redis, leagues: Leagues, settings: LeagueSettings,
                     server: str) -> None:
    rows = leagues.results(LEAGUE)
    ids = [row["game_id"] for row in rows]
    assert len(ids) == len(set(ids)) == GAMES, ids  # each ended game recorded once
    rated = {str(game, "utf-8") for game in redis.smembers(league_key(LEAGUE, "rated"))}
    assert rated == set(ids)
    assert not leagues.live(LEAGUE)

    # the ladder is the refit of the results, the history one entry per result
    entries = [json.loads(raw) for raw in redis.lrange(league_key(LEAGUE, "history"), 0, -1)]
    assert [entry["game_id"] for entry in entries] == ids
    refit = [{key: round(value, 1) if isinstance(value, float) else value
              for key, value in row.items()}
             for row in ladder_json(ladder(rows, settings.provisional_games))]
    assert entries[-1]["ladder"] == refit

    # no rated game without both of its bots; void games unrated
    played = 0
    with CuriaClient(server) as client:
        for row in rows:
            if row.get("void"):
                assert row["rated"] is False, row
                assert row["void"] == UNENDED or "no worker" in row["void"] \
                    or not row["ranking"], row
                continue
            played += 1
            assert row["rated"] is True and row["ranking"], row
            reasons = " ".join(row.get("reasons", {}).values())
            assert not any(absent in reasons for absent in ABSENT), row
            # every bot here is alive, or its seat taken over well within the decision
            # time: a seat that timed out had no bot (one that saw the end of a game the
            # rollback un-ended and left it: the game must be void, not rated)
            assert "timeout" not in row.get("reasons", {}).values(), row
            record = client.record(row["game_id"])  # it really ended, as recorded
            assert [list(group.seats) for group in record.result.ranking] == row["ranking"]
    assert played >= GAMES // 2, rows  # the chaos left most games rated
    hosted = {"hosted-1", "hosted-2"}
    assert any(hosted & set(row["seating"]) for row in rows if not row.get("void"))
