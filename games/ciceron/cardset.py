"""Cicéron's card set: every number the rule book leaves out (ruling C3), as data.

The rule book gives the turn structure but not the cards. A card set file (TOML, see
docs/ciceron-cards.md) holds them: the family boards, the senators, the action cards
with effects from a small vocabulary, the Triumvirat and Cicéron cards, the guild powers
and the provinces. `parse_card_set(text)` reads and validates one (pure: the caller
reads the file); a malformed file raises CardSetError naming the card and the field.

The set shipped with Curia (`cards.toml` beside this module) is our stand-in, not the
published card list. Reading files is confined to `load_default_card_set` (the packaged
file) and `card_set_from_env` (the file named by `CURIA_CICERON_CARDS`, else the default).
"""

from __future__ import annotations

import hashlib
import os
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, NoReturn, TypeVar

from games.card_files import SLUG as _SLUG
from games.card_files import CardSetError, chosen_card_set, read_card_file
from games.card_files import Record as _Record
from games.card_files import show as _show

#: The six castes, in the rule book's order, and the zone of Rome each holds.
CASTES = ("orator", "mercator", "pontifex", "insidiator", "plebeius", "belligerator")
ZONES = ("curia-hostilia", "emporium", "temple-of-jupiter", "subura", "circus-maximus",
         "exercitus")
#: The six guilds.
GUILDS = ("artisans", "assassins", "diplomats", "traders", "priests", "strategists")
#: The three generals of the Triumvirat.
GENERALS = ("caesar", "crassus", "pompey")

#: When an action card acts: at once; at the end of the turn; for the rest of the game
#: (laid beside the family board); or laid on a senator.
TIMINGS = ("instant", "end_of_turn", "permanent", "senator")

#: Effect kinds an action card or a guild power may have, with their parameters.
#: (The vocabulary is documented in docs/ciceron-cards.md.)
EFFECTS: dict[str, tuple[str, ...]] = {
    "influence": ("caste", "amount"),        # the player gains influence in a caste
    "prestige": ("amount",),                 # the player gains prestige
    "draw": ("caste", "count"),              # the player draws action cards of a caste
    "legion": ("province", "rewards"),       # deploy a legion, then choose one reward
    "tax": ("caste", "amount"),              # every other family loses influence
    "votes": ("amount",),                    # extra Senate votes at the Princeps election
    "limit": ("amount",),                    # the cénacle limit rises
    "income": ("caste", "amount"),           # influence at every phase II
    "assassinate": (),                       # a senator of another family is discarded
    "bribe": ("votes",),                     # a senator of one's own gains Senate votes
    "patronage": ("guild", "count"),         # a senator of one's own gains guild symbols
    "tribute_exempt": (),                    # no tribute to pay this turn (guild power)
    "extra_recruit": (),                     # recruit one more senator at Senate spots
}

#: The timings an action card of each effect kind may have (docs/ciceron-cards.md says
#: what each pair does).
EFFECT_TIMINGS: dict[str, tuple[str, ...]] = {
    "influence": ("instant", "end_of_turn"),
    "prestige": ("instant", "end_of_turn"),
    "draw": ("instant", "end_of_turn"),
    "legion": ("instant",),
    "tax": ("instant", "end_of_turn"),
    "votes": ("permanent",),
    "limit": ("permanent",),
    "income": ("permanent",),
    "assassinate": ("senator",),
    "bribe": ("senator",),
    "patronage": ("senator",),
    "tribute_exempt": ("instant",),
    "extra_recruit": ("instant", "permanent"),
}

#: The effect kinds a guild power may have: it acts during the turn after the majority,
#: so nothing aimed at a senator and no income (docs/ciceron-cards.md).
GUILD_POWER_KINDS = ("influence", "prestige", "draw", "legion", "tax", "votes", "limit",
                     "tribute_exempt", "extra_recruit")

#: Inclusive ranges of the numeric effect parameters; (kind, parameter) overrides.
PARAMETER_RANGES: dict[str, tuple[int, int]] = {"amount": (1, 10), "count": (1, 5),
                                                 "votes": (1, 5)}
