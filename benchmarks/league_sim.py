"""Simulated leagues: how many games each matchmaking needs, and whether the ladder's
intervals cover the truth.

Bots of known strengths (evenly spread over `--spread` Elo) play one table at a time, every
bot free (a league's steady state); finishing orders follow Plackett–Luce (`pl`: Gumbel
noise) or Thurstone (`thurstone`: normal noise, sd 1.702/√2 nepers). After each game the
ladder is refitted from pooled statistics (`ratings.pooled`, the league's fit) and the
matchmaking chooses the next table from it.

    python3 benchmarks/league_sim.py games      # games until every half-width <= 75 Elo,
                                                # and until the order is right, per policy
    python3 benchmarks/league_sim.py coverage   # interval coverage of the pairwise truth

Policies: `round-robin` (every table of the bots once, in a shuffled order, then again),
`random` (any `seats` bots), `league` (league.matchmaking.next_table with the ladder fit's
ratings and covariance, what leagues run; it must never idle with every bot free), `design`
(an oracle no league has: the table frequencies that make the pairwise model's widest
interval narrowest at the true strengths, found by Frank–Wolfe, and the tables played in
those proportions; it prints how many games the model says it saves over round robin).
"""

from __future__ import annotations

import argparse
import functools
import itertools
import math
import random
import statistics
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from league.matchmaking import UNRATED_MARGIN, Candidate, Knowledge, next_table  # noqa: E402
from ratings.bradley_terry import BradleyTerryFit, pairwise_truth  # noqa: E402
from ratings.elo import ELO_PER_NEPER  # noqa: E402
from ratings.pooled import PairwiseStats, fit_pooled  # noqa: E402
from ratings.records import GameOutcome  # noqa: E402

THURSTONE_SD = 1.702 / math.sqrt(2)
TARGET = 75.0
Policy = Callable[[random.Random], Iterator[tuple[str, ...]]]


@dataclass(frozen=True)
class League:
    """A simulated league: bots, their true Elo, seats per game, the noise."""

    bots: int
    seats: int
    noise: str = "pl"
    spread: float = 600.0

    def names(self) -> tuple[str, ...]:
        return tuple(f"bot{i:02d}" for i in range(self.bots))

    def strengths(self) -> dict[str, float]:
        step = self.spread / max(self.bots - 1, 1)
        return {name: 1500 - self.spread / 2 + i * step for i, name in enumerate(self.names())}

    def play(self, rng: random.Random, seating: Sequence[str], index: int) -> GameOutcome:
        """One game: seats in order of strength plus noise."""
        elo = self.strengths()
        performance = [elo[bot] / ELO_PER_NEPER + self._noise(rng) for bot in seating]
        order = sorted(range(len(seating)), key=lambda seat: -performance[seat])
        return GameOutcome(index=index, seed=0, seating=tuple(seating),
                           ranking=tuple((seat,) for seat in order), forfeits=(), reason="",
                           deal=f"game{index}")

    def _noise(self, rng: random.Random) -> float:
        if self.noise == "pl":
            return -math.log(-math.log(rng.random() or 1e-300))
        return rng.gauss(0.0, THURSTONE_SD)

    def truth(self) -> dict[str, float]:
        """Each bot's pairwise truth (the ratings of each pair's chance of finishing
        ahead), on the fit's scale (mean 1500)."""
        elo = self.strengths()
        if self.noise == "pl":
            mean = statistics.fmean(elo.values())
            return {bot: value - mean + 1500 for bot, value in elo.items()}
        ahead = {}
        for a, b in combinations(self.names(), 2):
            d = (elo[a] - elo[b]) / ELO_PER_NEPER
            ahead[a, b] = statistics.NormalDist().cdf(d / (THURSTONE_SD * math.sqrt(2)))
        return pairwise_truth(ahead)


def round_robin(league: League, rng: random.Random) -> Iterator[tuple[str, ...]]:
    tables = list(combinations(league.names(), league.seats))
    while True:
        rng.shuffle(tables)
        for table in tables:
            seating = list(table)
            rng.shuffle(seating)
            yield tuple(seating)


