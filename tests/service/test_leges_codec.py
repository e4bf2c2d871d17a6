"""Leges' typed messages (service/codecs/leges.py, proto/curia/v1/leges.proto): decisions
round-trip, malformed ones are NotationErrors naming the field, the typed observation says
what the JSON says for every viewer and nothing private of another seat (hands, face-down
choices, pending Law requests, drawn cards); and a whole game played through a real server
with typed decisions only, the simultaneous choices kept secret from the other seats and
from spectators until revealed."""

from __future__ import annotations

import json
import random
from functools import cache
from typing import Any

import grpc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from client.unary import CuriaClient
from curia_api.codec import decision_from_proto, decision_to_proto, observation_to_proto
from curia_api.codecs import leges as codec
from curia_api.v1 import ciceron_pb2 as cpb
from curia_api.v1 import game_service_pb2 as pb
from curia_api.v1 import leges_pb2 as lpb
from games import new_game
from games.core import Decision, GameState, NotationError, notation
from games.leges import LegesState
from games.leges.rules import HOLD, SECRET_VERBS, VERBS

GAME = "leges"
#: (players, seed): every player count, two seeds each.
CONFIGS = [(seats, seed) for seats in (2, 3, 4, 5) for seed in (1, 2)]
KINDS = [f.name for f in lpb.LegesDecision.DESCRIPTOR.oneofs_by_name["kind"].fields]
STEPS = [f.name for f in lpb.LegesStep.DESCRIPTOR.oneofs_by_name["step"].fields]
#: Observation JSON fields the typed observation leaves to `View` (seat, to_move, pending,
#: result, game, variant; `players`: View.seat_names) or does not repeat (options: Leges
#: has none; num_seats: the number of boards).
LEFT_TO_VIEW = {"game", "variant", "options", "seat", "num_seats", "players", "to_move",
                "pending", "result"}

#: A position met in a playthrough: each viewer's observation (None: the spectator), as
#: stored JSON, and each seat's private part read from the engine.
Position = tuple[dict[int | None, Any], list[dict[str, Any]]]


def private_parts(state: LegesState) -> list[dict[str, Any]]:
    """Per seat, from the engine itself: its hand, pending choice and request, drawn cards."""
    return [{"hand": list(p["hand"]), "choice": p["choice"], "request": p["request"],
             "drawn": list(p["drawn"])} for p in state.players]


@cache
def playthrough(seats: int, seed: int) -> tuple[tuple[Decision, ...], tuple[Position, ...]]:
    """A random game: every distinct legal decision met, and every position, seen by
    every viewer. Of several seats asked at once, one at random decides."""
    state = new_game(GAME, "standard", seats, seed=seed)
    assert isinstance(state, LegesState)
    rng = random.Random(seed)
    met: dict[Decision, None] = {}
    positions = []
    while True:
        views = {viewer: json.loads(json.dumps(state.observation(viewer)))
                 for viewer in (None, *range(seats))}
        positions.append((views, private_parts(state)))
        if state.is_over:
            break
        seat = rng.choice(state.to_move())
        legal = state.legal_decisions(seat)
        met.update(dict.fromkeys(legal))
        state.apply(seat, rng.choice(legal))
    return tuple(met), tuple(positions)


def fresh(seats: int = 3) -> GameState:
    return new_game(GAME, "standard", seats, seed=5)


def direction_word(number: int) -> str:
    """`LEGES_DIRECTION_UP` -> `up`, read from the contract, not the codec."""
    name: str = lpb.LegesDirection.Name(number)
    assert name.startswith("LEGES_DIRECTION_")
    return name[len("LEGES_DIRECTION_"):].lower()


def agenda_word(number: int) -> str:
    """`LEGES_AGENDA_STEP_END_OF_ROUND` -> `end-of-round`."""
    name: str = lpb.LegesAgendaStep.Name(number)
    assert name.startswith("LEGES_AGENDA_STEP_")
    return name[len("LEGES_AGENDA_STEP_"):].lower().replace("_", "-")


