"""Guess: a two-player game of simultaneous secret choices from a private hand.

The proof that adding a game to Curia is local: this module is the whole game, its
registration included, and nothing generic knows it. Load it with
`CURIA_PLUGINS=tests.plugins.guess` (or `games.load_plugins("tests.plugins.guess")`).

Rules: nine cards 1..9 are shuffled; each player is dealt `rounds` of them, face down.
Each round both players choose a card at the same time (`play N`); once both have
chosen, the cards are revealed and the higher wins the round. Most rounds won wins.
"""

from __future__ import annotations

from typing import Any

from games.core import (
    JSON,
    Decision,
    Event,
    Game,
    GameState,
    OptionSpec,
    Result,
    Rng,
    VariantSpec,
    derive_seed,
    register_game,
)

CARDS = tuple(range(1, 10))
_FIELDS = ("variant", "num_seats", "options", "seed", "hands", "chosen", "won", "history")


class GuessState(GameState):
    game = "guess"
    chance_kinds = ("card",)

    hands: list[list[int]]
    chosen: list[int | None]
    won: list[int]
    history: list[list[int]]
    rng: Rng

    @classmethod
    def new(cls, options: JSON, seed: int) -> GuessState:
        st = cls._blank("standard", 2, options, seed)
        deck = list(CARDS)
        st.rng.shuffle(deck)
        fixed = [int(c) for c in iter(lambda: st.fixed_outcome("card"), None)]
        deck = fixed + [c for c in deck if c not in fixed]
        rounds = options["rounds"]
        st.hands = [sorted(deck[:rounds]), sorted(deck[rounds:2 * rounds])]
        st.events = [Event("start", {"rounds": rounds}),
                     *(Event("deal", {"hand": st.hands[s]}, seats=(s,)) for s in (0, 1))]
        return st

    @classmethod
    def _blank(cls, variant: str, seats: int, options: JSON, seed: int) -> GuessState:
        st = cls.__new__(cls)
        st.variant, st.num_seats, st.options, st.seed = variant, seats, dict(options), seed
        st.rng = Rng(derive_seed(seed, "guess"))
        st.chosen, st.won, st.history, st.events = [None, None], [0, 0], [], []
        return st

    def to_move(self) -> tuple[int, ...]:
        if not self.hands[0]:
            return ()
        return tuple(s for s in (0, 1) if self.chosen[s] is None)

    def legal_decisions(self, seat: int) -> list[Decision]:
        if seat not in self.to_move():
            return []
        return [Decision("play", (str(card),)) for card in self.hands[seat]]

    def decision_seen_by(self, seat: int, decision: Decision) -> tuple[int, ...] | None:
        return (seat,)  # a face-down card: the reveal event shows it

    def form_error(self, decision: Decision) -> str | None:
        if decision.verb != "play" or len(decision.args) != 1 or not decision.args[0].isdigit():
            return "decisions are 'play N'"
        return None

    def _apply(self, seat: int, decision: Decision) -> list[Event]:
        self.chosen[seat] = int(decision.args[0])
        self.events = [Event("chosen", {"seat": seat})]
        if None not in self.chosen:
            self._reveal()
        return self.events

    def _reveal(self) -> None:
        cards = [c for c in self.chosen if c is not None]
        for seat, card in enumerate(cards):
            self.hands[seat].remove(card)
        winner = 0 if cards[0] > cards[1] else 1 if cards[1] > cards[0] else None
        if winner is not None:
            self.won[winner] += 1
        self.history.append(cards)
        self.chosen = [None, None]
        self.events.append(Event("reveal", {"cards": cards, "winner": winner}))

    def observation(self, seat: int | None) -> JSON:
        return {
            "game": self.game, "variant": self.variant, "options": dict(self.options),
            "num_seats": 2, "seat": seat, "to_move": list(self.to_move()),
            "hand": list(self.hands[seat]) if seat is not None else None,
            "my_choice": self.chosen[seat] if seat is not None else None,
            "hand_sizes": [len(h) for h in self.hands],
            "has_chosen": [c is not None for c in self.chosen],
            "won": list(self.won), "history": [list(h) for h in self.history],
            "round": len(self.history) + 1,
        }

    def result(self) -> Result | None:
        if self.hands[0]:
            return None
        scores = tuple({"rounds_won": w} for w in self.won)
        if self.won[0] == self.won[1]:
            return Result(((0, 1),), scores, "all cards played")
        best = 0 if self.won[0] > self.won[1] else 1
        return Result(((best,), (1 - best,)), scores, "all cards played")

    def describe_pending(self) -> str:
        movers = self.to_move()
        return f"seat(s) {', '.join(map(str, movers))} to choose a card" if movers else "over"

    def turn_number(self) -> int:
        return len(self.history) + 1 if self.hands[0] else len(self.history)

    def to_json(self) -> JSON:
        return {**{name: getattr(self, name) for name in _FIELDS}, "rng": self.rng.state}

    @classmethod
    def from_json(cls, data: JSON) -> GuessState:
        st = cls._blank(data["variant"], data["num_seats"], data["options"], data["seed"])
        for name in _FIELDS:
            setattr(st, name, _copy(data[name]))
        st.rng = Rng(data["rng"])
        return st

    def clone(self) -> GuessState:
        st = GuessState.from_json(self.to_json())
        self._copy_fixed_chance(st)
        return st

    def determinize(self, seat: int, seed: int) -> GuessState:
        """The other hand and the other's secret choice are resampled from unseen cards;
        the RNG too (its state would give the deal away)."""
        st = self.clone()
        st._fixed_chance, st.seed = None, 0
        other = 1 - seat
        seen = {c for h in st.history for c in h} | set(st.hands[seat])
        unseen = [c for c in CARDS if c not in seen]
        rng = Rng(derive_seed(seed, "determinize", len(st.history)))
        st.rng = Rng(rng.next64())
        rng.shuffle(unseen)
        st.hands[other] = sorted(unseen[:len(st.hands[other])])
        if st.chosen[other] is not None:
            st.chosen[other] = st.hands[other][rng.below(len(st.hands[other]))]
        return st


