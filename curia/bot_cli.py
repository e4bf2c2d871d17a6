"""`curia bot`: a bot author's commands. `curia bot connect` puts a stdio bot in a remote
league over its bot key (hosting.connect; docs/league.md, "Connect a stdio bot")."""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import sys
from pathlib import Path
from typing import Any

from hosting.builds import build_bot
from hosting.connect import KEY_ENV, Program, command_program, connect
from hosting.manifest import BotManifest, ConfigError


def add_bot(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "bot", help="a bot author's commands: connect a stdio bot to a league",
        description="A bot author's commands. See docs/league.md.")
    actions = parser.add_subparsers(dest="bot_command", required=True, metavar="ACTION")
    connect_parser = actions.add_parser(
        "connect", help="play a league's games with a stdio bot on this machine",
        usage="curia bot connect [--server HOST:PORT] [options] (FOLDER | -- COMMAND...)",
        description=f"Play a league's games with a stdio bot (docs/bots.md) running on "
                    f"this machine, over one Play stream: the bot's key comes from "
                    f"${KEY_ENV} (from `curia league add-bot`). TLS as every client: "
                    f"CURIA_TLS_CA (and CURIA_TLS_CERT/CURIA_TLS_KEY). The first Ctrl-C "
                    f"takes no new games and exits once the games in progress are over; "
                    f"a second (or SIGTERM) resigns them.")
    connect_parser.add_argument(
        "bot", nargs="+", metavar="FOLDER | COMMAND",
        help="the bot's folder (its bot.toml, a stdio bot: built if it has a build "
             "command, run in its workdir with its limits), or after `--` the command "
             "that runs the bot (here, without limits)")
    connect_parser.add_argument(
        "--server", default=os.environ.get("CURIA_SERVER"),
        help="HOST:PORT of the league's server (several, comma-separated: tried in turn "
             "when one is away; default: $CURIA_SERVER)")
    connect_parser.add_argument(
        "--concurrency", type=int, default=1,
        help="games at once (the league caps it; default 1)")
    connect_parser.add_argument(
        "--games", type=int, default=0,
        help="stop taking games after this many, and exit when they are over "
             "(default: play on until Ctrl-C)")
    connect_parser.add_argument(
        "--one-process", action="store_true",
        help="one process of the bot for every game, instead of one per game: each "
             "message names its game (game_id); a game's end is a game_over message")
    connect_parser.add_argument(
        "--seed", type=int, default=0,
        help="each game's CURIA_BOT_SEED is derived from it and the game's id "
             "(default 0)")
    connect_parser.add_argument(
        "--bot-version", default=None, metavar="NAME",
        help="your name for the bot's version (default: the manifest's `version`); a "
             "name the league has not seen for this bot starts a new ladder entry")
    connect_parser.set_defaults(run=run_connect, parser=connect_parser)


def run_connect(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args.parser
    key = os.environ.get(KEY_ENV, "")
    if not key:
        parser.error(f"set {KEY_ENV} to the bot's key (printed once by `curia league "
                     f"add-bot`); a key never goes on the command line")
    if not args.server:
        parser.error("--server (or $CURIA_SERVER) is required")
    if args.concurrency < 1 or args.games < 0:
        parser.error("--concurrency must be 1 or more, --games 0 or more")
    try:
        program = read_program(args.bot)
    except ConfigError as error:
        print(f"curia bot connect: {error}", file=sys.stderr)
        return 2
    if args.bot_version is not None:
        program = dataclasses.replace(program, version=args.bot_version)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(threadName)s: %(message)s")
    return connect(args.server, key, program, concurrency=args.concurrency,
                   max_games=args.games, one_process=args.one_process, seed=args.seed)


def read_program(words: list[str]) -> Program:
    """The bot: a folder with a stdio bot's bot.toml (built now), or a command."""
    path = Path(words[0])
    manifest_path = path / "bot.toml" if path.is_dir() else path
    if len(words) > 1 or manifest_path.suffix != ".toml":
        return command_program(words)
    manifest = BotManifest.load(manifest_path)
    if manifest.protocol != "stdio":
        raise ConfigError(f"{manifest.name} speaks {manifest.protocol}, not stdio: a gRPC "
                          f"bot connects itself with ${KEY_ENV} (docs/league.md)")
    if manifest.build:
        build_bot(manifest, sys.stdout)
    command = tuple(sys.executable if word == "{python}" else word
                    for word in manifest.command)
    return Program(command, manifest.workdir, manifest.limits, manifest.name,
                   manifest.version)
