from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MunicipiumInstitution(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MUNICIPIUM_INSTITUTION_UNSPECIFIED: _ClassVar[MunicipiumInstitution]
    MUNICIPIUM_INSTITUTION_TEMPLE: _ClassVar[MunicipiumInstitution]
    MUNICIPIUM_INSTITUTION_TAVERN: _ClassVar[MunicipiumInstitution]
    MUNICIPIUM_INSTITUTION_BATHS: _ClassVar[MunicipiumInstitution]
    MUNICIPIUM_INSTITUTION_EMPORIUM: _ClassVar[MunicipiumInstitution]
    MUNICIPIUM_INSTITUTION_BASILICA: _ClassVar[MunicipiumInstitution]
    MUNICIPIUM_INSTITUTION_FORUM: _ClassVar[MunicipiumInstitution]
    MUNICIPIUM_INSTITUTION_PRAETORIUM: _ClassVar[MunicipiumInstitution]

class MunicipiumCitizen(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MUNICIPIUM_CITIZEN_UNSPECIFIED: _ClassVar[MunicipiumCitizen]
    MUNICIPIUM_CITIZEN_PRIEST: _ClassVar[MunicipiumCitizen]
    MUNICIPIUM_CITIZEN_MILITIA: _ClassVar[MunicipiumCitizen]
    MUNICIPIUM_CITIZEN_MERCHANT: _ClassVar[MunicipiumCitizen]
    MUNICIPIUM_CITIZEN_ADVOCATE: _ClassVar[MunicipiumCitizen]

class MunicipiumFamily(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MUNICIPIUM_FAMILY_UNSPECIFIED: _ClassVar[MunicipiumFamily]
    MUNICIPIUM_FAMILY_BLUE: _ClassVar[MunicipiumFamily]
    MUNICIPIUM_FAMILY_ORANGE: _ClassVar[MunicipiumFamily]
    MUNICIPIUM_FAMILY_YELLOW: _ClassVar[MunicipiumFamily]
    MUNICIPIUM_FAMILY_BLACK: _ClassVar[MunicipiumFamily]
    MUNICIPIUM_FAMILY_PINK: _ClassVar[MunicipiumFamily]

class MunicipiumCard(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MUNICIPIUM_CARD_UNSPECIFIED: _ClassVar[MunicipiumCard]
    MUNICIPIUM_CARD_COMMON: _ClassVar[MunicipiumCard]
    MUNICIPIUM_CARD_YOUR_POWERS: _ClassVar[MunicipiumCard]
    MUNICIPIUM_CARD_PRAEFECT: _ClassVar[MunicipiumCard]
    MUNICIPIUM_CARD_INVITATIONS: _ClassVar[MunicipiumCard]
    MUNICIPIUM_CARD_GRANDE_FAMILLE: _ClassVar[MunicipiumCard]
    MUNICIPIUM_CARD_PRAEFECT_VISIT: _ClassVar[MunicipiumCard]
    MUNICIPIUM_CARD_CITIZEN_VISIT: _ClassVar[MunicipiumCard]
    MUNICIPIUM_CARD_ONE_POWER: _ClassVar[MunicipiumCard]
    MUNICIPIUM_CARD_ALL_POWERS: _ClassVar[MunicipiumCard]
MUNICIPIUM_INSTITUTION_UNSPECIFIED: MunicipiumInstitution
MUNICIPIUM_INSTITUTION_TEMPLE: MunicipiumInstitution
MUNICIPIUM_INSTITUTION_TAVERN: MunicipiumInstitution
MUNICIPIUM_INSTITUTION_BATHS: MunicipiumInstitution
MUNICIPIUM_INSTITUTION_EMPORIUM: MunicipiumInstitution
MUNICIPIUM_INSTITUTION_BASILICA: MunicipiumInstitution
MUNICIPIUM_INSTITUTION_FORUM: MunicipiumInstitution
MUNICIPIUM_INSTITUTION_PRAETORIUM: MunicipiumInstitution
MUNICIPIUM_CITIZEN_UNSPECIFIED: MunicipiumCitizen
MUNICIPIUM_CITIZEN_PRIEST: MunicipiumCitizen
MUNICIPIUM_CITIZEN_MILITIA: MunicipiumCitizen
MUNICIPIUM_CITIZEN_MERCHANT: MunicipiumCitizen
MUNICIPIUM_CITIZEN_ADVOCATE: MunicipiumCitizen
MUNICIPIUM_FAMILY_UNSPECIFIED: MunicipiumFamily
MUNICIPIUM_FAMILY_BLUE: MunicipiumFamily
MUNICIPIUM_FAMILY_ORANGE: MunicipiumFamily
MUNICIPIUM_FAMILY_YELLOW: MunicipiumFamily
MUNICIPIUM_FAMILY_BLACK: MunicipiumFamily
MUNICIPIUM_FAMILY_PINK: MunicipiumFamily
MUNICIPIUM_CARD_UNSPECIFIED: MunicipiumCard
MUNICIPIUM_CARD_COMMON: MunicipiumCard
MUNICIPIUM_CARD_YOUR_POWERS: MunicipiumCard
MUNICIPIUM_CARD_PRAEFECT: MunicipiumCard
MUNICIPIUM_CARD_INVITATIONS: MunicipiumCard
MUNICIPIUM_CARD_GRANDE_FAMILLE: MunicipiumCard
MUNICIPIUM_CARD_PRAEFECT_VISIT: MunicipiumCard
MUNICIPIUM_CARD_CITIZEN_VISIT: MunicipiumCard
MUNICIPIUM_CARD_ONE_POWER: MunicipiumCard
MUNICIPIUM_CARD_ALL_POWERS: MunicipiumCard

class MunicipiumMember(_message.Message):
    __slots__ = ("institution", "distinguished")
    INSTITUTION_FIELD_NUMBER: _ClassVar[int]
    DISTINGUISHED_FIELD_NUMBER: _ClassVar[int]
    institution: MunicipiumInstitution
    distinguished: bool
    def __init__(self, institution: _Optional[_Union[MunicipiumInstitution, str]] = ..., distinguished: _Optional[bool] = ...) -> None: ...

class MunicipiumDecision(_message.Message):
    __slots__ = ("setup", "move", "play", "place", "keep", "power", "skip", "tavern_family", "tavern_source", "tavern_send", "draw", "stop", "exchange", "take", "reposition", "done", "advance")
    class Setup(_message.Message):
        __slots__ = ("institution",)
        INSTITUTION_FIELD_NUMBER: _ClassVar[int]
        institution: MunicipiumInstitution
        def __init__(self, institution: _Optional[_Union[MunicipiumInstitution, str]] = ...) -> None: ...
    class Move(_message.Message):
        __slots__ = ("member", "to")
        MEMBER_FIELD_NUMBER: _ClassVar[int]
        TO_FIELD_NUMBER: _ClassVar[int]
        member: MunicipiumMember
        to: MunicipiumInstitution
        def __init__(self, member: _Optional[_Union[MunicipiumMember, _Mapping]] = ..., to: _Optional[_Union[MunicipiumInstitution, str]] = ...) -> None: ...
    class Play(_message.Message):
        __slots__ = ("card",)
        CARD_FIELD_NUMBER: _ClassVar[int]
        card: MunicipiumCard
        def __init__(self, card: _Optional[_Union[MunicipiumCard, str]] = ...) -> None: ...
    class Place(_message.Message):
        __slots__ = ("citizen", "institution")
        CITIZEN_FIELD_NUMBER: _ClassVar[int]
        INSTITUTION_FIELD_NUMBER: _ClassVar[int]
        citizen: MunicipiumCitizen
        institution: MunicipiumInstitution
        def __init__(self, citizen: _Optional[_Union[MunicipiumCitizen, str]] = ..., institution: _Optional[_Union[MunicipiumInstitution, str]] = ...) -> None: ...
    class Keep(_message.Message):
        __slots__ = ("first", "second")
        FIRST_FIELD_NUMBER: _ClassVar[int]
        SECOND_FIELD_NUMBER: _ClassVar[int]
        first: MunicipiumCitizen
        second: MunicipiumCitizen
        def __init__(self, first: _Optional[_Union[MunicipiumCitizen, str]] = ..., second: _Optional[_Union[MunicipiumCitizen, str]] = ...) -> None: ...
    class Power(_message.Message):
        __slots__ = ("institution",)
        INSTITUTION_FIELD_NUMBER: _ClassVar[int]
        institution: MunicipiumInstitution
        def __init__(self, institution: _Optional[_Union[MunicipiumInstitution, str]] = ...) -> None: ...
    class Skip(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class TavernFamily(_message.Message):
        __slots__ = ("family",)
        FAMILY_FIELD_NUMBER: _ClassVar[int]
        family: MunicipiumFamily
        def __init__(self, family: _Optional[_Union[MunicipiumFamily, str]] = ...) -> None: ...
    class TavernSource(_message.Message):
        __slots__ = ("institution",)
        INSTITUTION_FIELD_NUMBER: _ClassVar[int]
        institution: MunicipiumInstitution
        def __init__(self, institution: _Optional[_Union[MunicipiumInstitution, str]] = ...) -> None: ...
    class TavernSend(_message.Message):
        __slots__ = ("members", "distinguished")
        MEMBERS_FIELD_NUMBER: _ClassVar[int]
        DISTINGUISHED_FIELD_NUMBER: _ClassVar[int]
        members: int
        distinguished: int
        def __init__(self, members: _Optional[int] = ..., distinguished: _Optional[int] = ...) -> None: ...
    class Draw(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Stop(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Exchange(_message.Message):
        __slots__ = ("citizens", "favours")
        CITIZENS_FIELD_NUMBER: _ClassVar[int]
        FAVOURS_FIELD_NUMBER: _ClassVar[int]
        citizens: _containers.RepeatedScalarFieldContainer[MunicipiumCitizen]
        favours: int
        def __init__(self, citizens: _Optional[_Iterable[_Union[MunicipiumCitizen, str]]] = ..., favours: _Optional[int] = ...) -> None: ...
    class Take(_message.Message):
        __slots__ = ("citizen", "family", "institution")
        CITIZEN_FIELD_NUMBER: _ClassVar[int]
        FAMILY_FIELD_NUMBER: _ClassVar[int]
        INSTITUTION_FIELD_NUMBER: _ClassVar[int]
        citizen: MunicipiumCitizen
        family: MunicipiumFamily
        institution: MunicipiumInstitution
        def __init__(self, citizen: _Optional[_Union[MunicipiumCitizen, str]] = ..., family: _Optional[_Union[MunicipiumFamily, str]] = ..., institution: _Optional[_Union[MunicipiumInstitution, str]] = ...) -> None: ...
    class Reposition(_message.Message):
        __slots__ = ("member", "to")
        MEMBER_FIELD_NUMBER: _ClassVar[int]
        TO_FIELD_NUMBER: _ClassVar[int]
        member: MunicipiumMember
        to: MunicipiumInstitution
        def __init__(self, member: _Optional[_Union[MunicipiumMember, _Mapping]] = ..., to: _Optional[_Union[MunicipiumInstitution, str]] = ...) -> None: ...
    class Done(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Advance(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    SETUP_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    KEEP_FIELD_NUMBER: _ClassVar[int]
    POWER_FIELD_NUMBER: _ClassVar[int]
    SKIP_FIELD_NUMBER: _ClassVar[int]
    TAVERN_FAMILY_FIELD_NUMBER: _ClassVar[int]
    TAVERN_SOURCE_FIELD_NUMBER: _ClassVar[int]
    TAVERN_SEND_FIELD_NUMBER: _ClassVar[int]
    DRAW_FIELD_NUMBER: _ClassVar[int]
    STOP_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_FIELD_NUMBER: _ClassVar[int]
    TAKE_FIELD_NUMBER: _ClassVar[int]
    REPOSITION_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    ADVANCE_FIELD_NUMBER: _ClassVar[int]
    setup: MunicipiumDecision.Setup
    move: MunicipiumDecision.Move
    play: MunicipiumDecision.Play
    place: MunicipiumDecision.Place
    keep: MunicipiumDecision.Keep
    power: MunicipiumDecision.Power
    skip: MunicipiumDecision.Skip
    tavern_family: MunicipiumDecision.TavernFamily
    tavern_source: MunicipiumDecision.TavernSource
    tavern_send: MunicipiumDecision.TavernSend
    draw: MunicipiumDecision.Draw
    stop: MunicipiumDecision.Stop
    exchange: MunicipiumDecision.Exchange
    take: MunicipiumDecision.Take
    reposition: MunicipiumDecision.Reposition
    done: MunicipiumDecision.Done
    advance: MunicipiumDecision.Advance
    def __init__(self, setup: _Optional[_Union[MunicipiumDecision.Setup, _Mapping]] = ..., move: _Optional[_Union[MunicipiumDecision.Move, _Mapping]] = ..., play: _Optional[_Union[MunicipiumDecision.Play, _Mapping]] = ..., place: _Optional[_Union[MunicipiumDecision.Place, _Mapping]] = ..., keep: _Optional[_Union[MunicipiumDecision.Keep, _Mapping]] = ..., power: _Optional[_Union[MunicipiumDecision.Power, _Mapping]] = ..., skip: _Optional[_Union[MunicipiumDecision.Skip, _Mapping]] = ..., tavern_family: _Optional[_Union[MunicipiumDecision.TavernFamily, _Mapping]] = ..., tavern_source: _Optional[_Union[MunicipiumDecision.TavernSource, _Mapping]] = ..., tavern_send: _Optional[_Union[MunicipiumDecision.TavernSend, _Mapping]] = ..., draw: _Optional[_Union[MunicipiumDecision.Draw, _Mapping]] = ..., stop: _Optional[_Union[MunicipiumDecision.Stop, _Mapping]] = ..., exchange: _Optional[_Union[MunicipiumDecision.Exchange, _Mapping]] = ..., take: _Optional[_Union[MunicipiumDecision.Take, _Mapping]] = ..., reposition: _Optional[_Union[MunicipiumDecision.Reposition, _Mapping]] = ..., done: _Optional[_Union[MunicipiumDecision.Done, _Mapping]] = ..., advance: _Optional[_Union[MunicipiumDecision.Advance, _Mapping]] = ...) -> None: ...

class MunicipiumPresence(_message.Message):
    __slots__ = ("family", "members", "distinguished")
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    DISTINGUISHED_FIELD_NUMBER: _ClassVar[int]
    family: MunicipiumFamily
    members: int
    distinguished: int
    def __init__(self, family: _Optional[_Union[MunicipiumFamily, str]] = ..., members: _Optional[int] = ..., distinguished: _Optional[int] = ...) -> None: ...

class MunicipiumInstitutionView(_message.Message):
    __slots__ = ("institution", "presence", "citizens", "room_citizen", "room_favour")
    INSTITUTION_FIELD_NUMBER: _ClassVar[int]
    PRESENCE_FIELD_NUMBER: _ClassVar[int]
    CITIZENS_FIELD_NUMBER: _ClassVar[int]
    ROOM_CITIZEN_FIELD_NUMBER: _ClassVar[int]
    ROOM_FAVOUR_FIELD_NUMBER: _ClassVar[int]
    institution: MunicipiumInstitution
    presence: _containers.RepeatedCompositeFieldContainer[MunicipiumPresence]
    citizens: _containers.RepeatedScalarFieldContainer[MunicipiumCitizen]
    room_citizen: MunicipiumCitizen
    room_favour: bool
    def __init__(self, institution: _Optional[_Union[MunicipiumInstitution, str]] = ..., presence: _Optional[_Iterable[_Union[MunicipiumPresence, _Mapping]]] = ..., citizens: _Optional[_Iterable[_Union[MunicipiumCitizen, str]]] = ..., room_citizen: _Optional[_Union[MunicipiumCitizen, str]] = ..., room_favour: _Optional[bool] = ...) -> None: ...

class MunicipiumSupply(_message.Message):
    __slots__ = ("family", "priests", "militia", "merchants", "advocates", "favours", "decurions", "family_cards")
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    PRIESTS_FIELD_NUMBER: _ClassVar[int]
    MILITIA_FIELD_NUMBER: _ClassVar[int]
    MERCHANTS_FIELD_NUMBER: _ClassVar[int]
    ADVOCATES_FIELD_NUMBER: _ClassVar[int]
    FAVOURS_FIELD_NUMBER: _ClassVar[int]
    DECURIONS_FIELD_NUMBER: _ClassVar[int]
    FAMILY_CARDS_FIELD_NUMBER: _ClassVar[int]
    family: MunicipiumFamily
    priests: int
    militia: int
    merchants: int
    advocates: int
    favours: int
    decurions: int
    family_cards: _containers.RepeatedScalarFieldContainer[MunicipiumCard]
    def __init__(self, family: _Optional[_Union[MunicipiumFamily, str]] = ..., priests: _Optional[int] = ..., militia: _Optional[int] = ..., merchants: _Optional[int] = ..., advocates: _Optional[int] = ..., favours: _Optional[int] = ..., decurions: _Optional[int] = ..., family_cards: _Optional[_Iterable[_Union[MunicipiumCard, str]]] = ...) -> None: ...

class MunicipiumStep(_message.Message):
    __slots__ = ("seat", "family", "setup", "turn", "end_turn", "discard", "citizen_visit", "place", "invite", "citizen_event", "keep", "your_powers", "all_powers", "one_power", "power", "choose_power", "tavern_family", "tavern_source", "tavern_send", "emporium", "basilica", "forum", "reposition")
    class Setup(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Turn(_message.Message):
        __slots__ = ("moves_made", "last_moved")
        MOVES_MADE_FIELD_NUMBER: _ClassVar[int]
        LAST_MOVED_FIELD_NUMBER: _ClassVar[int]
        moves_made: int
        last_moved: MunicipiumDecision.Move
        def __init__(self, moves_made: _Optional[int] = ..., last_moved: _Optional[_Union[MunicipiumDecision.Move, _Mapping]] = ...) -> None: ...
    class EndTurn(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Discard(_message.Message):
        __slots__ = ("card",)
        CARD_FIELD_NUMBER: _ClassVar[int]
        card: MunicipiumCard
        def __init__(self, card: _Optional[_Union[MunicipiumCard, str]] = ...) -> None: ...
    class CitizenVisit(_message.Message):
        __slots__ = ("seats",)
        SEATS_FIELD_NUMBER: _ClassVar[int]
        seats: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, seats: _Optional[_Iterable[int]] = ...) -> None: ...
    class Place(_message.Message):
        __slots__ = ("citizen", "card", "institution")
        CITIZEN_FIELD_NUMBER: _ClassVar[int]
        CARD_FIELD_NUMBER: _ClassVar[int]
        INSTITUTION_FIELD_NUMBER: _ClassVar[int]
        citizen: MunicipiumCitizen
        card: MunicipiumCard
        institution: MunicipiumInstitution
        def __init__(self, citizen: _Optional[_Union[MunicipiumCitizen, str]] = ..., card: _Optional[_Union[MunicipiumCard, str]] = ..., institution: _Optional[_Union[MunicipiumInstitution, str]] = ...) -> None: ...
    class Invite(_message.Message):
        __slots__ = ("citizens",)
        CITIZENS_FIELD_NUMBER: _ClassVar[int]
        citizens: _containers.RepeatedScalarFieldContainer[MunicipiumCitizen]
        def __init__(self, citizens: _Optional[_Iterable[_Union[MunicipiumCitizen, str]]] = ...) -> None: ...
    class CitizenEvent(_message.Message):
        __slots__ = ("institution",)
        INSTITUTION_FIELD_NUMBER: _ClassVar[int]
        institution: MunicipiumInstitution
        def __init__(self, institution: _Optional[_Union[MunicipiumInstitution, str]] = ...) -> None: ...
    class Keep(_message.Message):
        __slots__ = ("institution", "citizens")
        INSTITUTION_FIELD_NUMBER: _ClassVar[int]
        CITIZENS_FIELD_NUMBER: _ClassVar[int]
        institution: MunicipiumInstitution
        citizens: _containers.RepeatedScalarFieldContainer[MunicipiumCitizen]
        def __init__(self, institution: _Optional[_Union[MunicipiumInstitution, str]] = ..., citizens: _Optional[_Iterable[_Union[MunicipiumCitizen, str]]] = ...) -> None: ...
    class YourPowers(_message.Message):
        __slots__ = ("institutions_left",)
        INSTITUTIONS_LEFT_FIELD_NUMBER: _ClassVar[int]
        institutions_left: _containers.RepeatedScalarFieldContainer[MunicipiumInstitution]
        def __init__(self, institutions_left: _Optional[_Iterable[_Union[MunicipiumInstitution, str]]] = ...) -> None: ...
    class AllPowers(_message.Message):
        __slots__ = ("institutions_left",)
        INSTITUTIONS_LEFT_FIELD_NUMBER: _ClassVar[int]
        institutions_left: _containers.RepeatedScalarFieldContainer[MunicipiumInstitution]
        def __init__(self, institutions_left: _Optional[_Iterable[_Union[MunicipiumInstitution, str]]] = ...) -> None: ...
    class OnePower(_message.Message):
        __slots__ = ("seats",)
        SEATS_FIELD_NUMBER: _ClassVar[int]
        seats: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, seats: _Optional[_Iterable[int]] = ...) -> None: ...
    class Power(_message.Message):
        __slots__ = ("institution",)
        INSTITUTION_FIELD_NUMBER: _ClassVar[int]
        institution: MunicipiumInstitution
        def __init__(self, institution: _Optional[_Union[MunicipiumInstitution, str]] = ...) -> None: ...
    class ChoosePower(_message.Message):
        __slots__ = ("institutions",)
        INSTITUTIONS_FIELD_NUMBER: _ClassVar[int]
        institutions: _containers.RepeatedScalarFieldContainer[MunicipiumInstitution]
        def __init__(self, institutions: _Optional[_Iterable[_Union[MunicipiumInstitution, str]]] = ...) -> None: ...
    class TavernFamily(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class TavernSource(_message.Message):
        __slots__ = ("target_family",)
        TARGET_FAMILY_FIELD_NUMBER: _ClassVar[int]
        target_family: MunicipiumFamily
        def __init__(self, target_family: _Optional[_Union[MunicipiumFamily, str]] = ...) -> None: ...
    class TavernSend(_message.Message):
        __slots__ = ("target_family", "source")
        TARGET_FAMILY_FIELD_NUMBER: _ClassVar[int]
        SOURCE_FIELD_NUMBER: _ClassVar[int]
        target_family: MunicipiumFamily
        source: MunicipiumInstitution
        def __init__(self, target_family: _Optional[_Union[MunicipiumFamily, str]] = ..., source: _Optional[_Union[MunicipiumInstitution, str]] = ...) -> None: ...
    class Emporium(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Basilica(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Forum(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Reposition(_message.Message):
        __slots__ = ("to_reposition", "may_stop", "may_advance")
        TO_REPOSITION_FIELD_NUMBER: _ClassVar[int]
        MAY_STOP_FIELD_NUMBER: _ClassVar[int]
        MAY_ADVANCE_FIELD_NUMBER: _ClassVar[int]
        to_reposition: _containers.RepeatedCompositeFieldContainer[MunicipiumMembers]
        may_stop: bool
        may_advance: bool
        def __init__(self, to_reposition: _Optional[_Iterable[_Union[MunicipiumMembers, _Mapping]]] = ..., may_stop: _Optional[bool] = ..., may_advance: _Optional[bool] = ...) -> None: ...
    SEAT_FIELD_NUMBER: _ClassVar[int]
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    SETUP_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    END_TURN_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    CITIZEN_VISIT_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    INVITE_FIELD_NUMBER: _ClassVar[int]
    CITIZEN_EVENT_FIELD_NUMBER: _ClassVar[int]
    KEEP_FIELD_NUMBER: _ClassVar[int]
    YOUR_POWERS_FIELD_NUMBER: _ClassVar[int]
    ALL_POWERS_FIELD_NUMBER: _ClassVar[int]
    ONE_POWER_FIELD_NUMBER: _ClassVar[int]
    POWER_FIELD_NUMBER: _ClassVar[int]
    CHOOSE_POWER_FIELD_NUMBER: _ClassVar[int]
    TAVERN_FAMILY_FIELD_NUMBER: _ClassVar[int]
    TAVERN_SOURCE_FIELD_NUMBER: _ClassVar[int]
    TAVERN_SEND_FIELD_NUMBER: _ClassVar[int]
    EMPORIUM_FIELD_NUMBER: _ClassVar[int]
    BASILICA_FIELD_NUMBER: _ClassVar[int]
    FORUM_FIELD_NUMBER: _ClassVar[int]
    REPOSITION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    family: MunicipiumFamily
    setup: MunicipiumStep.Setup
    turn: MunicipiumStep.Turn
    end_turn: MunicipiumStep.EndTurn
    discard: MunicipiumStep.Discard
    citizen_visit: MunicipiumStep.CitizenVisit
    place: MunicipiumStep.Place
    invite: MunicipiumStep.Invite
    citizen_event: MunicipiumStep.CitizenEvent
    keep: MunicipiumStep.Keep
    your_powers: MunicipiumStep.YourPowers
    all_powers: MunicipiumStep.AllPowers
    one_power: MunicipiumStep.OnePower
    power: MunicipiumStep.Power
    choose_power: MunicipiumStep.ChoosePower
    tavern_family: MunicipiumStep.TavernFamily
    tavern_source: MunicipiumStep.TavernSource
    tavern_send: MunicipiumStep.TavernSend
    emporium: MunicipiumStep.Emporium
    basilica: MunicipiumStep.Basilica
    forum: MunicipiumStep.Forum
    reposition: MunicipiumStep.Reposition
    def __init__(self, seat: _Optional[int] = ..., family: _Optional[_Union[MunicipiumFamily, str]] = ..., setup: _Optional[_Union[MunicipiumStep.Setup, _Mapping]] = ..., turn: _Optional[_Union[MunicipiumStep.Turn, _Mapping]] = ..., end_turn: _Optional[_Union[MunicipiumStep.EndTurn, _Mapping]] = ..., discard: _Optional[_Union[MunicipiumStep.Discard, _Mapping]] = ..., citizen_visit: _Optional[_Union[MunicipiumStep.CitizenVisit, _Mapping]] = ..., place: _Optional[_Union[MunicipiumStep.Place, _Mapping]] = ..., invite: _Optional[_Union[MunicipiumStep.Invite, _Mapping]] = ..., citizen_event: _Optional[_Union[MunicipiumStep.CitizenEvent, _Mapping]] = ..., keep: _Optional[_Union[MunicipiumStep.Keep, _Mapping]] = ..., your_powers: _Optional[_Union[MunicipiumStep.YourPowers, _Mapping]] = ..., all_powers: _Optional[_Union[MunicipiumStep.AllPowers, _Mapping]] = ..., one_power: _Optional[_Union[MunicipiumStep.OnePower, _Mapping]] = ..., power: _Optional[_Union[MunicipiumStep.Power, _Mapping]] = ..., choose_power: _Optional[_Union[MunicipiumStep.ChoosePower, _Mapping]] = ..., tavern_family: _Optional[_Union[MunicipiumStep.TavernFamily, _Mapping]] = ..., tavern_source: _Optional[_Union[MunicipiumStep.TavernSource, _Mapping]] = ..., tavern_send: _Optional[_Union[MunicipiumStep.TavernSend, _Mapping]] = ..., emporium: _Optional[_Union[MunicipiumStep.Emporium, _Mapping]] = ..., basilica: _Optional[_Union[MunicipiumStep.Basilica, _Mapping]] = ..., forum: _Optional[_Union[MunicipiumStep.Forum, _Mapping]] = ..., reposition: _Optional[_Union[MunicipiumStep.Reposition, _Mapping]] = ...) -> None: ...

class MunicipiumMembers(_message.Message):
    __slots__ = ("institution", "members", "distinguished")
    INSTITUTION_FIELD_NUMBER: _ClassVar[int]
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    DISTINGUISHED_FIELD_NUMBER: _ClassVar[int]
    institution: MunicipiumInstitution
    members: int
    distinguished: int
    def __init__(self, institution: _Optional[_Union[MunicipiumInstitution, str]] = ..., members: _Optional[int] = ..., distinguished: _Optional[int] = ...) -> None: ...

class MunicipiumObservation(_message.Message):
    __slots__ = ("institutions", "praefect", "temple_order", "supplies", "bag_priests", "bag_militia", "bag_merchants", "bag_advocates", "favour_supply", "wreath_supply", "deck_size", "discard", "first_seat", "turn", "active_seat", "drawn_citizen", "invited_citizens", "asked", "agenda")
    INSTITUTIONS_FIELD_NUMBER: _ClassVar[int]
    PRAEFECT_FIELD_NUMBER: _ClassVar[int]
    TEMPLE_ORDER_FIELD_NUMBER: _ClassVar[int]
    SUPPLIES_FIELD_NUMBER: _ClassVar[int]
    BAG_PRIESTS_FIELD_NUMBER: _ClassVar[int]
    BAG_MILITIA_FIELD_NUMBER: _ClassVar[int]
    BAG_MERCHANTS_FIELD_NUMBER: _ClassVar[int]
    BAG_ADVOCATES_FIELD_NUMBER: _ClassVar[int]
    FAVOUR_SUPPLY_FIELD_NUMBER: _ClassVar[int]
    WREATH_SUPPLY_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    FIRST_SEAT_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_SEAT_FIELD_NUMBER: _ClassVar[int]
    DRAWN_CITIZEN_FIELD_NUMBER: _ClassVar[int]
    INVITED_CITIZENS_FIELD_NUMBER: _ClassVar[int]
    ASKED_FIELD_NUMBER: _ClassVar[int]
    AGENDA_FIELD_NUMBER: _ClassVar[int]
    institutions: _containers.RepeatedCompositeFieldContainer[MunicipiumInstitutionView]
    praefect: MunicipiumInstitution
    temple_order: _containers.RepeatedScalarFieldContainer[MunicipiumFamily]
    supplies: _containers.RepeatedCompositeFieldContainer[MunicipiumSupply]
    bag_priests: int
    bag_militia: int
    bag_merchants: int
    bag_advocates: int
    favour_supply: int
    wreath_supply: int
    deck_size: int
    discard: _containers.RepeatedScalarFieldContainer[MunicipiumCard]
    first_seat: int
    turn: int
    active_seat: int
    drawn_citizen: MunicipiumCitizen
    invited_citizens: _containers.RepeatedScalarFieldContainer[MunicipiumCitizen]
    asked: MunicipiumStep
    agenda: _containers.RepeatedCompositeFieldContainer[MunicipiumStep]
    def __init__(self, institutions: _Optional[_Iterable[_Union[MunicipiumInstitutionView, _Mapping]]] = ..., praefect: _Optional[_Union[MunicipiumInstitution, str]] = ..., temple_order: _Optional[_Iterable[_Union[MunicipiumFamily, str]]] = ..., supplies: _Optional[_Iterable[_Union[MunicipiumSupply, _Mapping]]] = ..., bag_priests: _Optional[int] = ..., bag_militia: _Optional[int] = ..., bag_merchants: _Optional[int] = ..., bag_advocates: _Optional[int] = ..., favour_supply: _Optional[int] = ..., wreath_supply: _Optional[int] = ..., deck_size: _Optional[int] = ..., discard: _Optional[_Iterable[_Union[MunicipiumCard, str]]] = ..., first_seat: _Optional[int] = ..., turn: _Optional[int] = ..., active_seat: _Optional[int] = ..., drawn_citizen: _Optional[_Union[MunicipiumCitizen, str]] = ..., invited_citizens: _Optional[_Iterable[_Union[MunicipiumCitizen, str]]] = ..., asked: _Optional[_Union[MunicipiumStep, _Mapping]] = ..., agenda: _Optional[_Iterable[_Union[MunicipiumStep, _Mapping]]] = ...) -> None: ...
