"""The public API end to end, over a real gRPC channel to a server on a real Redis."""

from __future__ import annotations

import contextlib
import json
import random
import threading
import time

import grpc
import pytest
import redis

import games
from client.unary import CuriaClient, refusal_reason
from curia_api.v1 import game_service_pb2 as pb
from curia_api.v1 import municipium_pb2 as mpb
from tests.service.gameplay import Game, new_game, play_out, replay, step
from tests.timing import patient

FINISHED = pb.GAME_STATUS_FINISHED


def snapshot(client: CuriaClient, game: Game) -> tuple[int, str, int]:
    """What must not change when a request is refused: version, spectator view, log size."""
    view = client.view(game.game_id)
    records = len(list(client.watch(game.game_id, "", 0))) if view.status == FINISHED else -1
    return view.version, view.observation_json, records


def refused(call: object, code: grpc.StatusCode, text: str, reason: str = "") -> None:
    """The call is refused with `code`, a message holding `text` and, if given, `reason`
    in its trailing metadata."""
    with pytest.raises(grpc.RpcError) as caught:
        call()  # type: ignore[operator]
    assert caught.value.code() == code, caught.value.details()
    assert text in caught.value.details(), caught.value.details()
    if reason:
        assert refusal_reason(caught.value) == reason, caught.value.trailing_metadata()


# -- a whole game ------------------------------------------------------------------------
def test_list_games_describes_variants_and_options(client: CuriaClient) -> None:
    listed = {game.name: game for game in client.list_games().games}
    municipium = listed["municipium"]
    assert municipium.title == "Municipium" and not municipium.simultaneous
    variants = {v.name: (v.min_seats, v.max_seats) for v in municipium.variants}
    assert variants == {"classic": (3, 5), "revised": (2, 4)}
    options = {o.name: (o.default_value, o.min_value, o.max_value) for o in municipium.options}
    assert options["target_decurions"] == (5, 4, 5)


def test_a_full_game_played_by_clients_matches_the_engine(server: str) -> None:
    """Each seat plays through its own channel; the record replays to the same result."""
    with CuriaClient(server) as creator:
        game = new_game(creator, seats=4, seed=11)
    seats = {seat: CuriaClient(server) for seat in game.tokens}
    rng = random.Random(11)
    spectator = CuriaClient(server)
    try:
        while (view := spectator.view(game.game_id)).status != FINISHED:
            seat = view.to_move[0]
            own = seats[seat].view(game.game_id, game.tokens[seat])
            assert own.seat == seat and own.legal_decisions
            choice = rng.choice(list(own.legal_decisions))
            answer = seats[seat].submit(game.game_id, game.tokens[seat], own.version,
                                        choice.notation)
            assert answer.version == own.version + 1 and not answer.duplicate
        record = spectator.record(game.game_id)
    finally:
        for c in [*seats.values(), spectator]:
            c.close()
    replay = games.new_game("municipium", record.variant, record.num_seats,
                            dict(record.options), record.seed)
    for decision in record.decisions:
        replay.apply(decision.seat, decision.notation)
    result = replay.result()
    assert result is not None and view.result.reason == result.reason
    assert [list(g.seats) for g in view.result.ranking] == [list(g) for g in result.ranking]
    assert [d.version for d in record.decisions] == list(range(1, view.version + 1))
    assert record.seed == 11 and record.events and record.events[0].kind == "start"


def test_typed_decisions_are_accepted_like_notation(client: CuriaClient) -> None:
    game = new_game(client, seed=3)
    view = client.view(game.game_id, game.tokens[client.view(game.game_id).to_move[0]])
    typed = pb.Decision(municipium=mpb.MunicipiumDecision(
        setup=mpb.MunicipiumDecision.Setup(institution=mpb.MUNICIPIUM_INSTITUTION_FORUM)))
    answer = client.submit(game.game_id, game.tokens[view.seat], view.version, typed)
    assert answer.version == 1
    first = _take(client.watch(game.game_id, "", 0), 2)[1]
    assert first.decision.notation == "setup forum" and first.decision.seat == view.seat
    forum = json.loads(first.view.observation_json)["institutions"][5]
    assert forum["members"] == {view.seat_names[view.seat]: [1, 0]}
    mover = client.view(game.game_id).to_move[0]
    legal = client.view(game.game_id, game.tokens[mover]).legal_decisions
    assert legal and all(d.HasField("municipium") and d.notation for d in legal)


