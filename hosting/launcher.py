"""Launching bots: the one way a bot process of Curia starts, for a tournament
(arena.runner), `curia arena check` (arena.check) and a worker (hosting.worker).

A `Launcher` holds a run's sandbox plan (which bots run sandboxed, what they see, how
their builds reach the network: hosting.sandbox), checks and builds the bots (the
preflight: hosting.builds), opens the service door a sandboxed gRPC bot reaches the
service by (hosting.door), and starts each bot's process (`BotProcess`): in its sandbox,
or unsandboxed under a shepherd (hosting.contain), its log capped (hosting.botlog), its
secrets in its environment, never on its command line. Every rule about bot processes
holds at every site because they all start bots here.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from client.channels import OPERATOR_ONLY_ENV
from hosting.botlog import BotLog
from hosting.builds import build_bots
from hosting.contain import Containment
from hosting.door import door_for
from hosting.limits import Limits, ended_with_parent, exceeded
from hosting.manifest import BotManifest, ConfigError, shown
from hosting.sandbox import (
    SERVICE_SOCKET,
    Layout,
    Sandbox,
    SandboxPlan,
    end_sandbox,
    environment,
    program_problem,
)
from hosting.sandbox import exit_code as sandbox_exit_code


class BotStartError(ConfigError):
    """A bot whose process could not be started at all."""


def bot_environment() -> dict[str, str]:
    """The arena's environment less what only the host may hold (the operator credential):
    what a bot process starts with."""
    return {k: v for k, v in os.environ.items() if k not in OPERATOR_ONLY_ENV}


def launch_arguments(launch: Mapping[str, str]) -> list[str]:
    """The launch protocol's arguments (docs/bots.md) from its variables."""
    return ["--server", launch["CURIA_SERVER"], "--game-id", launch["CURIA_GAME_ID"],
            "--seat", launch["CURIA_SEAT"]]


def start_program(command: Sequence[str], *, env: dict[str, str], sandboxed: bool,
                  limits: Limits | None, cwd: Path | None = None, **streams: Any,
                  ) -> tuple[subprocess.Popen[bytes], Containment | None]:
    """Start a bot's program: the one place Curia starts one (a bot process here, and the
    program a stdio bot's bridge runs). Sandboxed (`command` is its sandbox's), it dies
    with its parent; otherwise it runs under a shepherd in a cgroup of its own where the
    host allows (hosting.contain), which sets `limits` on it before it runs and ends every
    process it starts. `streams`: Popen's stdin, stdout, stderr, start_new_session."""
    contained = None if sandboxed else Containment.make()
    argv = ended_with_parent(command, cwd, env.get("PATH")) if contained is None \
        else contained.command(command, cwd=cwd, path=env.get("PATH"), limits=limits)
    try:
        return subprocess.Popen(argv, cwd=cwd, env=env, **streams), contained
    except OSError:
        if contained is not None:
            contained.close()
        raise


