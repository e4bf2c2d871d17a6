"""A league's ladder: its results in, ratings with intervals out (pure). The results' CSV is
`service.web.league_pages.results_csv` (the web page's export and `curia league results`).

The rows are `service.league_records.LadderRow`, the record the rating history stores.
The ratings are the arena's Plackett–Luce fit (`ratings.plackett_luce.fit_plackett_luce`)
over every rated, non-void result; each game is its own deal. A bot with fewer games than the
league's `provisional_games` is marked provisional. A bot without a rated game yet has no
rating.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from ratings.plackett_luce import fit_plackett_luce
from ratings.records import GameOutcome
from service.league_records import GameResult, LadderRow

__all__ = ["LadderRow", "ladder", "ladder_json", "ladder_text", "outcomes"]

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


def ladder(results: Iterable[Result], provisional_games: int) -> list[LadderRow]:
    """The ladder, best first."""
    games = outcomes(results)
    if not games:
        return []
    played = Counter(bot for game in games for bot in set(game.seating))
    fit = fit_plackett_luce(games)
    rows = [LadderRow(bot, rating.elo, rating.low, rating.high, played[bot],
                      played[bot] < provisional_games)
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
