"""Cicéron's events as short sentences, for logs, `curia play` and `curia watch`."""

from __future__ import annotations

from collections.abc import Callable

from games.core import JSON, Decision, Event

_Text = Callable[[JSON], str | None]

#: Event kind -> sentence (None: the decision line already says it all).
EVENT_TEXT: dict[str, _Text] = {
    "start": lambda e: f"{len(e['families'])} families, {e['turns']} turns, "
                       f"{e['servants']} servants each; cards: {e['card_set']}",
    "draft": lambda e: None,
    "place": lambda e: None,
    "recruit": lambda e: None,
    "voted": lambda e: None,
    "drawn-action": lambda e: None,
    "drawn-senators": lambda e: None,
    "princeps": lambda e: f"{e['family']} is Princeps ({e['how']})",
    "turn": lambda e: f"turn {e['number']} begins; Princeps: {e['princeps']}",
    "election": lambda e: "votes: " + ", ".join(f"{k} for {v}" for k, v in e["votes"].items())
                          + "; totals: " + ", ".join(f"{k} {v}"
                                                     for k, v in e["totals"].items()),
    "ciceron": lambda e: f"Cicéron's plea: {e['card']}",
    "home-influence": lambda e: f"every family gains {e['amount']} in its home caste",
    "influence": lambda e: f"{e['family']} {'+' if e['amount'] >= 0 else ''}{e['amount']} "
                           f"{e['caste']}" if e["amount"] else None,
    "prestige": lambda e: f"{e['family']} {'+' if e['amount'] >= 0 else ''}{e['amount']} "
                          f"prestige ({e['why']})",
    "draw-action": lambda e: f"{e['family']} draws a {e['caste']} action card",
    "draw-senators": lambda e: f"{e['family']} draws {e['count']} senator(s) from {e['pile']}",
    "return-senators": lambda e: f"{e['family']} returns {e['count']} senator(s) under "
                                 f"{e['pile']}",
    "play": lambda e: None,
    "legion": lambda e: f"a legion lands in {e['province']} ({e['deployed']} deployed)",
    "tax": lambda e: f"every family but {e['family']} loses {e['amount']} {e['caste']}",
    "discard": lambda e: f"{e['family']} loses senator {e['senator']} ({e['why']})",
    "tribute": lambda e: None,
    "triumvirat": lambda e: f"{e['general']} demands {e['legions']} legion(s)"
                            + (f" and one in {e['province']}" if e.get("province") else "")
                            + f": {'met' if e['met'] else 'NOT met, every family pays again'}",
    "majority": lambda e: f"{e['card']} goes to {e['family'] or 'nobody'}",
    "guild-choice": lambda e: None,
    "guild-power": lambda e: f"{e['family']} uses the power of the {e['guild']}",
    "automatii": lambda e: "the Automatii reveal " + ", ".join(e["senators"]),
    "automatii-redraw": lambda e: "three of one caste: revealed again",
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
