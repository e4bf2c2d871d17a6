"""docs/mutation-testing.md and tools/mutation.py agree with the mutmut configuration:
every equivalent mutant the doc lists is in a mutated module and says why, once."""

from __future__ import annotations

import importlib.util
import re
import tomllib
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]


def mutation_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutation_tool", REPO / "tools" / "mutation.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_mutated_module_is_configured_for_mutmut() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["mutmut"]
    modules = {f"games/{game}/{module}.py"
               for game, names in mutation_tool().MODULES.items() for module in names}
    assert modules == set(config["only_mutate"])


def test_each_equivalent_mutant_is_listed_once_in_a_mutated_module_with_a_reason() -> None:
    tool = mutation_tool()
    listed = tool.equivalents()
    assert len(listed) > 40
    lines = [line for line in tool.DOC.read_text().splitlines() if line.startswith("- `games.")]
    pattern = re.compile(r"`(games\.[\w.ǁ]+__mutmut_\d+(?:\.\.\d+)?)`")
    names = [found for line in lines for found in pattern.findall(line)]
    assert len(names) == len(set(names)), "a mutant is listed twice"
    for name in listed:
        game, module = name.split(".")[1:3]
        assert module in tool.MODULES[game], name
    for line in lines:
        reason = pattern.sub("", line).strip("-:, ")
        assert len(reason.split()) >= 8, f"no reason given: {line}"
