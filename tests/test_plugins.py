"""Adding a game is local: a game that lives entirely in the test tree
(tests/plugins/guess.py, private hands and simultaneous secret choices) is played through
the engine, a real `curia serve`, `curia play` and a two-bot arena tournament, with no
change to any generic file; and no generic module names a specific game."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

import games
from client.unary import CuriaClient
from curia_api.v1 import game_service_pb2 as pb
from tests.servers import ServiceProcess

REPO = Path(__file__).resolve().parents[1]
PLUGIN = "tests.plugins.guess"

#: The generic layers: no file here may name a game (curia/v1 is generated from the
#: contract, whose per-game `oneof` cases are the contract's own).
GENERIC = [*sorted((REPO / "service").glob("*.py")), *sorted((REPO / "arena").glob("*.py")),
           *sorted((REPO / "curia").glob("*.py")), REPO / "games" / "core.py",
           REPO / "games" / "__init__.py", REPO / "bots" / "__init__.py",
           REPO / "bots" / "grpc_player.py", REPO / "bots" / "play_client.py",
           *sorted((REPO / "league").glob("*.py"))]


@pytest.fixture(scope="module", autouse=True)
def plugin_loaded() -> None:
    games.load_plugins(PLUGIN)


@pytest.fixture
def plugin_env(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The environment of every process started here: the plugin named, the repository
    importable (bots run from their own folders)."""
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    monkeypatch.setenv("CURIA_PLUGINS", PLUGIN)
    monkeypatch.setenv("PYTHONPATH", path)
    return {**os.environ}


def test_no_generic_module_names_a_game() -> None:
    names = {*games.GAMES, "decurion", "praefect", "family", "families"}
    pattern = re.compile(r"\b(" + "|".join(sorted(names)) + r")\b", re.IGNORECASE)
    found = [f"{path.relative_to(REPO)}:{number}: {line.strip()}"
             for path in GENERIC
             for number, line in enumerate(path.read_text().splitlines(), 1)
             if pattern.search(line)]
    assert not found, "generic modules name a game:\n" + "\n".join(found)


def test_the_game_is_registered_from_its_own_module_only() -> None:
    game = games.get_game("guess")
    assert type(game).__module__ == PLUGIN
    assert (game.simultaneous, game.private_information) == (True, True)
    assert [(v.name, v.min_seats, v.max_seats) for v in game.variants] == [("standard", 2, 2)]
    assert not any("guess" in path.read_text() for path in GENERIC)


# ---------------------------------------------------------------------------------------
# Through a real `curia serve`
# ---------------------------------------------------------------------------------------
@pytest.fixture
def served(redis_url: str, plugin_env: dict[str, str]) -> Iterator[CuriaClient]:  # noqa: F811
    process = ServiceProcess(redis_url)
    try:
        with CuriaClient(process.address) as client:
            yield client
    finally:
        process.stop()


def observe(client: CuriaClient, game_id: str, token: str = "") -> tuple[pb.View, dict]:
    view = client.view(game_id, token)
    return view, json.loads(view.observation_json)


def test_the_game_plays_through_a_real_service_by_notation_and_json(
        served: CuriaClient) -> None:
    listed = {g.name: g for g in served.list_games().games}
    assert listed["guess"].simultaneous and listed["guess"].private_information
    created = served.create_game("guess", "standard", 2, seed=11)
    game_id, tokens = created.game_id, [s.token for s in created.seats]

    view, mine = observe(served, game_id, tokens[0])
    assert list(view.to_move) == [0, 1] and view.turn == 1
    assert all(d.WhichOneof("game") is None and d.notation.startswith("play ")
               for d in view.legal_decisions)  # no typed messages: notation only
    assert not view.observation.WhichOneof("game")
    hand0 = mine["hand"]
    assert [d.notation for d in view.legal_decisions] == [f"play {c}" for c in hand0]

    with pytest.raises(grpc.RpcError) as refused:  # a card that is not in seat 0's hand
        served.submit(game_id, tokens[0], view.version,
                      f"play {next(c for c in range(1, 10) if c not in hand0)}")
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    secret = hand0[0]
    served.submit(game_id, tokens[0], view.version, f"play {secret}")

    other_view, theirs = observe(served, game_id, tokens[1])
    _, spectator = observe(served, game_id)
    assert list(other_view.to_move) == [1]
    assert theirs["has_chosen"] == [True, False] and theirs["my_choice"] is None
    assert set(theirs["hand"]).isdisjoint(hand0)  # seat 1 never sees seat 0's hand
    assert spectator["hand"] is None and spectator["my_choice"] is None
    with pytest.raises(grpc.RpcError) as again:  # seat 0 has chosen: not its turn
        served.submit(game_id, tokens[0], other_view.version, f"play {hand0[1]}")
    assert again.value.code() == grpc.StatusCode.FAILED_PRECONDITION

    play_out(served, game_id, tokens)
    final, _ = observe(served, game_id)
    assert final.status == pb.GAME_STATUS_FINISHED and final.result.reason
    record = served.record(game_id)
    assert [d.notation for d in record.decisions][0] == f"play {secret}"
    replayed = games.new_game("guess", "standard", 2, seed=record.seed)
    for decided in record.decisions:
        replayed.apply(decided.seat, decided.notation)
    assert [list(g.seats) for g in final.result.ranking] == \
        [list(g) for g in replayed.result().ranking]


