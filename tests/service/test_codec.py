"""The codec between the engine and the curia.v1 contract (curia_api.codec)."""

from __future__ import annotations

import json
import random
import re
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from curia_api.codec import (
    decision_from_proto,
    decision_to_proto,
    events_to_proto,
    observation_to_proto,
    result_to_proto,
)
from curia_api.codecs import municipium as codec
from curia_api.v1 import game_service_pb2 as pb
from curia_api.v1 import municipium_pb2 as mpb
from games import new_game
from games.core import Decision, Event, GameState, NotationError, Result, apply_forfeits, notation
from games.municipium import MunicipiumState
from games.municipium.board import COLOURS, FAMILIES, INSTITUTIONS
from games.municipium.decisions import VOCABULARY

GAME = "municipium"
#: (variant, seats, seed): every seat count of both editions, two seeds each.
CONFIGS = [(variant, seats, seed)
           for variant, counts in (("classic", (3, 4, 5)), ("revised", (2, 3, 4)))
           for seats in counts for seed in (1, 2)]
KINDS = [f.name for f in mpb.MunicipiumDecision.DESCRIPTOR.oneofs_by_name["kind"].fields]


#: A position met in a playthrough: the observation (as stored JSON), the citizen drawn and
#: waiting to be placed and the invited citizens still to place, read from the engine.
Position = tuple[Any, str | None, list[str] | None]


def drawn_and_invited(state: MunicipiumState) -> tuple[str | None, list[str] | None]:
    """From the engine's own frames: the citizen to place now, the invitation pending."""
    top = state.frames[-1] if state.frames else {}
    drawn = COLOURS[top["colour"]] if top.get("k") == "place" else None
    invites = [f["colours"] for f in state.frames if f["k"] == "invite"]
    return drawn, [COLOURS[c] for c in invites[-1]] if invites else None


@cache
def playthrough(variant: str, seats: int, seed: int) -> tuple[tuple[Decision, ...],
                                                              tuple[Position, ...]]:
    """A random game: every distinct legal decision met, and every position."""
    state = new_game(GAME, variant, seats, seed=seed)
    assert isinstance(state, MunicipiumState)
    rng = random.Random(seed)
    met: dict[Decision, None] = {}
    positions = []
    while True:
        viewer = rng.choice([None, *range(seats)])
        observation = json.loads(json.dumps(state.observation(viewer)))
        positions.append((observation, *drawn_and_invited(state)))
        if state.is_over:
            break
        seat = state.to_move()[0]
        legal = state.legal_decisions(seat)
        met.update(dict.fromkeys(legal))
        state.apply(seat, rng.choice(legal))
    return tuple(met), tuple(positions)


def fresh(variant: str = "classic", seats: int = 3) -> GameState:
    return new_game(GAME, variant, seats, seed=5)


def enum_word(enum: Any, prefix: str, number: int) -> str:
    """`MUNICIPIUM_CITIZEN_PRIEST` -> `priest`, read from the contract, not the codec."""
    name: str = enum.Name(number)
    assert name.startswith(prefix)
    return name[len(prefix):].lower().replace("_", "-")


# ---------------------------------------------------------------------------------------
# Decisions round-trip
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("variant", "seats", "seed"), CONFIGS)
def test_every_legal_decision_round_trips(variant: str, seats: int, seed: int) -> None:
    decisions, _ = playthrough(variant, seats, seed)
    state = fresh(variant, seats)
    for decision in decisions:
        message = decision_to_proto(GAME, decision)
        assert message.notation == notation(decision)
        assert message.WhichOneof("game") == GAME
        assert message.municipium.WhichOneof("kind") is not None
        # both set, notation only, typed case only
        assert decision_from_proto(state, message) == decision
        assert decision_from_proto(state, pb.Decision(notation=message.notation)) == decision
        typed = pb.Decision(municipium=message.municipium)
        wire = typed.SerializeToString()
        again = pb.Decision.FromString(wire)
        assert again == typed and again.WhichOneof("game") == GAME
        assert decision_from_proto(state, typed) == decision
        assert decision_from_proto(state, again) == decision


