"""The process's subscription to new versions (service/version_feed.py), on a real Redis:
watchers are woken by a publication, which names the seats that must decide at the new
version; a version announced while a watcher was between two waiters is not lost to it;
and the subscription comes back after its connection is cut, or after Redis stopped
answering on it without closing it, waking every watcher (publications may have been
missed)."""

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
    Announced,
    VersionFeed,
    parse_announcement,
    woken_within,
)

#: How soon a subscription to a Redis that stopped answering must count as down.
NOTICED_S = 10.0


def test_a_publication_wakes_the_watchers_of_that_game_only(redis_url: str) -> None:
    async def body() -> None:
        store = GameStore.from_url(redis_url)
        feed = store.feed
        assert isinstance(feed, VersionFeed)
        assert feed.address is not None  # a connection of the feed's own
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


def test_an_announcement_names_the_seats_that_must_decide() -> None:
    assert parse_announcement(b"g1 7 ab12 0,2") == ("g1", Announced(7, "ab12",
                                                                    frozenset({0, 2})))
    assert parse_announcement(b"g1 7 ab12 -") == ("g1", Announced(7, "ab12", None))
    for older_or_odd in (b"g1 7 ab12", b"g1 7 ab12 0,x", b"g1 7 ab12 \xc2\xb2", b"g1 7 ab12 ,"):
        assert parse_announcement(older_or_odd)[1] == Announced(7, "ab12", None)
    assert parse_announcement(b"g1 7") == ("g1", None)
    assert Announced(7, "ab12", frozenset({1})).concerns(1)
    assert not Announced(7, "ab12", frozenset({1})).concerns(0)
    assert Announced(7, "ab12", None).concerns(0), "unknown movers: every seat looks"


def test_a_commit_announces_who_must_decide_next_and_the_end(redis_url: str) -> None:
    """What the commit script publishes, read on a subscription of our own: each version
    with the seats the game then asks, and "-" once it is over."""
    async def body() -> list[tuple[Announced | None, tuple[int, ...], bool]]:
        store = GameStore.from_url(redis_url)
        keeper = GameKeeper(store)
        seen = []
        try:
            created = await keeper.create(pb.CreateGameRequest(
                game="leges", variant="standard", num_seats=3, seed=11))
            tokens = {s.seat: s.token for s in created.seats}
            with redis.Redis.from_url(redis_url) as listener:
                subscription = listener.pubsub(ignore_subscribe_messages=True)
                subscription.subscribe(CHANNEL)
                subscription.get_message(timeout=1.0)
                for _ in range(40):
                    spectator = (await keeper.view(pb.GetViewRequest(
                        game_id=created.game_id))).view
                    if spectator.status == pb.GAME_STATUS_FINISHED:
                        break
                    seat = spectator.to_move[0]
                    mine = (await keeper.view(pb.GetViewRequest(
                        game_id=created.game_id, seat_token=tokens[seat]))).view
                    await keeper.submit(pb.SubmitDecisionRequest(
                        game_id=created.game_id, seat_token=tokens[seat],
                        expected_version=mine.version, request_id=f"r{mine.version}",
                        decision=mine.legal_decisions[0]))
                    after = (await keeper.view(pb.GetViewRequest(
                        game_id=created.game_id))).view
                    message = subscription.get_message(timeout=2.0)
                    while message is not None and not message["data"].startswith(
                            created.game_id.encode()):
                        message = subscription.get_message(timeout=2.0)
                    assert message is not None
                    game_id, announced = parse_announcement(message["data"])
                    seen.append((announced, tuple(after.to_move),
                                 after.status == pb.GAME_STATUS_FINISHED))
                subscription.close()
        finally:
            await store.close()
        return seen

    seen = asyncio.run(body())
    assert len(seen) >= 10
    for announced, to_move, over in seen:
        assert announced is not None
        assert announced.movers == (None if over else frozenset(to_move)), (announced,
                                                                              to_move)
    assert any(len(to_move) > 1 for _, to_move, _ in seen), "a round of secret choices"


