"""Leges' table as one self-contained SVG document, drawn from an observation.

`render_svg(observation, cards=None)` is pure (no I/O, standard library only) and
deterministic. It draws what the observation holds and nothing more: the season and round
indicator, the four Value tracks over the five Value cards with their tokens, the Law
stacks left per colour and tier, the Theme deck and discard, and each player's Score card
(points per colour), Laws bought, victory points, exposed Themes (this round's marked),
hand size and the latest Law requests. A hand, a face-down choice, a Law request and the
cards drawn at an exchange appear only when the observation carries them, i.e. in that
seat's own observation.

`cards` is the game's card set, when the observation names it (same digest): it places
each token on its exact space of the track and names the Themes and the Laws' VP. Without
it the tokens stand on their Value card and Themes are shown by id.

The summary names four colours but not their hues: each Value gets a colour of a
colour-blind-safe palette (Okabe-Ito) and its initial, by its place in `colours`.
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape

from games.core import JSON
from games.drawing import HEIGHT, INK, SERIF, WIDTH, document, el, group, text
from games.leges.cardset import CardSet

COLOUR_FILL = ("#0072b2", "#d55e00", "#009e73", "#e69f00")
COLOUR_INK = ("#ffffff", "#ffffff", "#ffffff", "#1a1a1a")
#: The four tiers of Laws per colour and their costs (ruling L1).
LAW_COSTS = (5, 15, 20, 25)
ROMAN = ("0", "I", "II", "III", "IV", "V")
MUTED = "#5c4a35"
ACCENT = "#6b1f5c"
PARCHMENT = "#f4ecd8"
#: The smallest font size (drawn 10 px tall in the viewer at 1280x800: tests/web)
MIN_FONT = 12
#: The track: 5 Value cards across the left part of the table.
TRACK_X, TRACK_W = 150.0, 640.0


# -- names and colours ----------------------------------------------------------------

def _title(name: object) -> str:
    return str(name).replace("-", " ").title()


class Table:
    """What the drawing needs besides the observation: colours and the card set."""

    def __init__(self, obs: JSON, cards: CardSet | None) -> None:
        self.obs = obs
        self.colours = [str(c) for c in obs.get("colours") or []]
        self.cards = cards

    def fill(self, colour: object) -> str:
        if colour in self.colours:
            return COLOUR_FILL[self.colours.index(str(colour)) % len(COLOUR_FILL)]
        return "#9a9a9a"

    def ink(self, colour: object) -> str:
        if colour in self.colours:
            return COLOUR_INK[self.colours.index(str(colour)) % len(COLOUR_INK)]
        return "#1a1a1a"

    def mark(self, colour: object) -> str:
        return str(colour)[:1].upper() or "?"

    def token(self, x: float, y: float, colour: object, r: float = 11) -> str:
        """A colour's token: its colour and its initial."""
        return group(_title(colour),
                     el("circle", cx=x, cy=y, r=r, fill=self.fill(colour), stroke=INK,
                        stroke_width=1.2),
                     text(x, y + r * 0.4, self.mark(colour), max(r * 1.1, MIN_FONT),
                          text_anchor="middle",
                          font_weight="bold", fill=self.ink(colour)))

    def theme_colour(self, theme: str) -> str:
        """A Theme's colour: from the card set, else from its id's prefix."""
        if self.cards is not None and self.cards.has_theme(theme):
            return self.cards.theme(theme).colour
        prefix = theme.rsplit("-", 1)[0]
        return prefix if prefix in self.colours else ""

    def theme_name(self, theme: str) -> str:
        """A Theme's full name for tooltips: its card name when the card set has it."""
        if self.cards is not None and self.cards.has_theme(theme):
            card = self.cards.theme(theme)
            return f"{card.name} ({theme}, {card.points} points)"
        return theme

    def theme_chip(self, x: float, y: float, theme: str, played: bool = False) -> str:
        """A Theme card, small: its colour, short id, base points; bold if played now."""
        colour = self.theme_colour(theme)
        prefix, _, number = theme.rpartition("-")
        label = f"{self.mark(prefix)}{number}" if prefix else theme
        if self.cards is not None and self.cards.has_theme(theme):
            label += f" ·{self.cards.theme(theme).points}"
        body = (el("title", escape(self.theme_name(theme)))
                + el("rect", x=x, y=y - 12, width=50, height=20, rx=4, fill=self.fill(colour),
                     stroke=INK if played else "#ffffff", stroke_width=3 if played else 1)
                + text(x + 25, y + 3, label, 12, fit=44, text_anchor="middle",
                       font_weight="bold", fill=self.ink(colour)))
        return el("g", body, aria_label=self.theme_name(theme) + (", played this round"
                                                                  if played else ""))


