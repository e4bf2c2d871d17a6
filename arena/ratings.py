"""Ratings from arena game outcomes: pairwise results, Elo, Bradley–Terry, Plackett–Luce
and the SPRT's log-likelihood ratio.

Pure statistics in the manner of fishtest and fastchess: outcomes or counts in, Elo with
confidence intervals and log-likelihood ratios out; no I/O and nothing beyond the standard
library, so it imports anywhere.

A multi-seat game is read either as every pair of seats meeting once, scored by finishing
order (ahead 1, tied 0.5, behind 0: `pairwise`, `fit_bradley_terry`, the leaderboard's
headline, `elo_history`), or as its whole finishing order (`fit_plackett_luce`, a
cross-check). Under a Plackett–Luce finishing order (Gumbel noise on log-strengths) each
pair follows the logistic Bradley–Terry law exactly, so both fits share one scale; under
other noise only the pairwise fit still estimates each pair's chance of finishing ahead
(`pairwise_truth`). The pairs of one game are not independent, nor are the games of one
deal (they share its cards); both fits give robust (sandwich) intervals per bot, with
the deal as the unit. The SPRT over games lives in `arena.sprt`. Why and how well:
docs/arena-ratings.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import combinations
from statistics import NormalDist
from typing import Any, Literal

JSON = dict[str, Any]
ELO_PER_NEPER = 400 / math.log(10)
"""Elo points per unit of natural-log strength: Elo differences are 400·log10 odds."""
Matrix = list[list[float]]


# ---------------------------------------------------------------------------------------
# Game outcomes
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameOutcome:
    """One finished arena game: a line of the arena's results file (JSON lines)."""

    index: int
    """Position in the tournament schedule; sequential ratings replay games in this order."""
    seed: int
    """Seed the game was played with."""
    seating: tuple[str, ...]
    """Bot name per seat."""
    ranking: tuple[tuple[int, ...], ...]
    """Groups of tied seats, best first; every seat appears exactly once (none in a void
    game)."""
    forfeits: tuple[int, ...] = ()
    """Seats that forfeited (time loss, crash, illegal decision); already ranked last
    (no seat that played on is ranked below one of them)."""
    reasons: dict[int, str] = field(default_factory=dict, hash=False)
    """Why a forfeited seat forfeited, for the seats that say (e.g. {1: "timeout"})."""
    reason: str = ""
    """Why the game ended (e.g. "target", "max_turns")."""
    decisions: int = 0
    """Decisions taken in the game."""
    turns: int | None = None
    """Turns played, when the game counts turns."""
    void: str | None = None
    """Why the game is void, or None: it never got going through the host's fault (a bot
    slow to start, the service away), so it has no result and counts in no rating."""
    attempts: int = 1
    """Games the arena started for this one: the ones before the last were void and
    played again."""
    deal: str = ""
    """The deal the game was dealt (`arena.schedule.ScheduledGame.deal`), shared by every
    rotation of its group: games of one deal share their cards, so they are one unit in
    the ratings' intervals (`deal_unit`). "" in records that do not say (written before
    the arena kept it): the seed then stands for the deal, every game of a deal having
    its seed."""

    def __post_init__(self) -> None:
        # Lists and seat keys as strings (JSON shapes) are accepted and normalised.
        object.__setattr__(self, "seating", tuple(self.seating))
        object.__setattr__(self, "ranking", tuple(tuple(group) for group in self.ranking))
        object.__setattr__(self, "forfeits", tuple(self.forfeits))
        object.__setattr__(self, "reasons", {int(k): v for k, v in self.reasons.items()})
        problem = _outcome_problem(self)
        if problem:
            raise ValueError(f"game {self.index}: {problem}")

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameOutcome:
        """Parse and validate one results-file record.

        Required: index, seed, seating, ranking. Optional: forfeits ([]), reasons ({},
        keyed by seat as a string), reason (""), decisions (0), turns (null), void (null),
        attempts (1), deal ("").
        Raises ValueError for a missing field, a wrong type or an inconsistent ranking.
        """
        missing = [key for key in ("index", "seed", "seating", "ranking") if key not in data]
        if missing:
            raise ValueError(f"game record lacks {', '.join(missing)}")
        try:
            return cls(
                index=_int(data["index"]), seed=_int(data["seed"]),
                seating=tuple(_str(name) for name in _list(data["seating"])),
                ranking=tuple(tuple(_int(s) for s in _list(group))
                              for group in _list(data["ranking"])),
                forfeits=tuple(_int(s) for s in _list(data.get("forfeits", []))),
                reasons={_int(int(k)): _str(v) for k, v in data.get("reasons", {}).items()},
                reason=_str(data.get("reason", "")), decisions=_int(data.get("decisions", 0)),
                turns=None if data.get("turns") is None else _int(data["turns"]),
                void=None if data.get("void") is None else _str(data["void"]),
                attempts=_int(data.get("attempts", 1)), deal=_str(data.get("deal", "")),
            )
        except (TypeError, AttributeError) as error:
            raise ValueError(f"malformed game record: {error}") from error

    def to_json(self) -> JSON:
        """The results-file record; `from_json(to_json())` gives back an equal outcome.
        `void`, `attempts` and `deal` are written only when they say something (a void
        game, a game played again, a named deal)."""
        data: JSON = {
            "index": self.index, "seed": self.seed, "seating": list(self.seating),
            "ranking": [list(group) for group in self.ranking],
            "forfeits": list(self.forfeits),
            "reasons": {str(seat): why for seat, why in sorted(self.reasons.items())},
            "reason": self.reason, "decisions": self.decisions, "turns": self.turns,
        }
        if self.void is not None:
            data["void"] = self.void
        if self.attempts != 1:
            data["attempts"] = self.attempts
        if self.deal:
            data["deal"] = self.deal
        return data

    @property
    def deal_unit(self) -> tuple[str, str]:
        """What identifies the game's deal: its name, or its seed when the record names
        none (every game of a deal is played with the deal's seed, `arena.deals`)."""
        return ("deal", self.deal) if self.deal else ("seed", str(self.seed))

    @property
    def seats(self) -> int:
        return len(self.seating)

    def places(self) -> list[int]:
        """Per seat, the index of its group in `ranking` (0 = best; tied seats share it)."""
        place = [0] * self.seats
        for group_index, group in enumerate(self.ranking):
            for seat in group:
                place[seat] = group_index
        return place

    def ranks(self) -> list[int]:
        """Per seat, its 1-based rank; tied seats share the better rank (1, 2, 2, 4)."""
        rank = [0] * self.seats
        next_rank = 1
        for group in self.ranking:
            for seat in group:
                rank[seat] = next_rank
            next_rank += len(group)
        return rank


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an integer, got {value!r}")
    return value


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError(f"expected a list, got {value!r}")
    return value


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {value!r}")
    return value


