"""Phase IV, Cicéron's tribute (2 of the 4 influences shown, or a senator of one of the
2 castes, or −10 PP, always possible), and phase V, the Triumvirat (met: on; unmet:
everyone pays again in a different way, C7)."""

from __future__ import annotations

import pytest

from games.ciceron.position import (
    Position,
    cenacle,
    influence,
    legal,
    mover,
    of_kind,
    play,
    prestige,
    step,
)
from games.ciceron.state import CiceronState

HORTENSIUS = "quintus-hortensius-hortalus"  # orator
ATTICUS = "titus-pomponius-atticus"  # mercator
METELLUS = "quintus-caecilius-metellus-pius"  # pontifex
LEPIDUS = "marcus-aemilius-lepidus"  # pontifex
#: In Verrem: a mercator or pontifex senator, or 2 of insidiator, mercator, belligerator x2.
PAIRS = ["pay mercator insidiator", "pay mercator belligerator",
         "pay insidiator belligerator", "pay belligerator belligerator"]


def tribute(families: int = 3) -> Position:
    return (Position(families).at("tribute", turn=2).princeps("aemilii").ciceron("in-verrem")
            .influence(**{name: {"rest": 5} for name in
                          ("aemilii", "iulii", "cornelii", "claudii")[:families]}))


def not_discards(st: CiceronState) -> list[str]:
    return [d for d in legal(st) if not d.startswith("discard")]


# -- phase IV ------------------------------------------------------------------------------
def test_book_tribute_in_verrem_example_two_influences_a_senator_or_ten_pp() -> None:
    st = tribute().senators(aemilii=[HORTENSIUS, ATTICUS, METELLUS]).build()
    assert step(st) == "pay" and mover(st) == "aemilii"
    assert not_discards(st) == [*PAIRS, f"sacrifice {ATTICUS}", f"sacrifice {METELLUS}",
                                "disgrace"]


def test_book_tribute_pay_two_influences_a_symbol_shown_twice_may_be_paid_twice() -> None:
    st = tribute().build()
    events = play(st, "pay belligerator belligerator")
    assert influence(st, "aemilii")["belligerator"] == 3
    assert of_kind(events, "tribute") == [{"family": "aemilii", "how": "pay",
                                           "influences": ["belligerator", "belligerator"]}]
    play(st, "pay mercator insidiator")
    assert influence(st, "iulii")["mercator"] == 4 and influence(st, "iulii")["insidiator"] == 4


def test_book_tribute_discard_a_senator_of_one_of_the_two_castes() -> None:
    st = tribute().senators(aemilii=[HORTENSIUS, ATTICUS]).build()
    play(st, f"sacrifice {ATTICUS}")
    assert cenacle(st, "aemilii") == [HORTENSIUS] and ATTICUS in st.discarded
    assert prestige(st, "aemilii") == 10


def test_book_tribute_minus_ten_is_always_possible() -> None:
    st = tribute().senators(aemilii=[ATTICUS]).build()
    assert "disgrace" in legal(st)  # even when it could pay
    play(st, "disgrace")
    assert prestige(st, "aemilii") == 0
    st = tribute().influence(aemilii={"rest": 0}).senators(aemilii=[HORTENSIUS]).build()
    assert not_discards(st) == ["disgrace"]  # nothing else it can do


def test_book_tribute_only_pairs_the_family_can_pay() -> None:
    st = tribute().influence(aemilii={"rest": 0, "belligerator": 1, "mercator": 1}).build()
    assert not_discards(st) == ["pay mercator belligerator", "disgrace"]


def test_book_tribute_every_family_from_the_princeps_clockwise() -> None:
    st = (Position(3).at("tribute", turn=2).princeps("iulii").ciceron("in-verrem")
          .triumvirat("pompey-2").legions(gallia=2).build())
    payers = []
    while step(st) == "pay":
        payers.append(mover(st))
        play(st, "disgrace")
    assert payers == ["iulii", "cornelii", "aemilii"]


def test_card_tribute_exempt_family_pays_nothing() -> None:
    st = tribute().effects(aemilii=["tribute_exempt"]).build()
    assert mover(st) == "iulii"


# -- phase V -------------------------------------------------------------------------------
def test_book_triumvirat_the_princeps_draws_one_of_the_turns_three() -> None:
    st = tribute().build()
    play(st, "disgrace", "disgrace", "disgrace")
    drawn = of_kind(st.events, "triumvirat")
    assert len(drawn) == 1 and drawn[0]["card"] in {"caesar-2", "crassus-2", "pompey-2"}
    assert st.triumvirat_drawn == drawn[0]["card"]


def test_book_triumvirat_met_the_game_goes_on() -> None:
    """Caesar, turn 2: at least 2 legions, one in Gallia."""
    st = tribute().triumvirat("caesar-2").legions(gallia=1, syria=1).build()
    events = play(st, "disgrace", "disgrace", "disgrace")
    assert of_kind(events, "triumvirat")[0]["met"] is True
    assert step(st) != "pay" and len(of_kind(events, "tribute")) == 3


