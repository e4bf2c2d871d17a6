"""Games between in-process bots: one game, replayable from its seed and decisions
(`play_game`, `replay`), and a series of them with its statistics (`run_games`,
`SeriesStats`).

The arena's in-process half: `arena.runner` plays bot processes through the service,
while here the bots are objects of this process (`bots.make_bot`) handed the real state,
which is what `curia play` and `curia simulate` run. No I/O: callers print.
"""

from __future__ import annotations

import hashlib
import multiprocessing
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from bots import make_bot
from games import Decision, Event, GameState, Result, new_game
from games.core import JSON, derive_seed, notation


# ---------------------------------------------------------------------------------------
# One game
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameSpec:
    """What every game of a run shares: the game, variant, options and seated bot names."""

    game: str
    variant: str
    bots: tuple[str, ...]
    options: JSON = field(default_factory=dict)

    def new(self, seed: int) -> GameState:
        """A new game of this spec; raises SetupError if the game cannot be set up."""
        return new_game(self.game, self.variant, len(self.bots), dict(self.options), seed)

    def check(self, seed: int = 0) -> None:
        """Raise ValueError (SetupError for the game's setup) saying why this spec cannot
        be played: the game cannot be set up, or a bot does not play it."""
        self.new(seed)
        for name in self.bots:
            make_bot(name, 0, self.game)


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
        """The game's turn number at the end; None for a game that does not count turns."""
        return self.state.turn_number() or None

    def to_json(self) -> JSON:
        result = self.result
        return {
            "game": self.spec.game, "variant": self.spec.variant, "seats": list(self.spec.bots),
            "seat_names": self.state.seat_names(), "options": dict(self.state.options),
            "seed": self.seed, "decisions": self.decisions, "turns": self.turns,
            "result": result.to_json() if result else None,
            "final_state_sha256": hashlib.sha256(self.state.to_bytes()).hexdigest(),
        }


#: Called before each decision with (state, seat about to decide).
BeforeHook = Callable[[GameState, int], None]
#: Called after each decision with (state after it, seat, decision, events it caused).
StepHook = Callable[[GameState, int, Decision, list[Event]], None]


def bot_seed(game_seed: int, seat: int) -> int:
    """The seed of the bot in `seat` (its own randomness, independent of the game's)."""
    return derive_seed(game_seed, "bot", seat)


def next_seat(state: GameState) -> int:
    """The seat that decides next: the lowest of those that must. When several must decide
    at once (simultaneous choices), each is asked in seat order and its decision applied
    before the next is asked; `replay` follows the same rule."""
    return min(state.to_move())


def play_game(spec: GameSpec, seed: int, *, on_step: StepHook | None = None,
              before_step: BeforeHook | None = None) -> GameRecord:
    """Play one game to its end, each seat's bot choosing when that seat must decide."""
    state = spec.new(seed)
    bots = [make_bot(name, bot_seed(seed, seat), spec.game)
            for seat, name in enumerate(spec.bots)]
    decisions: list[str] = []
    while not state.is_over:
        seat = next_seat(state)
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
        state.apply(next_seat(state), text)
    return state


# ---------------------------------------------------------------------------------------
# A series of games
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameSummary:
    """What a series keeps of one game."""

    index: int
    seed: int
    bots: tuple[str, ...]  # bot name per seat, after rotation
    ranking: tuple[tuple[int, ...], ...]
    reason: str
    turns: int | None
    decisions: int


def seating(bots: tuple[str, ...], index: int, rotate: bool) -> tuple[str, ...]:
    """Game `index` shifts the seating by `index` places: entry j of `bots` sits at
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


def run_games(spec: GameSpec, seed: int, count: int, *, rotate: bool,
              workers: int) -> Iterator[GameSummary]:
    """Yield the summaries as the games finish (in any order when workers > 1)."""
    jobs = ((spec, seed, index, rotate) for index in range(count))
    if workers <= 1:
        yield from map(simulate_one, jobs)
        return
    with multiprocessing.Pool(workers) as pool:
        yield from pool.imap_unordered(simulate_one, jobs, chunksize=1)


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
