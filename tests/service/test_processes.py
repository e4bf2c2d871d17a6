"""Real `curia serve` processes on real Redis: several servers on one game, contention
between them, crashes (kill -9), restarts of the embedded Redis, concurrent retries."""

from __future__ import annotations

import os
import random
import signal
import threading
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis

from client.unary import CuriaClient
from curia_api.v1 import game_service_pb2 as pb
from service.store import keys, record_entries
from tests.servers import ServiceProcess, port_answers, served_redis_url
from tests.service.gameplay import Game, assert_contiguous, new_game, play_out, replay, step
from tests.timing import patient, wait_until

FINISHED = pb.GAME_STATUS_FINISHED
#: every wait on a thread or a process is bounded by this many seconds
WAIT = patient(30.0)  # seconds: this machine's time scale (tests/timing.py)


@pytest.fixture(scope="module")
def pair(redis_url: str) -> Iterator[tuple[CuriaClient, CuriaClient]]:
    """Two `curia serve` processes on the session's Redis, a client of each."""
    processes = [ServiceProcess(redis_url), ServiceProcess(redis_url)]
    clients = [CuriaClient(p.address, timeout=WAIT) for p in processes]
    try:
        yield clients[0], clients[1]
    finally:
        for c in clients:
            c.close()
        for p in processes:
            p.stop()


