"""Municipium's typed messages in the public contract (`curia.v1.Municipium*`).

Enum mappings are built once from the engine's name tuples; a name missing from the
contract fails at import, so the engine and the contract cannot drift apart silently.
Decoding a client's typed decision raises `games.core.NotationError` and nothing else,
whatever the message holds (proto3 enums are open: 0 and unknown numbers arrive as ints).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from curia_api.codec import GameCodec, enum_values, enum_word, register_codec
from curia_api.v1 import game_service_pb2 as pb
from curia_api.v1 import municipium_pb2 as mpb
from games.core import JSON, Decision, NotationError
from games.municipium import decisions as dec
from games.municipium.board import (
    ALL_POWERS,
    CITIZEN_VISIT,
    COLOUR_INDEX,
    COLOURS,
    FAMILIES,
    FAVOUR,
    GRANDE_FAMILLE,
    INSTITUTIONS,
    INVITATIONS,
    ONE_POWER,
    PRAEFECT,
    PRAEFECT_VISIT,
    YOUR_POWERS,
)

MUNICIPIUM = "municipium"


# ---------------------------------------------------------------------------------------
# Enum mappings (engine word <-> proto enum number)
# ---------------------------------------------------------------------------------------


#: The cards of the contract, in its order: `common` (play the top of the deck), the
#: family cards of every edition, then the common deck's cards.
CARD_NAMES = ("common", YOUR_POWERS, PRAEFECT, INVITATIONS, GRANDE_FAMILLE,
              PRAEFECT_VISIT, CITIZEN_VISIT, ONE_POWER, ALL_POWERS)

_INSTITUTION: dict[str, mpb.MunicipiumInstitution] = enum_values(
    mpb.MunicipiumInstitution, "MUNICIPIUM_INSTITUTION_", INSTITUTIONS)
_CITIZEN: dict[str, mpb.MunicipiumCitizen] = enum_values(
    mpb.MunicipiumCitizen, "MUNICIPIUM_CITIZEN_", COLOURS)
_FAMILY: dict[str, mpb.MunicipiumFamily] = enum_values(
    mpb.MunicipiumFamily, "MUNICIPIUM_FAMILY_", FAMILIES)
_CARD: dict[str, mpb.MunicipiumCard] = enum_values(
    mpb.MunicipiumCard, "MUNICIPIUM_CARD_", CARD_NAMES, {YOUR_POWERS: "your-powers"})

_INSTITUTION_NAME: dict[int, str] = {number: name for name, number in _INSTITUTION.items()}
_CITIZEN_NAME: dict[int, str] = {number: name for name, number in _CITIZEN.items()}
_FAMILY_NAME: dict[int, str] = {number: name for name, number in _FAMILY.items()}
_CARD_NAME: dict[int, str] = {number: name for name, number in _CARD.items()}




# ---------------------------------------------------------------------------------------
# Decisions: engine -> contract
# ---------------------------------------------------------------------------------------
def _set_member(member: mpb.MunicipiumMember, word: str) -> None:
    member.institution = _INSTITUTION[word.rstrip("*")]
    member.distinguished = word.endswith("*")


def _enc_send(args: tuple[str, ...], out: mpb.MunicipiumDecision) -> None:
    out.tavern_send.members = int(args[0])
    out.tavern_send.distinguished = int(args[1].rstrip("*")) if len(args) > 1 else 0


def _enc_exchange(args: tuple[str, ...], out: mpb.MunicipiumDecision) -> None:
    out.exchange.SetInParent()
    out.exchange.citizens.extend(_CITIZEN[word] for word in args if word in _CITIZEN)
    out.exchange.favours = args.count(FAVOUR)


def _enc_take(args: tuple[str, ...], out: mpb.MunicipiumDecision) -> None:
    out.take.citizen = _CITIZEN[args[0]]
    if args[1] in _FAMILY:
        out.take.family = _FAMILY[args[1]]
    else:
        out.take.institution = _INSTITUTION[args[1]]


def _enc_arrow(kind: str) -> Callable[[tuple[str, ...], mpb.MunicipiumDecision], None]:
    def encode(args: tuple[str, ...], out: mpb.MunicipiumDecision) -> None:
        message = getattr(out, kind)
        _set_member(message.member, args[0])
        message.to = _INSTITUTION[args[1]]
    return encode


def _enc_empty(kind: str) -> Callable[[tuple[str, ...], mpb.MunicipiumDecision], None]:
    def encode(args: tuple[str, ...], out: mpb.MunicipiumDecision) -> None:
        getattr(out, kind).SetInParent()
    return encode


def _enc_institution(kind: str) -> Callable[[tuple[str, ...], mpb.MunicipiumDecision], None]:
    def encode(args: tuple[str, ...], out: mpb.MunicipiumDecision) -> None:
        getattr(out, kind).institution = _INSTITUTION[args[0]]
    return encode


def _enc_play(args: tuple[str, ...], out: mpb.MunicipiumDecision) -> None:
    out.play.card = _CARD[args[0]]


def _enc_place(args: tuple[str, ...], out: mpb.MunicipiumDecision) -> None:
    out.place.citizen = _CITIZEN[args[0]]
    out.place.institution = _INSTITUTION[args[1]]


def _enc_keep(args: tuple[str, ...], out: mpb.MunicipiumDecision) -> None:
    out.keep.first = _CITIZEN[args[0]]
    out.keep.second = _CITIZEN[args[1]]


def _enc_family(args: tuple[str, ...], out: mpb.MunicipiumDecision) -> None:
    out.tavern_family.family = _FAMILY[args[0]]


#: Municipium verb -> how its arguments fill the MunicipiumDecision case of that verb.
_MUNICIPIUM_ENCODERS: dict[str, Callable[[tuple[str, ...], mpb.MunicipiumDecision], None]] = {
    "setup": _enc_institution("setup"),
    "move": _enc_arrow("move"),
    "play": _enc_play,
    "place": _enc_place,
    "keep": _enc_keep,
    "power": _enc_institution("power"),
    "skip": _enc_empty("skip"),
    "family": _enc_family,
    "from": _enc_institution("tavern_source"),
    "send": _enc_send,
    "draw": _enc_empty("draw"),
    "stop": _enc_empty("stop"),
    "exchange": _enc_exchange,
    "take": _enc_take,
    "reposition": _enc_arrow("reposition"),
    "done": _enc_empty("done"),
    "advance": _enc_empty("advance"),
}


def encode_decision(decision: Decision, out: pb.Decision) -> None:
    """Fill the Municipium case of `out` with a well-formed engine decision."""
    problem = dec.vocabulary_error(decision)
    if problem:
        raise NotationError(f"'{decision}' is not a {MUNICIPIUM} decision: {problem}")
    _MUNICIPIUM_ENCODERS[decision.verb](decision.args, out.municipium)


# ---------------------------------------------------------------------------------------
# Decisions: contract -> engine
# ---------------------------------------------------------------------------------------
_Decoder = Callable[[mpb.MunicipiumDecision], Decision]


def _member_word(member: mpb.MunicipiumMember, field: str) -> str:
    inst = enum_word(_INSTITUTION_NAME, member.institution, f"{field}.institution")
    return inst + ("*" if member.distinguished else "")


def _dec_arrow(kind: str) -> _Decoder:
    def decode(message: mpb.MunicipiumDecision) -> Decision:
        case = getattr(message, kind)
        field = f"{MUNICIPIUM}.{kind}"
        return Decision(kind, (_member_word(case.member, f"{field}.member"),
                               enum_word(_INSTITUTION_NAME, case.to, f"{field}.to")))
    return decode


def _dec_institution(kind: str, verb: str) -> _Decoder:
    def decode(message: mpb.MunicipiumDecision) -> Decision:
        number = getattr(message, kind).institution
        return Decision(verb, (enum_word(_INSTITUTION_NAME, number,
                                     f"{MUNICIPIUM}.{kind}.institution"),))
    return decode


def _dec_empty(verb: str) -> _Decoder:
    def decode(message: mpb.MunicipiumDecision) -> Decision:
        return Decision(verb)
    return decode


def _dec_play(message: mpb.MunicipiumDecision) -> Decision:
    card = enum_word(_CARD_NAME, message.play.card, f"{MUNICIPIUM}.play.card")
    if card not in _PLAYABLE:
        raise NotationError(f"{MUNICIPIUM}.play.card cannot be {card!r}: a common deck card "
                            f"is played with MUNICIPIUM_CARD_COMMON")
    return dec.play(card)


def _dec_place(message: mpb.MunicipiumDecision) -> Decision:
    field = f"{MUNICIPIUM}.place"
    return Decision("place", (enum_word(_CITIZEN_NAME, message.place.citizen, f"{field}.citizen"),
                              enum_word(_INSTITUTION_NAME, message.place.institution,
                                    f"{field}.institution")))


def _dec_keep(message: mpb.MunicipiumDecision) -> Decision:
    field = f"{MUNICIPIUM}.keep"
    first = enum_word(_CITIZEN_NAME, message.keep.first, f"{field}.first")
    second = enum_word(_CITIZEN_NAME, message.keep.second, f"{field}.second")
    return dec.keep(COLOUR_INDEX[first], COLOUR_INDEX[second])


def _dec_family(message: mpb.MunicipiumDecision) -> Decision:
    family = message.tavern_family.family
    return Decision("family", (enum_word(_FAMILY_NAME, family,
                                     f"{MUNICIPIUM}.tavern_family.family"),))


def _dec_send(message: mpb.MunicipiumDecision) -> Decision:
    # Written as decisions.send does, uncached: the counts are the client's (any uint32),
    # and the engine's vocabulary refuses those out of range.
    plain, wreathed = message.tavern_send.members, message.tavern_send.distinguished
    return Decision("send", (str(plain), f"{wreathed}*") if wreathed else (str(plain),))


def _dec_exchange(message: mpb.MunicipiumDecision) -> Decision:
    field = f"{MUNICIPIUM}.exchange"
    citizens, favours = message.exchange.citizens, message.exchange.favours
    if len(citizens) + favours != 3:
        raise NotationError(f"{field} pays 3 tokens (citizens + favours), "
                            f"got {len(citizens)} citizen(s) and {favours} favour(s)")
    tokens = [dec.TOKEN_NAMES.index(enum_word(_CITIZEN_NAME, number, f"{field}.citizens[{i}]"))
              for i, number in enumerate(citizens)]
    tokens += [dec.TOKEN_NAMES.index(FAVOUR)] * favours
    return dec.exchange(tuple(sorted(tokens)))


def _dec_take(message: mpb.MunicipiumDecision) -> Decision:
    field = f"{MUNICIPIUM}.take"
    take = message.take
    citizen = enum_word(_CITIZEN_NAME, take.citizen, f"{field}.citizen")
    source = take.WhichOneof("source")
    if source == "family":
        return Decision("take", (citizen, enum_word(_FAMILY_NAME, take.family, f"{field}.family")))
    if source == "institution":
        return Decision("take", (citizen, enum_word(_INSTITUTION_NAME, take.institution,
                                                f"{field}.institution")))
    raise NotationError(f"{field}: set its source, a family or an institution")


#: The cards a Play decision may name (the common deck's cards are not among them).
_PLAYABLE = dec.VOCABULARY["play"][0]

#: MunicipiumDecision `kind` case -> the engine decision it names.
_MUNICIPIUM_DECODERS: dict[str, _Decoder] = {
    "setup": _dec_institution("setup", "setup"),
    "move": _dec_arrow("move"),
    "play": _dec_play,
    "place": _dec_place,
    "keep": _dec_keep,
    "power": _dec_institution("power", "power"),
    "skip": _dec_empty("skip"),
    "tavern_family": _dec_family,
    "tavern_source": _dec_institution("tavern_source", "from"),
    "tavern_send": _dec_send,
    "draw": _dec_empty("draw"),
    "stop": _dec_empty("stop"),
    "exchange": _dec_exchange,
    "take": _dec_take,
    "reposition": _dec_arrow("reposition"),
    "done": _dec_empty("done"),
    "advance": _dec_empty("advance"),
}


def decode_decision(message: pb.Decision) -> Decision:
    """The engine decision the Municipium case of `message` names (NotationError if none)."""
    kind = message.municipium.WhichOneof("kind")
    if kind is None:
        raise NotationError(f"the {MUNICIPIUM} decision has no case set")
    return _MUNICIPIUM_DECODERS[kind](message.municipium)
# ---------------------------------------------------------------------------------------
# Observations
# ---------------------------------------------------------------------------------------
def _citizen_or_unset(word: str | None) -> mpb.MunicipiumCitizen:
    return _CITIZEN[word] if word is not None else mpb.MUNICIPIUM_CITIZEN_UNSPECIFIED


def _institution_view(view: JSON) -> mpb.MunicipiumInstitutionView:
    return mpb.MunicipiumInstitutionView(
        institution=_INSTITUTION[view["name"]],
        presence=[mpb.MunicipiumPresence(family=_FAMILY[family], members=plain,
                                         distinguished=wreathed)
                  for family, (plain, wreathed) in view["members"].items()],
        citizens=[_CITIZEN[word] for word in view["citizens"]],
        room_citizen=_citizen_or_unset(view["room_citizen"]),
        room_favour=bool(view["room_favour"]),
    )


def _supply(view: JSON) -> mpb.MunicipiumSupply:
    citizens = view["citizens"]
    return mpb.MunicipiumSupply(
        family=_FAMILY[view["family"]],
        priests=citizens["priest"], militia=citizens["militia"],
        merchants=citizens["merchant"], advocates=citizens["advocate"],
        favours=view["favours"], decurions=view["decurions"],
        family_cards=[_CARD[card] for card in view["family_cards"]],
    )


def _steps(observation: JSON) -> list[JSON]:
    """The pending steps, the question asked now first, then the agenda (next first)."""
    asked = observation.get("asked")
    return ([] if asked is None else [asked]) + list(observation.get("agenda") or [])


def _first_step(steps: list[JSON], name: str) -> JSON | None:
    """The first of the pending steps of a kind, in the order they come."""
    return next((step for step in steps if step["step"] == name), None)


_StepFiller = Callable[[JSON, Any], None]


def _fill_turn(view: JSON, out: mpb.MunicipiumStep.Turn) -> None:
    out.moves_made = view["moves_made"]
    last = view["last_moved"]
    if last is not None:
        out.last_moved.member.institution = _INSTITUTION[last["from"]]
        out.last_moved.member.distinguished = last["distinguished"]
        out.last_moved.to = _INSTITUTION[last["to"]]


def _fill_card(view: JSON, out: mpb.MunicipiumStep.Discard) -> None:
    out.card = _CARD[view["card"]]


def _fill_seats(view: JSON, out: Any) -> None:
    out.seats.extend(view["seats"])


def _fill_place(view: JSON, out: mpb.MunicipiumStep.Place) -> None:
    out.citizen = _CITIZEN[view["citizen"]]
    because = view["because"]
    if because in _CARD:
        out.card = _CARD[because]
    else:
        out.institution = _INSTITUTION[because]


def _fill_citizens(view: JSON, out: mpb.MunicipiumStep.Invite) -> None:
    out.citizens.extend(_CITIZEN[word] for word in view["citizens"])


def _fill_institution(view: JSON, out: Any) -> None:
    out.institution = _INSTITUTION[view["institution"]]


def _fill_keep(view: JSON, out: mpb.MunicipiumStep.Keep) -> None:
    _fill_institution(view, out)
    out.citizens.extend(_CITIZEN[word] for word in view["citizens"])


def _fill_powers_left(view: JSON, out: Any) -> None:
    out.institutions_left.extend(_INSTITUTION[word] for word in view["institutions_left"])


def _fill_held_powers(view: JSON, out: mpb.MunicipiumStep.ChoosePower) -> None:
    out.institutions.extend(_INSTITUTION[word] for word in view["institutions"])


def _fill_tavern_source(view: JSON, out: Any) -> None:
    out.target_family = _FAMILY[view["target_family"]]


def _fill_tavern_send(view: JSON, out: mpb.MunicipiumStep.TavernSend) -> None:
    _fill_tavern_source(view, out)
    out.source = _INSTITUTION[view["source"]]


def _fill_reposition(view: JSON, out: mpb.MunicipiumStep.Reposition) -> None:
    out.to_reposition.extend(
        mpb.MunicipiumMembers(institution=_INSTITUTION[name], members=plain,
                              distinguished=wreathed)
        for name, (plain, wreathed) in view["to_reposition"].items())
    out.may_stop, out.may_advance = view["may_stop"], view["may_advance"]


#: MunicipiumStep case -> how a JSON step of that name fills it (the cases without fields
#: are absent).
_STEP_FILLERS: dict[str, _StepFiller] = {
    "turn": _fill_turn,
    "discard": _fill_card,
    "citizen_visit": _fill_seats,
    "place": _fill_place,
    "invite": _fill_citizens,
    "citizen_event": _fill_institution,
    "keep": _fill_keep,
    "your_powers": _fill_powers_left,
    "all_powers": _fill_powers_left,
    "one_power": _fill_seats,
    "power": _fill_institution,
    "choose_power": _fill_held_powers,
    "tavern_source": _fill_tavern_source,
    "tavern_send": _fill_tavern_send,
    "reposition": _fill_reposition,
}


def encode_step(view: JSON) -> mpb.MunicipiumStep:
    """The typed MunicipiumStep of one step of the observation's `asked` or `agenda`."""
    message = mpb.MunicipiumStep()
    if "seat" in view:
        message.seat = view["seat"]
        message.family = _FAMILY[view["family"]]
    kind = view["step"].replace("-", "_")
    case = getattr(message, kind)
    case.SetInParent()
    filler = _STEP_FILLERS.get(kind)
    if filler is not None:
        filler(view, case)
    return message


