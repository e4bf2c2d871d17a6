"""Leges' card set: every number the rule summary leaves out (ruling L3), as data.

The summary gives the flow of the game but not the card texts nor the Value track's
numbers. A card set file (TOML, see docs/leges-cards.md) holds them: the Value track (5
Value cards, their spaces, the starting space "under the arrow", the bonus/malus of each
card), the 4 colours (the societal Values, with the VP of their Laws per tier) and the 84
Theme cards (colour, base points, Value shift, ability from a small vocabulary).
`parse_card_set(text)` reads and validates one (pure: the caller reads the file); a
malformed file raises CardSetError naming the card and the field.

What the summary fixes stays in the engine, not in the file: the Law costs 5 / 15 / 20 /
25 and the 4 / 3 / 2 / 1 cards of each tier (ruling L1), the 84 Theme cards, 5 Value
cards, 4 colours.

The set shipped with Curia (`cards.toml` beside this module) is our stand-in, not the
published card list. Reading files is confined to `load_default_card_set` (the packaged
file), `load_card_set_file` and `card_set_from_env` (the file named by
`CURIA_LEGES_CARDS`, else the default).
"""

from __future__ import annotations

import hashlib
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from games.card_files import CardSetError, chosen_card_set, read_card_file
from games.card_files import Record as _Record
from games.card_files import show as _show

#: Fixed by the summary (ruling L1): the cost of a Law of each tier, and how many Laws of
#: each tier a colour's stack holds before the removals by player count.
LAW_COSTS = (5, 15, 20, 25)
LAW_COUNTS = (4, 3, 2, 1)
TIERS = len(LAW_COSTS)
#: Laws removed from each colour's stack, per tier, by player count (ruling L1).
LAW_REMOVALS: dict[int, tuple[int, int, int, int]] = {
    5: (0, 0, 0, 0), 4: (1, 0, 0, 0), 3: (1, 1, 0, 0), 2: (1, 1, 1, 0)}
#: The summary's counts (validated).
THEME_CARDS = 84
VALUE_CARDS = 5
COLOURS = 4

#: Abilities a Theme card may have, with their parameters (docs/leges-cards.md):
#: `double` (×2) lets its owner play a second Theme card this round; `shift` lets its
#: owner move one Value token by `amount` spaces, up or down; `bonus` scores `points` per
#: other visible Theme card of `colour` (every player's, or `whose = "yours"`: the owner's).
ABILITIES: dict[str, tuple[str, ...]] = {
    "double": (),
    "shift": ("amount",),
    "bonus": ("colour", "points", "whose"),
}
#: Abilities used at the "abilities" step (not tied to scoring); `bonus` acts at scoring.
ACTIVE_ABILITIES = ("double", "shift")
WHOSE = ("all", "yours")
#: Inclusive ranges of the numbers of the file.
POINTS_RANGE = (0, 20)
SHIFT_RANGE = (-3, 3)
AMOUNT_RANGE = (1, 3)
BONUS_RANGE = (1, 5)
SPACES_RANGE = (1, 9)
TRACK_BONUS_RANGE = (-9, 9)
VP_RANGE = (1, 99)
#: The card set file format this module reads (the file's `format`).
FORMAT = 1

#: The environment variable naming a card set file to use instead of the default.
CARDS_ENV = "CURIA_LEGES_CARDS"
#: The stand-in set shipped beside this module.
DEFAULT_CARDS = "cards.toml"



@dataclass(frozen=True, slots=True)
class Ability:
    """A Theme card's ability: a kind of ABILITIES and its parameters."""

    kind: str
    colour: str = ""
    points: int = 0
    whose: str = "all"
    amount: int = 0


@dataclass(frozen=True, slots=True)
class Theme:
    """A Theme (campaign) card: base points in its colour (left side), the Value tokens
    it moves (right side: colour -> spaces, + towards Value card 5), an optional ability."""

    id: str
    name: str
    colour: str
    points: int
    shift: tuple[tuple[str, int], ...]
    ability: Ability | None = None


