"""The arena's SPRT: is bot A stronger than bot B? Pure: outcomes in, a verdict out.

Counting: one A–B result per game. A meets one designated B seat, the first seat after
A's going round the table that B holds. The seating alone fixes it (`sprt_games` seats B
right after A in every rotation), never the finishing order, so when the empty seats are
filled with more copies of B, the extra copies are not counted. Under a Plackett–Luce
finishing order the result of A against any one fixed seat follows the logistic Elo law
of the pair exactly, and games are independent, so Wald's error rates α and β hold in
every seat count (tests/arena/test_sprt.py shows it by simulation). Counting every A–B
seat pair instead, as the arena did, counts correlated results as independent: with B in
the empty seats, error rates of 9–16% for a promised 5% (docs/arena-ratings.md).

Stopping: the test is read in index order. The verdict is taken at the first index at
which the log-likelihood ratio of the results so far crosses a bound, over the games
0, 1, 2, … that have all finished (the first gap waits for its game). Games that were in
flight when the bound was crossed finish and are kept for the tables, but do not move
the verdict; so the verdict printed is always the one the stop was taken on, and it is
the same on every rerun and at any concurrency. Without a crossing within `max_games`
games the test ends undecided: `undecided_share` gives how often that happens.

A void game (it never got going through the host's fault: `GameOutcome.void`) gives no
A–B result; it is finished all the same, so the test reads on past it to the next game,
and it is one of the `max_games` scheduled games.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from arena.ratings import (
    GameOutcome,
    SprtResult,
    elo_from_score,
    elo_margin,
    score_from_elo,
    score_with_stderr,
    sprt,
)

Status = Literal["H0", "H1", "max_games", "running"]


@dataclass(frozen=True)
class SprtSettings:
    """The test's hypotheses, error rates and cap (the `[sprt]` table of a config)."""

    elo0: float = 0.0
    elo1: float = 50.0
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int = 400

    @classmethod
    def from_mapping(cls, spec: Mapping[str, Any]) -> SprtSettings:
        """From a config's `[sprt]` table as plain data (keys a and b are ignored)."""
        return cls(**{key: spec[key] for key in
                      ("elo0", "elo1", "alpha", "beta", "max_games") if key in spec})


@dataclass(frozen=True)
class SprtVerdict:
    """Where the sequential test stands over the finished games."""

    status: Status
    """H0 or H1 (decided), max_games (cap reached undecided) or running (neither yet)."""
    games: int
    """Games the verdict reads: indices 0 .. games - 1 (up to the stop)."""
    wins: int
    draws: int
    losses: int
    test: SprtResult
    """The log-likelihood ratio and bounds after those games."""

    @property
    def stopped(self) -> bool:
        """No more games are needed: decided, or the cap is reached."""
        return self.status != "running"


def designated_b_seat(seating: Sequence[str], a: str, b: str) -> int | None:
    """The seat of B that A is scored against: the first one after A's seat, going round
    the table; None when A or B is not seated."""
    if a == b or a not in seating:
        return None
    start = seating.index(a)
    for step in range(1, len(seating)):
        seat = (start + step) % len(seating)
        if seating[seat] == b:
            return seat
    return None


def ab_score(game: GameOutcome, a: str, b: str) -> float | None:
    """A's score against its designated B seat (ahead 1, tied 0.5, behind 0), or None
    (no A-B result: a void game, or A or B not seated)."""
    b_seat = designated_b_seat(game.seating, a, b)
    if b_seat is None or game.void is not None:
        return None
    place = game.places()
    a_place, b_place = place[game.seating.index(a)], place[b_seat]
    return 1.0 if a_place < b_place else 0.5 if a_place == b_place else 0.0


def finished_prefix(outcomes: Iterable[GameOutcome]) -> list[GameOutcome]:
    """The games with indices 0, 1, 2, … up to the first index not yet finished."""
    by_index = {game.index: game for game in outcomes}
    prefix: list[GameOutcome] = []
    while len(prefix) in by_index:
        prefix.append(by_index[len(prefix)])
    return prefix


def sequential_test(scores: Iterable[float | None], settings: SprtSettings) -> SprtVerdict:
    """Run the test over per-game scores in index order (None: no A–B result), stopping
    at the first crossing of a bound or at `settings.max_games` games; fewer scores and
    no crossing: "running"."""
    wins = draws = losses = games = 0
    test = _sprt(0, 0, 0, settings)
    for score in scores:
        if games >= settings.max_games:
            break
        games += 1
        if score is None:
            continue
        wins, draws, losses = wins + (score == 1), draws + (score == 0.5), losses + (score == 0)
        test = _sprt(wins, draws, losses, settings)
        if test.decision is not None:
            return SprtVerdict(test.decision, games, wins, draws, losses, test)
    status: Status = "max_games" if games >= settings.max_games else "running"
    return SprtVerdict(status, games, wins, draws, losses, test)


def sprt_verdict(outcomes: Iterable[GameOutcome], a: str, b: str,
                 settings: SprtSettings) -> SprtVerdict:
    """The verdict over the finished prefix of a tournament's games (see the module)."""
    prefix = finished_prefix(outcomes)
    return sequential_test((ab_score(game, a, b) for game in prefix), settings)


