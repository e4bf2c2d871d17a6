"""Rules that no other test pinned down: each test here fails on a one-line change to the
engine that the project's tests used to let through (issue 23; the mutants and the
command that finds them are in docs/mutation-testing.md)."""

from __future__ import annotations

import json
import random

import pytest

import games
from games.core import NotationError
from games.leges.cardset import load_default_card_set
from games.leges.position import Position, legal, of_kind, play
from games.leges.rules import HOLD
from games.leges.state import LegesState

CARDS = load_default_card_set()
ALL = sorted(t.id for t in CARDS.themes)


def every_card(st: LegesState) -> list[str]:
    return sorted(st.deck + st.discard + [c for p in st.players
                                          for c in p["hand"] + p["exposed"] + p["drawn"]])


# -- Abilities: shift (docs/leges-cards.md), L9, C-L2 ---------------------------------------
def test_a_shift_ability_may_move_down_a_token_next_to_the_card_1_end() -> None:
    """The `shift` ability (L3, docs/leges-cards.md): "its owner may move one Value token
    (any colour) `amount` spaces up or down"; C-L2: "only moves that change a token are
    offered"; L9: "Value tokens stop at the ends of the track". Virtus on space 1 (next to
    the card-1 end, space 0) can go down: a 2-space shift takes it to 0 and stops there.
    Concordia, on space 0, cannot go down."""
    st = (Position(players=2)
          .hand(0, "pietas-20").hand(1, "libertas-04")
          .values(virtus=1, concordia=0)
          .build())
    play(st, "0: play pietas-20", "1: play libertas-04")
    options = legal(st)
    assert {"shift virtus up", "shift virtus down", "shift concordia up"} <= set(options)
    assert "shift concordia down" not in options, "a token at the end cannot go further"
    [move] = of_kind(play(st, "shift virtus down"), "value")
    assert (move["by"], move["before"], move["after"]) == (-2, 1, 0)
    assert st.values["virtus"] == 0


# -- L11, C-L9: the empty deck takes the discards, shuffled -----------------------------------
def test_l11_the_discards_are_shuffled_into_a_new_deck() -> None:
    """L11: "The discards are reshuffled into a new deck" (C-L9: the moment a draw finds
    the deck empty). The new deck's order is chance: it is neither the discard pile's order
    nor one fixed order (the cards sorted, say), and it changes with the game's seed."""
    new_decks = set()
    for seed in range(8):
        st = (Position(players=2, first=0, seed=seed)
              .at("exchange")
              .hand(0, "pietas-04").hand(1, "virtus-04")
              .deck("libertas-04", exact=True)
              .build())
        pile = list(st.discard)
        events = play(st, "draw")
        assert of_kind(events, "reshuffle") == [{"count": len(pile)}]
        [second] = [card for card in st.players[0]["drawn"] if card != "libertas-04"]
        new_deck = [*st.deck, second]  # the top card (drawn first) last
        assert sorted(new_deck) == sorted(pile)
        assert new_deck not in (pile, pile[::-1]), "the pile was not shuffled"
        new_decks.add(tuple(new_deck))
    assert len(new_decks) == 8, "the new deck's order does not change with the seed"


# -- L7: every blocked request is reported ----------------------------------------------------
def test_l7_every_blocked_request_of_the_round_is_reported() -> None:
    """L7: the requesters of each colour and tier buy in order while cards remain. Two
    colours sold out in one round: both players left without a card are told (the `laws`
    event lists every blocked request, not only the last colour's)."""
    st = (Position(players=4, first=0).at("laws")
          .stacks(pietas=[1, 3, 2, 1], virtus=[1, 3, 2, 1])
          .points(0, pietas=12).points(1, pietas=8)
          .points(2, virtus=12).points(3, virtus=8)
          .build())
    play(st, "0: law pietas 1", "1: law pietas 1", "2: law virtus 1", "3: law virtus 1")
    [laws] = of_kind(st.events, "laws")
    assert [(b["seat"], b["colour"]) for b in laws["bought"]] == [(0, "pietas"), (2, "virtus")]
    assert laws["blocked"] == [
        {"seat": 1, "colour": "pietas", "tier": 1, "why": "sold-out"},
        {"seat": 3, "colour": "virtus", "tier": 1, "why": "sold-out"}]


# -- C-L10 and L10: the end of a season -------------------------------------------------------
def last_round() -> Position:
    """The last exchange of season 1, 2 players: passing both ends the season."""
    return (Position(players=2, first=0).at("exchange", season=1, round=3)
            .hand(0, *(f"pietas-{n:02d}" for n in range(1, 9)))
            .hand(1, "virtus-01", "virtus-02"))