def test_the_playthroughs_meet_every_verb_and_every_case() -> None:
    decisions = [d for config in CONFIGS for d in playthrough(*config)[0]]
    assert {d.verb for d in decisions} == set(VOCABULARY)
    kinds = {decision_to_proto(GAME, d).municipium.WhichOneof("kind") for d in decisions}
    assert kinds == set(KINDS)


@pytest.mark.parametrize(("decision", "case"), [
    (Decision("move", ("baths*", "emporium")),
     {"move": {"member": {"institution": mpb.MUNICIPIUM_INSTITUTION_BATHS,
                          "distinguished": True}, "to": mpb.MUNICIPIUM_INSTITUTION_EMPORIUM}}),
    (Decision("reposition", ("forum", "temple")),
     {"reposition": {"member": {"institution": mpb.MUNICIPIUM_INSTITUTION_FORUM},
                     "to": mpb.MUNICIPIUM_INSTITUTION_TEMPLE}}),
    (Decision("play", ("powers",)), {"play": {"card": mpb.MUNICIPIUM_CARD_YOUR_POWERS}}),
    (Decision("play", ("grande-famille",)),
     {"play": {"card": mpb.MUNICIPIUM_CARD_GRANDE_FAMILLE}}),
    (Decision("send", ("2",)), {"tavern_send": {"members": 2}}),
    (Decision("send", ("0", "1*")), {"tavern_send": {"members": 0, "distinguished": 1}}),
    (Decision("exchange", ("priest", "advocate", "favour")),
     {"exchange": {"citizens": [mpb.MUNICIPIUM_CITIZEN_PRIEST, mpb.MUNICIPIUM_CITIZEN_ADVOCATE],
                   "favours": 1}}),
    (Decision("exchange", ("favour", "favour", "favour")), {"exchange": {"favours": 3}}),
    (Decision("take", ("merchant", "orange")),
     {"take": {"citizen": mpb.MUNICIPIUM_CITIZEN_MERCHANT,
               "family": mpb.MUNICIPIUM_FAMILY_ORANGE}}),
    (Decision("take", ("priest", "temple")),
     {"take": {"citizen": mpb.MUNICIPIUM_CITIZEN_PRIEST,
               "institution": mpb.MUNICIPIUM_INSTITUTION_TEMPLE}}),
    (Decision("from", ("forum",)),
     {"tavern_source": {"institution": mpb.MUNICIPIUM_INSTITUTION_FORUM}}),
    (Decision("family", ("pink",)), {"tavern_family": {"family": mpb.MUNICIPIUM_FAMILY_PINK}}),
    (Decision("keep", ("priest", "advocate")),
     {"keep": {"first": mpb.MUNICIPIUM_CITIZEN_PRIEST,
               "second": mpb.MUNICIPIUM_CITIZEN_ADVOCATE}}),
    (Decision("done"), {"done": {}}),
])
def test_typed_cases_are_the_documented_ones(decision: Decision, case: dict[str, Any]) -> None:
    expected = mpb.MunicipiumDecision(**case)
    assert decision_to_proto(GAME, decision).municipium == expected
    assert decision_from_proto(fresh(), pb.Decision(municipium=expected)) == decision


def test_every_enum_value_of_the_contract_has_an_engine_word() -> None:
    for enum, prefix, mapping, words in [
        (mpb.MunicipiumInstitution, "MUNICIPIUM_INSTITUTION_", codec._INSTITUTION, INSTITUTIONS),
        (mpb.MunicipiumCitizen, "MUNICIPIUM_CITIZEN_", codec._CITIZEN, COLOURS),
        (mpb.MunicipiumFamily, "MUNICIPIUM_FAMILY_", codec._FAMILY, FAMILIES),
        (mpb.MunicipiumCard, "MUNICIPIUM_CARD_", codec._CARD, codec.CARD_NAMES),
    ]:
        assert set(mapping) == set(words)
        assert sorted(mapping.values()) == sorted(v for v in enum.values() if v)
        for word, number in mapping.items():
            expected = "your-powers" if word == "powers" else word
            assert enum_word(enum, prefix, number) == expected


