"""Hostile manifests and builds through the real commands (`curia arena run`, `curia arena
check`, workers, a league's hosted bots): a manifest's paths never lead out of its folder,
a build runs in the bot's sandbox (nothing of the host read or written, no loopback, no
network unless the host opts in), a bare program name is the system's, and a bot that
fills its disk loses only its own game."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.config import BotManifest, ConfigError
from arena.runner import ResultsFile
from hosting.sandbox import unavailable_reason
from league.agent import LeagueAgent
from tests.league.test_workers import play_until, start_worker
from tests.leagues import World, new_league

REPO = Path(__file__).resolve().parents[2]
BADBOTS = Path(__file__).resolve().parent / "badbots"
RANDOM = REPO / "bots" / "random_bot" / "bot.toml"

needs_bwrap = pytest.mark.skipif(unavailable_reason() is not None,
                                 reason=f"no sandbox here: {unavailable_reason()}")


def tournament(folder: Path, bots: list[Path], head: str = "") -> Path:
    """A Leges gauntlet of the shipped random bot against `bots` (2 seats)."""
    body = "".join(f'[[bots]]\nmanifest = "{path}"\n' for path in bots)
    path = folder / "t.toml"
    path.write_text(f'[tournament]\nname = "t"\ngame = "leges"\nseats = 2\n'
                    f'format = "gauntlet"\nchallenger = "random"\nconcurrency = 2\n'
                    f'output = "{folder / "out"}"\n{head}\n[time]\ndecision_ms = 10000\n'
                    f'startup_ms = 120000\n'
                    f'[[bots]]\nmanifest = "{RANDOM}"\n{body}')
    return path


def curia(*words: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "curia", *words], cwd=REPO,
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, **(env or {})})


# ---------------------------------------------------------------------------------------
# Manifests: every path stays in the manifest's folder
# ---------------------------------------------------------------------------------------
@pytest.fixture
def host_secret(tmp_path: Path) -> Path:
    """A folder of the host's with a 0600 key in it, beside the entrant's folder."""
    folder = tmp_path / "host-secrets"
    folder.mkdir()
    key = folder / "key"
    key.write_text("the host's 0600 secret")
    key.chmod(0o600)
    return folder


ESCAPES = {
    "relative": ('workdir = "../host-secrets"', "workdir '../host-secrets' leads outside"),
    "absolute": ('workdir = "/etc"', "workdir '/etc' is an absolute path"),
    "symlink": ('workdir = "link"', "workdir 'link' leads outside"),
    "command": ('command = ["../host-secrets/key"]',
                "command program '../host-secrets/key' leads outside"),
    "absolute-command": ('command = ["/bin/cat", "/etc/shadow"]',
                         "command program '/bin/cat' is an absolute path"),
    "build": ('build = ["sub/../../host-secrets/key"]', "build program"),
    "script": ('command = ["{python}", "../host-secrets/key"]', "command script"),
}


def escaping_bot(tmp_path: Path, host_secret: Path, case: str) -> Path:
    """An entrant's folder whose manifest has path `case` of ESCAPES."""
    folder = tmp_path / "entrant"
    folder.mkdir()
    (folder / "link").symlink_to(host_secret)
    line = ESCAPES[case][0]
    command = "" if line.startswith("command") else 'command = ["{python}", "bot.py"]\n'
    (folder / "bot.toml").write_text(f'name = "escape"\nprotocol = "stdio"\n{command}'
                                     f'{line}\n')
    shutil.copy(REPO / "bots" / "python_stdio" / "bot.py", folder)
    return folder / "bot.toml"


@pytest.mark.parametrize("case", sorted(ESCAPES))
def test_a_manifest_path_leading_out_of_its_folder_is_refused_at_load(
        tmp_path: Path, host_secret: Path, case: str) -> None:
    manifest = escaping_bot(tmp_path, host_secret, case)
    with pytest.raises(ConfigError) as refused:
        BotManifest.load(manifest)
    assert ESCAPES[case][1] in str(refused.value)
    assert str(manifest.name) in str(refused.value)


@pytest.mark.parametrize("case", ["relative", "absolute", "symlink"])
def test_arena_run_and_check_refuse_an_escaping_manifest_in_one_line(
        tmp_path: Path, host_secret: Path, case: str) -> None:
    manifest = escaping_bot(tmp_path, host_secret, case)
    run = curia("arena", "run", str(tournament(tmp_path, [manifest])), "--no-progress")
    assert run.returncode == 2, run.stdout + run.stderr
    assert ESCAPES[case][1] in run.stderr and "bot.toml" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert not (tmp_path / "out").exists()  # nothing started, nothing copied
    check = curia("arena", "check", str(manifest.parent))
    assert check.returncode == 2, check.stdout + check.stderr
    assert ESCAPES[case][1] in check.stdout
    assert "the host's 0600 secret" not in run.stdout + run.stderr + check.stdout


