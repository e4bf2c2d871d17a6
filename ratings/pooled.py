"""The pairwise Bradley–Terry fit from pooled sufficient statistics, for results that never
stop arriving (a league): each result is added in O(k²) for a k-seat game, and a refit costs
what the bots and the distinct tables cost, never what the number of results costs.

`fit_bradley_terry` over games that are each their own deal needs, at any strengths r:
- for the estimate, each pair's points and count (`points`, `counts`);
- for the robust interval, J = Σ_c u_c u_cᵀ over the games c, u_c = a_c - b_T(r): a_c the
  game's pairwise scores as a vector over bots (a win of i over j adds e_i - e_j), and
  b_T(r) = Σ over the pairs of its table T of σ(r_i - r_j)(e_i - e_j), the same for every
  game at the same table (the same bots, whatever the seat order). So
  J = Σ_c a_c a_cᵀ - Σ_T (A_T b_Tᵀ + b_T A_Tᵀ) + Σ_T n_T b_T b_Tᵀ,
  with A_T = Σ_{c at T} a_c and n_T the games at T: `products` (Σ a aᵀ) and `tables`.
The fit is then the same as `fit_bradley_terry(games)` with every game its own deal, to
rounding (tests/arena/test_pooled_ratings.py). Pure: no I/O, standard library only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ratings.bradley_terry import (
    BradleyTerryFit,
    Tally,
    _gradient,
    _information,
    _log_posterior,
    _sigmoid,
    maximise,
    robust_fit,
)
from ratings.linalg import Matrix
from ratings.records import GameOutcome, pairwise

Pair = tuple[str, str]


@dataclass
class TableStats:
    """The games at one table (a multiset of bots): how many, and their scores summed."""

    games: int = 0
    scores: dict[str, float] = field(default_factory=dict)
    """A_T: Σ over its games of each bot's pairwise points minus its expected share."""