def test_c_l10_every_token_on_an_outer_value_card_comes_back() -> None:
    """C-L10: at the end of a season "tokens on card 1 move to card 2's nearest space, on
    card 5 to card 4's nearest space", every colour, whatever the colours before it
    (pietas, first in track order, stays where it is)."""
    st = last_round().values(pietas=7, virtus=0, libertas=14, concordia=5).build()
    play(st, "pass", "pass")
    assert st.values == {"pietas": 7, "virtus": 3, "libertas": 11, "concordia": 5}


def test_l10_a_hand_of_eight_gets_no_card_at_the_deal() -> None:
    """L10: "The end-of-season deal stops at 8 cards in hand": seat 0 holds 8 and is dealt
    nothing; seat 1 (2 cards) gets its 5."""
    st = last_round().build()
    events = play(st, "pass", "pass")
    assert [(d["seat"], d["count"]) for d in of_kind(events, "deal")] == [(0, 0), (1, 5)]
    assert [len(p["hand"]) for p in st.players] == [8, 7]


# -- Decisions in notation (games/leges/rules.py docstring, docs/bots.md) ---------------------
def test_notation_shift_and_law_decisions_are_checked_for_form() -> None:
    """The notation's vocabulary: `shift <colour> up|down`, `law <colour> <tier>`; anything
    else is not a Leges decision at all (NotationError), not merely an illegal one. An
    unknown verb is answered with the list of verbs."""
    st = Position(players=2).hand(0, "pietas-04").hand(1, "virtus-04").build()
    with pytest.raises(NotationError, match="shift is written 'shift <colour> up|down'"):
        st.parse("shift pietas sideways")
    with pytest.raises(NotationError, match="law is written 'law <colour> <tier>'"):
        st.parse("law pietas one")
    with pytest.raises(NotationError,
                       match="verbs are: discard, draw, hold, law, nolaw, pass, play, shift"):
        st.parse("vote pietas")


# -- Chance (games.core.GameState.chance_outcomes) ---------------------------------------------
def test_the_chance_kinds_list_every_outcome() -> None:
    """Two kinds of chance (C-L14 the first player, a uniformly random seat; the Theme
    draws): each lists every outcome it may produce; other kinds list none."""
    st = LegesState.new(CARDS, 3, {}, seed=1)
    assert st.chance_outcomes("first") == {"0", "1", "2"}
    assert st.chance_outcomes("theme") == frozenset(ALL)
    assert st.chance_outcomes("dice") is None


# -- L5: hidden information, resampled ---------------------------------------------------------
def doubles() -> Position:
    """Both players reveal a ×2 card and keep one card: the ×2 repeat follows (L8)."""
    return (Position(players=2, first=0)
            .hand(0, "pietas-01", "pietas-04").hand(1, "virtus-01", "virtus-04"))


def test_l5_a_seat_that_holds_sees_hold_and_a_state_rebuilt_from_its_view_holds() -> None:
    """C-L3: the ×2 second choice is `play CARD` or `hold`, secret like the first (L5): the
    seat that held sees "hold" in its own observation; a state rebuilt from that view
    (what a searching bot uses) holds too when the choices are revealed."""
    st = doubles().build()
    play(st, "0: play pietas-01", "1: play virtus-01", "0: hold")
    view = st.observation(0)
    assert view["boards"][0]["choice"] == "hold" and view["boards"][0]["chosen"]
    rebuilt = games.from_observation(json.loads(json.dumps(view)), 3)
    assert rebuilt.observation(0) == view
    [card] = rebuilt.players[1]["hand"]
    [reveal] = of_kind(rebuilt.apply(1, f"play {card}"), "reveal")
    assert reveal["held"] == [0] and reveal["cards"] == [None, card]


def test_l5_a_first_face_down_choice_is_resampled_as_a_card_never_a_hold() -> None:
    """L2, L5: the first choice of a round is a Theme card (`hold` exists only at the ×2
    repeat, C-L3): resampled for a seat that cannot see it, it is a card of the resampled
    hand, by `determinize` and by `from_observation` alike."""
    st = doubles().build()
    play(st, "0: play pietas-04")
    view = json.loads(json.dumps(st.observation(1)))
    for k in range(20):
        for twin in (st.determinize(1, k), games.from_observation(view, k)):
            assert isinstance(twin, LegesState)
            other = twin.players[0]
            assert other["choice"] in other["hand"]


