"""Golden playthroughs: readable transcripts of a few fixed games, compared line by line.

Each file in tests/golden/ is the transcript of one game (as OpenSpiel's playthrough
files are): a header (game, variant, seats, options, seed), then the start and every
step: the decision (``seat N: notation``), the events it caused with who may see each,
who must decide next with their legal decisions, and what the spectator and each seat
observe: the spectator's observation in full at the start, then on each step the entries
that changed (flattened paths such as ``boards[1].influence.orator``, compact key-sorted
JSON); for each seat, what it sees beyond the spectator (its hand, its secret choice…),
or ``same as spectator``. The
decisions are chosen by `games.core.Rng(seed)`: a seat of `to_move()`, then one of its
legal decisions, so a transcript depends on nothing but the rules.

A rules or observation change that alters any of these games shows up here as a failed
test naming the first differing line, and in review as a readable diff of the files.
When the change is intended, regenerate every transcript and review the diff:

    CURIA_REGENERATE_GOLDEN=1 python3 -m pytest -q tests/test_golden.py

(regeneration rewrites the files of `CASES` and deletes transcripts no case produces;
add a case to `CASES` to pin another game).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import NamedTuple

import pytest

import games
from games import Event, GameState, new_game
from games.core import JSON, Rng, notation

games.load_plugins("tests.plugins.guess")

GOLDEN = Path(__file__).parent / "golden"
REGENERATE = "CURIA_REGENERATE_GOLDEN"


class Case(NamedTuple):
    game: str
    variant: str
    seats: int
    seed: int
    options: JSON

    @property
    def path(self) -> Path:
        return GOLDEN / f"{self.game}-{self.variant}-{self.seats}-seed{self.seed}.txt"


#: Short games (Municipium: six turns after the setup) keep each file reviewable.
SHORT = {"max_turns": 6}
CASES = [
    Case("municipium", "classic", 3, 7, SHORT),
    Case("municipium", "revised", 2, 8, SHORT),
    Case("municipium", "revised", 4, 9, SHORT),
    Case("municipium", "classic", 5, 10, SHORT),
    Case("guess", "standard", 2, 1, {}),
    Case("ciceron", "standard", 2, 3, {}),
    Case("leges", "standard", 3, 5, {}),
]


def compact(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def seen_by(event: Event) -> str:
    if event.seats is None:
        return "everyone"
    return "seat " + ", ".join(map(str, event.seats)) + " only"


Flat = dict[str, object]


def flatten(value: object, prefix: str = "") -> Flat:
    """`{"a": {"b": [1, {"c": 2}]}}` -> `{"a.b[0]": 1, "a.b[1].c": 2}`; a list of plain
    values stays one entry, so a hand or a list of names reads as one."""
    if isinstance(value, dict):
        found: Flat = {}
        for key, item in value.items():
            found.update(flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return found or {prefix: {}}
    if isinstance(value, list) and any(isinstance(item, (dict, list)) for item in value):
        found = {}
        for index, item in enumerate(value):
            found.update(flatten(item, f"{prefix}[{index}]"))
        return found
    return {prefix: value}


def changes(before: Flat, after: Flat) -> str:
    """What differs from `before` to `after`: changed or new entries, then removed ones."""
    changed = {k: v for k, v in after.items() if k not in before or before[k] != v}
    removed = sorted(k for k in before if k not in after)
    text = compact(changed) if changed else "{}"
    return text + (f" removed {compact(removed)}" if removed else "")


def describe(state: GameState, events: list[Event], previous: Flat | None) -> tuple[list[str],
                                                                                      Flat]:
    """The events of a transition, who moves next, and what every viewer sees: the
    spectator's observation in full at the start, then what changed in it; for each seat,
    what it sees beyond the spectator."""
    lines = [f"event {event.kind} {compact(event.data)} -- seen by {seen_by(event)}"
             for event in events]
    movers = state.to_move()
    lines.append(f"to move: {', '.join(map(str, movers)) or 'nobody'} "
                 f"({state.describe_pending()})")
    for seat in movers:
        legal = ", ".join(notation(d) for d in state.legal_decisions(seat))
        lines.append(f"legal for seat {seat}: {legal}")
    spectator = {k: v for k, v in state.observation(None).items() if k != "seat"}
    public = flatten(spectator)
    if previous is None:
        lines.append(f"spectator: {compact(spectator)}")
    else:
        lines.append(f"spectator changes: {changes(previous, public)}")
    for seat in range(state.num_seats):
        view = flatten({k: v for k, v in state.observation(seat).items() if k != "seat"})
        extra = changes(public, view)
        lines.append(f"seat {seat}: {'same as spectator' if extra == '{}' else 'sees ' + extra}")
    return lines, public


def transcript(case: Case) -> str:
    """The whole playthrough of `case` as text."""
    state = new_game(case.game, case.variant, case.seats, case.options, case.seed)
    chooser = Rng(case.seed)
    lines = [
        "# Curia golden playthrough (tests/test_golden.py); regenerate with",
        f"#   {REGENERATE}=1 python3 -m pytest -q tests/test_golden.py",
        f"game: {case.game}",
        f"variant: {case.variant}",
        f"seats: {case.seats}",
        f"options: {compact(state.options)}",
        f"seed: {case.seed}",
        "",
        "== start",
    ]
    described, previous = describe(state, state.events, None)
    lines += described
    step = 0
    while not state.is_over:
        step += 1
        movers = state.to_move()
        seat = movers[chooser.below(len(movers))]
        legal = state.legal_decisions(seat)
        decision = legal[chooser.below(len(legal))]
        events = state.apply(seat, decision)
        described, previous = describe(state, events, previous)
        lines += ["", f"== step {step}", f"seat {seat}: {notation(decision)}", *described]
    result = state.result()
    assert result is not None
    lines += ["", "== end", f"result: {compact(result.to_json())}"]
    return "\n".join(lines) + "\n"


def first_difference(expected: str, actual: str) -> str | None:
    """Where two transcripts first differ, for a reviewer: line number and both lines
    (for an observation, the keys that differ)."""
    old, new = expected.splitlines(), actual.splitlines()
    for number, (a, b) in enumerate(zip(old, new, strict=False), 1):
        if a != b:
            column = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                          min(len(a), len(b)))
            return (f"line {number}, column {column + 1}:\n  expected: {clip(a, column)}\n"
                    f"  actual:   {clip(b, column)}{keys(a, b)}")
    if len(old) != len(new):
        number = min(len(old), len(new)) + 1
        extra = "expected" if len(old) > len(new) else "actual"
        line = (old if len(old) > len(new) else new)[number - 1]
        return f"line {number}: only the {extra} transcript goes on: {clip(line)}"
    return None


def clip(line: str, column: int = 0, before: int = 100, after: int = 160) -> str:
    """The part of a long line around `column`."""
    start = max(0, column - before)
    end = column + after
    return ("… " if start else "") + line[start:end] + (" …" if end < len(line) else "")


def keys(a: str, b: str) -> str:
    """For two observation lines, the top-level keys whose values differ."""
    try:
        before = json.loads(a.split(": ", 1)[1])
        after = json.loads(b.split(": ", 1)[1])
    except (IndexError, ValueError):
        return ""
    if not isinstance(before, dict) or not isinstance(after, dict):
        return ""
    differ = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    return f"\n  differing keys: {', '.join(differ)}"


@pytest.mark.parametrize("case", CASES, ids=[case.path.stem for case in CASES])
def test_golden_playthrough(case: Case) -> None:
    actual = transcript(case)
    if os.environ.get(REGENERATE):
        case.path.write_text(actual)
    assert case.path.exists(), f"{case.path.name} is missing: run {REGENERATE}=1 (docstring)"
    difference = first_difference(case.path.read_text(), actual)
    if difference is not None:
        pytest.fail(f"{case.path.name} changed at {difference}\nIf intended, regenerate with "
                    f"{REGENERATE}=1 python3 -m pytest -q tests/test_golden.py and review "
                    f"the diff.", pytrace=False)


def test_every_golden_file_has_a_case() -> None:
    """No stale transcript lingers after a case is renamed or dropped."""
    expected = {case.path.name for case in CASES}
    stale = sorted(p.name for p in GOLDEN.glob("*.txt") if p.name not in expected)
    if os.environ.get(REGENERATE):
        for name in stale:
            (GOLDEN / name).unlink()
        stale = []
    assert not stale, f"golden files without a case (delete them or regenerate): {stale}"


def test_transcripts_are_reviewable() -> None:
    """Each transcript stays short enough to review."""
    for case in CASES:
        assert len(transcript(case).splitlines()) < 3000, case.path.name
