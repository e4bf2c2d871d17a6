"""Faults during real play: kill -9 of a server under load, a Redis restart in the middle of
a tournament, a watch stream resumed on the other server. Real redis-server, real
`curia serve` processes, real gRPC channels; every wait is bounded."""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis

from arena.config import TournamentConfig
from arena.runner import Tournament
from client.failover import FailoverClient
from client.unary import CuriaClient
from curia_api.v1 import game_service_pb2 as pb
from ratings.records import GameOutcome
from service.redis_server import EmbeddedRedis
from service.server import BackgroundServer
from service.store import ACTIVE, keys, record_entries
from tests.servers import ServiceProcess
from tests.service.gameplay import Game, assert_contiguous, new_game, play_out, replay, step
from tests.timing import join_while_progressing, patient, wait_until

FINISHED = pb.GAME_STATUS_FINISHED
REPO = Path(__file__).resolve().parents[2]
#: every wait on a thread, a process or a condition is bounded by this many seconds
WAIT = patient(30.0)  # seconds: this machine's time scale (tests/timing.py)
#: Redis restarts at most, each while games are in flight, until a bot feels one
OUTAGES = 5


def log_ids(redis_url: str, game_id: str) -> list[int]:
    """The versions of the game's log entries, read straight from Redis: its stream, or
    its compact record once the game is over."""
    with redis.Redis.from_url(redis_url) as r:
        rows = r.xrange(keys(game_id)[1])
        if not rows:
            return [e.version for e in record_entries(r.hget(keys(game_id)[0], "record"), b"")]
        return [int(entry_id.split(b"-")[0]) for entry_id, _ in rows]


def join_all(threads: list[threading.Thread], timeout: float = WAIT) -> None:
    """Join the threads within `timeout` seconds in all; fail if one is still running."""
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    assert not any(t.is_alive() for t in threads), "a thread did not finish in time"


# -- kill -9 of one of two servers under load ---------------------------------------------
@dataclass
class Player:
    """One thread playing one game as fast as it can through a FailoverClient."""

    game: Game
    targets: list[str]
    seed: int
    #: version -> (seat, notation) of every submission the server answered OK
    acknowledged: dict[int, tuple[int, str]] = field(default_factory=dict)
    duplicates: int = 0
    failovers: int = 0
    final: pb.View | None = None
    error: BaseException | None = None

    def run(self) -> None:
        rng = random.Random(self.seed)
        game_id = self.game.game_id
        try:
            with FailoverClient(self.targets, attempts=6, timeout=5.0) as client:
                while (spectator := client.view(game_id)).status != FINISHED:
                    seat = spectator.to_move[0]
                    token = self.game.tokens[seat]
                    view = client.view(game_id, token)
                    choice = rng.choice(list(view.legal_decisions)).notation
                    answer = client.submit(game_id, token, view.version, choice,
                                           request_id=f"{seat}-{view.version}")
                    assert answer.version == view.version + 1, (answer.version, view.version)
                    assert answer.version not in self.acknowledged
                    self.acknowledged[answer.version] = (seat, choice)
                    self.duplicates += answer.duplicate
                self.final = spectator
                self.failovers = client.failovers
        except BaseException as error:  # reported by the test, not lost in the thread
            self.error = error


def test_kill_9_of_one_of_two_servers_under_load_loses_and_doubles_nothing(
        service_process: type[ServiceProcess], redis_url: str) -> None:
    """12 games played flat out through FailoverClients, half starting on A, half on B; A
    is SIGKILLed after 1 s. Every game ends; its log is versions 1..N once each; every
    decision a client was told was applied is in the record at that version, and nothing
    else is; replaying the record reproduces the result."""
    a, b = service_process(redis_url), service_process(redis_url)
    orders = ([a.address, b.address], [b.address, a.address])
    with CuriaClient(b.address, timeout=WAIT) as observer:
        players = [Player(new_game(observer, seed=100 + i), orders[i % 2], seed=100 + i)
                   for i in range(12)]
        threads = [threading.Thread(target=p.run, daemon=True) for p in players]
        for thread in threads:
            thread.start()
        wait_until(lambda: all(observer.view(p.game.game_id).version >= 2 for p in players),
                   WAIT, message="every game under way")
        at_kill = {p.game.game_id: observer.view(p.game.game_id) for p in players}
        a.kill()  # SIGKILL, in the middle of the load
        assert a.process.returncode == -9
        # every game finishes: however loaded the machine, none stalls for WAIT seconds
        join_while_progressing(threads, lambda: sum(len(p.acknowledged) for p in players),
                               30.0)  # (scaled by PATIENCE there, as WAIT is)
        errors = [p.error for p in players if p.error is not None]
        assert not errors, errors
        assert all(v.version > 0 and v.status != FINISHED for v in at_kill.values()), \
            "every game was in flight when A died"

        for index, player in enumerate(players):
            game_id = player.game.game_id
            assert player.final is not None and player.final.status == FINISHED
            assert player.final.version > at_kill[game_id].version
            # the clients that started on A moved to B; those on B never had to (and so
            # never retried a submission: only a retry can be answered duplicate=True)
            assert (player.failovers >= 1) == (index % 2 == 0), (index, player.failovers)
            assert index % 2 == 0 or player.duplicates == 0
            record = observer.record(game_id)
            assert_contiguous(record)
            total = len(record.decisions)
            assert total == player.final.version
            # one log entry per version: nothing was applied twice
            assert log_ids(redis_url, game_id) == list(range(1, total + 1))
            assert all(d.cause == pb.DECISION_CAUSE_SEAT for d in record.decisions)
            # every acknowledged submission is in the record at the version it was given,
            # and every recorded decision was acknowledged to its client
            assert sorted(player.acknowledged) == list(range(1, total + 1))
            for decision in record.decisions:
                assert player.acknowledged[decision.version] == (decision.seat,
                                                                 decision.notation)
            assert replay(record) == record.result == player.final.result