# ---------------------------------------------------------------------------------------
# Decisions: what a client may get wrong
# ---------------------------------------------------------------------------------------
def test_notation_and_typed_case_must_agree() -> None:
    state = fresh()
    typed = decision_to_proto(GAME, Decision("setup", ("temple",))).municipium
    with pytest.raises(NotationError, match="disagree"):
        decision_from_proto(state, pb.Decision(notation="setup forum", municipium=typed))
    with pytest.raises(NotationError, match="disagree"):
        decision_from_proto(state, pb.Decision(notation="skip", municipium=typed))
    both = pb.Decision(notation="  SETUP   temple ", municipium=typed)
    assert decision_from_proto(state, both) == Decision("setup", ("temple",))


def test_unordered_decisions_come_out_in_the_engines_order() -> None:
    state = fresh()
    keep = pb.Decision(municipium=mpb.MunicipiumDecision(keep=mpb.MunicipiumDecision.Keep(
        first=mpb.MUNICIPIUM_CITIZEN_ADVOCATE, second=mpb.MUNICIPIUM_CITIZEN_PRIEST)))
    assert decision_from_proto(state, keep) == Decision("keep", ("priest", "advocate"))
    keep.notation = "keep advocate priest"
    assert decision_from_proto(state, keep) == Decision("keep", ("priest", "advocate"))
    exchange = pb.Decision(municipium=mpb.MunicipiumDecision(
        exchange=mpb.MunicipiumDecision.Exchange(
            citizens=[mpb.MUNICIPIUM_CITIZEN_ADVOCATE, mpb.MUNICIPIUM_CITIZEN_PRIEST],
            favours=1)))
    expected = Decision("exchange", ("priest", "advocate", "favour"))
    assert decision_from_proto(state, exchange) == expected
    exchange.notation = "exchange favour advocate priest"
    assert decision_from_proto(state, exchange) == expected


def case(**kind: Any) -> pb.Decision:
    return pb.Decision(municipium=mpb.MunicipiumDecision(**kind))


D = mpb.MunicipiumDecision


@pytest.mark.parametrize(("message", "error"), [
    (pb.Decision(), "empty decision"),
    (pb.Decision(notation="fly temple"), "unknown verb"),
    (pb.Decision(notation="setup atlantis"), "cannot be 'atlantis'"),
    (case(setup=D.Setup()), r"municipium\.setup\.institution is not set"),
    (case(setup=D.Setup(institution=99)), r"municipium\.setup\.institution has no value 99"),
    (case(setup=D.Setup(institution=-1)), "has no value -1"),
    (case(move=D.Move(to=mpb.MUNICIPIUM_INSTITUTION_BATHS)),
     r"municipium\.move\.member\.institution is not set"),
    (case(reposition=D.Reposition(member=mpb.MunicipiumMember(institution=1), to=8)),
     r"municipium\.reposition\.to has no value 8"),
    (case(play=D.Play()), r"municipium\.play\.card is not set"),
    (case(play=D.Play(card=mpb.MUNICIPIUM_CARD_ONE_POWER)), "MUNICIPIUM_CARD_COMMON"),
    (case(place=D.Place(citizen=mpb.MUNICIPIUM_CITIZEN_PRIEST)),
     r"municipium\.place\.institution is not set"),
    (case(keep=D.Keep(first=mpb.MUNICIPIUM_CITIZEN_PRIEST, second=5)),
     r"municipium\.keep\.second has no value 5"),
    (case(tavern_family=D.TavernFamily(family=6)), r"tavern_family\.family has no value 6"),
    (case(tavern_source=D.TavernSource()), r"tavern_source\.institution is not set"),
    (case(tavern_send=D.TavernSend(members=99)), "cannot be '99'"),
    (case(tavern_send=D.TavernSend(members=1, distinguished=2**32 - 1)), "cannot be"),
    (case(exchange=D.Exchange(favours=2**32 - 1)), "pays 3 tokens"),
    (case(exchange=D.Exchange(citizens=[1, 2])), "pays 3 tokens"),
    (case(exchange=D.Exchange(citizens=[1, 0], favours=1)),
     r"municipium\.exchange\.citizens\[1\] is not set"),
    (case(take=D.Take(citizen=mpb.MUNICIPIUM_CITIZEN_PRIEST)), "source"),
    (case(take=D.Take(citizen=1, family=0)), r"municipium\.take\.family is not set"),
    (case(take=D.Take(institution=1)), r"municipium\.take\.citizen is not set"),
    (pb.Decision(municipium=mpb.MunicipiumDecision()), "no case set"),
])
def test_malformed_decisions_are_notation_errors(message: pb.Decision, error: str) -> None:
    with pytest.raises(NotationError, match=error):
        decision_from_proto(fresh(), message)


