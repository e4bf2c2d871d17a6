"""The arena's SPRT: is bot A stronger than bot B? Pure: outcomes in, a verdict out.

Counting (`counting = "deal"`, the default): a generalised SPRT over deals. The schedule
(`arena.schedule.sprt_games`) plays each deal, the same cards, in every rotation of
(A, B, fillers…) and of (B, A, fillers…); those games are one **unit** of the test. A
game scores A against every B seat of it (ahead 1, tied 0.5, behind 0) and takes the
mean: under a Plackett–Luce finishing order each fixed B seat is beaten with probability
logistic(Elo difference), so the mean has that expectation. A unit's score is the mean
over its games (a void game contributes nothing; a unit with no scored game is skipped).
Units are independent even when a deal favours one bot in every seat, games of one deal
are not: the units' scores are what the test reads. Its log-likelihood ratio is fishtest's
generalised one (`LLR_logistic`, there on pentanomial game pairs): the maximum-likelihood
distributions over the observed unit scores with mean s0 and s1 (`deal_llr`), from a
histogram of unit scores (an update costs the number of distinct scores, not of units).
One virtual deal, split between a score below s0 and one above s1 at the spread of a
deal between equal bots (`PRIOR_DEALS`, `PRIOR_SPREAD`, `virtual_deals`), keeps the first
few units from deciding on a spread they have not shown yet.

`counting = "pair"`: the previous test, one A–B result per game, A against the first B
seat after A's going round the table, games read one by one (`ab_score`). It reads half
the information or less, counts the games of a deal as independent, and with copies of B
in the empty seats it keeps a seat-order bias (B right after A). docs/arena-ratings.md
has the figures of both.

Stopping: the test is read in schedule order, unit by unit (a unit is whole games
`k·U … k·U + U − 1`, U = `deal_games`; pair counting: U = 1), over the units whose every
game has finished: the first unit with a game still in flight waits for it. The verdict is
taken at the first unit after which the log-likelihood ratio crosses a bound. Games that
were in flight when the bound was crossed finish and are kept for the tables, but do not
move the verdict; so the verdict printed is always the one the stop was taken on, and it
is the same on every rerun and at any concurrency. `max_games` caps the games read, in
whole units: the test reads at most `max_games // U` units (`SprtTest.limit` games), and
the runner schedules no game beyond them; without a crossing by then the test ends
undecided (`undecided_share`, `undecided_note`).

A void game (it never got going through the host's fault: `GameOutcome.void`) gives no
result; it is finished all the same, so the test reads on past it, and it is one of the
`max_games` scheduled games.

Incremental: `SprtTest` reads finished games as they come (`add`, or `follow` on the
runner's growing list) and keeps its verdict, so a run resumed over N finished games
under a cap of M costs O(N + M), not O(N·M).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Literal

from ratings.elo import elo_from_score, elo_margin, score_from_elo, score_with_stderr
from ratings.records import GameOutcome

Status = Literal["H0", "H1", "max_games", "running"]
COUNTINGS = ("deal", "pair")
"""`[sprt] counting`: a generalised SPRT over deals (default), or one A–B result per game."""
PRIOR_DEALS = 1.0
"""Virtual deals added to the observed ones (deal counting, `virtual_deals`): one deal,
half at a score below s0 and half above s1. A few deals often show a fraction of their
true spread (a quarter, one time in ten, after 5), and the generalised ratio, which
measures the evidence by that spread, would take them for certain; the virtual deal adds
the spread of a deal between equal bots, and its weight fades as deals come (one in
tens). Chosen and validated by simulation: docs/arena-ratings.md."""
PRIOR_SPREAD = 1.25
"""How far the virtual deals lie from the midpoint of the hypotheses, in standard
deviations of a deal between equal bots (`virtual_deals`): nearer, the first deals decide
too often; farther, they are cheap places for the constrained distributions to move
their mean to, and every test is longer (docs/arena-ratings.md)."""


@dataclass(frozen=True)
class SprtSettings:
    """The test's hypotheses, error rates, cap and counting (the `[sprt]` table)."""

    elo0: float = 0.0
    elo1: float = 50.0
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int = 400
    counting: str = "deal"

    @classmethod
    def from_mapping(cls, spec: Mapping[str, Any]) -> SprtSettings:
        """From a config's `[sprt]` table as plain data (keys a and b are ignored)."""
        return cls(**{key: spec[key] for key in ("elo0", "elo1", "alpha", "beta",
                                                  "max_games", "counting") if key in spec})