def random_tables(league: League, rng: random.Random) -> Iterator[tuple[str, ...]]:
    while True:
        yield tuple(rng.sample(league.names(), league.seats))


@functools.cache
def optimal_design(league: League, steps: int = 3000) -> tuple[list[tuple[str, ...]],
                                                                 list[float], float]:
    """Every table, its share in the design that minimises the largest model variance of
    the centred ratings at the true strengths (Frank–Wolfe on Σ var⁴⁰), and the model's
    ratio of round robin's largest variance to the design's."""
    import numpy as np
    names = league.names()
    truth = league.truth()
    r = np.array([(truth[name] - 1500.0) / ELO_PER_NEPER for name in names])
    n = len(names)
    tables = list(combinations(range(n), league.seats))
    per_table = np.zeros((len(tables), n, n))
    for k, table in enumerate(tables):
        for i, j in combinations(table, 2):
            p = 1.0 / (1.0 + math.exp(r[j] - r[i]))
            w = p * (1 - p)
            per_table[k, i, i] += w
            per_table[k, j, j] += w
            per_table[k, i, j] -= w
            per_table[k, j, i] -= w
    centre = np.eye(n) - 1.0 / n

    def covariance(shares: np.ndarray) -> np.ndarray:
        return centre @ np.linalg.pinv(np.tensordot(shares, per_table, 1)) @ centre

    shares = np.full(len(tables), 1.0 / len(tables))
    for step in range(steps):
        c = covariance(shares)
        v = np.diag(c)
        weights = (v / v.max()) ** 39
        gradient = -np.einsum("k,ki,tij,jk->t", weights, c, per_table, c)
        size = 2.0 / (step + 3)
        shares *= 1 - size
        shares[int(np.argmin(gradient))] += size
    uniform = np.full(len(tables), 1.0 / len(tables))
    ratio = float(np.diag(covariance(uniform)).max() / np.diag(covariance(shares)).max())
    return [tuple(names[i] for i in table) for table in tables], shares.tolist(), ratio


def designed(league: League, rng: random.Random) -> Iterator[tuple[str, ...]]:
    """The oracle design's tables, each played as soon as its count falls behind its
    share."""
    tables, shares, _ = optimal_design(league)
    counts = [0] * len(tables)
    for played in itertools.count():
        k = max(range(len(tables)), key=lambda t: shares[t] * (played + 1) - counts[t])
        counts[k] += 1
        seating = list(tables[k])
        rng.shuffle(seating)
        yield tuple(seating)


def knowledge(fit: BradleyTerryFit | None, stats: PairwiseStats) -> Knowledge:
    """What the league agent tells the matchmaking: the ladder fit's ratings and
    covariance, the pairs' counts."""
    if fit is None:
        return Knowledge({}, stats.counts)
    return Knowledge({bot: rating.elo for bot, rating in fit.ratings.items()}, stats.counts,
                     {(a, b): fit.covariance[i][j] for i, a in enumerate(fit.names)
                      for j, b in enumerate(fit.names)})


def candidates(league: League, fit: BradleyTerryFit | None,
               games: dict[str, int]) -> list[Candidate]:
    """Every bot free, as the league agent describes them to the matchmaking."""
    found = []
    for bot in league.names():
        rating = fit.ratings.get(bot) if fit else None
        found.append(Candidate(bot, rating.elo if rating else 1500.0,
                               rating.margin if rating else UNRATED_MARGIN,
                               games.get(bot, 0)))
    return found


