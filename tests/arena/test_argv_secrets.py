"""No secret on any command line (/proc/PID/cmdline is readable by every local user), and
the embedded service of a tournament has an operator credential of its own that no bot
gets (curia/credentials.py).

Real runs: `curia arena run` (bots started by the arena, and by `curia league worker`
processes it starts) and `curia league demo` (with `curia serve` and worker processes, and
with remote bot processes), each watched while it runs by a scan of every process's
command line, which must show no Redis URL with a password, no operator credential, no
seat token or bot key, and none of the run's actual secrets (its Redis password and
operator credential, read from their files while the run goes on). The scan must have
seen the workers, servers and bots, or it proves nothing. A bot of ours tries CreateGame
with what its environment gives it, and must be refused for want of the credential.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RANDOM = REPO / "bots" / "random_bot" / "bot.toml"
STDIO = REPO / "bots" / "python_stdio" / "bot.toml"

#: What a secret looks like on a command line, whatever its value.
SECRET_PATTERNS = {
    "a Redis URL with a password": re.compile(r"rediss?(?:\+cluster)?://[^\s@/]*:[^\s@/]+@"),
    "an operator credential flag": re.compile(r"--admin-token(?!-file)"),
    "a seat token flag": re.compile(r"--seat-token"),
    "a seat token variable": re.compile(r"CURIA_SEAT_TOKEN[= ]"),
    "a bot key variable": re.compile(r"CURIA_BOT_KEY[= ]"),
    "a bearer credential": re.compile(r"Bearer "),
}

#: The bot that tries what a bot must not be able to, then plays at random.
CREATOR = '''"""Tries CreateGame with whatever its environment gives it (as the arena's clients do:
CURIA_ADMIN_TOKEN_FILE), and reading the tournament's operator credential file; then
plays at random."""
import os
import sys
from pathlib import Path

import grpc

from client.unary import CuriaClient


def attempt_create(target):
    try:
        with CuriaClient(target, timeout=20) as client:  # security from the environment
            client.create_game("leges", "standard", 2)
        return "OK"
    except grpc.RpcError as error:
        reason = dict(error.trailing_metadata() or ()).get("curia-reason", "")
        return f"{error.code().name} {reason}"
    except Exception as error:
        return type(error).__name__


def attempt_read(path):
    try:
        Path(path).read_text()
        return "SUCCEEDED"
    except OSError as error:
        return f"FAILED {type(error).__name__}"


target = sys.argv[sys.argv.index("--server") + 1]
print("ENV operator=%s redis=%s" % ("CURIA_ADMIN_TOKEN_FILE" in os.environ,
                                    "CURIA_REDIS_URL" in os.environ), flush=True)
print("ATTEMPT create-game " + attempt_create(target), flush=True)
steal = Path(__file__).with_name("steal.txt").read_text().strip()
print("ATTEMPT read-operator-token " + attempt_read(steal), flush=True)

from bots.grpc_player import main  # noqa: E402

sys.exit(main(sys.argv[1:], default_bot="random"))
'''


@dataclass
class Scan:
    """Every command line seen while a run went on: those of the run's own processes
    (descendants of its first process, or naming its folder), the secret values read from
    the run's files meanwhile, and the environments of the processes `keep_environ`
    picks."""

    root: int
    folder: Path
    secret_files: Callable[[], Iterable[Path]]
    keep_environ: Callable[[str], bool]
    ours: set[str] = field(default_factory=set)
    pids: dict[str, set[int]] = field(default_factory=dict)
    others: set[str] = field(default_factory=set)
    secrets: dict[str, str] = field(default_factory=dict)
    modes: dict[str, int] = field(default_factory=dict)
    environs: dict[str, dict[str, str]] = field(default_factory=dict)
    rounds: int = 0

    def poll(self) -> None:
        for path in self.secret_files():
            if str(path) not in self.secrets:
                try:
                    value = path.read_text().strip()
                    self.modes[str(path)] = stat.S_IMODE(path.stat().st_mode)
                except (OSError, UnicodeDecodeError):
                    continue
                if value:
                    self.secrets[str(path)] = value
        parents: dict[int, int] = {}
        lines: dict[int, str] = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                raw = (entry / "cmdline").read_bytes()
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:  # gone meanwhile
                continue
            pid = int(entry.name)
            parents[pid] = int(fields[1])
            lines[pid] = raw.replace(b"\0", b" ").decode(errors="replace").strip()
        for pid, line in lines.items():
            if not line:
                continue
            if self._descends(pid, parents) or str(self.folder) in line:
                if line not in self.ours and self.keep_environ(line):
                    self._keep_environ(pid, line)
                self.ours.add(line)
                self.pids.setdefault(line, set()).add(pid)
            else:
                self.others.add(line)
        self.rounds += 1

    def _descends(self, pid: int, parents: dict[int, int]) -> bool:
        for _ in range(64):
            if pid == self.root:
                return True
            if pid not in parents or pid <= 1:
                return False
            pid = parents[pid]
        return False

    def _keep_environ(self, pid: int, line: str) -> None:
        try:
            raw = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            return
        self.environs[line] = dict(item.partition("=")[::2] for item in
                                   raw.decode(errors="replace").split("\0") if item)

    def leaks(self) -> list[str]:
        """Every secret found on a command line: a pattern on the run's own, an actual
        secret value on any at all."""
        found = [f"{what}: {line}" for line in self.ours
                 for what, pattern in SECRET_PATTERNS.items() if pattern.search(line)]
        found += [f"the secret of {path}: {line}" for line in self.ours | self.others
                  for path, value in self.secrets.items() if value in line]
        return found

    def seen(self, *words: str) -> list[str]:
        """The run's command lines that contain every one of `words`."""
        return sorted(line for line in self.ours if all(word in line for word in words))

    def processes(self, *words: str) -> int:
        """How many of the run's processes had a command line with every one of `words`
        (a process that forks shows its command line in the child until it execs)."""
        return len({pid for line in self.seen(*words) for pid in self.pids[line]})