@dataclass(frozen=True)
class SprtVerdict:
    """Where the sequential test stands over the finished games."""

    status: Status
    """H0 or H1 (decided), max_games (cap reached undecided) or running (neither yet)."""
    games: int
    """Games the verdict reads: indices 0 .. games - 1 (up to the stop), whole units."""
    wins: int
    draws: int
    losses: int
    """A ahead of, tied with, behind a B seat: every B seat of the games read (deal
    counting) or the one designated B seat per game (pair counting)."""
    test: SprtResult
    """The log-likelihood ratio and bounds after those games."""
    counting: str = "deal"
    units: int = 0
    """Results the test counted: deals with a scored game (deal counting), games with an
    A–B result (pair counting)."""
    score: float = 0.5
    """A's mean score per unit."""
    stderr: float = math.inf
    """Its standard error, from the spread of the units' scores."""

    @property
    def stopped(self) -> bool:
        """No more games are needed: decided, or the cap is reached."""
        return self.status != "running"


# ---------------------------------------------------------------------------------------
# The trinomial SPRT on win/draw/loss counts (fishtest's LLR)
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
    so that all wins, say, still decide. Results must be independent: the pair counting
    takes one A–B result per game for that reason (every pair of a multi-seat game would
    not be).
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


# ---------------------------------------------------------------------------------------
# Scoring a game
# ---------------------------------------------------------------------------------------
def deal_games(seating: Sequence[str], a: str, b: str) -> int:
    """Games of one deal in the SPRT schedule (`arena.schedule.sprt_deal`), from the
    seating of any of its games: every rotation of (A, B, fillers…) and of (B, A,
    fillers…), 2 × seats games; when every other seat is B (and with 2 seats) the
    mirrored rotations are the same seatings, so `seats` games."""
    seats = len(seating)
    return seats if all(name in (a, b) for name in seating) else 2 * seats


def game_score(game: GameOutcome, a: str, b: str) -> tuple[Fraction, int, int, int] | None:
    """A's mean score against every B seat of a game (ahead 1, tied 0.5, behind 0), with
    how many B seats A was ahead of, tied with and behind; None for a void game, or when
    A or B is not seated."""
    if game.void is not None or a == b or a not in game.seating or b not in game.seating:
        return None
    place = game.places()
    mine = place[game.seating.index(a)]
    theirs = [place[seat] for seat, name in enumerate(game.seating) if name == b]
    ahead = sum(mine < other for other in theirs)
    tied = sum(mine == other for other in theirs)
    return (Fraction(2 * ahead + tied, 2 * len(theirs)), ahead, tied,
            len(theirs) - ahead - tied)


def designated_b_seat(seating: Sequence[str], a: str, b: str) -> int | None:
    """Pair counting: the seat of B that A is scored against, the first one after A's
    seat going round the table; None when A or B is not seated."""
    if a == b or a not in seating:
        return None
    start = seating.index(a)
    for step in range(1, len(seating)):
        seat = (start + step) % len(seating)
        if seating[seat] == b:
            return seat
    return None


