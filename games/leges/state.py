"""Leges' game state: the position, its queries, observation and serialization.

Clockwise is ascending seat. The first player is drawn at random (chance `first`) and
keeps the role all game. The rule steps live in `games.leges.rules`; this module holds the
position and what each seat may see of it (`games.leges.observation`).

Per player (`players[seat]`): `hand` (Theme cards, sorted; a face-down choice stays in
the hand until the reveal), `points` (colour -> points on the Score card), `laws`
(colour -> highest tier bought, 0 for none: the visible Law covers the lower ones),
`exposed` (Theme cards face up in front of the player this season, in play order),
`played` (this round's card(s)), `choice` (the face-down card of the pending choice,
"" for a declined ×2, None before choosing), `request` (the pending Law request,
"<colour> <tier>" or "none"), `drawn` (the 2 cards drawn at an exchange, before one is
discarded), `discarded` (the cards it discarded face up at its latest exchange).
"""

from __future__ import annotations

from typing import Any

from games.core import JSON, Decision, Event, GameState, Result, Rng, derive_seed, rank_by
from games.leges import rules
from games.leges.cardset import LAW_COUNTS, LAW_REMOVALS, CardSet

_FIELDS = ("variant", "num_seats", "options", "seed", "card_set", "first", "season",
           "seasons", "round", "values", "stacks", "players", "deck", "discard", "step",
           "law_requests", "ended")


