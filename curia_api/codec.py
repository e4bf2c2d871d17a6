"""The codec between the pure rules engine (`games`) and the public contract (`curia.v1`).

Pure functions, no I/O, and no game named: a game's typed messages are encoded by its
own `GameCodec`, found in `curia_api/codecs/<game>.py` (or registered by a plugin with
`register_codec`). A game without one is fully playable through the notation and
`observation_json`: the typed `oneof` case is an addition, never a requirement.

* `decision_to_proto` / `decision_from_proto`: an engine `Decision` and a `pb.Decision`,
  which carries the text notation, the typed per-game case, or both;
* `observation_to_proto`: the engine's observation JSON as a typed `pb.Observation`;
* `events_to_proto`: the events a viewer may see, their data as compact JSON;
* `result_to_proto`: a `Result` (forfeits applied, see `games.core.apply_forfeits`).

Decoding a client's decision raises `games.core.NotationError` and nothing else, whatever
the message holds. Unordered choices come out in the game's canonical order
(`GameState.canonical`), whichever order the client wrote them in.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from collections.abc import Callable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

from curia_api.v1 import game_service_pb2 as pb
from games.card_files import SLUG
from games.core import (
    JSON,
    Decision,
    Event,
    GameState,
    NotationError,
    Result,
    apply_forfeits,
    notation,
)

__all__ = [
    "GameCodec",
    "apply_forfeits",
    "codec_for",
    "decision_from_proto",
    "decision_to_proto",
    "enum_values",
    "enum_word",
    "events_to_proto",
    "observation_to_proto",
    "register_codec",
    "result_to_proto",
]


@dataclass(frozen=True)
class GameCodec:
    """One game's typed messages: its `oneof` case in `pb.Decision` and `pb.Observation`,
    named like the game."""

    game: str
    #: Fill the game's case of a `pb.Decision` from a well-formed engine decision.
    encode_decision: Callable[[Decision, pb.Decision], None]
    #: The engine decision the game's case of a `pb.Decision` names (NotationError if none).
    decode_decision: Callable[[pb.Decision], Decision]
    #: Fill the game's case of a `pb.Observation` from the engine's observation JSON.
    encode_observation: Callable[[JSON, pb.Observation], None]


def enum_values(enum: Any, prefix: str, names: Iterable[str],
                renamed: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Engine word -> enum number, e.g. `grande-famille` -> MUNICIPIUM_CARD_GRANDE_FAMILLE
    (`renamed` maps a word to the enum's spelling). A word the contract lacks fails at
    import, so an engine and its contract cannot drift apart silently."""
    renamed = renamed or {}
    return {name: enum.Value(prefix + renamed.get(name, name).upper().replace("-", "_"))
            for name in names}


def enum_word(names: Mapping[int, str], number: int, field: str) -> str:
    """The engine word of an enum number read from `field`; NotationError if none (proto3
    enums are open: 0 and unknown numbers arrive as plain ints)."""
    word = names.get(number)
    if word is None:
        problem = "is not set" if number == 0 else f"has no value {number}"
        raise NotationError(f"{field} {problem}")
    return word


#: What a card set id looks like (the games' card set slugs; docs/*-cards.md).
CARD_SET_ID = SLUG
#: The longest notation the game service accepts (`games.core.parse_notation`).
MAX_NOTATION = 200


def card_set_id(value: str, field: str) -> str:
    """A card set id read from `field`; NotationError if empty or not an id."""
    if not value:
        raise NotationError(f"{field} is not set")
    if not CARD_SET_ID.fullmatch(value):
        raise NotationError(f"{field} is not an id (lowercase letters, digits and single "
                            f"hyphens): {value[:40]!r}")
    return value


def decoded_case(game: str, typed: Any, decode: Callable[[str, Any], Decision]) -> Decision:
    """The decision a game's typed case names (`decode(kind, typed)`), refused if no case
    is set or if its notation would be longer than the service accepts."""
    kind = typed.WhichOneof("kind")
    if kind is None:
        raise NotationError(f"the {game} decision has no case set")
    decision = decode(kind, typed)
    text = notation(decision)
    if len(text) > MAX_NOTATION:
        raise NotationError(f"the {game}.{kind} decision is too long: its notation would "
                            f"have {len(text)} characters (at most {MAX_NOTATION})")
    return decision