# ---------------------------------------------------------------------------------------
# Decisions round-trip
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("seats", "seed"), CONFIGS)
def test_every_legal_decision_round_trips(seats: int, seed: int) -> None:
    decisions, _ = playthrough(seats, seed)
    state = fresh(seats)
    for decision in decisions:
        message = decision_to_proto(GAME, decision)
        assert message.notation == notation(decision)
        assert message.WhichOneof("game") == GAME
        assert message.leges.WhichOneof("kind") == decision.verb  # the case is the verb
        # both set, notation only, typed case only, and through the wire
        assert decision_from_proto(state, message) == decision
        assert decision_from_proto(state, pb.Decision(notation=message.notation)) == decision
        typed = pb.Decision(leges=message.leges)
        again = pb.Decision.FromString(typed.SerializeToString())
        assert again == typed and again.WhichOneof("game") == GAME
        assert decision_from_proto(state, typed) == decision
        assert decision_from_proto(state, again) == decision


def test_the_playthroughs_meet_every_verb() -> None:
    verbs = {d.verb for config in CONFIGS for d in playthrough(*config)[0]}
    assert verbs == set(VERBS) == set(KINDS)


D = lpb.LegesDecision


@pytest.mark.parametrize(("decision", "case"), [
    (Decision("play", ("virtus-03",)), {"play": D.Play(card="virtus-03")}),
    (Decision("hold"), {"hold": D.Hold()}),
    (Decision("shift", ("pietas", "up")),
     {"shift": D.Shift(colour="pietas", direction=lpb.LEGES_DIRECTION_UP)}),
    (Decision("shift", ("concordia", "down")),
     {"shift": D.Shift(colour="concordia", direction=lpb.LEGES_DIRECTION_DOWN)}),
    (Decision("pass"), {"pass": D.Pass()}),
    (Decision("law", ("virtus", "2")), {"law": D.Law(colour="virtus", tier=2)}),
    (Decision("law", ("libertas", "4")), {"law": D.Law(colour="libertas", tier=4)}),
    (Decision("nolaw"), {"nolaw": D.Nolaw()}),
    (Decision("discard", ("pietas-04",)), {"discard": D.Discard(card="pietas-04")}),
    (Decision("draw"), {"draw": D.Draw()}),
])
def test_typed_cases_are_the_documented_ones(decision: Decision, case: dict[str, Any]) -> None:
    expected = pb.Decision(notation=notation(decision), leges=lpb.LegesDecision(**case))
    assert decision_to_proto(GAME, decision) == expected
    assert decision_from_proto(fresh(), pb.Decision(leges=expected.leges)) == decision


def case(**kinds: Any) -> pb.Decision:
    return pb.Decision(leges=lpb.LegesDecision(**kinds))


@pytest.mark.parametrize(("message", "error"), [
    (pb.Decision(leges=lpb.LegesDecision()), "no case set"),
    (pb.Decision(), "empty decision"),
    # a typed case of another game
    (pb.Decision(ciceron=cpb.CiceronDecision(done=cpb.CiceronDecision.Done())),
     "ciceron one, but this game is leges"),
    # fields left unset
    (case(play=D.Play()), r"leges\.play\.card is not set"),
    (case(discard=D.Discard()), r"leges\.discard\.card is not set"),
    (case(shift=D.Shift(direction=lpb.LEGES_DIRECTION_UP)), r"leges\.shift\.colour is not set"),
    (case(shift=D.Shift(colour="pietas")), r"leges\.shift\.direction is not set"),
    (case(shift=D.Shift(colour="pietas", direction=7)),  # type: ignore[arg-type]
     r"leges\.shift\.direction has no value 7"),
    (case(law=D.Law(tier=2)), r"leges\.law\.colour is not set"),
    (case(law=D.Law(colour="virtus")), r"leges\.law\.tier is not set"),
    # ids that no notation could write
    (case(play=D.Play(card="Virtus-03")), r"leges\.play\.card is not an id"),
    (case(discard=D.Discard(card="pietas 04")), r"leges\.discard\.card is not an id"),
    (case(shift=D.Shift(colour="pie>tas", direction=lpb.LEGES_DIRECTION_DOWN)),
     r"leges\.shift\.colour is not an id"),
    (case(law=D.Law(colour="-virtus", tier=1)), r"leges\.law\.colour is not an id"),
    (case(play=D.Play(card="x--y")), "is not an id"),
    (case(play=D.Play(card="virtus-03\n")), "is not an id"),  # a trailing newline is no id
    (case(play=D.Play(card="a" * 250)), "too long"),
    # the notation alone, and the notation against the typed case
    (pb.Decision(notation="play"), "takes 1-1 argument"),
    (pb.Decision(notation="shift pietas sideways"), "shift is written"),
    (pb.Decision(notation="law virtus two"), "law is written"),
    (pb.Decision(notation="veto everything"), "unknown verb"),
    (pb.Decision(notation="play virtus-03",
                 leges=lpb.LegesDecision(play=D.Play(card="virtus-04"))), "disagree"),
])
def test_malformed_decisions_are_notation_errors(message: pb.Decision, error: str) -> None:
    with pytest.raises(NotationError, match=error):
        decision_from_proto(fresh(), message)


