"""The service's logic between the public API and the engine + store (no gRPC here).

Every request is checked in a fixed order (boardgame.io's): well-formed -> game exists
-> seat token -> request already applied -> game accepts decisions -> version fresh ->
decision legal; then one compare-and-set commits it. A refused request raises a
ServiceError before anything is written.
"""

from __future__ import annotations

import contextlib
import hmac
import logging
import re
import secrets
from collections import OrderedDict
from collections.abc import AsyncGenerator, Sequence
from typing import Any

import grpc
import orjson

import games
from curia_api import codec
from curia_api.v1 import game_service_pb2 as pb
from games.core import (
    DecisionError,
    Event,
    GameState,
    NotationError,
    Rng,
    SetupError,
    derive_seed,
    notation,
)
from service.access import AccessPolicy
from service.clock import (
    bank_left,
    charge,
    due_seat,
    game_deadline,
    new_clock,
    start_movers,
    viewer_deadline,
)
from service.errors import (
    ServiceError,
    bad_token,
    from_decision_error,
    invalid,
    not_found,
    precondition,
    rolled_back,
    stale,
)
from service.metrics import (
    DECISIONS_APPLIED,
    GAMES_CREATED,
    GAMES_EXPIRED,
    GAMES_FINISHED,
    TIMEOUTS,
    series,
)
from service.store import (
    GameStore,
    LogEntry,
    StoredGame,
    next_lineage,
    now_ms,
    token_hash,
)
from service.version_feed import Announced
from service.views import build_view

log = logging.getLogger("curia.service")

GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
REQUEST_ID = re.compile(r"[\x21-\x7e]{1,128}")
MAX_TOKEN = 128
MAX_NOTATION = codec.MAX_NOTATION
MAX_DECISION_MS = 3_600_000
#: Longest lineage a request may name (a View.lineage is 16 hexadecimal digits).
MAX_LINEAGE = 64
POLICIES = {pb.TIMEOUT_POLICY_UNSPECIFIED: "random", pb.TIMEOUT_POLICY_RANDOM: "random",
            pb.TIMEOUT_POLICY_FORFEIT: "forfeit"}
POLICY_ENUM = {"random": pb.TIMEOUT_POLICY_RANDOM, "forfeit": pb.TIMEOUT_POLICY_FORFEIT}
CAUSES = {"seat": pb.DECISION_CAUSE_SEAT, "timeout": pb.DECISION_CAUSE_TIMEOUT,
          "forfeited": pb.DECISION_CAUSE_FORFEITED}
#: Server decisions (time-outs, forfeited seats) in a row, with no seat deciding, after
#: which a game is abandoned: nobody is playing it (`curia serve --autoplay-limit`).
DEFAULT_AUTOPLAY_LIMIT = 64
#: Why a game waiting for its players ends when every seat has resigned before the start.
NOBODY_STARTED = "every seat resigned before the game started"


class Diverged(Exception):
    """A commit refused because the game is at its version on another lineage: the
    state it was built on (cached by this process) belongs to a history the store lost."""


def check_game_id(game_id: str) -> None:
    if not GAME_ID.fullmatch(game_id):
        raise invalid("game_id must be 1-64 letters, digits, '-' or '_'")


def check_lineage(name: str, lineage: str) -> None:
    if len(lineage) > MAX_LINEAGE:
        raise invalid(f"{name} is at most {MAX_LINEAGE} characters (a View.lineage)")


def events_json(events: list[Event]) -> str:
    """Events as kept in the log: every event, with who may see it."""
    return orjson.dumps([[e.kind, e.data, list(e.seats) if e.seats is not None else None]
                         for e in events],
                        option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS).decode()


def events_from_json(text: str) -> list[Event]:
    return [Event(kind, data, tuple(seats) if seats is not None else None)
            for kind, data, seats in orjson.loads(text)]


def fallback_decision(state: GameState, seed: int, version: int, seat: int) -> Any:
    """The seeded random decision the server takes for a seat that timed out or forfeited."""
    legal = state.legal_decisions(seat)
    return legal[Rng(derive_seed(seed, "fallback", version)).below(len(legal))]


class StateCache:
    """Engine states by (game id, version, lineage), read-only: the state of a version of
    one history never changes, so entries never go stale (after a rollback the same
    version has another lineage). `fresh()` gives a copy that may be changed."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self.entries: OrderedDict[tuple[str, int, str], GameState] = OrderedDict()

    def get(self, stored: StoredGame) -> GameState:
        key = (stored.game_id, stored.version, stored.lineage)
        state = self.entries.get(key)
        if state is None:
            state = games.load(stored.state)
            self.put(stored, state)
        return state

    def fresh(self, stored: StoredGame) -> GameState:
        state = self.entries.get((stored.game_id, stored.version, stored.lineage))
        return state.clone() if state is not None else games.load(stored.state)

    def take(self, stored: StoredGame) -> GameState:
        """The state at the stored version, for the caller to change: the cached one,
        taken out of the cache (no copy), else a new one from the stored bytes."""
        state = self.entries.pop((stored.game_id, stored.version, stored.lineage), None)
        return state if state is not None else games.load(stored.state)

    def put(self, stored: StoredGame, state: GameState) -> None:
        """Cache `state` as the one at `stored`'s version and lineage."""
        self.entries[(stored.game_id, stored.version, stored.lineage)] = state
        if len(self.entries) > self.size:
            self.entries.popitem(last=False)