def _outcome_problem(game: GameOutcome) -> str | None:
    """What is inconsistent in a game outcome, or None."""
    seats = range(game.seats)
    ranked = sorted(seat for group in game.ranking for seat in group)
    if game.seats < 2:
        return "a game needs at least two seats"
    if game.attempts < 1:
        return f"attempts {game.attempts} is below 1"
    if game.void is not None:
        return ("a void game has no ranking, forfeits nor reasons"
                if game.ranking or game.forfeits or game.reasons else None)
    if ranked != list(seats) or not all(game.ranking):
        return f"ranking {game.ranking} is not a grouping of seats 0..{game.seats - 1}"
    if not set(game.forfeits) <= set(seats) or len(set(game.forfeits)) != len(game.forfeits):
        return f"forfeits {game.forfeits} are not distinct seats"
    place = game.places()
    kept = [place[s] for s in seats if s not in game.forfeits]
    if kept and game.forfeits and max(kept) > min(place[s] for s in game.forfeits):
        return "a seat that forfeited is ranked above one that did not"
    if not set(game.reasons) <= set(game.forfeits):
        return f"reasons given for seats that did not forfeit: {sorted(game.reasons)}"
    return None


# ---------------------------------------------------------------------------------------
# Pairwise results and helpers
# ---------------------------------------------------------------------------------------
PairResult = tuple[str, str, float]


