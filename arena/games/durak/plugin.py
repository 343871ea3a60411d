"""Registers the Durak game with the arena."""

from __future__ import annotations

from typing import Any

from arena.games.durak.game import DurakGame
from arena.hookspecs import hookimpl


@hookimpl
def arena_games() -> list[type[Any]]:
    return [DurakGame]


@hookimpl
def arena_solvers() -> dict[str, str]:
    return {"durak": "arena.games.durak.cli:solve_durak"}
