"""A malicious bot (test fixture): tries one attack, reports it, then plays random legal
decisions (stdio) or plays as the random bot (gRPC).

    python3 intruder.py ATTACK [TARGET ...] [--grpc]

Each attempt prints one line to stderr (the seat's log): "ATTACK <name>: blocked (...)"
when it failed, "ATTACK <name>: SUCCEEDED (...)" when it got through. The attacks:

- read-files TARGET...: read each file or list each folder (another bot's folder, the
  Redis password file, the operator credential file, the run folder);
- environment SECRET: look for SECRET in its own environment and in every /proc/N/environ
  it can read (the arena's, another bot's);
- connect [HOST:PORT...]: open a TCP connection to each (default: every port listening on
  the host, as /proc/net/tcp lists them: the store, the service's own port, a web gateway);
- fork-bomb: start processes until the system refuses, keep them alive;
- write TARGET...: create a file in each folder (the run folder, another bot's folder, the
  bot's original folder as the host sees it, Curia's packages).
"""

from __future__ import annotations

import json
import os
import random
import socket
import sys
import time
from pathlib import Path


def report(attack: str, succeeded: bool, detail: str) -> None:
    verdict = "SUCCEEDED" if succeeded else "blocked"
    print(f"ATTACK {attack}: {verdict} ({detail})", file=sys.stderr, flush=True)


def read_files(targets: list[str]) -> None:
    for target in targets:
        path = Path(target)
        try:
            found = sorted(os.listdir(path)) if path.is_dir() else path.read_text()[:40]
            report("read-files", bool(found), f"{target}: {found!r}")
        except OSError as error:
            report("read-files", False, f"{target}: {error.strerror}")


def environment(targets: list[str]) -> None:
    secret = targets[0]
    if any(secret in value for value in os.environ.values()):
        report("environment", True, "in its own environment")
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if secret.encode() in (entry / "environ").read_bytes():
                    report("environment", True, f"in /proc/{entry.name}/environ")
            except OSError:
                continue
    report("environment", False, f"{secret[:4]}... nowhere to be read")


def listening_ports() -> list[str]:
    """Every TCP port listening on this host's loopback, as /proc/net/tcp shows them."""
    found = []
    for table, host in (("/proc/net/tcp", "127.0.0.1"), ("/proc/net/tcp6", "::1")):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        found += [f"{host}:{int(row.split()[1].split(':')[1], 16)}" for row in rows
                  if row.split()[3] == "0A"]  # LISTEN
    return found


def connect(targets: list[str]) -> None:
    targets = targets or listening_ports()
    if not targets:
        report("connect", False, "no listening port to be seen")
    for target in targets:
        host, _, port = target.rpartition(":")
        try:
            with socket.create_connection((host, int(port)), timeout=2):
                report("connect", True, f"{target}: connected")
        except OSError as error:
            report("connect", False, f"{target}: {error}")


def fork_bomb(targets: list[str]) -> None:
    started = 0
    try:
        for _ in range(10_000):
            if os.fork() == 0:
                time.sleep(3600)
                os._exit(0)
            started += 1
    except OSError as error:
        report("fork-bomb", False, f"stopped after {started} processes: {error.strerror}")
        return
    report("fork-bomb", True, f"{started} processes started")


def write(targets: list[str]) -> None:
    for target in targets:
        path = Path(target) / "intruder-was-here.txt"
        try:
            path.write_text("pwned")
            report("write", True, f"{path}")
        except OSError as error:
            report("write", False, f"{target}: {error.strerror}")


ATTACKS = {"read-files": read_files, "environment": environment, "connect": connect,
           "fork-bomb": fork_bomb, "write": write}


def play_stdio() -> None:
    """Random legal decisions until the end."""
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("type") == "end":
            return
        print(random.choice(message["legal"]), flush=True)


def main() -> int:
    argv = [word for word in sys.argv[1:] if word != "--grpc"]
    grpc_bot = "--grpc" in sys.argv
    attack, targets = argv[0], argv[1:]
    if grpc_bot:  # the launch arguments follow the targets
        cut = targets.index("--server") if "--server" in targets else len(targets)
        targets, launch = targets[:cut], targets[cut:]
    ATTACKS[attack](targets)
    if grpc_bot:
        from bots.grpc_player import main as play_grpc

        return play_grpc(launch, default_bot="random")
    play_stdio()
    return 0


if __name__ == "__main__":
    sys.exit(main())
