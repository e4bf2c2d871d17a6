"""Leges' rule steps: a round is Theme choice, reveal, Value moves, abilities, (the ×2
repeat), scoring, Law buying, Theme exchange; three rounds make a season.

The state holds one current step (`st.step`, a plain dict of words and seat numbers, all
public): the driver (`LegesState.advance`) asks `options` for the decisions of the seats
asked, `apply` carries one out, and `settle` runs the automatic steps between decision
points. Ruling ids (L1..L13, and our C-L1..) are restated in docs/rulings.md.

Steps (`st.step["k"]`):

- `choose` (`pass` 1 or 2, `seats`): the seats listed each choose a Theme card face
  down, at the same time (L2): `play <card>`; at pass 2 (the ×2 repeat) `hold` declines
  the second card. The chosen card stays in the hand until the reveal.
- `ability` (`pass`, `queue`): from the first player clockwise, each seat whose card
  revealed at this pass has a `shift` ability moves a Value token: `shift <colour> up`,
  `shift <colour> down`, or `pass`.
- `laws` (`seats`): each seat that can afford a Law requests one face down (L7):
  `law <colour> <tier>` or `nolaw`.
- `exchange` (`queue`): from the first player clockwise (L11), each seat in turn:
  `discard <card>` (a card of its hand, face up, then draws 2), `draw` (draws 2 without
  discarding) or `pass`; having drawn 2, `discard <card>` (one of those 2, face up).
- `over`: the game has ended.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from games.core import Decision
from games.leges.cardset import LAW_COSTS, TIERS

if TYPE_CHECKING:
    from games.leges.state import LegesState

Step = dict[str, Any]
Options = dict[int, list[Decision]]
JSONish = dict[str, Any]

#: Rounds in a season; seasons in a game (3 with 5 players).
ROUNDS = 3
#: Theme cards each player is dealt at the start and at each end of season; hand limit.
DEAL = 5
HAND_LIMIT = 8
#: Cards drawn at a Theme exchange.
EXCHANGE_DRAW = 2
#: The internal choice of a seat that declines its ×2 second card.
HOLD = ""

#: Verb -> (fewest, most) arguments: the notation's vocabulary.
VERBS = {"play": (1, 1), "hold": (0, 0), "shift": (2, 2), "pass": (0, 0),
         "law": (2, 2), "nolaw": (0, 0), "discard": (1, 1), "draw": (0, 0)}
#: Verbs of secret simultaneous choices: seen by their own seat only until revealed.
SECRET_VERBS = frozenset({"play", "hold", "law", "nolaw"})
DIRECTIONS = ("up", "down")

_PASS = Decision("pass")
_HOLD = Decision("hold")
_NOLAW = Decision("nolaw")
_DRAW = Decision("draw")


def seasons_for(num_seats: int) -> int:
    """4 seasons of 3 rounds; 3 seasons with 5 players."""
    return 3 if num_seats == 5 else 4


def form_error(decision: Decision) -> str | None:
    bounds = VERBS.get(decision.verb)
    if bounds is None:
        return f"unknown verb {decision.verb!r}; verbs are: {', '.join(sorted(VERBS))}"
    low, high = bounds
    if not low <= len(decision.args) <= high:
        return f"{decision.verb!r} takes {low}-{high} argument(s), got {len(decision.args)}"
    if decision.verb == "shift" and decision.args[1] not in DIRECTIONS:
        return f"shift is written 'shift <colour> up|down', got {decision}"
    if decision.verb == "law" and not decision.args[1].isdigit():
        return f"law is written 'law <colour> <tier>', got {decision}"
    return None


# ---------------------------------------------------------------------------------------
# Decisions
# ---------------------------------------------------------------------------------------
def options(st: LegesState) -> Options:
    """The decisions of every seat asked now (only seats with some decision)."""
    step = st.step
    kind = step["k"]
    players = st.players
    if kind == "choose":
        second = step["pass"] == 2
        found: Options = {}
        for seat in step["seats"]:
            if players[seat]["choice"] is None:
                plays = [Decision("play", (card,)) for card in players[seat]["hand"]]
                found[seat] = [*plays, _HOLD] if second else plays
        return found
    if kind == "ability":
        seat = step["queue"][0]
        return {seat: shift_options(st, seat)}
    if kind == "laws":
        return {seat: law_options(st, seat) for seat in step["seats"]
                if players[seat]["request"] is None}
    if kind == "exchange":
        seat = step["queue"][0]
        player = players[seat]
        if player["drawn"]:
            return {seat: [Decision("discard", (card,)) for card in player["drawn"]]}
        found_ = [Decision("discard", (card,)) for card in player["hand"]]
        if st.deck or st.discard:
            found_.append(_DRAW)
        found_.append(_PASS)
        return {seat: found_}
    return {}


def shift_options(st: LegesState, seat: int) -> list[Decision]:
    """`shift <colour> up|down` for every move that changes a token, then `pass`."""
    top = st.cards.track.length - 1
    found = []
    for colour in st.colours:
        space = st.values[colour]
        if space < top:
            found.append(Decision("shift", (colour, "up")))
        if space > 0:
            found.append(Decision("shift", (colour, "down")))
    found.append(_PASS)
    return found


def law_options(st: LegesState, seat: int) -> list[Decision]:
    """Every Law the seat may request (its next tier in a colour, on offer and affordable,
    L6), then `nolaw`; empty when it can afford none."""
    player = st.players[seat]
    found = []
    for colour in st.colours:
        tier = player["laws"][colour] + 1
        if tier <= TIERS and st.stacks[colour][tier - 1] > 0 \
                and player["points"][colour] >= LAW_COSTS[tier - 1]:
            found.append(Decision("law", (colour, str(tier))))
    if found:
        found.append(_NOLAW)
    return found


def apply(st: LegesState, seat: int, decision: Decision) -> None:
    step = st.step
    kind = step["k"]
    player = st.players[seat]
    verb = decision.verb
    if kind == "choose":
        player["choice"] = HOLD if verb == "hold" else decision.args[0]
        st.emit("chosen", seat=seat, second=step["pass"] == 2)
    elif kind == "ability":
        step["queue"].pop(0)
        if verb == "shift":
            card = player["played"][step["pass"] - 1]
            ability = st.cards.theme(card).ability
            assert ability is not None
            amount = ability.amount if decision.args[1] == "up" else -ability.amount
            move_token(st, decision.args[0], amount, seat, card, "ability")
        else:
            st.emit("ability-pass", seat=seat)
    elif kind == "laws":
        player["request"] = "none" if verb == "nolaw" else " ".join(decision.args)
        st.emit("requested", seat=seat)
    elif kind == "exchange":
        exchange(st, seat, decision)


# ---------------------------------------------------------------------------------------
# The automatic steps
# ---------------------------------------------------------------------------------------
def settle(st: LegesState) -> None:
    """Run the automatic steps until some seat must decide (or the game is over)."""
    players = st.players
    while True:
        step = st.step
        kind = step["k"]
        if kind == "choose":
            if any(players[seat]["choice"] is None for seat in step["seats"]):
                return
            reveal(st, step["pass"], step["seats"])
        elif kind == "ability":
            if step["queue"]:
                return
            after_abilities(st, step["pass"])
        elif kind == "laws":
            if any(players[seat]["request"] is None for seat in step["seats"]):
                return
            resolve_laws(st, step["seats"])
        elif kind == "exchange":
            if step["queue"]:
                return
            end_round(st)
        else:
            return


def begin_round(st: LegesState) -> None:
    for player in st.players:
        player["played"] = []
    st.emit("round", season=st.season, round=st.round)
    seats = [seat for seat in st.clockwise() if st.players[seat]["hand"]]
    st.step = {"k": "choose", "pass": 1, "seats": seats}


def reveal(st: LegesState, number: int, seats: list[int]) -> None:
    """All face-down cards of this pass at once; the Value tokens move from the first
    player clockwise; then the abilities step (or the next one)."""
    cards: list[str | None] = [None] * st.num_seats
    held = []
    for seat in seats:
        player = st.players[seat]
        card = player["choice"]
        player["choice"] = None
        if card == HOLD:
            held.append(seat)
            continue
        player["hand"].remove(card)
        player["exposed"].append(card)
        player["played"].append(card)
        cards[seat] = card
    st.emit("reveal", cards=cards, held=held, second=number == 2)
    order = [seat for seat in st.clockwise() if cards[seat] is not None]
    for seat in order:
        card = cards[seat]
        assert card is not None
        for colour, amount in st.cards.theme(card).shift:
            move_token(st, colour, amount, seat, card, "card")
    queue = []
    for seat in order:
        ability = st.cards.theme(cards[seat] or "").ability
        if ability is not None and ability.kind == "shift":
            queue.append(seat)
    st.step = {"k": "ability", "pass": number, "queue": queue}


def move_token(st: LegesState, colour: str, amount: int, seat: int, card: str,
               why: str) -> None:
    """Move a Value token, stopping at the ends of the track (L9)."""
    before = st.values[colour]
    after = max(0, min(st.cards.track.length - 1, before + amount))
    st.values[colour] = after
    st.emit("value", colour=colour, by=amount, before=before, after=after, seat=seat,
            card=card, why=why)


def after_abilities(st: LegesState, number: int) -> None:
    """After the first pass: the ×2 repeat for every seat whose card allows it and who
    still holds a card (once a round, L8); then scoring."""
    if number == 1:
        doubles = []
        for seat in st.clockwise():
            player = st.players[seat]
            if player["played"] and player["hand"]:
                ability = st.cards.theme(player["played"][0]).ability
                if ability is not None and ability.kind == "double":
                    doubles.append(seat)
        if doubles:
            st.emit("double", players=doubles)
            st.step = {"k": "choose", "pass": 2, "seats": doubles}
            return
    score(st)
    begin_laws(st)


def card_score(st: LegesState, seat: int, card: str, visible: Counter[str],
               own: Counter[str]) -> tuple[int, int]:
    """A played card's base points and ability bonus: `points` per other visible card of
    the bonus colour (every player's face-up Themes, or the owner's for "yours"; L13)."""
    theme = st.cards.theme(card)
    ability = theme.ability
    bonus = 0
    if ability is not None and ability.kind == "bonus":
        seen = visible if ability.whose == "all" else own
        others = seen[ability.colour] - (1 if theme.colour == ability.colour else 0)
        bonus = others * ability.points
    return theme.points, bonus


def score(st: LegesState) -> None:
    """From the first player clockwise: base points and ability bonuses of the round's
    card(s), plus the Value bonus/malus of each of their colours once (L8); a colour's
    points never go below 0 (L9)."""
    cards = st.cards
    visible: Counter[str] = Counter()
    for player in st.players:
        for card in player["exposed"]:
            visible[cards.theme(card).colour] += 1
    for seat in st.clockwise():
        player = st.players[seat]
        if not player["played"]:
            continue
        own = Counter(cards.theme(card).colour for card in player["exposed"])
        delta: dict[str, int] = {}
        detail = []
        for card in player["played"]:
            base, bonus = card_score(st, seat, card, visible, own)
            colour = cards.theme(card).colour
            delta[colour] = delta.get(colour, 0) + base + bonus
            detail.append({"card": card, "colour": colour, "base": base, "bonus": bonus})
        values = {}
        gained = {}
        for colour in st.colours:
            if colour not in delta:
                continue
            value = cards.value_bonus(st.values[colour])
            values[colour] = value
            before = player["points"][colour]
            player["points"][colour] = max(0, before + delta[colour] + value)
            gained[colour] = player["points"][colour] - before
        st.emit("score", seat=seat, cards=detail, value=values, gained=gained)


def begin_laws(st: LegesState) -> None:
    st.law_requests = [None] * st.num_seats
    seats = [seat for seat in st.clockwise() if law_options(st, seat)]
    st.step = {"k": "laws", "seats": seats}


def law_order_key(st: LegesState, seat: int, colour: str) -> tuple[int, int]:
    """L7: points in the Law's colour, then the single best other colour."""
    points = st.players[seat]["points"]
    best_other = max(points[c] for c in st.colours if c != colour)
    return points[colour], best_other


