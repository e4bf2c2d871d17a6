"""`curia arena run --http-port`: the run folder's site served over real HTTP by the
arena's own site server (curia.arena_cli.site_server). A file with an allowed name that is
a symlink to something else of the folder (the deal key in private/, results.jsonl, a bot's
log) or outside it is refused with 404, never followed; nothing answers 500 or drops the
connection."""

from __future__ import annotations

import io
import os
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.deals import KEY_FILE, DealKey
from curia.arena_cli import site_server
from service.redis_server import free_port


def fetch(url: str) -> tuple[int, str, bytes]:
    """(status, content type, body); status 0 if the server closed without an answer."""
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return int(answer.status), answer.headers["Content-Type"], answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read()
    except (urllib.error.URLError, ConnectionError):  # RemoteDisconnected included
        return 0, "", b""


@pytest.fixture
def run(tmp_path: Path) -> Path:
    """A run folder as the arena leaves it: the deal key, a withheld record, results,
    a bot's log, and the published site."""
    run = tmp_path / "run"
    DealKey.load_or_create(run / KEY_FILE)
    for name, text in (("private/games/00000.json", '{"seed": "secret"}'),
                       ("results.jsonl", '{"seed": "secret"}\n'), ("logs/bot.txt", "log"),
                       ("index.html", "<p>site</p>"), ("replays/00001.html", "<p>r</p>"),
                       ("ratings.csv", "a,b\n")):
        (run / name).parent.mkdir(parents=True, exist_ok=True)
        (run / name).write_text(text)
    (tmp_path / "outside.txt").write_text("outside")
    return run


@pytest.fixture
def site(run: Path) -> Iterator[str]:
    port = free_port()
    with site_server(run, port, "127.0.0.1", io.StringIO()):
        yield f"http://127.0.0.1:{port}"


#: Allowed names made symlinks to what must never be served (relative to the run folder).
PLANTED = {
    "replays/00000.html": "../private/deal.key",  # .key: used to crash (no content type)
    "tournament.json": "private/games/00000.json",
    "games.csv": "results.jsonl",
    "leaderboard.txt": "logs/bot.txt",
    "ratings.png": "../outside.txt",
    "replays/00002.html": "private",  # a folder
}


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_a_symlink_with_an_allowed_name_is_not_followed(run: Path, site: str,
                                                        name: str) -> None:
    os.symlink(PLANTED[name], run / name)
    status, content_type, body = fetch(f"{site}/{name}")
    assert status == 404, (status, body)
    assert b"secret" not in body and run.joinpath(KEY_FILE).read_bytes() not in body
    assert content_type.startswith("text/html")


def test_a_symlinked_private_folder_is_not_followed(run: Path, site: str) -> None:
    os.rename(run / "replays", run / "private" / "replays")
    os.symlink("private/replays", run / "replays")
    assert fetch(f"{site}/replays/00001.html")[0] == 404


def test_the_published_files_are_served_with_their_types(site: str) -> None:
    assert fetch(f"{site}/") == (200, "text/html; charset=utf-8", b"<p>site</p>")
    assert fetch(f"{site}/replays/00001.html")[0] == 200
    assert fetch(f"{site}/ratings.csv")[:2] == (200, "text/csv; charset=utf-8")


def test_the_site_server_survives_what_it_refuses(run: Path, site: str) -> None:
    """After refusals, crafted paths and a half request, it still serves."""
    os.symlink("../private/deal.key", run / "replays" / "00000.html")
    for path in ("/replays/00000.html", "/private/deal.key", "/results.jsonl",
                 "/replays/%2e%2e/private/deal.key", "/index.html%00.key", "/x.key"):
        assert fetch(site + path)[0] == 404, path
    port = int(site.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(b"GET /\xff\xfe.key HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert sock.recv(64).startswith(b"HTTP/1.1 404")
    assert fetch(f"{site}/")[0] == 200