PARAMETER_RANGE_OVERRIDES: dict[tuple[str, str], tuple[int, int]] = {
    ("limit", "amount"): (1, 2),
    ("patronage", "count"): (1, 3),
}
#: A legion reward: prestige, or influence in a caste.
REWARD_KINDS = ("prestige", *(f"influence:{c}" for c in CASTES))
REWARD_RANGE = (1, 10)

#: The pile id of the 12 white-backed senators of the opening draft.
WHITE = "white"
#: The rule book's counts (validated) and limits.
WHITE_SENATORS = 12
RED_SENATORS = 108
RED_PILES = 3
#: The fewest senators a red pile may hold: one Senate spot with 5 families draws 12.
MIN_PILE = 12
SENATOR_COST = 4
ACTIONS_PER_CASTE = 18
TURNS = 5
TRIUMVIRAT_PER_TURN = 3
CICERON_CARDS = 9
CICERON_INFLUENCES = 4
FAMILY_BOARDS = 5
MAX_INFLUENCE = 10
MAX_LIMIT_BONUS = 2
#: The card set file format this module reads (the file's `format`).
FORMAT = 1

#: The environment variable naming a card set file to use instead of the default.
CARDS_ENV = "CURIA_CICERON_CARDS"
#: The stand-in set shipped beside this module.
DEFAULT_CARDS = "cards.toml"



@dataclass(frozen=True)
class Effect:
    """What an action card or a guild power does: a kind of EFFECTS and its parameters.

    `rewards` (legion only) lists the choices offered after deploying the legion, each
    either ("prestige", amount) or ("influence:<caste>", amount).
    """

    kind: str
    caste: str = ""
    amount: int = 0
    count: int = 0
    guild: str = ""
    votes: int = 0
    province: str = ""
    rewards: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Senator:
    """A senator card. `pile` is "white" (the opening draft) or a red pile's id."""

    id: str
    name: str
    caste: str
    pile: str
    #: The 4 influences paid to recruit it (red piles: from its pile's two castes).
    cost: dict[str, int]
    #: Senate votes.
    votes: int
    #: Influence level with castes (the X of an upper zone spot).
    influences: dict[str, int]
    #: Guild symbols.
    guilds: dict[str, int]
    #: Prestige scored each turn when the cénacle holds `requires` guild symbols.
    prestige: int = 0
    requires: dict[str, int] = field(default_factory=dict)
    #: How much the senator raises the cénacle limit (C8).
    limit_bonus: int = 0


@dataclass(frozen=True)
class ActionCard:
    """An action card of a caste's deck: paid in influences, then its effect applies."""

    id: str
    name: str
    caste: str
    cost: dict[str, int]
    timing: str
    effect: Effect


@dataclass(frozen=True)
class TriumviratCard:
    """A general's demand for one turn: at least `legions` deployed, and one in
    `province` when it names one."""

    id: str
    general: str
    turn: int
    legions: int
    province: str = ""


@dataclass(frozen=True)
class CiceronCard:
    """A plea of Cicéron: the tribute is 2 of the 4 `influences` (castes, repeats
    allowed), or a senator of one of the 2 `castes`, or −10 prestige."""

    id: str
    name: str
    castes: tuple[str, str]
    influences: tuple[str, str, str, str]


@dataclass(frozen=True)
class FamilyBoard:
    """A family's board: its home caste and starting influence per caste."""

    name: str
    home: str
    influence: dict[str, int]


@dataclass(frozen=True)
class Pile:
    """A red senator pile and its Senate spot: its senators are paid in these 2 castes."""

    id: str
    castes: tuple[str, str]


