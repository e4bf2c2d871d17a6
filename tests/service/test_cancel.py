"""A cancelled stream's work ends for certain (service.cancellation): redis-py's send keeps
a cancel on Python 3.11 (its `asyncio.wait_for` lost one that came as the send finished,
and the cancelled stream of an idle game then waited for ever), and `for_certain` ends
the work even where a library swallows the cancel."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
import redis.asyncio as aioredis

from service.cancellation import for_certain, install
from tests.timing import patient


async def swallows_one_cancel(reached: asyncio.Event) -> None:
    reached.set()
    with contextlib.suppress(asyncio.CancelledError):  # as the library did: lost
        await asyncio.sleep(3600)
    await asyncio.sleep(3600)  # the next wait of the stream (a quiet game: for ever)


async def cancelled_soon(work: asyncio.Future[None], reached: asyncio.Event) -> bool:
    """Whether `work`, cancelled once it is waiting, ends cancelled (within a minute)."""
    await reached.wait()
    work.cancel()
    done, _ = await asyncio.wait((work,), timeout=60)
    return bool(done) and work.cancelled()


def test_a_cancel_the_work_swallows_still_ends_it() -> None:
    async def scenario() -> bool:
        reached = asyncio.Event()
        work = asyncio.ensure_future(for_certain(swallows_one_cancel(reached)))
        return await cancelled_soon(work, reached)
    assert asyncio.run(scenario())


def test_without_it_the_swallowed_cancel_is_lost() -> None:
    """The failure `for_certain` prevents, shown: the same work awaited directly runs on."""
    async def scenario() -> bool:
        reached = asyncio.Event()
        work = asyncio.ensure_future(swallows_one_cancel(reached))
        await reached.wait()
        work.cancel()
        done, _ = await asyncio.wait((work,), timeout=0.5)
        work.cancel()  # (the test's own clean-up: a second cancel ends it)
        with pytest.raises(asyncio.CancelledError):
            await work
        return not done
    assert asyncio.run(scenario())


def test_the_works_own_error_comes_through() -> None:
    async def fails() -> None:
        raise ValueError("the store said no")
    with pytest.raises(ValueError, match="the store said no"):
        asyncio.run(for_certain(fails()))


#: Blocking reads cancelled at once, in one go: the lost cancel came about one in 64.
READERS = 64


async def readers_left_running(redis_url: str, rounds: int) -> int:
    """How many of READERS blocking XREADs (socket timeout set, as the service's clients
    have one) are still running a moment after each was cancelled as it sent its command;
    summed over `rounds`."""
    left = 0
    for _ in range(rounds):
        client = aioredis.from_url(redis_url, socket_timeout=30, max_connections=READERS)
        await client.ping()
        reads = [asyncio.ensure_future(client.xread({"curia:test:quiet": "0-1"},
                                                    block=int(patient(20) * 1000)))
                 for _ in range(READERS)]
        await asyncio.sleep(0)  # each read is sending its command
        for read in reads:
            read.cancel()
        await asyncio.wait(reads, timeout=patient(2))
        left += sum(not read.done() for read in reads)
        for read in reads:
            read.cancel()  # (the test's own clean-up: a second cancel ends a stuck one)
        await asyncio.gather(*reads, return_exceptions=True)
        await client.aclose()
    return left


def test_a_redis_command_cancelled_as_it_is_sent_stays_cancelled(redis_url: str) -> None:
    """Without `install()`, one read in a round or so was still running (and would have
    returned its reply as if never cancelled)."""
    install()
    assert asyncio.run(readers_left_running(redis_url, rounds=10)) == 0
