"""Hand-set Leges positions: the documented way for tests and bots into a position.

Build a position from what it looks like, fluently or from a description, and never by
writing the engine's fields:

    st = (Position(players=3, first=1)
          .at("choose", season=2, round=3)
          .hand(0, "pietas-01", "virtus-04")
          .hand(1, "libertas-11")
          .hand(2, "concordia-07", "pietas-12")
          .points(0, pietas=12, virtus=3)
          .laws(0, pietas=1)
          .values(pietas=13, virtus=(1, 2))
          .exposed(2, "virtus-08")
          .deck("pietas-05", "pietas-06")
          .draws("virtus-09")
          .build())
    play(st, "0: play pietas-01", "1: play libertas-11", "2: play concordia-07")

The same position described (`Position.from_description` takes the dict, and
`position_from_text` the TOML text; each key is the builder method of that name, tables
keyed by seat number):

    players = 3
    first = 1
    step = "choose"
    season = 2
    round = 3
    deck = ["pietas-05", "pietas-06"]
    draws = ["virtus-09"]

    [hand]
    0 = ["pietas-01", "virtus-04"]
    1 = ["libertas-11"]
    2 = ["concordia-07", "pietas-12"]
    [points.0]
    pietas = 12
    virtus = 3
    [laws.0]
    pietas = 1
    [values]
    pietas = 13
    virtus = { card = 1, space = 2 }
    [exposed]
    2 = ["virtus-08"]

Keys (whatever is not stated is empty, zero or at its setup default):

- `players` (2-5, default 3), `first` (the first player, default seat 0), `seed`
  (default 0: the game's seed, which shuffles what the position leaves to chance).
- `step`, `season`, `round`: where the position starts (`at`): `choose` (the start of a
  round: every seat holding cards chooses a Theme face down), `laws` (the Law buying of
  the round, after scoring: `played` names the cards scored this round), `exchange` (the
  Theme exchanges of the round, from the first player). Default `choose`, season 1,
  round 1.
- Per seat, tables keyed by seat number: `hand` (Theme cards), `points` (colour -> points
  on the Score card), `laws` (colour -> highest tier bought, 0-4), `exposed` (Theme cards
  face up in front of the player this season, oldest first), `played` (the last 1 or 2 of
  `exposed`: this round's cards, for a start at `laws` or `exchange`).
- `values`: colour -> the token's space, a number along the whole track (0-based) or
  `{ card = 1..5, space = 1.. }` (a Value card and its space, both 1-based).
- `stacks`: colour -> Laws left per tier `[t1, t2, t3, t4]` (default: the stacks after
  the removals for the player count, L1).
- `deck`: these Theme cards on top of the deck, the first named drawn first; the cards
  no one holds lie below them, shuffled by the seed. `exact_deck = true`: the deck holds
  exactly these; the cards no one holds then lie in the discard pile, below `discard`.
- `discard`: the discard pile, oldest first.
- `draws`: the next Theme cards drawn, whatever the deck order (`fix_chance("theme",
  ...)`, kept by `clone`, not by `to_bytes` / `determinize`); each must be in the deck
  when drawn.

A card may be in one place only. A bad name or number raises ValueError naming the key
and the value. `build()` returns the state waiting for its first decision.

Driving a position: `play` (decisions by text, `"<seat>: text"` for a given seat, or the
text alone when one seat is asked). Queries: `legal`, `movers`, `step`, `of_kind`,
`cards_where` / `card_where` (Theme cards by properties).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from typing import Any

from games.core import Event
from games.leges import rules
from games.leges.cardset import LAW_REMOVALS, TIERS, CardSet, Theme, load_default_card_set
from games.leges.state import LegesState

#: Where a position may start.
STEPS = ("choose", "laws", "exchange")
_SEAT_TABLES = ("hand", "points", "laws", "exposed", "played")
_SCALARS: dict[str, type] = {"players": int, "first": int, "seed": int, "step": str,
                             "season": int, "round": int, "exact_deck": bool}
_LISTS = ("deck", "discard", "draws")
_TABLES = ("values", "stacks")
_KEYS = (*_SCALARS, *_SEAT_TABLES, *_LISTS, *_TABLES)


class Position:
    """A builder of hand-set Leges positions; every method but `build` returns it."""

    def __init__(self, players: int = 3, *, first: int = 0, seed: int = 0,
                 cards: CardSet | None = None) -> None:
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 5:
            raise ValueError(f"players must be 2 to 5, not {players!r}")
        self.cards = cards or load_default_card_set()
        self.num_seats, self.seed = players, seed
        self.first = self._seat(first, "first")
        self._step, self._season, self._round = "choose", 1, 1
        self._hands: dict[int, list[str]] = {}
        self._exposed: dict[int, list[str]] = {}
        self._played: dict[int, list[str]] = {}
        self._points: dict[int, dict[str, int]] = {}
        self._laws: dict[int, dict[str, int]] = {}
        self._values: dict[str, int] = {}
        self._stacks: dict[str, list[int]] = {}
        self._deck: list[str] = []
        self._exact_deck = False
        self._discard: list[str] = []
        self._draws: list[str] = []

    # -- the description ---------------------------------------------------------------
    @classmethod
    def from_description(cls, data: Mapping[str, Any],
                         cards: CardSet | None = None) -> Position:
        """A builder from a description (a dict, as TOML reads it; see the module
        docstring). ValueError names a bad key or value."""
        for key in data:
            if key not in _KEYS:
                raise ValueError(f"the position description: unknown key {key!r}; keys: "
                                 f"{', '.join(_KEYS)}")
        got = {k: _typed(data[k], t, k) for k, t in _SCALARS.items() if k in data}
        pos = cls(got.get("players", 3), first=got.get("first", 0), seed=got.get("seed", 0),
                  cards=cards)
        if {"step", "season", "round"} & set(got):
            pos.at(got.get("step", "choose"), season=got.get("season", 1),
                   round=got.get("round", 1))
        for key in ("hand", "exposed", "played"):
            for seat, cards_ in _table(data, key).items():
                getattr(pos, key)(_seat_key(seat, key), *_strings(cards_, f"{key}.{seat}"))
        for key in ("points", "laws"):
            for seat, counts in _table(data, key).items():
                getattr(pos, key)(_seat_key(seat, key), **_table(counts, f"{key}.{seat}"))
        pos.values(**_table(data, "values"))
        pos.stacks(**_table(data, "stacks"))
        if "deck" in data:
            pos.deck(*_strings(data["deck"], "deck"), exact=got.get("exact_deck", False))
        if "discard" in data:
            pos.discard(*_strings(data["discard"], "discard"))
        if "draws" in data:
            pos.draws(*_strings(data["draws"], "draws"))
        return pos

    # -- the fluent form ---------------------------------------------------------------
    def at(self, step: str, *, season: int = 1, round: int = 1) -> Position:
        """Start at `step` (choose | laws | exchange) of `round` (1-3) of `season`."""
        if step not in STEPS:
            raise ValueError(f"step: unknown step {step!r}; steps: {', '.join(STEPS)}")
        seasons = rules.seasons_for(self.num_seats)
        if isinstance(season, bool) or not isinstance(season, int) \
                or not 1 <= season <= seasons:
            raise ValueError(f"season must be 1 to {seasons}, not {season!r}")
        if isinstance(round, bool) or not isinstance(round, int) \
                or not 1 <= round <= rules.ROUNDS:
            raise ValueError(f"round must be 1 to {rules.ROUNDS}, not {round!r}")
        self._step, self._season, self._round = step, season, round
        return self

    def hand(self, seat: int, *cards: str) -> Position:
        self._hands[self._seat(seat, "hand")] = list(cards)
        return self

    def exposed(self, seat: int, *cards: str) -> Position:
        """Theme cards face up in front of the seat this season, oldest first."""
        self._exposed[self._seat(seat, "exposed")] = list(cards)
        return self

    def played(self, seat: int, *cards: str) -> Position:
        """This round's card(s): the last of `exposed` (added there if not named)."""
        self._played[self._seat(seat, "played")] = list(cards)
        return self

    def points(self, seat: int, **colours: int) -> Position:
        self._points.setdefault(self._seat(seat, "points"), {}).update(colours)
        return self

    def laws(self, seat: int, **colours: int) -> Position:
        """The highest Law tier bought per colour (0-4)."""
        self._laws.setdefault(self._seat(seat, "laws"), {}).update(colours)
        return self

    def values(self, **colours: Any) -> Position:
        """Token spaces: a track space (0-based), `(card, space)` or `{card=, space=}`."""
        for colour, where in colours.items():
            self._colour(colour, "values")
            self._values[colour] = self._space(where, f"values.{colour}")
        return self

    def stacks(self, **colours: list[int]) -> Position:
        for colour, counts in colours.items():
            self._colour(colour, "stacks")
            if not isinstance(counts, list | tuple) or len(counts) != TIERS or not all(
                    isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 4
                    for n in counts):
                raise ValueError(f"stacks.{colour}: must be {TIERS} counts 0-4, "
                                 f"not {counts!r}")
            self._stacks[colour] = list(counts)
        return self

    def deck(self, *top: str, exact: bool = False) -> Position:
        """These cards on top of the deck, the first drawn first; `exact`: only these."""
        self._deck, self._exact_deck = list(top), exact
        return self

    def discard(self, *cards: str) -> Position:
        self._discard = list(cards)
        return self

    def draws(self, *cards: str) -> Position:
        """The next Theme cards drawn (after any already given)."""
        self._draws += cards
        return self

    # -- building ----------------------------------------------------------------------
    def build(self) -> LegesState:
        """The position, waiting for its first decision (see the module docstring)."""
        st = LegesState.setup(self.cards, self.num_seats, {}, self.seed)
        st.first, st.season, st.round = self.first, self._season, self._round
        used: dict[str, str] = {}
        for seat in range(self.num_seats):
            player = st.players[seat]
            player["hand"] = sorted(self._cards(self._hands.get(seat, []), f"hand.{seat}", used))
            exposed = self._cards(self._exposed.get(seat, []), f"exposed.{seat}", used)
            played = self._played.get(seat, [])
            for card in played:
                if card not in exposed:
                    exposed += self._cards([card], f"played.{seat}", used)
            if played and exposed[-len(played):] != played or len(played) > 2:
                raise ValueError(f"played.{seat}: must be the last 1 or 2 cards of exposed, "
                                 f"not {played!r}")
            player["exposed"], player["played"] = exposed, list(played)
            player["points"].update(self._points_of(seat))
            player["laws"].update(self._laws_of(seat))
        st.values.update(self._values)
        st.stacks.update({c: list(n) for c, n in self._stacks.items()})
        self._lay_out(st, used)
        if self._draws:
            for card in self._draws:
                self._theme(card, "draws")
            st.fix_chance("theme", *self._draws)
        st.events = []
        if self._step == "choose":
            rules.begin_round(st)
        elif self._step == "laws":
            rules.begin_laws(st)
        else:
            st.step = {"k": "exchange", "queue": st.clockwise()}
        st.advance()
        return st

    def _lay_out(self, st: LegesState, used: dict[str, str]) -> None:
        top = self._cards(self._deck, "deck", used)
        discard = self._cards(self._discard, "discard", used)
        rest = sorted(t.id for t in self.cards.themes if t.id not in used)
        st.rng.shuffle(rest)
        if self._exact_deck:
            st.deck, st.discard = list(reversed(top)), rest + discard
        else:
            st.deck, st.discard = rest + list(reversed(top)), discard

    # -- checks --------------------------------------------------------------------------
    def _seat(self, seat: Any, where: str) -> int:
        if isinstance(seat, bool) or not isinstance(seat, int) \
                or not 0 <= seat < self.num_seats:
            raise ValueError(f"{where}: no seat {seat!r} among the {self.num_seats} players "
                             f"(seats 0-{self.num_seats - 1})")
        return seat

    def _colour(self, colour: Any, where: str) -> str:
        if colour not in self.cards.colour_ids:
            raise ValueError(f"{where}: unknown colour {colour!r}; colours: "
                             f"{', '.join(self.cards.colour_ids)}")
        return str(colour)

    def _theme(self, card: Any, where: str) -> Theme:
        if not isinstance(card, str) or not self.cards.has_theme(card):
            raise ValueError(f"{where}: unknown Theme card {card!r}")
        return self.cards.theme(card)

    def _cards(self, cards: list[str], where: str, used: dict[str, str]) -> list[str]:
        for card in cards:
            self._theme(card, where)
            if card in used:
                raise ValueError(f"{where}: Theme card {card!r} is already in {used[card]}")
            used[card] = where
        return list(cards)

    def _space(self, where: Any, name: str) -> int:
        track = self.cards.track
        if isinstance(where, Mapping):
            if set(where) != {"card", "space"}:
                raise ValueError(f"{name}: write {{ card = 1..5, space = 1.. }}, not {where!r}")
            where = (where["card"], where["space"])
        if isinstance(where, tuple | list):
            card, space = where
            if not isinstance(card, int) or not 1 <= card <= len(track.spaces) or \
                    not isinstance(space, int) or not 1 <= space <= track.spaces[card - 1]:
                raise ValueError(f"{name}: no space {space!r} on Value card {card!r}")
            return track.first_space(card) + space - 1
        if isinstance(where, bool) or not isinstance(where, int) \
                or not 0 <= where < track.length:
            raise ValueError(f"{name}: a track space is 0 to {track.length - 1}, not {where!r}")
        return where

    def _points_of(self, seat: int) -> dict[str, int]:
        out = {}
        for colour, n in self._points.get(seat, {}).items():
            self._colour(colour, f"points.{seat}")
            if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise ValueError(f"points.{seat}.{colour}: must be a whole number >= 0, "
                                 f"not {n!r}")
            out[colour] = n
        return out

    def _laws_of(self, seat: int) -> dict[str, int]:
        out = {}
        for colour, tier in self._laws.get(seat, {}).items():
            self._colour(colour, f"laws.{seat}")
            if isinstance(tier, bool) or not isinstance(tier, int) or not 0 <= tier <= TIERS:
                raise ValueError(f"laws.{seat}.{colour}: a tier is 0 to {TIERS}, not {tier!r}")
            out[colour] = tier
        return out