def test_well_formed_but_illegal_decisions_decode() -> None:
    """A tier beyond 4 or a card nobody holds is well-formed: the rules refuse it later
    (FAILED_PRECONDITION), not the codec."""
    state = fresh()
    assert decision_from_proto(state, case(law=D.Law(colour="virtus", tier=9))) == \
        Decision("law", ("virtus", "9"))
    assert decision_from_proto(state, case(play=D.Play(card="no-such-card"))) == \
        Decision("play", ("no-such-card",))


def test_encoding_refuses_what_is_not_a_leges_decision() -> None:
    for decision in (Decision("veto"), Decision("play"), Decision("shift", ("pietas", "left")),
                     Decision("law", ("virtus", "two")), Decision("law", ("virtus", "0")),
                     Decision("hold", ("now",))):
        with pytest.raises(NotationError):
            decision_to_proto(GAME, decision)


# -- fuzzing: whatever the message holds, the only error is a NotationError --------------
ENUM_NUMBERS = st.one_of(st.integers(-2, 4), st.integers(-(2**31), 2**31 - 1))
UINTS = st.one_of(st.integers(0, 6), st.integers(0, 2**32 - 1))
IDS = st.one_of(st.sampled_from(["", "pietas", "virtus-03", "concordia-21", "up", "Pietas",
                                 "a b", "-x", "x-", "é", "1"]),
                st.text(max_size=12), st.text(st.sampled_from("ab-"), max_size=300))


def fill(data: st.DataObject, message: Any) -> None:
    """Random values in every field of `message`."""
    for field in message.DESCRIPTOR.fields:
        values = {field.TYPE_ENUM: ENUM_NUMBERS, field.TYPE_STRING: IDS,
                  field.TYPE_UINT32: UINTS}[field.type]
        setattr(message, field.name, data.draw(values))


def outcome(state: GameState, message: pb.Decision) -> Decision | str:
    try:
        decision = decision_from_proto(state, message)
    except NotationError as error:
        return f"NotationError: {error}"
    assert state.as_decision(decision) == decision  # well-formed for the game
    assert state.parse(notation(decision)) == decision  # and its notation parses back
    return decision


@settings(max_examples=400, deadline=None)
@given(data=st.data(), kind=st.sampled_from(KINDS),
       text=st.one_of(st.just(""), st.sampled_from(["play virtus-03", "hold", "pass",
                                                    "shift pietas up", "law virtus 2",
                                                    "nolaw", "draw", "law x 0"])))
def test_fuzzed_typed_decisions_are_decisions_or_notation_errors(
        data: st.DataObject, kind: str, text: str) -> None:
    message = pb.Decision(notation=text)
    getattr(message.leges, kind).SetInParent()
    fill(data, getattr(message.leges, kind))
    first = outcome(FUZZ_STATE, message)
    assert outcome(FUZZ_STATE, pb.Decision.FromString(message.SerializeToString())) == first
    if isinstance(first, Decision) and not text:
        assert decision_to_proto(GAME, first).leges.WhichOneof("kind") == kind


