"""A gRPC bot that plays at random but first tries to learn its game's deal, the three ways
a bot could before deals were secret (tests/arena/test_deals.py):

1. `bot-seed`: invert the old derivation CURIA_BOT_SEED = derive_seed(game seed, "bot",
   name, seat) (SplitMix64 steps are invertible; the last shift leaves two candidates);
2. `schedule`: from the published tournament seed (`--tournament-seed`, else the site's
   index.html), every seed the public schedule code and derive_seed give;
3. `siblings`: the seeds in other games' records and replays (the run folder's games/,
   replays/, games.csv, tournament.json, and the same over `--site URL`), polled before
   each of its decisions, so only while its own game runs.

Each attack prints its candidate seeds and those that give exactly the seat's real
observation at version 0 with `games.new_game(...)`: `probe {"attack": ..., "candidates":
[...], "matched": [...]}`. A version-0 observation holds few random bits in some games (a
Municipium seat sees who starts, not the deck), so chance matches happen: an attack has
learned the deal only if the game's real seed, published once its deal has ended, is among
its candidates; the test checks that, and that the real seed gives the observation the
probe printed (`probe {"observation": ...}`).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import os
import re
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterable
from itertools import islice
from pathlib import Path
from typing import Any

import games
from arena.schedule import gauntlet, round_robin, sprt_games
from bots import make_bot
from bots.grpc_player import add_launch_arguments, check_launch_arguments
from bots.play_client import play_seat
from client.play import JSON_ONLY
from client.unary import CuriaClient
from games.core import Decision, GameState, derive_seed

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
MULTIPLIERS = (0xBF58476D1CE4E5B9, 0x94D049BB133111EB)
#: Site paths that must never be served (a hit is reported as `served`).
PRIVATE_PATHS = ("private/deal.key", "private/games/00000.json", "results.jsonl",
                 "games/00000.json", "tournament.lock.json", "logs/")
SEED_IN_PAGE = re.compile(r"\bseed (\d+)")
POLL_SECONDS = 0.3


def say(**line: Any) -> None:
    print("probe " + json.dumps(line, sort_keys=True), flush=True)


# -- the deal a seed implies -------------------------------------------------------------
def canonical(data: Any) -> Any:
    return json.loads(json.dumps(data, sort_keys=True))


def deals_match(observation: dict[str, Any], seed: int) -> bool:
    """Whether `seed` deals the game this seat observes at version 0."""
    try:
        state = games.new_game(observation["game"], observation["variant"],
                               observation["num_seats"], observation["options"], seed)
    except ValueError:
        return False
    return bool(canonical(state.observation(observation["seat"])) == canonical(observation))


def matched(observation: dict[str, Any], seeds: Iterable[int]) -> list[int]:
    return sorted({seed for seed in seeds if 0 <= seed <= MASK
                   and deals_match(observation, seed)})


# -- attack 1: the bot seed --------------------------------------------------------------
def unshift(value: int, shift: int) -> int:
    """The inverse of x ^ (x >> shift) on 64 bits."""
    result = value
    for _ in range(64 // shift + 1):
        result = value ^ (result >> shift)
    return result


def unmix(output: int) -> int:
    """The SplitMix64 state that gave `output`."""
    z = unshift(output, 31)
    z = (z * pow(MULTIPLIERS[1], -1, 1 << 64)) & MASK
    z = unshift(z, 27)
    z = (z * pow(MULTIPLIERS[0], -1, 1 << 64)) & MASK
    return unshift(z, 30)


def invert_derive_seed(child: int, *labels: object) -> list[int]:
    """Every parent seed with derive_seed(parent, *labels) == child."""
    mixes = [x for label in labels for x in [*(ord(ch) for ch in str(label)), 0x1F]]
    parents = []
    for low_bit in (0, 1):
        state = (unmix((child << 1) | low_bit) - GOLDEN) & MASK
        for mixed in reversed(mixes):
            state = (unmix(state ^ mixed) - GOLDEN) & MASK
        parents.append(state)
    return [p for p in parents if derive_seed(p, *labels) == child]


# -- attack 2: the published tournament seed ---------------------------------------------
def schedule_seeds(seed: int, names: list[str], seats: int) -> set[int]:
    """Every seed the public schedule of `seed` could give a game: the old derivation by
    group, round and SPRT pair; the schedule's own games and deal names."""
    found = {derive_seed(seed, "group", n, "round", r) for n in range(64) for r in range(4)}
    found |= {derive_seed(seed, "sprt", n) for n in range(256)}
    scheduled = [*round_robin(names, seats, 3, seed),
                 *(g for name in names for g in gauntlet(name, names, seats, 3, seed)),
                 *islice(sprt_games(names[0], names[-1], names, seats, seed), 256)]
    for game in scheduled:
        deal = getattr(game, "deal", "")
        found |= {game.seed, derive_seed(seed, deal), derive_seed(0, deal)}
    return found


