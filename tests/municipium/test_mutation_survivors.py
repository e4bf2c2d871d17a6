"""Rules that no other test pinned down: each test here fails on a one-line change to the
engine that the project's tests used to let through (issue 23; the mutants and the
command that finds them are in docs/mutation-testing.md)."""

from __future__ import annotations

import json
import random

import pytest

import games
from games import new_game
from games.core import SetupError
from games.municipium import MunicipiumState
from games.municipium.board import COLOURS, COMMON_DECK, INSTITUTIONS
from tests.municipium.position import (
    Position,
    at,
    legal,
    mover,
    of_kind,
    play,
    start_power,
    step,
    temple_order,
)
from tests.test_determinize import midgame


# -- M17 Baths ------------------------------------------------------------------------------
def test_the_baths_power_moves_only_the_users_own_members() -> None:
    """M17: "All the family's own members in the Baths (distinguished or not) move to the
    Temple. [...] Other families' members in the Baths stay." (EN §7.0 Baths; FR-rev
    II Bains, whose « TOUS les Membres de Famille des Bains » could be read as every
    family's members.)"""
    st = (Position("classic", 3)
          .members(blue={"baths": 3, "rest": "praetorium"},
                   orange={"baths": 1, "rest": "tavern"},
                   yellow={"baths*": 1, "rest": "forum"})
          .build())
    events = start_power(st, "blue", "baths")
    assert at(st, "baths") == {"orange": (1, 0), "yellow": (0, 1)}
    assert at(st, "temple") == {"blue": (2, 1)}
    assert of_kind(events, "distinction") == [{"family": "blue", "granted": True}]


# -- M15 Temple -----------------------------------------------------------------------------
def test_the_temple_power_keeps_the_discs_order_between_equal_influence() -> None:
    """M15: "Families with equal influence, including those with none, keep their relative
    order" (EN §7.0 Temple, ties keep their order): yellow's disc is above orange's and
    both have influence 2 (a distinguished member counts 2, M4), so yellow stays above
    orange, although orange sits at an earlier seat."""
    st = (Position("classic", 4)
          .members(blue={"temple": 3, "rest": "praetorium"},
                   orange={"temple": 2, "rest": "tavern"},
                   yellow={"temple*": 1, "rest": "forum"},
                   black={"rest": "baths"})
          .temple("black", "yellow", "orange", "blue")
          .build())
    events = start_power(st, "blue", "temple")
    assert temple_order(st) == ["blue", "yellow", "orange", "black"]
    assert of_kind(events, "temple-order") == [{"order": ["blue", "yellow", "orange", "black"]}]


# -- Setup placement (no id) and M0, in a state rebuilt from an observation ------------------
@pytest.mark.parametrize("variant", ["classic", "revised"])
def test_setup_goes_on_until_every_member_is_placed_in_a_state_rebuilt_mid_setup(
        variant: str) -> None:
    """Setup placement (no id): "each family in turn places one member [...] until every
    family has placed all 7"; the Temple order is built during it (M0, `classic`) or once
    it ends (`revised`). A state rebuilt from an observation in the middle of setup
    (what a bot searching through the service uses) must go on with setup, not start the
    first turn at its next placement."""
    real = new_game("municipium", variant, 3, seed=5)
    rng = random.Random(5)
    for _ in range(8):  # 8 of the 21 members placed
        seat = real.to_move()[0]
        real.apply(seat, rng.choice(real.legal_decisions(seat)))
    rebuilt = games.from_observation(real.observation(None), 11)
    assert isinstance(rebuilt, MunicipiumState)
    for _ in range(13):
        assert rebuilt.observation(None) == real.observation(None)
        seat = real.to_move()[0]
        assert rebuilt.to_move() == (seat,)
        decision = rng.choice(real.legal_decisions(seat))
        assert rebuilt.legal_decisions(seat) == real.legal_decisions(seat)
        real.apply(seat, decision)
        rebuilt.apply(seat, decision)
        assert [e.kind for e in rebuilt.events] == [e.kind for e in real.events]
    assert real.turn == rebuilt.turn == 1
    assert temple_order(rebuilt) == temple_order(real)


