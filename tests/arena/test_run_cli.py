"""`curia arena run` as a host meets it: the preflight refuses a bot it cannot run (one
message naming the bot, no traceback, nothing started), resume says how far it is, a
complete tournament plays nothing and keeps no Redis data."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BOTS = REPO / "bots"


def arena_run(config: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "curia", "arena", "run", str(config),
                           "--no-progress", *extra], cwd=REPO, capture_output=True,
                          text=True, timeout=300)


def tournament(folder: Path, manifests: list[Path], head: str = "seats = 3",
               output: str = "out") -> Path:
    body = "".join(f'[[bots]]\nmanifest = "{path}"\n' for path in manifests)
    path = folder / "t.toml"
    path.write_text(f'[tournament]\nname = "t"\ngame = "municipium"\noutput = "{output}"\n'
                    f'{head}\n[time]\ndecision_ms = 10000\n{body}')
    return path


def bot(folder: Path, name: str, lines: str) -> Path:
    (folder / name).mkdir(parents=True, exist_ok=True)
    path = folder / name / "bot.toml"
    path.write_text(f'name = "{name}"\n{lines}\n')
    return path


@pytest.mark.parametrize(("lines", "problem"), [
    ('command = ["no-such-bot-binary"]', "'no-such-bot-binary' is not on PATH"),
    ('command = ["./bot"]', "'./bot' does not exist in"),
    ('command = ["{python}", "bot.py"]', "the script 'bot.py' does not exist in"),
    ('command = ["{python}", "-m", "bots.random_bot"]\nworkdir = "gone"', "gone does not exist"),
    ('command = ["{python}", "-m", "bots.random_bot"]\nbuild = ["false"]',
     "building broken failed (exit code 1)"),
    ('command = ["{python}", "-m", "bots.random_bot"]\nbuild = ["no-such-compiler"]',
     "build ['no-such-compiler']: 'no-such-compiler' is not on PATH"),
])
def test_the_preflight_refuses_a_bot_it_cannot_run(tmp_path: Path, lines: str,
                                                   problem: str) -> None:
    manifests = [BOTS / "random_bot" / "bot.toml", BOTS / "python_stdio" / "bot.toml",
                 bot(tmp_path, "broken", lines)]
    done = arena_run(tournament(tmp_path, manifests, output="runs/t"))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "curia arena: " in done.stderr and problem in done.stderr, done.stderr
    assert "'broken'" in done.stderr or "building broken" in done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "service:" not in done.stdout, "no service, so no bot, was started"
    assert not (tmp_path / "runs").exists(), "a refused first run leaves nothing behind"
    assert "every bot" not in done.stdout and "deal key" not in done.stdout, done.stdout


def test_a_config_error_is_one_message_without_the_usage_block(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text('[tournament]\nname = "t"\ngame = "municipium"\nrouns = 2\n')
    done = arena_run(path)
    assert done.returncode == 2
    assert done.stderr.startswith("curia arena run: ") and "did you mean 'rounds'" in done.stderr
    assert "usage:" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_resume_says_how_far_it_is_and_a_complete_run_plays_nothing(tmp_path: Path,
                                                                     server: str) -> None:
    stdio = bot(tmp_path, "stdio", 'protocol = "stdio"\ncommand = ["{python}", "bot.py"]\n'
                                   'build = ["true"]')
    shutil.copy(BOTS / "python_stdio" / "bot.py", stdio.parent)  # its paths stay inside
    manifests = [BOTS / "random_bot" / "bot.toml", stdio]
    config = tournament(tmp_path, manifests, 'seats = 2\nvariant = "revised"\n'
                                             "[options]\ntarget_decurions = 4")
    out = tmp_path / "out"
    first = arena_run(config, "--keep-redis")
    assert first.returncode == 0, first.stderr[-3000:]
    assert "starting: 2 games" in first.stdout and "building stdio" in first.stdout
    assert (out / "redis").is_dir(), "--keep-redis keeps the embedded Redis data"

    results = (out / "results.jsonl").read_text().splitlines()
    (out / "results.jsonl").write_text(results[0] + "\n")  # as if stopped after one game
    second = arena_run(config, "--server", server, "--keep-redis")
    assert second.returncode == 0, second.stderr[-3000:]
    assert "resuming: 1 of 2 games done" in second.stdout
    assert len((out / "results.jsonl").read_text().splitlines()) == 2

    third = arena_run(config)
    assert third.returncode == 0, third.stderr[-3000:]
    assert "complete: nothing to play (2 games in results.jsonl)" in third.stdout
    assert "building" not in third.stdout and "service:" not in third.stdout
    assert "leaderboard" in third.stdout  # the report is shown again

    report = subprocess.run([sys.executable, "-m", "curia", "arena", "report",
                             "out"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=120)  # the README's form: a folder relative to here
    assert report.returncode == 0, report.stderr[-3000:]
    assert "leaderboard" in report.stdout and (out / "index.html").resolve().as_uri() \
        in report.stdout
    assert not (out / "redis").exists(), "a complete tournament's Redis data is removed"
    assert "removed the embedded Redis data" in third.stdout


def test_a_bot_stopped_by_its_memory_limit_is_reported_so(tmp_path: Path, server: str) -> None:
    """The forfeit column of the leaderboard and the seat's log say which limit."""
    manifests = [BOTS / "random_bot" / "bot.toml",
                 Path(__file__).resolve().parent / "badbots" / "memory" / "bot.toml"]
    config = tournament(tmp_path, manifests, 'seats = 2\nvariant = "revised"\n'
                                             "[options]\nmax_turns = 20")
    done = arena_run(config, "--server", server)
    assert done.returncode == 0, done.stderr[-3000:]
    board = (tmp_path / "out" / "leaderboard.txt").read_text()
    row = next(line for line in board.splitlines() if line.lstrip().startswith("bad-memory")
               or " bad-memory " in line)
    assert "2 (exceeded memory_mb (128 MB): stdio bot exited: code 1 2)" in row, board
    logs = sorted((tmp_path / "out" / "logs").glob("*-bad-memory.log"))
    assert len(logs) == 2
    for log in logs:
        text = log.read_text()
        assert "MemoryError" in text and "exceeded memory_mb (128 MB)" in text
