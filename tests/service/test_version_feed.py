"""The process's subscription to new versions (service/version_feed.py), on a real Redis:
watchers are woken by a publication, and the subscription comes back after its
connection is cut, or after Redis stopped answering on it without closing it, waking
every watcher (publications may have been missed)."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import redis

from curia_api.v1 import game_service_pb2 as pb
from service.keeper import GameKeeper
from service.redis_server import EmbeddedRedis
from service.store import GameStore
from service.version_feed import (
    CHANNEL,
    PING_EVERY_S,
    SILENT_LIMIT_S,
    VersionFeed,
    woken_within,
)

#: How soon a subscription to a Redis that stopped answering must count as down.
NOTICED_S = 10.0


def test_a_publication_wakes_the_watchers_of_that_game_only(redis_url: str) -> None:
    async def body() -> None:
        store = GameStore.from_url(redis_url)
        feed = store.feed
        assert isinstance(feed, VersionFeed)
        try:
            feed.discard("g0", feed.waiter("g0"))  # starts the subscription
            await asyncio.wait_for(feed.subscribed.wait(), 5.0)
            mine, other = feed.waiter("g1"), feed.waiter("g2")
            with redis.Redis.from_url(redis_url) as connection:
                connection.publish(CHANNEL, "g1 7")
            await asyncio.wait_for(mine, 2.0)
            await asyncio.sleep(0.1)
            assert not other.done()
            feed.discard("g1", mine)
            feed.discard("g2", other)
            assert feed.waiting == {}
        finally:
            await store.close()
    asyncio.run(body())


def test_the_subscription_comes_back_after_its_connection_is_cut(redis_url: str) -> None:
    async def body() -> None:
        store = GameStore.from_url(redis_url)
        feed = store.feed
        assert feed is not None
        try:
            feed.discard("g0", feed.waiter("g0"))  # starts the subscription
            await asyncio.wait_for(feed.subscribed.wait(), 5.0)
            first = feed.waiter("g3")
            with redis.Redis.from_url(redis_url) as connection:
                connection.client_kill_filter(_type="pubsub")
            await asyncio.wait_for(first, 3.0)  # woken: it may have missed a version
            await asyncio.wait_for(feed.subscribed.wait(), 5.0)
            second = feed.waiter("g3")
            with redis.Redis.from_url(redis_url) as connection:
                connection.publish(CHANNEL, "g3 8")
            await asyncio.wait_for(second, 2.0)
        finally:
            await store.close()
    asyncio.run(body())


def test_without_permission_on_the_channel_decisions_commit_and_watchers_still_follow(
        tmp_path: Path) -> None:
    """An ACL user without the channel (Redis 7's default for a new user): the commit's
    publication is refused without undoing the commit, and watchers wait in XREAD."""
    with EmbeddedRedis(tmp_path) as server:
        with redis.Redis.from_url(server.url) as admin:
            admin.acl_setuser("curia", enabled=True, passwords=["+secret"], keys=["curia:*"],
                              channels=[], commands=["+@all"], reset_channels=True)
        url = f"redis://curia:secret@127.0.0.1:{server.port}/0"

        async def body() -> None:
            store = GameStore.from_url(url)
            keeper = GameKeeper(store)
            try:
                created = await keeper.create(pb.CreateGameRequest(
                    game="municipium", variant="revised", num_seats=2, seed=3))
                tokens = {s.seat: s.token for s in created.seats}
                watch = keeper.watch(pb.WatchGameRequest(game_id=created.game_id))
                assert (await anext(watch)).version == 0
                following = asyncio.ensure_future(anext(watch))
                await asyncio.sleep(0.6)  # the feed has tried (and failed) to subscribe
                assert store.feed is not None and not store.feed.subscribed.is_set()
                spectator = (await keeper.view(pb.GetViewRequest(
                    game_id=created.game_id))).view
                seat = spectator.to_move[0]
                mine = (await keeper.view(pb.GetViewRequest(
                    game_id=created.game_id, seat_token=tokens[seat]))).view
                done = await keeper.submit(pb.SubmitDecisionRequest(
                    game_id=created.game_id, seat_token=tokens[seat], expected_version=0,
                    request_id="a", decision=mine.legal_decisions[0]))
                assert done.version == 1
                assert (await asyncio.wait_for(following, 2.0)).version == 1
                await watch.aclose()
            finally:
                await store.close()
        asyncio.run(body())


def test_a_subscription_to_a_redis_that_stops_answering_is_noticed_and_comes_back(
        tmp_path: Path) -> None:
    """Redis stops answering without closing the connection (SIGSTOP: no FIN, no RST, as
    when its host vanishes in a network cut): the feed stops counting as live within
    NOTICED_S, wakes its watchers (they then wait in XREAD), and subscribes again once
    Redis answers. While Redis answers, an idle subscription stays live."""
    with EmbeddedRedis(tmp_path) as server:
        assert server.process is not None
        pid = server.process.pid

        async def body() -> None:
            store = GameStore.from_url(server.url)
            feed = store.feed
            assert feed is not None
            loop = asyncio.get_running_loop()
            try:
                feed.discard("g0", feed.waiter("g0"))  # starts the subscription
                await asyncio.wait_for(feed.subscribed.wait(), 5.0)
                idle_until = loop.time() + SILENT_LIMIT_S + 2 * PING_EVERY_S
                while loop.time() < idle_until:  # idle but answered: no false alarm
                    assert feed.live(), "an idle subscription to a live Redis was dropped"
                    await asyncio.sleep(0.1)
                waiting = feed.waiter("g5")
                os.kill(pid, signal.SIGSTOP)
                try:
                    stopped = loop.time()
                    while feed.live():
                        assert loop.time() - stopped < NOTICED_S, (
                            f"a subscription to a Redis that stopped answering still counts "
                            f"as live after {NOTICED_S} s")
                        await asyncio.sleep(0.1)
                    await asyncio.wait_for(waiting, 1.0)  # woken: versions may be missed
                    await asyncio.sleep(1.0)
                    assert not feed.live()  # not back while Redis says nothing
                finally:
                    os.kill(pid, signal.SIGCONT)
                resumed = loop.time()
                while not feed.live():
                    assert loop.time() - resumed < NOTICED_S, "the feed did not come back"
                    await asyncio.sleep(0.1)
                again = feed.waiter("g5")
                with redis.Redis.from_url(server.url) as connection:
                    connection.publish(CHANNEL, "g5 9")
                await asyncio.wait_for(again, 2.0)
                feed.discard("g5", again)
            finally:
                await store.close()
        asyncio.run(body())


def test_a_watcher_cancelled_as_it_is_woken_stays_cancelled() -> None:
    """A stream cancelled by its client in the same instant as the feed wakes its watcher
    must end: the wait re-raises the cancellation rather than return the wake-up (as
    Python 3.11's asyncio.wait_for does), which would leave the stream running unseen."""
    async def cancel_as_woken() -> str:
        woken = asyncio.get_running_loop().create_future()
        waiting = asyncio.create_task(woken_within(woken, 10.0))
        await asyncio.sleep(0)  # the watcher is waiting
        woken.set_result((3, "lineage"))
        waiting.cancel()
        try:
            await waiting
        except asyncio.CancelledError:
            return "cancelled"
        return "ran on"

    assert asyncio.run(cancel_as_woken()) == "cancelled"


def test_a_wait_reports_whether_its_watcher_was_woken() -> None:
    async def waits() -> tuple[bool, bool, bool]:
        loop = asyncio.get_running_loop()
        idle, woken = loop.create_future(), loop.create_future()
        loop.call_later(0.01, woken.set_result, None)
        return (await woken_within(idle, 0.05), await woken_within(woken, 5.0),
                idle.done())

    assert asyncio.run(waits()) == (False, True, False)  # a timeout leaves the waiter as is
