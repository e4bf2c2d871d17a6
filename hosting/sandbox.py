"""Bot sandboxes: each bot process of a tournament in a bubblewrap (`bwrap`) container.

What a sandboxed bot has (docs/arena.md, "Running a competition among strangers"):
- a read-only system: /usr, /etc less its secrets (`SECRET_ETC`), the Python that runs
  Curia with its packages, Curia's own packages and `proto/` (public code, what the shipped
  bots import), and the folder of the bot's program if it lies elsewhere (a runtime
  installed under /opt or a home folder);
- its own copy of its folder, made for the game and removed after it: writable, at the
  folder's own path. Other bots' folders, the run folder (with the embedded Redis's data)
  and the files the host's credentials are read from are hidden, even where they lie
  inside a tree the bot sees;
- a private /tmp, a /proc of its own processes, a minimal /dev, no capabilities, user
  65534 in a user namespace of its own;
- a clean environment: the launch variables of docs/bots.md, PATH, HOME, LANG;
- no network: a stdio bot has its pipes only; a gRPC bot reaches the service through one
  Unix socket, `SERVICE_SOCKET`, that the arena forwards to the service (`ServiceDoor`);
- its limits (memory_mb, cpu_seconds, processes) set on its first process inside the
  sandbox (`prlimit`) and inherited by every process it starts;
- its whole process tree ended with it: it is PID 1's tree of a PID namespace of its own,
  and bwrap's --die-with-parent ends that namespace when the arena stops the bot.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import shutil
import signal
import site
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from client.channels import TLS_KEY_ENV
from hosting.contain import descendants
from hosting.limits import CPU_GRACE_SECONDS, MIB, Limits
from hosting.manifest import BotManifest, ConfigError

#: Where a sandboxed gRPC bot finds the service (its CURIA_SERVER is "unix:" + this).
SERVICE_SOCKET = "/run/curia/service.sock"
#: The user a bot runs as inside its sandbox (nobody).
SANDBOX_UID = 65534
#: What of /etc a bot never sees (password hashes, host keys, private TLS keys, sudo).
SECRET_ETC = ("shadow", "shadow-", "gshadow", "gshadow-", "ssh", "ssl/private", "sudoers",
              "sudoers.d", "security/opasswd", "curia")
#: The top folders of a Linux system a bot may read (as links where they are links).
SYSTEM_TOP = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc")
#: Curia's packages a Python bot imports, and the contract a bot in another language reads.
CURIA_PACKAGES = ("curia", "curia_api", "games", "client", "service", "hosting", "arena", "ratings",
                  "bots")
#: The one line the arena prints when a tournament requires a sandbox the host lacks.
INSTALL_HINT = "install bubblewrap (apt-get install bubblewrap) or set sandbox = \"off\""


class SandboxUnavailable(ConfigError):
    """A tournament that requires sandboxes on a host that cannot make them."""


@functools.lru_cache(maxsize=1)
def unavailable_reason() -> str | None:
    """Why this host cannot sandbox bots, or None: bwrap and prlimit are on PATH and a
    sandbox with every namespace can be made and limited."""
    bwrap, prlimit = shutil.which("bwrap"), shutil.which("prlimit")
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed"
    if prlimit is None:
        return "prlimit (util-linux) is not installed"
    probe = [bwrap, "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent",
             "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
             prlimit, "--nproc=16", "--", "true"]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=20,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bwrap cannot start here: {error}"
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return f"bwrap cannot make a sandbox here ({said})"
    return None


#: Where a pids cgroup may be made (cgroup v1's pids hierarchy, or v2's root).
PIDS_ROOTS = (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup"))


@functools.lru_cache(maxsize=1)
def pids_cgroup_root() -> Path | None:
    """A cgroup hierarchy this process may make pids-limited cgroups in, or None.
    RLIMIT_NPROC does not hold processes whose user is root outside the sandbox (an
    arena run as root): a pids cgroup does. A root counts only if a folder made in it is
    a real cgroup with the pids controller (its `pids.max` made by the kernel): under
    cgroup v1, /sys/fs/cgroup itself is a plain tmpfs, where a folder limits nothing."""
    for root in PIDS_ROOTS:
        probe = pids_cgroup(root, 8)
        if probe is not None:
            with contextlib.suppress(OSError):
                probe.rmdir()
            return root
    return None


def pids_cgroup(root: Path, limit: int) -> Path | None:
    """A new cgroup under `root` holding at most `limit` processes, or None where `root`
    cannot have one (not a cgroup hierarchy, no pids controller, no permission)."""
    try:
        group = Path(tempfile.mkdtemp(prefix="curia-bot-", dir=root))
    except OSError:
        return None
    try:
        if not (group / "pids.max").is_file():  # a plain folder: not a pids cgroup
            raise OSError("not a pids cgroup")
        (group / "pids.max").write_text(str(limit))
        return group
    except OSError:
        with contextlib.suppress(OSError):
            if (group / "cgroup.procs").exists():  # a cgroup: its files go with it
                group.rmdir()
            else:
                shutil.rmtree(group)
        return None


class ProcessCap:
    """A pids cgroup holding one sandbox's processes to `limit` (where the host lets the
    arena make one: `pids_cgroup_root`); `prefix()` is the command that enters it."""

    def __init__(self, limit: int) -> None:
        root = pids_cgroup_root() if limit else None
        self.group = pids_cgroup(root, limit) if root is not None else None

    def prefix(self) -> list[str]:
        """`sh -c 'echo $$ > cgroup.procs; exec ...'`: the sandbox starts inside."""
        if self.group is None:
            return []
        return ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"',
                str(self.group / "cgroup.procs")]

    def close(self) -> None:
        """Remove the cgroup once its processes are gone (a few tries)."""
        for _ in range(50):
            if self.group is None or not self.group.exists():
                return
            try:
                self.group.rmdir()
                return
            except OSError:
                time.sleep(0.1)


def tool(name: str) -> str:
    """The full path of a program the sandbox needs (bwrap, prlimit)."""
    return shutil.which(name) or name


def end_sandbox(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL a sandbox and everything in it now, whatever stage its start has reached,
    and reap it. `process` is its bwrap (or the command that execs bwrap). Frozen first
    (SIGSTOP), the bwrap starts nothing more; then every process below it dies (the
    sandbox's first process among them: the kernel ends the rest of its PID namespace with
    it), then the bwrap. `--die-with-parent` alone misses a sandbox whose bwrap dies while
    it is being set up: its first process asks to die with the bwrap only once its mounts
    are made, and would run on with the bot."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGSTOP)
            for pid in descendants(process.pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            os.kill(process.pid, signal.SIGKILL)
    process.wait()


def exit_code(returncode: int | None) -> int | None:
    """A sandboxed bot's exit status as Popen would give it unsandboxed: bwrap exits with
    128 + N for a bot ended by signal N, here -N again."""
    if returncode is not None and 128 < returncode < 128 + 65:
        return -(returncode - 128)
    return returncode


# ---------------------------------------------------------------------------------------
# What every sandbox of a run shares
# ---------------------------------------------------------------------------------------
def python_trees() -> list[Path]:
    """The Python that runs Curia: its prefixes and package folders."""
    found = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             *site.getsitepackages()}
    user_site = site.getusersitepackages()
    if isinstance(user_site, str):
        found.add(user_site)
    return [Path(path) for path in sorted(found) if Path(path).is_dir()]


def curia_trees() -> list[Path]:
    """Curia's own packages and its contract (`proto/` beside them, in a clone)."""
    trees = []
    for name in CURIA_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            trees.append(Path(spec.origin).resolve().parent)
    proto = trees[0].parent / "proto" if trees else None
    if proto is not None and proto.is_dir():
        trees.append(proto)
    return trees


