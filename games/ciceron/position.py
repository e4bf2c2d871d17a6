"""Hand-set Cicéron positions: the documented way for tests and bots into a position.

Build a position from what it looks like, fluently or from a description, and never by
writing the engine's fields:

    st = (Position(families=3)
          .at("servants", turn=2, placer="iulii")
          .princeps("aemilii")
          .influence(aemilii={"orator": 5, "rest": 0})
          .senators(aemilii=["quintus-hortensius-hortalus", "gaius-scribonius-curio"])
          .hand(iulii=["belligerator-09"])
          .spots({"senate-orator-pontifex": "aemilii"})
          .legions(gallia=2)
          .ciceron("in-verrem")
          .triumvirat("caesar-2")
          .draws("senator", "gaius-marius", "lucius-afranius")
          .build())
    play(st, "place exercitus-upper", "play belligerator-09", "reward prestige")

The same position described (`Position.from_description` takes the dict, and
`position_from_text` the TOML text; each key is the builder method of that name):

    families = 3
    phase = "servants"
    turn = 2
    placer = "iulii"
    princeps = "aemilii"
    ciceron = "in-verrem"
    triumvirat = "caesar-2"

    [influence.aemilii]
    orator = 5
    rest = 0
    [senators]
    aemilii = ["quintus-hortensius-hortalus", "gaius-scribonius-curio"]
    [hand]
    iulii = ["belligerator-09"]
    [spots]
    "senate-orator-pontifex" = "aemilii"
    [legions]
    gallia = 2
    [draws]
    senator = ["gaius-marius", "lucius-afranius"]

Keys (whatever is not stated is empty or at its setup default):

- `families` (2-5, default 3), `seed` (default 0): the game's; the families are the card
  set's boards in seat order (stand-in set: aemilii, iulii, cornelii, claudii, valerii).
- `phase`, `turn`, `placer`: where the position starts (`at`). Phases, in order:
  `draft` (the opening draft, before the first pick; deal it with `draws.white`),
  `first-princeps` (the cénacles are set; the first Princeps is elected at once),
  `turn` (the start of a turn: guild powers, then with 2 families the Automatii),
  `election` (phase I; not on turn 1), `ciceron` (phase II, about to reveal), `servants`
  (phase III: `placer` places next, default the Princeps), `tribute` (IV), `triumvirat`
  (V), `majorities` (VI), `prestige` (VII), `end` (the end of the turn: end-of-turn cards,
  servants home). The phases after the start run as the rules say. Default: `turn` 1.
- `princeps`: the Princeps (default: the first family; none before the first election).
- Per family, tables keyed by family name: `influence` (caste -> 0..10; `rest` sets the
  castes not named, which otherwise keep the board's starting influence), `prestige`
  (default 10, may be negative), `servants` (servants not yet placed; default the
  game's number less the spots the family holds), `senators` (the cénacle), `hand`
  (action cards), `permanents` (permanent cards beside the board), `attached` (senator ->
  the bribe/patronage cards lying on him), `end_of_turn` (end-of-turn cards played this
  turn), `effects` (effects held for this turn: `tribute_exempt`, `extra_recruit`,
  `votes=N`, `limit=N`), `guild_powers` (guilds whose power the family uses at the next
  turn start), `tribute_paid` (how the family paid this turn's tribute in phase IV, for a
  position starting after it: `"pay CASTE CASTE"`, `"sacrifice"` or `"disgrace"`; it
  decides the second payment of an unmet Triumvirat, C7).
- `spots`: spot -> family (or `automatii`, 2 families only) for the spots already taken.
- `legions`: province -> legions deployed; `legions_left` (default: the box less those).
- `primus`, `secundus`: caste -> family; `guilds`: guild -> family, or a table
  `{ holder = family, choice = "power" | "prestige" }`.
- `ciceron`: the Cicéron card. Starting before phase II it is the card revealed then;
  later it is the card already revealed (if not given, the deck's top is revealed).
- `triumvirat`: the Triumvirat card the Princeps draws in phase V (a card of `turn`); when
  starting after phase V, the card drawn.
- `decks` (caste -> action cards) and `piles` (pile -> senators): these cards on top, the
  first named drawn first, the rest below. `exact_decks` / `exact_piles`: the deck (pile)
  holds exactly these (possibly none); its other cards are out of the game (removed /
  discarded).
- `draws`: kind -> the next outcomes of that chance (`state.fix_chance(kind, ...)`, kept
  by `clone`, not by `to_bytes`/`determinize`): `senator` (the next senators drawn from
  any pile, Senate spots and Automatii alike), `action` (the next action cards drawn,
  whatever the deck), `ciceron`, `triumvirat`, `white` (the draft packet's senators).

Every card id is the card set's (default: the packaged stand-in, games/ciceron/cards.toml);
`senators_where` / `actions_where` (and `senator_where` / `action_where` for one) pick
cards by their properties. A card may be in one place only. A bad name or number raises
ValueError naming the key and the value.

`build()` returns the state waiting for the first decision; the automatic steps it ran
on the way (e.g. the Cicéron card revealed) left their events in `state.events`.

Driving a position: `play` (decisions by text, `"family: text"` for a given family).
Queries: `legal`, `mover`, `movers`, `step`, `of_kind`, `seat`, `influence`, `prestige`,
`cenacle`, `hand`, `holder`, `spot`; conservation: `inconsistencies`, `assert_consistent`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from games import descriptions as desc
from games.ciceron import rules
from games.ciceron.cardset import (
    CASTES,
    GUILDS,
    ActionCard,
    CardSet,
    Senator,
    load_default_card_set,
    spot_names,
)
from games.ciceron.state import INFLUENCE_MAX, CiceronState, servants_for, turns_for
from games.core import Event

#: Where a position may start, in the order of the game.
PHASES = ("draft", "first-princeps", "turn", "election", "ciceron", "servants", "tribute",
          "triumvirat", "majorities", "prestige", "end")
#: A turn's steps (frame kinds) and the phase each belongs to.
_STEP_PHASE = {"turn_start": "turn", "automatii": "turn", "election": "election",
               "ciceron": "ciceron", "placement": "servants", "tribute": "tribute",
               "triumvirat": "triumvirat", "majorities": "majorities",
               "prestige": "prestige", "end_turn": "end"}
#: The state's phase label while a position waits at the start of each phase.
_LABEL = {"turn": "start", "election": "start", "ciceron": "start", "servants": "servants",
          "tribute": "tribute", "triumvirat": "triumvirat", "majorities": "majorities",
          "prestige": "prestige", "end": "prestige"}
#: Effects a family may hold for the turn (`effects`): those without an amount, and those
#: written `kind=N`.
_PLAIN_EFFECTS = ("tribute_exempt", "extra_recruit")
_AMOUNT_EFFECTS = ("votes", "limit")
CHANCE_KINDS = CiceronState.chance_kinds
AUTOMATII = "automatii"

_SCALARS: dict[str, type] = {"families": int, "seed": int, "phase": str, "turn": int,
                             "placer": str, "princeps": str, "ciceron": str,
                             "triumvirat": str, "legions_left": int}
_FAMILY_TABLES = ("influence", "prestige", "servants", "senators", "hand", "permanents",
                  "attached", "end_of_turn", "effects", "guild_powers", "tribute_paid")
_OTHER_TABLES = ("spots", "legions", "primus", "secundus", "guilds", "decks", "exact_decks",
                 "piles", "exact_piles", "draws")
_KEYS = (*_SCALARS, *_FAMILY_TABLES, *_OTHER_TABLES)


class Position:
    """A builder of hand-set Cicéron positions; every method but `build` returns it."""

    def __init__(self, families: int = 3, *, seed: int = 0,
                 cards: CardSet | None = None) -> None:
        if isinstance(families, bool) or not isinstance(families, int) \
                or not 2 <= families <= 5:
            raise ValueError(f"families must be 2 to 5, not {families!r}")
        self.cards = cards or load_default_card_set()
        self.num_seats, self.seed = families, seed
        self.names = tuple(board.name for board in self.cards.families[:families])
        self._phase, self._turn, self._placer = "turn", 1, ""
        self._princeps = ""
        self._family: dict[str, dict[str, Any]] = {k: {} for k in _FAMILY_TABLES}
        self._spots: dict[str, str] = {}
        self._legions: dict[str, int] = {}
        self._legions_left: int | None = None
        self._majority: dict[str, dict[str, Any]] = {"primus": {}, "secundus": {},
                                                     "guilds": {}}
        self._ciceron = ""
        self._triumvirat = ""
        self._decks: dict[str, tuple[list[str], bool]] = {}
        self._piles: dict[str, tuple[list[str], bool]] = {}
        self._draws: dict[str, list[str]] = {}

    # -- the description ---------------------------------------------------------------
    @classmethod
    def from_description(cls, data: Mapping[str, Any],
                         cards: CardSet | None = None) -> Position:
        """A builder from a description (a dict, as TOML reads it; see the module
        docstring). Each key is read as the builder method of that name; ValueError names
        a bad key or value."""
        desc.check_keys(data, _KEYS, "the position description")
        got = {k: desc.typed(data[k], t, k) for k, t in _SCALARS.items() if k in data}
        pos = cls(got.get("families", 3), seed=got.get("seed", 0), cards=cards)
        if {"phase", "turn", "placer"} & set(got):
            pos.at(got.get("phase", "turn"), got.get("turn"), got.get("placer") or None)
        for key in ("princeps", "ciceron", "triumvirat", "legions_left"):
            if key in got:
                getattr(pos, key)(got[key])
        pos.influence(**desc.table(data, "influence", _influence_table))
        pos.prestige(**desc.table(data, "prestige", lambda v, w: desc.typed(v, int, w)))
        pos.servants(**desc.table(data, "servants", lambda v, w: desc.typed(v, int, w)))
        pos.tribute_paid(**desc.table(data, "tribute_paid", lambda v, w: desc.typed(v, str, w)))
        for key in ("senators", "hand", "permanents", "end_of_turn", "effects",
                    "guild_powers"):
            getattr(pos, key)(**desc.table(data, key, desc.strings))
        pos.attached(**desc.table(data, "attached", _attached_table))
        pos.spots(desc.table(data, "spots", lambda v, w: desc.typed(v, str, w)))
        pos.legions(**desc.table(data, "legions", lambda v, w: desc.typed(v, int, w)))
        pos.primus(**desc.table(data, "primus", lambda v, w: desc.typed(v, str, w)))
        pos.secundus(**desc.table(data, "secundus", lambda v, w: desc.typed(v, str, w)))
        pos.guilds(**desc.table(data, "guilds", _guild_entry))
        for key, exact in (("decks", False), ("exact_decks", True)):
            for caste, cards_ in desc.table(data, key, desc.strings).items():
                pos.deck(caste, *cards_, exact=exact)
        for key, exact in (("piles", False), ("exact_piles", True)):
            for pile, senators in desc.table(data, key, desc.strings).items():
                pos.pile(pile, *senators, exact=exact)
        for kind, outcomes in desc.table(data, "draws", desc.strings).items():
            pos.draws(kind, *outcomes)
        return pos

    # -- the fluent form ---------------------------------------------------------------
    def at(self, phase: str, turn: int | None = None, placer: str | None = None) -> Position:
        """Start at `phase` of `turn` (default 1; 0 for the draft and first Princeps);
        `placer`: in phase III, the family that places next (default the Princeps)."""
        desc.known(phase, PHASES, "phase", "phase")
        self._phase = phase
        self._turn = turn if turn is not None else (0 if phase in PHASES[:2] else 1)
        self._placer = placer or ""
        return self

    def princeps(self, family: str) -> Position:
        self._princeps = family
        return self

    def influence(self, **families: Mapping[str, int]) -> Position:
        """Influence per caste (0..10); `rest` sets the castes not named."""
        self._family["influence"].update(families)
        return self

    def prestige(self, **families: int) -> Position:
        self._family["prestige"].update(families)
        return self

    def servants(self, **families: int) -> Position:
        self._family["servants"].update(families)
        return self

    def senators(self, **families: list[str]) -> Position:
        """The cénacles (senator ids)."""
        self._family["senators"].update(families)
        return self

    def hand(self, **families: list[str]) -> Position:
        self._family["hand"].update(families)
        return self

    def permanents(self, **families: list[str]) -> Position:
        self._family["permanents"].update(families)
        return self

    def attached(self, **families: Mapping[str, list[str]]) -> Position:
        """Per family: senator -> the bribe/patronage cards lying on him."""
        self._family["attached"].update(families)
        return self

    def end_of_turn(self, **families: list[str]) -> Position:
        """End-of-turn cards played this turn, in the order played."""
        self._family["end_of_turn"].update(families)
        return self

    def effects(self, **families: list[str]) -> Position:
        """Effects held for this turn: `tribute_exempt`, `extra_recruit`, `votes=N`,
        `limit=N`."""
        self._family["effects"].update(families)
        return self

    def guild_powers(self, **families: list[str]) -> Position:
        """Guilds whose power the family uses at the next turn start."""
        self._family["guild_powers"].update(families)
        return self

    def tribute_paid(self, **families: str) -> Position:
        """How each family paid this turn's tribute (phase IV): "pay CASTE CASTE",
        "sacrifice" or "disgrace"."""
        self._family["tribute_paid"].update(families)
        return self

    def spots(self, taken: Mapping[str, str] | None = None) -> Position:
        """Spots already taken: spot -> family (or "automatii")."""
        self._spots.update(taken or {})
        return self

    def legions(self, **provinces: int) -> Position:
        self._legions.update(provinces)
        return self

    def legions_left(self, count: int) -> Position:
        self._legions_left = count
        return self

    def primus(self, **castes: str) -> Position:
        self._majority["primus"].update(castes)
        return self

    def secundus(self, **castes: str) -> Position:
        self._majority["secundus"].update(castes)
        return self

    def guilds(self, **guilds: str | Mapping[str, str]) -> Position:
        """Guild -> holder, or {"holder": family, "choice": "power" | "prestige"}."""
        self._majority["guilds"].update(guilds)
        return self

    def ciceron(self, card: str) -> Position:
        self._ciceron = card
        return self

    def triumvirat(self, card: str) -> Position:
        self._triumvirat = card
        return self

    def deck(self, caste: str, *top: str, exact: bool = False) -> Position:
        """These action cards on top of `caste`'s deck, the first drawn first; `exact`:
        the deck holds only these."""
        self._decks[caste] = (list(top), exact)
        return self

    def pile(self, pile: str, *top: str, exact: bool = False) -> Position:
        """These senators on top of a red pile, the first drawn first; `exact`: the pile
        holds only these."""
        self._piles[pile] = (list(top), exact)
        return self

    def draws(self, kind: str, *outcomes: str) -> Position:
        """The next outcomes of a chance kind (after any already given)."""
        desc.known(kind, CHANCE_KINDS, "chance kind", "draws")
        self._draws.setdefault(kind, []).extend(outcomes)
        return self

    # -- building ----------------------------------------------------------------------
    def build(self) -> CiceronState:
        """The position, waiting for its first decision (see the module docstring)."""
        st = CiceronState.setup(self.cards, self.num_seats, {}, self.seed)
        self._check_start()
        used = _Used()
        self._set_families(st, used)
        self._set_board(st)
        self._set_majorities(st)
        self._set_decks(st, used)
        self._set_piles(st, used)
        draws = self._set_cards_revealed(st)
        self._set_tributes(st)
        self._start(st, draws)
        return st

    def _seat(self, family: Any, where: str) -> int:
        return desc.known(family, self.names, "family", where)

    def _phase_index(self) -> int:
        return PHASES.index(self._phase)

    def _check_start(self) -> None:
        turns = turns_for(self.num_seats)
        opening = self._phase in PHASES[:2]
        if opening and self._turn != 0:
            raise ValueError(f"turn: the {self._phase} comes before turn 1, not {self._turn}")
        if not opening and not 1 <= self._turn <= turns:
            raise ValueError(f"turn must be 1 to {turns} with {self.num_seats} families, "
                             f"not {self._turn}")
        if self._phase == "election" and self._turn == 1:
            raise ValueError("phase: turn 1 has no Princeps election (the first Princeps "
                             "is chosen by the Senate votes: phase = \"first-princeps\")")
        if self._placer and self._phase != "servants":
            raise ValueError(f"placer: only a position starting at phase \"servants\" has "
                             f"one, not {self._phase!r}")
        if self._princeps and opening:
            raise ValueError(f"princeps: there is none before the first election "
                             f"(phase {self._phase!r})")
        for table in _FAMILY_TABLES:
            for family in self._family[table]:
                self._seat(family, table)

    def _set_families(self, st: CiceronState, used: _Used) -> None:
        held = Counter(self._seat(f, f"spots.{s}") for s, f in self._spots.items()
                       if f != AUTOMATII)
        for seat, name in enumerate(self.names):
            fam = st.families[seat]
            self._set_influence(fam, name)
            fam["prestige"] = desc.typed(self._family["prestige"].get(name, fam["prestige"]), int,
                                     f"prestige.{name}")
            fam["senators"] = [self._senator(s, f"senators.{name}", used)
                               for s in self._family["senators"].get(name, [])]
            fam["hand"] = [self._action(a, f"hand.{name}", used)
                           for a in self._family["hand"].get(name, [])]
            fam["permanents"] = [self._action(a, f"permanents.{name}", used, "permanent")
                                 for a in self._family["permanents"].get(name, [])]
            fam["attached"] = self._attached(fam["senators"], name, used)
            fam["turn_effects"] = [*self._effects(name), *(
                {"card": self._action(a, f"end_of_turn.{name}", used, "end_of_turn"),
                 "when": "end"} for a in self._family["end_of_turn"].get(name, []))]
            fam["guild_powers"] = [self._guild(g, f"guild_powers.{name}")
                                   for g in self._family["guild_powers"].get(name, [])]
            default = servants_for(self.num_seats) - held[seat]
            if default < 0:
                raise ValueError(f"spots: {name} holds {held[seat]} spots but has only "
                                 f"{servants_for(self.num_seats)} servants")
            servants = self._family["servants"].get(name, default)
            fam["servants"] = desc.count(servants, f"servants.{name}")
            if fam["servants"] + held[seat] > servants_for(self.num_seats):
                raise ValueError(f"servants.{name}: {servants} left and {held[seat]} placed, "
                                 f"more than the {servants_for(self.num_seats)} of "
                                 f"{self.num_seats} families")

    def _set_influence(self, fam: dict[str, Any], name: str) -> None:
        table = dict(self._family["influence"].get(name, {}))
        where = f"influence.{name}"
        if "rest" in table:
            rest = _influence(table.pop("rest"), f"{where}.rest")
            fam["influence"] = dict.fromkeys(CASTES, rest)
        for caste, value in table.items():
            desc.known(caste, CASTES, "caste", where)
            fam["influence"][caste] = _influence(value, f"{where}.{caste}")

    def _senator(self, sid: Any, where: str, used: _Used) -> str:
        try:
            self.cards.senator(sid)
        except (KeyError, TypeError):
            raise ValueError(f"{where}: no senator {sid!r} in card set "
                             f"{self.cards.name!r}") from None
        used.claim(sid, where)
        return str(sid)

    def _action(self, card: Any, where: str, used: _Used, timing: str = "") -> str:
        try:
            action = self.cards.action(card)
        except (KeyError, TypeError):
            raise ValueError(f"{where}: no action card {card!r} in card set "
                             f"{self.cards.name!r}") from None
        if timing and action.timing != timing:
            raise ValueError(f"{where}: {card!r} is a {action.timing} card, not {timing}")
        used.claim(card, where)
        return str(card)

    def _attached(self, cenacle: list[str], name: str,
                  used: _Used) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for sid, cards_ in self._family["attached"].get(name, {}).items():
            where = f"attached.{name}.{sid}"
            if sid not in cenacle:
                raise ValueError(f"{where}: {sid!r} is not in {name}'s cénacle "
                                 f"(senators.{name})")
            out[sid] = [self._action(c, where, used, "senator") for c in cards_]
            for card in out[sid]:
                if self.cards.action(card).effect.kind not in ("bribe", "patronage"):
                    raise ValueError(f"{where}: {card!r} does not lie on a senator (only "
                                     f"bribe and patronage cards do)")
        return out

    def _effects(self, name: str) -> list[dict[str, Any]]:
        out = []
        for text in self._family["effects"].get(name, []):
            where = f"effects.{name}"
            kind, _, amount = str(text).partition("=")
            if kind in _PLAIN_EFFECTS and not amount:
                out.append({"kind": kind, "amount": 0, "caste": "", "when": "turn"})
            elif kind in _AMOUNT_EFFECTS and amount.isdigit() and int(amount) > 0:
                out.append({"kind": kind, "amount": int(amount), "caste": "", "when": "turn"})
            else:
                raise ValueError(f"{where}: no effect {text!r}; effects: "
                                 f"{', '.join(_PLAIN_EFFECTS)}, "
                                 f"{', '.join(k + '=N' for k in _AMOUNT_EFFECTS)}")
        return out

    def _guild(self, guild: Any, where: str) -> str:
        return GUILDS[desc.known(guild, GUILDS, "guild", where)]

    def _set_board(self, st: CiceronState) -> None:
        spots = spot_names(self.cards)
        for spot, family in self._spots.items():
            desc.known(spot, spots, "spot", "spots")
            if family == AUTOMATII:
                if self.num_seats != 2:
                    raise ValueError(f"spots.{spot}: the Automatii play only with 2 families")
                st.spots[spot] = AUTOMATII
            else:
                st.spots[spot] = self._seat(family, f"spots.{spot}")
        for province, count in self._legions.items():
            desc.known(province, self.cards.provinces, "province", "legions")
            st.legions[province] = desc.count(count, f"legions.{province}")
        deployed = sum(st.legions.values())
        left = self.cards.legions - deployed if self._legions_left is None \
            else desc.count(self._legions_left, "legions_left")
        if left < 0 or deployed + left > self.cards.legions:
            raise ValueError(f"legions: {deployed} deployed and {left} left, the box holds "
                             f"{self.cards.legions}")
        st.legions_left = left

    def _set_majorities(self, st: CiceronState) -> None:
        for kind in ("primus", "secundus"):
            table = st.primus if kind == "primus" else st.secundus
            for caste, family in self._majority[kind].items():
                desc.known(caste, CASTES, "caste", kind)
                table[caste] = self._seat(family, f"{kind}.{caste}")
        for caste in CASTES:
            if st.primus[caste] is not None and st.primus[caste] == st.secundus[caste]:
                raise ValueError(f"primus.{caste} / secundus.{caste}: one family cannot "
                                 f"hold both")
        for guild, entry in self._majority["guilds"].items():
            self._guild(guild, "guilds")
            holder, choice = _guild_entry(entry, f"guilds.{guild}").values()
            if choice not in (None, "power", "prestige"):
                raise ValueError(f"guilds.{guild}.choice must be \"power\" or \"prestige\", "
                                 f"not {choice!r}")
            st.guilds[guild] = {"holder": self._seat(holder, f"guilds.{guild}"),
                                "choice": choice}

    def _set_decks(self, st: CiceronState, used: _Used) -> None:
        for caste, (top, _) in self._decks.items():
            desc.known(caste, CASTES, "caste", "decks")
            for card in top:
                if self.cards.action(self._action(card, f"decks.{caste}", used)).caste \
                        != caste:
                    raise ValueError(f"decks.{caste}: {card!r} is a "
                                     f"{self.cards.action(card).caste} card")
        for caste in CASTES:
            top, exact = self._decks.get(caste, ([], False))
            rest = [c for c in st.decks[caste] if c not in used]
            if exact:
                st.removed.extend(sorted(rest))
                rest = []
            st.decks[caste] = rest + top[::-1]  # the top of a deck is its end

    def _set_piles(self, st: CiceronState, used: _Used) -> None:
        piles = tuple(p.id for p in self.cards.piles)
        for pile, (top, _) in self._piles.items():
            desc.known(pile, piles, "pile", "piles")
            for sid in top:
                self._senator(sid, f"piles.{pile}", used)
                if self.cards.senator(sid).pile != pile:
                    raise ValueError(f"piles.{pile}: {sid!r} belongs to pile "
                                     f"{self.cards.senator(sid).pile!r}")
        for pile in piles:
            top, exact = self._piles.get(pile, ([], False))
            rest = [s for s in st.piles[pile] if s not in used]
            if exact:
                st.discarded.extend(sorted(rest))
                rest = []
            st.piles[pile] = rest + top[::-1]

    def _set_cards_revealed(self, st: CiceronState) -> dict[str, list[str]]:
        """Reveal the Cicéron and Triumvirat cards already drawn; the chance to fix."""
        draws = {kind: list(outcomes) for kind, outcomes in self._draws.items()}
        index = self._phase_index()
        if self._ciceron:
            desc.known(self._ciceron, tuple(c.id for c in self.cards.ciceron), "Cicéron card",
                   "ciceron")
        if index > PHASES.index("ciceron"):
            card = self._ciceron or st.ciceron_deck[-1]
            st.ciceron_deck.remove(card)
            st.ciceron = card
        elif self._ciceron:
            draws.setdefault("ciceron", []).insert(0, self._ciceron)
        if self._turn >= 1:
            st.triumvirat = sorted(t.id for t in self.cards.triumvirat_of(self._turn))
        if self._triumvirat:
            where = f"triumvirat (turn {self._turn}'s cards: {', '.join(st.triumvirat)})"
            desc.known(self._triumvirat, tuple(st.triumvirat), "Triumvirat card", where)
            if index > PHASES.index("triumvirat"):
                st.triumvirat_drawn = self._triumvirat
            else:
                draws.setdefault("triumvirat", []).insert(0, self._triumvirat)
        return draws

    def _set_tributes(self, st: CiceronState) -> None:
        given = self._family["tribute_paid"]
        if given and self._phase_index() <= PHASES.index("tribute"):
            raise ValueError(f"tribute_paid: the tribute is paid in phase IV; a position "
                             f"starting at {self._phase!r} has not paid it yet")
        symbols = list(self.cards.ciceron_card(st.ciceron).influences) if st.ciceron else []
        for name, text in given.items():
            where = f"tribute_paid.{name}"
            how, *paid = str(text).split()
            if how in ("sacrifice", "disgrace") and not paid:
                st.families[self._seat(name, where)]["tribute"] = {"how": how}
                continue
            rest = list(symbols)
            for caste in paid:
                if caste in rest:
                    rest.remove(caste)
            if how != "pay" or len(paid) != 2 or len(rest) != 2:
                raise ValueError(f"{where}: {text!r} is not a payment of the Cicéron card "
                                 f"{st.ciceron!r} (symbols {symbols}): \"pay CASTE CASTE\", "
                                 f"\"sacrifice\" or \"disgrace\"")
            st.families[self._seat(name, where)]["tribute"] = {
                "how": "pay", "paid": sorted(paid, key=CASTES.index)}

    def _start(self, st: CiceronState, draws: dict[str, list[str]]) -> None:
        st.turn = self._turn
        if self._phase == "draft":
            _fix_chance(st, draws)
            rules.begin_draft(st)
        elif self._phase == "first-princeps":
            st.frames = [{"k": "first_princeps"}]
        else:
            st.princeps = self._seat(self._princeps or self.names[0], "princeps")
            st.phase = _LABEL[self._phase]
            rules.begin_turn(st, self._turn)
            while PHASES.index(_STEP_PHASE[st.frames[-1]["k"]]) < self._phase_index():
                st.frames.pop()
            if self._phase == "servants":
                st.frames[-1]["next"] = self._seat(self._placer or self.names[st.princeps],
                                                   "placer")
        if self._phase != "draft":
            _fix_chance(st, draws)
        st.events = []
        st.advance()


def _fix_chance(st: CiceronState, draws: dict[str, list[str]]) -> None:
    for kind, outcomes in draws.items():
        try:
            st.fix_chance(kind, *outcomes)
        except ValueError as err:
            raise ValueError(f"draws.{kind}: {err}") from None


class _Used:
    """Cards placed so far, and where: a card may be in one place only."""

    def __init__(self) -> None:
        self.where: dict[str, str] = {}

    def claim(self, card: str, where: str) -> None:
        if card in self.where:
            raise ValueError(f"{where}: {card!r} is already in {self.where[card]}")
        self.where[card] = where

    def __contains__(self, card: object) -> bool:
        return card in self.where


def position_from_text(text: str, cards: CardSet | None = None) -> Position:
    """A builder from a TOML description (see the module docstring)."""
    data = desc.read_toml(text)
    return Position.from_description(data, cards)


# -- picking cards by their properties -------------------------------------------------------
def _matches(card: Any, props: Mapping[str, Any], fallback: Any = None) -> bool:
    for name, wanted in props.items():
        if hasattr(card, name):
            value = getattr(card, name)
        elif fallback is not None and hasattr(fallback, name):
            value = getattr(fallback, name)
        else:
            raise ValueError(f"cards have no property {name!r}")
        if not (wanted(value) if callable(wanted) else value == wanted):
            return False
    return True


def senators_where(cards: CardSet | None = None, **props: Any) -> list[str]:
    """Ids of the senators whose properties (`Senator` fields: caste, pile, votes,
    influences, guilds, prestige, requires, limit_bonus, cost) equal the values given,
    or satisfy them when a value is a function. E.g. ``senators_where(caste="orator",
    limit_bonus=1)``, ``senators_where(influences=lambda i: i.get("mercator", 0) >= 2)``."""
    found: list[Senator] = list((cards or load_default_card_set()).senators)
    return [s.id for s in found if _matches(s, props)]


def senator_where(cards: CardSet | None = None, **props: Any) -> str:
    """The first senator `senators_where` finds; ValueError if none."""
    found = senators_where(cards, **props)
    if not found:
        raise ValueError(f"no senator with {props}")
    return found[0]


def actions_where(cards: CardSet | None = None, **props: Any) -> list[str]:
    """Ids of the action cards matching `props`: `ActionCard` fields (caste, cost,
    timing) or, failing those, their effect's (kind, amount, province, votes, guild,
    count, rewards). E.g. ``actions_where(kind="legion", province="gallia")``."""
    found: list[ActionCard] = list((cards or load_default_card_set()).actions)
    return [a.id for a in found if _matches(a, props, a.effect)]


def action_where(cards: CardSet | None = None, **props: Any) -> str:
    """The first action card `actions_where` finds; ValueError if none."""
    found = actions_where(cards, **props)
    if not found:
        raise ValueError(f"no action card with {props}")
    return found[0]


# -- checking names and values ---------------------------------------------------------------






def _influence(value: Any, where: str) -> int:
    level = desc.count(value, where)
    if level > INFLUENCE_MAX:
        raise ValueError(f"{where}: influence is 0 to {INFLUENCE_MAX}, not {level}")
    return level




def _influence_table(value: Any, where: str) -> dict[str, int]:
    if not isinstance(value, Mapping):
        raise ValueError(f"{where} must be a table of caste = influence, not {value!r}")
    return {k: desc.typed(v, int, f"{where}.{k}") for k, v in value.items()}


def _attached_table(value: Any, where: str) -> dict[str, list[str]]:
    if not isinstance(value, Mapping):
        raise ValueError(f"{where} must be a table of senator = [cards], not {value!r}")
    return {k: desc.strings(v, f"{where}.{k}") for k, v in value.items()}


def _guild_entry(value: Any, where: str) -> dict[str, Any]:
    """A guild's holder: a family name, or {holder = family, choice = ...}."""
    if isinstance(value, str):
        return {"holder": value, "choice": None}
    if isinstance(value, Mapping):
        desc.check_keys(value, ("holder", "choice"), where)
        if "holder" not in value:
            raise ValueError(f"{where}: a guild table needs its holder")
        return {"holder": desc.typed(value["holder"], str, f"{where}.holder"),
                "choice": value.get("choice")}
    raise ValueError(f"{where} must be a family or {{ holder = ..., choice = ... }}, "
                     f"not {value!r}")






