"""Property-based fuzzing of every request of curia.v1.GameService against a `curia serve`
process: messages built from the contract's descriptors with random, odd, oversized and
out-of-range field values (mixed into realistic requests so that they get past the first
checks), and raw garbage payloads. Every answer must be a documented status, the process
must survive, and the games it already held must not change."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
import redis
from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import games
from client.unary import CuriaClient
from curia_api import codec
from curia_api.v1 import game_service_pb2 as pb
from games.core import DecisionError
from service.store import keys
from tests.servers import ServiceProcess
from tests.service.gameplay import Game, new_game, play_out, step

SERVICE = pb.DESCRIPTOR.services_by_name["GameService"]
METHODS = {method.name: method for method in SERVICE.methods}
RPC_TIMEOUT = 10.0
LIMIT = 64 * 1024
Code = grpc.StatusCode
#: The statuses each method may answer (the service comment; OUT_OF_RANGE: docs/api.md).
#: Any method may answer INVALID_ARGUMENT (malformed) and RESOURCE_EXHAUSTED (> 64 KiB).
ALWAYS = {Code.OK, Code.INVALID_ARGUMENT, Code.RESOURCE_EXHAUSTED}
ALLOWED = {
    "ListGames": ALWAYS,
    "CreateGame": ALWAYS,
    "JoinGame": ALWAYS | {Code.NOT_FOUND, Code.ALREADY_EXISTS},
    "GetView": ALWAYS | {Code.NOT_FOUND, Code.UNAUTHENTICATED},
    "SubmitDecision": ALWAYS | {Code.NOT_FOUND, Code.UNAUTHENTICATED,
                                Code.FAILED_PRECONDITION, Code.ABORTED},
    "WatchGame": ALWAYS | {Code.NOT_FOUND, Code.UNAUTHENTICATED, Code.OUT_OF_RANGE},
    "ResignSeat": ALWAYS | {Code.NOT_FOUND, Code.UNAUTHENTICATED, Code.FAILED_PRECONDITION},
    "GetGameRecord": ALWAYS | {Code.NOT_FOUND, Code.FAILED_PRECONDITION},
}
#: A Session call answers what its unary method would (the statuses of its refusals).
ALLOWED["Session"] = ALLOWED["GetView"] | ALLOWED["SubmitDecision"]
#: Play needs a bot key (none here): refused before its first message is read, and
#: RESOURCE_EXHAUSTED once an address has sent too many wrong keys.
ALLOWED["Play"] = ALWAYS | {Code.UNAUTHENTICATED}
#: Methods refused before the request is read (so an oversized request may get either).
KEY_FIRST = {"Play": {Code.UNAUTHENTICATED}}
SESSION_CALLS = {"get_view": "GetView", "submit_decision": "SubmitDecision"}
STATUS_BY_NUMBER = {code.value[0]: code for code in Code}
FUZZ = settings(max_examples=150, deadline=None, database=None,
                suppress_health_check=list(HealthCheck))
#: Uncompressed, a request over the limit takes gRPC 0.1-1 s to refuse (flow control), so
#: the fuzz sends its oversized requests gzip-compressed (the limit applies to the
#: decompressed size), about one example in OVERSIZE_ONE_IN; one test sends every string
#: field of every request over the limit as is.
OVERSIZE_ONE_IN = 20


def test_the_fuzz_covers_every_method_of_the_contract() -> None:
    assert set(METHODS) == set(ALLOWED) == {
        "ListGames", "CreateGame", "JoinGame", "GetView", "SubmitDecision", "WatchGame",
        "ResignSeat", "GetGameRecord", "Session", "Play"}


# -- the target: a `curia serve` process holding games that must not change ----------------
@dataclass(repr=False)
class World:
    """The process under fuzz and what it held before."""

    process: ServiceProcess
    redis_url: str
    channel: grpc.Channel
    client: CuriaClient
    #: games no request may change, by id (one finished, two in progress)
    protected: dict[str, Game]
    #: in-progress games whose seats fuzzed SubmitDecision and ResignSeat (one each) may
    #: use freely: they rightly change them
    sandboxes: dict[str, Game]
    #: a game with every seat open, for JoinGame
    open_game: str
    before: dict[str, Any] = field(default_factory=dict)
    legal: list[pb.Decision] = field(default_factory=list)
    stderr: list[bytes] = field(default_factory=list)

    def __repr__(self) -> str:  # short, for Hypothesis's reports
        return f"World({self.process.address})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    @property
    def ids(self) -> list[str]:
        return [*self.protected, *(g.game_id for g in self.sandboxes.values()),
                self.open_game]

    def seats(self, method: str) -> list[tuple[str, str]]:
        """Real (game id, seat token) pairs to fuzz with; for ResignSeat, which rightly
        changes a game, its sandbox's only."""
        if method == "ResignSeat":
            chosen = [self.sandboxes[method]]
        else:
            chosen = [*self.protected.values(), self.sandboxes["SubmitDecision"]]
        return [(g.game_id, t) for g in chosen for t in g.tokens.values()]

    def version(self, game_id: str) -> int:
        """The game's version now, read from Redis."""
        with redis.Redis.from_url(self.redis_url) as r:
            return int(r.hget(keys(game_id)[0], "version") or 0)

    def protected_seat(self, game_id: str, token: str) -> int | None:
        """The seat of a protected game the token belongs to, if any."""
        game = self.protected.get(game_id)
        found = [s for s, t in game.tokens.items() if t == token] if game else []
        return found[0] if found else None


