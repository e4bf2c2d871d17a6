"""The examples of docs/bots.md are real, and its observation tables complete.

- (a) Each documented exchange (a ```json `decide` line, the ```text answer after it,
  the ```json `end` line after that, in one section) comes from a reproducible game:
  (game, variant, seats, seed) played by the policy of `replay` (the lowest seat asked
  picks at random with `random.Random(seed)`), the documented answer taken at the
  documented version. The `decide` and `end` lines are rebuilt with the bridge's own code
  (`decide_message`, `end_message`) from the server's own view (`build_view`) and must
  equal the documented ones, `time_left_ms` aside; the answer must be legal; the first
  step object quoted after the answer (`{"step": ...}`) must be the seat's next question.
  A card quoted from a card set file is the file's.
- (b) The "complete stdio bot, in essence" snippet runs, fed with each documented
  exchange, answers a legal notation and exits 0.
- (c) The field tables of each observation section name every top-level key of a real
  observation (and of a board, where there is a board table), and nothing else; the
  `decide` table links the three sections; a card set's digest is its file's sha256.
- (d) The Leges decisions table names exactly the notation's verbs, each met in random
  games at the steps the table says; its examples are well formed; its steps and agenda
  words are the engine's.

To regenerate an exchange after an engine change: `python3 -m tests.test_bot_docs GAME
[ANSWER]` prints the lines of the game of EXCHANGES (then edit the prose around them).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import secrets
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from curia_api.codecs.leges import AGENDA_STEPS
from curia_api.v1 import game_service_pb2 as pb
from games import GAMES, new_game
from games.core import GameState, parse_notation
from games.leges import rules as leges_rules
from hosting.stdio_bridge import decide_message, end_message
from service.views import build_view

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "bots.md"
#: A fixed clock for the rebuilt lines: `time_left_ms` is the only field it changes.
NOW_MS = 1_700_000_000_000
#: The seat deciding at each version of `replay`, once the game is over.
OVER = -1


@dataclass(frozen=True)
class Exchange:
    """A documented exchange: the game it is taken from and the question asked."""

    game: str
    variant: str
    seats: int
    seed: int
    #: the version of the documented `decide` line, and the seat it is for
    version: int = 0
    seat: int = 0
    #: the decision limit the prose states ("2 seconds per decision")
    decision_ms: int = 2000


EXCHANGES = {
    "municipium": Exchange("municipium", "classic", 3, seed=1, version=118, seat=1),
    "leges": Exchange("leges", "standard", 3, seed=0, version=49, seat=1),
}


# -- replaying the documented games ----------------------------------------------------
def replay(exchange: Exchange, answers: dict[int, str] | None = None
           ) -> Iterator[tuple[int, GameState, int]]:
    """(version, state, seat deciding) before each decision, then (version, the finished
    game, OVER). The lowest seat asked decides, at random; `answers` (version ->
    notation) overrides the random pick at those versions (no random draw is used
    there). The state is the game's own: read it before the next step."""
    answers = answers or {}
    state = new_game(exchange.game, exchange.variant, exchange.seats, seed=exchange.seed)
    rng = random.Random(exchange.seed)
    version = 0
    while not state.is_over:
        seat = min(state.to_move())
        yield version, state, seat
        answer = answers.get(version)
        state.apply(seat, answer if answer is not None
                    else rng.choice(state.legal_decisions(seat)))
        version += 1
    yield version, state, OVER


def view_of(game_id: str, exchange: Exchange, state: GameState, version: int,
            seat: int) -> pb.View:
    """The seat's view as the server builds it (no time bank). Views are cached by game
    id and version: each replay must be a game of its own id."""
    finished = state.is_over
    return build_view(game_id, {"seat_names": state.seat_names()}, state, version,
                      "finished" if finished else "in_progress", seat,
                      0 if finished else NOW_MS + exchange.decision_ms, {})


def bridge_lines(exchange: Exchange, answer: str | None = None) -> dict[str, Any]:
    """What the bridge writes to the seat's bot in the documented game: `decide` (at the
    documented version), `next` (the seat's next `decide`, after `answer`) and `end`."""
    answers = {exchange.version: answer} if answer is not None else {}
    game_id = secrets.token_hex(16)
    found: dict[str, Any] = {}
    for version, state, seat in replay(exchange, answers):
        if seat == OVER:
            view = view_of(game_id, exchange, state, version, exchange.seat)
            found["end"] = end_message(view)
        elif version == exchange.version:
            assert seat == exchange.seat, f"seat {seat} decides at version {version}"
            view = view_of(game_id, exchange, state, version, seat)
            found["decide"] = decide_message(view, NOW_MS)
        elif version > exchange.version and "next" not in found \
                and exchange.seat in state.to_move():
            view = view_of(game_id, exchange, state, version, exchange.seat)
            found["next"] = decide_message(view, NOW_MS)
    return found