def pairwise(outcome: GameOutcome) -> list[PairResult]:
    """The game as pairwise results `(a, b, score of a against b)`, one per pair of seats.

    Seat i before seat j in the finishing order scores 1, tied 0.5, behind 0; pairs are
    listed once, in seat order (i < j). Two seats played by the same bot are skipped; a
    void game has none.
    """
    if outcome.void is not None:
        return []
    place = outcome.places()
    return [(outcome.seating[i], outcome.seating[j], _pair_score(place[i], place[j]))
            for i, j in combinations(range(outcome.seats), 2)
            if outcome.seating[i] != outcome.seating[j]]


def _pair_score(place_a: int, place_b: int) -> float:
    return 1.0 if place_a < place_b else 0.5 if place_a == place_b else 0.0


def score_from_elo(difference: float) -> float:
    """Expected score at an Elo difference: 1 / (1 + 10^(-d/400)) (Elo 1978, logistic)."""
    return 1 / (1 + 10 ** (-difference / 400))


def elo_from_score(score: float) -> float:
    """Elo difference for an expected score: -400·log10(1/p - 1); ±inf at p = 1 or 0."""
    if not 0 <= score <= 1:
        raise ValueError(f"score {score} is not in [0, 1]")
    if score in (0, 1):
        return math.copysign(math.inf, score - 0.5)
    return -400 * math.log10(1 / score - 1)


def score_with_stderr(wins: int, draws: int, losses: int) -> tuple[float, float]:
    """Mean score per game and its standard error, from the trinomial W/D/L frequencies.

    stderr = sqrt(var / N), var = W(1-s)² + D(1/2-s)² + L(0-s)² with W, D, L frequencies,
    as fastchess and cutechess compute it.
    """
    games = wins + draws + losses
    if games == 0:
        return 0.5, math.inf
    score = (wins + draws / 2) / games
    variance = (wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2
                + losses * score ** 2) / games
    return score, math.sqrt(variance / games)


def elo_margin(score: float, stderr: float, confidence: float = 0.95) -> float:
    """Half-width in Elo of the interval score ± z·stderr, mapped through elo_from_score.

    As fastchess reports "Elo ± margin": (elo(s + z·se) - elo(s - z·se)) / 2, with z the
    two-sided normal quantile; inf when the interval reaches a score of 0 or 1.
    """
    z = _z(confidence)
    low, high = score - z * stderr, score + z * stderr
    if low <= 0 or high >= 1:
        return math.inf
    return (elo_from_score(high) - elo_from_score(low)) / 2


def _z(confidence: float) -> float:
    return NormalDist().inv_cdf(0.5 + confidence / 2)


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
    return _t(confidence, deals - 1) if deals >= 2 else _z(confidence)


def head_to_head(outcomes: Iterable[GameOutcome], a: str, b: str) -> tuple[int, int, int]:
    """(wins, draws, losses) of bot `a` against bot `b` over their pairwise results."""
    wins = draws = losses = 0
    for game in counted(outcomes):
        for first, second, score in pairwise(game):
            if {first, second} != {a, b}:
                continue
            score_of_a = score if first == a else 1 - score
            wins += score_of_a == 1
            draws += score_of_a == 0.5
            losses += score_of_a == 0
    return wins, draws, losses


def in_index_order(outcomes: Iterable[GameOutcome]) -> list[GameOutcome]:
    """The games sorted by their `index`."""
    return sorted(outcomes, key=lambda game: game.index)


def counted(outcomes: Iterable[GameOutcome]) -> list[GameOutcome]:
    """The games that count, in index order: every game but the void ones. Every rating,
    table and test reads only these."""
    return [game for game in in_index_order(outcomes) if game.void is None]