# -- the table ------------------------------------------------------------------------

def seasons(obs: JSON, table: Table, x: float, y: float) -> str:
    """The season and round indicator: one circle per round, the current one filled."""
    count, rounds = int(obs.get("seasons", 4)), int(obs.get("rounds", 3))
    season, round_ = int(obs.get("season", 1)), int(obs.get("round", 1))
    parts = [text(x, y + 5, "Seasons", 14, font_weight="bold", font_family=SERIF)]
    for s in range(1, count + 1):
        sx = x + 90 + (s - 1) * 150
        parts.append(text(sx, y - 16, f"season {s}", 12, fill=MUTED))
        for r in range(1, rounds + 1):
            now = (s, r) == (season, round_)
            past = (s, r) < (season, round_)
            parts.append(el("circle", cx=sx + 10 + (r - 1) * 30, cy=y, r=10,
                            fill="#262626" if now else ("#b9a57f" if past else "#fffaf0"),
                            stroke=INK, stroke_width=1.2))
    return group(f"season {season} of {count}, round {round_} of {rounds}", *parts)


def track_geometry(table: Table) -> list[int]:
    """Spaces per Value card: the card set's, else one space per card."""
    if table.cards is not None:
        return list(table.cards.track.spaces)
    return [1, 1, 1, 1, 1]


def value_cards(obs: JSON, table: Table, x: float, y: float, height: float) -> str:
    """The five Value cards under the tracks, numbered, with their bonus/malus."""
    spaces = track_geometry(table)
    total = sum(spaces)
    parts = []
    start = 0
    for card, n in enumerate(spaces, start=1):
        cx = x + TRACK_W * start / total
        w = TRACK_W * n / total
        parts.append(el("rect", x=cx + 2, y=y, width=w - 4, height=height, rx=8,
                        fill="#fbf4e2", stroke="#7a6448", stroke_width=1.5))
        parts.append(text(cx + w / 2, y + 20, f"Value card {card}", 13, text_anchor="middle",
                          font_family=SERIF, font_weight="bold"))
        bonus = _card_bonus(obs, table, card)
        if bonus is not None:
            parts.append(text(cx + w / 2, y + height - 8, f"bonus {bonus:+d}", 12,
                              text_anchor="middle", fill=MUTED))
        start += n
    return group("the five Value cards", *parts)


def _card_bonus(obs: JSON, table: Table, card: int) -> int | None:
    """A Value card's bonus/malus: the card set's, else as seen under a token."""
    if table.cards is not None and card <= len(table.cards.track.bonus):
        return int(table.cards.track.bonus[card - 1])
    for value in (obs.get("values") or {}).values():
        if value.get("card") == card:
            return int(value.get("bonus", 0))
    return None


def value_track(obs: JSON, table: Table, index: int, colour: str, x: float, y: float) -> str:
    """One Value's row: its name, its spaces, its token."""
    value = (obs.get("values") or {}).get(colour) or {}
    spaces = track_geometry(table)
    total = sum(spaces)
    step = TRACK_W / total
    if table.cards is not None:
        position = int(value.get("space", 0))
    else:
        position = int(value.get("card", 1)) - 1
    parts = [table.token(x + 16, y, colour, 12),
             text(x + 34, y + 5, _title(colour), 14, font_weight="bold")]
    for space in range(total):
        parts.append(el("rect", x=TRACK_X + space * step + step / 2 - 11, y=y - 11, width=22,
                        height=22, rx=4, fill="#ffffff", stroke=table.fill(colour),
                        stroke_width=1.5, opacity=0.9))
    parts.append(table.token(TRACK_X + (position + 0.5) * step, y, colour, 14))
    label = (f"{_title(colour)}: on Value card {value.get('card', '?')}, "
             f"bonus {value.get('bonus', 0)}")
    return group(label, *parts)


