"""Municipium's pending rule steps in their public, documented form (docs/bots.md).

The engine keeps the steps still to run as a stack of frames (games/municipium/rules.py),
with integer indices for colours, Institutions and families. An observation shows them
as steps with named fields in words instead:

- `asked`: the question the seat to move must answer now (None once the game is over);
- `agenda`: the steps still pending below it, **the next one first** (the outermost, the
  `end-turn` of the current turn, last).

Every step is a dict with a `step` name (the frame kind in words) and, when the step is
about one seat, that `seat` and its `family`; then the fields of its kind. The public
form holds everything the frames hold, so `frames_from_public(*public_steps(st),
st.names)` gives back the very frames: a state rebuilt from an observation continues
exactly as the real one. A few fields only restate the board for convenience (`keep`'s
`citizens`, `choose-power`'s `institutions`); they are read back from the board, not
from the step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from games.core import JSON
from games.municipium.board import COLOUR_INDEX, COLOURS, INSTITUTION_INDEX, INSTITUTIONS

if TYPE_CHECKING:
    from games.municipium.state import MunicipiumState

Frame = dict[str, Any]
Step = JSON
Writer = Callable[["MunicipiumState", Frame], JSON]
Reader = Callable[[Step, Sequence[str]], Frame]

#: A placed citizen's `mode` in the frames <-> why it is placed, in words (`because`).
_PLACED_BECAUSE = {"visit": "citizen-visit", "emporium": "emporium"}
_PLACE_MODE = {because: mode for mode, because in _PLACED_BECAUSE.items()}

#: A reposition frame's `mode` <-> (may stop early with `done`, may `advance` instead).
_REPOSITION_FREEDOM = {"all": (False, False), "any": (True, False), "gf": (True, True)}
_REPOSITION_MODE = {freedom: mode for mode, freedom in _REPOSITION_FREEDOM.items()}


@dataclass(frozen=True)
class _Form:
    """How one kind of frame is written in public (`step` name, fields) and read back."""

    step: str
    write: Writer
    read: Reader


# ---------------------------------------------------------------------------------------
# The public form: state -> steps
# ---------------------------------------------------------------------------------------
def public_steps(st: MunicipiumState) -> tuple[Step | None, list[Step]]:
    """The question asked now (None once the game is over) and the agenda, next first."""
    if not st.frames:
        return None, []
    return (public_step(st, st.frames[-1]),
            [public_step(st, frame) for frame in reversed(st.frames[:-1])])


def public_step(st: MunicipiumState, frame: Frame) -> Step:
    """One frame in words: its step name, the seat and family concerned, its fields."""
    form = _FORMS[frame["k"]]
    step: Step = {"step": form.step}
    if "seat" in frame:
        step["seat"] = frame["seat"]
        step["family"] = st.names[frame["seat"]]
    step.update(form.write(st, frame))
    return step


def _no_fields(st: MunicipiumState, frame: Frame) -> JSON:
    return {}


def _write_turn(st: MunicipiumState, frame: Frame) -> JSON:
    return {"moves_made": frame["moves"], "last_moved": _move_view(frame["last"])}


def _move_view(last: list[int] | None) -> JSON | None:
    """The member moved last this turn ([from, to, wreathed] in the frame), in words."""
    if last is None:
        return None
    src, dst, wreathed = last
    return {"from": INSTITUTIONS[src], "to": INSTITUTIONS[dst], "distinguished": bool(wreathed)}


def _write_card(st: MunicipiumState, frame: Frame) -> JSON:
    return {"card": frame["card"]}


def _write_seats(st: MunicipiumState, frame: Frame) -> JSON:
    return {"seats": list(frame["seats"])}


def _write_place(st: MunicipiumState, frame: Frame) -> JSON:
    return {"citizen": COLOURS[frame["colour"]], "because": _PLACED_BECAUSE[frame["mode"]]}


def _write_invite(st: MunicipiumState, frame: Frame) -> JSON:
    return {"citizens": [COLOURS[c] for c in frame["colours"]]}


def _write_institution(st: MunicipiumState, frame: Frame) -> JSON:
    return {"institution": INSTITUTIONS[frame["inst"]]}


def _write_keep(st: MunicipiumState, frame: Frame) -> JSON:
    return {"institution": INSTITUTIONS[frame["inst"]],
            "citizens": [COLOURS[c] for c in st.inst_citizens[frame["inst"]]]}


def _write_powers_left(st: MunicipiumState, frame: Frame) -> JSON:
    return {"institutions_left": list(INSTITUTIONS[frame["next"]:])}


def _write_held_powers(st: MunicipiumState, frame: Frame) -> JSON:
    return {"institutions": [INSTITUTIONS[i] for i in range(7)
                             if st.majority(i) == frame["seat"]]}


def _write_tavern_source(st: MunicipiumState, frame: Frame) -> JSON:
    return {"target_family": st.names[frame["fam"]]}


def _write_tavern_send(st: MunicipiumState, frame: Frame) -> JSON:
    return {"target_family": st.names[frame["fam"]], "source": INSTITUTIONS[frame["inst"]]}


def _write_reposition(st: MunicipiumState, frame: Frame) -> JSON:
    plain, wreathed = frame["pending"]
    may_stop, may_advance = _REPOSITION_FREEDOM[frame["mode"]]
    return {"to_reposition": {INSTITUTIONS[i]: [plain[i], wreathed[i]] for i in range(7)
                              if plain[i] or wreathed[i]},
            "may_stop": may_stop, "may_advance": may_advance}


# ---------------------------------------------------------------------------------------
# Back to the engine: steps -> frames
# ---------------------------------------------------------------------------------------
def frames_from_public(asked: Step | None, agenda: Sequence[Step],
                       names: Sequence[str]) -> list[Frame]:
    """The engine's frame stack (top last) that `public_steps` wrote as asked + agenda.

    `names` are the families in seat order (`target_family` names one of them).
    """
    steps = [*reversed(agenda), *([] if asked is None else [asked])]
    return [frame_from_public(step, names) for step in steps]


def frame_from_public(step: Step, names: Sequence[str]) -> Frame:
    """One public step back as the engine's frame."""
    kind = _KIND_OF_STEP[step["step"]]
    frame: Frame = {"k": kind}
    if "seat" in step:
        frame["seat"] = step["seat"]
    frame.update(_FORMS[kind].read(step, names))
    return frame


