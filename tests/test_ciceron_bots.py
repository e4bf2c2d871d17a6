"""The Cicéron greedy bot: one registry name for two games, legal and state-preserving
choices, no peeking at hidden information (the secret vote included), greedy > random,
and a whole game from the command line."""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.local import GameSpec, SeriesStats, run_games
from bots import PerGameBot, bot_names, make_bot
from bots.ciceron_greedy import CiceronGreedyBot, determinized
from bots.greedy_bot import GreedyBot
from games import new_game
from games.ciceron import CiceronState
from games.core import derive_seed

REPO = Path(__file__).resolve().parents[1]


def random_positions(seats: int, seed: int, every: int = 1) -> Iterator[CiceronState]:
    """Every `every`-th position of a random game (the caller must not apply to it)."""
    state = new_game("ciceron", None, seats, seed=seed)
    rng = random.Random(seed)
    step = 0
    while not state.is_over:
        if step % every == 0:
            yield state  # type: ignore[misc]
        seat = state.to_move()[0]
        legal = state.legal_decisions(seat)
        kept = [d for d in legal if d.verb != "discard"] or legal  # games of some length
        state.apply(seat, rng.choice(kept))
        step += 1


# -- the registry: one name, one bot per game ------------------------------------------

def test_greedy_is_one_name_with_a_bot_for_each_game() -> None:
    assert "greedy" in bot_names("ciceron") and "greedy" in bot_names("municipium")
    assert isinstance(make_bot("greedy", 1, "ciceron"), CiceronGreedyBot)
    assert isinstance(make_bot("greedy", 1, "municipium"), GreedyBot)
    with pytest.raises(ValueError, match=r"bot 'greedy' plays only .*, not chess") as refused:
        make_bot("greedy", 1, "chess")
    games = str(refused.value).split("plays only ")[1].split(", not chess")[0].split(", ")
    assert {"ciceron", "municipium"} <= set(games) and games == sorted(games)


def test_greedy_made_before_the_game_is_known_plays_the_game_it_is_handed() -> None:
    bot = make_bot("greedy", seed=3)
    assert isinstance(bot, PerGameBot) and bot.name == "greedy"
    for game, seats in (("ciceron", 3), ("municipium", 3)):
        state = new_game(game, None, seats, seed=5)
        seat = state.to_move()[0]
        assert bot.choose(state, seat) in state.legal_decisions(seat)
    assert sorted(bot.bots) == ["ciceron", "municipium"]
    assert isinstance(bot.bots["ciceron"], CiceronGreedyBot)


# -- legal choices, the real state untouched --------------------------------------------

@pytest.mark.parametrize("seats", [2, 5])
def test_greedy_returns_legal_decisions_and_leaves_the_state_alone(seats: int) -> None:
    bot = CiceronGreedyBot(seed=seats)
    verbs = set()
    for state in random_positions(seats, seed=40 + seats, every=3):
        seat = state.to_move()[0]
        before = state.to_bytes()
        decision = bot.choose(state, seat)
        assert decision in state.legal_decisions(seat), state.describe_pending()
        assert state.to_bytes() == before, "a bot must not change the real state"
        verbs.add(decision.verb)
    assert {"pick", "place", "pay"} <= verbs, verbs
    if seats > 2:
        assert "vote" in verbs


# -- hidden information -------------------------------------------------------------------

def hidden_twin(state: CiceronState, seat: int, rng: random.Random) -> CiceronState:
    """The same position for `seat` with every hidden part it cannot see shuffled anew:
    other hands and draws, deck and pile orders, the Cicéron deck, other pending votes."""
    twin = state.determinize(seat, rng.getrandbits(32))
    twin.ciceron_deck.reverse()  # the one order determinize keeps (see below)
    for deck in twin.decks.values():
        deck.reverse()
    for pile in twin.piles.values():
        pile.reverse()
    return twin


