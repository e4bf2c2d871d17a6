"""Municipium's board as one self-contained SVG document, drawn from an observation.

`render_svg(observation)` is pure (no I/O, standard library only) and deterministic: the
same observation gives the same text. It shows what the observation holds and nothing
more: the seven Institutions (the Temple in the middle of the ring I-VI, as on the board)
with the members of each family, the citizens waiting there and the meeting room, the
Praefect, the Temple order, each family's supply, Decurions and face-up family cards, the
common deck and discard, the bag, whose turn it is and what is asked, and the result.

Colours follow the rule book: the families Blue, Orange, Yellow, Black, Pink (ruling
C-M1); citizens purple (priest), red (militia), brown (merchant), grey (advocate); the
Praefect and his Favours white; Wreaths of Distinction green. Every family is also marked
by its initial and every citizen by two letters, for readers who do not tell colours apart.
"""

from __future__ import annotations

import math
from typing import Any

from games.core import JSON
from games.drawing import HEIGHT, INK, SERIF, WIDTH, document, el, group, num, text
from games.municipium.narration import describe_end

FAMILY_FILL = {"blue": "#1f5fbf", "orange": "#ec7a1c", "yellow": "#f3d02c",
               "black": "#262626", "pink": "#ea8dbb"}
FAMILY_INK = {"blue": "#ffffff", "orange": "#1a1a1a", "yellow": "#1a1a1a",
              "black": "#ffffff", "pink": "#1a1a1a"}
CITIZEN_FILL = {"priest": "#7d3c98", "militia": "#c0392b", "merchant": "#8a5a2b",
                "advocate": "#8e9499"}
CITIZEN_MARK = {"priest": "Pr", "militia": "Mi", "merchant": "Me", "advocate": "Ad"}
CITIZENS = ("priest", "militia", "merchant", "advocate")
WREATH = "#2e8b3e"
FAVOUR = "#ffffff"
PARCHMENT = "#f4ecd8"
NUMERALS = ("0", "I", "II", "III", "IV", "V", "VI")
CARD_NAMES = {"powers": "Your Powers", "praefect": "Praefect Visit",
              "invitations": "Citizen Invitations", "grande-famille": "Grande Famille",
              "praefect-visit": "Praefect Visit", "citizen-visit": "Citizen Visit",
              "one-power": "One Power", "all-powers": "All Powers"}

#: Institution centres: the Temple in the middle, I-VI clockwise from the top (ruling M1).
BOARD_CX, BOARD_CY, RING = 410.0, 405.0, 283.0
BOX_W, BOX_H = 224.0, 172.0
#: Initials marking the families besides their colour (Black is K: Blue has the B).
FAMILY_MARK = {"blue": "B", "orange": "O", "yellow": "Y", "black": "K", "pink": "P"}
#: The streets of the board (ruling M1): the ring I-VI, the Temple to I, III and V.
STREETS = ((1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 1), (0, 1), (0, 3), (0, 5))


# -- names ----------------------------------------------------------------------------

def _title(name: object) -> str:
    return str(name).replace("-", " ").title()


def _initial(family: object) -> str:
    return FAMILY_MARK.get(str(family), str(family)[:1].upper() or "?")


def _fill(family: object) -> str:
    return FAMILY_FILL.get(str(family), "#9a9a9a")


def _ink(family: object) -> str:
    return FAMILY_INK.get(str(family), "#1a1a1a")


def _card_name(card: object) -> str:
    return CARD_NAMES.get(str(card), _title(card))


def _seat_family(obs: JSON, seat: object) -> str:
    families = obs.get("families") or []
    if isinstance(seat, int) and 0 <= seat < len(families):
        return str(families[seat])
    return "?"


# -- pieces ---------------------------------------------------------------------------

def family_disc(x: float, y: float, family: str, r: float = 12) -> str:
    """A family's disc: its colour and its initial."""
    return (el("circle", cx=x, cy=y, r=r, fill=_fill(family), stroke=INK, stroke_width=1.2)
            + text(x, y + r * 0.42, _initial(family), r * 1.15, text_anchor="middle",
                   font_weight="bold", fill=_ink(family)))


def citizen_disc(x: float, y: float, colour: str, r: float = 11) -> str:
    """A citizen: its colour and two letters."""
    return group(_title(colour), el("circle", cx=x, cy=y, r=r,
                                    fill=CITIZEN_FILL.get(colour, "#cccccc"),
                                    stroke=INK, stroke_width=1),
                 text(x, y + r * 0.36, CITIZEN_MARK.get(colour, "?"), r * 0.95,
                      text_anchor="middle", font_weight="bold", fill="#ffffff"))


