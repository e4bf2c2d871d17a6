"""Refusals of the service: a gRPC status code, a metric reason and a clear message."""

from __future__ import annotations

import grpc

from curia_api.metadata import REASON_KEY as REASON_KEY  # re-exported for the server
from curia_api.v1 import game_service_pb2 as pb
from games.core import (
    DecisionError,
    GameOverError,
    NotationError,
    NotYourTurnError,
)


class ServiceError(Exception):
    """A refused request. Raised before anything is written, so it changes nothing."""

    def __init__(self, code: grpc.StatusCode, reason: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message



class Refused(Exception):
    """A call answered with a status other than OK (nothing was changed): a ServiceError
    once logged and counted, or the store away."""

    def __init__(self, code: grpc.StatusCode, reason: str, message: str) -> None:
        super().__init__(message)
        self.code, self.reason, self.message = code, reason, message

    def call_status(self) -> pb.CallStatus:
        """The refusal as a stream's reply carries it."""
        return pb.CallStatus(code=self.code.value[0], message=self.message,
                             reason=self.reason)


def invalid(message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.INVALID_ARGUMENT, "invalid_argument", message)


def not_found(game_id: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.NOT_FOUND, "not_found", f"no game {game_id!r}")


def bad_token() -> ServiceError:
    return ServiceError(grpc.StatusCode.UNAUTHENTICATED, "unauthenticated",
                        "the seat token is not one of this game's seats")


def precondition(reason: str, message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.FAILED_PRECONDITION, reason, message)


def stale(expected: int, current: int) -> ServiceError:
    return ServiceError(grpc.StatusCode.ABORTED, "stale_version",
                        f"stale version: the decision was taken at version {expected}, "
                        f"the game is at version {current}; read the view and decide again")


def rolled_back(version: int) -> ServiceError:
    return ServiceError(grpc.StatusCode.ABORTED, "rolled_back",
                        f"the view this decision was taken on (version {version}) is from a "
                        f"history the store has lost (it rolled back, and the game went on "
                        f"another way); nothing was applied: read the view and decide again")


def refused(error: ServiceError) -> Refused:
    return Refused(error.code, error.reason, error.message)


def from_decision_error(error: DecisionError) -> ServiceError:
    """Map the engine's typed errors to status codes."""
    if isinstance(error, NotationError):
        return invalid(f"malformed decision: {error}")
    if isinstance(error, GameOverError):
        return precondition("game_over", "the game is over")
    if isinstance(error, NotYourTurnError):
        return precondition("not_your_turn", str(error))
    return precondition("illegal", f"illegal decision: {error}")
