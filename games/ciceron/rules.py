"""Cicéron's rule steps: the opening draft, then seven phases per turn.

The state holds a stack of frames (plain dicts, top last; every value a word or a seat
number). A frame is automatic (`AUTO[kind](st, frame)` runs it and returns True) or waits
for decisions (`OPTIONS[kind](st, frame)` gives each deciding seat its legal decisions;
several seats at once for the Princeps election, C1; `APPLY[kind]` carries one out).
Ruling ids (C1..C12) are restated in docs/rulings.md.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from typing import TYPE_CHECKING, Any

from games.ciceron import effects
from games.ciceron.cardset import CASTES, GUILDS, ZONES, spot_names
from games.core import Decision

if TYPE_CHECKING:
    from games.ciceron.state import CiceronState

Frame = dict[str, Any]
Options = dict[int, list[Decision]]

PRIMUS_PP, SECUNDUS_PP, GUILD_PP, DISGRACE_PP = 6, 3, 3, -10
SENATE_DRAW, OTHERS_DRAW = 4, 2
SENATE_RECRUIT, OTHERS_RECRUIT = 2, 1
HOME_GAIN = 2

#: Verb -> (fewest, most) arguments: the notation's vocabulary.
VERBS = {"pick": (1, 1), "vote": (1, 1), "elect": (1, 1), "place": (1, 1),
         "recruit": (1, 1), "discard": (1, 1), "done": (0, 0), "gain": (0, 0),
         "draw": (0, 0), "play": (1, 2), "reward": (1, 1), "pay": (2, 2),
         "sacrifice": (1, 1), "disgrace": (0, 0), "award": (1, 1), "choose": (1, 1),
         "use": (0, 1)}


def form_error(decision: Decision) -> str | None:
    bounds = VERBS.get(decision.verb)
    if bounds is None:
        return f"unknown verb {decision.verb!r}; verbs are: {', '.join(sorted(VERBS))}"
    low, high = bounds
    if not low <= len(decision.args) <= high:
        return f"{decision.verb!r} takes {low}-{high} argument(s), got {len(decision.args)}"
    return None


def canonical(decision: Decision) -> Decision:
    """`pay` names an unordered pair of influences: written in caste order."""
    if decision.verb == "pay" and all(a in CASTES for a in decision.args):
        return Decision("pay", tuple(sorted(decision.args, key=CASTES.index)))
    return decision


def zone_caste(zone: str) -> str:
    return CASTES[ZONES.index(zone)]


def caste_zone(caste: str) -> str:
    return ZONES[CASTES.index(caste)]


# ---------------------------------------------------------------------------------------
# The driver's entry points
# ---------------------------------------------------------------------------------------
def run_auto(st: CiceronState, frame: Frame) -> bool:
    auto = AUTO.get(frame["k"])
    return auto(st, frame) if auto is not None else False


def options(st: CiceronState, frame: Frame) -> Options:
    """The step's decisions. A family whose cénacle is full may also discard a senator
    to make room when it could recruit one it drew (C-C3): the book allows a discard
    "at any time", but a senator never harms its family, so a discard matters only there."""
    found = OPTIONS[frame["k"]](st, frame)
    if frame["k"] == "recruit" and needs_room(st, frame["seat"]):
        found[frame["seat"]] += voluntary_discards(st, frame["seat"])
    return found


def needs_room(st: CiceronState, seat: int) -> bool:
    """Full, and a drawn senator it could pay for but has no room for."""
    fam = st.families[seat]
    full = len(fam["senators"]) >= st.cenacle_limit(seat)
    return full and any(effects.affordable(st, seat, st.cards.senator(sid).cost)
                        and not can_recruit(st, seat, sid) for sid in fam["drawn"])


def voluntary_discards(st: CiceronState, seat: int) -> list[Decision]:
    return [Decision("discard", (sid,)) for sid in st.families[seat]["senators"]]


def apply(st: CiceronState, seat: int, decision: Decision) -> None:
    frame = st.frames[-1]
    if decision.verb == "discard" and frame["k"] == "recruit":
        effects.discard_senator(st, seat, decision.args[0], why="to make room")
        return
    APPLY[frame["k"]](st, seat, frame, decision)


def prompt(st: CiceronState, frame: Frame) -> str:
    return PROMPTS[frame["k"]]


def one(seat: int, decisions: list[Decision]) -> Options:
    return {seat: decisions} if decisions else {}


# ---------------------------------------------------------------------------------------
# Modifiers from cards lying in play
# ---------------------------------------------------------------------------------------
def attached_votes(st: CiceronState, seat: int, senator_id: str) -> int:
    cards = st.families[seat]["attached"].get(senator_id, [])
    return sum(st.cards.action(c).effect.votes for c in cards
               if st.cards.action(c).effect.kind == "bribe")


def attached_guild(st: CiceronState, seat: int, senator_id: str, guild: str) -> int:
    cards = st.families[seat]["attached"].get(senator_id, [])
    return sum(st.cards.action(c).effect.count for c in cards
               if st.cards.action(c).effect.kind == "patronage"
               and st.cards.action(c).effect.guild == guild)


def permanent_amount(st: CiceronState, seat: int, kind: str, caste: str = "") -> int:
    """The sum of an effect kind over the family's permanent cards and turn effects."""
    fam = st.families[seat]
    total = 0
    for card_id in fam["permanents"]:
        effect = st.cards.action(card_id).effect
        if effect.kind == kind and (not caste or effect.caste == caste):
            total += effect.amount
    for entry in fam["turn_effects"]:
        if entry.get("kind") == kind and (not caste or entry.get("caste") == caste):
            total += entry["amount"]
    return total


