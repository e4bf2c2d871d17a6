"""What the card set readers of several games share: the error a bad file raises, a
typed reader of one TOML table whose every failure names the card and the field, and the
one I/O a game has, reading the card file a host chose (or the packaged set)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from importlib import resources
from pathlib import Path
from typing import NoReturn, TypeVar

T = TypeVar("T")
#: A field's default when it has none: it must be given.
MISSING = object()
SLUG = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


class CardSetError(ValueError):
    """A card set file that cannot be used; the message names the card and the field."""


def show(value: object) -> str:
    """A value as the message shows it (JSON where possible)."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


class Record:
    """One table of the file being read: typed getters that fail naming `where` and the
    field, and a check that no unknown field is present (`only`)."""

    def __init__(self, raw: object, where: str, prefix: str = "") -> None:
        if not isinstance(raw, dict):
            raise CardSetError(f"{where}: {prefix.rstrip('.') or 'entry'} must be a table, "
                               f"got {show(raw)}")
        self.raw: dict[str, object] = raw
        self.where = where
        self.prefix = prefix

    def fail(self, key: str, message: str) -> NoReturn:
        raise CardSetError(f"{self.where}: {self.prefix}{key} {message}")

    def has(self, key: str) -> bool:
        return key in self.raw

    def get(self, key: str, default: object = MISSING) -> object:
        if key in self.raw:
            return self.raw[key]
        if default is MISSING:
            self.fail(key, "is missing")
        return default

    def only(self, known: Iterable[str]) -> None:
        """Fail on the first field not in `known` (typos are named before anything else)."""
        known = tuple(known)
        for key in self.raw:
            if key not in known:
                self.fail(key, f"is not a known field (known: {', '.join(known)})")

    def string(self, key: str, default: object = MISSING) -> str:
        value = self.get(key, default)
        if not isinstance(value, str) or not value.strip():
            self.fail(key, f"must be a non-empty string, got {show(value)}")
        return value

    def slug(self, key: str) -> str:
        value = self.string(key)
        if not SLUG.fullmatch(value):
            self.fail(key, f"must be lowercase letters, digits and single hyphens, "
                           f"got {show(value)}")
        return value

    def integer(self, key: str, low: int, high: int, default: object = MISSING) -> int:
        value = self.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool):
            self.fail(key, f"must be a whole number, got {show(value)}")
        if not low <= value <= high:
            self.fail(key, f"must be {low}..{high}, got {value}")
        return value

    def choice(self, key: str, options: tuple[str, ...], what: str,
               default: object = MISSING) -> str:
        value = self.get(key, default)
        if not isinstance(value, str) or value not in options:
            self.fail(key, f"must be a known {what} ({', '.join(options)}), got {show(value)}")
        return value

    def counts(self, key: str, options: tuple[str, ...], what: str, high: int) -> dict[str, int]:
        """A table {option: count}, counts 0..high; zeros are dropped. Absent: {}."""
        value = self.get(key, {})
        if not isinstance(value, dict):
            self.fail(key, f"must be a table of {what} to numbers, got {show(value)}")
        out: dict[str, int] = {}
        for name, count in value.items():
            if name not in options:
                self.fail(key, f"names an unknown {what} {show(name)} "
                               f"(known: {', '.join(options)})")
            if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= high:
                self.fail(key, f"must give {show(name)} a whole number 0..{high}, "
                               f"got {show(count)}")
            if count:
                out[name] = count
        return out

    def choices(self, key: str, options: tuple[str, ...], what: str,
                length: int) -> tuple[str, ...]:
        value = self.get(key)
        if not isinstance(value, list) or len(value) != length:
            self.fail(key, f"must be a list of {length} {what}s, got {show(value)}")
        for item in value:
            if item not in options:
                self.fail(key, f"names an unknown {what} {show(item)} "
                               f"(known: {', '.join(options)})")
        return tuple(value)

    def integers(self, key: str, length: int, bounds: tuple[int, int]) -> tuple[int, ...]:
        value = self.get(key)
        low, high = bounds
        if not isinstance(value, list) or len(value) != length:
            self.fail(key, f"must be a list of {length} whole numbers, got {show(value)}")
        for item in value:
            if not isinstance(item, int) or isinstance(item, bool) or not low <= item <= high:
                self.fail(key, f"must hold whole numbers {low}..{high}, got {show(item)}")
        return tuple(value)

    def tables(self, key: str) -> list[object]:
        value = self.get(key, [])
        if not isinstance(value, list):
            self.fail(key, f"must be an array of tables ([[{key}]]), got {show(value)}")
        return value


def read_card_file(path: str | os.PathLike[str], parse: Callable[[str], T]) -> T:
    """Read and parse a card set file; CardSetError messages start with its path."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CardSetError(f"{os.fspath(path)}: cannot read the card set file: {exc}") \
            from None
    try:
        return parse(text)
    except CardSetError as exc:
        raise CardSetError(f"{os.fspath(path)}: {exc}") from None


def chosen_card_text(variable: str, package: str, default: str, path: str | None,
                     parse: Callable[[str], object]) -> str:
    """The text of a card set file, checked by `parse` as the engine checks it
    (CardSetError otherwise): the file at `path`, else the file `variable` names, else the
    set packaged in `package` as `default`."""
    chosen = path or os.environ.get(variable, "").strip()
    if chosen:
        return read_card_file(chosen, lambda text: (parse(text), text)[1])
    text = resources.files(package).joinpath(default).read_text(encoding="utf-8")
    parse(text)
    return text


def chosen_card_set(variable: str, environ: Mapping[str, str] | None,
                    load_file: Callable[[str], T], load_default: Callable[[], T]) -> T:
    """The card set a host chose: the file named by `variable` when it is set (and not
    empty), else the packaged stand-in set."""
    env = os.environ if environ is None else environ
    path = env.get(variable, "").strip()
    return load_file(path) if path else load_default()