def test_a_bare_program_name_outside_the_system_is_refused_with_how_to_name_it(
        tmp_path: Path) -> None:
    """`~/.cargo/bin/cargo`-like: the host's PATH finds it in a home folder, which no
    sandbox shows; the preflight says how to name it instead of mounting the home."""
    home_bin = tmp_path / "home" / ".tool" / "bin"
    home_bin.mkdir(parents=True)
    program = home_bin / "homebot"
    program.write_text("#!/bin/sh\nexit 0\n")
    program.chmod(0o755)
    folder = tmp_path / "entrant"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "homebot"\nprotocol = "stdio"\n'
                                     'command = ["homebot"]\n')
    config = tournament(tmp_path, [folder / "bot.toml"], 'sandbox = "required"')
    path = f"{home_bin}{os.pathsep}{os.environ['PATH']}"
    if unavailable_reason() is not None:
        pytest.skip(f"no sandbox here: {unavailable_reason()}")
    done = curia("arena", "run", str(config), "--no-progress", env={"PATH": path})
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"'homebot' is not installed system-wide (this host has {program}" in done.stderr
    assert "name it by its relative path" in done.stderr


# ---------------------------------------------------------------------------------------
# Builds run in the bot's sandbox
# ---------------------------------------------------------------------------------------
def hostile_build(tmp_path: Path, host_secret: Path, connect: list[str],
                  extra: list[str] = ()) -> Path:  # type: ignore[assignment]
    """An entrant whose build attacks: reads the host's secret, the run folder's deal key
    and /etc/shadow, writes beside its folder and into Curia, connects to `connect`."""
    folder = tmp_path / "hostile"
    shutil.copytree(BADBOTS / "hostile_build", folder)
    reads = [str(host_secret / "key"), str(host_secret), "/etc/shadow",
             str(tmp_path / "out" / "private" / "deal.key")]
    writes = [str(tmp_path), str(host_secret), str(REPO / "games"), "/tmp"]
    build = ["python3", "build.py", "--read", *reads, "--write", *writes,
             "--connect", *connect, *extra]
    (folder / "bot.toml").write_text(
        'name = "hostile"\nlanguage = "python"\nprotocol = "stdio"\n'
        f'command = ["{{python}}", "bot.py"]\nbuild = {json.dumps(build)}\n')
    return folder / "bot.toml"


def build_attacks(folder: Path) -> list[str]:
    report = folder / "build-report.txt"
    assert report.exists(), "the build never ran its attacks"
    return [line for line in report.read_text().splitlines() if line.startswith("ATTACK")]


def assert_nothing_got_through(tmp_path: Path, folder: Path, host_secret: Path) -> None:
    attacks = build_attacks(folder)
    assert len(attacks) >= 8, attacks
    # a write under /tmp lands in the sandbox's private /tmp: the files below tell
    through = [a for a in attacks if "SUCCEEDED" in a and not a.startswith(
        "ATTACK write: SUCCEEDED (/tmp")]
    assert not through, through
    assert not (tmp_path / "build-was-here.txt").exists()
    assert not (host_secret / "build-was-here.txt").exists()
    assert not (REPO / "games" / "build-was-here.txt").exists()
    assert not Path("/tmp/build-was-here.txt").exists()


def loopback_targets(server: str, redis_url: str) -> list[str]:
    """The service and its Redis, on this host's loopback."""
    redis_port = redis_url.rsplit(":", 1)[1].split("/")[0]
    return [server, f"127.0.0.1:{redis_port}"]


@needs_bwrap
def test_a_hostile_build_reads_writes_and_reaches_nothing_of_the_host(
        tmp_path: Path, host_secret: Path, server: str, redis_url: str) -> None:
    targets = loopback_targets(server, redis_url)
    manifest = hostile_build(tmp_path, host_secret, targets)
    done = curia("arena", "run", str(tournament(tmp_path, [manifest],
                                                'sandbox = "required"')),
                 "--server", server, "--no-progress")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "building hostile (in its sandbox)" in done.stdout
    assert "builds in the sandbox, no network" in done.stdout
    assert_nothing_got_through(tmp_path, manifest.parent, host_secret)
    outcomes = ResultsFile(tmp_path / "out" / "results.jsonl").load()
    assert len(outcomes) == 2 and not any(o.forfeits for o in outcomes)  # built, played


@needs_bwrap
@pytest.mark.skipif(shutil.which("slirp4netns") is None, reason="slirp4netns is missing")
def test_a_build_with_the_network_still_reaches_nothing_of_the_hosts_loopback(
        tmp_path: Path, host_secret: Path, server: str, redis_url: str) -> None:
    """build_network = true, with workers: the build has slirp4netns's network, whose
    way to the host's loopback (10.0.2.2) is cut; 127.0.0.1 is the sandbox's own."""
    port = server.rsplit(":", 1)[1]
    redis_port = redis_url.rsplit(":", 1)[1].split("/")[0]
    targets = [*loopback_targets(server, redis_url), f"10.0.2.2:{port}",
               f"10.0.2.2:{redis_port}"]
    manifest = hostile_build(tmp_path, host_secret, targets)
    config = tournament(tmp_path, [manifest], 'sandbox = "required"\nbuild_network = true')
    done = curia("arena", "run", str(config), "--server", server, "--workers", "2",
                 "--no-progress", env={"CURIA_REDIS_URL": redis_url})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "network through slirp4netns" in done.stdout
    assert_nothing_got_through(tmp_path, manifest.parent, host_secret)
    outcomes = ResultsFile(tmp_path / "out" / "results.jsonl").load()
    assert len(outcomes) == 2 and not any(o.forfeits for o in outcomes)