def test_a_typed_decision_of_another_game_is_refused(served: CuriaClient) -> None:
    created = served.create_game("guess", "standard", 2, seed=1)
    view = served.view(created.game_id, created.seats[0].token)
    typed = pb.Decision()
    typed.municipium.skip.SetInParent()
    with pytest.raises(grpc.RpcError) as refused:
        served.submit(created.game_id, created.seats[0].token, view.version, typed)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "guess" in (refused.value.details() or "")
    assert served.view(created.game_id).version == view.version  # nothing changed


def play_out(client: CuriaClient, game_id: str, tokens: list[str]) -> None:
    """Both seats choose their lowest card until the game ends."""
    while True:
        view = client.view(game_id)
        if view.status == pb.GAME_STATUS_FINISHED:
            return
        for seat in view.to_move:
            mine = client.view(game_id, tokens[seat])
            client.submit(game_id, tokens[seat], mine.version, mine.legal_decisions[0].notation)


# ---------------------------------------------------------------------------------------
# `curia play` and the arena
# ---------------------------------------------------------------------------------------
def curia(*args: str, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "curia", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_curia_play_plays_the_game(plugin_env: dict[str, str]) -> None:
    done = curia("play", "--game", "guess", "--variant", "standard", "--seats",
                 "random,random", "--seed", "4", env=plugin_env)
    assert done.returncode == 0, done.stderr
    assert "cards revealed" in done.stdout  # the game's own narration
    assert "all 3 rounds were played" in done.stdout  # the game's own end sentence
    through = curia("play", "--game", "guess", "--variant", "standard", "--seats",
                    "random,random", "--seed", "4", "--service", "--port", "0",
                    "--data-dir", str(REPO / "data" / "test-plugins"), env=plugin_env)
    assert through.returncode == 0, through.stderr
    assert "all 3 rounds were played" in through.stdout


def test_a_bot_that_does_not_play_the_game_is_refused(plugin_env: dict[str, str]) -> None:
    done = curia("play", "--game", "guess", "--variant", "standard", "--seats",
                 "greedy,random", env=plugin_env)
    assert done.returncode == 2
    assert "greedy" in done.stderr and "guess" in done.stderr


def test_a_two_bot_arena_tournament_of_the_game(tmp_path: Path,
                                                plugin_env: dict[str, str]) -> None:
    config = tmp_path / "t.toml"
    bots = "".join(f'[[bots]]\nmanifest = "{REPO / "bots" / name / "bot.toml"}"\n'
                   for name in ("random_bot", "python_stdio"))
    config.write_text(f'[tournament]\nname = "guess"\ngame = "guess"\nvariant = "standard"\n'
                      f'seats = 2\nrounds = 2\nseed = 5\noutput = "{tmp_path / "out"}"\n'
                      f"[time]\ndecision_ms = 10000\n{bots}")
    done = curia("arena", "run", str(config), "--no-progress", env=plugin_env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = (tmp_path / "out" / "results.jsonl").read_text().splitlines()
    outcomes = [json.loads(line) for line in lines]
    assert len(outcomes) == 4
    assert not any(o.get("forfeits") for o in outcomes), outcomes


def watched(client: CuriaClient, game_id: str, token: str, count: int) -> list:
    """The first `count` messages of a WatchGame stream from version 0."""
    stream = client.watch(game_id, token, 0)
    return [next(stream) for _ in range(count)]


def test_a_secret_choice_is_streamed_to_others_without_its_notation(
        served: CuriaClient) -> None:
    created = served.create_game("guess", "standard", 2, seed=5)
    game_id, tokens = created.game_id, [s.token for s in created.seats]
    hand = json.loads(served.view(game_id, tokens[0]).observation_json)["hand"]
    served.submit(game_id, tokens[0], 0, f"play {hand[0]}")
    for token in ("", tokens[1]):  # a spectator, the other seat
        secret = watched(served, game_id, token, 2)[1]
        assert secret.decision.secret and secret.decision.notation == ""
        seen = json.loads(secret.view.observation_json)
        assert seen["my_choice"] is None and hand[0] not in (seen["hand"] or [])
    own = watched(served, game_id, tokens[0], 2)[1]
    assert not own.decision.secret and own.decision.notation == f"play {hand[0]}"
    play_out(served, game_id, tokens)
    assert served.record(game_id).decisions[0].notation == f"play {hand[0]}"


def test_seats_asked_at_once_each_keep_their_own_deadline(served: CuriaClient) -> None:
    created = served.create_game("guess", "standard", 2, seed=6, decision_ms=4000)
    game_id, tokens = created.game_id, [s.token for s in created.seats]
    first = [served.view(game_id, token).deadline_unix_ms for token in tokens]
    assert first[0] == first[1] > 0
    time.sleep(0.3)  # time passes on the clocks (what is tested)
    mine = served.view(game_id, tokens[0])
    served.submit(game_id, tokens[0], mine.version, mine.legal_decisions[0].notation)
    assert served.view(game_id, tokens[1]).deadline_unix_ms == first[1]  # not restarted
    wait = (first[1] - time.time() * 1000) / 1000 + 1.5
    time.sleep(max(0.0, wait))  # seat 1 lets its time pass: the server decides for it
    later = served.view(game_id)
    assert later.version >= 2 and list(later.to_move) == [0, 1]
    record_causes = [u.decision.cause for u in watched(served, game_id, "", 3)[1:]]
    assert record_causes == [pb.DECISION_CAUSE_SEAT, pb.DECISION_CAUSE_TIMEOUT]
