"""The ceiling of the stack: a trivial grpc.aio service doing one Redis GET + SET of 2 KB
per call, and answering the 2 KB read (about a view's size).

The same server library as the game service; Redis through redis-py (the reference the
full service is measured against by benchmarks/service_bench.py and cpu_per_decision.py)
or, with --link, through the service's own hot-path connection (service/redis_link.py).
    python3 benchmarks/bare_service.py --port 50300 --redis-url redis://127.0.0.1:6379/0
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from pathlib import Path

import grpc
import redis.asyncio as aioredis

if __package__ in (None, ""):  # run as a script: the repository's packages are importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.redis_link import RedisLink  # noqa: E402

METHOD = "/curia.bench.Bare/Call"
VALUE = bytes(range(256)) * 8  # 2 KB


async def serve(port: int, redis_url: str, link: bool = False) -> None:
    """Serve until SIGINT/SIGTERM; Redis through redis-py, or through the service's own
    pipelined connection (service/redis_link.py) with `link`."""
    client = aioredis.from_url(redis_url)
    fast = RedisLink.for_url(redis_url, 10.0) if link else None

    async def call(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        key = b"bench:" + request[:32]
        if fast is not None:
            value = await fast.execute("GET", key)
            await fast.execute("SET", key, VALUE)
        else:
            value = await client.get(key)
            await client.set(key, VALUE)
        return value or b""

    handler = grpc.method_handlers_generic_handler("curia.bench.Bare", {
        "Call": grpc.unary_unary_rpc_method_handler(
            call, request_deserializer=None, response_serializer=None)})
    await serve_until_stopped(handler, port)
    await client.aclose()
    if fast is not None:
        await fast.close()


async def serve_until_stopped(handler: grpc.GenericRpcHandler, port: int) -> None:
    """A grpc.aio server of `handler` on 127.0.0.1:`port` until SIGINT or SIGTERM."""
    server = grpc.aio.server(options=[("grpc.so_reuseport", 1)])
    server.add_generic_rpc_handlers((handler,))
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    print("ready", flush=True)
    await stop.wait()
    await server.stop(0.5)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--redis-url", default=os.environ.get("CURIA_REDIS_URL"),
                        help="the Redis (default $CURIA_REDIS_URL, where a password "
                             "belongs: not on the command line)")
    parser.add_argument("--link", action="store_true",
                        help="Redis through service/redis_link.py instead of redis-py")
    options = parser.parse_args()
    if not options.redis_url:
        parser.error("the Redis: $CURIA_REDIS_URL or --redis-url")
    asyncio.run(serve(options.port, options.redis_url, options.link))
