"""Municipium's game state: the position, its queries, observation and serialization."""

from __future__ import annotations

from typing import Any

from games.core import (
    JSON,
    Decision,
    Event,
    GameState,
    Result,
    Rng,
    SetupError,
    derive_seed,
)
from games.municipium import rules
from games.municipium.board import (
    BANNERS,
    COLOURS,
    COMMON_DECK,
    DEFAULT_OPTIONS,
    INSTITUTIONS,
    MEETING_ROOMS,
    OPTION_RANGES,
    PRAEFECT_START,
    VARIANTS,
    Variant,
    next_room,
)
from games.municipium.decisions import canonical, vocabulary_error
from games.municipium.pending import frames_from_public, public_steps

#: What each kind of chance may produce: a citizen's colour, a common card.
_CHANCE_OUTCOMES = {"citizen": frozenset(COLOURS), "card": frozenset(COMMON_DECK)}

#: Fields copied and serialized as they are (ints, strings, flat or nested int lists).
_FIELDS = (
    "variant", "num_seats", "options", "seed", "first", "turn", "active", "placed",
    "plain", "wreathed", "inst_citizens", "room_citizen", "room_favour", "praefect",
    "supply", "favours", "decurions", "bag", "favour_supply", "wreath_supply",
    "deck", "discard", "family_cards", "temple", "frames", "ended",
)