# ---------------------------------------------------------------------------------------
# Sequential Elo
# ---------------------------------------------------------------------------------------
def elo_history(outcomes: Iterable[GameOutcome], k: float = 32.0, initial: float = 1500.0
                ) -> tuple[dict[str, float], list[dict[str, float]]]:
    """Sequential Elo (Elo 1978) over the games in `index` order: (final, history).

    Each game applies all its pairwise results at once, from the ratings before the game.
    For a bot a in an n-seat game, with the sum over the seats b of other bots:

        R'_a = R_a + K / (n - 1) · Σ_b (S_ab - E_ab),   E_ab = 1 / (1 + 10^((R_b - R_a) / 400))

    so a 2-seat game is plain Elo and an n-seat game, whose n - 1 comparisons each carry
    K / (n - 1), moves a rating about as much as one 2-player game. Bots start at `initial`
    on their first game. `history[g]` holds every rating after the first g + 1 games that
    count (void games are skipped: `counted`).
    """
    ratings: dict[str, float] = {}
    history: list[dict[str, float]] = []
    for game in counted(outcomes):
        for name in game.seating:
            ratings.setdefault(name, initial)
        for name, change in _elo_changes(game, ratings, k).items():
            ratings[name] += change
        history.append(dict(ratings))
    return dict(ratings), history


def _elo_changes(game: GameOutcome, ratings: Mapping[str, float], k: float
                 ) -> dict[str, float]:
    k_pair = k / (game.seats - 1)
    changes: dict[str, float] = {}
    for a, b, score in pairwise(game):
        step = k_pair * (score - score_from_elo(ratings[a] - ratings[b]))
        changes[a] = changes.get(a, 0.0) + step
        changes[b] = changes.get(b, 0.0) - step
    return changes


# ---------------------------------------------------------------------------------------
# Bradley–Terry
# ---------------------------------------------------------------------------------------
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
    names = _names(games)
    tally = _tally(games, names)
    strengths = _maximise(partial(_log_posterior, tally), partial(_gradient, tally),
                          partial(_information, tally), len(names))
    information = _information(tally, strengths)
    meat = _deal_score_products(tally, strengths)
    return _fit(names, strengths, information, meat, tally, anchor, confidence)


def _names(games: Iterable[GameOutcome]) -> tuple[str, ...]:
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
    tally = _Tally([[0.0] * n for _ in range(n)], [[0.0] * n for _ in range(n)], [])
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
        return (_log_posterior(tally, r) - _prior_value(r)
                - ridge / 2 * sum(ri * ri for ri in r))

    def gradient(r: Vector) -> Vector:
        return [g - prior - ridge * ri for g, prior, ri
                in zip(_gradient(tally, r), _prior_gradient(r), r, strict=True)]

    def information(r: Vector) -> Matrix:
        info = _information(tally, r)
        for i, curvature in enumerate(_prior_curvature(r)):
            info[i][i] += ridge - curvature
        return info

    r = _maximise(value, gradient, information, n, tolerance=1e-12)
    centre = sum(r) / n if n else 0.0
    return {name: anchor + ELO_PER_NEPER * (r[i] - centre) for name, i in index.items()}


def _fit(names: tuple[str, ...], strengths: list[float], information: Matrix, meat: Matrix,
         tally: _Tally, anchor: float, confidence: float) -> BradleyTerryFit:
    """Ratings on the Elo scale with robust intervals (see fit_bradley_terry), from the
    strengths, the information H and the deals' score products J at the strengths."""
    model = _inverse(information)
    robust = _sandwich(model, _robust_meat(len(tally.deals), strengths, meat))
    covariance = _floored(_centred(robust), _centred(model))
    centre = sum(strengths) / len(strengths) if strengths else 0.0
    quantile = _quantile(confidence, len(tally.deals))
    ratings = {}
    for i, name in enumerate(names):
        elo = anchor + ELO_PER_NEPER * (strengths[i] - centre)
        half = quantile * ELO_PER_NEPER * math.sqrt(max(covariance[i][i], 0.0))
        played = tally.played(i)
        score = tally.points_of(i) / played if played else 0.5
        ratings[name] = Rating(elo, elo - half, elo + half, played, score)
    elo_covariance = tuple(tuple(ELO_PER_NEPER ** 2 * c for c in row) for row in covariance)
    return BradleyTerryFit(names, ratings, elo_covariance, confidence,
                           _dispersion(model, meat), len(tally.deals))


