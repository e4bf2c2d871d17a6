"""Rules that no other fast test pinned down: each test here fails on a one-line change to
the engine that the project's tests (the conformance gate aside) used to let through
(issue 23; the mutants and the command that finds them are in docs/mutation-testing.md)."""

from __future__ import annotations

import json
import random
from importlib import resources

import pytest

import games
from games.ciceron import effects
from games.ciceron.cardset import load_default_card_set, parse_card_set
from games.ciceron.position import (
    Position,
    inconsistencies,
    legal,
    mover,
    of_kind,
    play,
    step,
)
from games.ciceron.state import CiceronState
from games.core import Decision

CARDS = load_default_card_set()
HORTENSIUS = "quintus-hortensius-hortalus"
CATO = "marcus-porcius-cato"
ATTICUS = "titus-pomponius-atticus"
METELLUS = "quintus-caecilius-metellus-pius"
LABIENUS = "titus-labienus"
FIVE = [HORTENSIUS, CATO, ATTICUS, METELLUS, LABIENUS]
#: A random game takes a few hundred decisions; one that has not ended by then never will.
MAX_DECISIONS = 2000


def random_game(families: int, seed: int) -> list[CiceronState]:
    """The positions of one game of random play, from the opening draft to the end."""
    st = games.new_game("ciceron", None, families, seed=seed)
    assert isinstance(st, CiceronState)
    rng = random.Random(seed)
    positions = [st.clone()]
    for _ in range(MAX_DECISIONS):
        if st.is_over:
            return positions
        movers = st.to_move()
        seat = movers[rng.randrange(len(movers))]
        st.apply(seat, rng.choice(st.legal_decisions(seat)))
        positions.append(st.clone())
    raise AssertionError(f"no end after {MAX_DECISIONS} decisions")


# -- C5 and the information rules: copies that agree with what a family sees -----------------
@pytest.mark.parametrize("families", [2, 3, 4, 5])
def test_c5_rebuilt_and_determinized_states_agree_with_what_a_family_sees(
        families: int) -> None:
    """C5 (information) and C-C1: a state rebuilt from a family's observation, or from a
    spectator's, and a determinization for that family, show it the same, give it the same
    decisions and hold every card in exactly one place; neither knows the game's seed;
    they round-trip through bytes. At the end, a rebuilt game is over with the result."""
    positions = random_game(families, seed=families)
    for k, real in enumerate(positions[:-1]):
        seat = real.to_move()[0]
        for viewer in (seat, None):
            view = json.loads(json.dumps(real.observation(viewer)))
            rebuilt = games.from_observation(view, k)
            assert isinstance(rebuilt, CiceronState)
            assert rebuilt.observation(viewer) == real.observation(viewer)
            assert rebuilt.to_move() == real.to_move() and rebuilt.seed == 0
            assert inconsistencies(rebuilt) == []
            if viewer is not None:
                assert rebuilt.legal_decisions(seat) == real.legal_decisions(seat)
        twin = real.determinize(seat, k)
        assert twin.observation(seat) == real.observation(seat)
        assert twin.legal_decisions(seat) == real.legal_decisions(seat)
        assert twin.to_move() == real.to_move() and twin.seed == 0
        assert inconsistencies(twin) == []
        if k % 10 == 0:
            for copy in (twin, rebuilt):
                assert games.load(copy.to_bytes()).to_bytes() == copy.to_bytes()
    end = positions[-1]
    view = end.observation(None)
    assert view["asked"] is None and view["agenda"] == []
    rebuilt = games.from_observation(json.loads(json.dumps(view)), 0)
    assert rebuilt.is_over and rebuilt.result() == end.result()