class MunicipiumState(GameState):
    """A Municipium position. Seat i plays the i-th family of its variant; seats go clockwise."""

    game = "municipium"
    format_version = 1
    #: A citizen drawn from the bag (a colour), a common card drawn from the deck (a card).
    chance_kinds = ("citizen", "card")

    first: int
    turn: int
    active: int
    placed: int
    ended: str | None
    rng: Rng
    events: list[Event]
    plain: list[list[int]]
    wreathed: list[list[int]]
    inst_citizens: list[list[int]]
    room_citizen: list[int | None]
    room_favour: list[bool]
    praefect: int
    supply: list[list[int]]
    favours: list[int]
    decurions: list[int]
    bag: list[int]
    favour_supply: int
    wreath_supply: int
    deck: list[str]
    discard: list[str]
    family_cards: list[list[str]]
    temple: list[int]
    frames: list[JSON]
    _options: list[Decision]
    _decider: int

    # -- creation -------------------------------------------------------------------------
    @classmethod
    def new(cls, variant: str = "classic", num_seats: int = 4,
            options: JSON | None = None, seed: int = 0) -> MunicipiumState:
        """Set up a new game: board, bag, cards, first player; setup placement begins."""
        rules_ = _variant(variant, num_seats)
        st = cls.__new__(cls)
        st.variant, st.num_seats, st.seed = variant, num_seats, int(seed)
        st.options = _options(options)
        st.rng = Rng(derive_seed(st.seed, "municipium"))
        st.events = []
        st._lay_out_board(rules_)
        st.first = st.rng.below(num_seats)
        st.turn, st.active, st.placed, st.ended = 0, st.first, 0, None
        st.temple = []
        st.frames = [{"k": "setup", "seat": st.first}]
        st.emit("start", variant=variant, families=list(st.names), first=st.names[st.first],
                meeting_rooms={INSTITUTIONS[i]: _colour_name(st.room_citizen[i])
                               for i in MEETING_ROOMS})
        st._advance()
        return st

    def _lay_out_board(self, rules_: Variant) -> None:
        n = self.num_seats
        self.plain = [[0] * 7 for _ in range(n)]
        self.wreathed = [[0] * 7 for _ in range(n)]
        self.inst_citizens = [[BANNERS[i]] for i in range(7)]  # M3
        self.bag = [rules_.citizens_per_colour - BANNERS.count(c) for c in range(4)]
        self.room_favour = [i in MEETING_ROOMS for i in range(7)]
        self.favour_supply = rules_.favours - len(MEETING_ROOMS)
        self.room_citizen = [None] * 7
        if rules_.meeting_room_citizens(n):
            for i in MEETING_ROOMS:
                self.room_citizen[i] = self.draw_citizen()
        self.praefect = PRAEFECT_START
        self.wreath_supply = rules_.wreaths
        self.supply = [[0] * 4 for _ in range(n)]
        self.favours = [0] * n
        self.decurions = [0] * n
        self.family_cards = [list(rules_.family_cards) for _ in range(n)]
        self.deck = list(COMMON_DECK)
        self.rng.shuffle(self.deck)
        self.discard = []

    # -- engine API ----------------------------------------------------------------------
    @property
    def rules(self) -> Variant:
        return VARIANTS[self.variant]

    @property
    def names(self) -> tuple[str, ...]:
        """The family colour of each seat (C-M1)."""
        return self.rules.families[: self.num_seats]

    def seat_names(self) -> list[str]:
        return list(self.names)

    def to_move(self) -> tuple[int, ...]:
        return () if self.ended else (self._decider,)

    def legal_decisions(self, seat: int) -> list[Decision]:
        if self.ended or seat != self._decider:
            return []
        return list(self._options)

    def form_error(self, decision: Decision) -> str | None:
        return vocabulary_error(decision)

    def _apply(self, seat: int, decision: Decision) -> list[Event]:
        self.events = []
        frame = self.frames[-1]
        rules.APPLY[frame["k"]](self, frame, decision)
        self._advance()
        return self.events

    def canonical(self, decision: Decision) -> Decision:
        """Keep and Exchange name unordered choices: written in the engine's order."""
        return canonical(decision)

    def turn_number(self) -> int:
        return self.turn

    def chance_outcomes(self, kind: str) -> frozenset[str] | None:
        return _CHANCE_OUTCOMES.get(kind)

    def result(self) -> Result | None:
        if not self.ended:
            return None
        return self._rank(self.ended)

    def describe_pending(self) -> str:
        if self.ended:
            return "the game is over"
        frame = self.frames[-1]
        return f"{self.names[self._decider]} (seat {self._decider}) to {rules.PROMPTS[frame['k']]}"

    # -- the rule-step driver ------------------------------------------------------------
    def _advance(self) -> None:
        """Run automatic steps until some seat must decide (or the game ends)."""
        frames = self.frames
        while frames:
            frame = frames[-1]
            auto = rules.AUTO.get(frame["k"])
            if auto is not None:
                auto(self, frame)
                continue
            options = rules.OPTIONS[frame["k"]](self, frame)
            if options:
                self._options = options
                self._decider = frame["seat"]
                return
            frames.pop()  # nothing can be done here: the step is skipped
        self._options, self._decider = [], -1

    # -- queries the rules use -----------------------------------------------------------
    def influence(self, seat: int, inst: int) -> int:
        """M4: members there, a distinguished member counting 2."""
        return self.plain[seat][inst] + 2 * self.wreathed[seat][inst]

    def members_at(self, seat: int, inst: int) -> int:
        return self.plain[seat][inst] + self.wreathed[seat][inst]

    def ranking_at(self, inst: int) -> list[int]:
        """M4: present families by influence, ties to the higher Temple disc."""
        present = [(-self.influence(s, inst), pos, s) for pos, s in enumerate(self.temple)
                   if self.plain[s][inst] or self.wreathed[s][inst]]
        present.sort()
        return [s for _, _, s in present]

    def majority(self, inst: int) -> int | None:
        ranking = self.ranking_at(inst)
        return ranking[0] if ranking else None

    # -- changes the rules make ----------------------------------------------------------
    def _name(self, seat: int | None) -> str | None:
        return None if seat is None else self.names[seat]

    def emit(self, kind: str, **data: Any) -> None:
        self.events.append(Event(kind, data))

    def move_member(self, seat: int, src: int, dst: int, wreathed: int) -> None:
        counts = self.wreathed[seat] if wreathed else self.plain[seat]
        counts[src] -= 1
        counts[dst] += 1

    def draw_citizen(self) -> int | None:
        """A random citizen from the bag, or None if it is empty (M8)."""
        total = self.bag[0] + self.bag[1] + self.bag[2] + self.bag[3]
        if not total:
            return None
        fixed = self.fixed_outcome("citizen")
        if fixed is not None:
            colour = COLOURS.index(fixed)
            if not self.bag[colour]:
                raise ValueError(f"fixed draw: no {fixed} left in the bag")
            self.bag[colour] -= 1
            return colour
        r = self.rng.below(total)
        for colour in range(4):
            r -= self.bag[colour]
            if r < 0:
                self.bag[colour] -= 1
                return colour
        raise AssertionError("unreachable")

    def draw_card(self) -> str:
        """The top common card; an empty deck is rebuilt from the discard pile (M9)."""
        if not self.deck:
            self.deck, self.discard = self.discard, []
            self.rng.shuffle(self.deck)
            self.emit("reshuffle", cards=len(self.deck))
        fixed = self.fixed_outcome("card")
        if fixed is not None:
            if fixed not in self.deck:
                raise ValueError(f"fixed draw: no {fixed} card left in the deck")
            self.deck.remove(fixed)
            return fixed
        return self.deck.pop()

    def exchange_sets(self, seat: int) -> None:
        """M7: every complete set (Favours wild, citizens first) becomes a Decurion."""
        supply = self.supply[seat]
        while True:
            missing = (not supply[0]) + (not supply[1]) + (not supply[2]) + (not supply[3])
            if missing > self.favours[seat]:
                return
            for colour in range(4):
                if supply[colour]:
                    supply[colour] -= 1
                    self.bag[colour] += 1
            self.favours[seat] -= missing
            self.favour_supply += missing
            self.decurions[seat] += 1
            self.emit("decurion", family=self.names[seat], favours_used=missing)

    def advance_praefect(self) -> None:
        """M2 / M6: the Praefect moves on and a Praefect event fires there."""
        inst = self.praefect = next_room(self.praefect)
        ranking = self.ranking_at(inst)
        favour_to = ranking[0] if ranking and self.room_favour[inst] else None
        citizen = self.room_citizen[inst]
        citizen_to = ranking[1] if len(ranking) > 1 and citizen is not None else None
        self.room_citizen[inst] = None
        self.emit("praefect", institution=INSTITUTIONS[inst],
                  favour=self._name(favour_to), citizen=_colour_name(citizen),
                  citizen_to=self._name(citizen_to))
        if favour_to is not None:
            self.room_favour[inst] = False
            self.favours[favour_to] += 1
            self.exchange_sets(favour_to)
        if citizen is not None and citizen_to is None:
            self.bag[citizen] += 1
        elif citizen is not None and citizen_to is not None:
            self.supply[citizen_to][citizen] += 1
            self.exchange_sets(citizen_to)
        self._refill_room(inst)

    def _refill_room(self, inst: int) -> None:
        if not self.room_favour[inst] and self.favour_supply:
            self.room_favour[inst] = True
            self.favour_supply -= 1
        if self.rules.meeting_room_citizens(self.num_seats):
            self.room_citizen[inst] = self.draw_citizen()

    def begin_turn(self, seat: int, turn: int) -> None:
        self.active, self.turn = seat, turn
        self.frames.append({"k": "end_turn"})
        self.frames.append({"k": "turn", "seat": seat, "moves": 0, "last": None})
        self.emit("turn", number=turn, family=self.names[seat])

    def finish(self, reason: str) -> None:
        self.ended = reason
        self.frames.clear()
        self.emit("end", reason=reason, result=self._rank(reason).to_json())

    # -- result --------------------------------------------------------------------------
    def score(self, seat: int) -> JSON:
        """The figures the end-of-game order uses, in tie-break order."""
        held = sum(self.supply[seat]) + self.favours[seat]
        return {"decurions": self.decurions[seat], "citizens_and_favours": held,
                "favours": self.favours[seat]}

    def _rank(self, reason: str) -> Result:
        """M14: most Decurions, then citizens+Favours, then (classic) most Favours."""
        def key(seat: int) -> tuple[int, ...]:
            s = self.score(seat)
            k = (s["decurions"], s["citizens_and_favours"])
            return (*k, s["favours"]) if self.rules.favours_break_ties else k

        groups: list[list[int]] = []
        for seat in sorted(range(self.num_seats), key=lambda s: (tuple(-v for v in key(s)), s)):
            if groups and key(groups[-1][0]) == key(seat):
                groups[-1].append(seat)
            else:
                groups.append([seat])
        return Result(tuple(tuple(g) for g in groups),
                      tuple(self.score(s) for s in range(self.num_seats)), reason)

    # -- observation (everything but the deck order and the RNG is public) ---------------
    def observation(self, seat: int | None) -> JSON:
        """The public position; `asked` / `agenda` are the pending steps (pending.py)."""
        n = self.num_seats
        asked, agenda = public_steps(self)
        return {
            "game": self.game, "variant": self.variant, "options": dict(self.options),
            "seat": seat, "num_seats": n, "families": list(self.names),
            "first": self.first, "turn": self.turn, "active": self.active,
            "to_move": list(self.to_move()), "pending": self.describe_pending(),
            "institutions": [self._institution_view(i) for i in range(7)],
            "praefect": INSTITUTIONS[self.praefect],
            "temple_order": [self.names[s] for s in self.temple],
            "supplies": [self._family_view(s) for s in range(n)],
            "bag": dict(zip(COLOURS, self.bag, strict=True)),
            "favour_supply": self.favour_supply, "wreath_supply": self.wreath_supply,
            "deck_size": len(self.deck), "discard": list(self.discard),
            "asked": asked, "agenda": agenda,
            "result": self._rank(self.ended).to_json() if self.ended else None,
        }

    def _institution_view(self, inst: int) -> JSON:
        return {
            "name": INSTITUTIONS[inst],
            "members": {self.names[s]: [self.plain[s][inst], self.wreathed[s][inst]]
                        for s in range(self.num_seats) if self.members_at(s, inst)},
            "citizens": [COLOURS[c] for c in self.inst_citizens[inst]],
            "room_citizen": _colour_name(self.room_citizen[inst]),
            "room_favour": self.room_favour[inst],
        }

    def _family_view(self, seat: int) -> JSON:
        return {
            "family": self.names[seat],
            "citizens": dict(zip(COLOURS, self.supply[seat], strict=True)),
            "favours": self.favours[seat], "decurions": self.decurions[seat],
            "family_cards": list(self.family_cards[seat]),
        }

    # -- serialization and copies --------------------------------------------------------
    def to_json(self) -> JSON:
        data = {name: getattr(self, name) for name in _FIELDS}
        data["rng"] = self.rng.state
        return data

    @classmethod
    def from_json(cls, data: JSON) -> MunicipiumState:
        st = cls.__new__(cls)
        for name in _FIELDS:
            setattr(st, name, _deep_copy(data[name]))
        st.rng = Rng(data["rng"])
        st.events = []
        st._advance()
        return st

    def clone(self) -> MunicipiumState:
        st = MunicipiumState.__new__(MunicipiumState)
        for name in _FIELDS:
            setattr(st, name, _deep_copy(getattr(self, name)))
        st.rng = Rng(self.rng.state)
        st.events = []
        st._options, st._decider = self._options, self._decider
        self._copy_fixed_chance(st)
        return st

    @classmethod
    def from_observation(cls, obs: JSON, seed: int) -> MunicipiumState:
        """A state consistent with an observation, hidden parts sampled from `seed`.

        What a bot that sees the game only through the service uses to search.
        """
        st = cls.__new__(cls)
        st.variant, st.num_seats, st.seed = obs["variant"], obs["num_seats"], 0
        st.options = dict(obs["options"])
        index = {name: i for i, name in enumerate(st.names)}
        st.first, st.turn, st.active = obs["first"], obs["turn"], obs["active"]
        st.ended = obs["result"]["reason"] if obs["result"] else None
        st._read_institutions(obs["institutions"], index)
        st.praefect = INSTITUTIONS.index(obs["praefect"])
        st.temple = [index[name] for name in obs["temple_order"]]
        st._read_supplies(obs["supplies"])
        st.bag = [obs["bag"][c] for c in COLOURS]
        st.favour_supply, st.wreath_supply = obs["favour_supply"], obs["wreath_supply"]
        st.discard = list(obs["discard"])
        st.frames = frames_from_public(obs["asked"], obs["agenda"], st.names)
        st.placed = sum(map(sum, st.plain)) if not st.turn else 7 * st.num_seats
        st.rng = Rng(derive_seed(seed, "from-observation"))
        in_play = st.discard + [f["card"] for f in st.frames if f["k"] == "discard"]
        st.deck = sorted(COMMON_DECK)
        for card in in_play:
            st.deck.remove(card)
        st.rng.shuffle(st.deck)
        st.events = []
        st._advance()
        return st

    def _read_institutions(self, views: list[JSON], index: dict[str, int]) -> None:
        n = self.num_seats
        self.plain = [[0] * 7 for _ in range(n)]
        self.wreathed = [[0] * 7 for _ in range(n)]
        for inst, view in enumerate(views):
            for name, (plain, wreathed) in view["members"].items():
                self.plain[index[name]][inst] = plain
                self.wreathed[index[name]][inst] = wreathed
        self.inst_citizens = [[COLOURS.index(c) for c in v["citizens"]] for v in views]
        self.room_citizen = [None if v["room_citizen"] is None else
                             COLOURS.index(v["room_citizen"]) for v in views]
        self.room_favour = [v["room_favour"] for v in views]

    def _read_supplies(self, supplies: list[JSON]) -> None:
        self.supply = [[s["citizens"][c] for c in COLOURS] for s in supplies]
        self.favours = [s["favours"] for s in supplies]
        self.decurions = [s["decurions"] for s in supplies]
        self.family_cards = [list(s["family_cards"]) for s in supplies]

    def determinize(self, seat: int, seed: int) -> MunicipiumState:
        """Hidden here: the deck order and the RNG (bag draws). Both are resampled."""
        st = self.clone()
        st._fixed_chance = None
        st.seed = 0  # the game seed would give the hidden part away
        st.rng = Rng(derive_seed(seed, "determinize", self.turn))
        st.deck.sort()  # forget the real order before resampling it
        st.rng.shuffle(st.deck)
        return st


