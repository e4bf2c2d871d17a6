"""A small synchronous Python client of curia.v1.GameService, for bots, tools and tests.

    client = CuriaClient("localhost:50051")
    game = client.create_game(GAME, VARIANT, 3, seed=7)
    view = client.view(game.game_id, game.seats[0].token)
    client.submit(game.game_id, game.seats[0].token, view.version,
                  view.legal_decisions[0].notation)
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

import grpc

from client.channels import ClientSecurity, open_channel
from curia_api.codec import MAX_NOTATION
from curia_api.metadata import REASON_KEY
from curia_api.v1 import game_service_pb2 as pb
from curia_api.v1 import game_service_pb2_grpc as pb_grpc

#: The default ObservationEncoding: both the typed observation and its JSON.
BOTH = pb.OBSERVATION_ENCODING_UNSPECIFIED


class Resigns(Protocol):
    """A client that can resign a seat (CuriaClient, client.retry.RetryingClient)."""

    def resign(self, game_id: str, token: str, reason: str = "") -> Any: ...


def resign(client: Resigns, game_id: str, token: str, reason: str) -> bool:
    """Resign a seat, the reason cut to the service's limit; False if the game did not let
    it (it may have ended, or the stdio bridge may have resigned it already)."""
    try:
        client.resign(game_id, token, reason[:MAX_NOTATION])
    except grpc.RpcError:
        return False
    return True


def refusal_reason(error: grpc.RpcError) -> str:
    """The server's reason for a refused call ("illegal", "stale_version", ...), or ""."""
    metadata = getattr(error, "trailing_metadata", lambda: None)() or ()
    return next((str(value) for key, value in metadata if key == REASON_KEY), "")


class CuriaClient:
    """One channel to a Curia server; every call is one RPC. TLS and the operator
    credential come from `security` (default: the environment, see client.channels)."""

    def __init__(self, target: str, timeout: float = 30.0,
                 security: ClientSecurity | None = None) -> None:
        self.target = target
        self.timeout = timeout
        self.security = ClientSecurity.from_env() if security is None else security
        self.channel = open_channel(target, self.security)
        self.stub = pb_grpc.GameServiceStub(self.channel)  # type: ignore[no-untyped-call]

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> CuriaClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def wait_ready(self, timeout: float = 10.0) -> None:
        grpc.channel_ready_future(self.channel).result(timeout=timeout)

    def list_games(self) -> pb.ListGamesResponse:
        return self.stub.ListGames(pb.ListGamesRequest(), timeout=self.timeout)

    def create_game(self, game: str, variant: str, num_seats: int, *,
                    options: dict[str, int] | None = None, seed: int | None = None,
                    open_seats: tuple[int, ...] = (), decision_ms: int = 0,
                    bank_ms: int = 0, on_timeout: str = "random",
                    forfeit_on_illegal: bool = False,
                    wait_for_players: bool = False,
                    players: Sequence[str] = ()) -> pb.CreateGameResponse:
        """A new game; `wait_for_players`: it starts once every seat has made contact
        (CreateGameRequest.wait_for_players); `players`: who plays each seat (public)."""
        request = pb.CreateGameRequest(
            game=game, variant=variant, num_seats=num_seats, options=options or {},
            open_seats=list(open_seats), forfeit_on_illegal=forfeit_on_illegal,
            wait_for_players=wait_for_players, players=list(players),
            time_control=pb.TimeControl(
                decision_ms=decision_ms, bank_ms=bank_ms,
                on_timeout=pb.TIMEOUT_POLICY_FORFEIT if on_timeout == "forfeit"
                else pb.TIMEOUT_POLICY_RANDOM))
        if seed is not None:
            request.seed = seed
        return self.stub.CreateGame(request, timeout=self.timeout,
                                    metadata=self.security.admin_metadata())

    def join(self, game_id: str, seat: int | None = None) -> pb.SeatCredential:
        request = pb.JoinGameRequest(game_id=game_id)
        if seat is not None:
            request.seat = seat
        return self.stub.JoinGame(request, timeout=self.timeout).seat

    def view(self, game_id: str, token: str = "",
             encoding: pb.ObservationEncoding = BOTH, *, draw_board: bool = False
             ) -> pb.View:
        """A seat's view (token) or the spectator's; `encoding`: the observation's
        encodings (an ObservationEncoding; default both); `draw_board`: with the
        observation drawn (`View.board_svg`)."""
        return self.stub.GetView(pb.GetViewRequest(game_id=game_id, seat_token=token,
                                                   observation_encoding=encoding,
                                                   draw_board=draw_board),
                                 timeout=self.timeout).view

    def submit(self, game_id: str, token: str, version: int, decision: str | pb.Decision,
               request_id: str | None = None,
               encoding: pb.ObservationEncoding = BOTH,
               lineage: str = "") -> pb.SubmitDecisionResponse:
        """Submit a decision (text notation or a typed Decision); safe to retry with the
        same request_id. `lineage`: the View.lineage of the view it was taken on (refused
        with ABORTED if the store has lost that view's history)."""
        message = decision if isinstance(decision, pb.Decision) else pb.Decision(
            notation=decision)
        return self.stub.SubmitDecision(pb.SubmitDecisionRequest(
            game_id=game_id, seat_token=token, expected_version=version, decision=message,
            request_id=request_id or uuid.uuid4().hex, observation_encoding=encoding,
            expected_lineage=lineage), timeout=self.timeout)

    def watch(self, game_id: str, token: str = "", after_version: int = 0,
              encoding: pb.ObservationEncoding = BOTH,
              after_lineage: str = "", *, draw_board: bool = False
              ) -> Iterator[pb.WatchGameResponse]:
        """WatchGame from `after_version` (`after_lineage`: its view's lineage, so that a
        version the store has lost resumes at the current one, marked rolled_back;
        `draw_board`: every view with its observation drawn)."""
        stream: Any = self.stub.WatchGame(pb.WatchGameRequest(
            game_id=game_id, seat_token=token, after_version=after_version,
            observation_encoding=encoding, after_lineage=after_lineage,
            draw_board=draw_board))
        yield from stream

    def resign(self, game_id: str, token: str, reason: str = "") -> pb.ResignSeatResponse:
        return self.stub.ResignSeat(pb.ResignSeatRequest(
            game_id=game_id, seat_token=token, reason=reason), timeout=self.timeout)

    def record(self, game_id: str) -> pb.GameRecord:
        return self.stub.GetGameRecord(pb.GetGameRecordRequest(game_id=game_id),
                                       timeout=self.timeout).record
