"""Registers the substitution game with the arena (a built-in plugin like any other)."""

from __future__ import annotations

from typing import Any

from arena.game import Game
from arena.games.substitution.game import SubstitutionGame
from arena.hookspecs import hookimpl


@hookimpl
def arena_games() -> list[type[Game[Any, Any]]]:
    return [SubstitutionGame]