def _no_frame_fields(step: Step, names: Sequence[str]) -> Frame:
    return {}


def _read_turn(step: Step, names: Sequence[str]) -> Frame:
    return {"moves": step["moves_made"], "last": _last_move(step["last_moved"])}


def _last_move(view: JSON | None) -> list[int] | None:
    if view is None:
        return None
    return [INSTITUTION_INDEX[view["from"]], INSTITUTION_INDEX[view["to"]],
            int(view["distinguished"])]


def _read_card(step: Step, names: Sequence[str]) -> Frame:
    return {"card": step["card"]}


def _read_seats(step: Step, names: Sequence[str]) -> Frame:
    return {"seats": list(step["seats"])}


def _read_place(step: Step, names: Sequence[str]) -> Frame:
    return {"colour": COLOUR_INDEX[step["citizen"]], "mode": _PLACE_MODE[step["because"]]}


def _read_invite(step: Step, names: Sequence[str]) -> Frame:
    return {"colours": [COLOUR_INDEX[c] for c in step["citizens"]]}


def _read_institution(step: Step, names: Sequence[str]) -> Frame:
    return {"inst": INSTITUTION_INDEX[step["institution"]]}


def _read_powers_left(step: Step, names: Sequence[str]) -> Frame:
    left = step["institutions_left"]
    return {"next": INSTITUTION_INDEX[left[0]] if left else len(INSTITUTIONS)}


def _read_tavern_source(step: Step, names: Sequence[str]) -> Frame:
    return {"fam": list(names).index(step["target_family"])}


def _read_tavern_send(step: Step, names: Sequence[str]) -> Frame:
    return {"fam": list(names).index(step["target_family"]),
            "inst": INSTITUTION_INDEX[step["source"]]}


def _read_reposition(step: Step, names: Sequence[str]) -> Frame:
    counts = step["to_reposition"]
    pending = [[counts.get(name, [0, 0])[wreathed] for name in INSTITUTIONS]
               for wreathed in (0, 1)]
    return {"mode": _REPOSITION_MODE[(step["may_stop"], step["may_advance"])],
            "pending": pending}


# ---------------------------------------------------------------------------------------
# Every kind of frame (rules.py) and its public step
# ---------------------------------------------------------------------------------------
_FORMS: dict[str, _Form] = {
    "setup": _Form("setup", _no_fields, _no_frame_fields),
    "turn": _Form("turn", _write_turn, _read_turn),
    "end_turn": _Form("end-turn", _no_fields, _no_frame_fields),
    "discard": _Form("discard", _write_card, _read_card),
    "visit": _Form("citizen-visit", _write_seats, _read_seats),
    "place": _Form("place", _write_place, _read_place),
    "invite": _Form("invite", _write_invite, _read_invite),
    "citizen_event": _Form("citizen-event", _write_institution, _read_institution),
    "keep": _Form("keep", _write_keep, _read_institution),
    "your_powers": _Form("your-powers", _write_powers_left, _read_powers_left),
    "all_powers": _Form("all-powers", _write_powers_left, _read_powers_left),
    "one_power": _Form("one-power", _write_seats, _read_seats),
    "offer": _Form("power", _write_institution, _read_institution),
    "choose_power": _Form("choose-power", _write_held_powers, _no_frame_fields),
    "tavern_family": _Form("tavern-family", _no_fields, _no_frame_fields),
    "tavern_from": _Form("tavern-source", _write_tavern_source, _read_tavern_source),
    "tavern_send": _Form("tavern-send", _write_tavern_send, _read_tavern_send),
    "emporium": _Form("emporium", _no_fields, _no_frame_fields),
    "basilica": _Form("basilica", _no_fields, _no_frame_fields),
    "forum": _Form("forum", _no_fields, _no_frame_fields),
    "reposition": _Form("reposition", _write_reposition, _read_reposition),
}
_KIND_OF_STEP = {form.step: kind for kind, form in _FORMS.items()}

#: Every public step name, in the order docs/bots.md lists them.
STEP_NAMES = tuple(form.step for form in _FORMS.values())
