"""What each seat may see of a Cicéron game, and how its hidden part is resampled.

Public (C5): the board, every family's influence, prestige, servants, senators
(recruited senators are public), the cards lying in play, majority cards, legions, the
revealed Cicéron and Triumvirat cards (`triumvirat_drawn`: the last one drawn, shown until
the next phase V draws another), how many cards each family holds (by caste, since
each caste has its own deck), how many senators it drew, whether it has voted.
Private to one seat: its hand of action cards, the senators it drew at a Senate spot and
has not yet recruited, its vote until all votes are in, the draft packet once it has held
it. Hidden from everyone: deck and pile orders, the white senators not dealt.

`observe(state, seat)` builds the documented observation (docs/bots.md);
`resample_hidden(state, seat, rng)` redraws, in place, exactly what `seat` cannot see;
`state_from_observation` rebuilds a whole state from one observation.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from games.ciceron.cardset import CASTES, CardSet
from games.ciceron.rules import election_votes
from games.core import JSON, Rng

if TYPE_CHECKING:
    from games.ciceron.state import CiceronState

#: Frame fields that name a seat: the observation adds its family's name beside it.
_SEAT_FIELDS = ("seat",)


# ---------------------------------------------------------------------------------------
# The observation
# ---------------------------------------------------------------------------------------
def observe(st: CiceronState, seat: int | None) -> JSON:
    names = st.seat_names()
    asked, agenda = pending_steps(st)
    return {
        "game": st.game, "variant": st.variant, "options": dict(st.options),
        "seat": seat, "num_seats": st.num_seats, "families": names,
        "card_set": dict(st.card_set),
        "turn": st.turn, "turns": st.turns, "phase": st.phase,
        "princeps": st.princeps, "to_move": list(st.to_move()),
        "pending": st.describe_pending(),
        "boards": [board_view(st, s, seat) for s in range(st.num_seats)],
        "spots": {spot: _holder(names, holder) for spot, holder in st.spots.items()},
        "piles": {pile: len(cards) for pile, cards in st.piles.items()},
        "decks": {caste: len(cards) for caste, cards in st.decks.items()},
        "ciceron": st.ciceron, "ciceron_past": list(st.ciceron_past),
        "ciceron_deck": len(st.ciceron_deck),
        "triumvirat": list(st.triumvirat), "triumvirat_drawn": st.triumvirat_drawn,
        "legions": dict(st.legions), "legions_left": st.legions_left,
        "primus": {c: _holder(names, h) for c, h in st.primus.items()},
        "secundus": {c: _holder(names, h) for c, h in st.secundus.items()},
        "guilds": {g: {"holder": _holder(names, v["holder"]), "choice": v["choice"]}
                   for g, v in st.guilds.items()},
        "discarded": list(st.discarded), "removed": list(st.removed),
        "draft": draft_view(st, seat),
        "election": _copy(st.election),
        "asked": asked, "agenda": agenda,
        "result": st.result().to_json() if st.ended else None,  # type: ignore[union-attr]
    }


def _holder(names: list[str], holder: int | str | None) -> str | None:
    return names[holder] if isinstance(holder, int) else holder


def board_view(st: CiceronState, seat: int, viewer: int | None) -> JSON:
    """A family's board: all public, with its hand, draw and vote for itself only."""
    fam = st.families[seat]
    mine = viewer == seat
    return {
        "family": st.name(seat), "home": st.cards.families[seat].home,
        "influence": dict(fam["influence"]), "prestige": fam["prestige"],
        "servants": fam["servants"], "senators": list(fam["senators"]),
        "cenacle_limit": st.cenacle_limit(seat),
        "senate_votes": st.senate_votes(seat),
        "election_votes": election_votes(st, seat),
        "permanents": list(fam["permanents"]),
        "attached": {k: list(v) for k, v in fam["attached"].items()},
        "turn_effects": [dict(e) for e in fam["turn_effects"]],
        "hand_by_caste": _by_caste(st, fam["hand"]),
        "hand": sorted(fam["hand"]) if mine else None,
        "drawn_count": len(fam["drawn"]),
        "drawn": list(fam["drawn"]) if mine else None,
        "voted": fam["vote"] is not None,
        "vote": fam["vote"] if mine else None,
        "guild_powers": list(fam["guild_powers"]), "tribute": _copy(fam["tribute"]),
    }


def _by_caste(st: CiceronState, hand: list[str]) -> dict[str, int]:
    counts = Counter(st.cards.action(card).caste for card in hand)
    return {caste: counts.get(caste, 0) for caste in CASTES}


def draft_view(st: CiceronState, viewer: int | None) -> JSON:
    draft = st.draft
    seen = viewer is not None and viewer in draft["seen"]
    return {"packet": sorted(draft["packet"]) if seen else None,
            "packet_size": len(draft["packet"]), "order": list(draft["order"]),
            "seen": list(draft["seen"])}