def ab_score(game: GameOutcome, a: str, b: str) -> float | None:
    """Pair counting: A's score against its designated B seat (ahead 1, tied 0.5, behind
    0), or None (no A-B result: a void game, or A or B not seated)."""
    b_seat = designated_b_seat(game.seating, a, b)
    if b_seat is None or game.void is not None:
        return None
    place = game.places()
    a_place, b_place = place[game.seating.index(a)], place[b_seat]
    return 1.0 if a_place < b_place else 0.5 if a_place == b_place else 0.0


def finished_prefix(outcomes: Iterable[GameOutcome]) -> list[GameOutcome]:
    """The games with indices 0, 1, 2, … up to the first index not yet finished."""
    by_index = {game.index: game for game in outcomes}
    prefix: list[GameOutcome] = []
    while len(prefix) in by_index:
        prefix.append(by_index[len(prefix)])
    return prefix


# ---------------------------------------------------------------------------------------
# The generalised log-likelihood ratio over unit scores
# ---------------------------------------------------------------------------------------
def virtual_deals(s0: float, s1: float, games: int, b_seats: int = 1,
                  prior: float | None = None) -> list[tuple[float, float]]:
    """The virtual deals (score, weight): `prior` (PRIOR_DEALS) deals, half at m - r and
    half at m + r, m = (s0 + s1)/2, within [0, 1]. r is PRIOR_SPREAD standard deviations
    of the score of a deal of `games` independent games with `b_seats` B seats each, A's
    place among them uniform (bots of equal strength): m(1 - m)·4·(k + 2)/(12k) per game
    (m(1 - m) for one B seat, a third less for many), or s1 - s0 if wider, so that the
    virtual deals always lie below s0 and above s1."""
    prior = PRIOR_DEALS if prior is None else prior
    middle = (s0 + s1) / 2
    k, n = max(1, b_seats), max(1, games)
    deviation = math.sqrt(middle * (1 - middle) * (k + 2) / (3 * k) / n)
    spread = max(PRIOR_SPREAD * deviation, s1 - s0)
    return [(max(0.0, middle - spread), prior / 2), (min(1.0, middle + spread), prior / 2)]


def deal_llr(counts: Mapping[Fraction, int], s0: float, s1: float, games: int,
             b_seats: int = 1, prior: float | None = None) -> float:
    """The generalised log-likelihood ratio of mean s1 against mean s0 for units of
    `games` games with `b_seats` B seats each, whose scores (in [0, 1]) were seen
    `counts[x]` times.

    For each hypothesis, the distribution over the seen scores and the virtual ones
    (`virtual_deals`) that is most likely under the constraint of mean s: p(x) ∝
    n(x)/(1 + λ(x − s)), λ the root of Σ n(x)(x − s)/(1 + λ(x − s)) = 0 (fishtest's
    `MLE_expected`); the ratio is Σ n(x) log(p1(x)/p0(x)), 0 without units. The virtual
    deals, below s0 and above s1, also keep both means within reach, so that equal scores
    give a finite ratio, and a small one (for deals of 5 games with 4 B seats, elo0 0 and
    elo1 50, each equal score moves it by less than 0.5, and 7 equal deals do not decide).
    """
    if not any(counts.values()):
        return 0.0
    points = [(float(x), float(n)) for x, n in counts.items() if n]
    points += virtual_deals(s0, s1, games, b_seats, prior)
    lam0, lam1 = _lagrange(points, s0), _lagrange(points, s1)
    return math.fsum(n * (math.log1p(lam0 * (x - s0)) - math.log1p(lam1 * (x - s1)))
                     for x, n in points)


