"""Hand-set Municipium positions: the shared scenario shape of the rule tests.

    st = (Position("classic", seats=3)
          .members(blue={"baths": 2, "temple*": 1, "rest": "forum"},
                   orange={"tavern": 7}, yellow={"rest": "praetorium"})
          .citizens(forum=["advocate", "priest"])
          .supply(blue={"priest": 1, "favour": 2})
          .temple("orange", "blue", "yellow")
          .deck("praefect-visit")
          .turn("blue")
          .build())
    play(st, "move baths>emporium", "play common")

Conventions: whatever is not stated is empty or at its setup default.
- members: every family must be given and total exactly 7 members. `"inst*"` counts
  distinguished (wreathed) members; `"rest": "inst"` puts the remainder there.
- citizens: Institution citizens; an Institution not named holds none (no banner).
- rooms: meeting-room citizens (none unless named); every meeting room holds its Favour
  unless named in `no_favour`.
- supply: citizens and "favour" per family; decurions: tokens per family.
- The bag and the Favour supply hold whatever remains (per-colour totals are conserved);
  the wreath supply is the total less the wreathed members, unless `wreaths` sets it.
- deck: these cards on top, the first named drawn first; the other common cards lie
  below in a fixed order, except those named in `discard`.
- temple: disc order, top first (default: seat order). cards: face-up family cards
  (default: all). draws: the next citizens drawn from the bag, in order, then random
  (on this state object only: clones and reloads draw at random).
- The position starts at `turn`'s family's turn (default: seat 0, turn 1), before moving.

Helpers: `play` (decisions by text), `push` (a raw rule frame), `use_power` (start a
power for a family), and the queries `legal`, `mover`, `of_kind`, `held`, `at`,
`citizens_at`, `temple_order`, `assert_consistent`.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from games.core import Event
from games.municipium import MunicipiumState, rules
from games.municipium.board import (
    COLOURS,
    COMMON_DECK,
    FAMILIES,
    INSTITUTION_INDEX,
    INSTITUTIONS,
    MEETING_ROOMS,
    MEMBERS_PER_FAMILY,
    VARIANTS,
)

Counts = dict[str, Any]


class Position:
    """A builder of hand-set positions; every method returns the builder."""

    def __init__(self, variant: str = "classic", seats: int = 3, *, target: int = 5,
                 max_turns: int = 600, seed: int = 0) -> None:
        self.variant, self.seats, self.seed = variant, seats, seed
        self.options = {"target_decurions": target, "max_turns": max_turns}
        self.families = FAMILIES[:seats]
        self._members: dict[str, Counts] = {}
        self._citizens: dict[str, list[str]] = {}
        self._rooms: dict[str, str] = {}
        self._no_favour: set[str] = set()
        self._supply: dict[str, Counts] = {}
        self._decurions: dict[str, int] = {}
        self._temple = list(self.families)
        self._praefect = "basilica"
        self._top: list[str] = []
        self._discard: list[str] = []
        self._cards: dict[str, list[str]] = {}
        self._wreaths: int | None = None
        self._draws: list[str] = []
        self._turn, self._turn_number, self._first = self.families[0], 1, 0

    def members(self, **families: Counts) -> Position:
        self._members.update(families)
        return self

    def citizens(self, **institutions: list[str]) -> Position:
        self._citizens.update(institutions)
        return self

    def rooms(self, **institutions: str) -> Position:
        self._rooms.update(institutions)
        return self

    def no_favour(self, *institutions: str) -> Position:
        self._no_favour.update(institutions)
        return self

    def supply(self, **families: Counts) -> Position:
        self._supply.update(families)
        return self

    def decurions(self, **families: int) -> Position:
        self._decurions.update(families)
        return self

    def temple(self, *order: str) -> Position:
        self._temple = list(order)
        return self

    def praefect(self, institution: str) -> Position:
        self._praefect = institution
        return self

    def deck(self, *top: str | list[str], discard: tuple[str, ...] | list[str] = ()) -> Position:
        """`deck("a", "b")` or `deck(["a", "b"])`: "a" is drawn first."""
        flat = [c for t in top for c in ([t] if isinstance(t, str) else t)]
        self._top, self._discard = flat, list(discard)
        return self

    def cards(self, **families: list[str]) -> Position:
        self._cards.update(families)
        return self

    def wreaths(self, left: int) -> Position:
        self._wreaths = left
        return self

    def draws(self, *colours: str) -> Position:
        self._draws = list(colours)
        return self

    def turn(self, family: str, number: int = 1, first: str | None = None) -> Position:
        self._turn, self._turn_number = family, number
        self._first = self.families.index(first or self.families[0])
        return self

    # -- building --------------------------------------------------------------------
    def build(self) -> MunicipiumState:
        """The position, waiting for the `turn` family's first decision of its turn."""
        st = MunicipiumState.new(self.variant, self.seats, self.options, self.seed)
        rules_ = VARIANTS[self.variant]
        n = self.seats
        named = {*self._members, *self._supply, *self._decurions, *self._cards, self._turn}
        assert named <= set(self.families), f"no such family here: {named - set(self.families)}"
        st.plain, st.wreathed = [[0] * 7 for _ in range(n)], [[0] * 7 for _ in range(n)]
        for seat, fam in enumerate(self.families):
            self._place_members(st, seat, self._members.get(fam))
        st.inst_citizens = [[COLOURS.index(c) for c in self._citizens.get(name, [])]
                            for name in INSTITUTIONS]
        st.room_citizen = [_colour(self._rooms.get(name)) for name in INSTITUTIONS]
        st.room_favour = [i in MEETING_ROOMS and name not in self._no_favour
                          for i, name in enumerate(INSTITUTIONS)]
        st.supply = [[self._supply.get(f, {}).get(c, 0) for c in COLOURS] for f in self.families]
        st.favours = [self._supply.get(f, {}).get("favour", 0) for f in self.families]
        st.decurions = [self._decurions.get(f, 0) for f in self.families]
        st.temple = [self.families.index(f) for f in self._temple]
        assert sorted(st.temple) == list(range(n)), "temple must list every family once"
        st.praefect = INSTITUTION_INDEX[self._praefect]
        st.family_cards = [list(self._cards.get(f, rules_.family_cards)) for f in self.families]
        self._lay_deck(st)
        st.frames = [{"k": "end_turn"},
                     {"k": "turn", "seat": self.families.index(self._turn), "moves": 0,
                      "last": None}]
        st.bag = [rules_.citizens_per_colour - held for held in _citizens_out(st)]
        st.favour_supply = rules_.favours - sum(st.room_favour) - sum(st.favours)
        wreathed = sum(map(sum, st.wreathed))
        st.wreath_supply = rules_.wreaths - wreathed if self._wreaths is None else self._wreaths
        assert min(st.bag) >= 0 and st.favour_supply >= 0 and st.wreath_supply >= 0
        st.first, st.turn, st.active = self._first, self._turn_number, self.families.index(
            self._turn)
        st.placed, st.ended, st.events = MEMBERS_PER_FAMILY * n, None, []
        if self._draws:
            rig_draws(st, *self._draws)
        st._advance()
        return st

    def _place_members(self, st: MunicipiumState, seat: int, spec: Counts | None) -> None:
        assert spec is not None, f"members of {self.families[seat]} not given"
        rest = spec.get("rest")
        for name, count in spec.items():
            if name != "rest":
                counts = st.wreathed if name.endswith("*") else st.plain
                counts[seat][INSTITUTION_INDEX[name.rstrip("*")]] += count
        missing = MEMBERS_PER_FAMILY - sum(st.plain[seat]) - sum(st.wreathed[seat])
        if rest is not None:
            st.plain[seat][INSTITUTION_INDEX[rest]] += missing
            missing = 0
        assert missing == 0, f"{self.families[seat]} must have 7 members"

    def _lay_deck(self, st: MunicipiumState) -> None:
        below = Counter(COMMON_DECK) - Counter(self._top) - Counter(self._discard)
        assert sum(below.values()) + len(self._top) + len(self._discard) == len(COMMON_DECK)
        st.deck = sorted(below.elements()) + self._top[::-1]  # top of the deck is last
        st.discard = list(self._discard)