def _variant(variant: str, num_seats: int) -> Variant:
    if variant not in VARIANTS:
        raise SetupError(f"unknown Municipium variant {variant!r}; "
                         f"variants: {', '.join(VARIANTS)}")
    rules_ = VARIANTS[variant]
    if not isinstance(num_seats, int) or not rules_.min_seats <= num_seats <= rules_.max_seats:
        raise SetupError(f"Municipium {variant} takes {rules_.min_seats}-{rules_.max_seats} "
                         f"families, not {num_seats!r}")
    return rules_


def _options(options: JSON | None) -> JSON:
    merged = dict(DEFAULT_OPTIONS)
    for name, value in (options or {}).items():
        if name not in DEFAULT_OPTIONS:
            raise SetupError(f"unknown option {name!r}; options: {', '.join(DEFAULT_OPTIONS)}")
        description, low, high = OPTION_RANGES[name]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise SetupError(f"option {name} must be an integer from {low} to {high} "
                             f"({description}), not {value!r}")
        merged[name] = value
    return merged


def _colour_name(colour: int | None) -> str | None:
    return None if colour is None else COLOURS[colour]


def _deep_copy(value: Any) -> Any:
    if isinstance(value, list):
        return [_deep_copy(v) for v in value]
    if isinstance(value, dict):
        return {k: _deep_copy(v) for k, v in value.items()}
    return value