@dataclass
class PairwiseStats:
    """Pooled sufficient statistics of the pairwise fit of games each their own deal."""

    games: int = 0
    points: dict[Pair, float] = field(default_factory=dict)
    """Points of the first bot against the second (both orders kept)."""
    counts: dict[Pair, int] = field(default_factory=dict)
    """Pairwise results between two bots (the key sorted)."""
    products: dict[Pair, float] = field(default_factory=dict)
    """Σ_c a_c a_cᵀ (the key sorted: the matrix is symmetric)."""
    tables: dict[tuple[str, ...], TableStats] = field(default_factory=dict)

    def add(self, game: GameOutcome) -> None:
        """Count one game (a void game counts for nothing; one without a pair of two bots
        counts as a deal, as in `fit_bradley_terry`)."""
        if game.void is not None:
            return
        pairs = pairwise(game)
        self.games += 1
        score: dict[str, float] = {}
        for first, second, result in pairs:  # oriented by name, as _expected_scores is
            a, b, points = (first, second, result) if first < second else \
                (second, first, 1 - result)
            self.points[a, b] = self.points.get((a, b), 0.0) + points
            self.points[b, a] = self.points.get((b, a), 0.0) + 1 - points
            self.counts[a, b] = self.counts.get((a, b), 0) + 1
            score[a] = score.get(a, 0.0) + points
            score[b] = score.get(b, 0.0) - points
        for a, x in score.items():
            for b, y in score.items():
                if a <= b and x * y:
                    self.products[a, b] = self.products.get((a, b), 0.0) + x * y
        table = self.tables.setdefault(tuple(sorted(game.seating)), TableStats())
        table.games += 1
        for bot, x in score.items():
            table.scores[bot] = table.scores.get(bot, 0.0) + x

    def remove(self, game: GameOutcome) -> None:
        """Uncount a game `add` counted (a voided result): the statistics become those of
        the other games. Scores are multiples of ½, so the subtraction is exact."""
        if game.void is not None:
            return
        score = self._scores(pairwise(game))
        self.games -= 1
        for first, second, result in pairwise(game):
            a, b, points = (first, second, result) if first < second else \
                (second, first, 1 - result)
            self.points[a, b] -= points
            self.points[b, a] -= 1 - points
            self.counts[a, b] -= 1
            if not self.counts[a, b]:
                del self.counts[a, b], self.points[a, b], self.points[b, a]
        for a, x in score.items():
            for b, y in score.items():
                if a <= b and x * y:
                    self.products[a, b] -= x * y
                    if not self.products[a, b]:
                        del self.products[a, b]
        seating = tuple(sorted(game.seating))
        table = self.tables[seating]
        table.games -= 1
        for bot, x in score.items():
            table.scores[bot] -= x
        if not table.games:
            del self.tables[seating]

    @staticmethod
    def _scores(pairs: Iterable[tuple[str, str, float]]) -> dict[str, float]:
        """a_c: each bot's pairwise points minus its opponents' (oriented by name)."""
        score: dict[str, float] = {}
        for first, second, result in pairs:
            a, b, points = (first, second, result) if first < second else \
                (second, first, 1 - result)
            score[a] = score.get(a, 0.0) + points
            score[b] = score.get(b, 0.0) - points
        return score

    def bots(self) -> tuple[str, ...]:
        return tuple(sorted({bot for pair in self.counts for bot in pair}))

    def to_json(self) -> dict[str, Any]:
        """As JSON (pairs as "a\\tb", tables as "a\\tb\\tc": bot names hold no tab)."""
        return {"games": self.games,
                "points": {_joined(k): v for k, v in self.points.items()},
                "counts": {_joined(k): v for k, v in self.counts.items()},
                "products": {_joined(k): v for k, v in self.products.items()},
                "tables": {_joined(k): {"games": t.games, "scores": t.scores}
                           for k, t in self.tables.items()}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PairwiseStats:
        return cls(
            games=int(data["games"]),
            points={_pair(k): float(v) for k, v in data["points"].items()},
            counts={_pair(k): int(v) for k, v in data["counts"].items()},
            products={_pair(k): float(v) for k, v in data["products"].items()},
            tables={tuple(k.split("\t")): TableStats(int(t["games"]),
                                                     {b: float(x) for b, x in
                                                      t["scores"].items()})
                    for k, t in data["tables"].items()})


def pooled(games: Iterable[GameOutcome]) -> PairwiseStats:
    """The statistics of `games`."""
    stats = PairwiseStats()
    for game in games:
        stats.add(game)
    return stats


def fit_pooled(stats: PairwiseStats, anchor: float = 1500.0,
               confidence: float = 0.95) -> BradleyTerryFit:
    """`fit_bradley_terry` of the pooled games, each its own deal (see the module)."""
    names = stats.bots()
    tally = _tally(stats, names)
    strengths = maximise(partial(_log_posterior, tally), partial(_gradient, tally),
                         partial(_information, tally), len(names))
    meat = _score_products(stats, names, strengths)
    return robust_fit(names, strengths, _information(tally, strengths), meat, tally,
                      anchor, confidence)


def _tally(stats: PairwiseStats, names: tuple[str, ...]) -> Tally:
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    tally = Tally([[0.0] * n for _ in range(n)], [[0.0] * n for _ in range(n)], [],
                  units=stats.games)
    for (a, b), points in stats.points.items():
        tally.points[index[a]][index[b]] = points
    for (a, b), count in stats.counts.items():
        tally.counts[index[a]][index[b]] = tally.counts[index[b]][index[a]] = count
    return tally


def _score_products(stats: PairwiseStats, names: tuple[str, ...],
                    r: list[float]) -> Matrix:
    """J at strengths r (see the module)."""
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    meat = [[0.0] * n for _ in range(n)]
    for (a, b), value in stats.products.items():
        meat[index[a]][index[b]] += value
        if a != b:
            meat[index[b]][index[a]] += value
    for seating, table in stats.tables.items():
        expected = _expected_scores(seating, index, r)
        for bot, x in expected.items():
            i = index[bot]
            for other, y in expected.items():
                meat[i][index[other]] += table.games * x * y
            for other, total in table.scores.items():
                j = index[other]
                meat[i][j] -= x * total
                meat[j][i] -= x * total
    return meat


def _expected_scores(seating: tuple[str, ...], index: Mapping[str, int],
                     r: list[float]) -> dict[str, float]:
    """b_T(r): each bot's expected pairwise points minus its opponents' at the table."""
    expected: dict[str, float] = {}
    for x, a in enumerate(seating):
        for b in seating[x + 1:]:
            if a != b:
                p = _sigmoid(r[index[a]] - r[index[b]])
                expected[a] = expected.get(a, 0.0) + p
                expected[b] = expected.get(b, 0.0) - p
    return expected


def _joined(key: tuple[str, ...]) -> str:
    return "\t".join(key)


def _pair(text: str) -> Pair:
    a, b = text.split("\t")
    return a, b
