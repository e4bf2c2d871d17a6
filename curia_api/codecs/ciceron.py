"""Cicéron's typed messages in the public contract (`curia.v1.Ciceron*`).

Castes, guilds, phases, effect kinds and tribute ways are fixed by the rules: they are
enums, their mappings built once from the engine's name tuples (a name missing from the
contract fails at import). Family names, senators, cards, piles, spots and provinces come
from the card set file: they stay strings. The observation refers to families by seat.

Decoding a client's typed decision raises `games.core.NotationError` and nothing else,
whatever the message holds (proto3 enums are open: 0 and unknown numbers arrive as ints).

The typed observation is built from the engine's observation JSON for the same viewer
(`GameState.observation(seat)`) and nothing else: what the JSON hides from a viewer
(another family's hand, drawn senators and pending vote, a draft packet it never held)
is `null` there and stays unset here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from curia_api.codec import (
    GameCodec,
    card_set_id,
    decoded_case,
    enum_values,
    enum_word,
    register_codec,
)
from curia_api.v1 import ciceron_pb2 as cpb
from curia_api.v1 import game_service_pb2 as pb
from games.ciceron.cardset import CASTES, EFFECTS, GUILDS
from games.ciceron.effects import reward_word
from games.ciceron.rules import VERBS, form_error
from games.core import JSON, Decision, NotationError

CICERON = "ciceron"
#: The phases of a turn, as the observation's `phase` names them.
PHASES = ("draft", "start", "ciceron", "servants", "tribute", "triumvirat", "majorities",
          "prestige")
#: How a tribute may be paid (a family board's `tribute.how`).
TRIBUTE_WAYS = ("pay", "sacrifice", "disgrace")
#: What the holder of a guild card takes (`choose power`, `choose prestige`).
GUILD_CHOICES = ("power", "prestige")
#: The holder of a spot that is not a family (2 families).
AUTOMATII = "automatii"


# ---------------------------------------------------------------------------------------
# Enum mappings (engine word <-> proto enum number)
# ---------------------------------------------------------------------------------------


_CASTE = enum_values(cpb.CiceronCaste, "CICERON_CASTE_", CASTES)
_GUILD = enum_values(cpb.CiceronGuild, "CICERON_GUILD_", GUILDS)
_CHOICE = enum_values(cpb.CiceronGuildChoice, "CICERON_GUILD_CHOICE_", GUILD_CHOICES)
_PHASE = enum_values(cpb.CiceronPhase, "CICERON_PHASE_", PHASES)
_EFFECT = enum_values(cpb.CiceronEffectKind, "CICERON_EFFECT_KIND_", EFFECTS)
_TRIBUTE = enum_values(cpb.CiceronTributeWay, "CICERON_TRIBUTE_WAY_", TRIBUTE_WAYS)

_CASTE_NAME = {number: name for name, number in _CASTE.items()}
_CHOICE_NAME = {number: name for name, number in _CHOICE.items()}





# ---------------------------------------------------------------------------------------
# Decisions: engine -> contract
# ---------------------------------------------------------------------------------------
#: Verbs whose one argument is a card set id, and the field of their case that holds it.
_ID_FIELDS = {"pick": "senator", "vote": "family", "elect": "family", "place": "spot",
              "recruit": "senator", "discard": "senator", "sacrifice": "senator",
              "award": "family"}
#: Verbs without arguments.
_EMPTY = ("done", "gain", "draw", "disgrace")


def _caste_of(word: str, decision: Decision) -> int:
    number = _CASTE.get(word)
    if number is None:
        raise NotationError(f"'{decision}' is not a {CICERON} decision: {word!r} is not a "
                            f"caste; castes are: {', '.join(CASTES)}")
    return int(number)


def encode_decision(decision: Decision, out: pb.Decision) -> None:
    """Fill the Cicéron case of `out` with a well-formed engine decision."""
    problem = form_error(decision)
    if problem:
        raise NotationError(f"'{decision}' is not a {CICERON} decision: {problem}")
    verb, args = decision.verb, decision.args
    typed = out.ciceron
    if verb in _ID_FIELDS:
        setattr(getattr(typed, verb), _ID_FIELDS[verb], args[0])
    elif verb in _EMPTY:
        getattr(typed, verb).SetInParent()
    elif verb == "play":
        typed.play.card = args[0]
        if len(args) > 1:
            typed.play.target = args[1]
    elif verb == "use":
        typed.use.SetInParent()
        if args:
            typed.use.target = args[0]
    elif verb == "reward":
        if args[0] == "prestige":
            typed.reward.prestige.SetInParent()
        else:
            typed.reward.caste = _caste_of(args[0], decision)  # type: ignore[assignment]
    elif verb == "pay":
        typed.pay.first = _caste_of(args[0], decision)  # type: ignore[assignment]
        typed.pay.second = _caste_of(args[1], decision)  # type: ignore[assignment]
    elif verb == "choose":
        choice = _CHOICE.get(args[0])
        if choice is None:
            raise NotationError(f"'{decision}' is not a {CICERON} decision: one chooses "
                                f"{' or '.join(GUILD_CHOICES)}, not {args[0]!r}")
        typed.choose.choice = choice
    else:  # pragma: no cover - every verb of VERBS is handled above
        raise NotationError(f"'{decision}' has no typed form")


# ---------------------------------------------------------------------------------------
# Decisions: contract -> engine
# ---------------------------------------------------------------------------------------
def _target(case: Any, field: str) -> tuple[str, ...]:
    """The optional `target` of a play or use case: () when absent."""
    if not case.HasField("target"):
        return ()
    if not case.target:
        raise NotationError(f"{field} is empty: leave it unset when nothing is aimed at")
    return (card_set_id(case.target, field),)


def _decode_case(kind: str, typed: cpb.CiceronDecision) -> Decision:
    field = f"{CICERON}.{kind}"
    case = getattr(typed, kind)
    if kind in _ID_FIELDS:
        name = _ID_FIELDS[kind]
        return Decision(kind, (card_set_id(getattr(case, name), f"{field}.{name}"),))
    if kind in _EMPTY:
        return Decision(kind)
    if kind == "play":
        card = card_set_id(case.card, f"{field}.card")
        return Decision("play", (card, *_target(case, f"{field}.target")))
    if kind == "use":
        return Decision("use", _target(case, f"{field}.target"))
    if kind == "reward":
        which = case.WhichOneof("reward")
        if which == "prestige":
            return Decision("reward", ("prestige",))
        if which == "caste":
            return Decision("reward", (enum_word(_CASTE_NAME, case.caste, f"{field}.caste"),))
        raise NotationError(f"{field}: set its reward, prestige or a caste")
    if kind == "pay":
        return Decision("pay", (enum_word(_CASTE_NAME, case.first, f"{field}.first"),
                                enum_word(_CASTE_NAME, case.second, f"{field}.second")))
    if kind == "choose":
        return Decision("choose", (enum_word(_CHOICE_NAME, case.choice, f"{field}.choice"),))
    raise NotationError(f"{field} is not a {CICERON} decision")  # pragma: no cover


def decode_decision(message: pb.Decision) -> Decision:
    """The engine decision the Cicéron case of `message` names (NotationError if none)."""
    return decoded_case(CICERON, message.ciceron, _decode_case)


# ---------------------------------------------------------------------------------------
# Observations
# ---------------------------------------------------------------------------------------
class _Seats:
    """Family names -> seats, for one observation."""

    def __init__(self, families: list[str]) -> None:
        self.index = {name: seat for seat, name in enumerate(families)}

    def __call__(self, name: str) -> int:
        seat = self.index.get(name)
        if seat is None:
            raise ValueError(f"{name!r} is not a family of this game ({', '.join(self.index)})")
        return seat


def _counts(values: Mapping[str, int]) -> cpb.CiceronCasteCounts:
    return cpb.CiceronCasteCounts(**{caste: values[caste] for caste in CASTES})


def _ids(ids: list[str] | None, out: cpb.CiceronIds) -> None:
    """Set `out` to the ids when the viewer may see them; leave it unset when not (None)."""
    if ids is not None:
        out.SetInParent()
        out.ids.extend(ids)


def _turn_effect(entry: JSON) -> cpb.CiceronTurnEffect:
    if "card" in entry:
        return cpb.CiceronTurnEffect(card=entry["card"])
    caste = entry.get("caste") or ""
    return cpb.CiceronTurnEffect(kind=_EFFECT[entry["kind"]],
                                 amount=entry.get("amount") or 0,
                                 caste=_CASTE[caste] if caste else 0)  # type: ignore[arg-type]


def _board(view: JSON, seat_of: _Seats) -> cpb.CiceronBoard:
    board = cpb.CiceronBoard(
        family=view["family"], home=_CASTE[view["home"]],
        influence=_counts(view["influence"]), prestige=view["prestige"],
        servants=view["servants"], senators=view["senators"],
        cenacle_limit=view["cenacle_limit"], senate_votes=view["senate_votes"],
        election_votes=view["election_votes"],
        permanents=view["permanents"],
        attached=[cpb.CiceronAttached(senator=senator, cards=cards)
                  for senator, cards in view["attached"].items()],
        turn_effects=[_turn_effect(entry) for entry in view["turn_effects"]],
        hand_by_caste=_counts(view["hand_by_caste"]), drawn_count=view["drawn_count"],
        voted=view["voted"],
        guild_powers=[_GUILD[guild] for guild in view["guild_powers"]],
    )
    _ids(view["hand"], board.hand)
    _ids(view["drawn"], board.drawn)
    if view["vote"] is not None:
        board.vote = seat_of(view["vote"])
    tribute = view["tribute"]
    if tribute is not None:
        board.tribute.how = _TRIBUTE[tribute["how"]]
        board.tribute.paid.extend(_CASTE[c] for c in tribute.get("paid") or ())
    return board


def _spot(spot: str, holder: str | None, seat_of: _Seats) -> cpb.CiceronSpot:
    out = cpb.CiceronSpot(spot=spot)
    if holder == AUTOMATII:
        out.automatii = True
    elif holder is not None:
        out.seat = seat_of(holder)
    return out


def _majority_card(word: str) -> cpb.CiceronMajorityCard:
    """`primus-orator`, `secundus-orator`, `guild-artisans` as a typed majority card."""
    kind, what = word.split("-", 1)
    if kind == "guild":
        return cpb.CiceronMajorityCard(guild=_GUILD[what])
    if kind == "primus":
        return cpb.CiceronMajorityCard(primus=_CASTE[what])
    if kind == "secundus":
        return cpb.CiceronMajorityCard(secundus=_CASTE[what])
    raise ValueError(f"{word!r} is not a majority card")


def _legion_reward(key: str, amount: int) -> cpb.CiceronLegionReward:
    word = reward_word(key)
    if word == "prestige":
        return cpb.CiceronLegionReward(prestige=True, amount=amount)
    return cpb.CiceronLegionReward(caste=_CASTE[word], amount=amount)


_StepFiller = Callable[[JSON, Any, _Seats], None]


def _fill_guild(view: JSON, out: Any, seat_of: _Seats) -> None:
    out.guild = _GUILD[view["guild"]]


def _fill_caste(view: JSON, out: Any, seat_of: _Seats) -> None:
    out.caste = _CASTE[view["caste"]]


def _fill_election(view: JSON, out: Any, seat_of: _Seats) -> None:
    out.seats.extend(view["seats"])


def _fill_tied(view: JSON, out: Any, seat_of: _Seats) -> None:
    out.tied.extend(seat_of(name) for name in view["tied"])


def _fill_placement(view: JSON, out: Any, seat_of: _Seats) -> None:
    out.next = view["next"]


def _fill_recruit(view: JSON, out: Any, seat_of: _Seats) -> None:
    out.pile, out.most, out.taken = view["pile"], view["most"], view["taken"]


def _fill_upper(view: JSON, out: Any, seat_of: _Seats) -> None:
    _fill_caste(view, out, seat_of)
    out.gained = view["gained"]


def _fill_reward(view: JSON, out: Any, seat_of: _Seats) -> None:
    out.rewards.extend(_legion_reward(key, amount) for key, amount in view["rewards"])


def _fill_tribute(view: JSON, out: Any, seat_of: _Seats) -> None:
    out.round = view["round"]
    out.order.extend(view["order"])


def _fill_pay(view: JSON, out: Any, seat_of: _Seats) -> None:
    out.round = view["round"]


def _fill_majorities(view: JSON, out: Any, seat_of: _Seats) -> None:
    out.left.extend(_majority_card(word) for word in view["left"])


def _fill_award(view: JSON, out: Any, seat_of: _Seats) -> None:
    out.card.CopyFrom(_majority_card(view["card"]))
    _fill_tied(view, out, seat_of)


#: CiceronStep case -> how a JSON step of that name fills it (the cases without fields
#: are absent).
_STEP_FILLERS: dict[str, _StepFiller] = {
    "guild_power": _fill_guild,
    "election": _fill_election,
    "elect": _fill_tied,
    "placement": _fill_placement,
    "recruit": _fill_recruit,
    "upper": _fill_upper,
    "upper_other": _fill_caste,
    "secondary": _fill_caste,
    "reward": _fill_reward,
    "tribute": _fill_tribute,
    "pay": _fill_pay,
    "majorities": _fill_majorities,
    "award": _fill_award,
    "guild_choice": _fill_guild,
}
#: Every case of CiceronStep's `step` oneof.
STEP_CASES = frozenset(field.name for field in
                       cpb.CiceronStep.DESCRIPTOR.oneofs_by_name["step"].fields)


def encode_step(view: JSON, families: list[str]) -> cpb.CiceronStep:
    """The typed CiceronStep of one step of the observation's `asked` or `agenda`."""
    kind = view["step"].replace("-", "_")
    if kind not in STEP_CASES:
        raise ValueError(f"the {CICERON} step {view['step']!r} has no typed form")
    seat_of = _Seats(families)
    message = cpb.CiceronStep()
    if "seat" in view:
        message.seat = view["seat"]
        message.family = view["family"]
    case = getattr(message, kind)
    case.SetInParent()
    filler = _STEP_FILLERS.get(kind)
    if filler is not None:
        filler(view, case, seat_of)
    return message


