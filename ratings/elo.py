"""Elo: expected score and Elo difference, a score's standard error and Elo margin
(as fastchess and cutechess report them), and sequential Elo over games in index order.

Pure: no I/O and nothing beyond the standard library.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from statistics import NormalDist

from ratings.records import GameOutcome, counted, pairwise

ELO_PER_NEPER = 400 / math.log(10)
"""Elo points per unit of natural-log strength: Elo differences are 400·log10 odds."""


def score_from_elo(difference: float) -> float:
    """Expected score at an Elo difference: 1 / (1 + 10^(-d/400)) (Elo 1978, logistic)."""
    return 1 / (1 + 10 ** (-difference / 400))


def elo_from_score(score: float) -> float:
    """Elo difference for an expected score: -400·log10(1/p - 1); ±inf at p = 1 or 0."""
    if not 0 <= score <= 1:
        raise ValueError(f"score {score} is not in [0, 1]")
    if score in (0, 1):
        return math.copysign(math.inf, score - 0.5)
    return -400 * math.log10(1 / score - 1)


def score_with_stderr(wins: int, draws: int, losses: int) -> tuple[float, float]:
    """Mean score per game and its standard error, from the trinomial W/D/L frequencies.

    stderr = sqrt(var / N), var = W(1-s)² + D(1/2-s)² + L(0-s)² with W, D, L frequencies,
    as fastchess and cutechess compute it.
    """
    games = wins + draws + losses
    if games == 0:
        return 0.5, math.inf
    score = (wins + draws / 2) / games
    variance = (wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2
                + losses * score ** 2) / games
    return score, math.sqrt(variance / games)


def elo_margin(score: float, stderr: float, confidence: float = 0.95) -> float:
    """Half-width in Elo of the interval score ± z·stderr, mapped through elo_from_score.

    As fastchess reports "Elo ± margin": (elo(s + z·se) - elo(s - z·se)) / 2, with z the
    two-sided normal quantile; inf when the interval reaches a score of 0 or 1.
    """
    z = normal_quantile(confidence)
    low, high = score - z * stderr, score + z * stderr
    if low <= 0 or high >= 1:
        return math.inf
    return (elo_from_score(high) - elo_from_score(low)) / 2


def normal_quantile(confidence: float) -> float:
    """Two-sided quantile of the standard normal: z with P(|Z| ≤ z) = confidence."""
    return NormalDist().inv_cdf(0.5 + confidence / 2)


# ---------------------------------------------------------------------------------------
# Sequential Elo
# ---------------------------------------------------------------------------------------
def elo_history(outcomes: Iterable[GameOutcome], k: float = 32.0, initial: float = 1500.0
                ) -> tuple[dict[str, float], list[dict[str, float]]]:
    """Sequential Elo (Elo 1978) over the games in `index` order: (final, history).

    Each game applies all its pairwise results at once, from the ratings before the game.
    For a bot a in an n-seat game, with the sum over the seats b of other bots:

        R'_a = R_a + K / (n - 1) · Σ_b (S_ab - E_ab),   E_ab = 1 / (1 + 10^((R_b - R_a) / 400))

    so a 2-seat game is plain Elo and an n-seat game, whose n - 1 comparisons each carry
    K / (n - 1), moves a rating about as much as one 2-player game. Bots start at `initial`
    on their first game. `history[g]` holds every rating after the first g + 1 games that
    count (void games are skipped: `counted`).
    """
    ratings: dict[str, float] = {}
    history: list[dict[str, float]] = []
    for game in counted(outcomes):
        for name in game.seating:
            ratings.setdefault(name, initial)
        for name, change in _elo_changes(game, ratings, k).items():
            ratings[name] += change
        history.append(dict(ratings))
    return dict(ratings), history


def _elo_changes(game: GameOutcome, ratings: Mapping[str, float], k: float
                 ) -> dict[str, float]:
    k_pair = k / (game.seats - 1)
    changes: dict[str, float] = {}
    for a, b, score in pairwise(game):
        step = k_pair * (score - score_from_elo(ratings[a] - ratings[b]))
        changes[a] = changes.get(a, 0.0) + step
        changes[b] = changes.get(b, 0.0) - step
    return changes
