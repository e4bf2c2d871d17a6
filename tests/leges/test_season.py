"""The end of a season: exposed Themes to the discard, 5 new cards each stopping at 8 (L10),
tokens on Value card 1 (5) moved to the nearest space of card 2 (4); 3 seasons with 5
players."""

from __future__ import annotations

from games.leges.position import Position, of_kind, play, step
from tests.leges.helpers import pass_exchanges

P = [f"pietas-{n:02d}" for n in range(1, 22)]
V = [f"virtus-{n:02d}" for n in range(1, 22)]


def last_round(players: int = 3, season: int = 1) -> Position:
    return (Position(players=players, first=2)
            .at("exchange", season=season, round=3)
            .hand(0, *P[:2])
            .hand(1, *P[2:7])
            .hand(2, *P[7:14])
            .exposed(0, "libertas-01", "libertas-02", "libertas-03")
            .exposed(1, "libertas-04", "libertas-05")
            .exposed(2, "libertas-06", "libertas-07", "libertas-08", "libertas-09"))


def test_summary_rounds_advance_within_a_season() -> None:
    st = Position(players=2).at("exchange", round=1).hand(0, "pietas-01").build()
    pass_exchanges(st)
    assert (st.season, st.round, step(st)) == (1, 2, "choose")
    assert of_kind(st.events, "round") == [{"season": 1, "round": 2}]
    assert of_kind(st.events, "season-end") == []
    assert st.players[0]["hand"] == ["pietas-01"], "no deal between rounds"


def test_summary_end_of_season_discards_the_exposed_themes() -> None:
    st = last_round().build()
    pass_exchanges(st)
    assert (st.season, st.round) == (2, 1)
    assert of_kind(st.events, "season-end") == [{"season": 1}]
    assert sorted(st.discard) == [f"libertas-{n:02d}" for n in range(1, 10)]
    assert all(p["exposed"] == [] and p["played"] == [] for p in st.players)


def test_l10_five_new_cards_each_stopping_at_eight() -> None:
    st = last_round().build()
    pass_exchanges(st)
    assert [len(p["hand"]) for p in st.players] == [7, 8, 8]
    deals = [(d["seat"], d["count"]) for d in of_kind(st.events, "deal")]
    assert deals == [(2, 1), (0, 5), (1, 3)], "from the first player clockwise"
    dealt = [e for e in st.events if e.kind == "dealt"]
    assert all(e.seats == (e.data["seat"],) for e in dealt), "each sees its own cards"


def test_summary_tokens_on_the_outer_value_cards_come_back() -> None:
    st = last_round().values(pietas=0, virtus=2, libertas=12, concordia=14).build()
    pass_exchanges(st)
    assert st.values == {"pietas": 3, "virtus": 3, "libertas": 11, "concordia": 11}
    resets = {r["colour"]: (r["before"], r["after"]) for r in of_kind(st.events, "value-reset")}
    assert resets == {"pietas": (0, 3), "virtus": (2, 3), "libertas": (12, 11),
                      "concordia": (14, 11)}


def test_summary_tokens_on_the_inner_value_cards_stay() -> None:
    st = last_round().values(pietas=3, virtus=5, libertas=9, concordia=11).build()
    pass_exchanges(st)
    assert st.values == {"pietas": 3, "virtus": 5, "libertas": 9, "concordia": 11}
    assert of_kind(st.events, "value-reset") == []


def test_l11_the_deal_reshuffles_the_discards_and_the_exposed_themes() -> None:
    st = last_round().deck(*V[:3], exact=True).build()
    assert st.observation(None)["deck"] == 3
    pass_exchanges(st)
    [reshuffle] = of_kind(st.events, "reshuffle")
    assert reshuffle["count"] == 84 - 14 - 3, "every card but the hands and the 3 dealt"
    assert [len(p["hand"]) for p in st.players] == [7, 8, 8]
    assert st.discard == []


def test_summary_five_players_play_three_seasons() -> None:
    st = Position(players=5).at("exchange", season=3, round=3).build()
    assert st.seasons == 3
    pass_exchanges(st)
    assert st.is_over and step(st) == "over"
    four = Position(players=4).at("exchange", season=3, round=3).build()
    pass_exchanges(four)
    assert (four.season, four.round, four.is_over) == (4, 1, False)


def test_summary_the_round_marker_in_observations() -> None:
    st = last_round(season=2).build()
    obs = st.observation(0)
    assert (obs["season"], obs["round"], obs["agenda"]) == (2, 3, ["end-of-season"])
    play(st, "pass", "pass", "pass")
    obs = st.observation(0)
    assert (obs["season"], obs["round"]) == (3, 1)
    assert st.turn_number() == 7