def run_together(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run the calls in threads released together by a barrier; each outcome is the call's
    value or the grpc.RpcError it raised."""
    barrier = threading.Barrier(len(calls), timeout=WAIT)
    outcomes: list[Any] = [None] * len(calls)

    def run(index: int) -> None:
        barrier.wait()
        try:
            outcomes[index] = calls[index]()
        except grpc.RpcError as error:
            outcomes[index] = error
        except BaseException as error:  # reported below, not lost in the thread
            outcomes[index] = error

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
        assert not thread.is_alive(), "a submission did not return in time"
    for outcome in outcomes:
        if isinstance(outcome, BaseException) and not isinstance(outcome, grpc.RpcError):
            raise outcome
    return outcomes


def seat_to_move(client: CuriaClient, game: Game) -> tuple[int, pb.View]:
    seat = client.view(game.game_id).to_move[0]
    return seat, client.view(game.game_id, game.tokens[seat])


def log_entries(redis_url: str, game_id: str) -> list[tuple[bytes, dict[bytes, bytes]]]:
    """The game's log stream, read straight from Redis."""
    with redis.Redis.from_url(redis_url) as r:
        return list(r.xrange(keys(game_id)[1]))


# -- several servers, one game ----------------------------------------------------------
def test_two_processes_play_one_game_each_decision_through_the_other(
        pair: tuple[CuriaClient, CuriaClient]) -> None:
    game = new_game(pair[0], seed=11)
    rng = random.Random(11)
    for turn in range(5000):
        reader, writer = pair[turn % 2], pair[(turn + 1) % 2]
        spectator = reader.view(game.game_id)
        if spectator.status == FINISHED:
            break
        seat = spectator.to_move[0]
        view = reader.view(game.game_id, game.tokens[seat])
        assert view.version == spectator.version
        choice = rng.choice(list(view.legal_decisions)).notation
        applied = writer.submit(game.game_id, game.tokens[seat], view.version, choice)
        assert (applied.version, applied.duplicate) == (view.version + 1, False)
        # the other server sees the decision at once: the state is in Redis, not in a server
        assert reader.view(game.game_id).version == applied.version
    else:
        raise AssertionError("the game did not end")

    final = [c.view(game.game_id) for c in pair]
    assert final[0] == final[1]
    record = pair[1].record(game.game_id)
    assert record == pair[0].record(game.game_id)
    assert_contiguous(record)
    assert len(record.decisions) == final[0].version
    assert all(d.cause == pb.DECISION_CAUSE_SEAT for d in record.decisions)
    assert replay(record) == record.result == final[0].result


def test_the_same_decision_sent_to_two_processes_at_once_is_applied_once(
        pair: tuple[CuriaClient, CuriaClient], redis_url: str) -> None:
    game = new_game(pair[0], seed=12)
    rng = random.Random(12)
    # one channel per thread, so that the two submissions really travel in parallel
    racers = [CuriaClient(c.target, timeout=WAIT) for c in pair]
    contested: dict[int, tuple[int, str]] = {}
    try:
        for point in range(6):
            for _ in range(rng.randrange(3, 12)):
                step(pair[point % 2], game, rng)
            seat, view = seat_to_move(pair[0], game)
            choice = rng.choice(list(view.legal_decisions)).notation
            token, version = game.tokens[seat], view.version
            outcomes = run_together([
                partial(racer.submit, game.game_id, token, version, choice,
                        request_id=f"{name}-{point}")
                for racer, name in zip(racers, "ab", strict=True)])
            won = [o for o in outcomes if isinstance(o, pb.SubmitDecisionResponse)]
            lost = [o for o in outcomes if isinstance(o, grpc.RpcError)]
            assert len(won) == 1 and len(lost) == 1, outcomes
            assert lost[0].code() == grpc.StatusCode.ABORTED, lost[0]
            assert "stale" in lost[0].details()
            assert (won[0].version, won[0].duplicate) == (version + 1, False)
            for c in pair:
                assert c.view(game.game_id).version == version + 1
            contested[version + 1] = (seat, choice)
        play_out(pair[0], game, rng)
    finally:
        for c in racers:
            c.close()

    record = pair[1].record(game.game_id)
    assert_contiguous(record)
    with redis.Redis.from_url(redis_url) as r:  # once over, the log is a compact record
        kept = record_entries(r.hget(keys(game.game_id)[0], "record"), b"")
    assert [e.version for e in kept] == [d.version for d in record.decisions]
    for version, (seat, choice) in contested.items():
        decision = record.decisions[version - 1]
        assert (decision.version, decision.seat, decision.notation) == (version, seat, choice)
    assert replay(record) == record.result


# -- crashes and restarts ----------------------------------------------------------------
def test_a_game_survives_kill_9_of_its_server(
        service_process: type[ServiceProcess], redis_url: str) -> None:
    first = service_process(redis_url)
    rng = random.Random(13)
    with CuriaClient(first.address, timeout=WAIT) as client:
        game = new_game(client, seed=13)
        for _ in range(40):
            step(client, game, rng)
        before = client.view(game.game_id)
        seat = before.to_move[0]
        seat_before = client.view(game.game_id, game.tokens[seat])
    assert before.version == 40
    first.kill()
    assert first.process.returncode == -9

    second = service_process(redis_url)
    with CuriaClient(second.address, timeout=WAIT) as client:
        after = client.view(game.game_id)
        assert (after.version, after.observation_json) == (before.version,
                                                            before.observation_json)
        assert after == before
        assert client.view(game.game_id, game.tokens[seat]) == seat_before
        final = play_out(client, game, rng)
        record = client.record(game.game_id)
    assert final.status == FINISHED
    assert_contiguous(record)
    assert replay(record) == record.result == final.result


def test_the_embedded_redis_keeps_games_across_restarts_and_dies_with_its_server(
        service_process: type[ServiceProcess], tmp_path: Path) -> None:
    data_dir = tmp_path / "redis"
    first = service_process(None, data_dir=data_dir)
    first_redis = redis.Redis.from_url(served_redis_url(first))
    rng = random.Random(14)
    with CuriaClient(first.address, timeout=WAIT) as client:
        game = new_game(client, seed=14)
        for _ in range(25):
            step(client, game, rng)
        before = client.view(game.game_id)
    first_port = first_redis.connection_pool.connection_kwargs["port"]
    first_redis.close()
    first.stop()  # SIGTERM: the service stops its Redis, which flushes the append-only file
    assert first.process.returncode == 0, first.process.stderr.read().decode()
    assert not port_answers(first_port), "the embedded redis outlived a graceful stop"
    assert list(data_dir.rglob("appendonly.aof*")), "no append-only file in the data dir"

    second = service_process(None, data_dir=data_dir)
    second_url = served_redis_url(second)
    with CuriaClient(second.address, timeout=WAIT) as client:
        after = client.view(game.game_id)
        assert after == before
        final = play_out(client, game, rng)
        record = client.record(game.game_id)
    assert_contiguous(record)
    assert replay(record) == record.result == final.result

    # SIGKILL of the service: its Redis child is told to go (PR_SET_PDEATHSIG), no orphan
    with redis.Redis.from_url(second_url) as r:
        redis_pid = int(r.info("server")["process_id"])
        redis_port = r.connection_pool.connection_kwargs["port"]
    second.kill()
    try:
        wait_until(lambda: not port_answers(redis_port), 10.0,
                   message="the orphan redis to stop")
        wait_until(lambda: not alive(redis_pid), 10.0, message=f"redis pid {redis_pid} to exit")
    finally:
        if alive(redis_pid):  # do not leave the orphan running after a failure
            os.kill(redis_pid, signal.SIGKILL)

    # told with SIGTERM, that Redis flushed its file on the way out: the game is still there
    third = service_process(None, data_dir=data_dir)
    with CuriaClient(third.address, timeout=WAIT) as client:
        assert client.record(game.game_id) == record


def alive(pid: int) -> bool:
    """True if the process runs (a zombie waiting for its reaper does not count)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except ProcessLookupError:
        return False


# -- concurrent retries of one request -----------------------------------------------------
def fifty_duplicates(targets: list[str], game: Game, redis_url: str) -> None:
    """50 clients (spread over `targets`) send one decision with one request id at once."""
    observer = CuriaClient(targets[0], timeout=WAIT)
    clients = [CuriaClient(targets[i % len(targets)], timeout=WAIT) for i in range(50)]
    try:
        for c in clients:
            c.wait_ready(WAIT)
        seat, view = seat_to_move(observer, game)
        choice = view.legal_decisions[0].notation
        token, version = game.tokens[seat], view.version
        request_id = f"retry-{os.getpid()}-{version}"
        outcomes = run_together([
            partial(c.submit, game.game_id, token, version, choice, request_id=request_id)
            for c in clients])
        failures = [o for o in outcomes if isinstance(o, grpc.RpcError)]
        assert not failures, [(f.code(), f.details()) for f in failures]
        assert {o.version for o in outcomes} == {version + 1}
        assert sorted(o.duplicate for o in outcomes) == [False] + [True] * 49
        assert len({o.view.version for o in outcomes}) == 1
        assert observer.view(game.game_id).version == version + 1
    finally:
        for c in clients:
            c.close()
        observer.close()
    entries = log_entries(redis_url, game.game_id)
    assert [entry_id for entry_id, _ in entries] == [
        f"{v}-1".encode() for v in range(1, version + 2)]
    last = entries[-1][1]
    assert (int(last[b"seat"]), last[b"notation"].decode()) == (seat, choice)
    with redis.Redis.from_url(redis_url) as r:
        assert r.hget(keys(game.game_id)[2], f"{seat}:{request_id}") == str(version + 1).encode()


def test_fifty_concurrent_retries_on_one_server_apply_once(
        server: str, client: CuriaClient, redis_url: str) -> None:
    game = new_game(client, seed=15)
    rng = random.Random(15)
    for _ in range(7):
        step(client, game, rng)
    fifty_duplicates([server], game, redis_url)


def test_fifty_concurrent_retries_over_two_processes_apply_once(
        pair: tuple[CuriaClient, CuriaClient], redis_url: str) -> None:
    game = new_game(pair[0], seed=16)
    rng = random.Random(16)
    for _ in range(9):
        step(pair[1], game, rng)
    fifty_duplicates([pair[0].target, pair[1].target], game, redis_url)
