"""Leges' events as short sentences, for logs, `curia play` and `curia watch`."""

from __future__ import annotations

from collections.abc import Callable

from games.core import JSON, Decision, Event

_Text = Callable[[JSON], str | None]


def _seat(number: object) -> str:
    return f"seat {number}"


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


def _reveal(e: JSON) -> str:
    shown = [f"{_seat(s)} {card}" for s, card in enumerate(e["cards"]) if card]
    held = [_seat(s) for s in e["held"]]
    text = ("second cards (×2) revealed: " if e["second"] else "Themes revealed: ") + \
        (", ".join(shown) or "none")
    return text + (f"; {', '.join(held)} hold(s)" if held else "")


def _score(e: JSON) -> str:
    cards = ", ".join(f"{c['card']} {c['base']}" + (f"+{c['bonus']}" if c["bonus"] else "")
                      for c in e["cards"])
    values = ", ".join(f"{c} {_signed(v)}" for c, v in e["value"].items())
    gained = ", ".join(f"{c} {_signed(v)}" for c, v in e["gained"].items())
    return f"{_seat(e['seat'])} scores {cards}; Value {values}; gains {gained}"


def _laws(e: JSON) -> str:
    asked = [f"{_seat(s)} {r}" for s, r in enumerate(e["requests"]) if r is not None]
    text = "Law requests: " + (", ".join(asked) or "none")
    blocked = [f"{_seat(b['seat'])} ({b['colour']} {b['tier']}, {b['why']})"
               for b in e["blocked"]]
    return text + (f"; nothing for {', '.join(blocked)}" if blocked else "")


#: Event kind -> sentence (None: the decision line already says it all).
EVENT_TEXT: dict[str, _Text] = {
    "start": lambda e: f"{len(e['players'])} players, {e['seasons']} seasons of 3 rounds; "
                       f"first player: {_seat(e['first'])}; cards: {e['card_set']}",
    "deal": lambda e: f"{_seat(e['seat'])} is dealt {e['count']} Theme card(s)",
    "dealt": lambda e: f"{_seat(e['seat'])} receives {', '.join(e['cards']) or 'nothing'}",
    "round": lambda e: f"season {e['season']}, round {e['round']} begins",
    "chosen": lambda e: None,
    "reveal": _reveal,
    "value": lambda e: f"{e['colour']} {_signed(e['by'])} ({e['card']}, {_seat(e['seat'])}): "
                       f"space {e['before']} -> {e['after']}",
    "ability-pass": lambda e: None,
    "double": lambda e: "×2: " + ", ".join(_seat(s) for s in e["players"])
                        + " may play a second Theme card",
    "score": _score,
    "requested": lambda e: None,
    "laws": _laws,
    "law": lambda e: f"{_seat(e['seat'])} buys the {e['colour']} Law of tier {e['tier']} "
                     f"for {e['cost']} points ({e['vp']} VP)",
    "discard": lambda e: f"{_seat(e['seat'])} discards {e['card']} (from the "
                         f"{'hand' if e['source'] == 'hand' else 'cards drawn'})",
    "draw": lambda e: f"{_seat(e['seat'])} draws {e['count']} Theme card(s)",
    "drawn": lambda e: f"{_seat(e['seat'])} draws {', '.join(e['cards'])}",
    "exchange-pass": lambda e: None,
    "reshuffle": lambda e: f"the deck is empty: {e['count']} discarded Themes reshuffled",
    "season-end": lambda e: f"season {e['season']} ends: the exposed Themes go to the discard",
    "value-reset": lambda e: f"the {e['colour']} token returns from space {e['before']} to "
                             f"{e['after']}",
    "end": lambda e: None,
}


def describe_event(event: Event, decision: Decision | None) -> str | None:
    """A short sentence for an event, or None when the decision line says it all."""
    render = EVENT_TEXT.get(event.kind)
    if render is not None:
        try:
            return render(event.data)
        except (KeyError, TypeError):
            pass
    details = ", ".join(f"{k}={v}" for k, v in event.data.items())
    return f"{event.kind}: {details}" if details else event.kind
