"""A bot's log, capped: what a bot writes can fill no disk.

A bot process writes its stdout and stderr (a stdio bot: its bridge's stderr, which
carries the bot's) into a pipe; a thread copies the pipe into the log file (`BotLog`).
The file keeps at most `LOG_LIMIT` bytes of it: the first `HEAD_BYTES` as they come,
then only the last `TAIL_BYTES`, held in memory and written when the log is closed, after
a marker line saying how many bytes were cut:

    … 49283072 bytes cut by the arena (a bot's log keeps its first 772 KiB and its last 252 KiB) …

A bot that floods its log loses log bytes, nothing else: its writes never wait for the
disk, only for the copying thread. The tail is what a league worker ships back to its
tournament (hosting.seat_jobs.LOG_TAIL_BYTES, 256 KiB: the tail with the marker just
before it), and what the arena reads to tell why a bot ended (`tail`: the end of what
was written so far, also before the log is closed).
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

KIB = 1024
#: The most a bot's log keeps of what the bot (and the arena, for it) wrote, bytes.
LOG_LIMIT = 1024 * KIB
#: What is kept of the end once the log is over the limit: a worker's share
#: (hosting.seat_jobs.LOG_TAIL_BYTES) less room for the marker.
TAIL_BYTES = 252 * KIB
#: What is kept of the start.
HEAD_BYTES = LOG_LIMIT - TAIL_BYTES
#: How much of the end of the log is at hand in memory (`BotLog.tail`).
RECENT_BYTES = 64 * KIB
#: One read from the pipe.
CHUNK = 64 * KIB


def marker(cut: int) -> bytes:
    """The line that stands for the `cut` bytes between the head and the tail."""
    return (f"\n… {cut} bytes cut by the arena (a bot's log keeps its first "
            f"{HEAD_BYTES // KIB} KiB and its last {TAIL_BYTES // KIB} KiB) …\n").encode()


class CappedFile:
    """A log file that keeps the first `head` bytes written to it and the last `tail`
    (written at `close`, after the marker when bytes were cut). Thread-safe."""

    def __init__(self, path: Path, head: int = HEAD_BYTES, tail: int = TAIL_BYTES) -> None:
        self.file = path.open("wb", buffering=0)
        self.head_left, self.tail_size = head, tail
        self.held = bytearray()  # what came after the head, at most `tail` bytes of it
        self.recent = bytearray()  # the last RECENT_BYTES written, for `last`
        self.cut = 0
        self.lock = threading.Lock()

    def write(self, data: bytes) -> None:
        """Keep `data`: in the file while the head has room, else in the held tail."""
        with self.lock:
            if self.file.closed:
                return
            self.recent += data
            del self.recent[:-RECENT_BYTES]
            if self.head_left:
                part = data[:self.head_left]
                self.file.write(part)
                self.head_left -= len(part)
                data = data[len(part):]
            self.held += data
            if len(self.held) > self.tail_size:
                self.cut += len(self.held) - self.tail_size
                del self.held[:len(self.held) - self.tail_size]

    def last(self, size: int) -> bytes:
        """The end of what was written (at most RECENT_BYTES)."""
        with self.lock:
            return bytes(self.recent[-size:])

    def close(self) -> None:
        """Write the tail (after the marker if bytes were cut) and close the file."""
        with self.lock:
            if self.file.closed:
                return
            with contextlib.suppress(OSError):
                if self.cut:
                    self.file.write(marker(self.cut))
                self.file.write(bytes(self.held))
            self.file.close()
            self.held.clear()


class BotLog:
    """A bot's log file, fed from a pipe: `fd` is the end the bot's process writes to
    (pass it as its stdout and stderr), a thread copies the other end into a CappedFile."""

    def __init__(self, path: Path, head: int = HEAD_BYTES, tail: int = TAIL_BYTES) -> None:
        self.path = path
        self.file = CappedFile(path, head, tail)
        self._read_end, self.fd = os.pipe()
        self._copier = threading.Thread(target=self._copy, daemon=True, name="bot-log")

    def started(self) -> None:
        """The bot's process has its end of the pipe: close ours, start copying."""
        os.close(self.fd)
        self._copier.start()

    def _copy(self) -> None:
        try:
            while chunk := os.read(self._read_end, CHUNK):
                self.file.write(chunk)
        finally:
            os.close(self._read_end)

    def write(self, text: str) -> None:
        """A line of the arena's own in the log."""
        self.file.write(text.encode())

    def drain(self, timeout: float) -> bool:
        """Wait at most `timeout` seconds for every writer of the pipe to be gone and what
        they wrote to be in the log: whether it is."""
        if self._copier.ident is not None:
            self._copier.join(timeout)
        return not self._copier.is_alive()

    def tail(self, size: int = 8192) -> str:
        """The end of the log so far (at most RECENT_BYTES), as text."""
        return self.file.last(size).decode("utf-8", "replace")

    def close(self, timeout: float = 5.0) -> None:
        """Finish the log: what is still in the pipe (`timeout`: a process of the bot's
        that outlived it may hold the pipe), then the tail. A pipe never handed to a
        process (`started` not called) is closed."""
        if self._copier.ident is None:
            for fd in (self.fd, self._read_end):
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.drain(timeout)
        self.file.close()
