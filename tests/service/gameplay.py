"""Playing games through a real client, for the service tests."""

from __future__ import annotations

import random
from dataclasses import dataclass

from curia.v1 import game_service_pb2 as pb
from service.client import CuriaClient


@dataclass
class Game:
    """A created game: its id and the token of each seat."""

    game_id: str
    tokens: dict[int, str]


def new_game(client: CuriaClient, seats: int = 3, seed: int = 7, variant: str = "classic",
             **kwargs: object) -> Game:
    created = client.create_game("municipium", variant, seats, seed=seed, **kwargs)  # type: ignore[arg-type]
    return Game(created.game_id, {c.seat: c.token for c in created.seats})


def step(client: CuriaClient, game: Game, rng: random.Random,
         request_id: str | None = None) -> pb.SubmitDecisionResponse:
    """The seat to move takes a random legal decision (from its own view)."""
    spectator = client.view(game.game_id)
    seat = spectator.to_move[0]
    view = client.view(game.game_id, game.tokens[seat])
    choice = rng.choice(list(view.legal_decisions))
    return client.submit(game.game_id, game.tokens[seat], view.version, choice.notation,
                         request_id=request_id)


def play_out(client: CuriaClient, game: Game, rng: random.Random,
             limit: int = 5000) -> pb.View:
    """Random legal decisions until the game is over; the final spectator view."""
    for _ in range(limit):
        view = client.view(game.game_id)
        if view.status == pb.GAME_STATUS_FINISHED:
            return view
        step(client, game, rng)
    raise AssertionError("the game did not end")
