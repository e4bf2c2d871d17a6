"""How the suite is shared between pytest-xdist workers (`-n 2 --dist loadfile`).

Each test module runs whole on one worker, so that its module-scoped fixtures (a Redis, a
service, bot processes) start once. The modules in `SPREAD_OVER_WORKERS` hold long,
independent tests sharing no costly fixture (the conformance gate): their tests are
handed out one by one, so that both workers share them.
"""

from __future__ import annotations

import pytest
from xdist.scheduler import LoadFileScheduling

SPREAD_OVER_WORKERS = frozenset({"tests/test_conformance.py"})


class ModuleOrTestScheduling(LoadFileScheduling):
    """`loadfile`, except that a module in `SPREAD_OVER_WORKERS` is split by test."""

    def _split_scope(self, nodeid: str) -> str:
        module = nodeid.split("::", 1)[0]
        return nodeid if module in SPREAD_OVER_WORKERS else module


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    if config.getvalue("dist") != "loadfile":
        return None
    return ModuleOrTestScheduling(config, log)