@dataclass(frozen=True, slots=True)
class Colour:
    """A colour: one of the four societal Values, with the VP of its Laws per tier."""

    id: str
    name: str
    meaning: str
    law_vp: tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class Track:
    """The Value track: 5 Value cards laid in a row, each with some spaces.

    Spaces are numbered 0.. along the whole track (card 1's first space is 0); a token
    moved by +n goes n spaces towards card 5. `start` is the space under the arrow.
    """

    spaces: tuple[int, ...]
    bonus: tuple[int, ...]
    start_card: int
    start_space: int

    @property
    def length(self) -> int:
        return sum(self.spaces)

    @property
    def start(self) -> int:
        return self.first_space(self.start_card) + self.start_space - 1

    def first_space(self, card: int) -> int:
        """The track space of a Value card's first space (card 1..5)."""
        return sum(self.spaces[: card - 1])

    def last_space(self, card: int) -> int:
        return self.first_space(card) + self.spaces[card - 1] - 1

    def card_at(self, space: int) -> int:
        """The Value card (1..5) a track space lies on."""
        for card in range(1, len(self.spaces) + 1):
            if space <= self.last_space(card):
                return card
        raise ValueError(f"space {space} is beyond the track")

    def space_on_card(self, space: int) -> int:
        """The 1-based space of its Value card a track space is."""
        return space - self.first_space(self.card_at(space)) + 1

    def bonus_at(self, space: int) -> int:
        return self.bonus[self.card_at(space) - 1]


@dataclass(frozen=True)
class CardSet:
    """A whole, validated card set (lookups built once, at construction)."""

    name: str
    #: First line of the file's description: it says whose design it is.
    notice: str
    track: Track
    colours: tuple[Colour, ...]
    themes: tuple[Theme, ...]
    #: sha256 of the file's text: games record it, so a replay with another set is caught.
    digest: str = ""
    description: str = ""

    _themes: dict[str, Theme] = field(init=False, repr=False, compare=False,
                                      default_factory=dict)
    _colours: dict[str, Colour] = field(init=False, repr=False, compare=False,
                                        default_factory=dict)
    _bonus: tuple[int, ...] = field(init=False, repr=False, compare=False, default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "_themes", {t.id: t for t in self.themes})
        object.__setattr__(self, "_colours", {c.id: c for c in self.colours})
        object.__setattr__(self, "_bonus", tuple(self.track.bonus_at(space)
                                                 for space in range(self.track.length)))

    @property
    def colour_ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.colours)

    def theme(self, theme_id: str) -> Theme:
        """The Theme card of this id (KeyError if none)."""
        return self._themes[theme_id]

    def has_theme(self, theme_id: str) -> bool:
        return theme_id in self._themes

    def colour(self, colour_id: str) -> Colour:
        return self._colours[colour_id]

    def law_vp(self, colour_id: str, tier: int) -> int:
        """The VP of a colour's Law of a tier (1..4); 0 for tier 0 (no Law)."""
        return self._colours[colour_id].law_vp[tier - 1] if tier else 0

    def value_bonus(self, space: int) -> int:
        """The bonus/malus of a track space (that of its Value card)."""
        return self._bonus[space]


# -- reading the file ----------------------------------------------------------------

_TOP_FIELDS = ("format", "name", "description", "track", "colours", "themes")



def _track(doc: _Record) -> Track:
    rec = _Record(doc.get("track"), "track")
    rec.only(("spaces", "bonus", "start"))
    spaces = rec.integers("spaces", VALUE_CARDS, SPACES_RANGE)
    bonus = rec.integers("bonus", VALUE_CARDS, TRACK_BONUS_RANGE)
    start = _Record(rec.get("start"), "track", "start.")
    start.only(("card", "space"))
    card = start.integer("card", 1, VALUE_CARDS)
    space = start.integer("space", 1, spaces[card - 1])
    return Track(spaces=spaces, bonus=bonus, start_card=card, start_space=space)


def _colours(doc: _Record) -> tuple[Colour, ...]:
    out: list[Colour] = []
    for number, raw in enumerate(doc.tables("colours"), start=1):
        rec = _Record(raw, f"colour #{number}")
        ident = rec.slug("id")
        rec.where = f'colour "{ident}"'
        rec.only(("id", "name", "meaning", "law_vp"))
        if any(c.id == ident for c in out):
            rec.fail("id", f"{_show(ident)} names another colour already")
        name = rec.string("name")
        meaning = rec.string("meaning", default=name)
        vp = rec.integers("law_vp", 4, VP_RANGE)
        if any(a >= b for a, b in zip(vp, vp[1:], strict=False)):
            rec.fail("law_vp", f"must rise tier by tier (a higher Law covers the lower), "
                               f"got {_show(list(vp))}")
        out.append(Colour(id=ident, name=name, meaning=meaning,
                          law_vp=(vp[0], vp[1], vp[2], vp[3])))
    if len(out) != COLOURS:
        doc.fail("colours", f"must hold {COLOURS} colours ([[colours]]), got {len(out)}")
    return tuple(out)


