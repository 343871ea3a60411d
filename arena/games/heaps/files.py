"""Reading heap-game rules from files: TOML or JSON (declarative) or Python (moves as code).

A Python rules file is trusted code (it runs in the solver's process): use it from
the command line, never for games that strangers submit to a server.
"""

from __future__ import annotations

import importlib.util
import json
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from arena.errors import SettingsError
from arena.games.heaps.rules import HeapRules, HeapSpec

__all__ = ["PythonRules", "load_rules_file", "read_rules_mapping"]

Position = tuple[int, ...]


def read_rules_mapping(path: Path) -> dict[str, Any]:
    """The declarative rules in a .toml or .json file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise SettingsError(f"heaps: cannot read {path}: {error.strerror}") from None
    try:
        if path.suffix == ".toml":
            return tomllib.loads(text)
        data = json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as error:
        raise SettingsError(f"heaps: {path} is not valid {path.suffix[1:].upper()}: {error}") from None
    if not isinstance(data, dict):
        raise SettingsError(f"heaps: {path} must hold an object")
    return data


def load_rules_file(path: Path, target: int | None = None) -> HeapSpec:
    """Rules from a .toml, .json or .py file; `target` overrides the file's."""
    if path.suffix in (".toml", ".json"):
        return HeapRules.from_mapping(read_rules_mapping(path), target=target)
    if path.suffix == ".py":
        return PythonRules.load(path, target)
    raise SettingsError(f"heaps: rules files end in .toml, .json or .py, got {path.name!r}")


class PythonRules:
    """Rules given as code: `is_over`, `next_positions` and `start_positions` functions."""

    def __init__(self, module: ModuleType, target: int, name: str) -> None:
        self.name = name
        self.target = target
        self._is_over: Callable[[Position, int], bool] = _function(module, "is_over", name)
        self._next: Callable[[Position, int], Any] = _function(module, "next_positions", name)
        self._starts: Callable[[int], Any] = _function(module, "start_positions", name)
        self.symmetric = bool(getattr(module, "SYMMETRIC", False))
        self.heaps = int(getattr(module, "HEAPS", 0))

    @classmethod
    def load(cls, path: Path, target: int | None = None) -> PythonRules:
        spec = importlib.util.spec_from_file_location(f"heaps_rules_{path.stem}", path)
        if spec is None or spec.loader is None or not path.is_file():
            raise SettingsError(f"heaps: cannot load the rules file {path}")
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception as error:  # noqa: BLE001 -- the user's code: report, do not crash
            raise SettingsError(f"heaps: {path} failed to load: {error!r}") from None
        goal = target if target is not None else getattr(module, "TARGET", None)
        if isinstance(goal, bool) or not isinstance(goal, int):
            raise SettingsError(f"heaps: {path} sets no TARGET; give --target")
        return cls(module, goal, str(path))

    def is_over(self, position: Position) -> bool:
        return bool(self._call("is_over", self._is_over, position, self.target))

    def next_positions(self, position: Position) -> Iterator[Position]:
        items = self._call("next_positions", self._next, position, self.target)
        return iter([_position(item, self.name) for item in self._iterable(items, "next_positions")])

    def start_positions(self) -> Iterator[Position]:
        items = self._call("start_positions", self._starts, self.target)
        return iter([_position(item, self.name) for item in self._iterable(items, "start_positions")])

    def _call(self, name: str, function: Callable[..., Any], *args: Any) -> Any:
        """Call the user's function; its errors become a `SettingsError` naming the call."""
        try:
            return function(*args)
        except Exception as error:  # noqa: BLE001 -- the user's code: report, do not crash
            shown = ", ".join(repr(a) for a in args)
            raise SettingsError(f"heaps: {self.name}: {name}({shown}) raised {error!r}") from None

    def _iterable(self, items: Any, name: str) -> Any:
        try:
            iter(items)
        except TypeError:
            raise SettingsError(
                f"heaps: {self.name}: {name}() returned {items!r}, not a list of positions"
            ) from None
        return items


def _function(module: ModuleType, name: str, path: str) -> Callable[..., Any]:
    value = getattr(module, name, None)
    if not callable(value):
        raise SettingsError(f"heaps: {path} must define a function {name}()")
    return value  # type: ignore[no-any-return]


def _position(item: Any, path: str) -> Position:
    if isinstance(item, int):
        return (item,)
    try:
        position = tuple(int(v) for v in item)
    except (TypeError, ValueError):
        raise SettingsError(f"heaps: {path} produced {item!r}, not a position") from None
    return position
