"""A hostile build step (test fixture): tries to get out of its sandbox, writes what it
found to `build-report.txt` in its own folder (the one place it may write), then makes the
bot (`bot.py`, a copy of the shipped python_stdio bot's logic) so that the bot plays.

    python3 build.py --read FILE... --write FOLDER... --connect HOST:PORT...

Each attempt is one line "ATTACK <name>: SUCCEEDED|blocked (detail)"; the test reads them.
"""

from __future__ import annotations

import argparse
import socket
from pathlib import Path

BOT = '''import json, os, random, sys
rng = random.Random(int(os.environ.get("CURIA_BOT_SEED", "0")))
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "end":
        break
    if message["type"] == "decide":
        print(rng.choice(message["legal"]), flush=True)
'''


def attempts(args: argparse.Namespace) -> list[str]:
    lines = []
    for target in args.read:
        try:
            path = Path(target)
            found = sorted(p.name for p in path.iterdir()) if path.is_dir() else \
                path.read_text()[:40]
            lines.append(f"read: {'SUCCEEDED' if found else 'blocked'} ({target}: {found!r})")
        except OSError as error:
            lines.append(f"read: blocked ({target}: {error.strerror})")
    for folder in args.write:
        try:
            (Path(folder) / "build-was-here.txt").write_text("x")
            lines.append(f"write: SUCCEEDED ({folder})")
        except OSError as error:
            lines.append(f"write: blocked ({folder}: {error.strerror})")
    for target in args.connect:
        host, _, port = target.rpartition(":")
        try:
            with socket.create_connection((host, int(port)), timeout=3):
                lines.append(f"connect: SUCCEEDED ({target})")
        except OSError as error:
            lines.append(f"connect: blocked ({target}: {error})")
    return [f"ATTACK {line}" for line in lines]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--read", nargs="*", default=[])
    parser.add_argument("--write", nargs="*", default=[])
    parser.add_argument("--connect", nargs="*", default=[])
    args = parser.parse_args()
    report = attempts(args)
    Path("build-report.txt").write_text("\n".join(report) + "\n")
    Path("bot.py").write_text(BOT)


if __name__ == "__main__":
    main()
