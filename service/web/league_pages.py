"""The league pages of the web gateway: data in (plain dicts, as
service.leagues.LeagueReader reads them), HTML, JSON and CSV out. Pure: no I/O. The
stored records in the data (results, the ladder's rows) are read through their schema,
`service.league_records`.

- `index_page`: every league, a line each;
- `league_page` / `league_state`: a league's settings, ladder, bots online, live and
  recent games; `bot_page` / `bot_state`: a bot's rating now and over time (an inline
  SVG chart), its account's public fields, its client, its games;
- `results_csv`, `ladder_json`: the exports.

Every string that comes from Redis is escaped here (bot and league names are restricted,
but owners, clients, reasons are free text). The parts of a page that change (ladder,
games, presence) are rendered by one function each, used both for the page and for its
`state.json`, whose `sections` (id -> HTML) the page's script (league.js) puts in place
every 2 s: the page follows the league without a reload, and the markup is made and
escaped in one place.
"""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from service.league_records import GameResult, HistoryEntry, LadderRow
from service.web.page import asset, document, inline_script

#: How often a page asks for its state (league.js reads it from the page).
POLL_MS = 2000
#: How a page marks a hosted bot while no worker is live to play it.
NO_WORKER = "hosted, no worker"
#: The columns of the results export (as `curia league results` writes them).
RESULTS_COLUMNS = ("game_id", "ended_ms", "seating", "places", "forfeits", "reason", "void")


# -- small pieces ---------------------------------------------------------------------
def esc(value: Any) -> str:
    return html.escape(str(value))


def league_url(league: str) -> str:
    return f"/leagues/{quote(league, safe='')}"


def bot_url(league: str, bot: str) -> str:
    return f"{league_url(league)}/bots/{quote(bot, safe='')}"


def game_url(game_id: str) -> str:
    return f"/games/{quote(game_id, safe='')}"


def link(url: str, text: str) -> str:
    return f'<a href="{esc(url)}">{esc(text)}</a>'


def when(ms: Any) -> str:
    """A time in ms since the epoch, as UTC text ('' for none)."""
    if not isinstance(ms, int | float) or ms <= 0:
        return ""
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def as_result(result: Mapping[str, Any] | GameResult) -> GameResult:
    """A result of the page's data as its record (checked)."""
    if isinstance(result, GameResult):
        return result
    return GameResult.from_json(f"result {result.get('game_id', '?')!s}", result)


def as_standing(standing: Mapping[str, Any] | None) -> HistoryEntry | None:
    """The ladder of the page's data (the rating history's last entry) as its record."""
    return HistoryEntry.from_json("the league's ladder", standing) if standing else None


def seat_html(league: str, result: GameResult, seat: int) -> str:
    """The bot at a result's seat, linking to its page ('seat N' if the seating has no
    such seat)."""
    seating = result.seating
    if 0 <= seat < len(seating):
        return link(bot_url(league, seating[seat]), seating[seat])
    return esc(f"seat {seat}")


def places(result: GameResult) -> dict[int, int]:
    """seat -> place (1 best; tied seats share a place, the next group comes next)."""
    return {seat: place for place, group in enumerate(result.ranking, 1) for seat in group}


