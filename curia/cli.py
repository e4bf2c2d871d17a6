"""The `curia` command: play one game between bots, or simulate many.

    curia play --game municipium --variant classic --seats random,greedy,random --seed 7
    curia simulate --seats greedy,random,random -n 200 --seed 1

Adding a subcommand (serve, arena, loadtest, ...) is one function and one registration:
write `add_NAME(subparsers)` that builds the subcommand's parser and calls
`parser.set_defaults(run=run_NAME)`, where `run_NAME(args) -> int` does the work, and
append `add_NAME` to `SUBCOMMANDS`. A run function reports a bad argument combination
with `args.parser.error(message)` (usage + message on stderr, exit code 2).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

from bots import bot_names, make_bot
from games import GAMES, Decision, Event, GameState, Result, SetupError, get_game, new_game
from games.core import JSON, derive_seed, notation

Subparsers = Any  # argparse's private _SubParsersAction


# ---------------------------------------------------------------------------------------
# Running games between bots
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameSpec:
    """What every game of a run shares: the game, variant, options and seated bot names."""

    game: str
    variant: str
    bots: tuple[str, ...]
    options: JSON = field(default_factory=dict)

    def new(self, seed: int) -> GameState:
        """A new game of this spec; raises SetupError if the spec is not playable."""
        return new_game(self.game, self.variant, len(self.bots), dict(self.options), seed)


@dataclass
class GameRecord:
    """One finished (or stopped) game: enough to replay it from its seed."""

    spec: GameSpec
    seed: int
    decisions: list[str]
    state: GameState

    @property
    def result(self) -> Result | None:
        return self.state.result()

    @property
    def turns(self) -> int | None:
        turn = self.state.observation(None).get("turn")
        return turn if isinstance(turn, int) else None

    def to_json(self) -> JSON:
        result = self.result
        return {
            "game": self.spec.game, "variant": self.spec.variant, "seats": list(self.spec.bots),
            "families": family_names(self.state), "options": dict(self.state.options),
            "seed": self.seed, "decisions": self.decisions, "turns": self.turns,
            "result": result.to_json() if result else None,
            "final_state_sha256": hashlib.sha256(self.state.to_bytes()).hexdigest(),
        }


#: Called after each decision with (state after it, seat, decision, events it caused).
StepHook = Callable[[GameState, int, Decision, list[Event]], None]


def bot_seed(game_seed: int, seat: int) -> int:
    """The seed of the bot in `seat` (its own randomness, independent of the game's)."""
    return derive_seed(game_seed, "bot", seat)


def play_game(spec: GameSpec, seed: int, on_step: StepHook | None = None,
              before_step: Callable[[GameState, int], None] | None = None) -> GameRecord:
    """Play one game to its end, each seat's bot choosing when that seat must decide."""
    state = spec.new(seed)
    bots = [make_bot(name, bot_seed(seed, seat), spec.game)
            for seat, name in enumerate(spec.bots)]
    decisions: list[str] = []
    while not state.is_over:
        seat = state.to_move()[0]
        if before_step is not None:
            before_step(state, seat)
        decision = bots[seat].choose(state, seat)
        events = state.apply(seat, decision)  # validated: a faulty bot fails loudly
        decisions.append(notation(decision))
        if on_step is not None:
            on_step(state, seat, decision, events)
    return GameRecord(spec, seed, decisions, state)


def replay(spec: GameSpec, seed: int, decisions: Iterable[str]) -> GameState:
    """Rebuild a game from its seed and its decisions in text notation."""
    state = spec.new(seed)
    for text in decisions:
        state.apply(state.to_move()[0], text)
    return state


def family_names(state: GameState) -> list[str]:
    names = state.observation(None).get("families")
    if isinstance(names, list) and len(names) == state.num_seats:
        return [str(n) for n in names]
    return [f"seat {s}" for s in range(state.num_seats)]


# ---------------------------------------------------------------------------------------
# Rendering: events as short sentences, results as a table
# ---------------------------------------------------------------------------------------
def describe_event(game: str, event: Event, decision: Decision | None) -> str | None:
    """The game's sentence for an event (None: the decision line says it all)."""
    return get_game(game).describe_event(event, decision)


def describe_reason(game: str, result: Result, options: JSON) -> str:
    """The game's sentence for why it ended."""
    return get_game(game).describe_end(result, options)


def _score_text(score: JSON) -> str:
    return ", ".join(f"{key.replace('_and_', '+').replace('_', ' ')} {value}"
                     for key, value in score.items())


def format_result(record: GameRecord) -> list[str]:
    """The final ranking (ties share a rank, marked '='), scores and the end reason."""
    result = record.result
    if result is None:
        return ["the game did not finish"]
    families = family_names(record.state)
    lines = [f"result: {describe_reason(record.spec.game, result, record.state.options)}"]
    place = 1
    for group in result.ranking:
        tie = "=" if len(group) > 1 else "."
        for seat in group:
            lines.append(f"  {place}{tie} {families[seat]:<7} {record.spec.bots[seat]:<7} "
                         f"{_score_text(result.scores[seat])}")
        place += len(group)
    turns = f"{record.turns} turns, " if record.turns is not None else ""
    lines.append(f"game length: {turns}{len(record.decisions)} decisions")
    return lines


class PlayLog:
    """Prints one line per decision and a line per event it caused."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.families: list[str] = []
        self.turn: object = None

    def header(self, record_spec: GameSpec, state: GameState, seed: int) -> None:
        self.families = family_names(state)
        seating = ", ".join(f"{f}={b}" for f, b in zip(self.families, record_spec.bots,
                                                       strict=True))
        print(f"{record_spec.game} {record_spec.variant}, seed {seed}: {seating}", file=self.out)
        obs = state.observation(None)
        if isinstance(obs.get("first"), int):
            print(f"first family: {self.families[obs['first']]}", file=self.out)

    def before(self, state: GameState, seat: int) -> None:
        turn = state.observation(None).get("turn")
        self.turn = "setup" if turn == 0 else turn

    def step(self, state: GameState, seat: int, decision: Decision,
             events: list[Event]) -> None:
        print(f"{self.turn!s:>5} {self.families[seat]:<7} {notation(decision)}", file=self.out)
        for event in events:
            if not event.visible_to(None):
                continue
            text = describe_event(state.game, event, decision)
            if text:
                print(f"        {text}", file=self.out)


# ---------------------------------------------------------------------------------------
# Shared options
# ---------------------------------------------------------------------------------------
def bot_list(text: str) -> tuple[str, ...]:
    """argparse type of --seats: comma-separated registered bot names."""
    names = tuple(name.strip() for name in text.split(","))
    if not all(names):
        raise argparse.ArgumentTypeError(f"expected bot names separated by commas, got {text!r}")
    unknown = [name for name in names if name not in bot_names()]
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
    parser.add_argument("--game", default="municipium", choices=sorted(GAMES),
                        help="game to play (default: %(default)s)")
    parser.add_argument("--variant", default="classic",
                        help="rule set, e.g. classic or revised (default: %(default)s)")
    parser.add_argument("--seats", type=bot_list, default=bot_list("greedy,random,random"),
                        metavar="BOT,BOT,...",
                        help=f"one bot per seat, in seat order; the number of names is the "
                             f"number of seats. Bots: {', '.join(bot_names())} "
                             f"(default: greedy,random,random)")
    parser.add_argument("--seed", type=int, default=0, help="game seed (default: %(default)s)")
    parser.add_argument("--option", type=option_pair, action="append", default=[],
                        metavar="KEY=VALUE",
                        help="game option, repeatable, e.g. --option target_decurions=4")
    parser.add_argument("--max-turns", type=int, metavar="N",
                        help="end a game after N turns (the game's max_turns option)")


def spec_from(args: argparse.Namespace) -> GameSpec:
    """The GameSpec the arguments describe; a game that cannot be set up is a usage error."""
    options = dict(args.option)
    if args.max_turns is not None:
        options["max_turns"] = args.max_turns
    spec = GameSpec(args.game, args.variant, args.seats, options)
    try:
        spec.new(args.seed)
    except SetupError as error:
        args.parser.error(str(error))
    return spec


# ---------------------------------------------------------------------------------------
# curia play
# ---------------------------------------------------------------------------------------
def add_play(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "play", help="play one game between bots and print its log",
        description="Play one full game between bots and print a readable log: one line per "
                    "decision (turn, family, decision) with the events it caused, then the "
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
    parser.set_defaults(run=run_play, parser=parser)


def run_play(args: argparse.Namespace) -> int:
    spec = spec_from(args)
    out = sys.stdout
    if args.service or args.server:
        return run_play_through_service(args, spec, out)
    if args.json or args.quiet:
        record = play_game(spec, args.seed)
    else:
        log = PlayLog(out)
        log.header(spec, spec.new(args.seed), args.seed)
        record = play_game(spec, args.seed, on_step=log.step, before_step=log.before)
    if args.json:
        json.dump(record.to_json(), out, indent=2)
        out.write("\n")
        return 0
    print("\n".join(format_result(record)), file=out)
    return 0


def run_play_through_service(args: argparse.Namespace, spec: GameSpec, out: TextIO) -> int:
    from google.protobuf.json_format import MessageToDict

    from curia.remote import play_through_service

    record = play_through_service(
        spec.bots, spec.game, spec.variant, dict(spec.options), args.seed, server=args.server,
        port=args.port, data_dir=args.data_dir, pace=args.pace,
        out=io.StringIO() if args.json else out, quiet=args.quiet)
    if args.json:
        json.dump(MessageToDict(record, preserving_proto_field_name=True), out, indent=2)
        out.write("\n")
    return 0


# ---------------------------------------------------------------------------------------
# curia simulate
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameSummary:
    """What simulate keeps of one game."""

    index: int
    seed: int
    bots: tuple[str, ...]  # bot name per seat, after rotation
    ranking: tuple[tuple[int, ...], ...]
    reason: str
    turns: int | None
    decisions: int


def seating(bots: tuple[str, ...], index: int, rotate: bool) -> tuple[str, ...]:
    """Game `index` shifts the seating by `index` places: entry j of --seats sits at
    seat (j - index) mod n, so over n consecutive games every entry plays every seat once."""
    if not rotate:
        return bots
    n = len(bots)
    return tuple(bots[(seat + index) % n] for seat in range(n))


def simulate_one(job: tuple[GameSpec, int, int, bool]) -> GameSummary:
    """Play game `index` of a series (seed derive_seed(seed, index)); picklable for workers."""
    spec, seed, index, rotate = job
    game_seed = derive_seed(seed, index)
    seated = seating(spec.bots, index, rotate)
    record = play_game(GameSpec(spec.game, spec.variant, seated, spec.options), game_seed)
    result = record.result
    assert result is not None
    return GameSummary(index, game_seed, seated, result.ranking, result.reason,
                       record.turns, len(record.decisions))


def run_games(spec: GameSpec, seed: int, count: int, rotate: bool,
              workers: int) -> Iterator[GameSummary]:
    """Yield the summaries as the games finish (in any order when workers > 1)."""
    jobs = ((spec, seed, index, rotate) for index in range(count))
    if workers <= 1:
        yield from map(simulate_one, jobs)
        return
    with multiprocessing.Pool(workers) as pool:
        yield from pool.imap_unordered(simulate_one, jobs, chunksize=1)


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


@dataclass
class SeriesStats:
    """Win shares, ranks and lengths over a series of games (pure: summaries in, figures out).

    A win is shared among tied winners: each of k tied winners gets 1/k of a win.
    Ranks are 1-based, tied seats sharing the better rank.
    """

    seats: int
    games: int = 0
    seat_wins: list[float] = field(default_factory=list)
    bot_games: dict[str, int] = field(default_factory=dict)
    bot_wins: dict[str, float] = field(default_factory=dict)
    bot_rank_sum: dict[str, int] = field(default_factory=dict)
    turns: int = 0
    turn_games: int = 0
    decisions: int = 0
    reasons: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.seat_wins = [0.0] * self.seats

    def add(self, game: GameSummary) -> None:
        self.games += 1
        winners = game.ranking[0]
        place, rank = 1, {}
        for group in game.ranking:
            for seat in group:
                rank[seat] = place
            place += len(group)
        for seat, bot in enumerate(game.bots):
            share = 1 / len(winners) if seat in winners else 0.0
            self.seat_wins[seat] += share
            self.bot_games[bot] = self.bot_games.get(bot, 0) + 1
            self.bot_wins[bot] = self.bot_wins.get(bot, 0.0) + share
            self.bot_rank_sum[bot] = self.bot_rank_sum.get(bot, 0) + rank[seat]
        if game.turns is not None:
            self.turns += game.turns
            self.turn_games += 1
        self.decisions += game.decisions
        self.reasons[game.reason] = self.reasons.get(game.reason, 0) + 1

    def to_json(self, seconds: float) -> JSON:
        games = max(self.games, 1)
        return {
            "games": self.games, "seconds": round(seconds, 3),
            "games_per_s": round(self.games / seconds, 2) if seconds else None,
            "decisions_per_s": round(self.decisions / seconds, 1) if seconds else None,
            "seat_win_rate": [round(w / games, 4) for w in self.seat_wins],
            "bots": {bot: {"games": n, "win_rate": round(self.bot_wins[bot] / n, 4),
                           "mean_rank": round(self.bot_rank_sum[bot] / n, 3)}
                     for bot, n in self.bot_games.items()},
            "mean_turns": round(self.turns / self.turn_games, 2) if self.turn_games else None,
            "mean_decisions": round(self.decisions / games, 2),
            "end_reasons": dict(self.reasons),
            "ended_by_max_turns": self.reasons.get("max_turns", 0),
        }


def format_stats(stats: SeriesStats, seconds: float, families: list[str]) -> list[str]:
    figures = stats.to_json(seconds)
    games = stats.games
    lines = [
        f"games: {games} in {seconds:.2f} s: {figures['games_per_s']} games/s, "
        f"{figures['decisions_per_s']} decisions/s (bots' thinking included)",
        f"mean game length: {figures['mean_turns']} turns, {figures['mean_decisions']} decisions",
        f"ended by the max_turns limit (M23): {figures['ended_by_max_turns']} of {games}",
        "win rate by seat position (a win tied between k seats counts 1/k for each):",
    ]
    for seat, rate in enumerate(figures["seat_win_rate"]):
        lines.append(f"  seat {seat} ({families[seat]:<6}) {100 * rate:6.1f}%")
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
        for summary in run_games(spec, args.seed, args.games, not args.fixed_seats,
                                 args.workers):
            stats.add(summary)
            progress.update(stats.games)
    except KeyboardInterrupt:
        code = 130
    finally:
        progress.close()
    seconds = time.perf_counter() - start
    if code:
        print(f"interrupted: statistics over the {stats.games} finished games", file=sys.stderr)
    if not stats.games:
        return code
    if args.json:
        figures = stats.to_json(seconds)
        figures.update(game=spec.game, variant=spec.variant, seats=list(spec.bots),
                       seed=args.seed, rotate=not args.fixed_seats)
        print(json.dumps(figures, indent=2))
        return code
    families = family_names(spec.new(args.seed))
    rotation = "fixed seating" if args.fixed_seats else "seating rotates each game"
    print(f"{spec.game} {spec.variant}, seats {','.join(spec.bots)}, seed {args.seed} "
          f"({rotation})")
    print("\n".join(format_stats(stats, seconds, families)))
    return code


# ---------------------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------------------
#: Each function adds one subcommand to the parser (see the module docstring).
def add_service_commands(subparsers: Subparsers) -> None:
    from curia.arena_cli import add_arena
    from curia.remote import add_loadtest, add_serve, add_watch

    add_serve(subparsers)
    add_watch(subparsers)
    add_loadtest(subparsers)
    add_arena(subparsers)


SUBCOMMANDS: list[Callable[[Subparsers], None]] = [add_play, add_simulate, add_service_commands]


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
