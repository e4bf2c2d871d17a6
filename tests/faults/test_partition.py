"""A network partition, for real: Redis and two `curia serve` processes each in a network
namespace of its own, joined by veth pairs (tests/faults/netns.py), and games played from
the root namespace through both servers while links are cut and healed.

Topology (each line a veth pair, a /30 at its ends; no bridge, no forwarding):

    redis ──── A        A and B reach Redis on links of their own,
    redis ──── B        the clients (this process, the bots) reach A and B on theirs,
    redis ──── host     and the test reads Redis on its own link at the end.
    A ──────── host
    B ──────── host

Five games are played by `FailoverClient`s (one thread each, every seat; three starting on
A, two on B), one by three shipped random bots (the code of `python -m bots.random_bot`,
with a shim that records what the server acknowledged) whose one target names both
servers. While they play, the links are cut and healed one cut after the other (`cuts`):
Redis's answers to A lost (one way: Redis runs A's commits, A never hears back), B's
answers to the clients lost for longer than a client's heartbeat deadline (B applies
decisions nobody hears of; the bots' connections break and move to A), Redis cut from
everyone, A cut from the clients, B cut from Redis. Every acknowledged SubmitDecision is
recorded on the client side; at the end every game is over, its record is versions 1..N,
every acknowledged decision is in it at the version it was acknowledged with, every
version was acknowledged to exactly one request, Redis's log and request ids agree, and
the record replays through the engine to its result. Skipped where network namespaces
cannot be made (not root, no iproute2).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time
import uuid
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest
import redis

from client.failover import FailoverClient
from curia_api.v1 import game_service_pb2 as pb
from service.redis_server import find_redis_server
from service.store import keys
from tests.faults.netns import Link, Network, delete_stale_namespaces, unavailable_reason
from tests.service.gameplay import Game, assert_contiguous, replay
from tests.timing import patient

REPO = Path(__file__).resolve().parents[2]
FINISHED = pb.GAME_STATUS_FINISHED
NONE = pb.OBSERVATION_ENCODING_NONE
#: Ports inside the namespaces: each namespace has its own, so they never clash.
REDIS_PORT, SERVICE_PORT = 6379, 50051
#: every wait on a thread, a process or a condition is bounded by this many seconds
WAIT = patient(60.0)  # seconds: this machine's time scale (tests/timing.py)
#: A player's deadline per call: a server that does not answer in time is left for the
#: other; and how long in a row it keeps retrying (longer than any cut and its recovery).
CALL_TIMEOUT_S, RETRY_S = 2.0, 45.0
#: While links are being cut, a player thinks this long before each submission, so that
#: its game is in flight from the first cut to the last heal (the cuts take about 27 s,
#: at most 135 decisions; these seeds' games take 187 to 274); then it plays flat out.
#: The bots think BOT_PACE_S throughout (their game takes about 206 decisions).
PACE_S = 0.2
BOT_PACE_S = 0.07
CUT_S, GAP_S = 2.5, 1.0
#: A client we ship sends an HTTP/2 ping every 5 s and gives up on a connection whose ping
#: is not answered in 5 s (client/channels.py); a cut this long breaks its connections.
HEARTBEAT_CUT_S = 12.0
PLAYER_SEEDS = (101, 102, 103, 104, 105)
BOT_SEED = 106

# The shipped random bot (bots/random_bot/__main__.py is `grpc_player.main(argv,
# default_bot="random")`, which plays the seat on its Play stream: bots.play_client), with
# every decision a server acknowledged appended to PARTITION_ACKS: recorded where every
# message of the stream goes through, PlayClient._on (the notation from the decision sent
# under the ack's request id).
BOT_SHIM = """
import json, os, sys, time
from bots import grpc_player, play_client
handle = play_client.PlayClient._on
sent = {}
def recorded(self, message, outbox):
    kind = message.WhichOneof("kind")
    if kind == "ack" and message.ack.request_id in sent:
        ack = message.ack
        with open(os.environ["PARTITION_ACKS"], "a") as out:
            out.write(json.dumps({
                "seat": int(os.environ["CURIA_SEAT"]), "request_id": ack.request_id,
                "version": ack.version, "duplicate": ack.duplicate, "at": time.monotonic(),
                "notation": sent[ack.request_id]}) + "\\n")
    handle(self, message, outbox)
    for game in self.games.values():
        if game.sent is not None:
            sent[game.sent.decision.request_id] = game.sent.decision.decision.notation
