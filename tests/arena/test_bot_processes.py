"""The shipped bots as real processes, launched with the bot process protocol of
docs/bots.md (arguments, environment, manifest, limits), playing real games on a real
server: gRPC bots (Python, Node.js), stdio bots through the bridge (Perl, Python), and bad
bots (crash, hang, illegal decision) that must end as forfeits while the game finishes."""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from arena.config import BotManifest
from client.unary import CuriaClient
from curia_api.v1 import game_service_pb2 as pb
from hosting.launcher import BotProcess
from hosting.stdio_bridge import exit_reason, parse_answer, split_argv
from tests.node_bots import node_bot_folder
from tests.servers import ServiceProcess
from tests.service.gameplay import assert_contiguous, replay
from tests.timing import patient, wait_until

REPO = Path(__file__).resolve().parents[2]
BOTS = REPO / "bots"
BADBOTS = Path(__file__).resolve().parent / "badbots"
RANDOM = BOTS / "random_bot" / "bot.toml"
GREEDY = BOTS / "greedy_bot" / "bot.toml"
NODE = BOTS / "node_grpc" / "bot.toml"
PERL = BOTS / "perl_stdio" / "bot.toml"
PY_STDIO = BOTS / "python_stdio" / "bot.toml"
GAME_TIMEOUT = 40.0

