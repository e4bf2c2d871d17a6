"""Secret deals: every game's seed from the host's deal key, and the records of a deal held
back until every game dealt it has ended.

A tournament's published seed fixes the schedule and names each game's deal
(`ScheduledGame.deal`, shared by the rotations of a group); the cards come from the
host's deal key, 32 random bytes that are never published:

    game seed      = HMAC-SHA256(key, tournament, "deal", deal)         first 63 bits
    CURIA_BOT_SEED = HMAC-SHA256(key, tournament, "bot", index, seat)   first 63 bits

where `tournament` is the tournament's public identity (`Deals.tournament`). Without the
key neither follows from anything public, and a bot seed says nothing of any game seed.
The key and the tournament file replay a tournament exactly.

Records: a finished game's record waits in `private/games/` while a game of its deal is
still to be played, then moves to `games/`, where the site, the report and
`--http-port` find it; a finished game without a record (void) leaves a mark there
instead, so its row and seed wait too. The key is `private/deal.key` unless the host
names another file.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from arena.config import ConfigError
from ratings.records import GameOutcome

KEY_BYTES = 32
PRIVATE = "private"
#: The default key file, relative to the run folder.
KEY_FILE = f"{PRIVATE}/deal.key"
#: Finished games' records whose deal is still being played, relative to the run folder.
WITHHELD = f"{PRIVATE}/games"
#: Published records, relative to the run folder.
PUBLISHED = "games"


class DealKey:
    """The host's secret: never printed, never written anywhere but its key file."""

    __slots__ = ("_secret", "path")

    def __init__(self, secret: bytes, path: Path) -> None:
        if len(secret) != KEY_BYTES:
            raise ValueError(f"a deal key is {KEY_BYTES} bytes")
        self._secret = secret
        self.path = path

    def __repr__(self) -> str:
        return f"DealKey({str(self.path)!r})"

    @classmethod
    def load_or_create(cls, path: Path) -> tuple[DealKey, bool]:
        """The key in `path`, or a new one written there (mode 0600, its folder 0700);
        whether it was created."""
        try:
            return cls.read(path), False
        except FileNotFoundError:
            pass
        secret = secrets.token_bytes(KEY_BYTES)
        try:
            private_folder(path.parent)
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # created meanwhile by another run
            return cls.read(path), False
        except OSError as error:
            raise ConfigError(f"cannot create the deal key {path}: "
                              f"{error.strerror or error}") from None
        with os.fdopen(descriptor, "w") as handle:
            handle.write(secret.hex() + "\n")
        return cls(secret, path), True

    @classmethod
    def read(cls, path: Path) -> DealKey:
        """The key in `path` (FileNotFoundError if none; ConfigError if unreadable or not
        a key)."""
        try:
            text = path.read_text(encoding="ascii", errors="replace").strip()
        except FileNotFoundError:
            raise
        except OSError as error:
            raise ConfigError(f"cannot read the deal key {path}: "
                              f"{error.strerror or error}") from None
        try:
            secret = bytes.fromhex(text)
        except ValueError:
            secret = b""
        if len(secret) != KEY_BYTES:
            raise ConfigError(f"{path} is not a deal key ({2 * KEY_BYTES} hexadecimal "
                              f"digits expected)")
        return cls(secret, path)

    def mac(self, *labels: object) -> bytes:
        """HMAC-SHA256 of the labels, each length-prefixed (no two lists collide)."""
        message = b"".join(len(part).to_bytes(4, "big") + part
                           for part in (str(label).encode() for label in labels))
        return hmac.new(self._secret, message, hashlib.sha256).digest()

    def fingerprint(self) -> str:
        """Tells two keys apart and reveals nothing of either (tournament.lock.json)."""
        return self.mac("fingerprint").hex()[:32]


def seed_of(digest: bytes) -> int:
    """A seed of 63 bits, as the service and the bots take them."""
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass(frozen=True)
class Deals:
    """A tournament's seeds: its deal key and its public identity (the settings a deal
    depends on, as canonical text)."""

    key: DealKey
    tournament: str

    def game_seed(self, deal: str) -> int:
        """The seed of every game dealt `deal`."""
        return seed_of(self.key.mac(self.tournament, "deal", deal))

    def bot_seed(self, index: int, seat: int) -> int:
        """CURIA_BOT_SEED of the bot in `seat` of game `index`: independent of the deal."""
        return seed_of(self.key.mac(self.tournament, "bot", index, seat))


def private_folder(folder: Path) -> Path:
    """`folder`, made if needed, readable by its owner only."""
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o700)
    return folder


def record_name(index: int) -> str:
    return f"{index:05d}.json"


def mark_name(index: int) -> str:
    return f"{index:05d}.mark"


def _withheld_folder(run: Path) -> Path:
    folder = private_folder(run / PRIVATE) / "games"
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


def withhold(run: Path, index: int, text: str) -> None:
    """Keep a finished game's record private until its deal is published."""
    folder = _withheld_folder(run)
    partial = folder / (record_name(index) + ".part")
    partial.write_text(text)
    partial.replace(folder / record_name(index))


def withhold_row(run: Path, index: int) -> None:
    """Hold back the row of a finished game that has no withheld record (a void game)."""
    folder = _withheld_folder(run)
    if not (folder / record_name(index)).exists():
        (folder / mark_name(index)).touch()


def publish(run: Path, index: int) -> None:
    """Move a withheld record to `games/` and drop a row's mark (nothing if neither)."""
    source = run / WITHHELD / record_name(index)
    if source.exists():
        (run / PUBLISHED).mkdir(exist_ok=True)
        source.replace(run / PUBLISHED / record_name(index))
    (run / WITHHELD / mark_name(index)).unlink(missing_ok=True)


def withheld(run: Path) -> set[int]:
    """The indices of the finished games held back (a record or a mark)."""
    folder = run / WITHHELD
    if not folder.is_dir():
        return set()
    return {int(path.stem) for pattern in ("*.json", "*.mark")
            for path in folder.glob(pattern) if path.stem.isdigit()}


def published(run: Path, outcomes: Iterable[GameOutcome]) -> list[GameOutcome]:
    """The outcomes whose game may be shown game by game (its row, seed and record)."""
    hidden = withheld(run)
    return [outcome for outcome in outcomes if outcome.index not in hidden]