def _copy(value: Any) -> Any:
    return [_copy(v) for v in value] if isinstance(value, list) else (
        dict(value) if isinstance(value, dict) else value)


class Guess(Game):
    name = "guess"
    title = "Guess"
    variants = (VariantSpec("standard", 2, 2, "nine cards, secret simultaneous choices"),)
    options = (OptionSpec("rounds", "cards dealt to each player (rounds)", 3, 1, 4),)
    simultaneous = True
    private_information = True
    seat_noun = "players"

    def new(self, variant: str, num_seats: int, options: JSON, seed: int) -> GuessState:
        return GuessState.new(options, seed)

    def load(self, data: JSON) -> GuessState:
        return GuessState.from_json(data)

    def from_observation(self, observation: JSON, seed: int) -> GuessState:
        seat = observation["seat"]
        st = GuessState._blank(observation["variant"], 2, observation["options"], 0)
        st.history = [list(h) for h in observation["history"]]
        st.won = list(observation["won"])
        st.hands = [[0] * size for size in observation["hand_sizes"]]
        st.chosen = [1 if chosen else None for chosen in observation["has_chosen"]]
        if seat is not None:
            st.hands[seat] = list(observation["hand"])
            st.chosen[seat] = observation["my_choice"]
        return st.determinize(0 if seat is None else seat, seed) if seat is not None else \
            _deal_unseen(st, seed)

    def describe_event(self, event: Event, decision: Decision | None) -> str | None:
        if event.kind == "reveal":
            cards, winner = event.data["cards"], event.data["winner"]
            who = "nobody" if winner is None else f"seat {winner}"
            return f"cards revealed: {cards[0]} against {cards[1]}; {who} wins the round"
        return None

    def describe_end(self, result: Result, options: JSON) -> str:
        return f"all {options['rounds']} rounds were played"


def _deal_unseen(st: GuessState, seed: int) -> GuessState:
    """A spectator's determinization: both hands (and choices) from the unseen cards."""
    unseen = [c for c in CARDS if c not in {c for h in st.history for c in h}]
    Rng(derive_seed(seed, "spectator")).shuffle(unseen)
    size = len(st.hands[0])
    st.hands = [sorted(unseen[:size]), sorted(unseen[size:2 * size])]
    st.chosen = [st.hands[s][0] if st.chosen[s] is not None else None for s in (0, 1)]
    return st


GAME = register_game(Guess())
