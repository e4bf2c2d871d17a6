"""What the bot sandbox (hosting/sandbox.py) costs: per bot start and per call to the service.

    python3 benchmarks/sandbox_overhead.py [--starts 20] [--calls 2000] [--decisions 500]
                                           [--bots 4] [--seconds 10]

1. Start: from launching a trivial Python bot to its first line on stdout, unsandboxed
   and in its sandbox (copy of its folder, bwrap, prlimit, the pids cgroup where the
   host allows one), alternated; the sandbox's copy is of the shipped python_stdio bot.
2. Per call: a GetView round trip (the call a bot makes most, with SubmitDecision)
   straight to the service over TCP, through the ServiceDoor's Unix socket as a
   sandboxed gRPC bot makes it, and, for reference, through a plain byte pipe on a Unix
   socket (what the door was before it checked calls), alternated in one run against one
   embedded service. The door (hosting/door.py) is a gRPC proxy in the arena's process: it
   reads each call's method, refuses all but a seat's calls, and relays the rest.
   Also: the round trip of a CreateGame the door refuses (what a flooding bot gets).
3. Per decision on a Play stream (how the shipped bots play a tournament seat): from a
   decision sent to the next turn received, the other seat resigned (the service decides
   for it), straight and through the door.
4. Many bots at once: `--bots` bot processes making GetView calls for `--seconds`,
   straight and through one door (the door, like the embedded service, is one event loop
   in the arena's process): calls per second in all.
The calls are made by a separate process, as a bot's are: this process holds the service
and the door, as the arena's does. Prints medians (and p99) and the differences; needs
bwrap (apt-get install bubblewrap).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import grpc

from client.play import PlayError, PlayStream, decision_request
from client.unary import CuriaClient
from curia_api.v1 import game_service_pb2 as pb
from hosting.door import service_door
from hosting.limits import Limits
from hosting.sandbox import Layout, Sandbox, environment, unavailable_reason
from service.redis_server import EmbeddedRedis
from service.server import BackgroundServer
from service.threads import LoopThread

REPO = Path(__file__).resolve().parents[1]
BOT_FOLDER = REPO / "bots" / "python_stdio"
HELLO = [sys.executable, "-c", "print('ready', flush=True)"]
GAME, VARIANT = "leges", "standard"


def first_line_ms(command: list[str], env: dict[str, str] | None = None) -> float:
    """Milliseconds from launch to the first line on stdout."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                               env=env, cwd=BOT_FOLDER)
    assert process.stdout is not None
    process.stdout.readline()
    elapsed = (time.perf_counter() - start) * 1000
    process.wait()
    return elapsed


def sandboxed_start_ms(layout: Layout) -> float:
    start = time.perf_counter()
    box = Sandbox(layout, BOT_FOLDER)
    try:
        command = box.command(HELLO, Limits(), setenv=environment(sys.executable, {}))
        copy_ms = (time.perf_counter() - start) * 1000
        return copy_ms + first_line_ms(command, env={})
    finally:
        box.close()


def starts(count: int) -> tuple[list[float], list[float]]:
    layout = Layout.for_run([])
    plain, boxed = [], []
    for _ in range(count):
        plain.append(first_line_ms(HELLO))
        boxed.append(sandboxed_start_ms(layout))
    return plain, boxed


# -- the reference: a byte pipe (the door before it read calls) ---------------------------
class BytePipe(LoopThread):
    """A Unix socket that copies bytes to and from the service's TCP port."""

    label = "byte pipe"

    def __init__(self, server: str, path: Path) -> None:
        super().__init__()
        self.server, self.path = server, path

    async def serve(self) -> None:
        host, _, port = self.server.rpartition(":")

        async def pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError):
                while chunk := await reader.read(65536):
                    writer.write(chunk)
                    await writer.drain()
            writer.close()

        async def forward(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            up_reader, up_writer = await asyncio.open_connection(host, int(port))
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.gather(pump(reader, up_writer), pump(up_reader, writer))

        listener = await asyncio.start_unix_server(forward, path=str(self.path))
        self.ready()
        assert self.stopping is not None
        async with listener:
            await self.stopping.wait()


# -- the bot's side (a process of its own) ------------------------------------------------
def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * pct / 100))]