def _colour(name: str | None) -> int | None:
    return None if name is None else COLOURS.index(name)


def _citizens_out(st: MunicipiumState) -> list[int]:
    """Citizens of each colour outside the bag (Institutions, rooms, supplies, in hand)."""
    out = [0] * 4
    for colour in range(4):
        out[colour] += sum(c.count(colour) for c in st.inst_citizens)
        out[colour] += st.room_citizen.count(colour) + sum(s[colour] for s in st.supply)
    for frame in st.frames:
        for colour in frame.get("colours", [frame["colour"]] if "colour" in frame else []):
            out[colour] += 1
    return out


def rig_draws(st: MunicipiumState, *colours: str) -> None:
    """Make the next bag draws yield these colours, in order (then random draws resume)."""
    queue, real = [COLOURS.index(c) for c in colours], st.draw_citizen

    def draw() -> int | None:
        if not queue:
            return real()
        colour = queue.pop(0)
        assert st.bag[colour] > 0, f"no {COLOURS[colour]} left in the bag"
        st.bag[colour] -= 1
        return colour

    st.draw_citizen = draw  # type: ignore[method-assign]


# -- driving a position ----------------------------------------------------------------
def play(st: MunicipiumState, *texts: str) -> list[Event]:
    """Apply decisions by text notation, each for the seat to move; return all events."""
    events: list[Event] = []
    for text in texts:
        events += st.apply(st.to_move()[0], text)
    return events


