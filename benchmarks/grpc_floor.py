"""The floor gRPC alone puts under each client path: a grpc.aio server doing no work at
all, measured against the bare call of benchmarks/cpu_per_decision.py in one
alternating run.

Four shapes, each answering 2 KB (about a view) to a small request, on 32 concurrent
clients over 8 channels, the server process's CPU divided by what it served:

- the bare call: one unary call doing one Redis GET and SET (benchmarks/bare_service.py),
  the yardstick of cpu_per_decision.py;
- a unary call doing nothing;
- a stream exchange: one message in, one out, on a long-lived bidirectional stream (a
  Session call);
- a Play decision's shape: one message in, two out (the decision's acknowledgement and
  the next turn, sent to another bot's stream in the service; here to the same stream).

A client path cannot cost less than the gRPC messages it exchanges: Session exchanges
`--session-calls` messages each way per decision (GetView and SubmitDecision; measured
by `curia loadtest`), a Play decision one in and two out. The figures say how much of
the bare call each path's messages alone take, before any work of the service's.

    python3 benchmarks/grpc_floor.py [--seconds 8] [--rounds 3] [--session-calls 1.45]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import grpc

if __package__ in (None, ""):  # run as a script: the repository's packages are importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bare_service import serve_until_stopped  # noqa: E402
from benchmarks.cpu_per_decision import cpu_seconds, measure_bare, server  # noqa: E402
from service.redis_server import EmbeddedRedis, free_port  # noqa: E402

SERVICE = "curia.bench.Floor"
REPLY = bytes(range(256)) * 8  # 2 KB
CONCURRENCY, CHANNELS = 32, 8
#: shape -> replies per request ("unary": a unary call; the others: a stream's messages)
SHAPES = {"unary": 1, "exchange": 1, "play": 2}


async def serve(port: int) -> None:
    """The server doing nothing but answer, until SIGTERM or SIGINT."""
    async def call(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        return REPLY

    async def stream(requests: Any, context: grpc.aio.ServicerContext) -> None:
        async for request in requests:
            for _ in range(request[0]):
                await context.write(REPLY)

    handler = grpc.method_handlers_generic_handler(SERVICE, {
        "Call": grpc.unary_unary_rpc_method_handler(call),
        "Stream": grpc.stream_stream_rpc_method_handler(stream)})
    await serve_until_stopped(handler, port)


async def drive(target: str, shape: str, seconds: float) -> int:
    """Requests answered in `seconds` by CONCURRENCY clients of one shape."""
    channels = [grpc.aio.insecure_channel(target) for _ in range(CHANNELS)]
    deadline = time.perf_counter() + seconds
    replies = SHAPES[shape]
    served = 0

    async def unary_client(channel: grpc.aio.Channel) -> None:
        nonlocal served
        call = channel.unary_unary(f"/{SERVICE}/Call")
        while time.perf_counter() < deadline:
            await call(b"k", timeout=30)
            served += 1

    async def stream_client(channel: grpc.aio.Channel) -> None:
        nonlocal served
        call = channel.stream_stream(f"/{SERVICE}/Stream")()
        while time.perf_counter() < deadline:
            await call.write(bytes([replies]))
            for _ in range(replies):
                await call.read()
            served += 1
        await call.done_writing()

    client = unary_client if shape == "unary" else stream_client
    await asyncio.gather(*(client(channels[n % CHANNELS]) for n in range(CONCURRENCY)))
    for channel in channels:
        await channel.close()
    return served


def measure(shape: str, seconds: float) -> float:
    """The floor server's CPU µs per request of `shape`."""
    port = free_port()
    with server([sys.executable, __file__, "--serve", str(port)], port) as pid:
        before = cpu_seconds(pid)
        served = asyncio.run(drive(f"127.0.0.1:{port}", shape, seconds))
        return (cpu_seconds(pid) - before) / max(served, 1) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--session-calls", type=float, default=1.45,
                        help="Session messages each way per decision (default 1.45)")
    parser.add_argument("--serve", type=int, metavar="PORT", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.serve:
        asyncio.run(serve(options.serve))
        return
    ratios: dict[str, list[float]] = {"session": [], "play": [], "unary": []}
    with tempfile.TemporaryDirectory() as data, EmbeddedRedis(data) as redis:
        for n in range(1, options.rounds + 1):
            bare = measure_bare(redis.url, options.seconds, CONCURRENCY)["cpu_us_per_call"]
            unary, exchange, play = (measure(shape, options.seconds) for shape in SHAPES)
            session = exchange * options.session_calls
            for name, floor in (("session", session), ("play", play), ("unary", unary)):
                ratios[name].append(floor / bare)
            print(f"round {n}: bare call {bare} µs CPU; gRPC alone: unary call "
                  f"{unary:.0f} µs ({unary / bare:.2f}x), stream exchange {exchange:.0f} µs, "
                  f"Session decision ({options.session_calls:g} exchanges) {session:.0f} µs "
                  f"({session / bare:.2f}x), Play decision (1 in, 2 out) {play:.0f} µs "
                  f"({play / bare:.2f}x)", flush=True)
    print("median floor, x the bare call: " + ", ".join(
        f"{name} {statistics.median(values):.2f}x" for name, values in ratios.items()))


if __name__ == "__main__":
    main()