@dataclass(frozen=True)
class CardSet:
    """A whole, validated card set (lookups by id are built once, at construction)."""

    name: str
    #: First line of the file's description: it says whose design it is.
    notice: str
    families: tuple[FamilyBoard, ...]
    piles: tuple[Pile, ...]
    senators: tuple[Senator, ...]
    actions: tuple[ActionCard, ...]
    triumvirat: tuple[TriumviratCard, ...]
    ciceron: tuple[CiceronCard, ...]
    #: Guild -> the power its holder may use during the next turn.
    guild_powers: dict[str, Effect]
    provinces: tuple[str, ...]
    #: Legions in the box (the book: 15).
    legions: int = 15
    #: sha256 of the file's text: games record it, so a replay with another set is caught.
    digest: str = ""
    #: The file's whole description (its first line is `notice`).
    description: str = ""

    _senator_index: dict[str, Senator] = field(init=False, repr=False, compare=False,
                                               default_factory=dict)
    _action_index: dict[str, ActionCard] = field(init=False, repr=False, compare=False,
                                                 default_factory=dict)
    _pile_index: dict[str, tuple[Senator, ...]] = field(init=False, repr=False,
                                                        compare=False, default_factory=dict)
    _deck_index: dict[str, tuple[ActionCard, ...]] = field(init=False, repr=False,
                                                           compare=False, default_factory=dict)
    _triumvirat_index: dict[str, TriumviratCard] = field(init=False, repr=False,
                                                         compare=False, default_factory=dict)
    _ciceron_index: dict[str, CiceronCard] = field(init=False, repr=False, compare=False,
                                                   default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_senator_index", {s.id: s for s in self.senators})
        object.__setattr__(self, "_action_index", {a.id: a for a in self.actions})
        piles = (WHITE, *(p.id for p in self.piles))
        object.__setattr__(self, "_pile_index", {
            p: tuple(s for s in self.senators if s.pile == p) for p in piles})
        object.__setattr__(self, "_deck_index", {
            c: tuple(a for a in self.actions if a.caste == c) for c in CASTES})
        object.__setattr__(self, "_triumvirat_index", {t.id: t for t in self.triumvirat})
        object.__setattr__(self, "_ciceron_index", {c.id: c for c in self.ciceron})

    def senator(self, senator_id: str) -> Senator:
        """The senator of this id (KeyError if none)."""
        return self._senator_index[senator_id]

    def action(self, card_id: str) -> ActionCard:
        """The action card of this id (KeyError if none)."""
        return self._action_index[card_id]

    def triumvirat_card(self, card_id: str) -> TriumviratCard:
        """The Triumvirat card of this id (KeyError if none)."""
        return self._triumvirat_index[card_id]

    def ciceron_card(self, card_id: str) -> CiceronCard:
        """The Cicéron card of this id (KeyError if none)."""
        return self._ciceron_index[card_id]

    def pile_senators(self, pile_id: str) -> tuple[Senator, ...]:
        """The senators of a pile ("white" or a red pile's id), in file order."""
        return self._pile_index[pile_id]

    @property
    def white_senators(self) -> tuple[Senator, ...]:
        """The 12 senators of the opening draft."""
        return self._pile_index[WHITE]

    def deck(self, caste: str) -> tuple[ActionCard, ...]:
        """The action cards of a caste's deck, in file order."""
        return self._deck_index[caste]

    def pile(self, pile_id: str) -> Pile:
        """The red pile of this id (KeyError if none)."""
        for pile in self.piles:
            if pile.id == pile_id:
                return pile
        raise KeyError(pile_id)

    def family(self, name: str) -> FamilyBoard:
        """The family board of this name (KeyError if none)."""
        for board in self.families:
            if board.name == name:
                return board
        raise KeyError(name)

    def triumvirat_of(self, turn: int) -> tuple[TriumviratCard, ...]:
        """The 3 Triumvirat cards of a turn (1..5)."""
        return tuple(t for t in self.triumvirat if t.turn == turn)


# -- reading the file ----------------------------------------------------------------

_T = TypeVar("_T")

_TOP_FIELDS = ("format", "name", "description", "legions", "provinces", "families", "piles",
               "guild_powers", "senators", "actions", "triumvirat", "ciceron")



def _records(doc: _Record, key: str, kind: str, id_field: str = "id"
             ) -> list[tuple[_Record, str]]:
    """The tables of `[[key]]`, each with its id read and checked; `where` names it."""
    out = []
    for number, raw in enumerate(doc.tables(key), start=1):
        rec = _Record(raw, f"{kind} #{number}")
        ident = rec.slug(id_field)
        rec.where = f'{kind} "{ident}"'
        out.append((rec, ident))
    return out


def _read_all(records: list[tuple[_Record, str]], read: Callable[[_Record, str], _T]
              ) -> tuple[_T, ...]:
    return tuple(read(rec, ident) for rec, ident in records)


@dataclass
class _Reader:
    """Reads one card set document; the fields filled so far are what later checks use."""

    provinces: tuple[str, ...] = ()
    piles: dict[str, tuple[str, str]] = field(default_factory=dict)
    ids: dict[str, str] = field(default_factory=dict)

    def claim(self, rec: _Record, ident: str, kind: str, id_field: str = "id") -> None:
        if ident in self.ids:
            rec.fail(id_field, f"{_show(ident)} is already used by a {self.ids[ident]}")
        self.ids[ident] = kind

    # -- effects ---------------------------------------------------------------------
    def effect(self, raw: object, where: str, prefix: str, kinds: tuple[str, ...],
               what: str = "effect kind") -> Effect:
        rec = _Record(raw, where, prefix)
        kind = rec.choice("kind", kinds, what)
        params = EFFECTS[kind]
        for key in rec.raw:
            if key != "kind" and key not in params:
                rec.fail(key, f"is not a parameter of {_show(kind)} (it takes: "
                              f"{', '.join(params) or 'nothing'})")
        values: dict[str, Any] = {}
        for param in params:
            if param == "caste":
                values[param] = rec.choice(param, CASTES, "caste")
            elif param == "guild":
                values[param] = rec.choice(param, GUILDS, "guild")
            elif param == "province":
                values[param] = rec.choice(param, self.provinces, "province")
            elif param == "rewards":
                values[param] = self.rewards(rec)
            else:
                low, high = PARAMETER_RANGE_OVERRIDES.get((kind, param),
                                                          PARAMETER_RANGES[param])
                values[param] = rec.integer(param, low, high)
        return Effect(kind=kind, **values)

    @staticmethod
    def rewards(rec: _Record) -> tuple[tuple[str, int], ...]:
        value = rec.get("rewards")
        if not isinstance(value, dict) or not value:
            rec.fail("rewards", "must be a non-empty table of rewards (prestige = N, "
                                f'"influence:<caste>" = N), got {_show(value)}')
        out = []
        low, high = REWARD_RANGE
        for name, amount in value.items():
            if name not in REWARD_KINDS:
                rec.fail("rewards", f"names an unknown reward {_show(name)} "
                                    f'(prestige or "influence:<caste>")')
            if not isinstance(amount, int) or isinstance(amount, bool) \
                    or not low <= amount <= high:
                rec.fail("rewards", f"must give {_show(name)} a whole number {low}..{high}, "
                                    f"got {_show(amount)}")
            out.append((name, amount))
        return tuple(out)

    # -- the sections ----------------------------------------------------------------
    def family(self, rec: _Record, name: str) -> FamilyBoard:
        rec.only(("name", "home", "influence"))
        home = rec.choice("home", CASTES, "caste")
        influence = rec.counts("influence", CASTES, "caste", MAX_INFLUENCE)
        return FamilyBoard(name=name, home=home, influence=influence)

    def pile(self, rec: _Record, ident: str) -> Pile:
        rec.only(("id", "castes"))
        self.claim(rec, ident, "pile")
        if ident == WHITE:
            rec.fail("id", f"{_show(WHITE)} is reserved for the white-backed senators")
        castes = rec.choices("castes", CASTES, "caste", 2)
        if castes[0] == castes[1]:
            rec.fail("castes", f"must be 2 different castes, got {_show(list(castes))}")
        self.piles[ident] = (castes[0], castes[1])
        return Pile(id=ident, castes=(castes[0], castes[1]))

    def senator(self, rec: _Record, ident: str) -> Senator:
        rec.only(("id", "name", "caste", "pile", "cost", "votes", "influences", "guilds",
                  "prestige", "requires", "limit_bonus"))
        self.claim(rec, ident, "senator")
        name = rec.string("name")
        caste = rec.choice("caste", CASTES, "caste")
        pile = rec.choice("pile", (WHITE, *self.piles), "pile")
        cost = rec.counts("cost", CASTES, "caste", SENATOR_COST)
        self.check_cost(rec, pile, cost)
        votes = rec.integer("votes", 0, 10)
        influences = rec.counts("influences", CASTES, "caste", MAX_INFLUENCE)
        guilds = rec.counts("guilds", GUILDS, "guild", 10)
        prestige = rec.integer("prestige", 0, 10, default=0)
        requires = rec.counts("requires", GUILDS, "guild", 10)
        if prestige and not requires:
            rec.fail("requires", f"must name the guild symbols that score its prestige "
                                 f"{prestige}")
        if requires and not prestige:
            rec.fail("prestige", "must be 1..10 when the senator has guild requirements "
                                 f"(requires = {_show(requires)})")
        limit_bonus = rec.integer("limit_bonus", 0, MAX_LIMIT_BONUS, default=0)
        return Senator(id=ident, name=name, caste=caste, pile=pile, cost=cost, votes=votes,
                       influences=influences, guilds=guilds, prestige=prestige,
                       requires=requires, limit_bonus=limit_bonus)

    def check_cost(self, rec: _Record, pile: str, cost: dict[str, int]) -> None:
        total = sum(cost.values())
        if pile == WHITE:
            if cost and total != SENATOR_COST:
                rec.fail("cost", f"must be empty or total {SENATOR_COST} influences "
                                 f"(a white senator is drafted, not paid for), got {_show(cost)}")
            return
        castes = self.piles[pile]
        if total != SENATOR_COST or any(c not in castes for c in cost):
            rec.fail("cost", f"must total {SENATOR_COST} influences of its pile's castes "
                             f"({', '.join(castes)}), got {_show(cost)}")

    def action(self, rec: _Record, ident: str) -> ActionCard:
        rec.only(("id", "name", "caste", "cost", "timing", "effect"))
        self.claim(rec, ident, "action card")
        name = rec.string("name")
        caste = rec.choice("caste", CASTES, "caste")
        cost = rec.counts("cost", CASTES, "caste", MAX_INFLUENCE)
        timing = rec.choice("timing", TIMINGS, "timing")
        effect = self.effect(rec.get("effect"), rec.where, "effect.", tuple(EFFECTS))
        if effect.kind == "legion" and caste != "belligerator":
            rec.fail("effect.kind", f'"legion" is for belligerator cards only, '
                                    f"this card's caste is {_show(caste)}")
        if timing not in EFFECT_TIMINGS[effect.kind]:
            rec.fail("timing", f"must be one of {', '.join(EFFECT_TIMINGS[effect.kind])} for "
                               f"a {_show(effect.kind)} effect, got {_show(timing)}")
        return ActionCard(id=ident, name=name, caste=caste, cost=cost, timing=timing,
                          effect=effect)

    def triumvirat(self, rec: _Record, ident: str, legions: int) -> TriumviratCard:
        rec.only(("id", "general", "turn", "legions", "province"))
        self.claim(rec, ident, "Triumvirat card")
        general = rec.choice("general", GENERALS, "general")
        turn = rec.integer("turn", 1, TURNS)
        needed = rec.integer("legions", 1, legions)
        province = rec.get("province", "")
        if province != "" and province not in self.provinces:
            rec.fail("province", f"must be empty or a known province "
                                 f"({', '.join(self.provinces)}), got {_show(province)}")
        return TriumviratCard(id=ident, general=general, turn=turn, legions=needed,
                              province=str(province))

    def ciceron(self, rec: _Record, ident: str) -> CiceronCard:
        rec.only(("id", "name", "castes", "influences"))
        self.claim(rec, ident, "Cicéron card")
        name = rec.string("name")
        castes = rec.choices("castes", CASTES, "caste", 2)
        if castes[0] == castes[1]:
            rec.fail("castes", f"must be 2 different castes, got {_show(list(castes))}")
        influences = rec.choices("influences", CASTES, "caste", CICERON_INFLUENCES)
        return CiceronCard(id=ident, name=name, castes=(castes[0], castes[1]),
                           influences=(influences[0], influences[1], influences[2],
                                       influences[3]))

    def guild_powers(self, doc: _Record) -> dict[str, Effect]:
        rec = _Record(doc.get("guild_powers"), "guild_powers", "")
        rec.only(GUILDS)
        powers = {}
        for guild in GUILDS:
            if not rec.has(guild):
                rec.fail(guild, "is missing: every guild has one power")
            powers[guild] = self.effect(rec.get(guild), f"guild power {_show(guild)}",
                                        "", GUILD_POWER_KINDS, "guild power kind")
        return powers


# -- whole-set checks ----------------------------------------------------------------

def _fail(where: str, message: str) -> NoReturn:
    raise CardSetError(f"{where}: {message}")


def _check_provinces(doc: _Record) -> tuple[str, ...]:
    value = doc.get("provinces")
    if not isinstance(value, list) or not value:
        doc.fail("provinces", f"must be a non-empty list of province ids, got {_show(value)}")
    seen: set[str] = set()
    for province in value:
        if not isinstance(province, str) or not _SLUG.fullmatch(province):
            doc.fail("provinces", f"must hold lowercase ids, got {_show(province)}")
        if province in seen:
            doc.fail("provinces", f"lists {_show(province)} twice")
        seen.add(province)
    return tuple(value)


def _check_counts(groups: list[tuple[str, list[tuple[str, str]], int, str]]) -> None:
    """Each group: (what, [(card, field value)], how many, field). Too many names the
    first card beyond the count (every group is checked for that first); too few names
    the group."""
    for what, cards, count, key in groups:
        if len(cards) > count:
            card, value = cards[count]
            shown = f"{key} {value}" if value else key
            _fail(card, f"{shown}: one too many, {what} must hold {count}")
    for what, cards, count, key in groups:
        if len(cards) < count:
            _fail(what, f"must hold {count} ({key}), got {len(cards)}")


def _check_families(families: tuple[FamilyBoard, ...]) -> None:
    _check_counts([("the family boards", [(f'family "{b.name}"', "") for b in families],
                    FAMILY_BOARDS, "[[families]]")])
    seen: dict[str, str] = {}
    names: set[str] = set()
    for board in families:
        if board.name in names:
            _fail(f'family "{board.name}"', "name is used by another family board")
        names.add(board.name)
        if board.home in seen:
            _fail(f'family "{board.name}"', f"home {_show(board.home)} is already the home "
                                            f'caste of family "{seen[board.home]}"')
        seen[board.home] = board.name


def _check_piles(piles: tuple[Pile, ...]) -> None:
    _check_counts([("the red piles", [(f'pile "{p.id}"', "") for p in piles], RED_PILES,
                    "[[piles]]")])
    seen: dict[str, str] = {}
    for pile in piles:
        for caste in pile.castes:
            if caste in seen:
                _fail(f'pile "{pile.id}"', f"castes: {_show(caste)} is already a caste of pile "
                                           f'"{seen[caste]}"; the 3 piles\' caste pairs must '
                                           f"cover the 6 castes once")
            seen[caste] = pile.id


def _check_senators(senators: tuple[Senator, ...], piles: tuple[Pile, ...]) -> None:
    def named(selected: Iterable[Senator]) -> list[tuple[str, str]]:
        return [(f'senator "{s.id}"', _show(s.pile)) for s in selected]

    _check_counts([
        (f'pile "{WHITE}"', named(s for s in senators if s.pile == WHITE), WHITE_SENATORS,
         "pile"),
        ("the red piles", named(s for s in senators if s.pile != WHITE), RED_SENATORS,
         "pile"),
    ])
    for pile in piles:
        held = sum(s.pile == pile.id for s in senators)
        if held < MIN_PILE:
            _fail(f'pile "{pile.id}"', f"senators: must be at least {MIN_PILE}, got {held}")


def _check_actions(actions: tuple[ActionCard, ...]) -> None:
    _check_counts([(f"the {caste} deck", [(f'action "{a.id}"', _show(a.caste))
                                          for a in actions if a.caste == caste],
                    ACTIONS_PER_CASTE, "caste") for caste in CASTES])


def _check_triumvirat(cards: tuple[TriumviratCard, ...], actions: tuple[ActionCard, ...]
                      ) -> None:
    _check_counts([(f"the Triumvirat cards of turn {turn}",
                    [(f'Triumvirat card "{t.id}"', str(t.turn)) for t in cards
                     if t.turn == turn], TRIUMVIRAT_PER_TURN, "turn")
                   for turn in range(1, TURNS + 1)])
    reachable = {a.effect.province for a in actions if a.effect.kind == "legion"}
    for card in cards:
        if card.province and card.province not in reachable:
            _fail(f'Triumvirat card "{card.id}"',
                  f"province {_show(card.province)} has no legion card: the demand could "
                  f"never be met")


def _check_ciceron(cards: tuple[CiceronCard, ...]) -> None:
    _check_counts([("the Cicéron cards", [(f'Cicéron card "{c.id}"', "") for c in cards],
                    CICERON_CARDS, "[[ciceron]]")])


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
    if doc.get("format") != FORMAT:
        doc.fail("format", f"must be {FORMAT} (the card set format this Curia reads), "
                           f"got {_show(doc.get('format'))}")
    name = doc.string("name")
    description = doc.string("description")
    legions = doc.integer("legions", 1, 99, default=15)
    reader = _Reader(provinces=_check_provinces(doc))

    families = _read_all(_records(doc, "families", "family", id_field="name"), reader.family)
    _check_families(families)
    piles = _read_all(_records(doc, "piles", "pile"), reader.pile)
    _check_piles(piles)
    guild_powers = reader.guild_powers(doc)
    senators = _read_all(_records(doc, "senators", "senator"), reader.senator)
    _check_senators(senators, piles)
    actions = _read_all(_records(doc, "actions", "action"), reader.action)
    _check_actions(actions)
    triumvirat = _read_all(_records(doc, "triumvirat", "Triumvirat card"),
                           lambda rec, ident: reader.triumvirat(rec, ident, legions))
    _check_triumvirat(triumvirat, actions)
    ciceron = _read_all(_records(doc, "ciceron", "Cicéron card"), reader.ciceron)
    _check_ciceron(ciceron)

    notice = next(line.strip() for line in description.splitlines() if line.strip())
    return CardSet(
        name=name, notice=notice, families=families, piles=piles, senators=senators,
        actions=actions, triumvirat=triumvirat, ciceron=ciceron, guild_powers=guild_powers,
        provinces=reader.provinces, legions=legions,
        digest=hashlib.sha256(text.encode("utf-8")).hexdigest(), description=description)


# -- the only I/O: reading a card set file -----------------------------------------

@lru_cache(maxsize=1)
def load_default_card_set() -> CardSet:
    """Read and parse the stand-in set packaged beside this module (cached)."""
    text = resources.files(__package__ or "games.ciceron").joinpath(DEFAULT_CARDS) \
        .read_text(encoding="utf-8")
    return parse_card_set(text)


def load_card_set_file(path: str | os.PathLike[str]) -> CardSet:
    """Read and parse a card set file; CardSetError messages start with its path."""
    return read_card_file(path, parse_card_set)


def card_set_from_env(environ: Mapping[str, str] | None = None) -> CardSet:
    """The card set a host chose: the file named by CURIA_CICERON_CARDS when it is set
    (and not empty), else the packaged stand-in set."""
    return chosen_card_set(CARDS_ENV, environ, load_card_set_file, load_default_card_set)


def spot_names(cards: CardSet) -> tuple[str, ...]:
    """The 15 spots: a Senate spot per red pile, then each zone's upper and lower spot."""
    return (*(f"senate-{pile.id}" for pile in cards.piles),
            *(f"{zone}-{level}" for zone in ZONES for level in ("upper", "lower")))
