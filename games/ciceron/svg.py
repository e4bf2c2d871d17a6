"""Cicéron's board as one self-contained SVG document, drawn from an observation.

`render_svg(observation)` is pure (no I/O, standard library only) and deterministic. It
draws what the observation holds and nothing more: the Senate's three spots and the six
zones of Rome with the servants placed, each caste's influences, Primus and Secundus
cards and action deck, the provinces and their legions, the Cicéron and Triumvirat cards,
the guilds, and each family's board (prestige, the Princeps, servants, Senate votes,
cénacle senators, hand sizes by caste). Private parts (a hand, drawn senators, a secret
vote, the draft packet) appear only when the observation carries them, i.e. in that
seat's own observation.

The rule book gives the families no printed colours we can cite, so each seat gets a
colour of a colour-blind-safe palette (Okabe-Ito) and a short mark made of its initials.
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape

from games.core import JSON
from games.drawing import HEIGHT, INK, SERIF, WIDTH, document, el, group, text

#: Seat colours (Okabe-Ito, safe for the common colour blindnesses), in seat order.
SEAT_FILL = ("#d55e00", "#0072b2", "#009e73", "#cc79a7", "#e69f00")
SEAT_INK = ("#ffffff", "#ffffff", "#ffffff", "#1a1a1a", "#1a1a1a")
AUTOMATII_FILL = "#7f7f7f"
CASTES = ("orator", "mercator", "pontifex", "insidiator", "plebeius", "belligerator")
CASTE_MARK = {"orator": "Or", "mercator": "Me", "pontifex": "Po", "insidiator": "In",
              "plebeius": "Pl", "belligerator": "Be"}
#: The zone of Rome where each caste holds sway, in the book's order.
ZONES = (("curia-hostilia", "Curia Hostilia", "orator"), ("emporium", "Emporium", "mercator"),
         ("temple-of-jupiter", "Temple of Jupiter", "pontifex"),
         ("subura", "Subura", "insidiator"), ("circus-maximus", "Circus Maximus", "plebeius"),
         ("exercitus", "Exercitus", "belligerator"))
GUILDS = ("artisans", "assassins", "diplomats", "traders", "priests", "strategists")
MUTED = "#5c4a35"
ACCENT = "#8b1e1e"
PARCHMENT = "#f4ecd8"


# -- names and colours ----------------------------------------------------------------

def _title(name: object) -> str:
    return str(name).replace("-", " ").title()


def _short(senator: object) -> str:
    """A senator's short name: the last word of its id (its cognomen, mostly)."""
    return _title(str(senator).rsplit("-", 1)[-1])


def marks(families: list[str]) -> dict[str, str]:
    """Each family's shortest initials that no other family shares (A, I, Co, Cl, V)."""
    result = {}
    for family in families:
        for size in range(1, len(family) + 1):
            prefix = family[:size]
            if sum(1 for f in families if f[:size] == prefix) == 1 or size == len(family):
                result[family] = prefix.title()
                break
    return result


class Palette:
    """The colours and marks of a game's families (by seat), the Automatii included."""

    def __init__(self, families: list[str]) -> None:
        self.families = families
        self.marks = marks(families)

    def fill(self, family: object) -> str:
        if family in self.families:
            return SEAT_FILL[self.families.index(str(family)) % len(SEAT_FILL)]
        return AUTOMATII_FILL

    def ink(self, family: object) -> str:
        if family in self.families:
            return SEAT_INK[self.families.index(str(family)) % len(SEAT_INK)]
        return "#ffffff"

    def mark(self, family: object) -> str:
        return self.marks.get(str(family), "Au" if family == "automatii" else "?")

    def disc(self, x: float, y: float, family: object, r: float = 12) -> str:
        """A family's disc (a servant, a holder): its colour and its mark."""
        mark = self.mark(family)
        size = r * (1.1 if len(mark) == 1 else 0.85)
        return group(_title(family),
                     el("circle", cx=x, cy=y, r=r, fill=self.fill(family), stroke=INK,
                        stroke_width=1.2),
                     text(x, y + size * 0.36, mark, size, text_anchor="middle",
                          font_weight="bold", fill=self.ink(family)))


