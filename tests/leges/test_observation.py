"""Hidden information (L5): hands, the deck order, face-down choices and Law requests until
revealed; `determinize` resamples exactly that; `from_observation` rebuilds a state; cards
are conserved through whole random games."""

from __future__ import annotations

import json
import random

from games.leges.cardset import load_default_card_set
from games.leges.game import Leges
from games.leges.position import Position, play
from games.leges.state import LegesState

CARDS = load_default_card_set()
ALL = sorted(t.id for t in CARDS.themes)


def every_card(st: LegesState) -> list[str]:
    return sorted(st.deck + st.discard + [c for p in st.players
                                          for c in p["hand"] + p["exposed"] + p["drawn"]])


def test_l5_a_spectator_sees_nothing_private() -> None:
    st = LegesState.new(CARDS, 3, {}, seed=3)
    play(st, "0: play " + st.players[0]["hand"][0])
    obs = st.observation(None)
    for board in obs["boards"]:
        assert board["hand"] is None and board["choice"] is None
        assert board["request"] is None and board["drawn"] is None
    assert obs["boards"][0]["chosen"] and not obs["boards"][1]["chosen"]
    assert obs["deck"] == len(st.deck) and "rng" not in json.dumps(obs)
    mine = st.observation(0)["boards"]
    assert mine[0]["hand"] == st.players[0]["hand"] and mine[1]["hand"] is None


def test_l5_determinize_resamples_exactly_the_hidden_part() -> None:
    st = (Position(players=3, first=0).at("choose", round=2)
          .hand(0, "pietas-01", "pietas-04").hand(1, "virtus-01", "virtus-04")
          .hand(2, "libertas-04", "libertas-05")
          .build())
    play(st, "0: play pietas-01", "1: play virtus-01", "2: play libertas-04",
         "1: play virtus-04")   # seat 1's second card, face down
    assert st.to_move() == (0,)
    hands = set()
    for k in range(12):
        twin = st.determinize(0, k)
        assert twin.observation(0) == st.observation(0)
        assert twin.players[0]["hand"] == st.players[0]["hand"]
        assert every_card(twin) == ALL
        other = twin.players[1]
        assert other["choice"] == "" or other["choice"] in other["hand"]
        hands.add((tuple(other["hand"]), other["choice"], tuple(twin.deck[-3:])))
    assert len(hands) > 6, "other hands, their face-down card and the deck vary"


def test_l5_law_requests_are_resampled_among_the_legal_ones() -> None:
    st = (Position(players=2).at("laws").points(0, pietas=5).points(1, pietas=30, virtus=6)
          .laws(1, pietas=1).build())
    play(st, "1: law virtus 1")
    seen = {st.determinize(0, k).players[1]["request"] for k in range(20)}
    assert seen == {"pietas 2", "virtus 1", "none"}
    assert {st.determinize(1, k).players[1]["request"] for k in range(5)} == {"virtus 1"}


def test_from_observation_rebuilds_a_consistent_state() -> None:
    st = LegesState.new(CARDS, 4, {}, seed=8)
    rng = random.Random(8)
    game = Leges()
    for _ in range(60):
        movers = st.to_move()
        seat = movers[rng.randrange(len(movers))]
        st.apply(seat, rng.choice(st.legal_decisions(seat)))
        for viewer in (None, 0, 3):
            obs = json.loads(json.dumps(st.observation(viewer)))
            rebuilt = game.from_observation(obs, seed=5)
            assert rebuilt.observation(viewer) == st.observation(viewer)
            assert every_card(rebuilt) == ALL
            if viewer is not None:
                assert rebuilt.legal_decisions(viewer) == st.legal_decisions(viewer)


def test_cards_and_laws_are_conserved_through_random_games() -> None:
    for players in range(2, 6):
        st = LegesState.new(CARDS, players, {}, seed=players)
        rng = random.Random(players)
        stacks = {c: list(n) for c, n in st.stacks.items()}
        while not st.is_over:
            movers = st.to_move()
            seat = movers[rng.randrange(len(movers))]
            st.apply(seat, rng.choice(st.legal_decisions(seat)))
            assert every_card(st) == ALL
            assert len(set(every_card(st))) == 84
            for colour in st.colours:
                for tier in range(1, 5):
                    held = sum(p["laws"][colour] >= tier for p in st.players)
                    assert st.stacks[colour][tier - 1] + held == stacks[colour][tier - 1]
            assert all(v >= 0 for p in st.players for v in p["points"].values())
            assert all(0 <= v < 15 for v in st.values.values())
            assert all(len(p["hand"]) <= 8 for p in st.players)
        assert st.result() is not None
