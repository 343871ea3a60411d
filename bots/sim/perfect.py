"""Perfect play from the exact solver (one solver and table per board size)."""

from __future__ import annotations

import functools
import random
from typing import Any

from arena.games.sim import SimGame, SimMove, SimPosition
from arena.games.sim.solver import BudgetExceeded, SimSolver
from bots.sim.random_bots import SafeRandomBot

__all__ = ["PerfectBot"]


@functools.cache
def _solver(vertices: int) -> SimSolver:
    return SimSolver(vertices)


class PerfectBot:
    """Plays a move of the best value, at random among equals.

    Losing moves that do not complete a triangle at once are preferred to those that
    do (they leave the opponent room to err). When solving a position would evaluate
    more than `budget` new positions (K8 early on), it plays like `sim-safe-random`.
    """

    def __init__(self, budget: int = 200_000) -> None:
        self.budget = budget

    def choose_move(self, game: Any, state: SimPosition, rng: random.Random) -> SimMove:
        assert isinstance(game, SimGame)
        solver = _solver(state.vertices)
        solver.budget = self.budget
        try:
            values = solver.move_values(state)
        except BudgetExceeded:
            return SafeRandomBot().choose_move(game, state, rng)
        best = max(values.values())
        candidates = sorted(e for e, v in values.items() if v == best)
        if best < 0:
            mine = state.red if state.seat_to_move == 0 else state.green
            safe = [e for e in candidates if not solver.geometry.closes_triangle(mine, e)]
            candidates = safe or candidates
        return game.edge_move(rng.choice(candidates))
