"""Coverage and precision of the arena's ratings against known strengths, per bot.

Simulated tournaments played like the arena's schedule: each deal seats `seats` distinct
bots drawn at random and is played in every rotation of them (the games of a deal share
its cards), until the tournament has its games. A seat's performance is its bot's
strength plus noise, and seats finish in order of performance:

- `pl`: Gumbel noise, so that finishing orders follow Plackett–Luce (each place goes to a
  remaining seat with odds 10^(elo/400)), the model of the `pl` fit;
- `thurstone`: normal noise, sd 1.702/√2 nepers (209 Elo), so that two near-equal bots
  finish in order with about the logistic odds of their Elo difference;
- `scales`: Gumbel noise with a scale per bot (SCALES: erratic and steady bots), so no
  single rating per bot gives every pair's odds.

`--deal-effect ELO` adds a bonus drawn per deal, normal with that sd in Elo, shared by
every game of the deal: by bot (`--deal-favours bot`: the cards suit one bot's play in
every rotation) or by seat position (`seat`: the cards favour a seat, which each bot of
the deal takes once).

The truth a fit is checked against is the **pairwise truth**: each pair's chance of
finishing ahead (computed by numerical convolution of the noises and the deal bonus),
mapped to ratings by the Bradley–Terry fit of those chances (`ratings.bradley_terry.
pairwise_truth`; every pair meets equally often here). Under `pl` without a deal
effect it is the bots' Elo. For each fit (`bt`: the headline, pairwise Bradley–Terry;
`pl`: Plackett–Luce on the full finishing order; both with robust intervals), unit of
the robust covariance (`deal`: games of a deal summed, the arena's; `game`: each game
alone, as before), seat count and tournament length: the share of tournaments in which
each bot's 95% interval holds its true rating, how often the fit and the sequential Elo
put all bots in the true order, the root mean squared error and the mean half-width.

    python3 benchmarks/rating_coverage.py           # headline, 3 noises, 200 runs (minutes)
    python3 benchmarks/rating_coverage.py --runs 400 --games 50 200 800 --fits bt pl
    python3 benchmarks/rating_coverage.py --noise pl --deal-effect 100 --units deal game
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ratings import bradley_terry  # noqa: E402
from ratings.bradley_terry import (  # noqa: E402
    BradleyTerryFit,
    fit_bradley_terry,
    pairwise_truth,
)
from ratings.elo import ELO_PER_NEPER, elo_history, normal_quantile  # noqa: E402
from ratings.plackett_luce import fit_plackett_luce  # noqa: E402
from ratings.records import GameOutcome  # noqa: E402

FITS: dict[str, Callable[..., BradleyTerryFit]] = {"bt": fit_bradley_terry,
                                                    "pl": fit_plackett_luce}
TRUE_ELO = {"weak": 1300.0, "mid": 1500.0, "good": 1700.0, "best": 1800.0, "top": 1900.0}
NAMES = tuple(sorted(TRUE_ELO, key=TRUE_ELO.__getitem__))
ANCHOR = 1500.0
THURSTONE_SD = 1.702 / math.sqrt(2)
"""Normal noise per seat, in nepers: Φ(d / (sd √2)) = Φ(d / 1.702) ≈ σ(d) near d = 0."""
SCALES = {"weak": 1.5, "mid": 0.7, "good": 1.0, "best": 1.5, "top": 0.6}
"""Gumbel scale per bot for the `scales` noise (1 is Plackett–Luce's)."""
NOISES = ("pl", "thurstone", "scales")


@dataclass(frozen=True)
class Setting:
    """How finishing orders are drawn."""

    noise: str = "pl"
    deal_effect: float = 0.0
    """Sd of the per-deal bonus, in Elo."""
    favours: str = "bot"
    """Whom the deal bonus goes with: "bot" or "seat"."""


def noise(rng: random.Random, setting: Setting, name: str) -> float:
    """One seat's performance noise, in nepers."""
    if setting.noise == "thurstone":
        return rng.gauss(0.0, THURSTONE_SD)
    scale = SCALES[name] if setting.noise == "scales" else 1.0
    return -scale * math.log(-math.log(1.0 - rng.random()))   # Gumbel(0, scale)


def simulate(rng: random.Random, games: int, seats: int, setting: Setting,
             units: str = "deal") -> list[GameOutcome]:
    """`games` games, deal by deal (the last one possibly cut short); `units` "game"
    gives each game a deal of its own (the per-game intervals of before)."""
    outcomes: list[GameOutcome] = []
    deal = 0
    while len(outcomes) < games:
        group = rng.sample(NAMES, seats)
        tau = setting.deal_effect / ELO_PER_NEPER
        bonus = [rng.gauss(0.0, tau) if tau else 0.0 for _ in range(seats)]
        for rotation in range(seats):
            if len(outcomes) == games:
                break
            seating = tuple(group[rotation:] + group[:rotation])
            performance = []
            for seat, name in enumerate(seating):
                extra = bonus[(seat + rotation) % seats if setting.favours == "bot" else seat]
                performance.append(TRUE_ELO[name] / ELO_PER_NEPER + extra
                                   + noise(rng, setting, name))
            order = sorted(range(seats), key=lambda s: -performance[s])
            index = len(outcomes)
            outcomes.append(GameOutcome(
                index=index, seed=deal if units == "deal" else index, seating=seating,
                ranking=tuple((seat,) for seat in order),
                deal=f"deal {deal}" if units == "deal" else ""))
        deal += 1
    return outcomes


# ---------------------------------------------------------------------------------------
# The truth
# ---------------------------------------------------------------------------------------
GRID_STEP = 0.002
GRID_HALF = 40.0


def _density(kind: str, scale: float, x: np.ndarray) -> np.ndarray:
    if kind == "normal":
        return np.exp(-0.5 * (x / scale) ** 2) / (scale * math.sqrt(2 * math.pi))
    z = np.clip(x / scale, -30, None)   # Gumbel(0, scale); far left is 0
    return np.exp(-(z + np.exp(-z))) / scale


def _noise_density(setting: Setting, name: str, x: np.ndarray) -> np.ndarray:
    if setting.noise == "thurstone":
        return _density("normal", THURSTONE_SD, x)
    return _density("gumbel", SCALES[name] if setting.noise == "scales" else 1.0, x)


def _convolve(f: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Density of the sum, on the same centred grid."""
    size = len(f) + len(g) - 1
    full = np.fft.irfft(np.fft.rfft(f, size) * np.fft.rfft(g, size), size) * GRID_STEP
    start = (len(g) - 1) // 2
    return full[start:start + len(f)]


def ahead_probability(setting: Setting, a: str, b: str) -> float:
    """P(a finishes ahead of b) in one game: P(Δ + ε_a - ε_b + bonus_a - bonus_b > 0),
    by numerical convolution of the densities on a fine grid."""
    x = np.arange(-GRID_HALF, GRID_HALF + GRID_STEP / 2, GRID_STEP)
    density = _convolve(_noise_density(setting, a, x), _noise_density(setting, b, -x))
    if setting.deal_effect:
        tau = setting.deal_effect / ELO_PER_NEPER
        density = _convolve(density, _density("normal", tau * math.sqrt(2), x))
    delta = (TRUE_ELO[a] - TRUE_ELO[b]) / ELO_PER_NEPER
    mass = density * GRID_STEP
    # P(W > -Δ) for W = ε_a - ε_b + bonus difference, trapezoid-exact up to the grid
    cdf = np.cumsum(mass) - mass / 2
    below = float(np.interp(-delta, x, cdf))
    return min(max(1.0 - below / float(mass.sum()), 0.0), 1.0)


@cache
def truth(setting: Setting) -> dict[str, float]:
    """The pairwise truth: Bradley–Terry ratings of each pair's chance of finishing ahead
    (every pair meeting equally often), anchored like the fits."""
    ahead = {(a, b): ahead_probability(setting, a, b) for a, b in combinations(NAMES, 2)}
    return pairwise_truth(ahead, anchor=ANCHOR)


def ordered(ratings: dict[str, float], true: dict[str, float]) -> bool:
    return sorted(ratings, key=ratings.__getitem__) == sorted(true, key=true.__getitem__)


# ---------------------------------------------------------------------------------------
# A cell of the table
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Cell:
    setting: Setting
    seats: int
    games: int
    fit: str
    units: str
    runs: int
    seed: int


@dataclass(frozen=True)
class Measured:
    coverage: dict[str, float]
    fit_order: float
    elo_order: float
    mse: float
    margin: dict[str, float]


def measure(cell: Cell) -> Measured:
    """Per-bot coverage and mean half-width; the share of runs in true order for the fit
    and for sequential Elo; the mean squared error (Elo², over bots and runs). The same
    tournaments for every fit and unit (the seed depends on neither)."""
    rng = random.Random(f"{cell.seed} {cell.setting} {cell.seats} {cell.games}")
    true = truth(cell.setting)
    covered = dict.fromkeys(NAMES, 0)
    margin = dict.fromkeys(NAMES, 0.0)
    fit_ordered = elo_ordered = 0
    squared = 0.0
    for _ in range(cell.runs):
        outcomes = simulate(rng, cell.games, cell.seats, cell.setting, cell.units)
        ratings = FITS[cell.fit](outcomes, anchor=ANCHOR).ratings
        for name, rating in ratings.items():
            covered[name] += rating.low <= true[name] <= rating.high
            margin[name] += rating.margin
            squared += (rating.elo - true[name]) ** 2
        fit_ordered += ordered({name: r.elo for name, r in ratings.items()}, true)
        elo_ordered += ordered(elo_history(outcomes, initial=ANCHOR)[0], true)
    return Measured({name: count / cell.runs for name, count in covered.items()},
                    fit_ordered / cell.runs, elo_ordered / cell.runs,
                    squared / cell.runs / len(NAMES),
                    {name: total / cell.runs for name, total in margin.items()})


def _line(cell: Cell, result: Measured, first_mse: float) -> str:
    noise_text = cell.setting.noise + (
        f"+{cell.setting.favours}{cell.setting.deal_effect:.0f}"
        if cell.setting.deal_effect else "")
    low = min(result.coverage.values())
    return (f"{noise_text:>11} {cell.fit:>3} {cell.units:>4} {cell.seats:>5} {cell.games:>5} "
            + " ".join(f"{100 * result.coverage[n]:5.1f}%" for n in NAMES)
            + f" {100 * low:5.1f}%  {100 * result.fit_order:5.1f}% {100 * result.elo_order:5.1f}%"
            + f" {result.mse ** 0.5:5.0f} {100 * result.mse / first_mse:6.1f}%"
            + " " + "/".join(f"{result.margin[n]:.0f}" for n in NAMES))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="tournaments per cell")
    parser.add_argument("--games", type=int, nargs="+", default=[50, 200, 800])
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 3, 4, 5])
    parser.add_argument("--noise", nargs="+", choices=NOISES, default=list(NOISES))
    parser.add_argument("--fits", nargs="+", choices=sorted(FITS), default=["bt"],
                        help="bt: the headline (pairwise); pl: Plackett–Luce")
    parser.add_argument("--units", nargs="+", choices=("deal", "game"), default=["deal"],
                        help="unit of the robust covariance: a deal (the arena's) or a game")
    parser.add_argument("--deal-effect", type=float, default=0.0, metavar="ELO",
                        help="sd of a per-deal bonus shared by the deal's games (Elo)")
    parser.add_argument("--deal-favours", choices=("bot", "seat"), default="bot")
    parser.add_argument("--quantile", choices=("t", "normal"), default="t",
                        help="t: Student's with deals - 1 degrees of freedom (the arena's); "
                             "normal: 1.96 whatever the number of deals (before)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    args = parser.parse_args(argv)
    if args.quantile == "normal":   # the workers are forked after this
        bradley_terry._quantile = lambda confidence, deals: normal_quantile(confidence)
    settings = [Setting(n, args.deal_effect, args.deal_favours) for n in args.noise]
    for setting in settings:
        true = truth(setting)
        print(f"truth under {setting}: " + ", ".join(f"{n} {true[n]:.1f}" for n in NAMES))
    se = 100 * math.sqrt(0.95 * 0.05 / args.runs)
    print(f"95% interval coverage per bot, {args.runs} tournaments per line (a 95% rate is "
          f"measured within ±{se:.1f}%, one standard error); RMSE and games needed relative "
          f"to the first fit and unit of the line group; mean half-widths")
    print(f"{'noise':>11} fit unit seats games " + " ".join(f"{n:>6}" for n in NAMES)
          + "  lowest  order seqElo  RMSE needed half-widths")
    cells = [Cell(setting, seats, games, fit, units, args.runs, args.seed)
             for setting in settings for seats in args.seats for games in args.games
             for fit in args.fits for units in args.units]
    first_mse = 0.0
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for cell, result in zip(cells, pool.map(measure, cells), strict=True):
            if (cell.fit, cell.units) == (args.fits[0], args.units[0]):
                first_mse = result.mse
            print(_line(cell, result, first_mse or result.mse), flush=True)


if __name__ == "__main__":
    main()
