"""The stdio bridge on the Play stream: real bridges and stdio bots as processes, on real
`curia serve` processes. A bridge talks to the server on its seat's Play stream only (no
WatchGame, no GetView), rides out a server that drops mid-game (on the same address, or
on the next one of `--server A,B`), and a token the server refuses ends it at once, with
a clear message. `client.play` on its own: a decision sent before the stream is up, on
the second of two servers, is applied once."""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from client.play import DecisionRefused, PlayError, PlaySeat
from client.unary import CuriaClient
from curia_api.v1 import game_service_pb2 as pb
from service.redis_server import free_port
from tests.arena.test_bot_processes import GAME_TIMEOUT, PY_STDIO, launch
from tests.servers import REPO, ServiceProcess
from tests.service.gameplay import assert_contiguous, replay
from tests.service.test_ops import scrape, value
from tests.timing import patient, wait_until

#: What the bridge logs of an answer the server refused.
REFUSED = re.compile(r"at version \d+ refused \(")
#: A stdio bot that picks at random, slowly enough for a server to be killed mid-game.
SLOW_BOT = '''
import json, os, random, sys, time
rng = random.Random(int(os.environ.get("CURIA_BOT_SEED", "0")))
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "end":
        break
    if message["type"] == "decide":
        time.sleep(0.03)
        print(rng.choice(message["legal"]), flush=True)
'''
#: A stdio bot that reads until its stdin closes.
QUIET_BOT = '''
import sys
for line in sys.stdin:
    pass
'''


def stdio_manifest(folder: Path, name: str, code: str) -> Path:
    folder.mkdir()
    (folder / "bot.py").write_text(code)
    (folder / "bot.toml").write_text(f'name = "{name}"\nprotocol = "stdio"\n'
                                     f'command = ["{{python}}", "bot.py"]\n')
    return folder / "bot.toml"


def finish(processes: list[subprocess.Popen[bytes]], timeout: float) -> list[int | None]:
    """The processes' exit codes once they end (killed after `timeout` seconds)."""
    deadline = time.monotonic() + patient(timeout)
    try:
        for process in processes:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        pass
    finally:
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, 9)
                process.wait()
    return [process.returncode for process in processes]


def running(program: Path) -> bool:
    """Whether a process runs `program` (a bot the bridge should have stopped)."""
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if str(program).encode() in cmdline.read_bytes():
                return True
        except OSError:
            continue  # it ended meanwhile
    return False


def logs_of(paths: list[Path]) -> str:
    return "\n".join(f"--- {path.name}:\n{path.read_text(errors='replace')[-3000:]}"
                     for path in paths)


def assert_played_cleanly(remote: CuriaClient, game_id: str) -> pb.GameRecord:
    """Finished by the seats alone (no forfeit, no timeout), contiguous, replayable."""
    record = remote.record(game_id)
    assert {d.cause for d in record.decisions} == {pb.DECISION_CAUSE_SEAT}
    assert not any(score.forfeited for score in record.result.scores)
    assert_contiguous(record)
    assert replay(record) == record.result
    return record


def run_bridge(server: str, game_id: str, token: str, bot: Path, **env: str
               ) -> subprocess.CompletedProcess[str]:
    """One bridge for seat 0 with `bot`'s folder as its working folder, to its end."""
    return subprocess.run(
        [sys.executable, "-m", "hosting.stdio_bridge", "--server", server, "--game-id",
         game_id, "--seat", "0", "--", sys.executable, str(bot)], cwd=bot.parent,
        env={**os.environ, "PYTHONPATH": str(REPO), "CURIA_SEAT_TOKEN": token, **env},
        capture_output=True, text=True, timeout=60)


# ---------------------------------------------------------------------------------------
# The bridges play on their Play streams only
# ---------------------------------------------------------------------------------------
def test_stdio_bots_play_a_game_on_play_streams_only(
        redis_url: str, service_process: type[ServiceProcess], tmp_path: Path) -> None:
    """The server's own metrics: every decision came as SubmitDecision through a stream
    (one per seat decision, none refused), and no WatchGame or GetView was ever served
    (the bridge used to follow WatchGame and read GetView)."""
    metrics_port = free_port()
    served = service_process(redis_url, metrics_port=metrics_port)
    before = scrape(metrics_port)
    with CuriaClient(served.address) as remote:
        created = remote.create_game("municipium", "revised", 2, seed=31,
                                     forfeit_on_illegal=True, decision_ms=10_000)
        logs = [tmp_path / f"seat{c.seat}.log" for c in created.seats]
        codes = finish([launch(PY_STDIO, served.address, created.game_id, c.seat, c.token,
                               seed=c.seat, log_path=logs[c.seat])
                        for c in created.seats], GAME_TIMEOUT)
        after = scrape(metrics_port)
        assert codes == [0, 0], logs_of(logs)
        record = assert_played_cleanly(remote, created.game_id)

    def served_calls(method: str, **labels: str) -> float:
        name = "curia_rpc_duration_seconds_count"
        return value(after, name, method=method, **labels) - \
            value(before, name, method=method, **labels)

    assert served_calls("WatchGame") == 0 and served_calls("GetView") == 0
    assert served_calls("SubmitDecision") == served_calls("SubmitDecision", code="OK") \
        == len(record.decisions) > 0
    for log in logs:
        text = log.read_text()
        assert "game over (" in text and "answers; slowest answer" in text, text[-3000:]
        assert not REFUSED.search(text) and "Traceback" not in text, text[-3000:]