def test_greedy_choice_does_not_depend_on_hidden_information() -> None:
    """`bot.choose(state)` equals `bot.choose(twin)` for twins that differ only in what
    the seat cannot see (its observation is the same): the other hands, the senators
    others drew, deck orders, the others' secret votes."""
    rng = random.Random(11)
    compared = differing = 0
    steps = set()
    for seats, seed in ((4, 1), (3, 2), (2, 3)):
        for state in random_positions(seats, seed=seed, every=4):
            seat = state.to_move()[0]
            twin = hidden_twin(state, seat, rng)
            assert twin.observation(seat) == state.observation(seat)
            differing += twin.to_bytes() != state.to_bytes()
            bot_seed = derive_seed(seed, compared)
            assert (CiceronGreedyBot(seed=bot_seed).choose(state, seat)
                    == CiceronGreedyBot(seed=bot_seed).choose(twin, seat)), \
                state.describe_pending()
            compared += 1
            steps.add((state.observation(seat)["asked"] or {}).get("step"))
    assert compared > 80 and differing > 0.9 * compared
    assert {"draft", "election", "place", "recruit", "pay"} <= steps, steps


def test_the_secret_vote_ignores_the_ballots_already_cast() -> None:
    """The last family to vote decides the same whatever the others voted."""
    checked = 0
    for seed in range(6):
        state = new_game("ciceron", None, 4, seed=100 + seed)
        rng = random.Random(seed)
        while not state.is_over and "vote" not in {d.verb for s in state.to_move()
                                                   for d in state.legal_decisions(s)}:
            seat = state.to_move()[0]
            kept = [d for d in state.legal_decisions(seat) if d.verb != "discard"]
            state.apply(seat, rng.choice(kept))
        if state.is_over:
            continue
        last = max(state.to_move())
        for seat in state.to_move()[:-1]:  # the others vote first, for different families
            state.apply(seat, f"vote {state.seat_names()[(seat + seed) % 4]}")
        assert state.to_move() == (last,)
        twins = [state]
        for shift in (1, 2):
            twin = state.clone()
            assert isinstance(twin, CiceronState)
            for seat in range(4):
                if seat != last:
                    twin.families[seat]["vote"] = twin.seat_names()[(seat + shift) % 4]
            assert twin.observation(last) == state.observation(last)
            twins.append(twin)
        choices = {str(CiceronGreedyBot(seed=seed).choose(twin, last)) for twin in twins}
        assert len(choices) == 1, choices
        checked += 1
    assert checked >= 5


def test_the_bot_searches_copies_whose_cicero_deck_order_is_public() -> None:
    """`determinized` puts the Cicéron deck in an order drawn from the seed alone."""
    rng = random.Random(5)
    for state in random_positions(4, seed=7, every=25):
        seat = state.to_move()[0]
        twin = hidden_twin(state, seat, rng)
        assert (determinized(state, seat, 9).to_bytes()
                == determinized(twin, seat, 9).to_bytes())


def test_engine_determinize_depends_on_public_information_only() -> None:
    rng = random.Random(6)
    for state in random_positions(4, seed=8, every=25):
        seat = state.to_move()[0]
        twin = hidden_twin(state, seat, rng)
        assert state.determinize(seat, 9).to_bytes() == twin.determinize(seat, 9).to_bytes()


# -- strength ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("seats", "games", "least"), [(4, 12, 9), (2, 6, 5)])
def test_greedy_beats_random(seats: int, games: int, least: int) -> None:
    """Greedy in one seat of `seats` (rotating), random in the others. Random would win
    1/seats of them; greedy must win at least `least` (4 families: 9 of 12, where random
    play would win 3 on average and 9 or more with probability < 0.004)."""
    spec = GameSpec("ciceron", "standard", ("greedy", *("random",) * (seats - 1)))
    stats = SeriesStats(seats)
    for summary in run_games(spec, seed=2026, count=games, rotate=True, workers=1):
        assert summary.reason == "turns"
        stats.add(summary)
    assert stats.bot_wins["greedy"] >= least, stats.to_json(1.0)
    assert stats.bot_rank_sum["greedy"] / games < 1.5


# -- the command line -------------------------------------------------------------------------

def test_curia_play_prints_a_whole_ciceron_game_with_greedy() -> None:
    done = subprocess.run([sys.executable, "-m", "curia", "play", "--game", "ciceron",
                           "--seats", "random,greedy,random", "--seed", "7"], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "iulii=greedy" in out.splitlines()[0]
    for turn in range(1, 6):
        assert f"turn {turn} begins" in out, turn
    assert "pick " in out and "place " in out and "vote " in out
    assert "result:" in out and "game length: 5 turns" in out
    ranking = out[out.index("result:"):].splitlines()[1:4]
    assert len(ranking) == 3 and all("prestige" in line for line in ranking)
