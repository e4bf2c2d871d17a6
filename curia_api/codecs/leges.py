"""Leges' typed messages in the public contract (`curia.v1.Leges*`).

The directions a Value token moves and the steps of a round are fixed by the rules: they
are enums (their mappings built once from the engine's words; a word missing from the
contract fails at import). Colours and Theme cards come from the card set file: they stay
strings. Players are seats.

Decoding a client's typed decision raises `games.core.NotationError` and nothing else,
whatever the message holds (proto3 enums are open: 0 and unknown numbers arrive as ints),
and the message names the field at fault.

The typed observation is built from the engine's observation JSON for the same viewer
(`GameState.observation(seat)`) and nothing else: what the JSON hides from a viewer
(another player's hand, face-down choice, pending Law request and drawn cards) is `null`
there and stays unset here.
"""

from __future__ import annotations

from curia_api.codec import (
    GameCodec,
    card_set_id,
    decoded_case,
    enum_values,
    enum_word,
    register_codec,
)
from curia_api.v1 import game_service_pb2 as pb
from curia_api.v1 import leges_pb2 as lpb
from games.core import JSON, Decision, NotationError
from games.leges.rules import DIRECTIONS, VERBS, form_error

LEGES = "leges"
#: The steps an observation's `agenda` may list (games/leges/observation.py `agenda`).
AGENDA_STEPS = ("reveal", "ability", "double", "score", "laws", "exchange", "end-of-round",
                "end-of-season", "end-of-game")
#: The JSON words of a face-down choice that is not a card, and of a request for no Law.
HOLD_WORD, NO_LAW_WORD = "hold", "none"


# ---------------------------------------------------------------------------------------
# Enum mappings (engine word <-> proto enum number)
# ---------------------------------------------------------------------------------------


_DIRECTION = enum_values(lpb.LegesDirection, "LEGES_DIRECTION_", DIRECTIONS)
_AGENDA = enum_values(lpb.LegesAgendaStep, "LEGES_AGENDA_STEP_", AGENDA_STEPS)
_DIRECTION_NAME = {number: name for name, number in _DIRECTION.items()}





def _tier(value: int, field: str) -> str:
    if value == 0:
        raise NotationError(f"{field} is not set (tiers are 1 to 4)")
    return str(value)


# ---------------------------------------------------------------------------------------
# Decisions: engine -> contract
# ---------------------------------------------------------------------------------------
#: Verbs whose one argument is a Theme card id, held in the case's `card`.
_CARD_VERBS = ("play", "discard")
#: Verbs without arguments.
_EMPTY = ("hold", "pass", "nolaw", "draw")


def encode_decision(decision: Decision, out: pb.Decision) -> None:
    """Fill the Leges case of `out` with a well-formed engine decision."""
    problem = form_error(decision)
    if problem:
        raise NotationError(f"'{decision}' is not a {LEGES} decision: {problem}")
    verb, args = decision.verb, decision.args
    typed = out.leges
    if verb in _CARD_VERBS:
        getattr(typed, verb).card = args[0]
    elif verb in _EMPTY:
        getattr(typed, verb).SetInParent()
    elif verb == "shift":
        typed.shift.colour = args[0]
        typed.shift.direction = _DIRECTION[args[1]]
    elif verb == "law":
        tier = int(args[1])
        if not 0 < tier < 2**32:
            raise NotationError(f"'{decision}' is not a {LEGES} decision: tiers are 1 to 4")
        typed.law.colour, typed.law.tier = args[0], tier
    else:  # pragma: no cover - every verb of VERBS is handled above
        raise NotationError(f"'{decision}' has no typed form")


# ---------------------------------------------------------------------------------------
# Decisions: contract -> engine
# ---------------------------------------------------------------------------------------
def _decode_case(kind: str, typed: lpb.LegesDecision) -> Decision:
    field = f"{LEGES}.{kind}"
    case = getattr(typed, kind)
    if kind in _CARD_VERBS:
        return Decision(kind, (card_set_id(case.card, f"{field}.card"),))
    if kind in _EMPTY:
        return Decision(kind)
    if kind == "shift":
        return Decision("shift", (card_set_id(case.colour, f"{field}.colour"),
                                  enum_word(_DIRECTION_NAME, case.direction, f"{field}.direction")))
    if kind == "law":
        return Decision("law", (card_set_id(case.colour, f"{field}.colour"),
                                _tier(case.tier, f"{field}.tier")))
    raise NotationError(f"{field} is not a {LEGES} decision")  # pragma: no cover


