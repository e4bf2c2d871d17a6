"""Operating the service: health checking, reflection, Prometheus metrics, logs that keep
secrets, and the public contract (generated code in sync, buf lint clean)."""

from __future__ import annotations

import asyncio
import functools
import importlib.util
import json
import os
import random
import re
import shutil
import signal
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis
from google.protobuf import descriptor_pb2
from google.protobuf.descriptor_pool import DescriptorPool
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)
from prometheus_client.parser import text_string_to_metric_families

from client.unary import CuriaClient
from curia_api.v1 import game_service_pb2 as pb
from service.health import follow_store
from service.redis_server import EmbeddedRedis, free_port
from service.server import GameService, create_server, stop_server
from service.store import GameStore
from service.threads import LoopThread
from tests.servers import REPO, ServiceProcess
from tests.service.gameplay import new_game, play_out, step
from tests.timing import patient, wait_until

SERVICE = "curia.v1.GameService"
HEALTH = "grpc.health.v1.Health"
WAIT = patient(20.0)  # seconds: this machine's time scale (tests/timing.py)
SERVING_STATUS = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING_STATUS = health_pb2.HealthCheckResponse.NOT_SERVING


@pytest.fixture(scope="module")
def served(redis_url: str) -> Iterator[tuple[ServiceProcess, int]]:
    """One `curia serve` process with a metrics endpoint: it and its metrics port."""
    metrics_port = free_port()
    process = ServiceProcess(redis_url, metrics_port=metrics_port)
    try:
        yield process, metrics_port
    finally:
        process.stop()


# -- health and reflection ---------------------------------------------------------------
def test_standard_health_checking_answers_serving(
        served: tuple[ServiceProcess, int]) -> None:
    with grpc.insecure_channel(served[0].address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for name in ("", SERVICE):
            answer = health.Check(health_pb2.HealthCheckRequest(service=name), timeout=WAIT)
            assert answer.status == health_pb2.HealthCheckResponse.SERVING, name
        with pytest.raises(grpc.RpcError) as unknown:
            health.Check(health_pb2.HealthCheckRequest(service="no.such.Service"),
                         timeout=WAIT)
        assert unknown.value.code() == grpc.StatusCode.NOT_FOUND
        watch = health.Watch(health_pb2.HealthCheckRequest(service=SERVICE), timeout=WAIT)
        assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
        watch.cancel()


def test_reflection_describes_the_service_without_proto_files(
        served: tuple[ServiceProcess, int]) -> None:
    with grpc.insecure_channel(served[0].address) as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)

        def ask(**request: Any) -> reflection_pb2.ServerReflectionResponse:
            answers = list(stub.ServerReflectionInfo(
                iter([reflection_pb2.ServerReflectionRequest(**request)]), timeout=WAIT))
            assert len(answers) == 1
            assert not answers[0].HasField("error_response"), answers[0].error_response
            return answers[0]

        listed = {s.name for s in ask(list_services="").list_services_response.service}
        assert {SERVICE, HEALTH} <= listed

        files = ask(file_containing_symbol=SERVICE).file_descriptor_response.file_descriptor_proto
        described = {}
        for raw in files:
            proto = descriptor_pb2.FileDescriptorProto.FromString(raw)
            described[proto.name] = proto
        main = described["curia/v1/game_service.proto"]
        assert main.package == "curia.v1"
        methods = {m.name for s in main.service if s.name == "GameService" for m in s.method}
        assert methods == set(pb.DESCRIPTOR.services_by_name["GameService"].methods_by_name)

        # what grpcurl does: build the whole descriptor (dependencies included) by reflection
        pool = DescriptorPool(ProtoReflectionDescriptorDatabase(channel))
        service = pool.FindServiceByName(SERVICE)
        submit = service.methods_by_name["SubmitDecision"]
        assert submit.input_type.fields_by_name["decision"].message_type.full_name == \
            "curia.v1.Decision"
        assert pool.FindMessageTypeByName("curia.v1.MunicipiumDecision").fields
        watch = service.methods_by_name["WatchGame"]
        assert watch.server_streaming and not watch.client_streaming