# -- errors: each its status code, nothing changed ----------------------------------------
def test_every_refusal_has_its_code_and_changes_nothing(client: CuriaClient) -> None:
    game = new_game(client, seed=5)
    rng = random.Random(5)
    for _ in range(3):
        step(client, game, rng)
    before = snapshot(client, game)
    view = client.view(game.game_id)
    mover = view.to_move[0]
    other = (mover + 1) % 3
    token = game.tokens[mover]
    legal = client.view(game.game_id, token).legal_decisions[0].notation
    version = view.version
    cases = [
        (lambda: client.submit("nosuchgame", token, version, legal),
         grpc.StatusCode.NOT_FOUND, "no game"),
        (lambda: client.submit("bad id!", token, version, legal),
         grpc.StatusCode.INVALID_ARGUMENT, "game_id"),
        (lambda: client.submit(game.game_id + "\n", token, version, legal),
         grpc.StatusCode.INVALID_ARGUMENT, "game_id"),
        (lambda: client.submit(game.game_id, "x" * 43, version, legal),
         grpc.StatusCode.UNAUTHENTICATED, "not one of this game's seats"),
        (lambda: client.submit(game.game_id, "", version, legal),
         grpc.StatusCode.UNAUTHENTICATED, "token is required"),
        (lambda: client.submit(game.game_id, token, version - 1, legal),
         grpc.StatusCode.ABORTED, "stale version"),
        (lambda: client.submit(game.game_id, token, version + 5, legal),
         grpc.StatusCode.ABORTED, "stale version"),
        (lambda: client.submit(game.game_id, token, version, "fly me>moon"),
         grpc.StatusCode.INVALID_ARGUMENT, "malformed decision"),
        (lambda: client.submit(game.game_id, token, version, "x" * 500),
         grpc.StatusCode.INVALID_ARGUMENT, "at most 200"),
        (lambda: client.submit(game.game_id, token, version, pb.Decision()),
         grpc.StatusCode.INVALID_ARGUMENT, "empty decision"),
        (lambda: client.submit(game.game_id, token, version, "power forum"),
         grpc.StatusCode.FAILED_PRECONDITION, "illegal decision"),
        (lambda: client.submit(game.game_id, game.tokens[other], version, legal),
         grpc.StatusCode.FAILED_PRECONDITION, "may not decide now"),
        (lambda: client.submit(game.game_id, token, version, legal, request_id="has space"),
         grpc.StatusCode.INVALID_ARGUMENT, "request_id"),
        (lambda: client.submit(game.game_id, token, version, legal, request_id="newline\n"),
         grpc.StatusCode.INVALID_ARGUMENT, "request_id"),
        (lambda: client.record(game.game_id),
         grpc.StatusCode.FAILED_PRECONDITION, "once the game is over"),
        (lambda: client.view("nosuchgame"), grpc.StatusCode.NOT_FOUND, "no game"),
        (lambda: client.view(game.game_id, "forged-token"),
         grpc.StatusCode.UNAUTHENTICATED, "not one of this game's seats"),
        (lambda: list(client.watch(game.game_id, "", version + 10)),
         grpc.StatusCode.OUT_OF_RANGE, "beyond"),
        (lambda: client.join(game.game_id), grpc.StatusCode.RESOURCE_EXHAUSTED, "no open"),
        (lambda: client.join(game.game_id, seat=1), grpc.StatusCode.ALREADY_EXISTS, "taken"),
    ]
    for call, code, text in cases:
        refused(call, code, text)
        assert snapshot(client, game) == before, text


def test_bad_game_creation_is_refused(client: CuriaClient) -> None:
    for kwargs, text in [
        ({"game": "chess", "variant": "classic", "num_seats": 3}, "unknown game"),
        ({"game": "municipium", "variant": "deluxe", "num_seats": 3}, "unknown Municipium"),
        ({"game": "municipium", "variant": "classic", "num_seats": 9}, "3-5 families"),
        ({"game": "municipium", "variant": "classic", "num_seats": 3,
          "options": {"target_decurions": 9}}, "target_decurions"),
        ({"game": "municipium", "variant": "classic", "num_seats": 3, "open_seats": (3,)},
         "open_seats"),
        ({"game": "leges", "variant": "standard", "num_seats": 2, "players": ("a",)},
         "one name per seat"),
        ({"game": "leges", "variant": "standard", "num_seats": 2, "players": ("a", "")},
         "one name per seat"),
        ({"game": "leges", "variant": "standard", "num_seats": 2, "players": ("a", "b\n")},
         "printable"),
        ({"game": "leges", "variant": "standard", "num_seats": 2, "players": ("a", "b" * 65)},
         "1-64"),
    ]:
        refused(lambda kw=kwargs: client.create_game(**kw), grpc.StatusCode.INVALID_ARGUMENT,
                text)


