from curia_api.v1 import ciceron_pb2 as _ciceron_pb2
from curia_api.v1 import leges_pb2 as _leges_pb2
from curia_api.v1 import municipium_pb2 as _municipium_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TimeoutPolicy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TIMEOUT_POLICY_UNSPECIFIED: _ClassVar[TimeoutPolicy]
    TIMEOUT_POLICY_RANDOM: _ClassVar[TimeoutPolicy]
    TIMEOUT_POLICY_FORFEIT: _ClassVar[TimeoutPolicy]

class GameStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GAME_STATUS_UNSPECIFIED: _ClassVar[GameStatus]
    GAME_STATUS_WAITING_FOR_SEATS: _ClassVar[GameStatus]
    GAME_STATUS_IN_PROGRESS: _ClassVar[GameStatus]
    GAME_STATUS_FINISHED: _ClassVar[GameStatus]

class ObservationEncoding(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OBSERVATION_ENCODING_UNSPECIFIED: _ClassVar[ObservationEncoding]
    OBSERVATION_ENCODING_TYPED: _ClassVar[ObservationEncoding]
    OBSERVATION_ENCODING_JSON: _ClassVar[ObservationEncoding]
    OBSERVATION_ENCODING_NONE: _ClassVar[ObservationEncoding]

class DecisionCause(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DECISION_CAUSE_UNSPECIFIED: _ClassVar[DecisionCause]
    DECISION_CAUSE_SEAT: _ClassVar[DecisionCause]
    DECISION_CAUSE_TIMEOUT: _ClassVar[DecisionCause]
    DECISION_CAUSE_FORFEITED: _ClassVar[DecisionCause]
TIMEOUT_POLICY_UNSPECIFIED: TimeoutPolicy
TIMEOUT_POLICY_RANDOM: TimeoutPolicy
TIMEOUT_POLICY_FORFEIT: TimeoutPolicy
GAME_STATUS_UNSPECIFIED: GameStatus
GAME_STATUS_WAITING_FOR_SEATS: GameStatus
GAME_STATUS_IN_PROGRESS: GameStatus
GAME_STATUS_FINISHED: GameStatus
OBSERVATION_ENCODING_UNSPECIFIED: ObservationEncoding
OBSERVATION_ENCODING_TYPED: ObservationEncoding
OBSERVATION_ENCODING_JSON: ObservationEncoding
OBSERVATION_ENCODING_NONE: ObservationEncoding
DECISION_CAUSE_UNSPECIFIED: DecisionCause
DECISION_CAUSE_SEAT: DecisionCause
DECISION_CAUSE_TIMEOUT: DecisionCause
DECISION_CAUSE_FORFEITED: DecisionCause

class ListGamesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games",)
    GAMES_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[GameDescription]
    def __init__(self, games: _Optional[_Iterable[_Union[GameDescription, _Mapping]]] = ...) -> None: ...

class GameDescription(_message.Message):
    __slots__ = ("name", "variants", "options", "title", "simultaneous", "private_information")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VARIANTS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    SIMULTANEOUS_FIELD_NUMBER: _ClassVar[int]
    PRIVATE_INFORMATION_FIELD_NUMBER: _ClassVar[int]
    name: str
    variants: _containers.RepeatedCompositeFieldContainer[VariantDescription]
    options: _containers.RepeatedCompositeFieldContainer[OptionDescription]
    title: str
    simultaneous: bool
    private_information: bool
    def __init__(self, name: _Optional[str] = ..., variants: _Optional[_Iterable[_Union[VariantDescription, _Mapping]]] = ..., options: _Optional[_Iterable[_Union[OptionDescription, _Mapping]]] = ..., title: _Optional[str] = ..., simultaneous: _Optional[bool] = ..., private_information: _Optional[bool] = ...) -> None: ...

class VariantDescription(_message.Message):
    __slots__ = ("name", "min_seats", "max_seats", "description")
    NAME_FIELD_NUMBER: _ClassVar[int]
    MIN_SEATS_FIELD_NUMBER: _ClassVar[int]
    MAX_SEATS_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    name: str
    min_seats: int
    max_seats: int
    description: str
    def __init__(self, name: _Optional[str] = ..., min_seats: _Optional[int] = ..., max_seats: _Optional[int] = ..., description: _Optional[str] = ...) -> None: ...

class OptionDescription(_message.Message):
    __slots__ = ("name", "description", "default_value", "min_value", "max_value")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_VALUE_FIELD_NUMBER: _ClassVar[int]
    MIN_VALUE_FIELD_NUMBER: _ClassVar[int]
    MAX_VALUE_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    default_value: int
    min_value: int
    max_value: int
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., default_value: _Optional[int] = ..., min_value: _Optional[int] = ..., max_value: _Optional[int] = ...) -> None: ...

class TimeControl(_message.Message):
    __slots__ = ("decision_ms", "on_timeout", "bank_ms")
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    ON_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    decision_ms: int
    on_timeout: TimeoutPolicy
    bank_ms: int
    def __init__(self, decision_ms: _Optional[int] = ..., on_timeout: _Optional[_Union[TimeoutPolicy, str]] = ..., bank_ms: _Optional[int] = ...) -> None: ...

class CreateGameRequest(_message.Message):
    __slots__ = ("game", "variant", "num_seats", "options", "seed", "open_seats", "time_control", "forfeit_on_illegal", "wait_for_players", "players")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    NUM_SEATS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    OPEN_SEATS_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    FORFEIT_ON_ILLEGAL_FIELD_NUMBER: _ClassVar[int]
    WAIT_FOR_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    game: str
    variant: str
    num_seats: int
    options: _containers.ScalarMap[str, int]
    seed: int
    open_seats: _containers.RepeatedScalarFieldContainer[int]
    time_control: TimeControl
    forfeit_on_illegal: bool
    wait_for_players: bool
    players: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, game: _Optional[str] = ..., variant: _Optional[str] = ..., num_seats: _Optional[int] = ..., options: _Optional[_Mapping[str, int]] = ..., seed: _Optional[int] = ..., open_seats: _Optional[_Iterable[int]] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., forfeit_on_illegal: _Optional[bool] = ..., wait_for_players: _Optional[bool] = ..., players: _Optional[_Iterable[str]] = ...) -> None: ...