play_client.PlayClient._on = recorded
sys.exit(grpc_player.main(sys.argv[1:], default_bot="random"))
"""


@dataclass
class Cluster:
    """Redis, servers A and B, each in its namespace, and the links between them."""

    network: Network
    logs: Path
    redis_ns: str
    a_ns: str
    b_ns: str
    links: dict[str, Link]
    servers: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    @property
    def redis_url(self) -> str:
        """Redis as the root namespace reaches it."""
        host = self.links["host-redis"].end_in(self.redis_ns).address
        return f"redis://{host}:{REDIS_PORT}/0"

    def address(self, name: str) -> str:
        """Server `name` ("a" or "b") as the clients reach it."""
        namespace = {"a": self.a_ns, "b": self.b_ns}[name]
        return f"{self.links[f'host-{name}'].end_in(namespace).address}:{SERVICE_PORT}"

    def log_tail(self, name: str, lines: int = 30) -> str:
        path = self.logs / f"{name}.log"
        text = path.read_text(errors="replace") if path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def heal_all(self) -> None:
        for link in self.links.values():
            link.heal()


def wait_for(predicate: Callable[[], object], timeout: float, message: str) -> None:
    """Poll `predicate` (an exception counts as not yet) until true, at most `timeout`."""
    deadline = time.monotonic() + patient(timeout)
    while True:
        try:
            if predicate():
                return
        except Exception:  # not there yet
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {message}")
        time.sleep(0.05)


def _server_ready(cluster: Cluster, name: str) -> bool:
    process = cluster.servers[name]
    if process.poll() is not None:
        raise RuntimeError(f"server {name} exited: {cluster.log_tail(name)}")
    with grpc.insecure_channel(cluster.address(name)) as channel:
        grpc.channel_ready_future(channel).result(timeout=1.0)
    return True


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    """Three namespaces (redis, a, b), five links, Redis and two `curia serve` processes;
    everything is stopped and deleted afterwards, whatever happened."""
    reason = unavailable_reason()
    if reason is not None:
        pytest.skip(f"network partition test needs network namespaces: {reason}")
    delete_stale_namespaces()
    network = Network()
    try:
        redis_ns, a_ns, b_ns = (network.namespace(role) for role in ("redis", "a", "b"))
        made = network.links_between([("ra", redis_ns, a_ns), ("rb", redis_ns, b_ns),
                                      ("rh", redis_ns, None), ("ah", a_ns, None),
                                      ("bh", b_ns, None)])
        links = dict(zip(("a-redis", "b-redis", "host-redis", "host-a", "host-b"), made,
                         strict=True))
        cluster = Cluster(network, tmp_path, redis_ns, a_ns, b_ns, links)
        network.spawn(redis_ns, [find_redis_server(), "--port", str(REDIS_PORT),
                                 "--bind", "0.0.0.0", "--protected-mode", "no",
                                 "--save", "", "--appendonly", "no", "--daemonize", "no"],
                      log=tmp_path / "redis.log", cwd=tmp_path)
        wait_for(lambda: redis.Redis.from_url(cluster.redis_url, socket_timeout=1).ping(),
                 20.0, "redis-server in its namespace")
        for name, namespace in (("a", a_ns), ("b", b_ns)):
            redis_address = links[f"{name}-redis"].end_in(redis_ns).address
            cluster.servers[name] = network.spawn(namespace, [
                sys.executable, "-m", "curia", "serve", "--port", str(SERVICE_PORT),
                "--bind", "0.0.0.0", "--redis-url",
                f"redis://{redis_address}:{REDIS_PORT}/0", "--log-level", "WARNING"],
                log=tmp_path / f"{name}.log", cwd=REPO)
        for name in ("a", "b"):
            wait_for(lambda name=name: _server_ready(cluster, name), 30.0, f"server {name}")
        yield cluster
    finally:
        network.close()


# -- the clients ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Ack:
    """A SubmitDecision the server answered OK."""

    game_id: str
    seat: int
    request_id: str
    version: int
    duplicate: bool
    notation: str
    at: float  # time.monotonic() of the answer (one clock for every process)


@dataclass
class Player:
    """One thread playing every seat of one game with random legal decisions, through a
    FailoverClient: paced while the links are being cut, then flat out."""

    game: Game
    targets: list[str]
    seed: int
    calm: threading.Event
    acks: list[Ack] = field(default_factory=list)
    failovers: int = 0
    final: pb.View | None = None
    error: BaseException | None = None
    stopped: threading.Event = field(default_factory=threading.Event)
    client: FailoverClient | None = None

    def run(self) -> None:
        rng = random.Random(self.seed)
        game_id = self.game.game_id
        self.client = client = FailoverClient(self.targets, seconds=RETRY_S,
                                              timeout=CALL_TIMEOUT_S, max_backoff=0.5)
        try:
            while (spectator := client.view(game_id, encoding=NONE)).status != FINISHED:
                if self.stopped.is_set():
                    return
                seat = spectator.to_move[0]
                token = self.game.tokens[seat]
                view = client.view(game_id, token, encoding=NONE)
                choice = rng.choice(list(view.legal_decisions)).notation
                if not self.calm.is_set():  # thinks: a cut most often begins meanwhile,
                    self.calm.wait(PACE_S)  # and meets a submission first
                request_id = uuid.uuid4().hex
                answer = client.submit(game_id, token, view.version, choice,
                                       request_id=request_id, encoding=NONE)
                self.acks.append(Ack(game_id, seat, request_id, answer.version,
                                     answer.duplicate, choice, time.monotonic()))
            self.final = spectator
        except BaseException as error:  # reported by the test, not lost in the thread
            self.error = error
        finally:
            self.failovers = client.failovers
            client.close()

    def stop(self) -> None:
        """Stop playing (the test failed): a call under way fails on the closed client."""
        self.stopped.set()
        if self.client is not None:
            self.client.close()


@dataclass
class BotGame:
    """A game whose seats are shipped random bots, each a process in the root namespace."""

    game: Game
    processes: dict[int, subprocess.Popen[bytes]]
    ack_files: dict[int, Path]
    logs: dict[int, Path]

    def acks(self) -> list[Ack]:
        found = []
        for path in self.ack_files.values():
            if path.exists():
                for line in path.read_text().splitlines():
                    row = json.loads(line)
                    found.append(Ack(self.game.game_id, row["seat"], row["request_id"],
                                     row["version"], row["duplicate"], row["notation"],
                                     row["at"]))
        return found


def start_bots(cluster: Cluster, game: Game, target: str) -> BotGame:
    processes, ack_files, logs = {}, {}, {}
    for seat, token in game.tokens.items():
        ack_files[seat] = cluster.logs / f"bot{seat}.acks"
        logs[seat] = cluster.logs / f"bot{seat}.log"
        env = {**os.environ, "CURIA_SERVER": target, "CURIA_GAME_ID": game.game_id,
               "CURIA_SEAT": str(seat), "CURIA_SEAT_TOKEN": token,
               "CURIA_BOT_SEED": str(BOT_SEED + seat), "CURIA_RETRY_SECONDS": str(RETRY_S),
               "PARTITION_ACKS": str(ack_files[seat])}
        processes[seat] = cluster.network.spawn(
            None, [sys.executable, "-c", BOT_SHIM, "--pace", str(BOT_PACE_S)],
            log=logs[seat], env=env, cwd=REPO)
    return BotGame(game, processes, ack_files, logs)


# -- the cuts ---------------------------------------------------------------------------------
@dataclass
class Cut:
    """Links cut at once: (link, the namespace whose end is cut, both ways or one way),
    for `seconds`; when it was made and healed (time.monotonic())."""

    what: str
    ends: list[tuple[Link, str | None, bool]]
    seconds: float = CUT_S
    started: float = 0.0
    healed: float = 0.0


def cuts(cluster: Cluster) -> list[Cut]:
    """The cuts, in the order they are made."""
    link, r, b = cluster.links, cluster.redis_ns, cluster.b_ns
    return [
        # Redis runs what A sends (commits included) but its answers never reach A: A's
        # calls hang until the clients' deadlines, and their retries on B find the
        # decisions already applied (duplicate)
        Cut("Redis's answers to A lost", [(link["a-redis"], r, False)]),
        # B gets the clients' calls and applies their decisions; its answers are lost for
        # longer than the clients' heartbeat deadline, so that the bots' connections to
        # B break and their next channel connects to A
        Cut("B's answers to the clients lost", [(link["host-b"], b, False)],
            HEARTBEAT_CUT_S),
        # both servers' (and the test's) packets to Redis vanish
        Cut("Redis cut from everyone", [(link["a-redis"], r, True),
                                        (link["b-redis"], r, True),
                                        (link["host-redis"], r, True)]),
        # the clients have no route to A: new connections fail, calls under way hang
        Cut("A cut from the clients", [(link["host-a"], None, True)]),
        # B has no route to Redis: its new connections fail at once, calls under way hang
        Cut("B cut from Redis", [(link["b-redis"], b, True)]),
    ]


def run_cuts(cluster: Cluster, made: list[Cut]) -> None:
    """Make each cut, heal it after its time, wait GAP_S; each appended to `made`."""
    try:
        for cut in cuts(cluster):
            cut.started = time.monotonic()
            for link, namespace, both_ways in cut.ends:
                if both_ways:
                    link.cut(namespace)
                else:
                    link.cut_one_way(namespace)
            time.sleep(cut.seconds)  # the cut lasts (the fault under test)
            for link, _, _ in cut.ends:
                link.heal()
            cut.healed = time.monotonic()
            made.append(cut)
            time.sleep(GAP_S)  # healed links between two cuts
    finally:
        cluster.heal_all()


# -- the checks -------------------------------------------------------------------------------
def redis_requests(url: str, game_id: str) -> tuple[int, dict[str, int]]:
    """From Redis itself: how many versions the game's log holds (its stream, or the
    decisions of its compact record), and the request ids it still knows
    ("<seat>:<request id>" -> version: the requests hash, and those a compact record
    keeps)."""
    game_key, log_key, requests_key = keys(game_id)
    with redis.Redis.from_url(url, socket_timeout=10) as r:
        stream = r.xrange(log_key)
        record = r.hget(game_key, "record")
        requests = {k.decode(): int(v) for k, v in r.hgetall(requests_key).items()}
    if stream:
        versions = [int(entry_id.split(b"-")[0]) for entry_id, _ in stream]
        assert versions == list(range(1, len(versions) + 1)), versions
        total = len(versions)
    else:
        assert record is not None, f"game {game_id}: no log and no record in Redis"
        data = json.loads(zlib.decompress(record))
        total = len(data["decisions"])
        requests.update({k: int(v) for k, v in data.get("requests", {}).items()})
    return total, requests


def check_game(cluster: Cluster, client: FailoverClient, game_id: str,
               acks: list[Ack]) -> pb.GameRecord:
    """The game is over, its record is versions 1..N, each acknowledged decision is in
    it once at its version, every version was acknowledged to one request, and it
    replays to its result."""
    final = client.view(game_id, encoding=NONE)
    assert final.status == FINISHED, f"game {game_id} did not finish: {final}"
    record = client.record(game_id)
    assert_contiguous(record)
    total = len(record.decisions)
    assert total == final.version
    assert all(d.cause == pb.DECISION_CAUSE_SEAT for d in record.decisions), \
        "no server decided for a seat (no time-outs, no forfeits)"
    assert not any(s.forfeited for s in record.result.scores)
    by_version: dict[int, set[str]] = {}
    for ack in acks:
        assert 1 <= ack.version <= total, ack
        decision = record.decisions[ack.version - 1]
        assert (decision.seat, decision.notation) == (ack.seat, ack.notation), \
            f"game {game_id}: acknowledged {ack}, recorded {decision}"
        by_version.setdefault(ack.version, set()).add(ack.request_id)
    doubled = {v: ids for v, ids in by_version.items() if len(ids) > 1}
    assert not doubled, f"game {game_id}: versions acknowledged to two requests: {doubled}"
    requests_of: dict[str, set[int]] = {}
    for ack in acks:
        requests_of.setdefault(ack.request_id, set()).add(ack.version)
    assert all(len(v) == 1 for v in requests_of.values()), \
        f"game {game_id}: a request acknowledged at two versions: {requests_of}"
    # every decision in the record was made by one of these clients, and acknowledged
    assert sorted(by_version) == list(range(1, total + 1)), \
        f"game {game_id}: recorded versions never acknowledged: " \
        f"{sorted(set(range(1, total + 1)) - set(by_version))}"
    # Redis agrees: as many log entries, and each request id it still knows produced
    # the version its client was told (and no version was produced by two requests)
    in_redis, requests = redis_requests(cluster.redis_url, game_id)
    assert in_redis == total
    assert len(set(requests.values())) == len(requests), requests
    found = 0
    for ack in acks:
        known = requests.get(f"{ack.seat}:{ack.request_id}")
        assert known is None or known == ack.version, (ack, known)
        found += known is not None
    print(f"game {game_id}: {total} decisions, {len(acks)} acknowledged "
          f"({sum(a.duplicate for a in acks)} duplicate), {found} request ids in Redis")
    assert replay(record) == record.result == final.result
    return record


def server_outages(cluster: Cluster, name: str) -> int:
    """How many Redis outages the server logged the end of ("redis available again")."""
    return sum(1 for line in (cluster.logs / f"{name}.log").read_text().splitlines()
               if line.startswith("{") and json.loads(line).get("msg")
               == "redis available again")


# -- the test ---------------------------------------------------------------------------------
def test_games_through_two_servers_survive_cut_and_healed_links(cluster: Cluster) -> None:
    a, b = cluster.address("a"), cluster.address("b")
    calm = threading.Event()
    made: list[Cut] = []
    with FailoverClient([a, b], seconds=RETRY_S, timeout=10.0) as observer:
        def create(seed: int, **options: int) -> Game:
            created = observer.create_game("municipium", "classic", 3, seed=seed,
                                           options=options)
            return Game(created.game_id, {s.seat: s.token for s in created.seats})

        players = [Player(create(seed), [a, b] if i % 2 == 0 else [b, a], seed, calm)
                   for i, seed in enumerate(PLAYER_SEEDS)]
        threads = [threading.Thread(target=p.run, daemon=True) for p in players]
        try:
            # the bots' target names both servers; a fresh channel (after a failure)
            # connects to the first that answers
            bots = start_bots(cluster, create(BOT_SEED, target_decurions=4),
                              f"ipv4:{b},{a}")
            for thread in threads:
                thread.start()
            wait_for(lambda: all(p.acks for p in players)
                     and observer.view(bots.game.game_id, encoding=NONE).version >= 3,
                     WAIT, "every game to be under way")
            run_cuts(cluster, made)
            calm.set()
            last_heal = made[-1].healed
            deadline = time.monotonic() + WAIT
            for thread in threads:
                thread.join(max(0.0, deadline - time.monotonic()))
            assert not any(t.is_alive() for t in threads), "a player did not finish in time"
            print(f"players done {time.monotonic() - last_heal:.1f} s after the last heal")
            for seat, process in bots.processes.items():
                try:
                    process.wait(max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    raise AssertionError(f"bot {seat} did not finish in time: "
                                         f"{bots.logs[seat].read_text()[-2000:]}") from None
            print(f"bots done {time.monotonic() - last_heal:.1f} s after the last heal")
        except BaseException:
            for player in players:  # not left retrying servers that are gone
                player.stop()
            raise
        finally:
            calm.set()
            print("cuts:", [(c.what, round(c.healed - c.started, 2)) for c in made])
            for player in players:
                print(f"game {player.game.game_id}: {len(player.acks)} acks so far, "
                      f"{sum(k.duplicate for k in player.acks)} duplicate, "
                      f"{player.failovers} failovers, error {player.error!r}")
            for name in ("a", "b"):
                print(f"--- server {name}\n{cluster.log_tail(name)}")
            for seat in range(3):
                print(f"--- bot {seat}\n{cluster.log_tail(f'bot{seat}')}")

        errors = [p.error for p in players if p.error is not None]
        assert not errors, errors
        for seat, process in bots.processes.items():
            assert process.returncode == 0, bots.logs[seat].read_text()[-2000:]
        for name, process in cluster.servers.items():
            assert process.poll() is None, f"server {name} died: {cluster.log_tail(name)}"

        # while B's answers were lost, every game went on through A: the players after
        # their deadline, the bots once their heartbeat gave up on B (nothing can be
        # acknowledged through B meanwhile)
        away = next(cut for cut in made if cut.what == "B's answers to the clients lost")
        for game_id, acks in [(p.game.game_id, p.acks) for p in players] + [
                (bots.game.game_id, bots.acks())]:
            during = [ack for ack in acks if away.started < ack.at < away.healed]
            assert len(during) >= 3, f"game {game_id} stood still while B was away"
        for player in players:
            # in flight from before the first cut to after the last heal, and every
            # client had to leave a server it was using
            assert player.acks[0].at < made[0].started and player.acks[-1].at > last_heal
            assert player.failovers >= 2, player.game.game_id
            check_game(cluster, observer, player.game.game_id, player.acks)
        check_game(cluster, observer, bots.game.game_id, bots.acks())
        # the one-way cuts had decisions applied whose answers were lost: their retries on
        # the other server were answered duplicate, at the version first applied
        assert sum(ack.duplicate for p in players for ack in p.acks) >= 1

    # both servers felt the outages that were theirs: A lost Redis twice (its own cut
    # and everyone's), B twice (everyone's and its own)
    assert server_outages(cluster, "a") >= 2, cluster.log_tail("a")
    assert server_outages(cluster, "b") >= 2, cluster.log_tail("b")