def published_seed(run: Path | None, site: str | None) -> int | None:
    """The tournament seed the site shows ("seed N" in its settings line)."""
    pages = [fetch(site, "index.html")] if site else []
    if run is not None and (run / "index.html").exists():
        pages.append((run / "index.html").read_text(errors="replace"))
    for page in pages:
        found = page and re.search(r"format [a-z-]+, (?:rounds \d+, )?seed (\d+)", page)
        if found:
            return int(found.group(1))
    return None


# -- attack 3: sibling games' records and replays ----------------------------------------
def fetch(site: str, path: str) -> str:
    """A page of the site ("" if it is not served)."""
    try:
        with urllib.request.urlopen(site.rstrip("/") + "/" + path, timeout=2) as answer:
            return str(answer.read().decode("utf-8", "replace"))
    except (urllib.error.URLError, OSError, ValueError):
        return ""


def record_seeds(texts: Iterable[str]) -> set[int]:
    """Seeds in record files (the arena's games/NNNNN.json)."""
    seeds = set()
    for text in texts:
        try:
            data = json.loads(text)
            seeds.add(int(data["record"]["seed"]))
            seeds.add(int(data["schedule"]["seed"]))
        except (ValueError, KeyError, TypeError):
            continue
    return seeds


def export_seeds(games_csv: str, tournament_json: str) -> set[int]:
    """Seeds in the report's games.csv and tournament.json."""
    seeds = {int(row["seed"]) for row in csv.DictReader(io.StringIO(games_csv))
             if row.get("seed", "").isdigit()}
    with contextlib.suppress(ValueError, AttributeError, TypeError, KeyError):
        seeds |= {int(g["seed"]) for g in json.loads(tournament_json).get("games", [])}
    return seeds


def folder_texts(run: Path) -> tuple[list[str], list[str], str, str]:
    """(records, replay pages, games.csv, tournament.json) of the run folder."""
    def read(path: Path) -> str:
        try:
            return path.read_text(errors="replace")
        except OSError:
            return ""
    return ([read(p) for p in sorted((run / "games").glob("*.json"))],
            [read(p) for p in sorted((run / "replays").glob("*.html"))],
            read(run / "games.csv"), read(run / "tournament.json"))


def site_texts(site: str) -> tuple[list[str], list[str], str, str]:
    """The same over HTTP: every replay the index links, and a few guessed."""
    index = fetch(site, "index.html")
    linked = set(re.findall(r"replays/\d{5}\.html", index))
    linked |= {f"replays/{n:05d}.html" for n in range(8)}
    return ([fetch(site, f"games/{n:05d}.json") for n in range(8)],
            [fetch(site, path) for path in sorted(linked)],
            fetch(site, "games.csv"), fetch(site, "tournament.json"))