def _election(view: JSON, families: list[str], seat_of: _Seats) -> cpb.CiceronElection:
    votes, totals = view["votes"], view["totals"]
    return cpb.CiceronElection(families=[
        cpb.CiceronElection.Family(seat=seat, vote=seat_of(votes[name]), total=totals[name])
        for seat, name in enumerate(families)])


def encode_observation(observation: JSON, out: pb.Observation) -> None:
    """Fill the Cicéron case of `out` from the engine's observation JSON."""
    families = list(observation["families"])
    seat_of = _Seats(families)
    draft = observation["draft"]
    typed = cpb.CiceronObservation(
        families=families,
        card_set_name=observation["card_set"]["name"],
        card_set_digest=observation["card_set"]["digest"],
        turn=observation["turn"], turns=observation["turns"],
        phase=_PHASE[observation["phase"]],
        boards=[_board(view, seat_of) for view in observation["boards"]],
        spots=[_spot(spot, holder, seat_of) for spot, holder in observation["spots"].items()],
        piles=[cpb.CiceronPile(pile=pile, size=size)
               for pile, size in observation["piles"].items()],
        decks=_counts(observation["decks"]),
        ciceron_past=observation["ciceron_past"], ciceron_deck=observation["ciceron_deck"],
        triumvirat=observation["triumvirat"],
        legions=[cpb.CiceronProvince(province=province, legions=count)
                 for province, count in observation["legions"].items()],
        legions_left=observation["legions_left"],
        caste_majorities=[_caste_majority(caste, observation, seat_of) for caste in CASTES],
        guilds=[_guild_majority(guild, observation["guilds"][guild], seat_of)
                for guild in GUILDS],
        discarded=observation["discarded"], removed=observation["removed"],
        draft=cpb.CiceronDraft(packet_size=draft["packet_size"], order=draft["order"],
                               seen=draft["seen"]),
        agenda=[encode_step(step, families) for step in observation["agenda"]],
    )
    if observation["princeps"] is not None:
        typed.princeps = observation["princeps"]
    if observation["ciceron"] is not None:
        typed.ciceron = observation["ciceron"]
    if observation["triumvirat_drawn"] is not None:
        typed.triumvirat_drawn = observation["triumvirat_drawn"]
    _ids(draft["packet"], typed.draft.packet)
    if observation["election"] is not None:
        typed.election.CopyFrom(_election(observation["election"], families, seat_of))
    if observation["asked"] is not None:
        typed.asked.CopyFrom(encode_step(observation["asked"], families))
    out.ciceron.CopyFrom(typed)


