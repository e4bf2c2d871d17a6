"""What the log-flooding bots share: `Flood` writes `FLOOD_BYTES` of numbered lines to
the bot's stderr (and stdout, for a gRPC bot), each stream in turn, from a thread started
with the bot; the bot waits for it (`wait`) before its first answer, so that the flood is
over before the game is (however slow the host), then plays on; `last_words()` is the
bot's last line, which its log must keep."""

import sys
import threading
from typing import BinaryIO

#: What a flooding bot writes to its log in all: 50 MB.
FLOOD_BYTES = 50_000_000
#: The line it writes last.
LAST_WORDS = "logflood: my last words, after the flood"
LINE = 100  # bytes per numbered line
BATCH = 1_000  # lines per write: 100 kB


def lines(first: int, count: int, stream: str) -> bytes:
    """`count` numbered lines of LINE bytes each."""
    return b"".join(f"{stream} flood line {n:09d} ".ljust(LINE - 1, "x").encode() + b"\n"
                    for n in range(first, first + count))


def flood(streams: dict[str, BinaryIO]) -> None:
    share = FLOOD_BYTES // len(streams) // LINE  # lines per stream
    for first in range(0, share, BATCH):
        for name, stream in streams.items():
            stream.write(lines(first, min(BATCH, share - first), name))
            stream.flush()


class Flood:
    """The flood, started at once in a thread."""

    def __init__(self, stdout_too: bool) -> None:
        streams = {"stderr": sys.stderr.buffer}
        if stdout_too:
            streams["stdout"] = sys.stdout.buffer
        self.thread = threading.Thread(target=flood, args=(streams,), daemon=True)
        self.thread.start()

    def wait(self) -> None:
        self.thread.join()


def last_words() -> None:
    print(LAST_WORDS, file=sys.stderr, flush=True)
