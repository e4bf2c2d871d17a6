"""The hot path's pipelined Redis connection (service/redis_link.py), against real
redis-server processes: replies in order, redis-py's errors, reconnection, time-outs."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import redis.exceptions as redis_errors
from redis import Redis

from service.redis_link import RedisLink, out_of_memory
from service.redis_server import EmbeddedRedis

SCRIPT = "return {ARGV[1], redis.call('INCR', KEYS[1])}"
#: Reads, then writes: refused at its first write when Redis is full.
WRITE_SCRIPT = ("if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end "
                "redis.call('HSET', KEYS[1], 'a', ARGV[1]) return 1")


def with_link(url: str, body: Callable[[RedisLink], Awaitable[Any]],
              timeout: float = 5.0) -> Any:
    async def run() -> Any:
        link = RedisLink.for_url(url, timeout)
        assert link is not None
        try:
            return await body(link)
        finally:
            await link.close()
    return asyncio.run(run())


def test_only_plain_redis_urls_get_a_link() -> None:
    assert RedisLink.for_url("redis://:pw@127.0.0.1:6390/2", 1.0) is not None
    assert RedisLink.for_url("rediss://h:6390", 1.0) is not None
    assert RedisLink.for_url("unix:///tmp/redis.sock", 1.0) is None
    assert RedisLink.for_url("redis://h:6390/0?socket_keepalive=true", 1.0) is None
    link = RedisLink.for_url("redis://u:pw@10.0.0.1:6390/3", 1.0)
    assert link is not None
    assert (link.host, link.port, link.username, link.password, link.db) == (
        "10.0.0.1", 6390, "u", "pw", 3)


def test_many_commands_in_flight_each_get_their_own_reply(redis_url: str) -> None:
    async def body(link: RedisLink) -> None:
        await asyncio.gather(*(link.execute("SET", f"link:{i}", f"v{i}") for i in range(200)))
        values = await asyncio.gather(*(link.execute("GET", f"link:{i}")
                                        for i in range(200)))
        assert values == [f"v{i}".encode() for i in range(200)]
        assert await link.hgetall("link:missing") == {}
        await link.execute("HSET", "link:h", "a", 1, "b", b"\x00\xff")
        assert await link.hgetall("link:h") == {b"a": b"1", b"b": b"\x00\xff"}
    with_link(redis_url, body)


def test_commands_sent_together_answer_in_order_and_an_error_among_them_raises(
        redis_url: str) -> None:
    async def body(link: RedisLink) -> None:
        await link.execute("SET", "link:a", "1")
        assert await link.execute_all([("GET", "link:a"), ("INCR", "link:a"),
                                       ("GET", "link:a")]) == [b"1", 2, b"2"]
        with pytest.raises(redis_errors.ResponseError):
            await link.execute_all([("INCR", "link:a"), ("NO-SUCH-COMMAND",),
                                    ("INCR", "link:a")])
        assert await link.execute("GET", "link:a") == b"4"  # all three ran, in step
    with_link(redis_url, body)


def test_the_commands_of_one_turn_of_the_loop_go_out_in_one_write(redis_url: str) -> None:
    """Many requests' commands, sent while the loop runs its ready callbacks, cost one
    system call, and each still gets its own reply."""
    async def body(link: RedisLink) -> None:
        await link.execute("PING")  # connected
        assert link.replies is not None and link.replies.transport is not None
        transport = link.replies.transport
        written: list[bytes] = []
        write = transport.write

        def counted(data: bytes) -> None:
            written.append(bytes(data))
            write(data)
        transport.write = counted  # type: ignore[method-assign]
        replies = await asyncio.gather(*(link.execute("INCR", "link:turn") for _ in range(50)),
                                       link.execute_all([("GET", "link:turn")] * 2))
        assert replies[:50] == list(range(1, 51))
        assert replies[50] == [b"50", b"50"]
        assert len(written) == 1 and written[0].count(b"INCR") == 50
        assert await link.execute("GET", "link:turn") == b"50"
        assert len(written) == 2  # a command sent alone is written alone
    with_link(redis_url, body)


def test_a_cancelled_command_leaves_the_next_reply_to_the_next_command(
        redis_url: str) -> None:
    async def body(link: RedisLink) -> None:
        await link.execute("SET", "link:slow", "x")
        waiting = asyncio.ensure_future(link.execute("BLPOP", "link:empty-list", 0.3))
        await asyncio.sleep(0.05)
        waiting.cancel()
        assert await link.execute("GET", "link:slow") == b"x"  # not BLPOP's nil
    with_link(redis_url, body)


def test_error_replies_raise_what_redis_py_raises_and_scripts_load_themselves(
        redis_url: str) -> None:
    async def body(link: RedisLink) -> None:
        with pytest.raises(redis_errors.ResponseError, match="unknown command"):
            await link.execute("NO-SUCH-COMMAND")
        sha = link.script(SCRIPT)
        await link.execute("SCRIPT", "FLUSH")  # as after a Redis restart without its cache
        with pytest.raises(redis_errors.NoScriptError):
            await link.execute("EVALSHA", sha, 1, "link:n", "a")
        first = await link.evalsha(sha, ["link:n"], ["a"])
        second = await link.evalsha(sha, ["link:n"], ["b"])
        assert (first[0], second[0], second[1] - first[1]) == (b"a", b"b", 1)
        assert await link.execute("PING") == b"PONG"  # the link still serves
    with_link(redis_url, body)


def test_a_full_store_raises_out_of_memory(tmp_path: Path) -> None:
    """A plain OOM reply, and a script's refused write: Redis 6.2 wraps that one in a
    script error ("ERR Error running script ... -OOM command not allowed ..."), which
    redis-py raises as a plain ResponseError; the link raises OutOfMemoryError for both,
    and `out_of_memory` recognises redis-py's forms too."""
    with EmbeddedRedis(tmp_path, maxmemory="2mb") as server:
        async def body(link: RedisLink) -> None:
            with pytest.raises(redis_errors.OutOfMemoryError) as plain:
                for i in range(100_000):  # small values: the store itself is full
                    await link.execute("SET", f"small:{i}", b"x" * 1000)
            assert out_of_memory(plain.value)
            # just at its limit, Redis refuses a command or not by its size: no doubt left
            info = (await link.execute("INFO", "memory")).decode()
            used = int(info.split("used_memory:", 1)[1].split()[0])
            await link.execute("CONFIG", "SET", "maxmemory", used - 256 * 1024)
            with pytest.raises(redis_errors.OutOfMemoryError):
                await link.evalsha(link.script(WRITE_SCRIPT), ["link:full"], ["v"])
            assert await link.execute("EXISTS", "link:full") == 0  # nothing written
        with_link(server.url, body)
        with Redis.from_url(server.url) as client:
            with pytest.raises(redis_errors.ResponseError) as scripted:
                client.register_script(WRITE_SCRIPT)(keys=["link:full"], args=["v"])
            assert out_of_memory(scripted.value)
            assert not out_of_memory(redis_errors.ResponseError("unknown command 'OOMX'"))


