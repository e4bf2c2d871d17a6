"""No bot outlives the arena: kill -9 `curia arena run` in the middle of its games, and
every bot process it started (gRPC bots, stdio bridges and their bots) is gone within a
few seconds (the kernel's parent-death signal, `hosting.limits.ended_with_parent`), where
they used to play on for 30-90 s until their calls to the vanished service gave up."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.timing import patient, wait_until

REPO = Path(__file__).resolve().parents[2]
#: A gRPC bot slow enough that the games are still on when the arena is killed.
SLOW_GRPC = """import sys
from bots.grpc_player import main
sys.exit(main(sys.argv[1:] + ["--pace", "0.3"], default_bot="random"))
"""


def marked(folder: Path) -> list[int]:
    """Live processes working in `folder` (the bots' folders of this test), but not the
    arena itself."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
            state = (entry / "stat").read_text().split(") ")[-1][:1]
        except OSError:
            continue
        if cwd.startswith(str(folder)) and state != "Z":
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="needs util-linux's setpriv")
def test_bot_processes_end_within_seconds_of_a_killed_arena(tmp_path: Path) -> None:
    grpc_bot, stdio_bot = tmp_path / "bots" / "slow", tmp_path / "bots" / "stdio"
    grpc_bot.mkdir(parents=True)
    (grpc_bot / "bot.py").write_text(SLOW_GRPC)
    (grpc_bot / "bot.toml").write_text('name = "slow"\nprotocol = "grpc"\n'
                                       'command = ["{python}", "bot.py"]\n')
    shutil.copytree(REPO / "bots" / "python_stdio", stdio_bot)
    (tmp_path / "t.toml").write_text(
        '[tournament]\nname = "orphans"\ngame = "municipium"\nvariant = "revised"\n'
        'seats = 2\nconcurrency = 2\noutput = "out"\nsandbox = "off"\n[time]\n'
        'decision_ms = 10000\n'
        f'[[bots]]\nmanifest = "{grpc_bot / "bot.toml"}"\n'
        f'[[bots]]\nmanifest = "{stdio_bot / "bot.toml"}"\n')
    arena = subprocess.Popen([sys.executable, "-m", "curia", "arena", "run",
                              str(tmp_path / "t.toml"), "--no-progress"], cwd=tmp_path,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        wait_until(lambda: len(marked(tmp_path / "bots")) >= 4, 60)  # 2 games, 2 seats each
        arena.send_signal(signal.SIGKILL)
        arena.wait()
        killed = time.monotonic()
        wait_until(lambda: not marked(tmp_path / "bots"), 10)
        assert time.monotonic() - killed < patient(5)
    finally:
        arena.kill()
        for pid in marked(tmp_path / "bots"):
            os.kill(pid, signal.SIGKILL)