def table(headers: Sequence[str], rows: Iterable[str], empty: str,
          numeric: Sequence[str] = ()) -> str:
    """A table of `rows` (each its <tr> already; the `numeric` columns right-aligned, the
    others left), or `empty` (trusted HTML) for none."""
    body = "".join(rows)
    if not body:
        return f'<p class="muted">{empty}</p>'
    head = "".join(f"<th>{esc(name)}</th>" if name in numeric
                   else f'<th class="name">{esc(name)}</th>' for name in headers)
    return (f'<div class="scroll"><table><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>")


def page_script() -> str:
    return inline_script(asset("league.js"))


# -- every league ---------------------------------------------------------------------
def index_page(leagues: Sequence[Mapping[str, Any]]) -> str:
    rows = (f'<tr><td class="name">{link(league_url(row["name"]), row["name"])}</td>'
            f'<td class="name">{esc(row["game"])} ({esc(row["variant"])})</td>'
            f'<td class="name">{esc(row["status"])}</td><td>{int(row["bots"])}</td>'
            f'<td>{int(row["online"])}</td><td>{int(row["played"])}</td>'
            f'<td>{int(row["live"])}</td></tr>' for row in leagues)
    numeric = ("bots", "online", "games played", "live games")
    body = table(["league", "game", "status", *numeric], rows,
                 "No league yet (<code>curia league create</code>).", numeric)
    return document("Curia: leagues", f"<h2>Leagues</h2>{body}")


# -- a league -------------------------------------------------------------------------
def settings_html(settings: Mapping[str, str]) -> str:
    decision = settings.get("decision_ms", "")
    bank = settings.get("bank_ms", "0")
    clock = f"{esc(decision)} ms a decision" + (f", bank {esc(bank)} ms"
                                                 if bank not in ("", "0") else "")
    options = settings.get("options", "{}")
    facts = [("game", f'{esc(settings.get("game", ""))} ({esc(settings.get("variant", ""))})'),
             ("seats", esc(settings.get("seats", ""))),
             ("options", esc(options) if options not in ("", "{}") else "none"),
             ("time control", clock),
             ("games at once", f'{esc(settings.get("concurrency", ""))} a bot (at most '
                               f'{esc(settings.get("max_concurrency", ""))})'),
             ("provisional", "95% interval wider than ±100 Elo, or fewer than "
                             f'{esc(settings.get("provisional_games", ""))} games'),
             ("rated", "yes" if settings.get("rated", "1") == "1" else "no"),
             ("games in all", esc(settings.get("max_games", "0"))
              if settings.get("max_games", "0") != "0" else "no end"),
             ("status", f'<strong>{esc(settings.get("status", ""))}</strong>')]
    rows = "".join(f'<tr><th class="name">{name}</th><td class="name">{value}</td></tr>'
                   for name, value in facts)
    return f"<table>{rows}</table>"


def ladder_html(data: Mapping[str, Any]) -> str:
    """The ladder, best first: rating, 95% interval, games, a provisional mark; the bots
    with no rated game yet under it."""
    league, standing = data["name"], as_standing(data.get("ladder"))
    ladder = standing.ladder if standing else ()
    online, bots = set(data.get("online", ())), data.get("bots", {})
    stranded = set(data.get("no_worker", ()))
    rows = []
    for place, row in enumerate(ladder, 1):
        bot = row.bot
        mark = ' <span class="mark online">online</span>' if bot in online else ""
        if bots.get(bot, {}).get("status") == "banned":
            mark += ' <span class="mark banned">banned</span>'
        if bot in stranded:
            mark += f' <span class="mark no-worker">{NO_WORKER}</span>'
        provisional = "provisional" if row.provisional else ""
        rows.append(f'<tr data-bot="{esc(bot)}"><td>{place}</td>'
                    f'<td class="name">{link(bot_url(league, bot), bot)}{mark}</td>'
                    f'<td>{row.elo:.0f}</td>'
                    f'<td class="interval">{row.low:.0f}–{row.high:.0f}</td>'
                    f'<td>{row.games}</td>'
                    f'<td class="name">{provisional}</td></tr>')
    numeric = ("#", "rating", "95% interval", "games")
    found = table(["#", "bot", "rating", "95% interval", "games", ""], rows,
                  "No rated game yet.", numeric)
    if standing and standing.game_id:
        after = standing.game_id
        found += (f'<p class="muted">After game {link(game_url(after), after)}, '
                  f"{esc(when(standing.ms))}.</p>")
    ranked = {row.bot for row in ladder}
    waiting = [bot for bot in bots if bot not in ranked]
    if waiting:
        found += ('<p class="muted">Not on the ladder yet: '
                  + ", ".join(link(bot_url(league, bot), bot) for bot in waiting) + "</p>")
    return found


def online_html(data: Mapping[str, Any]) -> str:
    online = data.get("online", [])
    found = '<p class="muted">No bot is connected.</p>'
    if online:
        names = ", ".join(link(bot_url(data["name"], bot), bot) for bot in online)
        found = f"<p>{len(online)} connected: {names}</p>"
    return found + no_worker_html(data)


def no_worker_html(data: Mapping[str, Any]) -> str:
    """The hosted bots that get no game because no worker is live (none said so)."""
    stranded = data.get("no_worker", [])
    if not stranded:
        return ""
    names = ", ".join(link(bot_url(data["name"], bot), bot) for bot in stranded)
    return (f'<p class="no-worker"><strong>{NO_WORKER}</strong>: {names}: no '
            f"<code>curia league worker</code> is running, so these hosted bots get no "
            f"game until one starts.</p>")


def seating_html(league: str, seating: Sequence[str], mine: str = "") -> str:
    """The bots at a table, by seat (`mine` in bold)."""
    names = []
    for bot in map(str, seating):
        shown = link(bot_url(league, bot), bot)
        names.append(f"<strong>{shown}</strong>" if bot == mine else shown)
    return ", ".join(names)


def live_html(data: Mapping[str, Any], tables: Sequence[Mapping[str, Any]] | None = None,
              mine: str = "") -> str:
    """The games being played, each linking to its live viewer."""
    league = data["name"]
    rows = (f'<tr data-game="{esc(t["game_id"])}">'
            f'<td class="name">{link(game_url(t["game_id"]), t["game_id"])}</td>'
            f'<td class="name">{seating_html(league, t["seating"], mine=mine)}</td>'
            f'<td class="name">{esc(when(t.get("created_ms")))}</td></tr>'
            for t in (data.get("live", []) if tables is None else tables))
    return table(["game", "bots, by seat", "started"], rows, "No game is being played.")


def ranking_html(league: str, result: GameResult) -> str:
    """'1. a · 2. b, c' (tied bots share a place); forfeits marked."""
    parts = []
    for place, group in enumerate(result.ranking, 1):
        names = ", ".join(seat_html(league, result, seat) + forfeit_html(result, seat)
                          for seat in group)
        parts.append(f"{place}. {names}")
    return " · ".join(parts) or "no ranking"


def forfeit_text(result: GameResult, seat: int) -> str:
    """' (forfeit: time)' after a seat that forfeited, with its reason when known."""
    if seat not in result.forfeits:
        return ""
    reason = result.reasons.get(str(seat), "")
    return f" (forfeit: {reason})" if reason else " (forfeit)"


def forfeit_html(result: GameResult, seat: int) -> str:
    return esc(forfeit_text(result, seat))


def why_html(result: GameResult) -> str:
    notes = [esc(result.reason)] if result.reason else []
    if result.void:
        notes.append(f'<strong class="void">void: {esc(result.void)}</strong>')
    if not result.rated:
        notes.append("unrated")
    return "; ".join(notes)


def recent_html(data: Mapping[str, Any]) -> str:
    """The last games that ended, newest first, each linking to its replay."""
    league = data["name"]
    rows = []
    for result in map(as_result, data.get("recent", [])):
        game_id = result.game_id
        rows.append(f'<tr data-game="{esc(game_id)}">'
                    f'<td class="name">{link(game_url(game_id), game_id)}</td>'
                    f'<td class="name">{esc(when(result.ended_ms))}</td>'
                    f'<td class="name">{ranking_html(league, result)}</td>'
                    f'<td class="name">{why_html(result)}</td></tr>')
    return table(["game", "ended", "result", "why"], rows, "No game has ended yet.")


def summary_html(data: Mapping[str, Any]) -> str:
    status = data["settings"].get("status", "")
    return (f"<p>The league is <strong>{esc(status)}</strong>: "
            f'{int(data.get("played", 0))} games played, {len(data.get("live", []))} '
            f'being played; {len(data.get("bots", {}))} bots, {len(data.get("online", []))} '
            f"connected.</p>")


LEAGUE_SECTIONS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "summary": summary_html, "ladder": ladder_html, "online": online_html,
    "live": live_html, "recent": recent_html,
    "settings": lambda data: settings_html(data["settings"])}


