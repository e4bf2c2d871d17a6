"""The front door of the docs, as a new user meets it: README.md's ways in, the first
league of docs/league.md (every `curia` line parses with the real parser, no secret on a
command line), the `[limits]` a manifest gets by default (docs/bots.md), every key of the
tournament file in docs/arena.md, and the Java path of docs/bots.md."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import re
import shlex
from pathlib import Path

from arena import config
from curia.cli import build_parser
from hosting.limits import Limits
from service.redis_server import PASSWORD_FILE

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
README = REPO / "README.md"
LEAGUE = DOCS / "league.md"
BOTS = DOCS / "bots.md"
ARENA = DOCS / "arena.md"

FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
#: A Redis URL with a password in it (a masked `:***@` is no password).
PASSWORD_URL = re.compile(r"rediss?(?:\+cluster)?://[^\s/@]*:(?!\*\*\*@)[^\s@]+@")
SEPARATORS = {"&&", "||", ";", "|", "&"}
REDIRECTIONS = re.compile(r"^\d*[<>]")
REDIRECTION_WORDS = {"<", ">", ">>", "1>", "2>", "2>>", "&>"}
#: Placeholders that would not parse as they stand (a port where a number goes).
PLACEHOLDERS = {"PORT": "50051", "N": "2"}


# -- reading the docs ----------------------------------------------------------------------
def fenced_lines(text: str) -> list[str]:
    """Every line of the fenced code blocks, backslash-continued lines joined."""
    lines: list[str] = []
    for block in FENCE.findall(text):
        pending = ""
        for raw in block.splitlines():
            if raw.rstrip().endswith("\\"):
                pending += raw.rstrip()[:-1] + " "
                continue
            lines.append(pending + raw)
            pending = ""
        if pending:
            lines.append(pending)
    return lines


def commands(line: str) -> list[tuple[list[str], list[str]]]:
    """The simple commands of a shell line: (environment assignments, words) each, without
    a leading `$ `, comments, redirections or `export`."""
    line = line.strip()
    if line.startswith("$ "):
        line = line[2:]
    try:
        tokens = shlex.split(line, comments=True)
    except ValueError:
        return []
    found: list[tuple[list[str], list[str]]] = []
    current: list[str] = []
    for token in tokens + [";"]:
        if token in SEPARATORS:
            if current:
                assignments = []
                while current and ASSIGNMENT.match(current[0]):
                    assignments.append(current.pop(0))
                if current[:1] == ["export"]:
                    assignments += current[1:]
                    current = []
                found.append((assignments, current))
            current = []
        else:
            current.append(token)
    return found


def without_redirections(words: list[str]) -> list[str]:
    """The words without `> FILE`, `2>&1` and the like."""
    kept: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in REDIRECTION_WORDS:
            skip = True
        elif not REDIRECTIONS.match(word):
            kept.append(word)
    return kept


def curia_commands(text: str) -> list[tuple[str, list[str]]]:
    """(the line, the arguments after `curia`) of each `curia` command in fenced blocks."""
    found = []
    for line in fenced_lines(text):
        for _, words in commands(line):
            if words[:1] == ["curia"]:
                found.append((line.strip(), without_redirections(words)[1:]))
    return found


def parse_error(arguments: list[str]) -> str | None:
    """What argparse says about these arguments (None: they parse)."""
    errors = io.StringIO()
    with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(io.StringIO()):
        try:
            build_parser().parse_args(arguments)
        except SystemExit as exit_:
            if exit_.code not in (0, None):
                return errors.getvalue().strip().splitlines()[-1]
    return None


def section(text: str, heading: str) -> str:
    """From `heading` (a whole line) to the next heading of the same level or above,
    fenced blocks (whose `# comments` are no headings) included."""
    lines = text.splitlines()
    assert heading in lines, f"no section {heading!r}"
    level = heading.index(" ")
    kept, fenced = [], False
    for line in lines[lines.index(heading) + 1:]:
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(rf"#{{1,{level}}} ", line):
            break
        kept.append(line)
    return "\n".join(kept) + "\n"


def table_rows(text: str, header: str) -> list[list[str]]:
    """The cells of each row of the Markdown table whose header line starts with `header`."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(header)), None)
    assert start is not None, f"no table {header!r}"
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def code_words(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


# -- (A) docs/league.md --------------------------------------------------------------------
def test_every_curia_line_of_league_md_parses_with_the_real_parser() -> None:
    """A flag that does not exist (`--http-host`), a placeholder in brackets, a missing
    argument: argparse refuses it as a user would meet it. `curia bot ...` is left out."""
    found = curia_commands(LEAGUE.read_text(encoding="utf-8"))
    failures = []
    parsed = set()
    for line, arguments in found:
        if arguments[:1] == ["bot"]:
            continue
        error = parse_error(arguments)
        if error is not None:
            error = parse_error([PLACEHOLDERS.get(word, word) for word in arguments])
        if error is not None:
            failures.append(f"{line}\n    -> {error}")
        parsed.add(" ".join(arguments[:2] if arguments[0] == "league" else arguments[:1]))
    assert not failures, "docs/league.md lines argparse refuses:\n" + "\n".join(failures)
    assert {"serve", "league create", "league add-bot", "league worker",
            "league demo"} <= parsed, parsed


def test_no_command_line_of_league_md_has_a_redis_password() -> None:
    """A password is in the environment (an `export` or a `VAR=value` prefix) or a 0600
    file, never in a program's arguments, where every user of the machine can read it."""
    offending = []
    for line in fenced_lines(LEAGUE.read_text(encoding="utf-8")):
        for _, words in commands(line):
            if any(PASSWORD_URL.search(word) for word in words):
                offending.append(line.strip())
    assert not offending, offending
    assert PASSWORD_URL.search("curia serve --redis-url redis://:secret@host:6379/0")
    assert not PASSWORD_URL.search("(redis redis://:***@127.0.0.1:PORT/0)")


def test_no_doc_names_a_http_host_flag() -> None:
    """The web port's address is `--http-bind`; there is no `--http-host`."""
    for path in [README, *sorted(DOCS.glob("*.md"))]:
        assert "--http-host" not in path.read_text(encoding="utf-8"), path.name


def test_the_first_league_section_goes_end_to_end() -> None:
    """docs/league.md, "Your first league": serve, the real Redis URL from the password
    file, create, add a bot, a bot connects, a worker, the league's page, in that order."""
    text = section(LEAGUE.read_text(encoding="utf-8"), "### Your first league, on the "
                                                       "embedded service")
    block = "\n".join(fenced_lines(text))
    steps = ["curia serve ", "export CURIA_REDIS_URL=", PASSWORD_FILE, "curia league create ",
             "curia league add-bot ", "curia bot connect ", "curia league worker ",
             "/leagues/"]
    at = 0
    for step in steps:
        found = block.find(step, at)
        assert found >= 0, f"{step!r} missing (or out of order) in the first league's steps"
        at = found
    serve = next(words for line in fenced_lines(text) for _, words in commands(line)
                 if words[:2] == ["curia", "serve"])
    data_dir = serve[serve.index("--data-dir") + 1]
    assert f"{data_dir}/{PASSWORD_FILE}" in block, "the password file of that --data-dir"
    assert "--http-port" in serve
    default = build_parser().parse_args(["serve"]).data_dir
    assert f"`{default}/{PASSWORD_FILE}`" in text, "the password file's default place"
    assert "`--http-bind" in text and "`--http-port`" in text


# -- (B) docs/bots.md and docs/arena.md ----------------------------------------------------
def test_bots_md_lists_every_default_limit() -> None:
    """Without a `[limits]` table a bot gets `hosting.limits.Limits`' defaults: the table
    that says so names every key with its default, and no other key."""
    text = BOTS.read_text(encoding="utf-8")
    start = text.index("Without a `[limits]` table")
    rows = table_rows(text[start:], "| key | default |")
    documented = {}
    for row in rows:
        (key,) = code_words(row[0])
        documented[key] = int(row[1].strip("`"))
    assert documented == {f.name: f.default for f in dataclasses.fields(Limits)}


def test_arena_md_lists_every_key_of_the_tournament_file() -> None:
    """Each `[section]` key arena/config.py accepts is a row of docs/arena.md's table of
    the tournament file, and each row's key is one it accepts."""
    rows = table_rows(ARENA.read_text(encoding="utf-8"), "| section | key | kind |")
    documented: dict[str, set[str]] = {}
    section_name = ""
    for row in rows:
        if row[0]:
            section_name = row[0].strip("`[]")
        documented.setdefault(section_name, set()).update(code_words(row[1]))
    schemas = {"tournament": config.TOURNAMENT, "time": config.TIME, "sprt": config.SPRT,
               "bots": config.BOT_ENTRY}
    assert set(documented) == set(config.TOURNAMENT_FILE)
    for name in config.TOURNAMENT_FILE:
        if name == "options":  # the game's own options, checked by the game
            continue
        assert documented[name] == set(schemas[name]), f"[{name}]"


def test_bots_md_gives_java_a_path_into_a_league() -> None:
    text = section(BOTS.read_text(encoding="utf-8"), "### Java and gRPC")
    for needed in ("curia bot connect", "libgrpc-java", "bots/starters/java", "stdio",
                   "javax.annotation"):
        assert needed in text, needed


# -- (C) README.md -------------------------------------------------------------------------
KITS = ("python", "node", "go", "rust", "java", "cpp")
THE_TWO_COMMANDS = """```sh
# the main job: a small tournament among the shipped bots of every language, on an
# embedded service; prints the leaderboard with confidence intervals, writes the plot
python3 -m pip install -e . && curia arena run examples/tournament.toml

# the whole test suite (what CI runs: .ci/run)
python3 -m pip install -e '.[test]' && python3 -m pytest
```"""


def test_readme_has_three_ways_in() -> None:
    text = README.read_text(encoding="utf-8")
    for kit in KITS:
        assert f"bots/starters/{kit}" in text, kit
        assert (REPO / "bots" / "starters" / kit / "bot.toml").is_file(), kit
    assert "curia bot connect" in text
    for who in ("bot authors", "client developers", "hosts"):
        assert re.search(rf"^(#+ |\*\*).*\b{who}\b", text, re.M | re.I), who
    assert "first part" not in text.lower()
    assert THE_TWO_COMMANDS in text, "the two commands, byte for byte"


def test_readme_links_point_at_real_files() -> None:
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", FENCE.sub("", text))
    assert len(links) >= 10
    for target in links:
        if target.startswith(("http://", "https://")):
            continue
        assert (REPO / target.partition("#")[0]).exists(), target