def has_turn_effect(st: CiceronState, seat: int, kind: str) -> bool:
    return any(e.get("kind") == kind for e in st.families[seat]["turn_effects"])


def has_effect(st: CiceronState, seat: int, kind: str) -> bool:
    """Whether the family holds an effect of this kind for the turn or a permanent card."""
    return has_turn_effect(st, seat, kind) or any(
        st.cards.action(card).effect.kind == kind for card in st.families[seat]["permanents"])


def election_votes(st: CiceronState, seat: int) -> int:
    """A family's votes at the Princeps election: its senators' and its cards'."""
    return st.senate_votes(seat) + permanent_amount(st, seat, "votes")


# ---------------------------------------------------------------------------------------
# Opening: the draft of the white senators, the first Princeps
# ---------------------------------------------------------------------------------------
def begin_draft(st: CiceronState) -> None:
    """The youngest (seat 0, C6) deals 2 x families white senators; picks go left, the
    last family picks two and the packet comes back right."""
    n = st.num_seats
    whites = sorted(s.id for s in st.cards.senators if s.pile == "white")
    st.rng.shuffle(whites)
    dealt: list[str] = []
    while len(dealt) < 2 * n:  # fixed outcomes (`white`) first, then the shuffled box
        fixed = st.fixed_outcome("white")
        if fixed is None:
            dealt += [sid for sid in whites if sid not in dealt][: 2 * n - len(dealt)]
        elif fixed in dealt:
            raise ValueError(f"fixed draw: white senator {fixed!r} is dealt twice")
        else:
            dealt.append(fixed)
    st.draft = {"packet": sorted(dealt),
                "order": [*range(n), *reversed(range(n))], "seen": []}
    st.frames += [{"k": "first_princeps"}, {"k": "draft"}]


def draft_auto(st: CiceronState, fr: Frame) -> bool:
    draft = st.draft
    if not draft["order"]:
        st.frames.pop()
        return True
    seat = draft["order"][0]
    if seat not in draft["seen"]:
        draft["seen"].append(seat)
    if len(draft["packet"]) == 1:
        take_pick(st, seat, draft["packet"][0])
        return True
    return False


def draft_options(st: CiceronState, fr: Frame) -> Options:
    seat = st.draft["order"][0]
    return one(seat, [Decision("pick", (sid,)) for sid in st.draft["packet"]])


def draft_apply(st: CiceronState, seat: int, fr: Frame, d: Decision) -> None:
    take_pick(st, seat, d.args[0])


def take_pick(st: CiceronState, seat: int, senator_id: str) -> None:
    st.draft["packet"].remove(senator_id)
    st.draft["order"].pop(0)
    st.families[seat]["senators"].append(senator_id)
    st.emit("draft", family=st.name(seat), senator=senator_id)


def first_princeps_auto(st: CiceronState, fr: Frame) -> bool:
    """Most Senate votes; ties to most Orator votes; then the oldest (highest seat, C6)."""
    def key(seat: int) -> tuple[int, int, int]:
        return (st.senate_votes(seat), st.senate_votes(seat, "orator"), seat)
    st.princeps = max(range(st.num_seats), key=key)
    st.emit("princeps", family=st.name(st.princeps), how="first election",
            votes={st.name(s): st.senate_votes(s) for s in range(st.num_seats)})
    st.frames.pop()
    begin_turn(st, 1)
    return True


