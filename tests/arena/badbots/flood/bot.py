"""A gRPC bot that tries to fill the service: on start it calls CreateGame 150 times on
CURIA_SERVER (in a sandbox, the service door's socket: unix:/run/curia/service.sock), with
no credential, prints `ATTACK create-flood: N of 150 created` and how each refusal came,
then plays its seat legally (the random bot, bots.grpc_player's launch protocol on Play).
"""

import collections
import os
import sys

import grpc

from bots.grpc_player import main as play
from client.channels import open_channel
from client.unary import refusal_reason
from curia_api.v1 import game_service_pb2 as pb
from curia_api.v1 import game_service_pb2_grpc as pb_grpc

ATTEMPTS = 150


def flood(server: str) -> None:
    created, refusals = 0, collections.Counter()
    with open_channel(server) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        for _ in range(ATTEMPTS):
            try:
                stub.CreateGame(pb.CreateGameRequest(game="leges", variant="standard",
                                                     num_seats=2), timeout=10)
                created += 1
            except grpc.RpcError as error:
                refusals[f"{error.code().name} {refusal_reason(error) or '-'}"] += 1
    print(f"ATTACK create-flood: {created} of {ATTEMPTS} created", flush=True)
    for how, count in sorted(refusals.items()):
        print(f"create-flood refused {count} times: {how}", flush=True)


if __name__ == "__main__":
    flood(os.environ["CURIA_SERVER"])
    sys.exit(play(sys.argv[1:], default_bot="random"))