def watched_run(command: list[str], folder: Path, secret_files: Callable[[], Iterable[Path]],
                keep_environ: Callable[[str], bool] = lambda line: False,
                env: dict[str, str] | None = None, timeout: float = 600.0
                ) -> tuple[subprocess.CompletedProcess[str], Scan]:
    """Run `command` to its end while a thread scans /proc again and again."""
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               env={**os.environ, **(env or {})})
    scan = Scan(process.pid, folder, secret_files, keep_environ)
    stop = threading.Event()

    def scanning() -> None:
        while not stop.is_set():
            scan.poll()
            stop.wait(0.01)  # the polling period: the run's end is what stops it

    thread = threading.Thread(target=scanning, daemon=True)
    thread.start()
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
    finally:
        stop.set()
        thread.join(timeout=30)
    assert scan.rounds > 10, "the scan hardly ran"
    return subprocess.CompletedProcess(command, process.returncode, out, err), scan


def creator_bot(folder: Path, steal: Path) -> Path:
    """The fixture bot (CREATOR) in `folder`, told which file to try to read."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.py").write_text(CREATOR)
    (folder / "steal.txt").write_text(f"{steal}\n")
    manifest = folder / "bot.toml"
    manifest.write_text('name = "creator"\nlanguage = "python"\nprotocol = "grpc"\n'
                        'command = ["{python}", "bot.py"]\nworkdir = "."\n'
                        '[limits]\nmemory_mb = 2048\ncpu_seconds = 120\n')
    return manifest


def tournament(folder: Path, bots: list[Path], fmt: str, sandbox: str = "auto") -> Path:
    """A two-seat Leges tournament of `bots` (the first is the gauntlet's challenger)."""
    challenger = 'challenger = "creator"\n' if fmt == "gauntlet" else ""
    body = "".join(f'[[bots]]\nmanifest = "{path}"\n' for path in bots)
    path = folder / "tournament.toml"
    path.write_text(f'[tournament]\nname = "argv"\ngame = "leges"\nvariant = "standard"\n'
                    f'seats = 2\nformat = "{fmt}"\n{challenger}rounds = 1\nseed = 5\n'
                    f'concurrency = 2\nsandbox = "{sandbox}"\noutput = "{folder / "run"}"\n'
                    f'[time]\ndecision_ms = 5000\nbank_ms = 60000\n{body}')
    return path


def arena_secret_files(run: Path) -> Callable[[], list[Path]]:
    return lambda: [run / "redis" / "redis.password", run / "private" / "operator.token",
                    run / "private" / "deal.key"]


#: The service's answer to a CreateGame without the operator credential.
REFUSED = "ATTEMPT create-game UNAUTHENTICATED operator_required"
#: The sandbox's door (hosting/door.py), which forwards a seat's calls only, may answer first.
DOOR_REFUSED = "ATTEMPT create-game PERMISSION_DENIED door_denied"


def creator_lines(run: Path) -> list[str]:
    return [line for log in sorted((run / "logs").glob("*-creator.log"))
            for line in log.read_text(errors="replace").splitlines()
            if line.startswith(("ATTEMPT ", "ENV "))]


def assert_creator_refused(run: Path, games: int, sandbox: str) -> None:
    """The creator played `games` games, and in each its CreateGame was refused, with no
    credential or Redis URL in its environment; unsandboxed, by the service itself for
    want of the credential."""
    lines = creator_lines(run)
    assert len(list((run / "logs").glob("*-creator.log"))) == games
    assert lines.count("ENV operator=False redis=False") == games, lines
    attempts = [line for line in lines if line.startswith("ATTEMPT create-game")]
    assert len(attempts) == games, lines
    assert set(attempts) <= ({REFUSED} if sandbox == "off" else {REFUSED, DOOR_REFUSED}), \
        attempts
    if sandbox == "auto":  # bubblewrap is installed: the sandbox hides the file
        assert lines.count("ATTEMPT read-operator-token FAILED FileNotFoundError") == games


def assert_run_secrets_seen_and_kept(scan: Scan, run: Path,
                                     done: subprocess.CompletedProcess[str]) -> None:
    """The scan knew the run's Redis password and operator credential (so their absence
    means something), the credential's file was private and is gone, and neither value
    was printed."""
    password, token = run / "redis" / "redis.password", run / "private" / "operator.token"
    assert str(password) in scan.secrets and str(token) in scan.secrets, scan.secrets.keys()
    assert scan.modes[str(token)] == 0o600
    assert not token.exists(), "the operator credential's file outlived the run"
    for value in (scan.secrets[str(password)], scan.secrets[str(token)]):
        assert value not in done.stdout + done.stderr


@pytest.mark.parametrize("sandbox", ["auto", "off"])
def test_a_tournament_on_workers_puts_no_secret_on_a_command_line(tmp_path: Path,
                                                                  sandbox: str) -> None:
    """The arena and its two workers; in their sandboxes (a bot's environment is then on
    bwrap's command line) or not (a bot inherits its worker's environment)."""
    run = tmp_path / "run"
    creator = creator_bot(tmp_path / "creator", run / "private" / "operator.token")
    config = tournament(tmp_path, [creator, RANDOM, STDIO], "round-robin", sandbox)
    done, scan = watched_run(
        [sys.executable, "-m", "curia", "arena", "run", str(config), "--no-progress",
         "--workers", "2"], tmp_path, arena_secret_files(run),
        keep_environ=lambda line: "league worker" in line or "--game-id" in line)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert "workers: 2 here" in done.stdout
    assert not scan.leaks(), scan.leaks()
    # the scan saw both workers, and bots they started (so it would have seen a leak)
    for index in (0, 1):
        assert scan.seen("league worker", f"--logs {run / 'worker-logs' / f'w{index}'}")
    assert scan.seen("--game-id", "bot.py"), sorted(scan.ours)
    assert_run_secrets_seen_and_kept(scan, run, done)
    # the workers got the Redis by their environment, and no operator credential
    workers = [env for line, env in scan.environs.items() if "league worker" in line]
    assert len(workers) == 2
    assert all(env.get("CURIA_REDIS_URL", "").startswith("redis://:") for env in workers)
    assert not any("CURIA_ADMIN_TOKEN_FILE" in env for env in workers)
    bots = [env for line, env in scan.environs.items() if "--game-id" in line]
    assert bots, "no bot's environment was read"
    assert not any({"CURIA_REDIS_URL", "CURIA_ADMIN_TOKEN_FILE"} & env.keys() for env in bots)
    # the creator, started by a worker, was refused CreateGame in each of its 4 games
    assert_creator_refused(run, 4, sandbox)


@pytest.mark.parametrize("sandbox", ["auto", "off"])
def test_the_embedded_service_refuses_creategame_to_a_bot(tmp_path: Path,
                                                          sandbox: str) -> None:
    """The arena's own client creates every game with the run's operator credential; a
    bot's CreateGame, with all its environment gives it, is UNAUTHENTICATED (in its
    sandbox, through its door; unsandboxed, straight to the port)."""
    run = tmp_path / "run"
    creator = creator_bot(tmp_path / "creator", run / "private" / "operator.token")
    config = tournament(tmp_path, [creator, RANDOM], "gauntlet", sandbox)
    done, scan = watched_run(
        [sys.executable, "-m", "curia", "arena", "run", str(config), "--no-progress"],
        tmp_path, arena_secret_files(run))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert "CreateGame needs its operator credential" in done.stdout
    assert not scan.leaks(), scan.leaks()
    assert scan.seen("--game-id", "bot.py"), sorted(scan.ours)
    assert_run_secrets_seen_and_kept(scan, run, done)
    assert_creator_refused(run, 2, sandbox)


@pytest.mark.parametrize("mode", [["--servers", "2", "--workers", "2"], []],
                         ids=["servers-and-workers", "remote-bots"])
def test_a_league_demo_puts_no_secret_on_a_command_line(tmp_path: Path,
                                                        mode: list[str]) -> None:
    """`curia league demo` in its private folder under TMPDIR: `curia serve` processes and
    workers get the Redis URL by their environment and the servers the operator
    credential's file; the bots only their key, in their environment."""
    def secret_files() -> list[Path]:
        return [path for folder in tmp_path.glob("curia-league-*")
                for path in (folder / "redis" / "redis.password",
                             folder / "operator" / "operator.token")]

    done, scan = watched_run(
        [sys.executable, "-m", "curia", "league", "demo", "--game", "leges", "--games",
         "4", *mode], tmp_path, secret_files,
        keep_environ=lambda line: "curia serve" in line or "league worker" in line,
        env={"TMPDIR": str(tmp_path)})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert "4 games in" in done.stdout
    assert not scan.leaks(), scan.leaks()
    names = {Path(path).name for path in scan.secrets}
    assert names == {"redis.password", "operator.token"}, names
    assert all(mode == 0o600 for mode in scan.modes.values()), scan.modes
    for value in scan.secrets.values():
        assert value not in done.stdout + done.stderr
    if mode:
        assert scan.processes("curia serve", "--admin-token-file") >= 2, sorted(scan.ours)
        for index in (0, 1):
            assert scan.seen("league worker", f"{os.sep}w{index} "), sorted(scan.ours)
        for line in scan.seen("curia serve") + scan.seen("league worker"):
            env = scan.environs[line]
            assert env.get("CURIA_REDIS_URL", "").startswith("redis://:"), line
            assert "CURIA_ADMIN_TOKEN_FILE" not in env
        assert scan.seen("--game-id"), sorted(scan.ours)  # the hosted bots
    else:
        assert len(scan.seen("bots.play_client")) == 4, sorted(scan.ours)  # 4 seeds
