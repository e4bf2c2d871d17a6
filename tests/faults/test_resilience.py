"""Operational resilience against real processes: health that follows Redis, one log line
per outage, bots that ride out a 10 s Redis outage with a realistic append-only file, a
watch that leaves a SIGSTOPped server within the heartbeat deadline, and games written
whole or not at all."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc

from client.failover import FailoverClient
from client.unary import CuriaClient
from curia_api.v1 import game_service_pb2 as pb
from service.redis_server import EmbeddedRedis, find_redis_server
from service.server import LIVENESS
from service.store import CREATE_SCRIPT
from tests.servers import REPO, ServiceProcess
from tests.service.gameplay import new_game, step
from tests.timing import patient, wait_until

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
WAIT = patient(30.0)  # seconds: this machine's time scale (tests/timing.py)
#: The heartbeat deadline of a client we ship: a ping every 5 s, 5 s to answer it.
HEARTBEAT_DEADLINE_S = 10.0


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    """A Redis of this test's own, that it may stop and restart (same port, same data)."""
    store = EmbeddedRedis(tmp_path / "redis").start()
    yield store
    store.stop()


def restart(store: EmbeddedRedis) -> EmbeddedRedis:
    """The same Redis again: same port, same data folder (and password)."""
    return EmbeddedRedis(store.data_dir, port=store.port).start(timeout=30)


def health_of(address: str, names: tuple[str, ...] = ("", "curia.v1.GameService")
              ) -> tuple[int, ...]:
    """The health status of each name (default: overall, and curia.v1.GameService's)."""
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        return tuple(stub.Check(health_pb2.HealthCheckRequest(service=name), timeout=2).status
                     for name in names)


def log_lines(process: ServiceProcess) -> list[dict[str, object]]:
    """The JSON log lines of a stopped `curia serve` process."""
    _, err = process.process.communicate(timeout=WAIT)
    return [json.loads(line) for line in err.decode().splitlines() if line.startswith("{")]


def test_health_follows_redis_and_an_outage_makes_two_log_lines(
        own_redis: EmbeddedRedis, tmp_path: Path) -> None:
    process = ServiceProcess(own_redis.url)
    try:
        assert health_of(process.address) == (SERVING, SERVING)
        own_redis.stop(kill=True)
        wait_until(lambda: health_of(process.address) == (NOT_SERVING, NOT_SERVING), 10.0,
                   message="health to say NOT_SERVING while Redis is away")
        assert health_of(process.address, (LIVENESS,)) == (SERVING,)  # alive: no restart
        with CuriaClient(process.address, timeout=5) as client:
            for _ in range(20):  # calls during the outage: refused, and not logged each
                with pytest.raises(grpc.RpcError) as refused:
                    client.view("a" * 32)
                assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
        time.sleep(3)  # the sweeper and the probe meet the outage many times meanwhile
        store = restart(own_redis)
        try:
            wait_until(lambda: health_of(process.address) == (SERVING, SERVING), 10.0,
                       message="health to say SERVING once Redis is back")
        finally:
            process.stop()
            store.stop()
    finally:
        process.stop()
    lines = log_lines(process)
    gone = [line for line in lines if line["msg"] == "redis unavailable"]
    back = [line for line in lines if line["msg"] == "redis available again"]
    assert len(gone) == 1 and len(back) == 1, [line["msg"] for line in lines]
    assert float(back[0]["outage_s"]) >= 3  # type: ignore[arg-type]
    assert int(back[0]["failures_not_logged"]) >= 20  # type: ignore[call-overload]
    assert not any("exc" in line for line in lines), "no traceback for an outage"


def fill_aof(store: EmbeddedRedis, megabytes: int) -> None:
    """Make the append-only file about `megabytes` large, as after long use."""
    with redis.Redis.from_url(store.url) as r:
        value = "x" * 1000
        for batch in range(megabytes):
            pipe = r.pipeline(transaction=False)
            for i in range(1000):
                pipe.set(f"filler:{batch}:{i}", value)
            pipe.execute()


