"""The greedy bot: a one-ply search on a determinized copy, scored from the observation.

For each legal decision the bot applies it to a copy of `state.determinize(seat, seed)`
(never to the real state) and scores the position that follows from what `seat` may see
(`observation(seat)`), with a Municipium heuristic (`score_observation`). The best score
wins; ties are broken by the bot's own seeded RNG. The search is `bots.search.one_ply`;
this module is its Municipium evaluator.

Drawing the top common card (`play common`) is the one decision whose outcome depends on
hidden information, the deck order. Its value is the expectation over the card kinds the
deck may still hold, weighted by their public counts (the rule book's 12 cards minus the
discard pile). Each kind is scored on a determinization that happens to put it on top,
and the heuristic ignores what the determinized draws of the bag produce (the colour of a
refilled meeting-room citizen, a citizen waiting to be placed), so the choice depends on
public information and the bot's seed only, not on the real deck order or bag.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bots.search import GreedySearchBot, after, one_ply, seat_score
from games.core import JSON, Decision, GameState, derive_seed

#: The common deck of the rule book (001 §1.0): public knowledge.
COMMON_DECK = {"all-powers": 1, "one-power": 2, "praefect-visit": 5, "citizen-visit": 4}
#: The Praefect's route between meeting rooms, clockwise (ruling M2).
PRAEFECT_ROUTE = ("tavern", "baths", "emporium", "basilica", "forum", "praetorium")
COLOURS = ("priest", "militia", "merchant", "advocate")
#: How many determinizations at most to find every card kind the deck may hold on top.
MAX_COMMON_TRIES = 200

PLAY_COMMON = Decision("play", ("common",))


@dataclass(frozen=True)
class Weights:
    """The heuristic's coefficients (points; a Decurion is worth `decurion`)."""

    decurion: float = 1000.0
    #: per step toward the next set: distinct colours held plus Favours (wild), at most 3
    progress: float = 180.0
    #: per citizen or Favour held (tie-break, Basilica exchanges)
    token: float = 50.0
    #: extra per Favour (wild, and the classic tie-break)
    favour: float = 15.0
    #: per unused family card
    family_card: float = 40.0
    #: holding the majority of an Institution: its power, by name
    power: dict[str, float] = field(default_factory=lambda: {
        "temple": 10.0, "tavern": 15.0, "baths": 25.0, "emporium": 20.0,
        "basilica": 60.0, "forum": 45.0, "praetorium": 15.0})
    #: per citizen waiting in an Institution, for its majority / second family
    event_major: float = 40.0
    event_second: float = 15.0
    #: per point of lead over the second family (up to 2)
    lead: float = 8.0
    #: the Favour / citizen of the next meeting room, for its majority / second family
    room_favour: float = 130.0
    room_citizen: float = 50.0
    #: factor for the meeting room after the next one
    praefect_decay: float = 0.35
    #: per place above the bottom of the Temple order (tie-breaks)
    temple: float = 4.0
    #: a pending power decision of one's own: Basilica with 3 tokens, Basilica, Forum
    basilica_exchange: float = 700.0
    basilica_draw: float = 80.0
    forum_take: float = 150.0
    #: how much the best opponent's and the average opponent's values count against ours
    opp_max: float = 0.5
    opp_mean: float = 0.5
    #: a finished game won (shared wins split it)
    win: float = 1e6


WEIGHTS = Weights()


def score_observation(obs: JSON, seat: int, w: Weights = WEIGHTS) -> float:
    """How good the observed Municipium position is for `seat` (higher is better).

    Reads only the observation, and never the colours the bag produced where no family
    holds them yet (meeting-room citizens count by presence, pending placements not at all).
    """
    return seat_score(family_values(obs, w), seat, obs.get("result"), w)


def family_values(obs: JSON, w: Weights = WEIGHTS) -> list[float]:
    """Each family's value: its supply, its majorities, what the Praefect will bring."""
    families = obs["families"]
    values = [_supply_value(supply, w) for supply in obs["supplies"]]
    _add_board_values(obs, families, values, w)
    _add_pending_value(obs, values, w)
    return values


def _supply_value(supply: JSON, w: Weights) -> float:
    citizens: dict[str, int] = supply["citizens"]
    favours: int = supply["favours"]
    decurions: int = supply["decurions"]
    distinct = sum(1 for colour in COLOURS if citizens.get(colour))
    tokens = sum(citizens.values()) + favours
    return (w.decurion * decurions + w.progress * min(3, distinct + favours)
            + w.token * tokens + w.favour * favours
            + w.family_card * len(supply["family_cards"]))


def _praefect_distance(obs: JSON) -> dict[str, int]:
    """Meeting room -> how many Praefect moves until it is visited (1 = next)."""
    here = obs["praefect"]
    start = PRAEFECT_ROUTE.index(here) if here in PRAEFECT_ROUTE else -1
    return {PRAEFECT_ROUTE[(start + k) % len(PRAEFECT_ROUTE)]: k
            for k in range(1, len(PRAEFECT_ROUTE) + 1)}