def _lagrange(points: Sequence[tuple[float, float]], s: float) -> float:
    """The root λ of Σ n(x - s)/(1 + λ(x - s)) over `points` (x, n), n > 0, whose scores
    straddle s: strictly decreasing in λ on the interval keeping every 1 + λ(x - s) > 0;
    Newton's steps, bisection when one would leave the bracket."""
    gaps = [(x - s, n) for x, n in points]
    low = -1 / max(gap for gap, _ in gaps)
    high = -1 / min(gap for gap, _ in gaps)
    lam = 0.0
    for _ in range(200):
        value = slope = 0.0
        for gap, n in gaps:
            term = gap / (1 + lam * gap)
            value += n * term
            slope -= n * term * term
        if value == 0:
            return lam
        if value > 0:
            low = lam
        else:
            high = lam
        step = lam - value / slope
        if not low < step < high:
            step = (low + high) / 2
        if abs(step - lam) <= 1e-15 * max(1.0, abs(lam)) or step in (low, high):
            return step
        lam = step
    return lam


# ---------------------------------------------------------------------------------------
# The test, read incrementally
# ---------------------------------------------------------------------------------------
class SprtTest:
    """The sequential test over finished games, read in schedule order as they come.

    `add` a finished game in any order (it is read once every game before it, and of its
    unit, has finished); `follow` a growing list of them; `verdict` is where the test
    stands. `deal_games`: games per unit (default: from the first game's seating,
    `deal_games`; pair counting: 1).
    """

    def __init__(self, a: str, b: str, settings: SprtSettings,
                 deal_games: int | None = None) -> None:
        if settings.counting not in COUNTINGS:
            raise ValueError(f"counting must be one of {', '.join(COUNTINGS)}")
        self.a, self.b, self.settings = a, b, settings
        self._bounds = _sprt(0, 0, 0, settings)  # validates the settings too
        self.unit = 1 if settings.counting == "pair" else deal_games
        self._b_seats = 1  # B seats per game, from the first game read
        self._start()

    def _start(self) -> None:
        self._followed: list[GameOutcome] | None = None
        self._seen = 0
        self._pending: dict[int, GameOutcome] = {}
        self._next = 0  # the first game not read
        self._scores: Counter[Fraction] = Counter()  # unit score -> units
        self._units = 0
        self._total = self._squares = 0.0  # sums of the units' scores and their squares
        self._ahead = self._tied = self._behind = 0
        self._test = self._bounds
        self._verdict: SprtVerdict | None = None

    @property
    def limit(self) -> int:
        """Games the test may read: `max_games` rounded down to whole units."""
        unit = self.unit or 1
        return self.settings.max_games // unit * unit

    def add(self, game: GameOutcome) -> None:
        """A finished game; read with every unit it completes."""
        if self.unit is None:
            self.unit = deal_games(game.seating, self.a, self.b)
        if self._test.decision is not None or not self._next <= game.index < self.limit:
            return
        self._pending[game.index] = game
        unit = self.unit
        while (self._test.decision is None and self._next + unit <= self.limit
               and all(self._next + k in self._pending for k in range(unit))):
            self._read([self._pending.pop(self._next + k) for k in range(unit)])
            self._next += unit
            self._verdict = None
        if self._test.decision is not None:
            self._pending.clear()

    def add_all(self, games: Iterable[GameOutcome]) -> SprtTest:
        for game in games:
            self.add(game)
        return self

    def follow(self, games: list[GameOutcome]) -> SprtTest:
        """Read what was appended to `games` since the last call; another list (or a
        shorter one) starts the test over."""
        if games is not self._followed or len(games) < self._seen:
            self._start()
            self._followed = games
        for game in games[self._seen:]:
            self.add(game)
        self._seen = len(games)
        return self

    @property
    def verdict(self) -> SprtVerdict:
        if self._verdict is None:
            self._verdict = self._make_verdict()
        return self._verdict

    def _make_verdict(self) -> SprtVerdict:
        status: Status
        if self._test.decision is not None:
            status = self._test.decision
        elif self.unit is not None and self._next + self.unit > self.limit:
            status = "max_games"
        else:
            status = "running"
        n = self._units
        if self.settings.counting == "pair":
            score, stderr = score_with_stderr(self._ahead, self._tied, self._behind)
        else:
            score = self._total / n if n else 0.5
            variance = (self._squares - n * score * score) / (n - 1) if n > 1 else math.inf
            stderr = math.sqrt(max(variance, 0.0) / n) if n > 1 else math.inf
        return SprtVerdict(status, self._next, self._ahead, self._tied, self._behind,
                           self._test, self.settings.counting, n, score, stderr)

    def _read(self, unit: list[GameOutcome]) -> None:
        if self.settings.counting == "pair":
            result = ab_score(unit[0], self.a, self.b)
            if result is None:
                return
            self._count(1 if result == 1 else 0, 1 if result == 0.5 else 0,
                        1 if result == 0 else 0)
            self._units += 1
            self._test = _sprt(self._ahead, self._tied, self._behind, self.settings)
            return
        self._b_seats = max(1, unit[0].seating.count(self.b))
        scored = [s for s in (game_score(game, self.a, self.b) for game in unit) if s]
        if not scored:
            return
        for _, ahead, tied, behind in scored:
            self._count(ahead, tied, behind)
        score = sum((s[0] for s in scored), Fraction(0)) / len(scored)
        self._scores[score] += 1
        self._units += 1
        self._total += float(score)
        self._squares += float(score) ** 2
        s0, s1 = score_from_elo(self.settings.elo0), score_from_elo(self.settings.elo1)
        llr = deal_llr(self._scores, s0, s1, self.unit or 1, self._b_seats)
        bounds = self._bounds
        decision: Literal["H0", "H1"] | None = (
            "H1" if llr >= bounds.upper else "H0" if llr <= bounds.lower else None)
        self._test = SprtResult(llr, bounds.lower, bounds.upper, decision)

    def _count(self, ahead: int, tied: int, behind: int) -> None:
        self._ahead += ahead
        self._tied += tied
        self._behind += behind


