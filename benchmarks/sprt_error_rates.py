"""Error rates and length of the arena's SPRT by simulation, per seat count.

A is `elo0` or `elo1` stronger than B; B fills the empty seats (as when only A and B
enter a 3–5-seat game); finishing orders follow a Plackett–Luce model. For each seat
count: false H1 (at elo0), false H0 (at elo1), runs undecided at max_games, mean games,
with one A–B result per game (arena.sprt) and, for comparison, every A–B seat pair
counted as an independent result (the old counting). The exact undecided share from
`undecided_share` is printed alongside.

    python3 benchmarks/sprt_error_rates.py                    # defaults, 4000 runs (long)
    python3 benchmarks/sprt_error_rates.py --runs 500 --elo1 150 --max-games 100000
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.ratings import GameOutcome, head_to_head  # noqa: E402
from arena.schedule import sprt_games  # noqa: E402
from arena.sprt import SprtSettings, SprtVerdict, ab_score, sequential_test, undecided_share  # noqa: E402,E501


def plackett_luce(rng: random.Random, strengths: Sequence[float]) -> list[int]:
    """Seats best first: each place goes to a remaining seat with odds its strength."""
    left = list(range(len(strengths)))
    order = []
    while left:
        pick = rng.choices(left, weights=[strengths[seat] for seat in left])[0]
        order.append(pick)
        left.remove(pick)
    return order


def games(rng: random.Random, seats: int, true_elo: float) -> Iterator[GameOutcome]:
    """Endless SPRT games of A (`true_elo` stronger) against B, B in the other seats (the
    simulation tests/arena/test_sprt.py checks the error rates with too)."""
    strength = {"a": 10 ** (true_elo / 400), "b": 1.0}
    for g in sprt_games("a", "b", ["a", "b"], seats, seed=seats):
        order = plackett_luce(rng, [strength[name] for name in g.seating])
        yield GameOutcome(index=g.index, seed=g.seed, seating=g.seating,
                          ranking=tuple((seat,) for seat in order))


def scores(stream: Iterator[GameOutcome], every_pair: bool) -> Iterator[float | None]:
    for g in stream:
        if not every_pair:
            yield ab_score(g, "a", "b")
            continue
        wins, draws, losses = head_to_head([g], "a", "b")
        yield from [1.0] * wins + [0.5] * draws + [0.0] * losses


def runs(settings: SprtSettings, seats: int, true_elo: float, count: int,
         every_pair: bool, seed: int) -> list[SprtVerdict]:
    """`count` tests; counting every pair, the cap is on games too (seats - 1 results
    each), so the `games` of those verdicts are results."""
    rng = random.Random(seed)
    if every_pair:
        settings = dataclasses.replace(settings, max_games=settings.max_games * (seats - 1))
    return [sequential_test(scores(games(rng, seats, true_elo), every_pair), settings)
            for _ in range(count)]


def share(verdicts: list[SprtVerdict], status: str) -> str:
    return f"{100 * sum(v.status == status for v in verdicts) / len(verdicts):5.1f}%"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=4000)
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=50.0)
    parser.add_argument("--max-games", type=int, default=400)
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 3, 4, 5])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    settings = SprtSettings(args.elo0, args.elo1, 0.05, 0.05, args.max_games)
    print(f"elo0 {args.elo0:g}, elo1 {args.elo1:g}, alpha = beta = 0.05, max_games "
          f"{args.max_games}, {args.runs} runs per cell; exact undecided share "
          f"{100 * undecided_share(settings, args.elo0):.1f}% at elo0, "
          f"{100 * undecided_share(settings, (args.elo0 + args.elo1) / 2):.1f}% midway, "
          f"{100 * undecided_share(settings, args.elo1):.1f}% at elo1")
    print("seats  counting     false H1  false H0  undecided@elo0  undecided@elo1  "
          "mean games@elo0")
    for seats in args.seats:
        for every_pair in (False, True):
            at0 = runs(settings, seats, args.elo0, args.runs, every_pair, args.seed)
            at1 = runs(settings, seats, args.elo1, args.runs, every_pair, args.seed + 1)
            label = "every pair" if every_pair else "one per game"
            mean = sum(v.games for v in at0) / len(at0) / (seats - 1 if every_pair else 1)
            print(f"{seats:>5}  {label:<12}  {share(at0, 'H1')}    {share(at1, 'H0')}    "
                  f"{share(at0, 'max_games')}          {share(at1, 'max_games')}          "
                  f"{mean:7.1f}", flush=True)


if __name__ == "__main__":
    main()
