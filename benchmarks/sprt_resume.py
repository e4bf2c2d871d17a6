"""How long an undecided SPRT takes to resume: `Tournament.progress()` on a run folder of
N finished games under a cap of M games (what `curia arena run` does first on resume),
in wall-clock and CPU time (the CPU time is what a shared machine does not blur).

A synthetic results.jsonl of N games seated by the real SPRT schedule (3 seats, B in the
empty seat), finishing orders drawn from a Plackett–Luce model at the midpoint of narrow
hypotheses (elo0 0, elo1 10), so that the test is still undecided after N games.

    python3 benchmarks/sprt_resume.py                  # N = 1000, M = 4000
    python3 benchmarks/sprt_resume.py --games 500 --max-games 2000
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from itertools import islice
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from arena.config import TournamentConfig  # noqa: E402
from arena.runner import Tournament  # noqa: E402
from arena.schedule import sprt_games  # noqa: E402
from ratings.records import GameOutcome  # noqa: E402
from ratings.sprt import SprtSettings, sprt_verdict  # noqa: E402

ELO0, ELO1, TRUE_ELO, SEATS = 0.0, 10.0, 5.0, 3


def config_file(folder: Path, max_games: int) -> Path:
    bots = "".join(f'[[bots]]\nmanifest = "{REPO / "bots" / name / "bot.toml"}"\n'
                   for name in ("greedy_bot", "random_bot"))
    path = folder / "sprt.toml"
    path.write_text(f'[tournament]\nname = "resume"\ngame = "municipium"\nseats = {SEATS}\n'
                    f'format = "sprt"\nseed = 3\noutput = "{folder / "out"}"\n[sprt]\n'
                    f'a = "greedy"\nb = "random"\nelo0 = {ELO0}\nelo1 = {ELO1}\n'
                    f"max_games = {max_games}\n{bots}")
    return path


def outcomes(count: int, seed: int) -> list[GameOutcome]:
    """`count` games of the SPRT schedule, A `TRUE_ELO` stronger than every B seat."""
    rng = random.Random(seed)
    strength = {"greedy": 10 ** (TRUE_ELO / 400), "random": 1.0}
    games = []
    for g in islice(sprt_games("greedy", "random", ["greedy", "random"], SEATS, 3), count):
        keys = [rng.random() ** (1 / strength[name]) for name in g.seating]  # PL order
        order = sorted(range(SEATS), key=lambda seat: -keys[seat])
        games.append(GameOutcome(index=g.index, seed=0, seating=g.seating,
                                 ranking=tuple((seat,) for seat in order)))
    return games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--max-games", type=int, default=4000)
    args = parser.parse_args()
    settings = SprtSettings(elo0=ELO0, elo1=ELO1, max_games=args.max_games)
    for seed in range(100):
        games = outcomes(args.games, seed)
        if sprt_verdict(games, "greedy", "random", settings).status == "running":
            break
    else:
        raise SystemExit("no undecided run found")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        config = TournamentConfig.load(config_file(folder, args.max_games))
        config.output.mkdir(parents=True)
        (config.output / "results.jsonl").write_text(
            "".join(json.dumps(g.to_json()) + "\n" for g in games))
        start, cpu = time.perf_counter(), time.process_time()
        progress = Tournament(config, "unused", config.output).progress()
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(f"{args.games} finished games (undecided), max_games {args.max_games}: "
          f"progress() {seconds:.2f} s ({cpu:.2f} s of CPU; {progress.line()})")


if __name__ == "__main__":
    main()
