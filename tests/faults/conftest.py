"""Fixtures for the fault-tolerance and fuzz tests: the service fixtures (a real Redis, an
in-process server, `curia serve` processes), shared with tests/service."""

from tests.service.conftest import (  # noqa: F401
    client,
    redis_url,
    server,
    service_process,
)
