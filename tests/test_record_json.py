"""Records as scripts read them (`curia play --json`, the arena's `games/` files): every
field present, seat 0 included; versions and times as JSON numbers; the 64-bit seed a
decimal string (docs/api.md, "Records as JSON"); and `curia replay` reads them back."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from curia_api.message_json import message_json
from curia_api.v1 import game_service_pb2 as pb

REPO = Path(__file__).resolve().parents[1]


def test_defaults_are_written_and_wide_integers_are_numbers() -> None:
    record = pb.GameRecord(game="leges", seed=2**63 + 5, options={"rounds": 3})
    record.decisions.add(version=1, seat=0, notation="hold", unix_ms=1_795_000_000_000)
    data = message_json(record)
    decision = data["decisions"][0]
    assert decision["seat"] == 0 and decision["secret"] is False, decision
    assert decision["version"] == 1 and decision["unix_ms"] == 1_795_000_000_000
    assert data["options"] == {"rounds": 3}
    assert data["seed"] == str(2**63 + 5), "a 64-bit seed stays exact, as a string"
    assert data["game_id"] == "" and data["events"] == []


def test_curia_play_json_is_friendly_to_scripts_and_replays(tmp_path: Path) -> None:
    played = subprocess.run([sys.executable, "-m", "curia", "play", "--game", "leges",
                             "--service", "--json", "--seed", "9"], cwd=REPO,
                            capture_output=True, text=True, timeout=300)
    assert played.returncode == 0, played.stderr[-2000:]
    record = json.loads(played.stdout)
    seats = {decision["seat"] for decision in record["decisions"]}
    assert 0 in seats, "seat 0's decisions carry their seat"
    versions = [decision["version"] for decision in record["decisions"]]
    assert all(isinstance(v, int) for v in versions) and versions == sorted(versions)
    assert record["seed"] == "9"
    path = tmp_path / "record.json"
    path.write_text(played.stdout)
    replayed = subprocess.run([sys.executable, "-m", "curia", "replay", str(path), "-o",
                               str(tmp_path / "r.html")], cwd=REPO, capture_output=True,
                              text=True, timeout=120)
    assert replayed.returncode == 0, replayed.stderr
    assert (tmp_path / "r.html").stat().st_size > 1000