class SeatCredential(_message.Message):
    __slots__ = ("seat", "token", "name")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    seat: int
    token: str
    name: str
    def __init__(self, seat: _Optional[int] = ..., token: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class CreateGameResponse(_message.Message):
    __slots__ = ("game_id", "seats", "version")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seats: _containers.RepeatedCompositeFieldContainer[SeatCredential]
    version: int
    def __init__(self, game_id: _Optional[str] = ..., seats: _Optional[_Iterable[_Union[SeatCredential, _Mapping]]] = ..., version: _Optional[int] = ...) -> None: ...

class JoinGameRequest(_message.Message):
    __slots__ = ("game_id", "seat")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class JoinGameResponse(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: SeatCredential
    def __init__(self, seat: _Optional[_Union[SeatCredential, _Mapping]] = ...) -> None: ...

class Decision(_message.Message):
    __slots__ = ("notation", "municipium", "ciceron", "leges")
    NOTATION_FIELD_NUMBER: _ClassVar[int]
    MUNICIPIUM_FIELD_NUMBER: _ClassVar[int]
    CICERON_FIELD_NUMBER: _ClassVar[int]
    LEGES_FIELD_NUMBER: _ClassVar[int]
    notation: str
    municipium: _municipium_pb2.MunicipiumDecision
    ciceron: _ciceron_pb2.CiceronDecision
    leges: _leges_pb2.LegesDecision
    def __init__(self, notation: _Optional[str] = ..., municipium: _Optional[_Union[_municipium_pb2.MunicipiumDecision, _Mapping]] = ..., ciceron: _Optional[_Union[_ciceron_pb2.CiceronDecision, _Mapping]] = ..., leges: _Optional[_Union[_leges_pb2.LegesDecision, _Mapping]] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("municipium", "ciceron", "leges")
    MUNICIPIUM_FIELD_NUMBER: _ClassVar[int]
    CICERON_FIELD_NUMBER: _ClassVar[int]
    LEGES_FIELD_NUMBER: _ClassVar[int]
    municipium: _municipium_pb2.MunicipiumObservation
    ciceron: _ciceron_pb2.CiceronObservation
    leges: _leges_pb2.LegesObservation
    def __init__(self, municipium: _Optional[_Union[_municipium_pb2.MunicipiumObservation, _Mapping]] = ..., ciceron: _Optional[_Union[_ciceron_pb2.CiceronObservation, _Mapping]] = ..., leges: _Optional[_Union[_leges_pb2.LegesObservation, _Mapping]] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("version", "kind", "data_json")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    version: int
    kind: str
    data_json: str
    def __init__(self, version: _Optional[int] = ..., kind: _Optional[str] = ..., data_json: _Optional[str] = ...) -> None: ...

class View(_message.Message):
    __slots__ = ("game_id", "version", "status", "seat", "to_move", "legal_decisions", "observation", "observation_json", "pending", "result", "deadline_unix_ms", "game", "variant", "seat_names", "bank_left_ms", "forfeited_seats", "turn", "absent_seats", "lineage", "players", "board_svg")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TO_MOVE_FIELD_NUMBER: _ClassVar[int]
    LEGAL_DECISIONS_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_JSON_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    SEAT_NAMES_FIELD_NUMBER: _ClassVar[int]
    BANK_LEFT_MS_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_SEATS_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    ABSENT_SEATS_FIELD_NUMBER: _ClassVar[int]
    LINEAGE_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    BOARD_SVG_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    version: int
    status: GameStatus
    seat: int
    to_move: _containers.RepeatedScalarFieldContainer[int]
    legal_decisions: _containers.RepeatedCompositeFieldContainer[Decision]
    observation: Observation
    observation_json: str
    pending: str
    result: GameResult
    deadline_unix_ms: int
    game: str
    variant: str
    seat_names: _containers.RepeatedScalarFieldContainer[str]
    bank_left_ms: int
    forfeited_seats: _containers.RepeatedScalarFieldContainer[int]
    turn: int
    absent_seats: _containers.RepeatedScalarFieldContainer[int]
    lineage: str
    players: _containers.RepeatedScalarFieldContainer[str]
    board_svg: str
    def __init__(self, game_id: _Optional[str] = ..., version: _Optional[int] = ..., status: _Optional[_Union[GameStatus, str]] = ..., seat: _Optional[int] = ..., to_move: _Optional[_Iterable[int]] = ..., legal_decisions: _Optional[_Iterable[_Union[Decision, _Mapping]]] = ..., observation: _Optional[_Union[Observation, _Mapping]] = ..., observation_json: _Optional[str] = ..., pending: _Optional[str] = ..., result: _Optional[_Union[GameResult, _Mapping]] = ..., deadline_unix_ms: _Optional[int] = ..., game: _Optional[str] = ..., variant: _Optional[str] = ..., seat_names: _Optional[_Iterable[str]] = ..., bank_left_ms: _Optional[int] = ..., forfeited_seats: _Optional[_Iterable[int]] = ..., turn: _Optional[int] = ..., absent_seats: _Optional[_Iterable[int]] = ..., lineage: _Optional[str] = ..., players: _Optional[_Iterable[str]] = ..., board_svg: _Optional[str] = ...) -> None: ...

class GetViewRequest(_message.Message):
    __slots__ = ("game_id", "seat_token", "observation_encoding", "draw_board")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_ENCODING_FIELD_NUMBER: _ClassVar[int]
    DRAW_BOARD_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat_token: str
    observation_encoding: ObservationEncoding
    draw_board: bool
    def __init__(self, game_id: _Optional[str] = ..., seat_token: _Optional[str] = ..., observation_encoding: _Optional[_Union[ObservationEncoding, str]] = ..., draw_board: _Optional[bool] = ...) -> None: ...

class GetViewResponse(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: View
    def __init__(self, view: _Optional[_Union[View, _Mapping]] = ...) -> None: ...

class SubmitDecisionRequest(_message.Message):
    __slots__ = ("game_id", "seat_token", "expected_version", "decision", "request_id", "observation_encoding", "expected_lineage")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_ENCODING_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_LINEAGE_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat_token: str
    expected_version: int
    decision: Decision
    request_id: str
    observation_encoding: ObservationEncoding
    expected_lineage: str
    def __init__(self, game_id: _Optional[str] = ..., seat_token: _Optional[str] = ..., expected_version: _Optional[int] = ..., decision: _Optional[_Union[Decision, _Mapping]] = ..., request_id: _Optional[str] = ..., observation_encoding: _Optional[_Union[ObservationEncoding, str]] = ..., expected_lineage: _Optional[str] = ...) -> None: ...

class SubmitDecisionResponse(_message.Message):
    __slots__ = ("version", "events", "view", "duplicate")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    version: int
    events: _containers.RepeatedCompositeFieldContainer[Event]
    view: View
    duplicate: bool
    def __init__(self, version: _Optional[int] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., view: _Optional[_Union[View, _Mapping]] = ..., duplicate: _Optional[bool] = ...) -> None: ...

class WatchGameRequest(_message.Message):
    __slots__ = ("game_id", "seat_token", "after_version", "observation_encoding", "after_lineage", "draw_board")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    AFTER_VERSION_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_ENCODING_FIELD_NUMBER: _ClassVar[int]
    AFTER_LINEAGE_FIELD_NUMBER: _ClassVar[int]
    DRAW_BOARD_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat_token: str
    after_version: int
    observation_encoding: ObservationEncoding
    after_lineage: str
    draw_board: bool
    def __init__(self, game_id: _Optional[str] = ..., seat_token: _Optional[str] = ..., after_version: _Optional[int] = ..., observation_encoding: _Optional[_Union[ObservationEncoding, str]] = ..., after_lineage: _Optional[str] = ..., draw_board: _Optional[bool] = ...) -> None: ...

class WatchGameResponse(_message.Message):
    __slots__ = ("version", "events", "view", "decision", "rolled_back")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    ROLLED_BACK_FIELD_NUMBER: _ClassVar[int]
    version: int
    events: _containers.RepeatedCompositeFieldContainer[Event]
    view: View
    decision: RecordedDecision
    rolled_back: bool
    def __init__(self, version: _Optional[int] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., view: _Optional[_Union[View, _Mapping]] = ..., decision: _Optional[_Union[RecordedDecision, _Mapping]] = ..., rolled_back: _Optional[bool] = ...) -> None: ...

class ResignSeatRequest(_message.Message):
    __slots__ = ("game_id", "seat_token", "reason")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat_token: str
    reason: str
    def __init__(self, game_id: _Optional[str] = ..., seat_token: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class ResignSeatResponse(_message.Message):
    __slots__ = ("version", "view")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    version: int
    view: View
    def __init__(self, version: _Optional[int] = ..., view: _Optional[_Union[View, _Mapping]] = ...) -> None: ...

class GetGameRecordRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class GetGameRecordResponse(_message.Message):
    __slots__ = ("record",)
    RECORD_FIELD_NUMBER: _ClassVar[int]
    record: GameRecord
    def __init__(self, record: _Optional[_Union[GameRecord, _Mapping]] = ...) -> None: ...

class RecordedDecision(_message.Message):
    __slots__ = ("version", "seat", "notation", "cause", "unix_ms", "secret")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NOTATION_FIELD_NUMBER: _ClassVar[int]
    CAUSE_FIELD_NUMBER: _ClassVar[int]
    UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    version: int
    seat: int
    notation: str
    cause: DecisionCause
    unix_ms: int
    secret: bool
    def __init__(self, version: _Optional[int] = ..., seat: _Optional[int] = ..., notation: _Optional[str] = ..., cause: _Optional[_Union[DecisionCause, str]] = ..., unix_ms: _Optional[int] = ..., secret: _Optional[bool] = ...) -> None: ...

class GameRecord(_message.Message):
    __slots__ = ("game_id", "game", "variant", "num_seats", "options", "seed", "decisions", "events", "result", "time_control", "seat_names", "players")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    NUM_SEATS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    SEAT_NAMES_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    game: str
    variant: str
    num_seats: int
    options: _containers.ScalarMap[str, int]
    seed: int
    decisions: _containers.RepeatedCompositeFieldContainer[RecordedDecision]
    events: _containers.RepeatedCompositeFieldContainer[Event]
    result: GameResult
    time_control: TimeControl
    seat_names: _containers.RepeatedScalarFieldContainer[str]
    players: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, game_id: _Optional[str] = ..., game: _Optional[str] = ..., variant: _Optional[str] = ..., num_seats: _Optional[int] = ..., options: _Optional[_Mapping[str, int]] = ..., seed: _Optional[int] = ..., decisions: _Optional[_Iterable[_Union[RecordedDecision, _Mapping]]] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., result: _Optional[_Union[GameResult, _Mapping]] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., seat_names: _Optional[_Iterable[str]] = ..., players: _Optional[_Iterable[str]] = ...) -> None: ...

class RankGroup(_message.Message):
    __slots__ = ("seats",)
    SEATS_FIELD_NUMBER: _ClassVar[int]
    seats: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seats: _Optional[_Iterable[int]] = ...) -> None: ...

class SeatScore(_message.Message):
    __slots__ = ("seat", "rank", "figures", "forfeited", "ordered_figures", "forfeit_reason")
    class FiguresEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    FIGURES_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_FIELD_NUMBER: _ClassVar[int]
    ORDERED_FIGURES_FIELD_NUMBER: _ClassVar[int]
    FORFEIT_REASON_FIELD_NUMBER: _ClassVar[int]
    seat: int
    rank: int
    figures: _containers.ScalarMap[str, int]
    forfeited: bool
    ordered_figures: _containers.RepeatedCompositeFieldContainer[ScoreFigure]
    forfeit_reason: str
    def __init__(self, seat: _Optional[int] = ..., rank: _Optional[int] = ..., figures: _Optional[_Mapping[str, int]] = ..., forfeited: _Optional[bool] = ..., ordered_figures: _Optional[_Iterable[_Union[ScoreFigure, _Mapping]]] = ..., forfeit_reason: _Optional[str] = ...) -> None: ...

class ScoreFigure(_message.Message):
    __slots__ = ("name", "value")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    name: str
    value: int
    def __init__(self, name: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...

class GameResult(_message.Message):
    __slots__ = ("ranking", "scores", "reason")
    RANKING_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    ranking: _containers.RepeatedCompositeFieldContainer[RankGroup]
    scores: _containers.RepeatedCompositeFieldContainer[SeatScore]
    reason: str
    def __init__(self, ranking: _Optional[_Iterable[_Union[RankGroup, _Mapping]]] = ..., scores: _Optional[_Iterable[_Union[SeatScore, _Mapping]]] = ..., reason: _Optional[str] = ...) -> None: ...

class SessionRequest(_message.Message):
    __slots__ = ("tag", "get_view", "submit_decision")
    TAG_FIELD_NUMBER: _ClassVar[int]
    GET_VIEW_FIELD_NUMBER: _ClassVar[int]
    SUBMIT_DECISION_FIELD_NUMBER: _ClassVar[int]
    tag: int
    get_view: GetViewRequest
    submit_decision: SubmitDecisionRequest
    def __init__(self, tag: _Optional[int] = ..., get_view: _Optional[_Union[GetViewRequest, _Mapping]] = ..., submit_decision: _Optional[_Union[SubmitDecisionRequest, _Mapping]] = ...) -> None: ...

class SessionResponse(_message.Message):
    __slots__ = ("tag", "get_view", "submit_decision", "refused")
    TAG_FIELD_NUMBER: _ClassVar[int]
    GET_VIEW_FIELD_NUMBER: _ClassVar[int]
    SUBMIT_DECISION_FIELD_NUMBER: _ClassVar[int]
    REFUSED_FIELD_NUMBER: _ClassVar[int]
    tag: int
    get_view: GetViewResponse
    submit_decision: SubmitDecisionResponse
    refused: CallStatus
    def __init__(self, tag: _Optional[int] = ..., get_view: _Optional[_Union[GetViewResponse, _Mapping]] = ..., submit_decision: _Optional[_Union[SubmitDecisionResponse, _Mapping]] = ..., refused: _Optional[_Union[CallStatus, _Mapping]] = ...) -> None: ...

class CallStatus(_message.Message):
    __slots__ = ("code", "message", "reason")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    code: int
    message: str
    reason: str
    def __init__(self, code: _Optional[int] = ..., message: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class PlayRequest(_message.Message):
    __slots__ = ("hello", "decision", "resign")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    RESIGN_FIELD_NUMBER: _ClassVar[int]
    hello: PlayHello
    decision: PlayDecision
    resign: PlayResign
    def __init__(self, hello: _Optional[_Union[PlayHello, _Mapping]] = ..., decision: _Optional[_Union[PlayDecision, _Mapping]] = ..., resign: _Optional[_Union[PlayResign, _Mapping]] = ...) -> None: ...

class PlayHello(_message.Message):
    __slots__ = ("concurrency", "opponent_decisions", "client", "observation_encoding", "game_id", "version")
    CONCURRENCY_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_DECISIONS_FIELD_NUMBER: _ClassVar[int]
    CLIENT_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_ENCODING_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    concurrency: int
    opponent_decisions: bool
    client: str
    observation_encoding: ObservationEncoding
    game_id: str
    version: str
    def __init__(self, concurrency: _Optional[int] = ..., opponent_decisions: _Optional[bool] = ..., client: _Optional[str] = ..., observation_encoding: _Optional[_Union[ObservationEncoding, str]] = ..., game_id: _Optional[str] = ..., version: _Optional[str] = ...) -> None: ...

class PlayDecision(_message.Message):
    __slots__ = ("game_id", "decision", "expected_version", "request_id", "expected_lineage")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_LINEAGE_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    decision: Decision
    expected_version: int
    request_id: str
    expected_lineage: str
    def __init__(self, game_id: _Optional[str] = ..., decision: _Optional[_Union[Decision, _Mapping]] = ..., expected_version: _Optional[int] = ..., request_id: _Optional[str] = ..., expected_lineage: _Optional[str] = ...) -> None: ...

class PlayResign(_message.Message):
    __slots__ = ("game_id", "reason")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    reason: str
    def __init__(self, game_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class PlayResponse(_message.Message):
    __slots__ = ("welcome", "game_started", "turn", "update", "game_ended", "ack", "refusal")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    GAME_STARTED_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    UPDATE_FIELD_NUMBER: _ClassVar[int]
    GAME_ENDED_FIELD_NUMBER: _ClassVar[int]
    ACK_FIELD_NUMBER: _ClassVar[int]
    REFUSAL_FIELD_NUMBER: _ClassVar[int]
    welcome: PlayWelcome
    game_started: PlayGameStarted
    turn: View
    update: PlayUpdate
    game_ended: PlayGameEnded
    ack: PlayAck
    refusal: PlayRefusal
    def __init__(self, welcome: _Optional[_Union[PlayWelcome, _Mapping]] = ..., game_started: _Optional[_Union[PlayGameStarted, _Mapping]] = ..., turn: _Optional[_Union[View, _Mapping]] = ..., update: _Optional[_Union[PlayUpdate, _Mapping]] = ..., game_ended: _Optional[_Union[PlayGameEnded, _Mapping]] = ..., ack: _Optional[_Union[PlayAck, _Mapping]] = ..., refusal: _Optional[_Union[PlayRefusal, _Mapping]] = ...) -> None: ...

class PlayWelcome(_message.Message):
    __slots__ = ("bot", "league", "concurrency", "game_ids")
    BOT_FIELD_NUMBER: _ClassVar[int]
    LEAGUE_FIELD_NUMBER: _ClassVar[int]
    CONCURRENCY_FIELD_NUMBER: _ClassVar[int]
    GAME_IDS_FIELD_NUMBER: _ClassVar[int]
    bot: str
    league: str
    concurrency: int
    game_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, bot: _Optional[str] = ..., league: _Optional[str] = ..., concurrency: _Optional[int] = ..., game_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class PlayGameStarted(_message.Message):
    __slots__ = ("game_id", "seat", "game", "variant", "num_seats", "seat_names", "time_control", "rated", "options", "waiting_for_seats", "standing")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    NUM_SEATS_FIELD_NUMBER: _ClassVar[int]
    SEAT_NAMES_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    WAITING_FOR_SEATS_FIELD_NUMBER: _ClassVar[int]
    STANDING_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    game: str
    variant: str
    num_seats: int
    seat_names: _containers.RepeatedScalarFieldContainer[str]
    time_control: TimeControl
    rated: bool
    options: _containers.ScalarMap[str, int]
    waiting_for_seats: bool
    standing: LadderStanding
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., game: _Optional[str] = ..., variant: _Optional[str] = ..., num_seats: _Optional[int] = ..., seat_names: _Optional[_Iterable[str]] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., rated: _Optional[bool] = ..., options: _Optional[_Mapping[str, int]] = ..., waiting_for_seats: _Optional[bool] = ..., standing: _Optional[_Union[LadderStanding, _Mapping]] = ...) -> None: ...

class LadderStanding(_message.Message):
    __slots__ = ("entry", "elo", "low", "high", "games", "provisional", "rank", "entries")
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    ELO_FIELD_NUMBER: _ClassVar[int]
    LOW_FIELD_NUMBER: _ClassVar[int]
    HIGH_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    PROVISIONAL_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    entry: str
    elo: float
    low: float
    high: float
    games: int
    provisional: bool
    rank: int
    entries: int
    def __init__(self, entry: _Optional[str] = ..., elo: _Optional[float] = ..., low: _Optional[float] = ..., high: _Optional[float] = ..., games: _Optional[int] = ..., provisional: _Optional[bool] = ..., rank: _Optional[int] = ..., entries: _Optional[int] = ...) -> None: ...

class PlayUpdate(_message.Message):
    __slots__ = ("game_id", "change")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    CHANGE_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    change: WatchGameResponse
    def __init__(self, game_id: _Optional[str] = ..., change: _Optional[_Union[WatchGameResponse, _Mapping]] = ...) -> None: ...

class PlayGameEnded(_message.Message):
    __slots__ = ("game_id", "seat", "result")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    result: GameResult
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., result: _Optional[_Union[GameResult, _Mapping]] = ...) -> None: ...

class PlayAck(_message.Message):
    __slots__ = ("request_id", "game_id", "version", "duplicate")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    game_id: str
    version: int
    duplicate: bool
    def __init__(self, request_id: _Optional[str] = ..., game_id: _Optional[str] = ..., version: _Optional[int] = ..., duplicate: _Optional[bool] = ...) -> None: ...

class PlayRefusal(_message.Message):
    __slots__ = ("request_id", "game_id", "status")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    game_id: str
    status: CallStatus
    def __init__(self, request_id: _Optional[str] = ..., game_id: _Optional[str] = ..., status: _Optional[_Union[CallStatus, _Mapping]] = ...) -> None: ...