@pytest.mark.parametrize("legions", [{"gallia": 1}, {"syria": 2}, {}])
def test_book_triumvirat_unmet_count_or_province_everyone_pays_again(
        legions: dict[str, int]) -> None:
    st = tribute().triumvirat("caesar-2").legions(**legions).build()
    events = play(st, "disgrace", "disgrace", "disgrace")
    assert of_kind(events, "triumvirat")[0]["met"] is False
    assert step(st) == "pay" and mover(st) == "aemilii"
    assert st.frames[-1]["round"] == 2


def unmet(families: int = 3) -> Position:
    return tribute(families).triumvirat("caesar-2").legions(syria=3)


def test_c7_paid_influences_then_only_the_two_other_symbols() -> None:
    st = unmet().senators(aemilii=[ATTICUS]).build()
    play(st, "pay mercator insidiator", "disgrace", "disgrace")
    assert mover(st) == "aemilii"
    assert not_discards(st) == ["pay belligerator belligerator", f"sacrifice {ATTICUS}",
                                "disgrace"]
    play(st, "pay belligerator belligerator")
    assert influence(st, "aemilii") | {"orator": 0} == {
        "orator": 0, "mercator": 4, "pontifex": 5, "insidiator": 4, "plebeius": 5,
        "belligerator": 3}
    st = unmet().senators(aemilii=[ATTICUS]).build()
    play(st, "pay mercator belligerator", "disgrace", "disgrace")
    assert not_discards(st)[0] == "pay insidiator belligerator"


def test_c7_discarded_a_senator_then_may_not_discard_again() -> None:
    st = unmet().senators(aemilii=[ATTICUS, METELLUS]).build()
    play(st, f"sacrifice {ATTICUS}", "disgrace", "disgrace")
    assert mover(st) == "aemilii"
    assert not_discards(st) == [*PAIRS, "disgrace"]


def test_c7_took_minus_ten_then_pays_influences_or_a_senator_if_it_can() -> None:
    st = unmet(4).senators(aemilii=[LEPIDUS]).influence(claudii={"rest": 0}).build()
    play(st, "disgrace", "disgrace", "disgrace", "disgrace")
    assert mover(st) == "aemilii"
    assert not_discards(st) == [*PAIRS, f"sacrifice {LEPIDUS}"]  # no second −10
    play(st, f"sacrifice {LEPIDUS}", "pay mercator insidiator", "pay mercator insidiator")
    assert mover(st) == "claudii" and not_discards(st) == ["disgrace"]  # cannot: −10 again
    play(st, "disgrace")
    assert prestige(st) == {"aemilii": 0, "iulii": 0, "cornelii": 0, "claudii": -10}
    assert step(st) != "pay"


def test_c7_tribute_exemption_holds_for_the_second_payment_too() -> None:
    st = unmet().effects(iulii=["tribute_exempt"]).build()
    payers = []
    while step(st) == "pay":
        payers.append(mover(st))
        play(st, "disgrace" if "disgrace" in legal(st) else legal(st)[0])
    assert payers == ["aemilii", "cornelii", "aemilii", "cornelii"]
    assert prestige(st, "iulii") == 10


def test_book_ciceron_card_seen_by_everyone_from_phase_two() -> None:
    st = tribute().build()
    assert all(st.observation(v)["ciceron"] == "in-verrem" for v in (None, 0, 1, 2))


def test_c7_position_starting_at_the_triumvirat_remembers_the_first_payments() -> None:
    st = (Position(3).at("triumvirat", turn=2).princeps("aemilii").ciceron("in-verrem")
          .triumvirat("caesar-2").influence(aemilii={"rest": 5}, iulii={"rest": 5})
          .senators(iulii=[ATTICUS], cornelii=[METELLUS])
          .tribute_paid(aemilii="pay mercator insidiator", iulii="sacrifice",
                        cornelii="disgrace").build())
    assert of_kind(st.events, "triumvirat")[0]["met"] is False
    assert mover(st) == "aemilii" and not_discards(st) == ["pay belligerator belligerator",
                                                           "disgrace"]
    play(st, "disgrace")
    assert not_discards(st) == [*PAIRS, "disgrace"]  # iulii: no second senator
    play(st, "disgrace")
    assert not_discards(st) == [f"sacrifice {METELLUS}"]  # cornelii: no second −10


def test_position_tribute_paid_must_be_a_payment_of_the_card() -> None:
    with pytest.raises(ValueError, match="tribute_paid.aemilii: 'pay orator orator'"):
        (Position(3).at("triumvirat", turn=2).ciceron("in-verrem")
         .tribute_paid(aemilii="pay orator orator").build())
    with pytest.raises(ValueError, match="has not paid it yet"):
        Position(3).at("tribute", turn=2).tribute_paid(aemilii="disgrace").build()
