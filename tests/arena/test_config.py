"""Tournament files and bot manifests are validated with clear reasons."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.config import BotManifest, ConfigError, TournamentConfig

REPO = Path(__file__).resolve().parents[2]


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def manifest(folder: Path, name: str, protocol: str = "grpc") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return write(folder / "bot.toml", f'name = "{name}"\nprotocol = "{protocol}"\n'
                                      f'command = ["{{python}}", "bot.py"]\n'
                                      f'[limits]\nmemory_mb = 512\n')


def test_the_example_tournament_loads() -> None:
    config = TournamentConfig.load(REPO / "examples" / "tournament.toml")
    languages = {bot.language for bot in config.bots}
    assert {"python", "javascript", "perl"} <= languages
    assert {bot.protocol for bot in config.bots} == {"grpc", "stdio"}
    assert config.seats == 3 and config.format == "round-robin"


def test_a_manifest_resolves_its_folder_and_python(tmp_path: Path) -> None:
    bot = BotManifest.load(manifest(tmp_path / "b1", "b1", "stdio"))
    assert bot.workdir == (tmp_path / "b1").resolve() and bot.limits.memory_mb == 512
    command = bot.launch_command("/usr/bin/python3", ["--seat", "1"])
    assert command == ["/usr/bin/python3", "-m", "arena.stdio_bridge", "--seat", "1", "--",
                       "/usr/bin/python3", "bot.py"]


@pytest.mark.parametrize(("text", "message"), [
    ('name = "x"\ncommand = "bot.py"\n', "list of strings"),
    ('name = "x"\nprotocol = "carrier-pigeon"\ncommand = ["x"]\n', "protocol"),
    ('command = ["x"]\n', "missing `name`"),
    ('name = "bad name!"\ncommand = ["x"]\n', "name must be"),
    ('name = "x"\ncommand = ["x"]\n[limits]\nmemory_mb = "lots"\n', "must be a int"),
    ("this is not toml = = \n", "not valid TOML"),
])
def test_bad_manifests_are_refused(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        BotManifest.load(write(tmp_path / "bot.toml", text))


def tournament(tmp_path: Path, head: str, bots: int = 3) -> Path:
    names = [f"bot{i}" for i in range(bots)]
    for name in names:
        manifest(tmp_path / name, name)
    body = "".join(f'[[bots]]\nmanifest = "{n}/bot.toml"\n' for n in names)
    game = "" if "game =" in head else 'game = "municipium"\n'
    return write(tmp_path / "t.toml", f"[tournament]\n{game}{head}\n{body}")


def test_a_tournament_names_its_game(tmp_path: Path) -> None:
    path = tournament(tmp_path, "seats = 3")
    path.write_text(path.read_text().replace('game = "municipium"\n', ""))
    with pytest.raises(ConfigError, match="`game`: one of ciceron, .*municipium"):
        TournamentConfig.load(path)


@pytest.mark.parametrize(("head", "message"), [
    ("seats = 5", "5 seats need at least 5 bots"),
    ('seats = 3\nformat = "swiss"', "format must be one of"),
    ('seats = 3\nformat = "gauntlet"', "challenger"),
    ('seats = 3\nformat = "sprt"', r"\[sprt\]"),
    ('seats = 3\nvariant = "deluxe"', "unknown Municipium variant"),
    ("seats = 2", "3-5 families"),
    ("seats = 3\nrounds = 0", "at least 1"),
])
def test_bad_tournaments_are_refused(tmp_path: Path, head: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        TournamentConfig.load(tournament(tmp_path, head))


def test_duplicate_bot_names_are_refused(tmp_path: Path) -> None:
    path = tournament(tmp_path, "seats = 3")
    path.write_text(path.read_text() + '[[bots]]\nmanifest = "bot0/bot.toml"\n')
    with pytest.raises(ConfigError, match="unique"):
        TournamentConfig.load(path)