# -- Information (no id): determinize resamples the hidden deck order -------------------------
def test_determinize_samples_the_common_deck_order_anew_for_each_seed() -> None:
    """Information (no id) and M9: the common deck's order is hidden, so a
    determinization must sample it: different seeds give different orders (not one
    fixed order, e.g. the deck sorted), and the real order is not the only one seen."""
    state = midgame()
    orders = {tuple(state.determinize(0, k).deck) for k in range(16)}
    assert len(orders) > 8, f"determinize gives {len(orders)} deck orders for 16 seeds"


def test_determinize_depends_only_on_what_the_seat_sees() -> None:
    """Information (no id): the deck order is hidden from every family, so two states that
    differ only in it (rebuilt from one observation with two seeds) determinize, for one
    seed, to the same state: the real order must not seed the resampled one."""
    view = midgame().observation(1)
    one, two = games.from_observation(view, 1), games.from_observation(view, 2)
    assert isinstance(one, MunicipiumState) and isinstance(two, MunicipiumState)
    assert one.deck != two.deck
    for k in range(4):
        assert one.determinize(1, k).to_bytes() == two.determinize(1, k).to_bytes()


# -- M17 Baths: the last wreath ---------------------------------------------------------------
def test_m17_the_last_wreath_left_is_still_granted() -> None:
    """M17: one undistinguished member in the Temple "receives a wreath from the supply";
    only "no wreath left" prevents it. With one wreath left, it is granted."""
    st = (Position("classic", 3)
          .members(blue={"baths": 2, "rest": "praetorium"},
                   orange={"rest": "tavern"}, yellow={"rest": "forum"})
          .wreaths(1).build())
    events = start_power(st, "blue", "baths")
    assert of_kind(events, "distinction") == [{"family": "blue", "granted": True}]
    assert at(st, "temple") == {"blue": (1, 1)} and st.wreath_supply == 0


# -- M12 One Power ----------------------------------------------------------------------------
def test_m12_one_power_is_offered_to_a_family_holding_every_majority() -> None:
    """M12 One Power: "each family in turn may use the power of one Institution where it
    holds the majority at that moment"; only "a family with no majority anywhere is passed
    over". Blue, distinguished in all seven Institutions, holds every majority (M4: a
    distinguished member counts 2) and chooses among all seven powers; the public step
    lists them (docs/bots.md, `choose-power`)."""
    everywhere = {f"{i}*": 1 for i in INSTITUTIONS}
    one_each = {i: 1 for i in INSTITUTIONS}
    st = (Position("classic", 3)
          .members(blue=everywhere, orange=one_each, yellow=one_each)
          .deck("one-power").build())
    play(st, "play common")
    assert mover(st) == "blue"
    assert legal(st) == [f"power {i}" for i in INSTITUTIONS] + ["skip"]
    assert st.observation(0)["asked"]["institutions"] == list(INSTITUTIONS)


# -- M8 Emporium and an emptied bag -------------------------------------------------------------
def test_m8_the_emporium_ends_when_the_bag_empties() -> None:
    """M8: "a draw from an empty bag draws nothing and the step that needed it is skipped
    [...] the Emporium power ends". The bag holds one merchant: blue draws and places it,
    then is not asked to draw again or stop: the power is over."""
    st = (Position().members(blue={"emporium": 7}, orange={"basilica": 7},
                             yellow={"forum": 7})
          .supply(blue={"priest": 20, "militia": 20, "merchant": 19},
                  orange={"advocate": 20})
          .rooms().build())
    assert st.bag == [0, 0, 1, 0]
    start_power(st, "blue", "emporium")
    assert legal(st) == ["place merchant baths", "place merchant emporium"]
    play(st, "place merchant baths")
    assert st.bag == [0, 0, 0, 0] and step(st) == "turn"


# -- M19 Basilica: the exchange is told ---------------------------------------------------------
def test_m19_the_basilica_exchange_is_announced_with_what_was_paid() -> None:
    """M19: the family exchanges 3 of its citizens and/or Favours "for one Decurion token";
    the `decurion` event names the family and the tokens paid (what every viewer and the
    narration learn of it)."""
    st = (Position("classic", 3)
          .members(blue={"basilica": 3, "rest": "praetorium"},
                   orange={"rest": "tavern"}, yellow={"rest": "forum"})
          .supply(blue={"priest": 2, "favour": 1}).build())
    start_power(st, "blue", "basilica")
    events = play(st, "exchange priest priest favour")
    assert of_kind(events, "decurion") == [
        {"family": "blue", "paid": ["priest", "priest", "favour"]}]