def law_stacks(obs: JSON, table: Table, x: float, y: float) -> str:
    """The Law stacks: per colour, the Laws left of each tier (cost), with their VP."""
    stacks = obs.get("law_stacks") or {}
    parts = [text(x, y, "Laws left", 16, font_family=SERIF, font_weight="bold"),
             text(x + 110, y, "tier (cost): cards left · VP", 12, fill=MUTED)]
    for i, colour in enumerate(table.colours):
        cy = y + 26 + i * 30
        parts.append(table.token(x + 12, cy - 4, colour, 10))
        for tier, left in enumerate(stacks.get(colour) or [], start=1):
            tx = x + 40 + (tier - 1) * 180
            vp = f" · {table.cards.law_vp(colour, tier)} VP" if table.cards else ""
            parts.append(el("rect", x=tx, y=cy - 18, width=172, height=24, rx=4,
                            fill="#fbf4e2" if left else "#e6dcc6", stroke=table.fill(colour),
                            stroke_width=1.5))
            cost = LAW_COSTS[tier - 1] if tier <= len(LAW_COSTS) else "?"
            parts.append(text(tx + 8, cy - 1, f"{ROMAN[tier] if tier < 6 else tier} ({cost}):"
                              f" {left} left{vp}", 12))
    return group("Law stacks", *parts)


def deck_line(obs: JSON, table: Table, x: float, y: float) -> str:
    """The Theme deck and the discard pile (face up, newest last)."""
    discard = [str(c) for c in obs.get("discard") or []]
    parts = [el("rect", x=x, y=y - 22, width=34, height=46, rx=4, fill="#5b3a29",
                stroke=INK, stroke_width=1.2),
             text(x + 17, y + 6, obs.get("deck", 0), 15, text_anchor="middle",
                  fill="#ffffff", font_weight="bold"),
             text(x + 44, y - 6, f"Theme deck: {obs.get('deck', 0)} cards", 13),
             text(x + 44, y + 12, f"discard pile: {len(discard)}, newest:", 13)]
    for i, theme in enumerate(discard[-6:][::-1]):
        parts.append(table.theme_chip(x + 250 + i * 54, y + 8, theme))
    return group("Theme deck and discard pile", *parts)


def left_side(obs: JSON, table: Table) -> str:
    """The table's middle: seasons, the Value tracks, the Laws, the deck."""
    parts = [el("rect", x=8, y=8, width=812, height=784, rx=18, fill="#e8d9b5",
                stroke="#7a6448", stroke_width=2),
             seasons(obs, table, 24, 50),
             value_cards(obs, table, TRACK_X, 82, 262)]
    for i, colour in enumerate(table.colours):
        parts.append(value_track(obs, table, i, colour, 16, 140 + i * 52))
    parts.append(law_stacks(obs, table, 24, 380))
    parts.append(deck_line(obs, table, 24, 572))
    parts.append(legend(obs, table, 24, 660))
    return group("the table", *parts)


def legend(obs: JSON, table: Table, x: float, y: float) -> str:
    """What the colours and marks mean."""
    parts = [text(x, y, "Legend", 14, font_weight="bold")]
    for i, colour in enumerate(table.colours):
        parts.append(table.token(x + 80 + i * 150, y - 5, colour, 10))
        parts.append(text(x + 94 + i * 150, y, _title(colour), 13))
    lines = ("A Theme is shown as its Value's initial and number (·n: its base points);",
             "a thick black border: played this round. Law I-IV: the highest tier bought.",
             "Hands, face-down choices and Law requests show only in their own seat's view.")
    for i, line in enumerate(lines):
        parts.append(text(x, y + 24 + i * 18, line, 12, fill=MUTED))
    return group("legend", *parts)


# -- the players ----------------------------------------------------------------------

