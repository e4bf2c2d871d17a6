"""A create happens whole or not at all: a game is never left out of the live-games set
(`curia:active`, which the live-games cap counts) and the deadlines index (which the
sweeper follows to time out and expire games), on one real redis-server and on a real
local Redis Cluster, whose indexes live in other slots than the game."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import redis.asyncio as aioredis
from redis.crc import key_slot

from service.keeper import GameKeeper
from service.redis_link import out_of_memory
from service.redis_server import DEFAULT_MAXMEMORY, EmbeddedCluster, EmbeddedRedis
from service.store import ACTIVE, DEADLINES, DEFAULT_IDLE_TTL, GameStore, keys, now_ms
from tests.service.redis_hooks import HookedCluster, HookedRedis

#: A deadline far enough ahead that no sweep of these tests comes to it.
LATER = 10**15


async def create(store: GameStore, game_id: str, deadline: int = LATER) -> None:
    await store.create(game_id, {"num_seats": 2}, b"state", "in_progress",
                       {0: "a" * 64, 1: "b" * 64}, deadline, {})


async def refused_for_memory(store: GameStore, game_id: str, deadline: int = LATER) -> None:
    """The create is refused: Redis is full (maxmemory, `noeviction`)."""
    with pytest.raises(redis.exceptions.ResponseError) as refused:
        await create(store, game_id, deadline)
    assert out_of_memory(refused.value), refused.value


def indexed(admin: Any, game_id: str) -> tuple[bool, float | None]:
    """Whether the game is in the live-games set, and its score in the deadlines index."""
    return bool(admin.sismember(ACTIVE, game_id)), admin.zscore(DEADLINES, game_id)


def first_look(admin: Any, game_id: str) -> float:
    """When the sweeper must first look at a game created with deadline LATER: once it
    has been idle too long (GameStore.next_look, the default idle limit)."""
    return float(int(admin.hget(keys(game_id)[0], "active_ms")) + DEFAULT_IDLE_TTL * 1000)


def test_a_create_is_indexed_even_if_redis_fills_up_right_after_it(tmp_path: Path) -> None:
    """Redis reaches its maxmemory (`noeviction`) right after it answered the create's
    first command: the game and its index entries were written in that command, so the
    create succeeds and the game is in both indexes. The next create, on the full Redis,
    is refused and writes nothing: no game, no index entry."""
    with EmbeddedRedis(tmp_path / "redis") as server:
        admin = redis.Redis.from_url(server.url)

        def fill(command: tuple[Any, ...]) -> bool:
            admin.config_set("maxmemory", 1)  # every write that needs memory refused
            return True

        async def body() -> None:
            client = HookedRedis.from_pool(aioredis.ConnectionPool.from_url(server.url))
            store = GameStore(client)
            try:
                await create(store, "warm")  # the scripts loaded, a connection open
                client.after = fill
                await create(store, "kept")
                assert client.after is None, "Redis filled up during the create"
                await refused_for_memory(store, "refused")
            finally:
                await store.close()

        try:
            asyncio.run(body())
            game_key = keys("kept")[0]
            assert admin.hget(game_key, "status") == b"in_progress"
            assert admin.ttl(game_key) > 0
            assert indexed(admin, "kept") == (True, first_look(admin, "kept"))
            assert not admin.exists(keys("refused")[0])
            assert indexed(admin, "refused") == (False, None)
        finally:
            admin.config_set("maxmemory", DEFAULT_MAXMEMORY)
            admin.close()


@pytest.mark.parametrize("index", [DEADLINES, ACTIVE])
def test_an_index_that_cannot_be_written_leaves_no_game(tmp_path: Path, index: str) -> None:
    """A store edited by hand, an index key of another type: the create's index write
    fails (WRONGTYPE), and no game is written, so none is left out of the indexes."""
    with EmbeddedRedis(tmp_path / "redis") as server:
        admin = redis.Redis.from_url(server.url)
        admin.set(index, "not an index")

        async def body() -> None:
            store = GameStore(aioredis.Redis.from_url(server.url))
            try:
                with pytest.raises(redis.exceptions.ResponseError, match="WRONGTYPE"):
                    await create(store, "g")
            finally:
                await store.close()

        try:
            asyncio.run(body())
            assert not admin.exists(keys("g")[0])
            if index == DEADLINES:
                assert not admin.sismember(ACTIVE, "g")
        finally:
            admin.close()


# -- a Redis Cluster ------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedCluster]:
    with EmbeddedCluster(Path(tmp_path_factory.mktemp("cluster"))) as running:
        yield running


def node_of(cluster: EmbeddedCluster, key: str) -> int:
    """The port of the master that holds `key`'s slot."""
    slot = key_slot(key.encode())
    with redis.Redis(host="127.0.0.1", port=cluster.nodes[0].port) as node:
        for start, end, master, *_ in node.execute_command("CLUSTER", "SLOTS"):
            if start <= slot <= end:
                return int(master[1])
    raise AssertionError(f"no master holds slot {slot}")


def game_on(cluster: EmbeddedCluster, prefix: str, avoid: set[int]) -> tuple[str, int]:
    """A game id whose keys live on a master other than those in `avoid`; that port."""
    for i in range(1000):
        game_id = f"{prefix}-{i}"
        port = node_of(cluster, keys(game_id)[0])
        if port not in avoid:
            return game_id, port
    raise AssertionError("every game id landed on the masters to avoid")