def _seat_family(obs: JSON, seat: object) -> str:
    families = obs.get("families") or []
    if isinstance(seat, int) and 0 <= seat < len(families):
        return str(families[seat])
    return "?"


def _holder_name(holder: object) -> str:
    return "free" if holder is None else _title(holder)


# -- the city -------------------------------------------------------------------------

def spot(pal: Palette, x: float, y: float, label: str, holder: object,
         name: str = "") -> str:
    """A servant spot (`label` under it, `name` for screen readers): the servant's
    disc, or an empty dashed circle."""
    parts = [text(x, y + 32, label, 11, text_anchor="middle", fill=MUTED)] if label else []
    if holder is None:
        parts.append(el("circle", cx=x, cy=y, r=16, fill="#fffaf0", stroke="#a08c68",
                        stroke_width=1.5, stroke_dasharray="4 3"))
    else:
        parts.append(pal.disc(x, y, holder, 16))
    return group(f"{name or label} spot: {_holder_name(holder)}", *parts)


def senate(obs: JSON, pal: Palette, x: float, y: float) -> str:
    """The Senate: its three spots, each on a red pile of senators."""
    spots = obs.get("spots") or {}
    piles = obs.get("piles") or {}
    parts = [el("rect", x=x, y=y, width=796, height=118, rx=12, fill="#efe2c2",
                stroke="#7a6448", stroke_width=2),
             text(x + 14, y + 26, "Senate", 20, font_family=SERIF, font_weight="bold"),
             text(x + 14, y + 46, "recruit senators", 12, fill=MUTED)]
    names = [k for k in spots if str(k).startswith("senate-")]
    for i, name in enumerate(names):
        pile = str(name)[len("senate-"):]
        px = x + 250 + i * 215
        castes = " · ".join(_title(c) for c in pile.split("-"))
        parts.append(el("rect", x=px - 90, y=y + 10, width=180, height=98, rx=8,
                        fill="#fbf4e2", stroke="#a08c68", stroke_width=1))
        parts.append(text(px, y + 28, castes, 13, text_anchor="middle", font_weight="bold"))
        parts.append(text(px, y + 100, f"pile: {piles.get(pile, 0)} senators", 11,
                          text_anchor="middle", fill=MUTED))
        parts.append(spot(pal, px, y + 52, "", spots.get(name), f"Senate {castes}"))
    return group("the Senate", *parts)


def zone(obs: JSON, pal: Palette, index: int, x: float, y: float) -> str:
    """A zone of Rome: its two spots, its caste's influences, majorities and deck."""
    zone_id, name, caste = ZONES[index]
    spots = obs.get("spots") or {}
    parts = [el("rect", x=x, y=y, width=258, height=206, rx=10, fill="#fbf4e2",
                stroke="#7a6448", stroke_width=2),
             el("rect", x=x, y=y, width=258, height=28, rx=10, fill="#e3d2aa"),
             text(x + 10, y + 20, name, 16, font_family=SERIF, font_weight="bold"),
             text(x + 248, y + 20, f"{_title(caste)} ({CASTE_MARK[caste]})", 12,
                  text_anchor="end", fill=MUTED),
             spot(pal, x + 32, y + 56, "upper", spots.get(f"{zone_id}-upper")),
             spot(pal, x + 82, y + 56, "lower", spots.get(f"{zone_id}-lower")),
             _majority_cards(obs, pal, caste, x + 120, y + 40),
             _influences(obs, pal, caste, x + 10, y + 110)]
    return group(f"{name}, zone of the caste {_title(caste)}", *parts)


