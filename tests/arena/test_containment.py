"""Unsandboxed bots end with their games (hosting/contain.py), and a bot's log stays under
its cap (hosting/botlog.py), with real processes throughout.

- Daemons (tests/arena/badbots/daemon: a double fork and `setsid`, out of the bot's
  process group) started by stdio and gRPC bots in a real `curia arena run` with
  `sandbox = "off"` are all gone when the command exits; also when the arena is killed
  -9 mid-game, and when the stdio bridge runs on its own. Each test first checks that the
  daemons were started (their pid files), so it would fail without the containment.
- The shepherd on its own and with each kind of cgroup this host has: a daemon and a
  swarm of forking processes are swept, the bot's exit code and signal come through,
  its limits are set before it runs.
- Bots writing 50 MB to their logs (tests/arena/badbots/logflood) play their games to the
  end, unsandboxed and sandboxed, and each log keeps its head, the marker and its tail,
  within the cap; in a `curia arena check` game the stdio bridge's last lines (which the
  check reads) come after the bot's last words.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.check import bridge_slowest_ms, plan_games, play_check_game
from arena.config import BotManifest
from arena.runner import ResultsFile
from client.unary import CuriaClient
from hosting.botlog import HEAD_BYTES, LOG_LIMIT, TAIL_BYTES, CappedFile, marker
from hosting.contain import FREEZER, V2, Cgroup, Containment, candidate_parents, remove_stale
from hosting.limits import Limits
from hosting.sandbox import unavailable_reason
from hosting.seat_jobs import LOG_TAIL_BYTES
from ratings.records import GameOutcome
from tests.arena.test_bot_processes import RANDOM, play
from tests.timing import wait_until

REPO = Path(__file__).resolve().parents[2]
BADBOTS = Path(__file__).resolve().parent / "badbots"
#: What the flooding bots write last (tests/arena/badbots/logflood/flood.py).
LAST_WORDS = "logflood: my last words, after the flood"
#: The flood's numbered lines per stream, of each flooding bot (flood.py: 50 MB of
#: 100-byte lines, shared by stderr and, for the gRPC bot, stdout).
FLOOD_LINES = {"bad-logflood": 500_000, "bad-logflood-grpc": 250_000}
#: The marker line, and the number of bytes it says were cut.
MARKER = re.compile(r"\n… (\d+) bytes cut by the arena \(.*\) …\n")
#: A gRPC bot slow enough that the games are still on when the arena is killed.
SLOW_GRPC = """import sys
from bots.grpc_player import main
sys.exit(main(sys.argv[1:] + ["--pace", "0.3"], default_bot="random"))
"""


# ---------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------
def alive(pid: int) -> bool:
    """Whether process `pid` runs (a zombie does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def daemon_pids(folder: Path) -> list[int]:
    """The pids the daemons of the bot in `folder` wrote (tests/arena/badbots/daemon)."""
    return sorted(int(path.stem) for path in (folder / "pids").glob("*.pid"))


def kill_all(pids: list[int]) -> None:
    """Clean up after a failed test: no daemon is left to the next."""
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def tournament(tmp_path: Path, bots: list[Path], sandbox: str,
               challenger: tuple[str, Path] = ("random", RANDOM)) -> Path:
    """A Leges gauntlet of `challenger` (name, manifest) against `bots` (two games each,
    concurrency 2): its file."""
    body = "".join(f'[[bots]]\nmanifest = "{path}"\n' for path in [challenger[1], *bots])
    config = tmp_path / "t.toml"
    config.write_text(
        f'[tournament]\nname = "contain"\ngame = "leges"\nseats = 2\nformat = "gauntlet"\n'
        f'challenger = "{challenger[0]}"\nconcurrency = 2\nsandbox = "{sandbox}"\n'
        f'output = "{tmp_path / "out"}"\n[time]\ndecision_ms = 30000\n{body}')
    return config


def arena_run(config: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "curia", "arena", "run", str(config),
                           "--no-progress"], cwd=REPO, capture_output=True, text=True,
                          timeout=600)


def outcomes_of(out: Path, name: str) -> list[GameOutcome]:
    return [o for o in ResultsFile(out / "results.jsonl").load() if name in o.seating]


def copy_bot(source: Path, tmp_path: Path) -> Path:
    """A copy of a bad bot's folder (its daemons write their pids there)."""
    folder = tmp_path / source.name
    shutil.copytree(source, folder)
    return folder


# ---------------------------------------------------------------------------------------
# One unsandboxed tournament of the daemon and log-flooding bots
# ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def unsandboxed_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """`curia arena run` (sandbox = "off") of the random bot against the daemon bots and
    the log-flooding bots (stdio and gRPC each): the run's folder."""
    root = tmp_path_factory.mktemp("unsandboxed")
    daemon = copy_bot(BADBOTS / "daemon", root)
    flood = copy_bot(BADBOTS / "logflood", root)
    bots = [daemon / "bot.toml", daemon / "grpc.toml", flood / "bot.toml", flood / "grpc.toml"]
    done = arena_run(tournament(root, bots, "off"))
    try:
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
        yield root
    finally:
        kill_all(daemon_pids(daemon))