# ---------------------------------------------------------------------------------------
# A turn
# ---------------------------------------------------------------------------------------
def begin_turn(st: CiceronState, turn: int) -> None:
    st.turn = turn
    steps: list[Frame] = [{"k": "turn_start"}]
    if st.num_seats == 2:
        steps.append({"k": "automatii"})
    if turn > 1:
        steps.append({"k": "election"})
    steps += [{"k": "ciceron"}, {"k": "placement", "next": st.princeps},
              {"k": "tribute", "round": 1, "order": st.clockwise_from(st.princeps or 0)},
              {"k": "triumvirat"},
              {"k": "majorities", "left": [f"{k}-{w}" for k, w in MAJORITIES]},
              {"k": "prestige"}, {"k": "end_turn"}]
    st.frames += reversed(steps)


def turn_start_auto(st: CiceronState, fr: Frame) -> bool:
    st.frames.pop()
    st.phase = "start"
    st.triumvirat = sorted(c.id for c in st.cards.triumvirat if c.turn == st.turn)
    # `triumvirat_drawn` keeps the last card drawn until phase V draws the next: a turn
    # may end in the decision that drew it, and what was drawn stays visible
    st.emit("turn", number=st.turn, princeps=st.name(st.princeps or 0))
    for seat in reversed(st.clockwise_from(st.princeps or 0)):
        for guild in reversed(st.families[seat]["guild_powers"]):
            st.frames.append({"k": "guild_power", "seat": seat, "guild": guild})
        st.families[seat]["guild_powers"] = []
    return True


def guild_power_auto(st: CiceronState, fr: Frame) -> bool:
    effect = st.cards.guild_powers[fr["guild"]]
    choices = effects.targets(st, fr["seat"], effect)
    if len(choices) == 1 and not effects.AIMED.get(effect.kind):
        st.frames.pop()
        use_guild_power(st, fr["seat"], fr["guild"], choices[0])
        return True
    if not choices:
        st.frames.pop()
        return True
    return False


def guild_power_options(st: CiceronState, fr: Frame) -> Options:
    effect = st.cards.guild_powers[fr["guild"]]
    return one(fr["seat"], [Decision("use", args)
                            for args in effects.targets(st, fr["seat"], effect)])


def guild_power_apply(st: CiceronState, seat: int, fr: Frame, d: Decision) -> None:
    st.frames.pop()
    use_guild_power(st, seat, fr["guild"], d.args)


def use_guild_power(st: CiceronState, seat: int, guild: str, args: tuple[str, ...]) -> None:
    st.emit("guild-power", family=st.name(seat), guild=guild,
            target=args[0] if args else None)
    effects.apply_effect(st, seat, st.cards.guild_powers[guild], args)


# -- 2 families: the Automatii ----------------------------------------------------------
def automatii_auto(st: CiceronState, fr: Frame) -> bool:
    """Reveal the top senator of each pile (C10: three of one caste are redrawn); the
    Automatii take the lower spot of each revealed caste's zone."""
    st.frames.pop()
    revealed = reveal_three(st)
    castes = [st.cards.senator(sid).caste for sid in revealed]
    st.emit("automatii", senators=list(revealed))
    st.discarded.extend(revealed)
    order = st.clockwise_from(st.princeps or 0)
    for caste in sorted(set(castes), key=CASTES.index, reverse=True):
        st.spots[f"{caste_zone(caste)}-lower"] = "automatii"
        if castes.count(caste) > 1:  # a duplicate: both the influence AND a card
            for seat in order:
                secondary_both(st, seat, caste)
        else:
            st.frames += [{"k": "secondary", "seat": seat, "caste": caste}
                          for seat in reversed(order)]
    return True


def reveal_three(st: CiceronState) -> list[str]:
    while True:
        revealed = [sid for sid in (st.draw_senator(pile.id) for pile in st.cards.piles)
                    if sid is not None]
        castes = {st.cards.senator(sid).caste for sid in revealed}
        if len(revealed) < 3 or len(castes) > 1:
            return revealed
        st.emit("automatii-redraw", senators=list(revealed))
        st.discarded.extend(revealed)


def secondary_both(st: CiceronState, seat: int, caste: str) -> None:
    st.gain_influence(seat, caste, 1)
    st.emit("influence", family=st.name(seat), caste=caste, amount=1)
    st.draw_action(seat, caste)


# ---------------------------------------------------------------------------------------
# I. The Princeps election: simultaneous secret votes
# ---------------------------------------------------------------------------------------
def election_options(st: CiceronState, fr: Frame) -> Options:
    names = st.seat_names()
    return {seat: [Decision("vote", (name,)) for name in names]
            for seat in range(st.num_seats) if st.families[seat]["vote"] is None}