def test_a_typed_case_of_another_game_is_refused() -> None:
    state = fresh()
    state.game = "leges"  # as if the position were of a game without typed decisions
    with pytest.raises(NotationError, match="municipium one, but this game is leges"):
        decision_from_proto(state, case(skip=D.Skip()))


def test_decision_to_proto_refuses_what_is_not_a_decision() -> None:
    with pytest.raises(NotationError):
        decision_to_proto(GAME, Decision("fly", ("temple",)))
    untyped = decision_to_proto("chess", Decision("skip"))  # no codec: notation alone
    assert untyped.notation == "skip" and untyped.WhichOneof("game") is None


# -- fuzzing: whatever the message holds, the only error is a NotationError --------------
ENUM_NUMBERS = st.one_of(st.integers(-2, 11), st.integers(-(2**31), 2**31 - 1))
COUNTS = st.one_of(st.integers(0, 16), st.integers(0, 2**32 - 1))
WORDS = sorted({w for slots in VOCABULARY.values() for slot in slots for w in slot}
               | set(VOCABULARY) | {"", "*", ">", "baths>", ">temple", "0*", "-1"})
NOTATIONS = st.one_of(
    st.just(""),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join),
    st.builds(lambda verb, a, b: f"{verb} {a}>{b}", st.sampled_from(["move", "reposition"]),
              st.sampled_from(WORDS), st.sampled_from(WORDS)),
    st.text(st.characters(exclude_categories=["Cs"]), max_size=60),
)


def fill(data: st.DataObject, message: Any, valid: bool = False) -> None:
    """Random values in every field of `message` (one random case of each oneof).

    `valid`: enum fields get one of their declared non-zero values, counts stay small.
    """
    descriptor = message.DESCRIPTOR
    chosen = {oneof.name: data.draw(st.sampled_from([None, *(f.name for f in oneof.fields)]))
              for oneof in descriptor.oneofs}
    for field in descriptor.fields:
        if field.containing_oneof is not None and chosen[field.containing_oneof.name] != field.name:
            continue
        if field.message_type is not None:
            child = getattr(message, field.name)
            child.SetInParent()
            fill(data, child, valid)
            continue
        values = {field.TYPE_ENUM: ENUM_NUMBERS, field.TYPE_UINT32: COUNTS,
                  field.TYPE_BOOL: st.booleans()}[field.type]
        if valid and field.type == field.TYPE_ENUM:
            values = st.sampled_from([v.number for v in field.enum_type.values if v.number])
        elif valid and field.type == field.TYPE_UINT32:
            values = st.integers(0, 3)
        if field.is_repeated:
            getattr(message, field.name).extend(data.draw(st.lists(values, max_size=5)))
        else:
            setattr(message, field.name, data.draw(values))


STATES = [fresh("classic", 5), fresh("revised", 2)]


def outcome(state: GameState, message: pb.Decision) -> Decision | str:
    try:
        decision = decision_from_proto(state, message)
    except NotationError as error:
        return f"NotationError: {error}"
    assert state.as_decision(decision) == decision  # well-formed for the game
    return decision


@settings(max_examples=600, deadline=None)
@given(data=st.data(), notation_text=st.one_of(st.just(""), NOTATIONS), typed=st.booleans(),
       state=st.sampled_from(STATES))
def test_fuzzed_decisions_only_ever_raise_notation_errors(
        data: st.DataObject, notation_text: str, typed: bool, state: GameState) -> None:
    message = pb.Decision(notation=notation_text)
    if typed:
        message.municipium.SetInParent()
        fill(data, message.municipium)
    first = outcome(state, message)
    assert outcome(state, pb.Decision.FromString(message.SerializeToString())) == first