def snapshot(client: CuriaClient, protected: dict[str, Game]) -> dict[str, Any]:
    """Each protected game's spectator view, every seat's view, and its record if over."""
    shot: dict[str, Any] = {}
    for game_id, game in protected.items():
        spectator = client.view(game_id)
        shot[game_id] = (spectator, [client.view(game_id, t) for t in game.tokens.values()],
                         client.record(game_id) if spectator.status == pb.GAME_STATUS_FINISHED
                         else None)
    return shot


@pytest.fixture(scope="module")
def world(redis_url: str) -> Iterator[World]:
    process = ServiceProcess(redis_url)
    stderr: list[bytes] = []
    pipe = process.process.stderr
    assert pipe is not None
    # the process's log, kept for the end (and its pipe never fills up)
    threading.Thread(target=lambda: stderr.extend(pipe), daemon=True).start()
    channel = grpc.insecure_channel(process.address)
    client = CuriaClient(process.address, timeout=RPC_TIMEOUT)
    try:
        rng = random.Random(41)
        finished = new_game(client, seed=41)
        play_out(client, finished, rng)
        playing = new_game(client, seed=42)
        revised = new_game(client, seats=4, seed=43, variant="revised")
        sandboxes = {method: new_game(client, seed=seed)
                     for method, seed in (("SubmitDecision", 44), ("ResignSeat", 46))}
        for game, steps in ((playing, 12), (revised, 5), *((g, 3) for g in sandboxes.values())):
            for _ in range(steps):
                step(client, game, rng)
        open_game = client.create_game("municipium", "classic", 3, seed=45,
                                       open_seats=(0, 1, 2)).game_id
        protected = {g.game_id: g for g in (finished, playing, revised)}
        world = World(process, redis_url, channel, client, protected, sandboxes, open_game,
                      stderr=stderr)
        world.before = snapshot(client, protected)
        for game in (playing, revised, *sandboxes.values()):
            for token in game.tokens.values():
                world.legal.extend(client.view(game.game_id, token).legal_decisions)
        assert world.legal
        yield world
    finally:
        client.close()
        channel.close()
        process.stop()


# -- random messages, from the descriptors -----------------------------------------------------
ODD = ["", " ", "\x00", "\x00" * 3, "\n", "\u202e", "\ufeff", "é", "😀" * 50, "a" * 64,
       "a" * 65, "a" * 128, "a" * 129, "a" * 200, "a" * 201, "../../etc/passwd", "%s%n%x",
       "' OR 1=1 --", "curia:{x}:game", "{", "*", "-1", "18446744073709551615", "null",
       "{\"seat\": 0}", "skip", "power forum", "setup temple", "move baths>emporium",
       "municipium", "classic", "revised", "target_decurions", "max_turns"]
