"""Fixtures of the league tests: a real Redis and service, a league agent."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from redis import Redis

from client.unary import CuriaClient
from league.agent import LeagueAgent
from league.registry import Leagues, LeagueSettings
from service.redis_server import EmbeddedRedis
from service.server import BackgroundServer

GAME = "leges"


@dataclass
class World:
    redis_url: str
    target: str
    redis: Redis
    leagues: Leagues


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


_names = iter(range(1_000_000))


def new_league(world: World, **settings: object) -> LeagueSettings:
    name = f"league-{next(_names)}"
    return world.leagues.create(LeagueSettings(name=name, game=GAME, **settings))  # type: ignore[arg-type]


@pytest.fixture
def agent(world: World) -> Iterator[LeagueAgent]:
    client = CuriaClient(world.target)
    yield LeagueAgent(world.redis, client, seed=7)
    client.close()