def favour_disc(x: float, y: float, r: float = 10) -> str:
    """A Praefect Favour: a white token marked F."""
    return group("Praefect Favour",
                 el("circle", cx=x, cy=y, r=r, fill=FAVOUR, stroke=INK, stroke_width=1.2),
                 text(x, y + r * 0.4, "F", r * 1.1, text_anchor="middle", font_weight="bold"))


def praefect_figure(x: float, y: float) -> str:
    """The Praefect: a white pawn with a purple-bordered toga."""
    body = (f"M{num(x - 11)},{num(y + 20)} L{num(x - 7)},{num(y)} "
            f"L{num(x + 7)},{num(y)} L{num(x + 11)},{num(y + 20)} Z")
    return group("the Praefect",
                 el("path", d=body, fill="#ffffff", stroke="#6b1f5c", stroke_width=2.2),
                 el("circle", cx=x, cy=y - 6, r=7, fill="#ffffff", stroke="#6b1f5c",
                    stroke_width=2.2))


def member_chip(x: float, y: float, family: str, plain: int, distinguished: int,
                majority: bool) -> str:
    """A family's members in an Institution: its disc, the plain count, the wreathed,
    and a mark if it holds the majority there."""
    parts = [el("rect", x=x, y=y - 14, width=70, height=28, rx=14, fill="#fffaf0",
                stroke=_fill(family), stroke_width=2.5), family_disc(x + 14, y, family)]
    parts.append(text(x + 31, y + 5, f"{plain}", 15, font_weight="bold",
                      text_anchor="middle"))
    if distinguished:
        parts.append(el("circle", cx=x + 48, cy=y, r=8, fill="none", stroke=WREATH,
                        stroke_width=3.5, stroke_dasharray="3 1.5"))
        parts.append(text(x + 48, y + 4.5, f"{distinguished}", 12, text_anchor="middle",
                          font_weight="bold", fill=WREATH))
    if majority:
        parts.append(text(x + 63, y + 4, "▲", 10, text_anchor="middle", fill="#6b1f5c"))
    label = (f"{_title(family)}: {plain} member{'s' if plain != 1 else ''}"
             + (f", {distinguished} distinguished" if distinguished else "")
             + (", majority" if majority else ""))
    return group(label, *parts)


# -- the board ------------------------------------------------------------------------

def institution_centre(index: int) -> tuple[float, float]:
    """Where an Institution sits: the Temple at the centre, I-VI clockwise from the top."""
    if index == 0:
        return BOARD_CX, BOARD_CY
    angle = math.radians(-90 + 60 * (index - 1))
    return BOARD_CX + RING * math.cos(angle), BOARD_CY + RING * math.sin(angle)


def influence(members: dict[str, Any], family: str) -> int:
    """A family's weight in an Institution: a distinguished member counts two."""
    plain, distinguished = members.get(family, [0, 0])
    return int(plain) + 2 * int(distinguished)


def majority_order(members: dict[str, Any], temple_order: list[str]) -> list[str]:
    """The present families by weight, the Temple order breaking ties (rule book §4.1)."""
    rank = {f: i for i, f in enumerate(temple_order)}
    present = [f for f in members if influence(members, f) > 0]
    return sorted(present, key=lambda f: (-influence(members, f), rank.get(f, 99), f))


def majority(members: dict[str, Any], temple_order: list[str]) -> str | None:
    """The family holding the majority, or None: nobody there, or a tie the Temple order
    cannot break (a family not yet in it, as during the revised setup)."""
    order = majority_order(members, temple_order)
    if not order:
        return None
    tied = len(order) > 1 and influence(members, order[0]) == influence(members, order[1])
    return None if tied and order[1] not in temple_order else order[0]


def streets() -> str:
    """The roads between Institutions, drawn under them."""
    lines = []
    for a, b in STREETS:
        (x1, y1), (x2, y2) = institution_centre(a), institution_centre(b)
        lines.append(el("line", x1=x1, y1=y1, x2=x2, y2=y2, stroke="#c9b48a",
                        stroke_width=18, stroke_linecap="round"))
        lines.append(el("line", x1=x1, y1=y1, x2=x2, y2=y2, stroke="#efe3c4",
                        stroke_width=3, stroke_dasharray="8 8"))
    return group("streets", *lines)


