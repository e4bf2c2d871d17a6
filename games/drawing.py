"""Building blocks of the games' SVG boards (each game's `svg.py` draws its own board):
elements with escaped text and checked coordinates, a text width estimate, accessible
groups, and the scalable, titled document. Pure: no I/O, standard library only."""

from __future__ import annotations

import math
from typing import Any
from xml.sax.saxutils import escape, quoteattr

#: Every board's canvas (the document scales it to its container: width 100%).
WIDTH, HEIGHT = 1280, 800
INK = "#2b2118"
SERIF = "Georgia, 'DejaVu Serif', serif"
SANS = "'DejaVu Sans', Verdana, Arial, sans-serif"


def num(value: float) -> str:
    """A coordinate as short text; a NaN or infinite value is a bug, refused loudly."""
    if not math.isfinite(value):
        raise ValueError(f"non-finite coordinate {value!r}")
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _attrs(attrs: dict[str, Any]) -> str:
    """Attributes as text: `_` in names becomes `-`, numbers are formatted, None dropped."""
    parts = []
    for key, value in attrs.items():
        if value is None:
            continue
        name = key.rstrip("_").replace("_", "-")
        shown = num(value) if isinstance(value, float | int) else str(value)
        parts.append(f" {name}={quoteattr(shown)}")
    return "".join(parts)


def el(tag: str, body: str = "", **attrs: Any) -> str:
    """One element; `body` is already SVG (escape text with `text`)."""
    if body:
        return f"<{tag}{_attrs(attrs)}>{body}</{tag}>"
    return f"<{tag}{_attrs(attrs)}/>"


def text_width(content: str, size: float) -> float:
    """About how wide a line is in DejaVu Sans or Verdana (per-character em widths)."""
    ems = sum(0.28 if c in "ilj.,:;'!|" else 0.32 if c == " " else 0.4 if c in "tfr()-"
              else 0.95 if c in "mwMW" else 0.7 if c.isupper() else 0.6 for c in content)
    return ems * size


def text(x: float, y: float, content: object, size: float = 14, fit: float | None = None,
         **attrs: Any) -> str:
    """A text element; its content is escaped. A line likely wider than `fit` is
    squeezed to that width (textLength) rather than running off the canvas."""
    attrs.setdefault("font_family", SANS)
    attrs.setdefault("fill", INK)
    content = str(content)
    if fit is not None and text_width(content, size) > fit:
        attrs.update(textLength=fit, lengthAdjust="spacingAndGlyphs")
    return el("text", escape(content), x=x, y=y, font_size=size, **attrs)


def group(label: str, *children: str) -> str:
    """A group with an accessible name."""
    return el("g", "".join(children), role="group", aria_label=label)


def document(title: str, desc: str, body: str) -> str:
    """The whole SVG document: scalable (viewBox, width 100%), titled and described."""
    return el("svg", el("title", escape(title)) + el("desc", escape(desc)) + body,
              xmlns="http://www.w3.org/2000/svg", viewBox=f"0 0 {WIDTH} {HEIGHT}",
              width="100%", preserveAspectRatio="xMidYMid meet", role="img",
              aria_label=title, font_family=SANS)
