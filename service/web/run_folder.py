"""A tournament's run folder, served read-only (`curia arena run --http-port`): names on
an allow-list only, and only if the file a name resolves to is on the allow-list too: a
symlink to anything else (`private/`, whose deal key and withheld records are secret,
`results.jsonl`, a log) or outside the folder is refused with 404, as is anything not a
regular file."""

from __future__ import annotations

import os
import re
import stat
from http import HTTPStatus
from pathlib import Path, PurePosixPath

from service.web.answers import Answer, message_page

#: The files of a run folder the gateway serves, and their types.
SITE_FILES = re.compile(r"(index\.html|replays/\d{5}\.html|ratings\.png|leaderboard\.txt|"
                        r"tournament\.json|games\.csv|ratings\.csv)")
CONTENT_TYPES = {".html": "text/html; charset=utf-8", ".png": "image/png",
                 ".txt": "text/plain; charset=utf-8", ".json": "application/json",
                 ".csv": "text/csv; charset=utf-8"}


def read_regular_file(path: Path) -> bytes:
    """A regular file's bytes, its last component not followed if it became a symlink
    meanwhile (OSError for anything else: a folder, a FIFO, a device)."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise OSError(f"{path} is not a regular file")
        with os.fdopen(descriptor, "rb", closefd=False) as handle:
            return handle.read()
    finally:
        os.close(descriptor)


def site_path(folder: Path, name: str) -> Path | None:
    """The real path of an allowed name, if it is an allowed name of the (resolved)
    folder too (a symlink is followed to another published file only: never into
    private/, to results.jsonl or a log, or out of the folder)."""
    if not SITE_FILES.fullmatch(name):
        return None
    path = (folder / name).resolve()
    if not path.is_relative_to(folder):
        return None
    return path if SITE_FILES.fullmatch(path.relative_to(folder).as_posix()) else None


def site_file(folder: Path, name: str) -> Answer:
    """A file of the run folder's allow-list (index.html for the folder itself)."""
    name = name or "index.html"
    path = site_path(folder, name)
    try:
        body = read_regular_file(path) if path is not None else None
    except OSError:
        body = None
    if body is None:
        return message_page(HTTPStatus.NOT_FOUND, "no such page in this tournament (yet)")
    return Answer(HTTPStatus.OK, body, CONTENT_TYPES.get(PurePosixPath(name).suffix,
                                                         "application/octet-stream"))