# -- a Redis restart in the middle of a tournament ----------------------------------------
def python_tournament(folder: Path) -> TournamentConfig:
    bots = "".join(f'[[bots]]\nmanifest = "{REPO / "bots" / name / "bot.toml"}"\n'
                   for name in ("random_bot", "python_stdio", "greedy_bot"))
    path = folder / "t.toml"
    path.write_text(f'[tournament]\nname = "restart"\ngame = "municipium"\n'
                    f'output = "{folder / "out"}"\n'
                    "seats = 3\nseed = 17\nrounds = 1\nconcurrency = 2\n"
                    "[options]\ntarget_decurions = 4\n"
                    f"[time]\ndecision_ms = 20000\n{bots}")
    return TournamentConfig.load(path)


def in_flight(redis_url: str) -> dict[str, int]:
    """Games in progress with at least one decision applied: id -> version."""
    with redis.Redis.from_url(redis_url) as r:
        ids = [i.decode() for i in r.smembers(ACTIVE)]
        # read after the set: a game may have finished in between (its last decision)
        found = {i: r.hmget(keys(i)[0], "version", "status") for i in ids}
    return {i: int(version) for i, (version, status) in found.items()
            if version is not None and int(version) > 0 and status == b"in_progress"}


def felt_outage(config: TournamentConfig) -> bool:
    """Whether a bot's log shows a call answered UNAVAILABLE (Redis away)."""
    return any("UNAVAILABLE" in path.read_text()
               for path in (config.output / "logs").glob("*.log"))


def in_flight_or_done(redis_url: str, runner: threading.Thread) -> bool:
    """Wait until a game is in flight again; False if the tournament ended first."""
    wait_until(lambda: bool(in_flight(redis_url)) or not runner.is_alive(), WAIT,
               message="a game in flight again")
    return runner.is_alive()


def test_a_tournament_rides_out_a_redis_restart(tmp_path: Path) -> None:
    """A round-robin of the three Python bots on a private append-only Redis, stopped
    (SIGTERM) once a result is in and games are in flight, restarted 0.5 s later on the
    same port and data (again, up to OUTAGES times, until a bot has called while Redis
    was away: a bot holding no turn as Redis goes is sent none until it is back, so one
    outage alone may pass unfelt): every game finishes, nobody forfeits, the games that were in
    flight have contiguous logs and replay to their results."""
    data_dir = tmp_path / "redis"
    store = EmbeddedRedis(data_dir).start()
    background = BackgroundServer(store.url)
    address = f"127.0.0.1:{background.start()}"
    config = python_tournament(tmp_path)
    first_result = threading.Event()

    def on_result(outcomes: list[GameOutcome], total: int) -> None:
        first_result.set()

    tournament = Tournament(config, address, config.output, on_result=on_result)
    outcomes: list[GameOutcome] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcomes.extend(tournament.run())
        except BaseException as error:  # reported below
            failure.append(error)

    runner = threading.Thread(target=run, daemon=True)
    try:
        runner.start()
        assert first_result.wait(WAIT) or failure, "no game finished in time"
        assert not failure, failure
        wait_until(lambda: bool(in_flight(store.url)), WAIT, message="a game in flight")
        before = in_flight(store.url)
        for _ in range(OUTAGES):  # until a bot called while Redis was away (one that held
            store.stop()          # no turn as it went calls nobody): SIGTERM, Redis flushes
            assert store.process is not None and store.process.returncode == 0  # its AOF
            time.sleep(0.5)  # the outage under test: Redis away for a moment
            store = EmbeddedRedis(data_dir, port=store.port).start()  # same port and data
            if felt_outage(config) or not in_flight_or_done(store.url, runner):
                break
        runner.join(WAIT * 2)
        assert not runner.is_alive(), "the tournament did not finish in time"
        assert not failure, failure
        assert sorted(o.index for o in outcomes) == list(range(tournament.total_games()))
        assert all(not o.forfeits for o in outcomes), [o.reasons for o in outcomes]
        assert felt_outage(config), \
            "the bots felt the outage (answered UNAVAILABLE) and rode it out"
        with CuriaClient(address, timeout=WAIT) as client:
            for game_id, version in before.items():
                record = client.record(game_id)
                assert len(record.decisions) > version, "the game went on after the restart"
                assert_contiguous(record)
                assert log_ids(store.url, game_id) == list(range(1, len(record.decisions) + 1))
                assert not any(s.forfeited for s in record.result.scores)
                assert replay(record) == record.result
    finally:
        tournament._stop.set()
        runner.join(WAIT)
        background.stop()
        store.stop()


