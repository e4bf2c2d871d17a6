"""Cancellations that are never lost: a stream whose client went away ends for certain.

`install()`: a cancelled task stays cancelled while redis-py sends a command (Python 3.11).

redis-py's asyncio connection sends each command under `asyncio.wait_for` when it has a
socket timeout, and Python 3.11's `wait_for` returns the result instead of raising when
the caller is cancelled just as the send completes (CPython gh-86296, fixed in 3.12). The
cancellation is then lost: a stream handler whose client went away carries on waiting for
the next version, holding its slot and its Redis reads for as long as the game lasts (the
web gateway's event streams, a WatchGame or Play stream). `install()` makes the send wait
under `asyncio.timeout`, which keeps the cancellation; on Python 3.12 and later it does
nothing.

`for_certain(work)`: the defence in depth every stream's work runs under, should another
library lose a cancel: the work is cancelled again until it ends.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Coroutine, Iterable
from typing import Any

import redis.exceptions as redis_errors
from redis.asyncio.connection import AbstractConnection


async def send_packed_command(self: AbstractConnection, command: bytes | str | Iterable[bytes],
                              check_health: bool = True) -> None:
    """redis-py's `send_packed_command`, its time limit under `asyncio.timeout`."""
    if not self.is_connected:
        await self.connect_check_health(check_health=False)
    if check_health:
        await self.check_health()  # type: ignore[no-untyped-call]
    if isinstance(command, str):
        command = command.encode()
    if isinstance(command, bytes):
        command = [command]
    try:
        async with asyncio.timeout(self.socket_timeout or None):
            await self._send_packed_command(command)
    except TimeoutError:
        await self.disconnect(nowait=True)
        raise redis_errors.TimeoutError("Timeout writing to socket") from None
    except OSError as error:
        await self.disconnect(nowait=True)
        number, message = (("UNKNOWN", error.args[0]) if len(error.args) == 1
                           else error.args[:2])
        raise redis_errors.ConnectionError(
            f"Error {number} while writing to socket. {message}.") from error
    except BaseException:
        await self.disconnect(nowait=True)  # a half-sent command: the connection is lost
        raise


def install() -> None:
    """Patch redis-py's asyncio connections where `asyncio.wait_for` loses cancellations."""
    if sys.version_info < (3, 12) and hasattr(AbstractConnection, "_send_packed_command"):
        AbstractConnection.send_packed_command = send_packed_command  # type: ignore[method-assign]


#: Seconds between two cancels of a task that is still running (`for_certain`).
CANCEL_AGAIN_S = 0.1


async def for_certain(work: Coroutine[Any, Any, None]) -> None:
    """Await `work` in a task of its own that ends for certain when the caller is
    cancelled: it is cancelled again every CANCEL_AGAIN_S until it ends."""
    task = asyncio.ensure_future(work)
    try:
        await asyncio.shield(task)
    except asyncio.CancelledError:
        while not task.done():
            task.cancel()
            await asyncio.wait((task,), timeout=CANCEL_AGAIN_S)
        if not task.cancelled():
            task.exception()  # retrieved: the call is over, whatever the work raised
        raise