def test_l5_a_second_face_down_choice_is_resampled_as_a_card_or_a_hold() -> None:
    """C-L3, L5: at the ×2 repeat a face-down choice is a card or `hold`, and the other
    seat cannot tell which: resampled, it is sometimes one, sometimes the other."""
    st = doubles().build()
    play(st, "0: play pietas-01", "1: play virtus-01", "0: play pietas-04")
    assert st.to_move() == (1,)
    view = json.loads(json.dumps(st.observation(1)))
    for sample in (lambda k: st.determinize(1, k), lambda k: games.from_observation(view, k)):
        choices = set()
        for k in range(24):
            twin = sample(k)
            assert isinstance(twin, LegesState)
            other = twin.players[0]
            assert other["choice"] == HOLD or other["choice"] in other["hand"]
            choices.add("hold" if other["choice"] == HOLD else "card")
        assert choices == {"hold", "card"}


def test_l5_the_cards_another_seat_drew_at_an_exchange_are_resampled() -> None:
    """L5: the 2 cards a player draws at an exchange are private until it discards one:
    for another seat they are resampled (and every card is still in one place only)."""
    st = (Position(players=2, first=0).at("exchange")
          .hand(0, "pietas-04").hand(1, "virtus-04").build())
    play(st, "draw")
    real = st.players[0]["drawn"]
    assert len(real) == 2 and st.to_move() == (0,)
    seen = set()
    for k in range(8):
        twin = st.determinize(1, k)
        assert every_card(twin) == ALL
        assert len(twin.players[0]["drawn"]) == 2
        seen.add(tuple(twin.players[0]["drawn"]))
    assert len(seen) > 4 and tuple(real) not in seen


def test_information_a_determinization_has_no_game_seed_and_plays_on() -> None:
    """Information (L5, the conformance gate): the game's seed would give the deck away,
    so a determinization has none (0); it continues like any state (its RNG reshuffles,
    it round-trips through bytes), and a bot may fix its next draws on it."""
    st = LegesState.new(CARDS, 3, {}, seed=4)
    for k in range(3):
        twin = st.determinize(0, k)
        assert twin.seed == 0
        assert games.load(twin.to_bytes()).to_bytes() == twin.to_bytes()
        card = twin.deck[0]
        twin.fix_chance("theme", card)
        assert twin.draw_theme() == card


def test_information_a_state_rebuilt_from_an_observation_has_no_seed_and_plays_on() -> None:
    """A state rebuilt from an observation knows no game seed (0) and continues like any
    state: it round-trips through bytes and its RNG draws."""
    st = LegesState.new(CARDS, 3, {}, seed=4)
    rebuilt = games.from_observation(json.loads(json.dumps(st.observation(2))), 7)
    assert isinstance(rebuilt, LegesState) and rebuilt.seed == 0
    assert games.load(rebuilt.to_bytes()).to_bytes() == rebuilt.to_bytes()
    assert rebuilt.rng.below(10) in range(10)


def finished() -> LegesState:
    st = LegesState.new(CARDS, 2, {}, seed=6)
    rng = random.Random(6)
    for _ in range(2000):  # a random game takes a few hundred decisions
        if st.is_over:
            return st
        seat = st.to_move()[0]
        st.apply(seat, rng.choice(st.legal_decisions(seat)))
    raise AssertionError("the game did not end")


def test_l12_a_finished_game_stays_finished_when_copied_or_rebuilt() -> None:
    """The end (4 seasons, L12 / C-L13 the result): a finished game's clone, its bytes
    loaded again and a state rebuilt from its observation are over, with the same
    result."""
    st = finished()
    result = st.result()
    assert result is not None
    view = json.loads(json.dumps(st.observation(None)))
    for copy in (st.clone(), games.load(st.to_bytes()), games.from_observation(view, 1)):
        assert copy.is_over and copy.result() == result


def test_copies_do_not_share_the_pending_step() -> None:
    """A clone, and a state rebuilt from an observation, are independent of what they were
    made from: taking the next decision on them (C-L2: abilities one player at a time,
    from the first player) leaves the original and the observation as they were."""
    st = (Position(players=3, first=0)
          .hand(0, "pietas-18").hand(1, "virtus-18").hand(2, "libertas-04").build())
    play(st, "0: play pietas-18", "1: play virtus-18", "2: play libertas-04")
    assert st.observation(None)["asked"] == {"step": "ability", "pass": 1, "queue": [0, 1]}
    before = st.to_bytes()
    clone = st.clone()
    clone.apply(0, "pass")
    assert st.to_bytes() == before and st.to_move() == (0,)
    view = json.loads(json.dumps(st.observation(0)))
    rebuilt = games.from_observation(view, 2)
    rebuilt.apply(0, "pass")
    assert view["asked"]["queue"] == [0, 1]


def test_from_observation_refuses_an_observation_that_does_not_add_up() -> None:
    """The cards unseen by the viewer must fill the deck it is told of (84 Themes, L3)."""
    view = json.loads(json.dumps(LegesState.new(CARDS, 2, {}, seed=2).observation(0)))
    view["deck"] -= 1
    with pytest.raises(ValueError, match="the observation does not add up: 74 Theme cards "
                                         "unseen, but the deck holds 73"):
        games.from_observation(view, 0)