def views_us(targets: dict[str, str], game_id: str, calls: int) -> dict[str, list[float]]:
    """GetView round trips to each target, in alternated blocks."""
    clients = {name: CuriaClient(target) for name, target in targets.items()}
    times: dict[str, list[float]] = {name: [] for name in targets}
    for client in clients.values():
        client.view(game_id)  # connected
    for _ in range(10):
        for name, client in clients.items():
            for _ in range(calls // 10):
                start = time.perf_counter()
                client.view(game_id)
                times[name].append((time.perf_counter() - start) * 1e6)
    for client in clients.values():
        client.close()
    return times


def refused_us(target: str, calls: int) -> list[float]:
    """Round trips of a CreateGame the door refuses (PERMISSION_DENIED)."""
    times = []
    with CuriaClient(target) as client:
        for _ in range(calls):
            start = time.perf_counter()
            try:
                client.create_game(GAME, VARIANT, 2)
            except grpc.RpcError as error:
                assert error.code() == grpc.StatusCode.PERMISSION_DENIED, error
            else:
                raise AssertionError("the door let a CreateGame through")
            times.append((time.perf_counter() - start) * 1e6)
    return times


def play_game_us(target: str, game_id: str, token: str) -> list[float]:
    """One game of seat 0 on a Play stream (`client.play`): microseconds from each decision
    to the next turn (first legal decision each time). Timed and answered in the stream's
    reader, as each message arrives."""
    times: list[float] = []
    sent: list[float] = []
    over = threading.Event()

    def on_message(reply: pb.PlayResponse | PlayError) -> None:
        if isinstance(reply, PlayError) or reply.WhichOneof("kind") == "game_ended":
            over.set()
        if isinstance(reply, PlayError) or reply.WhichOneof("kind") != "turn":
            return
        if sent:
            times.append((time.perf_counter() - sent[-1]) * 1e6)
        turn = reply.turn
        sent.append(time.perf_counter())
        stream.send(decision_request(game_id, turn.version, turn.legal_decisions[0].notation,
                                     uuid.uuid4().hex, turn.lineage))

    hello = pb.PlayHello(game_id=game_id, client="bench")
    with PlayStream(target, token, hello, on_message, give_up_s=0.0) as stream:
        if not over.wait(120):
            raise TimeoutError(f"game {game_id} not over in 120 s")
    return times


def bot_side(task: dict[str, Any]) -> dict[str, Any]:
    """What the bot process measures (`--bot-side JSON`)."""
    if task["kind"] == "calls":
        times = views_us(task["targets"], task["game_id"], task["calls"])
        times["refused"] = refused_us(task["targets"]["door"], task["calls"] // 10)
        return times
    if task["kind"] == "play":
        result: dict[str, list[float]] = {name: [] for name in task["games"]}
        for index in range(len(task["games"]["direct"])):  # alternated games
            for name, games in task["games"].items():
                result[name] += play_game_us(task["targets"][name], *games[index])
        return result
    with CuriaClient(task["target"]) as client:  # "rate"
        client.view(task["game_id"])
        count, end = 0, time.monotonic() + task["seconds"]
        while time.monotonic() < end:
            client.view(task["game_id"])
            count += 1
    return {"count": count}


def ask_bot(task: dict[str, Any]) -> dict[str, Any]:
    done = subprocess.run([sys.executable, __file__, "--bot-side", json.dumps(task)],
                          capture_output=True, text=True, cwd=REPO, check=True)
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def rate(target: str, game_id: str, bots: int, seconds: float) -> float:
    """GetView calls per second of `bots` bot processes at once."""
    task = json.dumps({"kind": "rate", "target": target, "game_id": game_id,
                       "seconds": seconds})
    processes = [subprocess.Popen([sys.executable, __file__, "--bot-side", task],
                                  stdout=subprocess.PIPE, text=True, cwd=REPO)
                 for _ in range(bots)]
    counts: list[int] = [json.loads(process.communicate()[0])["count"]
                         for process in processes]
    return sum(counts) / seconds


# -- the arena's side ---------------------------------------------------------------------
def service_figures(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as data, EmbeddedRedis(Path(data)) as redis:
        server = BackgroundServer(redis.url)
        address = f"127.0.0.1:{server.start()}"
        pipe = BytePipe(address, Path(data) / "pipe.sock")
        pipe.start_thread(timeout=10)
        try:
            with service_door(address) as door, CuriaClient(address) as direct:
                targets = {"direct": address, "pipe": f"unix:{pipe.path}",
                           "door": f"unix:{door}"}
                report(args, targets, direct)
        finally:
            pipe.stop()
            server.stop()


def report(args: argparse.Namespace, targets: dict[str, str], client: CuriaClient) -> None:
    game_id = client.create_game(GAME, VARIANT, 2).game_id
    times = ask_bot({"kind": "calls", "targets": targets, "game_id": game_id,
                     "calls": args.calls})
    direct, pipe, door = (statistics.median(times[n]) for n in ("direct", "pipe", "door"))
    print(f"GetView round trip, median of {args.calls} (p99): direct TCP {direct:.0f} us "
          f"({percentile(times['direct'], 99):.0f}), through the service door "
          f"{door:.0f} us ({percentile(times['door'], 99):.0f}): +{door - direct:.0f} us per "
          f"call; a byte pipe (the door before it read calls) {pipe:.0f} us "
          f"({percentile(times['pipe'], 99):.0f}): +{pipe - direct:.0f} us")
    print(f"CreateGame refused at the door (PERMISSION_DENIED), median of "
          f"{len(times['refused'])}: {statistics.median(times['refused']):.0f} us")

    games: dict[str, list[tuple[str, str]]] = {"direct": [], "door": []}
    for _ in range(max(1, args.decisions // 25)):
        for name in games:
            game = client.create_game(GAME, VARIANT, 2)
            client.resign(game.game_id, game.seats[1].token, "bench")
            games[name].append((game.game_id, game.seats[0].token))
    played = ask_bot({"kind": "play", "targets": targets, "games": games})
    straight, through = (statistics.median(played[n]) for n in ("direct", "door"))
    print(f"Play stream, decision to next turn, median of {len(played['direct'])} / "
          f"{len(played['door'])}: direct TCP {straight:.0f} us, through the service door "
          f"{through:.0f} us (+{through - straight:.0f} us per decision)")

    rates = {name: 0.0 for name in ("direct", "door")}
    for _ in range(2):  # alternated halves
        for name in rates:
            rates[name] += rate(targets[name], game_id, args.bots, args.seconds / 2) / 2
    print(f"GetView calls/s, {args.bots} bot processes at once: direct TCP "
          f"{rates['direct']:.0f}, through one service door {rates['door']:.0f} "
          f"({rates['door'] / rates['direct']:.0%})")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--decisions", type=int, default=500,
                        help="Play stream decisions each way (about; whole games)")
    parser.add_argument("--bots", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=10.0,
                        help="seconds of calls by --bots processes, each way")
    parser.add_argument("--bot-side", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bot_side:
        print(json.dumps(bot_side(json.loads(args.bot_side))))
        return 0
    if (reason := unavailable_reason()) is not None:
        print(f"no sandbox on this host: {reason}")
        return 1
    plain, boxed = starts(args.starts)
    print(f"bot start to first line, median of {args.starts}: unsandboxed "
          f"{statistics.median(plain):.1f} ms, sandboxed {statistics.median(boxed):.1f} ms "
          f"(+{statistics.median(boxed) - statistics.median(plain):.1f} ms per bot per game)")
    service_figures(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
