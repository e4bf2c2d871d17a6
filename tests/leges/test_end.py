"""The end of the game: after the last season, the VP of each player's visible Laws; a
tie goes to the most VP in one colour; still tied, the win is shared (L12)."""

from __future__ import annotations

from games.leges.position import Position, play
from tests.leges.helpers import pass_exchanges


def final(players: int = 3) -> Position:
    seasons = 3 if players == 5 else 4
    return Position(players=players, first=1).at("exchange", season=seasons, round=3)


def test_summary_the_game_ends_at_the_end_of_the_last_season() -> None:
    st = final().hand(0, "pietas-01").exposed(1, "virtus-04").build()
    play(st, "pass", "pass")
    assert not st.is_over
    play(st, "pass")
    assert st.is_over and st.to_move() == ()
    assert st.players[0]["hand"] == ["pietas-01"], "no deal after the last season"
    assert st.observation(None)["result"]["reason"] == "seasons"
    assert [e.kind for e in st.events][-1] == "end"


def test_summary_score_is_the_vp_of_the_visible_laws() -> None:
    st = (final()
          .laws(0, pietas=2, virtus=1)          # 4 + 1
          .laws(1, libertas=4)                  # 13
          .laws(2, concordia=3, pietas=1)       # 8 + 1
          .points(2, concordia=99)              # points left count for nothing
          .build())
    pass_exchanges(st)
    result = st.result()
    assert result is not None
    assert result.ranking == ((1,), (2,), (0,))
    assert result.scores == ({"vp": 5, "best_colour_vp": 4}, {"vp": 13, "best_colour_vp": 13},
                             {"vp": 9, "best_colour_vp": 8})


def test_summary_a_tie_goes_to_the_most_vp_in_one_colour() -> None:
    st = (final(2)
          .laws(0, pietas=2, virtus=2)          # 4 + 4 = 8, best 4
          .laws(1, libertas=3)                  # 8, best 8
          .build())
    pass_exchanges(st)
    result = st.result()
    assert result is not None and result.ranking == ((1,), (0,))


def test_l12_a_tie_after_the_tie_break_is_a_shared_win() -> None:
    st = (final(4)
          .laws(0, pietas=2, virtus=1)
          .laws(1, libertas=2, concordia=1)
          .laws(2, virtus=2)
          .build())
    pass_exchanges(st)
    result = st.result()
    assert result is not None
    assert result.ranking == ((0, 1), (2,), (3,))
    assert result.rank_of(0) == result.rank_of(1) == 1 and result.rank_of(2) == 3
    assert result.winners == (0, 1)


def test_summary_nobody_with_laws_is_a_tie_of_all() -> None:
    st = final(2).build()
    pass_exchanges(st)
    result = st.result()
    assert result is not None and result.ranking == ((0, 1),)
