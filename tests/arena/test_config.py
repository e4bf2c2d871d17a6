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
    assert command == ["/usr/bin/python3", "-m", "hosting.stdio_bridge", "--seat", "1",
                       "--memory-mb", "512", "--cpu-seconds", "300", "--disk-mb", "512", "--",
                       "/usr/bin/python3", "bot.py"]  # the bridge limits the bot, not itself


@pytest.mark.parametrize(("text", "message"), [
    ('name = "x"\ncommand = "bot.py"\n', "list of strings"),
    ('name = "x"\nprotocol = "carrier-pigeon"\ncommand = ["x"]\n', "protocol"),
    ('command = ["x"]\n', "missing 'name' in the manifest"),
    ('name = "bad name!"\ncommand = ["x"]\n', "name must be"),
    ('name = "x"\ncommand = ["x"]\n[limits]\nmemory_mb = "lots"\n',
     r"'memory_mb' in \[limits\]: expected an integer, got 'lots' \(a string\)"),
    ('name = "x"\ncommand = ["x"]\n[limits]\nmemory = 512\n',
     r"unknown key 'memory' in \[limits\]; did you mean 'memory_mb'\?"),
    ('name = "x"\ncomand = ["x"]\n', r"unknown key 'comand' in the manifest; did you mean "
                                       r"'command'\?"),
    ('name = "x"\nprotocol = "stdin"\ncommand = ["x"]\n', r"did you mean 'stdio'\?"),
    ('name = "x"\ncommand = ["x"]\ngames = ["municpium"]\n',
     r"unknown game 'municpium'; did you mean 'municipium'\?"),
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
    with pytest.raises(ConfigError,
                       match=r"missing 'game' in \[tournament\]: one of ciceron, .*municipium"):
        TournamentConfig.load(path)


@pytest.mark.parametrize(("head", "message"), [
    ("seats = 5", "5-seat games needs at least 5 bots, got 3"),
    ("seats = 7", "Municipium classic takes 3-5 families, not 7"),
    ('seats = 5\nvariant = "revised"', "Municipium revised takes 2-4 families, not 5"),
    ("seats = 3\n[options]\ntarget_decurions = 99", "option target_decurions must be an "
                                                    "integer from"),
    ("seats = 3\n[options]\ntarget = 4", "unknown option 'target' for municipium"),
    ("seats = 3\nrouns = 3", r"unknown key 'rouns' in \[tournament\]; did you mean "
                             r"'rounds'\?"),
    ("seats = 3\n[time]\ndecison_ms = 100", r"unknown key 'decison_ms' in \[time\]; did "
                                            r"you mean 'decision_ms'\?"),
    ('seats = 3\nformat = "sprt"\n[sprt]\na = "bot0"\nb = "bot1"\nelo_1 = 10',
     r"unknown key 'elo_1' in \[sprt\]; did you mean 'elo1'\?"),
    ('seats = 3\nformat = "sprt"\n[sprt]\na = "bot0"\nb = "bot1"\nelo1 = "fifty"',
     r"'elo1' in \[sprt\]: expected a number, got 'fifty' \(a string\)"),
    ('seats = "3"', r"'seats' in \[tournament\]: expected an integer, got '3' \(a string\)"),
    ("seats = 3\n[timing]\ndecision_ms = 100", r"unknown section \[timing\]; did you mean "
                                               r"'time'\?"),
    ('seats = 3\nformat = "swiss"', "unknown format 'swiss'; expected one of: gauntlet, "),
    ('seats = 3\nformat = "gauntlet"', "challenger"),
    ('seats = 3\nformat = "sprt"', r"\[sprt\]"),
    ('seats = 3\nvariant = "deluxe"', "unknown Municipium variant"),
    ("seats = 2", "3-5 families"),
    ("seats = 3\nrounds = 0", "at least 1"),
    ("seats = 3\n[time]\nstartup_ms = 0", r"\[time\] startup_ms must be at least 1"),
    ("seats = 3\n[time]\nstartup = 100", r"unknown key 'startup' in \[time\]; did you "
                                         r"mean 'startup_ms'\?"),
])
def test_bad_tournaments_are_refused(tmp_path: Path, head: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        TournamentConfig.load(tournament(tmp_path, head))


def test_duplicate_bot_names_are_refused(tmp_path: Path) -> None:
    path = tournament(tmp_path, "seats = 3")
    path.write_text(path.read_text() + '[[bots]]\nmanifest = "bot0/bot.toml"\n')
    with pytest.raises(ConfigError, match="unique"):
        TournamentConfig.load(path)


def test_a_misspelt_section_is_named_and_not_reported_as_missing_seats(tmp_path: Path) -> None:
    path = tournament(tmp_path, "seats = 3")
    path.write_text(path.read_text().replace("[tournament]", "[tournamnet]"))
    with pytest.raises(ConfigError, match=r"unknown section \[tournamnet\]; did you mean "
                                          r"'tournament'\?") as caught:
        TournamentConfig.load(path)
    assert "seats" not in str(caught.value)


def test_a_key_above_its_section_says_where_it_belongs(tmp_path: Path) -> None:
    path = tournament(tmp_path, "seats = 3")
    path.write_text("rounds = 2\n" + path.read_text())
    with pytest.raises(ConfigError, match=r"'rounds' is outside any section: put it under "
                                          r"\[tournament\]"):
        TournamentConfig.load(path)


def test_every_key_problem_of_a_file_is_reported_at_once(tmp_path: Path) -> None:
    path = tournament(tmp_path, "seats = 3\nrouns = 2\nconcurrency = 1.5")
    with pytest.raises(ConfigError) as caught:
        TournamentConfig.load(path)
    message = str(caught.value)
    assert "'rouns'" in message and "'concurrency' in [tournament]: expected an integer, " \
        "got 1.5 (a float)" in message


def test_a_bot_that_does_not_play_the_game_is_refused(tmp_path: Path) -> None:
    path = tournament(tmp_path, "seats = 3")
    text = (tmp_path / "bot1" / "bot.toml").read_text()
    (tmp_path / "bot1" / "bot.toml").write_text('games = ["leges"]\n' + text)
    with pytest.raises(ConfigError, match=r"bot 'bot1' .* does not play municipium: its "
                                          r"manifest says games = \['leges'\]"):
        TournamentConfig.load(path)


def test_every_shipped_manifest_loads_strictly() -> None:
    paths = sorted((REPO / "bots").glob("**/bot.toml"))
    assert any("starters" in path.parts for path in paths)
    for path in paths:
        if "node_modules" not in path.parts:
            assert BotManifest.load(path).command, path


def test_startup_ms_defaults_to_ten_seconds_and_is_read(tmp_path: Path) -> None:
    assert TournamentConfig.load(tournament(tmp_path, "seats = 3")).startup_ms == 10_000
    path = tournament(tmp_path, "seats = 3\n[time]\nstartup_ms = 2500")
    assert TournamentConfig.load(path).startup_ms == 2500
