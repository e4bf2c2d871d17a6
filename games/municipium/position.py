"""Hand-set Municipium positions: the documented way for tests and bots into a position.

Build a position from what it looks like, fluently or from a description, and never by
writing the engine's fields:

    st = (Position("classic", seats=3)
          .members(blue={"baths": 2, "temple*": 1, "rest": "forum"},
                   orange={"tavern": 7}, yellow={"rest": "praetorium"})
          .citizens(forum=["advocate", "priest"])
          .supply(blue={"priest": 1, "favour": 2})
          .temple("orange", "blue", "yellow")
          .deck("praefect-visit")
          .draws("priest", "militia")
          .turn("blue")
          .build())
    play(st, "move baths>emporium", "play common")

The same position described (`Position.from_description` takes the dict, and
`position_from_text` the TOML text; each key is the builder method of that name):

    variant = "classic"
    seats = 3
    turn = "blue"
    temple = ["orange", "blue", "yellow"]
    deck = ["praefect-visit"]
    draws = ["priest", "militia"]

    [members.blue]
    baths = 2
    "temple*" = 1
    rest = "forum"
    [members.orange]
    tavern = 7
    [members.yellow]
    rest = "praetorium"
    [citizens]
    forum = ["advocate", "priest"]
    [supply.blue]
    priest = 1
    favour = 2

Conventions: whatever is not stated is empty or at its setup default.
- members: every family is given and has exactly 7 members. `"inst*"` counts distinguished
  (wreathed) members; `"rest": "inst"` puts the remainder there.
- citizens: Institution citizens; an Institution not named holds none (no banner).
- rooms: meeting-room citizens (none unless named); every meeting room holds its Favour
  unless named in `no_favour`.
- supply: citizens and "favour" per family; decurions: tokens per family.
- The bag and the Favour supply hold whatever remains (per-colour totals are conserved);
  the wreath supply is the total less the wreathed members, unless `wreaths` sets it.
- deck: these cards on top, the first named drawn first; the other common cards lie
  below in a fixed order, except those named in `discard`. The deck order is part of the
  position (serialized with it).
- temple: disc order, top first (default: seat order). cards: face-up family cards
  (default: all). praefect: where the Praefect stands (default: the Basilica).
- draws: the next citizens drawn from the bag, in order, then the seeded RNG resumes
  (`state.fix_chance("citizen", ...)`: kept by `clone`, not by `to_bytes`/`determinize`).
- The position starts at `turn`'s family's turn `turn_number` (default: seat 0, turn 1),
  before moving; `first` is the family that began the game (default: seat 0).

A bad name or number raises ValueError naming the key and the value.

Driving a position: `play` (decisions by text), `start_power` (a family uses a power now).
Queries: `legal`, `mover`, `step`, `of_kind`, `held`, `at`, `citizens_at`, `room`,
`temple_order`, `citizens_in_hand`, `cards_in_play`; conservation: `inconsistencies`,
`assert_consistent`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from games import descriptions as desc
from games.core import Event
from games.municipium import rules
from games.municipium.board import (
    COLOURS,
    COMMON_DECK,
    INSTITUTIONS,
    MEETING_ROOMS,
    MEMBERS_PER_FAMILY,
    VARIANTS,
    Variant,
)
from games.municipium.state import MunicipiumState

#: Members by Institution (`"inst*"`: distinguished; `"rest": "inst"`), or citizens and
#: "favour" by colour.
Counts = Mapping[str, Any]

_CONSTRUCTOR = {"variant": str, "seats": int, "target": int, "max_turns": int, "seed": int}
_TABLES = ("members", "citizens", "rooms", "supply", "decurions", "cards")
_LISTS = ("temple", "deck", "discard", "draws", "no_favour")
_SCALARS = {"turn": str, "turn_number": int, "first": str, "praefect": str, "wreaths": int}
_KEYS = (*_CONSTRUCTOR, *_SCALARS, *_LISTS, *_TABLES)


class Position:
    """A builder of hand-set positions; every method but `build` returns the builder."""

    def __init__(self, variant: str = "classic", seats: int = 3, *, target: int = 5,
                 max_turns: int = 600, seed: int = 0) -> None:
        desc.known(variant, tuple(VARIANTS), "variant")
        self.variant, self.seats, self.seed = variant, seats, seed
        self.options = {"target_decurions": target, "max_turns": max_turns}
        self.families = VARIANTS[variant].families[:seats]
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
        self._turn, self._turn_number = (self.families or ("",))[0], 1  # no seat: build refuses
        self._first: str | None = None

    # -- the description ---------------------------------------------------------------
    @classmethod
    def from_description(cls, data: Mapping[str, Any]) -> Position:
        """A builder from a description (a dict, as TOML reads): `variant`, `seats`,
        `target`, `max_turns`, `seed` as the constructor's; `turn` with `turn_number` and
        `first`; `temple`, `praefect`, `deck`, `discard`, `draws`, `wreaths`, `no_favour`;
        the tables `members`, `citizens`, `rooms`, `supply`, `decurions`, `cards`. Each is
        read as the builder method of that name; ValueError names a bad key or value."""
        desc.check_keys(data, _KEYS, "the position description")
        pos = cls(**{k: desc.typed(data[k], t, k) for k, t in _CONSTRUCTOR.items() if k in data})
        pos._read_tables(data)
        pos._read_lists(data)
        pos._read_scalars(data)
        return pos

    def _read_tables(self, data: Mapping[str, Any]) -> None:
        self.members(**desc.table(data, "members", _counts))
        self.supply(**desc.table(data, "supply", _counts))
        self.decurions(**desc.table(data, "decurions", lambda v, w: desc.typed(v, int, w)))
        self.cards(**desc.table(data, "cards", desc.strings))
        self.citizens(**desc.table(data, "citizens", desc.strings))
        self.rooms(**desc.table(data, "rooms", lambda v, w: desc.typed(v, str, w)))

    def _read_lists(self, data: Mapping[str, Any]) -> None:
        lists = {k: desc.strings(data[k], k) for k in _LISTS if k in data}
        if "temple" in lists:
            self.temple(*lists["temple"])
        self.deck(lists.get("deck", []), discard=lists.get("discard", []))
        self.draws(*lists.get("draws", []))
        self.no_favour(*lists.get("no_favour", []))

    def _read_scalars(self, data: Mapping[str, Any]) -> None:
        got = {k: desc.typed(data[k], t, k) for k, t in _SCALARS.items() if k in data}
        if "praefect" in got:
            self.praefect(got["praefect"])
        if "wreaths" in got:
            self.wreaths(got["wreaths"])
        self.turn(got.get("turn", self._turn), got.get("turn_number", 1), got.get("first"))

    # -- the fluent form ---------------------------------------------------------------
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
        self._top = [c for t in top for c in ([t] if isinstance(t, str) else t)]
        self._discard = list(discard)
        return self

    def cards(self, **families: list[str]) -> Position:
        self._cards.update(families)
        return self

    def wreaths(self, left: int) -> Position:
        """The wreath supply (then wreaths are not conserved unless it is the remainder)."""
        self._wreaths = left
        return self

    def draws(self, *colours: str) -> Position:
        self._draws = list(colours)
        return self

    def turn(self, family: str, number: int = 1, first: str | None = None) -> Position:
        self._turn, self._turn_number, self._first = family, number, first
        return self

    # -- building ----------------------------------------------------------------------
    def build(self) -> MunicipiumState:
        """The position, waiting for the `turn` family's first decision of its turn."""
        st = MunicipiumState.new(self.variant, self.seats, self.options, self.seed)
        self._check_families()
        self._place_members(st)
        self._place_citizens(st)
        self._hand_out(st)
        self._set_order(st)
        self._lay_cards(st)
        self._fill_supplies(st)
        self._start(st)
        return st

    def _family(self, name: str, where: str) -> int:
        return desc.known(name, self.families, "family", where)

    def _check_families(self) -> None:
        for where, table in (("members", self._members), ("supply", self._supply),
                             ("decurions", self._decurions), ("cards", self._cards)):
            for name in table:
                self._family(name, where)
        missing = [f for f in self.families if f not in self._members]
        if missing:
            raise ValueError(f"members: every family must be given; missing {missing}")

    def _place_members(self, st: MunicipiumState) -> None:
        st.plain, st.wreathed = [[0] * 7 for _ in self.families], [[0] * 7 for _ in self.families]
        for seat, family in enumerate(self.families):
            where = f"members.{family}"
            spec = self._members[family]
            for name, count in spec.items():
                if name != "rest":
                    counts = st.wreathed if name.endswith("*") else st.plain
                    inst = desc.known(name.rstrip("*"), INSTITUTIONS, "institution", where)
                    counts[seat][inst] += desc.count(count, f"{where}.{name}")
            self._fill_rest(st, seat, spec.get("rest"), where)

    def _fill_rest(self, st: MunicipiumState, seat: int, rest: Any, where: str) -> None:
        missing = MEMBERS_PER_FAMILY - sum(st.plain[seat]) - sum(st.wreathed[seat])
        if rest is not None and missing >= 0:
            inst = desc.known(rest, INSTITUTIONS, "institution", f"{where}.rest")
            st.plain[seat][inst] += missing
            missing = 0
        if missing:
            raise ValueError(f"{where}: {MEMBERS_PER_FAMILY - missing} members given; a family "
                             f"has {MEMBERS_PER_FAMILY}")

    def _place_citizens(self, st: MunicipiumState) -> None:
        for name in self._citizens:
            desc.known(name, INSTITUTIONS, "institution", "citizens")
        st.inst_citizens = [[_colour(c, f"citizens.{name}") for c in self._citizens.get(name, [])]
                            for name in INSTITUTIONS]
        st.room_citizen = [None] * 7
        for name, colour in self._rooms.items():
            st.room_citizen[_meeting_room(name, "rooms")] = _colour(colour, f"rooms.{name}")
        for name in self._no_favour:
            _meeting_room(name, "no_favour")
        st.room_favour = [i in MEETING_ROOMS and name not in self._no_favour
                          for i, name in enumerate(INSTITUTIONS)]

    def _hand_out(self, st: MunicipiumState) -> None:
        st.supply = [[0] * 4 for _ in self.families]
        st.favours = [0] * self.seats
        for family, spec in self._supply.items():
            seat, where = self._family(family, "supply"), f"supply.{family}"
            for name, count in spec.items():
                if name == "favour":
                    st.favours[seat] = desc.count(count, f"{where}.favour")
                else:
                    held = desc.count(count, f"{where}.{name}")
                    st.supply[seat][_colour(name, where)] = held
        st.decurions = [desc.count(self._decurions.get(f, 0), f"decurions.{f}")
                        for f in self.families]

    def _set_order(self, st: MunicipiumState) -> None:
        st.temple = [self._family(f, "temple") for f in self._temple]
        if sorted(st.temple) != list(range(self.seats)):
            raise ValueError(f"temple: must list every family once, not {self._temple}")
        st.praefect = _meeting_room(self._praefect, "praefect")

    def _lay_cards(self, st: MunicipiumState) -> None:
        named = Counter(self._top) + Counter(self._discard)
        for card, count in named.items():
            if count > COMMON_DECK.count(card):
                raise ValueError(f"deck / discard: {count} x {card!r}, the common deck has "
                                 f"{COMMON_DECK.count(card)}; cards: {sorted(set(COMMON_DECK))}")
        below = Counter(COMMON_DECK) - named
        st.deck = sorted(below.elements()) + self._top[::-1]  # the top of the deck is last
        st.discard = list(self._discard)
        st.family_cards = [self._family_cards(f, st.rules) for f in self.families]

    def _family_cards(self, family: str, rules_: Variant) -> list[str]:
        cards = list(self._cards.get(family, rules_.family_cards))
        for card in cards:
            desc.known(card, rules_.family_cards, f"{self.variant} family card", f"cards.{family}")
        return cards

    def _fill_supplies(self, st: MunicipiumState) -> None:
        rules_ = st.rules
        st.bag = [rules_.citizens_per_colour - n for n in _citizens_placed(st)]
        st.favour_supply = rules_.favours - sum(st.room_favour) - sum(st.favours)
        wreathed = sum(map(sum, st.wreathed))
        st.wreath_supply = rules_.wreaths - wreathed if self._wreaths is None else self._wreaths
        _within(st.bag, rules_.citizens_per_colour, "citizens of each colour", self.variant)
        _within([st.favour_supply], rules_.favours, "Favours", self.variant)
        _within([st.wreath_supply], rules_.wreaths, "wreaths", self.variant)

    def _start(self, st: MunicipiumState) -> None:
        draws = [COLOURS[_colour(c, "draws")] for c in self._draws]
        st.first = self._family(self._first or self.families[0], "first")
        st.placed, st.ended, st.frames = MEMBERS_PER_FAMILY * self.seats, None, []
        number = desc.count(self._turn_number, "turn_number")
        if number < 1:
            raise ValueError(f"turn_number must be 1 or more, not {number}")
        st.begin_turn(self._family(self._turn, "turn"), number)
        st.events = []
        if draws:
            st.fix_chance("citizen", *draws)
        st._advance()


