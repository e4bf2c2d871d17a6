"""Secrets that a Curia command hands to the processes it starts: never on their command
line, which every user of the machine can read (/proc/PID/cmdline, `ps`).

- The Redis URL (its password opens every game, seat token and queued seat job) travels
  in the child's environment, `CURIA_REDIS_URL`, which only its owner can read; every
  command that takes `--redis-url` reads that variable by default, and forgets it once
  read, so a bot it starts does not inherit it.
- The operator credential of a service a command starts for itself (the embedded service
  of `curia arena run` and `curia arena check`, `curia league demo`): a fresh random token
  in a 0600 file in a private (0700) folder. The command's own clients find it through
  `CURIA_ADMIN_TOKEN_FILE` (client/channels.py), which bot processes never get
  (`OPERATOR_ONLY_ENV`: hosting.launcher.bot_environment strips it, and a sandbox hides the
  file it names); a `curia serve` process gets the file's path (not the token) in
  `--admin-token-file`.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from client.channels import ADMIN_TOKEN_FILE_ENV, OPERATOR_ONLY_ENV
from service.redis_server import write_private

#: The variable that carries a Redis URL to a Curia process (its password included).
REDIS_URL_ENV = "CURIA_REDIS_URL"
#: The operator credential's file in its private folder.
OPERATOR_TOKEN_FILE = "operator.token"
#: What `--help` says of a Redis URL flag.
REDIS_URL_HELP = (f"default ${REDIS_URL_ENV}; a URL with a password belongs in that "
                  f"variable: on the command line every user of the machine can read it")


def child_environment(redis_url: str | None = None) -> dict[str, str]:
    """This process's environment for a Curia process it starts (a worker, `curia serve`):
    without the operator credential's variables or a Redis URL of ours, with `redis_url`
    (password and all) in CURIA_REDIS_URL if given."""
    env = {name: value for name, value in os.environ.items()
           if name not in (*OPERATOR_ONLY_ENV, REDIS_URL_ENV)}
    if redis_url:
        env[REDIS_URL_ENV] = redis_url
    return env


def forget_redis_url() -> None:
    """Drop CURIA_REDIS_URL from this process's environment once it has been read: the
    processes it starts (bots, which inherit the environment unless sandboxed) must not
    find it there."""
    os.environ.pop(REDIS_URL_ENV, None)


def has_password(url: str | None) -> bool:
    """Whether a Redis URL carries a password (in its user part or its query)."""
    if not url:
        return False
    parts = urlsplit(url)
    return bool(parts.password) or "password=" in parts.query


def warn_password_on_command_line(url: str | None, argv: Sequence[str] | None = None,
                                  flag: str = "--redis-url") -> None:
    """One warning on stderr when `flag` was given on this process's command line with a
    password: it still works (compatibility), but every local user can read it."""
    argv = sys.argv if argv is None else argv
    given = any(word == flag or word.startswith(f"{flag}=") for word in argv)
    if given and has_password(url):
        print(f"warning: {flag} with a password is readable by every user of this machine "
              f"(the process list); set {REDIS_URL_ENV} instead", file=sys.stderr,
              flush=True)


@dataclass(frozen=True)
class OperatorCredential:
    """A service's operator credential (CreateGame needs it) and the 0600 file holding it."""

    token: str
    path: Path


@contextlib.contextmanager
def own_operator_credential(folder: Path, announce: bool = False
                            ) -> Iterator[OperatorCredential]:
    """A fresh random operator credential in `folder/operator.token` (the folder made
    0700, the file 0600), removed afterwards. `announce`: name the file in this process's
    CURIA_ADMIN_TOKEN_FILE meanwhile, so every client of this process sends the
    credential (the variable as it was is put back afterwards)."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    folder.chmod(0o700)
    credential = OperatorCredential(secrets.token_urlsafe(32), folder / OPERATOR_TOKEN_FILE)
    write_private(credential.path, credential.token + "\n")
    previous = os.environ.get(ADMIN_TOKEN_FILE_ENV)
    if announce:
        os.environ[ADMIN_TOKEN_FILE_ENV] = str(credential.path)
    try:
        yield credential
    finally:
        if announce:
            if previous is None:
                os.environ.pop(ADMIN_TOKEN_FILE_ENV, None)
            else:
                os.environ[ADMIN_TOKEN_FILE_ENV] = previous
        credential.path.unlink(missing_ok=True)
