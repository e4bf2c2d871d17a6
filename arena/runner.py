"""Running a tournament: bot processes, games on the service, results kept as they finish.

The arena is a client of the public gRPC API like any other. For each game it creates
the game (forfeit on timeout and on illegal decisions), starts one process per seat with
the launch protocol of docs/bots.md, watches the game as a spectator, resigns a seat whose
process dies, and stops every process at the end. Each result is appended to
`results.jsonl` the moment its game ends, so an interrupted tournament resumes where it
stopped; each game's full record is kept in `games/`, published there once every game of
its deal has ended (`arena.deals`: seeds come from the host's secret deal key). A server
or Redis away for a moment (UNAVAILABLE, DEADLINE_EXCEEDED) is waited out, for at most
RETRY_SECONDS in a row.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any, Protocol

import grpc

from arena.config import BotManifest, ConfigError, TournamentConfig
from arena.deals import KEY_FILE, DealKey, Deals, publish, withheld, withhold, withhold_row
from arena.schedule import SCHEDULE_VERSION, ScheduledGame, gauntlet, round_robin, sprt_games
from client.retry import TRANSIENT, RetryingClient, RetryPolicy
from client.unary import resign
from curia_api.message_json import message_json
from curia_api.v1 import game_service_pb2 as pb
from hosting.launcher import Launcher
from hosting.sandbox import SandboxPlan
from hosting.seat_jobs import QueuedSeat, SeatQueue
from ratings.records import GameOutcome
from ratings.sprt import SprtTest, deal_games

FINISHED = pb.GAME_STATUS_FINISHED
WAITING = pb.GAME_STATUS_WAITING_FOR_SEATS
POLL_SECONDS = 0.05
#: What a game in flight when the tournament stopped says in its bots' logs and the store.
STOPPED_NOTE = "the tournament was stopped: this game is discarded, played again on resume"
#: The pause between two looks at a game starting while the service is away.
AWAY_PAUSE_SECONDS = 0.5
#: Service games the arena starts at most for one scheduled game: an attempt that is void
#: (the host's fault: `GameVoid`) is played again with the same deal and seating, up to
#: this many attempts in all; a game void every time is recorded as void.
VOID_ATTEMPTS = 3
#: A server or Redis away for a moment is waited out for at most this many seconds in a
#: row, then the tournament fails loudly.
RETRY_SECONDS = 60.0
#: The arena's calls: transient failures retried (`client.retry`) for RETRY_SECONDS.
ARENA_RETRIES = RetryPolicy(codes=TRANSIENT, retries=None, seconds=RETRY_SECONDS)


class Stopped(Exception):
    """The tournament was stopped (Ctrl-C, SIGTERM) while this game was in flight: it is
    discarded and played again on resume."""


class GameVoid(Exception):
    """A game that never got going through the host's fault, not a bot's: a bot process
    still alive but not in contact with its game `startup_ms` after its launch, the
    service away while the bots started, or a game the service lost (its store rolled
    back past the game's creation). It has no result and counts in no rating."""


#: Why a game is void when the service no longer knows it.
LOST_GAME = ("the service lost the game (its store rolled back to before the game was "
             "created)")


class SeatBot(Protocol):
    """A seat's bot as a game sees it: a local process (`hosting.launcher.BotProcess`) or
    a seat queued for a worker (`hosting.seat_jobs.QueuedSeat`)."""

    manifest: BotManifest
    log_path: Path

    def exit_code(self) -> int | None: ...

    def ended_reason(self) -> str: ...

    def note(self, text: str) -> None: ...

    def terminate(self) -> None: ...

    def stop(self, grace: float = 2.0) -> None: ...

    def collect_log(self) -> None: ...


@dataclass(frozen=True)
class Progress:
    """How far a tournament's output folder is."""

    done: int
    left: int
    total: int
    sequential: bool = False  # SPRT: `total` is max_games, a cap

    def line(self) -> str:
        """"resuming: 39 of 90 games done", "complete: nothing to play", ..."""
        of = f"at most {self.total} (SPRT)" if self.sequential else str(self.total)
        if self.left == 0:
            return f"complete: nothing to play ({self.done} games in results.jsonl)"
        if self.done == 0:
            return f"starting: {of} games"
        return f"resuming: {self.done} of {of} games done"


@dataclass
class ResultsFile:
    """`results.jsonl`: one finished game per line, appended and flushed as games end."""

    path: Path
    lock: threading.Lock = field(default_factory=threading.Lock)

    def load(self) -> list[GameOutcome]:
        if not self.path.exists():
            return []
        outcomes = []
        for line in self.path.read_text().splitlines():
            with contextlib.suppress(ValueError, KeyError, TypeError):  # a torn last line
                outcomes.append(GameOutcome.from_json(json.loads(line)))
        return outcomes

    def append(self, outcome: GameOutcome) -> None:
        with self.lock, self.path.open("a") as handle:
            handle.write(json.dumps(outcome.to_json(), sort_keys=True) + "\n")
            handle.flush()
            os.fsync(handle.fileno())


class Tournament:
    """Plays a TournamentConfig's games against a server; see the module docstring."""

    def __init__(self, config: TournamentConfig, server: str, output: Path,
                 on_result: Callable[[list[GameOutcome], int], None] | None = None,
                 deal_key: Path | None = None) -> None:
        """`deal_key`: the host's key file (default: `private/deal.key` of the output
        folder, created by the first run)."""
        self.config = config
        self.server = server
        self.output = output
        self.on_result = on_result
        self.manifests = {bot.name: bot for bot in config.bots}
        self.results = ResultsFile(output / "results.jsonl")
        self._outcomes: list[GameOutcome] = []
        self._done: set[int] = set()  # the indices of _outcomes
        self._stop = threading.Event()
        self._live: set[SeatBot] = set()  # the bots of the games in flight
        self._running: set[Future[GameOutcome]] = set()  # the games in flight
        self.discarded = 0  # games in flight when the tournament was stopped
        self.key_path = deal_key or output / KEY_FILE
        self.key_created = False
        self._deals: Deals | None = None
        self._groups: dict[int, tuple[int, ...]] | None = None
        self._sprt: SprtTest | None = None  # the SPRT over self._outcomes, incremental
        self._launcher: Launcher | None = None
        #: with workers (`curia arena run --workers`): the run's job stream, where each
        #: seat is queued instead of started here
        self.seat_queue: SeatQueue | None = None

    def launcher(self) -> Launcher:
        """How the bots start (hosting.launcher), the run folder and deal key hidden from
        them; SandboxUnavailable, a ConfigError, for a tournament that requires sandboxes
        on a host that cannot make them."""
        if self._launcher is None:
            c = self.config
            self._launcher = Launcher.make(c.sandbox, c.bots, [self.output, self.key_path],
                                           build_network=c.build_network)
        return self._launcher

    def sandbox_plan(self) -> SandboxPlan:
        """Which bots run sandboxed (hosting.sandbox): the launcher's plan."""
        return self.launcher().plan

    # -- schedule ---------------------------------------------------------------------
    def schedule(self) -> list[ScheduledGame]:
        """The fixed schedule (round-robin, gauntlet); SPRT games come from `sprt_games`."""
        names = [bot.name for bot in self.config.bots]
        c = self.config
        if c.format == "gauntlet":
            assert c.challenger is not None
            return gauntlet(c.challenger, names, c.seats, c.rounds, c.seed)
        return round_robin(names, c.seats, c.rounds, c.seed)

    def _scheduled(self) -> Iterator[ScheduledGame]:
        """Every game the tournament may play, as the public schedule names it (SPRT: up
        to max_games)."""
        c = self.config
        if c.format != "sprt":
            return iter(self.schedule())
        assert c.sprt is not None
        names = [bot.name for bot in c.bots]
        return islice(sprt_games(c.sprt.a, c.sprt.b, names, c.seats, c.seed),
                      c.sprt.max_games)

    def _games(self) -> Iterator[ScheduledGame]:
        """The games to play, in order, each with its deal's secret seed (an SPRT's stop
        once it has decided, and none past the whole deals of its cap: SprtTest.limit)."""
        deals = self.deals()
        for game in self._scheduled():
            if self.config.format == "sprt" and (self._sprt_decided()
                                                 or game.index >= self._sprt_test().limit):
                return
            yield game.dealt(deals.game_seed(game.deal))

    def deals(self) -> Deals:
        """The tournament's seeds, from its deal key (created on first use if missing)."""
        if self._deals is None:
            key, self.key_created = DealKey.load_or_create(self.key_path)
            self._deals = Deals(key, json.dumps(self._deal_identity(), sort_keys=True))
        return self._deals

    def _deal_identity(self) -> dict[str, Any]:
        """What a deal depends on besides the key and its name: another tournament under
        the same key gets other cards."""
        c = self.config
        return {"game": c.game, "variant": c.variant, "seats": c.seats, "options": c.options,
                "format": c.format, "challenger": c.challenger, "seed": c.seed,
                "bots": sorted(self.manifests)}

    def total_games(self) -> int:
        """Games in the schedule (SPRT: max_games, a cap), counted without building it."""
        c = self.config
        if c.format == "sprt" and c.sprt:
            return c.sprt.max_games
        others = len(c.bots) - (c.format == "gauntlet")
        groups = math.comb(others, c.seats - (c.format == "gauntlet"))
        return groups * c.seats * c.rounds

    def _sprt_decided(self) -> bool:
        """The SPRT has stopped (H0, H1 or max_games) on the games finished so far, read
        in index order, deal by deal, up to the first unfinished one (see ratings.sprt)."""
        return self._sprt_test().verdict.stopped

    def _sprt_test(self) -> SprtTest:
        """The SPRT, caught up with the finished games: it reads each game once (the new
        ones since the last call), so a resume over N games under a cap of M costs
        O(N + M)."""
        spec = self.config.sprt
        assert spec is not None
        if self._sprt is None:
            first = next(sprt_games(spec.a, spec.b, [b.name for b in self.config.bots],
                                    self.config.seats, self.config.seed))
            self._sprt = SprtTest(spec.a, spec.b, spec, deal_games(first.seating, spec.a,
                                                                   spec.b))
        return self._sprt.follow(self._outcomes)

    def progress(self) -> Progress:
        """Games done (in results.jsonl) and left to play; refuses (ConfigError) a folder
        that holds another tournament. Publishes the records of every deal with no game
        left to play (a run stopped right after its last result had not)."""
        self._check_same_tournament()
        self._load_results()
        left = sum(1 for game in self._games() if game.index not in self._done)
        self._publish_ready(over=left == 0)
        return Progress(done=len(self._done), left=left, total=self.total_games(),
                        sequential=self.config.format == "sprt")

    def _load_results(self) -> None:
        """The outcomes in results.jsonl, and their indices."""
        self._outcomes = self.results.load()
        self._done = {o.index for o in self._outcomes}

    # -- running ----------------------------------------------------------------------
    def interrupt(self) -> int:
        """Stop: start no more games and end those in flight now, their bots sent SIGTERM
        (their results are discarded: `run` returns once they are). The games in flight."""
        self._stop.set()
        for bot in list(self._live):
            bot.terminate()
        return sum(not future.done() for future in list(self._running))

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def run(self) -> list[GameOutcome]:
        """Play every game not yet in results.jsonl; return all outcomes, by index."""
        (self.output / "games").mkdir(parents=True, exist_ok=True)
        (self.output / "logs").mkdir(exist_ok=True)
        self._check_same_tournament()
        self._load_results()
        self._publish_ready(over=False)
        pending = (g for g in self._games() if g.index not in self._done)
        with self.launcher().serving(self.server), \
                ThreadPoolExecutor(self.config.concurrency) as pool:
            for game in pending:
                while len(self._running) >= self.config.concurrency:
                    self._running = self._collect(self._running)
                if self._stop.is_set() or (self.config.format == "sprt"
                                           and self._sprt_decided()):
                    break
                self._running.add(pool.submit(self.play, game))
            while self._running:
                self._running = self._collect(self._running)
        if self.stopped:
            return sorted(self._outcomes, key=lambda o: o.index)
        self._publish_ready(over=not any(g.index not in self._done for g in self._games()))
        return sorted(self._outcomes, key=lambda o: o.index)

    def _collect(self, running: set[Future[GameOutcome]]) -> set[Future[GameOutcome]]:
        finished, still = wait(running, return_when=FIRST_COMPLETED)
        for future in finished:
            if isinstance(future.exception(), Stopped):
                self.discarded += 1
                continue
            outcome = future.result()
            withhold_row(self.output, outcome.index)  # a void game's: it has no record
            self.results.append(outcome)
            self._outcomes.append(outcome)
            self._done.add(outcome.index)
            self._publish_deal(outcome.index)
            if self.on_result is not None:
                self.on_result(sorted(self._outcomes, key=lambda o: o.index),
                               self.total_games())
        return still

    # -- publishing records -----------------------------------------------------------
    def _deal_groups(self) -> dict[int, tuple[int, ...]]:
        """Each game's index -> the indices of every game dealt the same cards."""
        if self._groups is None:
            by_deal: dict[str, list[int]] = {}
            for game in self._scheduled():
                by_deal.setdefault(game.deal, []).append(game.index)
            self._groups = {index: tuple(group) for group in by_deal.values()
                            for index in group}
        return self._groups

    def _publish_deal(self, index: int) -> None:
        """Publish the records of game `index`'s deal if every game of it has ended."""
        group = self._deal_groups().get(index, (index,))
        if self._done.issuperset(group):
            for member in group:
                publish(self.output, member)

    def _publish_ready(self, *, over: bool) -> None:
        """Publish every withheld record whose deal has ended; all of them once the
        tournament is `over` (an SPRT that stopped never plays the rest of a pair)."""
        for index in sorted(withheld(self.output)):
            if over:
                publish(self.output, index)
            else:
                self._publish_deal(index)

    def _check_same_tournament(self) -> None:
        """Resuming into a folder of another tournament, or with another deal key, would
        mix results: refuse, naming the fix."""
        c = self.config
        path = self.output / "tournament.lock.json"
        found = json.loads(path.read_text()) if path.exists() else None
        if found and found.get("deal_key") and not self.key_path.exists():
            raise ConfigError(f"{self.output} was played with a deal key, and "
                              f"{self.key_path} does not exist; give its key with "
                              f"--deal-key FILE, or use another output folder or --fresh")
        fingerprint = {**self._deal_identity(), "rounds": c.rounds,
                       "schedule": SCHEDULE_VERSION,
                       "sprt": dataclasses.asdict(c.sprt) if c.sprt else None,
                       "deal_key": self.deals().key.fingerprint()}
        if found is not None and found != fingerprint:
            raise ConfigError(self._mismatch(found, fingerprint, path.name))
        path.write_text(json.dumps(fingerprint, sort_keys=True, indent=1))

    def _mismatch(self, found: dict[str, Any], expected: dict[str, Any], lock: str) -> str:
        """Why a run folder is not resumed, and what to do."""
        others = {k: v for k, v in found.items() if k != "deal_key"}
        if others == {k: v for k, v in expected.items() if k != "deal_key"}:
            if "deal_key" not in found:
                return (f"{self.output} holds results played with public seeds (before "
                        f"deal keys); use another output folder or --fresh")
            return (f"{self.output} was played with another deal key than {self.key_path} "
                    f"(see {lock}); give its key with --deal-key FILE, or use another "
                    f"output folder or --fresh")
        changed = "; ".join(f"{name}: {before} in the folder, {after} now"
                            for name, before, after in changed_settings(others, {
                                k: v for k, v in expected.items() if k != "deal_key"}))
        return (f"{self.output} holds results of another tournament (see {lock}): "
                f"{changed}; a run folder is resumed only with the settings it was started "
                f"with: restore them, or use another output folder or --fresh")

    # -- one game ---------------------------------------------------------------------
    def play(self, game: ScheduledGame) -> GameOutcome:
        """Play a scheduled game; a void attempt is played again with the same deal and
        seating, up to VOID_ATTEMPTS in all, then the game is recorded as void."""
        voided: list[str] = []
        while len(voided) < VOID_ATTEMPTS:
            try:
                return self._attempt(game, voided)
            except GameVoid as void:
                voided.append(str(void))
        return void_outcome(game, voided)

    def _attempt(self, game: ScheduledGame, voided: list[str]) -> GameOutcome:
        """One service game for `game`, its bots started once its every seat is awaited
        (`wait_for_players`); GameVoid if it never got going (`follow_game`), once the
        game is ended and its bots' logs set aside."""
        c = self.config
        attempt = len(voided) + 1
        with RetryingClient.to(self.server, ARENA_RETRIES) as client:
            created = client.create_game(  # a retry may orphan a game
                c.game, c.variant, c.seats, options=dict(c.options), seed=game.seed,
                decision_ms=c.decision_ms, bank_ms=c.bank_ms, on_timeout="forfeit",
                forfeit_on_illegal=True, wait_for_players=True)
            tokens = {cred.seat: cred.token for cred in created.seats}
            bots: dict[int, SeatBot] = {}
            startup = Startup(c.startup_ms)
            void: GameVoid | Stopped | None = None
            try:
                for seat, name in enumerate(game.seating):
                    if self.stopped:
                        raise Stopped
                    bots[seat] = self._launch(game, created.game_id, seat, name, tokens[seat])
                    self._live.add(bots[seat])
                    self._wait_taken(bots[seat])
                    startup.launched[seat] = time.monotonic()
                    if voided:
                        bots[seat].note(replay_note(attempt, voided))
                final = follow_game(client, created.game_id, bots, tokens,
                                    c.game_timeout_s, startup, self._stop)
                record = client.record(created.game_id)
                for bot in bots.values():
                    bot.collect_log()
            except (GameVoid, Stopped) as error:
                void = error
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.NOT_FOUND:
                    raise
                void = GameVoid(LOST_GAME)
            finally:
                for bot in bots.values():
                    if void is not None:
                        bot.note(f"void, attempt {attempt} of {VOID_ATTEMPTS}: {void}"
                                 if isinstance(void, GameVoid) else STOPPED_NOTE)
                    bot.stop()
                    self._live.discard(bot)
            if void is not None:
                end_void_game(client, created.game_id, tokens,
                              str(void) if isinstance(void, GameVoid) else STOPPED_NOTE)
                set_aside_logs(bots.values(), attempt)
                raise void
        self._save_record(game, record)
        return outcome_of(game, record, final, attempts=attempt)

    def _wait_taken(self, bot: SeatBot) -> None:
        """A queued seat starts once a worker took it (Stopped if stopped before)."""
        if isinstance(bot, QueuedSeat) and not bot.wait_taken(self._stop):
            raise Stopped

    def _launch(self, game: ScheduledGame, game_id: str, seat: int, name: str,
                token: str) -> SeatBot:
        log = self.output / "logs" / f"{game.index:05d}-seat{seat}-{name}.log"
        seed = self.deals().bot_seed(game.index, seat)
        if self.seat_queue is not None:
            return self.seat_queue.launch(self.manifests[name], game_id=game_id, seat=seat,
                                          token=token, seed=seed, log_path=log)
        return self.launcher().start(self.manifests[name], server=self.server,
                                     game_id=game_id, seat=seat, token=token, seed=seed,
                                     log_path=log)

    def _save_record(self, game: ScheduledGame, record: pb.GameRecord) -> None:
        """Keep the record private; `_publish_deal` publishes it once its deal has ended."""
        data = {"schedule": game.to_json(),
                "record": message_json(record)}
        withhold(self.output, game.index, json.dumps(data, indent=1, sort_keys=True))


@dataclass
class Startup:
    """The start-up of a game's bots (`follow_game`): when each was launched, how long
    each may take to make contact with its game (`[time] startup_ms`), how long each
    took."""

    limit_ms: int
    #: How long after its launch a seat may stay out of contact before the game is void
    #: (None: the limit; `curia arena check` waits longer, to measure a slow start).
    give_up_ms: int | None = None
    #: Seat -> when its bot was launched (time.monotonic()).
    launched: dict[int, float] = field(default_factory=dict)
    #: Seat -> milliseconds from its launch to its contact.
    contact_ms: dict[int, int] = field(default_factory=dict)
    #: The seats not in contact yet, as last seen.
    absent: set[int] = field(default_factory=set)
    #: Whether the service was away at some moment of the start-up.
    away: bool = False

    def seen(self, view: pb.View, now: float) -> None:
        """Note the seats `view` shows in contact (every seat once the game started)."""
        absent = set(view.absent_seats) if view.status == WAITING else set()
        gone = set(view.forfeited_seats)  # resigned, perhaps before any contact
        for seat, launched in self.launched.items():
            if seat not in absent | gone and seat not in self.contact_ms:
                self.contact_ms[seat] = round((now - launched) * 1000)
        self.absent = absent

    def overdue(self, now: float) -> list[int]:
        """The launched seats still out of contact past the patience."""
        patience = (self.give_up_ms or self.limit_ms) / 1000
        return [seat for seat in sorted(self.absent & set(self.launched))
                if now - self.launched[seat] > patience]


def follow_game(client: RetryingClient, game_id: str, bots: Mapping[int, SeatBot],
                tokens: Mapping[int, str], timeout_s: float,
                startup: Startup | None = None,
                stop: threading.Event | None = None) -> pb.View:
    """Watch a game until it ends (its final view); resign the seat of a bot whose process
    died (saying why: a limit it exceeded, or a crash) and, after `timeout_s` (0: never)
    from its start, every seat. With `startup`, a game waiting for its players is first
    seen to its start (`await_players`: GameVoid if it never gets going). Stopped once
    `stop` is set, before a stopped bot is taken for a crash."""
    resigned: set[int] = set()
    stop = stop or threading.Event()
    if startup is not None:
        await_players(client, game_id, bots, tokens, startup, resigned, stop)
    deadline = time.monotonic() + timeout_s if timeout_s else float("inf")
    while (view := client.view(game_id)).status != FINISHED:
        if stop.is_set():
            raise Stopped
        resign_exited(client, game_id, bots, tokens, resigned)
        if time.monotonic() > deadline:
            for seat in set(tokens) - resigned:
                resign(client, game_id, tokens[seat], "game time limit")
                resigned.add(seat)
        time.sleep(POLL_SECONDS)
    return view


def await_players(client: RetryingClient, game_id: str, bots: Mapping[int, SeatBot],
                  tokens: Mapping[int, str], startup: Startup, resigned: set[int],
                  stop: threading.Event) -> None:
    """Follow a game waiting for its players until it starts (or ends), noting when each
    seat makes contact. A bot that exited before its contact forfeits (its fault) unless
    the service was away meanwhile; GameVoid for that, and for a seat out of contact
    past the patience while its process lives (a slow start: the host's fault)."""
    startup.absent = set(startup.launched) - set(startup.contact_ms)  # until seen
    while True:
        if stop.is_set():
            raise Stopped
        view = look(client, game_id)
        now = time.monotonic()
        if view is None:
            startup.away = True
        else:
            startup.seen(view, now)
            if view.status != WAITING:
                return
        if startup.away and (gone := [s for s in startup.absent & set(bots)
                                      if bots[s].exit_code() is not None]):
            raise GameVoid(f"the service was away while the bots started: seat {gone[0]} "
                           f"({bots[gone[0]].manifest.name}) exited before making contact")
        resign_exited(client, game_id, bots, tokens, resigned)
        if late := [s for s in startup.overdue(now) if s not in resigned]:
            raise GameVoid(slow_start({s: bots[s].manifest.name for s in late}, startup))
        time.sleep(POLL_SECONDS if view is not None else AWAY_PAUSE_SECONDS)


def slow_start(late: Mapping[int, str], startup: Startup) -> str:
    """Why a game whose seats (seat -> bot) made no contact in time is void."""
    seats = ", ".join(f"seat {seat} ({name})" for seat, name in late.items())
    if startup.away:
        return (f"the service was away while the bots started: {seats} made no contact "
                f"within {startup.give_up_ms or startup.limit_ms} ms")
    return f"{seats} did not start within startup_ms ({startup.limit_ms} ms)"


def look(client: RetryingClient, game_id: str) -> pb.View | None:
    """The spectator's view in one attempt; None while the service is away (UNAVAILABLE,
    DEADLINE_EXCEEDED), which the start-up counts against the host."""
    current = client.source.current()
    try:
        return current.view(game_id, encoding=pb.OBSERVATION_ENCODING_NONE)
    except grpc.RpcError as error:
        if error.code() not in TRANSIENT:
            raise
        client.source.failed(current)
        return None


def resign_exited(client: RetryingClient, game_id: str, bots: Mapping[int, SeatBot],
                  tokens: Mapping[int, str], resigned: set[int]) -> None:
    """Resign the seat of each bot whose process has exited, saying why (a limit it
    exceeded, or a crash); `resigned` collects them."""
    for seat, bot in bots.items():
        if seat not in resigned and bot.exit_code() is not None:
            reason = bot.ended_reason()
            if resign(client, game_id, tokens[seat], reason) and \
                    bot.manifest.protocol == "grpc":  # the bridge logs a stdio bot's
                bot.note(reason)
            resigned.add(seat)


def changed_settings(found: Mapping[str, Any], expected: Mapping[str, Any],
                     prefix: str = "") -> list[tuple[str, str, str]]:
    """The settings that differ between a run folder's fingerprint and this run's, as
    (name, value in the folder, value now), nested tables named `table.key`."""
    changed: list[tuple[str, str, str]] = []
    for name in sorted(set(found) | set(expected)):
        before, after = found.get(name), expected.get(name)
        if isinstance(before, Mapping) and isinstance(after, Mapping):
            changed += changed_settings(before, after, f"{prefix}{name}.")
        elif before != after:
            changed.append((f"{prefix}{name}", json.dumps(before), json.dumps(after)))
    return changed


def end_void_game(client: RetryingClient, game_id: str, tokens: Mapping[int, str],
                  reason: str) -> None:
    """End a void game (its bots stopped): every seat resigns before the start, which
    ends it without a result (docs/api.md, `wait_for_players`)."""
    for token in tokens.values():
        resign(client, game_id, token, f"void: {reason}")


def set_aside_logs(bots: Iterable[SeatBot], attempt: int) -> None:
    """Keep a void attempt's bot logs beside the next attempt's: NAME.voidN.log."""
    for bot in bots:
        path = bot.log_path
        with contextlib.suppress(OSError):
            path.replace(path.with_name(f"{path.stem}.void{attempt}{path.suffix}"))


def replay_note(attempt: int, voided: list[str]) -> str:
    """The line a replayed attempt's bot logs open with."""
    return (f"attempt {attempt} of {VOID_ATTEMPTS} of this game: attempt {attempt - 1} was "
            f"void ({voided[-1]}); its logs are *.void{attempt - 1}.log")


def outcome_of(game: ScheduledGame, record: pb.GameRecord, final: pb.View,
               attempts: int = 1) -> GameOutcome:
    """What the ratings need of a finished game (played at its `attempts`-th attempt)."""
    result = record.result
    forfeits = [s.seat for s in result.scores if s.forfeited]
    turns = final.turn
    return GameOutcome(
        index=game.index, seed=game.seed, seating=game.seating,
        ranking=tuple(tuple(group.seats) for group in result.ranking),
        forfeits=tuple(forfeits),
        reasons={s.seat: s.forfeit_reason for s in result.scores if s.forfeited},
        reason=result.reason, decisions=len(record.decisions), turns=int(turns),
        attempts=attempts, deal=game.deal)


def void_outcome(game: ScheduledGame, voided: list[str]) -> GameOutcome:
    """A game void at every attempt: no result, the last attempt's reason."""
    return GameOutcome(index=game.index, seed=game.seed, seating=game.seating, ranking=(),
                       void=voided[-1], attempts=len(voided))


def describe(config: TournamentConfig) -> dict[str, Any]:
    """The config as plain data, for the exports."""
    return {"name": config.name, "game": config.game, "variant": config.variant,
            "seats": config.seats, "format": config.format, "seed": config.seed,
            "rounds": config.rounds, "options": config.options,
            "decision_ms": config.decision_ms, "bank_ms": config.bank_ms,
            "startup_ms": config.startup_ms,
            "sprt": dataclasses.asdict(config.sprt) if config.sprt else None,
            "bots": [{"name": b.name, "language": b.language, "protocol": b.protocol}
                     for b in config.bots]}
