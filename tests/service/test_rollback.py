"""A store that rolls back: Redis loses versions it had acknowledged (a failover to a
replica that lagged, a restore from a backup, a crash under `appendfsync everysec`)
and the game is played on from an earlier version with other decisions. Each version's
lineage tells the two histories apart: no server commits on a state from the lost one,
a decision taken on a lost view is refused, watchers go on from the current version, and
every record replays. Also: retries stay exactly-once after a game ends.

The rollback is made with Redis's own DUMP and RESTORE of a game's keys: the game as it
was at an earlier version, put back over the later one."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator

import grpc
import pytest
import redis

from client.retry import RetryingClient
from client.unary import CuriaClient
from curia_api.v1 import game_service_pb2 as pb
from service.store import keys
from tests.servers import ServiceProcess
from tests.service.gameplay import Game, new_game, play_out, replay
from tests.timing import wait_until

Snapshot = dict[str, bytes | None]


def snapshot(r: redis.Redis, game_id: str) -> Snapshot:
    """The game's keys as they are now (Redis DUMP)."""
    return {key: r.dump(key) for key in keys(game_id)}


def roll_back(r: redis.Redis, saved: Snapshot) -> None:
    """Put the game's keys back as they were in `saved` (Redis RESTORE)."""
    for key, dumped in saved.items():
        r.delete(key)
        if dumped is not None:
            r.restore(key, 0, dumped, replace=True)


def seat_view(client: CuriaClient, game: Game) -> tuple[int, pb.View]:
    """The seat to move and its view."""
    seat = client.view(game.game_id).to_move[0]
    return seat, client.view(game.game_id, game.tokens[seat])


def play(client: CuriaClient, game: Game, rng: random.Random, count: int,
         avoid: list[str] | None = None) -> list[str]:
    """`count` random decisions (the first unlike `avoid[0]` where another is legal); the
    notations played."""
    played = []
    for i in range(count):
        seat, view = seat_view(client, game)
        legal = [d.notation for d in view.legal_decisions]
        if avoid and i == 0 and len(legal) > 1:
            legal = [n for n in legal if n != avoid[0]]
        choice = rng.choice(legal)
        client.submit(game.game_id, game.tokens[seat], view.version, choice)
        played.append(choice)
    return played


def lost_history(client: CuriaClient, r: redis.Redis, game: Game, rng: random.Random,
                 kept: int, lost: int) -> tuple[Snapshot, list[str]]:
    """Play `kept` decisions, snapshot the game, play `lost` more: the snapshot and the
    decisions a rollback to it will lose."""
    play(client, game, rng, kept)
    saved = snapshot(r, game.game_id)
    return saved, play(client, game, rng, lost)


@pytest.fixture
def two_servers(service_process: type[ServiceProcess],
                redis_url: str) -> Iterator[tuple[CuriaClient, CuriaClient]]:
    """Clients of two `curia serve` processes sharing one Redis."""
    first, second = service_process(redis_url), service_process(redis_url)
    with CuriaClient(first.address) as a, CuriaClient(second.address) as b:
        yield a, b


def test_a_server_holding_a_lost_version_never_commits_on_it(
        two_servers: tuple[CuriaClient, CuriaClient], redis_url: str) -> None:
    """Server A caches the game at version 15; the store rolls back to 10 and server B
    plays to 15 another way. A decision sent to A for its (lost) version 15: with the
    view's lineage it is refused (ABORTED, nothing applied); without, A notices the
    lineage changed, reloads and judges it on the real game. The record replays."""
    a, b = two_servers
    r = redis.Redis.from_url(redis_url)
    game = new_game(a, seed=21)
    rng = random.Random(5)
    saved, lost = lost_history(a, r, game, rng, 10, 5)
    seat, lost_view = seat_view(a, game)  # A now holds version 15 of the lost history
    roll_back(r, saved)
    assert b.view(game.game_id).version == 10
    replayed = play(b, game, random.Random(99), 5, avoid=lost)
    assert replayed[0] != lost[0], "the two histories differ"
    truth = b.view(game.game_id)
    assert truth.version == 15 and truth.lineage != lost_view.lineage

    with pytest.raises(grpc.RpcError) as refused:
        a.submit(game.game_id, game.tokens[seat], 15, lost_view.legal_decisions[0].notation,
                 lineage=lost_view.lineage)
    assert refused.value.code() == grpc.StatusCode.ABORTED
    assert "history the store has lost" in (refused.value.details() or "")
    assert b.view(game.game_id).version == 15, "nothing was applied"

    for decision in lost_view.legal_decisions:  # no lineage: judged on the real game
        try:
            done = a.submit(game.game_id, game.tokens[seat], 15, decision.notation)
        except grpc.RpcError as error:
            assert error.code() in (grpc.StatusCode.FAILED_PRECONDITION,
                                    grpc.StatusCode.ABORTED), error
            continue
        assert done.version == 16
        break
    play_out(b, game, rng)
    assert replay(b.record(game.game_id)) is not None


