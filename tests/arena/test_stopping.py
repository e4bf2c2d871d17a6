"""Stopping `curia arena run` as a host does, with Ctrl-C in its terminal (SIGINT to the
whole foreground process group) or `kill -TERM`: one line saying what is discarded, the
bots and then the embedded Redis stopped in order, no traceback, no retry noise, exit
130; and the run resumes to a complete tournament with every game counted once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.timing import patient, wait_until

REPO = Path(__file__).resolve().parents[2]
BOTS = REPO / "bots"
INTERRUPTED = 130


def config_file(folder: Path) -> Path:
    """Two bots, 8 short games, two at a time: games are always in flight."""
    path = folder / "t.toml"
    path.write_text(
        '[tournament]\nname = "stop"\ngame = "municipium"\nvariant = "revised"\nseats = 2\n'
        'rounds = 4\nconcurrency = 2\nseed = 7\noutput = "out"\n'
        "[options]\ntarget_decurions = 4\n[time]\ndecision_ms = 10000\n"
        f'[[bots]]\nmanifest = "{BOTS / "random_bot" / "bot.toml"}"\n'
        f'[[bots]]\nmanifest = "{BOTS / "python_stdio" / "bot.toml"}"\n')
    return path


def start(config: Path) -> subprocess.Popen[str]:
    """`curia arena run` as a terminal's foreground job: its own process group."""
    return subprocess.Popen([sys.executable, "-m", "curia", "arena", "run", str(config),
                             "--no-progress"], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=terminal_signals)


def terminal_signals() -> None:
    """Ctrl-C as a terminal's foreground job gets it (a test process may have inherited
    SIGINT ignored, which its children would inherit in turn)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def descendants(pid: int) -> set[int]:
    """Every process below `pid` (bots in their own sessions, the embedded Redis)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def command_of(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def wait_for_games_in_flight(run: subprocess.Popen[str], output: Path) -> set[int]:
    """Once a game has ended and others are being played, the processes of the run."""
    results = output / "results.jsonl"
    deadline = time.monotonic() + patient(120)
    while time.monotonic() < deadline:
        assert run.poll() is None, run.communicate()
        if results.exists() and results.read_text().strip():
            processes = descendants(run.pid)
            if len(processes) >= 3:  # Redis and the bots of a game in flight
                return processes
        time.sleep(0.2)
    raise AssertionError("no game finished within 120 s")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "term"])