def sprt_verdict(outcomes: Iterable[GameOutcome], a: str, b: str, settings: SprtSettings,
                 deal_games: int | None = None) -> SprtVerdict:
    """The verdict over the finished games of a tournament (see the module)."""
    return SprtTest(a, b, settings, deal_games).add_all(outcomes).verdict


def sequential_test(scores: Iterable[float | None], settings: SprtSettings) -> SprtVerdict:
    """Pair counting over per-game scores in index order (None: no A–B result), stopping
    at the first crossing of a bound or at `settings.max_games` games; fewer scores and
    no crossing: "running"."""
    wins = draws = losses = games = 0
    test = _sprt(0, 0, 0, settings)
    for score in scores:
        if games >= settings.max_games:
            break
        games += 1
        if score is None:
            continue
        wins, draws, losses = wins + (score == 1), draws + (score == 0.5), losses + (score == 0)
        test = _sprt(wins, draws, losses, settings)
        if test.decision is not None:
            return _pair_verdict(test.decision, games, wins, draws, losses, test)
    status: Status = "max_games" if games >= settings.max_games else "running"
    return _pair_verdict(status, games, wins, draws, losses, test)


def _pair_verdict(status: Status, games: int, wins: int, draws: int, losses: int,
                  test: SprtResult) -> SprtVerdict:
    score, stderr = score_with_stderr(wins, draws, losses)
    return SprtVerdict(status, games, wins, draws, losses, test, "pair",
                       wins + draws + losses, score, stderr)


def _sprt(wins: int, draws: int, losses: int, settings: SprtSettings) -> SprtResult:
    return _cached_sprt(wins, draws, losses, settings.elo0, settings.elo1,
                        settings.alpha, settings.beta)


@lru_cache(maxsize=65536)
def _cached_sprt(wins: int, draws: int, losses: int, elo0: float, elo1: float,
                 alpha: float, beta: float) -> SprtResult:
    return sprt(wins, draws, losses, elo0, elo1, alpha, beta)


