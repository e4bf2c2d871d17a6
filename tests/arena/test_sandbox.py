"""The bot sandbox (hosting/sandbox.py): malicious bots in real tournaments run by `curia
arena run`, each attack failing inside the sandbox, and succeeding without it (so the
fixtures do attack); the sandbox's layout and its refusal on a host without bwrap."""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena.config import BotManifest, ConfigError, TournamentConfig
from arena.runner import ResultsFile, Tournament
from hosting import stdio_bridge
from hosting.launcher import BotProcess
from hosting.limits import Limits
from hosting.sandbox import Layout, Sandbox, SandboxPlan, end_sandbox, unavailable_reason
from tests.timing import patient, wait_until

REPO = Path(__file__).resolve().parents[2]
INTRUDER = Path(__file__).resolve().parent / "badbots" / "intruder"

#: Writes a bot may make: in its own copy of its folder and its private /tmp.
PRIVATE_WRITES = ("SUCCEEDED (intruder-was-here.txt)", "SUCCEEDED (/tmp/intruder-was-here.txt)")

needs_bwrap = pytest.mark.skipif(unavailable_reason() is not None,
                                 reason=f"no sandbox here: {unavailable_reason()}")


def manifest(folder: Path, name: str, words: list[str], protocol: str = "stdio",
             limits: str = "") -> Path:
    """A bot manifest in `folder` (its workdir)."""
    path = folder / f"{name}.toml"
    command = ", ".join(f'"{w}"' for w in words)
    path.write_text(f'name = "{name}"\nprotocol = "{protocol}"\ncommand = [{command}]\n'
                    f'workdir = "."\n[limits]\nmemory_mb = 1024\ncpu_seconds = 60\n{limits}')
    return path


def run_tournament(tmp_path: Path, bots: list[Path], sandbox: str,
                   env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`curia arena run` on a Leges gauntlet of the shipped random bot against `bots`."""
    body = "".join(f'[[bots]]\nmanifest = "{path}"\n' for path in bots)
    config = tmp_path / "t.toml"
    config.write_text(
        f'[tournament]\nname = "t"\ngame = "leges"\nseats = 2\nformat = "gauntlet"\n'
        f'challenger = "random"\nconcurrency = 2\nsandbox = "{sandbox}"\n'
        f'output = "{tmp_path / "out"}"\n[time]\ndecision_ms = 10000\n'
        f'[[bots]]\nmanifest = "{REPO / "bots" / "random_bot" / "bot.toml"}"\n{body}')
    return subprocess.run([sys.executable, "-m", "curia", "arena", "run", str(config),
                           "--no-progress"], cwd=REPO, capture_output=True, text=True,
                          timeout=300, env={**os.environ, **env})


def attack_lines(out: Path, name: str) -> list[str]:
    """Every "ATTACK ..." line in the logs of bot `name`."""
    return [line for log in sorted((out / "logs").glob(f"*-{name}.log"))
            for line in log.read_text(errors="replace").splitlines()
            if line.startswith("ATTACK ")]


@pytest.fixture
def scene(tmp_path: Path) -> dict[str, Path]:
    """The intruder's folder (with a credential file inside it, named by the arena's
    environment), a victim bot's folder with its secret strategy."""
    intruder = tmp_path / "intruder"
    shutil.copytree(INTRUDER, intruder)
    (intruder / "secrets").mkdir()
    (intruder / "secrets" / "admin.token").write_text("operator-secret-0123456789abcdef")
    victim = tmp_path / "victim"
    shutil.copytree(REPO / "bots" / "python_stdio", victim)
    (victim / "strategy.txt").write_text("the victim's secret opening book")
    return {"root": tmp_path, "intruder": intruder, "victim": victim,
            "out": tmp_path / "out"}