def plugin_trees(env: Mapping[str, str]) -> list[Path]:
    """The game plugins the host names in CURIA_PLUGINS (games.PLUGINS_ENV): the file of
    each `.py` plugin, the top package (or module) of each module name. Bots need the
    rules of the game they play."""
    trees = []
    for name in (word.strip() for word in env.get("CURIA_PLUGINS", "").split(",")):
        if name.endswith(".py"):
            trees.append(Path(name).resolve())
        elif name:
            spec = importlib.util.find_spec(name.split(".")[0])
            if spec is not None and spec.origin:
                origin = Path(spec.origin).resolve()
                trees.append(origin.parent if spec.submodule_search_locations else origin)
    return trees


def plugin_environment(env: Mapping[str, str]) -> dict[str, str]:
    """CURIA_PLUGINS as the host set it, and a PYTHONPATH that finds the plugins named."""
    if not env.get("CURIA_PLUGINS"):
        return {}
    roots = [str(tree.parent) for tree in plugin_trees(env)]
    return {"CURIA_PLUGINS": env["CURIA_PLUGINS"],
            "PYTHONPATH": os.pathsep.join(dict.fromkeys(roots))}


def sandbox_path(python: str) -> list[str]:
    """The PATH inside a sandbox: the Python that runs Curia, then the system's."""
    return list(dict.fromkeys([str(Path(python).parent), "/usr/local/bin", "/usr/bin",
                               "/bin"]))


