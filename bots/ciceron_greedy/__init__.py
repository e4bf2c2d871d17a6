"""The Cicéron greedy bot: a short search on determinized copies, scored from the observation.

For each legal decision the bot applies it to a copy of `state.determinize(seat, seed)`
(never to the real state), lets itself finish what that decision starts (the bot's own
follow-up decisions: the choice of an upper spot after placing there, the senators to
recruit after a Senate spot, a legion's reward; each one greedy, at most `Weights.depth`
of them), and scores the position that follows from what `seat` may see
(`observation(seat)`) with the heuristic of `family_values`. The best score wins; ties go
to the bot's own seeded RNG. A Senate spot, whose value hangs on the senators drawn, is
averaged over `Weights.senate_samples` determinizations. A senator may be discarded
where it makes room at a Senate spot; elsewhere the bot never considers discarding
(`candidates`). The search is `bots.search.one_ply`; this module is its Cicéron evaluator.

The Princeps vote is secret and simultaneous (rulings C1, C5): the bot decides it from
public information only (each family's election votes, the prestige standings), against
ballots it samples itself (each other family votes for itself with probability
`Weights.self_vote`, else for anyone), and picks the candidate whose election is best for
it on average (`vote_choice`).

The heuristic (`family_values`, in prestige points): a family's prestige, plus what its
position should bring in the prestige phases left (this turn's fully, each later one at
`Weights.future`): the Primus (6) and Secundus (3) it holds or would take with
its senators' votes now, the guild majorities (3), its senators' prestige whose
requirements its cénacle meets (a little when one symbol is missing); plus its resources
while servants are still to be placed: influence, action cards in hand, the X of its
senators' influence, free places in the cénacle, income cards; plus the Princeps (who
places first and settles ties) or the election-vote lead that should make it Princeps;
minus the tribute it still owes Cicéron this turn (its cheapest way: 2 influences, a
senator or 10 PP), and again if the Triumvirat demand may be unmet. The bot scores
`own - opp_max * best other - opp_mean * mean other`, plus `win` for a won game.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from bots.search import (
    GreedySearchBot,
    after,
    determinizations,
    one_ply,
    relative_score,
    seat_score,
)
from games.ciceron.cardset import CASTES
from games.core import JSON, Decision, GameState

PRIMUS_PP, SECUNDUS_PP, GUILD_PP, DISGRACE_PP = 6.0, 3.0, 3.0, 10.0
#: Phases before the end of the turn's servant placement (resources still count).
EARLY_PHASES = ("draft", "start", "ciceron", "servants")


@dataclass(frozen=True)
class Weights:
    """The heuristic's coefficients, in prestige points (PP)."""

    #: weight of each later turn's recurring income (this turn's counts 1)
    future: float = 0.6
    #: per influence point while servants are still to be placed (up to `influence_cap`
    #: in a caste; above it, `influence_over`)
    influence: float = 0.55
    influence_cap: int = 7
    influence_over: float = 0.15
    #: per action card in hand while servants are still to be placed
    card: float = 0.8
    #: per point of a senator's caste influence (the X of an upper spot), per placement
    #: phase left
    x_influence: float = 0.15
    #: per free place in the cénacle while servants are still to be placed
    free_place: float = 0.5
    #: a senator's prestige when its requirement misses one symbol (fraction)
    near_requirement: float = 0.3
    #: the Princeps, before the servants are placed (first spot, ties); after, ties only
    princeps: float = 3.0
    princeps_late: float = 0.5
    #: per later election, to the family leading the election votes
    election_lead: float = 0.8
    #: per Senate vote (election strength, tie-breaks)
    vote: float = 0.15
    #: a guild power chosen (instead of 3 PP), by guild; 0 in the last turn
    power: dict[str, float] = field(default_factory=lambda: {
        "artisans": 1.0, "assassins": 1.5, "diplomats": 1.5, "traders": 1.8,
        "priests": 2.0, "strategists": 1.5})
    #: a permanent extra recruit, per placement phase left (an income card counts its
    #: influence at `influence` per phase II left)
    extra_recruit: float = 0.5
    #: a senator given up for the tribute: base + per vote + per prestige point
    senator_base: float = 3.0
    senator_vote: float = 1.0
    #: influence is still worth this much after the last placement (the tribute)
    influence_floor: float = 0.15
    #: opponents' values against ours: the best one and the mean
    opp_max: float = 0.5
    opp_mean: float = 0.5
    #: a finished game won (shared wins split it)
    win: float = 1000.0
    #: how many of its own follow-up decisions the bot plays out after a decision
    depth: int = 3
    #: determinizations averaged for a Senate spot
    senate_samples: int = 2
    #: the ballots the bot imagines: another family votes for itself with this
    #: probability, else for a family drawn at random; this many samples
    self_vote: float = 0.6
    vote_samples: int = 64