# -- driving a position ------------------------------------------------------------------------
def seat(st: CiceronState, family: str) -> int:
    """The seat of a family (ValueError naming the families if none)."""
    return desc.known(family, tuple(st.seat_names()), "family")


def play(st: CiceronState, *texts: str) -> list[Event]:
    """Apply decisions by text notation, each for the (first) family to move, or for the
    family named before a colon (``"iulii: vote aemilii"``, for simultaneous votes);
    return all events."""
    events: list[Event] = []
    for text in texts:
        family, colon, decision = text.partition(":")
        if colon:
            who = seat(st, family.strip())
        else:
            decision = text
            if not st.to_move():
                raise ValueError(f"the game is over: nobody may {text!r}")
            who = st.to_move()[0]
        events += st.apply(who, decision.strip())
    return events


# -- queries -----------------------------------------------------------------------------------
def legal(st: CiceronState, family: str | int | None = None) -> list[str]:
    """The legal decisions of a family (a name or a seat; default: the first to move),
    as text."""
    if family is None:
        return [str(d) for d in st.legal_decisions(st.to_move()[0])] if st.to_move() else []
    who = family if isinstance(family, int) else seat(st, family)
    return [str(d) for d in st.legal_decisions(who)]


def movers(st: CiceronState) -> list[str]:
    """The families that must decide now (several during the Princeps election)."""
    return [st.name(s) for s in st.to_move()]