def _add_board_values(obs: JSON, families: list[str], values: list[float],
                      w: Weights) -> None:
    n = len(families)
    index = {name: f for f, name in enumerate(families)}
    temple_pos = {index[name]: p for p, name in enumerate(obs["temple_order"])}
    for f, p in temple_pos.items():
        values[f] += w.temple * (n - p)
    distance = _praefect_distance(obs)
    for inst in obs["institutions"]:
        present = sorted((-(plain + 2 * wreathed), temple_pos.get(index[name], n), index[name])
                         for name, (plain, wreathed) in inst["members"].items()
                         if plain or wreathed)
        if not present:
            continue
        first = present[0][2]
        second = present[1][2] if len(present) > 1 else None
        waiting = len(inst["citizens"])
        lead = -present[0][0] + (present[1][0] if second is not None else 0)
        values[first] += (w.power.get(inst["name"], 0.0) + w.event_major * waiting
                          + w.lead * min(lead, 2))
        if second is not None:
            values[second] += w.event_second * waiting
        steps = distance.get(inst["name"], 0)
        if 1 <= steps <= 2:
            factor = 1.0 if steps == 1 else w.praefect_decay
            if inst["room_favour"]:
                values[first] += w.room_favour * factor
            if inst["room_citizen"] is not None and second is not None:
                values[second] += w.room_citizen * factor


def _add_pending_value(obs: JSON, values: list[float], w: Weights) -> None:
    """A power one is about to use is worth something before its decision is taken."""
    asked = obs.get("asked")
    if not asked:
        return
    seat = asked.get("seat")
    if not isinstance(seat, int) or not 0 <= seat < len(values):
        return
    if asked["step"] == "basilica":
        supply = obs["supplies"][seat]
        tokens = sum(supply["citizens"].values()) + supply["favours"]
        values[seat] += w.basilica_exchange if tokens >= 3 else w.basilica_draw
    elif asked["step"] == "forum":
        values[seat] += w.forum_take


def remaining_common_cards(obs: JSON) -> Counter[str] | None:
    """The kinds of card the common deck holds, by count, from public information.

    None if the observation does not fit the rule book's deck (then the bot samples).
    """
    deck_size, discard = obs.get("deck_size"), Counter(obs.get("discard") or [])
    if not isinstance(deck_size, int):
        return None
    if deck_size == 0:  # the discard pile is about to become the deck (M9)
        return discard or None
    remaining = Counter(COMMON_DECK)
    remaining.subtract(discard)
    if any(count < 0 for count in remaining.values()) or sum(remaining.values()) != deck_size:
        return None
    return +remaining


class GreedyBot(GreedySearchBot[Weights]):
    """One-ply greedy search over determinized copies (see the module docstring)."""

    default_weights = WEIGHTS

    def decide(self, state: GameState, seat: int, legal: list[Decision]) -> Decision:
        if len(legal) == 1:
            return legal[0]
        seed = self.rng.getrandbits(62)

        def value(base: GameState, decision: Decision) -> float:
            if decision == PLAY_COMMON:
                return self._common_card_value(state, seat, seed)
            child = after(base, seat, decision, checked=True)
            return score_observation(child.observation(seat), seat, self.weights)

        return one_ply(legal, [state.determinize(seat, seed)], value, self.rng)

    def _common_card_value(self, state: GameState, seat: int, seed: int) -> float:
        """Expected score of drawing the top common card, over the kinds it may be."""
        counts = remaining_common_cards(state.observation(seat))
        by_kind: dict[Any, float] = {}
        samples: list[float] = []
        for attempt in range(MAX_COMMON_TRIES):
            if counts is not None and all(kind in by_kind for kind in counts):
                break
            if counts is None and attempt >= 8:
                break
            copy = state.determinize(seat, derive_seed(seed, "common", attempt))
            events = copy.apply(seat, PLAY_COMMON)
            kind = next((e.data.get("card") for e in events if e.kind == "play"), None)
            if counts is None or kind not in by_kind:
                score = score_observation(copy.observation(seat), seat, self.weights)
                by_kind.setdefault(kind, score)
                samples.append(score)
        if counts is None:
            return sum(samples) / len(samples)
        found = [(counts[kind], value) for kind, value in by_kind.items() if kind in counts]
        total = sum(count for count, _ in found)
        if not total:
            return sum(samples) / len(samples)
        return sum(count * value for count, value in found) / total


__all__ = ["GreedyBot", "Weights", "WEIGHTS", "family_values", "remaining_common_cards",
           "score_observation"]


def _register() -> None:
    from bots import register_bot
    register_bot("greedy", GreedyBot, games=("municipium",),
                 description="one-ply search on determinized copies, Municipium heuristic")


_register()