def pending_steps(st: CiceronState) -> tuple[JSON | None, list[JSON]]:
    """The question asked now (`asked`) and the steps still to come (`agenda`, next
    first), each with the family names beside the seats."""
    if st.ended or not st.frames:
        return None, []
    steps = [public_step(st, frame) for frame in reversed(st.frames)]
    return steps[0], steps[1:]


def public_step(st: CiceronState, frame: JSON) -> JSON:
    step: JSON = {"step": frame["k"].replace("_", "-")}
    for key, value in frame.items():
        if key != "k":
            step[key] = _copy(value)
    if isinstance(frame.get("seat"), int):
        step["family"] = st.name(frame["seat"])
    if frame["k"] == "election":
        step["seats"] = [s for s in range(st.num_seats) if st.families[s]["vote"] is None]
    return step


def _copy(value: Any) -> Any:
    """A deep copy of JSON-like data: an observation never shares the engine's objects."""
    if isinstance(value, list):
        return [_copy(v) for v in value]
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    return value


def frame_of(step: JSON) -> JSON:
    """The engine's frame for a public step (the inverse of `public_step`)."""
    frame = {"k": step["step"].replace("-", "_")}
    for key, value in step.items():
        if key not in ("step", "family") and not (frame["k"] == "election" and key == "seats"):
            frame[key] = _copy(value)
    return frame


# ---------------------------------------------------------------------------------------
# What a seat cannot see, resampled
# ---------------------------------------------------------------------------------------
def resample_hidden(st: CiceronState, viewer: int | None, rng: Rng) -> None:
    """Redraw, in place, the hidden part of `st` as `viewer` (None: a spectator) sees it:
    deck and pile orders, other hands and draws, other pending votes, an unseen draft."""
    others = [s for s in range(st.num_seats) if s != viewer]
    _resample_hands(st, others, rng)
    _resample_draws(st, others, rng)
    _resample_votes(st, others, rng)
    if viewer is None or viewer not in st.draft["seen"]:
        _resample_packet(st, rng)
    st.ciceron_deck.sort()  # forget the real order before resampling it
    rng.shuffle(st.ciceron_deck)
    st.rng = Rng(rng.next64())


def _resample_hands(st: CiceronState, others: list[int], rng: Rng) -> None:
    for caste in CASTES:
        pool = list(st.decks[caste])
        counts = {}
        for seat in others:
            hand = st.families[seat]["hand"]
            mine = [c for c in hand if st.cards.action(c).caste == caste]
            counts[seat] = len(mine)
            pool += mine
            st.families[seat]["hand"] = [c for c in hand if st.cards.action(c).caste != caste]
        pool.sort()
        rng.shuffle(pool)
        for seat in others:
            st.families[seat]["hand"] += [pool.pop() for _ in range(counts[seat])]
        st.decks[caste] = pool


def _resample_draws(st: CiceronState, others: list[int], rng: Rng) -> None:
    for pile in (p.id for p in st.cards.piles):
        drawers = [s for s in others if st.families[s]["drawn"]
                   and st.cards.senator(st.families[s]["drawn"][0]).pile == pile]
        pool = list(st.piles[pile]) + [sid for s in drawers for sid in st.families[s]["drawn"]]
        pool.sort()
        rng.shuffle(pool)
        for seat in drawers:
            st.families[seat]["drawn"] = [pool.pop() for _ in st.families[seat]["drawn"]]
        st.piles[pile] = pool


def _resample_votes(st: CiceronState, others: list[int], rng: Rng) -> None:
    names = st.seat_names()
    for seat in others:
        if st.families[seat]["vote"] is not None:
            st.families[seat]["vote"] = names[rng.below(len(names))]


def _resample_packet(st: CiceronState, rng: Rng) -> None:
    packet = st.draft["packet"]
    if not packet:
        return
    pool = sorted(set(unseen_whites(st.cards, st)) | set(packet))
    rng.shuffle(pool)
    st.draft["packet"] = sorted(pool[: len(packet)])


def unseen_whites(cards: CardSet, st: Any) -> list[str]:
    """White senators in nobody's cénacle, not discarded and not in the packet."""
    placed = {sid for fam in st.families for sid in fam["senators"]}
    placed |= set(st.discarded) | set(st.draft["packet"])
    return [s.id for s in cards.senators if s.pile == "white" and s.id not in placed]