# -- C-M1 seats and families; setup --------------------------------------------------------------
def test_c_m1_seats_are_the_families_in_colour_order_and_only_the_mover_decides() -> None:
    """C-M1: seat i plays the i-th family colour (blue, orange, yellow, black, pink in
    `classic`); setup placement goes family by family, so only the family to place has
    decisions."""
    st = MunicipiumState.new("classic", 5, seed=2)
    assert st.seat_names() == ["blue", "orange", "yellow", "black", "pink"]
    mover_seat = st.to_move()[0]
    assert len(st.legal_decisions(mover_seat)) == 7
    assert all(st.legal_decisions(s) == [] for s in range(5) if s != mover_seat)


def test_variants_the_default_game_is_classic_for_four_families() -> None:
    """Variants: `classic` (EN, the reference text) is the default variant; 4 families and
    seed 0 are the defaults of `MunicipiumState.new`."""
    st = MunicipiumState.new()
    assert (st.variant, st.num_seats, st.seed) == ("classic", 4, 0)
    assert st.options == {"target_decurions": 5, "max_turns": 600}


def test_variants_setup_refuses_unknown_variants_seat_counts_and_options() -> None:
    """Variants: `classic` 3-5 families, `revised` 2-4; options `target_decurions` 4-5
    and `max_turns` 1-10 000, integers (not booleans, not text)."""
    with pytest.raises(SetupError, match="unknown Municipium variant 'modern'; "
                                         "variants: classic, revised"):
        MunicipiumState.new("modern", 3)
    with pytest.raises(SetupError, match="Municipium revised takes 2-4 families, not 5"):
        MunicipiumState.new("revised", 5)
    with pytest.raises(SetupError, match="unknown option 'speed'; "
                                         "options: target_decurions, max_turns"):
        MunicipiumState.new("classic", 3, {"speed": 1})
    for value in (True, "5", 3, 6):
        with pytest.raises(SetupError, match="option target_decurions must be an integer "
                                             "from 4 to 5"):
            MunicipiumState.new("classic", 3, {"target_decurions": value})
    with pytest.raises(SetupError, match=r"option max_turns must be an integer from 1 to "
                                         r"10000 \(safety limit"):
        MunicipiumState.new("classic", 3, {"max_turns": True})


# -- Chance, copies and rebuilt states (Information, the conformance gate) -----------------------
def test_the_chance_kinds_list_every_outcome() -> None:
    """Two kinds of chance: a citizen from the bag (4 colours) and the common card drawn
    (M9); each lists every outcome it may produce, other kinds none."""
    st = MunicipiumState.new("classic", 3, seed=1)
    assert st.chance_outcomes("citizen") == set(COLOURS)
    assert st.chance_outcomes("card") == set(COMMON_DECK)
    assert st.chance_outcomes("dice") is None


def test_a_game_loaded_from_its_bytes_goes_on_exactly_like_the_game() -> None:
    """A saved game (`to_bytes`, `games.load`) keeps everything, its RNG included: the
    next citizens drawn and the next cards are the same."""
    real = midgame()
    loaded = games.load(real.to_bytes())
    assert isinstance(loaded, MunicipiumState)
    assert loaded.to_bytes() == real.to_bytes()
    assert loaded.observation(1) == real.observation(1)
    draws = [(a.draw_citizen(), a.draw_card()) for a in (real.clone(), loaded) for _ in range(5)]
    assert draws[:5] == draws[5:]


def test_information_a_determinization_has_no_game_seed_and_takes_fixed_draws() -> None:
    """Information (no id): the game's seed would give the deck away, so a determinization
    has none (0); a bot may still fix the next draws on it (`fix_chance`)."""
    st = midgame()
    for k in range(3):
        twin = st.determinize(2, k)
        assert twin.seed == 0
        twin.fix_chance("citizen", "advocate", "priest")
        assert [twin.draw_citizen(), twin.draw_citizen()] == [3, 0]


