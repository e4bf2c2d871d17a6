"""`curia arena run TOURNAMENT.toml`, `curia arena check BOT_DIR` and
`curia arena report FOLDER`."""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

from redis import Redis

from arena.config import ConfigError, TournamentConfig
from arena.deals import PRIVATE, private_folder
from arena.runner import ResultsFile, Tournament, describe
from curia.credentials import (
    REDIS_URL_ENV,
    REDIS_URL_HELP,
    forget_redis_url,
    own_operator_credential,
    warn_password_on_command_line,
)
from curia.league_cli import start_worker
from curia.remote import service_and_store, service_endpoint, web_host
from curia.stopping import Watchdog, arm_stop_backstop, exit_now
from hosting.seat_jobs import SeatQueue
from ratings.elo import elo_history
from ratings.records import GameOutcome, in_index_order
from service.server import LOOPBACK, redact_url

#: The embedded Redis's data in a run folder (removed once the tournament is complete).
REDIS_FOLDER = "redis"


def add_arena(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "arena", help="run Elo-rated tournaments between bot processes",
        description="Tournaments between bots that are separate processes (any language) "
                    "playing through the game service. See docs/bots.md.")
    commands = parser.add_subparsers(dest="arena_command", required=True, metavar="ACTION")
    run = commands.add_parser("run", help="run (or resume) a tournament from a TOML file")
    run.add_argument("config", help="tournament file, e.g. examples/tournament.toml")
    run.add_argument("--server", metavar="HOST:PORT",
                     help="play on this service (default: start an embedded one)")
    run.add_argument("--output", help="results folder (default: the file's `output`)")
    run.add_argument("--concurrency", type=int, help="games in parallel (default: the file's)")
    run.add_argument("--fresh", action="store_true",
                     help="discard earlier results in the output folder instead of resuming")
    run.add_argument("--no-progress", action="store_true", help="no live progress line")
    run.add_argument("--keep-redis", action="store_true",
                     help=f"keep the embedded Redis's data ({REDIS_FOLDER}/ in the results "
                          f"folder) once the tournament is complete")
    run.add_argument("--http-port", type=int, metavar="PORT",
                     help="serve the tournament site (index.html, replays) read-only over "
                          "HTTP while the tournament runs")
    run.add_argument("--http-bind", default=LOOPBACK, metavar="ADDRESS",
                     help="address of --http-port (default %(default)s)")
    run.add_argument("--workers", type=int, metavar="N",
                     help="play the bots on `curia league worker` processes through a Redis "
                          "Stream of seats to play: N started here (0: only workers started "
                          "elsewhere, on --redis-url) (default: the arena starts each bot)")
    run.add_argument("--redis-url", default=os.environ.get(REDIS_URL_ENV), metavar="URL",
                     help="with --server and --workers: the Redis the service keeps its "
                          f"state in, where the seats are queued ({REDIS_URL_HELP})")
    run.add_argument("--deal-key", metavar="FILE",
                     help="the secret key every game's seed comes from (created if missing; "
                          "default: private/deal.key in the results folder); with the "
                          "tournament file it replays every deal exactly")
    run.set_defaults(run=run_arena, parser=run)
    check = commands.add_parser(
        "check", help="check that a bot is ready for tournaments (docs/arena.md)",
        description="Build a bot from its manifest and play a few games against random "
                    "bots on an embedded service, as the arena would, then say PASS or "
                    "FAIL per check. Exit code 0 only if every check passes.")
    check.add_argument("bot", help="the bot's folder (with bot.toml) or its manifest")
    check.add_argument("--game", help="check this game only (default: every game the "
                                      "manifest's `games` names, or every game)")
    check.add_argument("--decision-ms", type=int, default=5000,
                       help="time limit per decision (default 5000, the arena's)")
    check.add_argument("--startup-ms", type=int, default=10_000,
                       help="how long the bot may take, from its launch, to make contact "
                            "with its game (default %(default)s, a tournament's default "
                            "[time] startup_ms)")
    check.add_argument("--server", metavar="HOST:PORT",
                       help="play on this service (default: start an embedded one)")
    check.add_argument("--logs", help="keep the bot's logs in this folder")
    check.add_argument("--build-network", action="store_true",
                       help="let the bot's build reach the network (as a tournament's "
                            "build_network = true); off by default")
    check.set_defaults(run=run_check, parser=check)
    report = commands.add_parser("report", help="print and export the report of a folder")
    report.add_argument("folder", help="a tournament's output folder")
    report.set_defaults(run=run_report, parser=report)


