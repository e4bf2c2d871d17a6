"""Games stored before lineages: no chain key (the secret of their lineages' keyed hash
chain), no lineage in their hash nor in their log. The first server to read one gives it
a random chain key, written by a script that keeps the one another server gave first;
every later read, on any server, uses that one; never a key derived from the public game
id (from which anyone could compute the lineages, and so the secret decisions they
hide). Play goes on normally, each decision applied once."""

from __future__ import annotations

import asyncio
import random
import re
import secrets
from typing import Any

import redis

from client.unary import CuriaClient
from service.store import GameStore, keys, next_lineage, record_entries
from tests.servers import ServiceProcess
from tests.service.gameplay import assert_contiguous, new_game, play_out, replay, step
from tests.service.redis_hooks import HookedRedis

CHAIN = re.compile(rb"[0-9a-f]{32}")


def to_legacy(r: redis.Redis, game_id: str) -> None:
    """Rewrite a game in the layout from before lineages, in one transaction: its hash
    without chain key nor lineage, its log entries without lineage nor parent."""
    game_key, log_key, _ = keys(game_id)
    rows = r.xrange(log_key)
    ttl = r.ttl(log_key)
    with r.pipeline(transaction=True) as pipe:
        pipe.hdel(game_key, "chain", "lineage")
        if rows:
            pipe.delete(log_key)
            for entry_id, fields in rows:
                pipe.xadd(log_key, {k: v for k, v in fields.items()
                                    if k not in (b"lineage", b"parent")}, id=entry_id)
            pipe.expire(log_key, ttl)
        pipe.execute()


def derived_from(game_id: str) -> set[bytes]:
    """Chain keys anybody could compute from the game id."""
    return {game_id.encode(), game_id.encode().hex().encode(), b""}


def test_a_legacy_game_gets_a_random_chain_key_on_first_read_and_plays_on(
        client: CuriaClient, redis_url: str, service_process: type[ServiceProcess]) -> None:
    """A game played to version 4, rewritten in the legacy layout, is read by a server
    that never saw it: the read writes a chain key of 128 random bits. The next decision's
    lineage is keyed by it (not by the game id); a retry of that decision is a duplicate;
    the game plays to its end with the key unchanged, and its record replays."""
    r = redis.Redis.from_url(redis_url)
    game = new_game(client, seed=61)
    rng = random.Random(61)
    for _ in range(4):
        step(client, game, rng)
    to_legacy(r, game.game_id)
    game_key, log_key, _ = keys(game.game_id)
    assert r.hget(game_key, "chain") is None

    other = service_process(redis_url)  # a server that never read the game
    with CuriaClient(other.address) as b:
        before = b.view(game.game_id)  # the first read
        assert (before.version, before.lineage) == (4, "")
        chain = r.hget(game_key, "chain")
        assert chain is not None and CHAIN.fullmatch(chain), chain
        assert chain not in derived_from(game.game_id)

        seat = before.to_move[0]
        choice = b.view(game.game_id, game.tokens[seat]).legal_decisions[0]
        done = b.submit(game.game_id, game.tokens[seat], 4, choice, request_id="legacy-1")
        again = b.submit(game.game_id, game.tokens[seat], 4, choice, request_id="legacy-1")
        assert (done.version, done.duplicate) == (5, False)
        assert (again.version, again.duplicate) == (5, True)
        assert b.view(game.game_id).version == 5, "the decision applied once"

        (_, entry), = r.xrange(log_key, "5-1", "5-1")
        assert entry[b"parent"] == b"" and entry[b"cause"] == b"seat"
        notation = entry[b"notation"].decode()
        assert entry[b"lineage"].decode() == done.view.lineage == next_lineage(
            chain, "", seat, notation, "seat")
        for key in derived_from(game.game_id):
            assert done.view.lineage != next_lineage(key, "", seat, notation, "seat")

        final = play_out(b, game, rng)
        assert r.hget(game_key, "chain") == chain, "the key is the game's for good"
        assert client.view(game.game_id).version == final.version  # the first server too
        record = b.record(game.game_id)
    assert_contiguous(record)
    assert len(record.decisions) == final.version
    assert replay(record) is not None
    r.close()


