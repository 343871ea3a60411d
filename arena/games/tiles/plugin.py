"""Registers the dice-tile game with the arena."""

from __future__ import annotations

from typing import Any

from arena.games.tiles.game import TilesGame
from arena.hookspecs import hookimpl


@hookimpl
def arena_games() -> list[type[Any]]:
    return [TilesGame]


@hookimpl
def arena_solvers() -> dict[str, str]:
    return {"tiles": "arena.games.tiles.cli:solve_tiles"}