STRINGS = st.one_of(
    st.text(max_size=40),
    st.sampled_from(ODD),
    st.text(alphabet=st.characters(codec="utf-8"), min_size=100, max_size=400),
)
UINT64 = st.one_of(st.integers(0, 2**64 - 1),
                   st.sampled_from([0, 1, 2**31, 2**32, 2**63 - 1, 2**63, 2**64 - 2, 2**64 - 1]))
UINT32 = st.one_of(st.integers(0, 8), st.integers(0, 2**32 - 1), st.just(2**32 - 1))
INT64 = st.one_of(st.integers(-(2**63), 2**63 - 1), st.integers(-2, 10_001),
                  st.sampled_from([-(2**63), 2**63 - 1]))
INT32 = st.integers(-(2**31), 2**31 - 1)
T = FieldDescriptor


def scalar(described: FieldDescriptor, depth: int) -> st.SearchStrategy[Any]:
    kind = described.type
    if kind == T.TYPE_STRING:
        return STRINGS
    if kind == T.TYPE_BYTES:
        return st.binary(max_size=64)
    if kind == T.TYPE_BOOL:
        return st.booleans()
    if kind in (T.TYPE_UINT64, T.TYPE_FIXED64):
        return UINT64
    if kind in (T.TYPE_UINT32, T.TYPE_FIXED32):
        return UINT32
    if kind in (T.TYPE_INT64, T.TYPE_SINT64, T.TYPE_SFIXED64):
        return INT64
    if kind == T.TYPE_ENUM:  # known numbers and unknown ones (proto3 enums are open)
        return st.one_of(st.sampled_from([v.number for v in described.enum_type.values]),
                         INT32)
    if kind in (T.TYPE_INT32, T.TYPE_SINT32, T.TYPE_SFIXED32):
        return INT32
    if kind in (T.TYPE_FLOAT, T.TYPE_DOUBLE):
        return st.floats(width=32 if kind == T.TYPE_FLOAT else 64)
    assert kind == T.TYPE_MESSAGE, kind
    return messages(described.message_type, depth + 1)


def is_map(described: FieldDescriptor) -> bool:
    entry = described.message_type
    return entry is not None and bool(entry.GetOptions().map_entry)


def field_values(described: FieldDescriptor, depth: int) -> st.SearchStrategy[Any]:
    """Values for one field: a scalar or message, a list, or a map (as a dict)."""
    if is_map(described):
        entry = described.message_type
        return st.dictionaries(scalar(entry.fields_by_name["key"], depth),
                               scalar(entry.fields_by_name["value"], depth), max_size=20)
    one = scalar(described, depth)
    return st.lists(one, max_size=12) if described.is_repeated else one


def set_field(message: Message, name: str, value: Any) -> None:
    described = message.DESCRIPTOR.fields_by_name[name]
    target = getattr(message, name)
    if is_map(described):
        for key, item in value.items():
            if described.message_type.fields_by_name["value"].type == T.TYPE_MESSAGE:
                target[key].CopyFrom(item)
            else:
                target[key] = item
    elif described.is_repeated:
        if described.type == T.TYPE_MESSAGE:
            for item in value:
                target.add().CopyFrom(item)
        else:
            target.extend(value)
    elif described.type == T.TYPE_MESSAGE:
        target.CopyFrom(value)
    else:
        setattr(message, name, value)


def messages(descriptor: Descriptor, depth: int = 0) -> st.SearchStrategy[Message]:
    """Instances of the message type: each field unset or a random value (of a oneof, the
    last case set stays), in a random order; nested messages stop at depth 3."""
    cls = message_factory.GetMessageClass(descriptor)
    if depth > 3:
        return st.just(cls())
    fields = {f.name: st.none() | field_values(f, depth) for f in descriptor.fields}

    def build(values: dict[str, Any], names: list[str]) -> Message:
        message = cls()
        for name in names:
            if values[name] is not None:
                set_field(message, name, values[name])
        return message

    return st.builds(build, st.fixed_dictionaries(fields), st.permutations(list(fields)))