def league_sections(data: Mapping[str, Any]) -> dict[str, str]:
    return {name: render(data) for name, render in LEAGUE_SECTIONS.items()}


def league_state(data: Mapping[str, Any]) -> dict[str, Any]:
    """The league page's data as JSON, with its sections rendered (for league.js)."""
    return {**data, "sections": league_sections(data)}


def polled(state_url: str, parts: str) -> str:
    return (f'<div id="league-page" data-state="{esc(state_url)}" data-poll-ms="{POLL_MS}">'
            f"{parts}</div>")


def league_page(data: Mapping[str, Any]) -> str:
    name = data["name"]
    sections = league_sections(data)
    base = league_url(name)
    parts = (f'<div id="summary">{sections["summary"]}</div>'
             f'<h2>Ladder</h2><div id="ladder">{sections["ladder"]}</div>'
             f'<h2>Connected</h2><div id="online">{sections["online"]}</div>'
             f'<h2>Live games</h2><div id="live">{sections["live"]}</div>'
             f'<h2>Recent games</h2><div id="recent">{sections["recent"]}</div>'
             f'<h2>Settings</h2><div id="settings">{sections["settings"]}</div>'
             f'<h2>Exports</h2><p>{link(base + "/results.csv", "every result (CSV)")} · '
             f'{link(base + "/ladder.json", "the ladder (JSON)")} · '
             f'{link(base + "/state.json", "this page (JSON)")}</p>'
             f'<p>{link("/leagues", "Every league")}</p>')
    settings = data["settings"]
    return document(f"League {name}", polled(base + "/state.json", parts),
                    subtitle=f'{settings.get("game", "")} ({settings.get("variant", "")}), '
                             f'{settings.get("seats", "")} seats',
                    status="live", scripts=[page_script()])


