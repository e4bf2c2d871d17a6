"""The `curia` command: play one game between bots, simulate many, list the games.

    curia games
    curia play --game GAME --seats random,random,random --seed 7
    curia simulate --game GAME --seats random,random,random -n 200 --seed 1

Adding a subcommand (serve, arena, loadtest, ...) is one function and one registration:
write `add_NAME(subparsers)` that builds the subcommand's parser and calls
`parser.set_defaults(run=run_NAME)`, where `run_NAME(args) -> int` does the work, and
append `add_NAME` to `SUBCOMMANDS`. A run function reports a bad argument combination
with `args.parser.error(message)` (usage + message on stderr, exit code 2).

Only arguments and printing live here: games between in-process bots are
`arena.local`'s, the lines a game prints are `curia_api.render`'s.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from arena.local import GameSpec, SeriesStats, play_game, run_games
from bots import bot_names
from curia.arena_cli import add_arena
from curia.bot_cli import add_bot
from curia.cards import add_cards
from curia.league_cli import add_league
from curia.remote import HUMAN, WebSeats, add_loadtest, add_serve, add_watch, play_through_service
from curia.replay import add_replay
from curia_api.message_json import message_json
from curia_api.render import PlayLog, final_of_state, print_result
from games import GAMES, Game, default_game, get_game

Subparsers = Any  # argparse's private _SubParsersAction

#: The bot of every seat when --seats is not given: it plays any game.
DEFAULT_BOT = "random"


# ---------------------------------------------------------------------------------------
# Shared options
# ---------------------------------------------------------------------------------------
def bot_list(text: str) -> tuple[str, ...]:
    """argparse type of --seats: comma-separated registered bot names."""
    names = tuple(name.strip() for name in text.split(","))
    if not all(names):
        raise argparse.ArgumentTypeError(f"expected bot names separated by commas, got {text!r}")
    unknown = [name for name in names if name not in (*bot_names(), HUMAN)]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown bot {unknown[0]!r}; bots: {', '.join(bot_names())}")
    return names


def option_pair(text: str) -> tuple[str, Any]:
    """argparse type of --option: KEY=VALUE, VALUE read as JSON when it is (5, true, ...)."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return key.strip(), value


def add_game_arguments(parser: argparse.ArgumentParser) -> None:
    game = default_game()
    parser.add_argument("--game", default=game, required=game is None, choices=sorted(GAMES),
                        help="game to play (default: %(default)s; see `curia games`)")
    parser.add_argument("--variant",
                        help="rule set (default: the game's first; see `curia games`)")
    parser.add_argument("--seats", type=bot_list, metavar="BOT,BOT,...",
                        help=f"one bot per seat, in seat order; the number of names is the "
                             f"number of seats. Bots: {', '.join(bot_names())} (default: "
                             f"{DEFAULT_BOT} in each of the variant's fewest seats); "
                             f"`curia play --service` also takes {HUMAN}: a person's seat, "
                             f"played in the browser")
    parser.add_argument("--seed", type=int, default=0, help="game seed (default: %(default)s)")
    parser.add_argument("--option", type=option_pair, action="append", default=[],
                        metavar="KEY=VALUE",
                        help="game option, repeatable (see `curia games`)")
    parser.add_argument("--max-turns", type=int, metavar="N",
                        help="end a game after N turns (the game's max_turns option)")


def spec_from(args: argparse.Namespace) -> GameSpec:
    """The GameSpec the arguments describe; a game that cannot be set up, or a bot that
    does not play it, is a usage error."""
    options = dict(args.option)
    if args.max_turns is not None:
        options["max_turns"] = args.max_turns
    try:
        game = get_game(args.game)
        variant = args.variant or game.default_variant
        bots = args.seats or (DEFAULT_BOT,) * game.variant(variant).min_seats
        spec = GameSpec(game.name, variant, bots, options)
        machines = tuple(DEFAULT_BOT if bot == HUMAN else bot for bot in bots)
        GameSpec(game.name, variant, machines, options).check(args.seed)
    except ValueError as error:  # SetupError, or make_bot's refusal
        args.parser.error(str(error))
    if HUMAN in bots and not getattr(args, "service", False) \
            and not getattr(args, "web_url", None):
        args.parser.error(f"a {HUMAN} seat is played in the browser, through a service: add "
                          f"--service (or --server with --web-url)")
    return spec


