"""Municipium's rule steps.

The state holds a stack of frames (plain dicts, top last). A frame is either automatic
(its step runs without anyone deciding) or waits for one seat's decision. Each kind of
frame has a small function here: `AUTO[kind](st, frame)` runs an automatic step,
`OPTIONS[kind](st, frame)` lists the legal decisions and `APPLY[kind](st, frame, d)`
carries one out. Ruling ids (M0..M23, C-M1..) are restated in docs/rulings.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from games.core import Decision
from games.municipium import decisions as dec
from games.municipium.board import (
    ALL_POWERS,
    BATHS,
    CITIZEN_VISIT,
    COLOURS,
    GRANDE_FAMILLE,
    INSTITUTION_INDEX,
    INSTITUTIONS,
    INVITATIONS,
    NEIGHBOURS,
    ONE_POWER,
    PLACES_FOR,
    PRAEFECT,
    PRAEFECT_VISIT,
    TAVERN,
    TEMPLE,
    YOUR_POWERS,
)

if TYPE_CHECKING:
    from games.municipium.state import MunicipiumState

Frame = dict[str, Any]


# ---------------------------------------------------------------------------------------
# Setup (M0)
# ---------------------------------------------------------------------------------------
def setup_options(st: MunicipiumState, fr: Frame) -> list[Decision]:
    return [dec.setup(i) for i in range(7)]


def setup_apply(st: MunicipiumState, fr: Frame, d: Decision) -> None:
    seat, inst = fr["seat"], INSTITUTION_INDEX[d.args[0]]
    st.plain[seat][inst] += 1
    st.placed += 1
    st.emit("setup", family=st.names[seat], institution=d.args[0])
    if st.rules.temple_order_during_setup:
        classic_temple_placement(st, seat, inst)
    if st.placed < 7 * st.num_seats:
        fr["seat"] = (seat + 1) % st.num_seats
        return
    st.frames.pop()
    if not st.rules.temple_order_during_setup:
        revised_temple_order(st)
    st.emit("temple-order", order=[st.names[s] for s in st.temple])
    st.begin_turn(st.first, 1)


def classic_temple_placement(st: MunicipiumState, seat: int, inst: int) -> None:
    """M0: a family's k-th Temple member puts its disc just below those with k or more."""
    if inst == TEMPLE:
        k = st.plain[seat][TEMPLE]
        if k == 1:
            st.temple.append(seat)
        else:
            st.temple.remove(seat)
            above = sum(1 for s in st.temple if st.plain[s][TEMPLE] >= k)
            st.temple.insert(above, seat)
    placed_all = st.placed > 7 * st.num_seats - st.num_seats
    if placed_all and seat not in st.temple:  # its 7th member, and no Temple member
        st.temple.append(seat)


def revised_temple_order(st: MunicipiumState) -> None:
    """Revised: by Temple count once setup ends; ties to the earliest seat from the first."""
    clockwise = [(st.first + i) % st.num_seats for i in range(st.num_seats)]
    st.temple = sorted(clockwise, key=lambda s: -st.plain[s][TEMPLE])


# ---------------------------------------------------------------------------------------
# The turn: optional movement (M10), then a card (M11)
# ---------------------------------------------------------------------------------------
def turn_options(st: MunicipiumState, fr: Frame) -> list[Decision]:
    seat = fr["seat"]
    options: list[Decision] = []
    if fr["moves"] < 2:
        options.extend(movement_options(st, seat, fr["last"]))
    options.append(dec.PLAY_COMMON)
    options.extend(dec.play(card) for card in st.family_cards[seat])
    return options


def movement_options(st: MunicipiumState, seat: int, last: list[int] | None) -> list[Decision]:
    """Every single one-street move; the member just moved may not return (M10)."""
    options = []
    for wreathed, counts in enumerate((st.plain[seat], st.wreathed[seat])):
        for src in range(7):
            if not counts[src]:
                continue
            for dst in NEIGHBOURS[src]:
                if last and last == [dst, src, wreathed] and counts[src] == 1:
                    continue
                options.append(dec.move(src, dst, wreathed))
    return options


