"""Error rates and length of the arena's SPRT by simulation, per seat count.

A is `elo0` or `elo1` stronger than B; B fills the empty seats (as when only A and B
enter a 3–5-seat game); finishing orders follow a Plackett–Luce model; the games are
those of the real SPRT schedule (`arena.schedule.sprt_games`), read by the real test
(`ratings.sprt.SprtTest`). For each seat count and counting, the deal counting (a
generalised SPRT over deals, the default) and the pair counting (one A–B result per
game: the test before): false H1 (at elo0) and false H0 (at elo1), mean games, without a
cap and at `--max-games` (with the runs undecided there). One simulation gives both: a
run without a cap stopped within the cap's whole units is the capped run's verdict.

`--deal-effect bot:X`: each deal favours one bot by X Elo in every seat (A or B, at
random); `seat:X`: one seat position, at random, by X Elo. The games of a deal are then
correlated; the hypotheses' Elo are shifted so that A's expected score is still s0 and
s1 (a deal effect alone pulls A's expected score towards 1/2), so the rates measure the
counting, not the effect.

`--prior`, `--spread`: the virtual deals of the deal counting (ratings.sprt.PRIOR_DEALS,
PRIOR_SPREAD), to compare other choices.

    python3 benchmarks/sprt_error_rates.py                       # 300 runs a cell, minutes
    python3 benchmarks/sprt_error_rates.py --runs 2000           # docs/arena-ratings.md
    python3 benchmarks/sprt_error_rates.py --runs 1000 --deal-effect bot:150 seat:150
    python3 benchmarks/sprt_error_rates.py --runs 1000 --seats 3 5 --counting deal --prior 2
    python3 benchmarks/sprt_error_rates.py --runs 1000 --elo1 150 --max-games 100000
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import multiprocessing
import random
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import ratings.sprt  # noqa: E402
from arena.schedule import sprt_games  # noqa: E402
from ratings.elo import score_from_elo  # noqa: E402
from ratings.records import GameOutcome  # noqa: E402
from ratings.sprt import SprtSettings, SprtTest, deal_games  # noqa: E402

UNCAPPED = 100_000
"""The cap of a run "without a cap": far beyond any run at elo0 or elo1."""


@dataclasses.dataclass(frozen=True)
class Effect:
    """A deal effect: none, `bot` (one bot, A or B, in every seat) or `seat` (one seat
    position), favoured by `elo` Elo in every game of a deal."""

    kind: str = "none"
    elo: float = 0.0

    @classmethod
    def parse(cls, text: str) -> Effect:
        if text == "none":
            return cls()
        kind, _, size = text.partition(":")
        if kind not in ("bot", "seat") or not size:
            raise argparse.ArgumentTypeError("none, bot:ELO or seat:ELO")
        return cls(kind, float(size))

    def __str__(self) -> str:
        return "none" if self.kind == "none" else f"{self.kind}:{self.elo:g}"

    def expected_score(self, elo: float, seats: int) -> float:
        """A's expected score against a B seat when A is `elo` stronger, over deals."""
        plain = score_from_elo(elo)
        if self.kind == "none":
            return plain
        up, down = score_from_elo(elo + self.elo), score_from_elo(elo - self.elo)
        if self.kind == "bot":
            return (up + down) / 2
        return (up + down) / seats + plain * (1 - 2 / seats)

    def calibrated(self, score: float, seats: int) -> float:
        """The Elo difference at which A's expected score is `score`."""
        low, high = -2000.0, 2000.0
        for _ in range(100):
            mid = (low + high) / 2
            if self.expected_score(mid, seats) < score:
                low = mid
            else:
                high = mid
        return (low + high) / 2

    def bonuses(self, rng: random.Random, seats: int) -> tuple[dict[str, float], list[float]]:
        """One deal's bonus per bot and per seat position."""
        per_bot, per_seat = {"a": 0.0, "b": 0.0}, [0.0] * seats
        if self.kind == "bot":
            per_bot[rng.choice("ab")] = self.elo
        elif self.kind == "seat":
            per_seat[rng.randrange(seats)] = self.elo
        return per_bot, per_seat


def plackett_luce(rng: random.Random, strengths: Sequence[float]) -> list[int]:
    """Seats best first: each place goes to a remaining seat with odds its strength (the
    keys u^(1/strength), largest first, give exactly those odds)."""
    keys = [rng.random() ** (1 / strength) for strength in strengths]
    return sorted(range(len(strengths)), key=lambda seat: -keys[seat])


def games(rng: random.Random, seats: int, true_elo: float,
          effect: Effect = Effect()) -> Iterator[GameOutcome]:
    """Endless SPRT games of A (`true_elo` stronger) against B, B in the other seats, in
    the order of the real schedule, each deal with its own draw of `effect`."""
    deal, per_bot, per_seat = None, {"a": 0.0, "b": 0.0}, [0.0] * seats
    for g in sprt_games("a", "b", ["a", "b"], seats, seed=seats):
        if g.deal != deal:
            deal = g.deal
            per_bot, per_seat = effect.bonuses(rng, seats)
        elo = [(true_elo if name == "a" else 0.0) + per_bot[name] + per_seat[seat]
               for seat, name in enumerate(g.seating)]
        order = plackett_luce(rng, [10 ** (e / 400) for e in elo])
        yield GameOutcome(index=g.index, seed=g.seed, seating=g.seating,
                          ranking=tuple((seat,) for seat in order))


def run(rng: random.Random, seats: int, true_elo: float, settings: SprtSettings,
        effect: Effect = Effect()) -> tuple[str, int]:
    """One test read game by game as they come: (status, games read)."""
    test = SprtTest("a", "b", settings)
    for game in games(rng, seats, true_elo, effect):
        test.add(game)
        verdict = test.verdict
        if verdict.stopped:
            return verdict.status, verdict.games
    raise AssertionError("endless")


