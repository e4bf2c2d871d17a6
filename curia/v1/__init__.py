"""The generated `curia.v1` stubs' former home, kept for bots written against it: the
modules are `curia_api.v1`'s (`from curia.v1 import game_service_pb2` still works)."""

import sys

from curia_api.v1 import (
    ciceron_pb2,
    ciceron_pb2_grpc,
    game_service_pb2,
    game_service_pb2_grpc,
    leges_pb2,
    leges_pb2_grpc,
    municipium_pb2,
    municipium_pb2_grpc,
)

for _module in (ciceron_pb2, ciceron_pb2_grpc, game_service_pb2, game_service_pb2_grpc,
                leges_pb2, leges_pb2_grpc, municipium_pb2, municipium_pb2_grpc):
    sys.modules[f"{__name__}.{_module.__name__.rsplit('.', 1)[1]}"] = _module