# ---------------------------------------------------------------------------------------
# Launching bots the way the arena does
# ---------------------------------------------------------------------------------------
def launch(manifest_path: Path, server: str, game_id: str, seat: int, token: str, seed: int,
           log_path: Path | None = None) -> subprocess.Popen[bytes]:
    """Start a bot for one seat per its manifest and the protocol of docs/bots.md."""
    manifest: dict[str, Any] = tomllib.loads(manifest_path.read_text())
    workdir = (manifest_path.parent / manifest.get("workdir", ".")).resolve()
    command = [sys.executable if word == "{python}" else word for word in manifest["command"]]
    protocol_args = ["--server", server, "--game-id", game_id, "--seat", str(seat)]
    limits = manifest.get("limits", {})
    stdio = manifest.get("protocol", "grpc") == "stdio"
    if stdio:  # the bridge sets the limits on the bot, not on itself
        command = [sys.executable, "-m", "hosting.stdio_bridge", *protocol_args,
                   "--memory-mb", str(limits.get("memory_mb", 0)),
                   "--cpu-seconds", str(limits.get("cpu_seconds", 0)), "--", *command]
    else:
        command = [*command, *protocol_args]
    env = {**os.environ, "CURIA_SERVER": server, "CURIA_GAME_ID": game_id,
           "CURIA_SEAT": str(seat), "CURIA_SEAT_TOKEN": token, "CURIA_BOT_SEED": str(seed)}
    log = (log_path or Path(os.devnull)).open("wb")
    try:
        process = subprocess.Popen(command, cwd=workdir, env=env, stdin=subprocess.DEVNULL,
                                   stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    finally:
        log.close()
    # a gRPC bot's limits (no preexec_fn: forking a process with gRPC threads is unsafe)
    if stdio:
        return process
    if memory := int(limits.get("memory_mb", 0)) * 1024 * 1024:
        resource.prlimit(process.pid, resource.RLIMIT_AS, (memory, memory))
    if cpu := int(limits.get("cpu_seconds", 0)):
        resource.prlimit(process.pid, resource.RLIMIT_CPU, (cpu, cpu + 5))
    return process


def command_of(process: subprocess.Popen[bytes]) -> list[str]:
    args = process.args
    assert isinstance(args, list)
    return [str(word) for word in args]


@dataclass
class Played:
    """A game played by bot processes: its final view, record, exit codes, logs."""

    view: pb.View
    record: pb.GameRecord
    codes: list[int | None]
    logs: list[str]
    commands: list[list[str]] = field(default_factory=list)

    def score(self, seat: int) -> pb.SeatScore:
        scores: list[pb.SeatScore] = list(self.view.result.scores)
        return next(score for score in scores if score.seat == seat)

    def explain(self) -> str:
        return "\n".join(f"--- seat {seat} (exit {code}):\n{log[-3000:]}"
                         for seat, (code, log) in enumerate(zip(self.codes, self.logs,
                                                                strict=True)))


def play(client: CuriaClient, server: str, tmp_path: Path, manifests: list[Path], *,
         variant: str = "classic", seed: int = 7, decision_ms: int = 10_000,
         hold: int | None = None, forfeit_on_illegal: bool = True,
         timeout: float = GAME_TIMEOUT, name: str = "municipium", **game: Any) -> Played:
    """Create a tournament-rules game and let one process per seat play it to the end.

    With `hold`, that seat is left open until the other bots are up and waiting (they
    say so on stderr), then joined and launched: the clock starts only then, so that a
    short decision limit does not count the other bots' start-up.
    """
    created = client.create_game(name, variant, len(manifests), seed=seed,
                                 forfeit_on_illegal=forfeit_on_illegal,
                                 decision_ms=decision_ms,
                                 on_timeout="forfeit", open_seats=() if hold is None
                                 else (hold,), **game)
    seats = list(created.seats)
    logs = [tmp_path / f"seat{seat}.log" for seat in range(len(manifests))]
    processes = {c.seat: launch(manifests[c.seat], server, created.game_id, c.seat, c.token,
                                seed=1000 + c.seat, log_path=logs[c.seat]) for c in seats}
    if hold is not None:
        wait_until(lambda: all("waiting for open seats" in logs[c.seat].read_text()
                               for c in created.seats), 20, message="the bots to start")
        seats.append(client.join(created.game_id, hold))
        processes[hold] = launch(manifests[hold], server, created.game_id, hold,
                                 seats[-1].token, seed=1000 + hold, log_path=logs[hold])
    commands = {seat: command_of(process) for seat, process in processes.items()}
    for credential in seats:
        assert credential.token not in " ".join(commands[credential.seat])  # env only
    deadline = time.monotonic() + patient(timeout)
    try:
        for process in processes.values():
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        pass
    finally:
        for process in processes.values():
            if process.poll() is None:
                os.killpg(process.pid, 9)
                process.wait()
    played = Played(client.view(created.game_id), pb.GameRecord(),
                    [processes[seat].returncode for seat in range(len(manifests))],
                    [log.read_text(errors="replace") for log in logs],
                    [commands[seat] for seat in range(len(manifests))])
    assert played.view.status == pb.GAME_STATUS_FINISHED, played.explain()
    played.record = client.record(created.game_id)
    return played


def assert_clean(played: Played) -> None:
    """Finished with no forfeit and no timeout; every process exited 0; replayable."""
    assert played.codes == [0] * len(played.codes), played.explain()
    assert not played.view.forfeited_seats, played.explain()
    assert all(not s.forfeited for s in played.view.result.scores)
    assert {d.cause for d in played.record.decisions} == {pb.DECISION_CAUSE_SEAT}
    assert_contiguous(played.record)
    assert replay(played.record) == played.view.result


# ---------------------------------------------------------------------------------------
# Fixtures
# ---------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def node_bot() -> Path:
    """The Node.js bot's manifest, its dependencies installed (`npm install`) if missing."""
    node_bot_folder("node_grpc")
    return NODE


@pytest.fixture
def probe(tmp_path: Path) -> Path:
    """A stdio bot that records every line it is sent (and whether it got the token),
    answering legal[0], as plain text and as {"decision": ...} in turn."""
    folder = tmp_path / "probe"
    folder.mkdir()
    (folder / "bot.py").write_text('''
import json, os, sys
with open("env.json", "w") as out:
    json.dump({"token": "CURIA_SEAT_TOKEN" in os.environ, "seed": os.environ.get(
        "CURIA_BOT_SEED"), "argv": sys.argv[1:]}, out)
with open("input.jsonl", "w") as out:
    for n, line in enumerate(sys.stdin):
        out.write(line)
        out.flush()
        message = json.loads(line)
        if message["type"] == "decide":
            choice = message["legal"][0]
            print(json.dumps({"decision": choice}) if n % 2 else choice, flush=True)
''')
    (folder / "bot.toml").write_text('name = "probe"\nlanguage = "python"\n'
                                     'protocol = "stdio"\ncommand = ["{python}", "bot.py"]\n')
    return folder / "bot.toml"


# ---------------------------------------------------------------------------------------
# Good bots
# ---------------------------------------------------------------------------------------
def test_python_and_node_grpc_bots_play_a_game(client: CuriaClient, server: str,
                                               tmp_path: Path, node_bot: Path) -> None:
    played = play(client, server, tmp_path, [RANDOM, GREEDY, node_bot], seed=11)
    assert_clean(played)
    assert "game over" in played.logs[2], played.logs[2]  # the Node bot saw the end


def test_stdio_bots_play_a_game_through_the_bridge(client: CuriaClient, server: str,
                                                   tmp_path: Path) -> None:
    played = play(client, server, tmp_path, [PERL, PY_STDIO, RANDOM], seed=12)
    assert_clean(played)
    for seat in (0, 1):
        assert played.commands[seat][1:3] == ["-m", "hosting.stdio_bridge"]
        assert any(d.seat == seat for d in played.record.decisions)


def test_simultaneous_votes_leave_the_logs_quiet_and_the_bots_own_time_is_measured(
        client: CuriaClient, server: str, tmp_path: Path) -> None:
    """Five stdio bots vote at once in every Cicéron election: an answer made stale by
    another seat's vote is submitted again without a warning in the bot's log, and each
    log ends with the bot's own slowest answer, measured by its bridge."""
    played = play(client, server, tmp_path, [PY_STDIO] * 5, variant="standard", seed=5,
                  name="ciceron")
    assert_clean(played)
    again = 0
    for log in played.logs:
        assert "refused" not in log and "ABORTED" not in log, log[-3000:]
        summary = re.search(r"(\d+) answers; slowest answer (\d+) ms \(the bot's own "
                            r"time\)(?:; (\d+) submitted again)?", log)
        assert summary, log[-3000:]
        assert int(summary.group(1)) > 0
        again += int(summary.group(3) or 0)
    assert again > 0, "no vote was ever stale: the test did not test the stale path"


DECIDE_KEYS = ["type", "game", "variant", "seat", "version", "seat_names", "observation",
               "legal", "time_left_ms"]


def test_the_bridge_speaks_the_documented_format(client: CuriaClient, server: str,
                                                 tmp_path: Path, probe: Path) -> None:
    played = play(client, server, tmp_path, [probe, RANDOM], variant="revised", seed=3,
                  decision_ms=5000, bank_ms=60_000, wait_for_players=True)  # clocks start
    # once both bots are there (a loaded machine took over 5 s to start the bridge)
    assert_clean(played)
    lines = (probe.parent / "input.jsonl").read_text().splitlines()
    messages = [json.loads(line) for line in lines]
    decides, end = messages[:-1], messages[-1]
    assert decides and all(m["type"] == "decide" for m in decides)
    mine = [d for d in played.record.decisions if d.seat == 0]
    assert [m["version"] for m in decides] == [d.version - 1 for d in mine]
    assert [m["legal"][0] for m in decides] == [d.notation for d in mine]
    for message in decides:
        assert list(message) == DECIDE_KEYS
        assert (message["game"], message["variant"], message["seat"]) == \
            ("municipium", "revised", 0)
        assert message["seat_names"] == list(played.view.seat_names)
        assert message["observation"]["seat"] == 0
        assert message["observation"]["game"] == "municipium"
        assert message["legal"] and all(isinstance(n, str) for n in message["legal"])
        assert isinstance(message["time_left_ms"], int)
        assert 0 < message["time_left_ms"] <= 5000
    assert end == {"type": "end", "forfeited": [], "result": end["result"]}
    assert end["result"]["ranking"] == [list(g.seats) for g in played.view.result.ranking]
    assert [s["rank"] for s in end["result"]["scores"]] == \
        [s.rank for s in played.view.result.scores]
    env = json.loads((probe.parent / "env.json").read_text())
    assert env == {"token": False, "seed": "1000", "argv": []}  # no token for a stdio bot
    # docs/bots.md shows a real decide line with the same fields
    documented = re.search(r'^\{"type": "decide".*\}$', (REPO / "docs" / "bots.md").read_text(),
                           re.MULTILINE)
    assert documented, "docs/bots.md has no example decide line"
    assert list(json.loads(documented.group(0))) == DECIDE_KEYS


def test_without_the_tournament_rules_a_refused_answer_is_asked_again(
        client: CuriaClient, server: str, tmp_path: Path) -> None:
    folder = tmp_path / "stubborn"
    folder.mkdir()
    (folder / "bot.py").write_text('''
import json, sys
with open("input.jsonl", "w") as out:
    for line in sys.stdin:
        out.write(line)
        message = json.loads(line)
        if message["type"] == "decide":
            print(message["legal"][0] if "refused" in message else "power nowhere", flush=True)
''')
    (folder / "bot.toml").write_text('name = "stubborn"\nprotocol = "stdio"\n'
                                     'command = ["{python}", "bot.py"]\n')
    played = play(client, server, tmp_path, [folder / "bot.toml", RANDOM], variant="revised",
                  seed=4, forfeit_on_illegal=False)
    assert_clean(played)
    messages = [json.loads(line) for line in (folder / "input.jsonl").read_text().splitlines()]
    asked, again = messages[0:-1:2], messages[1:-1:2]
    assert asked and len(asked) == len(again)
    for first, second in zip(asked, again, strict=True):
        assert "refused" not in first and second["refused"]
        assert {**second, "refused": None, "time_left_ms": None} == \
            {**first, "refused": None, "time_left_ms": None}


# ---------------------------------------------------------------------------------------
# Bad bots: each forfeits its seat, the game still finishes
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("bot", "reason", "exit_code", "decision_ms"), [
    ("crash", "stdio bot exited: code 1", 1, 10_000),
    ("hang", "timeout", 0, 400),
    ("illegal", "illegal", 0, 10_000),
    ("memory", "exceeded memory_mb (128 MB): stdio bot exited: code 1", 1, 10_000),
])
def test_a_bad_bot_forfeits_and_the_game_finishes(client: CuriaClient, server: str,
                                                  tmp_path: Path, bot: str, reason: str,
                                                  exit_code: int, decision_ms: int) -> None:
    """Seat 0 (the bad bot) moves first (seed 1); it is launched last, when the others
    wait for it, so that the others' start-up does not count against their short clock."""
    played = play(client, server, tmp_path, [BADBOTS / bot / "bot.toml", PY_STDIO, RANDOM],
                  seed=1, decision_ms=decision_ms, hold=0)
    assert played.codes == [exit_code, 0, 0], played.explain()
    assert list(played.view.forfeited_seats) == [0], played.explain()
    assert reason in played.logs[0] or reason in {"timeout", "illegal"}  # said in its log
    bad = played.score(0)
    assert bad.forfeited and bad.forfeit_reason == reason
    assert bad.rank == 3 and played.view.result.ranking[-1].seats == [0]
    assert not played.score(1).forfeited and not played.score(2).forfeited
    causes = [d.cause for d in played.record.decisions if d.seat == 0]
    assert pb.DECISION_CAUSE_FORFEITED in causes
    assert {d.cause for d in played.record.decisions if d.seat != 0} == {pb.DECISION_CAUSE_SEAT}
    replayed = pb.GameResult()
    replayed.CopyFrom(played.view.result)
    replayed.scores[0].forfeit_reason = ""  # the replay knows the forfeit, not its reason
    assert replay(played.record) == replayed