class ProbedServer(LoopThread):
    """A gRPC server on its own loop whose only Redis traffic is the health probe (no
    timeout sweeper beside it, unlike `curia serve`, whose sweeper takes pooled
    connections every 50 ms and may meet a dead one first): what the probe meets after a
    Redis restart is then up to the probe alone."""

    label = "probed server"

    def __init__(self, redis_url: str) -> None:
        super().__init__()
        self.redis_url, self.port = redis_url, 0

    async def serve(self) -> None:
        store = GameStore.from_url(self.redis_url)
        running = await create_server(store, "127.0.0.1:0")
        self.port = running.port
        assert self.stopping is not None
        prober = asyncio.create_task(follow_store(store, running.health, (SERVICE,),
                                                  running.outage, self.stopping))
        self.ready()
        await self.stopping.wait()
        await prober
        await stop_server(running, grace=0.5)
        await store.close()


def pings(admin: redis.Redis) -> int:
    """How many PINGs Redis has answered (the probe's: nothing else here PINGs)."""
    return int(admin.info("commandstats").get("cmdstat_ping", {}).get("calls", 0))


def restart_after_a_probe(store: EmbeddedRedis) -> tuple[EmbeddedRedis, float, bool]:
    """Restart Redis (same port) just after the health probe pinged it: the new Redis, when
    it answered, and whether that was before the next probe (probes are a second apart; a
    loaded machine may restart slower, and then the probe met Redis down)."""
    with redis.Redis.from_url(store.url) as admin:
        wait_until(lambda: pings(admin) >= 1, WAIT, message="a first probe")
        before = pings(admin)
        wait_until(lambda: pings(admin) > before, WAIT, interval=0.005,
                   message="a probe")  # just probed: the next is a second away
    probed = time.monotonic()
    store.stop()
    store = EmbeddedRedis(store.data_dir, port=store.port).start()
    back = time.monotonic()
    return store, back, back - probed < 0.8


def test_health_shows_no_not_serving_once_a_restarted_redis_answers(
        tmp_path: Path) -> None:
    """Redis restarts (same port) right after a probe: the next probe takes the pooled
    connection that died with the old Redis, and must not report NOT_SERVING for the
    second until the probe after (health is polled every 100 ms). A real outage is still
    reported, and its end."""
    store = EmbeddedRedis(tmp_path / "redis").start()
    server = ProbedServer(store.url)
    seen: list[tuple[float, int]] = []
    polling = threading.Event()

    def poll() -> None:
        with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            while polling.is_set():
                answer = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=WAIT)
                seen.append((time.monotonic(), answer.status))
                time.sleep(0.1)

    def statuses(since: float) -> list[int]:
        return [status for at, status in seen if at >= since]

    def serving_since(since: float) -> bool:
        return statuses(since)[-1:] == [SERVING_STATUS]

    poller = threading.Thread(target=poll, daemon=True)
    try:
        server.start_thread(WAIT)
        polling.set()
        poller.start()
        for _attempt in range(5):  # until the restart falls between two probes
            store, back, quick = restart_after_a_probe(store)
            if quick:
                break
            wait_until(functools.partial(serving_since, back), WAIT,
                       message="SERVING again before another try")
        else:
            raise AssertionError("Redis never restarted between two probes in 5 tries")
        with redis.Redis.from_url(store.url) as admin:  # the new Redis counts anew
            # two probes, the first on the pooled connection that died with the old Redis
            wait_until(lambda: pings(admin) >= 2, WAIT, message="two probes after the restart")
        assert statuses(back) and set(statuses(back)) == {SERVING_STATUS}, (
            f"NOT_SERVING while Redis answered: {statuses(back)}")

        store.stop()  # a real outage: reported while it lasts
        gone = time.monotonic()
        wait_until(lambda: NOT_SERVING_STATUS in statuses(gone), WAIT,
                   message="NOT_SERVING during the outage")
        store = EmbeddedRedis(store.data_dir, port=store.port).start()
        back = time.monotonic()
        wait_until(lambda: statuses(back)[-1:] == [SERVING_STATUS], 5.0,
                   message="SERVING once Redis is back (at the next probe)")
    finally:
        polling.clear()
        if poller.is_alive():
            poller.join(timeout=WAIT)
        server.stop()
        store.stop()


