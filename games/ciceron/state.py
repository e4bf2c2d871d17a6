"""Cicéron's game state: the position, its queries, observation and serialization.

Seat i plays the i-th family board of the card set; clockwise is ascending seat (C12);
seat 0 is the youngest family (C6). The rule steps live in `games.ciceron.rules`; this
module holds the position and what each seat may see of it.
"""

from __future__ import annotations

import json
from typing import Any

from games.ciceron import rules
from games.ciceron.cardset import CASTES, GUILDS, CardSet, spot_names
from games.core import JSON, Decision, Event, GameState, Result, Rng, derive_seed, rank_by

PRESTIGE_START = 10
INFLUENCE_MAX = 10
CENACLE_LIMIT = 4
AUTOMATII_VOTES = 5

#: Per-family fields: name -> default.
FAMILY_FIELDS = ("influence", "prestige", "servants", "senators", "hand", "permanents",
                 "attached", "drawn", "vote", "guild_powers", "turn_effects", "tribute")
#: Game-wide fields serialized as they are.
_FIELDS = ("variant", "num_seats", "options", "seed", "card_set", "turn", "turns", "phase",
           "princeps", "families", "piles", "decks", "ciceron_deck", "ciceron", "ciceron_past",
           "triumvirat", "triumvirat_drawn", "legions", "legions_left", "spots", "primus",
           "secundus", "guilds", "discarded", "removed", "draft", "election", "frames", "ended")


def turns_for(num_seats: int) -> int:
    """5 turns with 2-4 families, 4 with 5."""
    return 4 if num_seats == 5 else 5


def servants_for(num_seats: int) -> int:
    """3 servants each with 2-3 families, 2 with 4-5."""
    return 3 if num_seats <= 3 else 2


