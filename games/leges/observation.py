"""What each seat may see of a Leges game, and how its hidden part is resampled.

Public: the Value tokens, the Law stacks, every player's points per colour and Laws, the
Theme cards face up in front of each player this season (and which were played this
round), the discard pile (face up), how many cards are in the deck and in each hand,
who has chosen a card or requested a Law (not what), the Law requests once revealed,
the step asked now.
Private to one seat (L5): its hand, its face-down choice, its Law request, the 2 cards it
drew at an exchange. Hidden from everyone: the deck order.

The observation (`observe(state, seat)`; `seat` None: a spectator), JSON-ready:

- `game`, `variant`, `options`, `seat`, `num_seats`, `players` (seat names),
  `card_set` (`name`, `digest`), `colours` (colour ids, in track order);
- `first_player` (seat), `season`, `seasons`, `round` (1..3), `rounds` (3),
  `to_move` (seats), `pending` (a sentence);
- `values`: colour -> {`space` (0-based along the track), `card` (Value card 1..5),
  `bonus` (its bonus/malus)};
- `law_stacks`: colour -> Laws left per tier [tier 1, 2, 3, 4];
- `deck` (cards left), `discard` (the discard pile, oldest first);
- `boards`: per seat {`seat`, `points` (colour -> n), `laws` (colour -> highest tier
  bought, 0: none), `vp`, `exposed` (face-up Themes this season), `played` (this round's),
  `hand_size`, `hand` (own seat only, else null), `chosen` (a face-down card or ×2 refusal
  is in), `choice` (own only: the card, "hold", or null), `requested`, `request` (own
  only: "<colour> <tier>" or "none"), `drawn_count`, `drawn` (own only), `discarded`
  (the cards it discarded face up at its latest exchange)};
- `law_requests`: per seat the request revealed at the latest Law buying, kept until the
  next one ("<colour> <tier>", "none", or null: not asked), all null before the first
  and while one is under way;
- `asked`: the step asked now, {`step`: choose | ability | laws | exchange | over, and its
  fields: `pass` (1, or 2 for the ×2 repeat), `seats` (asked at once), `queue` (asked in
  turn, next first)}; `agenda`: the steps still to come this round, next first;
- `result`: the result once over, else null.

`resample_hidden(state, seat, rng)` redraws, in place, exactly what `seat` cannot see;
`state_from_observation` rebuilds a whole state from one observation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from games.core import JSON, Rng, derive_seed
from games.leges import rules
from games.leges.cardset import CardSet
from games.leges.state import new_player

if TYPE_CHECKING:
    from games.leges.state import LegesState

_ROUND_STEPS = ("choose", "reveal", "ability", "score", "laws", "exchange")


def observe(st: LegesState, seat: int | None) -> JSON:
    track = st.cards.track
    result = st.result()
    return {
        "game": st.game, "variant": st.variant, "options": dict(st.options),
        "seat": seat, "num_seats": st.num_seats, "players": st.seat_names(),
        "card_set": dict(st.card_set), "colours": list(st.colours),
        "first_player": st.first, "season": st.season, "seasons": st.seasons,
        "round": st.round, "rounds": rules.ROUNDS,
        "to_move": list(st.to_move()), "pending": st.describe_pending(),
        "values": {c: {"space": space, "card": track.card_at(space),
                       "bonus": st.cards.value_bonus(space)} for c, space in st.values.items()},
        "law_stacks": {c: list(n) for c, n in st.stacks.items()},
        "deck": len(st.deck), "discard": list(st.discard),
        "boards": [board_view(st, s, seat) for s in range(st.num_seats)],
        "law_requests": list(st.law_requests),
        "asked": public_step(st.step), "agenda": agenda(st),
        "result": result.to_json() if result is not None else None,
    }


def board_view(st: LegesState, seat: int, viewer: int | None) -> JSON:
    player = st.players[seat]
    mine = viewer == seat
    choice = player["choice"]
    return {
        "seat": seat, "points": dict(player["points"]), "laws": dict(player["laws"]),
        "vp": st.vp(seat), "exposed": list(player["exposed"]),
        "played": list(player["played"]),
        "hand_size": len(player["hand"]),
        "hand": list(player["hand"]) if mine else None,
        "chosen": choice is not None,
        "choice": (("hold" if choice == rules.HOLD else choice) if mine else None),
        "requested": player["request"] is not None,
        "request": player["request"] if mine else None,
        "drawn_count": len(player["drawn"]),
        "drawn": list(player["drawn"]) if mine else None,
        "discarded": list(player["discarded"]),
    }


def public_step(step: JSON) -> JSON:
    out: JSON = {"step": step["k"]}
    for key, value in step.items():
        if key != "k":
            out[key] = list(value) if isinstance(value, list) else value
    return out


def step_of(public: JSON) -> JSON:
    """The engine's step for a public one (the inverse of `public_step`)."""
    step: JSON = {"k": public["step"]}
    for key, value in public.items():
        if key != "step":
            step[key] = list(value) if isinstance(value, list) else value
    return step