def resolve_laws(st: LegesState, seats: list[int]) -> None:
    """L7: for each colour and tier, the requesters choose in order (points in that
    colour, then best other colour) while cards remain; where a tie decides who gets a
    card, the tied seats and those below buy nothing of that colour and tier."""
    requests: dict[tuple[str, int], list[int]] = {}
    for seat in seats:
        player = st.players[seat]
        request = player["request"]
        player["request"] = None
        st.law_requests[seat] = request
        if request != "none":
            colour, tier = request.split()
            requests.setdefault((colour, int(tier)), []).append(seat)
    bought: list[tuple[int, str, int]] = []
    blocked: list[JSONish] = []
    for colour in st.colours:
        for tier in range(1, TIERS + 1):
            wanting = requests.get((colour, tier))
            if not wanting:
                continue
            remaining = st.stacks[colour][tier - 1]
            keys = {seat: law_order_key(st, seat, colour) for seat in wanting}
            ranked = sorted(wanting, key=lambda s: keys[s], reverse=True)
            index = 0
            while index < len(ranked):
                group = [s for s in ranked[index:] if keys[s] == keys[ranked[index]]]
                if len(group) <= remaining:
                    bought += [(seat, colour, tier) for seat in group]
                    remaining -= len(group)
                    index += len(group)
                    continue
                losers = ranked[index:]
                why = "tie" if remaining > 0 else "sold-out"
                blocked += [{"seat": s, "colour": colour, "tier": tier, "why": why}
                            for s in losers]
                break
    st.emit("laws", requests=list(st.law_requests),
            bought=[{"seat": s, "colour": c, "tier": t} for s, c, t in bought],
            blocked=blocked)
    for seat, colour, tier in bought:
        player = st.players[seat]
        cost = LAW_COSTS[tier - 1]
        player["points"][colour] -= cost
        player["laws"][colour] = tier
        st.stacks[colour][tier - 1] -= 1
        st.emit("law", seat=seat, colour=colour, tier=tier, cost=cost,
                vp=st.cards.law_vp(colour, tier))
    st.step = {"k": "exchange", "queue": st.clockwise()}