@settings(max_examples=400, deadline=None)
@given(data=st.data(), kind=st.sampled_from(KINDS))
def test_fuzzed_valid_typed_cases_decode_to_their_own_encoding(data: st.DataObject,
                                                               kind: str) -> None:
    """Typed cases with declared enum values decode to a decision whose encoding decodes
    to it again (the same case; Keep and Exchange may come back reordered)."""
    message = mpb.MunicipiumDecision()
    getattr(message, kind).SetInParent()
    fill(data, getattr(message, kind), valid=True)
    result = outcome(STATES[0], pb.Decision(municipium=message))
    if isinstance(result, str):  # only where the case's fields do not make a decision
        assert kind in {"play", "tavern_send", "exchange", "take"}, result
        return
    encoded = decision_to_proto(GAME, result)
    assert encoded.municipium.WhichOneof("kind") == kind
    assert decision_from_proto(STATES[0], encoded) == result
    if kind not in {"keep", "exchange"}:
        assert encoded.municipium == message


# ---------------------------------------------------------------------------------------
# Observations
# ---------------------------------------------------------------------------------------
def citizen_word(number: int) -> str:
    return enum_word(mpb.MunicipiumCitizen, "MUNICIPIUM_CITIZEN_", number)


def family_word(number: int) -> str:
    return enum_word(mpb.MunicipiumFamily, "MUNICIPIUM_FAMILY_", number)


def card_word(number: int) -> str:
    word = enum_word(mpb.MunicipiumCard, "MUNICIPIUM_CARD_", number)
    return "powers" if word == "your-powers" else word


@pytest.mark.parametrize(("variant", "seats", "seed"), CONFIGS)
def test_observations_match_the_engines_json(variant: str, seats: int, seed: int) -> None:
    _, positions = playthrough(variant, seats, seed)
    for observation, drawn, invited in positions:
        message = observation_to_proto(GAME, observation)
        assert pb.Observation.FromString(message.SerializeToString()) == message
        typed = message.municipium
        bag = observation["bag"]
        assert (typed.bag_priests, typed.bag_militia, typed.bag_merchants,
                typed.bag_advocates) == tuple(bag[c] for c in COLOURS)
        assert (typed.bag_priests + typed.bag_militia + typed.bag_merchants
                + typed.bag_advocates) == sum(bag.values())
        assert len(typed.institutions) == 7
        for number, (view, json_view) in enumerate(
                zip(typed.institutions, observation["institutions"], strict=True), 1):
            assert view.institution == number
            assert {family_word(p.family): [p.members, p.distinguished]
                    for p in view.presence} == json_view["members"]
            assert (sum(p.members + p.distinguished for p in view.presence)
                    == sum(sum(m) for m in json_view["members"].values()))
            assert [citizen_word(c) for c in view.citizens] == json_view["citizens"]
            room = json_view["room_citizen"]
            assert view.room_citizen == (0 if room is None else COLOURS.index(room) + 1)
            assert view.room_favour == json_view["room_favour"]
        for supply, json_supply in zip(typed.supplies, observation["supplies"], strict=True):
            assert family_word(supply.family) == json_supply["family"]
            assert (supply.priests, supply.militia, supply.merchants, supply.advocates) == tuple(
                json_supply["citizens"][c] for c in COLOURS)
            assert (supply.favours, supply.decurions) == (json_supply["favours"],
                                                          json_supply["decurions"])
            assert [card_word(c) for c in supply.family_cards] == json_supply["family_cards"]
        assert len(typed.supplies) == seats
        assert INSTITUTIONS[typed.praefect - 1] == observation["praefect"]
        assert [family_word(f) for f in typed.temple_order] == observation["temple_order"]
        assert [card_word(c) for c in typed.discard] == observation["discard"]
        assert (typed.favour_supply, typed.wreath_supply, typed.deck_size) == (
            observation["favour_supply"], observation["wreath_supply"], observation["deck_size"])
        assert (typed.first_seat, typed.turn, typed.active_seat) == (
            observation["first"], observation["turn"], observation["active"])
        asked = observation["asked"]
        assert (asked["citizen"] if asked and asked["step"] == "place" else None) == drawn
        assert (citizen_word(typed.drawn_citizen) if typed.drawn_citizen else None) == drawn
        assert [citizen_word(c) for c in typed.invited_citizens] == (invited or [])
        assert typed.HasField("asked") == (asked is not None)
        if asked is not None:
            assert typed_step_as_json(typed.asked) == asked
        assert [typed_step_as_json(step) for step in typed.agenda] == observation["agenda"]


