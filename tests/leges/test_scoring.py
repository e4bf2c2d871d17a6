"""Scoring from the first player clockwise: base points in the card's colour, ability
bonuses per other visible card (L13), the Value bonus/malus of the colour (once, L8),
never below 0 (L9)."""

from __future__ import annotations

from importlib import resources

from games.leges.cardset import parse_card_set
from games.leges.position import Position, of_kind, play
from tests.leges.helpers import points


def scores(st: object) -> dict[int, dict[str, object]]:
    return {s["seat"]: s for s in of_kind(st.events, "score")}  # type: ignore[attr-defined]


def test_summary_base_points_go_to_the_card_colour() -> None:
    st = Position(players=2).hand(0, "virtus-04").hand(1, "libertas-07").build()
    play(st, "0: play virtus-04", "1: play libertas-07")
    assert points(st, 0) == {"pietas": 0, "virtus": 5, "libertas": 0, "concordia": 0}
    assert points(st, 1)["libertas"] == 6


def test_summary_value_track_bonus_and_malus() -> None:
    """virtus on card 5 (+2), libertas on card 1 (-2)."""
    st = (Position(players=2).hand(0, "virtus-04").hand(1, "libertas-08")
          .values(virtus=12, libertas=0)
          .points(1, libertas=4)
          .build())
    play(st, "0: play virtus-04", "1: play libertas-08")   # virtus +1; concordia -1
    assert points(st, 0)["virtus"] == 5 + 2
    assert points(st, 1)["libertas"] == 4 + 6 - 2
    assert scores(st)[1]["value"] == {"libertas": -2}
    assert scores(st)[1]["gained"] == {"libertas": 4}


def test_l13_bonus_counts_every_players_visible_cards_but_itself() -> None:
    """pietas-12: +1 per other visible pietas card: seat 0's earlier pietas-04, seat 1's
    earlier pietas-05 and this round's pietas-07; not pietas-12 itself, nor the discard."""
    st = (Position(players=3, first=0)
          .hand(0, "pietas-12").hand(1, "pietas-07").hand(2, "virtus-04")
          .exposed(0, "pietas-04").exposed(1, "pietas-05")
          .discard("pietas-06")
          .at("choose", round=2)
          .build())
    play(st, "0: play pietas-12", "1: play pietas-07", "2: play virtus-04")
    assert st.values["pietas"] == 7   # +1 then -1
    assert scores(st)[0]["cards"] == [{"card": "pietas-12", "colour": "pietas", "base": 3,
                                       "bonus": 3}]
    assert points(st, 0)["pietas"] == 6


def test_l13_yours_counts_only_the_owners_cards() -> None:
    """pietas-15: +2 per other pietas card of its owner's: pietas-04 only (not seat 1's)."""
    st = (Position(players=2)
          .hand(0, "pietas-15").hand(1, "pietas-06")
          .exposed(0, "pietas-04", "virtus-05").exposed(1, "pietas-05")
          .at("choose", round=3)
          .build())
    play(st, "0: play pietas-15", "1: play pietas-06")
    assert st.values["pietas"] == 9       # +1 +1: card 4, bonus +1
    assert scores(st)[0]["cards"][0]["bonus"] == 2
    assert points(st, 0)["pietas"] == 2 + 2 + 1


def test_l13_a_bonus_may_count_another_colour() -> None:
    """pietas-13: +1 per other visible virtus card, scored in pietas."""
    st = (Position(players=2)
          .hand(0, "pietas-13").hand(1, "virtus-04")
          .exposed(0, "virtus-05").exposed(1, "virtus-06")
          .at("choose", round=2)
          .build())
    play(st, "0: play pietas-13", "1: play virtus-04")
    assert scores(st)[0]["cards"][0]["bonus"] == 3
    assert points(st, 0) == {"pietas": 3 + 3, "virtus": 0, "libertas": 0, "concordia": 0}


def test_l9_a_colour_never_goes_below_zero() -> None:
    """With a set whose card 1 costs 5, a 2-point card there takes the colour to 0."""
    text = resources.files("games.leges").joinpath("cards.toml").read_text("utf-8")
    harsh = parse_card_set(text.replace("bonus = [-2, -1, 0, 1, 2]", "bonus = [-5, -1, 0, 1, 2]"))
    st = (Position(players=2, cards=harsh)
          .hand(0, "pietas-03").hand(1, "virtus-03")
          .values(pietas=0, virtus=0)
          .points(0, pietas=2)
          .build())
    play(st, "0: play pietas-03", "1: play virtus-03")   # ×2 cards, nothing left to play
    assert points(st, 0)["pietas"] == 0 and points(st, 1)["virtus"] == 0
    assert scores(st)[0]["gained"] == {"pietas": -2}
    assert scores(st)[1]["gained"] == {"virtus": 0}


def test_summary_scoring_goes_from_the_first_player_clockwise() -> None:
    st = (Position(players=4, first=2)
          .hand(0, "pietas-04").hand(1, "virtus-04").hand(2, "libertas-04")
          .hand(3, "concordia-04")
          .build())
    play(st, "0: play pietas-04", "1: play virtus-04", "2: play libertas-04",
         "3: play concordia-04")
    assert [s["seat"] for s in of_kind(st.events, "score")] == [2, 3, 0, 1]