# -- L3: the card set a game was played with ------------------------------------------------------
def test_l3_a_game_or_observation_of_another_card_set_is_refused() -> None:
    """L3: the cards come from a card set file; a saved game or an observation made with
    another set is refused, naming both sets by their digests' first 12 characters."""
    st = LegesState.new(CARDS, 2, {}, seed=2)
    data = json.loads(json.dumps(st.to_json()))
    data["card_set"] = {"name": "published", "digest": "0123456789abcdef"}
    with pytest.raises(ValueError, match=r"this game was played with card set 'published' "
                                         rf"\(0123456789ab\), not the loaded "
                                         rf"'{CARDS.name}' \({CARDS.digest[:12]}\)$"):
        LegesState.from_json(data, CARDS)
    view = json.loads(json.dumps(st.observation(0)))
    view["card_set"] = {"name": "published", "digest": "0123456789abcdef"}
    with pytest.raises(ValueError, match=r"the observation is of a game played with another "
                                         r"card set \('published'\)"):
        games.from_observation(view, 0)


def test_a_fixed_draw_must_be_in_the_deck() -> None:
    """`fix_chance("theme", ...)` (games.leges.position: `draws`) names the next Theme cards
    drawn; each must be in the deck when drawn, else the draw is refused, naming it."""
    st = (Position(players=2).at("exchange").hand(0, "pietas-04").hand(1, "virtus-04")
          .draws("virtus-04").build())
    with pytest.raises(ValueError, match="fixed draw: Theme card 'virtus-04' is not in the deck"):
        play(st, "draw")


# -- L10: the end of a season, serialized -----------------------------------------------------
def test_l10_a_state_after_a_season_end_round_trips_through_bytes() -> None:
    """L10 (the season's exposed Themes go to the discard, a new round begins) leaves each
    player's board with the fields a new player has, no other: the state's bytes load
    back to the same bytes (games.core.GameState.to_bytes: lossless, canonical)."""
    st = last_round().build()
    play(st, "pass", "pass")
    assert (st.season, st.round) == (2, 1)
    keys = {"hand", "points", "laws", "exposed", "played", "choice", "request", "drawn",
            "discarded"}
    assert [set(p) for p in st.players] == [keys, keys]
    assert games.load(st.to_bytes()).to_bytes() == st.to_bytes()


# -- from_observation: the rebuilt state is a state like any other ----------------------------
def test_a_state_rebuilt_from_an_observation_has_the_real_pending_step() -> None:
    """The `asked` step of an observation (games/leges/observation.py) is the engine's step
    made public: a state rebuilt from it holds the very step the real state holds (its
    `pass`, `seats` and `queue`, nothing more), at every kind of step."""
    ability = (Position(players=3, first=0)
               .hand(0, "pietas-18").hand(1, "virtus-18").hand(2, "libertas-04").build())
    play(ability, "0: play pietas-18", "1: play virtus-18", "2: play libertas-04")
    choose = doubles().build()
    laws = (Position(players=2, first=0).at("laws")
            .points(0, pietas=12).points(1, pietas=8).build())
    exchange = (Position(players=2, first=1).at("exchange")
                .hand(0, "pietas-04").hand(1, "virtus-04").build())
    steps = set()
    for st in (ability, choose, laws, exchange, finished()):
        for seat in (None, *range(st.num_seats)):
            view = json.loads(json.dumps(st.observation(seat)))
            rebuilt = games.from_observation(view, 5)
            assert isinstance(rebuilt, LegesState)
            assert rebuilt.to_json()["step"] == st.to_json()["step"]
        steps.add(st.step["k"])
    assert steps == {"ability", "choose", "laws", "exchange", "over"}


def test_a_state_rebuilt_from_an_observation_reports_its_own_events() -> None:
    """games.core.GameState.events: the events of the last transition. A state rebuilt
    from an observation has had none yet (an empty list); a draw on it that finds the
    deck empty reports the reshuffle (L11, C-L9) like any state's."""
    st = (Position(players=2, first=0).at("exchange")
          .hand(0, "pietas-04").hand(1, "virtus-04")
          .deck("libertas-04", exact=True).build())
    rebuilt = games.from_observation(json.loads(json.dumps(st.observation(1))), 3)
    assert isinstance(rebuilt, LegesState)
    assert rebuilt.events == []
    assert len(rebuilt.deck) == 1
    rebuilt.draw_theme()
    assert rebuilt.draw_theme() is not None
    assert of_kind(rebuilt.events, "reshuffle") == [{"count": len(st.discard)}]
