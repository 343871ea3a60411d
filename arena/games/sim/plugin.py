"""Registers Sim with the arena (a built-in plugin, registered like any other)."""

from __future__ import annotations

from typing import Any

from arena.game import Game
from arena.games.sim.game import SimGame
from arena.hookspecs import hookimpl


@hookimpl
def arena_games() -> list[type[Game[Any, Any]]]:
    return [SimGame]


@hookimpl
def arena_solvers() -> dict[str, str]:
    return {"sim": "arena.games.sim.cli:solve_sim"}