FUZZ_STATE = fresh(4)


# ---------------------------------------------------------------------------------------
# Observations: the typed form says what the JSON says
# ---------------------------------------------------------------------------------------
def request_word(message: lpb.LegesLawRequest) -> str | None:
    which = message.WhichOneof("request")
    if which == "law":
        return f"{message.law.colour} {message.law.tier}"
    return "none" if which == "nolaw" else None


def choice_word(message: lpb.LegesChoice) -> str | None:
    which = message.WhichOneof("choice")
    if which == "card":
        return message.card
    return "hold" if which == "hold" else None


def board_as_json(board: lpb.LegesBoard, colours: list[str]) -> dict[str, Any]:
    assert [c.colour for c in board.colours] == colours
    return {
        "seat": board.seat, "points": {c.colour: c.points for c in board.colours},
        "laws": {c.colour: c.law for c in board.colours}, "vp": board.vp,
        "exposed": list(board.exposed), "played": list(board.played),
        "hand_size": board.hand_size,
        "hand": list(board.hand.ids) if board.HasField("hand") else None,
        "chosen": board.chosen,
        "choice": choice_word(board.choice) if board.HasField("choice") else None,
        "requested": board.requested,
        "request": request_word(board.request) if board.HasField("request") else None,
        "drawn_count": board.drawn_count,
        "drawn": list(board.drawn.ids) if board.HasField("drawn") else None,
        "discarded": list(board.discarded),
    }


def step_as_json(message: lpb.LegesStep) -> dict[str, Any]:
    """A typed step written back as the observation JSON's: the case name is the step's,
    each field of the case the JSON field of that name (`pass_number`: `pass`)."""
    kind = message.WhichOneof("step")
    assert kind is not None
    step: dict[str, Any] = {"step": kind}
    case = getattr(message, kind)
    for field in case.DESCRIPTOR.fields:
        value = getattr(case, field.name)
        name = "pass" if field.name == "pass_number" else field.name
        step[name] = list(value) if field.is_repeated else value
    return step


def typed_as_json(typed: lpb.LegesObservation) -> dict[str, Any]:
    """A typed observation written back as the observation JSON, read from the contract."""
    colours = list(typed.colours)
    assert [v.colour for v in typed.values] == colours
    assert [s.colour for s in typed.law_stacks] == colours
    assert [r.seat for r in typed.law_requests] == list(range(len(typed.boards)))
    return {
        "card_set": {"name": typed.card_set_name, "digest": typed.card_set_digest},
        "colours": colours, "first_player": typed.first_player,
        "season": typed.season, "seasons": typed.seasons, "round": typed.round,
        "rounds": typed.rounds,
        "values": {v.colour: {"space": v.space, "card": v.card, "bonus": v.bonus}
                   for v in typed.values},
        "law_stacks": {s.colour: list(s.left) for s in typed.law_stacks},
        "deck": typed.deck, "discard": list(typed.discard),
        "boards": [board_as_json(board, colours) for board in typed.boards],
        "law_requests": [request_word(r.request) if r.HasField("request") else None
                         for r in typed.law_requests],
        "asked": step_as_json(typed.asked),
        "agenda": [agenda_word(step) for step in typed.agenda],
    }


@pytest.mark.parametrize(("seats", "seed"), CONFIGS)
def test_observations_match_the_engines_json(seats: int, seed: int) -> None:
    _, positions = playthrough(seats, seed)
    for views, _ in positions:
        for observation in views.values():
            message = observation_to_proto(GAME, observation)
            assert message.WhichOneof("game") == GAME
            assert pb.Observation.FromString(message.SerializeToString()) == message
            typed = message.leges
            expected = {k: v for k, v in observation.items() if k not in LEFT_TO_VIEW}
            assert set(observation) - set(expected) == LEFT_TO_VIEW  # nothing else left out
            assert typed_as_json(typed) == expected
            assert len(typed.boards) == observation["num_seats"]
            assert (typed.asked.WhichOneof("step") == "over") == (
                observation["result"] is not None)