def position_from_text(text: str) -> Position:
    """A builder from a TOML description (see the module docstring)."""
    data = desc.read_toml(text)
    return Position.from_description(data)


# -- checking names and values ---------------------------------------------------------------


def _colour(name: Any, where: str) -> int:
    return desc.known(name, COLOURS, "citizen colour", where)


def _meeting_room(name: Any, where: str) -> int:
    inst = desc.known(name, INSTITUTIONS, "institution", where)
    if inst not in MEETING_ROOMS:
        raise ValueError(f"{where}: the {name} has no meeting room")
    return inst








def _counts(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise ValueError(f"{where} must be a table of counts, not {value!r}")
    return {k: desc.typed(v, str if k == "rest" else int, f"{where}.{k}") for k, v in value.items()}






def _within(left: list[int], total: int, what: str, variant: str) -> None:
    """Every remainder in [0, total], else the position holds more than the game has."""
    if min(left) < 0 or max(left) > total:
        raise ValueError(f"more {what} placed than the {total} of {variant} "
                         f"(left over: {left})")


def _citizens_placed(st: MunicipiumState) -> list[int]:
    """Citizens of each colour in Institutions, meeting rooms and supplies."""
    out = [0] * 4
    for colour in range(4):
        out[colour] += sum(c.count(colour) for c in st.inst_citizens)
        out[colour] += st.room_citizen.count(colour) + sum(s[colour] for s in st.supply)
    return out


# -- driving a position ------------------------------------------------------------------------
def play(st: MunicipiumState, *texts: str) -> list[Event]:
    """Apply decisions by text notation, each for the seat to move; return all events."""
    events: list[Event] = []
    for text in texts:
        events += st.apply(st.to_move()[0], text)
    return events


def start_power(st: MunicipiumState, family: str, institution: str) -> list[Event]:
    """`family` uses an Institution's power now, as if a card had offered it and it had
    accepted (M15-M21); the decision pending before comes back once the power is over.
    Returns the events."""
    st.events = []
    seat = desc.known(family, st.names, "family")
    rules.execute_power(st, seat, desc.known(institution, INSTITUTIONS, "institution"))
    st._advance()
    return st.events


# -- queries -----------------------------------------------------------------------------------
def legal(st: MunicipiumState) -> list[str]:
    """The legal decisions of the seat to move, as text."""
    return [str(d) for d in st.legal_decisions(st.to_move()[0])] if st.to_move() else []


def mover(st: MunicipiumState) -> str:
    """The family that must decide now."""
    if not st.to_move():
        raise ValueError("the game is over: nobody decides")
    return st.names[st.to_move()[0]]


def step(st: MunicipiumState) -> str | None:
    """The rule step waiting for a decision: "setup", "turn", "place", "keep", "offer", …
    (the keys of `rules.PROMPTS`); None once the game is over."""
    return str(st.frames[-1]["k"]) if st.frames and not st.ended else None


def of_kind(events: list[Event], kind: str) -> list[dict[str, Any]]:
    """The data of the events of one kind."""
    return [e.data for e in events if e.kind == kind]


def held(st: MunicipiumState, family: str) -> dict[str, int]:
    """A family's supply: citizens by colour (non-zero), favours and decurions."""
    seat = desc.known(family, st.names, "family")
    out = {c: n for c, n in zip(COLOURS, st.supply[seat], strict=True) if n}
    return out | {"favour": st.favours[seat], "decurions": st.decurions[seat]}


def at(st: MunicipiumState, institution: str) -> dict[str, tuple[int, int]]:
    """Members in an Institution: family -> (plain, distinguished), present families only."""
    i = desc.known(institution, INSTITUTIONS, "institution")
    return {st.names[s]: (st.plain[s][i], st.wreathed[s][i]) for s in range(st.num_seats)
            if st.plain[s][i] or st.wreathed[s][i]}


def citizens_at(st: MunicipiumState, institution: str) -> list[str]:
    """The citizens in an Institution (not its meeting room), sorted by name."""
    i = desc.known(institution, INSTITUTIONS, "institution")
    return sorted(COLOURS[c] for c in st.inst_citizens[i])


def room(st: MunicipiumState, institution: str) -> tuple[str | None, bool]:
    """A meeting room: its citizen (None: none) and whether it holds a Favour."""
    i = _meeting_room(institution, "room")
    citizen = st.room_citizen[i]
    return (None if citizen is None else COLOURS[citizen]), st.room_favour[i]


def temple_order(st: MunicipiumState) -> list[str]:
    """The Temple discs, top first."""
    return [st.names[s] for s in st.temple]


def citizens_in_hand(st: MunicipiumState) -> list[str]:
    """Citizens drawn and not yet placed (a Citizen Visit, the Emporium, Invitations)."""
    colours: list[int] = []
    for frame in st.frames:
        if frame["k"] == "place":
            colours.append(frame["colour"])
        elif frame["k"] == "invite":
            colours.extend(frame["colours"])
    return [COLOURS[c] for c in colours]


def cards_in_play(st: MunicipiumState) -> list[str]:
    """Common cards drawn and not yet discarded (face up until their effect is over)."""
    return [str(f["card"]) for f in st.frames if f["k"] == "discard"]


# -- conservation ------------------------------------------------------------------------------
def inconsistencies(st: MunicipiumState) -> list[str]:
    """What breaks conservation: citizens, Favours, wreaths, members, common cards, and the
    Temple once setup is over. Empty for a consistent position."""
    return [*_citizen_problems(st), *_token_problems(st), *_board_problems(st)]


def assert_consistent(st: MunicipiumState) -> None:
    """Raise AssertionError listing the `inconsistencies`, if any."""
    problems = inconsistencies(st)
    if problems:
        raise AssertionError("; ".join(problems))


def _citizen_problems(st: MunicipiumState) -> list[str]:
    total = st.rules.citizens_per_colour
    in_hand = Counter(citizens_in_hand(st))
    counts = [b + o + in_hand[COLOURS[c]]
              for c, (b, o) in enumerate(zip(st.bag, _citizens_placed(st), strict=True))]
    problems = [f"{COLOURS[c]}: {n} citizens, not {total}" for c, n in enumerate(counts)
                if n != total]
    if min(st.bag) < 0 or min(map(min, st.supply)) < 0:
        problems.append(f"negative citizens: bag {st.bag}, supplies {st.supply}")
    if any(len(c) > 3 for c in st.inst_citizens):
        problems.append(f"more than 3 citizens in an Institution: {st.inst_citizens}")
    return problems


def _token_problems(st: MunicipiumState) -> list[str]:
    favours = st.favour_supply + sum(st.room_favour) + sum(st.favours)
    wreaths = st.wreath_supply + sum(map(sum, st.wreathed))
    return [f"{n} {what}, not {total}" for what, n, total in
            (("Favours", favours, st.rules.favours), ("wreaths", wreaths, st.rules.wreaths))
            if n != total]


def _board_problems(st: MunicipiumState) -> list[str]:
    problems = []
    members = [sum(st.plain[s]) + sum(st.wreathed[s]) for s in range(st.num_seats)]
    if st.turn and members != [MEMBERS_PER_FAMILY] * st.num_seats:
        problems.append(f"members per family: {members}")
    if st.turn and sorted(st.temple) != list(range(st.num_seats)):
        problems.append(f"Temple order: {st.temple}")
    in_play = cards_in_play(st)
    if len(in_play) > 1 or Counter(st.deck + st.discard + in_play) != Counter(COMMON_DECK):
        problems.append(f"common cards: deck {st.deck}, discard {st.discard}, in play {in_play}")
    return problems