def typed_step_as_json(message: mpb.MunicipiumStep) -> dict[str, Any]:
    """A typed step written back as the observation JSON's step, read from the contract:
    the case name is the step's, each field of the case the JSON field of that name."""
    kind = message.WhichOneof("step")
    assert kind is not None
    step: dict[str, Any] = {"step": kind.replace("_", "-")}
    if message.HasField("seat"):
        step.update(seat=message.seat, family=family_word(message.family))
    else:
        assert message.family == mpb.MUNICIPIUM_FAMILY_UNSPECIFIED
    case = getattr(message, kind)
    for field in case.DESCRIPTOR.fields:
        value = getattr(case, field.name)
        if field.containing_oneof is not None:
            if case.WhichOneof(field.containing_oneof.name) == field.name:
                step[field.containing_oneof.name] = field_word(field, value)
        elif field.name == "last_moved":
            step[field.name] = {"from": institution_word(value.member.institution),
                                "to": institution_word(value.to),
                                "distinguished": value.member.distinguished,
                                } if case.HasField(field.name) else None
        elif field.name == "to_reposition":
            step[field.name] = {institution_word(m.institution): [m.members, m.distinguished]
                                for m in value}
        elif field.is_repeated:
            step[field.name] = [field_word(field, v) for v in value]
        else:
            step[field.name] = field_word(field, value)
    return step


def field_word(field: Any, value: Any) -> Any:
    """An enum number as its engine word; any other value as it is."""
    if field.type != field.TYPE_ENUM:
        return value
    words = {"MunicipiumCitizen": citizen_word, "MunicipiumFamily": family_word,
             "MunicipiumInstitution": institution_word, "MunicipiumCard": card_word}
    return words[field.enum_type.name](value)


def institution_word(number: int) -> str:
    return enum_word(mpb.MunicipiumInstitution, "MUNICIPIUM_INSTITUTION_", number)


def test_the_playthroughs_meet_drawn_and_invited_citizens_and_every_step() -> None:
    positions = [p for config in CONFIGS for p in playthrough(*config)[1]]
    assert sum(drawn is not None for _, drawn, _ in positions) > 10
    assert sum(invited is not None for _, _, invited in positions) > 3
    met = {step["step"] for observation, _, _ in positions
           for step in [observation["asked"] or {"step": "none"}, *observation["agenda"]]}
    cases = {f.name.replace("_", "-") for f in mpb.MunicipiumStep.DESCRIPTOR.oneofs_by_name[
        "step"].fields}
    # a Citizen event is automatic and resolved before anyone is asked: never seen pending
    assert met - {"none"} == cases - {"citizen-event"}
    event = {"step": "citizen-event", "institution": "forum"}
    assert typed_step_as_json(codec.encode_step(event)) == event


def test_a_game_without_typed_messages_gets_an_empty_typed_observation() -> None:
    assert observation_to_proto("chess", {"anything": 1}) == pb.Observation()


# ---------------------------------------------------------------------------------------
# Events
# ---------------------------------------------------------------------------------------
def test_events_are_filtered_by_what_the_viewer_may_see() -> None:
    public = Event("praefect", {"institution": "forum", "favour": None})
    private = Event("draw", {"family": "orange", "citizen": "priest"}, seats=(1,))
    events = [public, private]
    assert [e.kind for e in events_to_proto(7, events, None)] == ["praefect"]
    assert [e.kind for e in events_to_proto(7, events, 0)] == ["praefect"]
    mine = events_to_proto(7, events, 1)
    assert [e.kind for e in mine] == ["praefect", "draw"]
    assert all(e.version == 7 for e in mine)
    assert mine[0].data_json == '{"favour":null,"institution":"forum"}'
    assert json.loads(mine[1].data_json) == private.data
    assert events_to_proto(1, [], 1) == []


def test_engine_events_become_compact_sorted_json() -> None:
    state = fresh()
    seat = state.to_move()[0]
    events = state.apply(seat, state.legal_decisions(seat)[0])
    sent = events_to_proto(1, events, None)
    assert [e.kind for e in sent] == [e.kind for e in events]
    for message, event in zip(sent, events, strict=True):
        assert message.data_json == json.dumps(event.data, sort_keys=True, separators=(",", ":"))
        assert not re.search(r"[:,] ", message.data_json)