_CODECS: dict[str, GameCodec] = {}
_loaded = False


def register_codec(codec: GameCodec) -> None:
    """Make a game's typed messages known (a codec module calls this on import)."""
    _CODECS[codec.game] = codec


def codec_for(game: str) -> GameCodec | None:
    """The typed codec of a game, or None if the contract has no typed messages for it."""
    global _loaded
    if not _loaded:
        _loaded = True
        from curia_api import codecs
        for module in pkgutil.iter_modules(codecs.__path__):
            importlib.import_module(f"{codecs.__name__}.{module.name}")
    return _CODECS.get(game)


# ---------------------------------------------------------------------------------------
# Decisions
# ---------------------------------------------------------------------------------------
def decision_to_proto(game: str, decision: Decision) -> pb.Decision:
    """The contract's form of an engine decision: its notation, and its typed case when
    the game has one. Raises NotationError for a decision the game's codec refuses."""
    message = pb.Decision(notation=notation(decision))
    codec = codec_for(game)
    if codec is not None:
        codec.encode_decision(decision, message)
    return message


def decision_from_proto(state: GameState, message: pb.Decision) -> Decision:
    """The engine decision a client's `pb.Decision` names, for the game of `state`.

    The notation alone, the typed case alone, or both (which must then name the same
    decision) are accepted. The result is well-formed and canonical for the game
    (legality is not checked). Raises NotationError, and nothing else, for anything
    malformed.
    """
    if not isinstance(message, pb.Decision):
        raise NotationError(f"not a decision message: {type(message).__name__}")
    text = message.notation
    from_text = state.parse(text) if text else None
    case = message.WhichOneof("game")
    if case is None:
        if from_text is None:
            raise NotationError("empty decision: set its notation or its typed case")
        return from_text
    codec = codec_for(state.game)
    if case != state.game or codec is None:
        raise NotationError(f"the typed decision is a {case} one, but this game is "
                            f"{state.game}" + ("" if codec else " (play it by notation)"))
    from_case = state.as_decision(codec.decode_decision(message))
    if from_text is not None and from_text != from_case:
        raise NotationError(f"the notation {text!r} and the typed decision "
                            f"('{from_case}') disagree")
    return from_case


# ---------------------------------------------------------------------------------------
# Observations, events and results
# ---------------------------------------------------------------------------------------
def observation_to_proto(game: str, observation: JSON) -> pb.Observation:
    """The typed form of the engine's observation JSON (`GameState.observation`); an empty
    message for a game without a typed observation (`observation_json` carries it)."""
    message = pb.Observation()
    codec = codec_for(game)
    if codec is not None:
        codec.encode_observation(observation, message)
    return message


def events_to_proto(version: int, events: list[Event], seat: int | None,
                    reveal_all: bool = False) -> list[pb.Event]:
    """The events of `version` that `seat` (None: a spectator) may see; all of them with
    `reveal_all` (a finished game's record)."""
    return [pb.Event(version=version, kind=event.kind,
                     data_json=json.dumps(event.data, sort_keys=True, separators=(",", ":")))
            for event in events if reveal_all or event.visible_to(seat)]


def result_to_proto(result: Result,
                    forfeited: AbstractSet[int] = frozenset()) -> pb.GameResult:
    """The contract's result: forfeited seats ranked last (see `apply_forfeits`)."""
    final = apply_forfeits(result, forfeited)
    return pb.GameResult(
        ranking=[pb.RankGroup(seats=group) for group in final.ranking],
        scores=[pb.SeatScore(seat=seat, rank=final.rank_of(seat),
                             figures={name: int(value) for name, value in score.items()
                                      if isinstance(value, int)},
                             forfeited=seat in forfeited,
                             ordered_figures=[pb.ScoreFigure(name=name, value=int(value))
                                              for name, value in score.items()
                                              if isinstance(value, int)])
                for seat, score in enumerate(final.scores)],
        reason=final.reason,
    )
