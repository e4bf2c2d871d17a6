"""`curia arena check`: the shipped bots pass, each bad bot fails its own check, clearly,
with its stderr; a bot that cannot be started fails before any server starts."""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.check import check_bot, patience_ms, plan_games

REPO = Path(__file__).resolve().parents[2]
BADBOTS = Path(__file__).resolve().parent / "badbots"


def check(bot: Path, server: str, *, game: str | None = "municipium",
          decision_ms: int = 5000, startup_ms: int = 10_000
          ) -> tuple[bool, dict[str, str], str]:
    """Run the check on the test server: (passed, check name -> its line, the output)."""
    out = io.StringIO()
    passed = check_bot(bot, out, lambda: contextlib.nullcontext(server), game=game,
                       decision_ms=decision_ms, startup_ms=startup_ms)
    text = out.getvalue()
    lines = {line[6:].split(":")[0]: line for line in text.splitlines()
             if line.startswith(("PASS  ", "FAIL  ", "SKIP  "))}
    return passed, lines, text


@contextlib.contextmanager
def no_server() -> Iterator[str]:
    raise AssertionError("no server should start for a bot that cannot run")
    yield ""  # pragma: no cover


def test_a_check_plays_every_variant_and_a_long_game() -> None:
    plans = plan_games("municipium")
    assert [(p.variant, p.seats, p.long) for p in plans] == [
        ("classic", 3, False), ("revised", 2, False), ("classic", 5, True)]
    assert len({p.seat for p in plans}) == 3  # the bot sits in different seats


def test_a_shipped_stdio_bot_passes_from_the_command_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "curia", "arena", "check",
                           str(REPO / "bots" / "python_stdio"), "--game", "municipium",
                           "--logs", str(tmp_path)],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    verdicts = [line for line in done.stdout.splitlines() if line[:4] in ("PASS", "FAIL")]
    names = [line[6:].split(":")[0] for line in verdicts[:-1]]
    assert names == ["manifest", "game", "build", "starts", "starts in time",
                     "answers in time", "legal decisions", "survives a long game",
                     "within its limits", "exits at the end"]
    assert all(line.startswith("PASS") for line in verdicts), done.stdout
    # a stdio bot's answers are timed by its bridge: the bot's own time, not the bridge's
    own = [int(ms) for log in tmp_path.glob("*.log") for ms in re.findall(
        r"slowest answer (\d+) ms \(the bot's own time\)", log.read_text())]
    assert len(own) == len(plan_games("municipium")), "one figure per game's log"
    answers = next(line for line in verdicts if "answers in time" in line)
    assert f"slowest answer {max(own)} ms (limit 5000 ms)" in answers, answers


def test_a_shipped_grpc_bot_passes(server: str) -> None:
    passed, lines, text = check(REPO / "bots" / "random_bot", server, game="leges")
    assert passed, text
    assert "0 decisions" not in lines["legal decisions"]


@pytest.mark.parametrize(("bot", "game", "failed", "says", "stderr"), [
    ("memory", "leges", "within its limits", "exceeded memory_mb (128 MB)", "MemoryError"),
    ("illegal", "municipium", "legal decisions", "illegal decision", ""),
    ("hang", "leges", "answers in time", "timed out (500 ms)", "not answering, on purpose"),
    ("crash", "leges", "survives a long game", "stdio bot exited: code 1",
     "exiting 1 on purpose"),
    ("linger", "leges", "exits at the end", "still running", "not exiting, on purpose"),
])
def test_each_bad_bot_fails_its_check_with_its_stderr(server: str, bot: str, game: str,
                                                      failed: str, says: str,
                                                      stderr: str) -> None:
    """Leges has one variant: two games (a short one and the long one) per check. Only
    the bot that never answers gets a short time limit."""
    passed, lines, text = check(BADBOTS / bot, server, game=game,
                                decision_ms=500 if bot == "hang" else 5000)
    assert not passed
    assert lines[failed].startswith("FAIL"), text
    assert says in lines[failed], text
    assert stderr in text.split(lines[failed], 1)[1], text  # the stderr under the line
    assert lines["manifest"].startswith("PASS") and lines["build"].startswith("PASS")
    if bot == "crash":  # it finished no game: whether it exits at the end is not known
        assert lines["exits at the end"].startswith("SKIP  exits at the end: not judged")


def test_a_bot_slow_to_start_fails_its_own_line_and_loses_no_decision_time(
        server: str) -> None:
    """The bot takes 3 s to start. With startup_ms = 1500 the check says so, on its own
    line; its clock starts at its contact, so a 2 s decision limit is never missed."""
    passed, lines, text = check(BADBOTS / "slowstart", server, game="leges",
                                decision_ms=2000, startup_ms=1500)
    assert not passed
    slow = re.search(r"slow to start \((\d+) ms, limit 1500 ms\)", lines["starts in time"])
    assert lines["starts in time"].startswith("FAIL") and slow, text
    assert 3000 <= int(slow.group(1)) < patience_ms(1500), text
    assert "slow-start: starting" in text.split(lines["starts in time"], 1)[1], text
    for name in ("starts", "answers in time", "legal decisions", "survives a long game"):
        assert lines[name].startswith("PASS"), text
    assert "timed out" not in text


def test_a_bot_within_its_start_up_limit_passes_it(server: str) -> None:
    passed, lines, text = check(BADBOTS / "slowstart", server, game="leges",
                                decision_ms=2000, startup_ms=20_000)  # 3 s, and a loaded
    assert passed, text  # machine's start of Python (8.9 s seen beside a CPU burner)
    slowest = re.search(r"slowest start (\d+) ms \(limit 20000 ms\)", lines["starts in time"])
    assert slowest and int(slowest.group(1)) >= 3000, text


def test_a_bot_whose_command_is_missing_fails_before_any_game(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text('name = "ghost"\ncommand = ["no-such-bot-binary"]\n')
    out = io.StringIO()
    assert not check_bot(tmp_path, out, no_server, game="municipium")
    assert "FAIL  build: bot 'ghost'" in out.getvalue()
    assert "['no-such-bot-binary']: 'no-such-bot-binary' is not on PATH" in out.getvalue()


def test_the_command_line_fails_with_exit_code_1_and_no_traceback(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text('name = "ghost"\ncommand = ["bot"]\n'
                                       'workdir = "missing"\n')
    done = subprocess.run([sys.executable, "-m", "curia", "arena", "check", str(tmp_path)],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "FAIL  build" in done.stdout and "missing does not exist" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_a_game_the_bot_does_not_claim_is_refused(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text('name = "m"\ncommand = ["{python}", "bot.py"]\n'
                                       'games = ["municipium"]\n')
    out = io.StringIO()
    assert not check_bot(tmp_path, out, no_server, game="leges")
    assert "FAIL  game: the manifest's games = ['municipium'] does not name leges" in \
        out.getvalue()