def turn_apply(st: MunicipiumState, fr: Frame, d: Decision) -> None:
    seat = fr["seat"]
    if d.verb == "move":
        src, wreathed = dec.parse_member(d.args[0])
        dst = INSTITUTION_INDEX[d.args[1]]
        st.move_member(seat, src, dst, wreathed)
        fr["moves"] += 1
        fr["last"] = [src, dst, wreathed]
        st.emit("move", family=st.names[seat], member=d.args[0], to=d.args[1])
        return
    st.frames.pop()
    card = d.args[0]
    if card == "common":
        card = st.draw_card()
        st.frames.append({"k": "discard", "card": card})
        st.emit("play", family=st.names[seat], card=card, source="common")
    else:
        st.family_cards[seat].remove(card)
        st.emit("play", family=st.names[seat], card=card, source="family")
    CARD_EFFECTS[card](st, seat)


def end_turn_auto(st: MunicipiumState, fr: Frame) -> None:
    """M14 / M23: the game ends at the end of a turn that reached the target or the limit."""
    st.frames.pop()
    if max(st.decurions) >= st.options["target_decurions"]:
        st.finish("target")
    elif st.turn >= st.options["max_turns"]:
        st.finish("max_turns")
    else:
        st.begin_turn((st.active + 1) % st.num_seats, st.turn + 1)


def discard_auto(st: MunicipiumState, fr: Frame) -> None:
    st.frames.pop()
    st.discard.append(fr["card"])


# ---------------------------------------------------------------------------------------
# Cards
# ---------------------------------------------------------------------------------------
def clockwise_from(st: MunicipiumState, seat: int) -> list[int]:
    return [(seat + i) % st.num_seats for i in range(st.num_seats)]


def praefect_card(st: MunicipiumState, seat: int) -> None:
    st.advance_praefect()


def citizen_visit_card(st: MunicipiumState, seat: int) -> None:
    st.frames.append({"k": "visit", "seats": clockwise_from(st, seat)})


def invitations_card(st: MunicipiumState, seat: int) -> None:
    """M13: the 4 citizens are revealed, then placed in an order of the family's choosing."""
    drawn = [c for c in (st.draw_citizen() for _ in range(4)) if c is not None]
    st.emit("reveal", family=st.names[seat], citizens=[COLOURS[c] for c in drawn])
    if drawn:
        st.frames.append({"k": "invite", "seat": seat, "colours": drawn})


def one_power_card(st: MunicipiumState, seat: int) -> None:
    st.frames.append({"k": "one_power", "seats": clockwise_from(st, seat)})


def all_powers_card(st: MunicipiumState, seat: int) -> None:
    st.frames.append({"k": "all_powers", "next": 0})


def your_powers_card(st: MunicipiumState, seat: int) -> None:
    st.frames.append({"k": "your_powers", "seat": seat, "next": 0})


def grande_famille_card(st: MunicipiumState, seat: int) -> None:
    """Revised family card: advance the Praefect OR reposition any members (M21)."""
    st.frames.append(reposition_frame(st, seat, "gf"))


CARD_EFFECTS: dict[str, Callable[[MunicipiumState, int], None]] = {
    PRAEFECT_VISIT: praefect_card,
    PRAEFECT: praefect_card,
    CITIZEN_VISIT: citizen_visit_card,
    INVITATIONS: invitations_card,
    ONE_POWER: one_power_card,
    ALL_POWERS: all_powers_card,
    YOUR_POWERS: your_powers_card,
    GRANDE_FAMILLE: grande_famille_card,
}


# ---------------------------------------------------------------------------------------
# Citizens: placement (M13), Citizen events (M5)
# ---------------------------------------------------------------------------------------
def visit_auto(st: MunicipiumState, fr: Frame) -> None:
    """Citizen Visit: each family in turn draws one citizen and must place it."""
    if not fr["seats"]:
        st.frames.pop()
        return
    seat = fr["seats"].pop(0)
    colour = st.draw_citizen()
    if colour is None:  # M8: nothing to draw, the step is skipped
        return
    st.emit("draw", family=st.names[seat], citizen=COLOURS[colour])
    st.frames.append({"k": "place", "seat": seat, "colour": colour, "mode": "visit"})


def place_options(st: MunicipiumState, fr: Frame) -> list[Decision]:
    colour = fr["colour"]
    return [dec.place(colour, inst) for inst in PLACES_FOR[colour]]


