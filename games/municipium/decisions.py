"""Municipium's decisions and their notation. Built once; the rules only look them up."""

from __future__ import annotations

from functools import cache
from itertools import combinations_with_replacement

from games.core import Decision
from games.municipium.board import COLOURS, FAMILIES, FAVOUR, INSTITUTIONS

SKIP = Decision("skip")
DRAW = Decision("draw")
STOP = Decision("stop")
DONE = Decision("done")
ADVANCE = Decision("advance")
PLAY_COMMON = Decision("play", ("common",))


def member_name(inst: int, wreathed: int) -> str:
    """`baths`, or `baths*` for a distinguished (wreathed) member."""
    return INSTITUTIONS[inst] + ("*" if wreathed else "")


@cache
def setup(inst: int) -> Decision:
    return Decision("setup", (INSTITUTIONS[inst],))


@cache
def move(src: int, dst: int, wreathed: int) -> Decision:
    return Decision("move", (member_name(src, wreathed), INSTITUTIONS[dst]))


@cache
def reposition(src: int, dst: int, wreathed: int) -> Decision:
    return Decision("reposition", (member_name(src, wreathed), INSTITUTIONS[dst]))


@cache
def play(card: str) -> Decision:
    return Decision("play", (card,))


@cache
def place(colour: int, inst: int) -> Decision:
    return Decision("place", (COLOURS[colour], INSTITUTIONS[inst]))


@cache
def keep(a: int, b: int) -> Decision:
    a, b = sorted((a, b))
    return Decision("keep", (COLOURS[a], COLOURS[b]))


@cache
def power(inst: int) -> Decision:
    return Decision("power", (INSTITUTIONS[inst],))


@cache
def family(name: str) -> Decision:
    return Decision("family", (name,))


@cache
def from_(inst: int) -> Decision:
    return Decision("from", (INSTITUTIONS[inst],))


@cache
def send(plain: int, wreathed: int) -> Decision:
    if wreathed:
        return Decision("send", (str(plain), f"{wreathed}*"))
    return Decision("send", (str(plain),))


#: A token of one's supply in a Basilica exchange: a colour index 0..3, or 4 for a Favour.
TOKEN_NAMES = (*COLOURS, FAVOUR)


@cache
def exchange(tokens: tuple[int, ...]) -> Decision:
    return Decision("exchange", tuple(TOKEN_NAMES[t] for t in sorted(tokens)))


ALL_EXCHANGES = tuple(combinations_with_replacement(range(5), 3))


@cache
def take_from_family(colour: int, name: str) -> Decision:
    return Decision("take", (COLOURS[colour], name))


@cache
def take_from_institution(colour: int, inst: int) -> Decision:
    return Decision("take", (COLOURS[colour], INSTITUTIONS[inst]))


def parse_member(name: str) -> tuple[int, int]:
    """`baths*` -> (BATHS, 1). Raises KeyError for an unknown Institution."""
    wreathed = int(name.endswith("*"))
    return INSTITUTIONS.index(name.rstrip("*")), wreathed


_INSTS = frozenset(INSTITUTIONS)
_MEMBERS = _INSTS | {f"{i}*" for i in INSTITUTIONS}
_COLOURS = frozenset(COLOURS)
_TOKENS = frozenset(TOKEN_NAMES)
_CARDS = frozenset({"common", "powers", "praefect", "invitations", "grande-famille"})
_COUNTS = frozenset(str(n) for n in range(15))
_WREATH_COUNTS = frozenset(f"{n}*" for n in range(1, 8))

#: verb -> the allowed words at each argument position (a shorter tuple of args is allowed
#: only where listed in _OPTIONAL_TAIL).
VOCABULARY: dict[str, tuple[frozenset[str], ...]] = {
    "setup": (_INSTS,),
    "move": (_MEMBERS, _INSTS),
    "reposition": (_MEMBERS, _INSTS),
    "play": (_CARDS,),
    "place": (_COLOURS, _INSTS),
    "keep": (_COLOURS, _COLOURS),
    "power": (_INSTS,),
    "family": (frozenset(FAMILIES),),
    "from": (_INSTS,),
    "send": (_COUNTS, _WREATH_COUNTS),
    "exchange": (_TOKENS, _TOKENS, _TOKENS),
    "take": (_COLOURS, _INSTS | frozenset(FAMILIES)),
    "skip": (),
    "draw": (),
    "stop": (),
    "done": (),
    "advance": (),
}
_OPTIONAL_TAIL = {"send": 1}


def vocabulary_error(decision: Decision) -> str | None:
    """Why `decision` is not a Municipium decision at all, or None if it is well-formed."""
    slots = VOCABULARY.get(decision.verb)
    if slots is None:
        return f"unknown verb {decision.verb!r}; verbs are: {', '.join(sorted(VOCABULARY))}"
    shortest = _OPTIONAL_TAIL.get(decision.verb, len(slots))
    if not shortest <= len(decision.args) <= len(slots):
        return f"{decision.verb!r} takes {len(slots)} argument(s), got {len(decision.args)}"
    for position, (word, allowed) in enumerate(zip(decision.args, slots, strict=False), 1):
        if word not in allowed:
            return f"argument {position} of {decision.verb!r} cannot be {word!r}"
    return None


def canonical(decision: Decision) -> Decision:
    """A well-formed decision in the engine's order: Keep and Exchange name unordered
    choices (`keep advocate priest` = `keep priest advocate`)."""
    if decision.verb == "keep":
        first, second = decision.args
        return keep(COLOURS.index(first), COLOURS.index(second))
    if decision.verb == "exchange":
        return exchange(tuple(sorted(TOKEN_NAMES.index(t) for t in decision.args)))
    return decision
