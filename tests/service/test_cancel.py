"""A cancelled stream's work ends for certain (service.server.for_certain), even where a
library swallows the cancel (redis-py's blocking XREAD was seen to return an empty reply
instead: the cancelled WatchGame of an idle game then stayed open for ever)."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from service.server import for_certain


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