def test_no_daemon_outlives_an_unsandboxed_tournament(unsandboxed_run: Path) -> None:
    out = unsandboxed_run / "out"
    pids = daemon_pids(unsandboxed_run / "daemon")
    assert len(pids) >= 4, "each game of a daemon bot left a daemon"  # the control
    wait_until(lambda: not any(alive(pid) for pid in pids), 5,
               message=f"the daemons {[pid for pid in pids if alive(pid)]} to end")
    for name in ("bad-daemon", "bad-daemon-grpc"):
        games = outcomes_of(out, name)
        assert len(games) == 2
        assert not [o for o in games if o.forfeits or o.void], [o.reasons for o in games]
    assert "UNSANDBOXED" in (out / "leaderboard.txt").read_text()


@pytest.mark.parametrize("name", ["bad-logflood", "bad-logflood-grpc"])
def test_a_flooded_log_keeps_its_head_and_tail_under_the_cap_and_the_game_goes_on(
        unsandboxed_run: Path, name: str) -> None:
    out = unsandboxed_run / "out"
    games = outcomes_of(out, name)
    assert len(games) == 2
    assert not [o for o in games if o.forfeits or o.void], [o.reasons for o in games]
    logs = sorted((out / "logs").glob(f"*-{name}.log"))
    assert len(logs) == 2
    for path in logs:
        assert_capped(path.read_bytes(), name, stopped_at_end=True)


def test_a_flooding_stdio_bots_check_game_keeps_the_bridges_lines(server: str,
                                                                  tmp_path: Path) -> None:
    """A game of `curia arena check` (which waits for the bot to exit by itself): the
    bridge's last lines, which the check reads, land in the capped log after the bot's."""
    plan = plan_games("leges")[0]
    played = play_check_game(server, BotManifest.load(BADBOTS / "logflood" / "bot.toml"),
                             plan, tmp_path, decision_ms=30_000, seed=5)
    assert played.forfeit == "" and played.decisions > 0, played.stderr
    assert played.exit_code == 0 and bridge_slowest_ms(played.stderr) is not None
    log = tmp_path / f"{plan.game}-{plan.variant}-{plan.seats}-seat{plan.seat}.log"
    assert_capped(log.read_bytes(), "bad-logflood")
    tail = log.read_bytes()[-TAIL_BYTES:]
    assert re.search(rb"slowest answer \d+ ms", tail.split(LAST_WORDS.encode())[1])


def assert_capped(data: bytes, name: str, stopped_at_end: bool = False) -> None:
    """A flooded log: at most the cap (and the marker); the flood's first line in the
    head, the marker saying how much was cut, the last words in the tail (or, for a bot
    the arena stops the moment its game ends, `stopped_at_end`, the flood's last line:
    its words after the end may come after its SIGTERM: the stdio bot's 500,000th stderr
    line, the gRPC bot's 250,000th; CI once saw the stdio bot stopped before them)."""
    assert len(data) <= LOG_LIMIT + len(marker(10**12)), len(data)
    found = MARKER.search(data.decode("utf-8", "replace"))
    assert found, data[HEAD_BYTES - 200:HEAD_BYTES + 400]
    assert int(found.group(1)) > 40_000_000  # of the 50 MB
    head, tail = data[:HEAD_BYTES], data[-TAIL_BYTES:]
    assert b"stderr flood line 000000000 " in head
    last_line = f"flood line {FLOOD_LINES[name] - 1:09d} ".encode()
    assert LAST_WORDS.encode() in tail or (stopped_at_end and last_line in tail), tail[-300:]
    if name == "bad-logflood-grpc":
        assert b"stdout flood line 000000000 " in head


@pytest.mark.skipif(unavailable_reason() is not None,
                    reason=f"no sandbox here: {unavailable_reason()}")
@pytest.mark.xfail(strict=False, reason=(
    "flaky under load, open: the sandboxed flooding gRPC bot sometimes ends before its "
    "contact (both seats resign before the start) or the arena stops it before its last "
    "words; the cap itself is checked unsandboxed and in `curia arena check` above"))
def test_a_sandboxed_bots_log_is_capped_too(tmp_path: Path) -> None:
    bots = [BADBOTS / "logflood" / "grpc.toml"]
    done = arena_run(tournament(tmp_path, bots, "required"))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    games = outcomes_of(tmp_path / "out", "bad-logflood-grpc")
    assert len(games) == 2 and not [o for o in games if o.forfeits or o.void]
    logs = sorted((tmp_path / "out" / "logs").glob("*-bad-logflood-grpc.log"))
    assert len(logs) == 2
    for path in logs:
        assert_capped(path.read_bytes(), "bad-logflood-grpc", stopped_at_end=True)