def exchange(st: LegesState, seat: int, decision: Decision) -> None:
    """A Theme exchange decision of the seat at the head of the queue."""
    step = st.step
    player = st.players[seat]
    verb = decision.verb
    if player["drawn"]:
        card = decision.args[0]
        player["drawn"].remove(card)
        st.discard.append(card)
        player["discarded"].append(card)
        st.emit("discard", seat=seat, card=card, source="drawn")
        _keep_drawn(st, seat)
        return
    player["discarded"] = []
    if verb == "pass":
        step["queue"].pop(0)
        st.emit("exchange-pass", seat=seat)
        return
    if verb == "discard":
        card = decision.args[0]
        player["hand"].remove(card)
        st.discard.append(card)
        player["discarded"].append(card)
        st.emit("discard", seat=seat, card=card, source="hand")
    drawn = [card for card in (st.draw_theme() for _ in range(EXCHANGE_DRAW)) if card]
    st.emit("draw", seat=seat, count=len(drawn))
    st.emit("drawn", seats=(seat,), seat=seat, cards=sorted(drawn))
    player["drawn"] = sorted(drawn)
    if len(drawn) < EXCHANGE_DRAW:
        _keep_drawn(st, seat)  # fewer than 2 could be drawn: nothing to discard (C-L8)