@dataclass
class _Tally:
    """Pairwise points and counts between bots i and j, and each game's pairs."""

    points: Matrix
    counts: Matrix
    deals: list[list[tuple[int, int, float]]]
    """Per deal (`GameOutcome.deal_unit`), the pairs of all its games."""

    def played(self, i: int) -> int:
        return round(sum(self.counts[i]))

    def points_of(self, i: int) -> float:
        return sum(self.points[i])


def _tally(games: Sequence[GameOutcome], names: Sequence[str]) -> _Tally:
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    deals: dict[tuple[str, str], list[tuple[int, int, float]]] = {}
    tally = _Tally([[0.0] * n for _ in range(n)], [[0.0] * n for _ in range(n)], [])
    for game in games:
        pairs = [(index[a], index[b], score) for a, b, score in pairwise(game)]
        for i, j, score in pairs:
            tally.points[i][j] += score
            tally.points[j][i] += 1 - score
            tally.counts[i][j] += 1
            tally.counts[j][i] += 1
        deals.setdefault(game.deal_unit, []).extend(pairs)
    tally.deals = list(deals.values())
    return tally


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1 / (1 + math.exp(-x))
    e = math.exp(x)
    return e / (1 + e)


def _log_sigmoid(x: float) -> float:
    return -(max(-x, 0.0) + math.log1p(math.exp(-abs(x))))


def _prior_value(r: Sequence[float]) -> float:
    """Log-density of the prior: PRIOR_DRAWS virtual draws against strength 0 each."""
    return sum(PRIOR_DRAWS * (_log_sigmoid(ri) + _log_sigmoid(-ri)) / 2 for ri in r)


def _prior_gradient(r: Sequence[float]) -> list[float]:
    return [PRIOR_DRAWS * (0.5 - _sigmoid(ri)) for ri in r]


def _prior_curvature(r: Sequence[float]) -> list[float]:
    """Minus the prior's second derivatives (the prior's Hessian is diagonal)."""
    return [PRIOR_DRAWS * _sigmoid(ri) * (1 - _sigmoid(ri)) for ri in r]


def _log_posterior(tally: _Tally, r: Sequence[float]) -> float:
    n = len(r)
    total = _prior_value(r)
    for i in range(n):
        for j in range(n):
            if tally.points[i][j]:
                total += tally.points[i][j] * _log_sigmoid(r[i] - r[j])
    return total


def _gradient(tally: _Tally, r: Sequence[float]) -> list[float]:
    n = len(r)
    grad = _prior_gradient(r)
    for i in range(n):
        for j in range(n):
            if tally.counts[i][j]:
                grad[i] += tally.points[i][j] - tally.counts[i][j] * _sigmoid(r[i] - r[j])
    return grad


def _information(tally: _Tally, r: Sequence[float]) -> Matrix:
    """Minus the Hessian of the log-posterior (positive definite thanks to the prior)."""
    n = len(r)
    info = _diagonal(_prior_curvature(r))
    for i in range(n):
        for j in range(n):
            if i != j and tally.counts[i][j]:
                p = _sigmoid(r[i] - r[j])
                weight = tally.counts[i][j] * p * (1 - p)
                info[i][i] += weight
                info[i][j] -= weight
    return info


def _diagonal(values: Sequence[float]) -> Matrix:
    return [[value if i == j else 0.0 for j in range(len(values))]
            for i, value in enumerate(values)]


Vector = list[float]