def test_c_c1_an_unseen_draft_packet_is_resampled() -> None:
    """C-C1: the draft packet is seen by the family holding it and by those that held it
    before; for the others (and a spectator) it is hidden, so a determinization or a
    rebuilt state draws it anew among the white senators not dealt."""
    st = games.new_game("ciceron", None, 4, seed=3)
    assert isinstance(st, CiceronState) and st.draft["seen"] == [0]
    real = sorted(st.draft["packet"])
    for viewer in (2, None):
        view = json.loads(json.dumps(st.observation(viewer)))
        packets = set()
        for k in range(8):
            for copy in (st.determinize(viewer, k) if viewer is not None else None,
                         games.from_observation(view, k)):
                if copy is None:
                    continue
                assert isinstance(copy, CiceronState)
                assert len(copy.draft["packet"]) == len(real) and inconsistencies(copy) == []
                packets.add(tuple(sorted(copy.draft["packet"])))
        assert len(packets) > 4 and tuple(real) not in packets
    assert all(st.determinize(0, k).draft["packet"] == st.draft["packet"] for k in range(4))


def test_c5_other_hands_and_senators_drawn_are_resampled() -> None:
    """C5: a family's hand of action cards and the senators it drew at a Senate spot (not
    yet recruited) are private: determinized for another family, they are drawn anew."""
    drew = hand = None
    for real in random_game(3, seed=7):
        movers = real.to_move()
        for other in range(3):
            fam = real.families[other]
            viewer = next((s for s in movers if s != other), None)
            if viewer is None:
                continue
            if drew is None and fam["drawn"]:
                drew = (real, viewer, other)
            if hand is None and len(fam["hand"]) >= 2:
                hand = (real, viewer, other)
        if drew and hand:
            break
    assert drew and hand
    for (real, viewer, other), part in ((drew, "drawn"), (hand, "hand")):
        seen = {tuple(sorted(real.determinize(viewer, k).families[other][part]))
                for k in range(8)}
        assert len(seen) > 2 and tuple(sorted(real.families[other][part])) not in seen


