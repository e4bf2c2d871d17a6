"""Tournament reports from game outcomes: leaderboard, crosstable, seat statistics, exports.

Pure formatting: outcomes in, rows, text, JSON-ready dicts and CSV text out; the numbers
come from `ratings/`. The headline rating is the pairwise Bradley–Terry fit (every
pair of seats of a game as one result) with its 95% interval, robust and clustered by
deal, and the leaderboard is sorted by it; the Plackett–Luce fit of whole finishing
orders is kept in `tournament.json` as a cross-check; the sequential Elo is a secondary
column (it depends on the order of the games and lags the truth). Why:
docs/arena-ratings.md. Ranks are 1-based with tied seats sharing the better rank; a
first place shared by k tied seats counts 1/k of a win for each. A void game (it never
got going through the host's fault) is in no table but its own (`format_void`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ratings.bradley_terry import BradleyTerryFit, fit_bradley_terry
from ratings.elo import elo_history
from ratings.plackett_luce import fit_plackett_luce
from ratings.records import JSON, GameOutcome, counted, in_index_order, pairwise

UNSPECIFIED = "unspecified"
"""Forfeit reason counted for a forfeited seat whose record gives none."""
Cell = float | None


# ---------------------------------------------------------------------------------------
# Leaderboard
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Row:
    """One bot's line of the leaderboard."""

    name: str
    rating: float
    """Headline: the pairwise Bradley–Terry rating (`headline_fit`), the leaderboard's
    sort key."""
    margin: float
    """Half-width of the headline rating's 95% confidence interval (robust, by deal)."""
    elo: float
    """Secondary: sequential Elo after the last game (`elo_history`)."""
    games: int
    """Seats played (a bot in two seats of one game counts twice)."""
    wins: float
    """First places; a first place tied between k seats counts 1/k."""
    mean_rank: float
    """Mean 1-based finishing rank."""
    score: float
    """Points per pairwise result (ahead 1, tied 0.5, behind 0)."""
    forfeits: int
    """Seats forfeited (time losses, crashes, illegal decisions): counted apart, though
    a forfeited seat is also ranked last and so rated as a loss to every other seat."""
    forfeit_reasons: dict[str, int] = field(default_factory=dict, hash=False)
    """Forfeits by reason (UNSPECIFIED when the record gives none)."""

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


@dataclass
class _Participation:
    games: int = 0
    wins: float = 0.0
    rank_sum: int = 0
    forfeit_reasons: dict[str, int] = field(default_factory=dict)


def _participation(outcomes: Iterable[GameOutcome]) -> dict[str, _Participation]:
    """Per bot: seats played, shared wins, rank sum and forfeits by reason."""
    tallies: dict[str, _Participation] = {}
    for game in outcomes:
        ranks = game.ranks()
        winners = game.ranking[0]
        for seat, name in enumerate(game.seating):
            tally = tallies.setdefault(name, _Participation())
            tally.games += 1
            tally.wins += 1 / len(winners) if seat in winners else 0.0
            tally.rank_sum += ranks[seat]
            if seat in game.forfeits:
                why = game.reasons.get(seat, UNSPECIFIED)
                tally.forfeit_reasons[why] = tally.forfeit_reasons.get(why, 0) + 1
    return tallies


def leaderboard(outcomes: Iterable[GameOutcome], *, k: float = 32.0,
                anchor: float = 1500.0) -> list[Row]:
    """One row per bot, best headline rating first (then by name).

    `k` is the sequential Elo's K-factor; `anchor` is both the sequential Elo's starting
    rating and the headline ratings' mean.
    """
    games = counted(outcomes)
    final_elo, _ = elo_history(games, k=k, initial=anchor)
    fitted = headline_fit(games, anchor=anchor).ratings
    rows = [Row(name=name, rating=fitted[name].elo, margin=fitted[name].margin,
                elo=final_elo[name],
                games=tally.games, wins=tally.wins, mean_rank=tally.rank_sum / tally.games,
                score=fitted[name].score, forfeits=sum(tally.forfeit_reasons.values()),
                forfeit_reasons=dict(sorted(tally.forfeit_reasons.items())))
            for name, tally in _participation(games).items()]
    return sorted(rows, key=lambda row: (-row.rating, row.name))