def institution(obs: JSON, index: int, inst: JSON) -> str:
    """One Institution: its name, members, waiting citizens, meeting room and Praefect."""
    cx, cy = institution_centre(index)
    x, y = cx - BOX_W / 2, cy - BOX_H / 2
    name = str(inst.get("name", f"institution {index}"))
    here = obs.get("praefect") == name
    asked = (obs.get("asked") or {}).get("institution") == name
    parts = [el("rect", x=x - 6, y=y - 6, width=BOX_W + 12, height=BOX_H + 12, rx=14,
                fill="none", stroke="#6b1f5c", stroke_width=3, stroke_dasharray="8 5")
             if asked else "",
             el("rect", x=x, y=y, width=BOX_W, height=BOX_H, rx=10, fill="#fbf4e2",
                stroke="#6b1f5c" if here else "#7a6448", stroke_width=4 if here else 2),
             el("rect", x=x, y=y, width=BOX_W, height=28, rx=10, fill="#e3d2aa"),
             text(x + 10, y + 20, f"{NUMERALS[index] if index < 7 else index}  {_title(name)}",
                  17, font_family=SERIF, font_weight="bold")]
    parts.append(_members(obs, inst, x + 4, y + 48))
    parts.append(_waiting(inst, x + 8, y + BOX_H - 42))
    if index != 0:
        parts.append(_meeting_room(obs, inst, x + BOX_W - 92, y + BOX_H - 58, here))
    else:
        parts.append(_temple_order(obs, x + BOX_W - 96, y + BOX_H - 58))
    return group(_institution_label(obs, index, inst), *parts)


def _institution_label(obs: JSON, index: int, inst: JSON) -> str:
    members = inst.get("members") or {}
    who = ", ".join(f"{_title(f)} {p}" + (f" (+{d} distinguished)" if d else "")
                    for f, (p, d) in members.items()) or "no members"
    citizens = ", ".join(inst.get("citizens") or []) or "none"
    praefect = "; the Praefect is here" if obs.get("praefect") == inst.get("name") else ""
    if (obs.get("asked") or {}).get("institution") == inst.get("name"):
        praefect += "; the question asked now is about it"
    return (f"{NUMERALS[index] if index < 7 else index} {_title(inst.get('name'))}: {who}; "
            f"citizens waiting: {citizens}{praefect}")