def cluster_store(cluster: EmbeddedCluster) -> tuple[HookedCluster, GameStore]:
    client = HookedCluster.from_url(f"redis://127.0.0.1:{cluster.nodes[0].port}")
    return client, GameStore(client)


def full(port: int, maxmemory: int | str) -> None:
    with redis.Redis(host="127.0.0.1", port=port) as node:
        node.config_set("maxmemory", maxmemory)


def test_on_a_cluster_a_full_index_node_refuses_the_create_before_the_game(
        cluster: EmbeddedCluster) -> None:
    """The deadlines index's master is full: the create is refused and no game is written
    on the game's own master (which had room): the indexes are written first."""
    index_port = node_of(cluster, DEADLINES)
    game_id, _ = game_on(cluster, "index-full", {index_port})

    async def body() -> None:
        _, store = cluster_store(cluster)
        try:
            full(index_port, 1)
            await refused_for_memory(store, game_id)
        finally:
            full(index_port, DEFAULT_MAXMEMORY)
            await store.close()

    asyncio.run(body())
    with redis.RedisCluster(host="127.0.0.1", port=cluster.nodes[0].port) as admin:
        assert not admin.exists(keys(game_id)[0])
        assert indexed(admin, game_id) == (False, None)


def test_on_a_cluster_entries_of_a_game_never_written_are_dropped_by_the_sweeper(
        cluster: EmbeddedCluster) -> None:
    """The game's master is full: the create is refused after its index entries were
    written. They name no game: the sweeper drops them when they come due (here at once:
    the game's decision deadline had passed), giving its place among the live games back."""
    game_id, game_port = game_on(cluster, "game-full", {node_of(cluster, DEADLINES),
                                                        node_of(cluster, ACTIVE)})

    async def body() -> None:
        _, store = cluster_store(cluster)
        try:
            full(game_port, 1)
            try:
                await refused_for_memory(store, game_id, deadline=now_ms() - 1)
            finally:
                full(game_port, DEFAULT_MAXMEMORY)
            assert await store.load(game_id) is None
            assert game_id in await store.due(now_ms(), limit=10_000)
            assert await store.redis.sismember(ACTIVE, game_id)
            await GameKeeper(store).sweep_timeouts()
            assert game_id not in await store.due(now_ms(), limit=10_000)
            assert not await store.redis.sismember(ACTIVE, game_id)
        finally:
            await store.close()

    asyncio.run(body())


def test_on_a_cluster_a_create_is_indexed_even_if_a_sweeper_dropped_its_entries_meanwhile(
        cluster: EmbeddedCluster) -> None:
    """A sweeper on another server finds the new game's index entry before the game is
    written, sees no game and drops the entries: the create writes them again after the
    game, so the game it made is in both indexes."""
    admin = redis.RedisCluster(host="127.0.0.1", port=cluster.nodes[0].port)
    game_id = "raced"

    def sweeper(command: tuple[Any, ...]) -> bool:
        if admin.zscore(DEADLINES, game_id) is None or admin.exists(keys(game_id)[0]):
            return False
        admin.srem(ACTIVE, game_id)
        admin.zrem(DEADLINES, game_id)
        return True

    async def body() -> None:
        client, store = cluster_store(cluster)
        try:
            client.after = sweeper
            await create(store, game_id)
            assert client.after is None, "the sweeper dropped the entries"
        finally:
            await store.close()

    try:
        asyncio.run(body())
        assert admin.hget(keys(game_id)[0], "status") == b"in_progress"
        assert indexed(admin, game_id) == (True, first_look(admin, game_id))
    finally:
        admin.close()


def test_a_create_whose_reply_is_lost_keeps_its_place_under_the_live_games_cap(
        tmp_path: Path) -> None:
    """The create script ran but its reply was lost (the connection dropped right after):
    the keeper's clean-up must not take the game, which exists, out of the live-games
    set (the cap would then count one game too few, and the sweeper never see it)."""
    from curia_api.v1 import game_service_pb2 as pb
    from service.access import AccessPolicy

    with EmbeddedRedis(tmp_path / "redis") as server:
        admin = redis.Redis.from_url(server.url)

        def drop_reply(command: tuple[Any, ...]) -> bool:
            if command[0] in ("EVALSHA", "EVAL") and any(
                    str(word).endswith(":game") for word in command):
                raise redis.exceptions.ConnectionError("the reply was lost")
            return False

        async def body() -> str:
            client = HookedRedis.from_pool(aioredis.ConnectionPool.from_url(server.url))
            store = GameStore(client)
            keeper = GameKeeper(store, AccessPolicy(max_live_games=10))
            client.after = drop_reply
            try:
                with pytest.raises(Exception, match="lost|unavailable|away"):
                    await keeper.create(pb.CreateGameRequest(game="leges", num_seats=2))
            finally:
                await store.close()
            (game_id,) = [key.decode().split("{")[1].split("}")[0]
                          for key in admin.keys("curia:{*}:game")]
            return game_id

        try:
            game_id = asyncio.run(body())
            assert admin.sismember(ACTIVE, game_id), "a stored game left the live-games set"
        finally:
            admin.close()