def election_apply(st: CiceronState, seat: int, fr: Frame, d: Decision) -> None:
    st.families[seat]["vote"] = d.args[0]
    st.emit("voted", family=st.name(seat))
    if all(fam["vote"] is not None for fam in st.families):
        st.frames.pop()
        count_votes(st)


def count_votes(st: CiceronState) -> None:
    """All votes are in: reveal them, add the Automatii's 5, elect or ask the Princeps."""
    totals = dict.fromkeys(st.seat_names(), 0)
    votes = {}
    for seat, fam in enumerate(st.families):
        votes[st.name(seat)] = fam["vote"]
        totals[fam["vote"]] += election_votes(st, seat)
        fam["vote"] = None
        fam["turn_effects"] = [e for e in fam["turn_effects"] if e.get("kind") != "votes"]
    if st.num_seats == 2:
        totals[st.name(automatii_choice(st))] += 5
    st.election = {"votes": votes, "totals": totals}
    st.emit("election", votes=votes, totals=totals)
    best = max(totals.values())
    tied = [name for name, total in totals.items() if total == best]
    if len(tied) == 1:
        set_princeps(st, st.seat_of(tied[0]), "election")
    else:
        st.frames.append({"k": "elect", "seat": st.princeps, "tied": tied})


def automatii_choice(st: CiceronState) -> int:
    """The Automatii's 5 votes: to the family with fewer PP; equal PP, to the Princeps'
    opponent."""
    a, b = (fam["prestige"] for fam in st.families)
    if a != b:
        return 0 if a < b else 1
    return 1 - (st.princeps or 0)


def elect_options(st: CiceronState, fr: Frame) -> Options:
    return one(fr["seat"], [Decision("elect", (name,)) for name in fr["tied"]])


def elect_apply(st: CiceronState, seat: int, fr: Frame, d: Decision) -> None:
    st.frames.pop()
    set_princeps(st, st.seat_of(d.args[0]), "tie decided by the outgoing Princeps")


def set_princeps(st: CiceronState, seat: int, how: str) -> None:
    st.princeps = seat
    st.emit("princeps", family=st.name(seat), how=how)
    for frame in st.frames:  # the turn's steps go from the new Princeps
        if frame["k"] == "placement":
            frame["next"] = seat
        elif frame["k"] == "tribute":
            frame["order"] = st.clockwise_from(seat)


# ---------------------------------------------------------------------------------------
# II. Cicéron's accusation
# ---------------------------------------------------------------------------------------
def ciceron_auto(st: CiceronState, fr: Frame) -> bool:
    st.frames.pop()
    st.phase = "ciceron"
    if st.ciceron_deck:
        fixed = st.fixed_outcome("ciceron")
        if fixed is not None:
            st.ciceron_deck.remove(fixed)
        st.ciceron = fixed or st.ciceron_deck.pop()
        st.emit("ciceron", card=st.ciceron)
    for seat in range(st.num_seats):
        home = st.cards.families[seat].home
        st.gain_influence(seat, home, HOME_GAIN)
        for caste in CASTES:
            income = permanent_amount(st, seat, "income", caste)
            if income:
                st.gain_influence(seat, caste, income)
    st.emit("home-influence", amount=HOME_GAIN)
    return True


# ---------------------------------------------------------------------------------------
# III. Servants
# ---------------------------------------------------------------------------------------
def placement_auto(st: CiceronState, fr: Frame) -> bool:
    st.phase = "servants"
    for seat in st.clockwise_from(fr["next"] or 0):
        if st.families[seat]["servants"]:
            fr["next"] = (seat + 1) % st.num_seats
            st.frames.append({"k": "place", "seat": seat})
            return True
    st.frames.pop()
    return True


def place_options(st: CiceronState, fr: Frame) -> Options:
    return one(fr["seat"], [Decision("place", (spot,)) for spot in spot_names(st.cards)
                            if st.spots[spot] is None])


def place_apply(st: CiceronState, seat: int, fr: Frame, d: Decision) -> None:
    spot = d.args[0]
    st.frames.pop()
    st.spots[spot] = seat
    st.families[seat]["servants"] -= 1
    st.emit("place", family=st.name(seat), spot=spot)
    if spot.startswith("senate-"):
        senate_spot(st, seat, spot.removeprefix("senate-"))
    else:
        zone, level = spot.rsplit("-", 1)
        (upper_spot if level == "upper" else lower_spot)(st, seat, zone_caste(zone))


