"""Cicéron states made from other states: serialization (`to_json`/`from_json`, bytes),
`determinize`, `state_from_observation` (`games.from_observation`), and the observation's
pending steps (`asked`, `agenda`) they are rebuilt from.

Each test pins a guarantee of `games/ciceron/state.py` or `games/ciceron/observation.py`
that a one-line change to the engine used to break unnoticed (issue 23, mutation testing:
docs/mutation-testing.md); the equivalent changes are listed beside the mutation run.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

import games
from games.ciceron.cardset import load_default_card_set
from games.ciceron.observation import pending_steps
from games.ciceron.position import Position, inconsistencies, play, senators_where
from games.ciceron.state import CiceronState

CARDS = load_default_card_set()
OP = "orator-pontifex"
#: Fields of the state's serialization that hold hidden parts (orders, hands, draws...).
HIDDEN = ("seed", "piles", "decks", "ciceron_deck", "families", "draft", "rng")
#: Per-family fields private to the family (C5).
PRIVATE = ("hand", "drawn", "vote")


def public_part(st: CiceronState) -> dict[str, Any]:
    """Everything every seat may see in the state's serialization (C5): the hidden fields
    dropped, the families without their private fields, the draft without its packet."""
    data = json.loads(json.dumps(st.to_json()))
    public = {k: v for k, v in data.items() if k not in HIDDEN}
    public["families"] = [{k: v for k, v in fam.items() if k not in PRIVATE}
                          for fam in data["families"]]
    public["draft"] = {k: v for k, v in data["draft"].items() if k != "packet"}
    public["piles"] = {pile: len(cards) for pile, cards in data["piles"].items()}
    public["decks"] = {caste: len(cards) for caste, cards in data["decks"].items()}
    return public


def rebuilt(real: CiceronState, viewer: int | None, seed: int = 0) -> CiceronState:
    """A state rebuilt from what `viewer` sees of `real`, through JSON text."""
    view = json.loads(json.dumps(real.observation(viewer)))
    st = games.from_observation(view, seed)
    assert isinstance(st, CiceronState)
    return st


def random_positions(families: int, seed: int, decisions: int) -> list[CiceronState]:
    """Every `decisions // 12`-th position of the first `decisions` of a random game."""
    st = games.new_game("ciceron", None, families, seed=seed)
    assert isinstance(st, CiceronState)
    rng = random.Random(seed)
    found = []
    for n in range(decisions):
        if st.is_over:
            break
        if n % (decisions // 12) == 0:
            found.append(st.clone())
        seat = rng.choice(st.to_move())
        st.apply(seat, rng.choice(st.legal_decisions(seat)))
    return found


def election() -> CiceronState:
    """Phase I of turn 2: every family votes, the rest of the turn on the agenda."""
    return Position(3).at("election", turn=2).princeps("aemilii").build()


def servants() -> CiceronState:
    """Phase III of turn 2 with spots already taken; iulii places next."""
    return (Position(3).at("servants", turn=2, placer="iulii").princeps("aemilii")
            .spots({"emporium-upper": "aemilii", "subura-lower": "cornelii"}).build())


def senate_short_pile() -> CiceronState:
    """Aemilii placed on the orator-pontifex Senate spot with 5 senators left in that pile:
    it drew 4, iulii the last one, cornelii none (C12, C-C3); aemilii recruits first."""
    five = senators_where(pile=OP)[:5]
    st = (Position(3).at("servants", turn=2, placer="aemilii").princeps("aemilii")
          .pile(OP, *five, exact=True).build())
    play(st, f"place senate-{OP}")
    assert [len(fam["drawn"]) for fam in st.families] == [4, 1, 0]
    return st


# -- state_from_observation ---------------------------------------------------------------
def test_c5_a_rebuilt_state_has_exactly_the_public_state_of_the_real_one() -> None:
    """C5: all that is not hidden is public, so a state rebuilt from any family's (or a
    spectator's) observation holds the real state's public part exactly: spots held by
    seats (or the Automatii), majorities, the rule steps pending, the draft order; and the
    viewer's own hand, draws and vote."""
    positions = [election(), servants(), senate_short_pile(),
                 Position(2).at("servants", turn=2).princeps("iulii")
                 .spots({"emporium-upper": "automatii"}).build(),
                 *random_positions(3, seed=11, decisions=240)]
    assert any(f["k"] == "election" for st in positions for f in st.frames)
    for real in positions:
        for viewer in (*range(real.num_seats), None):
            copy = rebuilt(real, viewer)
            assert public_part(copy) == public_part(real)
            if viewer is not None:
                for part in PRIVATE:
                    mine, theirs = copy.families[viewer][part], real.families[viewer][part]
                    assert (sorted(mine) if part == "hand" else mine) == \
                        (sorted(theirs) if part == "hand" else theirs)


def test_c5_a_rebuilt_state_plays_on_with_the_same_decisions_and_spots() -> None:
    """C5, C12: the spots taken are public: a state rebuilt from an observation offers the
    same places to the family placing its servant, and after it, the same next steps."""
    real = servants()
    for viewer in (1, None):
        copy = rebuilt(real, viewer)
        assert copy.spots == real.spots
        assert copy.legal_decisions(1) == real.legal_decisions(1)
        after = real.clone()
        play(copy, "place exercitus-lower")
        play(after, "place exercitus-lower")
        assert copy.spots == after.spots and copy.to_move() == after.to_move()