# ---------------------------------------------------------------------------------------
# How often the cap is reached undecided
# ---------------------------------------------------------------------------------------
def undecided_share(settings: SprtSettings, true_elo: float) -> float:
    """Pair counting: probability that the test reaches `max_games` undecided when A is
    `true_elo` stronger than B, for results without draws (a finishing order has no ties).

    By dynamic programming over the number of wins after each game: the mass still
    undecided moves one game on, and what crosses a bound leaves. Without draws the
    log-likelihood ratio is W·ln(s1/s0) + L·ln((1 - s1)/(1 - s0)), which the test's
    (regularised, trinomial) ratio matches to within a few thousandths.
    """
    s0, s1 = score_from_elo(settings.elo0), score_from_elo(settings.elo1)
    per_win, per_loss = math.log(s1 / s0), math.log((1 - s1) / (1 - s0))
    bounds = _sprt(0, 0, 0, settings)
    win = score_from_elo(true_elo)

    def llr(wins: int, played: int) -> float:
        return wins * per_win + (played - wins) * per_loss

    first, alive = 0, [1.0]  # alive[k]: probability of being undecided with first + k wins
    for played in range(1, settings.max_games + 1):
        padded = [0.0, *alive, 0.0]
        alive = [padded[k] * win + padded[k + 1] * (1 - win) for k in range(len(padded) - 1)]
        while alive and llr(first, played) <= bounds.lower:  # H0 accepted: leaves
            alive.pop(0)
            first += 1
        while alive and llr(first + len(alive) - 1, played) >= bounds.upper:  # H1 accepted
            alive.pop()
    return math.fsum(alive)


def undecided_share_deals(settings: SprtSettings, true_elo: float, variance: float,
                          units: int) -> float:
    """Deal counting: probability that the test is still undecided after `units` units
    whose scores have variance `variance`, when A is `true_elo` stronger than B.

    The Brownian approximation of the generalised ratio (fishtest's `LLR_alt2`): per unit
    it moves by (s1 - s0)(s - (s0 + s1)/2)/σ² on average, with variance (s1 - s0)²/σ²;
    the chance that such a Brownian motion started at 0 stays between the bounds up to
    time `units`, summed over the eigenfunctions of the interval. Simulated tests end
    undecided a little more often (the virtual deal slows the first deals: at the
    defaults 2.6% against 2.0% with 5 seats, 19% against 17.5% with 2;
    docs/arena-ratings.md)."""
    s0, s1 = score_from_elo(settings.elo0), score_from_elo(settings.elo1)
    s = score_from_elo(true_elo)
    if variance <= 0:
        return 0.0
    drift = (s1 - s0) * (s - (s0 + s1) / 2) / variance
    spread = (s1 - s0) ** 2 / variance
    bounds = _sprt(0, 0, 0, settings)
    width, start = bounds.upper - bounds.lower, -bounds.lower
    c = drift / spread
    total = 0.0
    for n in range(1, 400):
        k = n * math.pi / width
        decay = math.exp(-(k * k * spread / 2) * units)
        term = (math.sin(k * start) * decay * k * (1 - (-1) ** n * math.exp(c * width))
                / (c * c + k * k))
        total += term
        if decay < 1e-18:
            break
    share = (2 / width) * math.exp(-c * start - drift * drift / (2 * spread) * units) * total
    return min(1.0, max(0.0, share))


def undecided_note(settings: SprtSettings, variance: float | None = None,
                   unit: int = 1) -> str:
    """One sentence: how often runs end undecided at this cap (`undecided_share` for pair
    counting; `undecided_share_deals` with the units' `variance` seen, of `unit` games
    each, for deal counting)."""
    middle = (settings.elo0 + settings.elo1) / 2
    elos = (settings.elo0, middle, settings.elo1)
    if settings.counting == "pair":
        share = {elo: undecided_share(settings, elo) for elo in elos}
        how = ""
    elif variance:
        units = settings.max_games // unit
        share = {elo: undecided_share_deals(settings, elo, variance, units) for elo in elos}
        how = (f"; Brownian approximation, with the variance of the deals' scores seen, "
               f"{variance:.4f}")
    else:
        return "the deals read are too few, or too alike, to tell how often runs end undecided"
    return (f"with these settings {100 * share[middle]:.0f}% of runs end undecided at "
            f"{settings.max_games} games when the true difference is {middle:g} Elo "
            f"({100 * share[settings.elo0]:.0f}% at elo0, {100 * share[settings.elo1]:.0f}% "
            f"at elo1{how})")