WEIGHTS = Weights()


# ---------------------------------------------------------------------------------------
# Reading the observation
# ---------------------------------------------------------------------------------------
def _card_set(state: GameState) -> Any:
    cards = getattr(state, "cards", None)
    if cards is None:
        from games import get_game
        cards = get_game("ciceron").cards  # type: ignore[attr-defined]
    return cards


def caste_votes(cards: Any, board: JSON) -> dict[str, int]:
    """A family's Senate votes per caste, bribes included (phase VI majorities)."""
    votes = dict.fromkeys(CASTES, 0)
    for sid in board["senators"]:
        senator = cards.senator(sid)
        votes[senator.caste] += senator.votes + sum(
            cards.action(c).effect.votes for c in board["attached"].get(sid, ())
            if cards.action(c).effect.kind == "bribe")
    return votes


def guild_symbols(cards: Any, board: JSON) -> dict[str, int]:
    """A family's guild symbols, patronage included."""
    symbols: dict[str, int] = {}
    for sid in board["senators"]:
        for guild, count in cards.senator(sid).guilds.items():
            symbols[guild] = symbols.get(guild, 0) + count
        for card_id in board["attached"].get(sid, ()):
            effect = cards.action(card_id).effect
            if effect.kind == "patronage":
                symbols[effect.guild] = symbols.get(effect.guild, 0) + effect.count
    return symbols


def permanent_total(cards: Any, board: JSON, kind: str, caste: str = "") -> int:
    """The sum of an effect kind over the family's permanent cards and turn effects."""
    total = 0
    for card_id in board["permanents"]:
        effect = cards.action(card_id).effect
        if effect.kind == kind and (not caste or effect.caste == caste):
            total += effect.amount
    for entry in board["turn_effects"]:
        if entry.get("kind") == kind and (not caste or entry.get("caste") == caste):
            total += entry.get("amount", 0)
    return total


def election_votes(cards: Any, obs: JSON) -> list[int]:
    """Each family's votes at the Princeps election (the Automatii's 5 included)."""
    boards = obs["boards"]
    totals = [b["senate_votes"] + permanent_total(cards, b, "votes") for b in boards]
    if obs["num_seats"] == 2:
        a, b = (board["prestige"] for board in boards)
        helped = (0 if a < b else 1) if a != b else 1 - (obs["princeps"] or 0)
        totals[helped] += 5
    return totals


def _shares(values: dict[int, float], princeps: int | None) -> dict[int, float]:
    """Who takes a majority card among the qualified (value >= 1): the most; a tie goes
    to the Princeps when tied (C9), else is split evenly."""
    qualified = {s: v for s, v in values.items() if v >= 1}
    if not qualified:
        return {}
    best = max(qualified.values())
    tied = [s for s, v in qualified.items() if v == best]
    if len(tied) == 1:
        return {tied[0]: 1.0}
    if princeps in tied:
        return {princeps: 1.0}
    return {s: 1.0 / len(tied) for s in tied}


def _majority_shares(votes: list[dict[str, int]], caste: str,
                     princeps: int | None) -> tuple[dict[int, float], dict[int, float]]:
    """Expected shares of a caste's Primus and Secundus from the votes now."""
    values = {s: float(v[caste]) for s, v in enumerate(votes)}
    primus = _shares(values, princeps)
    secundus: dict[int, float] = {}
    for holder, share in primus.items():
        rest = {s: v for s, v in values.items() if s != holder}
        for s, part in _shares(rest, princeps).items():
            secundus[s] = secundus.get(s, 0.0) + share * part
    return primus, secundus


def _unsettled(obs: JSON) -> set[str] | None:
    """The majority cards of this turn still to be settled (None: all of them)."""
    if obs["phase"] != "majorities":
        return None
    for step in [obs.get("asked") or {}, *obs.get("agenda", [])]:
        if step.get("step") == "majorities":
            return set(step.get("left", []))
    return set()