def test_states_rebuilt_from_observations_agree_through_whole_games() -> None:
    """A state rebuilt from what one family sees (or a spectator) shows that viewer the
    same, gives it the same decisions and holds the same common cards: deck, discard pile
    (M9: a card goes there once resolved) and the card being resolved; it knows no game
    seed; once the game is over, it is over with the same result (M14)."""
    for seed in (1, 2):
        real = new_game("municipium", "classic", 4, seed=seed)
        assert isinstance(real, MunicipiumState)
        rng = random.Random(seed)
        for _ in range(2000):  # a random game takes a few hundred decisions
            if real.is_over:
                break
            seat = real.to_move()[0]
            for viewer in (seat, None):
                view = json.loads(json.dumps(real.observation(viewer)))
                rebuilt = games.from_observation(view, rng.randrange(100))
                assert isinstance(rebuilt, MunicipiumState)
                assert rebuilt.observation(viewer) == real.observation(viewer)
                assert rebuilt.to_move() == real.to_move() and rebuilt.seed == 0
                assert rebuilt.legal_decisions(seat) == real.legal_decisions(seat)
                assert cards(rebuilt) == cards(real)
            real.apply(seat, rng.choice(real.legal_decisions(seat)))
        assert real.is_over, "the game did not end"
        rebuilt = games.from_observation(json.loads(json.dumps(real.observation(None))), 0)
        assert rebuilt.is_over and rebuilt.result() == real.result()


def cards(st: MunicipiumState) -> tuple[int, list[str]]:
    """The number of cards in the deck and the common cards, wherever they are."""
    in_play = [f["card"] for f in st.frames if f["k"] == "discard"]
    return len(st.deck), sorted(st.deck + st.discard + in_play)


# -- Information: a rebuilt state is the real one but for the hidden parts -----------------------
#: What `to_json` holds that no observation shows: the deck order, the RNG, the game seed.
HIDDEN_FIELDS = {"deck", "rng", "seed"}


def public_fields(st: MunicipiumState) -> dict[str, object]:
    """The state's serialization without its hidden fields."""
    data = json.loads(st.to_bytes())["state"]
    return {name: value for name, value in data.items() if name not in HIDDEN_FIELDS}


def test_information_a_rebuilt_state_serializes_like_the_real_one_but_for_hidden_parts() -> None:
    """Information (no id): "Everything on the table is public"; hidden are only "the
    order of the common deck and the contents of the bag in draw order". So a state
    rebuilt from any seat's observation saves what the real one saves (board, members
    placed, meeting rooms), those aside: in setup, mid-game, and after setup with a
    distinguished member (all 7 members of each family placed, wreathed or not)."""
    distinguished = (Position("classic", 3)
                     .members(blue={"temple*": 1, "rest": "forum"},
                              orange={"rest": "tavern"}, yellow={"rest": "baths"})
                     .build())
    for real in (MunicipiumState.new("classic", 3, seed=4), midgame(), distinguished):
        for viewer in (None, 0):
            view = json.loads(json.dumps(real.observation(viewer)))
            rebuilt = games.from_observation(view, 7)
            assert isinstance(rebuilt, MunicipiumState)
            assert public_fields(rebuilt) == public_fields(real)


# -- M9 reshuffle, on copies ---------------------------------------------------------------
def test_m9_a_copy_of_the_game_rebuilds_its_empty_deck_and_tells_it() -> None:
    """M9: "an empty deck is rebuilt from the discard pile" and the reshuffle is told
    (`reshuffle` event); a clone, a saved-and-loaded game and a state rebuilt from an
    observation have no events of their own yet and behave like the game when their
    deck runs out."""
    real = (Position().members(blue={"rest": "temple"}, orange={"rest": "temple"},
                               yellow={"rest": "temple"})
            .deck(discard=COMMON_DECK).build())
    rebuilt = games.from_observation(real.observation(1), 3)
    loaded = games.load(real.to_bytes())
    for copy in (real.clone(), loaded, rebuilt):
        assert isinstance(copy, MunicipiumState)
        assert copy.events == [] and copy.deck == []
        assert copy.draw_card() in COMMON_DECK
        assert of_kind(copy.events, "reshuffle") == [{"cards": 12}]
        assert len(copy.deck) == 11 and copy.discard == []