def run_arena(args: argparse.Namespace) -> int:
    """Load, check, build, play (or resume) and report; a config or bot mistake is one
    message, never a traceback."""
    warn_password_on_command_line(args.redis_url)
    forget_redis_url()  # read: the bots the arena starts do not inherit it
    try:
        config = TournamentConfig.load(args.config)
    except ConfigError as error:  # one message: the usage block would only hide it
        print(f"curia arena run: {error}", file=sys.stderr)
        return 2
    if args.concurrency:
        config = _replace(config, concurrency=args.concurrency)
    output = Path(args.output).resolve() if args.output else config.output
    try:
        code = play_tournament(args, config, output, sys.stdout)
    except ConfigError as error:
        print(f"curia arena: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # before the first game: nothing was played
        print("\nstopped before any game was played", file=sys.stderr)
        code = INTERRUPTED
    if code == INTERRUPTED:  # stopped in order by a signal: 130, whatever ends the rest
        exit_now(INTERRUPTED)
    return code


#: The exit code of a run stopped by Ctrl-C or SIGTERM (128 + SIGINT, as shells use).
INTERRUPTED = 130


@contextlib.contextmanager
def stop_on_signals(tournament: Tournament, resume: str) -> Iterator[None]:
    """While the games run, Ctrl-C (SIGINT) or SIGTERM stops the tournament in order: one
    line, the games in flight ended and their bots stopped, then the service and its
    store (the context managers around). A second signal exits at once."""
    watchdog = Watchdog(INTERRUPTED)  # started now: a signal handler must not start threads

    def first(signum: int, frame: object) -> None:
        if tournament.stopped:
            os._exit(INTERRUPTED)  # the bots and the embedded Redis die with this process
        if signum == signal.SIGTERM:
            arm_stop_backstop(watchdog=watchdog)  # a service manager's stop is bounded
        flying = tournament.interrupt()
        line = (f"\nstopping: {flying} game{'' if flying == 1 else 's'} in flight "
                f"{'is' if flying == 1 else 'are'} discarded and will be replayed on resume "
                f"({resume})\n")
        os.write(sys.stderr.fileno(), line.encode())  # not print: a signal handler

    previous = {sig: signal.signal(sig, first) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def play_tournament(args: argparse.Namespace, config: TournamentConfig, output: Path,
                    out: TextIO) -> int:
    """Say how far the tournament is; if games are left, check and build the bots, start
    the service and play them; then the report."""
    if args.fresh and output.exists():
        shutil.rmtree(output)
    first_run = not output.exists()  # a refused first run leaves nothing behind
    created = created_folders(output)
    output.mkdir(parents=True, exist_ok=True)
    print(f"tournament {config.name}: {config.game} {config.variant}, {config.seats} seats, "
          f"{config.format}, seed {config.seed}, bots "
          f"{', '.join(f'{b.name} ({b.language})' for b in config.bots)}", file=out)
    progress = None if args.no_progress else ProgressLine(sys.stderr)
    site = SiteUpdater(output, describe(config), progress)
    tournament = Tournament(config, "", output,  # the server is known once started
                            on_result=site.update, deal_key=deal_key_path(args))
    status = tournament.progress()
    plan = tournament.sandbox_plan()  # "required" without a sandbox: refused here
    site.meta["sandbox"] = plan.summary()  # the report's line, once the bots have run
    print(status.line(), file=out, flush=True)
    if status.left:
        try:
            tournament.launcher().prepare(out)
        except ConfigError:
            if first_run:
                for folder in created:  # the run folder and any folder made for it
                    shutil.rmtree(folder, ignore_errors=True)
            raise
        print(plan.summary(ahead=True), file=out)
        print(deal_key_line(tournament), file=out, flush=True)
        with own_operator(args.server, output) as admin_token, \
                service_and_store(args.server, args.redis_url, 0, str(output / REDIS_FOLDER),
                                  out, admin_token=admin_token) as (server, redis_url, _), \
                site_server(output, args.http_port, args.http_bind, out):
            site.update(tournament.results.load(), status.total)
            tournament.server = server
            with seat_workers(args.workers, tournament, redis_url, out), \
                    stop_on_signals(tournament, f"curia arena run {args.config}"):
                tournament.run()
        if tournament.stopped:
            return INTERRUPTED
        site.finish()
        if progress:
            progress.finish()
    left = tournament.progress().left
    if not args.keep_redis and left == 0:
        remove_redis_data(output, out)
    outcomes = sorted(ResultsFile(output / "results.jsonl").load(), key=lambda o: o.index)
    if outcomes:
        write_report(outcomes, output, site.meta, out, complete=left == 0,
                     total=tournament.total_games())
    return 0


def created_folders(folder: Path) -> list[Path]:
    """The folders `mkdir(parents=True)` of `folder` would create, outermost first."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing[::-1]


@contextlib.contextmanager
def own_operator(server: str | None, output: Path) -> Iterator[str | None]:
    """Without --server: the embedded service's own operator credential (CreateGame needs
    it), in `private/operator.token` of the run folder for the duration, named by this
    process's CURIA_ADMIN_TOKEN_FILE so the arena's clients send it. No bot gets it: the
    bots' environment leaves that variable out, sandboxes hide the run folder, and the
    workers started here get neither. With --server: the host's own settings, None."""
    if server:
        yield None
        return
    with own_operator_credential(private_folder(output / PRIVATE), announce=True) as made:
        yield made.token


@contextlib.contextmanager
def seat_workers(count: int | None, tournament: Tournament, redis_url: str | None,
                 out: TextIO) -> Iterator[None]:
    """With `count` (--workers): the tournament's seats queued for workers
    (hosting.seat_jobs), `count` of them started here for the duration (each ends when this
    process dies, even of kill -9: a parent-death signal). Each run of the folder is an
    incarnation of its own: the seats an earlier, killed one left are deleted first."""
    if count is None:
        yield
        return
    if redis_url is None:
        raise ConfigError(f"--workers with --server needs --redis-url (or ${REDIS_URL_ENV}): "
                          "the Redis of that service, where the seats are queued for the "
                          "workers")
    config = tournament.config
    redis = Redis.from_url(redis_url)
    hide = (str(tournament.output), str(tournament.key_path))
    slots = max(1, -(-config.concurrency * config.seats // max(count, 1)))
    with SeatQueue(redis, hide, folder=str(tournament.output),
                   decision_ms=config.decision_ms) as queue:
        tournament.seat_queue = queue
        pool = WorkerPool([functools.partial(
            start_worker, redis_url, tournament.server,
            tournament.output / "worker-logs" / f"w{i}", slots, config.sandbox,
            config.build_network) for i in range(count)], out)
        print(f"workers: {count} here ({slots} seats each)" if count else
              f"workers: seats queued in run {queue.run} for the workers on "
              f"{redact_url(redis_url)}", file=out, flush=True)
        try:
            yield
        finally:
            pool.close()
            redis.close()


class WorkerPool:
    """The workers `curia arena run --workers N` starts, kept at N: one that dies while the
    run goes on is started again (its seats are taken over meanwhile; with fewer workers
    than the run's seats in flight, games would wait for ever on seats no worker has room
    for). A thread of its own starts them all and lives as long as they do: a worker's
    parent-death signal follows the thread that started it."""

    #: Seconds between looks at the workers.
    LOOK_S = 0.5
    #: Restarts of one worker within RESTART_WINDOW_S after which it is left dead (it
    #: cannot start: a broken install), said in one line.
    MAX_RESTARTS = 5
    RESTART_WINDOW_S = 60.0

    def __init__(self, starts: list[Callable[[], subprocess.Popen[bytes]]],
                 out: TextIO) -> None:
        self.starts, self.out = starts, out
        self.processes: list[subprocess.Popen[bytes]] = []
        self.stopping = threading.Event()
        started = threading.Event()
        self.thread = threading.Thread(target=self._supervise, args=(started,),
                                       name="arena-workers", daemon=True)
        self.failed: BaseException | None = None
        self.thread.start()
        started.wait()
        if self.failed is not None:
            self.close()
            raise self.failed

    def _supervise(self, started: threading.Event) -> None:
        try:
            for start in self.starts:
                self.processes.append(start())
        except BaseException as error:  # (told to the caller, which closes the pool)
            self.failed = error
        finally:
            started.set()
        restarts: list[list[float]] = [[] for _ in self.starts]
        left_dead: set[int] = set()
        while not self.failed and not self.stopping.wait(self.LOOK_S):
            for i, process in enumerate(self.processes):
                if process.poll() is None or self.stopping.is_set() or i in left_dead:
                    continue
                now = time.monotonic()
                restarts[i] = [t for t in restarts[i] if now - t < self.RESTART_WINDOW_S]
                if len(restarts[i]) >= self.MAX_RESTARTS:
                    print(f"worker w{i} ended ({ended_how(process.returncode)}) "
                          f"{self.MAX_RESTARTS} times within {self.RESTART_WINDOW_S:g} s: "
                          "left dead (see its logs)", file=self.out, flush=True)
                    left_dead.add(i)
                    continue
                print(f"worker w{i} ended ({ended_how(process.returncode)}): started again",
                      file=self.out, flush=True)
                restarts[i].append(now)
                try:
                    self.processes[i] = self.starts[i]()
                except OSError as error:
                    print(f"worker w{i} cannot start again: {error}", file=self.out,
                          flush=True)
                    left_dead.add(i)
        stop_processes(self.processes)

    def close(self) -> None:
        """Stop every worker (SIGTERM, SIGKILL after a grace)."""
        self.stopping.set()
        self.thread.join()


def ended_how(returncode: int) -> str:
    return f"signal {-returncode}" if returncode < 0 else f"exit code {returncode}"


def stop_processes(processes: list[subprocess.Popen[bytes]], grace: float = 10.0) -> None:
    """SIGTERM each, then SIGKILL what is left after `grace` seconds."""
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def deal_key_path(args: argparse.Namespace) -> Path | None:
    """--deal-key FILE, if given."""
    named = getattr(args, "deal_key", None)
    return Path(named).resolve() if named else None


def deal_key_line(tournament: Tournament) -> str:
    """Where the deal key is (never the key itself)."""
    how = "created" if tournament.key_created else "from"
    return (f"deals: secret, seeded by the deal key {how} {tournament.key_path} (keep it "
            f"private; with the tournament file it replays every deal)")


class SiteUpdater:
    """After each game: the progress line at once, then the tournament site (its replays,
    the leaderboard so far), written by a thread of its own from the latest update. A
    replay page takes a second or more to render: meanwhile the run collects its games
    and answers a stop (which does not wait for the page; a page is replaced whole, so
    none is left half written, and the next run or `curia arena report` writes what is
    missing). A site that cannot be written is logged, never fatal."""

    def __init__(self, output: Path, meta: dict[str, Any],
                 progress: ProgressLine | None) -> None:
        self.output, self.meta, self.progress = output, meta, progress
        self.latest: tuple[list[GameOutcome], int] | None = None
        self.finishing = False
        self.changed = threading.Condition()
        self.writer: threading.Thread | None = None

    def update(self, outcomes: list[GameOutcome], total: int) -> None:
        if self.progress is not None:
            self.progress.update(outcomes, total)
        with self.changed:
            self.latest = (list(outcomes), total)
            self.changed.notify()
            if self.writer is None:
                self.writer = threading.Thread(target=self._write_updates, name="site-writer",
                                               daemon=True)
                self.writer.start()

    def finish(self) -> None:
        """Wait until the site of the last update is written."""
        with self.changed:
            self.finishing = True
            self.changed.notify()
        if self.writer is not None:
            self.writer.join()

    def _write_updates(self) -> None:
        while (latest := self._next()) is not None:
            self._write(*latest)

    def _next(self) -> tuple[list[GameOutcome], int] | None:
        """The latest update not yet written (None: finished)."""
        with self.changed:
            while self.latest is None and not self.finishing:
                self.changed.wait()
            latest, self.latest = self.latest, None
            return latest

    def _write(self, outcomes: list[GameOutcome], total: int) -> None:
        from arena.site import write_site

        try:
            write_site(self.output, outcomes, self.meta, total=total, complete=False)
        except (OSError, ValueError) as error:
            print(f"\ncuria arena: the site was not updated: {error}", file=sys.stderr)


@contextlib.contextmanager
def site_server(output: Path, port: int | None, host: str, out: TextIO) -> Iterator[None]:
    """With a port: the run folder's site served read-only over HTTP while it runs."""
    if port is None:
        yield
        return
    from service.http_gateway import BackgroundGateway, Gateway

    gateway = BackgroundGateway(Gateway(site=output), host, port)
    try:
        bound = gateway.start()
    except OSError as error:
        raise ConfigError(f"--http-port {port}: {error}") from error
    print(f"tournament site on http://{web_host(host)}:{bound}/ while the tournament runs",
          file=out, flush=True)
    try:
        yield
    finally:
        gateway.stop()


def remove_redis_data(output: Path, out: TextIO) -> None:
    """The embedded Redis's data of a complete tournament: the records are in games/."""
    folder = output / REDIS_FOLDER
    if folder.is_dir():
        shutil.rmtree(folder)
        print(f"complete: removed the embedded Redis data ({folder}; --keep-redis keeps it)",
              file=out)


def run_check(args: argparse.Namespace) -> int:
    """`curia arena check`: exit code 0 only if every check passes."""
    from arena.check import check_bot, load_manifest, show

    if args.startup_ms < 1:
        args.parser.error("--startup-ms must be at least 1")
    out = sys.stdout
    bot, line = load_manifest(Path(args.bot))
    if bot is None:  # refused as the arena refuses it (exit code 2)
        show(line, out)
        print(f"\nFAIL: {args.bot}", file=out)
        return 2

    @contextlib.contextmanager
    def serve() -> Iterator[str]:
        with tempfile.TemporaryDirectory(prefix="curia-check-") as data, \
                own_operator(args.server, Path(data) / "operator") as admin_token, \
                service_endpoint(args.server, 0, str(Path(data) / "redis"), out,
                                 admin_token=admin_token) as (server, _):
            yield server

    passed = check_bot(Path(args.bot), out, serve, game=args.game,
                       decision_ms=args.decision_ms, startup_ms=args.startup_ms,
                       logs=Path(args.logs) if args.logs else None,
                       build_network=args.build_network)
    print(f"\n{'PASS' if passed else 'FAIL'}: {args.bot}", file=out)
    return 0 if passed else 1


def run_report(args: argparse.Namespace) -> int:
    folder = Path(args.folder)
    outcomes = sorted(ResultsFile(folder / "results.jsonl").load(), key=lambda o: o.index)
    if not outcomes:
        args.parser.error(f"no results in {folder}")
    meta_path = folder / "tournament.json"
    meta = json.loads(meta_path.read_text()).get("tournament", {}) if meta_path.exists() else {}
    write_report(outcomes, folder, meta, sys.stdout)
    return 0


class ProgressLine:
    """A live line on stderr: a bar, games done, and the current standings."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def update(self, outcomes: list[GameOutcome], total: int) -> None:
        from arena.report import standings_line

        done = len(outcomes)
        filled = int(20 * done / max(total, 1))
        bar = "#" * filled + "." * (20 - filled)
        self.out.write(f"\r[{bar}] {standings_line(outcomes, total)}\x1b[K")
        self.out.flush()

    def finish(self) -> None:
        self.out.write("\n")
        self.out.flush()


def write_report(outcomes: list[GameOutcome], folder: Path, meta: dict[str, Any],
                 out: TextIO, complete: bool = True, total: int | None = None) -> None:
    """Print the leaderboard, crosstable and seat statistics; write the exports, the plot
    and the tournament site (index.html, replays/)."""
    from arena import report
    from arena.deals import published
    from arena.plot import plot_ratings
    from arena.site import write_site

    rows = report.leaderboard(outcomes)
    names, matrix = report.crosstable(outcomes)
    sections = [
        ("leaderboard", report.format_leaderboard(rows)),
        ("crosstable (row's score against column)", report.format_crosstable(names, matrix)),
        ("by seat position", report.format_seat_stats(report.seat_stats(outcomes))),
    ]
    if meta.get("sprt"):
        sections.insert(0, ("SPRT", sprt_text(outcomes, meta["sprt"])))
    if void := report.format_void(outcomes):
        sections.append(("void games (the host's fault: not counted)", void))
    text = "\n\n".join(f"{title}\n{body}" for title, body in sections)
    if meta.get("sandbox"):
        text += f"\n\n{meta['sandbox']}"
    print(f"\n{text}", file=out)
    (folder / "leaderboard.txt").write_text(text + "\n")
    listed = published(folder, outcomes)  # a game's row waits for the end of its deal
    export = {"tournament": meta, **report.to_json(outcomes),
              "games": [game.to_json() for game in in_index_order(listed)]}
    (folder / "tournament.json").write_text(json.dumps(export, indent=1, sort_keys=True))
    (folder / "games.csv").write_text(report.games_csv(listed))
    (folder / "ratings.csv").write_text(report.ratings_csv(rows))
    _, history = elo_history(outcomes)
    plot_ratings(history, folder / "ratings.png")
    site = write_site(folder, outcomes, meta, total=total or len(outcomes),
                      complete=complete)
    print(f"\nwritten to {folder}: leaderboard.txt, tournament.json, games.csv, ratings.csv, "
          f"ratings.png, results.jsonl, games/ (records), logs/ (bot output), index.html "
          f"and replays/ (the site: open {site.resolve().as_uri()}); see docs/arena.md", file=out)


def sprt_text(outcomes: list[GameOutcome], spec: dict[str, Any]) -> str:
    """The SPRT's verdict on "is A stronger than B", as `ratings.sprt` takes it: one result
    per deal (or per game: counting = "pair"), the verdict the stop was taken on."""
    from ratings.sprt import verdict_text

    return verdict_text(outcomes, spec)


def _replace(config: TournamentConfig, **changes: Any) -> TournamentConfig:
    import dataclasses

    return dataclasses.replace(config, **changes)