# -- a watch stream resumed on the other server --------------------------------------------
def test_a_watch_resumes_on_the_other_server_after_kill_9_with_every_version_once(
        service_process: type[ServiceProcess], redis_url: str) -> None:
    """A spectator and a seat watch through FailoverClients on A; A is SIGKILLed at version
    30 while the game goes on through B; each stream resumes on B from the last version it
    saw and yields 0..N exactly once, identical to a stream from the start on B."""
    a, b = service_process(redis_url), service_process(redis_url)
    with CuriaClient(b.address, timeout=WAIT) as player:
        game = new_game(player, seed=23)
        watchers = {"": FailoverClient([a.address, b.address]),
                    game.tokens[1]: FailoverClient([a.address, b.address])}
        seen: dict[str, list[pb.WatchGameResponse]] = {token: [] for token in watchers}
        errors: list[BaseException] = []

        def follow(token: str) -> None:
            try:
                seen[token].extend(watchers[token].watch(game.game_id, token))
            except BaseException as error:  # reported below
                errors.append(error)

        threads = [threading.Thread(target=follow, args=(t,), daemon=True) for t in watchers]
        try:
            for thread in threads:
                thread.start()
            rng = random.Random(23)
            for _ in range(30):
                step(player, game, rng)
            wait_until(lambda: all(s and s[-1].version == 30 for s in seen.values()), WAIT,
                       message="the watchers to see version 30 on A")
            assert all(w.target == a.address and w.failovers == 0 for w in watchers.values())
            a.kill()  # mid-stream, mid-game
            final = play_out(player, game, rng)
            join_all(threads)  # the streams ended with the game
            assert not errors, errors
        finally:
            for watcher in watchers.values():
                watcher.close()
        for token, watcher in watchers.items():
            assert watcher.target == b.address and watcher.failovers >= 1
            updates = seen[token]
            assert [u.version for u in updates] == list(range(final.version + 1))
            # the same as a stream from the start on the surviving server, view for view
            reference = list(player.watch(game.game_id, token))
            assert len(reference) == len(updates)
            for got, expected in zip(updates, reference, strict=True):
                assert got.view == expected.view
                assert list(got.events) == list(expected.events)
                assert got.decision == expected.decision
        assert seen[""][-1].view == player.view(game.game_id)


# -- an idle stream ---------------------------------------------------------------------------
def test_a_watch_stream_of_an_idle_game_outlives_the_redis_blocking_read(server: str) -> None:
    """A watcher's XREAD blocks 5 s at a time; a game with no decision for longer than that
    keeps its streams open (redis-py 8's 5 s socket timeout used to cut them: UNKNOWN)."""
    with CuriaClient(server, timeout=WAIT) as player, CuriaClient(server) as watcher:
        game = new_game(player, seed=29)
        updates: list[pb.WatchGameResponse] = []
        errors: list[BaseException] = []

        def follow() -> None:
            try:
                for update in watcher.watch(game.game_id):
                    updates.append(update)
                    if update.version == 1:
                        return
            except BaseException as error:  # reported below
                errors.append(error)

        thread = threading.Thread(target=follow, daemon=True)
        thread.start()
        wait_until(lambda: bool(updates), WAIT, message="the first message")
        time.sleep(5.5)  # past one whole blocking read on an idle game
        assert not errors, errors
        step(player, game, random.Random(29))
        join_all([thread])
        assert not errors, errors
        assert [u.version for u in updates] == [0, 1]