# -- Prometheus metrics ------------------------------------------------------------------
def scrape(port: int) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of the /metrics page, by (sample name, labels)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=WAIT) as page:
        assert page.status == 200
        text = page.read().decode()
    return {(sample.name, frozenset(sample.labels.items())): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def value(samples: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str,
          **labels: str) -> float:
    """Sum of the samples of `name` whose labels include `labels` (0 when absent)."""
    wanted = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and wanted <= ls)


def test_prometheus_metrics_move_with_the_traffic(
        served: tuple[ServiceProcess, int]) -> None:
    process, port = served
    before = scrape(port)
    rng = random.Random(21)
    with CuriaClient(process.address, timeout=WAIT) as client:
        game = new_game(client, seed=21)
        for _ in range(5):
            step(client, game, rng)
        seat = client.view(game.game_id).to_move[0]
        with pytest.raises(grpc.RpcError) as bad_token:
            client.submit(game.game_id, "not-a-token", 5, "setup temple")
        assert bad_token.value.code() == grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(grpc.RpcError) as stale:
            client.submit(game.game_id, game.tokens[seat], 4, "setup temple")
        assert stale.value.code() == grpc.StatusCode.ABORTED

        stream = client.stub.WatchGame(pb.WatchGameRequest(game_id=game.game_id,
                                                           after_version=5), timeout=WAIT)
        try:
            assert next(stream).version == 5  # the stream is open on the server
            during = scrape(port)
            assert value(during, "curia_open_streams") >= 1
        finally:
            stream.cancel()
        wait_until(lambda: value(scrape(port), "curia_open_streams")
                   == value(before, "curia_open_streams"), 30.0,  # (a loaded machine)
                   interval=0.1, message="the cancelled stream to close on the server")
        # the gauge of games in progress is refreshed every 2 s from Redis
        wait_until(lambda: value(scrape(port), "curia_active_games") >= 1, 10.0,
                   interval=0.2, message="curia_active_games >= 1")

    after = scrape(port)

    def moved(name: str, by: float = 1, **labels: str) -> None:
        assert value(after, name, **labels) - value(before, name, **labels) >= by, \
            (name, labels, value(before, name, **labels), value(after, name, **labels))

    moved("curia_decisions_applied_total", 5, game="municipium", cause="seat")
    moved("curia_decisions_rejected_total", reason="stale_version")
    moved("curia_decisions_rejected_total", reason="unauthenticated")
    moved("curia_games_created_total", game="municipium")
    moved("curia_rpc_duration_seconds_count", 5, method="SubmitDecision", code="OK")
    moved("curia_rpc_duration_seconds_bucket", 5, method="SubmitDecision", code="OK", le="+Inf")
    moved("curia_rpc_duration_seconds_count", method="SubmitDecision", code="ABORTED")
    moved("curia_rpc_duration_seconds_count", method="SubmitDecision", code="UNAUTHENTICATED")
    moved("curia_rpc_duration_seconds_count", method="WatchGame")
    moved("curia_redis_duration_seconds_count", 5, operation="commit")
    moved("curia_redis_duration_seconds_bucket", 5, operation="load", le="+Inf")
    assert value(after, "curia_active_games") >= 1
    buckets = sorted(float(dict(ls)["le"]) for (n, ls) in after
                     if n == "curia_rpc_duration_seconds_bucket"
                     and ("method", "SubmitDecision") in ls and ("code", "OK") in ls)
    assert len(buckets) > 5 and buckets[-1] == float("inf")