def _majority_cards(obs: JSON, pal: Palette, caste: str, x: float, y: float) -> str:
    """Who holds the Primus and Secundus cards of a caste, and its action deck."""
    primus = (obs.get("primus") or {}).get(caste)
    secundus = (obs.get("secundus") or {}).get(caste)
    parts = []
    for row, (label, holder) in enumerate((("Primus", primus), ("Secundus", secundus))):
        ry = y + row * 26
        parts.append(text(x, ry + 5, label, 12))
        if holder is None:
            parts.append(text(x + 70, ry + 5, "—", 12, fill=MUTED))
        else:
            parts.append(pal.disc(x + 78, ry, holder, 10))
    deck = (obs.get("decks") or {}).get(caste, 0)
    parts.append(text(x, y + 50, f"action deck: {deck}", 11, fill=MUTED))
    return group(f"Primus {_holder_name(primus)}, Secundus {_holder_name(secundus)}, "
                 f"action deck {deck}", *parts)


def _influences(obs: JSON, pal: Palette, caste: str, x: float, y: float) -> str:
    """Each family's influence in a caste (0 to 10), as a bar and a number."""
    parts = [text(x, y - 4, "influence", 11, fill=MUTED)]
    for i, board in enumerate(obs.get("boards") or []):
        family = board.get("family")
        level = int((board.get("influence") or {}).get(caste, 0))
        ry = y + 6 + i * 18
        parts.append(pal.disc(x + 8, ry, family, 8))
        parts.append(el("rect", x=x + 20, y=ry - 6, width=180, height=12, rx=3,
                        fill="#efe6d2", stroke="#c9b48a", stroke_width=0.8))
        parts.append(el("rect", x=x + 20, y=ry - 6, width=18 * max(0, min(level, 10)),
                        height=12, rx=3, fill=pal.fill(family)))
        parts.append(text(x + 208, ry + 5, level, 13, font_weight="bold"))
    return group(f"{_title(caste)} influence", *parts)


