"""The league records' schema (service/league_records.py): each record round-trips through
its stored form unchanged, reads what earlier versions stored, and a malformed record
names its key and field."""

from __future__ import annotations

import json
from typing import Any

import pytest

from service.league_records import (
    BOT_KEYS_KEY,
    BotAccount,
    BotEntry,
    GameResult,
    HistoryEntry,
    LadderRow,
    LastTable,
    LeagueSettings,
    LiveTable,
    RecordError,
    WorkerBeat,
    hash_field,
    jobs_key,
    league_key,
    seats_key,
    worker_key,
)

#: Records as the league stored them before the schema (same keys, fields, JSON).
STORED_ENTRY = {"status": "active", "key": "ab" * 32, "added_ms": 1_700_000_000_000,
                "owner": "alice", "manifest": ""}
STORED_RESULT = {"game_id": "g1", "seating": ["a", "b"], "ended_ms": 1_700_000_000_500,
                 "ranking": [[1], [0]], "forfeits": [0], "reason": "time",
                 "reasons": {"0": "no decision in time"}, "rated": True}
STORED_HISTORY = {"game_id": "g1", "ms": 1_700_000_000_600, "ladder": [
    {"bot": "b", "elo": 1532.1, "low": 1200.0, "high": 1864.2, "games": 1,
     "provisional": True},
    {"bot": "a", "elo": 1467.9, "low": 1135.8, "high": 1800.0, "games": 1,
     "provisional": True}]}
STORED_TABLE = {"seating": ["a", "b"], "created_ms": 1_700_000_000_000, "rated": True,
                "game": "leges", "variant": "standard", "options": {}, "decision_ms": 10_000,
                "bank_ms": 0, "wait": True, "jobs": {"1": "1700000000000-0"}}


def same_json(stored: dict[str, Any], written: dict[str, Any]) -> bool:
    """Equal, keys in the same order (what json.dumps writes)."""
    return json.dumps(stored) == json.dumps(written)


def test_the_keys_are_the_layout() -> None:
    assert league_key("L", "conf") == "curia:league:{L}:conf"
    assert LeagueSettings.key("L") == "curia:league:{L}:conf"
    assert seats_key("L", "a") == "curia:league:{L}:seats:a"
    assert jobs_key("L") == "curia:league:{L}:jobs"
    assert worker_key("w1") == "curia:worker:w1"


def test_league_settings_round_trip_through_their_hash() -> None:
    settings = LeagueSettings(name="L", game="leges", variant="standard", options={"x": 1},
                              rated=False, max_games=5)
    stored = {key.encode(): value.encode() for key, value in settings.to_redis().items()}
    assert LeagueSettings.from_redis(stored) == settings
    assert settings.to_redis()["options"] == '{"x": 1}' and settings.to_redis()["rated"] == "0"
    older = settings.to_redis()
    del older["max_games"]  # a league made before max_games
    assert LeagueSettings.from_redis(older).max_games == 0


def test_a_bot_entry_and_its_key_index_round_trip() -> None:
    entry = BotEntry.from_json("bots[a]", json.dumps(STORED_ENTRY))
    assert same_json(STORED_ENTRY, entry.to_json()) and json.loads(entry.dumps()) == STORED_ENTRY
    assert entry.public() == {"status": "active", "owner": "alice",
                              "added_ms": 1_700_000_000_000, "version": 1, "version_ms": 0,
                              "hosted": False}
    account = BotAccount("L", "a")
    assert BotAccount.from_redis("hash", account.to_redis().encode()) == account


def test_results_history_and_ladder_rows_round_trip_unchanged() -> None:
    result = GameResult.from_json("results[0]", json.dumps(STORED_RESULT))
    assert same_json(STORED_RESULT, result.to_json())
    void = {**STORED_RESULT, "rated": False, "void": "a bug"}
    assert same_json(void, GameResult.from_json("results[0]", void).to_json())
    entry = HistoryEntry.from_json("history[0]", json.dumps(STORED_HISTORY))
    assert same_json(STORED_HISTORY, entry.to_json())
    assert entry.by_bot()["b"] == LadderRow("b", 1532.1, 1200.0, 1864.2, 1, True)
    voided = {"game_id": "g1", "ms": 1, "voided": True, "ladder": []}
    assert same_json(voided, HistoryEntry.from_json("history[1]", voided).to_json())
    row = LadderRow("a", 1500.04, 1100.06, 1900.0, 3, False)
    assert row.rounded().to_json() == {"bot": "a", "elo": 1500.0, "low": 1100.1,
                                       "high": 1900.0, "games": 3, "provisional": False}


def test_a_result_written_by_hand_reads_with_the_defaults_its_readers_assume() -> None:
    result = GameResult.from_json("results[0]", {"game_id": "g1", "seating": ["a", "b"],
                                                 "ranking": [[0], [1]]})
    assert (result.ended_ms, result.forfeits, result.rated, result.void) == (None, [], True, "")
    assert "ended_ms" not in result.to_json() and result.counts


def test_live_tables_last_tables_and_heartbeats_round_trip() -> None:
    table = LiveTable.from_json("live[g1]", json.dumps(STORED_TABLE))
    assert same_json(STORED_TABLE, table.to_json())
    assert LiveTable.from_json("live[g2]", {"seating": ["a"]}).to_json() == {"seating": ["a"]}
    last = LastTable(frozenset({"b", "a"}))
    assert last.dumps() == '["a", "b"]' and LastTable.from_json("t", last.dumps()) == last
    beat = WorkerBeat("w1", 4, 2, 1_700_000_000_000)
    stored = {key.encode(): str(value).encode() for key, value in beat.to_redis().items()}
    assert WorkerBeat.from_redis("w1", stored) == beat


@pytest.mark.parametrize(("read", "names"), [
    (lambda: GameResult.from_json("curia:league:{L}:results[3]",
                                  {**STORED_RESULT, "seating": "a b"}),
     ("curia:league:{L}:results[3]", "'seating'")),
    (lambda: HistoryEntry.from_json("curia:league:{L}:history[0]", {
        **STORED_HISTORY, "ladder": [{**STORED_HISTORY["ladder"][0], "elo": "high"}]}),
     ("curia:league:{L}:history[0] ladder[0]", "'elo'")),
    (lambda: BotEntry.from_json("curia:league:{L}:bots[a]", {"status": 3}),
     ("curia:league:{L}:bots[a]", "'status'")),
    (lambda: LeagueSettings.from_redis({**LeagueSettings("L", "leges").to_redis(),
                                        "seats": "two"}, "curia:league:{L}:conf"),
     ("curia:league:{L}:conf", "'seats'")),
    (lambda: LeagueSettings.from_redis({name: value for name, value in LeagueSettings(
        "L", "leges").to_redis().items() if name != "game"}, "curia:league:{L}:conf"),
     ("curia:league:{L}:conf", "'game'", "missing")),
    (lambda: LiveTable.from_json("curia:league:{L}:live[g1]", "{"),
     ("curia:league:{L}:live[g1]", "a JSON object")),
    (lambda: BotAccount.from_redis("h", "nobody"),
     (hash_field(BOT_KEYS_KEY, "h"), "league/bot")),
    (lambda: WorkerBeat.from_redis("w1", {"slots": "many"}),
     ("curia:worker:w1", "'slots'")),
])
def test_a_malformed_record_names_its_key_and_field(read: Any, names: tuple[str, ...]) -> None:
    with pytest.raises(RecordError) as caught:
        read()
    for name in names:
        assert name in str(caught.value)