def test_the_daemons_end_with_an_arena_killed_mid_game(tmp_path: Path) -> None:
    """kill -9 the arena: each shepherd's parent-death signal makes it sweep."""
    slow = tmp_path / "slow"
    slow.mkdir()
    (slow / "bot.py").write_text(SLOW_GRPC)
    (slow / "slow.toml").write_text('name = "slow"\nprotocol = "grpc"\n'
                                    'command = ["{python}", "bot.py"]\n')
    daemon = copy_bot(BADBOTS / "daemon", tmp_path)
    config = tournament(tmp_path, [daemon / "bot.toml", daemon / "grpc.toml"], "off",
                        challenger=("slow", slow / "slow.toml"))
    arena = subprocess.Popen([sys.executable, "-m", "curia", "arena", "run", str(config),
                              "--no-progress"], cwd=REPO, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: len(daemon_pids(daemon)) >= 2, 60, message="two daemons")
        pids = daemon_pids(daemon)
        assert all(alive(pid) for pid in pids)  # the control: running mid-game
        arena.send_signal(signal.SIGKILL)
        arena.wait()
        wait_until(lambda: not any(alive(pid) for pid in pids), 10,
                   message="the daemons to end")
    finally:
        arena.kill()
        arena.wait()
        kill_all(daemon_pids(daemon))


def test_the_stdio_bridge_ends_its_bots_daemon(client: CuriaClient, server: str,
                                               tmp_path: Path) -> None:
    """The bridge run on its own (no arena around it) contains the bot it starts."""
    daemon = copy_bot(BADBOTS / "daemon", tmp_path)
    try:
        played = play(client, server, tmp_path, [daemon / "bot.toml", RANDOM],
                      variant="revised")
        assert played.codes[0] == 0, played.explain()
        pids = daemon_pids(daemon)
        assert len(pids) == 1  # the control: the daemon was started
        wait_until(lambda: not alive(pids[0]), 5, message="the daemon to end")
    finally:
        kill_all(daemon_pids(daemon))


# ---------------------------------------------------------------------------------------
# The shepherd and the cgroups, on their own
# ---------------------------------------------------------------------------------------
#: A bot that leaves a daemon, starts a swarm of 20 processes that fork on (each child
#: calls setsid, forks once more, writes its pid and sleeps), waits for the 40 to be up,
#: prints its limits, then sleeps, or exits (code 3, or killed by signal argv[3]).
SWARM = textwrap.dedent("""
    import os, resource, sys, time
    sys.path.insert(0, sys.argv[1])
    from daemonize import leave_daemon
    leave_daemon()
    up_read, up_write = os.pipe()
    for _ in range(20):
        if os.fork() == 0:
            os.setsid()
            os.fork()
            with open(f"pids/{os.getpid()}.pid", "w") as out:
                out.write("swarm")
            os.write(up_write, b"!")
            time.sleep(3600)
    os.close(up_write)
    up = 0
    while up < 40:
        up += len(os.read(up_read, 40))
    print(resource.getrlimit(resource.RLIMIT_AS), resource.getrlimit(resource.RLIMIT_CPU),
          flush=True)
    if sys.argv[2] == "sleep":
        time.sleep(3600)
    os.kill(os.getpid(), int(sys.argv[3])) if sys.argv[3] != "0" else sys.exit(3)
""")


def groups() -> list[str]:
    """The kinds of cgroup this host lets the tests make, and "none" (the shepherd only)."""
    kinds = []
    for kind, folder in candidate_parents():
        probe = Cgroup.create(kind, folder)
        if probe is not None:
            probe.remove()
            kinds.append(kind)
    return [*kinds, "none"]


def contained(kind: str) -> Containment:
    """A containment with a cgroup of `kind` (or none)."""
    for found, folder in candidate_parents():
        if found == kind:
            return Containment(Cgroup.create(kind, folder))
    return Containment(None)


def start_swarm(tmp_path: Path, containment: Containment, end: str,
                sig: int = 0) -> subprocess.Popen[bytes]:
    (tmp_path / "pids").mkdir(exist_ok=True)
    (tmp_path / "swarm.py").write_text(SWARM)
    command = containment.command(
        [sys.executable, "swarm.py", str(BADBOTS / "daemon"), end, str(sig)],
        limits=Limits(memory_mb=512, cpu_seconds=30), cwd=tmp_path, path=os.environ["PATH"])
    assert command[:3] == [sys.executable, "-I", "-S"]
    return subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE)


