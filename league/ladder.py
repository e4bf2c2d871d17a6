"""A league's ladder: its results in, ratings with intervals out (pure). The results' CSV is
`service.web.league_pages.results_csv` (the web page's export and `curia league results`).

The rows are `service.league_records.LadderRow`, the record the rating history stores.
The ratings are the pairwise Bradley–Terry fit with robust intervals, each game its own deal
(`ratings.pooled.fit_pooled` of `ratings.pooled.PairwiseStats`, equal to
`ratings.bradley_terry.fit_bradley_terry`): its intervals cover the truth whatever model made
the finishing orders, where the Plackett–Luce fit's do not. The Plackett–Luce fit is kept as
an on-demand cross-check (`cross_check`). A bot is provisional while its interval's half-width
exceeds `PROVISIONAL_HALF_WIDTH` or it has fewer games than the league's `provisional_games`.
The ladder is ordered by the interval's low end (a conservative rating). A bot without a rated
game yet has no rating.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from ratings.bradley_terry import BradleyTerryFit
from ratings.plackett_luce import fit_plackett_luce
from ratings.pooled import PairwiseStats, fit_pooled, pooled
from ratings.records import GameOutcome
from service.league_records import GameResult, LadderRow

__all__ = ["LadderRow", "cross_check", "ladder", "ladder_from_stats", "ladder_json",
           "ladder_text", "outcomes"]

#: Elo: a rating whose 95% interval is wider than ±this is provisional (a 100-Elo gap is a
#: 64% expected score: narrower than that, the place on the ladder means something).
PROVISIONAL_HALF_WIDTH = 100.0

#: A result as the ladder takes it: the record, or its JSON form (`curia league results`).
Result = GameResult | Mapping[str, Any]


def as_result(index: int, result: Result) -> GameResult:
    if isinstance(result, GameResult):
        return result
    return GameResult.from_json(f"result {index}", result)


def outcomes(results: Iterable[Result]) -> list[GameOutcome]:
    """The rated, non-void results as the ratings' game outcomes, in the order played."""
    found = []
    for index, given in enumerate(results):
        result = as_result(index, given)
        if not result.counts:
            continue
        found.append(GameOutcome(
            index=index, seed=0, seating=tuple(result.seating),
            ranking=tuple(tuple(group) for group in result.ranking),
            forfeits=tuple(result.forfeits), reason=result.reason, deal=result.game_id))
    return found


def statistics(results: Iterable[Result]) -> PairwiseStats:
    """The pooled statistics of `results` (a league stored before they were kept)."""
    return pooled(outcomes(results))


def ladder(results: Iterable[Result], provisional_games: int = 0) -> list[LadderRow]:
    """The ladder, best first, fitted from `results` (see `ladder_from_stats`)."""
    return ladder_from_stats(pooled(outcomes(results)), provisional_games)


def ladder_from_stats(stats: PairwiseStats, provisional_games: int = 0) -> list[LadderRow]:
    """The ladder, best first by the interval's low end, from the pooled statistics."""
    if not stats.games:
        return []
    return _rows(fit_pooled(stats), _played(stats), provisional_games)


def _played(stats: PairwiseStats) -> Counter[str]:
    """Each bot's rated games (a game with a bot twice counts once)."""
    played: Counter[str] = Counter()
    for seating, table in stats.tables.items():
        for bot in set(seating):
            played[bot] += table.games
    return played


def _rows(fit: BradleyTerryFit, played: Counter[str],
          provisional_games: int) -> list[LadderRow]:
    rows = [LadderRow(bot, rating.elo, rating.low, rating.high, played[bot],
                      is_provisional(rating.low, rating.high, played[bot],
                                     provisional_games))
            for bot, rating in fit.ratings.items()]
    return sorted(rows, key=lambda row: (-row.low, -row.elo, row.bot))


def is_provisional(low: float, high: float, games: int, provisional_games: int = 0) -> bool:
    """Whether a rating is still too uncertain to place (see `PROVISIONAL_HALF_WIDTH`)."""
    return (high - low) / 2 > PROVISIONAL_HALF_WIDTH or games < provisional_games


def cross_check(results: Iterable[Result]) -> list[LadderRow]:
    """The Plackett–Luce fit of the same results on the same Elo scale, best first by elo:
    on demand, never per result (docs/arena-ratings.md)."""
    games = outcomes(results)
    if not games:
        return []
    played = Counter(bot for game in games for bot in set(game.seating))
    fit = fit_plackett_luce(games)
    rows = [LadderRow(bot, rating.elo, rating.low, rating.high, played[bot],
                      is_provisional(rating.low, rating.high, played[bot]))
            for bot, rating in fit.ratings.items()]
    return sorted(rows, key=lambda row: (-row.elo, row.bot))


def ladder_text(rows: list[LadderRow]) -> str:
    """The ladder as a table for a terminal."""
    if not rows:
        return "no rated game yet"
    width = max(len(row.bot) for row in rows)
    lines = [f"{'#':>3}  {'bot':<{width}}  {'rating':>6}  {'95% interval':>13}  "
             f"{'games':>5}"]
    for place, row in enumerate(rows, 1):
        mark = "  provisional" if row.provisional else ""
        lines.append(f"{place:>3}  {row.bot:<{width}}  {row.elo:>6.0f}  "
                     f"{f'{row.low:.0f}–{row.high:.0f}':>13}  {row.games:>5}{mark}")
    return "\n".join(lines)


def ladder_json(rows: list[LadderRow]) -> list[dict[str, Any]]:
    return [row.to_json() for row in rows]