# -- logs --------------------------------------------------------------------------------
def test_debug_logs_are_json_and_never_contain_a_seat_token(
        service_process: type[ServiceProcess], redis_url: str) -> None:
    process = service_process(redis_url, log_level="DEBUG")
    rng = random.Random(22)
    bad = "forged-" + "x" * 36
    refusals = []
    with CuriaClient(process.address, timeout=WAIT) as client:
        game = new_game(client, seed=22)
        for turn in range(30):
            spectator = client.view(game.game_id)
            seat = spectator.to_move[0]
            other = (seat + 1) % len(game.tokens)
            if turn % 3 == 0:  # another seat's valid token: not its turn
                attempts = [(game.tokens[other], grpc.StatusCode.FAILED_PRECONDITION),
                            (bad, grpc.StatusCode.UNAUTHENTICATED),
                            (game.tokens[seat] + "x" * 200, grpc.StatusCode.UNAUTHENTICATED)]
                legal = client.view(game.game_id, game.tokens[seat]).legal_decisions
                for token, code in attempts:
                    with pytest.raises(grpc.RpcError) as refused:
                        client.submit(game.game_id, token, spectator.version,
                                      legal[0].notation)
                    assert refused.value.code() == code
                    refusals.append(code.name)
                with pytest.raises(grpc.RpcError) as refused:
                    client.view(game.game_id, bad)
                assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
                with pytest.raises(grpc.RpcError) as refused:
                    list(client.watch(game.game_id, bad))
                assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
            step(client, game, rng)
        play_out(client, game, rng)
    process.stop()
    out, err = process.process.communicate(timeout=WAIT)
    text = out.decode() + err.decode()

    for token in [*game.tokens.values(), bad]:
        assert token not in text
        assert token[:16] not in text  # nor a recognisable piece of it

    lines = [json.loads(line) for line in err.decode().splitlines() if line.strip()]
    assert lines, "no log line at DEBUG"
    refused = [entry for entry in lines if entry.get("msg") == "refused"
               and entry.get("game_id") == game.game_id]
    assert {entry["method"] for entry in refused} == {"SubmitDecision", "GetView", "WatchGame"}
    assert sorted(e["code"] for e in refused if e["method"] == "SubmitDecision") == \
        sorted(refusals)
    assert {e["reason"] for e in refused} >= {"unauthenticated", "not_your_turn"}
    for entry in lines:
        assert {"ts", "level", "msg"} <= set(entry)
    assert not [e for e in lines if e["level"] in ("ERROR", "CRITICAL")]
    assert any(e.get("msg") == "game finished" and e.get("game_id") == game.game_id
               for e in lines)