def _members(obs: JSON, inst: JSON, x: float, y: float) -> str:
    """The member chips, the family with the majority first and crowned."""
    members = inst.get("members") or {}
    temple_order = list(obs.get("temple_order") or [])
    order = majority_order(members, temple_order)
    leader = majority(members, temple_order)
    chips = []
    for i, family in enumerate(order):
        plain, distinguished = members[family]
        cx, cy = x + (i % 3) * 72, y + (i // 3) * 33
        chips.append(member_chip(cx, cy, family, int(plain), int(distinguished),
                                 family == leader))
    if not chips:
        chips.append(text(x + 6, y + 5, "no members", 13, fill="#7a6448",
                          font_style="italic"))
    return group("members", *chips)


def _waiting(inst: JSON, x: float, y: float) -> str:
    """The citizens waiting in the Institution (three fire a Citizen event)."""
    parts = [text(x, y - 4, "citizens", 11, fill="#5c4a35")]
    for i, colour in enumerate(inst.get("citizens") or []):
        parts.append(citizen_disc(x + 12 + i * 25, y + 14, str(colour)))
    for i in range(len(inst.get("citizens") or []), 3):
        parts.append(el("circle", cx=x + 12 + i * 25, cy=y + 14, r=10, fill="none",
                        stroke="#b9a57f", stroke_width=1.2, stroke_dasharray="3 3"))
    return group("citizens waiting", *parts)


def _meeting_room(obs: JSON, inst: JSON, x: float, y: float, here: bool) -> str:
    """The Praefect's meeting room: its Favour space, its Citizen space, the Praefect."""
    parts = [el("rect", x=x, y=y, width=86, height=52, rx=6,
                fill="#efe0f0" if here else "#efe6d2", stroke="#9c8460", stroke_width=1),
             text(x + 4, y + 12, "meeting room", 10, fill="#5c4a35")]
    if inst.get("room_favour"):
        parts.append(favour_disc(x + 16, y + 32))
    room_citizen = inst.get("room_citizen")
    if room_citizen:
        parts.append(citizen_disc(x + 40, y + 32, str(room_citizen), 10))
    if here:
        parts.append(praefect_figure(x + 70, y + 30))
    return group("meeting room" + (" with the Praefect" if here else ""), *parts)


def _temple_order(obs: JSON, x: float, y: float) -> str:
    """The Temple order: family discs top first; it breaks ties for majorities."""
    order = list(obs.get("temple_order") or [])
    parts = [el("rect", x=x, y=y, width=90, height=52, rx=6, fill="#efe6d2",
                stroke="#9c8460", stroke_width=1),
             text(x + 4, y + 12, "temple order", 10, fill="#5c4a35")]
    for i, family in enumerate(order[:5]):
        fx = x + 11 + i * 17
        parts.append(text(fx, y + 26, NUMERALS[i + 1], 8, text_anchor="middle"))
        parts.append(family_disc(fx, y + 40, str(family), 8))
    label = "Temple order, top first: " + (", ".join(_title(f) for f in order) or "empty")
    return group(label, *parts)


def board(obs: JSON) -> str:
    """The board: streets, then the seven Institutions."""
    parts = [el("rect", x=8, y=8, width=804, height=784, rx=18, fill="#e8d9b5",
                stroke="#7a6448", stroke_width=2), streets()]
    for index, inst in enumerate(obs.get("institutions") or []):
        parts.append(institution(obs, index, inst))
    return group("the board", *parts)


# -- the side panel -------------------------------------------------------------------

def status(obs: JSON, x: float, y: float) -> str:
    """Title line, turn, and what is asked now or the result."""
    variant = obs.get("variant", "")
    turn = obs.get("turn", 0)
    head = f"Municipium · {variant} · " + (f"turn {turn}" if turn else "setup")
    parts = [text(x, y + 22, head, 24, font_family=SERIF, font_weight="bold")]
    result = obs.get("result")
    if result:
        parts.append(text(x, y + 48, "Game over: " + _ranking(obs, result), 15, fit=430,
                          font_weight="bold", fill="#6b1f5c"))
        parts.append(text(x, y + 68, "Why: " + describe_end(str(result.get("reason", "")),
                                                            obs.get("options") or {}),
                          13, fit=430))
    else:
        parts.append(text(x, y + 48, str(obs.get("pending") or ""), 15, fit=350,
                          fill="#6b1f5c"))
        parts.append(text(x, y + 68, _agenda_line(obs), 13, fit=430))
        parts.append(_asked_citizens(obs, x + 410, y + 44))
    return group("status", *parts)


def _ranking(obs: JSON, result: JSON) -> str:
    groups = result.get("ranking") or []
    scores = result.get("scores") or []
    places = []
    for place, seats in enumerate(groups, start=1):
        names = " = ".join(f"{_title(_seat_family(obs, s))} {_decurions_of(scores, s)}"
                           for s in seats)
        places.append(f"{place}. {names}")
    return "  ".join(places)


def _asked_citizens(obs: JSON, x: float, y: float) -> str:
    """The citizens the question is about (drawn, revealed, or to share), right-aligned."""
    asked = obs.get("asked") or {}
    shown = list(asked.get("citizens") or [])
    if asked.get("citizen"):
        shown = [asked["citizen"]]
    discs = [citizen_disc(x - i * 24, y, str(c), 10) for i, c in enumerate(reversed(shown))]
    return group("citizens in question: " + (", ".join(map(str, shown)) or "none"), *discs)


def _decurions_of(scores: list[Any], seat: object) -> str:
    if isinstance(seat, int) and 0 <= seat < len(scores) and isinstance(scores[seat], dict):
        return f"({scores[seat].get('decurions', '?')} D)"
    return ""


def _agenda_line(obs: JSON) -> str:
    """The card being resolved and the steps still to come, in a few words."""
    steps = [s for s in obs.get("agenda") or [] if isinstance(s, dict)]
    card = next((s.get("card") for s in steps if s.get("step") == "discard"), None)
    rest = [str(s.get("step")) for s in steps if s.get("step") not in ("discard", "end-turn")]
    line = f"resolving {_card_name(card)}" if card else ""
    if rest:
        line += ("; " if line else "") + "then " + ", ".join(rest)
    return line


def family_row(obs: JSON, seat: int, supply: JSON, x: float, y: float) -> str:
    """One family: disc, name, turn markers, Decurions, Favours, citizens, family cards."""
    family = str(supply.get("family", _seat_family(obs, seat)))
    moving = seat in (obs.get("to_move") or [])
    parts = [el("rect", x=x, y=y, width=428, height=74, rx=8,
                fill="#fff8e6" if moving else "#f7efdc",
                stroke=_fill(family), stroke_width=4 if moving else 2),
             family_disc(x + 24, y + 24, family, 15),
             text(x + 46, y + 24, _title(family), 17, font_weight="bold", font_family=SERIF),
             text(x + 46, y + 41, _seat_note(obs, seat), 11, fill="#5c4a35"),
             _family_cards(supply, x + 10, y + 60),
             _decurions(obs, int(supply.get("decurions", 0)), x + 190, y + 8),
             _holdings(supply, x + 190, y + 44),
             text(x + 190, y + 69, _turn_note(obs, seat), 12, font_weight="bold",
                  fill="#6b1f5c")]
    label = (f"{_title(family)} (seat {seat}): {supply.get('decurions', 0)} Decurions, "
             f"{supply.get('favours', 0)} Favours, citizens "
             + ", ".join(f"{c} {n}" for c, n in (supply.get("citizens") or {}).items())
             + "; family cards: "
             + (", ".join(_card_name(c) for c in supply.get("family_cards") or []) or "none"))
    return group(label, *parts)


def _seat_note(obs: JSON, seat: int) -> str:
    notes = [f"seat {seat}"]
    if obs.get("first") == seat:
        notes.append("first")
    if obs.get("seat") == seat:
        notes.append("you")
    return " · ".join(notes)


def _turn_note(obs: JSON, seat: int) -> str:
    notes = []
    for place, seats in enumerate((obs.get("result") or {}).get("ranking") or [], start=1):
        if seat in seats:
            notes.append(f"place {place}" + (" · winner" if place == 1 else ""))
    if obs.get("active") == seat and obs.get("turn") and not obs.get("result"):
        notes.append("▶ its turn")
    if seat in (obs.get("to_move") or []):
        notes.append("deciding now")
    return " · ".join(notes)


def _decurions(obs: JSON, count: int, x: float, y: float) -> str:
    """The Decurion tokens held, against the target that ends the game."""
    target = int((obs.get("options") or {}).get("target_decurions", 5))
    parts = [text(x, y + 13, "Decurions", 12, fill="#5c4a35")]
    for i in range(max(target, count)):
        filled = i < count
        parts.append(el("rect", x=x + 66 + i * 22, y=y, width=18, height=18, rx=3,
                        fill="#b8860b" if filled else "none", stroke="#7a5b08",
                        stroke_width=1.5))
    parts.append(text(x + 72 + max(target, count) * 22, y + 14, f"{count}/{target}", 14,
                      font_weight="bold"))
    return group(f"{count} of {target} Decurions", *parts)


def _holdings(supply: JSON, x: float, y: float) -> str:
    """The citizens and Favours the family holds, face up."""
    parts = [favour_disc(x + 10, y), text(x + 24, y + 5, supply.get("favours", 0), 14,
                                          font_weight="bold")]
    citizens = supply.get("citizens") or {}
    for i, colour in enumerate(CITIZENS):
        cx = x + 56 + i * 50
        parts.append(citizen_disc(cx, y, colour, 10))
        parts.append(text(cx + 14, y + 5, citizens.get(colour, 0), 14, font_weight="bold"))
    return group("held citizens and Favours", *parts)


def _family_cards(supply: JSON, x: float, y: float) -> str:
    """The family cards still face up (each usable once)."""
    cards = list(supply.get("family_cards") or [])
    parts = []
    for i, card in enumerate(cards):
        label = {"powers": "Pw", "praefect": "PV", "invitations": "CI",
                 "grande-famille": "GF"}.get(str(card), str(card)[:2])
        parts.append(group(_card_name(card),
                           el("rect", x=x + i * 42, y=y - 4, width=38, height=16, rx=3,
                              fill="#fffdf6", stroke="#7a6448", stroke_width=1),
                           text(x + i * 42 + 19, y + 8, label, 11, text_anchor="middle",
                                font_weight="bold")))
    return group("family cards face up", *parts)


def cards_and_bag(obs: JSON, x: float, y: float) -> str:
    """The common deck, the top of the discard pile, the bag and the supplies."""
    discard = list(obs.get("discard") or [])
    top = _card_name(discard[-1]) if discard else "empty"
    parts = [el("rect", x=x, y=y, width=44, height=60, rx=5, fill="#7a2e2e",
                stroke=INK, stroke_width=1.5),
             text(x + 22, y + 36, obs.get("deck_size", 0), 18, text_anchor="middle",
                  fill="#ffffff", font_weight="bold"),
             text(x + 54, y + 16, f"common deck: {obs.get('deck_size', 0)} cards", 13),
             text(x + 54, y + 34, f"discard ({len(discard)}): top {top}", 13),
             text(x + 54, y + 52, f"Favours beside the board {obs.get('favour_supply', 0)}"
                  f" · wreaths {obs.get('wreath_supply', 0)}", 13)]
    parts.append(_card_in_play(obs, x + 370, y))
    bag = obs.get("bag") or {}
    parts.append(text(x, y + 84, "bag", 13, fill="#5c4a35"))
    for i, colour in enumerate(CITIZENS):
        cx = x + 44 + i * 60
        parts.append(citizen_disc(cx, y + 79, colour, 10))
        parts.append(text(cx + 14, y + 84, bag.get(colour, 0), 14, font_weight="bold"))
    return group("cards, bag and supplies", *parts)


def _card_in_play(obs: JSON, x: float, y: float) -> str:
    """The common card being resolved, face up, if any."""
    steps = [s for s in obs.get("agenda") or [] if isinstance(s, dict)]
    card = next((s.get("card") for s in steps if s.get("step") == "discard"), None)
    if not card:
        return ""
    words = _card_name(card).split()
    parts = [el("rect", x=x, y=y, width=58, height=60, rx=5, fill="#fffdf6", stroke="#7a2e2e",
                stroke_width=2),
             text(x + 29, y - 4, "in play", 10, text_anchor="middle", fill="#5c4a35")]
    for i, word in enumerate(words[:3]):
        parts.append(text(x + 29, y + 24 + i * 15, word, 12, fit=52, text_anchor="middle",
                          font_weight="bold"))
    return group(f"in play: {_card_name(card)}", *parts)


def legend(obs: JSON, x: float, y: float) -> str:
    """What the colours and marks mean."""
    parts = [text(x, y, "Legend", 13, font_weight="bold")]
    for i, family in enumerate(obs.get("families") or []):
        fx = x + 66 + i * 74
        parts.append(family_disc(fx, y - 4, str(family), 9))
        parts.append(text(fx + 12, y + 1, _title(family), 11))
    row = y + 22
    for i, colour in enumerate(CITIZENS):
        cx = x + 10 + i * 84
        parts.append(citizen_disc(cx, row - 4, colour, 9))
        parts.append(text(cx + 12, row + 1, _title(colour), 11))
    row += 22
    parts.append(el("circle", cx=x + 10, cy=row - 4, r=8, fill="none", stroke=WREATH,
                    stroke_width=3.5, stroke_dasharray="3 1.5"))
    parts.append(text(x + 22, row + 1, "distinguished (counts 2)", 11))
    parts.append(favour_disc(x + 172, row - 4, 8))
    parts.append(text(x + 184, row + 1, "Praefect Favour", 11))
    parts.append(text(x + 282, row + 1, "▲ majority", 11, fill="#6b1f5c"))
    parts.append(text(x, row + 20, "family cards: Pw Your Powers · PV Praefect Visit · "
                      "CI Citizen Invitations", 11))
    parts.append(text(x, row + 36, "GF Grande Famille · a tie for the majority goes to "
                      "the higher in the Temple", 11))
    return group("legend", *parts)


def side_panel(obs: JSON) -> str:
    """Everything beside the board."""
    x = 836.0
    parts = [status(obs, x, 10)]
    supplies = list(obs.get("supplies") or [])
    for seat, supply in enumerate(supplies):
        parts.append(family_row(obs, seat, supply, x, 90 + seat * 80))
    bottom = 90 + max(len(supplies), 3) * 80 + 4
    parts.append(cards_and_bag(obs, x, bottom))
    parts.append(legend(obs, x, max(bottom + 108, 706)))
    return group("families and cards", *parts)


def describe(obs: JSON) -> str:
    """The whole position in a few sentences, for the document's description."""
    families = ", ".join(f"{_title(s.get('family'))} {s.get('decurions', 0)} Decurions"
                         for s in obs.get("supplies") or [])
    where = obs.get("praefect")
    return (f"Municipium board. {families}. The Praefect is at the {_title(where)}. "
            f"{obs.get('pending') or ''}")


def render_svg(observation: JSON) -> str:
    """The board of this observation as one self-contained SVG document."""
    obs = observation
    title = f"Municipium board, turn {obs.get('turn', 0)}"
    body = (el("rect", x=0, y=0, width=WIDTH, height=HEIGHT, fill=PARCHMENT)
            + board(obs) + side_panel(obs))
    return document(title, describe(obs), body)
