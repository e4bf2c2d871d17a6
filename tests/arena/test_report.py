"""arena.report and arena.plot: leaderboard, crosstable, seats, exports and the chart."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from arena.plot import plot_ratings
from arena.report import (
    GAMES_CSV_HEADER,
    LEADERBOARD_HEADERS,
    RATINGS_CSV_HEADER,
    crosstable,
    format_crosstable,
    format_leaderboard,
    format_seat_stats,
    format_void,
    games_csv,
    leaderboard,
    ratings_csv,
    seat_stats,
    standings_line,
    to_json,
)
from ratings.bradley_terry import fit_bradley_terry
from ratings.elo import elo_history
from ratings.records import GameOutcome
from tests.arena.test_ratings import duel, game, tournament, void


def mixed_games() -> list[GameOutcome]:
    """3-seat games in which "slow" forfeits twice (one timeout, one without a reason)."""
    return [
        game(0, ("greedy", "random", "slow"), [[0], [1], [2]]),
        game(1, ("slow", "greedy", "random"), [[1], [2], [0]], forfeits=[0],
             reasons={0: "timeout"}),
        game(2, ("random", "slow", "greedy"), [[2, 0], [1]], forfeits=[1]),
        game(3, ("greedy", "random", "slow"), [[2], [0], [1]]),
    ]


# --- leaderboard ------------------------------------------------------------------------
def test_leaderboard_counts_games_shared_wins_ranks_and_forfeits() -> None:
    rows = {row.name: row for row in leaderboard(mixed_games())}
    greedy, slow = rows["greedy"], rows["slow"]
    assert (greedy.games, greedy.wins, greedy.mean_rank) == (4, 2.5, 1.25)  # 1, 1, 1=, 2
    assert (slow.forfeits, slow.forfeit_reasons) == (2, {"timeout": 1, "unspecified": 1})
    assert rows["random"].forfeits == 0
    assert slow.wins == 1 and slow.mean_rank == 2.5                        # 3, 3, 3, 1


def test_leaderboard_is_sorted_by_the_pairwise_headline() -> None:
    outcomes = tournament(seed=4, games=400, seats=4)
    rows = leaderboard(outcomes)
    assert [row.name for row in rows] == ["best", "good", "mid", "weak"]
    fitted = fit_bradley_terry(outcomes).ratings
    assert all(row.rating == fitted[row.name].elo and row.margin == fitted[row.name].margin
               for row in rows)
    assert all(row.margin > 0 for row in rows)
    assert sum(row.rating for row in rows) == pytest.approx(4 * 1500)


def test_format_leaderboard_has_a_column_per_header() -> None:
    text = format_leaderboard(leaderboard(mixed_games()))
    header, *lines = text.splitlines()
    assert header.split() == ["#", "bot", "rating", "±95%", "seq-elo", "games", "wins",
                              "win%", "mean", "rank", "score%", "forfeits"]
    assert len(LEADERBOARD_HEADERS) == 11 and len(lines) == 3
    slow = next(line for line in lines if " slow " in line)
    assert slow.endswith("2 (timeout 1, unspecified 1)")
    assert [line.split()[0] for line in lines] == ["1", "2", "3"]
    # Right-aligned numbers: each "seq-elo" value ends where the header's "seq-elo" ends.
    elo_end = header.index("seq-elo") + len("seq-elo")
    assert all(line[elo_end - 1].isdigit() and line[elo_end] == " " for line in lines)
    headline = [int(line.split()[2]) for line in lines]
    assert headline == sorted(headline, reverse=True), "sorted by the headline rating"


def test_headline_is_bradley_terry_and_sequential_elo_is_secondary() -> None:
    # The sequential Elo lags: "late" only starts winning at the end, after losing early.
    outcomes = [duel(i, "early", "late") for i in range(20)]
    outcomes += [duel(20 + i, "late", "early") for i in range(12)]
    rows = leaderboard(outcomes)
    assert [row.name for row in rows] == ["early", "late"]   # 20 of 32 wins
    assert rows[0].elo < rows[1].elo, "the sequential Elo says otherwise"
    line = format_leaderboard(rows).splitlines()[1].split()
    assert (line[2], line[4]) == (f"{rows[0].rating:.0f}", f"{rows[0].elo:.0f}")


def test_reports_of_no_games() -> None:
    assert leaderboard([]) == [] and seat_stats([]) == []
    assert format_leaderboard([]).split() == ["#", "bot", "rating", "±95%", "seq-elo", "games",
                                              "wins", "win%", "mean", "rank", "score%",
                                              "forfeits"]
    assert crosstable([]) == ([], [])
    assert to_json([])["ratings"] == []


# --- crosstable -------------------------------------------------------------------------
def test_crosstable_scores_are_complementary() -> None:
    outcomes = [*mixed_games(), duel(4, "greedy", "lonely")]
    names, matrix = crosstable(outcomes)
    assert sorted(names) == ["greedy", "lonely", "random", "slow"]
    for i, a in enumerate(names):
        assert matrix[i][i] is None
        for j, b in enumerate(names):
            ab, ba = matrix[i][j], matrix[j][i]
            if i != j and {a, b} <= {"greedy", "random", "slow"}:
                assert ab is not None and ba is not None and ab + ba == pytest.approx(1)
    lonely, random_ = names.index("lonely"), names.index("random")
    assert matrix[lonely][random_] is None   # never met


def test_crosstable_values_and_format() -> None:
    names, matrix = crosstable(mixed_games(), names=["greedy", "random", "slow"])
    assert matrix[0] == [None, 0.875, 0.75]      # greedy vs random: 1, 1, .5, 1
    text = format_crosstable(names, matrix)
    assert text.splitlines()[0].split() == ["#", "bot", "1", "2", "3"]
    assert text.splitlines()[1].split() == ["1", "greedy", "-", "87.5", "75.0"]
    never_met = format_crosstable(["a", "b"], [[None, None], [None, None]])
    assert never_met.splitlines()[1].split() == ["1", "a", "-", "."]


# --- seats and live line ----------------------------------------------------------------
def test_seat_stats() -> None:
    rows = seat_stats(mixed_games())
    assert [(r.seat, r.games) for r in rows] == [(0, 4), (1, 4), (2, 4)]
    assert [r.wins for r in rows] == [1.5, 1.0, 1.5]
    assert rows[0].win_rate == 0.375 and rows[0].mean_rank == 1.75   # 1, 3, 1=, 2
    lines = format_seat_stats(rows).splitlines()
    assert lines[0].split() == ["seat", "games", "wins", "win%", "mean", "rank"]
    assert lines[1].split() == ["0", "4", "1.5", "37.5", "1.75"]


def test_standings_line() -> None:
    # Bradley–Terry ratings, as the leaderboard's headline (one win, against the prior)
    assert standings_line([duel(0, "greedy", "random")], 30) == \
        "1/30 games · greedy 1631, random 1369"
    assert standings_line([], 30) == "0/30 games"
    many = [duel(i, f"bot{i}", f"bot{i + 10}") for i in range(4)]
    assert standings_line(many, 8, top=2).endswith(", …")


# --- exports ----------------------------------------------------------------------------
def test_to_json_is_serialisable_and_complete() -> None:
    outcomes = mixed_games()
    data = json.loads(json.dumps(to_json(outcomes)))
    assert [GameOutcome.from_json(g) for g in data["games"]] == outcomes
    assert [r["name"] for r in data["ratings"]] == data["crosstable"]["names"]
    assert data["ratings"][0].keys() >= {"rating", "margin", "seq_elo", "forfeits", "wins"}
    assert len(data["seats"]) == 3 and data["rating"]["model"] == "bradley-terry (pairwise)"
    assert data["rating"]["deals"] == 4
    assert data["plackett_luce"].keys() == {"greedy", "random", "slow"}


def test_games_csv_round_trips() -> None:
    outcomes = mixed_games()
    header, *lines = csv.reader(io.StringIO(games_csv(outcomes)))
    assert tuple(header) == GAMES_CSV_HEADER
    assert len(lines) == 12
    fields = [dict(zip(header, line, strict=True)) for line in lines]
    second = [f for f in fields if f["index"] == "1"]
    assert [(f["bot"], f["rank"], f["forfeit"], f["forfeit_reason"]) for f in second] == [
        ("slow", "3", "1", "timeout"), ("greedy", "1", "0", ""), ("random", "2", "0", "")]
    assert {f["seed"] for f in fields} == {str(g.seed) for g in outcomes}


def test_ratings_csv_round_trips() -> None:
    rows = leaderboard(mixed_games())
    header, *lines = csv.reader(io.StringIO(ratings_csv(rows)))
    assert tuple(header) == RATINGS_CSV_HEADER
    assert [line[1] for line in lines] == [row.name for row in rows]
    for line, row in zip(lines, rows, strict=True):
        values = dict(zip(header, line, strict=True))
        assert float(values["rating"]) == pytest.approx(row.rating, abs=0.05)
        low, rating, high = (float(values[key]) for key in
                             ("rating_low", "rating", "rating_high"))
        assert low < rating < high
        assert int(values["forfeits"]) == row.forfeits


# --- plot -------------------------------------------------------------------------------
def test_plot_ratings_writes_a_png(tmp_path: Path) -> None:
    _, history = elo_history(tournament(seed=5, games=200, seats=4))
    path = tmp_path / "elo.png"
    plot_ratings(history, path)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 10_000


# --- void games -------------------------------------------------------------------------
def test_void_games_are_in_their_own_table_and_in_no_other() -> None:
    played = mixed_games()
    replayed = GameOutcome.from_json({**played[3].to_json(), "attempts": 2})
    outcomes = [*played[:3], replayed, void(4, ("greedy", "late", "slow"))]
    assert [row.name for row in leaderboard(outcomes)] == \
        [row.name for row in leaderboard(played)], "'late' played no game that counts"
    assert crosstable(outcomes) == crosstable(played)
    assert seat_stats(outcomes) == seat_stats(played)
    text = format_void(outcomes)
    assert text.splitlines() == [
        "1 void game(s) of 5, counted in no rating; 4 attempt(s) void in all, each played "
        "again with the same deal",
        "game 4 (greedy, late, slow): seat 1 (b) did not start (3 attempts)"]
    assert format_void(played) == ""
    assert standings_line(outcomes, 10).startswith("5/10 games (1 void) · ")
    data = to_json(outcomes)
    assert data["void"] == {"games": [{"index": 4, "reason": "seat 1 (b) did not start",
                                       "attempts": 3}], "attempts": 4}
    rows = list(csv.DictReader(io.StringIO(games_csv(outcomes))))
    assert [(r["rank"], r["void"], r["attempts"]) for r in rows if r["index"] == "4"] == \
        [("", "seat 1 (b) did not start", "3")] * 3
    assert {r["attempts"] for r in rows if r["index"] == "3"} == {"2"}