class LegesState(GameState):
    """A Leges position."""

    game = "leges"
    format_version = 1
    #: `first`: the first player (outcome: the seat number); `theme`: a Theme card drawn
    #: from the deck (deal and exchange alike; outcome: the card id).
    chance_kinds = ("first", "theme")

    cards: CardSet
    colours: tuple[str, ...]
    card_set: JSON
    first: int
    season: int
    seasons: int
    round: int
    values: dict[str, int]
    stacks: dict[str, list[int]]
    players: list[JSON]
    deck: list[str]
    discard: list[str]
    step: JSON
    law_requests: list[str | None]
    ended: str | None
    rng: Rng
    _options: dict[int, list[Decision]]
    _deciders: tuple[int, ...]

    # -- creation -------------------------------------------------------------------------
    @classmethod
    def new(cls, cards: CardSet, num_seats: int, options: JSON, seed: int,
            chance: dict[str, list[str]] | None = None) -> LegesState:
        """A new game, waiting for the first Theme choice. `chance` fixes outcomes
        (`fix_chance`) before anything is drawn, e.g. ``{"first": ["2"]}``."""
        st = cls.setup(cards, num_seats, options, seed)
        for kind, outcomes in (chance or {}).items():
            st.fix_chance(kind, *outcomes)
        st.start()
        return st

    @classmethod
    def setup(cls, cards: CardSet, num_seats: int, options: JSON, seed: int) -> LegesState:
        """The material laid out (Law stacks, Value tokens, shuffled deck), before the
        first player is drawn and the hands dealt (`start`)."""
        st = cls._blank(cards)
        st.variant, st.num_seats, st.options, st.seed = "standard", num_seats, \
            dict(options), seed
        st.rng = Rng(derive_seed(seed, "leges"))
        st.card_set = {"name": cards.name, "digest": cards.digest}
        st.first, st.season, st.seasons, st.round = 0, 1, rules.seasons_for(num_seats), 1
        st.values = dict.fromkeys(st.colours, cards.track.start)
        removed = LAW_REMOVALS[num_seats]
        st.stacks = {c: [n - r for n, r in zip(LAW_COUNTS, removed, strict=True)]
                     for c in st.colours}
        st.players = [new_player(st.colours) for _ in range(num_seats)]
        st.deck = sorted(t.id for t in cards.themes)
        st.rng.shuffle(st.deck)
        st.discard, st.law_requests, st.ended = [], [None] * num_seats, None
        st.step = {"k": "setup"}
        return st

    def start(self) -> None:
        """Draw the first player, deal 5 Themes each from them clockwise, begin round 1."""
        fixed = self.fixed_outcome("first")
        self.first = int(fixed) if fixed is not None else self.rng.below(self.num_seats)
        self.emit("start", players=self.seat_names(), first=self.first,
                  seasons=self.seasons, card_set=self.cards.name)
        for seat in self.clockwise():
            self.deal(seat, rules.DEAL)
        rules.begin_round(self)
        self.advance()

    @classmethod
    def _blank(cls, cards: CardSet) -> LegesState:
        st = cls.__new__(cls)
        st.cards, st.colours, st.events = cards, cards.colour_ids, []
        st._options, st._deciders = {}, ()
        return st

    # -- engine API ----------------------------------------------------------------------
    def to_move(self) -> tuple[int, ...]:
        return self._deciders

    def legal_decisions(self, seat: int) -> list[Decision]:
        found = self._options.get(seat)
        return list(found) if found else []

    def form_error(self, decision: Decision) -> str | None:
        return rules.form_error(decision)

    def decision_seen_by(self, seat: int, decision: Decision) -> tuple[int, ...] | None:
        """Theme choices and Law requests are secret until revealed (L2, L7)."""
        return (seat,) if decision.verb in rules.SECRET_VERBS else None

    def _apply(self, seat: int, decision: Decision) -> list[Event]:
        self.events = []
        rules.apply(self, seat, decision)
        self.advance()
        return self.events

    def advance(self) -> None:
        """Run the automatic steps, then list who decides what."""
        rules.settle(self)
        options = rules.options(self)
        self._options = options
        self._deciders = tuple(sorted(options))

    def result(self) -> Result | None:
        return self._rank(self.ended) if self.ended else None

    def describe_pending(self) -> str:
        if self.ended:
            return "the game is over"
        who = ", ".join(f"seat {s}" for s in self._deciders)
        return f"{who} to {rules.prompt(self)}"

    def turn_number(self) -> int:
        return (self.season - 1) * rules.ROUNDS + self.round

    def chance_outcomes(self, kind: str) -> frozenset[str] | None:
        if kind == "first":
            return frozenset(str(s) for s in range(self.num_seats))
        if kind == "theme":
            return frozenset(t.id for t in self.cards.themes)
        return None

    # -- queries -------------------------------------------------------------------------
    def clockwise(self) -> list[int]:
        """Every seat from the first player, clockwise (ascending, wrapping around)."""
        n, first = self.num_seats, self.first
        return [(first + i) % n for i in range(n)]

    def vp(self, seat: int) -> int:
        """The VP of the seat's visible Laws (the highest tier of each colour)."""
        laws = self.players[seat]["laws"]
        return sum(self.cards.law_vp(c, laws[c]) for c in self.colours)

    def best_colour_vp(self, seat: int) -> int:
        laws = self.players[seat]["laws"]
        return max(self.cards.law_vp(c, laws[c]) for c in self.colours)

    # -- changes -------------------------------------------------------------------------
    def emit(self, kind: str, seats: tuple[int, ...] | None = None, **data: Any) -> None:
        self.events.append(Event(kind, data, seats))

    def draw_theme(self) -> str | None:
        """The top Theme card of the deck; an empty deck first takes the discards,
        shuffled (L11). None when both are empty."""
        if not self.deck:
            if not self.discard:
                return None
            self.deck, self.discard = self.discard, []
            self.deck.sort()
            self.rng.shuffle(self.deck)
            self.emit("reshuffle", count=len(self.deck))
        fixed = self.fixed_outcome("theme")
        if fixed is None:
            return self.deck.pop()
        if fixed not in self.deck:
            raise ValueError(f"fixed draw: Theme card {fixed!r} is not in the deck")
        self.deck.remove(fixed)
        return fixed

    def deal(self, seat: int, count: int) -> None:
        cards = [c for c in (self.draw_theme() for _ in range(max(0, count))) if c]
        player = self.players[seat]
        player["hand"] = sorted(player["hand"] + cards)
        self.emit("deal", seat=seat, count=len(cards))
        self.emit("dealt", seats=(seat,), seat=seat, cards=sorted(cards))

    def finish(self) -> None:
        self.ended = "seasons"
        self.step = {"k": "over"}
        self.emit("end", result=self._rank("seasons").to_json())

    # -- result ---------------------------------------------------------------------------
    def _rank(self, reason: str) -> Result:
        """Most VP of visible Laws; then most VP in one colour; still tied: shared (L12)."""
        keys = [(self.vp(s), self.best_colour_vp(s)) for s in range(self.num_seats)]
        scores = tuple({"vp": vp, "best_colour_vp": best} for vp, best in keys)
        return Result(rank_by(keys), scores, reason)

    # -- observation ----------------------------------------------------------------------
    def observation(self, seat: int | None) -> JSON:
        from games.leges.observation import observe
        return observe(self, seat)

    # -- serialization and copies --------------------------------------------------------
    def to_json(self) -> JSON:
        data = {name: getattr(self, name) for name in _FIELDS}
        data["rng"] = self.rng.state
        return data

    @classmethod
    def from_json(cls, data: JSON, cards: CardSet) -> LegesState:
        if data["card_set"]["digest"] != cards.digest:
            raise ValueError(f"this game was played with card set {data['card_set']['name']!r} "
                             f"({data['card_set']['digest'][:12]}), not the loaded "
                             f"{cards.name!r} ({cards.digest[:12]})")
        st = cls._blank(cards)
        st._copy_fields(data)
        st.rng = Rng(data["rng"])
        st.advance()
        return st

    def _copy_fields(self, data: JSON) -> None:
        self.variant, self.num_seats, self.seed = data["variant"], data["num_seats"], \
            data["seed"]
        self.options = dict(data["options"])
        self.card_set = dict(data["card_set"])
        self.first, self.season, self.seasons, self.round = data["first"], data["season"], \
            data["seasons"], data["round"]
        self.values = dict(data["values"])
        self.stacks = {c: list(v) for c, v in data["stacks"].items()}
        self.players = [copy_player(p) for p in data["players"]]
        self.deck, self.discard = list(data["deck"]), list(data["discard"])
        self.step = {k: list(v) if isinstance(v, list) else v for k, v in data["step"].items()}
        self.law_requests = list(data["law_requests"])
        self.ended = data["ended"]

    def clone(self) -> LegesState:
        st = LegesState._blank(self.cards)
        st._copy_fields(self.to_json())
        st.rng = Rng(self.rng.state)
        st._options, st._deciders = self._options, self._deciders
        self._copy_fixed_chance(st)
        return st

    def determinize(self, seat: int, seed: int) -> LegesState:
        from games.leges.observation import resample_hidden
        st = self.clone()
        st._fixed_chance = None
        st.seed = 0  # the game seed would give the hidden part away
        resample_hidden(st, seat, Rng(derive_seed(seed, "determinize", self.turn_number())))
        st.advance()
        return st


def new_player(colours: tuple[str, ...]) -> JSON:
    return {"hand": [], "points": dict.fromkeys(colours, 0), "laws": dict.fromkeys(colours, 0),
            "exposed": [], "played": [], "choice": None, "request": None, "drawn": [],
            "discarded": []}


def copy_player(player: JSON) -> JSON:
    return {"hand": list(player["hand"]), "points": dict(player["points"]),
            "laws": dict(player["laws"]), "exposed": list(player["exposed"]),
            "played": list(player["played"]), "choice": player["choice"],
            "request": player["request"], "drawn": list(player["drawn"]),
            "discarded": list(player["discarded"])}
