"""Sim's rules as pure values: the board geometry, positions as bitboards, moves.

Edges of the complete graph K_n are numbered in lexicographic order (0-1, 0-2, ...,
(n-2)-(n-1)); a set of edges is an int with bit `e` set for edge `e`. A position is the
pair of edge sets of the first (red) and second (green) player. Nothing here does I/O
or draws random numbers.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from itertools import combinations

__all__ = [
    "MAX_VERTICES",
    "MIN_VERTICES",
    "Geometry",
    "SimPosition",
    "geometry",
]

MIN_VERTICES = 3
MAX_VERTICES = 8


@dataclass(frozen=True)
class Geometry:
    """The fixed tables of K_n: edge numbering, triangles, and who borders whom."""

    vertices: int
    edges: tuple[tuple[int, int], ...]
    """Edge number -> its two vertices, smaller first."""
    edge_index: tuple[tuple[int, ...], ...]
    """``edge_index[i][j]`` is the number of edge i-j (-1 on the diagonal)."""
    triangles: tuple[int, ...]
    """Every triangle as a mask of its three edges."""
    closing_pairs: tuple[tuple[int, ...], ...]
    """Per edge: masks of the edge pairs that close a triangle with it."""

    @property
    def num_edges(self) -> int:
        return len(self.edges)

    @property
    def full(self) -> int:
        """The mask of all edges."""
        return (1 << len(self.edges)) - 1

    def has_triangle(self, mask: int) -> bool:
        return any(mask & t == t for t in self.triangles)

    def triangle_in(self, mask: int) -> tuple[int, int, int] | None:
        """The vertices of the first triangle inside `mask`, if any."""
        for t in self.triangles:
            if mask & t == t:
                vertices = sorted({v for e in self.edges_of(t) for v in e})
                return (vertices[0], vertices[1], vertices[2])
        return None

    def closes_triangle(self, mask: int, edge: int) -> bool:
        """Would adding `edge` to `mask` complete a triangle?"""
        return any(mask & pair == pair for pair in self.closing_pairs[edge])

    def edges_of(self, mask: int) -> list[tuple[int, int]]:
        return [self.edges[e] for e in range(len(self.edges)) if mask >> e & 1]


@functools.cache
def geometry(vertices: int) -> Geometry:
    """The tables for K_vertices (cached: they never change)."""
    edges = tuple(combinations(range(vertices), 2))
    index = [[-1] * vertices for _ in range(vertices)]
    for number, (i, j) in enumerate(edges):
        index[i][j] = index[j][i] = number
    triangles = tuple(
        (1 << index[a][b]) | (1 << index[a][c]) | (1 << index[b][c])
        for a, b, c in combinations(range(vertices), 3)
    )
    closing = tuple(
        tuple(t & ~(1 << e) for t in triangles if t >> e & 1) for e in range(len(edges))
    )
    return Geometry(vertices, edges, tuple(tuple(r) for r in index), triangles, closing)


@dataclass(frozen=True, slots=True)
class SimPosition:
    """Who has coloured which edges. Red (seat 0) moves first."""

    vertices: int
    red: int = 0
    green: int = 0

    @property
    def moves_made(self) -> int:
        return self.red.bit_count() + self.green.bit_count()

    @property
    def seat_to_move(self) -> int:
        return self.moves_made % 2

    @property
    def free(self) -> int:
        return geometry(self.vertices).full & ~(self.red | self.green)

    def loser(self) -> int | None:
        """The seat whose colour holds a triangle (it made the last move), or None."""
        geo = geometry(self.vertices)
        if geo.has_triangle(self.red):
            return 0
        if geo.has_triangle(self.green):
            return 1
        return None

    def is_over(self) -> bool:
        return self.loser() is not None or self.free == 0

    def with_edge(self, edge: int) -> SimPosition:
        """The position after the player to move colours `edge` (assumed free)."""
        bit = 1 << edge
        if self.seat_to_move == 0:
            return SimPosition(self.vertices, self.red | bit, self.green)
        return SimPosition(self.vertices, self.red, self.green | bit)