def test_the_players_named_at_creation_are_in_every_view_and_the_record(
        client: CuriaClient) -> None:
    created = client.create_game("leges", "standard", 2, seed=3, players=("alpha", "beta@2"))
    tokens = {seat.seat: seat.token for seat in created.seats}
    for token in (None, tokens[0], tokens[1]):
        view = client.view(created.game_id, token)
        assert list(view.players) == ["alpha", "beta@2"]
        assert list(view.seat_names) == ["seat 0", "seat 1"]  # the game's own names stay
    play_out(client, Game(created.game_id, tokens), random.Random(3))
    record = client.record(created.game_id)
    assert list(record.players) == ["alpha", "beta@2"]
    unnamed = client.create_game("leges", "standard", 2, seed=3)
    assert list(client.view(unnamed.game_id).players) == []


def test_finished_game_refuses_decisions(client: CuriaClient) -> None:
    game = new_game(client, seed=2, options={"max_turns": 1})
    final = play_out(client, game, random.Random(2))
    assert final.result.reason == "max_turns"
    refused(lambda: client.submit(game.game_id, game.tokens[0], final.version, "skip"),
            grpc.StatusCode.FAILED_PRECONDITION, "over")


# -- exactly once -------------------------------------------------------------------------
def test_a_retried_request_applies_once(client: CuriaClient) -> None:
    game = new_game(client, seed=9)
    view = client.view(game.game_id, game.tokens[client.view(game.game_id).to_move[0]])
    notation = view.legal_decisions[0].notation
    first = client.submit(game.game_id, game.tokens[view.seat], view.version, notation, "r-1")
    again = client.submit(game.game_id, game.tokens[view.seat], view.version, notation, "r-1")
    assert (first.duplicate, again.duplicate) == (False, True)
    assert first.version == again.version == client.view(game.game_id).version == 1
    assert [e.kind for e in first.events] == [e.kind for e in again.events]


# -- open seats ---------------------------------------------------------------------------
def test_open_seats_are_joined_then_the_game_starts(client: CuriaClient) -> None:
    created = client.create_game("municipium", "revised", 2, seed=4, open_seats=(1,))
    assert [c.seat for c in created.seats] == [0]
    waiting = client.view(created.game_id)
    assert waiting.status == pb.GAME_STATUS_WAITING_FOR_SEATS
    refused(lambda: client.submit(created.game_id, created.seats[0].token, 0, "setup temple"),
            grpc.StatusCode.FAILED_PRECONDITION, "waiting for open seats")
    joined = client.join(created.game_id)
    assert joined.seat == 1 and joined.name == "orange" and len(joined.token) >= 32
    assert client.view(created.game_id).status == pb.GAME_STATUS_IN_PROGRESS
    game = Game(created.game_id, {0: created.seats[0].token, 1: joined.token})
    assert step(client, game, random.Random(1)).version == 1


# -- secrets and hidden information --------------------------------------------------------
def test_no_view_shows_tokens_hidden_state_or_anothers_decisions(client: CuriaClient,
                                                                   redis_url: str) -> None:
    game = new_game(client, seats=3, seed=13)
    rng = random.Random(13)
    for _ in range(60):
        step(client, game, rng)
    deck_secret = json.loads(stored_state(redis_url, game))
    upcoming = deck_secret["state"]["deck"]
    mover = client.view(game.game_id).to_move[0]
    for seat in [None, 0, 1, 2]:
        token = "" if seat is None else game.tokens[seat]
        view = client.view(game.game_id, token)
        raw = view.SerializeToString()
        for other in game.tokens.values():
            assert other.encode() not in raw
        observation = json.loads(view.observation_json)
        assert "deck" not in observation and "rng" not in observation
        assert "seed" not in json.dumps(observation)
        assert observation["deck_size"] == len(upcoming)
        assert bool(view.legal_decisions) == (seat == mover)
    updates = list(_take(client.watch(game.game_id, game.tokens[(mover + 1) % 3], 0), 5))
    assert all(not u.view.legal_decisions or u.view.to_move[0] == (mover + 1) % 3
               for u in updates)