def _tribute_cost(cards: Any, obs: JSON, board: JSON, inf_value: float,
                  w: Weights) -> float:
    """The cheapest way for a family to pay this turn's tribute, in PP."""
    plea = cards.ciceron_card(obs["ciceron"])
    influence = board["influence"]
    costs = [DISGRACE_PP]
    symbols = list(plea.influences)
    for i in range(4):
        for j in range(i + 1, 4):
            a, b = symbols[i], symbols[j]
            need = {a: 1} if a != b else {a: 2}
            if a != b:
                need[b] = 1
            if all(influence[c] >= k for c, k in need.items()):
                costs.append(2 * inf_value)
    for sid in board["senators"]:
        senator = cards.senator(sid)
        if senator.caste in plea.castes:
            costs.append(w.senator_base + w.senator_vote * senator.votes + senator.prestige)
    return min(costs)


def _unmet_chance(cards: Any, obs: JSON) -> float:
    """The chance that the Triumvirat card drawn this turn is unmet (legions now)."""
    demands = [cards.triumvirat_card(t) for t in obs["triumvirat"]]
    if not demands:
        return 0.0
    deployed = sum(obs["legions"].values())
    unmet = [d for d in demands if deployed < d.legions
             or (d.province and obs["legions"].get(d.province, 0) == 0)]
    return len(unmet) / len(demands)


def _effect_value(effect: Any, inf_value: float, card_value: float) -> float:
    """A one-off effect's worth to the family that gets it (end-of-turn cards)."""
    if effect.kind == "prestige":
        return float(effect.amount)
    if effect.kind == "influence":
        return float(effect.amount * inf_value)
    if effect.kind == "draw":
        return float(effect.count * card_value)
    if effect.kind == "tax":
        return float(effect.amount * inf_value * 0.5)
    return 0.0


