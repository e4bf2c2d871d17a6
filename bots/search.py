"""The search the greedy bots share: one determinized one-ply search, a game's evaluator in.

In the manner of OpenSpiel (one search, each game's evaluator passed in), each greedy bot
(`bots/greedy_bot`, `bots/ciceron_greedy`, `bots/leges_greedy`) is a `GreedySearchBot`
that says how one decision scores on a copy of the state; `one_ply` does the rest. The
copies come from `state.determinize(seat, seed)` (`determinizations`), never from the real
state. A decision's score is the mean of its values over the copies (or the first copy
only, where the bot says so); the best score wins, scores within `TIE` of it tie, and ties
go to the bot's own seeded RNG.

`relative_score` and `seat_score` are the score the three heuristics share: a seat's value
against the best and the mean of the others', plus a share of `win` for a won game.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from games.core import JSON, Decision, GameState, derive_seed

#: Scores within this of the best tie with it.
TIE = 1e-9

#: A decision's value on one determinized copy: value(copy, decision), higher is better.
Value = Callable[[Any, Decision], float]
#: How a bot makes one copy: determinize(state, seat, seed).
Determinize = Callable[[GameState, int, int], Any]

W = TypeVar("W")


class ScoreWeights(Protocol):
    """The coefficients `relative_score` and `seat_score` read from a bot's weights."""

    @property
    def opp_max(self) -> float: ...

    @property
    def opp_mean(self) -> float: ...

    @property
    def win(self) -> float: ...


def _determinize(state: GameState, seat: int, seed: int) -> GameState:
    return state.determinize(seat, seed)


def determinizations(state: GameState, seat: int, seed: int, count: int,
                     determinize: Determinize = _determinize) -> list[Any]:
    """`count` copies of `state` for `seat`, the k-th from `derive_seed(seed, k)`."""
    return [determinize(state, seat, derive_seed(seed, k)) for k in range(count)]


def after(base: Any, seat: int, decision: Decision, *, checked: bool = False) -> Any:
    """A clone of `base` with `decision` applied (validated if `checked`)."""
    child = base.clone()
    if checked:
        child.apply(seat, decision)
    else:
        child.apply_unchecked(seat, decision)
    return child


def best_decisions(legal: Sequence[Decision],
                   score: Callable[[Decision], float]) -> list[Decision]:
    """The decisions of `legal` (in order) whose score ties with the best one's."""
    best: list[Decision] = []
    best_score = float("-inf")
    for decision in legal:
        value = score(decision)
        if value > best_score + TIE:
            best, best_score = [decision], value
        elif value >= best_score - TIE:
            best.append(decision)
    return best


def one_ply(legal: Sequence[Decision], bases: Sequence[Any], value: Value,
            rng: random.Random, averaged: Callable[[Decision], bool] | None = None) -> Decision:
    """The best decision of `legal`, a tie broken by `rng`.

    A decision's score is the mean of `value(base, decision)` over `bases`, or over the
    first base only where `averaged(decision)` is false.
    """
    def score(decision: Decision) -> float:
        copies = bases if averaged is None or averaged(decision) else bases[:1]
        return sum(value(base, decision) for base in copies) / len(copies)

    return rng.choice(best_decisions(legal, score))


def relative_score(values: Sequence[float], seat: int, w: ScoreWeights) -> float:
    """`seat`'s value less `w.opp_max` times the best other and `w.opp_mean` the mean."""
    others = [v for s, v in enumerate(values) if s != seat]
    score = values[seat]
    if others:
        score -= w.opp_max * max(others) + w.opp_mean * sum(others) / len(others)
    return score


def seat_score(values: Sequence[float], seat: int, result: JSON | None,
               w: ScoreWeights) -> float:
    """`relative_score`, plus `w.win` split among the winners if `result` says `seat` won."""
    score = relative_score(values, seat, w)
    if result is not None and seat in result["ranking"][0]:
        score += w.win / len(result["ranking"][0])
    return score


class GreedySearchBot(Generic[W]):
    """A greedy bot's frame: the registry name, its seeded RNG and weights, `choose`.

    A game's bot sets `default_weights` and implements `decide` (usually with `one_ply`).
    """

    name = "greedy"
    #: The weights a bot made without `weights` uses.
    default_weights: ClassVar[Any]

    def __init__(self, seed: int = 0, weights: W | None = None) -> None:
        self.rng = random.Random(seed)
        self.weights: W = self.default_weights if weights is None else weights

    def choose(self, state: GameState, seat: int) -> Decision:
        """One of `state.legal_decisions(seat)`; `state` is left unchanged."""
        legal = state.legal_decisions(seat)
        if not legal:
            raise ValueError(f"seat {seat} has no decision to take: {state.describe_pending()}")
        return self.decide(state, seat, legal)

    def decide(self, state: GameState, seat: int, legal: list[Decision]) -> Decision:
        """The decision among `legal` (never empty) for `seat`."""
        raise NotImplementedError


__all__ = ["TIE", "Determinize", "GreedySearchBot", "ScoreWeights", "Value", "after",
           "best_decisions", "determinizations", "one_ply", "relative_score", "seat_score"]