def place_apply(st: MunicipiumState, fr: Frame, d: Decision) -> None:
    st.frames.pop()
    fired = place_citizen(st, fr["seat"], d)
    if fired and fr["mode"] == "emporium":  # M18: must stop after a Citizen event
        st.frames.pop()
    if fired:
        st.frames.append({"k": "citizen_event", "inst": INSTITUTION_INDEX[d.args[1]]})


def place_citizen(st: MunicipiumState, seat: int, d: Decision) -> bool:
    """Put a citizen in an Institution; True if that fires a Citizen event (M5)."""
    colour, inst = COLOURS.index(d.args[0]), INSTITUTION_INDEX[d.args[1]]
    st.inst_citizens[inst].append(colour)
    st.emit("place", family=st.names[seat], citizen=d.args[0], institution=d.args[1])
    return len(st.inst_citizens[inst]) >= 3


def invite_options(st: MunicipiumState, fr: Frame) -> list[Decision]:
    return [dec.place(c, inst) for c in sorted(set(fr["colours"])) for inst in PLACES_FOR[c]]


def invite_apply(st: MunicipiumState, fr: Frame, d: Decision) -> None:
    fr["colours"].remove(COLOURS.index(d.args[0]))
    if not fr["colours"]:
        st.frames.pop()
    if place_citizen(st, fr["seat"], d):
        st.frames.append({"k": "citizen_event", "inst": INSTITUTION_INDEX[d.args[1]]})


def keep_pairs(citizens: list[int]) -> list[tuple[int, int]]:
    """The distinct pairs the majority family may keep out of three citizens."""
    a, b, c = citizens
    return sorted({tuple(sorted(p)) for p in ((a, b), (a, c), (b, c))})  # type: ignore[misc]


def citizen_event_auto(st: MunicipiumState, fr: Frame) -> None:
    """M5: majority chooses 2 of the 3 (a decision when that is a real choice)."""
    inst = fr["inst"]
    ranking = st.ranking_at(inst)
    if not ranking:
        st.frames.pop()
        resolve_citizen_event(st, inst, [], None)
        return
    pairs = keep_pairs(st.inst_citizens[inst])
    if len(pairs) > 1:
        st.frames[-1] = {"k": "keep", "seat": ranking[0], "inst": inst}
        return
    st.frames.pop()
    resolve_citizen_event(st, inst, ranking[:2], pairs[0])


def keep_options(st: MunicipiumState, fr: Frame) -> list[Decision]:
    return [dec.keep(a, b) for a, b in keep_pairs(st.inst_citizens[fr["inst"]])]


def keep_apply(st: MunicipiumState, fr: Frame, d: Decision) -> None:
    st.frames.pop()
    pair = (COLOURS.index(d.args[0]), COLOURS.index(d.args[1]))
    resolve_citizen_event(st, fr["inst"], st.ranking_at(fr["inst"])[:2], pair)


def resolve_citizen_event(
    st: MunicipiumState, inst: int, takers: list[int], pair: tuple[int, int] | None
) -> None:
    """Hand out the citizens: pair to the majority, the rest to the second or the bag."""
    rest = list(st.inst_citizens[inst])
    st.inst_citizens[inst] = []
    gains: dict[int, list[int]] = {}
    if takers and pair is not None:
        for colour in pair:
            rest.remove(colour)
        gains[takers[0]] = list(pair)
        if len(takers) > 1:
            gains[takers[1]] = rest
            rest = []
    for colour in rest:
        st.bag[colour] += 1
    st.emit(
        "citizen-event",
        institution=INSTITUTIONS[inst],
        gains={st.names[s]: [COLOURS[c] for c in cs] for s, cs in gains.items()},
        to_bag=[COLOURS[c] for c in rest],
    )
    for seat, colours in gains.items():
        for colour in colours:
            st.supply[seat][colour] += 1
        st.exchange_sets(seat)


# ---------------------------------------------------------------------------------------
# Power cards (M12)
# ---------------------------------------------------------------------------------------
def your_powers_auto(st: MunicipiumState, fr: Frame) -> None:
    """Your Powers: offered in numerical order where the family holds the majority now."""
    for inst in range(fr["next"], 7):
        if st.majority(inst) == fr["seat"]:
            fr["next"] = inst + 1
            offer_power(st, fr["seat"], inst)
            return
    st.frames.pop()