def family_values(obs: JSON, cards: Any, w: Weights = WEIGHTS) -> list[float]:
    """Each family's value in PP (see the module docstring). Reads only `obs`."""
    boards = obs["boards"]
    n = len(boards)
    values = [float(b["prestige"]) for b in boards]
    if obs.get("result") is not None:
        return values
    turn, turns, phase = obs["turn"], obs["turns"], obs["phase"]
    left = turns - max(turn, 1) + 1  # prestige phases left, this turn's included
    later = w.future * (left - 1)  # weight of the later turns
    early = phase in EARLY_PHASES
    placements = left if early else left - 1  # placement phases left
    inf_value = w.influence if placements > 0 else w.influence_floor
    over_value = w.influence_over if placements > 0 else w.influence_floor
    card_value = w.card if placements > 0 else 0.0
    princeps = obs["princeps"]
    names = obs["families"]
    index = {name: s for s, name in enumerate(names)}

    votes = [caste_votes(cards, b) for b in boards]
    symbols = [guild_symbols(cards, b) for b in boards]
    unsettled = _unsettled(obs)

    # caste majorities: this turn's (settled ones as awarded), and later turns'
    for caste in CASTES:
        primus, secundus = _majority_shares(votes, caste, princeps)
        for s, share in primus.items():
            values[s] += PRIMUS_PP * share * later
        for s, share in secundus.items():
            values[s] += SECUNDUS_PP * share * later
        for kind, shares, pp in (("primus", primus, PRIMUS_PP),
                                 ("secundus", secundus, SECUNDUS_PP)):
            if unsettled is None or f"{kind}-{caste}" in unsettled:
                for s, share in shares.items():
                    values[s] += pp * share
            elif (holder := index.get(obs[kind][caste])) is not None:
                values[holder] += pp

    # guild majorities
    for guild, held in obs["guilds"].items():
        shares = _shares({s: float(symbols[s].get(guild, 0)) for s in range(n)}, princeps)
        for s, share in shares.items():
            values[s] += GUILD_PP * share * later
        if unsettled is None or f"guild-{guild}" in unsettled:
            for s, share in shares.items():
                values[s] += GUILD_PP * share
        elif (holder := index.get(held["holder"])) is not None:
            if held["choice"] == "prestige":
                values[holder] += GUILD_PP
            elif held["choice"] == "power":
                values[holder] += w.power.get(guild, 1.0) if turn < turns else 0.0
            else:  # the holder is about to choose
                values[holder] += GUILD_PP

    for s, board in enumerate(boards):
        # senators' prestige, their X, the cénacle
        total_x = 0
        for sid in board["senators"]:
            senator = cards.senator(sid)
            total_x += sum(senator.influences.values())
            if senator.prestige:
                missing = sum(max(0, k - symbols[s].get(g, 0))
                              for g, k in senator.requires.items())
                if missing == 0:
                    values[s] += senator.prestige * (1 + later)
                elif missing == 1:
                    values[s] += w.near_requirement * senator.prestige * (1 + later)
        values[s] += w.vote * board["senate_votes"]
        if placements > 0:
            values[s] += w.x_influence * total_x * placements
            free = board["cenacle_limit"] - len(board["senators"])
            values[s] += w.free_place * max(0, free)
            values[s] += card_value * sum(board["hand_by_caste"].values())
            incomes = left - (0 if phase in ("draft", "start") else 1)  # phases II left
            values[s] += inf_value * incomes * sum(
                cards.action(c).effect.amount for c in board["permanents"]
                if cards.action(c).effect.kind == "income")
            recruits = sum(cards.action(c).effect.kind == "extra_recruit"
                           for c in board["permanents"])
            values[s] += w.extra_recruit * recruits * placements
        # influence
        for caste in CASTES:
            level = board["influence"][caste]
            values[s] += inf_value * min(level, w.influence_cap) + over_value * max(
                0, level - w.influence_cap)
        # end-of-turn cards waiting, guild powers waiting for next turn
        for entry in board["turn_effects"]:
            if "card" in entry:
                values[s] += _effect_value(cards.action(entry["card"]).effect, inf_value,
                                           card_value)
        values[s] += sum(w.power.get(g, 1.0) for g in board["guild_powers"])
        # the tribute still owed this turn, and again if the Triumvirat is unmet
        exempt = any(e.get("kind") == "tribute_exempt" for e in board["turn_effects"])
        if obs["ciceron"] and not exempt and phase in ("ciceron", "servants", "tribute"):
            cost = _tribute_cost(cards, obs, board, inf_value, w)
            owed = (0.0 if board["tribute"] else 1.0) + _unmet_chance(cards, obs)
            values[s] -= cost * owed

    # the Princeps: who places first and settles ties
    asked_steps = [obs.get("asked") or {}, *obs.get("agenda", [])]
    election_pending = any(step.get("step") in ("election", "elect") for step in asked_steps)
    elect_votes = election_votes(cards, obs)
    if turn == 0:  # the first Princeps: most Senate votes, then Orator votes, then seat
        first = max(range(n), key=lambda s: (boards[s]["senate_votes"],
                                              votes[s]["orator"], s))
        values[first] += w.princeps
    elif election_pending:
        for s, share in _shares({s: float(v) for s, v in enumerate(elect_votes)},
                                princeps).items():
            values[s] += w.princeps * share
    elif princeps is not None:
        values[princeps] += w.princeps if phase in ("start", "ciceron", "servants") \
            else w.princeps_late
    elections_left = left - 1
    if elections_left > 0:
        for s, share in _shares({s: float(v) for s, v in enumerate(elect_votes)},
                                None).items():
            values[s] += w.election_lead * elections_left * share
    return values


def score_observation(obs: JSON, seat: int, cards: Any, w: Weights = WEIGHTS) -> float:
    """How good the observed position is for `seat` (higher is better)."""
    return seat_score(family_values(obs, cards, w), seat, obs.get("result"), w)


# ---------------------------------------------------------------------------------------
# The Princeps vote
# ---------------------------------------------------------------------------------------
def vote_choice(obs: JSON, seat: int, cards: Any, rng: random.Random,
                w: Weights = WEIGHTS) -> str:
    """The family to vote for, from public information and ballots the bot imagines.

    Each other family's ballot is sampled (for itself with probability `w.self_vote`,
    else uniformly); the Princeps of each sample is the family with the most votes, a
    tie settled by the outgoing Princeps (for itself when tied, else, if it is this
    seat, for the candidate best for it, else at random). Each candidate is scored by the
    mean value for `seat` of the Princeps its ballot elects.
    """
    names: list[str] = obs["families"]
    n = len(names)
    votes = election_votes(cards, obs)
    base = family_values(obs, cards, w)
    outcome = []
    for winner in range(n):
        values = list(base)
        values[winner] += w.princeps
        outcome.append(relative_score(values, seat, w))
    outgoing = obs["princeps"]
    ballots = [[s if rng.random() < w.self_vote else rng.randrange(n) for s in range(n)]
               for _ in range(w.vote_samples)]
    best_name, best_value = names[seat], float("-inf")
    for candidate in [seat, *(s for s in range(n) if s != seat)]:
        total = 0.0
        for ballot in ballots:
            totals = [0] * n
            for s in range(n):
                totals[candidate if s == seat else ballot[s]] += votes[s]
            top = max(totals)
            tied = [s for s in range(n) if totals[s] == top]
            if len(tied) == 1:
                total += outcome[tied[0]]
            elif outgoing in tied:
                total += outcome[outgoing]
            elif outgoing == seat:
                total += max(outcome[s] for s in tied)
            else:
                total += sum(outcome[s] for s in tied) / len(tied)
        if total > best_value + 1e-9:
            best_name, best_value = names[candidate], total
    return best_name