# -- a bot ----------------------------------------------------------------------------
def profile_html(data: Mapping[str, Any]) -> str:
    bot = data["bot"]
    account = bot["account"]
    plays = "from its own machine"
    if account.get("hosted"):
        plays = ("on the host's workers" if bot["name"] not in data.get("no_worker", ())
                 else f"on the host's workers (<strong>{NO_WORKER}</strong>: none is "
                      f"live, so it gets no game)")
    facts = [("connected", "yes" if bot["online"] else "no"),
             ("plays", plays),
             ("client", esc(bot["client"]) if bot["client"] else "—"),
             ("owner", esc(account.get("owner", "")) or "—"),
             ("status", esc(account.get("status", ""))),
             ("registered", esc(when(account.get("added_ms"))) or "—"),
             ("version", versions_html(data))]
    rows = "".join(f'<tr><th class="name">{name}</th><td class="name">{value}</td></tr>'
                   for name, value in facts)
    return f"<table>{rows}</table>"


def versions_html(data: Mapping[str, Any]) -> str:
    """Which version of its bot this ladder entry is, with links to the others: a
    version the bot has moved on from gets no new game, and keeps its rating."""
    bot, league = data["bot"], data["name"]
    versions = bot.get("versions") or [bot["name"]]
    number = versions.index(bot["name"]) + 1 if bot["name"] in versions else 1
    others = ", ".join(link(bot_url(league, entry), esc(entry)) for entry in versions
                       if entry != bot["name"])
    state = "current" if bot["name"] == bot.get("current", bot["name"]) else \
        "retired: no new games"
    return f"{number} of {len(versions)} ({state})" + (f"; also {others}" if others else "")


