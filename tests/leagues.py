"""A league's test world (a real Redis and service, its Leagues) and new leagues in it; the
`world` and `agent` fixtures are in tests/conftest.py."""

from __future__ import annotations

from dataclasses import dataclass

from redis import Redis

from league.registry import Leagues, LeagueSettings

GAME = "leges"


@dataclass
class World:
    redis_url: str
    target: str
    redis: Redis
    leagues: Leagues



_names = iter(range(1_000_000))


def new_league(world: World, **settings: object) -> LeagueSettings:
    name = f"league-{next(_names)}"
    return world.leagues.create(LeagueSettings(name=name, game=GAME, **settings))  # type: ignore[arg-type]
