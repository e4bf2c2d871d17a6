"""The whole store rolls back while the shipped bots play on two servers: Redis is killed
and restarted from a snapshot taken seconds earlier (what a restore from backup, or a
failover to a replica that lagged, does). The bots (gRPC Python bots, a stdio bot through
the bridge, the Node bot where Node is installed) ride out the outage, follow the game
back to the store's version and play it to its end; the servers' caches of the lost
versions are never committed on. Every record replays; a game created after the
snapshot is gone, and its bots say so and exit (never hang)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from client.unary import CuriaClient
from curia.arena_cli import stop_processes
from curia_api.v1 import game_service_pb2 as pb
from service.redis_server import find_redis_server, free_port
from tests.node_bots import node_bot_folder
from tests.servers import REPO, ServiceProcess
from tests.service.gameplay import replay
from tests.timing import patient, wait_until

NODE_BOT = REPO / "bots" / "node_grpc"
OPTIONS = {"target_decurions": 5}


class SnapshotRedis:
    """A redis-server whose data is only what `snapshot` saved (no append-only file):
    `roll_back` kills it and starts it again from the last snapshot."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.port = folder, free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        self.process = subprocess.Popen(
            [find_redis_server(), "--port", str(self.port), "--bind", "127.0.0.1",
             "--dir", str(self.folder), "--appendonly", "no", "--save", "",
             "--logfile", "redis.log"], stdout=subprocess.DEVNULL)
        wait_until(self.answers, 10)

    def answers(self) -> bool:
        try:
            return bool(redis.Redis.from_url(self.url, socket_timeout=1).ping())
        except redis.RedisError:
            return False

    def snapshot(self) -> None:
        redis.Redis.from_url(self.url).save()
        shutil.copy(self.folder / "dump.rdb", self.folder / "snapshot.rdb")

    def roll_back(self, outage_s: float) -> None:
        """Crash, stay away `outage_s` seconds (the outage under test), start again."""
        self.crash()
        time.sleep(outage_s)
        self.start()

    def crash(self) -> None:
        """Kills the server and puts the snapshot back as its only data."""
        assert self.process is not None
        self.process.kill()
        self.process.wait()
        shutil.copy(self.folder / "snapshot.rdb", self.folder / "dump.rdb")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SnapshotRedis]:
    snapshotted = SnapshotRedis(tmp_path)
    yield snapshotted
    snapshotted.stop()


def launch(kind: str, server: str, game_id: str, seat: int, token: str,
           log: Path) -> subprocess.Popen[bytes]:
    """A shipped bot playing one seat, as its own process."""
    commands = {  # the Python bots paced, so that every game outlasts the rollback
        "random": [sys.executable, "-m", "bots.random_bot", "--pace", "0.05"],
        "greedy": [sys.executable, "-m", "bots.greedy_bot", "--pace", "0.05"],
        "stdio": [sys.executable, "-m", "hosting.stdio_bridge", "--", sys.executable,
                  str(REPO / "bots" / "python_stdio" / "bot.py")],
        "node": ["node", str(NODE_BOT / "bot.js")],
    }
    env = {**os.environ, "CURIA_SEAT_TOKEN": token, "CURIA_SERVER": server,
           "CURIA_GAME_ID": game_id, "CURIA_SEAT": str(seat), "CURIA_BOT_SEED": str(seat),
           "CURIA_RETRY_SECONDS": "60"}
    return subprocess.Popen(commands[kind], cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                            stderr=log.open("wb"))


def hold_at(client: CuriaClient, versions: dict[str, int],
            bots_of: dict[str, list[subprocess.Popen[bytes]]]) -> None:
    """Stops (SIGSTOP) the bots of each game as soon as it reaches its version, until
    every game has: the games then stand still, whatever the machine's load, and none
    ends early (a game lasts about 200 decisions)."""
    waiting = dict(versions)

    def every_game_held() -> bool:
        for game_id, version in list(waiting.items()):
            if client.view(game_id).version >= version:
                for process in bots_of[game_id]:
                    process.send_signal(signal.SIGSTOP)
                del waiting[game_id]
        return not waiting

    wait_until(every_game_held, 60, interval=0.02, message="every game at its version")


def resume(bots_of: dict[str, list[subprocess.Popen[bytes]]]) -> None:
    for processes in bots_of.values():
        for process in processes:
            process.send_signal(signal.SIGCONT)


def kinds() -> list[str]:
    """The bots in play: the Node bot too where Node and its packages are there."""
    found = ["random", "greedy", "stdio"]
    if shutil.which("node") and shutil.which("npm"):
        node_bot_folder("node_grpc")
        found.append("node")
    return found


def test_the_bots_play_on_through_a_rollback_of_the_store(
        store: SnapshotRedis, service_process: type[ServiceProcess], tmp_path: Path) -> None:
    servers = [service_process(store.url), service_process(store.url)]
    client = CuriaClient(servers[0].address)
    bots: list[tuple[int, str, subprocess.Popen[bytes], Path]] = []
    bots_of: dict[str, list[subprocess.Popen[bytes]]] = {}
    kept: list[str] = []
    all_kinds = kinds()

    def start_game(index: int) -> str:
        created = client.create_game("municipium", "revised", 3, options=OPTIONS,
                                     seed=100 + index)
        for credential in created.seats:
            kind = all_kinds[(index + credential.seat) % len(all_kinds)]
            server = servers[(index + credential.seat) % 2].address
            log = tmp_path / f"{index}-{credential.seat}-{kind}.log"
            process = launch(kind, server, created.game_id, credential.seat,
                             credential.token, log)
            bots.append((index, kind, process, log))
            bots_of.setdefault(created.game_id, []).append(process)
        return created.game_id

    try:
        kept = [start_game(i) for i in range(4)]
        hold_at(client, {g: 15 for g in kept}, bots_of)
        store.snapshot()
        at_snapshot = {g: client.view(g).version for g in kept}
        lost_game = start_game(4)
        resume(bots_of)
        hold_at(client, {**{g: at_snapshot[g] + 10 for g in kept}, lost_game: 3}, bots_of)
        ahead = {g: client.view(g).version for g in kept}
        assert all(client.view(g).status == pb.GAME_STATUS_IN_PROGRESS for g in kept)
        store.crash()
        resume(bots_of)  # the bots live through the outage
        time.sleep(1.0)  # the outage under test
        store.start()

        deadline = time.monotonic() + patient(120)
        for _, _, process, _ in bots:
            process.wait(timeout=max(1.0, deadline - time.monotonic()))
        client = CuriaClient(servers[1].address)
        for game_id in kept:
            record = client.record(game_id)  # finished
            assert replay(record) == record.result
            assert len(record.decisions) > ahead[game_id] - 10
        for index, kind, process, log in bots:
            text = log.read_text()
            if index == 4:  # the game created after the snapshot: gone, and they say so
                assert process.returncode != 0 and "no game" in text, (kind, text[-2000:])
            else:
                assert process.returncode == 0, (kind, text[-2000:])
        followed = {kind for index, kind, _, log in bots
                    if index < 4 and "rolled back" in log.read_text()}
        assert followed == set(all_kinds), (followed, all_kinds)
    finally:  # a failed step leaves no bot running
        resume(bots_of)
        stop_processes([process for _, _, process, _ in bots], grace=2)
