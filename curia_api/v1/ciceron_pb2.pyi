from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CiceronCaste(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CICERON_CASTE_UNSPECIFIED: _ClassVar[CiceronCaste]
    CICERON_CASTE_ORATOR: _ClassVar[CiceronCaste]
    CICERON_CASTE_MERCATOR: _ClassVar[CiceronCaste]
    CICERON_CASTE_PONTIFEX: _ClassVar[CiceronCaste]
    CICERON_CASTE_INSIDIATOR: _ClassVar[CiceronCaste]
    CICERON_CASTE_PLEBEIUS: _ClassVar[CiceronCaste]
    CICERON_CASTE_BELLIGERATOR: _ClassVar[CiceronCaste]

class CiceronGuild(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CICERON_GUILD_UNSPECIFIED: _ClassVar[CiceronGuild]
    CICERON_GUILD_ARTISANS: _ClassVar[CiceronGuild]
    CICERON_GUILD_ASSASSINS: _ClassVar[CiceronGuild]
    CICERON_GUILD_DIPLOMATS: _ClassVar[CiceronGuild]
    CICERON_GUILD_TRADERS: _ClassVar[CiceronGuild]
    CICERON_GUILD_PRIESTS: _ClassVar[CiceronGuild]
    CICERON_GUILD_STRATEGISTS: _ClassVar[CiceronGuild]

class CiceronGuildChoice(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CICERON_GUILD_CHOICE_UNSPECIFIED: _ClassVar[CiceronGuildChoice]
    CICERON_GUILD_CHOICE_POWER: _ClassVar[CiceronGuildChoice]
    CICERON_GUILD_CHOICE_PRESTIGE: _ClassVar[CiceronGuildChoice]

class CiceronPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CICERON_PHASE_UNSPECIFIED: _ClassVar[CiceronPhase]
    CICERON_PHASE_DRAFT: _ClassVar[CiceronPhase]
    CICERON_PHASE_START: _ClassVar[CiceronPhase]
    CICERON_PHASE_CICERON: _ClassVar[CiceronPhase]
    CICERON_PHASE_SERVANTS: _ClassVar[CiceronPhase]
    CICERON_PHASE_TRIBUTE: _ClassVar[CiceronPhase]
    CICERON_PHASE_TRIUMVIRAT: _ClassVar[CiceronPhase]
    CICERON_PHASE_MAJORITIES: _ClassVar[CiceronPhase]
    CICERON_PHASE_PRESTIGE: _ClassVar[CiceronPhase]

class CiceronEffectKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CICERON_EFFECT_KIND_UNSPECIFIED: _ClassVar[CiceronEffectKind]
    CICERON_EFFECT_KIND_INFLUENCE: _ClassVar[CiceronEffectKind]
    CICERON_EFFECT_KIND_PRESTIGE: _ClassVar[CiceronEffectKind]
    CICERON_EFFECT_KIND_DRAW: _ClassVar[CiceronEffectKind]
    CICERON_EFFECT_KIND_LEGION: _ClassVar[CiceronEffectKind]
    CICERON_EFFECT_KIND_TAX: _ClassVar[CiceronEffectKind]
    CICERON_EFFECT_KIND_VOTES: _ClassVar[CiceronEffectKind]
    CICERON_EFFECT_KIND_LIMIT: _ClassVar[CiceronEffectKind]
    CICERON_EFFECT_KIND_INCOME: _ClassVar[CiceronEffectKind]
    CICERON_EFFECT_KIND_ASSASSINATE: _ClassVar[CiceronEffectKind]
    CICERON_EFFECT_KIND_BRIBE: _ClassVar[CiceronEffectKind]
    CICERON_EFFECT_KIND_PATRONAGE: _ClassVar[CiceronEffectKind]
    CICERON_EFFECT_KIND_TRIBUTE_EXEMPT: _ClassVar[CiceronEffectKind]
    CICERON_EFFECT_KIND_EXTRA_RECRUIT: _ClassVar[CiceronEffectKind]

class CiceronTributeWay(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CICERON_TRIBUTE_WAY_UNSPECIFIED: _ClassVar[CiceronTributeWay]
    CICERON_TRIBUTE_WAY_PAY: _ClassVar[CiceronTributeWay]
    CICERON_TRIBUTE_WAY_SACRIFICE: _ClassVar[CiceronTributeWay]
    CICERON_TRIBUTE_WAY_DISGRACE: _ClassVar[CiceronTributeWay]
CICERON_CASTE_UNSPECIFIED: CiceronCaste
CICERON_CASTE_ORATOR: CiceronCaste
CICERON_CASTE_MERCATOR: CiceronCaste
CICERON_CASTE_PONTIFEX: CiceronCaste
CICERON_CASTE_INSIDIATOR: CiceronCaste
CICERON_CASTE_PLEBEIUS: CiceronCaste
CICERON_CASTE_BELLIGERATOR: CiceronCaste
CICERON_GUILD_UNSPECIFIED: CiceronGuild
CICERON_GUILD_ARTISANS: CiceronGuild
CICERON_GUILD_ASSASSINS: CiceronGuild
CICERON_GUILD_DIPLOMATS: CiceronGuild
CICERON_GUILD_TRADERS: CiceronGuild
CICERON_GUILD_PRIESTS: CiceronGuild
CICERON_GUILD_STRATEGISTS: CiceronGuild
CICERON_GUILD_CHOICE_UNSPECIFIED: CiceronGuildChoice
CICERON_GUILD_CHOICE_POWER: CiceronGuildChoice
CICERON_GUILD_CHOICE_PRESTIGE: CiceronGuildChoice
CICERON_PHASE_UNSPECIFIED: CiceronPhase
CICERON_PHASE_DRAFT: CiceronPhase
CICERON_PHASE_START: CiceronPhase
CICERON_PHASE_CICERON: CiceronPhase
CICERON_PHASE_SERVANTS: CiceronPhase
CICERON_PHASE_TRIBUTE: CiceronPhase
CICERON_PHASE_TRIUMVIRAT: CiceronPhase
CICERON_PHASE_MAJORITIES: CiceronPhase
CICERON_PHASE_PRESTIGE: CiceronPhase
CICERON_EFFECT_KIND_UNSPECIFIED: CiceronEffectKind
CICERON_EFFECT_KIND_INFLUENCE: CiceronEffectKind
CICERON_EFFECT_KIND_PRESTIGE: CiceronEffectKind
CICERON_EFFECT_KIND_DRAW: CiceronEffectKind
CICERON_EFFECT_KIND_LEGION: CiceronEffectKind
CICERON_EFFECT_KIND_TAX: CiceronEffectKind
CICERON_EFFECT_KIND_VOTES: CiceronEffectKind
CICERON_EFFECT_KIND_LIMIT: CiceronEffectKind
CICERON_EFFECT_KIND_INCOME: CiceronEffectKind
CICERON_EFFECT_KIND_ASSASSINATE: CiceronEffectKind
CICERON_EFFECT_KIND_BRIBE: CiceronEffectKind
CICERON_EFFECT_KIND_PATRONAGE: CiceronEffectKind
CICERON_EFFECT_KIND_TRIBUTE_EXEMPT: CiceronEffectKind
CICERON_EFFECT_KIND_EXTRA_RECRUIT: CiceronEffectKind
CICERON_TRIBUTE_WAY_UNSPECIFIED: CiceronTributeWay
CICERON_TRIBUTE_WAY_PAY: CiceronTributeWay
CICERON_TRIBUTE_WAY_SACRIFICE: CiceronTributeWay
CICERON_TRIBUTE_WAY_DISGRACE: CiceronTributeWay

class CiceronDecision(_message.Message):
    __slots__ = ("pick", "vote", "elect", "place", "recruit", "discard", "done", "gain", "draw", "play", "reward", "pay", "sacrifice", "disgrace", "award", "choose", "use")
    class Pick(_message.Message):
        __slots__ = ("senator",)
        SENATOR_FIELD_NUMBER: _ClassVar[int]
        senator: str
        def __init__(self, senator: _Optional[str] = ...) -> None: ...
    class Vote(_message.Message):
        __slots__ = ("family",)
        FAMILY_FIELD_NUMBER: _ClassVar[int]
        family: str
        def __init__(self, family: _Optional[str] = ...) -> None: ...
    class Elect(_message.Message):
        __slots__ = ("family",)
        FAMILY_FIELD_NUMBER: _ClassVar[int]
        family: str
        def __init__(self, family: _Optional[str] = ...) -> None: ...
    class Place(_message.Message):
        __slots__ = ("spot",)
        SPOT_FIELD_NUMBER: _ClassVar[int]
        spot: str
        def __init__(self, spot: _Optional[str] = ...) -> None: ...
    class Recruit(_message.Message):
        __slots__ = ("senator",)
        SENATOR_FIELD_NUMBER: _ClassVar[int]
        senator: str
        def __init__(self, senator: _Optional[str] = ...) -> None: ...
    class Discard(_message.Message):
        __slots__ = ("senator",)
        SENATOR_FIELD_NUMBER: _ClassVar[int]
        senator: str
        def __init__(self, senator: _Optional[str] = ...) -> None: ...
    class Done(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Gain(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Draw(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Play(_message.Message):
        __slots__ = ("card", "target")
        CARD_FIELD_NUMBER: _ClassVar[int]
        TARGET_FIELD_NUMBER: _ClassVar[int]
        card: str
        target: str
        def __init__(self, card: _Optional[str] = ..., target: _Optional[str] = ...) -> None: ...
    class Reward(_message.Message):
        __slots__ = ("prestige", "caste")
        class Prestige(_message.Message):
            __slots__ = ()
            def __init__(self) -> None: ...
        PRESTIGE_FIELD_NUMBER: _ClassVar[int]
        CASTE_FIELD_NUMBER: _ClassVar[int]
        prestige: CiceronDecision.Reward.Prestige
        caste: CiceronCaste
        def __init__(self, prestige: _Optional[_Union[CiceronDecision.Reward.Prestige, _Mapping]] = ..., caste: _Optional[_Union[CiceronCaste, str]] = ...) -> None: ...
    class Pay(_message.Message):
        __slots__ = ("first", "second")
        FIRST_FIELD_NUMBER: _ClassVar[int]
        SECOND_FIELD_NUMBER: _ClassVar[int]
        first: CiceronCaste
        second: CiceronCaste
        def __init__(self, first: _Optional[_Union[CiceronCaste, str]] = ..., second: _Optional[_Union[CiceronCaste, str]] = ...) -> None: ...
    class Sacrifice(_message.Message):
        __slots__ = ("senator",)
        SENATOR_FIELD_NUMBER: _ClassVar[int]
        senator: str
        def __init__(self, senator: _Optional[str] = ...) -> None: ...
    class Disgrace(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Award(_message.Message):
        __slots__ = ("family",)
        FAMILY_FIELD_NUMBER: _ClassVar[int]
        family: str
        def __init__(self, family: _Optional[str] = ...) -> None: ...
    class Choose(_message.Message):
        __slots__ = ("choice",)
        CHOICE_FIELD_NUMBER: _ClassVar[int]
        choice: CiceronGuildChoice
        def __init__(self, choice: _Optional[_Union[CiceronGuildChoice, str]] = ...) -> None: ...
    class Use(_message.Message):
        __slots__ = ("target",)
        TARGET_FIELD_NUMBER: _ClassVar[int]
        target: str
        def __init__(self, target: _Optional[str] = ...) -> None: ...
    PICK_FIELD_NUMBER: _ClassVar[int]
    VOTE_FIELD_NUMBER: _ClassVar[int]
    ELECT_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    RECRUIT_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    GAIN_FIELD_NUMBER: _ClassVar[int]
    DRAW_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    REWARD_FIELD_NUMBER: _ClassVar[int]
    PAY_FIELD_NUMBER: _ClassVar[int]
    SACRIFICE_FIELD_NUMBER: _ClassVar[int]
    DISGRACE_FIELD_NUMBER: _ClassVar[int]
    AWARD_FIELD_NUMBER: _ClassVar[int]
    CHOOSE_FIELD_NUMBER: _ClassVar[int]
    USE_FIELD_NUMBER: _ClassVar[int]
    pick: CiceronDecision.Pick
    vote: CiceronDecision.Vote
    elect: CiceronDecision.Elect
    place: CiceronDecision.Place
    recruit: CiceronDecision.Recruit
    discard: CiceronDecision.Discard
    done: CiceronDecision.Done
    gain: CiceronDecision.Gain
    draw: CiceronDecision.Draw
    play: CiceronDecision.Play
    reward: CiceronDecision.Reward
    pay: CiceronDecision.Pay
    sacrifice: CiceronDecision.Sacrifice
    disgrace: CiceronDecision.Disgrace
    award: CiceronDecision.Award
    choose: CiceronDecision.Choose
    use: CiceronDecision.Use
    def __init__(self, pick: _Optional[_Union[CiceronDecision.Pick, _Mapping]] = ..., vote: _Optional[_Union[CiceronDecision.Vote, _Mapping]] = ..., elect: _Optional[_Union[CiceronDecision.Elect, _Mapping]] = ..., place: _Optional[_Union[CiceronDecision.Place, _Mapping]] = ..., recruit: _Optional[_Union[CiceronDecision.Recruit, _Mapping]] = ..., discard: _Optional[_Union[CiceronDecision.Discard, _Mapping]] = ..., done: _Optional[_Union[CiceronDecision.Done, _Mapping]] = ..., gain: _Optional[_Union[CiceronDecision.Gain, _Mapping]] = ..., draw: _Optional[_Union[CiceronDecision.Draw, _Mapping]] = ..., play: _Optional[_Union[CiceronDecision.Play, _Mapping]] = ..., reward: _Optional[_Union[CiceronDecision.Reward, _Mapping]] = ..., pay: _Optional[_Union[CiceronDecision.Pay, _Mapping]] = ..., sacrifice: _Optional[_Union[CiceronDecision.Sacrifice, _Mapping]] = ..., disgrace: _Optional[_Union[CiceronDecision.Disgrace, _Mapping]] = ..., award: _Optional[_Union[CiceronDecision.Award, _Mapping]] = ..., choose: _Optional[_Union[CiceronDecision.Choose, _Mapping]] = ..., use: _Optional[_Union[CiceronDecision.Use, _Mapping]] = ...) -> None: ...

class CiceronCasteCounts(_message.Message):
    __slots__ = ("orator", "mercator", "pontifex", "insidiator", "plebeius", "belligerator")
    ORATOR_FIELD_NUMBER: _ClassVar[int]
    MERCATOR_FIELD_NUMBER: _ClassVar[int]
    PONTIFEX_FIELD_NUMBER: _ClassVar[int]
    INSIDIATOR_FIELD_NUMBER: _ClassVar[int]
    PLEBEIUS_FIELD_NUMBER: _ClassVar[int]
    BELLIGERATOR_FIELD_NUMBER: _ClassVar[int]
    orator: int
    mercator: int
    pontifex: int
    insidiator: int
    plebeius: int
    belligerator: int
    def __init__(self, orator: _Optional[int] = ..., mercator: _Optional[int] = ..., pontifex: _Optional[int] = ..., insidiator: _Optional[int] = ..., plebeius: _Optional[int] = ..., belligerator: _Optional[int] = ...) -> None: ...

class CiceronIds(_message.Message):
    __slots__ = ("ids",)
    IDS_FIELD_NUMBER: _ClassVar[int]
    ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, ids: _Optional[_Iterable[str]] = ...) -> None: ...

class CiceronAttached(_message.Message):
    __slots__ = ("senator", "cards")
    SENATOR_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    senator: str
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, senator: _Optional[str] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class CiceronTurnEffect(_message.Message):
    __slots__ = ("card", "kind", "amount", "caste")
    CARD_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    CASTE_FIELD_NUMBER: _ClassVar[int]
    card: str
    kind: CiceronEffectKind
    amount: int
    caste: CiceronCaste
    def __init__(self, card: _Optional[str] = ..., kind: _Optional[_Union[CiceronEffectKind, str]] = ..., amount: _Optional[int] = ..., caste: _Optional[_Union[CiceronCaste, str]] = ...) -> None: ...

class CiceronTribute(_message.Message):
    __slots__ = ("how", "paid")
    HOW_FIELD_NUMBER: _ClassVar[int]
    PAID_FIELD_NUMBER: _ClassVar[int]
    how: CiceronTributeWay
    paid: _containers.RepeatedScalarFieldContainer[CiceronCaste]
    def __init__(self, how: _Optional[_Union[CiceronTributeWay, str]] = ..., paid: _Optional[_Iterable[_Union[CiceronCaste, str]]] = ...) -> None: ...

class CiceronBoard(_message.Message):
    __slots__ = ("family", "home", "influence", "prestige", "servants", "senators", "cenacle_limit", "senate_votes", "permanents", "attached", "turn_effects", "hand_by_caste", "hand", "drawn_count", "drawn", "voted", "vote", "guild_powers", "tribute", "election_votes")
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    HOME_FIELD_NUMBER: _ClassVar[int]
    INFLUENCE_FIELD_NUMBER: _ClassVar[int]
    PRESTIGE_FIELD_NUMBER: _ClassVar[int]
    SERVANTS_FIELD_NUMBER: _ClassVar[int]
    SENATORS_FIELD_NUMBER: _ClassVar[int]
    CENACLE_LIMIT_FIELD_NUMBER: _ClassVar[int]
    SENATE_VOTES_FIELD_NUMBER: _ClassVar[int]
    PERMANENTS_FIELD_NUMBER: _ClassVar[int]
    ATTACHED_FIELD_NUMBER: _ClassVar[int]
    TURN_EFFECTS_FIELD_NUMBER: _ClassVar[int]
    HAND_BY_CASTE_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    DRAWN_COUNT_FIELD_NUMBER: _ClassVar[int]
    DRAWN_FIELD_NUMBER: _ClassVar[int]
    VOTED_FIELD_NUMBER: _ClassVar[int]
    VOTE_FIELD_NUMBER: _ClassVar[int]
    GUILD_POWERS_FIELD_NUMBER: _ClassVar[int]
    TRIBUTE_FIELD_NUMBER: _ClassVar[int]
    ELECTION_VOTES_FIELD_NUMBER: _ClassVar[int]
    family: str
    home: CiceronCaste
    influence: CiceronCasteCounts
    prestige: int
    servants: int
    senators: _containers.RepeatedScalarFieldContainer[str]
    cenacle_limit: int
    senate_votes: int
    permanents: _containers.RepeatedScalarFieldContainer[str]
    attached: _containers.RepeatedCompositeFieldContainer[CiceronAttached]
    turn_effects: _containers.RepeatedCompositeFieldContainer[CiceronTurnEffect]
    hand_by_caste: CiceronCasteCounts
    hand: CiceronIds
    drawn_count: int
    drawn: CiceronIds
    voted: bool
    vote: int
    guild_powers: _containers.RepeatedScalarFieldContainer[CiceronGuild]
    tribute: CiceronTribute
    election_votes: int
    def __init__(self, family: _Optional[str] = ..., home: _Optional[_Union[CiceronCaste, str]] = ..., influence: _Optional[_Union[CiceronCasteCounts, _Mapping]] = ..., prestige: _Optional[int] = ..., servants: _Optional[int] = ..., senators: _Optional[_Iterable[str]] = ..., cenacle_limit: _Optional[int] = ..., senate_votes: _Optional[int] = ..., permanents: _Optional[_Iterable[str]] = ..., attached: _Optional[_Iterable[_Union[CiceronAttached, _Mapping]]] = ..., turn_effects: _Optional[_Iterable[_Union[CiceronTurnEffect, _Mapping]]] = ..., hand_by_caste: _Optional[_Union[CiceronCasteCounts, _Mapping]] = ..., hand: _Optional[_Union[CiceronIds, _Mapping]] = ..., drawn_count: _Optional[int] = ..., drawn: _Optional[_Union[CiceronIds, _Mapping]] = ..., voted: _Optional[bool] = ..., vote: _Optional[int] = ..., guild_powers: _Optional[_Iterable[_Union[CiceronGuild, str]]] = ..., tribute: _Optional[_Union[CiceronTribute, _Mapping]] = ..., election_votes: _Optional[int] = ...) -> None: ...

class CiceronSpot(_message.Message):
    __slots__ = ("spot", "seat", "automatii")
    SPOT_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AUTOMATII_FIELD_NUMBER: _ClassVar[int]
    spot: str
    seat: int
    automatii: bool
    def __init__(self, spot: _Optional[str] = ..., seat: _Optional[int] = ..., automatii: _Optional[bool] = ...) -> None: ...

class CiceronPile(_message.Message):
    __slots__ = ("pile", "size")
    PILE_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    pile: str
    size: int
    def __init__(self, pile: _Optional[str] = ..., size: _Optional[int] = ...) -> None: ...

class CiceronProvince(_message.Message):
    __slots__ = ("province", "legions")
    PROVINCE_FIELD_NUMBER: _ClassVar[int]
    LEGIONS_FIELD_NUMBER: _ClassVar[int]
    province: str
    legions: int
    def __init__(self, province: _Optional[str] = ..., legions: _Optional[int] = ...) -> None: ...

class CiceronCasteMajority(_message.Message):
    __slots__ = ("caste", "primus", "secundus")
    CASTE_FIELD_NUMBER: _ClassVar[int]
    PRIMUS_FIELD_NUMBER: _ClassVar[int]
    SECUNDUS_FIELD_NUMBER: _ClassVar[int]
    caste: CiceronCaste
    primus: int
    secundus: int
    def __init__(self, caste: _Optional[_Union[CiceronCaste, str]] = ..., primus: _Optional[int] = ..., secundus: _Optional[int] = ...) -> None: ...

class CiceronGuildMajority(_message.Message):
    __slots__ = ("guild", "holder", "choice")
    GUILD_FIELD_NUMBER: _ClassVar[int]
    HOLDER_FIELD_NUMBER: _ClassVar[int]
    CHOICE_FIELD_NUMBER: _ClassVar[int]
    guild: CiceronGuild
    holder: int
    choice: CiceronGuildChoice
    def __init__(self, guild: _Optional[_Union[CiceronGuild, str]] = ..., holder: _Optional[int] = ..., choice: _Optional[_Union[CiceronGuildChoice, str]] = ...) -> None: ...

class CiceronDraft(_message.Message):
    __slots__ = ("packet", "packet_size", "order", "seen")
    PACKET_FIELD_NUMBER: _ClassVar[int]
    PACKET_SIZE_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    SEEN_FIELD_NUMBER: _ClassVar[int]
    packet: CiceronIds
    packet_size: int
    order: _containers.RepeatedScalarFieldContainer[int]
    seen: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, packet: _Optional[_Union[CiceronIds, _Mapping]] = ..., packet_size: _Optional[int] = ..., order: _Optional[_Iterable[int]] = ..., seen: _Optional[_Iterable[int]] = ...) -> None: ...

class CiceronElection(_message.Message):
    __slots__ = ("families",)
    class Family(_message.Message):
        __slots__ = ("seat", "vote", "total")
        SEAT_FIELD_NUMBER: _ClassVar[int]
        VOTE_FIELD_NUMBER: _ClassVar[int]
        TOTAL_FIELD_NUMBER: _ClassVar[int]
        seat: int
        vote: int
        total: int
        def __init__(self, seat: _Optional[int] = ..., vote: _Optional[int] = ..., total: _Optional[int] = ...) -> None: ...
    FAMILIES_FIELD_NUMBER: _ClassVar[int]
    families: _containers.RepeatedCompositeFieldContainer[CiceronElection.Family]
    def __init__(self, families: _Optional[_Iterable[_Union[CiceronElection.Family, _Mapping]]] = ...) -> None: ...

class CiceronMajorityCard(_message.Message):
    __slots__ = ("primus", "secundus", "guild")
    PRIMUS_FIELD_NUMBER: _ClassVar[int]
    SECUNDUS_FIELD_NUMBER: _ClassVar[int]
    GUILD_FIELD_NUMBER: _ClassVar[int]
    primus: CiceronCaste
    secundus: CiceronCaste
    guild: CiceronGuild
    def __init__(self, primus: _Optional[_Union[CiceronCaste, str]] = ..., secundus: _Optional[_Union[CiceronCaste, str]] = ..., guild: _Optional[_Union[CiceronGuild, str]] = ...) -> None: ...

class CiceronLegionReward(_message.Message):
    __slots__ = ("prestige", "caste", "amount")
    PRESTIGE_FIELD_NUMBER: _ClassVar[int]
    CASTE_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    prestige: bool
    caste: CiceronCaste
    amount: int
    def __init__(self, prestige: _Optional[bool] = ..., caste: _Optional[_Union[CiceronCaste, str]] = ..., amount: _Optional[int] = ...) -> None: ...

class CiceronStep(_message.Message):
    __slots__ = ("seat", "family", "draft", "first_princeps", "turn_start", "guild_power", "automatii", "election", "elect", "ciceron", "placement", "place", "recruit", "upper", "upper_other", "secondary", "reward", "trim", "tribute", "pay", "triumvirat", "majorities", "award", "guild_choice", "prestige", "end_turn")
    class Draft(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class FirstPrinceps(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class TurnStart(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class GuildPower(_message.Message):
        __slots__ = ("guild",)
        GUILD_FIELD_NUMBER: _ClassVar[int]
        guild: CiceronGuild
        def __init__(self, guild: _Optional[_Union[CiceronGuild, str]] = ...) -> None: ...
    class Automatii(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Election(_message.Message):
        __slots__ = ("seats",)
        SEATS_FIELD_NUMBER: _ClassVar[int]
        seats: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, seats: _Optional[_Iterable[int]] = ...) -> None: ...
    class Elect(_message.Message):
        __slots__ = ("tied",)
        TIED_FIELD_NUMBER: _ClassVar[int]
        tied: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, tied: _Optional[_Iterable[int]] = ...) -> None: ...
    class Ciceron(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Placement(_message.Message):
        __slots__ = ("next",)
        NEXT_FIELD_NUMBER: _ClassVar[int]
        next: int
        def __init__(self, next: _Optional[int] = ...) -> None: ...
    class Place(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Recruit(_message.Message):
        __slots__ = ("pile", "most", "taken")
        PILE_FIELD_NUMBER: _ClassVar[int]
        MOST_FIELD_NUMBER: _ClassVar[int]
        TAKEN_FIELD_NUMBER: _ClassVar[int]
        pile: str
        most: int
        taken: int
        def __init__(self, pile: _Optional[str] = ..., most: _Optional[int] = ..., taken: _Optional[int] = ...) -> None: ...
    class Upper(_message.Message):
        __slots__ = ("caste", "gained")
        CASTE_FIELD_NUMBER: _ClassVar[int]
        GAINED_FIELD_NUMBER: _ClassVar[int]
        caste: CiceronCaste
        gained: bool
        def __init__(self, caste: _Optional[_Union[CiceronCaste, str]] = ..., gained: _Optional[bool] = ...) -> None: ...
    class UpperOther(_message.Message):
        __slots__ = ("caste",)
        CASTE_FIELD_NUMBER: _ClassVar[int]
        caste: CiceronCaste
        def __init__(self, caste: _Optional[_Union[CiceronCaste, str]] = ...) -> None: ...
    class Secondary(_message.Message):
        __slots__ = ("caste",)
        CASTE_FIELD_NUMBER: _ClassVar[int]
        caste: CiceronCaste
        def __init__(self, caste: _Optional[_Union[CiceronCaste, str]] = ...) -> None: ...
    class Reward(_message.Message):
        __slots__ = ("rewards",)
        REWARDS_FIELD_NUMBER: _ClassVar[int]
        rewards: _containers.RepeatedCompositeFieldContainer[CiceronLegionReward]
        def __init__(self, rewards: _Optional[_Iterable[_Union[CiceronLegionReward, _Mapping]]] = ...) -> None: ...
    class Trim(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Tribute(_message.Message):
        __slots__ = ("round", "order")
        ROUND_FIELD_NUMBER: _ClassVar[int]
        ORDER_FIELD_NUMBER: _ClassVar[int]
        round: int
        order: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, round: _Optional[int] = ..., order: _Optional[_Iterable[int]] = ...) -> None: ...
    class Pay(_message.Message):
        __slots__ = ("round",)
        ROUND_FIELD_NUMBER: _ClassVar[int]
        round: int
        def __init__(self, round: _Optional[int] = ...) -> None: ...
    class Triumvirat(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Majorities(_message.Message):
        __slots__ = ("left",)
        LEFT_FIELD_NUMBER: _ClassVar[int]
        left: _containers.RepeatedCompositeFieldContainer[CiceronMajorityCard]
        def __init__(self, left: _Optional[_Iterable[_Union[CiceronMajorityCard, _Mapping]]] = ...) -> None: ...
    class Award(_message.Message):
        __slots__ = ("card", "tied")
        CARD_FIELD_NUMBER: _ClassVar[int]
        TIED_FIELD_NUMBER: _ClassVar[int]
        card: CiceronMajorityCard
        tied: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, card: _Optional[_Union[CiceronMajorityCard, _Mapping]] = ..., tied: _Optional[_Iterable[int]] = ...) -> None: ...
    class GuildChoice(_message.Message):
        __slots__ = ("guild",)
        GUILD_FIELD_NUMBER: _ClassVar[int]
        guild: CiceronGuild
        def __init__(self, guild: _Optional[_Union[CiceronGuild, str]] = ...) -> None: ...
    class Prestige(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class EndTurn(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    SEAT_FIELD_NUMBER: _ClassVar[int]
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    DRAFT_FIELD_NUMBER: _ClassVar[int]
    FIRST_PRINCEPS_FIELD_NUMBER: _ClassVar[int]
    TURN_START_FIELD_NUMBER: _ClassVar[int]
    GUILD_POWER_FIELD_NUMBER: _ClassVar[int]
    AUTOMATII_FIELD_NUMBER: _ClassVar[int]
    ELECTION_FIELD_NUMBER: _ClassVar[int]
    ELECT_FIELD_NUMBER: _ClassVar[int]
    CICERON_FIELD_NUMBER: _ClassVar[int]
    PLACEMENT_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    RECRUIT_FIELD_NUMBER: _ClassVar[int]
    UPPER_FIELD_NUMBER: _ClassVar[int]
    UPPER_OTHER_FIELD_NUMBER: _ClassVar[int]
    SECONDARY_FIELD_NUMBER: _ClassVar[int]
    REWARD_FIELD_NUMBER: _ClassVar[int]
    TRIM_FIELD_NUMBER: _ClassVar[int]
    TRIBUTE_FIELD_NUMBER: _ClassVar[int]
    PAY_FIELD_NUMBER: _ClassVar[int]
    TRIUMVIRAT_FIELD_NUMBER: _ClassVar[int]
    MAJORITIES_FIELD_NUMBER: _ClassVar[int]
    AWARD_FIELD_NUMBER: _ClassVar[int]
    GUILD_CHOICE_FIELD_NUMBER: _ClassVar[int]
    PRESTIGE_FIELD_NUMBER: _ClassVar[int]
    END_TURN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    family: str
    draft: CiceronStep.Draft
    first_princeps: CiceronStep.FirstPrinceps
    turn_start: CiceronStep.TurnStart
    guild_power: CiceronStep.GuildPower
    automatii: CiceronStep.Automatii
    election: CiceronStep.Election
    elect: CiceronStep.Elect
    ciceron: CiceronStep.Ciceron
    placement: CiceronStep.Placement
    place: CiceronStep.Place
    recruit: CiceronStep.Recruit
    upper: CiceronStep.Upper
    upper_other: CiceronStep.UpperOther
    secondary: CiceronStep.Secondary
    reward: CiceronStep.Reward
    trim: CiceronStep.Trim
    tribute: CiceronStep.Tribute
    pay: CiceronStep.Pay
    triumvirat: CiceronStep.Triumvirat
    majorities: CiceronStep.Majorities
    award: CiceronStep.Award
    guild_choice: CiceronStep.GuildChoice
    prestige: CiceronStep.Prestige
    end_turn: CiceronStep.EndTurn
    def __init__(self, seat: _Optional[int] = ..., family: _Optional[str] = ..., draft: _Optional[_Union[CiceronStep.Draft, _Mapping]] = ..., first_princeps: _Optional[_Union[CiceronStep.FirstPrinceps, _Mapping]] = ..., turn_start: _Optional[_Union[CiceronStep.TurnStart, _Mapping]] = ..., guild_power: _Optional[_Union[CiceronStep.GuildPower, _Mapping]] = ..., automatii: _Optional[_Union[CiceronStep.Automatii, _Mapping]] = ..., election: _Optional[_Union[CiceronStep.Election, _Mapping]] = ..., elect: _Optional[_Union[CiceronStep.Elect, _Mapping]] = ..., ciceron: _Optional[_Union[CiceronStep.Ciceron, _Mapping]] = ..., placement: _Optional[_Union[CiceronStep.Placement, _Mapping]] = ..., place: _Optional[_Union[CiceronStep.Place, _Mapping]] = ..., recruit: _Optional[_Union[CiceronStep.Recruit, _Mapping]] = ..., upper: _Optional[_Union[CiceronStep.Upper, _Mapping]] = ..., upper_other: _Optional[_Union[CiceronStep.UpperOther, _Mapping]] = ..., secondary: _Optional[_Union[CiceronStep.Secondary, _Mapping]] = ..., reward: _Optional[_Union[CiceronStep.Reward, _Mapping]] = ..., trim: _Optional[_Union[CiceronStep.Trim, _Mapping]] = ..., tribute: _Optional[_Union[CiceronStep.Tribute, _Mapping]] = ..., pay: _Optional[_Union[CiceronStep.Pay, _Mapping]] = ..., triumvirat: _Optional[_Union[CiceronStep.Triumvirat, _Mapping]] = ..., majorities: _Optional[_Union[CiceronStep.Majorities, _Mapping]] = ..., award: _Optional[_Union[CiceronStep.Award, _Mapping]] = ..., guild_choice: _Optional[_Union[CiceronStep.GuildChoice, _Mapping]] = ..., prestige: _Optional[_Union[CiceronStep.Prestige, _Mapping]] = ..., end_turn: _Optional[_Union[CiceronStep.EndTurn, _Mapping]] = ...) -> None: ...

class CiceronObservation(_message.Message):
    __slots__ = ("families", "card_set_name", "card_set_digest", "turn", "turns", "phase", "princeps", "boards", "spots", "piles", "decks", "ciceron", "ciceron_past", "ciceron_deck", "triumvirat", "triumvirat_drawn", "legions", "legions_left", "caste_majorities", "guilds", "discarded", "removed", "draft", "election", "asked", "agenda")
    FAMILIES_FIELD_NUMBER: _ClassVar[int]
    CARD_SET_NAME_FIELD_NUMBER: _ClassVar[int]
    CARD_SET_DIGEST_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    PRINCEPS_FIELD_NUMBER: _ClassVar[int]
    BOARDS_FIELD_NUMBER: _ClassVar[int]
    SPOTS_FIELD_NUMBER: _ClassVar[int]
    PILES_FIELD_NUMBER: _ClassVar[int]
    DECKS_FIELD_NUMBER: _ClassVar[int]
    CICERON_FIELD_NUMBER: _ClassVar[int]
    CICERON_PAST_FIELD_NUMBER: _ClassVar[int]
    CICERON_DECK_FIELD_NUMBER: _ClassVar[int]
    TRIUMVIRAT_FIELD_NUMBER: _ClassVar[int]
    TRIUMVIRAT_DRAWN_FIELD_NUMBER: _ClassVar[int]
    LEGIONS_FIELD_NUMBER: _ClassVar[int]
    LEGIONS_LEFT_FIELD_NUMBER: _ClassVar[int]
    CASTE_MAJORITIES_FIELD_NUMBER: _ClassVar[int]
    GUILDS_FIELD_NUMBER: _ClassVar[int]
    DISCARDED_FIELD_NUMBER: _ClassVar[int]
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    DRAFT_FIELD_NUMBER: _ClassVar[int]
    ELECTION_FIELD_NUMBER: _ClassVar[int]
    ASKED_FIELD_NUMBER: _ClassVar[int]
    AGENDA_FIELD_NUMBER: _ClassVar[int]
    families: _containers.RepeatedScalarFieldContainer[str]
    card_set_name: str
    card_set_digest: str
    turn: int
    turns: int
    phase: CiceronPhase
    princeps: int
    boards: _containers.RepeatedCompositeFieldContainer[CiceronBoard]
    spots: _containers.RepeatedCompositeFieldContainer[CiceronSpot]
    piles: _containers.RepeatedCompositeFieldContainer[CiceronPile]
    decks: CiceronCasteCounts
    ciceron: str
    ciceron_past: _containers.RepeatedScalarFieldContainer[str]
    ciceron_deck: int
    triumvirat: _containers.RepeatedScalarFieldContainer[str]
    triumvirat_drawn: str
    legions: _containers.RepeatedCompositeFieldContainer[CiceronProvince]
    legions_left: int
    caste_majorities: _containers.RepeatedCompositeFieldContainer[CiceronCasteMajority]
    guilds: _containers.RepeatedCompositeFieldContainer[CiceronGuildMajority]
    discarded: _containers.RepeatedScalarFieldContainer[str]
    removed: _containers.RepeatedScalarFieldContainer[str]
    draft: CiceronDraft
    election: CiceronElection
    asked: CiceronStep
    agenda: _containers.RepeatedCompositeFieldContainer[CiceronStep]
    def __init__(self, families: _Optional[_Iterable[str]] = ..., card_set_name: _Optional[str] = ..., card_set_digest: _Optional[str] = ..., turn: _Optional[int] = ..., turns: _Optional[int] = ..., phase: _Optional[_Union[CiceronPhase, str]] = ..., princeps: _Optional[int] = ..., boards: _Optional[_Iterable[_Union[CiceronBoard, _Mapping]]] = ..., spots: _Optional[_Iterable[_Union[CiceronSpot, _Mapping]]] = ..., piles: _Optional[_Iterable[_Union[CiceronPile, _Mapping]]] = ..., decks: _Optional[_Union[CiceronCasteCounts, _Mapping]] = ..., ciceron: _Optional[str] = ..., ciceron_past: _Optional[_Iterable[str]] = ..., ciceron_deck: _Optional[int] = ..., triumvirat: _Optional[_Iterable[str]] = ..., triumvirat_drawn: _Optional[str] = ..., legions: _Optional[_Iterable[_Union[CiceronProvince, _Mapping]]] = ..., legions_left: _Optional[int] = ..., caste_majorities: _Optional[_Iterable[_Union[CiceronCasteMajority, _Mapping]]] = ..., guilds: _Optional[_Iterable[_Union[CiceronGuildMajority, _Mapping]]] = ..., discarded: _Optional[_Iterable[str]] = ..., removed: _Optional[_Iterable[str]] = ..., draft: _Optional[_Union[CiceronDraft, _Mapping]] = ..., election: _Optional[_Union[CiceronElection, _Mapping]] = ..., asked: _Optional[_Union[CiceronStep, _Mapping]] = ..., agenda: _Optional[_Iterable[_Union[CiceronStep, _Mapping]]] = ...) -> None: ...
