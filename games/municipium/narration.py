"""Municipium's events as short sentences, for logs, `curia play` and `curia watch`."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from games.core import JSON, Decision, Event


def _a(word: str) -> str:
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"


def _and(items: Iterable[str]) -> str:
    return ", ".join(items) or "nothing"


def _praefect_text(e: JSON, d: Decision | None) -> str:
    parts = [f"favour to {e['favour']}" if e.get("favour") else "no favour taken"]
    if e.get("citizen"):
        parts.append(f"{e['citizen']} to {e['citizen_to']}" if e.get("citizen_to")
                     else f"{e['citizen']} back to the bag")
    return f"praefect visits {e['institution']}: {'; '.join(parts)}"


def _citizen_event_text(e: JSON, d: Decision | None) -> str:
    parts = [f"{family} takes {_and(colours)}" for family, colours in e["gains"].items()]
    if e.get("to_bag"):
        parts.append(f"back to the bag: {_and(e['to_bag'])}")
    return f"citizen event at {e['institution']}: {'; '.join(parts) or 'nobody present'}"


def _decurion_text(e: JSON, d: Decision | None) -> str:
    if "paid" in e:
        return f"{e['family']} exchanges {_and(e['paid'])} for a Decurion"
    used = e.get("favours_used", 0)
    how = f" (with {used} favour{'s' * (used != 1)})" if used else ""
    return f"{e['family']} completes a set and gains a Decurion{how}"


def _tavern_text(e: JSON, d: Decision | None) -> str:
    count = e["members"] + e["distinguished"]
    wreaths = f" ({e['distinguished']} distinguished)" if e["distinguished"] else ""
    return f"{count} of {e['family']}'s members{wreaths} go from {e['source']} to the tavern"


def _power_text(e: JSON, d: Decision | None) -> str | None:
    if d is not None and d.verb == "power":  # the decision line already says it
        return None
    return f"{e['family']} uses the power of the {e['institution']}"


def _play_text(e: JSON, d: Decision | None) -> str | None:
    if e.get("source") != "common":
        return None
    return f"{e['family']} turns over the common card {e['card']}"


#: Event kind -> sentence (None: the decision line already says it all).
EVENT_TEXT: dict[str, Callable[[JSON, Decision | None], str | None]] = {
    "setup": lambda e, d: None,
    "move": lambda e, d: None,
    "reposition": lambda e, d: None,
    "place": lambda e, d: None,
    "take": lambda e, d: None,
    "skip": lambda e, d: None,
    "turn": lambda e, d: None,
    "end": lambda e, d: None,
    "start": lambda e, d: None,
    "temple-order": lambda e, d: f"temple order: {_and(e['order'])}",
    "play": _play_text,
    "reveal": lambda e, d: f"invitations reveal {_and(e['citizens'])}",
    "draw": lambda e, d: f"{e['family']} draws {_a(e['citizen'])}",
    "citizen-event": _citizen_event_text,
    "praefect": _praefect_text,
    "decurion": _decurion_text,
    "reshuffle": lambda e, d: f"the discard pile ({e['cards']} cards) becomes the new deck",
    "power": _power_text,
    "tavern": _tavern_text,
    "distinction": lambda e, d: (f"{e['family']}'s baths members go to the temple, one of "
                                 f"them distinguished" if e.get("granted") else
                                 f"{e['family']}'s baths members go to the temple (no wreath)"),
}


def describe_event(event: Event, decision: Decision | None) -> str | None:
    """A short sentence for an event, or None when the decision line says it all."""
    render = EVENT_TEXT.get(event.kind)
    if render is not None:
        try:
            return render(event.data, decision)
        except (KeyError, TypeError):
            pass  # an unexpected shape: fall back to the generic form
    details = ", ".join(f"{k}={v}" for k, v in event.data.items())
    return f"{event.kind}: {details}" if details else event.kind


def describe_end(reason: str, options: JSON) -> str:
    """Why a Municipium game ended, as a sentence."""
    if reason == "target":
        return f"a family reached {options.get('target_decurions', '?')} Decurions"
    if reason == "max_turns":
        limit = options.get("max_turns", "?")
        return f"the limit of {limit} turns was reached: ranked as it stands"
    return reason