# -- the Senate spots ------------------------------------------------------------------
def senate_spot(st: CiceronState, placer: int, pile: str) -> None:
    """The placer draws 4 and may recruit 2; the others, clockwise, draw 2 and may
    recruit 1 (C12: the placer draws first)."""
    order = st.clockwise_from(placer)
    for seat in order:
        count = SENATE_DRAW if seat == placer else OTHERS_DRAW
        drawn = [sid for sid in (st.draw_senator(pile) for _ in range(count)) if sid]
        st.families[seat]["drawn"] = drawn
        st.emit("draw-senators", family=st.name(seat), pile=pile, count=len(drawn))
        st.emit("drawn-senators", seats=(seat,), family=st.name(seat), senators=list(drawn))
    for seat in reversed(order):
        most = SENATE_RECRUIT if seat == placer else OTHERS_RECRUIT
        if has_effect(st, seat, "extra_recruit"):  # one more, however many such cards
            most += 1
        st.frames.append({"k": "recruit", "seat": seat, "pile": pile, "most": most,
                          "taken": 0})


def can_recruit(st: CiceronState, seat: int, senator_id: str) -> bool:
    """Affordable, and room in the cénacle (C8: a limit raiser counts at once)."""
    senator = st.cards.senator(senator_id)
    fam = st.families[seat]
    room = len(fam["senators"]) + 1 <= st.cenacle_limit(seat) + senator.limit_bonus
    return room and effects.affordable(st, seat, senator.cost)


def recruit_options(st: CiceronState, fr: Frame) -> Options:
    seat = fr["seat"]
    drawn = st.families[seat]["drawn"]
    found = [Decision("recruit", (sid,)) for sid in drawn if can_recruit(st, seat, sid)]
    return one(seat, [*found, Decision("done")])  # to make room: `discard` (see options)


def recruit_apply(st: CiceronState, seat: int, fr: Frame, d: Decision) -> None:
    fam = st.families[seat]
    if d.verb == "recruit":
        senator = st.cards.senator(d.args[0])
        effects.pay(st, seat, senator.cost)
        fam["drawn"].remove(senator.id)
        fam["senators"].append(senator.id)
        fr["taken"] += 1
        st.emit("recruit", family=st.name(seat), senator=senator.id)
        if fr["taken"] < fr["most"] and fam["drawn"]:
            return
    st.frames.pop()
    st.piles[fr["pile"]][:0] = fam["drawn"]  # the others go under their pile
    if fam["drawn"]:
        st.emit("return-senators", family=st.name(seat), pile=fr["pile"],
                count=len(fam["drawn"]))
    fam["drawn"] = []


# -- the zone spots ----------------------------------------------------------------------
def upper_spot(st: CiceronState, placer: int, caste: str) -> None:
    """Placer: +X influence AND, if it wishes, an action card of the caste, in either
    order; each other family in turn: +X OR a card."""
    st.frames += [{"k": "upper_other", "seat": s, "caste": caste}
                  for s in reversed(st.others_from(placer))]
    st.frames.append({"k": "upper", "seat": placer, "caste": caste, "gained": False})


def gain_x(st: CiceronState, seat: int, caste: str) -> None:
    amount = st.gain_influence(seat, caste, st.caste_influence(seat, caste))
    st.emit("influence", family=st.name(seat), caste=caste, amount=amount)


def upper_options(st: CiceronState, fr: Frame) -> Options:
    seat, caste = fr["seat"], fr["caste"]
    plays = effects.play_options(st, seat, caste)
    first = [Decision("done")] if fr["gained"] else [Decision("gain")]
    return one(seat, [*first, *plays])


def upper_apply(st: CiceronState, seat: int, fr: Frame, d: Decision) -> None:
    if d.verb == "gain":
        fr["gained"] = True
        gain_x(st, seat, fr["caste"])
        return
    st.frames.pop()
    if d.verb == "play":
        gained = fr["gained"]
        effects.play(st, seat, d)
        if not gained:
            gain_x(st, seat, fr["caste"])


def upper_other_options(st: CiceronState, fr: Frame) -> Options:
    seat = fr["seat"]
    return one(seat, [Decision("gain"), *effects.play_options(st, seat, fr["caste"])])


def upper_other_apply(st: CiceronState, seat: int, fr: Frame, d: Decision) -> None:
    st.frames.pop()
    if d.verb == "gain":
        gain_x(st, seat, fr["caste"])
    else:
        effects.play(st, seat, d)


def lower_spot(st: CiceronState, placer: int, caste: str) -> None:
    """Placer: +1 influence AND the top action card; each other family: one of them."""
    st.gain_influence(placer, caste, 1)
    st.emit("influence", family=st.name(placer), caste=caste, amount=1)
    st.draw_action(placer, caste)
    st.frames += [{"k": "secondary", "seat": s, "caste": caste}
                  for s in reversed(st.others_from(placer))]