# ---------------------------------------------------------------------------------------
# The verdict as text
# ---------------------------------------------------------------------------------------
def verdict_text(outcomes: Sequence[GameOutcome], spec: Mapping[str, Any]) -> str:
    """The SPRT section of a report: the A–B record, the LLR and the verdict it stopped
    on. `spec` is the config's `[sprt]` table as plain data (a, b, elo0, …)."""
    a, b = spec["a"], spec["b"]
    settings = SprtSettings.from_mapping(spec)
    tester = SprtTest(a, b, settings).add_all(outcomes)
    verdict = tester.verdict
    test = verdict.test
    if not verdict.games:
        lines = [f"{a} vs {b}: no games read yet"]
    elif verdict.counting == "pair":
        lines = [f"{a} vs {b}: {verdict.wins} wins, {verdict.draws} draws, {verdict.losses} "
                 f"losses (one result per game: {a} against the first {b} seat after it; "
                 f"games 0-{verdict.games - 1})"]
    else:
        unit = tester.unit or 1
        lines = [f"{a} vs {b}: {verdict.games // unit} deals of {unit} games read (games "
                 f"0-{verdict.games - 1}), one result per deal: {a}'s mean score against "
                 f"every {b} seat of its games",
                 f"{a} ahead of a {b} seat {verdict.wins} times, tied {verdict.draws}, "
                 f"behind {verdict.losses}; mean score per deal {verdict.score:.3f}"]
    variance = verdict.stderr ** 2 * verdict.units if math.isfinite(verdict.stderr) else None
    lines.append(f"LLR {test.llr:.2f} (bounds {test.lower:.2f}, {test.upper:.2f}; "
                 f"alpha {settings.alpha}, beta {settings.beta}): "
                 f"{_status_text(verdict, a, b, settings, variance, tester.unit or 1)}")
    if 0 < verdict.score < 1 and math.isfinite(verdict.stderr) and verdict.stderr > 0:
        spread = "" if verdict.counting == "pair" else ", from the spread of the deals"
        lines.append(f"Elo difference {elo_from_score(verdict.score):+.0f} "
                     f"± {elo_margin(verdict.score, verdict.stderr):.0f} (95%{spread})")
    void = sum(1 for game in finished_prefix(outcomes)[:verdict.games] if game.void)
    if void:
        lines.append(f"{void} void game(s) among them gave no result (docs/arena.md)")
    extra = len(outcomes) - verdict.games
    if verdict.stopped and extra > 0:
        lines.append(f"{extra} game(s) in flight at the stop finished after it: kept in "
                     f"the tables, not in the verdict")
    return "\n".join(lines)


def _status_text(verdict: SprtVerdict, a: str, b: str, settings: SprtSettings,
                 variance: float | None, unit: int) -> str:
    if verdict.status == "H1":
        return f"H1 accepted: {a} is stronger than {b} (elo1 = {settings.elo1:g})"
    if verdict.status == "H0":
        return (f"H0 accepted: {a} is not stronger than {b} by elo1 "
                f"(elo0 = {settings.elo0:g})")
    if verdict.status == "max_games":
        return f"max_games reached: no decision ({undecided_note(settings, variance, unit)})"
    return (f"running: {verdict.games} of at most {settings.max_games} games read, "
            f"no bound crossed yet (run again to resume)")
