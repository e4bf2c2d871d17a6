"""Derived seeds (games.core.derive_seed): a series, a tournament or a bot gets independent
seeds from one seed and labels. Regression: labels used to be folded into the low bits
without mixing, so `curia simulate -n 4000` played about a hundred distinct games."""

from __future__ import annotations

from games.core import derive_seed


def test_a_series_gets_a_distinct_seed_per_game() -> None:
    assert len({derive_seed(1, i) for i in range(4000)}) == 4000
    assert len({derive_seed(2026, "group", g, "rotation", r)
                for g in range(300) for r in range(5)}) == 1500


def test_labels_are_kept_apart() -> None:
    assert derive_seed(1, "ab", "c") != derive_seed(1, "a", "bc")
    assert derive_seed(1, "bot", 0) != derive_seed(1, "bot0")
    assert derive_seed(1, 7) != derive_seed(2, 7)


def test_seeds_are_stable_and_non_negative() -> None:
    assert derive_seed(5, "x") == derive_seed(5, "x")
    assert all(0 <= derive_seed(s, "game", i) < 2**63 for s in range(20) for i in range(20))
