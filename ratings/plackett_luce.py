"""The Plackett–Luce fit of whole finishing orders (a cross-check of the pairwise
Bradley–Terry fit, on its scale): maximum a posteriori ratings with robust per-bot
intervals by deal, sharing the Bradley–Terry fit's prior, maximiser and intervals.

Pure: no I/O and nothing beyond the standard library. Why and how well:
docs/arena-ratings.md.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import combinations

from ratings.bradley_terry import (
    BradleyTerryFit,
    bot_names,
    maximise,
    prior_curvature,
    prior_gradient,
    prior_value,
    robust_fit,
    tally_pairs,
)
from ratings.linalg import Matrix, Vector, diagonal
from ratings.records import GameOutcome, counted

Term = tuple[float, tuple[int, ...]]
"""weight w and the bots of the seats still in the race T: the log-likelihood has -w·log
Σ_{s∈T} e^{r_s} (a bot twice in T for two seats)."""


@dataclass
class _Choices:
    """A game's log-likelihood as Σ_i linear_i·r_i - Σ_(w,T) w·log Σ_{s∈T} e^{r_s}."""

    linear: dict[int, float]
    terms: list[Term]


def fit_plackett_luce(outcomes: Iterable[GameOutcome], anchor: float = 1500.0,
                      confidence: float = 0.95) -> BradleyTerryFit:
    """Maximum a posteriori Plackett–Luce ratings of full finishing orders, with robust
    confidence intervals.

    Model (Luce 1959, Plackett 1975; Hunter 2004): the first place goes to seat s with
    probability e^{r_s} / Σ e^{r} over all seats, the second likewise among the others,
    and so on; any two seats are then in order with probability σ(r_i - r_j), so the
    ratings are on the Bradley–Terry scale, and for 2-seat games the two fits agree.
    Unlike the pairwise fit, the likelihood of a game is a true one (its places are not
    counted as independent pairs), so when finishing orders do follow the model it uses
    all a 3–5-seat finishing order says: the same precision from 4–18% fewer games
    (benchmarks/rating_coverage.py). When they do not (Thurstonian noise, say), it is
    not consistent for any pair's chance of finishing ahead: it reads the top places
    with the model's odds and pulls the extreme bots inward, by more than its interval
    once the games are many; so it is a cross-check, not the headline. A tie is the mean
    log-likelihood over the orders of the tied seats (for two seats: half a win each,
    as in `fit_bradley_terry`). Same prior, maximiser, anchoring and robust, per-bot
    intervals by deal as `fit_bradley_terry`; `games` and `score` of a rating are the
    pairwise ones. Identical terms of all games are pooled, so each Newton step costs the
    number of distinct sets of bots, not of games.
    """
    games = counted(outcomes)
    names = bot_names(games)
    index = {name: i for i, name in enumerate(names)}
    choices = [_choices(game, index) for game in games]
    linear, pooled = _pool(choices, len(names))
    strengths = maximise(partial(_pl_log_posterior, linear, pooled),
                         partial(_pl_gradient, linear, pooled),
                         partial(_pl_information, pooled), len(names))
    by_deal: dict[tuple[str, str], list[_Choices]] = {}
    for game, choice in zip(games, choices, strict=True):
        by_deal.setdefault(game.deal_unit, []).append(choice)
    meat = _pl_score_products(by_deal.values(), strengths)
    return robust_fit(names, strengths, _pl_information(pooled, strengths), meat,
                      tally_pairs(games, names), anchor, confidence)


def _choices(game: GameOutcome, index: Mapping[str, int]) -> _Choices:
    """The game's finishing order as Plackett–Luce choices; a tied group of d seats
    averages over its d! orders: the first t seats chosen from it are each t-subset
    with weight 1 / C(d, t)."""
    bot = [index[name] for name in game.seating]
    choice = _Choices({}, [])
    left = set(range(game.seats))
    for group in game.ranking:
        for seat in group:
            choice.linear[bot[seat]] = choice.linear.get(bot[seat], 0.0) + 1
        for taken in range(len(group)):
            weight = 1 / math.comb(len(group), taken)
            for chosen in combinations(group, taken):
                race = sorted(bot[seat] for seat in left.difference(chosen))
                if len(race) == 1:  # log e^{r} = r: a linear term
                    choice.linear[race[0]] -= weight
                else:
                    choice.terms.append((weight, tuple(race)))
        left.difference_update(group)
    return choice


def _pool(choices: Iterable[_Choices], n: int) -> tuple[Vector, list[Term]]:
    """All games' linear coefficients summed, and their terms summed by set of bots."""
    linear = [0.0] * n
    pooled: dict[tuple[int, ...], float] = {}
    for choice in choices:
        for i, coefficient in choice.linear.items():
            linear[i] += coefficient
        for weight, race in choice.terms:
            pooled[race] = pooled.get(race, 0.0) + weight
    return linear, [(weight, race) for race, weight in pooled.items()]


def _shares(race: Sequence[int], r: Sequence[float]) -> dict[int, float]:
    """Per bot in the race, the chance that the next place goes to one of its seats."""
    top = max(r[i] for i in race)
    weights = [math.exp(r[i] - top) for i in race]
    total = sum(weights)
    shares: dict[int, float] = {}
    for i, weight in zip(race, weights, strict=True):
        shares[i] = shares.get(i, 0.0) + weight / total
    return shares


def _log_sum_exp(race: Sequence[int], r: Sequence[float]) -> float:
    top = max(r[i] for i in race)
    return top + math.log(sum(math.exp(r[i] - top) for i in race))


def _pl_log_posterior(linear: Sequence[float], terms: Sequence[Term],
                      r: Sequence[float]) -> float:
    total = prior_value(r) + sum(c * ri for c, ri in zip(linear, r, strict=True))
    return total - sum(weight * _log_sum_exp(race, r) for weight, race in terms)


def _pl_gradient(linear: Sequence[float], terms: Sequence[Term], r: Sequence[float]
                 ) -> Vector:
    grad = [g + c for g, c in zip(prior_gradient(r), linear, strict=True)]
    for weight, race in terms:
        for i, share in _shares(race, r).items():
            grad[i] -= weight * share
    return grad


def _pl_information(terms: Sequence[Term], r: Sequence[float]) -> Matrix:
    """Minus the Hessian: Σ w (diag(p) - p pᵀ) over the terms, plus the prior's."""
    info = diagonal(prior_curvature(r))
    for weight, race in terms:
        shares = _shares(race, r)
        for i, p_i in shares.items():
            info[i][i] += weight * p_i
            for j, p_j in shares.items():
                info[i][j] -= weight * p_i * p_j
    return info


def _pl_score_products(deals: Iterable[Sequence[_Choices]], r: Sequence[float]) -> Matrix:
    """J = Σ over deals of u_d u_dᵀ, u_d the gradient of the log-likelihood of deal d's
    games."""
    n = len(r)
    meat = [[0.0] * n for _ in range(n)]
    for deal in deals:
        u = [0.0] * n
        for choice in deal:
            for i, coefficient in choice.linear.items():
                u[i] += coefficient
            for weight, race in choice.terms:
                for i, share in _shares(race, r).items():
                    u[i] -= weight * share
        for i in range(n):
            if u[i]:
                for j in range(n):
                    meat[i][j] += u[i] * u[j]
    return meat