# ---------------------------------------------------------------------------------------
# A whole state from one observation
# ---------------------------------------------------------------------------------------
def state_from_observation(cls: type[CiceronState], cards: CardSet, obs: JSON,
                           seed: int) -> CiceronState:
    """A state consistent with `obs`, its hidden parts sampled from `seed`."""
    if obs["card_set"]["digest"] != cards.digest:
        raise ValueError("the observation is of a game played with another card set "
                         f"({obs['card_set']['name']!r})")
    st = cls._blank(cards)
    viewer = obs["seat"]
    st.variant, st.num_seats, st.options, st.seed = obs["variant"], obs["num_seats"], \
        dict(obs["options"]), 0
    st.card_set = dict(obs["card_set"])
    st.turn, st.turns, st.phase, st.princeps = obs["turn"], obs["turns"], obs["phase"], \
        obs["princeps"]
    names = list(obs["families"])
    st.spots = {spot: _seat_or(names, h) for spot, h in obs["spots"].items()}
    st.primus = {c: _seat(names, h) for c, h in obs["primus"].items()}
    st.secundus = {c: _seat(names, h) for c, h in obs["secundus"].items()}
    st.guilds = {g: {"holder": _seat(names, v["holder"]), "choice": v["choice"]}
                 for g, v in obs["guilds"].items()}
    st.ciceron, st.ciceron_past = obs["ciceron"], list(obs["ciceron_past"])
    st.triumvirat, st.triumvirat_drawn = list(obs["triumvirat"]), obs["triumvirat_drawn"]
    st.legions, st.legions_left = dict(obs["legions"]), obs["legions_left"]
    st.discarded, st.removed = list(obs["discarded"]), list(obs["removed"])
    st.election = obs["election"]
    st.ended = obs["result"]["reason"] if obs["result"] else None
    st.frames = [frame_of(step) for step in reversed(
        ([obs["asked"]] if obs["asked"] else []) + list(obs["agenda"]))]
    st.families = [_family_from(board) for board in obs["boards"]]
    st.draft = {"packet": list(obs["draft"]["packet"] or []),
                "order": list(obs["draft"]["order"]), "seen": list(obs["draft"]["seen"])}
    rng = Rng(seed)
    _deal_unseen(st, cards, obs, viewer, rng)
    st.rng = Rng(rng.next64())
    st.events = []
    st.advance()
    return st


def _seat_or(names: list[str], holder: str | None) -> int | str | None:
    return names.index(holder) if holder in names else holder


def _seat(names: list[str], holder: str | None) -> int | None:
    return names.index(holder) if holder in names else None


def _family_from(board: JSON) -> JSON:
    return {
        "influence": dict(board["influence"]), "prestige": board["prestige"],
        "servants": board["servants"], "senators": list(board["senators"]),
        "hand": list(board["hand"] or []), "permanents": list(board["permanents"]),
        "attached": {k: list(v) for k, v in board["attached"].items()},
        "drawn": list(board["drawn"] or []), "vote": board["vote"],
        "guild_powers": list(board["guild_powers"]),
        "turn_effects": list(board["turn_effects"]),
        "tribute": board["tribute"],
    }


def _deal_unseen(st: CiceronState, cards: CardSet, obs: JSON, viewer: int | None,
                 rng: Rng) -> None:
    """Fill decks, piles, other hands, draws, votes and an unseen packet from what the
    observation does not show."""
    boards = obs["boards"]
    others = [s for s in range(st.num_seats) if s != viewer]
    seen_actions = set(st.removed)
    for fam in st.families:
        seen_actions |= set(fam["hand"]) | set(fam["permanents"])
        seen_actions |= {c for cs in fam["attached"].values() for c in cs}
        seen_actions |= {e["card"] for e in fam["turn_effects"] if "card" in e}
    st.decks = {}
    for caste in CASTES:
        pool = sorted(a.id for a in cards.actions if a.caste == caste
                      and a.id not in seen_actions)
        rng.shuffle(pool)
        for seat in others:
            st.families[seat]["hand"] += [pool.pop()
                                          for _ in range(boards[seat]["hand_by_caste"][caste])]
        st.decks[caste] = pool
    _deal_piles(st, cards, obs, others, rng)
    names = st.seat_names()
    for seat in others:
        if boards[seat]["voted"]:
            st.families[seat]["vote"] = names[rng.below(len(names))]
    if obs["draft"]["packet"] is None and obs["draft"]["packet_size"]:
        pool = sorted(unseen_whites(cards, st))
        rng.shuffle(pool)
        st.draft["packet"] = sorted(pool[: obs["draft"]["packet_size"]])
    st.ciceron_deck = sorted(c.id for c in cards.ciceron
                             if c.id not in st.ciceron_past and c.id != st.ciceron)
    rng.shuffle(st.ciceron_deck)


def _deal_piles(st: CiceronState, cards: CardSet, obs: JSON, others: list[int],
                rng: Rng) -> None:
    visible = set(st.discarded)
    for fam in st.families:
        visible |= set(fam["senators"]) | set(fam["drawn"])
    drawing_pile = next((f["pile"] for f in st.frames if f["k"] == "recruit"), None)
    st.piles = {}
    for pile in cards.piles:
        pool = sorted(s.id for s in cards.senators if s.pile == pile.id and s.id not in visible)
        rng.shuffle(pool)
        if pile.id == drawing_pile:
            for seat in others:
                count = obs["boards"][seat]["drawn_count"]
                st.families[seat]["drawn"] = [pool.pop() for _ in range(count)]
        st.piles[pile.id] = pool[len(pool) - obs["piles"][pile.id]:] if obs["piles"][pile.id] \
            else []