class SiblingPoll:
    """Attack 3, polled while the game runs."""

    def __init__(self, observation: dict[str, Any], run: Path | None, site: str | None):
        self.observation, self.run, self.site = observation, run, site
        self.seeds: set[int] = set()
        self.polls = 0
        self.records_seen = 0
        self.served: set[str] = set()
        self.last = 0.0

    def poll(self, force: bool = False) -> None:
        if not force and time.monotonic() - self.last < POLL_SECONDS:
            return
        self.last = time.monotonic()
        sources = [folder_texts(self.run)] if self.run is not None else []
        if self.site:
            sources.append(site_texts(self.site))
            self.served |= {path for path in PRIVATE_PATHS if fetch(self.site, path)}
        for records, replays, games_csv, tournament_json in sources:
            self.records_seen = max(self.records_seen, sum(1 for r in records if r))
            self.seeds |= record_seeds(records)
            self.seeds |= {int(s) for page in replays for s in SEED_IN_PAGE.findall(page)}
            self.seeds |= export_seeds(games_csv, tournament_json)
        self.polls += 1
        say(attack="siblings", polls=self.polls, records_seen=self.records_seen,
            served=sorted(self.served), candidates=sorted(self.seeds),
            matched=matched(self.observation, self.seeds))


class ProbeBot:
    """Random decisions; a poll of the siblings' records before each."""

    name = "probe"

    def __init__(self, game: str, seed: int, poll: SiblingPoll) -> None:
        self.inner = make_bot("random", seed, game)
        self.sibling_poll = poll

    def choose(self, state: GameState, seat: int) -> Decision:
        self.sibling_poll.poll()
        return self.inner.choose(state, seat)


# -- the program ---------------------------------------------------------------------------
def run_folder(named: str | None) -> Path | None:
    """The run folder: given, or the one of the log file stdout writes to."""
    if named:
        return Path(named)
    try:
        log = Path(os.readlink("/proc/self/fd/1"))
    except OSError:
        return None
    return log.parent.parent if log.parent.name == "logs" else None


def first_observation(server: str, game_id: str, token: str) -> dict[str, Any]:
    """The seat's observation at version 0."""
    with CuriaClient(server) as client:
        first = next(iter(client.watch(game_id, token, 0, encoding=JSON_ONLY)))
    observation: dict[str, Any] = json.loads(first.view.observation_json)
    return observation


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="probe")
    add_launch_arguments(parser)
    parser.add_argument("--name", default="bad-probe", help="this bot's name in the arena")
    parser.add_argument("--bots", default="", help="the tournament's bots, comma-separated")
    parser.add_argument("--tournament-seed", type=int, help="the published seed")
    parser.add_argument("--run-folder", help="the run folder (else found from stdout)")
    parser.add_argument("--site", help="the site's URL (curia arena run --http-port)")
    args = parser.parse_args(argv)
    check_launch_arguments(parser, args)
    return args


def main(argv: list[str]) -> int:
    args = parse(argv)
    bot_seed = int(os.environ.get("CURIA_BOT_SEED", "0"))
    observation = first_observation(args.server, args.game_id, args.token)
    say(observation=observation, seat=args.seat)
    parents = invert_derive_seed(bot_seed, "bot", args.name, args.seat)
    say(attack="bot-seed", bot_seed=bot_seed, candidates=sorted(parents),
        matched=matched(observation, parents))
    run = run_folder(args.run_folder)
    seed = args.tournament_seed if args.tournament_seed is not None else \
        published_seed(run, args.site)
    names = [n for n in args.bots.split(",") if n] or [args.name, "random"]
    candidates = schedule_seeds(seed, names, observation["num_seats"]) if seed is not None \
        else set()
    say(attack="schedule", tournament_seed=seed, candidates=sorted(candidates),
        matched=matched(observation, candidates))
    siblings = SiblingPoll(observation, run, args.site)
    siblings.poll(force=True)
    play_seat(args.server, args.game_id, args.seat, args.token,
              ProbeBot(observation["game"], bot_seed, siblings), bot_seed)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
