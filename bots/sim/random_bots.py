"""The seed's random player and its improved variant that avoids losing at once."""

from __future__ import annotations

import random
from typing import Any

from arena.games.sim import SimGame, SimMove, SimPosition
from arena.games.sim.rules import geometry

__all__ = ["RandomBot", "SafeRandomBot", "free_edges", "safe_edges"]


def free_edges(position: SimPosition) -> list[int]:
    """Free edge numbers in ascending order (a stable order keeps bots reproducible)."""
    free = position.free
    return [e for e in range(geometry(position.vertices, position.graph).num_edges) if free >> e & 1]


def safe_edges(position: SimPosition) -> list[int]:
    """Free edges that do not complete a triangle of the mover's colour."""
    geo = geometry(position.vertices, position.graph)
    mine = position.red if position.seat_to_move == 0 else position.green
    return [e for e in free_edges(position) if not geo.closes_triangle(mine, e)]


class RandomBot:
    """Any free edge, uniformly."""

    def choose_move(self, game: Any, state: SimPosition, rng: random.Random) -> SimMove:
        assert isinstance(game, SimGame)
        return game.edge_move(rng.choice(free_edges(state)))


class SafeRandomBot:
    """A free edge that does not lose at once, uniformly; any free edge if none is left."""

    def choose_move(self, game: Any, state: SimPosition, rng: random.Random) -> SimMove:
        assert isinstance(game, SimGame)
        return game.edge_move(rng.choice(safe_edges(state) or free_edges(state)))