def stored_state(redis_url: str, game: Game) -> bytes:
    """The engine state as the server keeps it (read from Redis by the test only)."""
    import redis

    from service.store import keys

    raw = redis.Redis.from_url(redis_url).hget(keys(game.game_id)[0], "state")
    assert raw is not None
    return bytes(raw)


def _take(stream: object, n: int) -> list[pb.WatchGameResponse]:
    out = []
    for item in stream:  # type: ignore[attr-defined]
        out.append(item)
        if len(out) == n:
            break
    return out


# -- the change stream ----------------------------------------------------------------------
def test_a_watcher_sees_every_change_live_and_resumes_after_a_reconnect(server: str) -> None:
    with CuriaClient(server) as player, CuriaClient(server) as watcher:
        game = new_game(player, seats=3, seed=21)
        seen: list[pb.WatchGameResponse] = []
        live = threading.Thread(target=lambda: seen.extend(watcher.watch(game.game_id)))
        live.start()
        final = play_out(player, game, random.Random(21))
        live.join(timeout=30)
        assert not live.is_alive(), "the stream ends with the game"
        assert [u.version for u in seen] == list(range(0, final.version + 1))
        assert seen[-1].view.status == FINISHED and seen[-1].view.HasField("result")
        assert all(u.HasField("decision") for u in seen[1:])
        resumed = list(watcher.watch(game.game_id, "", 40))
        assert [u.version for u in resumed] == list(range(40, final.version + 1))
        assert not resumed[0].events, "the first message is the view at the resume point"
        for a, b in zip(resumed, seen[40:], strict=True):
            assert a.view == b.view
        for a, b in zip(resumed[1:], seen[41:], strict=True):
            assert list(a.events) == list(b.events) and a.decision == b.decision