def encode_observation(observation: JSON, out: pb.Observation) -> None:
    """Fill the Municipium case of `out` from the engine's observation JSON."""
    steps = _steps(observation)
    drawn = _first_step(steps, "place")
    invited = _first_step(steps, "invite")
    bag = observation["bag"]
    typed = mpb.MunicipiumObservation(
        institutions=[_institution_view(view) for view in observation["institutions"]],
        praefect=_INSTITUTION[observation["praefect"]],
        temple_order=[_FAMILY[family] for family in observation["temple_order"]],
        supplies=[_supply(view) for view in observation["supplies"]],
        bag_priests=bag["priest"], bag_militia=bag["militia"],
        bag_merchants=bag["merchant"], bag_advocates=bag["advocate"],
        favour_supply=observation["favour_supply"],
        wreath_supply=observation["wreath_supply"],
        deck_size=observation["deck_size"],
        discard=[_CARD[card] for card in observation["discard"]],
        first_seat=observation["first"],
        turn=observation["turn"],
        active_seat=observation["active"],
        drawn_citizen=(_CITIZEN[drawn["citizen"]] if drawn is not None
                       else mpb.MUNICIPIUM_CITIZEN_UNSPECIFIED),
        invited_citizens=([_CITIZEN[word] for word in invited["citizens"]]
                          if invited is not None else []),
        agenda=[encode_step(step) for step in observation.get("agenda") or []],
    )
    if observation.get("asked") is not None:
        typed.asked.CopyFrom(encode_step(observation["asked"]))
    out.municipium.CopyFrom(typed)


register_codec(GameCodec(MUNICIPIUM, encode_decision, decode_decision, encode_observation))