# -- reading the doc -------------------------------------------------------------------
@cache
def doc_text() -> str:
    return DOC.read_text(encoding="utf-8")


def heading_after(text: str, start: int, level: int) -> int:
    """Where the next heading of `level` or above starts (the text's end if none)."""
    found = re.compile(rf"^#{{1,{level}}} ", re.M).search(text, start)
    return found.start() if found else len(text)


def section(title: str, level: int = 2) -> str:
    """The text of a section, from its heading to the next heading of its level."""
    text = doc_text()
    start = re.search(rf"^{'#' * level} {re.escape(title)}\n", text, re.M)
    assert start, f"docs/bots.md has no section {'#' * level} {title}"
    return text[start.end():heading_after(text, start.end(), level)]


BLOCK = re.compile(r"^```(\w+)\n(.*?)^```\n", re.S | re.M)


@dataclass(frozen=True)
class Documented:
    """One documented exchange: its `decide` line, the answer, the text of its section
    after the answer, and its `end` line."""

    decide: dict[str, Any]
    answer: str
    after: str
    end: dict[str, Any]


def documented_exchanges() -> dict[str, Documented]:
    """The exchanges of docs/bots.md by game: each ```json `decide` line, with the first
    ```text block (the answer) and the ```json `end` line after it in its section."""
    text = doc_text()
    found: dict[str, Documented] = {}
    for match in BLOCK.finditer(text):
        if match.group(1) != "json" or not match.group(2).startswith('{"type": "decide"'):
            continue
        decide = json.loads(match.group(2))
        rest = text[match.end():heading_after(text, match.end(), 3)]
        blocks = [(m.group(1), m.group(2), m.end()) for m in BLOCK.finditer(rest)]
        answer = next(b for b in blocks if b[0] == "text")
        end = [b[1] for b in blocks if b[0] == "json" and b[1].startswith('{"type": "end"')]
        assert len(end) == 1, f"the {decide['game']} exchange has {len(end)} end lines"
        assert decide["game"] not in found, f"two {decide['game']} exchanges"
        found[decide["game"]] = Documented(decide, answer[1].strip(), rest[answer[2]:],
                                           json.loads(end[0]))
    return found


def quoted_steps(text: str) -> list[dict[str, Any]]:
    """The step objects quoted inline (`{"step": ...}`) in prose (wrapped: a newline is
    a space)."""
    return [json.loads(m.group(1).replace("\n", " "))
            for m in re.finditer(r'`(\{"step":[^`]*\})`', text)]


def table(text: str, header: str, index: int = 0) -> list[list[str]]:
    """The rows (lists of cells) of the `index`-th table of `text` under `header`."""
    tables = re.findall(rf"^{re.escape(header)}\n\|[- |]+\|\n((?:\|.*\|\n)+)", text, re.M)
    assert len(tables) > index, f"no table {header!r} (number {index})"
    return [[cell.strip() for cell in row.strip()[1:-1].split(" | ")]
            for row in tables[index].splitlines()]


def named(cell: str) -> set[str]:
    """The `names` of a table cell."""
    return set(re.findall(r"`([a-z_-]+)`", cell))


# -- (a) the exchanges are real ---------------------------------------------------------
def test_every_decide_line_is_a_known_exchange() -> None:
    assert set(documented_exchanges()) == set(EXCHANGES)


@pytest.mark.parametrize("game", sorted(EXCHANGES))
def test_the_documented_exchange_is_what_the_bridge_writes(game: str) -> None:
    exchange = EXCHANGES[game]
    documented = documented_exchanges()[game]
    decide = documented.decide
    assert (decide["version"], decide["seat"]) == (exchange.version, exchange.seat)
    assert documented.answer in decide["legal"]
    lines = bridge_lines(exchange, documented.answer)
    real = lines["decide"]
    assert list(decide) == list(real)  # the same fields, in the bridge's order
    assert list(decide["observation"]) == sorted(real["observation"])  # the server sorts
    left = decide["time_left_ms"]
    assert isinstance(left, int) and 0 < left <= exchange.decision_ms
    assert {**decide, "time_left_ms": None} == {**real, "time_left_ms": None}
    steps = quoted_steps(documented.after)
    assert steps, "the exchange does not quote the next question"
    assert steps[0] == lines["next"]["observation"]["asked"]
    assert documented.end == lines["end"]