@needs_bwrap
def test_a_hosted_league_bot_s_hostile_build_runs_in_its_sandbox(
        world: World, agent: LeagueAgent, tmp_path: Path,  # noqa: F811
        host_secret: Path) -> None:
    """A league's hosted bot, built by the worker that first meets it."""
    manifest = hostile_build(tmp_path, host_secret, [world.target])
    league = new_league(world, max_games=2, decision_ms=20_000)
    for name, path in (("hostile", manifest), ("random", RANDOM)):
        world.leagues.add_bot(league.name, name, manifest=str(path))
    worker = start_worker(world, tmp_path / "logs")
    try:
        play_until(world, agent, league.name, 2)
    finally:
        worker[1].set()
        worker[2].join(timeout=30)
    assert_nothing_got_through(tmp_path, manifest.parent, host_secret)
    results = world.leagues.results(league.name)
    assert not any(r.get("forfeits") for r in results), results


# ---------------------------------------------------------------------------------------
# Disk
# ---------------------------------------------------------------------------------------
@needs_bwrap
def test_a_bot_that_fills_its_folder_or_its_tmp_loses_only_its_own_games(
        tmp_path: Path, server: str) -> None:
    bots = [BADBOTS / "filler" / "bot.toml", BADBOTS / "filler" / "tmp.toml"]
    done = curia("arena", "run", str(tournament(tmp_path, bots, 'sandbox = "required"')),
                 "--server", server, "--no-progress")
    assert done.returncode == 0, done.stdout + done.stderr
    outcomes = ResultsFile(tmp_path / "out" / "results.jsonl").load()
    assert len(outcomes) == 4
    for outcome in outcomes:
        fillers = {seat for seat, name in enumerate(outcome.seating) if name != "random"}
        assert set(outcome.forfeits) == fillers, outcome.reasons
        assert all("exceeded disk_mb (16 MB)" in outcome.reasons[seat] for seat in fillers)
    assert not list((BADBOTS / "filler").glob("filler.bin"))  # its copy, not the original


def test_league_add_bot_refuses_an_escaping_hosted_manifest_in_one_line(
        world: World, tmp_path: Path, host_secret: Path) -> None:  # noqa: F811
    """A hosted bot's manifest is read by every worker: refused at `add-bot` (exit 2)."""
    manifest = escaping_bot(tmp_path, host_secret, "relative")
    league = new_league(world)
    done = curia("league", "add-bot", league.name, "escape", "--manifest", str(manifest),
                 env={"CURIA_REDIS_URL": world.redis_url})
    assert done.returncode == 2, done.stdout + done.stderr
    assert "workdir '../host-secrets' leads outside" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "escape" not in world.leagues.bots(league.name)


# ---------------------------------------------------------------------------------------
# The same attacks with workers: the same launcher starts their bots
# ---------------------------------------------------------------------------------------
@needs_bwrap
def test_with_workers_a_create_flood_creates_nothing_and_a_disk_flood_ends_only_its_games(
        tmp_path: Path, server: str, redis_url: str) -> None:
    """`--workers 2`, sandbox "auto": the flood's creates go through the worker's door
    (refused), the filler's disk is its sandbox's, as in a tournament without workers."""
    import redis

    bots = [BADBOTS / "flood" / "bot.toml", BADBOTS / "filler" / "bot.toml"]
    admin = redis.Redis.from_url(redis_url)
    before = admin.scard("curia:active")
    done = curia("arena", "run", str(tournament(tmp_path, bots)), "--server", server,
                 "--workers", "2", "--no-progress", env={"CURIA_REDIS_URL": redis_url})
    assert done.returncode == 0, done.stdout + done.stderr
    outcomes = ResultsFile(tmp_path / "out" / "results.jsonl").load()
    assert len(outcomes) == 4
    for outcome in outcomes:
        filler = {seat for seat, name in enumerate(outcome.seating) if name == "bad-filler"}
        assert set(outcome.forfeits) == filler, outcome.reasons
        assert all("exceeded disk_mb (16 MB)" in outcome.reasons[s] for s in filler)
    floods = [line for log in (tmp_path / "out" / "logs").glob("*-bad-flood.log")
              for line in log.read_text().splitlines() if line.startswith("ATTACK")]
    assert floods and all(line.endswith(": 0 of 150 created") for line in floods), floods
    assert admin.scard("curia:active") <= before  # no game of the flood's is live
    admin.close()