def secondary_options(st: CiceronState, fr: Frame) -> Options:
    draw = [Decision("draw")] if st.decks[fr["caste"]] else []
    return one(fr["seat"], [Decision("gain"), *draw])


def secondary_apply(st: CiceronState, seat: int, fr: Frame, d: Decision) -> None:
    st.frames.pop()
    if d.verb == "gain":
        st.gain_influence(seat, fr["caste"], 1)
        st.emit("influence", family=st.name(seat), caste=fr["caste"], amount=1)
    else:
        st.draw_action(seat, fr["caste"])


def reward_options(st: CiceronState, fr: Frame) -> Options:
    return one(fr["seat"], [Decision("reward", (effects.reward_word(key),))
                            for key, _ in fr["rewards"]])


def reward_apply(st: CiceronState, seat: int, fr: Frame, d: Decision) -> None:
    st.frames.pop()
    key, amount = next((k, a) for k, a in fr["rewards"] if effects.reward_word(k) == d.args[0])
    effects.take_reward(st, seat, key, amount)


def trim_options(st: CiceronState, fr: Frame) -> Options:
    seat = fr["seat"]
    if len(st.families[seat]["senators"]) <= st.cenacle_limit(seat):
        return {}
    return one(seat, [Decision("discard", (sid,)) for sid in st.families[seat]["senators"]])


def trim_apply(st: CiceronState, seat: int, fr: Frame, d: Decision) -> None:
    effects.discard_senator(st, seat, d.args[0], why="over the cénacle limit")


# ---------------------------------------------------------------------------------------
# IV. The tribute, and V. the Triumvirat
# ---------------------------------------------------------------------------------------
def tribute_auto(st: CiceronState, fr: Frame) -> bool:
    st.phase = "tribute"
    while fr["order"]:
        seat = fr["order"].pop(0)
        if not has_turn_effect(st, seat, "tribute_exempt") and st.ciceron is not None:
            st.frames.append({"k": "pay", "seat": seat, "round": fr["round"]})
            return True
    st.frames.pop()
    return True


def pairs(symbols: list[str]) -> list[tuple[str, str]]:
    """The distinct pairs of 2 of the card's 4 influence symbols, in caste order."""
    found = {(a, b) if CASTES.index(a) <= CASTES.index(b) else (b, a)
             for a, b in combinations(symbols, 2)}
    return sorted(found, key=lambda p: (CASTES.index(p[0]), CASTES.index(p[1])))


def other_pair(symbols: list[str], paid: list[str]) -> tuple[str, str]:
    rest = list(symbols)
    for caste in paid:
        rest.remove(caste)
    return (rest[0], rest[1]) if CASTES.index(rest[0]) <= CASTES.index(rest[1]) \
        else (rest[1], rest[0])


def can_pay(st: CiceronState, seat: int, pair: tuple[str, str]) -> bool:
    cost: dict[str, int] = {}
    for caste in pair:
        cost[caste] = cost.get(caste, 0) + 1
    return effects.affordable(st, seat, cost)


def pay_options(st: CiceronState, fr: Frame) -> Options:
    """Round 1: 2 of the 4 influences, or a senator of one of the 2 castes, or -10 PP.
    Round 2 (Triumvirat unmet, C7): a different way from the first payment."""
    seat = fr["seat"]
    card = st.cards.ciceron_card(st.ciceron or "")
    symbols = list(card.influences)
    before = st.families[seat]["tribute"] if fr["round"] == 2 else None
    how = before["how"] if before else None
    paid = before["paid"] if before and how == "pay" else None
    choices = pairs(symbols) if paid is None else [other_pair(symbols, paid)]
    pays = [Decision("pay", p) for p in choices if can_pay(st, seat, p)]
    sacrifices = [Decision("sacrifice", (sid,)) for sid in st.families[seat]["senators"]
                  if st.cards.senator(sid).caste in card.castes]
    if how == "sacrifice":
        sacrifices = []
    disgrace = [Decision("disgrace")]
    if how == "disgrace" and (pays or sacrifices):
        disgrace = []
    return one(seat, [*pays, *sacrifices, *disgrace])


def pay_apply(st: CiceronState, seat: int, fr: Frame, d: Decision) -> None:
    st.frames.pop()
    fam = st.families[seat]
    if d.verb == "pay":
        for caste in d.args:
            st.gain_influence(seat, caste, -1)
        fam["tribute"] = {"how": "pay", "paid": list(d.args)}
        st.emit("tribute", family=st.name(seat), how="pay", influences=list(d.args))
    elif d.verb == "sacrifice":
        fam["tribute"] = {"how": "sacrifice"}
        st.emit("tribute", family=st.name(seat), how="sacrifice", senator=d.args[0])
        effects.discard_senator(st, seat, d.args[0], why="tribute")
    else:
        fam["tribute"] = {"how": "disgrace"}
        st.emit("tribute", family=st.name(seat), how="disgrace")
        st.gain_prestige(seat, DISGRACE_PP, "tribute")


