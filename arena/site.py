"""The tournament site: one self-contained static `index.html` in the run folder (no
server, no CDN: it works from file:// and any static host) and a replay page per game
(`replays/NNNNN.html`), written as games end and by `curia arena report`. A game's row
and replay wait until its record is published (every game of its deal has ended,
`arena.deals`); the standings count every finished game.

Every figure comes from `arena.report` (leaderboard, crosstable, seat statistics),
`ratings.elo.elo_history` (the plot) and `ratings.sprt` (the verdict): this module
only lays them out. While the tournament runs the page reloads itself every few seconds.
"""

from __future__ import annotations

import html
import json
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from arena import report
from arena.deals import published
from ratings.elo import elo_history
from ratings.records import GameOutcome, counted
from service.web.page import document
from service.web.replay import load_record, replay_page

log = logging.getLogger(__name__)

SITE_FILE = "index.html"
REPLAYS = "replays"
#: How often a running tournament's page reloads itself.
REFRESH_SECONDS = 5
#: Line colours of the rating plot (colour-blind friendly, Okabe–Ito).
PALETTE = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000",
           "#f0e442")


def replay_name(index: int) -> str:
    """A game's replay page, relative to the run folder."""
    return f"{REPLAYS}/{index:05d}.html"


def write_replays(folder: Path, outcomes: Sequence[GameOutcome]) -> None:
    """The replay page of every finished game that has a record and no page yet."""
    for outcome in outcomes:
        target = folder / replay_name(outcome.index)
        record = folder / "games" / f"{outcome.index:05d}.json"
        if target.exists() or not record.exists():
            continue
        try:
            page = replay_page(load_record(record), back_link=f"../{SITE_FILE}")
        except (ValueError, KeyError) as error:  # a record the engine cannot replay
            log.warning("no replay for game %d: %s", outcome.index, error)
            continue
        target.parent.mkdir(exist_ok=True)
        _write(target, page)


def write_site(folder: Path, outcomes: Sequence[GameOutcome], meta: Mapping[str, Any], *,
               total: int | None = None, complete: bool = True) -> Path:
    """Write the replays not yet written, then index.html; return its path."""
    write_replays(folder, outcomes)
    path = folder / SITE_FILE
    _write(path, site_html(folder, outcomes, meta, total=total, complete=complete))
    return path


def _write(path: Path, text: str) -> None:
    """Replace a file at once (a browser reloading it never reads half a page)."""
    partial = path.with_suffix(path.suffix + ".part")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)


def site_html(folder: Path, outcomes: Sequence[GameOutcome], meta: Mapping[str, Any], *,
              total: int | None, complete: bool) -> str:
    """The whole page."""
    games = sorted(outcomes, key=lambda o: o.index)
    done = f"{len(games)} games" if complete else f"{len(games)} of {total or '?'} games"
    void = len(report.void_games(games))
    done += f" ({void} void)" if void else ""
    status = "complete" if complete else "running"
    sections = [_settings(meta, done, complete)]
    if report.voided_attempts(games):
        sections.append(_section("Void games", _void(games)))
    if counted(games):
        rows = report.leaderboard(games)
        if meta.get("sprt"):
            sections.append(_section("SPRT", f"<pre>{html.escape(_sprt(games, meta))}</pre>"))
        sections += [_section("Leaderboard", _leaderboard(rows)),
                     _section("Crosstable", _crosstable(games, rows)),
                     _section("Sequential Elo over games", _plot(games)),
                     _section("By seat position", _seats(games)),
                     _section("Games", _games(folder, games))]
    else:
        sections.append("<p>No game that counts has finished yet.</p>")
    title = f"Tournament {meta.get('name', folder.name)}"
    subtitle = " · ".join(str(meta[k]) for k in ("game", "variant") if meta.get(k))
    return document(title, "\n".join(sections), subtitle=subtitle, status=status,
                    refresh_seconds=None if complete else REFRESH_SECONDS)


def _section(title: str, body: str) -> str:
    return f"<section><h2>{html.escape(title)}</h2>{body}</section>"


def _settings(meta: Mapping[str, Any], done: str, complete: bool) -> str:
    keys = ("seats", "format", "rounds", "seed", "decision_ms", "bank_ms", "startup_ms")
    parts = [f"{key.replace('_', ' ')} {html.escape(str(meta[key]))}"
             for key in keys if meta.get(key) not in (None, "")]
    note = ("" if complete else
            f" · this page reloads every {REFRESH_SECONDS} s until the tournament ends")
    return (f'<p><strong>{html.escape(done)}</strong>{html.escape(note)}</p>'
            f'<p class="muted">{html.escape(", ".join(parts))}</p>')