def test_the_quoted_leges_card_is_the_card_set_files() -> None:
    text = section("A Leges exchange", 3)
    quoted = [m.group(2) for m in BLOCK.finditer(text) if m.group(1) == "toml"]
    assert len(quoted) == 1
    card = tomllib.loads(quoted[0])["themes"][0]
    with (REPO / "games" / "leges" / "cards.toml").open("rb") as file:
        themes = {theme["id"]: theme for theme in tomllib.load(file)["themes"]}
    assert themes[card["id"]] == card
    assert f"play {card['id']}" == documented_exchanges()["leges"].answer


# -- (b) the stdio bot in essence -------------------------------------------------------
def bot_snippet() -> str:
    text = doc_text()
    match = BLOCK.search(text, text.index("A complete stdio bot, in essence"))
    assert match and match.group(1) == "python"
    return match.group(2)


@pytest.mark.parametrize("game", sorted(EXCHANGES))
def test_the_stdio_bot_in_essence_answers_the_documented_line(game: str,
                                                              tmp_path: Path) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("import json\nimport os\nimport random\nimport sys\n\n" + bot_snippet())
    documented = documented_exchanges()[game]
    lines = json.dumps(documented.decide) + "\n" + json.dumps(documented.end) + "\n"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURIA_")}
    done = subprocess.run([sys.executable, str(bot)], input=lines, capture_output=True,
                          text=True, timeout=60, env={**env, "CURIA_BOT_SEED": "7"},
                          check=False)
    assert done.returncode == 0, done.stderr
    answers = done.stdout.splitlines()
    assert len(answers) == 1 and answers[0] in documented.decide["legal"], done.stdout


# -- (c) the observation tables ---------------------------------------------------------
def an_observation(game: str, seats: int, seed: int = 3) -> dict[str, Any]:
    """The observation of the seat asked at version 60 of a random game (or at its end):
    its own private parts shown."""
    variant = GAMES[game].default_variant
    for version, state, seat in replay(Exchange(game, variant, seats, seed)):
        if version == 60 or seat == OVER:
            return state.observation(max(seat, 0))
    raise AssertionError("unreachable")


@pytest.mark.parametrize(("title", "game", "seats"), [
    ("The Municipium observation", "municipium", 3),
    ("The Cicéron observation", "ciceron", 3),
    ("The Leges observation", "leges", 3),
])
def test_the_field_tables_name_every_field(title: str, game: str, seats: int) -> None:
    text = section(title)
    observation = an_observation(game, seats)
    fields = set().union(*(named(row[0]) for row in table(text, "| field | |")))
    assert fields == set(observation)
    if "boards" in observation:
        board = set().union(*(named(row[0]) for row in table(text, "| field | |", 1)))
        assert board == set(observation["boards"][0])


def test_the_decide_table_links_the_three_observations() -> None:
    rows = table(section("`decide`", 3), "| field | |")
    observation = next(row[1] for row in rows if row[0] == "`observation`")
    for game in ("Municipium", "Cicéron", "Leges"):
        assert f"(#the-{game.lower()}-observation)" in observation, game
        assert f"\n## The {game} observation\n" in doc_text()


@pytest.mark.parametrize("game", ["ciceron", "leges"])
def test_the_card_set_digest_is_the_files_sha256(game: str) -> None:
    """The docs tell a bot to compare `card_set.digest` with its copy's sha256."""
    digest = an_observation(game, 3)["card_set"]["digest"]
    data = (REPO / "games" / game / "cards.toml").read_bytes()
    assert digest == hashlib.sha256(data).hexdigest()
    assert f"games/{game}/cards.toml" in section(f"The {GAMES[game].title} observation")


