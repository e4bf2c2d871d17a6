"""Coverage and precision of the arena's ratings against known strengths, per bot.

Simulated tournaments: bots of known Elo, finishing orders drawn from a Plackett–Luce
model (each place goes to a remaining seat with odds 10^(elo/400)), seatings drawn at
random. For each model (`bt`: pairwise Bradley–Terry, `pl`: Plackett–Luce on the full
finishing order; both with robust intervals), seat count and tournament length: the share
of tournaments in which each bot's 95% interval holds its true rating (true Elo minus the
mean of the true Elos, plus the anchor); how often the fit and the sequential Elo put all
bots in the true order; and the mean squared error of the ratings, whose ratio between
two models is the ratio of games they need for the same precision.

    python3 benchmarks/rating_coverage.py            # 400 tournaments per cell (minutes)
    python3 benchmarks/rating_coverage.py --runs 100 --games 200 --seats 4 --models pl
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.ratings import (  # noqa: E402
    BradleyTerryFit,
    GameOutcome,
    elo_history,
    fit_bradley_terry,
    fit_plackett_luce,
)

MODELS: dict[str, Callable[..., BradleyTerryFit]] = {"bt": fit_bradley_terry,
                                                      "pl": fit_plackett_luce}

TRUE_ELO = {"weak": 1300.0, "mid": 1500.0, "good": 1700.0, "best": 1800.0, "top": 1900.0}
ANCHOR = 1500.0


def plackett_luce(rng: random.Random, seating: Sequence[str]) -> list[int]:
    """Seats best first, each place drawn with odds 10^(elo/400) among those left."""
    left = list(range(len(seating)))
    order = []
    while left:
        pick = rng.choices(left, weights=[10 ** (TRUE_ELO[seating[s]] / 400) for s in left])[0]
        order.append(pick)
        left.remove(pick)
    return order


def simulate(rng: random.Random, games: int, seats: int) -> list[GameOutcome]:
    """`games` games seating `seats` distinct bots drawn at random."""
    outcomes = []
    for index in range(games):
        seating = tuple(rng.sample(sorted(TRUE_ELO), seats))
        order = plackett_luce(rng, seating)
        outcomes.append(GameOutcome(index=index, seed=index, seating=seating,
                                    ranking=tuple((seat,) for seat in order)))
    return outcomes


def true_rating(name: str) -> float:
    return ANCHOR + TRUE_ELO[name] - sum(TRUE_ELO.values()) / len(TRUE_ELO)


def ordered(ratings: dict[str, float]) -> bool:
    return sorted(ratings, key=ratings.__getitem__) == sorted(TRUE_ELO, key=TRUE_ELO.__getitem__)


def cell(runs: int, games: int, seats: int, seed: int, model: str
         ) -> tuple[dict[str, float], float, float, float]:
    """Per-bot coverage; the share of runs in true order for the fit and for sequential
    Elo; the mean squared error of the ratings (Elo², over bots and runs)."""
    rng = random.Random(seed)  # the same tournaments for every model
    covered = dict.fromkeys(TRUE_ELO, 0)
    fit_ordered = elo_ordered = 0
    squared = 0.0
    for _ in range(runs):
        outcomes = simulate(rng, games, seats)
        ratings = MODELS[model](outcomes, anchor=ANCHOR).ratings
        for name, rating in ratings.items():
            covered[name] += rating.low <= true_rating(name) <= rating.high
            squared += (rating.elo - true_rating(name)) ** 2
        fit_ordered += ordered({name: r.elo for name, r in ratings.items()})
        elo_ordered += ordered(elo_history(outcomes, initial=ANCHOR)[0])
    return ({name: count / runs for name, count in covered.items()}, fit_ordered / runs,
            elo_ordered / runs, squared / runs / len(TRUE_ELO))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--games", type=int, nargs="+", default=[50, 200, 800])
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 3, 4, 5])
    parser.add_argument("--models", nargs="+", choices=sorted(MODELS), default=["bt", "pl"])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    names = sorted(TRUE_ELO, key=TRUE_ELO.__getitem__)
    print(f"95% interval coverage per bot, {args.runs} tournaments per line; games needed "
          f"for the same precision, relative to the first model")
    print(f"{'model':>5} {'seats':>5} {'games':>6} " + " ".join(f"{n:>6}" for n in names)
          + "  fit order  Elo order  RMSE  games needed")
    for seats in args.seats:
        for games in args.games:
            first = 0.0
            for model in args.models:
                coverage, fit_order, elo_order, mse = cell(args.runs, games, seats,
                                                           args.seed, model)
                first = first or mse
                print(f"{model:>5} {seats:>5} {games:>6} "
                      + " ".join(f"{100 * coverage[n]:5.1f}%" for n in names)
                      + f"  {100 * fit_order:8.1f}%  {100 * elo_order:8.1f}%"
                      + f"  {mse ** 0.5:4.0f}  {100 * mse / first:5.1f}%", flush=True)


if __name__ == "__main__":
    main()