def _caste_majority(caste: str, observation: JSON, seat_of: _Seats) -> cpb.CiceronCasteMajority:
    out = cpb.CiceronCasteMajority(caste=_CASTE[caste])
    primus, secundus = observation["primus"][caste], observation["secundus"][caste]
    if primus is not None:
        out.primus = seat_of(primus)
    if secundus is not None:
        out.secundus = seat_of(secundus)
    return out


def _guild_majority(guild: str, view: JSON, seat_of: _Seats) -> cpb.CiceronGuildMajority:
    out = cpb.CiceronGuildMajority(guild=_GUILD[guild])
    if view["holder"] is not None:
        out.holder = seat_of(view["holder"])
    if view["choice"] is not None:
        out.choice = _CHOICE[view["choice"]]
    return out


#: The verbs of the notation, each the name of its typed case (checked at import).
_CASES = frozenset(field.name for field in
                   cpb.CiceronDecision.DESCRIPTOR.oneofs_by_name["kind"].fields)
if set(VERBS) != _CASES:  # pragma: no cover - the engine and the contract drifted apart
    raise ImportError(f"CiceronDecision's cases {sorted(_CASES)} are not Cicéron's verbs "
                      f"{sorted(VERBS)}")

register_codec(GameCodec(CICERON, encode_decision, decode_decision, encode_observation))