def headline_fit(outcomes: Iterable[GameOutcome], anchor: float = 1500.0
                 ) -> BradleyTerryFit:
    """The headline ratings: pairwise Bradley–Terry, with intervals robust and clustered
    by deal (consistent for each pair's chance of finishing ahead whatever the noise of
    the finishing orders; Plackett–Luce is not: docs/arena-ratings.md)."""
    return fit_bradley_terry(outcomes, anchor=anchor)


LEADERBOARD_HEADERS = ("#", "bot", "rating", "±95%", "seq-elo", "games", "wins", "win%",
                       "mean rank", "score%", "forfeits")


def format_leaderboard(rows: Sequence[Row]) -> str:
    """The leaderboard as an aligned text table, one line per row under a header: the
    headline rating and its 95% margin first, the sequential Elo after them."""
    cells = [[str(place), row.name, f"{row.rating:.0f}", f"{row.margin:.0f}",
              f"{row.elo:.0f}", str(row.games), _amount(row.wins),
              f"{100 * row.win_rate:.1f}", f"{row.mean_rank:.2f}", f"{100 * row.score:.1f}",
              _forfeit_text(row)]
             for place, row in enumerate(rows, start=1)]
    return _table(LEADERBOARD_HEADERS, cells, left={1, 10})


def _amount(value: float) -> str:
    """A count that may hold shares: "12", or "12.3" when not whole."""
    return f"{value:.0f}" if value == round(value) else f"{value:.1f}"