class CiceronState(GameState):
    """A Cicéron position."""

    game = "ciceron"
    format_version = 1
    #: Cards drawn: a senator from a pile (Senate spots, the Automatii's reveal), an
    #: action card, the Cicéron card, the Triumvirat card of the turn, a white senator
    #: dealt for the draft (`white`: fix it before the deal, `new(..., chance=...)`).
    chance_kinds = ("senator", "action", "ciceron", "triumvirat", "white")

    cards: CardSet
    card_set: JSON
    turn: int
    turns: int
    phase: str
    princeps: int | None
    families: list[JSON]
    piles: dict[str, list[str]]
    decks: dict[str, list[str]]
    ciceron_deck: list[str]
    ciceron: str | None
    ciceron_past: list[str]
    triumvirat: list[str]
    triumvirat_drawn: str | None
    legions: dict[str, int]
    legions_left: int
    spots: dict[str, int | str | None]
    primus: dict[str, int | None]
    secundus: dict[str, int | None]
    guilds: dict[str, JSON]
    discarded: list[str]
    removed: list[str]
    draft: JSON
    election: JSON | None
    frames: list[JSON]
    ended: str | None
    rng: Rng

    # -- creation -------------------------------------------------------------------------
    @classmethod
    def new(cls, cards: CardSet, num_seats: int, options: JSON, seed: int,
            chance: dict[str, list[str]] | None = None) -> CiceronState:
        """A new game, at the opening draft. `chance` fixes outcomes (`fix_chance`) before
        anything is dealt, e.g. ``{"white": [...]}`` for the draft packet."""
        st = cls.setup(cards, num_seats, options, seed)
        for kind, outcomes in (chance or {}).items():
            st.fix_chance(kind, *outcomes)
        rules.begin_draft(st)
        st.advance()
        return st

    @classmethod
    def setup(cls, cards: CardSet, num_seats: int, options: JSON, seed: int) -> CiceronState:
        """The material laid out (boards, shuffled decks and piles), before the draft: no
        step is pending yet (`games.ciceron.position` starts positions from here)."""
        st = cls._blank(cards)
        st.variant, st.num_seats, st.options, st.seed = "standard", num_seats, dict(options), seed
        st.rng = Rng(derive_seed(seed, "ciceron"))
        st.card_set = {"name": cards.name, "digest": cards.digest}
        st.turn, st.turns, st.phase, st.princeps, st.ended = 0, turns_for(num_seats), "draft", \
            None, None
        st.families = [_new_family(cards, seat, num_seats) for seat in range(num_seats)]
        st._lay_out_decks()
        st.spots = dict.fromkeys(spot_names(cards))
        st.primus = dict.fromkeys(CASTES)
        st.secundus = dict.fromkeys(CASTES)
        st.guilds = {g: {"holder": None, "choice": None} for g in GUILDS}
        st.discarded, st.removed, st.election, st.frames = [], [], None, []
        st.legions = {p: 0 for p in cards.provinces}
        st.legions_left = cards.legions
        st.draft = {"packet": [], "order": [], "seen": []}
        st.emit("start", families=st.seat_names(), turns=st.turns,
                servants=servants_for(num_seats), card_set=cards.name)
        return st

    @classmethod
    def _blank(cls, cards: CardSet) -> CiceronState:
        st = cls.__new__(cls)
        st.cards, st.events = cards, []
        st._options, st._deciders = {}, ()
        return st

    def _lay_out_decks(self) -> None:
        cards = self.cards
        self.piles = {pile.id: [s.id for s in cards.senators if s.pile == pile.id]
                      for pile in cards.piles}
        for pile in self.piles.values():
            self.rng.shuffle(pile)
        self.decks = {caste: [a.id for a in cards.actions if a.caste == caste]
                      for caste in CASTES}
        for deck in self.decks.values():
            self.rng.shuffle(deck)
        self.ciceron_deck = [c.id for c in cards.ciceron]
        self.rng.shuffle(self.ciceron_deck)
        self.ciceron, self.ciceron_past = None, []
        self.triumvirat, self.triumvirat_drawn = [], None

    # -- engine API ----------------------------------------------------------------------
    def seat_names(self) -> list[str]:
        return [board.name for board in self.cards.families[: self.num_seats]]

    def to_move(self) -> tuple[int, ...]:
        return () if self.ended else self._deciders

    def legal_decisions(self, seat: int) -> list[Decision]:
        return list(self._options.get(seat, ()))

    def form_error(self, decision: Decision) -> str | None:
        return rules.form_error(decision)

    def canonical(self, decision: Decision) -> Decision:
        return rules.canonical(decision)

    def decision_seen_by(self, seat: int, decision: Decision) -> tuple[int, ...] | None:
        """A Princeps vote is secret until every vote is in (C1)."""
        return (seat,) if decision.verb == "vote" else None

    def _apply(self, seat: int, decision: Decision) -> list[Event]:
        self.events = []
        rules.apply(self, seat, decision)
        self.advance()
        return self.events

    def result(self) -> Result | None:
        return self._rank(self.ended) if self.ended else None

    def describe_pending(self) -> str:
        if self.ended:
            return "the game is over"
        frame = self.frames[-1]
        who = ", ".join(f"{self.name(s)} (seat {s})" for s in self._deciders)
        return f"{who} to {rules.prompt(self, frame)}"

    def turn_number(self) -> int:
        return int(self.turn)

    def chance_outcomes(self, kind: str) -> frozenset[str] | None:
        """The card ids each kind of chance may produce."""
        cards = self.cards
        found = {"senator": [s.id for s in cards.senators if s.pile != "white"],
                 "white": [s.id for s in cards.white_senators],
                 "action": [a.id for a in cards.actions],
                 "ciceron": [c.id for c in cards.ciceron],
                 "triumvirat": [t.id for t in cards.triumvirat]}.get(kind)
        return None if found is None else frozenset(found)

    # -- the rule-step driver ------------------------------------------------------------
    def advance(self) -> None:
        """Run automatic steps until some seat must decide (or the game ends)."""
        while self.frames:
            frame = self.frames[-1]
            if rules.run_auto(self, frame):
                continue
            options = rules.options(self, frame)
            if any(options.values()):
                self._options = options
                self._deciders = tuple(s for s in sorted(options) if options[s])
                return
            self.frames.pop()
        self._options, self._deciders = {}, ()

    # -- queries -------------------------------------------------------------------------
    def name(self, seat: int) -> str:
        return self.cards.families[seat].name

    def seat_of(self, name: str) -> int:
        return self.seat_names().index(name)

    def clockwise_from(self, seat: int) -> list[int]:
        """Every seat, starting with `seat`, in ascending order wrapping around (C12)."""
        return [(seat + i) % self.num_seats for i in range(self.num_seats)]

    def others_from(self, seat: int) -> list[int]:
        return self.clockwise_from(seat)[1:]

    def senate_votes(self, seat: int, caste: str | None = None) -> int:
        """Votes of the family's senators (of one caste), bribes included."""
        fam = self.families[seat]
        total = 0
        for sid in fam["senators"]:
            senator = self.cards.senator(sid)
            if caste is None or senator.caste == caste:
                total += senator.votes + rules.attached_votes(self, seat, sid)
        return total

    def guild_symbols(self, seat: int, guild: str) -> int:
        fam = self.families[seat]
        return sum(self.cards.senator(sid).guilds.get(guild, 0)
                   + rules.attached_guild(self, seat, sid, guild) for sid in fam["senators"])

    def caste_influence(self, seat: int, caste: str) -> int:
        """The X of an upper zone spot: the caste influence of all the family's senators."""
        return sum(self.cards.senator(sid).influences.get(caste, 0)
                   for sid in self.families[seat]["senators"])

    def cenacle_limit(self, seat: int) -> int:
        fam = self.families[seat]
        bonus = sum(self.cards.senator(sid).limit_bonus for sid in fam["senators"])
        return CENACLE_LIMIT + bonus + rules.permanent_amount(self, seat, "limit")

    # -- changes -------------------------------------------------------------------------
    def emit(self, kind: str, seats: tuple[int, ...] | None = None, **data: Any) -> None:
        self.events.append(Event(kind, data, seats))

    def gain_influence(self, seat: int, caste: str, amount: int) -> int:
        """Raise (or lower) an influence within 0..10; the change actually made."""
        influence: dict[str, int] = self.families[seat]["influence"]
        before = influence[caste]
        influence[caste] = max(0, min(INFLUENCE_MAX, before + amount))
        return influence[caste] - before

    def gain_prestige(self, seat: int, amount: int, why: str) -> None:
        self.families[seat]["prestige"] += amount
        self.emit("prestige", family=self.name(seat), amount=amount, why=why)

    def draw_action(self, seat: int, caste: str) -> str | None:
        """The top action card of a caste's deck into the family's hand (None: empty)."""
        deck = self.decks[caste]
        if not deck:
            return None
        card = self._take_fixed(deck, "action") or deck.pop()
        self.families[seat]["hand"].append(card)
        self.emit("draw-action", family=self.name(seat), caste=caste)
        self.emit("drawn-action", seats=(seat,), family=self.name(seat), card=card)
        return card

    def draw_senator(self, pile: str) -> str | None:
        deck = self.piles[pile]
        if not deck:
            return None
        return self._take_fixed(deck, "senator") or deck.pop()

    def _take_fixed(self, deck: list[str], kind: str) -> str | None:
        fixed = self.fixed_outcome(kind)
        if fixed is None:
            return None
        if fixed not in deck:
            raise ValueError(f"fixed draw: {fixed!r} is not in that deck")
        deck.remove(fixed)
        return fixed

    def finish(self) -> None:
        self.ended = "turns"
        self.frames.clear()
        self.emit("end", result=self._rank("turns").to_json())

    # -- result ---------------------------------------------------------------------------
    def _rank(self, reason: str) -> Result:
        """C11: most prestige wins; equal prestige is a shared place."""
        scores = tuple({"prestige": fam["prestige"]} for fam in self.families)
        return Result(rank_by([(fam["prestige"],) for fam in self.families]), scores, reason)

    # -- observation ----------------------------------------------------------------------
    def observation(self, seat: int | None) -> JSON:
        from games.ciceron.observation import observe
        return observe(self, seat)

    # -- serialization and copies --------------------------------------------------------
    def to_json(self) -> JSON:
        data = {name: getattr(self, name) for name in _FIELDS}
        data["rng"] = self.rng.state
        return data

    @classmethod
    def from_json(cls, data: JSON, cards: CardSet) -> CiceronState:
        if data["card_set"]["digest"] != cards.digest:
            raise ValueError(f"this game was played with card set {data['card_set']['name']!r} "
                             f"({data['card_set']['digest'][:12]}), not the loaded "
                             f"{cards.name!r} ({cards.digest[:12]})")
        st = cls._blank(cards)
        for name in _FIELDS:
            setattr(st, name, _deep_copy(data[name]))
        st.rng = Rng(data["rng"])
        st.advance()
        return st

    def clone(self) -> CiceronState:
        st = CiceronState._blank(self.cards)
        for name in _FIELDS:
            setattr(st, name, _deep_copy(getattr(self, name)))
        st.rng = Rng(self.rng.state)
        st._options, st._deciders = self._options, self._deciders
        self._copy_fixed_chance(st)
        return st

    def determinize(self, seat: int, seed: int) -> CiceronState:
        from games.ciceron.observation import resample_hidden
        st = self.clone()
        st._fixed_chance = None
        st.seed = 0  # the game seed would give the hidden part away
        resample_hidden(st, seat, Rng(derive_seed(seed, "determinize", self.turn)))
        st.advance()
        return st


def _new_family(cards: CardSet, seat: int, num_seats: int) -> JSON:
    board = cards.families[seat]
    return {
        "influence": {caste: board.influence.get(caste, 0) for caste in CASTES},
        "prestige": PRESTIGE_START, "servants": servants_for(num_seats),
        "senators": [], "hand": [], "permanents": [], "attached": {}, "drawn": [],
        "vote": None, "guild_powers": [], "turn_effects": [], "tribute": None,
    }


def _deep_copy(value: Any) -> Any:
    return json.loads(json.dumps(value))
