"""The store at its edges, through real `curia serve` processes on a real redis-server:
a Redis over `maxmemory` refuses writes, and the service says so (RESOURCE_EXHAUSTED,
nothing written, no traceback), whichever client path met the refusal."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import grpc
import pytest
import redis

from client.unary import CuriaClient
from curia_api.v1 import game_service_pb2 as pb
from service.redis_server import EmbeddedRedis
from service.server import STORE_FULL_MESSAGE
from tests.servers import ServiceProcess
from tests.service.gameplay import new_game, step
from tests.timing import patient, wait_until

WAIT = patient(30.0)  # seconds: this machine's time scale (tests/timing.py)
FILLER = "filler:"
#: The timed game's decision limit: long enough to create the games and fill Redis first.
TIMED_MS = 4000
#: How far under its used memory `fill` leaves `maxmemory`: a Redis just at its limit
#: refuses a command or not by the size of that command (its arguments count while it is
#: read), so the test leaves no doubt.
MARGIN = 256 * 1024


def fill(admin: redis.Redis) -> int:
    """Write small values until Redis refuses one (used memory over `maxmemory`, with
    `noeviction`), then bring `maxmemory` MARGIN under the memory used; about how many
    values were written (deleting them makes room again)."""
    value = b"x" * 1000
    for batch in range(1000):  # 100 writes a round trip (one fsync under `always`)
        pipe = admin.pipeline(transaction=False)
        for i in range(100):
            pipe.set(f"{FILLER}{batch}:{i}", value)
        try:
            pipe.execute()
        except redis.exceptions.OutOfMemoryError:
            used = int(admin.info("memory")["used_memory"])
            admin.config_set("maxmemory", used - MARGIN)
            return batch * 100
    raise AssertionError("Redis never refused a write: is maxmemory set?")


def game_keys(admin: redis.Redis) -> set[bytes]:
    return set(admin.scan_iter(match="curia:{*}:game"))


@pytest.mark.parametrize("path", ["link", "redis-py"])
def test_a_full_redis_answers_resource_exhausted_and_writes_nothing(
        tmp_path: Path, path: str) -> None:
    """Redis 6.2 refuses a script's first write over `maxmemory` with a script error
    ("ERR Error running script ... -OOM command not allowed ..."), which redis-py raises
    as a plain ResponseError: CreateGame and SubmitDecision (unary and on a Session) still
    answer RESOURCE_EXHAUSTED with the store-full message, write nothing, log no
    traceback, and other games stay readable. `link`: decisions commit on the pipelined
    connection (service/redis_link.py); `redis-py`: a URL with a query option, which
    serves everything through redis-py."""
    with EmbeddedRedis(tmp_path / "redis", maxmemory="4mb") as server:
        url = server.url if path == "link" else f"{server.url}?socket_connect_timeout=5"
        process = ServiceProcess(url, log_level="INFO")
        try:
            admin = redis.Redis.from_url(server.url)
            rng = random.Random(41)
            with CuriaClient(process.address, timeout=WAIT) as client:
                playing, other = new_game(client, seed=41), new_game(client, seed=42)
                # a game whose decision times out while Redis is full: the server's
                # sweeper then meets the refusal on its own (a timeout's commit)
                timed = new_game(client, seed=44, decision_ms=TIMED_MS)
                timed_at = time.monotonic()
                for _ in range(3):
                    step(client, playing, rng)
                step(client, other, rng)
                before = client.view(playing.game_id)
                other_before = client.view(other.game_id)
                seat = before.to_move[0]
                legal = client.view(playing.game_id, playing.tokens[seat]).legal_decisions
                keys_before = game_keys(admin)
                assert fill(admin) > 0

                with pytest.raises(grpc.RpcError) as created:
                    client.create_game("municipium", "classic", 3, seed=43)
                assert created.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert created.value.details() == STORE_FULL_MESSAGE

                with pytest.raises(grpc.RpcError) as submitted:
                    client.submit(playing.game_id, playing.tokens[seat], before.version,
                                  legal[0].notation, request_id="full-1")
                assert submitted.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert submitted.value.details() == STORE_FULL_MESSAGE

                session = list(client.stub.Session(iter([pb.SessionRequest(
                    tag=1, submit_decision=pb.SubmitDecisionRequest(
                        game_id=playing.game_id, seat_token=playing.tokens[seat],
                        expected_version=before.version, decision=legal[0],
                        request_id="full-2"))]), timeout=WAIT))
                assert len(session) == 1 and session[0].WhichOneof("reply") == "refused"
                assert session[0].refused.code == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
                assert session[0].refused.message == STORE_FULL_MESSAGE

                # nothing written: no new game, the same version; every game readable
                time.sleep(max(0.0, timed_at + TIMED_MS / 1000 + 1.0 - time.monotonic()))
                assert client.view(timed.game_id).version == 0  # its time-out: refused
                assert game_keys(admin) == keys_before
                assert client.view(playing.game_id).version == before.version
                again = client.view(other.game_id)
                assert (again.version, again.status) == (other_before.version,
                                                         other_before.status)
                assert client.view(other.game_id, other.tokens[again.to_move[0]]
                                   ).legal_decisions

                # room again: the refused request id was not recorded, so it now applies
                admin.delete(*admin.keys(f"{FILLER}*"))
                done = client.submit(playing.game_id, playing.tokens[seat], before.version,
                                     legal[0].notation, request_id="full-1")
                assert done.version == before.version + 1
                wait_until(lambda: client.view(timed.game_id).version >= 1, WAIT,
                           message="the time-out to be applied once there is room")
            admin.close()
        finally:
            process.stop()
        _, err = process.process.communicate(timeout=WAIT)
    lines = [json.loads(line) for line in err.decode().splitlines() if line.startswith("{")]
    full = [line for line in lines if line["msg"] == "redis is full (maxmemory)"]
    assert {line.get("method") for line in full} >= {"CreateGame", "SubmitDecision"}
    swept = [line for line in full if line.get("where") == "timeout sweep"]
    assert len(swept) == 1, full  # once while it lasts, not at every sweep (20 a second)
    assert not [line for line in lines if "exc" in line or line["msg"] == "internal error"
                or line["msg"] == "background sweep failed"]