# -- the contract ------------------------------------------------------------------------
def test_the_generated_code_matches_the_proto_files(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("curia_proto_generate",
                                                  REPO / "proto" / "generate.py")
    assert spec is not None and spec.loader is not None
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    written = generate.generate(tmp_path)
    committed = REPO / "curia_api" / "v1"
    assert {p.name for p in written} == {p.name for p in committed.glob("*_pb2*.py*")}
    for path in written:
        assert path.read_bytes() == (committed / path.name).read_bytes(), (
            f"curia_api/v1/{path.name} is out of date: run python3 proto/generate.py")


def find_buf() -> str | None:
    """The buf CLI: PATH, the repo's node_modules, or the test cache (installed by npm)."""
    for candidate in (shutil.which("buf"), REPO / "node_modules" / ".bin" / "buf",
                      REPO / ".cache" / "buf" / "node_modules" / ".bin" / "buf"):
        if candidate and os.access(candidate, os.X_OK):
            return str(candidate)
    npm = shutil.which("npm")
    if npm is None:
        return None
    installed = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--prefix", str(REPO / ".cache" / "buf"),
         "@bufbuild/buf@1.75.0"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    path = REPO / ".cache" / "buf" / "node_modules" / ".bin" / "buf"
    return str(path) if os.access(path, os.X_OK) else None


def test_buf_lint_is_clean() -> None:
    buf = find_buf()
    if buf is None:
        pytest.skip("the buf CLI is not installed (not on PATH, not in node_modules) "
                    "and npm is not available to install @bufbuild/buf")
    version = subprocess.run([buf, "--version"], capture_output=True, text=True, timeout=60)
    assert re.match(r"\d+\.\d+", version.stdout.strip()), version.stdout + version.stderr
    linted = subprocess.run([buf, "lint"], cwd=REPO, capture_output=True, text=True,
                            timeout=120)
    assert linted.returncode == 0, f"buf lint:\n{linted.stdout}{linted.stderr}"


def test_a_redis_password_is_never_printed_or_logged(
        service_process: type[ServiceProcess], redis_url: str) -> None:
    password = "pw-" + os.urandom(12).hex()
    user = f"curia-test-{os.getpid()}"
    admin = redis.Redis.from_url(redis_url)
    admin.acl_setuser(user, enabled=True, passwords=[f"+{password}"], keys=["*"],
                      commands=["+@all"])
    try:
        host = redis_url.rpartition("@")[2].removeprefix("redis://")  # drop the default auth
        url = f"redis://{user}:{password}@{host}"
        process = service_process(url, log_level="DEBUG")
        with CuriaClient(process.address, timeout=WAIT) as client:
            game = new_game(client, seed=23)
            step(client, game, random.Random(23))  # the service does reach its Redis
            assert client.view(game.game_id).version == 1
        process.stop()
        out, err = process.process.communicate(timeout=WAIT)
    finally:
        admin.acl_deluser(user)
        admin.close()
    assert process.process.returncode == 0, err.decode()
    assert "curia serving on port" in out.decode()
    assert password not in out.decode() + err.decode()
    assert any(json.loads(line).get("msg") == "serving" for line in err.decode().splitlines())


def test_sigterm_reports_not_serving_before_the_server_stops(
        redis_url: str, service_process: Any) -> None:
    """Probes and balancers see NOT_SERVING while calls in flight finish (the drain)."""
    process = service_process(redis_url)
    channel = grpc.insecure_channel(process.address)
    stub = health_pb2_grpc.HealthStub(channel)
    request = health_pb2.HealthCheckRequest(service="")
    assert stub.Check(request).status == health_pb2.HealthCheckResponse.SERVING
    process.process.send_signal(signal.SIGTERM)
    seen = set()
    deadline = time.monotonic() + patient(3)
    while time.monotonic() < deadline:
        try:
            seen.add(stub.Check(request, timeout=0.5).status)
        except grpc.RpcError:
            break
        time.sleep(0.05)
    channel.close()
    assert health_pb2.HealthCheckResponse.NOT_SERVING in seen
    assert process.process.wait(timeout=10) == 0


def test_a_stream_cancelled_while_its_reader_lags_closes_on_the_server(
        served: tuple[ServiceProcess, int]) -> None:
    """A client that stopped reading (the server has a game's whole history to send it)
    cancels: the stream ends on the server, and the open-streams gauge comes back."""
    process, port = served
    rng = random.Random(5)
    with CuriaClient(process.address, timeout=WAIT) as client:
        game = new_game(client, seed=5)
        for _ in range(80):
            step(client, game, rng)
        seat = client.view(game.game_id).to_move[0]
        stream = client.stub.WatchGame(pb.WatchGameRequest(
            game_id=game.game_id, seat_token=game.tokens[seat], after_version=0))
        try:
            wait_until(lambda: value(scrape(port), "curia_open_streams") == 1, WAIT,
                       message="the stream to open on the server")
            time.sleep(1.0)  # the server sends what the client's windows take, then waits
        finally:
            stream.cancel()
        wait_until(lambda: value(scrape(port), "curia_open_streams") == 0, 10.0,
                   interval=0.1, message="the cancelled stream to close on the server")


def test_a_send_to_a_client_gone_is_grpcs_to_end_not_an_internal_error(
        caplog: pytest.LogCaptureFixture) -> None:
    """A stream's `context.write` fails when its client went away as the message was sent
    (grpc raises ExecuteBatchError, a grpc.aio.InternalError): that is no server bug, so
    it goes back to grpc, which ignores it for a closed client, and is not logged."""
    service = GameService(None)  # type: ignore[arg-type]  # (no game is touched)

    async def send_to_a_client_gone(_: Any) -> None:
        raise grpc.aio.InternalError("Failed \"execute_batch\"")

    with pytest.raises(grpc.aio.InternalError):
        asyncio.run(service._answer("WatchGame", pb.WatchGameRequest(game_id="g"),
                                    send_to_a_client_gone))
    assert "internal error" not in caplog.text
