"""Building bots: each manifest's build command, run in its folder under a lock.

Two tournaments (or a tournament and `curia arena check`) on one machine may build the
same bot at once; `npm install` and the like are not safe to run twice in one folder
concurrently, so each build holds an exclusive lock on its folder for its duration.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import subprocess
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from arena.config import BotManifest, ConfigError


@contextlib.contextmanager
def build_lock(workdir: Path) -> Iterator[None]:
    """Hold the machine-wide lock on building in `workdir` (a file lock kept outside the
    bot's folder, which may be read-only)."""
    digest = hashlib.sha256(str(workdir.resolve()).encode()).hexdigest()[:16]
    path = Path(tempfile.gettempdir()) / f"curia-build-{digest}.lock"
    with path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def build_bots(manifests: Iterable[BotManifest], out: IO[str],
               timeout: float = 600) -> None:
    """Run each manifest's build command once, in its folder; ConfigError if one fails."""
    for manifest in manifests:
        if manifest.build:
            build_bot(manifest, out, timeout)


def build_bot(manifest: BotManifest, out: IO[str], timeout: float) -> None:
    """Run one manifest's build command under its folder's lock; ConfigError if it fails."""
    print(f"building {manifest.name}: {' '.join(manifest.build)}", file=out, flush=True)
    try:
        with build_lock(manifest.workdir):
            done = subprocess.run(manifest.build, cwd=manifest.workdir, capture_output=True,
                                  text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ConfigError(f"building {manifest.name} failed: {error}") from None
    if done.returncode != 0:
        raise ConfigError(f"building {manifest.name} failed (exit code "
                          f"{done.returncode}):\n{done.stdout[-2000:]}"
                          f"{done.stderr[-2000:]}")