class GameCache:
    """The last record of each game this process read or committed (LRU), so that a
    SubmitDecision at that exact version needs no read from Redis: the commit script
    checks the version, the lineage and the status, so an entry gone stale (even one from
    a history the store has since lost) costs a reload or a refusal (ABORTED), never a
    wrong commit. `get` hands out a copy the caller may change."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self.entries: OrderedDict[str, StoredGame] = OrderedDict()

    def get(self, game_id: str) -> StoredGame | None:
        found = self.entries.get(game_id)
        if found is None:
            return None
        self.entries.move_to_end(game_id)
        return found.copy()

    def peek(self, game_id: str) -> StoredGame | None:
        """The cached record itself, not a copy: for a caller that changes nothing."""
        return self.entries.get(game_id)

    def put(self, stored: StoredGame) -> None:
        """Keep `stored` as the game's last record (even at a lower version than the one
        known: after a rollback that is the truth; a read overtaken by a commit only
        costs the next request a reload)."""
        self.entries[stored.game_id] = stored.copy()
        self.entries.move_to_end(stored.game_id)
        if len(self.entries) > self.size:
            self.entries.popitem(last=False)

    def forget(self, game_id: str) -> None:
        self.entries.pop(game_id, None)



class SeatMemo:
    """The seat each token checked last belongs to, with the hash it was matched on: a
    stream's next request is checked by one comparison with the game's hash of that seat
    instead of hashing the token again (a game whose seat has another hash since, after a
    rollback lost a join, is searched afresh)."""

    def __init__(self, size: int = 16_384) -> None:
        self.size = size
        self.entries: dict[tuple[str, str], tuple[int, str]] = {}

    def get(self, game_id: str, token: str) -> tuple[int, str] | None:
        return self.entries.get((game_id, token))

    def put(self, game_id: str, token: str, seat: int, hashed: str) -> None:
        if len(self.entries) >= self.size:
            self.entries.clear()  # a rare reset: the next checks hash again
        self.entries[(game_id, token)] = (seat, hashed)


def check_players(players: Sequence[str], seats: int) -> None:
    """CreateGameRequest.players: none, or one public name per seat (INVALID_ARGUMENT)."""
    if players and (len(players) != seats or any(
            not 1 <= len(name) <= 64 or not name.isprintable() for name in players)):
        raise invalid(f"players: none, or one name per seat ({seats}), each 1-64 "
                      f"printable characters")

class GameKeeper:
    """Serves the public API's requests on top of a GameStore."""

    def __init__(self, store: GameStore, access: AccessPolicy | None = None,
                 autoplay_limit: int = DEFAULT_AUTOPLAY_LIMIT) -> None:
        self.store = store
        self.access = access or AccessPolicy()
        self.autoplay_limit = autoplay_limit
        self.states = StateCache()
        self.games = GameCache()
        self.seats = SeatMemo()

    # -- catalogue and creation -------------------------------------------------------
    def list_games(self) -> pb.ListGamesResponse:
        response = pb.ListGamesResponse()
        for game in games.GAMES.values():
            response.games.add(
                name=game.name, title=game.title, simultaneous=game.simultaneous,
                private_information=game.private_information,
                variants=[pb.VariantDescription(name=v.name, min_seats=v.min_seats,
                                                max_seats=v.max_seats,
                                                description=v.description)
                          for v in game.variants],
                options=[pb.OptionDescription(name=o.name, description=o.description,
                                              default_value=o.default, min_value=o.minimum,
                                              max_value=o.maximum)
                         for o in game.options])
        return response

    async def create(self, request: pb.CreateGameRequest) -> pb.CreateGameResponse:
        seats = request.num_seats
        if (len(request.game) > 64 or len(request.variant) > 64 or len(request.options) > 16
                or any(len(name) > 64 for name in request.options)):
            raise invalid("game, variant and option names are at most 64 characters; "
                          "at most 16 options")
        check_players(request.players, seats)
        open_seats = set(request.open_seats)
        if len(open_seats) != len(request.open_seats) or any(s >= seats for s in open_seats):
            raise invalid(f"open_seats must be distinct seats below num_seats={seats}")
        decision_ms = request.time_control.decision_ms
        bank_ms = request.time_control.bank_ms
        if (decision_ms > MAX_DECISION_MS or bank_ms > 24 * MAX_DECISION_MS
                or request.time_control.on_timeout not in POLICIES):
            raise invalid("time_control: decision_ms at most 3600000, bank_ms at most "
                          "86400000, and a known policy")
        seed = request.seed if request.HasField("seed") else secrets.randbits(63)
        try:
            state = games.new_game(request.game, request.variant, seats,
                                   dict(request.options), seed)
        except SetupError as error:
            raise invalid(str(error)) from None
        game_id = secrets.token_hex(16)
        cap = self.access.max_live_games
        if cap and not await self.store.reserve_live(game_id, cap):
            raise self.access.live_games_full()
        tokens = {s: secrets.token_urlsafe(32) for s in range(seats) if s not in open_seats}
        meta: dict[str, Any] = {
                "game": request.game, "variant": state.variant, "num_seats": seats,
                "options": state.options, "seed": seed, "seat_names": state.seat_names(),
                "decision_ms": decision_ms, "bank_ms": bank_ms,
                "forfeit_on_illegal": request.forfeit_on_illegal,
                "policy": POLICIES[request.time_control.on_timeout],
                "created_ms": now_ms(), "start_events": events_json(state.events),
                "wait_for_players": request.wait_for_players,
                **({"players": list(request.players)} if request.players else {})}
        waiting = bool(open_seats) or request.wait_for_players
        status = "waiting" if waiting else "in_progress"
        now = now_ms()
        clock = start_movers(new_clock(meta, now), state.to_move(), now)
        deadline = game_deadline(meta, clock, state.to_move()) if not waiting else 0
        try:
            await self.store.create(game_id, meta, state.to_bytes(), status,
                                    {s: token_hash(t) for s, t in tokens.items()}, deadline,
                                    clock)
        except BaseException:
            if cap:  # give the reserved place back, unless the create ran and only its
                # reply was lost; where Redis cannot say, the sweeper drops the entries of a
                # game that does not exist
                with contextlib.suppress(Exception):
                    if not await self.store.exists(game_id):
                        await self.store.forget(game_id)
            raise
        GAMES_CREATED.labels(request.game).inc()
        log.info("game created", extra={"game_id": game_id, "game": request.game,
                                        "variant": state.variant, "seats": seats})
        names = state.seat_names()
        return pb.CreateGameResponse(game_id=game_id, version=0, seats=[
            pb.SeatCredential(seat=s, token=t, name=names[s]) for s, t in tokens.items()])

    async def join(self, request: pb.JoinGameRequest) -> pb.JoinGameResponse:
        stored = await self.load(request.game_id)
        seats = stored.meta["num_seats"]
        open_seats = [s for s in range(seats) if s not in stored.token_hashes]
        if request.HasField("seat"):
            if request.seat >= seats:
                raise invalid(f"seat must be below {seats}")
            seat = request.seat
        elif open_seats:
            seat = open_seats[0]
        else:
            raise ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, "no_open_seat",
                               "this game has no open seat left")
        token = secrets.token_urlsafe(32)
        deadline, clock = self._start_clock(stored)
        outcome = await self.store.join(stored.game_id, seat, token_hash(token), deadline,
                                        clock)
        if outcome == "taken":
            raise ServiceError(grpc.StatusCode.ALREADY_EXISTS, "seat_taken",
                               f"seat {seat} is already taken")
        if outcome == "missing":
            raise not_found(stored.game_id)
        return pb.JoinGameResponse(seat=pb.SeatCredential(
            seat=seat, token=token, name=stored.meta["seat_names"][seat]))

    def _start_clock(self, stored: StoredGame) -> tuple[int, dict[str, Any]]:
        """The deadline and clock of a waiting game were it to start now."""
        now = now_ms()
        movers = self.states.get(stored).to_move()  # none once the game is over
        clock = start_movers(new_clock(stored.meta, now), movers, now)
        return game_deadline(stored.meta, clock, movers), clock

    async def _contact(self, stored: StoredGame, seat: int | None) -> StoredGame:
        """A seat's first authenticated call to a game waiting for its players marks it
        present (once: later calls cost nothing); the last seat awaited starts the game.
        The game as it stands after."""
        if (seat is None or stored.status != "waiting" or seat in stored.present
                or not stored.meta.get("wait_for_players")):
            return stored
        deadline, clock = self._start_clock(stored)
        outcome = await self.store.contact(stored.game_id, seat, deadline, clock)
        if outcome in ("present", "known"):
            stored.present = stored.present | {seat}
            return stored
        if outcome == "started":
            log.info("game started", extra={"game_id": stored.game_id, "seat": seat})
            return await self._after_start(stored.game_id)
        return await self.load(stored.game_id)  # started or ended meanwhile

    async def _after_start(self, game_id: str) -> StoredGame:
        """A game just started (or ended before its start): the server decides at once for
        a forfeited first mover."""
        fresh = await self.load(game_id)
        state = self.states.get(fresh)
        if (fresh.status == "in_progress" and not state.is_over
                and state.to_move()[0] in fresh.forfeits):
            await self._autoplay(fresh, self.states.fresh(fresh), None)
            fresh = await self.load(game_id)
        return fresh

    # -- reading --------------------------------------------------------------------------
    async def load(self, game_id: str) -> StoredGame:
        check_game_id(game_id)
        stored = await self.store.load(game_id)
        if stored is None:
            raise not_found(game_id)
        self.games.put(stored)
        return stored

    async def _game_to_decide(self, request: pb.SubmitDecisionRequest) -> StoredGame:
        """The game a decision is for: from the cache when it is there at the request's
        version (and lineage, if the request names one) and in progress (no Redis read),
        else from Redis."""
        check_game_id(request.game_id)
        cached = self.games.get(request.game_id)
        if (cached is not None and cached.status == "in_progress"
                and cached.version == request.expected_version
                and request.expected_lineage in ("", cached.lineage)):
            return cached
        return await self.load(request.game_id)

    def seat_of(self, stored: StoredGame, token: str, *, required: bool) -> int | None:
        """The seat a token belongs to (constant-time compare); None for a spectator."""
        if not token:
            if required:
                raise ServiceError(grpc.StatusCode.UNAUTHENTICATED, "unauthenticated",
                                   "a seat token is required")
            return None
        if len(token) > MAX_TOKEN:
            raise bad_token()
        known = self.seats.get(stored.game_id, token)
        if known is not None and hmac.compare_digest(
                known[1], stored.token_hashes.get(known[0], "")):
            return known[0]
        hashed = token_hash(token)
        found = None
        for seat, expected in stored.token_hashes.items():
            if hmac.compare_digest(hashed, expected):
                found = seat
        if found is None:
            raise bad_token()
        self.seats.put(stored.game_id, token, found, hashed)
        return found

    async def view(self, request: pb.GetViewRequest) -> pb.GetViewResponse:
        stored = await self.load(request.game_id)
        seat = self.seat_of(stored, request.seat_token, required=False)
        stored = await self._contact(stored, seat)
        return pb.GetViewResponse(view=self._view(stored, self.states.get(stored), seat,
                                                  request.observation_encoding,
                                                  drawn=request.draw_board))

    async def seat_moment(self, game_id: str, token: str, encoding: int,
                          announced: Announced | None = None
                          ) -> tuple[int, str, pb.View | None]:
        """The game's version and lineage, and the seat's view only if the seat must
        decide, the game is over or it waits for seats (the Play stream's look: no view
        built for nothing).
        When the version feed `announced` the (version, lineage) this process committed
        last, its cached record is that version: no read from Redis."""
        cached = self.games.peek(game_id) if announced is not None else None
        if cached is not None and announced is not None \
                and (cached.version, cached.lineage) == announced[:2] \
                and cached.status != "waiting":  # (a seat's contact changes a waiting one)
            stored = cached
        else:
            stored = await self.load(game_id)
        seat = self.seat_of(stored, token, required=True)
        stored = await self._contact(stored, seat)
        state = self.states.get(stored)
        needed = (stored.status != "in_progress" or stored.ended  # over, or waiting
                  or seat in state.to_move())
        view = self._view(stored, state, seat, encoding) if needed else None
        return stored.version, stored.lineage, view

    def _view(self, stored: StoredGame, state: GameState, seat: int | None,
              encoding: int = pb.OBSERVATION_ENCODING_UNSPECIFIED, *,
              drawn: bool = False) -> pb.View:
        movers = state.to_move()
        deadline = (viewer_deadline(stored.meta, stored.clock, movers, seat)
                    if stored.deadline else 0)
        return build_view(stored.game_id, stored.meta, state, stored.version, stored.status,
                          seat, deadline, stored.forfeits,
                          bank_left(stored.clock, seat, movers, now_ms()), stored.ended,
                          encoding, absent_seats(stored), stored.lineage, drawn)

    async def record(self, request: pb.GetGameRecordRequest) -> pb.GetGameRecordResponse:
        stored = await self.load(request.game_id)
        if stored.status != "finished":
            raise precondition("in_progress", "the record is public once the game is over")
        entries = await self.store.log(stored.game_id)
        state = self.states.get(stored)
        meta = stored.meta
        record = pb.GameRecord(
            game_id=stored.game_id, game=meta["game"], variant=meta["variant"],
            num_seats=meta["num_seats"], options=meta["options"], seed=meta["seed"],
            seat_names=meta["seat_names"], players=meta.get("players", []),
            time_control=pb.TimeControl(decision_ms=meta["decision_ms"],
                                        bank_ms=meta.get("bank_ms", 0),
                                        on_timeout=POLICY_ENUM[meta["policy"]]),
            result=build_view(stored.game_id, meta, state, stored.version, stored.status,
                              None, 0, stored.forfeits, ended=stored.ended).result,
            decisions=[pb.RecordedDecision(version=e.version, seat=e.seat,
                                           notation=e.notation, cause=CAUSES[e.cause],
                                           unix_ms=e.ms) for e in entries])
        record.events.extend(codec.events_to_proto(
            0, events_from_json(meta["start_events"]), None, reveal_all=True))
        for entry, events in zip(entries, entry_events(meta, entries), strict=True):
            record.events.extend(codec.events_to_proto(
                entry.version, events, None, reveal_all=True))
        return pb.GetGameRecordResponse(record=record)

    # -- deciding -------------------------------------------------------------------------
    async def submit(self, request: pb.SubmitDecisionRequest, *, bare: bool = False
                     ) -> pb.SubmitDecisionResponse:
        """Apply a seat's decision; `bare`: the reply of an applied decision carries its
        version only (no events, no view: the Play stream's acknowledgement)."""
        check_lineage("expected_lineage", request.expected_lineage)
        stored = await self._game_to_decide(request)
        try:
            return await self._submit(stored, request, bare=bare)
        except Diverged:  # the state it was built on was lost: once more, from Redis
            return await self._submit(await self.load(request.game_id), request,
                                      last_try=True, bare=bare)

    async def _submit(self, stored: StoredGame, request: pb.SubmitDecisionRequest, *,
                      last_try: bool = False, bare: bool = False
                      ) -> pb.SubmitDecisionResponse:
        seat = self.seat_of(stored, request.seat_token, required=True)
        assert seat is not None
        stored = await self._contact(stored, seat)
        if not REQUEST_ID.fullmatch(request.request_id):
            raise invalid("request_id must be 1-128 printable ASCII characters")
        fresh_request = (stored.status == "in_progress"
                         and request.expected_version == stored.version)
        if not fresh_request:  # perhaps a retry of a decision already applied
            done = await self.store.request_version(stored.game_id, seat, request.request_id)
            if done is not None:
                return await self._duplicate(stored, seat, done, request)
        # (at the current version a request cannot have been applied yet: the commit
        # script still checks, so concurrent duplicates apply once)
        if stored.status == "waiting":
            raise precondition("waiting_for_seats", "the game is waiting for open seats"
                               if stored.meta["num_seats"] > len(stored.token_hashes) else
                               "the game is waiting for every seat to make contact")
        if stored.status == "finished":
            raise precondition("game_over", "the game is over")
        if request.expected_version != stored.version:
            raise stale(request.expected_version, stored.version)
        if request.expected_lineage and request.expected_lineage != stored.lineage:
            raise rolled_back(request.expected_version)
        if stored.deadline and now_ms() > stored.deadline and \
                now_ms() > viewer_deadline(stored.meta, stored.clock, (seat,), seat):
            raise precondition("time_up", "the time for this decision is up; the timeout "
                                          "policy applies")
        state = self.states.take(stored)  # applying changes it: no longer the cached one
        try:
            if len(request.decision.notation) > MAX_NOTATION:
                raise NotationError(f"a decision's notation is at most {MAX_NOTATION} "
                                    f"characters")
            decision = codec.decision_from_proto(state, request.decision)
            events = state.apply(seat, decision)
        except DecisionError as error:
            # a refused decision leaves the state as it was (the engine's contract)
            self.states.put(stored, state)
            refusal = from_decision_error(error)
            if stored.meta.get("forfeit_on_illegal") and refusal.reason in (
                    "illegal", "invalid_argument") and seat in state.to_move():
                await self._forfeit(stored, seat, "illegal")
                refusal.message += "; the seat forfeits (forfeit_on_illegal)"
                refusal.reason = "forfeit_on_illegal"
            raise refusal from None
        committed = await self._commit(stored, state, seat, decision, events, "seat",
                                       f"{seat}:{request.request_id}")
        if committed.outcome == "duplicate":
            return await self._duplicate(stored, seat, committed.version, request)
        if committed.outcome == "diverged" and not last_try:
            raise Diverged
        if committed.outcome in ("stale", "diverged"):
            raise stale(request.expected_version, committed.version)
        if committed.outcome == "not_in_progress":
            raise precondition("game_over", "the game is over")
        if committed.outcome == "missing":
            raise not_found(stored.game_id)
        stored.version = committed.version
        if bare:
            await self._autoplay(stored, state, seat, with_view=False)
            return pb.SubmitDecisionResponse(version=committed.version)
        view = await self._autoplay(stored, state, seat, request.observation_encoding)
        return pb.SubmitDecisionResponse(
            version=committed.version, events=codec.events_to_proto(
                committed.version, events, seat), view=view, duplicate=False)

    async def _commit(self, stored: StoredGame, state: GameState, seat: int, decision: Any,
                      events: list[Event], cause: str, request_key: str,
                      new_forfeits: dict[int, str] | None = None) -> Any:
        status = "finished" if state.is_over else "in_progress"
        now = now_ms()
        clock = charge(stored.clock, seat if cause != "forfeited" else None, now,
                       state.to_move())
        deadline = game_deadline(stored.meta, clock, state.to_move())
        data = state.to_bytes()
        written = notation(decision)
        lineage = next_lineage(stored.chain, stored.lineage, seat, written, cause)
        committed = await self.store.commit(
            stored.game_id, stored.version, data, request_key=request_key,
            status=status, deadline=deadline, new_forfeits=new_forfeits or {}, clock=clock,
            seat=seat, notation=written, cause=cause, events=events_json(events),
            expected_lineage=stored.lineage, lineage=lineage,
            movers=() if state.is_over else tuple(state.to_move()))
        if committed.outcome != "ok":
            self.games.forget(stored.game_id)  # the next request reads the game anew
        else:
            stored.version, stored.state, stored.lineage = committed.version, data, lineage
            self.states.put(stored, state)
            stored.status, stored.deadline, stored.clock = status, deadline, clock
            stored.autoplay = 0 if cause == "seat" else stored.autoplay + 1
            if cause == "seat":
                stored.active_ms = now
            stored.forfeits = (committed.forfeits if committed.forfeits is not None
                               else {**stored.forfeits, **(new_forfeits or {})})
            self.games.put(stored)
            series(DECISIONS_APPLIED, state.game, cause).inc()
            log.debug("decision applied", extra={
                "game_id": stored.game_id, "version": committed.version, "seat": seat,
                "cause": cause, "request_id": request_key.partition(":")[2]})
            if status == "finished":
                GAMES_FINISHED.labels(state.game).inc()
                log.info("game finished", extra={"game_id": stored.game_id,
                                                 "version": committed.version})
                await self._compact(stored.game_id, committed.version)
        return committed

    async def _compact(self, game_id: str, version: int) -> None:
        """Keep a finished game as its compact record (GameStore.compact); a failure leaves
        the full log, which serves as well."""
        try:
            await self.store.compact(game_id, version)
        except Exception as error:  # the game is finished either way
            log.warning("compacting a finished game failed", extra={
                "game_id": game_id, "error": f"{type(error).__name__}: {error}"})

    async def _autoplay(self, stored: StoredGame, state: GameState, seat: int | None,
                        encoding: int = pb.OBSERVATION_ENCODING_UNSPECIFIED, *,
                        with_view: bool = True) -> pb.View:
        """Decide at random for forfeited seats until a live seat must decide (or the
        autoplay limit abandons the game); the seat's view then (an empty one when not
        `with_view`)."""
        while not state.is_over and state.to_move()[0] in stored.forfeits:
            if self._autoplay_exhausted(stored):
                await self._abandon(stored, self._autoplay_reason())
                break
            mover = state.to_move()[0]
            state = state.clone()  # the committed state is cached: never change it
            decision = fallback_decision(state, stored.meta["seed"], stored.version, mover)
            events = state.apply(mover, decision)
            committed = await self._commit(stored, state, mover, decision, events,
                                           "forfeited", f"{mover}:auto:{stored.version}")
            if committed.outcome != "ok":  # another server got there first
                fresh = await self.load(stored.game_id)
                stored, state = fresh, self.states.get(fresh)
                break
            stored.version = committed.version
        return self._view(stored, state, seat, encoding) if with_view else pb.View()

    async def _duplicate(self, stored: StoredGame, seat: int, version: int,
                         request: pb.SubmitDecisionRequest) -> pb.SubmitDecisionResponse:
        """The first outcome of a request id; nothing is applied again. The same request
        id with another decision is refused: that decision was not applied."""
        game_id = stored.game_id
        entries = await self.store.log(game_id, version - 1, version)
        if entries and not _same_decision(self.states.get(stored), entries[0].notation,
                                          request.decision):
            raise ServiceError(grpc.StatusCode.ALREADY_EXISTS, "request_id_reused",
                               f"this request_id was used for another decision, applied "
                               f"at version {version}; this decision was not applied "
                               f"(use a new request_id for each decision)")
        events: list[Event] = []
        if entries and entries[0].events:
            events = events_from_json(entries[0].events)
        elif entries:  # a compact record: replay to that version
            events = entry_events(stored.meta, await self.store.log(game_id, 0, version))[-1]
        stored = await self.load(game_id)
        view = self._view(stored, self.states.get(stored), seat, request.observation_encoding)
        return pb.SubmitDecisionResponse(version=version, duplicate=True, view=view,
                                         events=codec.events_to_proto(version, events, seat))

    async def sweep_timeouts(self) -> int:
        """Every game the index says is due: apply the timeout policy where a decision's
        deadline has passed, end games idle too long (waiting ones are deleted, started
        ones abandoned). Returns how many games were handled."""
        handled = 0
        now = now_ms()
        for game_id in await self.store.due(now):
            stored = await self.store.load(game_id)
            if stored is None or stored.status == "finished":
                await self.store.forget(game_id)
                continue
            handled += await self._sweep_one(stored, now)
        return handled

    async def _sweep_one(self, stored: StoredGame, now: int) -> int:
        idle_since = now - stored.active_ms >= self.store.idle_ttl * 1000
        if stored.status == "waiting":
            if not idle_since:
                await self.store.schedule(stored.game_id, self.store.next_look(0, stored.active_ms))
                return 0
            return await self._expire_waiting(stored)
        if idle_since:
            return await self._abandon(stored, f"abandoned: no seat decided for "
                                              f"{self.store.idle_ttl} s")
        if not stored.deadline or stored.deadline > now:  # the index was behind
            await self.store.schedule(stored.game_id,
                                      self.store.next_look(stored.deadline, stored.active_ms))
            return 0
        return await self._time_out(stored)

    async def _expire_waiting(self, stored: StoredGame) -> int:
        if not await self.store.expire_waiting(stored.game_id):
            return 0
        GAMES_EXPIRED.labels("waiting").inc()
        log.info("waiting game expired", extra={"game_id": stored.game_id})
        return 1

    async def _abandon(self, stored: StoredGame, reason: str) -> int:
        """End a game nobody plays, without a result (its view says why)."""
        if not await self.store.abandon(stored.game_id, stored.version, reason,
                                        stored.lineage):
            return 0
        stored.status, stored.ended = "finished", reason
        GAMES_EXPIRED.labels("in_progress").inc()
        log.info("game abandoned", extra={"game_id": stored.game_id, "reason": reason,
                                          "version": stored.version})
        return 1

    def _autoplay_exhausted(self, stored: StoredGame) -> bool:
        return stored.autoplay >= self.autoplay_limit

    def _autoplay_reason(self) -> str:
        return (f"abandoned: {self.autoplay_limit} decisions in a row were the server's "
                f"(time-outs, forfeited seats)")

    async def _time_out(self, stored: StoredGame) -> int:
        if self._autoplay_exhausted(stored):
            return await self._abandon(stored, self._autoplay_reason())
        state = self.states.fresh(stored)
        seat = due_seat(stored.meta, stored.clock, state.to_move())
        policy = stored.meta["policy"]
        forfeit = {seat: "timeout"} if policy == "forfeit" else {}
        decision = fallback_decision(state, stored.meta["seed"], stored.version, seat)
        events = state.apply(seat, decision)
        committed = await self._commit(stored, state, seat, decision, events, "timeout",
                                       f"{seat}:timeout:{stored.version}", forfeit)
        if committed.outcome != "ok":
            return 0
        TIMEOUTS.labels(policy).inc()
        log.info("decision timed out", extra={"game_id": stored.game_id, "seat": seat,
                                              "policy": policy})
        stored.version = committed.version
        await self._autoplay(stored, state, None)
        return 1

    async def resign(self, request: pb.ResignSeatRequest) -> pb.ResignSeatResponse:
        """The seat forfeits; the server decides for it from now on."""
        stored = await self.load(request.game_id)
        seat = self.seat_of(stored, request.seat_token, required=True)
        assert seat is not None
        if len(request.reason) > MAX_NOTATION:
            raise invalid(f"reason is at most {MAX_NOTATION} characters")
        before_start = stored.status == "waiting" and stored.meta.get("wait_for_players")
        if stored.status != "in_progress" and not before_start:
            raise precondition("not_in_progress", f"the game is {stored.status}")
        view = await self._forfeit(stored, seat, request.reason or "resigned")
        return pb.ResignSeatResponse(version=view.version, view=view)

    async def _forfeit(self, stored: StoredGame, seat: int, reason: str) -> pb.View:
        """Record a forfeit, then decide for the seat if it is to move. In a game waiting
        for its players the seat is no longer awaited: the last one starts the game, or
        ends it without a result if every seat has resigned."""
        deadline, clock = self._start_clock(stored)
        done = await self.store.forfeit(stored.game_id, seat, reason, deadline=deadline,
                                        clock=clock, ended=NOBODY_STARTED)
        if done is None:
            raise precondition("not_in_progress", "the game is not in progress")
        log.info("seat forfeits", extra={"game_id": stored.game_id, "seat": seat,
                                         "reason": reason, "outcome": done.outcome})
        if done.outcome != "forfeited" or stored.status == "waiting":
            fresh = await self._after_start(stored.game_id)  # started, ended or waiting
            return self._view(fresh, self.states.get(fresh), seat)
        fresh = await self.load(stored.game_id)
        return await self._autoplay(fresh, self.states.fresh(fresh), seat)

    # -- watching -------------------------------------------------------------------------
    async def watch(self, request: pb.WatchGameRequest
                    ) -> AsyncGenerator[pb.WatchGameResponse, None]:
        """The view at `after_version`, then one message per later version, to the end.
        Should the store roll back under the stream (the game goes on from an earlier
        version, on another lineage), the stream goes on from the game's current version,
        that message marked `rolled_back`."""
        check_lineage("after_lineage", request.after_lineage)
        stored = await self.load(request.game_id)
        seat = self.seat_of(stored, request.seat_token, required=False)
        stored = await self._contact(stored, seat)
        version = request.after_version
        rolled = bool(request.after_lineage) and await self._lost(stored, version,
                                                                  request.after_lineage)
        if rolled:
            version = stored.version
        elif version > stored.version:
            raise ServiceError(grpc.StatusCode.OUT_OF_RANGE, "future_version",
                               f"after_version {version} is beyond the game's version "
                               f"{stored.version} (if it was seen, the store has rolled "
                               f"back: pass after_lineage, or read the view, to go on from "
                               f"the current version)")
        encoding, drawn = request.observation_encoding, request.draw_board
        state, view = await self._view_at(stored, version, seat, encoding, drawn)
        yield pb.WatchGameResponse(version=version, view=view, rolled_back=rolled)
        lineage = view.lineage
        over = stored.status == "finished"  # its log may be a compact record: no waiting
        ended = version == stored.version and stored.ended
        while not state.is_over and not ended:
            entries = await (self.store.log(stored.game_id, version) if over
                             else self.store.wait_log(stored.game_id, version))
            diverged = bool(entries and entries[0].parent and lineage
                            and entries[0].parent != lineage)
            if not entries or diverged:
                latest = await self.store.load(stored.game_id)
                if latest is None:
                    return  # the game expired
                if diverged or _behind(latest, version, lineage):
                    stored, version = latest, latest.version
                    state, view = await self._view_at(latest, version, seat, encoding,
                                                      drawn)
                    yield pb.WatchGameResponse(version=version, view=view, rolled_back=True)
                    lineage, over, ended = view.lineage, latest.status == "finished", \
                        latest.ended
                    continue
                if latest.ended and latest.version == version:  # ended by the server
                    yield pb.WatchGameResponse(version=version, view=self._view(
                        latest, state, seat, encoding, drawn=drawn))
                    return
                if over:
                    return  # nothing more will come
                over = latest.status == "finished"
            for entry in entries:
                decision = state.parse(entry.notation)
                seen_by = state.decision_seen_by(entry.seat, decision)
                secret = seen_by is not None and seat not in seen_by
                events = state.apply_unchecked(entry.seat, decision)  # checked when made
                version, lineage = entry.version, entry.lineage
                yield pb.WatchGameResponse(
                    version=version, events=codec.events_to_proto(version, events, seat),
                    decision=pb.RecordedDecision(version=version, seat=entry.seat,
                                                 notation="" if secret else entry.notation,
                                                 secret=secret, cause=CAUSES[entry.cause],
                                                 unix_ms=entry.ms),
                    view=build_view(stored.game_id, stored.meta, state, version,
                                    _status(state, "in_progress"), seat, entry.deadline,
                                    entry.forfeits,
                                    bank_left(entry.clock, seat, state.to_move(), now_ms()),
                                    encoding=encoding, lineage=lineage, drawn=drawn))

    async def _lost(self, stored: StoredGame, version: int, lineage: str) -> bool:
        """Whether `version` of `lineage` is no longer in the game's history (the store
        rolled back): the game is behind it, or on another lineage there."""
        if version > stored.version:
            return True
        if version == stored.version:
            return stored.lineage != lineage
        if version == 0:
            return False  # before the first decision every history is one
        entries = await self.store.log(stored.game_id, version - 1, version)
        known = entries[0].lineage if entries else ""
        return bool(known) and known != lineage

    async def _view_at(self, stored: StoredGame, version: int, seat: int | None,
                       encoding: int, drawn: bool = False) -> tuple[GameState, pb.View]:
        """The game's state at `version` and the viewer's view of it."""
        state, deadline, forfeits, clock, lineage = await self._state_at(stored, version)
        current = version == stored.version
        status = _status(state, stored.status if current else "in_progress")
        return state, build_view(
            stored.game_id, stored.meta, state, version, status, seat, deadline, forfeits,
            bank_left(clock, seat, state.to_move(), now_ms()), stored.ended if current else "",
            encoding, absent_seats(stored) if current else (), lineage, drawn)

    async def _state_at(self, stored: StoredGame, version: int
                        ) -> tuple[GameState, int, dict[int, str], dict[str, Any], str]:
        """The game at `version`: the stored state, or a replay of its log from the seed;
        with its deadline, forfeits, clock and lineage."""
        if version == stored.version:
            return (games.load(stored.state), stored.deadline, stored.forfeits, stored.clock,
                    stored.lineage)
        meta = stored.meta
        state = games.new_game(meta["game"], meta["variant"], meta["num_seats"],
                               meta["options"], meta["seed"])
        entries: list[LogEntry] = await self.store.log(stored.game_id, 0, version)
        for entry in entries:
            state.apply_unchecked(entry.seat, state.parse(entry.notation))
        if not entries:
            return state, 0, {}, new_clock(meta, meta["created_ms"]), ""
        last = entries[-1]
        return state, last.deadline, last.forfeits, last.clock, last.lineage


