"""Perfect play from the exact solver (one solver and table per board: size and graph)."""

from __future__ import annotations

import functools
import random
from typing import Any

from arena.games.sim import SimGame, SimMove, SimPosition
from arena.games.sim.solver import BudgetExceeded, SimSolver
from bots.sim.random_bots import SafeRandomBot

__all__ = ["PerfectBot"]


@functools.lru_cache(maxsize=2)
def _solver(vertices: int, graph: int | None) -> SimSolver:
    return SimSolver(vertices, graph=graph)


class PerfectBot:
    """Plays a move of the best value, at random among equals.

    In a lost position it plays the losing move that costs it the fewest safe edges, to
    leave an imperfect opponent the most room to err. When solving a position would evaluate
    more than `budget` new positions, it plays like `sim-safe-random`.
    """

    def __init__(self, budget: int = 1_000_000) -> None:
        self.budget = budget

    def choose_move(self, game: Any, state: SimPosition, rng: random.Random) -> SimMove:
        assert isinstance(game, SimGame)
        solver = _solver(state.vertices, state.graph)
        solver.budget = self.budget
        try:
            values = solver.move_values(state)
        except BudgetExceeded:
            return SafeRandomBot().choose_move(game, state, rng)
        best = max(values.values())
        candidates = sorted(e for e, v in values.items() if v == best)
        if best < 0:
            candidates = _least_costly(solver, state, candidates)
        return game.edge_move(rng.choice(candidates))


def _least_costly(solver: SimSolver, state: SimPosition, candidates: list[int]) -> list[int]:
    """The moves that keep the most safe edges for later (a lost position can still be
    saved if the opponent errs): no own triangle now, fewest new triangle-closing edges."""
    geo = solver.geometry
    mine = state.red if state.seat_to_move == 0 else state.green
    free = [e for e in range(geo.num_edges) if state.free >> e & 1]
    safe_now = [e for e in free if not geo.closes_triangle(mine, e)]
    costs = {}
    for edge in candidates:
        if geo.closes_triangle(mine, edge):
            costs[edge] = len(free) + 1
            continue
        after = mine | 1 << edge
        costs[edge] = sum(1 for f in safe_now if f != edge and geo.closes_triangle(after, f))
    least = min(costs.values())
    return [e for e in candidates if costs[e] == least]
