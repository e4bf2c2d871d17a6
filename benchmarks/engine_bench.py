"""Engine throughput: random playouts, legal-decision generation, serialization.

    python3 benchmarks/engine_bench.py [--game municipium|ciceron|all] [--seats N]
                                       [--seconds S] [--json] [--profile]

Measures, for one game (Municipium by default; `--game ciceron` for Cicéron, `--game all`
for every registered game), in its default variant (`--variant`) with 4 seats (families)
by default, in one process:
  (a) random playouts: a cheap random choice among `legal_decisions` + `apply`, in
      decisions/s and complete games/s (game creation included); again with
      `apply_unchecked` (the fast path, no re-validation);
  (b) `legal_decisions` in µs per call, over positions sampled from random games (Municipium
      and Cicéron compute the options while applying the previous decision, so this is
      mostly a copy: the generation itself is inside the playout figures);
  (c) `to_bytes` and `games.load` in µs, and the state size in bytes, over the same positions.
The targets are printed alongside: >= 20,000 decisions/s and >= 50 games/s.
`--profile` adds a cProfile of the validated random playouts (where the time goes).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import platform
import pstats
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from games import GAMES, GameState, get_game, load, new_game  # noqa: E402

TARGET_DECISIONS_PER_S = 20_000
TARGET_GAMES_PER_S = 50
#: Games whose `legal_decisions` returns a list computed by the previous `apply`.
PRECOMPUTED = {"municipium", "ciceron"}


def playouts(game: str, variant: str, seats: int, seconds: float,
             fast: bool) -> dict[str, float]:
    """Random playouts until `seconds` have passed (the last game is finished)."""
    rng = random.Random(1)
    choice = rng.choice
    games = decisions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = new_game(game, variant, seats, seed=games)
        if fast:
            unchecked = state.apply_unchecked
            while not state.is_over:
                seat = state.to_move()[0]
                unchecked(seat, choice(state.legal_decisions(seat)))
                decisions += 1
        else:
            while not state.is_over:
                seat = state.to_move()[0]
                state.apply(seat, choice(state.legal_decisions(seat)))
                decisions += 1
        games += 1
    elapsed = time.perf_counter() - start
    return {"decisions_per_s": decisions / elapsed, "games_per_s": games / elapsed,
            "games": games, "decisions": decisions, "seconds": elapsed,
            "decisions_per_game": decisions / games}


def sample_positions(game: str, variant: str, seats: int, count: int) -> list[GameState]:
    """`count` positions taken at random moments of random games (none finished)."""
    rng = random.Random(2)
    positions: list[GameState] = []
    seed = 0
    while len(positions) < count:
        state = new_game(game, variant, seats, seed=10_000 + seed)
        seed += 1
        while not state.is_over and len(positions) < count:
            if rng.random() < 0.1:
                positions.append(state.clone())
            seat = state.to_move()[0]
            state.apply(seat, rng.choice(state.legal_decisions(seat)))
    return positions


def per_call_us(call: Callable[[Any], object], items: list[Any], seconds: float) -> float:
    """Mean µs of `call(item)`, cycling over `items` for about `seconds`."""
    calls = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for item in items:
            call(item)
        calls += len(items)
        now = time.perf_counter()
        if now >= deadline:
            return (now - start) / calls * 1e6


def measure(game: str, variant: str, seats: int, seconds: float, positions: int) -> dict[str, Any]:
    report: dict[str, Any] = {
        "game": game, "variant": variant, "seats": seats, "seconds_per_measure": seconds,
        "python": platform.python_version(),
        "targets": {"decisions_per_s": TARGET_DECISIONS_PER_S,
                    "games_per_s": TARGET_GAMES_PER_S},
    }
    report["playout"] = playouts(game, variant, seats, seconds, fast=False)
    report["playout_fast"] = playouts(game, variant, seats, seconds, fast=True)
    states = sample_positions(game, variant, seats, positions)
    movers = [(s, s.to_move()[0]) for s in states]
    blobs = [s.to_bytes() for s in states]
    report["legal_decisions_us"] = per_call_us(lambda p: p[0].legal_decisions(p[1]), movers,
                                               seconds)
    report["branching"] = sum(len(s.legal_decisions(m)) for s, m in movers) / len(movers)
    report["to_bytes_us"] = per_call_us(lambda s: s.to_bytes(), states, seconds)
    report["load_us"] = per_call_us(load, blobs, seconds)
    report["state_bytes_mean"] = sum(map(len, blobs)) / len(blobs)
    report["state_bytes_max"] = max(map(len, blobs))
    report["positions"] = len(states)
    return report


def profile(game: str, variant: str, seats: int, seconds: float, top: int = 25) -> str:
    """cProfile of validated random playouts for about `seconds`: the `top` functions by
    internal time, then by cumulative time."""
    profiler = cProfile.Profile()
    profiler.enable()
    playouts(game, variant, seats, seconds, fast=False)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).strip_dirs()
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    return out.getvalue()


def verdict(value: float, target: float) -> str:
    return "ok" if value >= target else "BELOW TARGET"


def table(report: dict[str, Any]) -> str:
    """Rows of (what, value, unit, target or note), aligned."""
    rows: list[tuple[str, str, str, str]] = []
    for key, label in (("playout", "random playout, apply (validated)"),
                       ("playout_fast", "random playout, apply_unchecked (fast path)")):
        if key not in report:
            continue
        p = report[key]
        rows.append((label, f"{p['decisions_per_s']:,.0f}", "decisions/s",
                     f"target >= {TARGET_DECISIONS_PER_S:,}: "
                     f"{verdict(p['decisions_per_s'], TARGET_DECISIONS_PER_S)}"))
        rows.append(("", f"{p['games_per_s']:,.1f}", "games/s",
                     f"target >= {TARGET_GAMES_PER_S}: "
                     f"{verdict(p['games_per_s'], TARGET_GAMES_PER_S)}"))
        rows.append(("", f"{p['decisions_per_game']:,.0f}", "decisions/game", ""))
    rows.append(("legal_decisions", f"{report['legal_decisions_us']:.2f}", "µs/call",
                 f"{report['branching']:.1f} decisions on average"
                 + (" (precomputed by apply)" if report["game"] in PRECOMPUTED else "")))
    rows.append(("to_bytes (serialize)", f"{report['to_bytes_us']:.1f}", "µs", ""))
    rows.append(("games.load (deserialize)", f"{report['load_us']:.1f}", "µs", ""))
    rows.append(("state size", f"{report['state_bytes_mean']:,.0f}", "bytes",
                 f"max {report['state_bytes_max']:,}"))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    title = (f"{report['game']} {report['variant']}, {report['seats']} seats, "
             f"{report['seconds_per_measure']:g} s per measure, {report['positions']} sampled "
             f"positions, Python {report['python']}")
    lines = [title, "-" * len(title)]
    lines += [f"{a:<{widths[0]}}  {b:>{widths[1]}} {c:<{widths[2]}}  {d}".rstrip()
              for a, b, c, d in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0,
                        help="time budget of each measurement (default: %(default)s)")
    parser.add_argument("--game", default="municipium",
                        help="a registered game, or `all` (default: %(default)s)")
    parser.add_argument("--variant",
                        help="the game's variant (default: the game's first)")
    parser.add_argument("--seats", type=int, default=4,
                        help="seats (families) per game (default: %(default)s)")
    parser.add_argument("--positions", type=int, default=2000,
                        help="positions sampled for (b) and (c) (default: %(default)s)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--profile", action="store_true",
                        help="also profile the validated playouts (cProfile)")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.positions < 1:
        parser.error("--seconds and --positions must be positive")
    names = sorted(GAMES) if args.game == "all" else [args.game]
    reports = []
    for name in names:
        try:
            game = get_game(name)
            variant = args.variant or game.default_variant
            game.check_setup(variant, args.seats, None)
        except ValueError as error:
            parser.error(str(error))
        report = measure(game.name, variant, args.seats, args.seconds, args.positions)
        if args.profile:
            report["profile"] = profile(game.name, variant, args.seats, args.seconds)
        reports.append(report)
    if args.json:
        print(json.dumps(reports[0] if len(reports) == 1 else reports, indent=2))
        return 0
    for report in reports:
        print(table(report))
        if "profile" in report:
            print(report["profile"])
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
