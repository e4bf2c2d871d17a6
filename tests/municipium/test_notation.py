"""Notation for unordered choices: any order is accepted and written one way."""

from __future__ import annotations

import pytest

from games import new_game
from games.core import Decision, NotationError


@pytest.fixture
def state():  # type: ignore[no-untyped-def]
    return new_game("municipium", "classic", 3, seed=1)


@pytest.mark.parametrize(("written", "canonical"), [
    ("keep advocate priest", "keep priest advocate"),
    ("keep priest advocate", "keep priest advocate"),
    ("exchange favour priest priest", "exchange priest priest favour"),
    ("exchange priest favour priest", "exchange priest priest favour"),
    ("exchange advocate militia merchant", "exchange militia merchant advocate"),
])
def test_unordered_choices_parse_to_one_canonical_decision(state, written: str,
                                                           canonical: str) -> None:
    parsed = state.parse(written)
    assert str(parsed) == canonical
    assert parsed == state.parse(canonical)


def test_a_decision_object_in_another_order_is_canonicalized(state) -> None:
    assert state.as_decision(Decision("keep", ("advocate", "priest"))) == \
        state.parse("keep priest advocate")


def test_ordered_choices_are_not_reordered(state) -> None:
    assert str(state.parse("move baths>emporium")) == "move baths>emporium"
    assert state.parse("move baths>emporium") != state.parse("move emporium>baths")
    with pytest.raises(NotationError):
        state.parse("keep priest")