def test_a_grpc_bot_refuses_a_game_it_does_not_play(
        redis_url: str, service_process: type[ServiceProcess],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """greedy plays one game only: seated in the test tree's game, it says so and exits 1."""
    monkeypatch.setenv("CURIA_PLUGINS", "tests.plugins.guess")  # the server's and the bot's
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p))
    served = service_process(redis_url)
    with CuriaClient(served.address) as remote:
        created = remote.create_game("guess", "standard", 2, seed=3)
    done = subprocess.run(
        [sys.executable, "-m", "bots.greedy_bot", "--server", served.address,
         "--game-id", created.game_id, "--seat", "0"], cwd=REPO,
        env={**os.environ, "CURIA_SEAT_TOKEN": created.seats[0].token},
        capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr
    assert "bot 'greedy' plays only " in done.stderr and "not guess" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_stdio_bots_memory_limit_is_its_own_not_the_bridges(
        client: CuriaClient, server: str, tmp_path: Path) -> None:
    """64 MB is far less than the bridge (a gRPC client) needs, and plenty for the 20-line
    bot: the limit applies to the bot alone, so the game is played cleanly."""
    folder = tmp_path / "small"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        f'name = "small"\nprotocol = "stdio"\ncommand = ["{{python}}", '
        f'"{PY_STDIO.parent / "bot.py"}"]\n[limits]\nmemory_mb = 64\ncpu_seconds = 60\n')
    played = play(client, server, tmp_path, [folder / "bot.toml", RANDOM], variant="revised",
                  seed=5)
    assert_clean(played)
    assert any(d.seat == 0 for d in played.record.decisions)