# -- realistic requests, then broken ------------------------------------------------------------
def realistic(world: World, method: str, rnd: random.Random) -> Message:
    """A plausible request of the method, on the world's games: a real seat, the game's
    version, a legal decision... (what a well-behaved client would send)."""
    if method == "Play":  # a hello, or a decision in one of the world's games
        if rnd.random() < 0.5:
            return pb.PlayRequest(hello=pb.PlayHello(concurrency=rnd.randint(0, 9)))
        game_id = rnd.choice(world.ids)
        return pb.PlayRequest(decision=pb.PlayDecision(
            game_id=game_id, decision=rnd.choice(world.legal),
            expected_version=world.version(game_id), request_id="play"))
    if method == "Session":  # a GetView or a SubmitDecision call on the stream
        inner = rnd.choice(sorted(SESSION_CALLS))
        return pb.SessionRequest(tag=rnd.getrandbits(64), **{
            inner: realistic(world, SESSION_CALLS[inner], rnd)})
    pairs = world.seats(method)
    game_id, token = rnd.choice(pairs)
    if method == "ListGames":
        return pb.ListGamesRequest()
    if method == "CreateGame":
        variant, (low, high) = rnd.choice([("classic", (3, 5)), ("revised", (2, 4))])
        seats = rnd.randint(low, high) if rnd.random() < 0.8 else rnd.choice((low - 1,
                                                                             high + 1))
        request = pb.CreateGameRequest(
            game="municipium", variant=variant, num_seats=seats,
            options={name: rnd.choice(values) for name, values in
                     (("target_decurions", (3, 4, 4, 5, 5, 6)),
                      ("max_turns", (0, 1, 50, 50, 600, 10_001)))
                     if rnd.random() < 0.5},
            open_seats=rnd.sample(range(seats + 1), rnd.choice((0, 0, 0, 1, 2))),
            time_control=pb.TimeControl(decision_ms=rnd.choice((0, 0, 60_000, 3_600_001)),
                                        bank_ms=rnd.choice((0, 0, 600_000))),
            forfeit_on_illegal=rnd.random() < 0.5, wait_for_players=rnd.random() < 0.3)
        policy: Any = rnd.choice((0, 1, 2, 3))  # 3: no such policy
        request.time_control.on_timeout = policy
        if rnd.random() < 0.5:
            request.seed = rnd.getrandbits(64)
        return request
    if method == "JoinGame":
        request = pb.JoinGameRequest(game_id=rnd.choice([world.open_game, *world.ids]))
        if rnd.random() < 0.5:
            request.seat = rnd.randint(0, 5)
        return request
    if method == "GetView":
        return pb.GetViewRequest(game_id=game_id, seat_token=rnd.choice((token, "")))
    if method == "WatchGame":
        return pb.WatchGameRequest(game_id=game_id, seat_token=rnd.choice((token, "")),
                                   after_version=max(0, world.version(game_id)
                                                     + rnd.randint(-20, 1)))
    if method == "GetGameRecord":
        return pb.GetGameRecordRequest(game_id=rnd.choice(world.ids))
    if method == "ResignSeat":
        return pb.ResignSeatRequest(game_id=game_id, seat_token=token,
                                    reason=rnd.choice(("", "crashed", "x" * 200)))
    assert method == "SubmitDecision", method
    legal = list(world.client.view(game_id, token).legal_decisions) or world.legal
    decision = pb.Decision()
    decision.CopyFrom(rnd.choice(legal))
    if rnd.random() < 0.3:
        decision.ClearField(rnd.choice(("notation", "municipium")))
    if rnd.random() < 0.15:  # the typed case of a game the contract does not know yet
        body = rnd.randbytes(rnd.randint(0, 16))
        decision.MergeFromString(varint(15 << 3 | 2) + varint(len(body)) + body)
        if rnd.random() < 0.5:
            decision.ClearField("municipium")
    return pb.SubmitDecisionRequest(
        game_id=game_id, seat_token=token, decision=decision,
        expected_version=world.version(game_id) + rnd.choice((0, 0, 0, -1, 1)),
        request_id=f"fuzz-{rnd.getrandbits(64):x}")