def _maximise(value: Callable[[Vector], float], gradient: Callable[[Vector], Vector],
              information: Callable[[Vector], Matrix], n: int, tolerance: float = 1e-10,
              max_steps: int = 200) -> Vector:
    """Newton's method with step halving on a strictly concave log-posterior of n
    strengths, from all zeros."""
    r = [0.0] * n
    current = value(r)
    for _ in range(max_steps):
        step = _solve(information(r), gradient(r))
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
    for i, curvature in enumerate(_prior_curvature(r)):
        robust[i][i] += curvature
    return robust


def _floored(robust: Matrix, model: Matrix) -> Matrix:
    """D·robust·D with D_ii = sqrt(max(1, model_ii / robust_ii)): each bot's variance at
    least its model-based one, correlations kept (so the matrix stays a covariance)."""
    scale = [math.sqrt(max(1.0, m[i] / r[i])) if r[i] > 0 else 1.0
             for i, (r, m) in enumerate(zip(robust, model, strict=True))]
    return [[scale[i] * value * scale[j] for j, value in enumerate(row)]
            for i, row in enumerate(robust)]


def _sandwich(bread: Matrix, meat: Matrix) -> Matrix:
    """bread · meat · bread (bread symmetric)."""
    return _product(_product(bread, meat), bread)


def _product(a: Matrix, b: Matrix) -> Matrix:
    n = len(b[0]) if b else 0
    return [[sum(row[k] * b[k][j] for k in range(len(b))) for j in range(n)] for row in a]


def _deal_score_products(tally: _Tally, r: Sequence[float]) -> Matrix:
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


# Small dense linear algebra (the information matrix is symmetric positive definite).
def _cholesky(a: Matrix) -> Matrix:
    n = len(a)
    low = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            s = a[i][j] - sum(low[i][k] * low[j][k] for k in range(j))
            low[i][j] = math.sqrt(max(s, 1e-300)) if i == j else s / low[j][j]
    return low


def _cholesky_solve(low: Matrix, b: Sequence[float]) -> list[float]:
    n = len(b)
    y = [0.0] * n
    for i in range(n):
        y[i] = (b[i] - sum(low[i][k] * y[k] for k in range(i))) / low[i][i]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (y[i] - sum(low[k][i] * x[k] for k in range(i + 1, n))) / low[i][i]
    return x


def _solve(a: Matrix, b: Sequence[float]) -> list[float]:
    return _cholesky_solve(_cholesky(a), b)


def _inverse(a: Matrix) -> Matrix:
    low = _cholesky(a)
    n = len(a)
    columns = [_cholesky_solve(low, [float(i == j) for i in range(n)]) for j in range(n)]
    return [[columns[j][i] for j in range(n)] for i in range(n)]


# ---------------------------------------------------------------------------------------
# Plackett–Luce
# ---------------------------------------------------------------------------------------
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
    names = _names(games)
    index = {name: i for i, name in enumerate(names)}
    choices = [_choices(game, index) for game in games]
    linear, pooled = _pool(choices, len(names))
    strengths = _maximise(partial(_pl_log_posterior, linear, pooled),
                          partial(_pl_gradient, linear, pooled),
                          partial(_pl_information, pooled), len(names))
    by_deal: dict[tuple[str, str], list[_Choices]] = {}
    for game, choice in zip(games, choices, strict=True):
        by_deal.setdefault(game.deal_unit, []).append(choice)
    meat = _pl_score_products(by_deal.values(), strengths)
    return _fit(names, strengths, _pl_information(pooled, strengths), meat,
                _tally(games, names), anchor, confidence)


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
    total = _prior_value(r) + sum(c * ri for c, ri in zip(linear, r, strict=True))
    return total - sum(weight * _log_sum_exp(race, r) for weight, race in terms)


def _pl_gradient(linear: Sequence[float], terms: Sequence[Term], r: Sequence[float]
                 ) -> Vector:
    grad = [g + c for g, c in zip(_prior_gradient(r), linear, strict=True)]
    for weight, race in terms:
        for i, share in _shares(race, r).items():
            grad[i] -= weight * share
    return grad


