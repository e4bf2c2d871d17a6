"""Playing games through a real client, for the service tests."""

from __future__ import annotations

import random
from dataclasses import dataclass

from client.unary import CuriaClient
from curia_api.v1 import game_service_pb2 as pb


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


def replay(record: pb.GameRecord) -> pb.GameResult:
    """Replay a record's decisions with the local engine (each for its seat) from its seed;
    the game must end exactly at the last decision. Its result, as the contract's message."""
    import games
    from curia_api import codec

    state = games.new_game(record.game, record.variant, record.num_seats,
                           dict(record.options), record.seed)
    for decision in record.decisions:
        assert not state.is_over, f"the game was over before version {decision.version}"
        state.apply(decision.seat, decision.notation)
    assert state.is_over, "the replayed game did not end"
    result = state.result()
    assert result is not None
    forfeited = {s.seat for s in record.result.scores if s.forfeited}
    return codec.result_to_proto(result, forfeited)


def assert_contiguous(record: pb.GameRecord) -> None:
    """The record's decisions are versions 1..N, each once, in order."""
    versions = [d.version for d in record.decisions]
    assert versions == list(range(1, len(versions) + 1)), versions