def program_problem(program: str, layout: Layout, python: str) -> str | None:
    """Why a command's program cannot run in a sandbox of `layout`, or None. A bare name
    is looked up on the sandbox's PATH (`sandbox_path`), never the host's, and must lie,
    links followed, in what the sandbox shows: the system trees, Curia's Python and
    packages (nothing of a user's home: `~/.cargo/bin/cargo` is not `cargo`). A path (in
    the bot's folder, confined by arena.config) and `{python}` are always found."""
    if program == "{python}" or os.sep in program:
        return None
    found = shutil.which(program, path=os.pathsep.join(sandbox_path(python)))
    shown = [Path("/") / top for top in SYSTEM_TOP] + list(layout.trees)
    if found and any(inside(Path(found).resolve(), tree.resolve()) for tree in shown):
        return None
    host = shutil.which(program)
    if host is None:
        return f"{program!r} is not on PATH"
    return (f"{program!r} is not installed system-wide (this host has {host}, outside "
            f"what a sandbox shows): install it under /usr (e.g. apt-get install), or "
            f"build it into the bot's folder and name it by its relative path")


def secret_paths(env: Mapping[str, str]) -> list[Path]:
    """The files the host's credentials come from, as the arena's environment names them
    (the operator credential, the TLS client key)."""
    from client.channels import ADMIN_TOKEN_FILE_ENV

    names = (ADMIN_TOKEN_FILE_ENV, TLS_KEY_ENV)
    return [Path(env[name]).resolve() for name in names if env.get(name)]


def inside(path: Path, tree: Path) -> bool:
    return path == tree or tree in path.parents


@dataclass(frozen=True)
class Layout:
    """What the sandboxes of one run see read-only, and hide within that."""

    #: Read-only trees (each at its own path).
    trees: tuple[Path, ...]
    #: Folders and files hidden wherever they fall inside a tree or a bot's folder: the
    #: run folder, every bot's folder, the host's credential files.
    hidden: tuple[Path, ...]

    @classmethod
    def for_run(cls, hidden: Iterable[Path]) -> Layout:
        """The layout of a run that hides `hidden` and the host's credential files, but
        not what lies in Curia's own packages (the shipped bots are public code, and the
        other shipped bots import them)."""
        public = curia_trees()
        secret = [path.resolve() for path in [*hidden, *secret_paths(os.environ)]]
        public += plugin_trees(os.environ)
        return cls(tuple(dict.fromkeys([*python_trees(), *public])),
                   tuple(dict.fromkeys(path for path in secret
                                       if not any(inside(path, tree) for tree in public))))

    def masks(self, trees: Sequence[Path], own: Path) -> list[Path]:
        """The hidden paths that a bot whose folder is `own` would otherwise see: inside
        one of `trees` or inside its own folder, and neither its folder nor above it."""
        return [path for path in self.hidden
                if not inside(own, path)
                and any(inside(path, tree) for tree in (*trees, own))]


def system_arguments() -> list[str]:
    """bwrap's arguments for the read-only system: /usr and its links, /etc less its
    secrets."""
    words: list[str] = []
    for top in SYSTEM_TOP:
        path = Path("/") / top
        if path.is_symlink():
            words += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            words += ["--ro-bind", str(path), str(path)]
    for name in SECRET_ETC:
        words += mask_arguments(Path("/etc") / name)
    return words


def mask_arguments(path: Path, own: Path | None = None) -> list[str]:
    """bwrap's arguments that hide `path` (an empty folder, or an empty file); a path
    inside `own`, the bot's folder, is hidden in its read-only original (`SOURCE`)."""
    where = str(path)
    if own is not None and inside(path, own) and path != own:
        where = f"{SOURCE}/{path.relative_to(own)}"
    if path.is_dir() and not path.is_symlink():
        return ["--tmpfs", where]
    if path.exists():  # an empty file: the copy of a bot's folder copies regular files
        return ["--ro-bind", str(empty_file()), where]
    return []