def status(obs: JSON, x: float, y: float) -> str:
    """Title, season and round, what is asked now or the result."""
    head = (f"Leges · season {obs.get('season', 1)}/{obs.get('seasons', 4)} · "
            f"round {obs.get('round', 1)}/{obs.get('rounds', 3)}")
    parts = [text(x, y + 22, head, 22, font_family=SERIF, font_weight="bold")]
    result = obs.get("result")
    if result:
        parts.append(text(x, y + 46, "Game over: " + _ranking(obs, result), 14, fit=436,
                          font_weight="bold", fill=ACCENT))
    else:
        parts.append(text(x, y + 46, str(obs.get("pending") or ""), 14, fit=436,
                          fill=ACCENT))
    return group("status", *parts)


def _name(obs: JSON, seat: object) -> str:
    players = obs.get("players") or []
    if isinstance(seat, int) and 0 <= seat < len(players):
        return str(players[seat])
    return f"seat {seat}"


def _ranking(obs: JSON, result: JSON) -> str:
    """The winners, with their VP (each player's place is on its own board)."""
    scores = result.get("scores") or []
    first = (result.get("ranking") or [[]])[0]
    names = " = ".join(_name(obs, s) for s in first)
    return f"won by {names} ({_vp(scores, first[0]) if first else '?'} VP)"


def place_of(obs: JSON, seat: object) -> int | None:
    """A seat's place in the final ranking (1: a winner), None before the end."""
    ranking = (obs.get("result") or {}).get("ranking") or []
    return next((i for i, seats in enumerate(ranking, start=1) if seat in seats), None)


def _vp(scores: list[Any], seat: int) -> str:
    if isinstance(seat, int) and 0 <= seat < len(scores) and isinstance(scores[seat], dict):
        return str(scores[seat].get("vp", ""))
    return ""


def player_box(obs: JSON, table: Table, board: JSON, x: float, y: float,
               height: float) -> str:
    """One player: name, VP, Score card and Laws, exposed Themes, hand, requests."""
    seat = int(board.get("seat", 0))
    moving = seat in (obs.get("to_move") or [])
    parts = [el("rect", x=x, y=y, width=436, height=height, rx=8,
                fill="#fff8e6" if moving else "#f7efdc",
                stroke=ACCENT if moving else "#7a6448", stroke_width=4 if moving else 1.5),
             text(x + 10, y + 21, _name(obs, seat), 16, font_family=SERIF,
                  font_weight="bold"),
             text(x + 120, y + 20, _seat_note(obs, board, moving), 12, fit=220, fill=MUTED),
             text(x + 426, y + 24, f"{board.get('vp', 0)} VP", 20, text_anchor="end",
                  font_weight="bold"),
             score_card(table, board, x + 10, y + 44),
             _themes_row(table, board, x + 10, y + 76)]
    hand = _hand_row(table, board, x + 10, y + 104)
    parts.append(hand)
    parts.append(text(x + 10, y + height - 8, _private_line(obs, board), 12, fit=416,
                      fill=MUTED))
    label = (f"{_name(obs, seat)}: {board.get('vp', 0)} VP; points "
             + ", ".join(f"{c} {n}" for c, n in (board.get("points") or {}).items())
             + "; Laws " + ", ".join(f"{c} tier {n}" for c, n in
                                     (board.get("laws") or {}).items()))
    return group(label, *parts)


def _seat_note(obs: JSON, board: JSON, moving: bool) -> str:
    seat = board.get("seat")
    notes = []
    place = place_of(obs, seat)
    if place is not None:
        notes.append(f"place {place}" + (" · winner" if place == 1 else ""))
    if obs.get("first_player") == seat:
        notes.append("first player")
    if obs.get("seat") == seat:
        notes.append("you")
    if moving:
        notes.append("deciding now")
    return " · ".join(notes)


def score_card(table: Table, board: JSON, x: float, y: float) -> str:
    """The Score card: points per colour, and the highest Law bought in each."""
    points = board.get("points") or {}
    laws = board.get("laws") or {}
    parts = []
    for i, colour in enumerate(table.colours):
        cx = x + i * 104
        tier = int(laws.get(colour, 0))
        parts.append(table.token(cx + 11, y - 5, colour, 10))
        parts.append(text(cx + 25, y, f"{points.get(colour, 0)}", 15, font_weight="bold"))
        parts.append(el("rect", x=cx + 52, y=y - 15, width=42, height=20, rx=3,
                        fill=table.fill(colour) if tier else "none",
                        stroke=table.fill(colour) if tier else "#b9a57f", stroke_width=1.5,
                        stroke_dasharray=None if tier else "3 3"))
        parts.append(text(cx + 73, y, f"Law {ROMAN[tier] if tier < 6 else tier}"
                          if tier else "—", 12, text_anchor="middle",
                          fill=table.ink(colour) if tier else MUTED, font_weight="bold"))
    return group("Score card and Laws", *parts)