def test_a_stopped_run_says_one_line_stops_everything_and_resumes(tmp_path: Path,
                                                                  sig: signal.Signals) -> None:
    config = config_file(tmp_path)
    run = start(config)
    processes = wait_for_games_in_flight(run, tmp_path / "out")
    before = len((tmp_path / "out" / "results.jsonl").read_text().splitlines())
    sent = time.monotonic()
    if sig == signal.SIGINT:
        os.killpg(run.pid, sig)  # what a terminal does: the whole foreground group
    else:
        run.send_signal(sig)
    out, err = run.communicate(timeout=60)
    took = time.monotonic() - sent
    assert run.returncode == INTERRUPTED, err
    assert took < patient(15), f"stopping took {took:.1f} s"
    assert "Traceback" not in out + err and "KeyboardInterrupt" not in err
    assert "retry" not in err, "the store must not die before the service"
    stopping = [line for line in err.splitlines() if line.startswith("stopping:")]
    assert len(stopping) == 1, err
    assert "in flight" in stopping[0] and "replayed on resume" in stopping[0]
    deadline = time.monotonic() + patient(5)  # a process killed last may still be on its
    while (left := [pid for pid in processes if alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.1)  # way out (the embedded Redis, a sandbox's namespace as it is torn down)
    assert not left, ("processes left running after the run stopped: "
                      f"{ {pid: command_of(pid)[:200] for pid in left} }")

    kept = [json.loads(line) for line in
            (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert len(kept) >= before, "finished games are kept"
    if sig != signal.SIGINT:
        return  # resuming is the same after either signal
    resumed = subprocess.run([sys.executable, "-m", "curia", "arena", "run", str(config),
                              "--no-progress"], cwd=REPO, capture_output=True, text=True,
                             timeout=600)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    indices = [json.loads(line)["index"] for line in
               (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert sorted(indices) == list(range(8)), "every game once, the discarded replayed"


def test_ctrl_c_before_the_first_game_is_one_line(tmp_path: Path) -> None:
    """Stopped during the build: nothing was played, no traceback."""
    (tmp_path / "slow").mkdir()
    (tmp_path / "slow" / "bot.toml").write_text(
        'name = "slow"\nprotocol = "stdio"\ncommand = ["{python}", "-c", "pass"]\n'
        'build = ["sleep", "30"]\n')
    path = tmp_path / "t.toml"
    path.write_text('[tournament]\nname = "t"\ngame = "leges"\nseats = 2\n'
                    'output = "out"\n'
                    f'[[bots]]\nmanifest = "{BOTS / "random_bot" / "bot.toml"}"\n'
                    f'[[bots]]\nmanifest = "{tmp_path / "slow" / "bot.toml"}"\n')
    run = start(path)
    deadline = time.monotonic() + patient(60)
    while not any(command_of(pid).startswith("sleep") for pid in descendants(run.pid)):
        assert time.monotonic() < deadline and run.poll() is None, "the build never started"
        time.sleep(0.2)
    os.killpg(run.pid, signal.SIGINT)
    out, err = run.communicate(timeout=90)  # (a loaded machine)
    assert run.returncode == INTERRUPTED, err
    assert "Traceback" not in out + err
    assert err.strip().splitlines()[-1] == "stopped before any game was played"


# -- SIGTERM ends every long-running command, whatever SIGINT's inherited disposition ----
def start_ignoring_sigint(argv: list[str], log: Path, **env: str) -> subprocess.Popen[bytes]:
    """`argv` started as `nohup … &` leaves it: SIGINT ignored (by its shell, not by a
    preexec_fn)."""
    with log.open("wb") as out:
        return subprocess.Popen(["sh", "-c", 'trap "" INT; exec "$@"', "sh", *argv],
                                cwd=REPO, stdout=out, stderr=subprocess.STDOUT,
                                env={**os.environ, **env})


def assert_ends_within_5_s_of_sigterm(process: subprocess.Popen[bytes], log: Path,
                                      ready: str) -> None:
    wait_until(lambda: ready in log.read_text() or process.poll() is not None, 60,
               message=f"{ready!r} in the output")
    assert process.poll() is None, log.read_text()
    process.send_signal(signal.SIGTERM)
    try:
        wait_until(lambda: process.poll() is not None, 5, message="the end after SIGTERM")
    finally:
        process.kill()
        process.wait()


CURIA = [sys.executable, "-m", "curia"]


def test_curia_serve_ends_on_sigterm(tmp_path: Path) -> None:
    process = start_ignoring_sigint(
        [*CURIA, "serve", "--port", "0", "--data-dir", str(tmp_path / "redis")],
        tmp_path / "log")
    assert_ends_within_5_s_of_sigterm(process, tmp_path / "log", "curia serving on port")


def test_league_agent_and_worker_end_on_sigterm(tmp_path: Path, redis_url: str,
                                                server: str) -> None:
    for name, argv, ready in (
            ("agent", ["run"], "league agent"),
            ("worker", ["worker", "--logs", str(tmp_path / "logs")], "league worker")):
        log = tmp_path / name
        process = start_ignoring_sigint([*CURIA, "league", *argv, "--server", server], log,
                                        CURIA_REDIS_URL=redis_url)
        assert_ends_within_5_s_of_sigterm(process, log, ready)


def test_an_arena_with_workers_ends_on_sigterm(tmp_path: Path) -> None:
    config = config_file(tmp_path)
    log = tmp_path / "log"
    process = start_ignoring_sigint([*CURIA, "arena", "run", str(config), "--no-progress",
                                     "--workers", "2"], log)
    wait_until(lambda: (tmp_path / "out" / "results.jsonl").exists()
               or process.poll() is not None, 120, message="a result")
    workers = [pid for pid in descendants(process.pid) if " league worker " in command_of(pid)]
    assert len(workers) == 2
    assert_ends_within_5_s_of_sigterm(process, log, "workers: 2 here")
    wait_until(lambda: not any(alive(pid) for pid in workers), 5, message="no worker left")