@dataclasses.dataclass(frozen=True)
class Cell:
    seats: int
    counting: str
    hypothesis: int  # 0: A is elo0 stronger, 1: elo1
    effect: Effect


def _chunk(job: tuple[Cell, SprtSettings, int, int, float, float]) -> list[tuple[str, int]]:
    cell, settings, runs, seed, prior, spread = job
    ratings.sprt.PRIOR_DEALS, ratings.sprt.PRIOR_SPREAD = prior, spread
    elo = (settings.elo0, settings.elo1)[cell.hypothesis]
    true_elo = cell.effect.calibrated(score_from_elo(elo), cell.seats)
    rng = random.Random(f"{seed}/{cell.seats}/{cell.counting}/{cell.hypothesis}/{cell.effect}")
    uncapped = dataclasses.replace(settings, max_games=UNCAPPED, counting=cell.counting)
    return [run(rng, cell.seats, true_elo, uncapped, cell.effect) for _ in range(runs)]


def simulate(cells: Sequence[Cell], settings: SprtSettings, runs: int, seed: int,
             workers: int, prior: float, spread: float) -> dict[Cell, list[tuple[str, int]]]:
    """`runs` uncapped runs per cell, in chunks spread over `workers` processes."""
    chunk = max(1, min(100, runs // max(1, 2 * workers)))
    jobs = [(cell, settings, min(chunk, runs - start), seed * 1_000_003 + start, prior,
             spread) for cell in cells for start in range(0, runs, chunk)]
    with multiprocessing.Pool(workers) as pool:
        results = pool.map(_chunk, jobs, chunksize=1)
    found: dict[Cell, list[tuple[str, int]]] = {cell: [] for cell in cells}
    for job, result in zip(jobs, results, strict=True):
        found[job[0]] += result
    return found


def capped(result: tuple[str, int], limit: int) -> tuple[str, int]:
    """The verdict of the same run under a cap of `limit` games (whole units)."""
    status, games_read = result
    return (status, games_read) if games_read <= limit else ("max_games", limit)


def rate(results: Sequence[tuple[str, int]], status: str) -> str:
    """A share with its standard error, in %."""
    p = sum(s == status for s, _ in results) / len(results)
    return f"{100 * p:.1f}% ± {100 * math.sqrt(p * (1 - p) / len(results)):.1f}"


def mean_games(results: Sequence[tuple[str, int]]) -> str:
    values = [g for _, g in results]
    mean = sum(values) / len(values)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / max(1, len(values) - 1))
    return f"{mean:.0f} ± {sd / math.sqrt(len(values)):.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300, help="runs per cell")
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=50.0)
    parser.add_argument("--max-games", type=int, default=400)
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 3, 4, 5])
    parser.add_argument("--counting", nargs="+", default=["deal", "pair"],
                        choices=["deal", "pair"])
    parser.add_argument("--deal-effect", type=Effect.parse, nargs="+", default=[Effect()],
                        help="none, bot:ELO, seat:ELO (several: one table each)")
    parser.add_argument("--prior", type=float, default=ratings.sprt.PRIOR_DEALS,
                        help="virtual deals of the deal counting (ratings.sprt.PRIOR_DEALS)")
    parser.add_argument("--spread", type=float, default=ratings.sprt.PRIOR_SPREAD,
                        help="their distance from the midpoint (ratings.sprt.PRIOR_SPREAD)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=min(2, multiprocessing.cpu_count()))
    args = parser.parse_args()
    settings = SprtSettings(args.elo0, args.elo1, 0.05, 0.05, args.max_games)
    cells = [Cell(seats, counting, hypothesis, effect) for effect in args.deal_effect
             for seats in args.seats for counting in args.counting for hypothesis in (0, 1)]
    start = time.perf_counter()
    found = simulate(cells, settings, args.runs, args.seed, args.workers, args.prior,
                     args.spread)
    print(f"elo0 {args.elo0:g}, elo1 {args.elo1:g}, alpha = beta = 0.05; {args.runs} runs "
          f"per cell (± one standard error); {args.prior:g} virtual deal(s) at "
          f"{args.spread:g} standard deviations; "
          f"{time.perf_counter() - start:.0f} s on {args.workers} workers")
    for effect in args.deal_effect:
        print(f"\ndeal effect: {effect}")
        print(f"| seats | counting | no cap: false H1 | false H0 | mean games at elo0 | at elo1 "
              f"| cap {args.max_games}: false H1 | false H0 | undecided at elo0 | at elo1 "
              f"| mean games at elo0 | at elo1 |")
        print("|---" * 12 + "|")
        for seats in args.seats:
            for counting in args.counting:
                at0 = found[Cell(seats, counting, 0, effect)]
                at1 = found[Cell(seats, counting, 1, effect)]
                unit = 1 if counting == "pair" else deal_games(("a", *"b" * (seats - 1)),
                                                               "a", "b")
                limit = args.max_games // unit * unit
                cap0 = [capped(r, limit) for r in at0]
                cap1 = [capped(r, limit) for r in at1]
                print(f"| {seats} | {counting} | {rate(at0, 'H1')} | {rate(at1, 'H0')} | "
                      f"{mean_games(at0)} | {mean_games(at1)} | {rate(cap0, 'H1')} | "
                      f"{rate(cap1, 'H0')} | {rate(cap0, 'max_games')} | "
                      f"{rate(cap1, 'max_games')} | {mean_games(cap0)} | {mean_games(cap1)} |",
                      flush=True)


if __name__ == "__main__":
    main()