def mover(st: CiceronState) -> str:
    """The (first) family that must decide now."""
    if not st.to_move():
        raise ValueError("the game is over: nobody decides")
    return st.name(st.to_move()[0])


def step(st: CiceronState) -> str | None:
    """The rule step waiting for a decision: "draft", "election", "place", "recruit",
    "upper", "upper_other", "secondary", "reward", "trim", "pay", "elect", "award",
    "guild_choice", "guild_power" (`rules.PROMPTS`); None once the game is over."""
    return str(st.frames[-1]["k"]) if st.frames and not st.ended else None


def of_kind(events: list[Event], kind: str) -> list[dict[str, Any]]:
    """The data of the events of one kind."""
    return [e.data for e in events if e.kind == kind]


def influence(st: CiceronState, family: str) -> dict[str, int]:
    """A family's influence per caste."""
    return dict(st.families[seat(st, family)]["influence"])


def prestige(st: CiceronState, family: str | None = None) -> Any:
    """A family's prestige; without a family, every family's (name -> PP)."""
    if family is None:
        return {st.name(s): fam["prestige"] for s, fam in enumerate(st.families)}
    return st.families[seat(st, family)]["prestige"]


def cenacle(st: CiceronState, family: str) -> list[str]:
    """A family's senators, in the order they joined."""
    return list(st.families[seat(st, family)]["senators"])


