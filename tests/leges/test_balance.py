"""Ruling L4: the stand-in set's balance, checked by simulation. A simple greedy player
(best immediate points, next Law with the most VP gained) against itself: no seat
position is favoured much, colours are bought alike, the Law tiers are all reached, and
greedy play beats random play (the cards reward choices)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

from games.core import Decision
from games.leges.cardset import load_default_card_set
from games.leges.state import LegesState

CARDS = load_default_card_set()
Policy = Callable[[LegesState, int, random.Random], Decision]


def card_value(st: LegesState, seat: int, card: str) -> float:
    theme = st.cards.theme(card)
    player = st.players[seat]
    value: float = theme.points
    ability = theme.ability
    if ability is not None and ability.kind == "bonus":
        boards = st.players if ability.whose == "all" else [player]
        value += ability.points * sum(st.cards.theme(c).colour == ability.colour
                                      for p in boards for c in p["exposed"])
    elif ability is not None:
        value += 3 if ability.kind == "double" else 1
    space = st.values[theme.colour] + dict(theme.shift).get(theme.colour, 0)
    value += st.cards.value_bonus(max(0, min(st.cards.track.length - 1, space)))
    return value + 0.15 * player["points"][theme.colour]


def greedy(st: LegesState, seat: int, rng: random.Random) -> Decision:
    legal = st.legal_decisions(seat)
    kind, player = st.step["k"], st.players[seat]
    if kind == "choose":
        plays = [d for d in legal if d.verb == "play"]
        return max(plays, key=lambda d: card_value(st, seat, d.args[0])) if plays else legal[0]
    if kind == "ability":
        best = max(st.colours, key=lambda c: player["points"][c])
        up = Decision("shift", (best, "up"))
        return up if up in legal else Decision("pass")
    if kind == "laws":
        return max((d for d in legal if d.verb == "law"),
                   key=lambda d: CARDS.law_vp(d.args[0], int(d.args[1]))
                   - CARDS.law_vp(d.args[0], int(d.args[1]) - 1))
    if player["drawn"]:
        return Decision("discard", (min(player["drawn"],
                                        key=lambda c: card_value(st, seat, c)),))
    discards = [d for d in legal if d.verb == "discard"]
    if discards and Decision("draw") in legal:
        return min(discards, key=lambda d: card_value(st, seat, d.args[0]))
    return legal[-1]


def at_random(st: LegesState, seat: int, rng: random.Random) -> Decision:
    return rng.choice(st.legal_decisions(seat))


def play_out(players: int, seed: int, policies: list[Policy]) -> LegesState:
    st = LegesState.new(CARDS, players, {}, seed)
    rng = random.Random(seed)
    while not st.is_over:
        movers = st.to_move()
        seat = movers[rng.randrange(len(movers))]
        st.apply_unchecked(seat, policies[seat](st, seat, rng))
    return st


def test_l4_no_seat_position_is_favoured_much() -> None:
    for players, games in ((2, 200), (4, 200), (5, 150)):
        share: Counter[int] = Counter()
        for seed in range(games):
            st = play_out(players, seed, [greedy] * players)
            result = st.result()
            assert result is not None
            for seat in result.winners:
                share[(seat - st.first) % players] += 1 / len(result.winners)
        fair = 1 / players
        for position in range(players):
            assert abs(share[position] / games - fair) < 0.1, (players, position, share)


def test_l4_colours_alike_and_every_tier_reached() -> None:
    bought: Counter[str] = Counter()
    tiers: Counter[int] = Counter()
    for seed in range(100):
        st = play_out(4, seed, [greedy] * 4)
        for player in st.players:
            for colour, tier in player["laws"].items():
                bought[colour] += tier
                tiers[tier] += 1
    assert max(bought.values()) < 1.5 * min(bought.values()), bought  # L4: within 1.5x
    assert all(tiers[t] > 0 for t in range(1, 5)), tiers


def test_l4_choices_matter_greedy_beats_random() -> None:
    wins = 0
    for seed in range(100):
        st = play_out(2, seed, [greedy, at_random] if seed % 2 else [at_random, greedy])
        greedy_seat = 0 if seed % 2 else 1
        result = st.result()
        assert result is not None
        wins += result.winners == (greedy_seat,)
    assert wins >= 70, wins
