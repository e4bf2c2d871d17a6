"""The ceiling of the stack: a trivial grpc.aio service doing one Redis GET + SET of 2 KB
per call, and answering the 2 KB read (about a view's size).

Same server library, options and Redis client as the game service; used by
benchmarks/service_bench.py as the reference the full service is measured against.
    python3 benchmarks/bare_service.py --port 50300 --redis-url redis://127.0.0.1:6379/0
"""

from __future__ import annotations

import argparse
import asyncio
import signal

import grpc
import redis.asyncio as aioredis

METHOD = "/curia.bench.Bare/Call"
VALUE = bytes(range(256)) * 8  # 2 KB


async def serve(port: int, redis_url: str) -> None:
    client = aioredis.from_url(redis_url)

    async def call(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        key = b"bench:" + request[:32]
        value = await client.get(key)
        await client.set(key, VALUE)
        return value or b""

    handler = grpc.method_handlers_generic_handler("curia.bench.Bare", {
        "Call": grpc.unary_unary_rpc_method_handler(
            call, request_deserializer=None, response_serializer=None)})
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
    await client.aclose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--redis-url", required=True)
    options = parser.parse_args()
    asyncio.run(serve(options.port, options.redis_url))
