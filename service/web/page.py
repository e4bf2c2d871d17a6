"""Self-contained HTML pages: the shared stylesheet and script inlined, frames embedded
as gzip + base64 JSON (a replay's drawings repeat from version to version, so they
compress well), no external fetch, so a page works from file:// and any static host."""

from __future__ import annotations

import base64
import gzip
import html
import json
import re
from collections.abc import Sequence
from importlib import resources
from typing import Any

#: What a gateway's page may load: itself, its own SSE stream, inline styles and scripts.
CONTENT_SECURITY_POLICY = ("default-src 'none'; script-src 'unsafe-inline'; "
                           "style-src 'unsafe-inline'; img-src data: 'self'; "
                           "connect-src 'self'; base-uri 'none'; form-action 'self'")


def asset(name: str) -> str:
    """A file of this package (viewer.css, viewer.js)."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def inline_script(code: str) -> str:
    """`code` in a <script> element (a closing tag inside it cannot end the element)."""
    return "<script>" + code.replace("</", "<\\/") + "</script>"


def packed_json(data: Any) -> str:
    """`data` as JSON, gzipped, in base64 (what viewer.js decodes)."""
    raw = json.dumps(data, separators=(",", ":")).encode()
    return base64.b64encode(gzip.compress(raw, mtime=0)).decode("ascii")


#: Frame fields holding big texts that change little from one version to the next.
SHARED_TEXT_FIELDS = ("svg", "fallback")
_PIECES = re.compile(r"[^\n>]*(?:>|\n|$)")


class _Pieces:
    """A table of text pieces (an SVG cut after each tag, a text after each line): frames
    then hold lists of piece numbers, so what repeats across versions is stored once."""

    def __init__(self) -> None:
        self.table: list[str] = []
        self.numbers: dict[str, int] = {}

    def encode(self, text: str) -> list[int]:
        return [self.number(piece) for piece in _PIECES.findall(text) if piece]

    def number(self, piece: str) -> int:
        if piece not in self.numbers:
            self.numbers[piece] = len(self.table)
            self.table.append(piece)
        return self.numbers[piece]


def pack_frames(frames: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """{"pieces": table, "frames": frames with their big texts as piece numbers}; the
    seats' views of a last frame ("hidden") likewise."""
    pieces = _Pieces()

    def packed(item: dict[str, Any]) -> dict[str, Any]:
        out = dict(item)
        for name in SHARED_TEXT_FIELDS:
            if isinstance(out.get(name), str):
                out[name] = pieces.encode(out[name])
        if isinstance(out.get("hidden"), list):
            out["hidden"] = [packed(seat) for seat in out["hidden"]]
        return out

    rows = [packed(frame) for frame in frames]
    return {"pieces": pieces.table, "frames": rows}


def document(title: str, body: str, *, subtitle: str = "", status: str = "",
             refresh_seconds: int | None = None, scripts: Sequence[str] = ()) -> str:
    """A whole page: a header with the title, then `body` (trusted HTML)."""
    refresh = (f'<meta http-equiv="refresh" content="{refresh_seconds}">'
               if refresh_seconds else "")
    note = f"<p>{html.escape(subtitle)}</p>" if subtitle else ""
    badge = (f' <span class="status" id="status" role="status">{html.escape(status)}</span>'
             if status else ' <span class="status" id="status" role="status"></span>')
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">{refresh}'
            '<link rel="icon" href="data:,">'
            f"<title>{html.escape(title)}</title><style>{asset('viewer.css')}</style>"
            f'</head><body><header class="top"><h1>{html.escape(title)}{badge}</h1>'
            f"{note}</header><main>{body}</main>{''.join(scripts)}</body></html>\n")


def viewer_page(title: str, frames: Sequence[dict[str, Any]], *, subtitle: str = "",
                live_url: str | None = None, live_version: int | None = None,
                extra_html: str = "") -> str:
    """The step-through viewer over `frames` (see service.web.frames), following
    `live_url` (Server-Sent Events, one frame per message) when given; `live_version`,
    the game's version when the page was made: until the stream reaches it the viewer
    says it is catching up. A URL ending in `#N` opens at version N."""
    live = f' data-live="{html.escape(live_url)}"' if live_url else ""
    if live_url and live_version is not None:
        live += f' data-live-version="{int(live_version)}"'
    controls = asset("viewer.html").replace("{extra}", extra_html)
    body = (f'<div id="viewer"{live}>{controls}</div>'
            f'<script id="frames" type="application/octet-stream">'
            f"{packed_json(pack_frames(frames)) if frames else ''}</script>")
    status = "live" if live_url else "replay"
    return document(title, body, subtitle=subtitle, status=status,
                    scripts=[inline_script(asset("viewer.js"))])


#: The seat page's body: the board drawn for the seat, then what it must decide.
SEAT_BODY = (
    '<div class="seat-layout">'
    '<section class="board" id="board" aria-label="Your view of the board"></section>'
    '<div class="side">'
    '<section class="card" aria-labelledby="turn"><h3 id="turn"></h3>'
    '<div id="you"></div><div class="muted" id="pending"></div>'
    '<div class="clock" id="clock" aria-live="off"></div></section>'
    '<section class="card" id="decide" hidden aria-labelledby="h-decide">'
    '<h3 id="h-decide">Your decision</h3><div id="decisions"></div></section>'
    '<div class="muted" id="note" role="status"></div>'
    '<section class="card result" id="result" hidden aria-labelledby="h-result">'
    '<h3 id="h-result">Result</h3><pre id="result-text"></pre></section>'
    '<section class="card" aria-labelledby="h-log"><h3 id="h-log">Decisions</h3>'
    '<ul class="narration" id="log"></ul></section>'
    '</div></div>')


def seat_page(game_id: str, title: str, subtitle: str) -> str:
    """A person's seat in the browser (seat.js): the seat's token comes in the link's
    fragment; the page itself holds no secret."""
    body = f'<div id="seat" data-game="{html.escape(game_id)}">{SEAT_BODY}</div>'
    return document(title, body, subtitle=subtitle, status="connecting",
                    scripts=[inline_script(asset("seat.js"))])
