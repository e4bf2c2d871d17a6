"""The rule summary (restated in docs/rulings.md, "Leges — rulings"), statement by statement:
one test per rule that no other Leges test pins, its docstring quoting the summary's
section or citing the ruling (L#, C-L#, docs/rulings.md) that decides it."""

from __future__ import annotations

import random

import pytest

from games.core import IllegalDecisionError
from games.leges.cardset import load_default_card_set
from games.leges.position import Position, legal, of_kind, play, step
from games.leges.state import LegesState
from tests.leges.helpers import finish_round, pass_exchanges, points

CARDS = load_default_card_set()


def random_game(players: int, seed: int) -> tuple[LegesState, list[str]]:
    """A whole game of random decisions; the kinds of every event, in order."""
    st = LegesState.new(CARDS, players, {}, seed)
    rng = random.Random(seed)
    kinds = [e.kind for e in st.events]
    while not st.is_over:
        movers = st.to_move()
        seat = movers[rng.randrange(len(movers))]
        kinds += [e.kind for e in st.apply(seat, rng.choice(st.legal_decisions(seat)))]
        assert all(len(p["hand"]) <= 8 for p in st.players)
    return st, kinds


def law_tie(pietas: int = 10, other: int = 4) -> LegesState:
    """Two players wanting the last tier-1 pietas Law, equal in pietas and in their best
    other colour."""
    return (Position(players=2).at("laws").stacks(pietas=[1, 2, 1, 1])
            .points(0, pietas=pietas, virtus=other)
            .points(1, pietas=pietas, concordia=other)
            .build())