def position_from_text(text: str, cards: CardSet | None = None) -> Position:
    """A builder from the TOML text of a description."""
    return Position.from_description(tomllib.loads(text), cards)


def default_stacks(players: int) -> list[int]:
    """A colour's Law stack per tier after the removals for `players` (L1)."""
    return [n - r for n, r in zip((4, 3, 2, 1), LAW_REMOVALS[players], strict=True)]


# -- reading descriptions ------------------------------------------------------------------
def _typed(value: Any, kind: type, where: str) -> Any:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ValueError(f"{where}: must be {kind.__name__}, not {value!r}")
    return value


def _table(data: Any, key: str) -> dict[str, Any]:
    value = data.get(key, {}) if isinstance(data, Mapping) and key in _KEYS else data
    if not isinstance(value, Mapping):
        raise ValueError(f"{key}: must be a table, not {value!r}")
    return dict(value)


def _strings(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{where}: must be a list of card ids, not {value!r}")
    return list(value)


def _seat_key(key: Any, where: str) -> int:
    try:
        return int(key)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: tables are keyed by seat number, not {key!r}") from None


# -- driving and querying a position --------------------------------------------------------
def play(st: LegesState, *texts: str) -> list[Event]:
    """Apply decisions by text (validated): `"<seat>: text"`, or `text` when exactly one
    seat is asked. Returns every event of the decisions, in order."""
    events: list[Event] = []
    for text in texts:
        seat_text, sep, decision = text.partition(":")
        if sep and seat_text.strip().isdigit():
            seat = int(seat_text)
        else:
            decision = text
            movers_ = st.to_move()
            if len(movers_) != 1:
                raise ValueError(f"{text!r}: name the seat ('<seat>: {text}'); seats "
                                 f"{list(movers_)} are asked")
            seat = movers_[0]
        events += st.apply(seat, decision.strip())
    return events


def legal(st: LegesState, seat: int | None = None) -> list[str]:
    """The decisions of `seat` (default: the one seat asked) as text."""
    if seat is None:
        asked = st.to_move()
        if len(asked) != 1:
            raise ValueError(f"name the seat: seats {list(asked)} are asked")
        seat = asked[0]
    return [str(d) for d in st.legal_decisions(seat)]


def movers(st: LegesState) -> list[int]:
    return list(st.to_move())


def step(st: LegesState) -> str:
    """The kind of step asked now (choose, ability, laws, exchange, over)."""
    return str(st.step["k"])


def of_kind(events: list[Event], kind: str) -> list[dict[str, Any]]:
    return [dict(e.data) for e in events if e.kind == kind]


def cards_where(cards: CardSet | None = None, **props: Any) -> list[str]:
    """Theme card ids whose properties match: `colour`, `points`, `ability` (a kind, or
    None), `bonus_colour`, `whose`, `amount`, `shift` (a dict, exactly)."""
    cards = cards or load_default_card_set()
    found = []
    for theme in cards.themes:
        ability = theme.ability
        facts: dict[str, Any] = {
            "colour": theme.colour, "points": theme.points, "shift": dict(theme.shift),
            "ability": ability.kind if ability else None,
            "bonus_colour": ability.colour if ability and ability.kind == "bonus" else None,
            "whose": ability.whose if ability and ability.kind == "bonus" else None,
            "amount": ability.amount if ability and ability.kind == "shift" else None,
        }
        for key in props:
            if key not in facts:
                raise ValueError(f"cards_where: unknown property {key!r}; properties: "
                                 f"{', '.join(facts)}")
        if all(facts[k] == v for k, v in props.items()):
            found.append(theme.id)
    return found


def card_where(cards: CardSet | None = None, **props: Any) -> str:
    """The first Theme card whose properties match (ValueError if none)."""
    found = cards_where(cards, **props)
    if not found:
        raise ValueError(f"no Theme card has {props}")
    return found[0]
