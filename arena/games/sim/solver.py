"""Sim's exact solver: the game value under perfect play, best moves, and game counts.

The search is negamax on a win/draw/loss value from the mover's point of view, with
a table keyed by a canonical form under vertex permutations (symmetric positions are
solved once). A move that completes the mover's own triangle is never searched (it
loses at once); a position where the opponent will be left without a safe edge is
won without search; moves are tried in order of how few safe edges they cost the
mover, which is what makes K8 tractable. The hot loop is compiled (`_search.pyx`);
`_pysearch.py` is the same algorithm in Python, used when the extension is not built.

On a graph other than K_n only the graph's edges are played and the symmetries are
the graph's automorphisms (at most `MAX_AUTOMORPHISMS` of them; a graph with more is
solved without symmetry).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena.games.sim.rules import SimPosition, automorphisms, geometry

__all__ = [
    "COUNT_MAX_BYTES",
    "BudgetExceeded",
    "CountMemoryExceeded",
    "SequenceCount",
    "SimSolution",
    "SimSolver",
    "compiled",
]

try:
    from arena.games.sim._search import BudgetExceeded, CountMemoryExceeded, Searcher

    compiled = True
except ImportError:  # the extension is not built: same algorithm, slower
    from arena.games.sim._pysearch import (  # type: ignore[assignment]
        BudgetExceeded,
        CountMemoryExceeded,
        Searcher,
    )

    compiled = False

MAX_AUTOMORPHISMS = 2048
"""Beyond this many automorphisms a graph is solved without symmetry (each costs a
table lookup per position; K_n itself has its own, faster canonical form)."""

COUNT_MAX_BYTES = 8 * 10**9
"""Default memory allowed to the game count's table (K8 needs about 2.4 GB)."""

_RESULT = {1: "first", -1: "second", 0: "draw"}


@dataclass(frozen=True)
class SimSolution:
    """The value of Sim on K_n (or another graph) with perfect play, and its cost."""

    vertices: int
    value: str
    """``"first"``, ``"second"`` or ``"draw"``: who wins with perfect play."""
    positions: int
    """Distinct positions (up to symmetry) the search evaluated."""
    seconds: float
    symmetry: bool = True
    edges: tuple[tuple[int, int], ...] | None = None
    """The graph's edges; ``None`` for K_n."""

    def to_json(self) -> dict[str, Any]:
        return {
            "vertices": self.vertices,
            **({} if self.edges is None else {"edges": [list(e) for e in self.edges]}),
            "value": self.value,
            "positions": self.positions,
            "seconds": round(self.seconds, 6),
            "symmetry": self.symmetry,
            "compiled": compiled,
        }


@dataclass(frozen=True)
class SequenceCount:
    """Every complete game of Sim on K_n (move sequences to a triangle or a full board)."""

    vertices: int
    by_length: dict[int, int]
    """Number of complete games per number of moves."""
    draws: int
    positions: int
    """Distinct positions (up to symmetry) the count visited."""
    seconds: float
    table_bytes: int = 0
    """Memory held by the count's table at the end (an estimate without the compiled core)."""
    total: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "total", sum(self.by_length.values()))

    def to_json(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "draws": self.draws,
            "by_length": {str(k): v for k, v in sorted(self.by_length.items())},
            "positions": self.positions,
            "seconds": round(self.seconds, 6),
            "table_bytes": self.table_bytes,
        }