def run(league: League, policy: str, seed: int, limit: int) -> tuple[int, int]:
    """Games until every half-width <= TARGET, and until the fitted order is the true
    order (limit + 1 when not reached)."""
    rng = random.Random(seed)
    truth = league.truth()
    true_order = sorted(truth, key=truth.__getitem__)
    stats = PairwiseStats()
    fit: BradleyTerryFit | None = None
    games: dict[str, int] = {}
    fixed = {"round-robin": round_robin, "random": random_tables,
             "design": designed}.get(policy)
    tables = fixed(league, rng) if fixed else None
    narrow = ordered = limit + 1
    for index in range(limit):
        if tables is not None:
            seating = next(tables)
        else:
            chosen = next_table(candidates(league, fit, games), league.seats, rng,
                                knowledge(fit, stats))
            assert chosen is not None, "the matchmaking idled with every bot free"
            seating = chosen
        stats.add(league.play(rng, seating, index))
        for bot in seating:
            games[bot] = games.get(bot, 0) + 1
        if len(games) < league.bots:
            continue
        fit = fit_pooled(stats)
        if narrow > limit and max(r.margin for r in fit.ratings.values()) <= TARGET:
            narrow = index + 1
        if ordered > limit and sorted(fit.ratings, key=lambda b: fit.ratings[b].elo) \
                == true_order:
            ordered = index + 1
        if narrow <= limit and ordered <= limit:
            break
    return narrow, ordered


def games_table(args: argparse.Namespace) -> None:
    print(f"games until every half-width <= {TARGET:g} Elo / until the order is right "
          f"(median over {args.runs} leagues; spread {args.spread:g} Elo, {args.noise})")
    print(f"{'bots':>4} {'seats':>5}  " + "  ".join(f"{p:>18}" for p in args.policies))
    with ProcessPoolExecutor(args.jobs) as pool:
        for bots in args.bots:
            for seats in args.seats:
                league = League(bots, seats, args.noise, args.spread)
                if "design" in args.policies:
                    ratio = optimal_design(league)[2]
                    print(f"{bots} bots, {seats} seats: by the model, the oracle design "
                          f"needs {1 - 1 / ratio:.1%} fewer games than round robin")
                cells = []
                for policy in args.policies:
                    results = list(pool.map(run, [league] * args.runs, [policy] * args.runs,
                                            range(args.seed, args.seed + args.runs),
                                            [args.limit] * args.runs))
                    narrow = statistics.median(r[0] for r in results)
                    ordered = statistics.median(r[1] for r in results)
                    cells.append(f"{narrow:>8.0f} / {ordered:>7.0f}")
                print(f"{bots:>4} {seats:>5}  " + "  ".join(f"{c:>18}" for c in cells),
                      flush=True)


def coverage_run(league: League, results: int, seed: int) -> list[bool]:
    """Whether each bot's interval covers its pairwise truth after `results` random
    tables."""
    rng = random.Random(seed)
    stats = PairwiseStats()
    tables = random_tables(league, rng)
    for index in range(results):
        stats.add(league.play(rng, next(tables), index))
    fit = fit_pooled(stats)
    truth = league.truth()
    return [r.low <= truth[bot] <= r.high for bot, r in sorted(fit.ratings.items())]


def coverage_table(args: argparse.Namespace) -> None:
    print(f"share of leagues whose interval covers the bot's pairwise truth "
          f"({args.runs} leagues, {args.bots[0]} bots, random tables; worst bot, mean)")
    with ProcessPoolExecutor(args.jobs) as pool:
        for noise in ("pl", "thurstone"):
            for seats in args.seats:
                for results in args.results:
                    league = League(args.bots[0], seats, noise, args.spread)
                    runs = list(pool.map(coverage_run, [league] * args.runs,
                                         [results] * args.runs, range(args.runs)))
                    per_bot = [statistics.fmean(run[i] for run in runs)
                               for i in range(args.bots[0])]
                    print(f"{noise:>9} {seats} seats {results:>6} results: worst "
                          f"{min(per_bot):.1%}, mean {statistics.fmean(per_bot):.1%}",
                          flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("games", "coverage"))
    parser.add_argument("--bots", type=int, nargs="+", default=[8])
    parser.add_argument("--seats", type=int, nargs="+", default=[4])
    parser.add_argument("--policies", nargs="+", default=["round-robin", "random", "league"])
    parser.add_argument("--results", type=int, nargs="+", default=[400, 2000])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0,
                        help="the first league's seed (leagues seed, seed + 1, ...)")
    parser.add_argument("--limit", type=int, default=4000)
    parser.add_argument("--noise", choices=("pl", "thurstone"), default="thurstone")
    parser.add_argument("--spread", type=float, default=600.0)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    (games_table if args.what == "games" else coverage_table)(args)



if __name__ == "__main__":
    main()