def test_a_version_announced_between_two_waiters_is_not_lost() -> None:
    """A watcher woken for version 5 registers its next waiter only when it runs again;
    version 6, announced meanwhile, is what `latest_after` gives it."""
    async def body() -> tuple[Announced | None, Announced | None, dict[str, Announced]]:
        feed = VersionFeed(client=None)
        feed.live = lambda: True  # type: ignore[method-assign]  # (no subscription here)
        first = feed.waiter("g")
        feed.wake("g", Announced(5, "a", frozenset({1})))
        feed.wake("g", Announced(6, "b", frozenset({0})))  # first is done: not woken
        second = feed.waiter("g")
        feed.discard("g", first)
        caught = feed.latest_after("g", first.result())
        nothing_newer = feed.latest_after("g", Announced(6, "b"))
        feed.discard("g", second)
        return caught, nothing_newer, feed.latest

    caught, nothing_newer, latest = asyncio.run(body())
    assert caught == Announced(6, "b", frozenset({0}))
    assert nothing_newer is None
    assert latest == {}, "the game's last announcement goes with its last waiter"


def test_a_seats_waiter_is_woken_only_at_versions_its_seat_must_decide_at() -> None:
    """A Play watcher's waiter (issue 35): another seat's turn leaves it waiting; its own
    turn, a round of secret choices that includes it, the game's end and a new
    subscription wake it. A waiter without a seat wakes at every version."""
    async def body() -> list[object]:
        feed = VersionFeed(client=None)
        feed.live = lambda: True  # type: ignore[method-assign]  # (no subscription here)
        seen: list[object] = []
        for announced in (Announced(5, "a", frozenset({1})), Announced(5, "a", None),
                          Announced(5, "a", frozenset({0, 2})), None):
            seat_one, seat_zero, anyone = (feed.waiter("g", 1), feed.waiter("g", 0),
                                           feed.waiter("g"))
            feed.wake("g", Announced(4, "z", frozenset({2})))  # seat 2's turn
            woken_early = seat_one.done() or seat_zero.done()
            assert anyone.done()
            feed.wake("g", announced) if announced is not None else feed.wake_all()
            seen.append((woken_early, seat_one.done(), seat_zero.done()))
            for waiter in (seat_one, seat_zero, anyone):
                feed.discard("g", waiter)
        return seen

    assert asyncio.run(body()) == [
        (False, True, False),  # seat 1 must decide
        (False, True, True),   # the game is over: every seat looks
        (False, False, True),  # seats 0 and 2 decide at once
        (False, True, True),   # a new subscription: anything may have been missed
    ]


def test_a_waiter_given_a_time_is_set_to_none_once_it_has_passed() -> None:
    """`waiter(..., within=)`: one expiry for the process sets a waiter nobody woke to
    None (the watcher then looks anyway); a waiter woken before keeps its announcement."""
    async def body() -> tuple[object, object]:
        feed = VersionFeed(client=None)
        feed.live = lambda: True  # type: ignore[method-assign]  # (no subscription here)
        quiet, woken = feed.waiter("g", 0, within=0.2), feed.waiter("h", 0, within=0.2)
        feed.wake("h", Announced(3, "c", frozenset({0})))
        timed_out = await asyncio.wait_for(quiet, 5.0)
        await asyncio.wait_for(feed.expirer, 5.0)  # type: ignore[arg-type]  # heap empty
        return timed_out, woken.result()

    assert asyncio.run(body()) == (None, Announced(3, "c", frozenset({0})))


def test_without_a_connection_of_its_own_the_feed_follows_redis_pys_pubsub(
        redis_url: str) -> None:
    """A URL the feed's own connection does not serve (here: a query option) subscribes
    through redis-py's PubSub, and a publication still wakes the game's watchers."""
    async def body() -> None:
        store = GameStore.from_url(f"{redis_url}?socket_keepalive=true")
        feed = store.feed
        assert isinstance(feed, VersionFeed) and feed.address is None
        try:
            feed.discard("g0", feed.waiter("g0"))  # starts the subscription
            await asyncio.wait_for(feed.subscribed.wait(), 5.0)
            mine = feed.waiter("g1", 2)
            with redis.Redis.from_url(redis_url) as connection:
                connection.publish(CHANNEL, "g1 7 ab12 2")
            assert await asyncio.wait_for(mine, 2.0) == Announced(7, "ab12", frozenset({2}))
            feed.discard("g1", mine)
        finally:
            await store.close()
    asyncio.run(body())
