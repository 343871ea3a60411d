"""Stone-heap games (EGE tasks 19-21): rules, retrograde solver and game plugin."""

from arena.games.heaps.game import HeapsGame, HeapsState
from arena.games.heaps.rules import HeapMove, HeapRules, Op
from arena.games.heaps.solver import HeapsSolution, solve_heaps

__all__ = ["HeapMove", "HeapRules", "HeapsGame", "HeapsSolution", "HeapsState", "Op", "solve_heaps"]
