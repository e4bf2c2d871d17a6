"""`curia arena run TOURNAMENT.toml` and `curia arena report FOLDER`."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any, TextIO

from arena.config import ConfigError, TournamentConfig
from arena.ratings import GameOutcome, elo_history
from arena.runner import ResultsFile, Tournament, build_bots, describe
from curia.remote import service_endpoint


def add_arena(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "arena", help="run Elo-rated tournaments between bot processes",
        description="Tournaments between bots that are separate processes (any language) "
                    "playing through the game service. See docs/bots.md.")
    commands = parser.add_subparsers(dest="arena_command", required=True, metavar="ACTION")
    run = commands.add_parser("run", help="run (or resume) a tournament from a TOML file")
    run.add_argument("config", help="tournament file, e.g. examples/tournament.toml")
    run.add_argument("--server", metavar="HOST:PORT",
                     help="play on this service (default: start an embedded one)")
    run.add_argument("--output", help="results folder (default: the file's `output`)")
    run.add_argument("--concurrency", type=int, help="games in parallel (default: the file's)")
    run.add_argument("--fresh", action="store_true",
                     help="discard earlier results in the output folder instead of resuming")
    run.add_argument("--no-progress", action="store_true", help="no live progress line")
    run.set_defaults(run=run_arena, parser=run)
    report = commands.add_parser("report", help="print and export the report of a folder")
    report.add_argument("folder", help="a tournament's output folder")
    report.set_defaults(run=run_report, parser=report)


def run_arena(args: argparse.Namespace) -> int:
    try:
        config = TournamentConfig.load(args.config)
    except ConfigError as error:
        args.parser.error(str(error))
    if args.concurrency:
        config = _replace(config, concurrency=args.concurrency)
    output = Path(args.output).resolve() if args.output else config.output
    if args.fresh and output.exists():
        shutil.rmtree(output)
    output.mkdir(parents=True, exist_ok=True)
    out = sys.stdout
    print(f"tournament {config.name}: {config.game} {config.variant}, {config.seats} seats, "
          f"{config.format}, seed {config.seed}, bots "
          f"{', '.join(f'{b.name} ({b.language})' for b in config.bots)}", file=out)
    try:
        build_bots(config.bots, out)
    except ConfigError as error:
        print(f"curia arena: {error}", file=sys.stderr)
        return 1
    progress = None if args.no_progress else ProgressLine(sys.stderr)
    with service_endpoint(args.server, 0, str(output / "redis"), out) as server:
        tournament = Tournament(config, server, output,
                                on_result=progress.update if progress else None)
        outcomes = tournament.run()
    if progress:
        progress.finish()
    write_report(outcomes, output, describe(config), out)
    return 0


def run_report(args: argparse.Namespace) -> int:
    folder = Path(args.folder)
    outcomes = sorted(ResultsFile(folder / "results.jsonl").load(), key=lambda o: o.index)
    if not outcomes:
        args.parser.error(f"no results in {folder}")
    meta_path = folder / "tournament.json"
    meta = json.loads(meta_path.read_text()).get("tournament", {}) if meta_path.exists() else {}
    write_report(outcomes, folder, meta, sys.stdout)
    return 0


class ProgressLine:
    """A live line on stderr: a bar, games done, and the current standings."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def update(self, outcomes: list[GameOutcome], total: int) -> None:
        from arena.report import standings_line

        done = len(outcomes)
        filled = int(20 * done / max(total, 1))
        bar = "#" * filled + "." * (20 - filled)
        self.out.write(f"\r[{bar}] {standings_line(outcomes, total)}\x1b[K")
        self.out.flush()

    def finish(self) -> None:
        self.out.write("\n")
        self.out.flush()


def write_report(outcomes: list[GameOutcome], folder: Path, meta: dict[str, Any],
                 out: TextIO) -> None:
    """Print the leaderboard, crosstable and seat statistics; write the exports and plot."""
    from arena import report
    from arena.plot import plot_ratings

    rows = report.leaderboard(outcomes)
    names, matrix = report.crosstable(outcomes)
    sections = [
        ("leaderboard", report.format_leaderboard(rows)),
        ("crosstable (row's score against column)", report.format_crosstable(names, matrix)),
        ("by seat position", report.format_seat_stats(report.seat_stats(outcomes))),
    ]
    if meta.get("sprt"):
        sections.insert(0, ("SPRT", sprt_text(outcomes, meta["sprt"])))
    text = "\n\n".join(f"{title}\n{body}" for title, body in sections)
    print(f"\n{text}", file=out)
    (folder / "leaderboard.txt").write_text(text + "\n")
    export = {"tournament": meta, **report.to_json(outcomes)}
    (folder / "tournament.json").write_text(json.dumps(export, indent=1, sort_keys=True))
    (folder / "games.csv").write_text(report.games_csv(outcomes))
    (folder / "ratings.csv").write_text(report.ratings_csv(rows))
    _, history = elo_history(outcomes)
    plot_ratings(history, folder / "ratings.png")
    print(f"\nwritten to {folder}: leaderboard.txt, tournament.json, games.csv, ratings.csv, "
          f"ratings.png, results.jsonl, games/ (records), logs/ (bot output)", file=out)


def sprt_text(outcomes: list[GameOutcome], spec: dict[str, Any]) -> str:
    """The SPRT's verdict on "is A stronger than B", with the head-to-head record."""
    from arena.ratings import elo_from_score, elo_margin, head_to_head, score_with_stderr, sprt

    a, b = spec["a"], spec["b"]
    wins, draws, losses = head_to_head(outcomes, a, b)
    test = sprt(wins, draws, losses, spec["elo0"], spec["elo1"], spec["alpha"], spec["beta"])
    verdict = {"H1": f"H1 accepted: {a} is stronger than {b} (elo1 = {spec['elo1']})",
               "H0": f"H0 accepted: {a} is not stronger than {b} by elo1 "
                     f"(elo0 = {spec['elo0']})",
               None: "no decision yet (max_games reached or still running)"}[test.decision]
    lines = [f"{a} vs {b}: {wins} wins, {draws} draws, {losses} losses",
             f"LLR {test.llr:.2f} (bounds {test.lower:.2f}, {test.upper:.2f}; "
             f"alpha {spec['alpha']}, beta {spec['beta']}): {verdict}"]
    if 0 < wins + draws / 2 < wins + draws + losses:
        score, stderr = score_with_stderr(wins, draws, losses)
        lines.append(f"Elo difference {elo_from_score(score):+.0f} "
                     f"± {elo_margin(score, stderr):.0f} (95%)")
    return "\n".join(lines)


def _replace(config: TournamentConfig, **changes: Any) -> TournamentConfig:
    import dataclasses

    return dataclasses.replace(config, **changes)