def _keep_drawn(st: LegesState, seat: int) -> None:
    player = st.players[seat]
    player["hand"] = sorted(player["hand"] + player["drawn"])
    player["drawn"] = []
    st.step["queue"].pop(0)


def end_round(st: LegesState) -> None:
    if st.round < ROUNDS:
        st.round += 1
        begin_round(st)
        return
    if st.season >= st.seasons:
        st.finish()
        return
    end_season(st)
    st.season += 1
    st.round = 1
    begin_round(st)


def end_season(st: LegesState) -> None:
    """Exposed Themes to the discard; 5 new cards each, stopping at 8 (L10), from the
    first player clockwise; tokens on Value card 1 (5) to card 2's (4's) nearest space."""
    for player in st.players:
        st.discard += player["exposed"]
        player["exposed"] = []
        player["played"] = []
    st.emit("season-end", season=st.season)
    for seat in st.clockwise():
        st.deal(seat, min(DEAL, HAND_LIMIT - len(st.players[seat]["hand"])))
    track = st.cards.track
    last = len(track.spaces)
    for colour in st.colours:
        space = st.values[colour]
        card = track.card_at(space)
        if card == 1:
            target = track.first_space(2)
        elif card == last:
            target = track.last_space(last - 1)
        else:
            continue
        st.values[colour] = target
        st.emit("value-reset", colour=colour, before=space, after=target)


def prompt(st: LegesState) -> str:
    step = st.step
    kind = step["k"]
    if kind == "choose":
        return ("choose a Theme card face down" if step["pass"] == 1
                else "choose a second Theme card face down (×2) or hold")
    if kind == "ability":
        return "use the card's ability: move a Value token, or pass"
    if kind == "laws":
        return "request a Law face down, or none"
    if kind == "exchange":
        if st.players[step["queue"][0]]["drawn"]:
            return "discard one of the 2 Theme cards drawn"
        return "exchange Themes: discard one from the hand and draw 2, draw 2, or pass"
    return "nothing"
