"""Reading readable descriptions (TOML or dicts) of positions, with errors naming the key.

Shared by the games' position builders (`games/<game>/position.py`): each checks its own
keys and values with these, so a scenario test or a bot author gets the same kind of
message from every game: `members.blue: no institution 'atlantis'; one of: ...`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from typing import Any

JSON = dict[str, Any]


def read_toml(text: str) -> JSON:
    """The table a TOML description holds; ValueError if it is not TOML."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ValueError(f"the position description is not TOML: {err}") from err


def known(name: Any, names: tuple[str, ...], noun: str, where: str = "") -> int:
    """The index of `name` among `names`, or a ValueError naming both."""
    if isinstance(name, str) and name in names:
        return names.index(name)
    at = f"{where}: " if where else ""
    raise ValueError(f"{at}no {noun} {name!r}; one of: {', '.join(names)}")


def typed(value: Any, kind: type, where: str) -> Any:
    """`value` if it is an int (not a bool) or a str as asked, else a ValueError."""
    if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
        return value
    raise ValueError(f"{where} must be {'an integer' if kind is int else 'a string'}, "
                     f"not {value!r}")


def count(value: Any, where: str) -> int:
    """A non-negative integer."""
    number: int = typed(value, int, where)
    if number < 0:
        raise ValueError(f"{where} must not be negative, not {number}")
    return number


def strings(value: Any, where: str) -> list[str]:
    """A list of strings."""
    if not isinstance(value, list):
        raise ValueError(f"{where} must be a list of strings, not {value!r}")
    return [typed(v, str, f"{where}[{i}]") for i, v in enumerate(value)]


def table(data: Mapping[str, Any], key: str,
          read: Callable[[Any, str], Any]) -> dict[str, Any]:
    """`data[key]` (a table; empty if absent), each value read by `read(value, where)`."""
    found = data.get(key, {})
    if not isinstance(found, Mapping):
        raise ValueError(f"{key} must be a table, not {found!r}")
    return {name: read(value, f"{key}.{name}") for name, value in found.items()}


def check_keys(data: Mapping[str, Any], keys: tuple[str, ...], where: str) -> None:
    """A table whose keys are all among `keys`."""
    if not isinstance(data, Mapping):
        raise ValueError(f"{where} must be a table, not {data!r}")
    for key in data:
        if key not in keys:
            raise ValueError(f"{where}: unknown key {key!r}; keys: {', '.join(keys)}")