def start_limited(tmp_path: Path, code: str, limits: str) -> BotProcess:
    """A gRPC-protocol bot process running `code`, started by the arena with `limits`."""
    (tmp_path / "bot.toml").write_text(f'name = "hog"\ncommand = ["{{python}}", "-c", '
                                       f'"{code}"]\n[limits]\n{limits}\n')
    return BotProcess.start(BotManifest.load(tmp_path / "bot.toml"), server="localhost:1",
                            game_id="g", seat=0, token="t", seed=1,
                            log_path=tmp_path / "hog.log")


@pytest.mark.parametrize(("code", "limits", "reason"), [
    ("bytearray(1 << 30)", "memory_mb = 128",
     "exceeded memory_mb (128 MB): exited with code 1 before the end"),
    ("while True: pass", "cpu_seconds = 1",
     "exceeded cpu_seconds (1 s): killed by signal 24 before the end"),
    ("raise SystemExit(3)", "memory_mb = 128", "crashed: exited with code 3 before the end"),
])
def test_the_arena_tells_a_limit_from_a_crash(tmp_path: Path, code: str, limits: str,
                                              reason: str) -> None:
    bot = start_limited(tmp_path, code, limits)
    try:
        bot.process.wait(timeout=30)
        assert bot.ended_reason() == reason, bot.log_tail()
    finally:
        bot.stop()