@functools.lru_cache(maxsize=1)
def empty_file() -> Path:
    """An empty, read-only file that hides a file (in a private folder of this process)."""
    path = Path(tempfile.mkdtemp(prefix="curia-empty-")) / "empty"
    path.touch(mode=0o444)
    return path


@dataclass(frozen=True)
class SandboxPlan:
    """Which bots of a run are sandboxed, in what layout, and why the others are not.

    `[tournament] sandbox`: "auto" (the default) sandboxes every bot where the host can,
    "required" refuses to start where it cannot, "off" runs every bot unsandboxed; a
    manifest's `sandbox = false` runs that bot unsandboxed (refused under "required").
    """

    layout: Layout | None
    #: Bot name -> why it runs unsandboxed (shown in the report).
    unsandboxed: Mapping[str, str]
    #: How sandboxed builds reach the network (hosting.builds.NETWORKS): "none", "slirp"
    #: (slirp4netns, the host's loopback cut off) or "host" ("auto" without slirp4netns).
    build_network: str = "none"

    @classmethod
    def make(cls, mode: str, bots: Sequence[BotManifest], hidden: Iterable[Path] = (),
             build_network: bool = False) -> SandboxPlan:
        """The plan for `bots` under `mode`; `hidden`: the run folder and other paths no
        bot may see (every bot's folder is added); `build_network`: the host lets builds
        reach the network. SandboxUnavailable under "required" on a host without
        sandboxes (or, for `build_network`, without slirp4netns)."""
        if mode == "off":
            return cls(None, {b.name: 'the tournament has sandbox = "off"' for b in bots},
                       "host")
        reason = unavailable_reason()
        if reason is not None:
            if mode == "required":
                raise SandboxUnavailable(
                    f'the tournament has sandbox = "required" but {reason}: {INSTALL_HINT}')
            return cls(None, {b.name: reason for b in bots}, "host")
        every = [*hidden, *(b.workdir for b in bots), *(b.path.parent for b in bots)]
        return cls(Layout.for_run(every), {b.name: "its manifest has sandbox = false"
                                           for b in bots if not b.sandbox},
                   build_network_mode(mode, build_network))

    def layout_for(self, name: str) -> Layout | None:
        """The layout bot `name` runs in, or None: unsandboxed."""
        return None if name in self.unsandboxed else self.layout

    def summary(self, ahead: bool = False) -> str:
        """One line for the report (`ahead`: before the games): every bot sandboxed, or
        which were not and why; how the builds ran."""
        if not self.unsandboxed:
            runs = "runs" if ahead else "ran"
            return f"sandbox: every bot {runs} in its sandbox (bubblewrap); {self.builds()}"
        reasons: dict[str, list[str]] = {}
        for name, why in sorted(self.unsandboxed.items()):
            reasons.setdefault(why, []).append(name)
        return "sandbox: UNSANDBOXED " + "; ".join(
            f"{', '.join(names)} ({why})" for why, names in reasons.items()) + (
            f"; {self.builds()}" if self.layout is not None else "")

    def builds(self) -> str:
        """How sandboxed bots are built, as the report says it."""
        return {"none": "builds in the sandbox, no network",
                "slirp": "builds in the sandbox, network through slirp4netns (not this "
                         "host's loopback)",
                "host": "builds in the sandbox WITH THIS HOST'S NETWORK (build_network "
                        "without slirp4netns: apt-get install slirp4netns)"}[
            self.build_network]


def build_network_mode(mode: str, wanted: bool) -> str:
    """How sandboxed builds reach the network: "none" unless `wanted`; then slirp4netns,
    or the host's network under "auto" where it is missing (refused under "required")."""
    if not wanted:
        return "none"
    if shutil.which("slirp4netns"):
        return "slirp"
    if mode == "required":
        raise SandboxUnavailable('the tournament has sandbox = "required" and '
                                 'build_network = true but slirp4netns is not installed: '
                                 'install it (apt-get install slirp4netns) or set '
                                 'build_network = false')
    return "host"