def test_a_rebuilt_state_starts_with_no_events_and_then_emits_them() -> None:
    """`GameState.events` holds the events of the last transition: a state rebuilt from an
    observation has had none yet, and its next decision emits its own."""
    real = servants()
    copy = rebuilt(real, 1, seed=4)
    assert copy.events == []
    events = play(copy, "place exercitus-lower")
    assert copy.events == events and [e.kind for e in events][0] == "place"


def test_c3_an_observation_of_another_card_set_is_refused() -> None:
    """C3: a game records the digest of its card set and refuses another: rebuilding a
    state from an observation made with another set is a ValueError naming that set."""
    view = json.loads(json.dumps(election().observation(0)))
    view["card_set"] = {"name": "the book's cards", "digest": "0" * 64}
    message = "the observation is of a game played with another card set (\"the book's cards\")"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        games.from_observation(view, 0)


# -- the observation's pending steps ------------------------------------------------------
def test_no_step_is_asked_while_the_material_is_only_laid_out() -> None:
    """docs/bots.md, `asked` and `agenda`: before the draft begins (`CiceronState.setup`:
    the material laid out, no step pending yet) nothing is asked and nothing is to come."""
    st = CiceronState.setup(CARDS, 3, {}, 0)
    assert pending_steps(st) == (None, [])


def test_the_election_step_lists_the_families_still_to_vote() -> None:
    """C1 (simultaneous votes): the election step shows the families that have not voted
    yet; a state rebuilt after one vote asks the others, and its own pending steps carry
    no stale list."""
    real = election()
    play(real, "iulii: vote aemilii")
    asked, _ = pending_steps(real)
    assert asked == {"step": "election", "seats": [0, 2]}
    copy = rebuilt(real, 0)
    assert copy.frames == real.frames
    play(copy, "aemilii: vote aemilii")
    assert pending_steps(copy)[0] == {"step": "election", "seats": [2]}
    assert copy.frames[-1] == {"k": "election"}


# -- determinize --------------------------------------------------------------------------
def test_c5_determinized_draws_are_redrawn_from_the_pile_they_came_from() -> None:
    """C5, C-C3: the senators another family drew at a Senate spot are hidden; a
    determinization redraws them from the same pile, as many as it drew (one, when the pile
    ran short), and the viewer sees the same game."""
    real = senate_short_pile()
    for k in range(8):
        twin = real.determinize(0, k)
        assert twin.observation(0) == real.observation(0)
        assert [len(fam["drawn"]) for fam in twin.families] == [4, 1, 0]
        assert all(CARDS.senator(sid).pile == OP for fam in twin.families
                   for sid in fam["drawn"])
        assert inconsistencies(twin) == []
    real = (Position(3).at("servants", turn=2, placer="iulii").princeps("aemilii").build())
    play(real, f"place senate-{OP}")
    for k in range(8):
        twin = real.determinize(1, k)
        assert [len(fam["drawn"]) for fam in twin.families] == [2, 4, 2]
        assert all(CARDS.senator(sid).pile == OP for fam in twin.families
                   for sid in fam["drawn"])
        assert inconsistencies(twin) == []


def test_a_determinized_state_accepts_fixed_draws() -> None:
    """`fix_chance` is for scenario tests and for bots exploring a given draw: it is not
    kept by `determinize`, but works on the determinized copy."""
    real = servants()
    real.fix_chance("action", real.decks["orator"][0])
    twin = real.determinize(1, 3)
    card = twin.decks["orator"][0]
    assert twin.fixed_outcome("action") is None
    twin.fix_chance("action", card)
    assert twin.draw_action(1, "orator") == card


# -- serialization and chance -------------------------------------------------------------
def test_c3_a_saved_game_of_another_card_set_is_refused() -> None:
    """C3: a game records the digest of its card set and refuses to load with another; the
    ValueError names both sets and the first 12 digits of their digests."""
    data = json.loads(json.dumps(election().to_json()))
    data["card_set"] = {"name": "the book's cards", "digest": "0123456789abcdef" * 4}
    message = (f"this game was played with card set \"the book's cards\" (0123456789ab), "
               f"not the loaded {CARDS.name!r} ({CARDS.digest[:12]})")
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        CiceronState.from_json(data, CARDS)


def test_a_loaded_game_starts_with_no_events_and_plays_on_identically() -> None:
    """Serialization is lossless: `games.load(to_bytes())` gives the same bytes, no events
    yet, and goes on like the game."""
    real = servants()
    loaded = games.load(real.to_bytes())
    assert isinstance(loaded, CiceronState)
    assert loaded.to_bytes() == real.to_bytes() and loaded.events == []
    assert play(loaded, "place exercitus-lower") == play(real, "place exercitus-lower")
    assert loaded.to_bytes() == real.to_bytes()


def test_a_fixed_draw_of_a_card_not_in_the_deck_is_refused() -> None:
    """`fix_chance`: a fixed action card must be in the deck it is drawn from; otherwise
    the draw is a ValueError naming the card."""
    st = servants()
    other = st.decks["belligerator"][0]
    st.fix_chance("action", other)
    message = f"fixed draw: {other!r} is not in that deck"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        st.draw_action(1, "orator")


def test_the_turn_number_is_the_rule_books_turn() -> None:
    """`turn_number`: the turn as the book counts them (5 turns with 3 families), 0 during
    the opening draft."""
    assert Position(3).at("servants", turn=2).princeps("aemilii").build().turn_number() == 2
    assert games.new_game("ciceron", None, 3, seed=1).turn_number() == 0