# ---------------------------------------------------------------------------------------
# The bot
# ---------------------------------------------------------------------------------------
def _is_senate(decision: Decision) -> bool:
    return decision.verb == "place" and decision.args[0].startswith("senate-")


class CiceronGreedyBot(GreedySearchBot[Weights]):
    """Greedy search over determinized copies for Cicéron (see the module docstring)."""

    default_weights = WEIGHTS

    def decide(self, state: GameState, seat: int, legal: list[Decision]) -> Decision:
        if len(legal) == 1:
            return legal[0]
        cards = _card_set(state)
        obs = state.observation(seat)
        if any(d.verb == "vote" for d in legal):
            name = vote_choice(obs, seat, cards, self.rng, self.weights)
            return next((d for d in legal if d.verb == "vote" and d.args == (name,)),
                        legal[0])
        legal = candidates(obs, legal)
        if len(legal) == 1:
            return legal[0]
        seed = self.rng.getrandbits(62)
        samples = self.weights.senate_samples if any(map(_is_senate, legal)) else 1
        bases = determinizations(state, seat, seed, samples, determinized)
        return one_ply(legal, bases, lambda base, d: self._value(base, seat, d, cards),
                       self.rng, averaged=_is_senate)

    def _value(self, base: GameState, seat: int, decision: Decision, cards: Any) -> float:
        """The score after `decision` and the bot's own follow-up decisions."""
        child = after(base, seat, decision)
        obs = child.observation(seat)
        for _ in range(self.weights.depth):
            if not _mine(obs, seat):
                break
            options = candidates(obs, child.legal_decisions(seat))
            if len(options) == 1:
                child.apply_unchecked(seat, options[0])
                obs = child.observation(seat)
                continue
            scored = []
            for option in options:
                grandchild = after(child, seat, option)
                seen = grandchild.observation(seat)
                scored.append((score_observation(seen, seat, cards, self.weights),
                               grandchild, seen))
            _, child, obs = max(scored, key=lambda entry: entry[0])
        return score_observation(obs, seat, cards, self.weights)


def _mine(obs: JSON, seat: int) -> bool:
    """Whether the next decision is this seat's alone (not a secret vote)."""
    asked = obs.get("asked") or {}
    return obs["to_move"] == [seat] and asked.get("step") != "election"


def candidates(obs: JSON, legal: list[Decision]) -> list[Decision]:
    """The decisions worth searching: a senator may be discarded at any decision (the
    book: "at any time"), but the bot considers it only where it may pay, to make room
    in its cénacle at a Senate spot; and of course when there is nothing else."""
    kept = [d for d in legal if d.verb != "discard"]
    if not kept:
        return legal
    asked = obs.get("asked") or {}
    if asked.get("step") == "recruit" and asked.get("seat") == obs["seat"]:
        board = obs["boards"][obs["seat"]]
        if len(board["senators"]) >= board["cenacle_limit"] and board["drawn"]:
            return legal
    return kept


def determinized(state: GameState, seat: int, seed: int) -> GameState:
    """`state.determinize(seat, seed)`, with the Cicéron deck's order drawn from `seed`.

    The engine's `determinize` shuffles the Cicéron deck from its real order without
    sorting it first, so the copy's order would depend on the real one (hidden); the bot
    puts it in a canonical order and shuffles it again, so that nothing it searches on
    depends on hidden information.
    """
    copy = state.determinize(seat, seed)
    deck = getattr(copy, "ciceron_deck", None)
    if isinstance(deck, list):
        deck.sort()
        random.Random(seed).shuffle(deck)
    return copy


__all__ = ["CiceronGreedyBot", "WEIGHTS", "Weights", "determinized", "family_values",
           "score_observation", "vote_choice"]


def _register() -> None:
    from bots import register_bot
    register_bot("greedy", CiceronGreedyBot, games=("ciceron",),
                 description="Cicéron: greedy search on determinized copies")


_register()