class SimSolver:
    """Solves positions of Sim on K_n or another graph; the table persists between calls.

    Args:
        vertices: n, from 3 to 8.
        graph: the graph's edge mask (`rules.edge_mask`), ``None`` for K_n.
        symmetry: share table entries between positions equal up to relabelling (on a
            graph: up to its automorphisms, if it has at most `MAX_AUTOMORPHISMS`).
        budget: stop a call with `BudgetExceeded` once it has evaluated this many new
            positions (-1: no limit); what it stored stays valid for later calls.
    """

    def __init__(self, vertices: int, *, graph: int | None = None, symmetry: bool = True,
                 budget: int = -1) -> None:
        self.vertices = vertices
        self.graph = graph
        self.geometry = geometry(vertices, graph)
        if graph is None:
            self._searcher = Searcher(vertices, symmetry, budget)
        else:
            found = automorphisms(vertices, graph) if symmetry else ()
            symmetry = symmetry and len(found) <= MAX_AUTOMORPHISMS
            self._searcher = Searcher(vertices, symmetry, budget, graph, found if symmetry else ())
        self.symmetry = symmetry

    @property
    def budget(self) -> int:
        return int(self._searcher.budget)

    @budget.setter
    def budget(self, value: int) -> None:
        self._searcher.budget = value

    @property
    def positions(self) -> int:
        return len(self._searcher.table)

    def value(self, position: SimPosition) -> int:
        """+1 if the player to move wins with perfect play, 0 for a draw, -1 if they lose.

        A finished position has the value of its result for the player to move.
        """
        mine, theirs = _perspective(position)
        if self.geometry.has_triangle(theirs):
            return 1  # the opponent completed a triangle: the mover has won
        self._searcher.calls = 0
        return int(self._searcher.value(mine, theirs))

    def move_values(self, position: SimPosition) -> dict[int, int]:
        """Each free edge -> the value for the mover after playing it."""
        mine, theirs = _perspective(position)
        free = self.geometry.full & ~(mine | theirs)
        self._searcher.calls = 0
        values = {}
        for edge in range(self.geometry.num_edges):
            bit = 1 << edge
            if not free & bit:
                continue
            if self.geometry.closes_triangle(mine, edge):
                values[edge] = -1
            else:
                values[edge] = -int(self._searcher.value(theirs, mine | bit))
        return values

    def solve(self) -> SimSolution:
        """The value of the empty board."""
        start = time.perf_counter()
        self._searcher.calls = 0
        value = self._searcher.value(0, 0)
        seconds = time.perf_counter() - start
        edges = None if self.graph is None else tuple(self.geometry.graph_edges())
        return SimSolution(self.vertices, _RESULT[value], self.positions, seconds, self.symmetry,
                           edges)

    def count_sequences(
        self,
        *,
        max_bytes: int = COUNT_MAX_BYTES,
        progress: Callable[[int, int], object] | None = None,
        progress_every: float = 5.0,
    ) -> SequenceCount:
        """Count every complete game from the empty board, by length, and the draws.

        The count memoises a vector of counts per position up to symmetry (K8: 5.6
        million positions, about 30 s and 2.4 GB compiled); the table is freed at the end.

        Args:
            max_bytes: raise `CountMemoryExceeded` rather than let the table grow past
                this many bytes (-1: no limit).
            progress: called every `progress_every` seconds of a long count with the
                positions counted so far and the bytes the table holds.
        """
        searcher = self._searcher
        searcher.max_bytes = max_bytes
        searcher.progress = progress
        searcher.progress_every = progress_every
        start = time.perf_counter()
        try:
            counts = searcher.count(0, 0)
            seconds = time.perf_counter() - start
            positions, table_bytes = searcher.counted, searcher.count_bytes
        finally:
            searcher.release_counts()
            searcher.progress = None
        by_length = {k: int(c) for k, c in enumerate(counts[:-1]) if c}
        return SequenceCount(
            self.vertices, by_length, int(counts[-1]), positions, seconds, table_bytes
        )


def _perspective(position: SimPosition) -> tuple[int, int]:
    """(mover's edges, opponent's edges)."""
    if position.seat_to_move == 0:
        return position.red, position.green
    return position.green, position.red


def solve(vertices: int, *, graph: int | None = None, symmetry: bool = True) -> SimSolution:
    """Solve Sim on K_vertices (or the graph with edge mask `graph`) from the empty board."""
    return SimSolver(vertices, graph=graph, symmetry=symmetry).solve()
