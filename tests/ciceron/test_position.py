"""The position builder (`games.ciceron.position`): the description and the fluent form
agree, bad keys and values are refused naming them, fixed chance, card queries, and
conservation of the cards through play."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.ciceron.cardset import load_default_card_set
from games.ciceron.position import (
    PHASES,
    Position,
    action_where,
    actions_where,
    assert_consistent,
    hand,
    inconsistencies,
    legal,
    mover,
    play,
    position_from_text,
    senator_where,
    senators_where,
    step,
)
from games.ciceron.state import CiceronState

CARDS = load_default_card_set()
HORTENSIUS = "quintus-hortensius-hortalus"
CURIO = "gaius-scribonius-curio"
MARIUS = "gaius-marius"
AFRANIUS = "lucius-afranius"

DESCRIBED = """
families = 3
seed = 4
phase = "servants"
turn = 2
placer = "iulii"
princeps = "aemilii"
ciceron = "in-verrem"
triumvirat = "caesar-2"
legions_left = 12

[influence.aemilii]
orator = 5
rest = 0
[influence.iulii]
belligerator = 6
[prestige]
cornelii = -3
[servants]
aemilii = 2
[senators]
aemilii = ["quintus-hortensius-hortalus", "gaius-scribonius-curio"]
iulii = ["titus-labienus"]
[hand]
iulii = ["belligerator-09", "orator-15"]
[permanents]
aemilii = ["orator-04"]
[attached.aemilii]
"gaius-scribonius-curio" = ["orator-10"]
[end_of_turn]
cornelii = ["pontifex-06"]
[effects]
cornelii = ["tribute_exempt", "votes=2"]
[guild_powers]
iulii = ["traders"]
[spots]
"senate-insidiator-belligerator" = "aemilii"
[legions]
gallia = 2
syria = 1
[primus]
orator = "aemilii"
[secundus]
orator = "iulii"
[guilds]
diplomats = "aemilii"
strategists = { holder = "iulii", choice = "power" }
[decks]
orator = ["orator-13"]
[exact_piles]
"mercator-plebeius" = []
[draws]
senator = ["gaius-marius", "lucius-afranius"]
"""


def fluent() -> Position:
    return (Position(3, seed=4).at("servants", turn=2, placer="iulii").princeps("aemilii")
            .ciceron("in-verrem").triumvirat("caesar-2").legions_left(12)
            .influence(aemilii={"orator": 5, "rest": 0}, iulii={"belligerator": 6})
            .prestige(cornelii=-3).servants(aemilii=2)
            .senators(aemilii=[HORTENSIUS, CURIO], iulii=["titus-labienus"])
            .hand(iulii=["belligerator-09", "orator-15"]).permanents(aemilii=["orator-04"])
            .attached(aemilii={CURIO: ["orator-10"]}).end_of_turn(cornelii=["pontifex-06"])
            .effects(cornelii=["tribute_exempt", "votes=2"]).guild_powers(iulii=["traders"])
            .spots({"senate-insidiator-belligerator": "aemilii"}).legions(gallia=2, syria=1)
            .primus(orator="aemilii").secundus(orator="iulii")
            .guilds(diplomats="aemilii", strategists={"holder": "iulii", "choice": "power"})
            .deck("orator", "orator-13").pile("mercator-plebeius", exact=True)
            .draws("senator", MARIUS, AFRANIUS))


def test_position_from_toml_equals_the_fluent_one() -> None:
    described, built = position_from_text(DESCRIBED).build(), fluent().build()
    assert described.to_bytes() == built.to_bytes()
    assert_consistent(built)


def test_position_sets_what_it_describes() -> None:
    st = fluent().build()
    assert st.turn == 2 and st.princeps == 0 and step(st) == "place" and mover(st) == "iulii"
    aemilii, iulii, cornelii = st.families
    assert aemilii["influence"] == {"orator": 5, "mercator": 0, "pontifex": 0,
                                    "insidiator": 0, "plebeius": 0, "belligerator": 0}
    assert iulii["influence"]["belligerator"] == 6 and iulii["influence"]["mercator"] == 1
    assert cornelii["prestige"] == -3 and aemilii["prestige"] == 10
    assert [f["servants"] for f in st.families] == [2, 3, 3]
    assert hand(st, "iulii") == ["belligerator-09", "orator-15"]
    assert aemilii["attached"] == {CURIO: ["orator-10"]} and st.senate_votes(0) == 8
    assert cornelii["turn_effects"][0]["kind"] == "tribute_exempt"
    assert {"card": "pontifex-06", "when": "end"} in cornelii["turn_effects"]
    assert iulii["guild_powers"] == ["traders"]
    assert st.spots["senate-insidiator-belligerator"] == 0
    assert st.legions["gallia"] == 2 and st.legions_left == 12
    assert st.primus["orator"] == 0 and st.secundus["orator"] == 1
    assert st.guilds["strategists"] == {"holder": 1, "choice": "power"}
    assert st.decks["orator"][-1] == "orator-13" and st.piles["mercator-plebeius"] == []
    assert st.ciceron == "in-verrem" and "in-verrem" not in st.ciceron_deck
    assert st.triumvirat == ["caesar-2", "crassus-2", "pompey-2"]
    assert st.draft == {"packet": [], "order": [], "seen": []}


def test_position_fixed_senators_are_drawn_first() -> None:
    st = fluent().build()
    play(st, "place senate-orator-pontifex")  # both are of that pile
    assert st.families[1]["drawn"][:2] == [MARIUS, AFRANIUS]


def test_position_triumvirat_card_is_the_one_drawn_in_phase_five() -> None:
    st = (Position(3).at("tribute", turn=3).princeps("iulii").ciceron("pro-milone")
          .triumvirat("crassus-3").build())
    play(st, "disgrace", "disgrace", "disgrace")
    assert st.triumvirat_drawn == "crassus-3"


@pytest.mark.parametrize("phase", PHASES)
def test_position_every_phase_builds_a_consistent_position(phase: str) -> None:
    turn = 0 if phase in ("draft", "first-princeps") else 2
    pos = Position(3).at(phase, turn=turn)
    if phase == "first-princeps":
        pos.senators(aemilii=[HORTENSIUS])
    st = pos.build()
    assert_consistent(st)
    assert st.to_move()


@pytest.mark.parametrize(("families", "seed"), [(2, 1), (3, 2), (4, 3), (5, 4)])
def test_position_cards_are_conserved_through_random_play(families: int, seed: int) -> None:
    rng = random.Random(seed)
    st = CiceronState.new(CARDS, families, {}, seed)
    while not st.is_over:
        assert not inconsistencies(st), inconsistencies(st)
        seat = rng.choice(st.to_move())
        options = [d for d in st.legal_decisions(seat) if d.verb != "discard"] \
            or st.legal_decisions(seat)
        st.apply(seat, rng.choice(options))
    assert_consistent(st)


# -- refusals -----------------------------------------------------------------------------
def described(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"families": 3, "phase": "servants"}
    data.update(changes)
    return data


@pytest.mark.parametrize(("changes", "message"), [
    ({"colour": 3}, "unknown key 'colour'"),
    ({"families": 6}, "families must be 2 to 5"),
    ({"phase": "lunch"}, "no phase 'lunch'"),
    ({"turn": 6}, "turn must be 1 to 5"),
    ({"families": 5, "turn": 5}, "turn must be 1 to 4"),
    ({"phase": "election", "turn": 1}, "turn 1 has no Princeps election"),
    ({"phase": "tribute", "placer": "iulii"}, "placer: only"),
    ({"princeps": "flavii"}, "no family 'flavii'"),
    ({"senators": {"aemilii": ["nobody"]}}, "senators.aemilii: no senator 'nobody'"),
    ({"senators": {"aemilii": [HORTENSIUS], "iulii": [HORTENSIUS]}},
     "senators.iulii: 'quintus-hortensius-hortalus' is already in senators.aemilii"),
    ({"hand": {"iulii": ["orator-99"]}}, "hand.iulii: no action card 'orator-99'"),
    ({"permanents": {"iulii": ["orator-15"]}}, "is a instant card, not permanent"),
    ({"attached": {"iulii": {CURIO: ["orator-10"]}}}, "is not in iulii's cénacle"),
    ({"influence": {"aemilii": {"orator": 11}}}, "influence.aemilii.orator: influence is 0"),
    ({"influence": {"aemilii": {"gold": 1}}}, "no caste 'gold'"),
    ({"effects": {"aemilii": ["votes"]}}, "effects.aemilii: no effect 'votes'"),
    ({"spots": {"forum": "aemilii"}}, "spots: no spot 'forum'"),
    ({"spots": {"emporium-lower": "automatii"}}, "Automatii play only with 2 families"),
    ({"legions": {"gallia": 16}}, "legions: 16 deployed"),
    ({"legions": {"britannia": 1}}, "no province 'britannia'"),
    ({"primus": {"orator": "aemilii"}, "secundus": {"orator": "aemilii"}},
     "one family cannot hold both"),
    ({"guilds": {"priests": {"holder": "aemilii", "choice": "gold"}}},
     "guilds.priests.choice must be"),
    ({"ciceron": "pro-nobody"}, "no Cicéron card 'pro-nobody'"),
    ({"triumvirat": "caesar-3"}, "no Triumvirat card 'caesar-3'"),
    ({"decks": {"orator": ["mercator-01"]}}, "decks.orator: 'mercator-01' is a mercator card"),
    ({"piles": {"insidiator-belligerator": [AFRANIUS]}}, "belongs to pile"),
    ({"draws": {"dice": ["6"]}}, "no chance kind 'dice'"),
    ({"draws": {"senator": [HORTENSIUS]}}, "draws.senator: "),
    ({"servants": {"aemilii": 4}}, "servants.aemilii: 4 left"),
    ({"prestige": {"aemilii": "ten"}}, "prestige.aemilii must be an integer"),
])
def test_position_refuses_bad_descriptions_naming_the_key(changes: dict[str, Any],
                                                          message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(".", r"\.")):
        Position.from_description(described(**changes)).build()


def test_position_refuses_text_that_is_not_toml() -> None:
    with pytest.raises(ValueError, match="not TOML"):
        position_from_text("families = [")


# -- fixed chance and card queries -----------------------------------------------------------
def test_fix_chance_kinds_and_outcomes_are_the_card_ids() -> None:
    st = Position(3).at("servants").build()
    assert set(st.chance_kinds) == {"senator", "action", "ciceron", "triumvirat", "white"}
    with pytest.raises(ValueError, match="is not a white outcome"):
        st.fix_chance("white", CURIO)
    with pytest.raises(ValueError, match="is not a senator outcome"):
        st.fix_chance("senator", HORTENSIUS)
    st.fix_chance("action", "orator-13")
    play(st, "place curia-hostilia-lower")
    assert hand(st, "aemilii") == ["orator-13"]


def test_card_queries_pick_cards_by_their_properties() -> None:
    raisers = senators_where(caste="orator", limit_bonus=lambda n: n > 0)
    assert raisers == ["gaius-aurelius-cotta", "quintus-tullius-cicero"]
    assert senator_where(pile="white", caste="orator", votes=3) == HORTENSIUS
    assert actions_where(kind="legion", province="gallia") == ["belligerator-01",
                                                               "belligerator-02"]
    assert action_where(caste="pontifex", kind="tribute_exempt") == "pontifex-17"
    assert action_where(kind="extra_recruit", timing="permanent") == "mercator-17"
    with pytest.raises(ValueError, match="no senator with"):
        senator_where(caste="orator", votes=9)
    with pytest.raises(ValueError, match="no property 'colour'"):
        senators_where(colour="red")


def test_play_names_the_family_before_a_colon() -> None:
    st = Position(3).at("election", turn=2).build()
    play(st, "cornelii: vote aemilii")
    assert legal(st, "cornelii") == [] and mover(st) == "aemilii"


def test_position_described_tribute_paid_equals_the_fluent_one() -> None:
    text = """
    families = 3
    phase = "triumvirat"
    turn = 2
    ciceron = "in-verrem"
    triumvirat = "caesar-2"
    [tribute_paid]
    aemilii = "pay insidiator mercator"
    iulii = "disgrace"
    """
    built = (Position(3).at("triumvirat", turn=2).ciceron("in-verrem").triumvirat("caesar-2")
             .tribute_paid(aemilii="pay mercator insidiator", iulii="disgrace").build())
    assert position_from_text(text).build().to_bytes() == built.to_bytes()
    assert built.families[0]["tribute"] == {"how": "pay", "paid": ["mercator", "insidiator"]}