def all_powers_auto(st: MunicipiumState, fr: Frame) -> None:
    """All Powers: 0..VI, each offered to its majority holder of the moment."""
    for inst in range(fr["next"], 7):
        holder = st.majority(inst)
        if holder is not None:
            fr["next"] = inst + 1
            offer_power(st, holder, inst)
            return
    st.frames.pop()


def offer_power(st: MunicipiumState, seat: int, inst: int) -> None:
    """Offer one power; the revised Temple power is compulsory (M15)."""
    if inst == TEMPLE and st.rules.temple_power_compulsory:
        execute_power(st, seat, inst)
    else:
        st.frames.append({"k": "offer", "seat": seat, "inst": inst})


def one_power_auto(st: MunicipiumState, fr: Frame) -> None:
    """One Power: each family in turn may use one power where it holds the majority."""
    if not fr["seats"]:
        st.frames.pop()
        return
    seat = fr["seats"].pop(0)
    if any(st.majority(inst) == seat for inst in range(7)):
        st.frames.append({"k": "choose_power", "seat": seat})


def offer_options(st: MunicipiumState, fr: Frame) -> list[Decision]:
    return [dec.power(fr["inst"]), dec.SKIP]


def choose_power_options(st: MunicipiumState, fr: Frame) -> list[Decision]:
    held = [dec.power(inst) for inst in range(7) if st.majority(inst) == fr["seat"]]
    return [*held, dec.SKIP] if held else []


def power_choice_apply(st: MunicipiumState, fr: Frame, d: Decision) -> None:
    st.frames.pop()
    if d.verb == "power":
        execute_power(st, fr["seat"], INSTITUTION_INDEX[d.args[0]])
    else:
        st.emit("skip", family=st.names[fr["seat"]])


def execute_power(st: MunicipiumState, seat: int, inst: int) -> None:
    st.emit("power", family=st.names[seat], institution=INSTITUTIONS[inst])
    POWERS[inst](st, seat)


# ---------------------------------------------------------------------------------------
# Institution powers (M15-M21)
# ---------------------------------------------------------------------------------------
def temple_power(st: MunicipiumState, seat: int) -> None:
    """M15: reorder the discs by Temple influence; equal influence keeps its order."""
    st.temple.sort(key=lambda s: -st.influence(s, TEMPLE))
    st.emit("temple-order", order=[st.names[s] for s in st.temple])


def tavern_power(st: MunicipiumState, seat: int) -> None:
    st.frames.append({"k": "tavern_family", "seat": seat})


def tavern_family_options(st: MunicipiumState, fr: Frame) -> list[Decision]:
    """M16: any family (one's own or another) with members outside the Tavern."""
    return [dec.family(st.names[f]) for f in range(st.num_seats)
            if any(st.members_at(f, i) for i in range(7) if i != TAVERN)]


def tavern_family_apply(st: MunicipiumState, fr: Frame, d: Decision) -> None:
    st.frames[-1] = {"k": "tavern_from", "seat": fr["seat"], "fam": st.names.index(d.args[0])}


def tavern_from_options(st: MunicipiumState, fr: Frame) -> list[Decision]:
    fam = fr["fam"]
    return [dec.from_(i) for i in range(7) if i != TAVERN and st.members_at(fam, i)]


def tavern_from_apply(st: MunicipiumState, fr: Frame, d: Decision) -> None:
    st.frames[-1] = {"k": "tavern_send", "seat": fr["seat"], "fam": fr["fam"],
                     "inst": INSTITUTION_INDEX[d.args[0]]}


def tavern_send_options(st: MunicipiumState, fr: Frame) -> list[Decision]:
    plain, wreathed = st.plain[fr["fam"]][fr["inst"]], st.wreathed[fr["fam"]][fr["inst"]]
    return [dec.send(p, w) for w in range(wreathed + 1) for p in range(plain + 1) if p + w]


def tavern_send_apply(st: MunicipiumState, fr: Frame, d: Decision) -> None:
    st.frames.pop()
    fam, src = fr["fam"], fr["inst"]
    plain = int(d.args[0])
    wreathed = int(d.args[1].rstrip("*")) if len(d.args) > 1 else 0
    for _ in range(plain):
        st.move_member(fam, src, TAVERN, 0)
    for _ in range(wreathed):
        st.move_member(fam, src, TAVERN, 1)
    st.emit("tavern", family=st.names[fam], source=INSTITUTIONS[src],
            members=plain, distinguished=wreathed)