def _forfeit_text(row: Row) -> str:
    if not row.forfeits:
        return "0"
    detail = ", ".join(f"{why} {count}" for why, count in row.forfeit_reasons.items())
    return f"{row.forfeits} ({detail})"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]],
           left: set[int] | frozenset[int] = frozenset()) -> str:
    """Columns padded to their widest cell; numbers right-aligned, `left` columns not."""
    widths = [max(len(cell) for cell in column) for column in zip(headers, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        padded = [cell.ljust(width) if i in left else cell.rjust(width)
                  for i, (cell, width) in enumerate(zip(cells, widths, strict=True))]
        return "  ".join(padded).rstrip()

    return "\n".join([line(headers), *(line(row) for row in rows)])


# ---------------------------------------------------------------------------------------
# Crosstable
# ---------------------------------------------------------------------------------------
def crosstable(outcomes: Iterable[GameOutcome], names: Sequence[str] | None = None
               ) -> tuple[list[str], list[list[Cell]]]:
    """(names, matrix): matrix[i][j] is the points per pairwise result of names[i]
    against names[j], None on the diagonal and where they never met.

    `names` defaults to the leaderboard's order (best headline rating first).
    """
    games = counted(outcomes)
    order = list(names) if names is not None else [row.name for row in leaderboard(games)]
    points, counts = _pair_totals(games)
    matrix: list[list[Cell]] = [
        [points[(a, b)] / counts[(a, b)] if a != b and counts.get((a, b)) else None
         for b in order]
        for a in order]
    return order, matrix


def _pair_totals(outcomes: Iterable[GameOutcome]
                 ) -> tuple[dict[tuple[str, str], float], dict[tuple[str, str], int]]:
    points: dict[tuple[str, str], float] = {}
    counts: dict[tuple[str, str], int] = {}
    for game in outcomes:
        for a, b, score in pairwise(game):
            for pair, gained in (((a, b), score), ((b, a), 1 - score)):
                points[pair] = points.get(pair, 0.0) + gained
                counts[pair] = counts.get(pair, 0) + 1
    return points, counts


def format_crosstable(names: Sequence[str], matrix: Sequence[Sequence[Cell]]) -> str:
    """Rows "place bot", then one column per opponent by place: the row bot's score in
    percent, "-" on the diagonal, "." where the two never met."""
    headers = ["#", "bot", *(str(place) for place in range(1, len(names) + 1))]
    rows = [[str(place), name,
             *("-" if i == j else "." if cell is None else f"{100 * cell:.1f}"
               for j, cell in enumerate(cells))]
            for i, (place, name, cells) in enumerate(
                zip(range(1, len(names) + 1), names, matrix, strict=True))]
    return _table(headers, rows, left={1})


# ---------------------------------------------------------------------------------------
# Seats
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SeatRow:
    """How one seat position fared, whoever sat there."""

    seat: int
    games: int
    """Games that had this seat."""
    wins: float
    """First places at this seat; a first place tied between k seats counts 1/k."""
    mean_rank: float

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


def seat_stats(outcomes: Iterable[GameOutcome]) -> list[SeatRow]:
    """Per seat position: games, shared wins, win rate and mean rank (seat advantage)."""
    games: dict[int, int] = {}
    wins: dict[int, float] = {}
    rank_sums: dict[int, int] = {}
    for game in counted(outcomes):
        ranks = game.ranks()
        winners = game.ranking[0]
        for seat in range(game.seats):
            games[seat] = games.get(seat, 0) + 1
            wins[seat] = wins.get(seat, 0.0) + (1 / len(winners) if seat in winners else 0.0)
            rank_sums[seat] = rank_sums.get(seat, 0) + ranks[seat]
    return [SeatRow(seat, games[seat], wins[seat], rank_sums[seat] / games[seat])
            for seat in sorted(games)]


def format_seat_stats(rows: Sequence[SeatRow]) -> str:
    """Seat statistics as an aligned text table."""
    cells = [[str(row.seat), str(row.games), _amount(row.wins), f"{100 * row.win_rate:.1f}",
              f"{row.mean_rank:.2f}"] for row in rows]
    return _table(("seat", "games", "wins", "win%", "mean rank"), cells)


# ---------------------------------------------------------------------------------------
# Void games
# ---------------------------------------------------------------------------------------
def void_games(outcomes: Iterable[GameOutcome]) -> list[GameOutcome]:
    """The void games (no result, in no rating), in index order."""
    return [game for game in in_index_order(outcomes) if game.void is not None]


def voided_attempts(outcomes: Iterable[GameOutcome]) -> int:
    """Attempts that were void: every attempt of a void game, all but the last of any
    other (those were played again)."""
    return sum(game.attempts - (game.void is None) for game in outcomes)


def format_void(outcomes: Sequence[GameOutcome]) -> str:
    """The void games, one line each, under a line counting them and the attempts that
    were void; "" when no attempt was."""
    voided = voided_attempts(outcomes)
    if not voided:
        return ""
    void = void_games(outcomes)
    lines = [f"{len(void)} void game(s) of {len(outcomes)}, counted in no rating; "
             f"{voided} attempt(s) void in all, each played again with the same deal"]
    lines += [f"game {game.index} ({', '.join(game.seating)}): {game.void} "
              f"({game.attempts} attempts)" for game in void]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------
# Live progress
# ---------------------------------------------------------------------------------------
def standings_line(outcomes: Iterable[GameOutcome], total_games: int, top: int = 5) -> str:
    """One short line for a live display: "12/30 games · greedy 1612, random 1388".

    Bots by the leaderboard's headline rating, best first; after `top` of them the rest
    is shown as "…".
    """
    games = list(outcomes)
    ratings = headline_fit(games).ratings
    ranked = sorted(((name, r.elo) for name, r in ratings.items()),
                    key=lambda item: (-item[1], item[0]))
    shown = ", ".join(f"{name} {rating:.0f}" for name, rating in ranked[:top])
    more = ", …" if len(ranked) > top else ""
    void = len(void_games(games))
    done = f"{len(games)}/{total_games} games" + (f" ({void} void)" if void else "")
    return done + (f" · {shown}{more}" if shown else "")


# ---------------------------------------------------------------------------------------
# Exports
# ---------------------------------------------------------------------------------------
def to_json(outcomes: Iterable[GameOutcome]) -> JSON:
    """Games, leaderboard, rating details (the Plackett–Luce fit of whole finishing
    orders alongside, as a cross-check), crosstable and seat statistics."""
    games = in_index_order(outcomes)
    rows = leaderboard(games)
    names, matrix = crosstable(games, [row.name for row in rows])
    fit = headline_fit(games)
    plackett_luce = fit_plackett_luce(games)
    return {
        "games": [game.to_json() for game in games],
        "ratings": [_row_json(row) for row in rows],
        "rating": {"model": "bradley-terry (pairwise)", "confidence": fit.confidence,
                   "covariance": "cluster-robust (sandwich) by deal, floored at "
                                 "model-based",
                   "deals": fit.deals, "dispersion": fit.dispersion},
        "plackett_luce": {name: {"rating": r.elo, "margin": r.margin}
                          for name, r in plackett_luce.ratings.items()},
        "crosstable": {"names": names, "scores": matrix},
        "seats": [{"seat": s.seat, "games": s.games, "wins": s.wins,
                   "win_rate": s.win_rate, "mean_rank": s.mean_rank}
                  for s in seat_stats(games)],
        "void": {"games": [{"index": g.index, "reason": g.void, "attempts": g.attempts}
                           for g in void_games(games)],
                 "attempts": voided_attempts(games)},
    }


def _row_json(row: Row) -> JSON:
    return {"name": row.name, "rating": row.rating, "margin": row.margin, "seq_elo": row.elo,
            "games": row.games, "wins": row.wins, "win_rate": row.win_rate,
            "mean_rank": row.mean_rank, "score": row.score, "forfeits": row.forfeits,
            "forfeit_reasons": dict(row.forfeit_reasons)}


GAMES_CSV_HEADER = ("index", "seed", "seat", "bot", "rank", "forfeit", "forfeit_reason",
                    "reason", "turns", "decisions", "void", "attempts")
RATINGS_CSV_HEADER = ("place", "bot", "rating", "rating_low", "rating_high", "seq_elo", "games",
                      "wins", "win_rate", "mean_rank", "score", "forfeits")


def games_csv(outcomes: Iterable[GameOutcome]) -> str:
    """CSV with one line per seat of each game (index order), under GAMES_CSV_HEADER; a
    void game's seats have no rank, and its `void` says why."""
    lines: list[list[object]] = []
    for game in in_index_order(outcomes):
        ranks = game.ranks() if game.void is None else [""] * game.seats
        for seat, name in enumerate(game.seating):
            forfeited = seat in game.forfeits
            why = game.reasons.get(seat, UNSPECIFIED) if forfeited else ""
            turns = "" if game.turns is None else game.turns
            lines.append([game.index, game.seed, seat, name, ranks[seat], int(forfeited),
                          why, game.reason, turns, game.decisions, game.void or "",
                          game.attempts])
    return _csv(GAMES_CSV_HEADER, lines)


def ratings_csv(rows: Sequence[Row]) -> str:
    """CSV of the leaderboard under RATINGS_CSV_HEADER (ratings to 0.1 Elo)."""
    lines: list[list[object]] = [
        [place, row.name, f"{row.rating:.1f}", f"{row.rating - row.margin:.1f}",
         f"{row.rating + row.margin:.1f}", f"{row.elo:.1f}", row.games,
         round(row.wins, 4), f"{row.win_rate:.4f}", f"{row.mean_rank:.4f}", f"{row.score:.4f}",
         row.forfeits]
        for place, row in enumerate(rows, start=1)]
    return _csv(RATINGS_CSV_HEADER, lines)


def _csv(header: Sequence[str], lines: Iterable[Sequence[object]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(lines)
    return buffer.getvalue()