def test_bots_ride_out_a_10_s_redis_outage_with_a_large_aof(
        own_redis: EmbeddedRedis) -> None:
    fill_aof(own_redis, 60)
    process = ServiceProcess(own_redis.url)
    store = own_redis
    bots: list[subprocess.Popen[bytes]] = []
    try:
        with CuriaClient(process.address, timeout=WAIT) as client:
            created = client.create_game("municipium", "classic", 3, seed=31)
            for seat in created.seats:
                bots.append(subprocess.Popen(
                    [sys.executable, "-m", "bots.grpc_player", "--bot", "random",
                     "--server", process.address, "--game-id", created.game_id,
                     "--seat", str(seat.seat), "--pace", "0.05"],
                    cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                    env={**os.environ, "CURIA_SEAT_TOKEN": seat.token}))
            wait_until(lambda: client.view(created.game_id).version >= 10, WAIT,
                       message="the bots to be playing")
            store.stop(kill=True)
            time.sleep(10)  # the 10 s outage under test
            store = restart(own_redis)
            for bot in bots:
                _, err = bot.communicate(timeout=120)
                assert bot.returncode == 0, err.decode()[-2000:]
            view = client.view(created.game_id)
        assert view.status == pb.GAME_STATUS_FINISHED
        assert not view.forfeited_seats, "no bot gave up or timed out"
    finally:
        for bot in bots:
            if bot.poll() is None:
                bot.kill()
        process.stop()
        store.stop()


def test_a_watch_leaves_a_stopped_server_within_the_heartbeat_deadline(
        service_process: type[ServiceProcess], redis_url: str) -> None:
    a, b = service_process(redis_url), service_process(redis_url)
    watcher = FailoverClient([a.address, b.address])
    seen: list[int] = []
    with CuriaClient(b.address, timeout=WAIT) as player:
        game = new_game(player, seed=32)

        def follow() -> None:
            with contextlib.suppress(grpc.RpcError):  # closed by the test when done
                for update in watcher.watch(game.game_id):
                    seen.append(update.version)
        thread = threading.Thread(target=follow, daemon=True)
        thread.start()
        try:
            wait_until(lambda: bool(seen), WAIT, message="the watch to start on A")
            os.kill(a.process.pid, signal.SIGSTOP)  # A hangs, its connections stay open
            stopped = time.monotonic()
            step(player, game, random.Random(32))
            wait_until(lambda: seen[-1] >= 1, HEARTBEAT_DEADLINE_S + 5,
                       message="the watch to move on to B")
            assert time.monotonic() - stopped <= HEARTBEAT_DEADLINE_S + patient(5)
            assert watcher.target == b.address and seen == [0, 1]
        finally:
            os.kill(a.process.pid, signal.SIGCONT)
            watcher.close()


def test_a_game_is_written_whole_or_not_at_all(client: CuriaClient, redis_url: str) -> None:
    """CreateGame writes the game's hash with one script (fields and TTL together), so no
    crash can leave half a game; the script is what the server ran."""
    game = new_game(client, seed=33)
    with redis.Redis.from_url(redis_url) as r:
        fields = r.hgetall(f"curia:{{{game.game_id}}}:game")
        assert {b"meta", b"state", b"version", b"status", b"clock", b"active_ms"} <= set(fields)
        assert r.ttl(f"curia:{{{game.game_id}}}:game") > 0
        assert r.script_exists(hashlib.sha1(CREATE_SCRIPT.encode()).hexdigest()) == [True]


def test_a_redis_child_that_dies_before_running_is_started_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fork of a multi-threaded process can die before it runs redis-server: the start
    is tried again, where a redis-server that ran and stopped would be reported."""
    real = find_redis_server()
    died = tmp_path / "died-once"
    fake = tmp_path / "bin" / "redis-server"
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\nif [ ! -e "{died}" ]; then touch "{died}"; '
                    f'echo "simulated death before exec" >&2; exit 1; fi\n'
                    f'exec "{real}" "$@"\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    with EmbeddedRedis(tmp_path / "data") as store, redis.Redis.from_url(store.url) as r:
        assert r.ping()
    assert died.exists(), "the first start did die"
