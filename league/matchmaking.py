"""Who plays whom next in a league (pure: the free bots, what the ladder knows and a random
source in; a table out).

A table is chosen for what its game is expected to teach the ladder. C is the covariance of
the ratings: the ladder fit's robust one when the agent has it (`Knowledge.covariance`),
else the pairwise model's, the inverse of I = prior + Σ over pairs of n_ij·w_ij·
(e_i - e_j)(e_i - e_j)ᵀ (n_ij: the pairwise results between bots i and j so far; w_ij =
p_ij(1 - p_ij), p_ij the chance that i finishes ahead of j at the current ratings). One more
game of a table adds one result of each of its pairs: the variances after it follow from C
by the Woodbury identity (`_Model.variances_after`). A table's `cost` is Σ_m var_m⁸ after
its game: a smooth stand-in for the widest interval (the ladder's precision is its widest
interval), which still weighs the others so that the order comes right early too.

The free bot whose rating is least certain is seated first (a newcomer at once); each
further seat goes to the free bot whose seat makes the table's cost least. So a table is
chosen whenever `seats` bots are free: the matchmaking never idles. The same table may come
again while it is still the most informative one. Seats are shuffled. Between two fits
(several tables started in one tick), `Knowledge.after` counts the tables already started.

benchmarks/league_sim.py measures it against round robin and random tables.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from ratings.bradley_terry import prior_curvature
from ratings.elo import ELO_PER_NEPER
from ratings.linalg import Matrix, cholesky, cholesky_solve, inverse
from service.league_records import LadderRow

#: The interval half-width shown for a bot without a rating yet (Elo).
UNRATED_MARGIN = 400.0

Pair = tuple[str, str]


@dataclass(frozen=True)
class Candidate:
    """A connected bot with a free slot."""

    bot: str
    elo: float = 1500.0
    margin: float = UNRATED_MARGIN
    games: int = 0


@dataclass(frozen=True)
class Knowledge:
    """What the ladder knows: every rated bot's rating (free or not), the pairwise results
    between each pair of bots (either order) and, when known, the fit's covariance of the
    ratings (Elo², every pair of rated bots in both orders)."""

    elo: Mapping[str, float]
    pairs: Mapping[Pair, int]
    covariance: Mapping[Pair, float] | None = None

    def after(self, table: Sequence[str]) -> Knowledge:
        """As if the game of `table` had been played once more (expected information: the
        ratings stay, the pairs' counts and the covariance are updated)."""
        pairs = dict(self.pairs)
        for a, b in combinations(table, 2):
            if a != b:
                pairs[a, b] = pairs.get((a, b), 0) + 1
        covariance = None
        if self.covariance is not None:
            elo = {**{bot: 1500.0 for bot in table}, **self.elo}  # a newcomer: no fit yet
            model = _Model(elo, self.pairs, self.covariance)
            if model.from_fit:
                model.add(table)
                covariance = model.covariance_by_pair()
        return Knowledge(self.elo, pairs, covariance)


def candidate(bot: str, row: LadderRow | None) -> Candidate:
    """A free bot as its ladder row (the rating history's last entry) rates it; a bot
    not on the ladder yet is weighed as a newcomer."""
    if row is None:
        return Candidate(bot)
    return Candidate(bot, row.elo, row.margin, row.games)


def next_table(candidates: Sequence[Candidate], seats: int, rng: random.Random,
               knowledge: Knowledge | None = None) -> tuple[str, ...] | None:
    """The bots of the next game, by seat; None only if fewer than `seats` are free."""
    if len(candidates) < seats:
        return None
    model = _Model.of(candidates, knowledge)
    order = {candidate.bot: rng.random() for candidate in candidates}  # ties, at random
    first = max(candidates, key=lambda c: (model.variance(c.bot), -c.games, order[c.bot]))
    table = [first.bot]
    while len(table) < seats:
        rest = [c.bot for c in candidates if c.bot not in table]
        table.append(min(rest, key=lambda bot: (model.cost([*table, bot]), -order[bot])))
    rng.shuffle(table)
    return tuple(table)


class _Model:
    """The ratings' covariance (nepers²) and what a table's game would leave of it (see
    the module)."""

    def __init__(self, elo: dict[str, float], pairs: Mapping[Pair, int],
                 covariance: Mapping[Pair, float] | None = None) -> None:
        for a, b in pairs:
            elo.setdefault(a, 1500.0)
            elo.setdefault(b, 1500.0)
        self.names = sorted(elo)
        self.index = {name: i for i, name in enumerate(self.names)}
        self.elo = elo
        self.from_fit = covariance is not None and all((a, a) in covariance
                                                       for a in self.names)
        if self.from_fit:
            assert covariance is not None
            self.covariance = [[covariance[a, b] / ELO_PER_NEPER ** 2 for b in self.names]
                               for a in self.names]
        else:
            self.covariance = _centred(inverse(self._information(pairs)))

    @classmethod
    def of(cls, candidates: Iterable[Candidate], knowledge: Knowledge | None) -> _Model:
        elo = dict(knowledge.elo) if knowledge else {}
        for candidate in candidates:
            elo.setdefault(candidate.bot, candidate.elo)
        if knowledge is None:
            return cls(elo, {})
        return cls(elo, knowledge.pairs, knowledge.covariance)

    def _weight(self, a: str, b: str) -> float:
        p = 1.0 / (1.0 + 10 ** ((self.elo[b] - self.elo[a]) / 400.0))
        return p * (1 - p)

    def _information(self, pairs: Mapping[Pair, int]) -> Matrix:
        strengths = [(self.elo[name] - 1500.0) / ELO_PER_NEPER for name in self.names]
        info = [[0.0] * len(self.names) for _ in self.names]
        for i, curvature in enumerate(prior_curvature(strengths)):
            info[i][i] = curvature
        for (a, b), count in pairs.items():
            if a == b or not count:
                continue
            i, j, w = self.index[a], self.index[b], count * self._weight(a, b)
            info[i][i] += w
            info[j][j] += w
            info[i][j] -= w
            info[j][i] -= w
        return info

    def variance(self, bot: str) -> float:
        i = self.index[bot]
        return self.covariance[i][i]

    def variances_after(self, table: Sequence[str]) -> list[float]:
        """Every bot's variance after one result of each pair of `table`: C' = C - C U
        (W⁻¹ + Uᵀ C U)⁻¹ Uᵀ C, U's columns e_i - e_j, W the pairs' weights."""
        c, index = self.covariance, self.index
        pairs = [(index[a], index[b], self._weight(a, b))
                 for a, b in combinations(table, 2) if a != b]
        if not pairs:
            return [c[m][m] for m in range(len(c))]
        cu = [[row[i] - row[j] for i, j, _ in pairs] for row in c]  # C U
        inner = [[cu[i][q] - cu[j][q] + (1.0 / w if p == q else 0.0)
                  for q in range(len(pairs))] for p, (i, j, w) in enumerate(pairs)]
        low = cholesky(inner)  # (W⁻¹ + Uᵀ C U is positive definite)
        return [c[m][m] - sum(x * y for x, y in zip(row, cholesky_solve(low, row), strict=True))
                for m, row in enumerate(cu)]

    def cost(self, table: Sequence[str]) -> float:
        """Σ var⁸ after the table's game (see the module)."""
        return sum(max(v, 0.0) ** 8 for v in self.variances_after(table))

    def add(self, table: Sequence[str]) -> None:
        """The covariance after one result of each pair of `table` (rank-one updates)."""
        c = self.covariance
        for a, b in combinations(table, 2):
            if a == b:
                continue
            i, j, w = self.index[a], self.index[b], self._weight(a, b)
            u = [row[i] - row[j] for row in c]
            scale = w / (1 + w * (u[i] - u[j]))
            for m, um in enumerate(u):
                for k, uk in enumerate(u):
                    c[m][k] -= scale * um * uk

    def covariance_by_pair(self) -> dict[Pair, float]:
        return {(a, b): self.covariance[i][j] * ELO_PER_NEPER ** 2
                for i, a in enumerate(self.names) for j, b in enumerate(self.names)}


def _centred(cov: Matrix) -> Matrix:
    """P C Pᵀ, P = I - 11ᵀ/n: the covariance of the ratings less their mean (the ladder's
    scale: the ratings average to the anchor)."""
    n = len(cov)
    row_mean = [sum(row) / n for row in cov]
    total = sum(row_mean) / n
    return [[cov[i][j] - row_mean[i] - row_mean[j] + total for j in range(n)]
            for i in range(n)]