def rating_html(data: Mapping[str, Any]) -> str:
    bot = data["bot"]
    if bot["rating"] is None:
        return '<p class="muted">No rated game yet.</p>'
    rating = LadderRow.from_json(f"the ladder's row of {bot['name']}", bot["rating"])
    standing = as_standing(data.get("ladder"))
    provisional = " <strong>provisional</strong>" if rating.provisional else ""
    return (f'<p class="rating"><strong>{rating.elo:.0f}</strong> '
            f'<span class="interval">(95%: {rating.low:.0f}–{rating.high:.0f})</span>, '
            f'{rating.games} games, #{int(bot["rank"])} of '
            f'{len(standing.ladder) if standing else 0}{provisional}</p>')


def chart_html(data: Mapping[str, Any]) -> str:
    return rating_chart(data["bot"]["series"], data["bot"]["name"])


def rating_chart(series: Sequence[Sequence[float]], bot: str, width: int = 640,
                 height: int = 220) -> str:
    """An SVG line chart of a bot's rating (points [result number, ms, elo, low, high]),
    its 95% interval as a band; x is the league's result number."""
    if not series:
        return '<p class="muted">No rating yet: the chart starts with its first game.</p>'
    left, right, top, bottom = 52, 14, 12, 30
    xs = [float(point[0]) for point in series]
    lows = [float(point[3]) for point in series]
    highs = [float(point[4]) for point in series]
    elos = [float(point[2]) for point in series]
    x0, x1 = min(xs), max(xs)
    if x1 == x0:
        x0, x1 = x0 - 1, x1 + 1
    # the scale holds every rating and the interval now; the wide intervals of the first
    # games are cut at its edges (else they would flatten the line)
    y0, y1 = min(elos + lows[-1:]), max(elos + highs[-1:])
    pad = max((y1 - y0) * 0.05, 20.0)
    y0, y1 = y0 - pad, y1 + pad
    lows = [max(value, y0) for value in lows]
    highs = [min(value, y1) for value in highs]

    def x(value: float) -> float:
        return left + (value - x0) / (x1 - x0) * (width - left - right)

    def y(value: float) -> float:
        return top + (y1 - value) / (y1 - y0) * (height - top - bottom)

    def points(values: Sequence[float], at: Sequence[float]) -> str:
        return " ".join(f"{x(a):.1f},{y(v):.1f}" for a, v in zip(at, values, strict=True))

    band = points(highs + lows[::-1], xs + xs[::-1])
    last = series[-1]
    grid = "".join(
        f'<line x1="{left}" x2="{width - right}" y1="{y(v):.1f}" y2="{y(v):.1f}" '
        f'stroke="#c9bb9b" stroke-width="0.5"/><text x="{left - 6}" y="{y(v) + 4:.1f}" '
        f'text-anchor="end">{v:.0f}</text>' for v in (y0, (y0 + y1) / 2, y1))
    axis = (f'<text x="{x(xs[0]):.1f}" y="{height - 8}" text-anchor="start">game '
            f"{int(xs[0])}</text>")
    if len(series) > 1:
        axis += (f'<text x="{x(xs[-1]):.1f}" y="{height - 8}" text-anchor="end">game '
                 f"{int(xs[-1])}</text>")
    label = (f"Rating of {bot} after each of the league's results, {len(series)} points; "
             f"now {float(last[2]):.0f}")
    return (f'<div class="plot"><svg xmlns="http://www.w3.org/2000/svg" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label="{esc(label)}" '
            f'font-family="Georgia, serif" font-size="11" fill="#5d554a">'
            f"<title>{esc(label)}</title>{grid}"
            f'<polygon points="{band}" fill="#8c2d19" fill-opacity="0.15" stroke="none"/>'
            f'<polyline points="{points(elos, xs)}" fill="none" stroke="#8c2d19" '
            f'stroke-width="2" stroke-linejoin="round"/>'
            f'<circle cx="{x(xs[-1]):.1f}" cy="{y(elos[-1]):.1f}" r="3.5" fill="#8c2d19"/>'
            f"{axis}</svg></div>")


