"""Short Cicéron and Leges tournaments on the real service: each game's greedy bot
(Python, gRPC) against the Perl stdio bot, through `curia arena run` as a user runs it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.deals import KEY_BYTES
from arena.runner import ResultsFile

REPO = Path(__file__).resolve().parents[2]


def shipped(name: str) -> Path:
    return REPO / "bots" / name / "bot.toml"


def ciceron_record(record: dict[str, Any]) -> None:
    notations = [d["notation"] for d in record["decisions"]]
    assert any(n.startswith("vote ") for n in notations), "Princeps votes were cast"
    assert any(n.startswith("place senate-") for n in notations)


def leges_record(record: dict[str, Any]) -> None:
    notations = [d["notation"] for d in record["decisions"]]
    # the face-down choices and Law requests, public once the game is over
    assert sum(n.startswith("play ") for n in notations) >= 2 * 12
    assert any(n.startswith("law ") for n in notations)
    assert not any(d.get("secret") for d in record["decisions"])


@pytest.mark.parametrize(("game", "greedy", "end", "check_record"), [
    ("ciceron", "ciceron_greedy", "turns", ciceron_record),  # every game its 5 turns
    ("leges", "leges_greedy", "seasons", leges_record),  # every game its 4 seasons
])
def test_a_short_tournament_between_two_languages(
        tmp_path: Path, game: str, greedy: str, end: str,
        check_record: Callable[[dict[str, Any]], None]) -> None:
    if shutil.which("perl") is None:
        pytest.skip("perl is needed for the Perl stdio bot")
    bots = "".join(f'[[bots]]\nmanifest = "{shipped(name)}"\n'
                   for name in (greedy, "perl_stdio"))
    config = tmp_path / "t.toml"
    config.write_text(f'[tournament]\nname = "t"\ngame = "{game}"\nseats = 2\nseed = 4\n'
                      f'concurrency = 2\noutput = "{tmp_path / "out"}"\n'
                      f"[time]\ndecision_ms = 10000\n{bots}")
    key = tmp_path / "deal.key"  # a fixed deal (the bots are deterministic): the same
    key.write_text(bytes(range(KEY_BYTES)).hex())  # games, whatever the load
    key.chmod(0o600)
    done = subprocess.run([sys.executable, "-m", "curia", "arena", "run", str(config),
                           "--no-progress", "--deal-key", str(key)], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"{game} standard, 2 seats" in done.stdout
    out = tmp_path / "out"
    outcomes = ResultsFile(out / "results.jsonl").load()
    assert sorted(o.index for o in outcomes) == [0, 1], "one game per seat rotation"
    assert all(not o.forfeits for o in outcomes), [o.reasons for o in outcomes]
    assert all(o.reason == end for o in outcomes), "every game played to its end"
    for name in ("greedy", "perl-stdio"):
        assert {o.seating.index(name) for o in outcomes} == {0, 1}
    winners = [o.seating[seat] for o in outcomes for seat in o.ranking[0]]
    assert winners.count("greedy") == 2, winners
    records = sorted((out / "games").glob("*.json"))
    assert len(records) == 2
    for path in records:
        check_record(json.loads(path.read_text())["record"])
    board = (out / "leaderboard.txt").read_text()
    assert "greedy" in board and "perl-stdio" in board