def agenda(st: LegesState) -> list[str]:
    kind = st.step["k"]
    if kind not in _ROUND_STEPS:
        return []
    rest = list(_ROUND_STEPS[_ROUND_STEPS.index(kind) + 1:])
    if kind in ("choose", "ability") and st.step["pass"] == 1:
        rest.insert(rest.index("score"), "double")
    last = st.round == rules.ROUNDS
    rest.append("end-of-game" if last and st.season == st.seasons
                else "end-of-season" if last else "end-of-round")
    return rest


# ---------------------------------------------------------------------------------------
# What a seat cannot see, resampled
# ---------------------------------------------------------------------------------------
def resample_hidden(st: LegesState, viewer: int | None, rng: Rng) -> None:
    """Redraw, in place, the hidden part of `st` as `viewer` (None: a spectator) sees it:
    the deck order, other hands, their drawn cards, face-down choices and Law requests."""
    others = [s for s in range(st.num_seats) if s != viewer]
    pool = list(st.deck)
    for seat in others:
        player = st.players[seat]
        pool += player["hand"] + player["drawn"]
    pool.sort()
    rng.shuffle(pool)
    second = st.step["k"] == "choose" and st.step["pass"] == 2
    for seat in others:
        player = st.players[seat]
        player["drawn"] = sorted(pool.pop() for _ in player["drawn"])
        player["hand"] = sorted(pool.pop() for _ in player["hand"])
        if player["choice"] is not None:
            player["choice"] = _any_choice(player["hand"], second, rng)
        if player["request"] is not None:
            player["request"] = _any_request(st, seat, rng)
    st.deck = pool
    st.rng = Rng(rng.next64())


def _any_choice(hand: list[str], second: bool, rng: Rng) -> str:
    choices = [*hand, rules.HOLD] if second else hand
    return choices[rng.below(len(choices))]


def _any_request(st: LegesState, seat: int, rng: Rng) -> str:
    found = rules.law_options(st, seat)
    decision = found[rng.below(len(found))]
    return "none" if decision.verb == "nolaw" else " ".join(decision.args)


# ---------------------------------------------------------------------------------------
# A whole state from one observation
# ---------------------------------------------------------------------------------------
def state_from_observation(cls: type[LegesState], cards: CardSet, obs: JSON,
                           seed: int) -> LegesState:
    """A state consistent with `obs`, its hidden parts sampled from `seed`."""
    if obs["card_set"]["digest"] != cards.digest:
        raise ValueError("the observation is of a game played with another card set "
                         f"({obs['card_set']['name']!r})")
    st = cls._blank(cards)
    viewer = obs["seat"]
    st.variant, st.num_seats, st.options, st.seed = obs["variant"], obs["num_seats"], \
        dict(obs["options"]), 0
    st.card_set = dict(obs["card_set"])
    st.first, st.season, st.seasons, st.round = obs["first_player"], obs["season"], \
        obs["seasons"], obs["round"]
    st.values = {c: v["space"] for c, v in obs["values"].items()}
    st.stacks = {c: list(n) for c, n in obs["law_stacks"].items()}
    st.discard = list(obs["discard"])
    st.law_requests = list(obs["law_requests"])
    st.step = step_of(obs["asked"])
    st.ended = obs["result"]["reason"] if obs["result"] else None
    st.players = []
    seen = set(st.discard)
    for board in obs["boards"]:
        player = new_player(st.colours)
        player.update(points=dict(board["points"]), laws=dict(board["laws"]),
                      exposed=list(board["exposed"]), played=list(board["played"]),
                      discarded=list(board["discarded"]))
        seen.update(player["exposed"])
        if board["seat"] == viewer:
            player["hand"] = list(board["hand"])
            player["drawn"] = list(board["drawn"])
            choice = board["choice"]
            player["choice"] = rules.HOLD if choice == "hold" else choice
            player["request"] = board["request"]
            seen.update(player["hand"], player["drawn"])
        st.players.append(player)
    rng = Rng(derive_seed(seed, "from-observation"))
    pool = sorted(t.id for t in cards.themes if t.id not in seen)
    rng.shuffle(pool)
    second = st.step["k"] == "choose" and st.step.get("pass") == 2
    for board in obs["boards"]:
        seat = board["seat"]
        if seat == viewer:
            continue
        player = st.players[seat]
        player["drawn"] = sorted(pool.pop() for _ in range(board["drawn_count"]))
        player["hand"] = sorted(pool.pop() for _ in range(board["hand_size"]))
        if board["chosen"]:
            player["choice"] = _any_choice(player["hand"], second, rng)
        if board["requested"]:
            player["request"] = _any_request(st, seat, rng)
    if len(pool) != obs["deck"]:
        raise ValueError(f"the observation does not add up: {len(pool)} Theme cards unseen, "
                         f"but the deck holds {obs['deck']}")
    st.deck = pool
    st.rng = Rng(rng.next64())
    st.events = []
    st.advance()
    return st
