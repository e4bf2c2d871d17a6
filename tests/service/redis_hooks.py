"""redis-py clients for the store tests that let another client act on Redis right after
one of the store's commands is answered and before the store reads the answer: the worst
moment, made certain (Redis fills up, another server writes first, a sweeper drops an
index entry) instead of hoped for in a race."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import redis.asyncio as aioredis

#: Run after a command's reply is read; returns True once it has acted (it is then
#: disarmed), False to wait for a later reply.
Hook = Callable[[tuple[Any, ...]], bool]


class HookedRedis(aioredis.Redis):
    """One Redis; `after` sees each command (its arguments) once it is answered."""

    after: Hook | None = None

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        result = await super().execute_command(*args, **options)
        if self.after is not None and self.after(args):
            self.after = None
        return result


class HookedCluster(aioredis.RedisCluster):
    """A Redis Cluster; `after` sees each command (its arguments) once it is answered."""

    after: Hook | None = None

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        result = await super().execute_command(*args, **kwargs)
        if self.after is not None and self.after(args):
            self.after = None
        return result