def push(st: MunicipiumState, frame: dict[str, Any]) -> list[Event]:
    """Push a rule frame on top of the stack and run it to the next decision."""
    st.events = []
    st.frames.append(frame)
    st._advance()
    return st.events


def use_power(st: MunicipiumState, family: str, institution: str) -> list[Event]:
    """`family` uses an Institution's power now, as if it had just chosen it."""
    st.events = []
    rules.execute_power(st, FAMILIES.index(family), INSTITUTION_INDEX[institution])
    st._advance()
    return st.events


def legal(st: MunicipiumState) -> list[str]:
    """The legal decisions of the seat to move, as text."""
    return [str(d) for d in st.legal_decisions(st.to_move()[0])] if st.to_move() else []


def mover(st: MunicipiumState) -> str:
    """The family that must decide now."""
    return FAMILIES[st.to_move()[0]]


def of_kind(events: list[Event], kind: str) -> list[dict[str, Any]]:
    """The data of the events of one kind."""
    return [e.data for e in events if e.kind == kind]


def held(st: MunicipiumState, family: str) -> dict[str, int]:
    """A family's supply: citizens by colour (non-zero), favours and decurions."""
    seat = FAMILIES.index(family)
    out = {c: n for c, n in zip(COLOURS, st.supply[seat], strict=True) if n}
    return out | {"favour": st.favours[seat], "decurions": st.decurions[seat]}


def at(st: MunicipiumState, institution: str) -> dict[str, tuple[int, int]]:
    """Members in an Institution: family -> (plain, distinguished), present families only."""
    i = INSTITUTION_INDEX[institution]
    return {FAMILIES[s]: (st.plain[s][i], st.wreathed[s][i]) for s in range(st.num_seats)
            if st.plain[s][i] or st.wreathed[s][i]}


def citizens_at(st: MunicipiumState, institution: str) -> list[str]:
    return sorted(COLOURS[c] for c in st.inst_citizens[INSTITUTION_INDEX[institution]])


def temple_order(st: MunicipiumState) -> list[str]:
    return [FAMILIES[s] for s in st.temple]


def assert_consistent(st: MunicipiumState) -> None:
    """Conservation: citizens, Favours, wreaths, 7 members per family, 12 common cards."""
    rules_ = VARIANTS[st.variant]
    assert [b + o for b, o in zip(st.bag, _citizens_out(st), strict=True)] == \
        [rules_.citizens_per_colour] * 4
    assert st.favour_supply + sum(st.room_favour) + sum(st.favours) == rules_.favours
    for seat in range(st.num_seats):
        assert sum(st.plain[seat]) + sum(st.wreathed[seat]) == MEMBERS_PER_FAMILY
    in_play = [f["card"] for f in st.frames if f["k"] == "discard"]
    assert Counter(st.deck + st.discard + in_play) == Counter(COMMON_DECK)