def _sprt(games: Sequence[GameOutcome], meta: Mapping[str, Any]) -> str:
    from ratings.sprt import verdict_text

    return verdict_text(list(games), meta["sprt"])


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], *, left: Sequence[int] = (1,),
           caption: str = "") -> str:
    """An HTML table of already escaped cells; `left` columns are names."""
    def cells(tag: str, values: Sequence[str]) -> str:
        return "".join(f'<{tag}{" class=name" if i in left else ""}>{value}</{tag}>'
                       for i, value in enumerate(values))

    note = f'<p class="muted">{html.escape(caption)}</p>' if caption else ""
    body = "".join(f"<tr>{cells('td', row)}</tr>" for row in rows)
    return (f'<div class="scroll"><table><thead><tr>{cells("th", headers)}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>{note}")


def _leaderboard(rows: Sequence[report.Row]) -> str:
    headers = ["#", "bot", "rating", "±95%", "95% interval", "", "seq-elo", "games", "wins",
               "win%", "mean rank", "score%", "forfeits"]
    scale = (min(row.rating - row.margin for row in rows),
             max(row.rating + row.margin for row in rows))
    cells = [[str(place), html.escape(row.name), f"{row.rating:.0f}", f"±{row.margin:.0f}",
              f'<span class="interval">{row.rating - row.margin:.0f} – '
              f"{row.rating + row.margin:.0f}</span>", _error_bar(row, scale),
              f"{row.elo:.0f}", str(row.games), _amount(row.wins),
              f"{100 * row.win_rate:.1f}", f"{row.mean_rank:.2f}", f"{100 * row.score:.1f}",
              html.escape(_forfeits(row))]
             for place, row in enumerate(rows, start=1)]
    note = ('<p class="muted">Sorted by rating: a Bradley–Terry fit of every pair of seats '
            "of every game, with its 95% interval (robust, the games of a deal counted as one "
            "unit); call two bots different only when their intervals say so. seq-elo is the "
            "sequential Elo of the plot.</p>")
    return _table(headers, cells, left=(1, 12)) + note


BAR_WIDTH = 160


def _error_bar(row: report.Row, scale: tuple[float, float]) -> str:
    """The rating as a dot on its 95% interval, on one scale for every bot."""
    low, high = scale

    def x(rating: float) -> float:
        return 6 + (BAR_WIDTH - 12) * (rating - low) / max(high - low, 1e-9)

    return (f'<svg width="{BAR_WIDTH}" height="14" role="img" aria-label="{html.escape(row.name)}: '
            f'{row.rating - row.margin:.0f} to {row.rating + row.margin:.0f}">'
            f'<line x1="{x(row.rating - row.margin):.1f}" x2="{x(row.rating + row.margin):.1f}" '
            f'y1="7" y2="7" stroke="#8c2d19" stroke-width="2"/>'
            f'<circle cx="{x(row.rating):.1f}" cy="7" r="4" fill="#1d1a16"/></svg>')


def _amount(value: float) -> str:
    return f"{value:.0f}" if value == round(value) else f"{value:.1f}"


def _forfeits(row: report.Row) -> str:
    if not row.forfeits:
        return "0"
    detail = ", ".join(f"{why} {count}" for why, count in row.forfeit_reasons.items())
    return f"{row.forfeits} ({detail})"


def _crosstable(games: Sequence[GameOutcome], rows: Sequence[report.Row]) -> str:
    names, matrix = report.crosstable(games, [row.name for row in rows])
    headers = ["#", "bot", *(str(place) for place in range(1, len(names) + 1))]
    cells = [[str(i + 1), html.escape(name),
              *("–" if i == j else "·" if cell is None else f"{100 * cell:.1f}"
                for j, cell in enumerate(line))]
             for i, (name, line) in enumerate(zip(names, matrix, strict=True))]
    return _table(headers, cells, caption="the row's score (%) against the column, per "
                                          "pairwise result")


def _seats(games: Sequence[GameOutcome]) -> str:
    cells = [[str(row.seat), str(row.games), _amount(row.wins), f"{100 * row.win_rate:.1f}",
              f"{row.mean_rank:.2f}"] for row in report.seat_stats(games)]
    return _table(["seat", "games", "wins", "win%", "mean rank"], cells, left=())


def _games(folder: Path, games: Sequence[GameOutcome]) -> str:
    """A row per finished game whose deal has ended everywhere (arena.deals)."""
    listed = published(folder, games)
    cells = []
    for game in reversed(listed):  # the latest first
        link = replay_name(game.index)
        number = (f'<a href="{link}">game {game.index}</a>'
                  if (folder / link).exists() else f"game {game.index}")
        cells.append([number, html.escape(_finish(game)), html.escape(game.reason),
                      str(game.decisions), "" if game.turns is None else str(game.turns)])
    return _table(["replay", "finishing order", "end", "decisions", "turns"], cells,
                  left=(0, 1, 2), caption=_withheld_note(len(games) - len(listed)))


def _withheld_note(waiting: int) -> str:
    """Why finished games have no row yet."""
    if not waiting:
        return ""
    if waiting == 1:
        return ("1 more finished game is counted above; its row and replay appear once "
                "every game dealt the same cards has ended.")
    return (f"{waiting} more finished games are counted above; their rows and replays "
            f"appear once every game dealt the same cards has ended.")


def _void(games: Sequence[GameOutcome]) -> str:
    """The void games (no result, in no rating) and the count of void attempts."""
    cells = [[f"game {game.index}", html.escape(", ".join(game.seating)),
              html.escape(game.void or ""), str(game.attempts)]
             for game in report.void_games(games)]
    voided = report.voided_attempts(games)
    note = (f"{voided} attempt(s) were void (a bot slow to start, the service away: the "
            f"host's fault) and played again with the same deal; a game still void after "
            f"its last attempt counts in no rating.")
    if not cells:
        return f'<p class="muted">{html.escape(note)}</p>'
    return _table(["game", "seating", "why void", "attempts"], cells, left=(0, 1, 2),
                  caption=note)


def _finish(game: GameOutcome) -> str:
    """"1. greedy (seat 1), 2. random (seat 0, forfeited: timeout)"; "void: why"."""
    if game.void is not None:
        return f"void: {game.void}"
    parts, place = [], 1
    for group in game.ranking:
        for seat in group:
            lost = (f", forfeited: {game.reasons.get(seat, report.UNSPECIFIED)}"
                    if seat in game.forfeits else "")
            mark = "=" if len(group) > 1 else "."
            parts.append(f"{place}{mark} {game.seating[seat]} (seat {seat}{lost})")
        place += len(group)
    return ", ".join(parts)


# ---------------------------------------------------------------------------------------
# The rating plot, as inline SVG
# ---------------------------------------------------------------------------------------
PLOT_WIDTH, PLOT_HEIGHT, MARGIN = 800, 360, 48


def _plot(games: Sequence[GameOutcome]) -> str:
    """Each bot's sequential Elo after each game (`elo_history`), one line per bot."""
    _, history = elo_history(games)
    values = [rating for ratings in history for rating in ratings.values()]
    if not values:
        return "<p>No ratings yet.</p>"
    low, high = min(values) - 10, max(values) + 10
    names = sorted({name for ratings in history for name in ratings},
                   key=lambda name: -history[-1].get(name, 0.0))

    def x(played: int) -> float:
        span = max(len(history) - 1, 1)
        return MARGIN + (PLOT_WIDTH - 2 * MARGIN) * (played - 1) / span

    def y(rating: float) -> float:
        return PLOT_HEIGHT - MARGIN - (PLOT_HEIGHT - 2 * MARGIN) * (rating - low) / (high - low)

    lines, legend = [], []
    for number, name in enumerate(names):
        colour = PALETTE[number % len(PALETTE)]
        points = " ".join(f"{x(played):.1f},{y(ratings[name]):.1f}"
                          for played, ratings in enumerate(history, start=1) if name in ratings)
        lines.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" '
                     f'points="{points}"><title>{html.escape(name)}</title></polyline>')
        legend.append(f'<text x="{PLOT_WIDTH - MARGIN + 6}" y="{MARGIN + 16 * number}" '
                      f'fill="{colour}" font-size="12">{html.escape(name)}</text>')
    axes = _axes(low, high, len(history), y)
    return (f'<div class="plot"><svg xmlns="http://www.w3.org/2000/svg" role="img" '
            f'viewBox="0 0 {PLOT_WIDTH + 120} {PLOT_HEIGHT}" '
            f'aria-label="Sequential Elo of each bot over the games">{axes}{"".join(lines)}'
            f'{"".join(legend)}</svg></div>')


