"""The ×2 ability (L8): its owners play a second card face down at the same time, the
reveal, moves and abilities repeat for those cards, once a round; the Value bonus/malus
of a colour counts once even with two cards."""

from __future__ import annotations

from games.core import Decision
from games.leges.position import Position, legal, of_kind, play, step
from tests.leges.helpers import points


def doubles() -> Position:
    """Seats 0 and 1 reveal ×2 cards (pietas-01, virtus-02); seat 2 does not."""
    return (Position(players=3, first=0)
            .hand(0, "pietas-01", "pietas-18")
            .hand(1, "virtus-02", "libertas-04")
            .hand(2, "concordia-04", "concordia-05")
            .values(virtus=9, libertas=12))


def test_l8_double_owners_choose_a_second_card_at_the_same_time() -> None:
    st = doubles().build()
    events = play(st, "0: play pietas-01", "1: play virtus-02", "2: play concordia-04")
    assert of_kind(events, "double") == [{"players": [0, 1]}]
    assert (step(st), st.to_move()) == ("choose", (0, 1))
    assert st.observation(2)["asked"] == {"step": "choose", "pass": 2, "seats": [0, 1]}
    assert legal(st, 0) == ["play pietas-18", "hold"]
    assert st.decision_seen_by(0, Decision("hold")) == (0,)
    play(st, "1: play libertas-04")
    assert st.to_move() == (0,)
    assert st.observation(0)["boards"][1]["chosen"]
    assert st.observation(0)["boards"][1]["choice"] is None, "the second card is secret"
    events = play(st, "0: play pietas-18")
    [reveal] = of_kind(events, "reveal")
    assert reveal == {"cards": ["pietas-18", "libertas-04", None], "held": [], "second": True}
    moves = [(m["seat"], m["card"]) for m in of_kind(events, "value")]
    assert moves == [(0, "pietas-18"), (1, "libertas-04")], "from the first player"
    # the second card's ability is used in turn, like a first card's
    assert (step(st), st.to_move()) == ("ability", (0,))
    assert st.observation(None)["asked"]["pass"] == 2
    play(st, "shift pietas up")
    assert st.values["pietas"] == 10
    assert st.observation(None)["boards"][0]["played"] == ["pietas-01", "pietas-18"]


def test_l8_value_bonus_counts_once_per_colour() -> None:
    """Seat 0: two pietas cards (3 + 4), pietas on card 4 (+1 once): 8. Seat 1: virtus 3 +
    card 4 (+1), libertas 5 + card 5 (+2): each colour's bonus once."""
    st = doubles().build()
    play(st, "0: play pietas-01", "1: play virtus-02", "2: play concordia-04",
         "1: play libertas-04", "0: play pietas-18", "pass")
    assert (st.values["pietas"], st.values["virtus"], st.values["libertas"]) == (9, 10, 13)
    assert points(st, 0)["pietas"] == 3 + 4 + 1
    assert points(st, 1)["virtus"] == 3 + 1 and points(st, 1)["libertas"] == 5 + 2
    [mine] = [s for s in of_kind(st.events, "score") if s["seat"] == 0]
    assert mine["value"] == {"pietas": 1}
    assert [c["card"] for c in mine["cards"]] == ["pietas-01", "pietas-18"]


def test_l8_a_player_may_hold_the_second_card() -> None:
    st = doubles().build()
    play(st, "0: play pietas-01", "1: play virtus-02", "2: play concordia-04")
    events = play(st, "0: hold", "1: hold")
    [reveal] = of_kind(events, "reveal")
    assert reveal == {"cards": [None, None, None], "held": [0, 1], "second": True}
    assert st.players[0]["hand"] == ["pietas-18"] and st.players[0]["played"] == ["pietas-01"]
    assert st.observation(1)["boards"][0]["choice"] is None


def test_l8_at_most_once_a_round() -> None:
    """A ×2 card played as the second card lets nothing more happen."""
    st = (Position(players=2)
          .hand(0, "pietas-01", "pietas-02", "pietas-03")
          .hand(1, "virtus-04")
          .build())
    play(st, "0: play pietas-01", "1: play virtus-04")
    assert st.to_move() == (0,) and st.step["pass"] == 2
    events = play(st, "0: play pietas-02")
    assert of_kind(events, "double") == []
    assert step(st) in ("laws", "exchange")
    assert st.players[0]["played"] == ["pietas-01", "pietas-02"]
    assert st.players[0]["hand"] == ["pietas-03"]


def test_l8_no_second_card_without_a_card_left() -> None:
    st = Position(players=2).hand(0, "pietas-01").hand(1, "virtus-04").build()
    events = play(st, "0: play pietas-01", "1: play virtus-04")
    assert of_kind(events, "double") == []
    assert step(st) in ("laws", "exchange")


def test_l8_the_second_card_counts_as_visible_for_bonuses() -> None:
    """pietas-12 scores 1 per other visible pietas card: the owner's own ×2 card is one."""
    st = (Position(players=2)
          .hand(0, "pietas-01", "pietas-12")
          .hand(1, "virtus-04")
          .build())
    play(st, "0: play pietas-01", "1: play virtus-04", "0: play pietas-12")
    [score] = [s for s in of_kind(st.events, "score") if s["seat"] == 0]
    assert score["cards"] == [
        {"card": "pietas-01", "colour": "pietas", "base": 3, "bonus": 0},
        {"card": "pietas-12", "colour": "pietas", "base": 3, "bonus": 1}]