def mixed(valid: Message, junk: Message, rnd: random.Random) -> Message:
    """`valid` with each field, with one probability (none, a few, half or all), replaced by
    `junk`'s (a value, or unset)."""
    share = rnd.choice((0.0, 0.15, 0.5, 1.0))
    taken = [f.name for f in valid.DESCRIPTOR.fields if rnd.random() < share]
    out = type(valid)()
    out.CopyFrom(valid)
    for name in taken:
        out.ClearField(name)
        part = type(junk)()
        part.CopyFrom(junk)
        for other in junk.DESCRIPTOR.fields:
            if other.name != name:
                part.ClearField(other.name)
        out.MergeFrom(part)
    return out


def would_apply(world: World, request: pb.SubmitDecisionRequest) -> bool:
    """True if the request, as is, would be a legal decision at the right version for a
    protected game (which the fuzz must not send: it would rightly change the game)."""
    seat = world.protected_seat(request.game_id, request.seat_token)
    if seat is None:
        return False
    with redis.Redis.from_url(world.redis_url) as r:
        version, state_bytes = r.hmget(keys(request.game_id)[0], ["version", "state"])
    if int(version) != request.expected_version:
        return False
    state = games.load(state_bytes)
    try:
        if len(request.decision.notation) > 200:
            return False
        state.apply(seat, codec.decision_from_proto(state, request.decision))
    except DecisionError:
        return False
    except Exception:  # the server fails the same way (a finding), before writing anything
        return False
    return True


def varint(n: int) -> bytes:
    """n as a protobuf varint."""
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


@st.composite
def wire_fields(draw: st.DrawFn, lowest: int = 1) -> bytes:
    """One well-framed protobuf field numbered >= `lowest`, of any wire type: known numbers
    with the wrong type, unknown numbers, invalid UTF-8, over-long varints."""
    number = draw(st.one_of(st.integers(lowest, lowest + 10), st.integers(lowest, 2**29 - 1)))
    wire = draw(st.sampled_from([0, 1, 2, 5]))
    tag = varint(number << 3 | wire)
    if wire == 0:
        return tag + draw(st.one_of(st.integers(0, 2**64 - 1).map(varint),
                                    st.just(b"\xff" * 10 + b"\x01")))
    if wire == 1:
        return tag + draw(st.binary(min_size=8, max_size=8))
    if wire == 5:
        return tag + draw(st.binary(min_size=4, max_size=4))
    body = draw(st.one_of(st.binary(max_size=64), st.just(b"\xc3\x28\xff\xfe"),
                          st.just(b"\xed\xa0\x80")))
    return tag + varint(len(body)) + body


def inflated(data: st.DataObject, request: Message, payload: bytes) -> bytes:
    """The request with one string field (in a message without any: an unknown field)
    grown beyond 64 KiB."""
    size = data.draw(st.integers(LIMIT + 1, 90_000), label="size")
    strings = [f.name for f in request.DESCRIPTOR.fields
               if f.type == T.TYPE_STRING and not f.is_repeated]
    if not strings:
        return payload + varint(1000 << 3 | 2) + varint(size) + b"x" * size
    copy = type(request)()
    copy.CopyFrom(request)
    setattr(copy, data.draw(st.sampled_from(strings), label="field"), "\u00e9" * size)
    inflated_payload: bytes = copy.SerializeToString()
    return inflated_payload


