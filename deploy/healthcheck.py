#!/usr/bin/env python3
"""A gRPC health probe for containers: exit 0 when the service answers SERVING, 1 otherwise.

It asks the standard health service (grpc.health.v1.Health/Check) of a Curia server, like
grpc_health_probe does, with only the grpcio and grpcio-health-checking packages the
service already depends on. Used by the Dockerfile's HEALTHCHECK:

    python healthcheck.py --address localhost:50051 --service curia.v1.GameService --timeout 2

`--service ""` asks about the server as a whole.
"""

from __future__ import annotations

import argparse
import sys

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc


def check(address: str, service: str, timeout: float) -> tuple[bool, str]:
    """(serving?, what was seen) for `service` on the server at `address`."""
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            answer = stub.Check(health_pb2.HealthCheckRequest(service=service),
                                timeout=timeout)
        except grpc.RpcError as error:
            return False, f"{error.code().name}: {error.details()}"
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(answer.status)
    return answer.status == health_pb2.HealthCheckResponse.SERVING, status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", default="localhost:50051", help="HOST:PORT of the server")
    parser.add_argument("--service", default="curia.v1.GameService",
                        help='service name to ask about ("" for the whole server)')
    parser.add_argument("--timeout", type=float, default=2.0, help="seconds (default 2)")
    args = parser.parse_args(argv)
    serving, seen = check(args.address, args.service, args.timeout)
    name = args.service or '""'
    print(f"{args.address} {name}: {seen}", file=sys.stdout if serving else sys.stderr)
    return 0 if serving else 1


if __name__ == "__main__":
    sys.exit(main())