def _pl_information(terms: Sequence[Term], r: Sequence[float]) -> Matrix:
    """Minus the Hessian: Σ w (diag(p) - p pᵀ) over the terms, plus the prior's."""
    info = _diagonal(_prior_curvature(r))
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


# ---------------------------------------------------------------------------------------
# SPRT
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SprtResult:
    """Log-likelihood ratio of H1 against H0, its stopping bounds, and the decision."""

    llr: float
    lower: float
    upper: float
    decision: Literal["H0", "H1"] | None


def sprt(wins: int, draws: int, losses: int, elo0: float, elo1: float,
         alpha: float = 0.05, beta: float = 0.05) -> SprtResult:
    """Sequential probability ratio test of H0: elo = elo0 against H1: elo = elo1.

    The generalised SPRT on trinomial results with plain logistic Elo bounds, in the
    exact form of fishtest's `stat_util.LLR` (fastchess prints the normal approximation
    LLR ≈ (s1 - s0)(2s - s0 - s1) / (2σ²/N)): with s0, s1 = score_from_elo(elo0),
    score_from_elo(elo1), the log-likelihood ratio of the maximum-likelihood
    win/draw/loss distributions of expected score s1 and s0.

    Wald's bounds: lower = ln(β / (1 - α)), upper = ln((1 - β) / α); H1 is accepted at
    LLR ≥ upper, H0 at LLR ≤ lower, else the test continues (decision None). No data
    gives LLR 0; an empty outcome class counts as 1e-3 games (fishtest's `regularize`),
    so that all wins, say, still decide. Results must be independent: `arena.sprt` takes
    one A–B result per game for that reason (every pair of a multi-seat game would not
    be).
    """
    if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1 and elo0 < elo1):
        raise ValueError("need 0 < alpha, beta; alpha + beta < 1; elo0 < elo1")
    lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    llr = _llr_logistic(wins, draws, losses, elo0, elo1)
    decision: Literal["H0", "H1"] | None = (
        "H1" if llr >= upper else "H0" if llr <= lower else None)
    return SprtResult(llr, lower, upper, decision)


def _llr_logistic(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """The generalised log-likelihood ratio of fishtest's `stat_util.LLR`: N times the
    difference of the log-likelihoods of the maximum-likelihood trinomials whose expected
    score is s1 and s0. Empty outcome classes count as 1e-3 games (fishtest's
    `regularize`), so that all wins, say, give a finite ratio."""
    if wins + draws + losses == 0:
        return 0.0
    counts = [float(c) if c else 1e-3 for c in (wins, draws, losses)]
    total = sum(counts)
    freqs = [c / total for c in counts]
    p0 = _mle_trinomial(freqs, score_from_elo(elo0))
    p1 = _mle_trinomial(freqs, score_from_elo(elo1))
    return total * sum(f * math.log(b / a) for f, a, b in zip(freqs, p0, p1, strict=True))


_OUTCOME_SCORES = (1.0, 0.5, 0.0)


def _mle_trinomial(freqs: Sequence[float], score: float) -> list[float]:
    """The distribution closest (in likelihood) to `freqs` with expected score `score`:
    p_i = f_i / (1 + λ(a_i - score)), λ found by bisection (fishtest's `MLE_expected`)."""
    gaps = [a - score for a in _OUTCOME_SCORES]

    def excess(lam: float) -> float:
        return sum(f * g / (1 + lam * g) for f, g in zip(freqs, gaps, strict=True))

    low, high = -1 / (1 - score) + 1e-12, 1 / score - 1e-12
    for _ in range(200):
        mid = (low + high) / 2
        if mid in (low, high):  # the interval is down to adjacent floats
            break
        if excess(mid) > 0:
            low = mid
        else:
            high = mid
    lam = (low + high) / 2
    return [f / (1 + lam * g) for f, g in zip(freqs, gaps, strict=True)]
