from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class LegesDirection(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LEGES_DIRECTION_UNSPECIFIED: _ClassVar[LegesDirection]
    LEGES_DIRECTION_UP: _ClassVar[LegesDirection]
    LEGES_DIRECTION_DOWN: _ClassVar[LegesDirection]

class LegesAgendaStep(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LEGES_AGENDA_STEP_UNSPECIFIED: _ClassVar[LegesAgendaStep]
    LEGES_AGENDA_STEP_REVEAL: _ClassVar[LegesAgendaStep]
    LEGES_AGENDA_STEP_ABILITY: _ClassVar[LegesAgendaStep]
    LEGES_AGENDA_STEP_DOUBLE: _ClassVar[LegesAgendaStep]
    LEGES_AGENDA_STEP_SCORE: _ClassVar[LegesAgendaStep]
    LEGES_AGENDA_STEP_LAWS: _ClassVar[LegesAgendaStep]
    LEGES_AGENDA_STEP_EXCHANGE: _ClassVar[LegesAgendaStep]
    LEGES_AGENDA_STEP_END_OF_ROUND: _ClassVar[LegesAgendaStep]
    LEGES_AGENDA_STEP_END_OF_SEASON: _ClassVar[LegesAgendaStep]
    LEGES_AGENDA_STEP_END_OF_GAME: _ClassVar[LegesAgendaStep]
LEGES_DIRECTION_UNSPECIFIED: LegesDirection
LEGES_DIRECTION_UP: LegesDirection
LEGES_DIRECTION_DOWN: LegesDirection
LEGES_AGENDA_STEP_UNSPECIFIED: LegesAgendaStep
LEGES_AGENDA_STEP_REVEAL: LegesAgendaStep
LEGES_AGENDA_STEP_ABILITY: LegesAgendaStep
LEGES_AGENDA_STEP_DOUBLE: LegesAgendaStep
LEGES_AGENDA_STEP_SCORE: LegesAgendaStep
LEGES_AGENDA_STEP_LAWS: LegesAgendaStep
LEGES_AGENDA_STEP_EXCHANGE: LegesAgendaStep
LEGES_AGENDA_STEP_END_OF_ROUND: LegesAgendaStep
LEGES_AGENDA_STEP_END_OF_SEASON: LegesAgendaStep
LEGES_AGENDA_STEP_END_OF_GAME: LegesAgendaStep

class LegesDecision(_message.Message):
    __slots__ = ("play", "hold", "shift", "law", "nolaw", "discard", "draw")
    class Play(_message.Message):
        __slots__ = ("card",)
        CARD_FIELD_NUMBER: _ClassVar[int]
        card: str
        def __init__(self, card: _Optional[str] = ...) -> None: ...
    class Hold(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Shift(_message.Message):
        __slots__ = ("colour", "direction")
        COLOUR_FIELD_NUMBER: _ClassVar[int]
        DIRECTION_FIELD_NUMBER: _ClassVar[int]
        colour: str
        direction: LegesDirection
        def __init__(self, colour: _Optional[str] = ..., direction: _Optional[_Union[LegesDirection, str]] = ...) -> None: ...
    class Pass(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Law(_message.Message):
        __slots__ = ("colour", "tier")
        COLOUR_FIELD_NUMBER: _ClassVar[int]
        TIER_FIELD_NUMBER: _ClassVar[int]
        colour: str
        tier: int
        def __init__(self, colour: _Optional[str] = ..., tier: _Optional[int] = ...) -> None: ...
    class Nolaw(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Discard(_message.Message):
        __slots__ = ("card",)
        CARD_FIELD_NUMBER: _ClassVar[int]
        card: str
        def __init__(self, card: _Optional[str] = ...) -> None: ...
    class Draw(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    PLAY_FIELD_NUMBER: _ClassVar[int]
    HOLD_FIELD_NUMBER: _ClassVar[int]
    SHIFT_FIELD_NUMBER: _ClassVar[int]
    PASS_FIELD_NUMBER: _ClassVar[int]
    LAW_FIELD_NUMBER: _ClassVar[int]
    NOLAW_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    DRAW_FIELD_NUMBER: _ClassVar[int]
    play: LegesDecision.Play
    hold: LegesDecision.Hold
    shift: LegesDecision.Shift
    law: LegesDecision.Law
    nolaw: LegesDecision.Nolaw
    discard: LegesDecision.Discard
    draw: LegesDecision.Draw
    def __init__(self, play: _Optional[_Union[LegesDecision.Play, _Mapping]] = ..., hold: _Optional[_Union[LegesDecision.Hold, _Mapping]] = ..., shift: _Optional[_Union[LegesDecision.Shift, _Mapping]] = ..., law: _Optional[_Union[LegesDecision.Law, _Mapping]] = ..., nolaw: _Optional[_Union[LegesDecision.Nolaw, _Mapping]] = ..., discard: _Optional[_Union[LegesDecision.Discard, _Mapping]] = ..., draw: _Optional[_Union[LegesDecision.Draw, _Mapping]] = ..., **kwargs) -> None: ...

class LegesIds(_message.Message):
    __slots__ = ("ids",)
    IDS_FIELD_NUMBER: _ClassVar[int]
    ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, ids: _Optional[_Iterable[str]] = ...) -> None: ...

class LegesLawRequest(_message.Message):
    __slots__ = ("law", "nolaw")
    class Law(_message.Message):
        __slots__ = ("colour", "tier")
        COLOUR_FIELD_NUMBER: _ClassVar[int]
        TIER_FIELD_NUMBER: _ClassVar[int]
        colour: str
        tier: int
        def __init__(self, colour: _Optional[str] = ..., tier: _Optional[int] = ...) -> None: ...
    class Nolaw(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    LAW_FIELD_NUMBER: _ClassVar[int]
    NOLAW_FIELD_NUMBER: _ClassVar[int]
    law: LegesLawRequest.Law
    nolaw: LegesLawRequest.Nolaw
    def __init__(self, law: _Optional[_Union[LegesLawRequest.Law, _Mapping]] = ..., nolaw: _Optional[_Union[LegesLawRequest.Nolaw, _Mapping]] = ...) -> None: ...

class LegesChoice(_message.Message):
    __slots__ = ("card", "hold")
    class Hold(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    CARD_FIELD_NUMBER: _ClassVar[int]
    HOLD_FIELD_NUMBER: _ClassVar[int]
    card: str
    hold: LegesChoice.Hold
    def __init__(self, card: _Optional[str] = ..., hold: _Optional[_Union[LegesChoice.Hold, _Mapping]] = ...) -> None: ...

class LegesColourScore(_message.Message):
    __slots__ = ("colour", "points", "law")
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    LAW_FIELD_NUMBER: _ClassVar[int]
    colour: str
    points: int
    law: int
    def __init__(self, colour: _Optional[str] = ..., points: _Optional[int] = ..., law: _Optional[int] = ...) -> None: ...

class LegesBoard(_message.Message):
    __slots__ = ("seat", "colours", "vp", "exposed", "played", "hand_size", "hand", "chosen", "choice", "requested", "request", "drawn_count", "drawn", "discarded")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    COLOURS_FIELD_NUMBER: _ClassVar[int]
    VP_FIELD_NUMBER: _ClassVar[int]
    EXPOSED_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    CHOSEN_FIELD_NUMBER: _ClassVar[int]
    CHOICE_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    DRAWN_COUNT_FIELD_NUMBER: _ClassVar[int]
    DRAWN_FIELD_NUMBER: _ClassVar[int]
    DISCARDED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    colours: _containers.RepeatedCompositeFieldContainer[LegesColourScore]
    vp: int
    exposed: _containers.RepeatedScalarFieldContainer[str]
    played: _containers.RepeatedScalarFieldContainer[str]
    hand_size: int
    hand: LegesIds
    chosen: bool
    choice: LegesChoice
    requested: bool
    request: LegesLawRequest
    drawn_count: int
    drawn: LegesIds
    discarded: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., colours: _Optional[_Iterable[_Union[LegesColourScore, _Mapping]]] = ..., vp: _Optional[int] = ..., exposed: _Optional[_Iterable[str]] = ..., played: _Optional[_Iterable[str]] = ..., hand_size: _Optional[int] = ..., hand: _Optional[_Union[LegesIds, _Mapping]] = ..., chosen: _Optional[bool] = ..., choice: _Optional[_Union[LegesChoice, _Mapping]] = ..., requested: _Optional[bool] = ..., request: _Optional[_Union[LegesLawRequest, _Mapping]] = ..., drawn_count: _Optional[int] = ..., drawn: _Optional[_Union[LegesIds, _Mapping]] = ..., discarded: _Optional[_Iterable[str]] = ...) -> None: ...

class LegesValue(_message.Message):
    __slots__ = ("colour", "space", "card", "bonus")
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    SPACE_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    BONUS_FIELD_NUMBER: _ClassVar[int]
    colour: str
    space: int
    card: int
    bonus: int
    def __init__(self, colour: _Optional[str] = ..., space: _Optional[int] = ..., card: _Optional[int] = ..., bonus: _Optional[int] = ...) -> None: ...

class LegesLawStack(_message.Message):
    __slots__ = ("colour", "left")
    COLOUR_FIELD_NUMBER: _ClassVar[int]
    LEFT_FIELD_NUMBER: _ClassVar[int]
    colour: str
    left: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, colour: _Optional[str] = ..., left: _Optional[_Iterable[int]] = ...) -> None: ...

class LegesRevealedRequest(_message.Message):
    __slots__ = ("seat", "request")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    seat: int
    request: LegesLawRequest
    def __init__(self, seat: _Optional[int] = ..., request: _Optional[_Union[LegesLawRequest, _Mapping]] = ...) -> None: ...

class LegesStep(_message.Message):
    __slots__ = ("choose", "ability", "laws", "exchange", "over")
    class Choose(_message.Message):
        __slots__ = ("pass_number", "seats")
        PASS_NUMBER_FIELD_NUMBER: _ClassVar[int]
        SEATS_FIELD_NUMBER: _ClassVar[int]
        pass_number: int
        seats: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, pass_number: _Optional[int] = ..., seats: _Optional[_Iterable[int]] = ...) -> None: ...
    class Ability(_message.Message):
        __slots__ = ("pass_number", "queue")
        PASS_NUMBER_FIELD_NUMBER: _ClassVar[int]
        QUEUE_FIELD_NUMBER: _ClassVar[int]
        pass_number: int
        queue: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, pass_number: _Optional[int] = ..., queue: _Optional[_Iterable[int]] = ...) -> None: ...
    class Laws(_message.Message):
        __slots__ = ("seats",)
        SEATS_FIELD_NUMBER: _ClassVar[int]
        seats: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, seats: _Optional[_Iterable[int]] = ...) -> None: ...
    class Exchange(_message.Message):
        __slots__ = ("queue",)
        QUEUE_FIELD_NUMBER: _ClassVar[int]
        queue: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, queue: _Optional[_Iterable[int]] = ...) -> None: ...
    class Over(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    CHOOSE_FIELD_NUMBER: _ClassVar[int]
    ABILITY_FIELD_NUMBER: _ClassVar[int]
    LAWS_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_FIELD_NUMBER: _ClassVar[int]
    OVER_FIELD_NUMBER: _ClassVar[int]
    choose: LegesStep.Choose
    ability: LegesStep.Ability
    laws: LegesStep.Laws
    exchange: LegesStep.Exchange
    over: LegesStep.Over
    def __init__(self, choose: _Optional[_Union[LegesStep.Choose, _Mapping]] = ..., ability: _Optional[_Union[LegesStep.Ability, _Mapping]] = ..., laws: _Optional[_Union[LegesStep.Laws, _Mapping]] = ..., exchange: _Optional[_Union[LegesStep.Exchange, _Mapping]] = ..., over: _Optional[_Union[LegesStep.Over, _Mapping]] = ...) -> None: ...

class LegesObservation(_message.Message):
    __slots__ = ("card_set_name", "card_set_digest", "colours", "first_player", "season", "seasons", "round", "rounds", "values", "law_stacks", "deck", "discard", "boards", "law_requests", "asked", "agenda")
    CARD_SET_NAME_FIELD_NUMBER: _ClassVar[int]
    CARD_SET_DIGEST_FIELD_NUMBER: _ClassVar[int]
    COLOURS_FIELD_NUMBER: _ClassVar[int]
    FIRST_PLAYER_FIELD_NUMBER: _ClassVar[int]
    SEASON_FIELD_NUMBER: _ClassVar[int]
    SEASONS_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    LAW_STACKS_FIELD_NUMBER: _ClassVar[int]
    DECK_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    BOARDS_FIELD_NUMBER: _ClassVar[int]
    LAW_REQUESTS_FIELD_NUMBER: _ClassVar[int]
    ASKED_FIELD_NUMBER: _ClassVar[int]
    AGENDA_FIELD_NUMBER: _ClassVar[int]
    card_set_name: str
    card_set_digest: str
    colours: _containers.RepeatedScalarFieldContainer[str]
    first_player: int
    season: int
    seasons: int
    round: int
    rounds: int
    values: _containers.RepeatedCompositeFieldContainer[LegesValue]
    law_stacks: _containers.RepeatedCompositeFieldContainer[LegesLawStack]
    deck: int
    discard: _containers.RepeatedScalarFieldContainer[str]
    boards: _containers.RepeatedCompositeFieldContainer[LegesBoard]
    law_requests: _containers.RepeatedCompositeFieldContainer[LegesRevealedRequest]
    asked: LegesStep
    agenda: _containers.RepeatedScalarFieldContainer[LegesAgendaStep]
    def __init__(self, card_set_name: _Optional[str] = ..., card_set_digest: _Optional[str] = ..., colours: _Optional[_Iterable[str]] = ..., first_player: _Optional[int] = ..., season: _Optional[int] = ..., seasons: _Optional[int] = ..., round: _Optional[int] = ..., rounds: _Optional[int] = ..., values: _Optional[_Iterable[_Union[LegesValue, _Mapping]]] = ..., law_stacks: _Optional[_Iterable[_Union[LegesLawStack, _Mapping]]] = ..., deck: _Optional[int] = ..., discard: _Optional[_Iterable[str]] = ..., boards: _Optional[_Iterable[_Union[LegesBoard, _Mapping]]] = ..., law_requests: _Optional[_Iterable[_Union[LegesRevealedRequest, _Mapping]]] = ..., asked: _Optional[_Union[LegesStep, _Mapping]] = ..., agenda: _Optional[_Iterable[_Union[LegesAgendaStep, str]]] = ...) -> None: ...