def _themes_row(table: Table, board: JSON, x: float, y: float) -> str:
    """The Themes face up in front of the player this season."""
    exposed = [str(t) for t in board.get("exposed") or []]
    played = {str(t) for t in board.get("played") or []}
    parts = [text(x, y + 3, "exposed", 12, fill=MUTED)]
    for i, theme in enumerate(exposed[:7]):
        parts.append(table.theme_chip(x + 52 + i * 52, y, theme, theme in played))
    if len(exposed) > 7:
        parts.append(text(x + 52 + 7 * 52, y + 3, f"+{len(exposed) - 7}", 12))
    return group("exposed Themes: " + (", ".join(exposed) or "none"), *parts)


def _hand_row(table: Table, board: JSON, x: float, y: float) -> str:
    """The hand: its size, and its cards when the observation holds them."""
    hand = board.get("hand")
    parts = [text(x, y + 3, f"hand {board.get('hand_size', 0)}", 12, fill=MUTED)]
    for i, theme in enumerate([str(t) for t in hand or []][:7]):
        parts.append(table.theme_chip(x + 52 + i * 52, y, theme))
    if hand and len(hand) > 7:
        parts.append(text(x + 52 + 7 * 52, y + 3, f"+{len(hand) - 7}", 12))
    label = "hand: " + (", ".join(map(str, hand)) if hand else f"{board.get('hand_size', 0)}"
                                                               " cards")
    return group(label, *parts)


def _private_line(obs: JSON, board: JSON) -> str:
    """Choice and request flags (their content when shown), draws, discards, requests."""
    seat = board.get("seat")
    notes = []
    if board.get("chosen"):
        notes.append("chosen" + (f": {board['choice']}" if board.get("choice") else ""))
    if board.get("requested"):
        notes.append("Law requested" + (f": {board['request']}" if board.get("request")
                                        else ""))
    if board.get("drawn_count"):
        drawn = board.get("drawn")
        notes.append(f"drew {board['drawn_count']}" + (": " + ", ".join(map(str, drawn))
                                                        if drawn else ""))
    if board.get("discarded"):
        notes.append("discarded " + ", ".join(map(str, board["discarded"])))
    requests = obs.get("law_requests") or []
    if isinstance(seat, int) and seat < len(requests) and requests[seat] is not None:
        notes.append(f"last Law request: {requests[seat]}")
    return " · ".join(notes)


def right_side(obs: JSON, table: Table) -> str:
    """Status and the players."""
    x = 832.0
    boards = list(obs.get("boards") or [])
    height = min(150.0, (800 - 78 - 6 * len(boards)) / max(len(boards), 1))
    parts = [status(obs, x, 8)]
    for i, board in enumerate(boards):
        parts.append(player_box(obs, table, board, x, 70 + i * (height + 6), height))
    return group("the players", *parts)


def describe(obs: JSON) -> str:
    """The position in a few sentences, for the document's description."""
    players = ", ".join(f"{_name(obs, b.get('seat'))} {b.get('vp', 0)} VP"
                        for b in obs.get("boards") or [])
    values = ", ".join(f"{_title(c)} on card {v.get('card')}"
                       for c, v in (obs.get("values") or {}).items())
    return f"Leges table. {players}. Values: {values}. {obs.get('pending') or ''}"


def render_svg(observation: JSON, cards: CardSet | None = None) -> str:
    """The table of this observation as one self-contained SVG document; `cards`, the
    card set the observation names, refines the track and the Themes' names."""
    table = Table(observation, cards)
    title = (f"Leges table, season {observation.get('season', 1)}, "
             f"round {observation.get('round', 1)}")
    body = (el("rect", x=0, y=0, width=WIDTH, height=HEIGHT, fill=PARCHMENT)
            + left_side(observation, table) + right_side(observation, table))
    return document(title, describe(observation), body)