def test_a_decision_replayed_the_same_way_keeps_its_lineage(
        client: CuriaClient, redis_url: str) -> None:
    """A lineage is a hash chain of the decisions: the same decisions after a rollback
    give the same lineage (the same state), so a view of it stays good."""
    r = redis.Redis.from_url(redis_url)
    game = new_game(client, seed=4)
    play(client, game, random.Random(1), 3)
    saved = snapshot(r, game.game_id)
    seat, view = seat_view(client, game)
    choice = view.legal_decisions[0].notation
    first = client.submit(game.game_id, game.tokens[seat], view.version, choice)
    roll_back(r, saved)
    again = client.submit(game.game_id, game.tokens[seat], view.version, choice,
                          lineage=view.lineage)
    assert (first.version, first.view.lineage) == (again.version, again.view.lineage)
    assert first.view.lineage and first.view.lineage != view.lineage


def test_a_watcher_goes_on_from_the_current_version_after_a_rollback(
        two_servers: tuple[CuriaClient, CuriaClient], redis_url: str) -> None:
    a, b = two_servers
    r = redis.Redis.from_url(redis_url)
    game = new_game(a, seed=8)
    rng = random.Random(2)
    saved, lost = lost_history(a, r, game, rng, 6, 4)
    seen: list[pb.WatchGameResponse] = []
    watcher = RetryingClient.to(a.target)

    def watch() -> None:
        seen.extend(watcher.watch(game.game_id, "", 10))

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    wait_until(lambda: len(seen) >= 1, 10)
    roll_back(r, saved)
    play(b, game, random.Random(77), 6, avoid=lost)
    wait_until(lambda: any(u.rolled_back for u in seen), 15)
    play_out(b, game, rng)
    thread.join(30)
    watcher.close()
    record = b.record(game.game_id)
    marks = [i for i, u in enumerate(seen) if u.rolled_back]
    assert len(marks) == 1, [(u.version, u.rolled_back) for u in seen]
    after = seen[marks[0]:]
    assert after[0].version <= 12
    assert [u.version for u in after] == list(range(after[0].version, after[-1].version + 1))
    truth = {d.version: d.notation for d in record.decisions}
    for update in after[1:]:
        assert update.decision.notation == truth[update.version]
    assert after[-1].view.status == pb.GAME_STATUS_FINISHED


def test_watching_after_a_lost_version(client: CuriaClient, redis_url: str) -> None:
    """Resuming after a version the store lost: with its lineage, the stream starts at the
    current version, marked rolled_back; without, OUT_OF_RANGE says what to do."""
    r = redis.Redis.from_url(redis_url)
    game = new_game(client, seed=3)
    rng = random.Random(4)
    saved, lost = lost_history(client, r, game, rng, 5, 3)
    at_8 = client.view(game.game_id)
    roll_back(r, saved)
    first = next(iter(client.watch(game.game_id, "", 8, after_lineage=at_8.lineage)))
    assert (first.version, first.rolled_back) == (5, True)
    with pytest.raises(grpc.RpcError) as beyond:
        next(iter(client.watch(game.game_id, "", 8)))
    assert beyond.value.code() == grpc.StatusCode.OUT_OF_RANGE
    assert "after_lineage" in (beyond.value.details() or "")
    play(client, game, random.Random(11), 3, avoid=lost)  # at 8 again, another way
    again = next(iter(client.watch(game.game_id, "", 8, after_lineage=at_8.lineage)))
    assert again.rolled_back and again.version == 8
    assert again.view.lineage != at_8.lineage
    same = next(iter(client.watch(game.game_id, "", 8, after_lineage=again.view.lineage)))
    assert not same.rolled_back and same.view == again.view


def test_every_applied_request_answers_its_first_outcome_after_the_end(
        client: CuriaClient) -> None:
    """A finished game keeps all its request ids (in its compact record): a retry of any
    decision applied answers duplicate with the version it made; a finished game used to
    keep only each seat's last one and refused the rest (FAILED_PRECONDITION)."""
    game = new_game(client, seed=12, options={"target_decurions": 4})
    rng = random.Random(12)
    sent: list[tuple[int, int, str, str]] = []  # seat, version made, notation, request id
    while (spectator := client.view(game.game_id)).status != pb.GAME_STATUS_FINISHED:
        seat = spectator.to_move[0]
        view = client.view(game.game_id, game.tokens[seat])
        choice = rng.choice(list(view.legal_decisions)).notation
        request_id = f"r{len(sent)}"
        done = client.submit(game.game_id, game.tokens[seat], view.version, choice,
                             request_id=request_id)
        sent.append((seat, done.version, choice, request_id))
    assert len(sent) > 20
    for seat, version, choice, request_id in sent:
        again = client.submit(game.game_id, game.tokens[seat], version - 1, choice,
                              request_id=request_id)
        assert (again.version, again.duplicate) == (version, True), request_id
    seat, version, choice, request_id = sent[0]
    with pytest.raises(grpc.RpcError) as reused:
        other = next(d.notation for d in client.record(game.game_id).decisions
                     if d.notation != choice)
        client.submit(game.game_id, game.tokens[seat], version - 1, other,
                      request_id=request_id)
    assert reused.value.code() == grpc.StatusCode.ALREADY_EXISTS