@pytest.mark.parametrize("kind", groups())
def test_the_shepherd_sweeps_daemons_and_swarms_when_told(tmp_path: Path, kind: str) -> None:
    containment = contained(kind)
    assert (containment.group is None) == (kind == "none")
    assert containment.group is None or containment.group.kind in (FREEZER, V2)
    process = start_swarm(tmp_path, containment, "sleep")
    try:
        assert process.stdout is not None
        limits = process.stdout.readline().decode()  # the swarm has started
        assert limits.strip() == f"{(512 << 20, 512 << 20)} {(30, 35)}"
        pids = daemon_pids(tmp_path)
        assert len(pids) == 41 and all(alive(pid) for pid in pids)  # daemon, 20 x 2 swarm
        containment.end(process, grace=0.5)
        assert process.returncode == -signal.SIGTERM  # passed on; the bot took it
        wait_until(lambda: not any(alive(pid) for pid in pids), 5, message="the swarm")
        assert containment.group is None or not Path(containment.group.path).exists()
    finally:
        process.kill()
        kill_all(daemon_pids(tmp_path))


@pytest.mark.parametrize(("kind", "sig"), [(kind, sig) for kind in groups()
                                           for sig in (0, signal.SIGXCPU, signal.SIGKILL)])
def test_the_shepherd_sweeps_when_the_bot_exits_and_exits_as_it_did(
        tmp_path: Path, kind: str, sig: int) -> None:
    containment = contained(kind)
    process = start_swarm(tmp_path, containment, "exit", sig)
    try:
        code = process.wait(timeout=30)
        assert code == (-sig if sig else 3)
        pids = daemon_pids(tmp_path)
        assert len(pids) == 41
        assert not any(alive(pid) for pid in pids)  # swept before the shepherd exited
        containment.close()
        assert containment.group is None or not Path(containment.group.path).exists()
    finally:
        process.kill()
        kill_all(daemon_pids(tmp_path))


@pytest.mark.parametrize("kind", groups())
def test_a_shepherd_whose_starter_died_first_starts_nothing_and_leaves_nothing(
        tmp_path: Path, kind: str) -> None:
    """The starter died before the shepherd's parent-death signal was set (here: a
    shepherd told another parent): no bot, and its cgroup is removed."""
    containment = contained(kind)
    command = containment.command(["/bin/touch", str(tmp_path / "started")])
    command[command.index("--parent") + 1] = "1"
    assert subprocess.run(command).returncode == 1
    assert not (tmp_path / "started").exists()
    assert containment.group is None or not Path(containment.group.path).exists()


@pytest.mark.parametrize("kind", groups()[:-1])
def test_the_empty_cgroups_of_a_dead_arena_are_removed(kind: str) -> None:
    folder = dict(candidate_parents())[kind]
    stale = Path(folder) / "curia-bot-999999999-0"  # no such pid (above pid_max)
    (stale / "curia-bot-999999999-1").mkdir(parents=True)  # a bridge's, inside
    live = Cgroup.create(kind, folder)
    assert live is not None
    try:
        remove_stale(folder)
        assert not stale.exists()
        assert Path(live.path).exists()
    finally:
        live.remove()


def test_a_program_that_cannot_be_found_is_not_wrapped(tmp_path: Path) -> None:
    """So that starting it fails with its own error (the arena's "cannot start")."""
    command = Containment(None).command(["./missing"], cwd=tmp_path, path="")
    assert command == ["./missing"]
    with pytest.raises(FileNotFoundError):
        subprocess.Popen(command, cwd=tmp_path)


# ---------------------------------------------------------------------------------------
# The capped log, on its own
# ---------------------------------------------------------------------------------------
def test_a_capped_file_keeps_the_head_the_marker_and_the_tail(tmp_path: Path) -> None:
    capped = CappedFile(tmp_path / "log", head=10, tail=8)
    for n in range(100):
        capped.write(f"{n:02d} ".encode())  # 300 bytes: "00 01 ... 98 99 "
    assert capped.last(6) == b"98 99 "
    capped.close()
    capped.write(b"after the end")  # dropped
    assert (tmp_path / "log").read_bytes() == b"00 01 02 0" + marker(282) + b"7 98 99 "


def test_a_small_log_is_kept_whole(tmp_path: Path) -> None:
    capped = CappedFile(tmp_path / "log", head=10, tail=8)
    capped.write(b"0123456789abcdefgh")  # exactly head + tail: nothing cut
    capped.close()
    assert (tmp_path / "log").read_bytes() == b"0123456789abcdefgh"


def test_a_workers_share_of_a_log_holds_the_marker_and_the_tail() -> None:
    """A league worker ships the last LOG_TAIL_BYTES of a log (hosting.seat_jobs)."""
    assert TAIL_BYTES + len(marker(10**12)) <= LOG_TAIL_BYTES
    assert HEAD_BYTES + TAIL_BYTES == LOG_LIMIT