# -- sending -----------------------------------------------------------------------------------
def send(world: World, method: str, payload: bytes, compressed: bool = False
         ) -> tuple[grpc.StatusCode, bytes | None]:
    """The payload as the method's request, bytes as they are (identity serializers),
    gzip-compressed on the wire if asked; the status and, if OK, the answer (WatchGame:
    its first message; the stream is then cancelled)."""
    path = f"/{SERVICE.full_name}/{method}"
    compression = grpc.Compression.Gzip if compressed else None
    try:
        if METHODS[method].client_streaming:  # Session, Play: one message on the stream
            replies = world.channel.stream_stream(path)(iter([payload]), timeout=RPC_TIMEOUT,
                                                        compression=compression)
            if method == "Play":
                return Code.OK, next(replies)
            return session_answer(next(replies))
        if METHODS[method].server_streaming:
            stream = world.channel.unary_stream(path)(payload, timeout=RPC_TIMEOUT,
                                                      compression=compression)
            try:
                return Code.OK, next(stream, None)
            finally:
                stream.cancel()
        return Code.OK, world.channel.unary_unary(path)(payload, timeout=RPC_TIMEOUT,
                                                        compression=compression)
    except grpc.RpcError as error:
        return error.code(), None


def called(request: Message | None) -> tuple[str, Message | None]:
    """The unary method a request calls and its request (a Session call: the one it
    carries; "Session" and None for a Session request carrying none)."""
    if isinstance(request, pb.SessionRequest):
        kind = request.WhichOneof("call")
        return (SESSION_CALLS[kind], getattr(request, kind)) if kind else ("Session", None)
    return (type(request).__name__.removesuffix("Request"), request)


def check_answer(world: World, method: str, request: Message | None, code: grpc.StatusCode,
                 answer: bytes | None) -> None:
    assert code in ALLOWED[method], f"{method} answered {code.name}"
    inner, message = called(request)
    game_id = getattr(message, "game_id", "")
    if code == Code.OK and game_id in world.protected and inner in (
            "SubmitDecision", "ResignSeat", "JoinGame"):
        response = pb.SubmitDecisionResponse.FromString(answer or b"")
        assert inner == "SubmitDecision" and response.duplicate, \
            f"{method} changed protected game {game_id}"


def session_answer(payload: bytes) -> tuple[grpc.StatusCode, bytes | None]:
    """A Session reply as a unary call's outcome: the refusal's status, or OK and the
    reply of the call."""
    reply = pb.SessionResponse.FromString(payload)
    kind = reply.WhichOneof("reply")
    if kind == "refused":
        return STATUS_BY_NUMBER[reply.refused.code], None
    assert kind is not None, "a Session reply answers"
    return Code.OK, getattr(reply, kind).SerializeToString()


def oversized(data: st.DataObject) -> bool:
    return data.draw(st.integers(0, OVERSIZE_ONE_IN - 1), label="oversized?") == 1


# -- the properties --------------------------------------------------------------------------
def fuzz_case(method: str) -> Callable[..., None]:
    descriptor = METHODS[method].input_type

    @FUZZ
    @given(data=st.data())
    def case(world: World, data: st.DataObject) -> None:
        rnd = random.Random(data.draw(st.integers(0, 2**64 - 1), label="seed"))
        junk = data.draw(messages(descriptor), label="junk")
        request = mixed(realistic(world, method, rnd), junk, rnd)
        submit = called(request)[1]
        if isinstance(submit, pb.SubmitDecisionRequest) and would_apply(world, submit):
            submit.expected_version += 1  # a legal decision, but never at the right version
        # unknown fields (numbers no request uses), which the server ignores
        payload = request.SerializeToString() + b"".join(
            data.draw(st.lists(wire_fields(lowest=100), max_size=2), label="unknown"))
        big = oversized(data)
        if big:
            payload = inflated(data, request, payload)
        code, answer = send(world, method, payload, compressed=big)
        if big:
            assert code in {Code.RESOURCE_EXHAUSTED, *KEY_FIRST.get(method, ())}, \
                (method, code, len(payload))
        check_answer(world, method, request, code, answer)
    return case


@pytest.mark.parametrize("method", sorted(METHODS))
def test_fuzzed_requests_of_every_method_get_a_documented_status(world: World,
                                                                  method: str) -> None:
    fuzz_case(method)(world)