# -- Préparation du jeu ----------------------------------------------------------------
@pytest.mark.parametrize(("players", "laws"), [(5, 40), (4, 36), (3, 32), (2, 28)])
def test_setup_forty_laws_ten_per_colour_less_the_removals(players: int, laws: int) -> None:
    """"Triez les 40 cartes Lois par couleur ... 10 cartes par couleur", then remove 1 card
    per colour with 4 players, 2 with 3, 3 with 2 (L1)."""
    stacks = LegesState.new(CARDS, players, {}, 0).observation(None)["law_stacks"]
    assert sum(map(sum, stacks.values())) == laws
    assert all(sum(stack) == laws // 4 for stack in stacks.values())


# -- Jeu d'une carte Thème -------------------------------------------------------------
def test_round_every_player_must_place_a_theme_card() -> None:
    """"Chaque joueur place face cachée devant lui l'une de ses cartes Thème": the first
    card of a round cannot be declined (only the ×2 second card can, C-L3)."""
    st = Position(players=2).hand(0, "pietas-04", "virtus-04").hand(1, "libertas-04").build()
    assert legal(st, 0) == ["play pietas-04", "play virtus-04"]
    for refused in ("hold", "pass"):
        with pytest.raises(IllegalDecisionError):
            play(st, f"0: {refused}")


def test_c_l1_a_player_without_cards_is_not_asked_but_buys_and_exchanges() -> None:
    """C-L1: a player with no Theme card is not asked to choose; Law buying ("les
    joueurs") and the exchange ("chaque joueur") still include it."""
    st = (Position(players=2).hand(1, "virtus-04").points(0, pietas=5)
          .deck("libertas-04", "libertas-05").build())
    assert st.to_move() == (1,)
    play(st, "1: play virtus-04")
    assert (step(st), st.to_move()) == ("laws", (0, 1))
    play(st, "0: law pietas 1", "1: nolaw", "draw", "discard libertas-05")
    assert st.players[0]["laws"]["pietas"] == 1
    assert st.players[0]["hand"] == ["libertas-04"]


# -- Utilisation des caractéristiques -----------------------------------------------------
def test_round_only_non_scoring_abilities_are_used_at_the_abilities_step() -> None:
    """"Si la carte Thème possède une caractéristique (non liée au Scoring), vous pouvez
    l'utiliser à ce moment": a bonus card (scoring) is not asked; a shift card is."""
    st = (Position(players=3)
          .hand(0, "pietas-12").hand(1, "virtus-18").hand(2, "libertas-04")
          .build())
    play(st, "0: play pietas-12", "1: play virtus-18", "2: play libertas-04")
    assert st.observation(None)["asked"] == {"step": "ability", "pass": 1, "queue": [1]}


def test_l9_a_shift_ability_stops_at_the_end_of_the_track() -> None:
    """L9: Value tokens stop at the ends of the track, whatever moves them (here a
    2-space shift ability from the last space but one)."""
    st = (Position(players=2).hand(0, "pietas-20").hand(1, "libertas-04")
          .values(virtus=13).build())
    play(st, "0: play pietas-20", "1: play libertas-04")
    [move] = of_kind(play(st, "shift virtus up"), "value")
    assert (move["by"], move["before"], move["after"]) == (2, 13, 14)
    assert st.values["virtus"] == 14


def test_double_second_cards_move_the_tokens_before_scoring() -> None:
    """"les 3 steps précédents sont répétés" before the "Scoring": pietas-01 (+1) leaves
    pietas on Value card 3 (0), the second card pietas-03 (+2) takes it to card 4 (+1),
    and the bonus of the token's final place counts: 3 + 2 + 1."""
    st = (Position(players=2).hand(0, "pietas-01", "pietas-03").hand(1, "virtus-07")
          .build())
    play(st, "0: play pietas-01", "1: play virtus-07")
    assert st.values["pietas"] == 8 and st.players[0]["points"]["pietas"] == 0
    play(st, "0: play pietas-03")
    assert st.values["pietas"] == 10
    assert points(st, 0)["pietas"] == 3 + 2 + 1


# -- Achat de lois -------------------------------------------------------------------------
def test_laws_a_full_tie_blocks_the_law_for_this_round_only() -> None:
    """"S'il y a toujours égalité, aucune carte Loi de ces mêmes Niveau et couleur ne
    pourra être achetée ce round": the next round, the same Law can be bought."""
    st = law_tie()
    play(st, "0: law pietas 1", "1: law pietas 1")
    assert of_kind(st.events, "law") == []
    finish_round(st)
    assert (st.round, step(st)) == (2, "laws")
    play(st, "0: law pietas 1", "1: nolaw")
    assert st.players[0]["laws"]["pietas"] == 1 and st.stacks["pietas"][0] == 0


def test_c_l16_a_requester_left_without_its_law_buys_nothing_else() -> None:
    """C-L16: both players could also afford a virtus Law, but their one request (L7) was
    the tied pietas Law: neither buys anything this round, and their points stay."""
    st = law_tie(pietas=10, other=10)
    assert "law virtus 1" in legal(st, 0)
    play(st, "0: law pietas 1", "1: law pietas 1")
    assert of_kind(st.events, "law") == []
    assert step(st) == "exchange"
    assert points(st, 0)["virtus"] == 10 and points(st, 0)["pietas"] == 10


def test_c_l15_any_colour_with_the_points_buys_its_law() -> None:
    """C-L15: the points of earlier rounds stay on the Score card and buy a Law of their
    colour, though the player scored another colour this round."""
    st = (Position(players=2).at("laws").played(0, "virtus-04")
          .points(0, pietas=5, virtus=5).build())
    assert legal(st, 0) == ["law pietas 1", "law virtus 1", "nolaw"]
    play(st, "0: law pietas 1")
    assert points(st, 0) == {"pietas": 0, "virtus": 5, "libertas": 0, "concordia": 0}


# -- Echange de cartes Thème -----------------------------------------------------------------
def test_c_l7_the_exchange_follows_the_laws_in_the_last_round_too() -> None:
    """"A la fin de chaque round" (C-L7: the last round of a season included): the
    exchange comes after the Law buying and before the end of the season."""
    st = Position(players=2).at("laws", round=3).points(0, pietas=5).build()
    play(st, "0: law pietas 1")
    assert (st.season, st.round, step(st)) == (1, 3, "exchange")
    pass_exchanges(st)
    assert (st.season, st.round) == (2, 1)


def test_c_l8_fewer_than_two_cards_drawn_are_kept() -> None:
    """C-L8: with one card left to draw (deck and discard), the player keeps it and
    discards nothing."""
    elsewhere = sorted(t.id for t in CARDS.themes
                       if t.id not in ("pietas-04", "virtus-04", "libertas-04"))
    st = (Position(players=2).at("exchange")
          .hand(0, "pietas-04").hand(1, "virtus-04").exposed(1, *elsewhere)
          .deck("libertas-04", exact=True).build())
    events = play(st, "draw")
    assert of_kind(events, "draw") == [{"seat": 0, "count": 1}]
    assert of_kind(events, "discard") == []
    assert st.players[0]["hand"] == ["libertas-04", "pietas-04"]
    assert st.to_move() == (1,)


def test_c_l9_a_mid_season_reshuffle_leaves_the_exposed_themes() -> None:
    """C-L9: exposed Themes reach the discard only at the end of the season, so a
    reshuffle in mid-season takes the discard pile alone."""
    st = (Position(players=2).at("exchange", round=2)
          .hand(0, "pietas-04").hand(1, "virtus-04")
          .exposed(0, "pietas-05", "pietas-06").exposed(1, "virtus-05")
          .deck("libertas-04", exact=True)
          .build())
    [reshuffle] = of_kind(play(st, "draw"), "reshuffle")
    assert reshuffle["count"] == 84 - 2 - 3 - 1
    assert st.players[0]["exposed"] == ["pietas-05", "pietas-06"]
    assert st.players[1]["exposed"] == ["virtus-05"]


def test_c_l12_exchange_discards_stay_shown_until_the_next_exchange() -> None:
    """C-L12: the cards a player discarded face up stay shown through the next round,
    until its next exchange."""
    st = (Position(players=2).at("exchange")
          .hand(0, "pietas-04", "pietas-05").hand(1, "virtus-04", "virtus-05")
          .deck("libertas-04", "libertas-05").build())
    play(st, "discard pietas-05", "discard libertas-05", "pass")
    play(st, "0: play pietas-04", "1: play virtus-04")
    assert st.observation(1)["boards"][0]["discarded"] == ["pietas-05", "libertas-05"]
    finish_round(st)
    assert step(st) == "choose" and st.players[0]["discarded"] == []


# -- Fin de saison ---------------------------------------------------------------------------
def test_c_l10_end_of_season_discard_then_deal_then_tokens() -> None:
    """C-L10: exposed Themes to the discard, then the deal, then the tokens on Value card
    1 (5) to card 2 (4), then the next season's first round."""
    st = (Position(players=2).at("exchange", round=3).exposed(0, "pietas-04")
          .values(pietas=0).build())
    kinds = [e.kind for e in play(st, "pass", "pass")]
    assert kinds.index("season-end") < kinds.index("deal")
    assert max(i for i, k in enumerate(kinds) if k == "deal") < kinds.index("value-reset")
    assert kinds.index("value-reset") < kinds.index("round")


def test_c_l10_nothing_of_the_season_end_after_the_last_season() -> None:
    """C-L10: after the last season the game ends; the exposed Themes stay, no card is
    dealt and the tokens on Value cards 1 and 5 stay where they are."""
    st = (Position(players=3).at("exchange", season=4, round=3)
          .exposed(0, "pietas-04").values(pietas=0, virtus=14).build())
    kinds = [e.kind for e in play(st, "pass", "pass", "pass")]
    assert st.is_over
    assert not {"season-end", "deal", "value-reset"} & set(kinds)
    assert (st.values["pietas"], st.values["virtus"]) == (0, 14)
    assert st.players[0]["exposed"] == ["pietas-04"]


def test_c_l15_points_stay_on_the_score_card_across_seasons() -> None:
    """C-L15: the end of a season clears nothing on the Score cards (the summary lists
    no such step): unspent points are kept for later Laws."""
    st = (Position(players=2).at("exchange", round=3)
          .points(0, pietas=12, virtus=3).points(1, concordia=40).build())
    pass_exchanges(st)
    assert (st.season, st.round) == (2, 1)
    assert points(st, 0) == {"pietas": 12, "virtus": 3, "libertas": 0, "concordia": 0}
    assert points(st, 1)["concordia"] == 40


# -- Déroulement et fin du jeu ---------------------------------------------------------------
@pytest.mark.parametrize(("players", "rounds"), [(2, 12), (4, 12), (5, 9)])
def test_flow_four_seasons_of_three_rounds_three_seasons_with_five(players: int,
                                                                    rounds: int) -> None:
    """"Le jeu se déroule en 4 saisons (seulement 3 saisons si 5 joueurs) de 3 rounds":
    a whole game plays 12 rounds (9 with 5), one season end fewer than seasons (C-L10);
    no hand ever holds more than 8 cards (C-L11)."""
    st, kinds = random_game(players, seed=players)
    assert kinds.count("round") == rounds
    assert kinds.count("season-end") == rounds // 3 - 1
    assert kinds[-1] == "end" and st.result() is not None