def test_a_wrong_password_is_an_authentication_error(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path) as redis:
        wrong = redis.url.replace(f":{redis.password}@", ":wrong@")
        async def body(link: RedisLink) -> None:
            with pytest.raises(redis_errors.AuthenticationError):
                await link.execute("PING")
        with_link(wrong, body)


def test_after_redis_restarts_the_next_command_connects_again(tmp_path: Path) -> None:
    redis = EmbeddedRedis(tmp_path).start()
    try:
        async def body(link: RedisLink) -> None:
            await link.execute("SET", "k", "before")
            port = redis.port
            redis.stop()
            with pytest.raises(redis_errors.ConnectionError):
                await link.execute("GET", "k")
            restarted = EmbeddedRedis(tmp_path, port=port).start()
            try:
                assert await link.execute("GET", "k") == b"before"  # kept by its file
            finally:
                restarted.stop()
        with_link(redis.url, body)
    finally:
        redis.stop()


def test_a_redis_that_stops_answering_times_out_every_command_in_flight(
        tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path) as redis:
        assert redis.process is not None
        pid = redis.process.pid

        async def body(link: RedisLink) -> None:
            await link.execute("PING")
            os.kill(pid, signal.SIGSTOP)
            try:
                started = asyncio.get_running_loop().time()
                results = await asyncio.gather(*(link.execute("PING") for _ in range(3)),
                                               return_exceptions=True)
                waited = asyncio.get_running_loop().time() - started
            finally:
                os.kill(pid, signal.SIGCONT)
            assert all(isinstance(r, redis_errors.TimeoutError) for r in results), results
            assert 1.0 <= waited < 3.0
            assert await link.execute("PING") == b"PONG"  # a new connection
        with_link(redis.url, body, timeout=1.0)