# -- copies: bytes, clone, chance ---------------------------------------------------------------
def test_a_saved_game_goes_on_exactly_like_the_game() -> None:
    """A game saved and loaded (`to_bytes`, `games.load`) keeps everything, its RNG and
    hidden orders included: the same decisions then give the same game."""
    positions = random_game(3, seed=5)
    real = positions[len(positions) // 2]
    loaded = games.load(real.to_bytes())
    assert isinstance(loaded, CiceronState) and loaded.to_bytes() == real.to_bytes()
    rng = random.Random(1)
    for _ in range(40):
        if real.is_over:
            break
        seat = real.to_move()[0]
        decision = rng.choice(real.legal_decisions(seat))
        assert loaded.apply(seat, decision) == real.apply(seat, decision)
    assert loaded.to_bytes() == real.to_bytes()


def test_a_clone_keeps_the_rng_and_the_fixed_draws() -> None:
    """`clone` is an exact copy: its RNG goes on like the original's, and outcomes fixed
    with `fix_chance` (kept by `clone`, not by `to_bytes`) are drawn by the clone too."""
    st = Position(3).at("servants", turn=2).princeps("aemilii").build()
    card = st.decks["orator"][0]
    st.fix_chance("action", card)
    clone = st.clone()
    assert clone.rng.state == st.rng.state
    assert clone.draw_action(0, "orator") == card
    assert st.draw_action(0, "orator") == card


def test_the_chance_kinds_list_every_outcome() -> None:
    """Five kinds of chance: red senators drawn from the piles, the white senators of the
    draft, action cards, Cicéron cards, Triumvirat cards (C-C12: which of the turn's three
    the Princeps draws); other kinds list none."""
    st = Position(3).build()
    assert st.chance_outcomes("senator") == {s.id for s in CARDS.senators if s.pile != "white"}
    assert st.chance_outcomes("white") == {s.id for s in CARDS.white_senators}
    assert st.chance_outcomes("action") == {a.id for a in CARDS.actions}
    assert st.chance_outcomes("ciceron") == {c.id for c in CARDS.ciceron}
    assert st.chance_outcomes("triumvirat") == {t.id for t in CARDS.triumvirat}
    assert st.chance_outcomes("dice") is None


def test_c1_only_the_princeps_vote_is_secret() -> None:
    """C1 (and C-C5): a family's vote for the Princeps is seen by itself only until every
    vote is in; every other decision is public."""
    st = Position(3).at("election", turn=2).princeps("aemilii").build()
    assert st.decision_seen_by(1, Decision("vote", ("iulii",))) == (1,)
    assert st.decision_seen_by(1, Decision("place", ("emporium-upper",))) is None
    assert st.decision_seen_by(1, Decision("discard", (CATO,))) is None


# -- C-C7 guild powers, C-C6 the order from the Princeps -------------------------------------------
def test_c_c7_a_draw_guild_power_with_an_empty_deck_does_nothing() -> None:
    """C-C7: a guild power acts at the start of the next turn; the Strategists' (draw 2
    belligerator cards) finds the deck empty (C12: an empty deck offers no draw): nothing
    happens and the turn goes on to the election."""
    st = (Position(3).at("turn", turn=2).princeps("aemilii")
          .guild_powers(iulii=["strategists"]).deck("belligerator", exact=True).build())
    assert step(st) == "election" and st.families[1]["hand"] == []
    assert st.families[1]["guild_powers"] == []


@pytest.mark.parametrize(("princeps", "order"), [("aemilii", ["aemilii", "iulii", "cornelii"]),
                                                 ("cornelii", ["cornelii", "aemilii", "iulii"])])
def test_c_c6_guild_powers_are_used_from_the_princeps_clockwise(
        princeps: str, order: list[str]) -> None:
    """C-C6 (from the Princeps clockwise) and C-C7 (powers act at the start of the turn),
    the Princeps at seat 0 included."""
    st = (Position(3).at("turn", turn=2).princeps(princeps)
          .guild_powers(aemilii=["traders"], iulii=["diplomats"], cornelii=["priests"])
          .build())
    assert [e.data["family"] for e in st.events if e.kind == "guild-power"] == order


@pytest.mark.parametrize(("princeps", "order"), [("aemilii", ["aemilii", "iulii"]),
                                                 ("iulii", ["iulii", "aemilii"])])
def test_c12_end_of_turn_cards_act_from_the_princeps_clockwise(
        princeps: str, order: list[str]) -> None:
    """C12 and the cards document: end-of-turn cards act at the end of the turn, from the
    Princeps clockwise (seat 0 as Princeps included); their prestige is an action card's."""
    st = (Position(3).at("end", turn=2).princeps(princeps)
          .end_of_turn(aemilii=["pontifex-06"], iulii=["pontifex-07"]).build())
    gains = [e.data for e in st.events if e.kind == "prestige"]
    assert gains == [{"family": f, "amount": 2, "why": "action card"} for f in order]


@pytest.mark.parametrize(("princeps", "first"), [("aemilii", "aemilii"), ("iulii", "iulii")])
def test_c_c9_discards_down_to_the_limit_are_asked_from_the_princeps(
        princeps: str, first: str) -> None:
    """C-C13 / C-C9: discards forced by a lower limit (a turn-only limit ended) are asked
    at once, from the Princeps clockwise; each discard is told with its reason."""
    st = (Position(3).at("end", turn=2).princeps(princeps)
          .senators(aemilii=FIVE[:3] + [LABIENUS], iulii=[])
          .build())
    assert step(st) == "election"  # 4 senators, the limit: nothing to discard
    st = (Position(3).at("end", turn=2).princeps(princeps)
          .senators(aemilii=[HORTENSIUS, CATO, ATTICUS, METELLUS, LABIENUS],
                    iulii=["lucius-licinius-lucullus", "marcus-aemilius-lepidus",
                           "lucius-sergius-catilina", "titus-annius-milo",
                           "publius-clodius-pulcher"])
          .effects(aemilii=["limit=1"], iulii=["limit=1"]).build())
    assert step(st) == "trim" and mover(st) == first
    events = play(st, f"discard {legal(st)[-1].split()[1]}")
    assert of_kind(events, "discard")[0]["why"] == "over the cénacle limit"
    assert step(st) == "trim" and mover(st) != first


# -- C12 legions, C-C8 rewards, assassination ---------------------------------------------
def test_c12_the_last_legion_may_be_deployed_and_legions_add_up() -> None:
    """C12: "a legion card cannot be played when no legion is left": with one left it can;
    C-C12: the demand counts every legion deployed, two in one province count two. The
    card's reward of prestige is a legion's."""
    card = CARDS.action("belligerator-02")  # Gallia
    st = (Position(3).at("servants", turn=2).princeps("aemilii")
          .legions(gallia=1).legions_left(1).build())
    assert effects.targets(st, 0, card.effect) == [()]
    st.events = []
    effects.deploy_legion(st, 0, card.effect)
    assert st.legions["gallia"] == 2 and st.legions_left == 0
    assert effects.targets(st, 0, card.effect) == []
    st.events = []
    effects.take_reward(st, 0, "prestige", 2)
    assert of_kind(st.events, "prestige") == [{"family": "aemilii", "amount": 2,
                                               "why": "legion"}]


def test_an_assassinated_senator_is_discarded_and_told_so() -> None:
    """The assassination cards: another family's senator is discarded (C-C9), the discard
    told with its reason."""
    st = (Position(3).at("servants", turn=2).princeps("aemilii")
          .senators(iulii=[HORTENSIUS, CATO]).build())
    st.events = []
    effects.apply_effect(st, 0, CARDS.action("insidiator-01").effect, (CATO,))
    assert of_kind(st.events, "discard") == [{"family": "iulii", "senator": CATO,
                                              "why": "assassinated"}]
    assert st.families[1]["senators"] == [HORTENSIUS] and CATO in st.discarded


# -- guild powers from another card set (C3), the draft's fixed draws, trims after a turn -------
def test_cards_doc_a_limit_guild_power_raises_the_cenacle_limit_during_the_next_turn() -> None:
    """C3 (a host may load another card set) and docs/ciceron-cards.md, `[guild_powers]`:
    a `limit` guild power raises the family's cénacle limit during the next turn (C-C7)."""
    text = resources.files("games.ciceron").joinpath("cards.toml").read_text(encoding="utf-8")
    stand_in = 'artisans = { kind = "extra_recruit" }'
    assert stand_in in text
    cards = parse_card_set(text.replace(stand_in, 'artisans = { kind = "limit", amount = 1 }'))
    st = (Position(3, cards=cards).at("turn", turn=2).princeps("aemilii")
          .guild_powers(iulii=["artisans"]).build())
    assert step(st) == "election"
    assert of_kind(st.events, "guild-power") == [{"family": "iulii", "guild": "artisans",
                                                  "target": None}]
    limits = [board["cenacle_limit"] for board in st.observation(None)["boards"]]
    assert limits == [4, 5, 4]


def test_a_white_senator_fixed_twice_for_the_draft_is_refused_by_name() -> None:
    """C-C1 and the position builder's `draws.white`: the draft packet holds distinct white
    senators; fixing one twice is a ValueError that names it."""
    with pytest.raises(ValueError, match=f"white senator '{HORTENSIUS}' is dealt twice"):
        Position(3).at("draft").draws("white", HORTENSIUS, HORTENSIUS).build()


def test_c_c13_after_a_turn_only_a_family_over_its_limit_is_asked_to_discard() -> None:
    """C-C13 / C-C9: when a turn-only limit ends, a family above its limit discards down to
    it; a family exactly at its limit has nothing to discard and no step is planned for it."""
    st = (Position(3).at("end", turn=2).princeps("aemilii")
          .senators(aemilii=FIVE, iulii=["lucius-licinius-lucullus", "marcus-aemilius-lepidus",
                                         "lucius-sergius-catilina", "titus-annius-milo"])
          .effects(aemilii=["limit=1"]).build())
    assert st.cenacle_limit(0) == st.cenacle_limit(1) == 4
    view = st.observation(None)
    assert view["asked"]["step"] == "trim" and view["asked"]["family"] == "aemilii"
    assert [s for s in view["agenda"] if s["step"] == "trim"] == []
    play(st, f"discard {CATO}")
    assert step(st) == "election"