# ---------------------------------------------------------------------------------------
# curia play
# ---------------------------------------------------------------------------------------
def add_play(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "play", help="play one game between bots and print its log",
        description="Play one full game between bots and print a readable log: one line per "
                    "decision (turn, seat, decision) with the events it caused, then the "
                    "result.")
    add_game_arguments(parser)
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--quiet", action="store_true", help="print only the result")
    shown.add_argument("--json", action="store_true",
                       help="print the whole record (seed, decisions, result) as JSON")
    remote = parser.add_argument_group(
        "through the gRPC service",
        "Play as clients of the game service: each bot is a client with its own seat "
        "token. --service starts an embedded service (and Redis) for the game; --server "
        "uses a running one.")
    remote.add_argument("--service", action="store_true",
                        help="play through an embedded service started for this game")
    remote.add_argument("--server", metavar="HOST:PORT", help="play through this service")
    remote.add_argument("--port", type=int, default=50051,
                        help="port of the embedded service (default 50051; busy: any)")
    remote.add_argument("--data-dir", default="data/redis",
                        help="embedded Redis data folder (default data/redis)")
    remote.add_argument("--pace", type=float, default=0.0, metavar="SECONDS",
                        help="bots wait this long before each decision (to watch live)")
    remote.add_argument("--http-port", type=int, default=0, metavar="PORT",
                        help=f"the embedded service's web port, for {HUMAN} seats' pages "
                             f"(default: any free one; loopback only)")
    remote.add_argument("--web-url", metavar="URL",
                        help=f"with --server: its web port's address (`curia serve "
                             f"--http-port`), for {HUMAN} seats' links, e.g. "
                             f"http://127.0.0.1:8080")
    remote.add_argument("--decision-seconds", type=float, default=0.0, metavar="SECONDS",
                        help="each decision's time limit; after it the server decides at "
                             "random (default: no limit)")
    parser.set_defaults(run=run_play, parser=parser)


def run_play(args: argparse.Namespace) -> int:
    spec = spec_from(args)
    if args.service or args.server:
        return run_play_through_service(args, spec, sys.stdout)
    return run_play_here(args, spec, sys.stdout)


def run_play_here(args: argparse.Namespace, spec: GameSpec, out: TextIO) -> int:
    """Play in this process; print the log (unless --quiet or --json) and the result."""
    if args.json or args.quiet:
        record = play_game(spec, args.seed)
    else:
        log = PlayLog(out)
        log.header(spec.new(args.seed), variant=spec.variant, seed=args.seed,
                   players=spec.bots)
        record = play_game(spec, args.seed, on_step=log.step, before_step=log.before)
    if args.json:
        print_json(record.to_json(), out)
    else:
        print_result(final_of_state(record.state, players=spec.bots,
                                    decisions=len(record.decisions)), out)
    return 0


def run_play_through_service(args: argparse.Namespace, spec: GameSpec, out: TextIO) -> int:
    if args.web_url and not args.server:
        args.parser.error("--web-url names a running service's web port: use it with "
                          "--server")
    record = play_through_service(
        spec.bots, spec.game, spec.variant, dict(spec.options), args.seed, server=args.server,
        port=args.port, data_dir=args.data_dir, pace=args.pace,
        out=io.StringIO() if args.json else out, quiet=args.quiet,
        web=WebSeats(args.web_url, args.http_port, round(args.decision_seconds * 1000)),
        links=sys.stderr if args.json else out)
    if args.json:
        print_json(message_json(record), out)
    return 0


def print_json(data: Any, out: TextIO) -> None:
    json.dump(data, out, indent=2)
    out.write("\n")


# ---------------------------------------------------------------------------------------
# curia simulate
# ---------------------------------------------------------------------------------------
class Progress:
    """A plain-text progress bar on stderr, redrawn in place with \\r (at most 10 per s)."""

    def __init__(self, total: int, out: TextIO, enabled: bool = True, width: int = 30) -> None:
        self.total, self.out, self.enabled, self.width = total, out, enabled, width
        self.start = self.last = time.perf_counter()

    def update(self, done: int) -> None:
        now = time.perf_counter()
        if not self.enabled or (now - self.last < 0.1 and done < self.total):
            return
        self.last = now
        elapsed = now - self.start
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = f"{(self.total - done) / rate:.0f}s" if rate > 0 else "?"
        filled = self.width * done // max(self.total, 1)
        bar = "#" * filled + "-" * (self.width - filled)
        self.out.write(f"\r[{bar}] {done}/{self.total} games  {rate:.1f} games/s  eta {eta} ")
        self.out.flush()

    def close(self) -> None:
        if self.enabled:
            self.out.write("\n")
            self.out.flush()


def format_stats(stats: SeriesStats, seconds: float, seat_names: list[str]) -> list[str]:
    figures = stats.to_json(seconds)
    games = stats.games
    reasons = ", ".join(f"{reason} {count}" for reason, count in sorted(stats.reasons.items()))
    lines = [
        f"games: {games} in {seconds:.2f} s: {figures['games_per_s']} games/s, "
        f"{figures['decisions_per_s']} decisions/s (bots' thinking included)",
        f"mean game length: {figures['mean_turns']} turns, {figures['mean_decisions']} decisions",
        f"end reasons (of {games}): {reasons}",
        "win rate by seat position (a win tied between k seats counts 1/k for each):",
    ]
    for seat, rate in enumerate(figures["seat_win_rate"]):
        lines.append(f"  seat {seat} ({seat_names[seat]:<6}) {100 * rate:6.1f}%")
    lines.append(f"by bot (expected win rate if all were equal: {100 / stats.seats:.1f}%):")
    lines.append(f"  {'bot':<8} {'seat-games':>10} {'win rate':>9} {'mean rank':>10}")
    for bot, row in figures["bots"].items():
        lines.append(f"  {bot:<8} {row['games']:>10} {100 * row['win_rate']:8.1f}% "
                     f"{row['mean_rank']:>10.2f}")
    return lines