# ---------------------------------------------------------------------------------------
# One bot's sandbox
# ---------------------------------------------------------------------------------------
@dataclass
class Sandbox:
    """A bot's sandbox for one game: its command line. Its folder is copied, inside the
    sandbox, from a read-only view of the original (`SOURCE`) into a tmpfs of `disk_mb`
    at the folder's own path; its /tmp is another tmpfs of `disk_mb`. Nothing of the copy
    touches the host's disk, and the copy ends with the sandbox."""

    layout: Layout
    workdir: Path
    cap: ProcessCap | None = None

    def __post_init__(self) -> None:
        self.workdir = self.workdir.resolve()

    def command(self, words: Sequence[str], limits: Limits, *,
                setenv: Mapping[str, str] | None,
                service_socket: Path | None = None) -> list[str]:
        """The bwrap command line that runs `words` in the bot's folder, in the sandbox.
        `setenv`: the bot's whole environment, on the command line (so no secret); None:
        the environment bwrap is started with (the caller gives a clean one, with the seat
        token). `service_socket`: the ServiceDoor's socket, for a gRPC bot."""
        args = [*base_arguments(self.layout, limits.disk_mb),
                "--ro-bind", str(self.workdir), SOURCE]
        args += [word for path in self.layout.masks(self.layout.trees, self.workdir)
                 for word in mask_arguments(path, self.workdir)]
        args += [*size_arguments(limits.disk_mb), "--tmpfs", str(self.workdir)]
        if service_socket is not None:
            args += ["--ro-bind", str(service_socket), SERVICE_SOCKET]
        args += ["--chdir", str(self.workdir), *environment_arguments(setenv)]
        if self.cap is None:
            self.cap = ProcessCap(limits.processes)
        return [*self.cap.prefix(), *args, "--", *COPY_IN, *limit_prefix(limits), *words]

    def close(self) -> None:
        if self.cap is not None:
            self.cap.close()


#: Where a sandbox sees the original of the bot's folder (read-only) while copying it.
SOURCE = "/run/curia/source"
#: The exit status of a sandbox whose copy of the bot's folder failed (it did not fit in
#: disk_mb): the bot never started.
COPY_FAILED = 97
#: The sandbox's first command: copy the bot's folder in, then run the rest.
COPY_IN = ["/bin/sh", "-c", f'cp -a {SOURCE}/. . || exit {COPY_FAILED}; exec "$@"', "sh"]


def base_arguments(layout: Layout, disk_mb: int) -> list[str]:
    """bwrap's arguments every sandbox starts with: namespaces, the read-only system and
    trees, a private /tmp of `disk_mb`."""
    args = [tool("bwrap"), "--unshare-all", "--die-with-parent", "--new-session",
            "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
            "--hostname", "curia-bot", *system_arguments(),
            "--proc", "/proc", "--dev", "/dev", *size_arguments(disk_mb), "--tmpfs", "/tmp"]
    for tree in layout.trees:  # after /tmp: a tree may lie in it (a clone in /tmp)
        args += ["--ro-bind", str(tree), str(tree)]
    return args


def size_arguments(disk_mb: int) -> list[str]:
    """bwrap's size of the next tmpfs (none: 0)."""
    return ["--size", str(disk_mb * MIB)] if disk_mb else []


def environment_arguments(setenv: Mapping[str, str] | None) -> list[str]:
    """bwrap's arguments that set the whole environment (None: keep bwrap's own)."""
    if setenv is None:
        return []
    args = ["--clearenv"]
    for name, value in setenv.items():
        args += ["--setenv", name, value]
    return args


def limit_prefix(limits: Limits) -> list[str]:
    """`prlimit ... --`: the bot's limits, set inside the sandbox on its first process."""
    words = [tool("prlimit"), f"--nproc={limits.processes}" if limits.processes else ""]
    if limits.memory_mb:
        words.append(f"--as={limits.memory_mb * MIB}")
    if limits.cpu_seconds:
        words.append(f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + CPU_GRACE_SECONDS}")
    return [word for word in words if word] + ["--"]


def environment(python: str, extra: Mapping[str, str]) -> dict[str, str]:
    """A sandboxed bot's whole environment: PATH (the Python that runs Curia first), HOME
    and TMPDIR in its private /tmp, a UTF-8 locale, the host's game plugins, and `extra`
    (the launch variables)."""
    path = os.pathsep.join(sandbox_path(python))
    return {"PATH": path, "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
            **plugin_environment(os.environ), **extra}
