"""The Leges greedy bot: a search on determinized copies for the secret choices, scored
from the observation; a quick policy for the public ones.

**The secret simultaneous choices** (the face-down Theme card, ruling L2, the ×2 second
card included; the Law request, L7) are searched. The bot makes `samples` copies with
`state.determinize(seat, seed)` (never the real state): in them the other seats' hands and
the deck are redrawn, and the other seats' pending choices, which the determinization drew
at random, are erased, so that the quick policy makes them. Each legal decision is applied
to every copy (the same copies for all decisions), then every seat, the bot included,
plays the quick policy to the end of the season (of the game, in the last one), and the
position reached is scored from what `seat` may see (`observation(seat)`,
`score_observation`). The best mean score wins; ties go to the bot's own seeded RNG. Its
choice depends on public information, its own hand and its seed only: not on the others'
real hands, on the deck order, or on what the others have already chosen. The search is
`bots.search.one_ply`; this module is its Leges evaluator and quick policy.

**The public choices** (a `shift` ability, the Theme exchange) are the quick policy's,
applied to a determinized copy too: searching them did not play better.

**The quick policy** (`quick_decision`): the Theme card of best worth (`theme_value`: the
points it should score now, its base points, its colour's Value bonus after its own shift
and its `bonus` for the cards visible; plus `focus` per point the seat already holds in its
colour, since points buy Laws of their own colour only and concentrating wastes fewer; plus
something for `×2` and `shift`); the token of its richest colour up; the Law worth the most
VP; at the exchange, the hand's card of least worth discarded (2 drawn), then the worse of
the 2 drawn.

**The score** (`seat_values`, VP): a seat's Laws' VP, plus `bank` times the VP it should
still add (`expected_gain`: each colour's next tiers in order while its points pay for
them and its stack holds some, at most one Law per Law step left; the points left count
`partial` of the next tier pro rata). The points counted are those it holds and those it
should still score: for its own seat the best cards of its hand for the rounds left this
season (in their colours), for another its hand size; later plays `average_card` points
each, plus `track` times the colour's Value bonus, shared among the colours in proportion
to what the seat has put into each. Cards kept for later seasons count `hand_extra` for
their worth above an average card (each will take the place of a card dealt: hand limit
8). The bot scores `own - opp_max * best other - opp_mean * mean other`; a finished game,
its VP and `win` if it won.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bots.search import (
    GreedySearchBot,
    after,
    determinizations,
    one_ply,
    relative_score,
    seat_score,
)
from games.core import JSON, Decision, GameState
from games.leges.cardset import LAW_COSTS, TIERS

#: A point spent on a Law buys 1/5 VP at every tier (5 -> 1, 15 -> 3, 20 -> 4, 25 -> 5 VP).
POINT_VP = 0.2
#: The steps whose decisions are searched: the secret simultaneous choices.
SEARCHED = ("choose", "laws")


@dataclass(frozen=True)
class Weights:
    """The heuristic's coefficients (VP, or points where said) and the search's size."""

    #: the VP a seat should still add with Laws (contested stacks, L7; uncertain points)
    bank: float = 0.9
    #: the points left towards a colour's next tier: this share of its VP, pro rata
    partial: float = 0.5
    #: the points the seat should score with its cards still to play: the best of its hand
    #: for the rounds left this season, in their colours, at `hand`; later cards
    #: `average_card` points each, plus `track` times the colour's Value bonus now, shared
    #: among the colours in proportion to the points it has put into each, plus `prior`
    hand: float = 0.8
    average_card: float = 4.2
    track: float = 0.3
    prior: float = 2.0
    #: per VP-worth of each other card of the hand above (or below) an average card,
    #: while a season remains: it will take the place of a card dealt (hand limit 8)
    hand_extra: float = 0.5
    #: a card's worth, per point the seat holds in its colour (points, concentration pays)
    focus: float = 0.3
    #: a `×2` card (the second card it lets play) and a `shift` card, in points
    double: float = 2.5
    shift: float = 1.0
    #: opponents' values against ours: the best one and the mean
    opp_max: float = 0.5
    opp_mean: float = 0.5
    #: a finished game won (shared wins split it)
    win: float = 100.0
    #: determinized copies per searched decision
    samples: int = 4


WEIGHTS = Weights()


# ---------------------------------------------------------------------------------------
# Cards
# ---------------------------------------------------------------------------------------
def theme_value(cards: Any, card: str, spaces: dict[str, int], visible: Counter[str],
                own: Counter[str], points: int, w: Weights = WEIGHTS) -> tuple[float, float]:
    """A Theme card of a seat's hand: (the points it should score if played now, its
    worth to the seat). The points: base points, the Value bonus of its colour after its
    own shift (`spaces`: each token's space), its `bonus` for the cards visible now
    (`visible`: every player's face-up Themes by colour, `own`: the seat's). The worth:
    those points, `double` or `shift` for those abilities, and `focus` per point the
    seat holds in the card's colour (`points`)."""
    theme = cards.theme(card)
    score = float(theme.points)
    space = spaces[theme.colour] + dict(theme.shift).get(theme.colour, 0)
    score += cards.value_bonus(max(0, min(cards.track.length - 1, space)))
    worth = w.focus * points
    ability = theme.ability
    if ability is not None:
        if ability.kind == "bonus":
            seen = visible if ability.whose == "all" else own
            score += ability.points * seen[ability.colour]  # the card is not yet visible
        elif ability.kind == "double":
            worth += w.double
        elif ability.kind == "shift":
            worth += w.shift
    return score, score + worth


def visible_colours(cards: Any, exposed: list[list[str]],
                    seat: int) -> tuple[Counter[str], Counter[str]]:
    """The face-up Themes by colour: every player's, and the seat's own."""
    own = Counter(cards.theme(c).colour for c in exposed[seat])
    visible = Counter(cards.theme(c).colour for pile in exposed for c in pile)
    return visible, own


_AVERAGES: dict[tuple[str, Weights], float] = {}


def average_card_value(cards: Any, w: Weights = WEIGHTS) -> float:
    """The mean worth of a Theme card of the set, Value bonus and `focus` left out."""
    key = (cards.digest, w)
    if key not in _AVERAGES:
        extra = {"double": w.double, "shift": w.shift}
        _AVERAGES[key] = sum(theme.points + (extra.get(theme.ability.kind, 0.0)
                                             if theme.ability else 0.0)
                             for theme in cards.themes) / len(cards.themes)
    return _AVERAGES[key]


# ---------------------------------------------------------------------------------------
# The score (reads one observation)
# ---------------------------------------------------------------------------------------
def law_steps_left(obs: JSON) -> int:
    """The Law buyings still to come, this round's included while it is not resolved."""
    later: int = (obs["seasons"] - obs["season"]) * obs["rounds"] + obs["rounds"] - obs["round"]
    step = obs["asked"]["step"]
    return later + (1 if step in ("choose", "ability", "laws") else 0)


def plays_left(obs: JSON) -> int:
    """The Theme choices still to come this season (this round's if not yet revealed)."""
    asked = obs["asked"]
    now = 1 if asked["step"] == "choose" and asked["pass"] == 1 else 0
    left: int = obs["rounds"] - obs["round"] + now
    return left


def expected_gain(points: dict[str, float], laws: dict[str, int],
                  stacks: dict[str, list[int]], cards: Any, steps: int,
                  w: Weights = WEIGHTS) -> float:
    """The VP a seat should still add with Laws from `points` per colour (those it holds
    and those it should still score there): each colour's next tiers in order while the
    points pay for them and its stack holds some, at most `steps` Laws (the most valuable
    kept); the points left towards a colour's next tier count `partial` of its VP pro
    rata."""
    gains: list[int] = []
    partial = 0.0
    for colour, have in points.items():
        tier = laws[colour]
        while tier < TIERS and stacks[colour][tier] > 0 and have >= LAW_COSTS[tier]:
            have -= LAW_COSTS[tier]
            tier += 1
            gains.append(cards.law_vp(colour, tier) - cards.law_vp(colour, tier - 1))
        if tier < TIERS and stacks[colour][tier] > 0:
            partial += have / LAW_COSTS[tier] * (cards.law_vp(colour, tier + 1)
                                                  - cards.law_vp(colour, tier))
    gains.sort(reverse=True)
    total = float(sum(gains[:steps]))
    return total + (w.partial * partial if steps > len(gains) else 0.0)


def seat_values(obs: JSON, cards: Any, w: Weights = WEIGHTS) -> list[float]:
    """Each seat's value in VP (see the module docstring). Reads only `obs`."""
    me = obs["seat"]
    steps = law_steps_left(obs)
    plays = plays_left(obs)
    later = (obs["seasons"] - obs["season"]) * obs["rounds"]  # plays of later seasons
    stacks = obs["law_stacks"]
    bonus = {c: float(v["bonus"]) for c, v in obs["values"].items()}
    values = []
    for board in obs["boards"]:
        value = float(board["vp"])
        if not steps:
            values.append(value)
            continue
        held, laws = board["points"], board["laws"]
        points: dict[str, float] = {c: float(n) for c, n in held.items()}
        unseen = later
        if board["seat"] == me and board["hand"] is not None:
            spaces = {c: v["space"] for c, v in obs["values"].items()}
            visible, own = visible_colours(cards, [b["exposed"] for b in obs["boards"]], me)
            ranked = sorted(((*theme_value(cards, c, spaces, visible, own,
                                           held[cards.theme(c).colour], w)[::-1], c)
                             for c in board["hand"]), reverse=True)
            for _, score, card in ranked[:plays]:  # this season's plays, in their colour
                points[cards.theme(card).colour] += w.hand * max(0.0, score)
            if later:  # kept for later seasons, each instead of a card dealt (limit 8)
                average = (average_card_value(cards, w)
                           + w.focus * sum(held.values()) / len(held))
                value += w.hand_extra * POINT_VP * sum(worth - average
                                                       for worth, _, _ in ranked[plays:])
        else:
            unseen += min(board["hand_size"], plays)
        # where its later points should go: the colours it has put points into
        progress = {c: held[c] + sum(LAW_COSTS[:laws[c]]) + w.prior for c in held}
        total = sum(progress.values())
        for colour, share in progress.items():
            points[colour] += (w.hand * unseen * share / total
                               * max(0.0, w.average_card + w.track * bonus[colour]))
        value += w.bank * expected_gain(points, laws, stacks, cards, steps, w)
        values.append(value)
    return values


def score_observation(obs: JSON, seat: int, cards: Any, w: Weights = WEIGHTS) -> float:
    """How good the observed position is for `seat` (higher is better)."""
    result = obs.get("result")
    if result is not None:
        vp = [float(s["vp"]) + 0.01 * s["best_colour_vp"] for s in result["scores"]]
        return seat_score(vp, seat, result, w)
    return relative_score(seat_values(obs, cards, w), seat, w)


# ---------------------------------------------------------------------------------------
# The quick policy (on a determinized copy: it reads the seat's own hand, the public rest)
# ---------------------------------------------------------------------------------------
def card_worth(st: Any, seat: int, card: str, w: Weights = WEIGHTS) -> float:
    """`theme_value`'s worth of a card for `seat`, read from a state."""
    cards = st.cards
    visible, own = visible_colours(cards, [p["exposed"] for p in st.players], seat)
    points = st.players[seat]["points"][cards.theme(card).colour]
    return theme_value(cards, card, st.values, visible, own, points, w)[1]


def quick_decision(st: Any, seat: int, w: Weights = WEIGHTS) -> Decision:
    """A fast, sensible decision for `seat` (see the module docstring)."""
    legal: list[Decision] = st.legal_decisions(seat)
    kind = st.step["k"]
    if len(legal) == 1:
        return legal[0]
    if kind == "choose":
        plays = [d for d in legal if d.verb == "play"]
        return max(plays, key=lambda d: card_worth(st, seat, d.args[0], w))
    if kind == "ability":
        points = st.players[seat]["points"]
        up = Decision("shift", (max(st.colours, key=lambda c: points[c]), "up"))
        return up if up in legal else Decision("pass")
    if kind == "laws":
        cards = st.cards
        laws = [d for d in legal if d.verb == "law"]
        return max(laws, key=lambda d: cards.law_vp(d.args[0], int(d.args[1]))
                   - cards.law_vp(d.args[0], int(d.args[1]) - 1))
    discards = [d for d in legal if d.verb == "discard"]
    if discards and (st.players[seat]["drawn"] or Decision("draw") in legal):
        return min(discards, key=lambda d: card_worth(st, seat, d.args[0], w))
    return legal[-1]


def play_until(st: Any, done: Callable[[Any], bool], w: Weights = WEIGHTS) -> None:
    """Every seat plays the quick policy until `done(st)` or the end of the game."""
    while not st.is_over and not done(st):
        seat = st.to_move()[0]
        st.apply_unchecked(seat, quick_decision(st, seat, w))


# ---------------------------------------------------------------------------------------
# The bot
# ---------------------------------------------------------------------------------------
class LegesGreedyBot(GreedySearchBot[Weights]):
    """Search over determinized copies for the secret choices, the quick policy for the
    rest (see the module docstring)."""

    default_weights = WEIGHTS

    def decide(self, state: GameState, seat: int, legal: list[Decision]) -> Decision:
        seed = self.rng.getrandbits(62)  # drawn at every decision: one stream of seeds
        if len(legal) == 1:
            return legal[0]
        if state.observation(seat)["asked"]["step"] not in SEARCHED:
            return quick_decision(self.copy(state, seat, seed), seat, self.weights)
        bases = determinizations(state, seat, seed, self.weights.samples, self.copy)
        season = bases[0].season
        return one_ply(legal, bases, lambda base, d: self.value(base, seat, d, season),
                       self.rng)

    @staticmethod
    def copy(state: GameState, seat: int, seed: int) -> Any:
        """`state.determinize(seat, seed)` with the other seats' pending secret choices
        (drawn at random by the determinization) erased: the quick policy makes them."""
        copy: Any = state.determinize(seat, seed)
        if copy.step["k"] in SEARCHED:
            field = "choice" if copy.step["k"] == "choose" else "request"
            for other, player in enumerate(copy.players):
                if other != seat:
                    player[field] = None
            copy.advance()
        return copy

    def value(self, base: Any, seat: int, decision: Decision, season: int) -> float:
        """The score after `decision` and quick play to the end of the season."""
        child = after(base, seat, decision)
        play_until(child, lambda st: st.season != season, self.weights)
        return score_observation(child.observation(seat), seat, child.cards, self.weights)


__all__ = ["LegesGreedyBot", "SEARCHED", "WEIGHTS", "Weights", "expected_gain",
           "quick_decision", "score_observation", "seat_values", "theme_value"]


def _register() -> None:
    from bots import register_bot
    register_bot("greedy", LegesGreedyBot, games=("leges",),
                 description="Leges: search on determinized copies for the secret choices")


_register()