def baths_power(st: MunicipiumState, seat: int) -> None:
    """M17: all one's Baths members go to the Temple, then one Temple member is wreathed."""
    for wreathed in (0, 1):
        while (st.plain, st.wreathed)[wreathed][seat][BATHS]:
            st.move_member(seat, BATHS, TEMPLE, wreathed)
    wreathed_one = st.wreath_supply > 0 and st.plain[seat][TEMPLE] > 0
    if wreathed_one:
        st.plain[seat][TEMPLE] -= 1
        st.wreathed[seat][TEMPLE] += 1
        st.wreath_supply -= 1
    st.emit("distinction", family=st.names[seat], granted=wreathed_one)


def emporium_power(st: MunicipiumState, seat: int) -> None:
    """M18: draw and place one by one, stop at will, must stop after a Citizen event."""
    st.frames.append({"k": "emporium", "seat": seat})
    emporium_draw(st, seat)


def emporium_draw(st: MunicipiumState, seat: int) -> None:
    colour = st.draw_citizen()
    if colour is None:  # M8: an empty bag ends the power
        st.frames.pop()
        return
    st.emit("draw", family=st.names[seat], citizen=COLOURS[colour])
    st.frames.append({"k": "place", "seat": seat, "colour": colour, "mode": "emporium"})


def emporium_options(st: MunicipiumState, fr: Frame) -> list[Decision]:
    return [dec.DRAW, dec.STOP] if sum(st.bag) else []


def emporium_apply(st: MunicipiumState, fr: Frame, d: Decision) -> None:
    if d == dec.DRAW:
        emporium_draw(st, fr["seat"])
    else:
        st.frames.pop()


def basilica_power(st: MunicipiumState, seat: int) -> None:
    st.frames.append({"k": "basilica", "seat": seat})


def basilica_options(st: MunicipiumState, fr: Frame) -> list[Decision]:
    """M19: any 3 of one's citizens/Favours for a Decurion, or one citizen from the bag."""
    held = [*st.supply[fr["seat"]], st.favours[fr["seat"]]]
    options = [dec.exchange(t) for t in dec.ALL_EXCHANGES
               if all(t.count(k) <= held[k] for k in set(t))]
    if sum(st.bag):
        options.append(dec.DRAW)
    return options


def basilica_apply(st: MunicipiumState, fr: Frame, d: Decision) -> None:
    st.frames.pop()
    seat = fr["seat"]
    if d == dec.DRAW:
        colour = st.draw_citizen()
        assert colour is not None
        st.emit("draw", family=st.names[seat], citizen=COLOURS[colour])
        st.supply[seat][colour] += 1
        st.exchange_sets(seat)
        return
    for token in d.args:
        if token == "favour":
            st.favours[seat] -= 1
            st.favour_supply += 1
        else:
            colour = COLOURS.index(token)
            st.supply[seat][colour] -= 1
            st.bag[colour] += 1
    st.decurions[seat] += 1
    st.emit("decurion", family=st.names[seat], paid=list(d.args))


def forum_power(st: MunicipiumState, seat: int) -> None:
    st.frames.append({"k": "forum", "seat": seat})


def forum_options(st: MunicipiumState, fr: Frame) -> list[Decision]:
    """M20: one citizen (never a Favour) from another family or from an Institution."""
    seat = fr["seat"]
    options = [dec.take_from_family(c, st.names[f]) for f in range(st.num_seats) if f != seat
               for c in range(4) if st.supply[f][c]]
    options.extend(dec.take_from_institution(c, i) for i in range(7)
                   for c in sorted(set(st.inst_citizens[i])))
    return options


def forum_apply(st: MunicipiumState, fr: Frame, d: Decision) -> None:
    st.frames.pop()
    seat, colour, source = fr["seat"], COLOURS.index(d.args[0]), d.args[1]
    if source in INSTITUTION_INDEX:
        st.inst_citizens[INSTITUTION_INDEX[source]].remove(colour)
    else:
        st.supply[st.names.index(source)][colour] -= 1
    st.supply[seat][colour] += 1
    st.emit("take", family=st.names[seat], citizen=d.args[0], source=source)
    st.exchange_sets(seat)