def provinces(obs: JSON, x: float, y: float) -> str:
    """The provinces and the legions deployed there."""
    legions = obs.get("legions") or {}
    parts = [text(x, y, f"Provinces · legions left in the box: {obs.get('legions_left', 0)}",
                  13, font_weight="bold")]
    for i, (province, count) in enumerate(legions.items()):
        px, py = x + (i % 6) * 88, y + 10 + (i // 6) * 34
        parts.append(el("rect", x=px, y=py, width=84, height=28, rx=5,
                        fill="#f6e6e0" if count else "#fbf4e2", stroke="#a08c68",
                        stroke_width=1))
        parts.append(text(px + 6, py + 18, _title(province), 11))
        parts.append(text(px + 78, py + 19, count, 14, text_anchor="end", font_weight="bold",
                          fill=ACCENT if count else MUTED))
    return group("provinces and legions", *parts)


def cards_row(obs: JSON, pal: Palette, x: float, y: float) -> str:
    """The Cicéron card, the Triumvirat cards and the guilds."""
    past = ", ".join(_title(c) for c in obs.get("ciceron_past") or []) or "none"
    triumvirat = ", ".join(_title(c) for c in obs.get("triumvirat") or []) or "none"
    drawn = obs.get("triumvirat_drawn")
    current = _title(obs["ciceron"]) if obs.get("ciceron") else "none out"
    parts = [text(x, y, f"Cicéron card: {current}", 13,
                  font_weight="bold"),
             text(x, y + 17, f"past: {past} · {obs.get('ciceron_deck', 0)} left", 11, fit=550,
                  fill=MUTED),
             text(x, y + 36, f"Triumvirat: {triumvirat}", 13, fit=550, font_weight="bold"),
             text(x, y + 53, "drawn by the Princeps: " + (_title(drawn) if drawn else "not yet"),
                  11, fill=MUTED)]
    return group("Cicéron and Triumvirat cards", *parts)


def guilds(obs: JSON, pal: Palette, x: float, y: float) -> str:
    """The six guild cards: holder and the holder's choice (power or prestige)."""
    table = obs.get("guilds") or {}
    parts = [text(x, y, "Guilds", 13, font_weight="bold")]
    for i, guild in enumerate(GUILDS):
        entry = table.get(guild) or {}
        gy = y + 16 + i * 17
        holder = entry.get("holder")
        parts.append(text(x, gy + 4, _title(guild), 11))
        if holder is not None:
            parts.append(pal.disc(x + 90, gy, holder, 7.5))
            parts.append(text(x + 102, gy + 4, entry.get("choice") or "", 10, fill=MUTED))
        else:
            parts.append(text(x + 86, gy + 4, "—", 11, fill=MUTED))
    return group("guilds", *parts)


def city(obs: JSON, pal: Palette) -> str:
    """The main board: the Senate, the six zones, the provinces and the cards."""
    parts = [el("rect", x=8, y=8, width=812, height=784, rx=18, fill="#e8d9b5",
                stroke="#7a6448", stroke_width=2), senate(obs, pal, 16, 16)]
    for i in range(len(ZONES)):
        parts.append(zone(obs, pal, i, 16 + (i % 3) * 268, 144 + (i // 3) * 214))
    parts.append(provinces(obs, 22, 590))
    parts.append(guilds(obs, pal, 580, 590))
    parts.append(cards_row(obs, pal, 22, 700))
    return group("Rome", *parts)


# -- the families ---------------------------------------------------------------------

def status(obs: JSON, pal: Palette, x: float, y: float) -> str:
    """Title, turn and phase, the Princeps, what is asked now or the result."""
    turn, turns = obs.get("turn", 0), obs.get("turns", 0)
    when = f"turn {turn}/{turns} · {obs.get('phase', '')}" if turn else "the opening draft"
    parts = [text(x, y + 22, f"Cicéron · {when}", 22,
                  font_family=SERIF, font_weight="bold")]
    result = obs.get("result")
    if result:
        parts.append(text(x, y + 46, "Game over: " + _ranking(obs, result), 14, fit=436,
                          font_weight="bold", fill=ACCENT))
        reason = str(result.get("reason", ""))
        why = "after the last turn's prestige phase" if reason == "turns" else reason
        parts.append(text(x, y + 64, why, 12, fit=436, fill=MUTED))
    else:
        parts.append(text(x, y + 46, str(obs.get("pending") or ""), 14, fit=436, fill=ACCENT))
        parts.append(text(x, y + 64, _election_line(obs), 12, fit=436, fill=MUTED))
    return group("status", *parts)


def _ranking(obs: JSON, result: JSON) -> str:
    """The winners, with their prestige (each family's place is on its own board)."""
    scores = result.get("scores") or []
    first = (result.get("ranking") or [[]])[0]
    names = " = ".join(_title(_seat_family(obs, s)) for s in first)
    return f"won by {names} ({_score(scores, first[0]) if first else '?'} PP)"


def place_of(obs: JSON, seat: object) -> int | None:
    """A seat's place in the final ranking (1: a winner), None before the end."""
    ranking = (obs.get("result") or {}).get("ranking") or []
    return next((i for i, seats in enumerate(ranking, start=1) if seat in seats), None)


def _score(scores: list[Any], seat: int) -> str:
    if isinstance(seat, int) and 0 <= seat < len(scores) and isinstance(scores[seat], dict):
        return str(scores[seat].get("prestige", ""))
    return ""


def _election_line(obs: JSON) -> str:
    election = obs.get("election")
    if not election:
        return "no Princeps election yet"
    totals = election.get("totals") or {}
    return "last election: " + ", ".join(f"{_title(f)} {n}" for f, n in totals.items())


def family_board(obs: JSON, pal: Palette, seat: int, board: JSON, x: float,
                 y: float) -> str:
    """One family's board: prestige, Princeps, servants, votes, cénacle, hand."""
    family = str(board.get("family", _seat_family(obs, seat)))
    moving = seat in (obs.get("to_move") or [])
    princeps = obs.get("princeps") == seat
    parts = [el("rect", x=x, y=y, width=436, height=120, rx=8,
                fill="#fff8e6" if moving else "#f7efdc", stroke=pal.fill(family),
                stroke_width=4 if moving else 2),
             pal.disc(x + 22, y + 22, family, 15),
             text(x + 44, y + 22, _title(family), 17, font_family=SERIF, font_weight="bold"),
             text(x + 44, y + 38, _seat_note(obs, seat, board, moving), 11, fit=380,
                  fill=MUTED),
             text(x + 426, y + 28, f"{board.get('prestige', 0)} PP", 22, text_anchor="end",
                  font_weight="bold")]
    if princeps:
        parts.append(_princeps_badge(x + 170, y + 8))
    parts.append(_cenacle(board, x + 10, y + 56))
    parts.append(text(x + 10, y + 80, _hand_line(board), 11))
    hand = _hand_cards(board, x + 10, y + 98)
    parts.append(hand)
    parts.append(text(x + 10, y + (114 if hand else 98), _extras_line(board), 11,
                      fit=416, fill=MUTED))
    label = (f"{_title(family)} (seat {seat}): {board.get('prestige', 0)} prestige"
             + (", Princeps" if princeps else "")
             + f"; senators: {', '.join(_title(s) for s in board.get('senators') or [])}")
    return group(label, *parts)


def _princeps_badge(x: float, y: float) -> str:
    """The Princeps token."""
    return group("Princeps",
                 el("rect", x=x, y=y, width=78, height=22, rx=11, fill="#6b1f5c"),
                 text(x + 39, y + 16, "PRINCEPS", 12, text_anchor="middle",
                      font_weight="bold", fill="#ffffff"))


def _seat_note(obs: JSON, seat: int, board: JSON, moving: bool) -> str:
    notes = [f"seat {seat}", f"home {_title(board.get('home', ''))}",
             f"servants {board.get('servants', 0)}", f"votes {board.get('senate_votes', 0)}"]
    if obs.get("seat") == seat:
        notes.append("you")
    if moving:
        notes.append("deciding now")
    place = place_of(obs, seat)
    if place is not None:
        notes.insert(0, f"place {place}" + (" · winner" if place == 1 else ""))
    return " · ".join(notes)


def _cenacle(board: JSON, x: float, y: float) -> str:
    """The cénacle: one small card per senator, against the cénacle limit."""
    senators = list(board.get("senators") or [])
    attached = board.get("attached") or {}
    parts = [text(x, y + 4, f"cénacle {len(senators)}/{board.get('cenacle_limit', 0)}", 11,
                  fill=MUTED)]
    for i, senator in enumerate(senators[:6]):
        sx = x + 84 + i * 58
        extra = " +" + str(len(attached[senator])) if attached.get(senator) else ""
        parts.append(el("g", el("title", escape(_title(senator)))
                        + el("rect", x=sx, y=y - 10, width=55, height=20, rx=3,
                             fill="#fffdf6", stroke="#7a6448", stroke_width=1)
                        + text(sx + 27.5, y + 4, _short(senator) + extra, 10, fit=51,
                               text_anchor="middle"),
                        aria_label=_title(senator)))
    if len(senators) > 6:
        parts.append(text(x + 84 + 6 * 58, y + 4, f"+{len(senators) - 6}", 11))
    return group("cénacle", *parts)


def _hand_line(board: JSON) -> str:
    """Hand size by caste (public)."""
    by_caste = board.get("hand_by_caste") or {}
    total = sum(int(n) for n in by_caste.values())
    counts = " ".join(f"{CASTE_MARK.get(c, c)} {n}" for c, n in by_caste.items() if n)
    return f"hand {total}" + (f" ({counts})" if counts else "")


def _hand_cards(board: JSON, x: float, y: float) -> str:
    """The cards of the hand, when the observation holds them (the seat's own board)."""
    hand = [str(card) for card in board.get("hand") or []]
    if not hand:
        return ""
    parts = []
    for i, card in enumerate(hand[:5]):
        caste, _, number = card.rpartition("-")
        label = f"{CASTE_MARK.get(caste, caste[:2].title())} {number}"
        parts.append(el("g", el("title", escape(card))
                        + el("rect", x=x + i * 46, y=y - 11, width=43, height=16, rx=3,
                             fill="#fff3c4", stroke="#7a6448", stroke_width=1)
                        + text(x + i * 46 + 21.5, y + 1, label, 10, text_anchor="middle",
                               font_weight="bold"), aria_label=card))
    if len(hand) > 5:
        parts.append(text(x + 5 * 46, y + 1, f"+{len(hand) - 5}", 11))
    return group("your hand: " + ", ".join(hand), *parts)


def _extras_line(board: JSON) -> str:
    """Permanents, drawn senators, the vote, the tribute, guild powers: what is shown."""
    parts = []
    if board.get("permanents"):
        parts.append("permanents " + ", ".join(map(str, board["permanents"])))
    if board.get("drawn_count"):
        drawn = board.get("drawn")
        parts.append(f"drew {board['drawn_count']}"
                     + (": " + ", ".join(_short(s) for s in drawn) if drawn else ""))
    if board.get("voted"):
        vote = board.get("vote")
        parts.append("voted" + (f" for {_title(vote)}" if vote else ""))
    tribute = board.get("tribute")
    if tribute:
        parts.append("tribute: " + str(tribute.get("how", "")))
    if board.get("guild_powers"):
        parts.append("guild powers " + ", ".join(map(str, board["guild_powers"])))
    return " · ".join(parts)


def draft_box(obs: JSON, x: float, y: float) -> str:
    """The opening draft, while it runs: the packet (if this seat holds it) and order."""
    draft = obs.get("draft") or {}
    if not draft.get("order"):
        return ""
    packet = draft.get("packet")
    size = draft.get("packet_size", 0)
    shown = f": {', '.join(_short(s) for s in packet)}" if packet else " (not shown)"
    order = ", ".join(_title(_seat_family(obs, s)) for s in draft.get("order") or [])
    label = f"Draft packet, {size} senators{shown}; to pick: {order}"
    return group(label, text(x, y, f"Draft packet, {size} senators{shown}", 12, fit=436),
                 text(x, y + 17, f"to pick, next first: {order}", 12, fit=436, fill=MUTED))


def legend(obs: JSON, pal: Palette, x: float, y: float) -> str:
    """What the colours and marks mean."""
    parts = [text(x, y, "Legend", 13, font_weight="bold")]
    for i, family in enumerate(obs.get("families") or []):
        fx = x + 66 + i * 76
        parts.append(pal.disc(fx, y - 4, family, 9))
        parts.append(text(fx + 12, y + 1, _title(family), 11))
    parts.append(text(x, y + 18, "castes: " + " · ".join(
        f"{m} {_title(c)[:5]}." for c, m in CASTE_MARK.items()), 11))
    parts.append(text(x, y + 34, "Au the Automatii · PP prestige · +n cards on a senator"
                      " · bars: influence", 11))
    return group("legend", *parts)


def side_panel(obs: JSON, pal: Palette) -> str:
    """Everything beside the city: status, the families' boards, the legend."""
    x = 832.0
    parts = [status(obs, pal, x, 8)]
    boards = list(obs.get("boards") or [])
    for seat, board in enumerate(boards):
        parts.append(family_board(obs, pal, seat, board, x, 82 + seat * 124))
    bottom = 82 + len(boards) * 124
    parts.append(draft_box(obs, x, bottom + 12))
    parts.append(legend(obs, pal, x, max(bottom + 34, 746)))
    return group("the families", *parts)


def describe(obs: JSON) -> str:
    """The position in a few sentences, for the document's description."""
    boards = ", ".join(f"{_title(b.get('family'))} {b.get('prestige', 0)} prestige"
                       for b in obs.get("boards") or [])
    princeps = obs.get("princeps")
    who = _title(_seat_family(obs, princeps)) if princeps is not None else "nobody yet"
    return f"Cicéron board. {boards}. Princeps: {who}. {obs.get('pending') or ''}"


def render_svg(observation: JSON) -> str:
    """The board of this observation as one self-contained SVG document."""
    obs = observation
    pal = Palette([str(f) for f in obs.get("families") or []])
    title = f"Cicéron board, turn {obs.get('turn', 0)}, phase {obs.get('phase', '')}"
    body = (el("rect", x=0, y=0, width=WIDTH, height=HEIGHT, fill=PARCHMENT)
            + city(obs, pal) + side_panel(obs, pal))
    return document(title, describe(obs), body)
