"""The starter kits for bot authors (bots/starters/<language>): each builds from its
manifest, passes `curia arena check` in every game, and reads JSON right (its hand-written
parser, where the language has no JSON in its standard library).

A kit whose toolchain is missing is skipped, naming the package to install, on a
developer's machine; under CI (`CI=true`, as .ci/run runs it, which installs them) it
FAILS: there a missing toolchain is a broken machine, not a reason to skip."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.check import plan_games
from arena.config import BotManifest

REPO = Path(__file__).resolve().parents[2]
STARTERS = REPO / "bots" / "starters"
#: Kit -> the programs its build and command need, each with the Debian package that
#: brings it.
TOOLCHAINS: dict[str, dict[str, str]] = {
    "python": {},
    "node": {"node": "nodejs"},
    "rust": {"cargo": "cargo", "rustc": "rustc"},
    "go": {"go": "golang-go"},
    "java": {"javac": "default-jdk-headless", "java": "default-jdk-headless"},
    "cpp": {"g++": "g++"},
}
KITS = list(TOOLCHAINS)
#: The checks `curia arena check` prints for each game.
GAME_CHECKS = ["starts", "starts in time", "answers in time", "legal decisions",
               "survives a long game", "within its limits", "exits at the end"]
#: The games a fresh `curia` process plays (this process may also hold the plugin game
#: tests/test_plugins.py registers).
SHIPPED_GAMES = ("ciceron", "leges", "municipium")
#: The largest seed the arena gives (63 bits): every kit must read it.
SEED = str(2**63 - 1)


def require_toolchain(kit: str) -> None:
    missing = {tool: package for tool, package in TOOLCHAINS[kit].items()
               if shutil.which(tool) is None}
    if missing:
        packages = " ".join(sorted(set(missing.values())))
        message = (f"the {kit} starter kit needs {', '.join(missing)}, not on PATH: "
                   f"apt-get install -y {packages} (.ci/run installs it)")
        if under_ci():
            pytest.fail(message, pytrace=False)
        pytest.skip(message)


def under_ci() -> bool:
    """Whether the suite runs as CI runs it (`CI` set to true, as CI services set it)."""
    return os.environ.get("CI", "").lower() in ("true", "1", "yes")


def test_every_kit_is_tested() -> None:
    assert sorted(path.name for path in STARTERS.iterdir() if path.is_dir()) == sorted(KITS)


@pytest.mark.parametrize("kit", KITS)
def test_a_kit_passes_the_check_in_every_game(kit: str, tmp_path: Path) -> None:
    """`curia arena check bots/starters/<kit>`, as an author runs it: builds the kit, then
    plays every game it claims (all of them) in the sandbox, under tournament rules."""
    require_toolchain(kit)
    done = subprocess.run([sys.executable, "-m", "curia", "arena", "check",
                           str(STARTERS / kit), "--logs", str(tmp_path)],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    verdicts = [line for line in done.stdout.splitlines()
                if line.startswith(("PASS  ", "FAIL  ", "SKIP  "))]
    assert verdicts and all(line.startswith("PASS  ") for line in verdicts), output
    names = [line[6:].split(":")[0] for line in verdicts]
    assert names == ["manifest", "build", *GAME_CHECKS * len(SHIPPED_GAMES)], output
    assert f"starter-{kit} (" in verdicts[0], output
    for game in SHIPPED_GAMES:
        assert f"\n{game}:\n" in done.stdout, output
    assert "legal decisions: 0 decisions" not in output  # it decided in every game
    # every game of the check was played, and the bot logged its seed to stderr
    logs = sorted(tmp_path.glob("*.log"))
    assert len(logs) == sum(len(plan_games(game)) for game in SHIPPED_GAMES), output
    assert all(f"starter-{kit}: seed " in log.read_text() for log in logs)


#: Notations with every kind of JSON escape: the bot must answer them decoded, exactly.
TRICKY = [
    "vote \u00e9milii",                 # \u00e9: a BMP character
    'say "ave, Caesar"',               # \"
    "path a\\b\\\\c",                  # \\ (one and two backslashes)
    "slash a/b",                       # written \/ below
    "temple \U0001F3DB end",           # a surrogate pair: \ud83c\udfdb
    "tab\tinside",                     # \t
    "skip",
]
OBSERVATION = {"asked": {"step": "place", "seat": 1, "citizens": ["priest", "advocate"]},
               "numbers": [0, -12, 2.5e-3, 1e21, 9007199254740993, -0.0],
               "nested": [[], {}, [None, True, False, {"k": [{"deep": "\u2603\n\"x\""}]}]],
               "empty": "", "result": None}


def decide(legal: list[str], *, ascii_only: bool = True) -> str:
    """A decide line (json.dumps escapes non-ASCII as the bridge does, by default), with
    "/" written as "\\/" in the notations (legal JSON that json.dumps never writes)."""
    line = json.dumps({"type": "decide", "game": "municipium", "variant": "classic",
                       "seat": 1, "version": 93, "seat_names": ["blue", "orange"],
                       "observation": OBSERVATION, "legal": legal, "time_left_ms": None},
                      ensure_ascii=ascii_only)
    return line.replace("a/b", "a\\/b")


@functools.cache
def built(kit: str) -> tuple[list[str], Path]:
    """The kit built from its manifest (once per session): its command (`{python}`
    replaced) and folder."""
    require_toolchain(kit)
    manifest = BotManifest.load(STARTERS / kit / "bot.toml")
    if manifest.build:
        done = subprocess.run(manifest.build, cwd=manifest.workdir, capture_output=True,
                              text=True, timeout=600, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, done.stdout + done.stderr
    command = [sys.executable if word == "{python}" else word for word in manifest.command]
    return command, manifest.workdir


@pytest.mark.parametrize("kit", KITS)
def test_a_kit_decodes_json_escapes_and_follows_the_protocol(kit: str) -> None:
    """One decide line per tricky notation, each the only legal one, then all of them in
    one line, then one in raw UTF-8: each answer is exactly a legal notation, decoded.
    An unknown message type is skipped; "end" ends the bot with exit code 0."""
    command, folder = built(kit)
    lines = [json.dumps({"type": "greeting", "text": "a type the bot does not know"}),
             *(decide([notation]) for notation in TRICKY),
             decide(TRICKY),
             decide(["raw vote \u00e9milii \U0001F3DB"], ascii_only=False),
             json.dumps({"type": "end", "result": {"ranking": [[1], [0]]}, "forfeited": []}),
             decide(["never read: the game is over"])]
    done = subprocess.run(command, cwd=folder, input="\n".join(lines) + "\n",
                          capture_output=True, text=True, encoding="utf-8", timeout=60,
                          env={**os.environ, "CURIA_BOT_SEED": SEED})
    assert done.returncode == 0, done.stderr
    answers = done.stdout.split("\n")
    assert answers[-1] == "", f"the last answer has no newline: {done.stdout!r}"
    answers = answers[:-1]
    assert len(answers) == len(TRICKY) + 2, (answers, done.stderr)
    assert answers[:len(TRICKY)] == TRICKY, done.stderr
    assert answers[len(TRICKY)] in TRICKY, done.stderr
    assert answers[-1] == "raw vote \u00e9milii \U0001F3DB", done.stderr
    assert f"seed {SEED}" in done.stderr


@pytest.mark.parametrize("kit", KITS)
def test_a_kit_exits_0_when_stdin_closes(kit: str) -> None:
    command, folder = built(kit)
    done = subprocess.run(command, cwd=folder, input=decide(["move"]) + "\n",
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "CURIA_BOT_SEED": "0"})
    assert (done.returncode, done.stdout) == (0, "move\n"), done.stderr
