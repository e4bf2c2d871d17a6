"""Secret deals: seeds from the host's key (never from anything a bot receives or the site
shows), and the records of a deal published only once every game dealt it has ended.

The probe bot (badbots/probe) tries the three ways a bot learnt its deal before: its own
CURIA_BOT_SEED inverted, the published tournament seed through the public schedule, and
a sibling game's record or replay read while its own game runs."""

from __future__ import annotations

import hashlib
import hmac
import importlib.util
import io
import json
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from arena.config import ConfigError, TournamentConfig
from arena.deals import KEY_FILE, DealKey, published, withheld
from arena.runner import ResultsFile, Tournament
from arena.schedule import ScheduledGame
from curia.arena_cli import write_report
from curia_api.v1 import game_service_pb2 as pb
from games.core import derive_seed
from ratings.records import GameOutcome
from service.http_gateway import BackgroundGateway, Gateway
from service.redis_server import free_port

REPO = Path(__file__).resolve().parents[2]
BOTS = REPO / "bots"
PROBE = Path(__file__).resolve().parent / "badbots" / "probe"


def load_probe() -> ModuleType:
    spec = importlib.util.spec_from_file_location("probe_bot", PROBE / "bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


probe = load_probe()


def tournament_file(folder: Path, head: str = "", bots: tuple[str, ...] = (
        "random_bot", "greedy_bot", "python_stdio"), name: str = "t.toml") -> Path:
    body = "".join(f'[[bots]]\nmanifest = "{BOTS / bot / "bot.toml"}"\n' for bot in bots)
    path = folder / name
    path.write_text(f'[tournament]\nname = "t"\ngame = "municipium"\nvariant = "revised"\n'
                    f'seats = 2\nseed = 7\nconcurrency = 1\noutput = "out"\n{head}\n'
                    f"[time]\ndecision_ms = 10000\n{body}")
    return path


def seeds(tournament: Tournament) -> list[int]:
    deals = tournament.deals()
    return [deals.game_seed(game.deal) for game in tournament.schedule()]


# -- the key and the seeds --------------------------------------------------------------
def test_the_same_key_and_file_give_the_same_seeds(tmp_path: Path) -> None:
    config = TournamentConfig.load(tournament_file(tmp_path))
    key = tmp_path / "keys" / "deal.key"
    first = Tournament(config, "", tmp_path / "a", deal_key=key)
    again = Tournament(config, "", tmp_path / "b", deal_key=key)
    assert seeds(first) == seeds(again)
    assert first.key_created and not again.key_created
    bot_seeds = [first.deals().bot_seed(i, s) for i in range(6) for s in range(2)]
    assert bot_seeds == [again.deals().bot_seed(i, s) for i in range(6) for s in range(2)]


def test_another_key_gives_other_seeds(tmp_path: Path) -> None:
    config = TournamentConfig.load(tournament_file(tmp_path))
    one, other = (Tournament(config, "", tmp_path / name) for name in ("a", "b"))
    assert set(seeds(one)).isdisjoint(seeds(other))
    assert (tmp_path / "a" / KEY_FILE).read_text() != (tmp_path / "b" / KEY_FILE).read_text()


def test_the_rotations_of_a_group_share_a_seed_and_groups_do_not(tmp_path: Path) -> None:
    tournament = Tournament(TournamentConfig.load(tournament_file(tmp_path)), "", tmp_path)
    by_deal: dict[str, set[int]] = {}
    for game, seed in zip(tournament.schedule(), seeds(tournament), strict=True):
        by_deal.setdefault(game.deal, set()).add(seed)
    assert len(by_deal) == 3 and all(len(group) == 1 for group in by_deal.values())
    assert len(set(seeds(tournament))) == 3


def key_mac(key_file: Path, *labels: object) -> int:
    """The documented formula, computed apart: HMAC-SHA256 of the length-prefixed labels,
    its first 63 bits."""
    message = b"".join(len(p).to_bytes(4, "big") + p for p in (str(x).encode() for x in labels))
    digest = hmac.new(bytes.fromhex(key_file.read_text()), message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def test_seeds_follow_the_documented_formula_and_bot_seeds_ignore_the_deal(
        tmp_path: Path) -> None:
    tournament = Tournament(TournamentConfig.load(tournament_file(tmp_path)), "", tmp_path)
    deals, key = tournament.deals(), tmp_path / KEY_FILE
    game = tournament.schedule()[0]
    assert deals.game_seed(game.deal) == key_mac(key, deals.tournament, "deal", game.deal)
    assert deals.bot_seed(4, 1) == key_mac(key, deals.tournament, "bot", 4, 1)
    game_seeds = set(seeds(tournament))
    for index, seat in ((i, s) for i in range(6) for s in range(2)):
        bot_seed = deals.bot_seed(index, seat)
        assert bot_seed not in game_seeds
        for name in ("random", "greedy", "python-stdio"):
            assert game_seeds.isdisjoint(probe.invert_derive_seed(bot_seed, "bot", name, seat))


def test_the_key_file_is_private_and_never_shown(tmp_path: Path) -> None:
    key, created = DealKey.load_or_create(tmp_path / "run" / KEY_FILE)
    assert created
    text = (tmp_path / "run" / KEY_FILE).read_text().strip()
    assert len(bytes.fromhex(text)) == 32
    assert (tmp_path / "run" / KEY_FILE).stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "run" / "private").stat().st_mode & 0o777 == 0o700
    assert text not in repr(key) and text not in key.fingerprint()
    again, created = DealKey.load_or_create(tmp_path / "run" / KEY_FILE)
    assert not created and again.fingerprint() == key.fingerprint()
    (tmp_path / "bad.key").write_text("not a key\n")
    with pytest.raises(ConfigError, match="not a deal key"):
        DealKey.read(tmp_path / "bad.key")
    with pytest.raises(ConfigError, match="cannot read the deal key"):
        DealKey.load_or_create(tmp_path)  # a folder


def test_a_resume_with_another_key_or_without_its_key_is_refused(tmp_path: Path) -> None:
    config = TournamentConfig.load(tournament_file(tmp_path))
    output = tmp_path / "out"
    Tournament(config, "", output).progress()
    DealKey.load_or_create(tmp_path / "other.key")
    with pytest.raises(ConfigError, match="another deal key.*--deal-key FILE"):
        Tournament(config, "", output, deal_key=tmp_path / "other.key").progress()
    with pytest.raises(ConfigError, match="does not exist; give its key with --deal-key"):
        Tournament(config, "", output, deal_key=tmp_path / "missing.key").progress()
    assert not (tmp_path / "missing.key").exists(), "no key is made up for a played folder"
    assert Tournament(config, "", output).progress().left == 6, "its own key resumes"


# -- records wait for their deal ----------------------------------------------------------
class RecordingTournament(Tournament):
    """Games drawn in place of a server (seat 0 wins), each keeping a small record the way
    the runner keeps a real one."""

    def play(self, game: ScheduledGame) -> GameOutcome:
        self._save_record(game, pb.GameRecord(game="municipium", variant="revised",
                                              num_seats=2, seed=game.seed))
        return GameOutcome(index=game.index, seed=game.seed, seating=game.seating,
                           ranking=((0,), (1,)))


def complete_deals(tournament: Tournament, done: set[int]) -> set[int]:
    """The indices of every game whose deal every game of has ended."""
    groups: dict[str, set[int]] = {}
    for game in tournament.schedule():
        groups.setdefault(game.deal, set()).add(game.index)
    return {i for group in groups.values() if group <= done for i in group}


def shown(folder: Path) -> set[int]:
    return {int(path.stem) for path in (folder / "games").glob("*.json")}


def test_records_wait_for_every_game_of_their_deal_even_across_a_resume(
        tmp_path: Path) -> None:
    config = TournamentConfig.load(tournament_file(tmp_path))
    first = RecordingTournament(config, "", config.output)
    checked: list[set[int]] = []

    def check(outcomes: list[GameOutcome], total: int) -> None:
        done = {o.index for o in outcomes}
        assert shown(config.output) == complete_deals(first, done), done
        assert withheld(config.output) == done - complete_deals(first, done)
        checked.append(done)
        if len(outcomes) == 4:
            first._stop.set()  # Ctrl-C after four games

    first.on_result = check
    partial = first.run()
    assert len(checked) == 4 and len(partial) == 4
    hidden = withheld(config.output)
    assert hidden, "two games of the second pass are still to be played"

    write_report(partial, config.output, {"name": "t"}, io.StringIO(), complete=False,
                 total=6)
    rows = (config.output / "games.csv").read_text().splitlines()[1:]
    assert {int(row.split(",")[0]) for row in rows} == shown(config.output)
    exported = json.loads((config.output / "tournament.json").read_text())
    assert {g["index"] for g in exported["games"]} == shown(config.output)
    assert sum(r["games"] for r in exported["ratings"]) == 8, "the standings count all 4"
    secret = {o.seed for o in partial if o.index in hidden}
    for name in ("games.csv", "tournament.json", "index.html", "leaderboard.txt"):
        text = (config.output / name).read_text()
        assert not any(str(seed) in text for seed in secret), name
    assert "more finished games are counted above" in (config.output / "index.html").read_text()

    resumed = RecordingTournament(config, "", config.output)
    assert len(resumed.run()) == 6
    assert shown(config.output) == set(range(6)) and not withheld(config.output)


def test_a_capped_sprt_publishes_its_last_unfinished_pair(tmp_path: Path) -> None:
    """An SPRT capped at 5 games of 2 seats, read game by game (counting = "pair"; the
    deal counting caps in whole deals), leaves its third pair unfinished: it is
    published once the tournament is over."""
    path = tournament_file(tmp_path, 'format = "sprt"\n[sprt]\na = "random"\nb = "greedy"\n'
                                     'max_games = 5\ncounting = "pair"',
                           bots=("random_bot", "greedy_bot"))
    config = TournamentConfig.load(path)
    outcomes = RecordingTournament(config, "", config.output).run()
    assert len(outcomes) == 5
    assert shown(config.output) == set(range(5)) and not withheld(config.output)


def test_a_void_game_without_a_record_waits_for_its_deal_too(tmp_path: Path) -> None:
    config = TournamentConfig.load(tournament_file(tmp_path))

    class Void(RecordingTournament):
        def play(self, game: ScheduledGame) -> GameOutcome:
            if game.index == 0:
                return GameOutcome(index=0, seed=game.seed, seating=game.seating,
                                   ranking=(), void="a bot never started")
            return super().play(game)

    tournament = Void(config, "", config.output)
    seen: list[bool] = []
    tournament.on_result = lambda outcomes, total: seen.append(
        bool(published(config.output, outcomes[:1])))
    tournament.run()
    schedule = tournament.schedule()
    partner = next(g.index for g in schedule[1:] if g.deal == schedule[0].deal)
    assert seen[:partner] == [False] * partner and seen[partner] is True
    assert not withheld(config.output)


# -- what the site server serves ----------------------------------------------------------
def get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return error.code


def test_the_site_server_never_serves_the_key_or_a_withheld_record(tmp_path: Path) -> None:
    DealKey.load_or_create(tmp_path / KEY_FILE)
    for name in ("private/games/00000.json", "games/00001.json", "results.jsonl",
                 "index.html", "tournament.lock.json"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("{}")
    gateway = BackgroundGateway(Gateway(site=tmp_path), "127.0.0.1", 0)
    base = f"http://127.0.0.1:{gateway.start()}"
    try:
        assert get(base + "/index.html") == 200
        for path in ("/private/deal.key", "/private/games/00000.json", "/private/",
                     "/games/00001.json", "/results.jsonl", "/tournament.lock.json",
                     "/replays/../private/deal.key", "/%70rivate/deal.key"):
            assert get(base + path) == 404, path
    finally:
        gateway.stop()


# -- the probe bot in real tournaments ----------------------------------------------------
def test_the_probes_attacks_break_the_old_public_seeds() -> None:
    """Each attack finds the seed where the old arena leaked it: the probe is no straw man."""
    old_game_seed = derive_seed(7, "group", 0, "round", 0)  # the old schedule's
    old_bot_seed = derive_seed(old_game_seed, "bot", "bad-probe", 1)  # the old _launch
    assert old_game_seed in probe.invert_derive_seed(old_bot_seed, "bot", "bad-probe", 1)
    assert old_game_seed in probe.schedule_seeds(7, ["bad-probe", "random"], 2)
    page = f"<p>municipium revised, 2 seats: bad-probe, random; seed {old_game_seed}; …</p>"
    assert probe.SEED_IN_PAGE.findall(page) == [str(old_game_seed)]
    record = json.dumps({"schedule": {"seed": 1}, "record": {"seed": str(old_game_seed)}})
    assert old_game_seed in probe.record_seeds([record])


class Observer(threading.Thread):
    """Watches a running tournament of one deal (games 0 and 1) from outside: its run
    folder and its site over HTTP. Anything of a game shown while fewer than two results
    are in is a violation."""

    def __init__(self, out: Path, site: str) -> None:
        super().__init__(daemon=True)
        self.out, self.site = out, site
        self.stopping = threading.Event()
        self.violations: list[str] = []
        self.withheld_seen = False
        self.note_seen = False

    def finished(self) -> int:
        path = self.out / "results.jsonl"
        return len(path.read_text().splitlines()) if path.exists() else 0

    def shown(self) -> list[str]:
        found = [f"{p.parent.name}/{p.name}" for folder in ("games", "replays")
                 for p in (self.out / folder).glob("0000*")]
        index = probe.fetch(self.site, "index.html")
        found += [f"site row {n}" for n in (0, 1) if f">game {n}<" in index]
        found += [f"site {p}" for p in ("replays/00000.html", "replays/00001.html",
                                        "games.csv", "tournament.json")
                  if probe.fetch(self.site, p)]
        return found

    def run(self) -> None:
        while not self.stopping.is_set():
            shown = self.shown()  # read before the results: a correct arena publishes after
            finished = self.finished()
            if shown and finished < 2:
                self.violations.append(f"{shown} with {finished} result(s)")
            if finished == 1:
                self.withheld_seen |= ((self.out / "private/games/00000.json").exists()
                                       and not (self.out / "games/00000.json").exists())
                index = self.out / "index.html"
                self.note_seen |= index.exists() and "1 more finished game is counted" in \
                    index.read_text()
            time.sleep(0.05)


def probe_lines(log: Path) -> dict[str, dict[str, Any]]:
    """The probe's last line per attack, and its observation."""
    lines: dict[str, dict[str, Any]] = {}
    for line in log.read_text().splitlines():
        if line.startswith("probe "):
            data = json.loads(line[len("probe "):])
            lines[data.get("attack", "observation")] = data
    return lines


GAMES = [("municipium", 'variant = "revised"\n[options]\ntarget_decurions = 4'),
         ("ciceron", ""), ("leges", "")]


@pytest.mark.parametrize(("game", "head"), GAMES, ids=[g for g, _ in GAMES])
def test_a_probe_bot_never_learns_its_deal(tmp_path: Path, server: str, game: str,
                                           head: str) -> None:
    """The probe and a random bot, one deal in both seatings, one game at a time (so game
    0 has ended while game 1, same deal, runs), the site served over HTTP. The probe runs
    unsandboxed (its manifest says so): it reads the run folder and the site."""
    port = free_port()
    site = f"http://127.0.0.1:{port}/"
    shutil.copytree(PROBE, tmp_path / "probe")  # a manifest's paths stay in its folder
    (tmp_path / "probe" / "probe.toml").write_text(
        'name = "bad-probe"\nlanguage = "python"\nprotocol = "grpc"\nsandbox = false\n'
        'workdir = "."\ncommand = ["{python}", "bot.py", "--bots", '
        f'"bad-probe,random", "--tournament-seed", "7", "--site", "{site}"]\n')
    config = tmp_path / "t.toml"
    config.write_text(f'[tournament]\nname = "probe"\ngame = "{game}"\nseats = 2\nseed = 7\n'
                      f'concurrency = 1\noutput = "out"\n{head}\n[time]\ndecision_ms = 10000\n'
                      f'[[bots]]\nmanifest = "{tmp_path / "probe" / "probe.toml"}"\n'
                      f'[[bots]]\nmanifest = "{BOTS / "random_bot" / "bot.toml"}"\n')
    out = tmp_path / "out"
    observer = Observer(out, site)
    observer.start()
    try:
        done = subprocess.run([sys.executable, "-m", "curia", "arena", "run", str(config),
                               "--server", server, "--http-port", str(port), "--no-progress"],
                              cwd=REPO, capture_output=True, text=True, timeout=300)
    finally:
        observer.stopping.set()
        observer.join()
    assert done.returncode == 0, done.stderr[-3000:]
    assert not observer.violations, observer.violations[:3]
    assert observer.withheld_seen and observer.note_seen

    tournament = Tournament(TournamentConfig.load(config), "", out)
    outcomes = sorted(ResultsFile(out / "results.jsonl").load(), key=lambda o: o.index)
    assert [o.index for o in outcomes] == [0, 1] and not any(o.forfeits for o in outcomes)
    for outcome in outcomes:
        record = json.loads((out / "games" / f"{outcome.index:05d}.json").read_text())
        real = int(record["record"]["seed"])
        seat = outcome.seating.index("bad-probe")
        lines = probe_lines(out / "logs" / f"{outcome.index:05d}-seat{seat}-bad-probe.log")
        for attack in ("bot-seed", "schedule", "siblings"):
            assert real not in lines[attack]["candidates"], (game, outcome.index, attack)
        assert probe.deals_match(lines["observation"]["observation"], real), \
            "the comparison recognises the real deal"
        assert lines["schedule"]["tournament_seed"] == 7
        assert len(lines["schedule"]["candidates"]) > 300
        assert lines["siblings"]["polls"] >= 1 and lines["siblings"]["served"] == []
        assert real == tournament.deals().game_seed(record["schedule"]["deal"]), \
            "the key and the file give the seed again"
        assert lines["bot-seed"]["bot_seed"] == tournament.deals().bot_seed(outcome.index, seat)
    assert outcomes[0].seed == outcomes[1].seed, "the two seatings share the deal"
    assert lines["siblings"]["records_seen"] == 0, "in game 1: game 0 over, not published"
    assert shown_now(out) == {0, 1}


def shown_now(out: Path) -> set[int]:
    """Games published once the tournament is over: record, replay and site row each."""
    index = (out / "index.html").read_text()
    return {n for n in (0, 1) if (out / "games" / f"{n:05d}.json").exists()
            and (out / "replays" / f"{n:05d}.html").exists() and f">game {n}<" in index}


def test_the_deal_key_option_replays_a_tournament_exactly(tmp_path: Path,
                                                          server: str) -> None:
    key = tmp_path / "keys" / "deal.key"
    runs = {}
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        config = tournament_file(tmp_path / name, "[options]\ntarget_decurions = 4",
                                 bots=("random_bot", "greedy_bot"))
        done = subprocess.run([sys.executable, "-m", "curia", "arena", "run", str(config),
                               "--server", server, "--deal-key", str(key), "--no-progress"],
                              cwd=REPO, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        assert f"deal key {'created' if name == 'a' else 'from'} {key}" in done.stdout
        runs[name] = (done, tmp_path / name / "out")
    secret = key.read_text().strip()
    a, b = (sorted(ResultsFile(out / "results.jsonl").load(), key=lambda o: o.index)
            for _, out in runs.values())
    assert [(o.index, o.seed, o.seating) for o in a] == [(o.index, o.seed, o.seating)
                                                         for o in b], "the same deals"
    for done, out in runs.values():
        assert secret not in done.stdout + done.stderr
        assert not (out / "private" / "deal.key").exists()
        for path in (p for p in out.rglob("*") if p.is_file()):
            assert secret not in path.read_text(errors="replace"), path
    refused = subprocess.run([sys.executable, "-m", "curia", "arena", "run",
                              str(tmp_path / "a" / "t.toml"), "--no-progress"],
                             cwd=REPO, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1 and "--deal-key FILE" in refused.stderr, refused.stderr