def hand(st: CiceronState, family: str) -> list[str]:
    """A family's action cards, sorted."""
    return sorted(st.families[seat(st, family)]["hand"])


def holder(st: CiceronState, card: str) -> str | None:
    """Who holds a majority card: "primus-CASTE", "secundus-CASTE" or "guild-GUILD"."""
    kind, _, what = card.partition("-")
    if kind == "guild":
        found = st.guilds[GUILDS[desc.known(what, GUILDS, "guild", card)]]["holder"]
    elif kind in ("primus", "secundus"):
        found = (st.primus if kind == "primus" else st.secundus)[
            CASTES[desc.known(what, CASTES, "caste", card)]]
    else:
        raise ValueError(f"no majority card {card!r}: primus-CASTE, secundus-CASTE or "
                         f"guild-GUILD")
    return None if found is None else st.name(found)


def spot(st: CiceronState, name: str) -> str | None:
    """Who holds a spot: a family, "automatii", or None."""
    found = st.spots[spot_names(st.cards)[desc.known(name, spot_names(st.cards), "spot")]]
    return st.name(found) if isinstance(found, int) else found


# -- conservation ------------------------------------------------------------------------------
def inconsistencies(st: CiceronState) -> list[str]:
    """What breaks conservation: every card in exactly one place, influence 0..10,
    legions counted once, servants and spots. Empty for a consistent position."""
    problems = []
    senators: Counter[str] = Counter()
    for pile in st.piles.values():
        senators.update(pile)
    for fam in st.families:
        senators.update(fam["senators"])
        senators.update(fam["drawn"])
    senators.update(st.discarded)
    senators.update(st.draft["packet"])
    for sid, n in senators.items():
        if n > 1:
            problems.append(f"senator {sid} is in {n} places")
    missing = [s.id for s in st.cards.senators if s.pile != "white" and s.id not in senators]
    if missing:
        problems.append(f"red senators nowhere: {missing}")
    actions: Counter[str] = Counter(st.removed)
    for deck in st.decks.values():
        actions.update(deck)
    for fam in st.families:
        actions.update(fam["hand"])
        actions.update(fam["permanents"])
        actions.update(c for cards_ in fam["attached"].values() for c in cards_)
        actions.update(e["card"] for e in fam["turn_effects"] if "card" in e)
    if actions != Counter(a.id for a in st.cards.actions):
        extra = sorted((actions - Counter(a.id for a in st.cards.actions)).elements())
        lost = sorted((Counter(a.id for a in st.cards.actions) - actions).elements())
        problems.append(f"action cards: twice {extra}, nowhere {lost}")
    for s, fam in enumerate(st.families):
        bad = {c: v for c, v in fam["influence"].items() if not 0 <= v <= 10}
        if bad:
            problems.append(f"{st.name(s)}: influence out of 0..10: {bad}")
        for sid in fam["attached"]:
            if sid not in fam["senators"]:
                problems.append(f"{st.name(s)}: cards lie on {sid}, not in the cénacle")
        held = sum(h == s for h in st.spots.values())
        if fam["servants"] + held > servants_for(st.num_seats):
            problems.append(f"{st.name(s)}: {fam['servants']} servants and {held} spots")
    if sum(st.legions.values()) + st.legions_left > st.cards.legions:
        problems.append(f"legions: {sum(st.legions.values())} deployed, "
                        f"{st.legions_left} left, of {st.cards.legions}")
    return problems


def assert_consistent(st: CiceronState) -> None:
    """Raise AssertionError listing the `inconsistencies`, if any."""
    problems = inconsistencies(st)
    if problems:
        raise AssertionError("; ".join(problems))
