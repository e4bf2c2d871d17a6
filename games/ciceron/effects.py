"""Action cards and guild powers: what may be played, what it costs and what it does.

An effect (see `cardset.EFFECTS` and docs/ciceron-cards.md) may need a target, named in
the decision: `play CARD` or `play CARD SENATOR` (assassinate: another family's senator;
bribe, patronage: one's own). A legion card then asks for its reward (`reward prestige`
or `reward CASTE`). Timing says where the card goes once paid: instant effects act and
the card leaves the game; `permanent` cards lie beside the family board; `senator` cards
lie on their senator; `end_of_turn` cards act at the end of the turn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from games.ciceron.cardset import ActionCard, Effect
from games.core import Decision

if TYPE_CHECKING:
    from games.ciceron.state import CiceronState

#: Effects aimed at a senator, and whose senators they may aim at.
AIMED = {"assassinate": "others", "bribe": "own", "patronage": "own"}


def affordable(st: CiceronState, seat: int, cost: dict[str, int]) -> bool:
    influence = st.families[seat]["influence"]
    return all(influence[caste] >= amount for caste, amount in cost.items())


def pay(st: CiceronState, seat: int, cost: dict[str, int]) -> None:
    for caste, amount in cost.items():
        st.gain_influence(seat, caste, -amount)


def targets(st: CiceronState, seat: int, effect: Effect) -> list[tuple[str, ...]]:
    """The argument tuples an effect may be used with (empty list: it cannot be used)."""
    aim = AIMED.get(effect.kind)
    if aim == "others":
        return [(sid,) for other in st.others_from(seat)
                for sid in st.families[other]["senators"]]
    if aim == "own":
        return [(sid,) for sid in st.families[seat]["senators"]]
    if effect.kind == "legion" and st.legions_left <= 0:
        return []  # C12: no legion left, the card cannot be played
    if effect.kind == "draw" and not st.decks[effect.caste]:
        return []
    return [()]


def play_options(st: CiceronState, seat: int, caste: str) -> list[Decision]:
    """Every `play CARD [TARGET]` of the family's hand for cards of `caste`."""
    found = []
    for card_id in sorted(set(st.families[seat]["hand"])):
        card = st.cards.action(card_id)
        if card.caste != caste or not affordable(st, seat, card.cost):
            continue
        found += [Decision("play", (card_id, *args)) for args in targets(st, seat, card.effect)]
    return found


def play(st: CiceronState, seat: int, decision: Decision) -> None:
    """Pay for a card, take it from the hand, and apply or lay it down by its timing."""
    card = st.cards.action(decision.args[0])
    fam = st.families[seat]
    pay(st, seat, card.cost)
    fam["hand"].remove(card.id)
    st.emit("play", family=st.name(seat), card=card.id, caste=card.caste,
            target=decision.args[1] if len(decision.args) > 1 else None)
    lay_down(st, seat, card, decision.args[1:])


def lay_down(st: CiceronState, seat: int, card: ActionCard, args: tuple[str, ...]) -> None:
    fam = st.families[seat]
    if card.timing == "permanent":
        fam["permanents"].append(card.id)
    elif card.timing == "senator" and card.effect.kind in ("bribe", "patronage"):
        fam["attached"].setdefault(args[0], []).append(card.id)
    elif card.timing == "end_of_turn":
        fam["turn_effects"].append({"card": card.id, "when": "end"})
        return
    else:
        st.removed.append(card.id)
    if card.timing in ("instant", "senator"):
        apply_effect(st, seat, card.effect, args)
    # a permanent card acts by lying beside the board (votes, income, limit: see rules)


def apply_effect(st: CiceronState, seat: int, effect: Effect, args: tuple[str, ...]) -> None:
    """Carry out an effect for the family now."""
    kind = effect.kind
    if kind == "influence":
        st.gain_influence(seat, effect.caste, effect.amount)
        st.emit("influence", family=st.name(seat), caste=effect.caste, amount=effect.amount)
    elif kind == "prestige":
        st.gain_prestige(seat, effect.amount, "action card")
    elif kind == "draw":
        for _ in range(effect.count):
            st.draw_action(seat, effect.caste)
    elif kind == "tax":
        for other in st.others_from(seat):
            st.gain_influence(other, effect.caste, -effect.amount)
        st.emit("tax", family=st.name(seat), caste=effect.caste, amount=effect.amount)
    elif kind == "legion":
        deploy_legion(st, seat, effect)
    elif kind == "assassinate":
        assassinate(st, seat, args[0])
    elif kind in ("votes", "income", "tribute_exempt", "extra_recruit", "limit"):
        st.families[seat]["turn_effects"].append({"kind": kind, "amount": effect.amount,
                                                  "caste": effect.caste, "when": "turn"})
    # bribe and patronage act by lying on their senator (see attached_* in rules)


def deploy_legion(st: CiceronState, seat: int, effect: Effect) -> None:
    st.legions[effect.province] += 1
    st.legions_left -= 1
    st.emit("legion", family=st.name(seat), province=effect.province,
            deployed=sum(st.legions.values()))
    st.frames.append({"k": "reward", "seat": seat,
                      "rewards": [[key, amount] for key, amount in effect.rewards]})


def reward_word(key: str) -> str:
    """`prestige` or a caste name: the word a `reward` decision uses."""
    return key.split(":", 1)[1] if key.startswith("influence:") else key


def take_reward(st: CiceronState, seat: int, key: str, amount: int) -> None:
    if key == "prestige":
        st.gain_prestige(seat, amount, "legion")
    else:
        caste = reward_word(key)
        st.gain_influence(seat, caste, amount)
        st.emit("influence", family=st.name(seat), caste=caste, amount=amount)


def assassinate(st: CiceronState, seat: int, senator_id: str) -> None:
    """Another family's senator is discarded, with the cards lying on it."""
    victim = next(s for s in range(st.num_seats) if senator_id in st.families[s]["senators"])
    discard_senator(st, victim, senator_id, why="assassinated")


def discard_senator(st: CiceronState, seat: int, senator_id: str, why: str) -> None:
    fam = st.families[seat]
    fam["senators"].remove(senator_id)
    st.removed.extend(fam["attached"].pop(senator_id, []))
    st.discarded.append(senator_id)
    st.emit("discard", family=st.name(seat), senator=senator_id, why=why)
    if len(fam["senators"]) > st.cenacle_limit(seat):
        st.frames.append({"k": "trim", "seat": seat})