# ---------------------------------------------------------------------------------------
# Results and forfeits
# ---------------------------------------------------------------------------------------
SCORES = tuple({"decurions": 5 - s, "citizens_and_favours": s, "favours": 0} for s in range(5))
RESULT = Result(((2,), (0, 4), (1,), (3,)), SCORES, "target")


@pytest.mark.parametrize(("forfeited", "ranking"), [
    (set(), ((2,), (0, 4), (1,), (3,))),
    ({0}, ((2,), (4,), (1,), (3,), (0,))),
    ({2}, ((0, 4), (1,), (3,), (2,))),
    ({4, 0}, ((2,), (1,), (3,), (0, 4))),
    ({3}, ((2,), (0, 4), (1,), (3,))),
    ({0, 1, 2, 3, 4}, ((0, 1, 2, 3, 4),)),
])
def test_apply_forfeits_ranks_forfeited_seats_last(forfeited: set[int],
                                                   ranking: tuple[tuple[int, ...], ...]) -> None:
    adjusted = apply_forfeits(RESULT, forfeited)
    assert adjusted.ranking == ranking
    assert (adjusted.scores, adjusted.reason) == (RESULT.scores, RESULT.reason)
    assert RESULT.ranking == ((2,), (0, 4), (1,), (3,))  # untouched


def test_apply_forfeits_refuses_unknown_seats() -> None:
    with pytest.raises(ValueError, match="not in this result"):
        apply_forfeits(RESULT, {9})


@settings(max_examples=200, deadline=None)
@given(data=st.data(), seats=st.integers(1, 6))
def test_apply_forfeits_keeps_the_others_order_and_ties(data: st.DataObject, seats: int) -> None:
    order = data.draw(st.permutations(range(seats)))
    cuts = sorted(data.draw(st.sets(st.integers(1, seats - 1))) if seats > 1 else set())
    ranking = tuple(tuple(order[a:b]) for a, b in zip([0, *cuts], [*cuts, seats], strict=True))
    forfeited = data.draw(st.sets(st.integers(0, seats - 1)))
    result = Result(ranking, tuple({"x": s} for s in range(seats)), "target")
    adjusted = apply_forfeits(result, forfeited)
    kept = tuple(g for g in (tuple(s for s in g if s not in forfeited) for g in ranking) if g)
    assert adjusted.ranking == ((*kept, tuple(sorted(forfeited))) if forfeited else ranking)
    assert sorted(s for g in adjusted.ranking for s in g) == list(range(seats))
    worst_kept = max((adjusted.rank_of(s) for s in range(seats) if s not in forfeited), default=0)
    assert all(adjusted.rank_of(s) > worst_kept for s in forfeited)


def test_result_to_proto() -> None:
    message = result_to_proto(RESULT, {0})
    assert [list(g.seats) for g in message.ranking] == [[2], [4], [1], [3], [0]]
    assert [s.seat for s in message.scores] == [0, 1, 2, 3, 4]
    assert [s.rank for s in message.scores] == [5, 3, 1, 4, 2]
    assert [s.forfeited for s in message.scores] == [True, False, False, False, False]
    assert dict(message.scores[1].figures) == SCORES[1]
    assert message.reason == "target"
    plain = result_to_proto(RESULT)
    assert [s.rank for s in plain.scores] == [2, 4, 1, 5, 2]
    assert not any(s.forfeited for s in plain.scores)
    assert pb.GameResult.FromString(message.SerializeToString()) == message


def test_result_of_a_real_game() -> None:
    state = fresh("revised", 4)
    rng = random.Random(3)
    while not state.is_over:
        seat = state.to_move()[0]
        state.apply(seat, rng.choice(state.legal_decisions(seat)))
    result = state.result()
    assert result is not None
    message = result_to_proto(result, frozenset({result.winners[0]}))
    assert list(message.ranking[-1].seats) == [result.winners[0]]
    assert message.scores[result.winners[0]].rank == 4 - len(message.ranking[-1].seats) + 1
    assert {k: int(v) for k, v in message.scores[0].figures.items()} == result.scores[0]