@dataclass(eq=False)  # one per process: kept in sets by identity
class BotProcess:
    """One bot playing one seat of one game: in its sandbox when given a `Layout`
    (hosting.sandbox), which sets its limits inside and ends its process tree with it;
    otherwise under a shepherd, in a cgroup of its own where the host allows
    (`contained`: hosting.contain), which sets its limits (a stdio bot's bridge sets them on
    the bot it starts) and ends every process it started. Its stdout and stderr go to
    its log, capped (hosting.botlog)."""

    manifest: BotManifest
    process: subprocess.Popen[bytes]
    log: BotLog
    log_path: Path
    sandbox: Sandbox | None = None
    contained: Containment | None = None

    @classmethod
    def start(cls, manifest: BotManifest, *, server: str, game_id: str, seat: int,
              token: str, seed: int, log_path: Path, layout: Layout | None = None,
              door: Path | None = None) -> BotProcess:
        """Start the bot; `layout`: in a sandbox, `door`: the ServiceDoor's socket that a
        sandboxed gRPC bot reaches the service by."""
        launch = {"CURIA_SERVER": server, "CURIA_GAME_ID": game_id, "CURIA_SEAT": str(seat),
                  "CURIA_BOT_SEED": str(seed)}
        box = Sandbox(layout, manifest.workdir) if layout is not None else None
        if box is None:
            command = manifest.launch_command(sys.executable, launch_arguments(launch))
            env = {**bot_environment(), **launch, "CURIA_SEAT_TOKEN": token}
        else:
            command, env = sandboxed_launch(box, manifest, launch, token, door)
        log = BotLog(log_path)
        try:
            process, contained = start_program(
                command, env=env, cwd=manifest.workdir, sandboxed=box is not None,
                limits=manifest.limits if manifest.protocol == "grpc" else None,  # a bridge
                stdin=subprocess.DEVNULL, stdout=log.fd, stderr=log.fd,  # sets its bot's
                start_new_session=True)
        except OSError as error:
            log.close()
            if box is not None:
                box.close()
            raise BotStartError(f"bot {manifest.name!r}: cannot start {' '.join(command)!r} "
                                f"in {manifest.workdir}: {error.strerror or error}") from None
        log.started()
        return cls(manifest, process, log, log_path, box, contained)

    @property
    def is_sandbox(self) -> bool:
        """Whether the process is the bot's sandbox itself (a gRPC bot's; a stdio bot's
        process is its bridge, which runs the sandbox)."""
        return self.sandbox is not None and self.manifest.protocol == "grpc"

    def exit_code(self) -> int | None:
        return self.process.poll()

    def exited_cleanly(self) -> bool:
        """Whether the bot has exited with code 0 (its own, not its sandbox's)."""
        code = self.process.poll()
        if code is not None and self.sandbox is not None:
            code = sandbox_exit_code(code)
        return code == 0

    def ended_reason(self) -> str:
        """Why a bot that exited before the end did: a limit it exceeded, or a crash."""
        code = self.process.returncode
        if self.sandbox is not None:
            code = sandbox_exit_code(code)
        self.log.drain(timeout=2.0)  # its last words
        cause = exceeded(code, self.log_tail(), self.manifest.limits) or "crashed"
        how = f"killed by signal {-code}" if code is not None and code < 0 else \
            f"exited with code {code}"
        return f"{cause}: {how} before the end"

    def log_tail(self, size: int = 8192) -> str:
        """The end of what the bot wrote (stderr and, for a gRPC bot, stdout) so far."""
        return self.log.tail(size)

    def collect_log(self) -> None:
        """Nothing to collect: the log is written as the bot runs."""

    def note(self, text: str) -> None:
        """A line of the arena's own in the bot's log."""
        self.log.write(f"arena: {text}\n")

    def terminate(self) -> None:
        """SIGTERM to the bot (`stop` finishes the job): to its shepherd, which passes it
        on, or to its bridge, which ends its sandbox; a gRPC bot's sandbox ends at once
        (its bwrap would die of SIGTERM anyway, its sandbox by --die-with-parent)."""
        if self.contained is not None:
            self.contained.terminate(self.process)
            return
        if self.is_sandbox:
            end_sandbox(self.process)
            return
        with contextlib.suppress(ProcessLookupError):
            if self.process.poll() is None:
                os.killpg(self.process.pid, signal.SIGTERM)

    def stop(self, grace: float = 2.0) -> None:
        """Unsandboxed: SIGTERM, then after `grace` seconds its shepherd's sweep of every
        process the bot started (`Containment.end`). A gRPC bot's sandbox: ended at once
        (`end_sandbox`). A stdio bot's bridge: SIGTERM (it ends its sandbox), then SIGKILL
        to its process group after `grace` seconds. Then its log is finished."""
        if self.contained is not None:
            self.contained.end(self.process, grace)
        elif self.is_sandbox:
            end_sandbox(self.process)
        else:
            self._stop_group(grace)
        self.log.close()
        if self.sandbox is not None:
            self.sandbox.close()

    def _stop_group(self, grace: float) -> None:
        """SIGTERM to its process group, then SIGKILL after `grace` seconds."""
        for sig, wait_s in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
            if self.process.poll() is not None:
                break
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=wait_s)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)  # stray children of the bot


def sandboxed_launch(box: Sandbox, manifest: BotManifest, launch: Mapping[str, str],
                     token: str, door: Path | None) -> tuple[list[str], dict[str, str]]:
    """The command and environment that start a bot in `box`. A stdio bot's bridge runs
    outside (it holds the seat token) and starts the sandbox, whose environment is the
    launch variables but the server; a gRPC bot runs inside with the seat token in its
    environment (never on a command line) and reaches the service by `door`."""
    python = sys.executable
    if manifest.protocol == "stdio":
        inside = {k: v for k, v in launch.items() if k != "CURIA_SERVER"}
        command = manifest.launch_command(python, launch_arguments(launch), lambda words: (
            box.command(words, manifest.limits, setenv=environment(python, inside))))
        return command, {**bot_environment(), **launch, "CURIA_SEAT_TOKEN": token}
    inside = {**launch, "CURIA_SERVER": f"unix:{SERVICE_SOCKET}"}
    command = manifest.launch_command(python, launch_arguments(inside), lambda words: (
        box.command(words, manifest.limits, setenv=None, service_socket=door)))
    return command, environment(python, {**inside, "CURIA_SEAT_TOKEN": token})