def test_the_playthroughs_meet_every_step_and_agenda_entry() -> None:
    observations = [observation for config in CONFIGS for views, _ in playthrough(*config)[1]
                    for observation in views.values()]
    assert {o["asked"]["step"] for o in observations} == set(STEPS)
    assert {o["asked"]["pass"] for o in observations if "pass" in o["asked"]} == {1, 2}
    assert {s for o in observations for s in o["agenda"]} == set(codec.AGENDA_STEPS)
    assert {w for o in observations for w in o["law_requests"]} >= {None, "none"}
    assert any(w and w != "none" for o in observations for w in o["law_requests"])
    with pytest.raises(ValueError, match="no typed form"):
        codec.encode_step({"step": "setup"})


# ---------------------------------------------------------------------------------------
# Observations: nothing private of another seat
# ---------------------------------------------------------------------------------------
def strings_in(message: Any) -> set[str]:
    """Every string value anywhere in a message."""
    found: set[str] = set()
    for field, value in message.ListFields():
        values = value if field.is_repeated else [value]
        for item in values:
            if field.message_type is not None:
                found |= strings_in(item)
            elif isinstance(item, str):
                found.add(item)
    return found


@pytest.mark.parametrize(("seats", "seed"), CONFIGS)
def test_a_typed_observation_holds_only_the_viewers_own_secrets(seats: int, seed: int) -> None:
    _, positions = playthrough(seats, seed)
    hidden = {"hand": 0, "choice": 0, "request": 0, "drawn": 0}
    for views, private in positions:
        for viewer, observation in views.items():
            typed = observation_to_proto(GAME, observation).leges
            # the cards a player discarded at its latest exchange stay shown (C-L12), even
            # once a reshuffle (L11) has dealt them again: they tell nothing of a hand
            seen = strings_in(typed) - {card for board in typed.boards
                                        for card in board.discarded}
            for seat, board in enumerate(typed.boards):
                mine = private[seat]
                if seat == viewer:
                    assert list(board.hand.ids) == mine["hand"] and board.HasField("hand")
                    assert list(board.drawn.ids) == mine["drawn"] and board.HasField("drawn")
                    choice = mine["choice"]
                    assert board.HasField("choice") == (choice is not None)
                    if choice is not None:
                        assert choice_word(board.choice) == ("hold" if choice == HOLD
                                                             else choice)
                    assert board.HasField("request") == (mine["request"] is not None)
                    if mine["request"] is not None:
                        assert request_word(board.request) == mine["request"]
                    continue
                for name in ("hand", "choice", "request", "drawn"):
                    assert not board.HasField(name), (viewer, seat, name)
                # no card of its hand or drawn, its face-down one included, anywhere
                assert not set(mine["hand"]) & seen and not set(mine["drawn"]) & seen
                assert board.chosen == (mine["choice"] is not None)
                assert board.requested == (mine["request"] is not None)
                for name in hidden:
                    hidden[name] += bool(mine[name])
    # some other seat did hold each kind of secret while somebody else looked
    assert all(hidden.values()), hidden


# ---------------------------------------------------------------------------------------
# End to end: a whole game through a real server, typed decisions only
# ---------------------------------------------------------------------------------------
def assert_no_foreign_secret(view: pb.View, viewer: int | None) -> None:
    """No other seat's hand, choice, request or drawn cards, in the JSON nor the typed
    view, and legal decisions for the viewer only."""
    observation = json.loads(view.observation_json)
    typed = view.observation.leges
    assert view.observation.WhichOneof("game") == GAME
    for seat, board in enumerate(observation["boards"]):
        if seat == viewer:
            continue
        for name in ("hand", "choice", "request", "drawn"):
            assert board[name] is None, (viewer, seat, name)
            assert not typed.boards[seat].HasField(name), (viewer, seat, name)
    if viewer is None:
        assert not view.legal_decisions


def watch_one(client: CuriaClient, game_id: str, token: str,
              after: int) -> pb.WatchGameResponse:
    """The message of version `after + 1` of a WatchGame stream (then the stream ends)."""
    stream: Any = client.stub.WatchGame(pb.WatchGameRequest(
        game_id=game_id, seat_token=token, after_version=after))
    try:
        next(stream)  # the view at `after`
        return next(stream)  # type: ignore[no-any-return]
    finally:
        stream.cancel()