# ---------------------------------------------------------------------------------------
# A server restart in the middle of a game
# ---------------------------------------------------------------------------------------
def test_bots_survive_a_server_restart(client: CuriaClient, tmp_path: Path,
                                       service_process: type[ServiceProcess],
                                       redis_url: str, node_bot: Path) -> None:
    """Kill -9 the server mid-game and start another on the same port: the Python gRPC
    player, the Node bot and the bridge reconnect, resume their streams and finish."""
    first = service_process(redis_url)
    target = first.address
    with CuriaClient(target) as remote:
        created = remote.create_game("municipium", "classic", 3, seed=21)
        env = {**os.environ, "CURIA_SEAT_TOKEN": created.seats[0].token}
        processes = [subprocess.Popen(
            [sys.executable, "-m", "bots.grpc_player", "--bot", "random", "--pace", "0.01",
             "--server", target, "--game-id", created.game_id, "--seat", "0"],
            cwd=REPO, env=env, stdout=subprocess.DEVNULL,
            stderr=(tmp_path / "seat0.log").open("wb"))]
        processes += [launch(manifest, target, created.game_id, seat, created.seats[seat].token,
                             seat, tmp_path / f"seat{seat}.log")
                      for seat, manifest in ((1, node_bot), (2, PY_STDIO))]
        wait_until(lambda: remote.view(created.game_id).version >= 30, 20,
                   message="the game to reach version 30")
        first.kill()
        time.sleep(0.5)  # the server away for a moment (the fault under test)
        service_process(redis_url, port=first.port)
        try:
            codes = [p.wait(timeout=GAME_TIMEOUT) for p in processes]
        finally:
            for process in processes:
                if process.poll() is None:
                    process.kill()
        logs = "\n".join(f"--- seat {s}:\n" + (tmp_path / f"seat{s}.log").read_text()[-2000:]
                         for s in range(3))
        assert codes == [0, 0, 0], logs
        record = remote.record(created.game_id)
    assert {d.cause for d in record.decisions} == {pb.DECISION_CAUSE_SEAT}
    assert not any(s.forfeited for s in record.result.scores)
    assert_contiguous(record)
    assert "retry" in logs  # each noticed the restart
    assert replay(record) == record.result


# ---------------------------------------------------------------------------------------
# The bridge's small parts
# ---------------------------------------------------------------------------------------
def test_the_bridge_reads_answers_as_text_or_json() -> None:
    assert parse_answer(b"play common\n") == "play common"
    assert parse_answer(b'{"decision": "move baths>emporium"}\r\n') == "move baths>emporium"
    assert parse_answer(b"{not json\n") == "{not json"
    assert parse_answer(b'{"move": 1}\n') == '{"move": 1}'  # submitted as is: illegal


def test_the_bridge_takes_its_arguments_before_the_command_and_passes_the_rest() -> None:
    args = ["--server", "h:1", "--game-id", "g", "--seat", "2"]
    assert split_argv([*args, "--", "perl", "bot.pl"]) == (args, ["perl", "bot.pl"])
    assert split_argv(["--", "bot", "--seat", "x"]) == ([], ["bot", "--seat", "x"])
    assert exit_reason(1) == "stdio bot exited: code 1"
    assert exit_reason(-9) == "stdio bot exited: signal 9 (SIGKILL)"