def garbage(world: World, method: str) -> st.SearchStrategy[bytes]:
    valid = messages(METHODS[method].input_type).map(lambda m: m.SerializeToString())
    return st.one_of(
        st.binary(max_size=256),
        st.lists(wire_fields(), max_size=8).map(b"".join),
        st.tuples(valid, st.binary(min_size=1, max_size=32)).map(lambda p: p[0] + p[1]),
        st.tuples(valid, st.integers(0, 64)).map(lambda p: p[0][:p[1]]),
    )


def garbage_case(method: str) -> Callable[..., None]:
    input_class = message_factory.GetMessageClass(METHODS[method].input_type)

    @FUZZ
    @given(data=st.data())
    def case(world: World, data: st.DataObject) -> None:
        payload = data.draw(garbage(world, method), label="payload")
        big = oversized(data)
        if big:
            size = data.draw(st.integers(LIMIT + 1, 90_000), label="size")
            payload += data.draw(st.sampled_from([b"\x0a" + varint(size) + b"a" * size,
                                                  bytes(size)]), label="tail")
        try:
            parsed = input_class.FromString(payload)
        except Exception:
            parsed = None
        inner = called(parsed)[1] if parsed is not None else None
        if (isinstance(inner, pb.SubmitDecisionRequest) and would_apply(world, inner)) or (
                isinstance(parsed, pb.ResignSeatRequest)
                and world.protected_seat(parsed.game_id, parsed.seat_token) is not None):
            return  # garbage that decodes to a legal change of a protected game: not garbage
        code, answer = send(world, method, payload, compressed=big)
        if big:
            assert code in {Code.RESOURCE_EXHAUSTED, *KEY_FIRST.get(method, ())}, \
                (method, code, len(payload))
        check_answer(world, method, parsed, code, answer)
    return case


@pytest.mark.parametrize("method", sorted(METHODS))
def test_garbage_payloads_of_every_method_get_a_documented_status(world: World,
                                                                  method: str) -> None:
    garbage_case(method)(world)


def test_each_string_field_over_64_kib_is_refused_and_under_it_checked(world: World) -> None:
    """Every string field of every request just over the limit, sent as is (uncompressed):
    RESOURCE_EXHAUSTED; just under it: refused by the field checks, never applied."""
    game_id = world.sandboxes["SubmitDecision"].game_id
    for name, method in METHODS.items():
        cls = message_factory.GetMessageClass(method.input_type)
        strings = [f.name for f in method.input_type.fields
                   if f.type == T.TYPE_STRING and not f.is_repeated] or [None]
        for field_name in strings:
            first = KEY_FIRST.get(name, set())
            under = ALLOWED[name] - ({Code.RESOURCE_EXHAUSTED} if not first else set())
            for size, expected in ((LIMIT + 1, {Code.RESOURCE_EXHAUSTED, *first}),
                                   (60 * 1024, under)):
                request = cls()
                if "game_id" in method.input_type.fields_by_name:
                    request.game_id = game_id
                if field_name is None:  # a message without strings: an unknown field
                    payload = varint(1000 << 3 | 2) + varint(size) + b"x" * size
                else:
                    setattr(request, field_name, "x" * size)
                    payload = request.SerializeToString()
                code, _ = send(world, name, payload)
                assert code in expected, (name, field_name, size, code)
                if field_name is not None:
                    assert code != Code.OK, (name, field_name, size)


# -- afterwards --------------------------------------------------------------------------------
def test_after_the_fuzz_the_process_serves_and_no_protected_game_changed(
        world: World) -> None:
    assert world.process.process.poll() is None, "the fuzzed process died"
    stub = health_pb2_grpc.HealthStub(world.channel)
    for name in ("", SERVICE.full_name):
        answer = stub.Check(health_pb2.HealthCheckRequest(service=name), timeout=RPC_TIMEOUT)
        assert answer.status == health_pb2.HealthCheckResponse.SERVING
    assert snapshot(world.client, world.protected) == world.before
    log = b"".join(world.stderr).decode(errors="replace")
    assert "internal error" not in log and "Traceback" not in log, log[-3000:]