def command_problem(words: tuple[str, ...], workdir: Path,
                    layout: Layout | None = None) -> str | None:
    """Why a command cannot be run from `workdir`, or None: its program is missing (in a
    sandbox of `layout`: not on the sandbox's PATH), or (`{python} script.py`) its
    script."""
    if words[0] == "{python}":
        script = words[1] if len(words) > 1 else "-"
        missing = not script.startswith("-") and not (workdir / script).is_file()
        return f"the script {script!r} does not exist in {workdir}" if missing else None
    if layout is not None and (problem := program_problem(words[0], layout,
                                                          sys.executable)):
        return problem
    return executable_problem(words[0], workdir)


def executable_problem(word: str, workdir: Path) -> str | None:
    """Why a program (a command's first word) cannot be run from `workdir`, or None."""
    if os.sep in word:
        path = workdir / word
        if not path.is_file():
            return f"{word!r} does not exist in {workdir}"
        return None if os.access(path, os.X_OK) else f"{word!r} is not executable"
    return None if shutil.which(word) else f"{word!r} is not on PATH"


def preflight(manifest: BotManifest, *, built: bool,
              layout: Layout | None = None) -> list[str]:
    """What keeps a bot from being built (`built` False) or started (True): a missing
    workdir, a build or bot command that does not exist (in its sandbox: `layout`, whose
    PATH is the system's, not the host's). Each names the bot."""
    where = f"bot {manifest.name!r} ({shown(manifest.path)})"
    if not manifest.workdir.is_dir():
        return [f"{where}: workdir {shown(manifest.workdir)} does not exist"]
    commands = [("command", manifest.command)] if built else \
        [("build", manifest.build)] if manifest.build else []
    return [f"{where}: {what} {list(words)}: {problem}" for what, words in commands
            if (problem := command_problem(words, manifest.workdir, layout))]


def check_bots(manifests: Iterable[BotManifest], out: IO[str],
               plan: SandboxPlan | None = None) -> None:
    """The preflight of a tournament: every workdir and build command, the builds (in
    their sandboxes where `plan` has them), then every bot command; ConfigError naming
    each bot and its problem."""
    manifests = list(manifests)
    for built in (False, True):
        problems = [p for manifest in manifests for p in preflight(
            manifest, built=built,
            layout=plan.layout_for(manifest.name) if plan is not None else None)]
        if problems:
            raise ConfigError("\n".join(problems))
        if not built:
            build_bots(manifests, out, plan)


@dataclass
class Launcher:
    """How the bots of one run are checked, built and started (see the module
    docstring); `door`: the service door's socket while `serving`."""

    plan: SandboxPlan
    door: Path | None = None
    #: the bots the plan was made for, by name
    bots: dict[str, BotManifest] = field(default_factory=dict)

    @classmethod
    def make(cls, mode: str, bots: Sequence[BotManifest], hidden: Iterable[Path] = (),
             build_network: bool = False) -> Launcher:
        """The launcher of `bots` under sandbox `mode` ("auto", "required", "off"),
        `hidden` from every bot (the run folder, the deal key, logs); SandboxUnavailable
        where "required" cannot be met."""
        plan = SandboxPlan.make(mode, bots, hidden, build_network=build_network)
        return cls(plan, bots={bot.name: bot for bot in bots})

    def prepare(self, out: IO[str], manifests: Iterable[BotManifest] | None = None) -> None:
        """The preflight and the builds (in the bots' sandboxes): `check_bots`."""
        check_bots(self.bots.values() if manifests is None else manifests, out, self.plan)

    @contextlib.contextmanager
    def serving(self, server: str) -> Iterator[Launcher]:
        """The service door open for the `with` block, where a sandboxed gRPC bot needs
        one (it reaches `server` through it)."""
        grpc_bot = next((bot for bot in self.bots.values() if bot.protocol == "grpc"
                         and self.plan.layout_for(bot.name) is not None), None)
        if grpc_bot is None:
            yield self
            return
        with door_for(self.plan.layout_for(grpc_bot.name), "grpc", server) as self.door:
            try:
                yield self
            finally:
                self.door = None

    def start(self, manifest: BotManifest, *, server: str, game_id: str, seat: int,
              token: str, seed: int, log_path: Path) -> BotProcess:
        """Start `manifest`'s bot for a seat, as the plan says (BotStartError if it
        cannot start at all)."""
        return BotProcess.start(manifest, server=server, game_id=game_id, seat=seat,
                                token=token, seed=seed, log_path=log_path,
                                layout=self.plan.layout_for(manifest.name), door=self.door)