# -- links: inside the repository, to headings that exist ---------------------------
def anchors(path: Path) -> set[str]:
    """The anchors of a markdown file's headings, as GitHub makes them (a repeated
    heading gets -1, -2, ...)."""
    found: set[str] = set()
    text = BLOCK.sub("", path.read_text(encoding="utf-8"))
    for title in re.findall(r"^#{1,6} (.+)$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
        anchor, n = slug, 0
        while anchor in found:
            n += 1
            anchor = f"{slug}-{n}"
        found.add(anchor)
    return found


@pytest.mark.parametrize("name", ["bots.md", "leges-cards.md", "ciceron-cards.md"])
def test_the_docs_link_inside_the_repository(name: str) -> None:
    path = REPO / "docs" / name
    text = path.read_text(encoding="utf-8")
    assert "../shared" not in text and "shared/seeds" not in text
    for target in re.findall(r"\]\(([^)\s]+)\)", BLOCK.sub("", text)):
        if target.startswith(("http://", "https://")):
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        assert linked.is_file() and REPO in linked.parents, target
        if anchor and linked.suffix == ".md":
            assert anchor in anchors(linked), target


# -- (d) the Leges notation -------------------------------------------------------------
LEGES = "The Leges observation"


@cache
def leges_positions() -> tuple[tuple[str, frozenset[tuple[str, str]]], ...]:
    """(the step asked, {(verb, notation)} legal) of a seat asked at every position of
    a few random games, 2 to 5 players."""
    found = []
    for seats in (2, 3, 4, 5):
        for _, state, seat in replay(Exchange("leges", "standard", seats, seed=seats)):
            if seat != OVER:
                step = state.observation(seat)["asked"]["step"]
                legal = frozenset((d.verb, str(d)) for d in state.legal_decisions(seat))
                found.append((step, legal))
    return tuple(found)


def test_the_leges_decisions_table_names_every_verb_and_only_those() -> None:
    rows = table(section(LEGES), "| notation | asked at | example |")
    documented = {row[0].strip("`").split()[0]: row for row in rows}
    assert set(documented) == set(leges_rules.VERBS)
    met: dict[str, set[str]] = {}
    for step, legal in leges_positions():
        for verb, _ in legal:
            met.setdefault(verb, set()).add(step)
    assert set(met) == set(documented), "a verb never met in the random games"
    for verb, row in documented.items():
        assert met[verb] <= named(row[1]), (verb, met[verb])


def test_the_leges_decision_examples_are_well_formed() -> None:
    """Each example is its row's verb, well formed, naming cards and colours of the set."""
    cards = GAMES["leges"].cards
    themes = {theme.id for theme in cards.themes}
    rows = table(section(LEGES), "| notation | asked at | example |")
    for row in rows:
        for example in re.findall(r"`([^`]+)`", row[2]):
            decision = parse_notation(example)
            assert decision.verb == row[0].strip("`").split()[0], example
            assert leges_rules.form_error(decision) is None, example
            if decision.verb in ("play", "discard"):
                assert decision.args[0] in themes, example
            if decision.verb in ("shift", "law"):
                assert decision.args[0] in cards.colour_ids, example


def test_the_leges_steps_are_the_engines() -> None:
    text = section(LEGES)
    asked = {row[0].strip("`") for row in table(text, "| `step` | the question | its fields |")}
    met = {step for step, _ in leges_positions()}
    assert met | {"over"} == asked
    agenda = {row[0].strip("`") for row in table(text, "| agenda word | what happens |")}
    assert agenda == set(AGENDA_STEPS)


if __name__ == "__main__":
    chosen = EXCHANGES[sys.argv[1]]
    given = sys.argv[2] if len(sys.argv) > 2 else None
    for name, line in bridge_lines(chosen, given).items():
        print(f"--- {name}")
        print(json.dumps(line))


@pytest.mark.parametrize("game", ["ciceron", "leges"])
def test_curia_cards_gives_the_engines_card_set_as_json(game: str) -> None:
    """The language-neutral route to the card data the docs name: the same tables as the
    TOML file the engine reads, and the digest the observation's card_set shows."""
    done = subprocess.run([sys.executable, "-m", "curia", "cards", game], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    cards = GAMES[game].cards  # type: ignore[attr-defined]
    assert data["digest"] == cards.digest and data["name"] == cards.name
    assert data["cards"] == tomllib.loads((REPO / "games" / game / "cards.toml").read_text())
    assert "curia cards " + game in (REPO / "docs" / "bots.md").read_text()


def test_the_documented_manifest_is_one_the_arena_loads(tmp_path: Path) -> None:
    """The manifest of docs/bots.md ("The manifest: bot.toml"), every key it shows, is
    accepted as it stands, with the values it says."""
    from arena.config import BotManifest
    block = re.search(r"## The manifest: `bot.toml`.*?```toml\n(.*?)```", DOC.read_text(),
                      re.S)
    assert block, "the manifest example is missing"
    (tmp_path / "bot.toml").write_text(block.group(1))
    manifest = BotManifest.load(tmp_path / "bot.toml")
    assert (manifest.name, manifest.protocol) == ("node-grpc", "grpc")
    assert manifest.games == ("municipium", "leges")
    assert manifest.limits.memory_mb == 2048 and manifest.limits.processes == 256
