"""The service on a real Redis Cluster (3 local masters): a game's keys share one slot."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from client.unary import CuriaClient
from service.redis_server import EmbeddedCluster
from service.server import BackgroundServer
from service.store import keys
from tests.service.gameplay import new_game, play_out


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedCluster]:
    with EmbeddedCluster(Path(tmp_path_factory.mktemp("cluster"))) as running:
        yield running


def test_games_play_on_a_cluster_with_each_games_keys_in_one_slot(
        cluster: EmbeddedCluster) -> None:
    server = BackgroundServer(cluster.url)
    port = server.start()
    try:
        with CuriaClient(f"127.0.0.1:{port}") as client:
            played = []
            for seed in range(4):
                game = new_game(client, seed=seed)
                final = play_out(client, game, random.Random(seed))
                assert final.result.reason in ("target", "max_turns")
                assert len(client.record(game.game_id).decisions) == final.version
                played.append(game.game_id)
    finally:
        server.stop()
    node = redis.Redis(host="127.0.0.1", port=cluster.nodes[0].port)
    slots = {game_id: {node.execute_command("CLUSTER", "KEYSLOT", key) for key in keys(game_id)}
             for game_id in played}
    assert all(len(s) == 1 for s in slots.values())
    assert len({next(iter(s)) for s in slots.values()}) > 1, "games spread over slots"