def add_simulate(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "simulate", help="play many games between bots and print statistics",
        description="Play N games between bots and print win rates per seat position and per "
                    "bot (a win tied between k seats counts 1/k for each), mean rank per bot, "
                    "game length, throughput and how many games hit the max_turns limit. Game "
                    "i uses seed derive_seed(SEED, i). The seating rotates by one place each "
                    "game (entry j of --seats sits at seat (j - i) mod n), so when N is a "
                    "multiple of the seat count every entry plays every seat equally often.")
    add_game_arguments(parser)
    parser.add_argument("-n", "--games", type=int, default=100, metavar="GAMES",
                        help="number of games (default: %(default)s)")
    parser.add_argument("--workers", type=int, default=1, metavar="K",
                        help="play in K processes (default: %(default)s)")
    parser.add_argument("--fixed-seats", action="store_true",
                        help="do not rotate the seating: entry j always sits at seat j")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    parser.add_argument("--json", action="store_true", help="print the statistics as JSON")
    parser.set_defaults(run=run_simulate, parser=parser)


def run_simulate(args: argparse.Namespace) -> int:
    if args.games < 1:
        args.parser.error("-n must be at least 1")
    if args.workers < 1:
        args.parser.error("--workers must be at least 1")
    spec = spec_from(args)
    stats = SeriesStats(len(spec.bots))
    progress = Progress(args.games, sys.stderr, enabled=not args.no_progress)
    start = time.perf_counter()
    code = 0
    try:
        for summary in run_games(spec, args.seed, args.games, rotate=not args.fixed_seats,
                                 workers=args.workers):
            stats.add(summary)
            progress.update(stats.games)
    except KeyboardInterrupt:
        code = 130
    finally:
        progress.close()
    seconds = time.perf_counter() - start
    if code:
        print(f"interrupted: statistics over the {stats.games} finished games", file=sys.stderr)
    if stats.games:
        print_stats(args, spec, stats, seconds)
    return code


def print_stats(args: argparse.Namespace, spec: GameSpec, stats: SeriesStats,
                seconds: float) -> None:
    if args.json:
        figures = stats.to_json(seconds)
        figures.update(game=spec.game, variant=spec.variant, seats=list(spec.bots),
                       seed=args.seed, rotate=not args.fixed_seats)
        print(json.dumps(figures, indent=2))
        return
    rotation = "fixed seating" if args.fixed_seats else "seating rotates each game"
    print(f"{spec.game} {spec.variant}, seats {','.join(spec.bots)}, seed {args.seed} "
          f"({rotation})")
    print("\n".join(format_stats(stats, seconds, spec.new(args.seed).seat_names())))


# ---------------------------------------------------------------------------------------
# curia games
# ---------------------------------------------------------------------------------------
def add_games(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "games", help="list the games, their variants, options and bots",
        description="List the registered games (plugins included): each variant with the "
                    "seats it takes, each option with its default and range, whether "
                    "seats decide at the same time or see different things, and the bots "
                    "that play it.")
    parser.set_defaults(run=run_games_list, parser=parser)


def run_games_list(args: argparse.Namespace) -> int:
    print("\n\n".join("\n".join(game_lines(GAMES[name])) for name in sorted(GAMES)))
    return 0


def game_lines(game: Game) -> list[str]:
    """One game's entry in `curia games`."""
    lines = [f"{game.name} ({game.title or game.name})"]
    for variant in game.variants:
        default = ", the default" if variant.name == game.default_variant else ""
        about = f": {variant.description}" if variant.description else ""
        lines.append(f"  variant {variant.name} ({variant.min_seats}-{variant.max_seats} "
                     f"{game.seat_noun}{default}){about}")
    for option in game.options:
        lines.append(f"  option {option.name}={option.default} ({option.minimum} to "
                     f"{option.maximum}): {option.description}")
    lines.append(f"  simultaneous decisions: {_yes(game.simultaneous)}; "
                 f"private information: {_yes(game.private_information)}")
    lines.append(f"  bots: {', '.join(bot_names(game.name)) or 'none'}")
    return lines


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


# ---------------------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------------------
#: Each function adds one subcommand to the parser (see the module docstring).
SUBCOMMANDS: list[Callable[[Subparsers], None]] = [
    add_play, add_simulate, add_games, add_serve, add_watch, add_loadtest, add_arena,
    add_replay, add_cards, add_league, add_bot]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="curia", description="Board games for bots.")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in SUBCOMMANDS:
        add(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the `curia` command; return its exit code (2 for a usage error)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return int(args.run(args) or 0)
    except SystemExit as exit_:  # argparse: --help (0) or a usage error (2)
        return exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 2)
    except BrokenPipeError:  # e.g. `curia play | head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