def triumvirat_auto(st: CiceronState, fr: Frame) -> bool:
    """The Princeps draws 1 of the turn's 3 cards; unmet, everyone pays again (C7)."""
    st.frames.pop()
    st.phase = "triumvirat"
    if not st.triumvirat:
        return True
    fixed = st.fixed_outcome("triumvirat")
    drawn = fixed if fixed in st.triumvirat else st.triumvirat[st.rng.below(len(st.triumvirat))]
    st.triumvirat_drawn = drawn
    card = st.cards.triumvirat_card(drawn)
    deployed = sum(st.legions.values())
    met = deployed >= card.legions and (not card.province or st.legions[card.province] > 0)
    st.emit("triumvirat", card=drawn, general=card.general, legions=card.legions,
            province=card.province or None, deployed=deployed, met=met)
    if not met:
        st.frames.append({"k": "tribute", "round": 2,
                          "order": st.clockwise_from(st.princeps or 0)})
    return True


# ---------------------------------------------------------------------------------------
# VI. Majorities, and VII. prestige
# ---------------------------------------------------------------------------------------
#: The majority cards in the order they are settled: each caste's Primus then Secundus,
#: then each guild.
MAJORITIES = (*((kind, caste) for caste in CASTES for kind in ("primus", "secundus")),
              *(("guild", guild) for guild in GUILDS))


def standing(st: CiceronState, kind: str, what: str) -> dict[int, int]:
    """Who qualifies for a majority card and with how much (C9: at least 1)."""
    if kind == "guild":
        found = {s: st.guild_symbols(s, what) for s in range(st.num_seats)}
    else:
        found = {s: st.senate_votes(s, what) for s in range(st.num_seats)}
        if kind == "secundus":
            found.pop(st.primus[what], None)  # type: ignore[arg-type]
    return {s: v for s, v in found.items() if v >= 1}


def majorities_auto(st: CiceronState, fr: Frame) -> bool:
    st.phase = "majorities"
    if not fr["left"]:
        st.frames.pop()
        return True
    kind, what = fr["left"].pop(0).split("-", 1)
    values = standing(st, kind, what)
    if not values:
        award(st, kind, what, None)
        return True
    best = max(values.values())
    tied = [st.name(s) for s, v in values.items() if v == best]
    if len(tied) == 1:
        award(st, kind, what, st.seat_of(tied[0]))
    else:
        st.frames.append({"k": "award", "seat": st.princeps, "card": f"{kind}-{what}",
                          "tied": tied})
    return True


def award(st: CiceronState, kind: str, what: str, seat: int | None) -> None:
    holder = st.name(seat) if seat is not None else None
    if kind == "guild":
        st.guilds[what] = {"holder": seat, "choice": None}
        st.emit("majority", card=f"guild-{what}", family=holder)
        if seat is not None:
            st.frames.append({"k": "guild_choice", "seat": seat, "guild": what})
        return
    (st.primus if kind == "primus" else st.secundus)[what] = seat
    st.emit("majority", card=f"{kind}-{what}", family=holder)


def award_options(st: CiceronState, fr: Frame) -> Options:
    return one(fr["seat"], [Decision("award", (name,)) for name in fr["tied"]])


def award_apply(st: CiceronState, seat: int, fr: Frame, d: Decision) -> None:
    st.frames.pop()
    kind, what = fr["card"].split("-", 1)
    award(st, kind, what, st.seat_of(d.args[0]))


def guild_choice_options(st: CiceronState, fr: Frame) -> Options:
    return one(fr["seat"], [Decision("choose", ("power",)), Decision("choose", ("prestige",))])


def guild_choice_apply(st: CiceronState, seat: int, fr: Frame, d: Decision) -> None:
    st.frames.pop()
    st.guilds[fr["guild"]]["choice"] = d.args[0]
    st.emit("guild-choice", family=st.name(seat), guild=fr["guild"], choice=d.args[0])


def met_requirements(st: CiceronState, seat: int, requires: dict[str, int]) -> bool:
    """One guild symbol may serve several senators: the cénacle's totals are compared."""
    return all(st.guild_symbols(seat, guild) >= n for guild, n in requires.items())