async def legacy_game(store: GameStore) -> str:
    """A game created by the store, then stripped of its chain key (the legacy layout)."""
    game_id = secrets.token_hex(16)
    await store.create(game_id, {"num_seats": 2}, b"state", "in_progress", {}, 0, {})
    await store.redis.hdel(keys(game_id)[0], "chain")
    return game_id


def test_the_key_is_random_and_kept_once_written(redis_url: str) -> None:
    """The same legacy game, read, put back in the legacy layout and read again, gets
    another key: it is drawn, not computed from anything the game holds. Once written it
    is kept, by every later read of every store."""

    async def body() -> None:
        store, other = GameStore.from_url(redis_url), GameStore.from_url(redis_url)
        try:
            game_id = await legacy_game(store)
            first = await store.load(game_id)
            assert first is not None and CHAIN.fullmatch(first.chain)
            for reader in (store, other):
                later = await reader.load(game_id)
                assert later is not None and later.chain == first.chain
            await store.redis.hdel(keys(game_id)[0], "chain")
            second = await other.load(game_id)
            assert second is not None and CHAIN.fullmatch(second.chain)
            assert second.chain != first.chain
            assert {first.chain, second.chain}.isdisjoint(derived_from(game_id))
            assert await store.redis.hget(keys(game_id)[0], "chain") == second.chain
        finally:
            await store.close()
            await other.close()

    asyncio.run(body())


def test_the_first_read_keeps_the_key_another_server_wrote_first(redis_url: str) -> None:
    """Two servers read a legacy game at once: the other one writes its key between this
    one's read (no key) and its write. The script keeps the other's key and this server
    uses it, so the two never chain the game's lineages with different keys."""
    admin = redis.Redis.from_url(redis_url)
    theirs = secrets.token_hex(16).encode()

    async def body() -> None:
        client = HookedRedis.from_url(redis_url)
        store = GameStore(client)
        try:
            game_id = await legacy_game(store)

            def other_server_first(command: tuple[Any, ...]) -> bool:
                if command[0] != "HGETALL":
                    return False
                admin.hset(keys(game_id)[0], "chain", theirs)
                return True

            client.after = other_server_first
            stored = await store.load(game_id)
            assert client.after is None, "the other server wrote between read and write"
            assert stored is not None and stored.chain == theirs
            assert admin.hget(keys(game_id)[0], "chain") == theirs
        finally:
            await store.close()

    try:
        asyncio.run(body())
    finally:
        admin.close()


def test_a_finished_legacy_game_read_as_its_record_gets_a_key_too(
        client: CuriaClient, redis_url: str) -> None:
    """A finished game kept as its compact record computes its lineages from its chain
    key: a legacy one read through its log (no read of the game before) gets a random key
    written, and the lineages are keyed by it, the same at every read."""
    r = redis.Redis.from_url(redis_url)
    game = new_game(client, seed=62)
    play_out(client, game, random.Random(62))
    game_key = keys(game.game_id)[0]
    record = r.hget(game_key, "record")
    assert record is not None, "the finished game was compacted"
    to_legacy(r, game.game_id)

    async def body() -> tuple[list[str], list[str]]:
        store = GameStore.from_url(redis_url)
        try:
            first = [e.lineage for e in await store.log(game.game_id)]
            again = [e.lineage for e in await store.log(game.game_id)]
            return first, again
        finally:
            await store.close()

    first, again = asyncio.run(body())
    chain = r.hget(game_key, "chain")
    assert chain is not None and CHAIN.fullmatch(chain)
    assert first == again == [e.lineage for e in record_entries(record, chain)]
    for key in derived_from(game.game_id):
        assert first != [e.lineage for e in record_entries(record, key)]
    r.close()
