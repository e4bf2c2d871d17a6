"""The Theme exchange at the end of each round: from the first player clockwise (L11),
each player may discard a card from hand face up, draws 2, discards one of those 2 face
up; an empty deck takes the discards, reshuffled (L11)."""

from __future__ import annotations

from games.core import Decision
from games.leges.position import Position, legal, of_kind, play, step


def exchange(**kw: object) -> Position:
    return (Position(players=3, first=1)
            .at("exchange")
            .hand(0, "pietas-07")
            .hand(1, "pietas-04", "virtus-04")
            .hand(2, "concordia-04")
            .deck("libertas-04", "libertas-05", "libertas-06", "libertas-07"))


def test_l11_exchanges_go_from_the_first_player_clockwise() -> None:
    st = exchange().build()
    assert st.observation(None)["asked"] == {"step": "exchange", "queue": [1, 2, 0]}
    order = []
    while step(st) == "exchange":
        [seat] = st.to_move()
        order.append(seat)
        play(st, "pass")
    assert order == [1, 2, 0]
    assert (st.round, step(st)) == (2, "choose")


def test_summary_discard_from_hand_draw_two_discard_one_of_them() -> None:
    st = exchange().build()
    assert legal(st) == ["discard pietas-04", "discard virtus-04", "draw", "pass"]
    events = play(st, "discard virtus-04")
    assert of_kind(events, "discard") == [{"seat": 1, "card": "virtus-04", "source": "hand"}]
    assert of_kind(events, "draw") == [{"seat": 1, "count": 2}]
    [drawn] = [e for e in events if e.kind == "drawn"]
    assert drawn.seats == (1,) and drawn.data["cards"] == ["libertas-04", "libertas-05"]
    assert st.to_move() == (1,), "the same player now discards one of the 2"
    assert legal(st) == ["discard libertas-04", "discard libertas-05"]
    mine, theirs = st.observation(1)["boards"][1], st.observation(0)["boards"][1]
    assert mine["drawn"] == ["libertas-04", "libertas-05"]
    assert (theirs["drawn"], theirs["drawn_count"]) == (None, 2)
    assert st.decision_seen_by(1, Decision("discard", ("libertas-05",))) is None
    play(st, "discard libertas-05")
    assert st.players[1]["hand"] == ["libertas-04", "pietas-04"]
    obs = st.observation(2)
    assert obs["discard"] == ["virtus-04", "libertas-05"], "both discards are face up"
    assert obs["boards"][1]["discarded"] == ["virtus-04", "libertas-05"]
    assert obs["boards"][1]["hand_size"] == 2
    assert st.to_move() == (2,)


def test_summary_a_player_may_draw_without_discarding_from_hand() -> None:
    st = exchange().build()
    play(st, "pass", "draw")
    assert legal(st) == ["discard libertas-04", "discard libertas-05"]
    play(st, "discard libertas-04")
    assert st.players[2]["hand"] == ["concordia-04", "libertas-05"]
    assert st.to_move() == (0,)


def test_summary_a_player_may_pass_the_whole_exchange() -> None:
    st = exchange().build()
    events = play(st, "pass")
    assert of_kind(events, "exchange-pass") == [{"seat": 1}]
    assert st.players[1]["hand"] == ["pietas-04", "virtus-04"]
    assert st.discard == []


def test_l11_an_empty_deck_takes_the_discards_reshuffled() -> None:
    st = (Position(players=2, first=0)
          .at("exchange")
          .hand(0, "pietas-04").hand(1, "virtus-04")
          .deck("libertas-04", exact=True)
          .discard("concordia-04", "concordia-05")
          .draws("libertas-04", "pietas-04")
          .build())
    assert st.observation(None)["deck"] == 1
    events = play(st, "discard pietas-04")
    kinds = [e.kind for e in events]
    assert kinds.index("reshuffle") > kinds.index("discard")
    [reshuffle] = of_kind(events, "reshuffle")
    assert reshuffle["count"] == 84 - 2 - 1 + 1, "the discard pile, the card just discarded too"
    assert st.players[0]["drawn"] == ["libertas-04", "pietas-04"]
    assert st.discard == []
    play(st, "discard libertas-04")
    assert st.discard == ["libertas-04"]


def test_summary_a_player_without_cards_may_still_draw() -> None:
    st = Position(players=2).at("exchange").hand(1, "virtus-04").deck("pietas-01",
                                                                       "pietas-02").build()
    assert legal(st) == ["draw", "pass"]
    play(st, "draw", "discard pietas-02")
    assert st.players[0]["hand"] == ["pietas-01"]