def _behind(latest: StoredGame, version: int, lineage: str) -> bool:
    """Whether the game, as just read, has lost the version a stream is at: it is behind
    it, or at it on another lineage (the store rolled back)."""
    return latest.version < version or (
        latest.version == version and bool(lineage) and latest.lineage != lineage)


def absent_seats(stored: StoredGame) -> list[int]:
    """The seats a waiting game waits for: open ones and, in a game waiting for its
    players, those neither in contact nor resigned; none once it has started."""
    if stored.status != "waiting":
        return []
    awaited = stored.meta.get("wait_for_players")
    return [seat for seat in range(stored.meta["num_seats"])
            if seat not in stored.token_hashes
            or (awaited and seat not in stored.present and seat not in stored.forfeits)]


def entry_events(meta: dict[str, Any], entries: list[LogEntry]) -> list[list[Event]]:
    """Each log entry's events: as logged, or, for the entries of a compact record (which
    keeps no events), by replaying the game from its seed (the engine is deterministic;
    `entries` must then start at version 1)."""
    if all(entry.events for entry in entries):
        return [events_from_json(entry.events) for entry in entries]
    state = games.new_game(meta["game"], meta["variant"], meta["num_seats"], meta["options"],
                           meta["seed"])
    return [state.apply_unchecked(entry.seat, state.parse(entry.notation))
            for entry in entries]


def _same_decision(state: GameState, applied: str, message: pb.Decision) -> bool:
    """Whether `message` is the decision whose notation was applied."""
    try:
        return notation(codec.decision_from_proto(state, message)) == applied
    except DecisionError:
        return False


def _status(state: GameState, otherwise: str) -> str:
    return "finished" if state.is_over else otherwise
