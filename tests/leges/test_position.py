"""The position builder (`games.leges.position`): the description and the fluent form
agree, bad keys and values are refused naming them, fixed draws, card queries."""

from __future__ import annotations

import pytest

from games.leges.position import (
    STEPS,
    Position,
    card_where,
    cards_where,
    default_stacks,
    legal,
    movers,
    play,
    position_from_text,
    step,
)

DESCRIBED = """
players = 3
first = 1
seed = 4
step = "choose"
season = 2
round = 3
deck = ["pietas-05", "pietas-06"]
discard = ["virtus-10"]
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
[stacks]
libertas = [1, 1, 1, 0]
[exposed]
2 = ["virtus-08"]
"""


def fluent() -> Position:
    return (Position(players=3, first=1, seed=4)
            .at("choose", season=2, round=3)
            .hand(0, "pietas-01", "virtus-04")
            .hand(1, "libertas-11")
            .hand(2, "concordia-07", "pietas-12")
            .points(0, pietas=12, virtus=3)
            .laws(0, pietas=1)
            .values(pietas=13, virtus=(1, 2))
            .stacks(libertas=[1, 1, 1, 0])
            .exposed(2, "virtus-08")
            .deck("pietas-05", "pietas-06")
            .discard("virtus-10")
            .draws("virtus-09"))


def test_the_description_and_the_fluent_form_agree() -> None:
    described = position_from_text(DESCRIBED).build()
    built = fluent().build()
    assert described.to_bytes() == built.to_bytes()
    assert (built.season, built.round, built.first) == (2, 3, 1)
    assert built.values["pietas"] == 13 and built.values["virtus"] == 1
    assert built.stacks["libertas"] == [1, 1, 1, 0] and built.stacks["pietas"] == [3, 2, 2, 1]
    assert built.players[0]["points"]["pietas"] == 12 and built.players[0]["laws"]["pietas"] == 1
    assert built.deck[-2:] == ["pietas-06", "pietas-05"], "the first named is drawn first"
    assert built.discard == ["virtus-10"]
    assert step(built) == "choose" and movers(built) == [0, 1, 2]
    assert legal(built, 1) == ["play libertas-11"]
    everything = built.deck + built.discard + [c for p in built.players
                                               for c in p["hand"] + p["exposed"]]
    assert sorted(everything) == sorted(t.id for t in built.cards.themes)


def test_fixed_draws_come_first() -> None:
    st = (Position(players=2).at("exchange").hand(0, "pietas-01")
          .deck("virtus-01", "virtus-02").draws("libertas-09").build())
    play(st, "draw")
    assert st.players[0]["drawn"] == ["libertas-09", "virtus-01"]
    clone = st.clone()
    assert clone.to_bytes() == st.to_bytes()


def test_exact_deck_puts_the_rest_in_the_discard() -> None:
    st = Position(players=2).deck("virtus-01", exact=True).discard("pietas-02").build()
    assert st.deck == ["virtus-01"]
    assert len(st.discard) == 83 and st.discard[-1] == "pietas-02"


def test_starting_at_the_laws_and_the_exchange() -> None:
    assert STEPS == ("choose", "laws", "exchange")
    st = (Position(players=2).at("laws", round=2)
          .exposed(0, "pietas-04").played(0, "pietas-05")
          .points(0, pietas=5).build())
    assert step(st) == "laws" and st.players[0]["played"] == ["pietas-05"]
    assert st.players[0]["exposed"] == ["pietas-04", "pietas-05"]
    st = Position(players=2).at("exchange").build()
    assert step(st) == "exchange" and movers(st) == [0]


def test_default_stacks() -> None:
    assert default_stacks(2) == [3, 2, 1, 1] and default_stacks(5) == [4, 3, 2, 1]


@pytest.mark.parametrize(("build", "message"), [
    (lambda: Position(players=6), "players must be 2 to 5"),
    (lambda: Position(players=3, first=3), "first: no seat 3"),
    (lambda: Position().at("scoring"), "unknown step 'scoring'"),
    (lambda: Position().at("choose", season=5), "season must be 1 to 4"),
    (lambda: Position(players=5).at("choose", season=4), "season must be 1 to 3"),
    (lambda: Position().at("choose", round=4), "round must be 1 to 3"),
    (lambda: Position().hand(0, "pietas-99").build(), "hand.0: unknown Theme card 'pietas-99'"),
    (lambda: Position().hand(0, "pietas-01").hand(1, "pietas-01").build(),
     "hand.1: Theme card 'pietas-01' is already in hand.0"),
    (lambda: Position().hand(0, "pietas-01").deck("pietas-01").build(),
     "deck: Theme card 'pietas-01' is already in hand.0"),
    (lambda: Position().hand(3, "pietas-01"), "hand: no seat 3"),
    (lambda: Position().points(0, gravitas=3).build(), "points.0: unknown colour 'gravitas'"),
    (lambda: Position().points(0, pietas=-1).build(), "points.0.pietas"),
    (lambda: Position().laws(0, pietas=5).build(), "laws.0.pietas: a tier is 0 to 4"),
    (lambda: Position().values(pietas=15), "values.pietas: a track space is 0 to 14"),
    (lambda: Position().values(pietas=(6, 1)), "values.pietas: no space 1 on Value card 6"),
    (lambda: Position().stacks(pietas=[1, 2]), "stacks.pietas"),
    (lambda: Position().exposed(0, "pietas-01", "pietas-02").played(0, "pietas-01").build(),
     "played.0: must be the last"),
    (lambda: Position().draws("nothing").build(), "draws: unknown Theme card"),
    (lambda: position_from_text("colour = 3"), "unknown key 'colour'"),
    (lambda: position_from_text("players = '3'"), "players: must be int"),
    (lambda: position_from_text("[hand]\nzero = ['pietas-01']"), "keyed by seat number"),
])
def test_bad_descriptions_are_refused_naming_the_key(build: object, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        build()  # type: ignore[operator]


def test_card_queries() -> None:
    assert cards_where(colour="virtus", ability="double") == ["virtus-01", "virtus-02",
                                                             "virtus-03"]
    assert card_where(ability="bonus", whose="yours", colour="libertas") == "libertas-15"
    assert cards_where(ability="shift", amount=2) == ["pietas-20", "virtus-20",
                                                      "libertas-20", "concordia-20"]
    assert len(cards_where(ability=None)) == 32
    with pytest.raises(ValueError, match="unknown property"):
        cards_where(cost=3)
    with pytest.raises(ValueError, match="no Theme card"):
        card_where(points=19)
