"""`curia league …`: leagues of remote bots that join with a key (docs/league.md).

The operator's commands, the agent and the workers work on the league's Redis
($CURIA_REDIS_URL, or `--redis-url`, where a password is readable by every local user):
the one `curia serve` uses, whose processes run the league's matchmaker.
`curia league demo` runs a whole league on this machine; the processes it starts get the
Redis URL in their environment and its service's own operator credential in a private
file (curia/credentials.py), never on a command line.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from prometheus_client import start_http_server
from redis import Redis

import bots
from arena.config import BotManifest, ConfigError
from client.channels import ClientSecurity
from client.unary import CuriaClient
from curia.credentials import (
    REDIS_URL_ENV,
    REDIS_URL_HELP,
    OperatorCredential,
    child_environment,
    forget_redis_url,
    own_operator_credential,
    warn_password_on_command_line,
)
from curia.remote import HUMAN, print_seat_links
from curia.stopping import arm_stop_backstop
from hosting.sandbox import unavailable_reason
from hosting.worker import Worker
from league.agent import check_exhibition, start_agent, start_table
from league.ladder import cross_check, ladder, ladder_json, ladder_text
from league.registry import LeagueError, Leagues, LeagueSettings
from service.access import AccessPolicy
from service.redis_server import EmbeddedRedis
from service.server import BackgroundServer, ServerRules
from service.web.league_pages import results_csv

BOTS_FOLDER = Path(bots.__file__).resolve().parent
STATUS_VERBS = {"open": "open", "pause": "paused", "close": "closed"}


def add_league(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "league", help="leagues of remote bots: keys, matchmaking, a live ladder",
        description="Leagues: bots on their authors' machines join with a bot key over one "
                    "Play stream; the servers' matchmaker pairs them and rates every game. "
                    "See docs/league.md.")
    actions = parser.add_subparsers(dest="league_command", required=True, metavar="ACTION")
    create = _action(actions, "create", "create a league", _run_create)
    create.add_argument("league", help="its name")
    create.add_argument("--game", required=True, help="the game (see curia games)")
    create.add_argument("--variant", default="", help="the variant (default: the first)")
    create.add_argument("--seats", type=int, default=2, help="seats per game (default 2)")
    create.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a game option (repeatable)")
    _limit_flags(create)
    create.add_argument("--unrated", action="store_true", help="games do not count")
    add_bot = _action(actions, "add-bot", "register a bot; prints its key once", _run_add_bot)
    add_bot.add_argument("league")
    add_bot.add_argument("bot", help="the bot's name in the league")
    add_bot.add_argument("--owner", default="", help="who runs it (shown on its page)")
    add_bot.add_argument("--manifest", default="", metavar="BOT.TOML",
                         help="a hosted bot: its manifest, at this path on every worker "
                              "machine; curia league worker processes play its seats")
    for verb, help_text, runner in (
            ("new-key", "revoke a bot's key and print a new one", _run_new_key),
            ("new-version", "start a bot's next version: a new ladder entry, the old one "
             "kept with its history", _run_new_version),
            ("revoke", "revoke a bot's key", _run_revoke),
            ("ban", "ban a bot: no games, no connection (its results stay)", _run_ban),
            ("unban", "lift a ban", _run_unban)):
        action = _action(actions, verb, help_text, runner)
        action.add_argument("league")
        action.add_argument("bot")
    for verb in STATUS_VERBS:
        action = _action(actions, verb, f"{verb} a league", _run_status)
        action.add_argument("league")
    limits = _action(actions, "limits", "change the limits of the games to come", _run_limits)
    limits.add_argument("league")
    _limit_flags(limits, defaults=False)
    void = _action(actions, "void", "take a finished game out of the ratings", _run_void)
    void.add_argument("league")
    void.add_argument("game_id")
    void.add_argument("--reason", default="", help="why (kept with the result)")
    show = _action(actions, "ladder", "print a league's ladder", _run_ladder)
    show.add_argument("league")
    show.add_argument("--json", action="store_true", help="as JSON")
    show.add_argument("--cross-check", action="store_true",
                      help="the Plackett-Luce fit of the same results (same Elo scale), "
                           "not the headline pairwise fit")
    results = _action(actions, "results", "export a league's results", _run_results)
    results.add_argument("league")
    results.add_argument("--json", action="store_true", help="JSON lines (default: CSV)")
    _action(actions, "status", "the leagues, their bots online and games live", _run_list)
    show_off = _action(actions, "exhibition", "seat a person in an unrated game with bots "
                                              "online; prints the person's link",
                       _run_exhibition)
    show_off.add_argument("league")
    show_off.add_argument("--seats", required=True, metavar="NAME,NAME,...",
                          help=f"by seat: bots of the league (online, with a free slot) and "
                               f"{HUMAN} for each seat a person plays in the browser")
    show_off.add_argument("--server", required=True, metavar="HOST:PORT",
                          help="the service (CreateGame with the operator credential of "
                               "CURIA_ADMIN_TOKEN_FILE, as `curia league run`)")
    show_off.add_argument("--web-url", required=True, metavar="URL",
                          help="its web port (`curia serve --http-port`), for the link, "
                               "e.g. http://127.0.0.1:8080")
    show_off.add_argument("--decision-seconds", type=float, default=300.0, metavar="SECONDS",
                          help="each decision's time in this game, after which the server "
                               "decides at random (default 300)")
    run = _action(actions, "run", "run a league agent (matchmaker) against a server",
                  _run_agent)
    run.add_argument("--server", required=True, metavar="HOST:PORT")
    worker = _action(actions, "worker", "play the seats of hosted bots (any number of "
                                        "machines)", _run_worker)
    worker.add_argument("--server", required=True, metavar="HOST:PORT")
    worker.add_argument("--slots", type=int, default=4, help="seats played at once "
                                                             "(default 4)")
    worker.add_argument("--logs", default="league-logs", help="the bots' logs (default "
                                                              "league-logs/)")
    worker.add_argument("--metrics-port", type=int,
                        help="Prometheus /metrics port (curia_league_jobs: the HPA's "
                             "queue depth)")
    worker.add_argument("--sandbox", choices=("auto", "required", "off"), default="auto",
                        help="run each bot in its sandbox: where the host can (auto, the "
                             "default), or refuse to start without (required)")
    worker.add_argument("--build-network", action="store_true",
                        help="let hosted bots' builds (run in their sandbox) reach the "
                             "network, through slirp4netns: not this host's loopback")
    worker.add_argument("--parent-pid", type=int, help=argparse.SUPPRESS)  # start_worker
    demo = actions.add_parser(
        "demo", help="a whole league on this machine, the shipped bots as remote processes",
        description="Start an embedded Redis and service with a league, register the "
                    "shipped bots of the game (two of each, different seeds), start each "
                    "as a separate process that knows only its bot key and the server's "
                    "address, play the rated games and print the ladder.")
    demo.add_argument("--game", required=True, help="the game (see curia games)")
    demo.add_argument("--games", type=int, default=30, help="rated games (default 30)")
    demo.add_argument("--servers", type=int, default=1,
                      help="curia serve processes on the one Redis (default 1: in this "
                           "process); the bots are spread over them")
    demo.add_argument("--workers", type=int, default=0,
                      help="play the bots as hosted bots on this many curia league worker "
                           "processes instead of remote Play clients (default 0)")
    demo.add_argument("--seed", type=int, default=0, help="the bots' seeds")
    demo.set_defaults(run=run_demo, parser=demo)


def _action(actions: Any, name: str, help_text: str, runner: Any) -> argparse.ArgumentParser:
    action: argparse.ArgumentParser = actions.add_parser(name, help=help_text,
                                                         description=help_text)
    action.add_argument("--redis-url", default=os.environ.get(REDIS_URL_ENV), metavar="URL",
                        help=f"the league's Redis ({REDIS_URL_HELP})")
    action.set_defaults(run=lambda args: _operate(args, runner), parser=action)
    return action


def _limit_flags(parser: argparse.ArgumentParser, defaults: bool = True) -> None:
    def flag(name: str, default: int, help_text: str) -> None:
        parser.add_argument(f"--{name.replace('_', '-')}", dest=name, type=int,
                            default=default if defaults else None, help=help_text)
    flag("decision_ms", 10_000, "time for each decision, ms (default 10000)")
    flag("bank_ms", 0, "time bank per game, ms (default 0: none)")
    flag("concurrency", 1, "games a bot plays at once unless it asks (default 1)")
    flag("max_concurrency", 4, "games a bot may play at once (default 4)")
    flag("provisional_games", 10, "games before a rating is not provisional (default 10)")
    flag("max_games", 0, "games in all, then no more (default 0: no end)")


def _operate(args: argparse.Namespace, runner: Any) -> int:
    if not args.redis_url:
        args.parser.error(f"the league's Redis: ${REDIS_URL_ENV} or --redis-url")
    warn_password_on_command_line(args.redis_url)
    forget_redis_url()  # read: the bots a worker starts do not inherit it
    redis = Redis.from_url(args.redis_url, socket_timeout=10)
    try:
        return int(runner(args, Leagues(redis)) or 0)
    except LeagueError as error:
        print(f"curia league: {error}", file=sys.stderr)
        return 1
    finally:
        redis.close()


def _options(args: argparse.Namespace) -> dict[str, int]:
    options = {}
    for text in args.option:
        name, _, value = text.partition("=")
        try:
            options[name] = int(value)
        except ValueError:
            args.parser.error(f"--option {text!r}: NAME=INTEGER")
    return options


def _limits(args: argparse.Namespace) -> dict[str, int]:
    names = ("decision_ms", "bank_ms", "concurrency", "max_concurrency",
             "provisional_games", "max_games")
    return {name: getattr(args, name) for name in names if getattr(args, name) is not None}


def _run_create(args: argparse.Namespace, leagues: Leagues) -> int:
    settings = LeagueSettings(name=args.league, game=args.game, variant=args.variant,
                              seats=args.seats, options=_options(args),
                              rated=not args.unrated)
    for name, value in _limits(args).items():
        setattr(settings, name, value)
    leagues.create(settings)
    print(f"league {settings.name}: {settings.game} ({settings.variant}), {settings.seats} "
          f"seats, {settings.decision_ms} ms a decision; open")
    return 0


def _run_add_bot(args: argparse.Namespace, leagues: Leagues) -> int:
    if args.manifest:  # refused as the arena refuses it: one line, exit code 2
        try:
            BotManifest.load(args.manifest)
        except ConfigError as error:
            print(f"curia league add-bot: {error}", file=sys.stderr)
            return 2
    key = leagues.add_bot(args.league, args.bot, args.owner, args.manifest)
    _print_key(args.league, args.bot, key)
    return 0


def _run_new_version(args: argparse.Namespace, leagues: Leagues) -> int:
    entry = leagues.new_version(args.league, args.bot)
    print(f"{args.bot}: its next games count for the ladder entry {entry} "
          f"(the earlier entries keep their ratings and history)")
    return 0


def _run_new_key(args: argparse.Namespace, leagues: Leagues) -> int:
    _print_key(args.league, args.bot, leagues.new_key(args.league, args.bot))
    return 0


def _print_key(league: str, bot: str, key: str) -> None:
    print(key)
    print(f"(the key of bot {bot!r} in league {league!r}: shown this once, give it to the "
          f"bot's author; it can only play this bot's games)", file=sys.stderr)


def _run_revoke(args: argparse.Namespace, leagues: Leagues) -> int:
    leagues.revoke(args.league, args.bot)
    print(f"bot {args.bot}: key revoked")
    return 0


def _run_ban(args: argparse.Namespace, leagues: Leagues) -> int:
    leagues.ban(args.league, args.bot)
    print(f"bot {args.bot}: banned")
    return 0


def _run_unban(args: argparse.Namespace, leagues: Leagues) -> int:
    leagues.ban(args.league, args.bot, banned=False)
    print(f"bot {args.bot}: active")
    return 0


def _run_status(args: argparse.Namespace, leagues: Leagues) -> int:
    status = STATUS_VERBS[args.league_command]
    leagues.set_status(args.league, status)
    print(f"league {args.league}: {status}")
    return 0


def _run_limits(args: argparse.Namespace, leagues: Leagues) -> int:
    settings = leagues.set_limits(args.league, **_limits(args))
    print(json.dumps({name: getattr(settings, name) for name in _limits(args)}))
    return 0


def _run_void(args: argparse.Namespace, leagues: Leagues) -> int:
    leagues.void(args.league, args.game_id, args.reason)
    print(f"game {args.game_id}: void")
    return 0


def _run_ladder(args: argparse.Namespace, leagues: Leagues) -> int:
    settings = leagues.settings(args.league)
    results = leagues.results(args.league)
    rows = cross_check(results) if args.cross_check else \
        ladder(results, settings.provisional_games)
    print(json.dumps(ladder_json(rows), indent=1) if args.json else ladder_text(rows))
    return 0


def _run_results(args: argparse.Namespace, leagues: Leagues) -> int:
    results = leagues.results(args.league)
    if args.json:
        for result in results:
            print(json.dumps(result))
    else:
        sys.stdout.write(results_csv(results))
    return 0


def _run_list(args: argparse.Namespace, leagues: Leagues) -> int:
    for name in leagues.names():
        settings = leagues.settings(name)
        print(f"{name}: {settings.game} ({settings.variant}), {settings.status}; "
              f"{len(leagues.bots(name))} bots, online: "
              f"{', '.join(leagues.online(name)) or 'none'}; "
              f"{len(leagues.live(name))} games live, {len(leagues.results(name))} played")
        stranded = leagues.no_worker(name)
        if stranded:
            print(f"  hosted, no worker: {', '.join(stranded)} (no `curia league worker` "
                  f"is live: these bots get no game until one starts)")
    return 0


def interrupt_on_term() -> None:
    """SIGTERM raises KeyboardInterrupt in the main thread, as Ctrl-C does, whatever
    SIGINT's inherited disposition (`nohup … &` leaves it ignored; re-sending SIGINT would
    then do nothing); later ones are ignored while the process stops in order. (Raised,
    not an Event set: a handler that sets an Event the main thread is waiting on can
    deadlock on the Event's own lock.)"""
    def interrupt(signum: int, frame: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        arm_stop_backstop()  # ends the process if stopping in order hangs
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)


def _run_exhibition(args: argparse.Namespace, leagues: Leagues) -> int:
    """An unrated game of the league's bots with a person's seat: its link."""
    settings = leagues.settings(args.league)
    seating = tuple(name.strip() for name in args.seats.split(","))
    people = frozenset(seat for seat, name in enumerate(seating) if name == HUMAN)
    check_exhibition(leagues, settings, seating, people)
    with CuriaClient(args.server, security=ClientSecurity.from_env()) as client:
        created = start_table(leagues.redis, client, leagues, settings, seating, people,
                              round(args.decision_seconds * 1000))
    print(f"game {created.game_id}: an exhibition of league {settings.name} (unrated); the "
          f"bots' seats go to their Play streams", flush=True)
    print_seat_links(created, seating, args.web_url, sys.stdout)
    return 0


def _run_agent(args: argparse.Namespace, leagues: Leagues) -> int:
    interrupt_on_term()
    stop_agent, holder = start_agent(args.server, args.redis_url, ClientSecurity.from_env())
    print(f"league agent {holder} on {args.server}: Ctrl-C to stop", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        return 0
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # stopping in order: no second one
        stop_agent()


def die_with_parent(parent: int | None) -> bool:
    """Started by `start_worker`: SIGTERM when the process that started this one dies
    (prctl PR_SET_PDEATHSIG, even of kill -9); False if it is already gone."""
    if parent is None:
        return True
    from hosting.contain import PR_SET_PDEATHSIG, prctl

    prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    return os.getppid() == parent


def _run_worker(args: argparse.Namespace, leagues: Leagues) -> int:
    if args.slots < 1:
        args.parser.error("--slots must be at least 1")
    interrupt_on_term()
    if not die_with_parent(args.parent_pid):
        return 0
    if args.sandbox == "required" and unavailable_reason() is not None:
        print(f"curia league worker: no sandbox on this host: {unavailable_reason()}",
              file=sys.stderr)
        return 1
    if args.metrics_port is not None:
        start_http_server(args.metrics_port)
    with CuriaClient(args.server) as client:
        worker = Worker(leagues.redis, client, args.server, args.slots, Path(args.logs),
                        sandbox=args.sandbox, build_network=args.build_network)
        print(f"league worker {worker.name} on {args.server}, {args.slots} slots: "
              f"Ctrl-C to stop", flush=True)
        with suppress(KeyboardInterrupt):
            worker.run(threading.Event())  # (ends with KeyboardInterrupt: Ctrl-C, SIGTERM)
    return 0


# -- curia league demo ------------------------------------------------------------------
def run_demo(args: argparse.Namespace) -> int:
    if args.games < 1 or args.servers < 1:
        args.parser.error("--games and --servers must be at least 1")
    entrants = [f"{name}-{copy}" for name in bots.bot_names(args.game) for copy in (1, 2)]
    if not entrants:
        args.parser.error(f"no shipped bot plays {args.game}")
    with tempfile.TemporaryDirectory(prefix="curia-league-") as folder, \
            EmbeddedRedis(Path(folder) / "redis") as store, \
            own_operator_credential(Path(folder) / "operator") as operator, \
            _servers(store.url, args.servers, operator) as targets:
        redis = Redis.from_url(store.url)
        leagues = Leagues(redis)
        settings = leagues.create(LeagueSettings(
            name=f"demo-{args.game}", game=args.game, decision_ms=10_000, concurrency=2,
            max_games=args.games))
        players = (f"hosted, on {args.workers} worker process(es)" if args.workers
                   else "each a remote process with its key")
        print(f"league {settings.name}: {args.games} rated games of {args.game} between "
              f"{', '.join(entrants)} ({players}) on {len(targets)} server process(es)",
              flush=True)
        logs = Path(folder) / "bots"
        logs.mkdir()
        if args.workers:
            manifests = shipped_manifests()
            for entrant in entrants:
                leagues.add_bot(settings.name, entrant, "the demo",
                                str(manifests[entrant.rsplit("-", 1)[0]]))
            processes = [start_worker(store.url, targets[i % len(targets)], logs / f"w{i}")
                         for i in range(args.workers)]
        else:
            processes = [_start_bot(leagues, settings.name, entrant,
                                    targets[i % len(targets)], args.seed + i, logs)
                         for i, entrant in enumerate(entrants)]
        try:
            _follow(leagues, settings.name, args.games)
        finally:
            for process in processes:
                process.terminate()
            for process in processes:
                process.wait(timeout=10)
        rows = ladder(leagues.results(settings.name), settings.provisional_games)
        print()
        print(ladder_text(rows))
        redis.close()
    return 0


@contextmanager
def _servers(redis_url: str, count: int, operator: OperatorCredential
             ) -> Iterator[list[str]]:
    """`count` servers on one Redis, each with its league agent: this process's own for
    one, `curia serve` processes for more (the Redis URL in their environment). CreateGame
    needs `operator`, which only the agents hold: never a bot."""
    if count == 1:
        server = BackgroundServer(redis_url,
                                  rules=ServerRules(AccessPolicy(admin_token=operator.token)))
        target = f"127.0.0.1:{server.start()}"
        stop_agent, _ = start_agent(target, redis_url,
                                    ClientSecurity(admin_token=operator.token))
        try:
            yield [target]
        finally:
            stop_agent()
            server.stop()
        return
    processes, targets = [], []
    try:
        for _ in range(count):
            process = subprocess.Popen(
                [sys.executable, "-m", "curia", "serve", "--port", "0", "--bind",
                 "127.0.0.1", "--admin-token-file", str(operator.path)],
                env=child_environment(redis_url),
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            processes.append(process)
            targets.append(f"127.0.0.1:{_served_port(process)}")
        yield targets
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=10)


def _served_port(process: subprocess.Popen[str]) -> int:
    assert process.stdout is not None
    line = process.stdout.readline()  # "curia serving on port N at …"
    words = line.split()
    if "port" not in words:
        raise SystemExit(f"curia serve did not start: {line.strip() or 'no output'}")
    return int(words[words.index("port") + 1])


def _start_bot(leagues: Leagues, league: str, entrant: str, target: str, seed: int,
               logs: Path) -> subprocess.Popen[bytes]:
    """The entrant as a process that knows its key and the server's address, nothing
    else (a clean environment but for PATH and the key)."""
    key = leagues.add_bot(league, entrant, owner="the demo")
    bot = entrant.rsplit("-", 1)[0]
    env = {"PATH": os.environ.get("PATH", ""), "CURIA_BOT_KEY": key,
           "PYTHONPATH": os.pathsep.join(sys.path)}
    with open(logs / f"{entrant}.log", "wb") as log_file:
        return subprocess.Popen(
            [sys.executable, "-m", "bots.play_client", "--server", target, "--bot", bot,
             "--seed", str(seed), "--concurrency", "2"],
            env=env, stdout=log_file, stderr=subprocess.STDOUT)


def shipped_manifests() -> dict[str, Path]:
    """The first manifest of each shipped Python gRPC bot, by bot name."""
    found: dict[str, Path] = {}
    for path in sorted(BOTS_FOLDER.glob("*/bot.toml")):
        manifest = BotManifest.load(path)
        if manifest.language == "python" and manifest.protocol == "grpc":
            found.setdefault(manifest.name, path)
    return found


def start_worker(redis_url: str, target: str, logs: Path, slots: int = 4,
                 sandbox: str = "auto", build_network: bool = False
                 ) -> subprocess.Popen[bytes]:
    """A `curia league worker` process on this machine, in a session of its own (a
    terminal's Ctrl-C is for its parent, which stops it in order) that ends when this
    process dies (--parent-pid: a parent-death signal, set by the worker: it follows the
    thread that calls this, which must live as long as the worker should); the Redis URL
    in its environment (CURIA_REDIS_URL), never on its command line, and no operator
    credential."""
    return subprocess.Popen(
        [sys.executable, "-m", "curia", "league", "worker", "--server", target,
         "--slots", str(slots), "--logs", str(logs), "--sandbox", sandbox,
         "--parent-pid", str(os.getpid()),
         *(["--build-network"] if build_network else [])],
        env=child_environment(redis_url),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def _follow(leagues: Leagues, league: str, games: int) -> None:
    """Print each result as it comes, until `games` are in."""
    shown = 0
    started = time.monotonic()
    while shown < games:
        results = leagues.results(league)
        for result in results[shown:]:
            shown += 1
            places = {seat: place for place, group in enumerate(result["ranking"], 1)
                      for seat in group}
            order = sorted(range(len(result["seating"])), key=lambda seat: places[seat])
            line = ", ".join(f"{places[seat]}. {result['seating'][seat]}" for seat in order)
            print(f"game {shown:>3}/{games}  {line}", flush=True)
        if shown < games:
            threading.Event().wait(0.2)
    print(f"{games} games in {time.monotonic() - started:.0f} s")