def praetorium_power(st: MunicipiumState, seat: int) -> None:
    st.frames.append(reposition_frame(st, seat, "all" if st.rules.reposition_all else "any"))


def reposition_frame(st: MunicipiumState, seat: int, mode: str) -> Frame:
    """M21: members still to reposition, one at a time; `mode` all / any / gf."""
    return {"k": "reposition", "seat": seat, "mode": mode,
            "pending": [list(st.plain[seat]), list(st.wreathed[seat])]}


def reposition_options(st: MunicipiumState, fr: Frame) -> list[Decision]:
    pending = fr["pending"]
    if fr["mode"] == "all":  # classic: every member in turn, staying put allowed
        src, w = next((i, w) for i in range(7) for w in (0, 1) if pending[w][i])
        return [dec.reposition(src, dst, w) for dst in range(7)]
    options = [dec.reposition(src, dst, w) for w in (0, 1) for src in range(7)
               if pending[w][src] for dst in range(7) if dst != src]
    options.append(dec.DONE)
    if fr["mode"] == "gf":
        options.append(dec.ADVANCE)
    return options


def reposition_apply(st: MunicipiumState, fr: Frame, d: Decision) -> None:
    seat = fr["seat"]
    if d.verb != "reposition":
        st.frames.pop()
        if d == dec.ADVANCE:
            st.advance_praefect()
        return
    src, wreathed = dec.parse_member(d.args[0])
    dst = INSTITUTION_INDEX[d.args[1]]
    st.move_member(seat, src, dst, wreathed)
    fr["pending"][wreathed][src] -= 1
    fr["mode"] = "any" if fr["mode"] == "gf" else fr["mode"]
    st.emit("reposition", family=st.names[seat], member=d.args[0], to=d.args[1])
    if not any(map(any, fr["pending"])):
        st.frames.pop()


POWERS: tuple[Callable[[MunicipiumState, int], None], ...] = (
    temple_power, tavern_power, baths_power, emporium_power,
    basilica_power, forum_power, praetorium_power,
)

AUTO: dict[str, Callable[[MunicipiumState, Frame], None]] = {
    "end_turn": end_turn_auto,
    "discard": discard_auto,
    "visit": visit_auto,
    "citizen_event": citizen_event_auto,
    "your_powers": your_powers_auto,
    "all_powers": all_powers_auto,
    "one_power": one_power_auto,
}

OPTIONS: dict[str, Callable[[MunicipiumState, Frame], list[Decision]]] = {
    "setup": setup_options,
    "turn": turn_options,
    "place": place_options,
    "invite": invite_options,
    "keep": keep_options,
    "offer": offer_options,
    "choose_power": choose_power_options,
    "tavern_family": tavern_family_options,
    "tavern_from": tavern_from_options,
    "tavern_send": tavern_send_options,
    "emporium": emporium_options,
    "basilica": basilica_options,
    "forum": forum_options,
    "reposition": reposition_options,
}

APPLY: dict[str, Callable[[MunicipiumState, Frame, Decision], None]] = {
    "setup": setup_apply,
    "turn": turn_apply,
    "place": place_apply,
    "invite": invite_apply,
    "keep": keep_apply,
    "offer": power_choice_apply,
    "choose_power": power_choice_apply,
    "tavern_family": tavern_family_apply,
    "tavern_from": tavern_from_apply,
    "tavern_send": tavern_send_apply,
    "emporium": emporium_apply,
    "basilica": basilica_apply,
    "forum": forum_apply,
    "reposition": reposition_apply,
}

#: What each waiting frame asks of its seat, for error messages and logs.
PROMPTS = {
    "setup": "place a family member (setup)",
    "turn": "move (optional) or play a card",
    "place": "place the drawn citizen",
    "invite": "place one of the invited citizens",
    "keep": "choose the 2 citizens to keep",
    "offer": "use the offered power or skip",
    "choose_power": "choose one power to use, or skip",
    "tavern_family": "choose the family the Tavern calls",
    "tavern_from": "choose the Institution they come from",
    "tavern_send": "choose how many members go to the Tavern",
    "emporium": "draw another citizen or stop",
    "basilica": "exchange 3 for a Decurion, or draw a citizen",
    "forum": "take a citizen",
    "reposition": "reposition a member",
}
