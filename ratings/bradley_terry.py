"""The pairwise Bradley–Terry fit (the leaderboard's headline): maximum a posteriori
ratings of every pair of seats meeting once, with robust per-bot intervals by deal; the
ratings it estimates given each pair's chance (`pairwise_truth`). Its prior, maximiser and
intervals are shared with the Plackett–Luce fit (`ratings.plackett_luce`).

Pure: no I/O and nothing beyond the standard library. Why and how well:
docs/arena-ratings.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from statistics import NormalDist

from ratings.elo import ELO_PER_NEPER, normal_quantile
from ratings.linalg import Matrix, Vector, diagonal, inverse, sandwich, solve
from ratings.records import GameOutcome, counted, pairwise

PRIOR_DRAWS = 1.0
"""Virtual draws each bot plays against a virtual bot of average strength (see bradley_terry)."""


@dataclass(frozen=True)
class Rating:
    """A Bradley–Terry rating on the Elo scale with its confidence interval."""

    elo: float
    """Maximum a posteriori rating; the mean over all rated bots is the anchor."""
    low: float
    """Lower end of the confidence interval."""
    high: float
    """Upper end of the confidence interval."""
    games: int
    """Pairwise results the bot took part in (an n-seat game gives up to n - 1)."""
    score: float
    """Points per pairwise result (ahead 1, tied 0.5, behind 0)."""

    @property
    def margin(self) -> float:
        """Half-width of the confidence interval."""
        return (self.high - self.low) / 2


@dataclass(frozen=True)
class BradleyTerryFit:
    """Ratings plus the covariance of their estimates (Elo², in `names` order)."""

    names: tuple[str, ...]
    ratings: dict[str, Rating]
    covariance: tuple[tuple[float, ...], ...]
    confidence: float
    dispersion: float
    """Mean widening of the variances by the robust covariance, tr(H⁻¹J) / (n - 1): about 1
    for 2-seat games, more for correlated multi-seat pairs (see fit_bradley_terry)."""
    deals: int = 0
    """Independent units of the robust covariance: the deals (`GameOutcome.deal_unit`)."""

    @property
    def quantile(self) -> float:
        """Standard deviations in a half-width: Student's t with deals - 1 degrees of
        freedom (the normal quantile with fewer than two deals)."""
        return _quantile(self.confidence, self.deals)

    def difference(self, a: str, b: str) -> tuple[float, float]:
        """Rating of `a` minus that of `b`, and the half-width of its confidence interval."""
        i, j = self.names.index(a), self.names.index(b)
        cov = self.covariance
        variance = cov[i][i] + cov[j][j] - 2 * cov[i][j]
        delta = self.ratings[a].elo - self.ratings[b].elo
        return delta, self.quantile * math.sqrt(max(variance, 0.0))


def bradley_terry(outcomes: Iterable[GameOutcome], anchor: float = 1500.0,
                  confidence: float = 0.95) -> dict[str, Rating]:
    """Bradley–Terry ratings of all bots from all pairwise results; see `fit_bradley_terry`."""
    return fit_bradley_terry(outcomes, anchor=anchor, confidence=confidence).ratings


def fit_bradley_terry(outcomes: Iterable[GameOutcome], anchor: float = 1500.0,
                      confidence: float = 0.95) -> BradleyTerryFit:
    """Maximum a posteriori Bradley–Terry ratings with confidence intervals.

    Model (Bradley & Terry 1952; the logistic Elo of BayesElo and Ordo): bot i scores
    against bot j with expectation σ(r_i - r_j), σ(x) = 1 / (1 + e^-x), and a draw (a tie
    in the finishing order) counts as half a win each way. Prior: every bot plays
    PRIOR_DRAWS virtual draws against a virtual bot of strength 0, in the spirit of
    BayesElo's virtual draws, so an unbeaten or winless bot still gets a finite rating
    and the log-posterior is strictly concave (Hunter 2004, "MM algorithms for
    generalized Bradley–Terry models"). It is maximised by Newton's method with step
    halving, the Hessian being needed for the intervals anyway. Rating = anchor +
    400/ln 10 · (r - mean(r)), so the ratings average to `anchor`.

    What it estimates: each pair's chance of finishing ahead, mapped to ratings by the
    logistic law (`pairwise_truth`), whatever the noise of the finishing orders; when
    that noise is Plackett–Luce's, the bots' Elo.

    Intervals, per bot, from the cluster-robust (sandwich) covariance of composite
    likelihood (Godambe; Varin, Reid & Firth 2011, "An overview of composite likelihood
    methods"; Cameron & Miller 2015 for clusters): the pairs of one multi-seat game are
    correlated, and so are the games of one deal (`GameOutcome.deal_unit`: they share its
    cards), so the model-based covariance H⁻¹ (H: minus the Hessian of the log-posterior)
    can be too narrow. With J = Σ_d u_d u_dᵀ, u_d the score (gradient) of the pairs of
    all of deal d's games, and H_0 the prior's curvature, the covariance of the strengths
    is H⁻¹ (c·J + H_0) H⁻¹, c = C / (C - 1) over C deals (the usual small-sample factor);
    the ratings are centred by P = I - 11ᵀ/n, so theirs is P H⁻¹ (c·J + H_0) H⁻¹ Pᵀ, and
    each rating is given ± t·sd, t the quantile of Student's t with C - 1 degrees of
    freedom (`BradleyTerryFit.quantile`; 2.26 for 10 deals, 2.01 for 50): with few deals
    the sandwich is itself noisy. Each bot gets its own widening: in 4–5-seat games the
    weakest bot's pairs are more correlated than the strongest's. For independent 2-seat
    games J ≈ H and this is the model-based interval. A bot's variance is floored at its
    model-based one (rows and columns scaled, correlations kept): with few games the
    sandwich is too narrow for a bot that seldom wins (86% coverage for the weakest of
    five bots after 50 2-seat games, 96% with the floor). `dispersion` reports the mean
    widening tr(H⁻¹J) / (n - 1) (≈ 1 for 2-seat games, ≈ 1.5 in 4-seat ones), for
    information.
    """
    games = counted(outcomes)
    names = bot_names(games)
    tally = tally_pairs(games, names)
    strengths = maximise(partial(_log_posterior, tally), partial(_gradient, tally),
                         partial(_information, tally), len(names))
    information = _information(tally, strengths)
    meat = _deal_score_products(tally, strengths)
    return robust_fit(names, strengths, information, meat, tally, anchor, confidence)


def bot_names(games: Iterable[GameOutcome]) -> tuple[str, ...]:
    """The bots that play in the games, sorted (the fits' order)."""
    return tuple(sorted({name for game in games for name in game.seating}))


def pairwise_truth(ahead: Mapping[tuple[str, str], float],
                   weights: Mapping[tuple[str, str], float] | None = None,
                   anchor: float = 1500.0) -> dict[str, float]:
    """The ratings `fit_bradley_terry` estimates, given each pair's chance of finishing
    ahead: `ahead[a, b]` = P(a ahead of b) (a tie counting half), for each unordered pair
    once (the other order is 1 minus it).

    The Bradley–Terry ratings closest to those chances (the maximiser of
    Σ w_ab [p_ab log σ(r_a - r_b) + (1 - p_ab) log σ(r_b - r_a)], no prior), with w_ab how
    often a and b meet (`weights`, all equal by default, as in a round robin); anchored
    like the fits. When the chances follow the logistic law (Plackett–Luce finishing
    orders, say) these are the bots' Elo whatever the weights; when they do not
    (Thurstonian noise), this is the truth the pairwise fit is consistent for, and the
    headline's intervals are checked against it (docs/arena-ratings.md).
    """
    names = tuple(sorted({name for pair in ahead for name in pair}))
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    tally = Tally([[0.0] * n for _ in range(n)], [[0.0] * n for _ in range(n)], [])
    for (a, b), p in ahead.items():
        if a == b or not 0 <= p <= 1:
            raise ValueError(f"P({a} ahead of {b}) = {p}: need two bots and 0 <= p <= 1")
        w = 1.0 if weights is None else weights[a, b]
        i, j = index[a], index[b]
        tally.points[i][j] += w * p
        tally.points[j][i] += w * (1 - p)
        tally.counts[i][j] += w
        tally.counts[j][i] += w
    ridge = 1e-9  # the likelihood alone does not fix the mean; this centres it on 0

    def value(r: Vector) -> float:
        return (_log_posterior(tally, r) - prior_value(r)
                - ridge / 2 * sum(ri * ri for ri in r))

    def gradient(r: Vector) -> Vector:
        return [g - prior - ridge * ri for g, prior, ri
                in zip(_gradient(tally, r), prior_gradient(r), r, strict=True)]

    def information(r: Vector) -> Matrix:
        info = _information(tally, r)
        for i, curvature in enumerate(prior_curvature(r)):
            info[i][i] += ridge - curvature
        return info

    r = maximise(value, gradient, information, n, tolerance=1e-12)
    centre = sum(r) / n if n else 0.0
    return {name: anchor + ELO_PER_NEPER * (r[i] - centre) for name, i in index.items()}


def robust_fit(names: tuple[str, ...], strengths: list[float], information: Matrix,
               meat: Matrix, tally: Tally, anchor: float, confidence: float) -> BradleyTerryFit:
    """Ratings on the Elo scale with robust intervals (see fit_bradley_terry), from the
    strengths, the information H and the deals' score products J at the strengths."""
    model = inverse(information)
    robust = sandwich(model, _robust_meat(tally.units, strengths, meat))
    covariance = _floored(_centred(robust), _centred(model))
    centre = sum(strengths) / len(strengths) if strengths else 0.0
    quantile = _quantile(confidence, tally.units)
    ratings = {}
    for i, name in enumerate(names):
        elo = anchor + ELO_PER_NEPER * (strengths[i] - centre)
        half = quantile * ELO_PER_NEPER * math.sqrt(max(covariance[i][i], 0.0))
        played = tally.played(i)
        score = tally.points_of(i) / played if played else 0.5
        ratings[name] = Rating(elo, elo - half, elo + half, played, score)
    elo_covariance = tuple(tuple(ELO_PER_NEPER ** 2 * c for c in row) for row in covariance)
    return BradleyTerryFit(names, ratings, elo_covariance, confidence,
                           _dispersion(model, meat), tally.units)


@dataclass
class Tally:
    """Pairwise points and counts between bots i and j, and each game's pairs."""

    points: Matrix
    counts: Matrix
    deals: list[list[tuple[int, int, float]]]
    """Per deal (`GameOutcome.deal_unit`), the pairs of all its games."""
    units: int = 0
    """Independent units of the robust covariance: the deals (len(deals) when listed)."""

    def played(self, i: int) -> int:
        return round(sum(self.counts[i]))

    def points_of(self, i: int) -> float:
        return sum(self.points[i])


def tally_pairs(games: Sequence[GameOutcome], names: Sequence[str]) -> Tally:
    """The games' pairwise results between the bots `names`, by deal."""
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    deals: dict[tuple[str, str], list[tuple[int, int, float]]] = {}
    tally = Tally([[0.0] * n for _ in range(n)], [[0.0] * n for _ in range(n)], [])
    for game in games:
        pairs = [(index[a], index[b], score) for a, b, score in pairwise(game)]
        for i, j, score in pairs:
            tally.points[i][j] += score
            tally.points[j][i] += 1 - score
            tally.counts[i][j] += 1
            tally.counts[j][i] += 1
        deals.setdefault(game.deal_unit, []).extend(pairs)
    tally.deals = list(deals.values())
    tally.units = len(tally.deals)
    return tally


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1 / (1 + math.exp(-x))
    e = math.exp(x)
    return e / (1 + e)


def _log_sigmoid(x: float) -> float:
    return -(max(-x, 0.0) + math.log1p(math.exp(-abs(x))))


def prior_value(r: Sequence[float]) -> float:
    """Log-density of the prior: PRIOR_DRAWS virtual draws against strength 0 each."""
    return sum(PRIOR_DRAWS * (_log_sigmoid(ri) + _log_sigmoid(-ri)) / 2 for ri in r)


def prior_gradient(r: Sequence[float]) -> list[float]:
    """The gradient of `prior_value`."""
    return [PRIOR_DRAWS * (0.5 - _sigmoid(ri)) for ri in r]


def prior_curvature(r: Sequence[float]) -> list[float]:
    """Minus the prior's second derivatives (the prior's Hessian is diagonal)."""
    return [PRIOR_DRAWS * _sigmoid(ri) * (1 - _sigmoid(ri)) for ri in r]


def _log_posterior(tally: Tally, r: Sequence[float]) -> float:
    n = len(r)
    total = prior_value(r)
    for i in range(n):
        for j in range(n):
            if tally.points[i][j]:
                total += tally.points[i][j] * _log_sigmoid(r[i] - r[j])
    return total


def _gradient(tally: Tally, r: Sequence[float]) -> list[float]:
    n = len(r)
    grad = prior_gradient(r)
    for i in range(n):
        for j in range(n):
            if tally.counts[i][j]:
                grad[i] += tally.points[i][j] - tally.counts[i][j] * _sigmoid(r[i] - r[j])
    return grad


def _information(tally: Tally, r: Sequence[float]) -> Matrix:
    """Minus the Hessian of the log-posterior (positive definite thanks to the prior)."""
    n = len(r)
    info = diagonal(prior_curvature(r))
    for i in range(n):
        for j in range(n):
            if i != j and tally.counts[i][j]:
                p = _sigmoid(r[i] - r[j])
                weight = tally.counts[i][j] * p * (1 - p)
                info[i][i] += weight
                info[i][j] -= weight
    return info


def maximise(value: Callable[[Vector], float], gradient: Callable[[Vector], Vector],
             information: Callable[[Vector], Matrix], n: int, tolerance: float = 1e-10,
             max_steps: int = 200) -> Vector:
    """Newton's method with step halving on a strictly concave log-posterior of n
    strengths, from all zeros."""
    r = [0.0] * n
    current = value(r)
    for _ in range(max_steps):
        step = solve(information(r), gradient(r))
        scale = 1.0
        while True:
            trial = [ri + scale * si for ri, si in zip(r, step, strict=True)]
            trial_value = value(trial)
            if trial_value >= current - 1e-12 or scale < 1e-6:
                break
            scale /= 2
        r, current = trial, trial_value
        if max((abs(scale * s) for s in step), default=0.0) < tolerance:
            break
    return r


def _dispersion(model: Matrix, meat: Matrix) -> float:
    """tr(H⁻¹ J) / (n - 1): the mean widening of the robust over the model variances."""
    n = len(model)
    if n < 2:
        return 1.0
    return sum(model[i][k] * meat[k][i] for i in range(n) for k in range(n)) / (n - 1)


def _robust_meat(deals: int, r: Sequence[float], meat: Matrix) -> Matrix:
    """c·J + H_0: the deals' score products with the small-sample factor c = C / (C - 1)
    over C deals, plus the prior's curvature (what the virtual draws contribute to the
    information)."""
    factor = deals / (deals - 1) if deals > 1 else 1.0
    robust = [[factor * value for value in row] for row in meat]
    for i, curvature in enumerate(prior_curvature(r)):
        robust[i][i] += curvature
    return robust


def _floored(robust: Matrix, model: Matrix) -> Matrix:
    """D·robust·D with D_ii = sqrt(max(1, model_ii / robust_ii)): each bot's variance at
    least its model-based one, correlations kept (so the matrix stays a covariance)."""
    scale = [math.sqrt(max(1.0, m[i] / r[i])) if r[i] > 0 else 1.0
             for i, (r, m) in enumerate(zip(robust, model, strict=True))]
    return [[scale[i] * value * scale[j] for j, value in enumerate(row)]
            for i, row in enumerate(robust)]


def _deal_score_products(tally: Tally, r: Sequence[float]) -> Matrix:
    """J = Σ over deals of u_d u_dᵀ, u_d the gradient of the pairwise log-likelihood of
    deal d's games (the sum of its games' gradients)."""
    n = len(r)
    meat = [[0.0] * n for _ in range(n)]
    for pairs in tally.deals:
        u = [0.0] * n
        for i, j, score in pairs:
            residual = score - _sigmoid(r[i] - r[j])
            u[i] += residual
            u[j] -= residual
        for i in range(n):
            if u[i]:
                for j in range(n):
                    meat[i][j] += u[i] * u[j]
    return meat


def _centred(cov: Matrix) -> Matrix:
    """P Σ Pᵀ with P = I - 11ᵀ/n: the covariance of r - mean(r)."""
    n = len(cov)
    if n == 0:
        return []
    row_mean = [sum(row) / n for row in cov]
    col_mean = [sum(cov[i][j] for i in range(n)) / n for j in range(n)]
    total_mean = sum(row_mean) / n
    return [[cov[i][j] - row_mean[i] - col_mean[j] + total_mean for j in range(n)]
            for i in range(n)]


def _t(confidence: float, df: int) -> float:
    """Two-sided quantile of Student's t with `df` degrees of freedom: exact for 1 and 2,
    else the Cornish–Fisher expansion to 1/df⁴ (within 0.2% for 3, 10⁻⁵ from 10 up, at
    95%)."""
    p = 0.5 + confidence / 2
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2 * p - 1) / math.sqrt(2 * p * (1 - p))
    z, v = NormalDist().inv_cdf(p), float(df)
    return (z + (z**3 + z) / (4 * v) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
            + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z)
            / (92160 * v**4))


def _quantile(confidence: float, deals: int) -> float:
    """Standard deviations in an interval's half-width from a robust covariance over
    `deals` independent units: Student's t with deals - 1 degrees of freedom (as for a
    mean of that many values), the normal's without two deals."""
    return _t(confidence, deals - 1) if deals >= 2 else normal_quantile(confidence)