def test_a_three_player_game_played_with_typed_decisions_only(client: CuriaClient) -> None:
    seats = 3
    created = client.create_game(GAME, "standard", seats, seed=23)
    game_id = created.game_id
    tokens = {c.seat: c.token for c in created.seats}
    rng = random.Random(23)
    first = client.view(game_id).to_move[0]
    with pytest.raises(grpc.RpcError) as refused:  # a malformed typed decision: refused
        client.submit(game_id, tokens[first], 0, case(play=D.Play()))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "leges.play.card is not set" in (refused.value.details() or "")
    with pytest.raises(grpc.RpcError) as illegal:  # well-formed, not in the hand: illegal
        client.submit(game_id, tokens[first], 0, case(play=D.Play(card="no-such-card")))
    assert illegal.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    simultaneous_views = streamed_secret = 0
    secret_kinds: set[str] = set()
    while (spectator := client.view(game_id)).status != pb.GAME_STATUS_FINISHED:
        movers = list(spectator.to_move)
        views = {seat: client.view(game_id, token) for seat, token in tokens.items()}
        for viewer, view in [(None, spectator), *views.items()]:
            assert view.version == spectator.version
            assert view.observation.WhichOneof("game") == GAME
            assert_no_foreign_secret(view, viewer)
        asked = spectator.observation.leges.asked
        if asked.WhichOneof("step") in ("choose", "laws") and len(movers) > 1:
            simultaneous_views += 1
            assert set(getattr(asked, asked.WhichOneof("step")).seats) >= set(movers)
        seat = rng.choice(movers)
        own = views[seat]
        assert own.legal_decisions and all(d.WhichOneof("game") == GAME
                                           for d in own.legal_decisions)
        for other in set(range(seats)) - set(movers):
            assert not views[other].legal_decisions
        choice = rng.choice(list(own.legal_decisions))
        kind = choice.leges.WhichOneof("kind")
        answer = client.submit(game_id, tokens[seat], own.version,
                               pb.Decision(leges=choice.leges))  # no notation
        assert answer.version == own.version + 1 and not answer.duplicate
        if kind not in SECRET_VERBS or len(movers) == 1:
            continue
        # a face-down choice with others still to choose: shown to its own seat...
        mine = answer.view
        board = mine.observation.leges.boards[seat]
        if kind in ("play", "hold"):
            assert board.chosen and board.HasField("choice")
            assert choice_word(board.choice) == (choice.leges.play.card if kind == "play"
                                                 else "hold")
        else:
            assert board.requested and board.HasField("request")
        assert json.loads(mine.observation_json)["boards"][seat]["chosen" if kind in (
            "play", "hold") else "requested"]
        # ...to nobody else: another seat's and a spectator's views and streams
        other = next(s for s in movers if s != seat)
        for viewer, token in ((other, tokens[other]), (None, "")):
            assert_no_foreign_secret(client.view(game_id, token), viewer)
            seen = watch_one(client, game_id, token, own.version)
            assert seen.decision.secret and seen.decision.notation == ""
            assert seen.decision.seat == seat
            assert_no_foreign_secret(seen.view, viewer)
            other_board = seen.view.observation.leges.boards[seat]
            assert (other_board.chosen or other_board.requested)
            assert not other_board.HasField("choice") and not other_board.HasField("request")
            streamed_secret += 1
        secret_kinds.add(kind)
    assert simultaneous_views >= 12  # 12 rounds, at least one face-down choice each
    assert streamed_secret >= 12
    assert {"play"} <= secret_kinds, secret_kinds
    assert spectator.HasField("result") and spectator.result.reason == "seasons"
    assert sorted(s for g in spectator.result.ranking for s in g.seats) == list(range(seats))
    assert spectator.observation.leges.asked.WhichOneof("step") == "over"
    record = client.record(game_id)
    assert len(record.decisions) == spectator.version
    assert all(d.notation and not d.secret for d in record.decisions)  # the game is over
