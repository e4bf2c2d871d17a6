"""Setting up a game of Leges: player counts, seasons, Law stacks (L1), tokens under the
arrow, the deal, the first player drawn at random and fixed for the game."""

from __future__ import annotations

import random

import pytest

from games.core import SetupError
from games.leges.cardset import load_default_card_set
from games.leges.game import Leges
from games.leges.state import LegesState

CARDS = load_default_card_set()


def new(players: int, seed: int = 0, **chance: list[str]) -> LegesState:
    return LegesState.new(CARDS, players, {}, seed, chance=chance or None)


def test_summary_two_to_five_players() -> None:
    game = Leges()
    assert [v.name for v in game.variants] == ["standard"]
    for players in range(2, 6):
        assert game.check_setup("standard", players, {}) == {}
        assert new(players).num_seats == players
    for players in (1, 6):
        with pytest.raises(SetupError, match="2-5 players"):
            game.check_setup("standard", players, {})


@pytest.mark.parametrize(("players", "seasons"), [(2, 4), (3, 4), (4, 4), (5, 3)])
def test_summary_four_seasons_of_three_rounds_three_with_five(players: int,
                                                               seasons: int) -> None:
    st = new(players)
    obs = st.observation(None)
    assert (obs["seasons"], obs["rounds"], obs["season"], obs["round"]) == (seasons, 3, 1, 1)


@pytest.mark.parametrize(("players", "stack"), [(5, [4, 3, 2, 1]), (4, [3, 3, 2, 1]),
                                                (3, [3, 2, 2, 1]), (2, [3, 2, 1, 1])])
def test_l1_law_stacks_by_player_count(players: int, stack: list[int]) -> None:
    st = new(players)
    assert st.observation(None)["law_stacks"] == dict.fromkeys(CARDS.colour_ids, stack)


def test_summary_value_tokens_start_under_the_arrow() -> None:
    obs = new(4).observation(None)
    for colour in CARDS.colour_ids:
        assert obs["values"][colour] == {"space": 7, "card": 3, "bonus": 0}


def test_summary_five_themes_each_from_a_shuffled_deck_of_84() -> None:
    for players in range(2, 6):
        st = new(players, seed=players)
        obs = st.observation(None)
        assert [b["hand_size"] for b in obs["boards"]] == [5] * players
        assert obs["deck"] == 84 - 5 * players and obs["discard"] == []
        assert all(b["hand"] is None for b in obs["boards"])
        everything = st.deck + [c for p in st.players for c in p["hand"]]
        assert sorted(everything) == sorted(t.id for t in CARDS.themes)
        assert all(sum(p["points"].values()) == 0 for p in st.players)
        assert all(sum(p["laws"].values()) == 0 for p in st.players)
    assert new(3, seed=1).deck != new(3, seed=2).deck


def test_summary_first_player_drawn_at_random() -> None:
    firsts = {new(4, seed=seed).first for seed in range(40)}
    assert firsts == {0, 1, 2, 3}
    st = new(4, seed=3, first=["2"])
    assert st.first == 2 and st.observation(1)["first_player"] == 2
    start = next(e for e in st.events if e.kind == "start")
    assert start.data["first"] == 2
    deals = [e.data["seat"] for e in st.events if e.kind == "deal"]
    assert deals == [2, 3, 0, 1], "the deal goes from the first player clockwise"


def test_summary_first_player_stays_first_all_game() -> None:
    st = new(3, seed=11, first=["1"])
    rng = random.Random(11)
    queues: dict[tuple[int, int], list[int]] = {}
    while not st.is_over:
        if st.step["k"] == "exchange":
            queues.setdefault((st.season, st.round), list(st.step["queue"]))
        movers = st.to_move()
        seat = movers[rng.randrange(len(movers))]
        st.apply(seat, rng.choice(st.legal_decisions(seat)))
        assert st.first == 1
    assert len(queues) == 12 and all(q == [1, 2, 0] for q in queues.values())


def test_l2_the_first_theme_choice_asks_every_player_at_once() -> None:
    st = new(4, seed=2)
    assert st.to_move() == (0, 1, 2, 3)
    assert st.observation(None)["asked"] == {"step": "choose", "pass": 1,
                                             "seats": st.clockwise()}
    for seat in range(4):
        assert sorted(d.args[0] for d in st.legal_decisions(seat)) == st.players[seat]["hand"]
