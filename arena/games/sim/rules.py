"""Sim's rules as pure values: the board geometry, positions as bitboards, moves.

Sim is played on a simple graph on n vertices: the complete graph K_n (the usual
game) or any other (the seed's footnote), given by its edge mask. Edges are numbered
as in K_n, in lexicographic order (0-1, 0-2, ..., (n-2)-(n-1)), whether or not the
graph has them; a set of edges is an int with bit `e` set for edge `e`. A position is
the pair of edge sets of the first (red) and second (green) player. Nothing here does
I/O or draws random numbers.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from itertools import combinations

from arena.errors import SettingsError

__all__ = [
    "MAX_VERTICES",
    "MIN_VERTICES",
    "Geometry",
    "SimPosition",
    "automorphisms",
    "edge_mask",
    "geometry",
]

MIN_VERTICES = 3
MAX_VERTICES = 8


@dataclass(frozen=True)
class Geometry:
    """The fixed tables of a graph on n vertices: edge numbering (K_n's), the graph's
    edges and triangles, and who borders whom."""

    vertices: int
    edges: tuple[tuple[int, int], ...]
    """Edge number -> its two vertices, smaller first (every pair: K_n's numbering)."""
    edge_index: tuple[tuple[int, ...], ...]
    """``edge_index[i][j]`` is the number of edge i-j (-1 on the diagonal)."""
    triangles: tuple[int, ...]
    """Every triangle of the graph as a mask of its three edges."""
    closing_pairs: tuple[tuple[int, ...], ...]
    """Per edge: masks of the edge pairs that close a triangle of the graph with it."""
    full: int
    """The mask of the graph's edges (all of K_n's for the complete graph)."""

    @property
    def num_edges(self) -> int:
        """Edge numbers run below this (K_n's count; the graph may lack some)."""
        return len(self.edges)

    @property
    def complete(self) -> bool:
        return self.full == (1 << len(self.edges)) - 1

    def has_edge(self, edge: int) -> bool:
        return bool(self.full >> edge & 1)

    def graph_edges(self) -> list[tuple[int, int]]:
        """The graph's edges, in number order."""
        return self.edges_of(self.full)

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
def geometry(vertices: int, graph: int | None = None) -> Geometry:
    """The tables of the graph with edge mask `graph` on `vertices` vertices (``None``:
    the complete graph K_vertices). Cached: they never change."""
    edges = tuple(combinations(range(vertices), 2))
    full = (1 << len(edges)) - 1 if graph is None else graph
    index = [[-1] * vertices for _ in range(vertices)]
    for number, (i, j) in enumerate(edges):
        index[i][j] = index[j][i] = number
    triangles = tuple(
        t for t in (
            (1 << index[a][b]) | (1 << index[a][c]) | (1 << index[b][c])
            for a, b, c in combinations(range(vertices), 3)
        )
        if full & t == t
    )
    closing = tuple(
        tuple(t & ~(1 << e) for t in triangles if t >> e & 1) for e in range(len(edges))
    )
    return Geometry(vertices, edges, tuple(tuple(r) for r in index), triangles, closing, full)


def edge_mask(vertices: int, pairs: object) -> int | None:
    """The mask of a graph given as a list of vertex pairs, or ``None`` for K_vertices.

    Raises `SettingsError` (a `ValueError`) naming the first bad item: not a pair of
    integers, a vertex out of range, a loop, an edge listed twice, or no edge at all.
    """
    if not isinstance(pairs, (list, tuple)):
        # (a ValueError like every other defect of an edge list: it is a bad setting)
        raise ValueError(  # noqa: TRY004
            f"edges must be a list of vertex pairs, not {type(pairs).__name__}"
        )
    if not pairs:
        raise SettingsError("the graph needs at least one edge", code="no-edges")
    geo = geometry(vertices)
    mask = 0
    for item in pairs:
        if (
            not isinstance(item, (list, tuple)) or len(item) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in item)
        ):
            raise ValueError(f"edge {item!r} is not a pair of vertex numbers")
        a, b = item
        if not (0 <= a < vertices and 0 <= b < vertices):
            raise SettingsError(f"edge {a}-{b}: vertices are 0 to {vertices - 1}",
                                code="edge-vertex", params={"edge": f"{a}-{b}", "last": vertices - 1})
        if a == b:
            raise SettingsError(f"edge {a}-{b} is a loop (the graph must be simple)",
                                code="edge-loop", params={"edge": f"{a}-{b}"})
        bit = 1 << geo.edge_index[a][b]
        if mask & bit:
            raise SettingsError(f"edge {min(a, b)}-{max(a, b)} is listed twice",
                                code="edge-twice", params={"edge": f"{min(a, b)}-{max(a, b)}"})
        mask |= bit
    return None if mask == geo.full else mask


@functools.cache
def automorphisms(vertices: int, graph: int | None) -> tuple[tuple[int, ...], ...]:
    """The vertex permutations that map the graph onto itself (the identity first).

    Backtracking: a vertex may only go where adjacency to the vertices already placed
    is kept, so a graph with few symmetries is done after a few hundred steps.
    """
    geo = geometry(vertices, graph)
    adjacent = [[geo.full >> geo.edge_index[a][b] & 1 if a != b else 0 for b in range(vertices)]
                for a in range(vertices)]
    found: list[tuple[int, ...]] = []
    image = [-1] * vertices
    used = [False] * vertices

    def place(v: int) -> None:
        if v == vertices:
            found.append(tuple(image))
            return
        for w in range(vertices):
            if used[w] or any(adjacent[v][u] != adjacent[w][image[u]] for u in range(v)):
                continue
            used[w] = True
            image[v] = w
            place(v + 1)
            used[w] = False
        image[v] = -1

    place(0)
    return tuple(found)


@dataclass(frozen=True, slots=True)
class SimPosition:
    """Who has coloured which edges. Red (seat 0) moves first."""

    vertices: int
    red: int = 0
    green: int = 0
    graph: int | None = None
    """The graph's edge mask (``None``: K_vertices)."""

    @property
    def moves_made(self) -> int:
        return self.red.bit_count() + self.green.bit_count()

    @property
    def seat_to_move(self) -> int:
        return self.moves_made % 2

    @property
    def free(self) -> int:
        return geometry(self.vertices, self.graph).full & ~(self.red | self.green)

    def loser(self) -> int | None:
        """The seat whose colour holds a triangle (it made the last move), or None."""
        geo = geometry(self.vertices, self.graph)
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
            return SimPosition(self.vertices, self.red | bit, self.green, self.graph)
        return SimPosition(self.vertices, self.red, self.green | bit, self.graph)