def _ability(raw: object, where: str, colours: tuple[str, ...]) -> Ability:
    rec = _Record(raw, where, "ability.")
    kind = rec.choice("kind", tuple(ABILITIES), "ability kind")
    params = ABILITIES[kind]
    for key in rec.raw:
        if key != "kind" and key not in params:
            rec.fail(key, f"is not a parameter of {_show(kind)} (it takes: "
                          f"{', '.join(params) or 'nothing'})")
    if kind == "shift":
        return Ability(kind=kind, amount=rec.integer("amount", *AMOUNT_RANGE))
    if kind == "bonus":
        return Ability(kind=kind, colour=rec.choice("colour", colours, "colour"),
                       points=rec.integer("points", *BONUS_RANGE),
                       whose=rec.choice("whose", WHOSE, "owner", default="all"))
    return Ability(kind=kind)


def _shift(rec: _Record, colours: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    value = rec.get("shift")
    if not isinstance(value, dict) or not value:
        rec.fail("shift", f"must be a non-empty table of colours to spaces "
                          f"(e.g. {{ {colours[0]} = 1 }}), got {_show(value)}")
    low, high = SHIFT_RANGE
    for name, amount in value.items():
        if name not in colours:
            rec.fail("shift", f"names an unknown colour {_show(name)} "
                              f"(known: {', '.join(colours)})")
        if not isinstance(amount, int) or isinstance(amount, bool) \
                or not low <= amount <= high or amount == 0:
            rec.fail("shift", f"must give {_show(name)} a whole number {low}..{high} other "
                              f"than 0, got {_show(amount)}")
    return tuple((c, value[c]) for c in colours if c in value)


def _themes(doc: _Record, colours: tuple[Colour, ...]) -> tuple[Theme, ...]:
    ids = tuple(c.id for c in colours)
    out: list[Theme] = []
    seen: set[str] = set(ids)
    for number, raw in enumerate(doc.tables("themes"), start=1):
        rec = _Record(raw, f"theme #{number}")
        ident = rec.slug("id")
        rec.where = f'theme "{ident}"'
        rec.only(("id", "name", "colour", "points", "shift", "ability"))
        if ident in seen:
            rec.fail("id", f"{_show(ident)} is already used by another card or colour")
        seen.add(ident)
        name = rec.string("name")
        colour = rec.choice("colour", ids, "colour")
        points = rec.integer("points", *POINTS_RANGE)
        shift = _shift(rec, ids)
        raw_ability = rec.get("ability", None)
        ability = None if raw_ability is None else _ability(raw_ability, rec.where, ids)
        out.append(Theme(id=ident, name=name, colour=colour, points=points, shift=shift,
                         ability=ability))
    if len(out) != THEME_CARDS:
        if len(out) > THEME_CARDS:
            raise CardSetError(f'theme "{out[THEME_CARDS].id}": one too many, the deck '
                               f"must hold {THEME_CARDS} Theme cards")
        doc.fail("themes", f"must hold {THEME_CARDS} Theme cards ([[themes]]), got {len(out)}")
    for known in colours:
        if not any(t.colour == known.id for t in out):
            raise CardSetError(f'colour "{known.id}": no Theme card has this colour')
    return tuple(out)


def parse_card_set(text: str) -> CardSet:
    """Read and validate a card set from the text of its TOML file.

    Raises CardSetError naming the card (its id) and the field of the first problem.
    """
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CardSetError(f"the card set is not valid TOML: {exc}") from None
    doc = _Record(raw, "the card set")
    doc.only(_TOP_FIELDS)
    if doc.get("format", None) != FORMAT:
        doc.fail("format", f"must be {FORMAT} (the card set format this Curia reads), "
                           f"got {_show(doc.get('format', None))}")
    name = doc.string("name")
    description = doc.string("description")
    track = _track(doc)
    colours = _colours(doc)
    themes = _themes(doc, colours)
    notice = next(line.strip() for line in description.splitlines() if line.strip())
    return CardSet(name=name, notice=notice, track=track, colours=colours, themes=themes,
                   digest=hashlib.sha256(text.encode("utf-8")).hexdigest(),
                   description=description)


# -- the only I/O: reading a card set file -----------------------------------------

@lru_cache(maxsize=1)
def load_default_card_set() -> CardSet:
    """Read and parse the stand-in set packaged beside this module (cached)."""
    text = resources.files(__package__ or "games.leges").joinpath(DEFAULT_CARDS) \
        .read_text(encoding="utf-8")
    return parse_card_set(text)


def load_card_set_file(path: str | os.PathLike[str]) -> CardSet:
    """Read and parse a card set file; CardSetError messages start with its path."""
    return read_card_file(path, parse_card_set)


def card_set_from_env(environ: Mapping[str, str] | None = None) -> CardSet:
    """The card set a host chose: the file named by CURIA_LEGES_CARDS when it is set (and
    not empty), else the packaged stand-in set."""
    return chosen_card_set(CARDS_ENV, environ, load_card_set_file, load_default_card_set)
