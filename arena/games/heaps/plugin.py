"""Registers the stone-heap game with the arena."""

from __future__ import annotations

from typing import Any

from arena.game import Game
from arena.games.heaps.game import HeapsGame
from arena.hookspecs import hookimpl


@hookimpl
def arena_games() -> list[type[Game[Any, Any]]]:
    return [HeapsGame]


@hookimpl
def arena_solvers() -> dict[str, str]:
    return {"heaps": "arena.games.heaps.cli:solve_heaps"}
