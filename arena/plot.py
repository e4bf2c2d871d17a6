"""A PNG chart of each bot's sequential Elo over the games of a tournament."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence


def plot_ratings(history: Sequence[Mapping[str, float]], path: str | os.PathLike[str], *,
                 title: str = "Elo over games") -> None:
    """Write a line chart of `history` (ratings after each game, from `elo_history`).

    x: games played (1 for the ratings after the first game), y: Elo; one line per bot
    from its first game on, named in the legend. Uses matplotlib's Agg backend, so it
    needs no display.
    """
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, axes = pyplot.subplots(figsize=(8, 4.5), dpi=100)
    try:
        for name in _names_by_final_rating(history):
            points = [(played, ratings[name])
                      for played, ratings in enumerate(history, start=1) if name in ratings]
            axes.plot([x for x, _ in points], [y for _, y in points], label=name, linewidth=1.2)
        axes.set_title(title)
        axes.set_xlabel("games played")
        axes.set_ylabel("Elo")
        axes.grid(True, alpha=0.3)
        if history:
            axes.legend(loc="best", fontsize="small")
        figure.tight_layout()
        figure.savefig(path, format="png")
    finally:
        pyplot.close(figure)


def _names_by_final_rating(history: Sequence[Mapping[str, float]]) -> list[str]:
    """Bots by last rating, best first, so the legend reads like a leaderboard."""
    final: dict[str, float] = {}
    for ratings in history:
        final.update(ratings)
    return sorted(final, key=lambda name: (-final[name], name))
