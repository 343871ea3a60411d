"""`heaps-random` and `heaps-perfect`."""

from __future__ import annotations

import functools
import random
from typing import Any

from arena.games.heaps import HeapMove, HeapRules, HeapsGame, HeapsSolution, HeapsState, solve_heaps

__all__ = ["PerfectBot", "RandomBot"]


class RandomBot:
    """Any legal move, uniformly."""

    def choose_move(self, game: Any, state: HeapsState, rng: random.Random) -> HeapMove:
        assert isinstance(game, HeapsGame)
        return rng.choice([move for move, _ in game.rules.moves(state.heaps)])


@functools.lru_cache(maxsize=4)
def _solution(rules: HeapRules) -> HeapsSolution:
    """Solved once per rules; a few kept (a server's worker meets many guests' rules)."""
    return solve_heaps(rules).solution


class PerfectBot:
    """Wins as fast as possible from a won position, loses as slowly as possible from a
    lost one, keeps a drawn game drawn; random among equally good moves."""

    def choose_move(self, game: Any, state: HeapsState, rng: random.Random) -> HeapMove:
        assert isinstance(game, HeapsGame)
        rules = game.rules
        solution = _solution(rules)
        options = list(rules.moves(state.heaps))

        def rank(after: tuple[int, ...]) -> float:
            """Higher is better for the mover."""
            if rules.is_over(after):
                return 1e9  # wins now
            colour = solution.colour_of(after)
            if colour is None:
                return 0.0  # a draw
            if colour % 2 == 0:  # the opponent is lost: the sooner the better
                return 1e6 - colour
            return -1e6 + colour  # the opponent wins: the later the better

        best = max(rank(after) for _, after in options)
        candidates = sorted((m for m, after in options if rank(after) == best), key=str)
        return rng.choice(candidates)