def decode_decision(message: pb.Decision) -> Decision:
    """The engine decision the Leges case of `message` names (NotationError if none)."""
    return decoded_case(LEGES, message.leges, _decode_case)


# ---------------------------------------------------------------------------------------
# Observations
# ---------------------------------------------------------------------------------------
def _ids(ids: list[str] | None, out: lpb.LegesIds) -> None:
    """Set `out` to the ids when the viewer may see them; leave it unset when not (None)."""
    if ids is not None:
        out.SetInParent()
        out.ids.extend(ids)


def _request(word: str, out: lpb.LegesLawRequest) -> None:
    """A JSON Law request ("<colour> <tier>" or "none") as a typed one."""
    if word == NO_LAW_WORD:
        out.nolaw.SetInParent()
        return
    colour, tier = word.split()
    out.law.colour, out.law.tier = colour, int(tier)


def _board(view: JSON, colours: list[str]) -> lpb.LegesBoard:
    board = lpb.LegesBoard(
        seat=view["seat"],
        colours=[lpb.LegesColourScore(colour=c, points=view["points"][c], law=view["laws"][c])
                 for c in colours],
        vp=view["vp"], exposed=view["exposed"], played=view["played"],
        hand_size=view["hand_size"], chosen=view["chosen"], requested=view["requested"],
        drawn_count=view["drawn_count"], discarded=view["discarded"],
    )
    _ids(view["hand"], board.hand)
    _ids(view["drawn"], board.drawn)
    choice = view["choice"]
    if choice == HOLD_WORD:
        board.choice.hold.SetInParent()
    elif choice is not None:
        board.choice.card = choice
    if view["request"] is not None:
        _request(view["request"], board.request)
    return board


#: Every case of LegesStep's `step` oneof.
STEP_CASES = frozenset(field.name for field in
                       lpb.LegesStep.DESCRIPTOR.oneofs_by_name["step"].fields)


def encode_step(view: JSON) -> lpb.LegesStep:
    """The typed LegesStep of the observation's `asked` (its `pass` is `pass_number`)."""
    kind = view["step"]
    if kind not in STEP_CASES:
        raise ValueError(f"the {LEGES} step {kind!r} has no typed form")
    message = lpb.LegesStep()
    case = getattr(message, kind)
    case.SetInParent()
    if "pass" in view:
        case.pass_number = view["pass"]
    for name in ("seats", "queue"):
        if name in view:
            getattr(case, name).extend(view[name])
    return message


def encode_observation(observation: JSON, out: pb.Observation) -> None:
    """Fill the Leges case of `out` from the engine's observation JSON."""
    colours = list(observation["colours"])
    typed = lpb.LegesObservation(
        card_set_name=observation["card_set"]["name"],
        card_set_digest=observation["card_set"]["digest"],
        colours=colours,
        first_player=observation["first_player"],
        season=observation["season"], seasons=observation["seasons"],
        round=observation["round"], rounds=observation["rounds"],
        values=[lpb.LegesValue(colour=c, space=value["space"], card=value["card"],
                               bonus=value["bonus"])
                for c in colours for value in [observation["values"][c]]],
        law_stacks=[lpb.LegesLawStack(colour=c, left=observation["law_stacks"][c])
                    for c in colours],
        deck=observation["deck"], discard=observation["discard"],
        boards=[_board(view, colours) for view in observation["boards"]],
        agenda=[_AGENDA[step] for step in observation["agenda"]],
    )
    for seat, word in enumerate(observation["law_requests"]):
        entry = typed.law_requests.add(seat=seat)
        if word is not None:
            _request(word, entry.request)
    typed.asked.CopyFrom(encode_step(observation["asked"]))
    out.leges.CopyFrom(typed)


#: The verbs of the notation, each the name of its typed case (checked at import).
_CASES = frozenset(field.name for field in
                   lpb.LegesDecision.DESCRIPTOR.oneofs_by_name["kind"].fields)
if set(VERBS) != _CASES:  # pragma: no cover - the engine and the contract drifted apart
    raise ImportError(f"LegesDecision's cases {sorted(_CASES)} are not Leges' verbs "
                      f"{sorted(VERBS)}")

register_codec(GameCodec(LEGES, encode_decision, decode_decision, encode_observation))