def intruders(scene: dict[str, Path]) -> list[Path]:
    """One bot per attack (a gRPC one for the network), and the victim."""
    folder, out = scene["intruder"], scene["out"]
    secret_files = [str(scene["victim"] / "strategy.txt"), str(scene["victim"]),
                    str(out / "redis" / "redis.password"), str(out),
                    str(folder / "secrets" / "admin.token")]
    write_targets = [str(out), str(scene["victim"]), str(REPO / "games"), "/tmp", "."]
    python = "{python}"
    return [
        manifest(folder, "read-files", [python, "intruder.py", "read-files", *secret_files]),
        manifest(folder, "environment", [python, "intruder.py", "environment",
                                         os.environ["ARENA_SECRET"]]),
        manifest(folder, "connect", [python, "intruder.py", "connect", "--grpc"],
                 protocol="grpc"),
        manifest(folder, "fork-bomb", [python, "intruder.py", "fork-bomb"],
                 limits="processes = 32\n"),
        manifest(folder, "write", [python, "intruder.py", "write", *write_targets]),
        manifest(scene["victim"], "victim", [python, "bot.py"]),
    ]


@needs_bwrap
def test_every_attack_fails_inside_the_sandbox_and_the_tournament_goes_on(
        scene: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    secret = secrets.token_hex(8)
    monkeypatch.setenv("ARENA_SECRET", secret)
    env = {"ARENA_SECRET": secret,
           "CURIA_ADMIN_TOKEN_FILE": str(scene["intruder"] / "secrets" / "admin.token")}
    done = run_tournament(scene["root"], intruders(scene), "required", env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    out = scene["out"]
    for name in ("read-files", "environment", "connect", "fork-bomb", "write"):
        lines = attack_lines(out, name)
        assert lines, f"{name} never attacked"
        got_through = [line for line in lines if "SUCCEEDED" in line
                       and not line.endswith(PRIVATE_WRITES)]
        assert not got_through, got_through
    assert any("stopped after" in line for line in attack_lines(out, "fork-bomb"))
    outcomes = ResultsFile(out / "results.jsonl").load()
    assert len(outcomes) == 12
    assert not [o for o in outcomes if o.forfeits], [o.reasons for o in outcomes]
    assert not list(scene["intruder"].glob("intruder-was-here.txt"))  # only its copy
    assert not list(scene["victim"].glob("intruder-was-here.txt"))
    assert not list(out.glob("intruder-was-here.txt"))
    assert not Path("/tmp/intruder-was-here.txt").exists()  # its /tmp was its own
    assert "sandbox: every bot ran in its sandbox" in (out / "leaderboard.txt").read_text()
    left = subprocess.run(["pgrep", "-f", str(scene["intruder"])], capture_output=True)
    assert left.stdout == b"", "the fork bomb's processes outlived the tournament"


def test_the_same_attacks_get_through_without_the_sandbox(
        scene: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """The control: with sandbox = "off" the fixtures do read, find and connect."""
    secret = secrets.token_hex(8)
    monkeypatch.setenv("ARENA_SECRET", secret)
    bots = [b for b in intruders(scene) if b.stem in ("read-files", "environment",
                                                      "connect", "victim")]
    done = run_tournament(scene["root"], bots, "off", {"ARENA_SECRET": secret})
    assert done.returncode == 0, done.stderr[-3000:]
    out = scene["out"]
    for name in ("read-files", "environment", "connect"):
        assert any("SUCCEEDED" in line for line in attack_lines(out, name)), name
    report = (out / "leaderboard.txt").read_text()
    assert re.search(r"sandbox: UNSANDBOXED .*random.*sandbox = \"off\"", report), report


def test_a_required_sandbox_on_a_host_without_bwrap_is_refused_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap on PATH
    unavailable_reason.cache_clear()
    try:
        bots = [BotManifest.load(REPO / "bots" / n / "bot.toml")
                for n in ("random_bot", "python_stdio")]
        with pytest.raises(ConfigError) as refused:
            SandboxPlan.make("required", bots)
        assert str(refused.value) == (
            'the tournament has sandbox = "required" but bubblewrap (bwrap) is not '
            'installed: install bubblewrap (apt-get install bubblewrap) or set '
            'sandbox = "off"')
        auto = SandboxPlan.make("auto", bots)
        assert auto.layout is None and "UNSANDBOXED" in auto.summary()
    finally:
        unavailable_reason.cache_clear()


def test_a_manifest_may_not_opt_out_of_a_required_sandbox(tmp_path: Path) -> None:
    bot = manifest(tmp_path, "trusted", ["{python}", "bot.py"])
    bot.write_text(bot.read_text().replace('workdir = "."', 'workdir = "."\nsandbox = false'))
    config = tmp_path / "t.toml"
    config.write_text(f'[tournament]\ngame = "leges"\nseats = 2\nsandbox = "required"\n'
                      f'[[bots]]\nmanifest = "{bot}"\n'
                      f'[[bots]]\nmanifest = "{REPO / "bots" / "random_bot" / "bot.toml"}"\n')
    with pytest.raises(ConfigError, match=r"'trusted' .* asks to run unsandboxed"):
        TournamentConfig.load(config)


def test_hidden_paths_are_masked_inside_trees_but_never_above_the_bots_folder(
        tmp_path: Path) -> None:
    tree, own, other = tmp_path / "tree", tmp_path / "tree" / "own", tmp_path / "tree" / "b"
    layout = Layout(trees=(tree,), hidden=(tmp_path, own, other, tmp_path / "elsewhere"))
    assert layout.masks([tree], own) == [other]


@needs_bwrap
def test_a_run_folder_inside_the_bots_folder_is_not_copied_into_its_sandbox(
        tmp_path: Path) -> None:
    """The sandbox's copy of the bot's folder has the bot's files, not a hidden run
    folder inside it; the copy is the sandbox's own (written there, gone with it)."""
    from hosting.limits import Limits
    from hosting.sandbox import Sandbox, environment

    (tmp_path / "bot.py").write_text("pass")
    (tmp_path / "runs" / "t").mkdir(parents=True)
    (tmp_path / "runs" / "t" / "results.jsonl").write_text("{}")
    box = Sandbox(Layout(trees=(), hidden=(tmp_path / "runs" / "t",)), tmp_path)
    script = "ls bot.py; ls runs/t | wc -l; touch mine.txt && echo wrote"
    try:
        command = box.command(["/bin/sh", "-c", script], Limits(),
                              setenv=environment(sys.executable, {}))
        done = subprocess.run(command, capture_output=True, text=True, timeout=30)
    finally:
        box.close()
    assert done.stdout.split() == ["bot.py", "0", "wrote"], done.stderr
    assert not (tmp_path / "mine.txt").exists()


def test_tournament_plan_hides_the_run_folder_and_entrants_but_not_shipped_code(
        tmp_path: Path) -> None:
    entrant = BotManifest.load(manifest(tmp_path, "entrant", ["{python}", "bot.py"]))
    shipped = BotManifest.load(REPO / "bots" / "random_bot" / "bot.toml")
    config = TournamentConfig(name="t", game="leges", variant="standard", seats=2,
                              format="round-robin", seed=1, bots=(entrant, shipped),
                              output=tmp_path / "out")
    plan = Tournament(config, "unused", tmp_path / "out").sandbox_plan()
    if plan.layout is None:
        pytest.skip("no sandbox here")
    assert {(tmp_path / "out").resolve(), entrant.workdir} <= set(plan.layout.hidden)
    assert shipped.workdir not in plan.layout.hidden


@needs_bwrap
def test_a_tree_under_tmp_stays_visible_beside_the_private_tmp(tmp_path: Path) -> None:
    """A clone in /tmp: its packages are bound over the sandbox's own /tmp, not hidden by
    it (the fresh-clone run that found it had every gRPC bot crash on `No module named`)."""
    from hosting.limits import Limits
    from hosting.sandbox import Sandbox, environment

    tree, own = tmp_path / "clone" / "games", tmp_path / "bot"
    tree.mkdir(parents=True)
    (tree / "rules.txt").write_text("public rules")
    own.mkdir()
    box = Sandbox(Layout(trees=(tree,), hidden=()), own)
    try:
        command = box.command(["cat", str(tree / "rules.txt")], Limits(),
                              setenv=environment(sys.executable, {}))
        done = subprocess.run(command, capture_output=True, text=True, timeout=30)
    finally:
        box.close()
    assert done.stdout == "public rules", done.stderr


# -- a sandbox stopped while it is being set up -------------------------------------------
def first_child(pid: int) -> int:
    """The first child of `pid` the moment it exists: polled flat out, so that a sandbox is
    caught while bwrap sets it up."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    deadline = time.monotonic() + patient(30)
    while not (found := children.read_text().split()):
        assert time.monotonic() < deadline, f"process {pid} started no child"
    return int(found[0])


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@needs_bwrap
@pytest.mark.parametrize("protocol", ["grpc", "stdio"])
def test_a_bot_stopped_while_its_sandbox_is_set_up_leaves_nothing_running(
        tmp_path: Path, protocol: str) -> None:
    """The arena stopped in the instant a game's bot started (`terminate`, as on Ctrl-C or
    SIGTERM): its sandbox ends, without waiting for `stop` (which a stop's backstop may cut
    short). Killing bwrap alone left the sandbox's first process running: it waits for
    bwrap on an eventfd while it is set up, as the first process of a PID namespace it
    ignores SIGTERM, and it asks to die with bwrap only once its mounts are made."""
    path = manifest(tmp_path, "sleeper", ["{python}", "-c", "import time; time.sleep(60)"],
                    protocol)
    bot = BotProcess.start(BotManifest.load(path), server="127.0.0.1:9", game_id="g",
                           seat=0, token="not-a-token", seed=1, log_path=tmp_path / "bot.log",
                           layout=Layout.for_run([tmp_path / "out"]))
    bwrap = bot.process.pid if protocol == "grpc" else first_child(bot.process.pid)
    inside = first_child(bwrap)  # the sandbox's first process, while bwrap sets it up
    try:
        bot.terminate()
        wait_until(lambda: not alive(inside), 30, message="the sandbox to end")  # (a loaded
        # run: the bridge ends it once its Python handles the signal; never, before the fix)
    finally:
        bot.stop()
        with contextlib.suppress(ProcessLookupError):
            os.kill(inside, signal.SIGKILL)  # (so that a failure leaves nothing behind)


@needs_bwrap
def test_a_bridge_stopped_while_it_starts_its_bots_sandbox_ends_the_sandbox(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGTERM to a stdio bot's bridge in the instant its bot's sandbox has just started
    (the arena stopping): the bridge still ends that sandbox before it exits. (Raised in
    the middle of starting it, the bridge's exit used to leave the sandbox running.)"""
    started: list[stdio_bridge.StdioBot] = []

    class StartedThenStopped(stdio_bridge.StdioBot):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            started.append(self)
            signal.raise_signal(signal.SIGTERM)  # to this thread: handled before the start
            # returns, as a SIGTERM in the middle of Popen would be

    command = Sandbox(Layout.for_run([]), tmp_path).command(
        ["sleep", "60"], Limits(), setenv={"PATH": "/usr/bin:/bin"})
    monkeypatch.setattr(stdio_bridge, "StdioBot", StartedThenStopped)
    previous = signal.signal(signal.SIGTERM, stdio_bridge._terminate)
    try:
        with pytest.raises(SystemExit) as stopped:
            stdio_bridge.Bridge("127.0.0.1:9", "g", 0, "not-a-token", command,
                                sandboxed=True).run()
    finally:
        signal.signal(signal.SIGTERM, previous)
        for bot in started:
            if bot.process.poll() is None:
                end_sandbox(bot.process)  # (so that a failure leaves nothing behind)
                pytest.fail("the bridge exited and left its bot's sandbox running")
    assert stopped.value.code == 128 + signal.SIGTERM
    assert started and started[0].process.returncode is not None