def bot_games_html(data: Mapping[str, Any]) -> str:
    """The bot's last games: its seat and place, the table, why it ended."""
    league, bot = data["name"], data["bot"]["name"]
    rows = []
    for result in map(as_result, data["bot"]["recent"]):
        seating = result.seating
        seat = seating.index(bot) if bot in seating else -1
        place = places(result).get(seat)
        shown = (f"{place} of {len(seating)}" if place else "—") + forfeit_text(result, seat)
        game_id = result.game_id
        rows.append(f'<tr data-game="{esc(game_id)}">'
                    f'<td class="name">{link(game_url(game_id), game_id)}</td>'
                    f'<td class="name">{esc(when(result.ended_ms))}</td>'
                    f"<td>{seat}</td><td>{esc(shown)}</td>"
                    f'<td class="name">{ranking_html(league, result)}</td>'
                    f'<td class="name">{why_html(result)}</td></tr>')
    return table(["game", "ended", "seat", "place", "result", "why"], rows,
                 "No game has ended yet.", ("seat", "place"))


def bot_live_html(data: Mapping[str, Any]) -> str:
    return live_html(data, data["bot"]["live"], mine=data["bot"]["name"])


BOT_SECTIONS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "profile": profile_html, "rating": rating_html, "chart": chart_html,
    "live": bot_live_html, "recent": bot_games_html}


def bot_sections(data: Mapping[str, Any]) -> dict[str, str]:
    return {name: render(data) for name, render in BOT_SECTIONS.items()}


def bot_state(data: Mapping[str, Any]) -> dict[str, Any]:
    """The bot page's data as JSON (the league's ladder, the bot's), with its sections."""
    fields = ("name", "now_ms", "settings", "ladder", "online", "bot")
    return {**{name: data[name] for name in fields}, "sections": bot_sections(data)}


def bot_page(data: Mapping[str, Any]) -> str:
    league, bot = data["name"], data["bot"]["name"]
    sections = bot_sections(data)
    state = bot_url(league, bot) + "/state.json"
    parts = (f'<div id="profile">{sections["profile"]}</div>'
             f'<h2>Rating</h2><div id="rating">{sections["rating"]}</div>'
             f'<div id="chart">{sections["chart"]}</div>'
             f'<h2>Live games</h2><div id="live">{sections["live"]}</div>'
             f'<h2>Recent games</h2><div id="recent">{sections["recent"]}</div>'
             f'<p>{link(league_url(league), "League " + league)} · '
             f'{link(state, "this page (JSON)")}</p>')
    settings = data["settings"]
    return document(f"{bot} — league {league}", polled(state, parts),
                    subtitle=f'{settings.get("game", "")} ({settings.get("variant", "")})',
                    status="live", scripts=[page_script()])


# -- exports --------------------------------------------------------------------------
def results_csv(results: Iterable[Mapping[str, Any] | GameResult]) -> str:
    """Every result, a line each: game id, end time (ms), bots by seat, each seat's place,
    the seats that forfeited, why the game ended, why it is void (if it is)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(RESULTS_COLUMNS)
    for result in map(as_result, results):
        seat_places = places(result)
        seating = result.seating
        writer.writerow([result.game_id, "" if result.ended_ms is None else result.ended_ms,
                         " ".join(seating),
                         " ".join(str(seat_places.get(seat, ""))
                                  for seat in range(len(seating))),
                         " ".join(str(seat) for seat in result.forfeits),
                         result.reason, result.void])
    return out.getvalue()


def ladder_json(data: Mapping[str, Any]) -> dict[str, Any]:
    """The ladder after the league's last result: the game it followed, when, the rows
    best first ({"bot", "elo", "low", "high", "games", "provisional"})."""
    standing = as_standing(data.get("ladder"))
    if standing is None:
        return {"league": data["name"], "game_id": None, "ms": None, "ladder": []}
    return {"league": data["name"], "game_id": standing.game_id, "ms": standing.ms,
            "ladder": [row.to_json() for row in standing.ladder]}