def _sprt(wins: int, draws: int, losses: int, settings: SprtSettings) -> SprtResult:
    return _cached_sprt(wins, draws, losses, settings.elo0, settings.elo1,
                        settings.alpha, settings.beta)


@lru_cache(maxsize=65536)
def _cached_sprt(wins: int, draws: int, losses: int, elo0: float, elo1: float,
                 alpha: float, beta: float) -> SprtResult:
    return sprt(wins, draws, losses, elo0, elo1, alpha, beta)


# ---------------------------------------------------------------------------------------
# How often the cap is reached undecided
# ---------------------------------------------------------------------------------------
def undecided_share(settings: SprtSettings, true_elo: float) -> float:
    """Probability that the test reaches `max_games` undecided when A is `true_elo`
    stronger than B, for results without draws (a finishing order has no ties).

    By dynamic programming over the number of wins after each game: the mass still
    undecided moves one game on, and what crosses a bound leaves. Without draws the
    log-likelihood ratio is W·ln(s1/s0) + L·ln((1 - s1)/(1 - s0)), which the test's
    (regularised, trinomial) ratio matches to within a few thousandths.
    """
    s0, s1 = score_from_elo(settings.elo0), score_from_elo(settings.elo1)
    per_win, per_loss = math.log(s1 / s0), math.log((1 - s1) / (1 - s0))
    bounds = _sprt(0, 0, 0, settings)
    win = score_from_elo(true_elo)

    def llr(wins: int, played: int) -> float:
        return wins * per_win + (played - wins) * per_loss

    first, alive = 0, [1.0]  # alive[k]: probability of being undecided with first + k wins
    for played in range(1, settings.max_games + 1):
        padded = [0.0, *alive, 0.0]
        alive = [padded[k] * win + padded[k + 1] * (1 - win) for k in range(len(padded) - 1)]
        while alive and llr(first, played) <= bounds.lower:  # H0 accepted: leaves
            alive.pop(0)
            first += 1
        while alive and llr(first + len(alive) - 1, played) >= bounds.upper:  # H1 accepted
            alive.pop()
    return math.fsum(alive)


def undecided_note(settings: SprtSettings) -> str:
    """One sentence: how often runs end undecided at this cap (see undecided_share)."""
    middle = (settings.elo0 + settings.elo1) / 2
    share = {elo: undecided_share(settings, elo) for elo in (settings.elo0, middle,
                                                             settings.elo1)}
    return (f"with these settings {100 * share[middle]:.0f}% of runs end undecided at "
            f"{settings.max_games} games when the true difference is {middle:g} Elo "
            f"({100 * share[settings.elo0]:.0f}% at elo0, {100 * share[settings.elo1]:.0f}% "
            f"at elo1)")


# ---------------------------------------------------------------------------------------
# The verdict as text
# ---------------------------------------------------------------------------------------
def verdict_text(outcomes: Sequence[GameOutcome], spec: Mapping[str, Any]) -> str:
    """The SPRT section of a report: the A–B record, the LLR and the verdict it stopped
    on. `spec` is the config's `[sprt]` table as plain data (a, b, elo0, …)."""
    a, b = spec["a"], spec["b"]
    settings = SprtSettings.from_mapping(spec)
    verdict = sprt_verdict(outcomes, a, b, settings)
    test = verdict.test
    lines = [f"{a} vs {b}: {verdict.wins} wins, {verdict.draws} draws, {verdict.losses} "
             f"losses (one result per game: {a} against the first {b} seat after it; "
             f"games 0-{verdict.games - 1})" if verdict.games else f"{a} vs {b}: no games",
             f"LLR {test.llr:.2f} (bounds {test.lower:.2f}, {test.upper:.2f}; "
             f"alpha {settings.alpha}, beta {settings.beta}): "
             f"{_status_text(verdict, a, b, settings)}"]
    if 0 < verdict.wins + verdict.draws / 2 < verdict.wins + verdict.draws + verdict.losses:
        score, stderr = score_with_stderr(verdict.wins, verdict.draws, verdict.losses)
        lines.append(f"Elo difference {elo_from_score(score):+.0f} "
                     f"± {elo_margin(score, stderr):.0f} (95%)")
    void = sum(1 for game in finished_prefix(outcomes)[:verdict.games] if game.void)
    if void:
        lines.append(f"{void} void game(s) among them gave no result (docs/arena.md)")
    extra = len(outcomes) - verdict.games
    if verdict.stopped and extra > 0:
        lines.append(f"{extra} game(s) in flight at the stop finished after it: kept in "
                     f"the tables, not in the verdict")
    return "\n".join(lines)


def _status_text(verdict: SprtVerdict, a: str, b: str, settings: SprtSettings) -> str:
    if verdict.status == "H1":
        return f"H1 accepted: {a} is stronger than {b} (elo1 = {settings.elo1:g})"
    if verdict.status == "H0":
        return (f"H0 accepted: {a} is not stronger than {b} by elo1 "
                f"(elo0 = {settings.elo0:g})")
    if verdict.status == "max_games":
        return f"max_games reached: no decision ({undecided_note(settings)})"
    return (f"running: {verdict.games} of at most {settings.max_games} games read, "
            f"no bound crossed yet (run again to resume)")