# ---------------------------------------------------------------------------------------
# A server that drops mid-game
# ---------------------------------------------------------------------------------------
def test_the_bridges_ride_out_a_server_killed_mid_game(
        redis_url: str, service_process: type[ServiceProcess], tmp_path: Path) -> None:
    """Server A is killed (-9) mid-game and started again on its port a second later.
    Seat 0's bridge knows A only: it retries until A is back; seat 1's lists A,B: it goes
    on with B at once. Both play the game to its end, each decision applied once."""
    first, other = service_process(redis_url), service_process(redis_url)
    slow = stdio_manifest(tmp_path / "slow", "slow", SLOW_BOT)
    with CuriaClient(other.address) as remote:
        created = remote.create_game("municipium", "revised", 2, seed=41, decision_ms=20_000)
        servers = [first.address, f"{first.address},{other.address}"]
        logs = [tmp_path / f"seat{c.seat}.log" for c in created.seats]
        processes = [launch(slow, servers[c.seat], created.game_id, c.seat, c.token,
                            seed=c.seat, log_path=logs[c.seat]) for c in created.seats]
        wait_until(lambda: remote.view(created.game_id).version >= 20, 30,
                   message="the game to reach version 20")
        first.kill()
        time.sleep(1.0)  # the server away for a moment (the fault under test)
        service_process(redis_url, port=first.port)
        codes = finish(processes, GAME_TIMEOUT + 30)
        assert codes == [0, 0], logs_of(logs)
        assert_played_cleanly(remote, created.game_id)
    for log in logs:
        text = log.read_text()
        assert "retry" in text and "game over (" in text, text[-3000:]  # it noticed
        assert "rolled back" not in text and not REFUSED.search(text), text[-3000:]
        assert "Traceback" not in text, text[-3000:]


# ---------------------------------------------------------------------------------------
# No server, or one that refuses the token
# ---------------------------------------------------------------------------------------
def test_a_refused_token_ends_the_bridge_and_its_bot(
        client: CuriaClient, server: str, tmp_path: Path) -> None:
    created = client.create_game("municipium", "revised", 2, seed=51)
    bot = stdio_manifest(tmp_path / "quiet", "quiet", QUIET_BOT).parent / "bot.py"
    done = run_bridge(server, created.game_id, "not-a-seat-token", bot)
    assert done.returncode == 1, done.stderr
    assert "the server refused to let seat 0 play game" in done.stderr, done.stderr
    assert "UNAUTHENTICATED" in done.stderr and "seat token" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert not running(bot)


def test_without_a_server_the_bridge_gives_up_after_the_retry_seconds(
        tmp_path: Path) -> None:
    bot = stdio_manifest(tmp_path / "quiet", "quiet", QUIET_BOT).parent / "bot.py"
    started = time.monotonic()
    done = run_bridge(f"127.0.0.1:{free_port()}", "g", "token", bot,
                      CURIA_RETRY_SECONDS="1")
    assert done.returncode == 1, done.stderr
    assert time.monotonic() - started < patient(30)
    assert "no server for 1 s" in done.stderr and "retry" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert not running(bot)


# ---------------------------------------------------------------------------------------
# PlaySeat on its own
# ---------------------------------------------------------------------------------------
def test_a_play_seat_sends_a_decision_once_whatever_the_stream(
        client: CuriaClient, server: str) -> None:
    """A decision submitted before any stream is up goes out once one is (here on the
    second server listed, the first one being away); the same request on another stream
    is a duplicate, applied once; a decision at a stale version is refused ABORTED."""
    created = client.create_game("municipium", "revised", 2, seed=61)
    for credential in created.seats:  # every seat's contact: the game starts
        client.view(created.game_id, credential.token)
    mover = client.view(created.game_id).to_move[0]
    token = created.seats[mover].token
    messages: queue.Queue[pb.PlayResponse | PlayError] = queue.Queue()
    view = client.view(created.game_id, token)
    with PlaySeat(f"127.0.0.1:{free_port()},{server}", created.game_id, token,
                  messages.put, give_up_s=20) as seat:
        notation = view.legal_decisions[0].notation
        ack = seat.submit(view.version, notation, "first", view.lineage)
        assert (ack.version, ack.duplicate) == (view.version + 1, False)
        assert seat.attempts == 2  # the first server was away
    with PlaySeat(server, created.game_id, token, messages.put) as seat:
        again = seat.submit(view.version, notation, "first", view.lineage)
        assert (again.version, again.duplicate) == (view.version + 1, True)
        with pytest.raises(DecisionRefused) as stale:
            seat.submit(view.version, notation, "second", view.lineage)
        assert stale.value.code.name == "ABORTED"
    assert client.view(created.game_id).version == view.version + 1
    delivered = [messages.get_nowait() for _ in range(messages.qsize())]
    assert all(isinstance(m, pb.PlayResponse) for m in delivered)  # no loss reported
    assert {"welcome", "game_started"} <= {m.WhichOneof("kind") for m in delivered
                                           if isinstance(m, pb.PlayResponse)}
