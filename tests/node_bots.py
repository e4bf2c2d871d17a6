"""The shipped Node.js bots with their npm packages, installed as the arena builds them."""

from __future__ import annotations

import functools
import shutil
import subprocess
from pathlib import Path

import pytest

from hosting.builds import build_lock

BOTS = Path(__file__).resolve().parents[1] / "bots"
NPM_INSTALL = ("npm", "install", "--no-audit", "--no-fund")


def node_bot_folder(name: str) -> Path:
    """bots/<name>, its packages installed; skips the test where Node.js is missing."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip(f"node and npm are needed for the Node.js bot (bots/{name})")
    return installed(BOTS / name)


@functools.cache
def installed(folder: Path) -> Path:
    """`npm install` in `folder`, once per test process, under the arena's build lock: the
    test workers and the tournaments under test never install into one folder at once."""
    with build_lock(folder):
        done = subprocess.run(NPM_INSTALL, cwd=folder, capture_output=True, text=True,
                              timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"npm install failed in {folder}:\n{done.stdout}\n{done.stderr}"
    return folder