def prestige_auto(st: CiceronState, fr: Frame) -> bool:
    st.frames.pop()
    st.phase = "prestige"
    for seat in range(st.num_seats):
        points = PRIMUS_PP * sum(h == seat for h in st.primus.values())
        points += SECUNDUS_PP * sum(h == seat for h in st.secundus.values())
        points += GUILD_PP * sum(g["holder"] == seat and g["choice"] == "prestige"
                                 for g in st.guilds.values())
        for sid in st.families[seat]["senators"]:
            senator = st.cards.senator(sid)
            if senator.prestige and met_requirements(st, seat, senator.requires):
                points += senator.prestige
        if points:
            st.gain_prestige(seat, points, "prestige phase")
    return True


def end_turn_auto(st: CiceronState, fr: Frame) -> bool:
    """End-of-turn cards act; servants come home; a chosen guild power waits for the next
    turn; the game ends after the last turn."""
    st.frames.pop()
    for seat in st.clockwise_from(st.princeps or 0):  # from the Princeps (cards doc, C12)
        fam = st.families[seat]
        ending = [e for e in fam["turn_effects"] if e.get("when") == "end"]
        fam["turn_effects"] = [e for e in fam["turn_effects"]
                               if e.get("kind") == "votes"]
        for entry in ending:
            card = st.cards.action(entry["card"])
            st.removed.append(card.id)
            effects.apply_effect(st, seat, card.effect, ())
    for seat, fam in enumerate(st.families):
        fam["servants"] = fam["servants"] + sum(holder == seat for holder in st.spots.values())
        fam["tribute"] = None
    for guild in GUILDS:
        holder = st.guilds[guild]["holder"]
        if st.guilds[guild]["choice"] == "power" and holder is not None:
            st.families[holder]["guild_powers"].append(guild)
    st.spots = dict.fromkeys(st.spots)
    if st.ciceron is not None:
        st.ciceron_past.append(st.ciceron)
        st.ciceron = None
    if st.turn >= st.turns:
        st.finish()
        return True
    begin_turn(st, st.turn + 1)
    for seat in reversed(st.clockwise_from(st.princeps or 0)):
        # a limit raised for the turn only (guild power) is gone: discard down to it
        if len(st.families[seat]["senators"]) > st.cenacle_limit(seat):
            st.frames.append({"k": "trim", "seat": seat})
    return True


AUTO: dict[str, Callable[[CiceronState, Frame], bool]] = {
    "draft": draft_auto,
    "first_princeps": first_princeps_auto,
    "turn_start": turn_start_auto,
    "guild_power": guild_power_auto,
    "automatii": automatii_auto,
    "ciceron": ciceron_auto,
    "placement": placement_auto,
    "tribute": tribute_auto,
    "triumvirat": triumvirat_auto,
    "majorities": majorities_auto,
    "prestige": prestige_auto,
    "end_turn": end_turn_auto,
}

OPTIONS: dict[str, Callable[[CiceronState, Frame], Options]] = {
    "draft": draft_options,
    "guild_power": guild_power_options,
    "election": election_options,
    "elect": elect_options,
    "place": place_options,
    "recruit": recruit_options,
    "upper": upper_options,
    "upper_other": upper_other_options,
    "secondary": secondary_options,
    "reward": reward_options,
    "trim": trim_options,
    "pay": pay_options,
    "award": award_options,
    "guild_choice": guild_choice_options,
}

APPLY: dict[str, Callable[[CiceronState, int, Frame, Decision], None]] = {
    "draft": draft_apply,
    "guild_power": guild_power_apply,
    "election": election_apply,
    "elect": elect_apply,
    "place": place_apply,
    "recruit": recruit_apply,
    "upper": upper_apply,
    "upper_other": upper_other_apply,
    "secondary": secondary_apply,
    "reward": reward_apply,
    "trim": trim_apply,
    "pay": pay_apply,
    "award": award_apply,
    "guild_choice": guild_choice_apply,
}

PROMPTS = {
    "draft": "pick a white senator (opening draft)",
    "guild_power": "use the guild power",
    "election": "vote for the Princeps (secret, simultaneous)",
    "elect": "decide the tied Princeps election",
    "place": "place a servant",
    "recruit": "recruit senators from the draw, or be done",
    "upper": "gain the zone's influence and/or play an action card",
    "upper_other": "gain the zone's influence or play an action card",
    "secondary": "gain 1 influence or draw an action card",
    "reward": "choose the legion's reward",
    "trim": "discard a senator (over the cénacle limit)",
    "pay": "pay Cicéron's tribute",
    "award": "award a tied majority card",
    "guild_choice": "choose the guild power for next turn or 3 prestige",
}