def _axes(low: float, high: float, played: int, y: Any) -> str:
    """Frame, three Elo gridlines and the games-played label."""
    marks = []
    for rating in (low + 10, (low + high) / 2, high - 10):
        marks.append(f'<line x1="{MARGIN}" x2="{PLOT_WIDTH - MARGIN}" y1="{y(rating):.1f}" '
                     f'y2="{y(rating):.1f}" stroke="#ccc"/><text x="{MARGIN - 6}" '
                     f'y="{y(rating) + 4:.1f}" font-size="11" text-anchor="end">'
                     f"{rating:.0f}</text>")
    return (f'<rect x="{MARGIN}" y="{MARGIN}" width="{PLOT_WIDTH - 2 * MARGIN}" '
            f'height="{PLOT_HEIGHT - 2 * MARGIN}" fill="none" stroke="#999"/>{"".join(marks)}'
            f'<text x="{PLOT_WIDTH / 2}" y="{PLOT_HEIGHT - 14}" font-size="12" '
            f'text-anchor="middle">games played (1–{played})</text>'
            f'<text x="14" y="{PLOT_HEIGHT / 2}" font-size="12" text-anchor="middle" '
            f'transform="rotate(-90 14 {PLOT_HEIGHT / 2})">Elo</text>')


def read_meta(folder: Path) -> dict[str, Any]:
    """The tournament's settings as the last report exported them ({} if none)."""
    path = folder / "tournament.json"
    if not path.exists():
        return {}
    meta = json.loads(path.read_text()).get("tournament", {})
    return meta if isinstance(meta, dict) else {}
