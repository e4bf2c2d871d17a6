"""A league's ladder: its results in, ratings with intervals out (pure). The results' CSV is
`service.web.league_pages.results_csv` (the web page's export and `curia league results`).

The ratings are the arena's Plackett–Luce fit (`ratings.plackett_luce.fit_plackett_luce`)
over every rated, non-void result; each game is its own deal. A bot with fewer games than the
league's `provisional_games` is marked provisional. A bot without a rated game yet has no
rating.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from ratings.plackett_luce import fit_plackett_luce
from ratings.records import GameOutcome


@dataclass(frozen=True)
class LadderRow:
    """One bot on the ladder."""

    bot: str
    elo: float
    low: float
    high: float
    games: int
    """Rated games the bot finished."""
    provisional: bool


def outcomes(results: Iterable[Mapping[str, Any]]) -> list[GameOutcome]:
    """The rated, non-void results as the ratings' game outcomes, in the order played."""
    found = []
    for index, result in enumerate(results):
        if result.get("void") or not result.get("rated", True):
            continue
        found.append(GameOutcome(
            index=index, seed=0, seating=tuple(result["seating"]),
            ranking=tuple(tuple(group) for group in result["ranking"]),
            forfeits=tuple(result.get("forfeits", ())), reason=result.get("reason", ""),
            deal=result["game_id"]))
    return found


def ladder(results: Iterable[Mapping[str, Any]], provisional_games: int) -> list[LadderRow]:
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
    return [asdict(row) for row in rows]