# -- time limits -----------------------------------------------------------------------------
def wait_for(predicate: object, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + patient(timeout)
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError("timed out waiting")


def test_a_timed_out_seat_gets_a_random_decision_recorded_as_such(client: CuriaClient) -> None:
    game = new_game(client, seed=31, decision_ms=150)
    view = client.view(game.game_id)
    assert view.deadline_unix_ms > 0
    wait_for(lambda: client.view(game.game_id).version >= 2)
    updates = _take(client.watch(game.game_id, "", 0), 3)
    assert updates[1].decision.cause == pb.DECISION_CAUSE_TIMEOUT


def test_forfeit_policy_ranks_the_seat_last_and_finishes_the_game(client: CuriaClient) -> None:
    game = new_game(client, seed=41, decision_ms=200, on_timeout="forfeit",
                    options={"max_turns": 12})
    rng = random.Random(41)
    sleeper = client.view(game.game_id).to_move[0]
    deadline = time.monotonic() + patient(60)
    while (view := client.view(game.game_id)).status != FINISHED:
        assert time.monotonic() < deadline
        if view.to_move[0] != sleeper:
            own = client.view(game.game_id, game.tokens[view.to_move[0]])
            if own.legal_decisions:
                # the server may move for the forfeited seat in between: a refusal is fine
                with contextlib.suppress(grpc.RpcError):
                    client.submit(game.game_id, game.tokens[own.seat], own.version,
                                  rng.choice(list(own.legal_decisions)).notation)
        else:
            time.sleep(0.05)
    scores = {s.seat: s for s in view.result.scores}
    assert scores[sleeper].forfeited and scores[sleeper].rank == 3
    assert list(view.result.ranking[-1].seats) == [sleeper]
    causes = {d.cause for d in client.record(game.game_id).decisions if d.seat == sleeper}
    assert pb.DECISION_CAUSE_TIMEOUT in causes and pb.DECISION_CAUSE_FORFEITED in causes


# -- tournament rules: time bank, forfeit on illegal, resignation -------------------------
def test_a_time_bank_runs_down_and_then_forfeits(client: CuriaClient) -> None:
    game = new_game(client, seed=51, bank_ms=400, decision_ms=5000, on_timeout="forfeit")
    mover = client.view(game.game_id).to_move[0]
    first = client.view(game.game_id, game.tokens[mover])
    assert 0 < first.bank_left_ms <= 400
    time.sleep(0.15)  # the bank runs down (what is tested)
    later = client.view(game.game_id, game.tokens[mover])
    assert later.bank_left_ms <= first.bank_left_ms - 100
    assert first.deadline_unix_ms - time.time() * 1000 < 400, "the bank bounds the deadline"
    wait_for(lambda: mover in client.view(game.game_id).forfeited_seats, timeout=5)
    final = client.view(game.game_id)
    assert final.version >= 1


def test_forfeit_on_illegal_ranks_the_seat_last(client: CuriaClient) -> None:
    game = new_game(client, seed=61, forfeit_on_illegal=True, options={"max_turns": 5})
    mover = client.view(game.game_id).to_move[0]
    refused(lambda: client.submit(game.game_id, game.tokens[mover], 0, "power forum"),
            grpc.StatusCode.FAILED_PRECONDITION, "the seat forfeits", "forfeit_on_illegal")
    view = client.view(game.game_id)
    assert list(view.forfeited_seats) == [mover] and view.to_move[0] != mover
    assert view.version == 1, "the server decided for the forfeited seat"
    final = play_out(client, game, random.Random(61))
    last = {s.seat: s for s in final.result.scores}[mover]
    assert last.forfeited and last.forfeit_reason == "illegal" and last.rank == 3


def test_without_forfeit_on_illegal_an_illegal_decision_changes_nothing(
        client: CuriaClient) -> None:
    game = new_game(client, seed=62)
    mover = client.view(game.game_id).to_move[0]
    refused(lambda: client.submit(game.game_id, game.tokens[mover], 0, "power forum"),
            grpc.StatusCode.FAILED_PRECONDITION, "illegal", "illegal")
    view = client.view(game.game_id)
    assert view.version == 0 and not view.forfeited_seats


def test_a_resigned_seat_is_played_by_the_server_and_ranked_last(client: CuriaClient) -> None:
    game = new_game(client, seed=71, options={"max_turns": 6})
    quitter = (client.view(game.game_id).to_move[0] + 1) % 3
    answer = client.resign(game.game_id, game.tokens[quitter], "crashed: exit code 1")
    assert list(answer.view.forfeited_seats) == [quitter]
    refused(lambda: client.resign(game.game_id, "forged", "x"),
            grpc.StatusCode.UNAUTHENTICATED, "not one of")
    rng = random.Random(71)
    while (view := client.view(game.game_id)).status != FINISHED:
        assert view.to_move[0] != quitter, "the server moves for the resigned seat"
        step(client, game, rng)
    last = {s.seat: s for s in view.result.scores}[quitter]
    assert last.forfeited and last.forfeit_reason == "crashed: exit code 1"
    causes = {d.cause for d in client.record(game.game_id).decisions if d.seat == quitter}
    assert causes <= {pb.DECISION_CAUSE_FORFEITED, pb.DECISION_CAUSE_SEAT}
    assert pb.DECISION_CAUSE_FORFEITED in causes


def test_a_view_carries_the_observation_encodings_asked_for(client: CuriaClient) -> None:
    """Typed, JSON, both (the default) or none: a client asks only for what it reads, and
    the rest of the view (legal decisions, to_move) is there whatever it asks."""
    game = new_game(client, seed=41)
    mover = client.view(game.game_id).to_move[0]
    token = game.tokens[mover]
    both = client.view(game.game_id, token)
    assert both.HasField("observation") and both.observation_json
    typed = client.view(game.game_id, token, pb.OBSERVATION_ENCODING_TYPED)
    assert typed.observation == both.observation and not typed.observation_json
    as_json = client.view(game.game_id, token, pb.OBSERVATION_ENCODING_JSON)
    assert as_json.observation_json == both.observation_json
    assert not as_json.HasField("observation")
    bare = client.view(game.game_id, token, pb.OBSERVATION_ENCODING_NONE)
    assert not bare.HasField("observation") and not bare.observation_json
    assert list(bare.legal_decisions) == list(both.legal_decisions)
    reply = client.submit(game.game_id, token, both.version, both.legal_decisions[0],
                          encoding=pb.OBSERVATION_ENCODING_NONE)
    assert not reply.view.observation_json and not reply.view.HasField("observation")
    streamed = next(iter(client.watch(game.game_id, token, reply.version,
                                      encoding=pb.OBSERVATION_ENCODING_JSON)))
    assert streamed.view.observation_json and not streamed.view.HasField("observation")


def test_a_view_asked_with_draw_board_carries_the_viewers_observation_drawn(
        client: CuriaClient) -> None:
    """`draw_board`: the game's drawing of exactly the viewer's observation (a seat's own,
    or the spectator's), in GetView and in every message of WatchGame; never unasked."""
    game = new_game(client, seed=44)
    rng = random.Random(44)
    for _ in range(5):
        step(client, game, rng)
    draw = games.GAMES["municipium"].render_svg
    for token in ["", *game.tokens.values()]:
        drawn = client.view(game.game_id, token, draw_board=True)
        observation = json.loads(drawn.observation_json)
        assert drawn.board_svg == draw(observation) and drawn.board_svg.startswith("<svg")
        assert not client.view(game.game_id, token).board_svg
    seat_views = {client.view(game.game_id, t, draw_board=True).board_svg
                  for t in game.tokens.values()}
    assert len(seat_views) == len(game.tokens), "each seat's own drawing"
    token = game.tokens[0]
    streamed = list(_take(client.watch(game.game_id, token, 2, pb.OBSERVATION_ENCODING_NONE,
                                       draw_board=True), 3))
    with_json = list(_take(client.watch(game.game_id, token, 2), 3))
    for bare, full in zip(streamed, with_json, strict=True):
        assert not bare.view.observation_json
        assert bare.view.board_svg == draw(json.loads(full.view.observation_json))
        assert not full.view.board_svg


def test_a_finished_game_is_kept_compact_and_serves_as_before(client: CuriaClient,
                                                                redis_url: str) -> None:
    """Once over, a game is kept as its compressed record (a few KB, no log stream): its
    record, a stream from its start and a retry of its last decision answer as a live
    game's did, regenerated by replay."""
    game = new_game(client, seed=43)
    live: list[pb.WatchGameResponse] = []
    watcher = threading.Thread(target=lambda: live.extend(client.watch(game.game_id)),
                               daemon=True)
    watcher.start()
    rng = random.Random(43)
    while True:
        spectator = client.view(game.game_id)
        if spectator.status == pb.GAME_STATUS_FINISHED:
            break
        seat = spectator.to_move[0]
        view = client.view(game.game_id, game.tokens[seat])
        last = (seat, view.version, rng.choice(list(view.legal_decisions)))
        answer = client.submit(game.game_id, game.tokens[seat], view.version, last[2],
                               request_id=f"last-{view.version}")
    watcher.join(30)
    keys = [f"curia:{{{game.game_id}}}:{name}" for name in ("game", "log", "requests")]
    with redis.Redis.from_url(redis_url) as r:
        assert not r.exists(keys[1]), "the log stream is gone once the game is over"
        assert sum(r.memory_usage(key, samples=0) or 0 for key in keys) <= 8 * 1024
    replayed = list(client.watch(game.game_id))
    assert [m.version for m in replayed] == [m.version for m in live]
    for got, seen in zip(replayed, live, strict=True):
        assert list(got.events) == list(seen.events)
        assert got.decision == seen.decision
        assert got.view.observation_json == seen.view.observation_json
    record = client.record(game.game_id)
    assert replay(record) == record.result
    assert [e.version for e in record.events][-1] == answer.version
    seat, version, decision = last
    again = client.submit(game.game_id, game.tokens[seat], version, decision,
                          request_id=f"last-{version}")
    assert again.duplicate and again.version == answer.version
    assert list(again.events) == list(answer.events)


def test_every_refusal_names_its_reason_in_the_trailing_metadata(client: CuriaClient) -> None:
    """docs/api.md, "Errors": a stable word per refusal, beside the status and message."""
    game = new_game(client, seed=63)
    mover = client.view(game.game_id).to_move[0]
    other = (mover + 1) % 3
    notation = client.view(game.game_id, game.tokens[mover]).legal_decisions[0].notation
    refused(lambda: client.view("no-such-game"), grpc.StatusCode.NOT_FOUND, "no game",
            "not_found")
    refused(lambda: client.submit(game.game_id, "forged", 0, notation),
            grpc.StatusCode.UNAUTHENTICATED, "not one of", "unauthenticated")
    refused(lambda: client.submit(game.game_id, game.tokens[mover], 3, notation),
            grpc.StatusCode.ABORTED, "stale version", "stale_version")
    refused(lambda: client.submit(game.game_id, game.tokens[other], 0, notation),
            grpc.StatusCode.FAILED_PRECONDITION, "", "not_your_turn")
    refused(lambda: client.submit(game.game_id, game.tokens[mover], 0, "no such (decision"),
            grpc.StatusCode.INVALID_ARGUMENT, "malformed decision", "invalid_argument")
    refused(lambda: client.record(game.game_id), grpc.StatusCode.FAILED_PRECONDITION,
            "once the game is over", "in_progress")
    refused(lambda: next(iter(client.watch(game.game_id, after_version=9))),
            grpc.StatusCode.OUT_OF_RANGE, "beyond", "future_version")
    assert client.view(game.game_id).version == 0  # and nothing changed
